/* template.c — rendering templates: the property replacer.
 *
 * A template compiles once, at config load (template_parse.c), into a flat
 * array of steps (constants and properties with their replacer options;
 * regexes compiled there too). tpl_render() walks the steps and appends to the
 * caller's buffer; per-message transformations work in per-thread scratch
 * buffers that are reused, so rendering does not allocate once they have
 * grown. The processing order of the replacer options and their quirks
 * follow rsyslog 8.2302 (runtime/msg.c MsgGetProp, template.c), checked
 * against rsyslogd output.
 *
 * Threading: templates are created and destroyed by the main thread at
 * load/exit and read-only in between; tpl_render() is reentrant (its state
 * is on the stack and in thread-local buffers).
 */
#include "template.h"
#include "template_int.h"
#include "prop.h"
#include "msg.h"
#include "script.h"
#include "datetime.h"
#include "ast.h"
#include "log.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <libestr.h>
#include <json.h>


/* ---------------------------------------------------------------- time */

static const int ten_pow[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
			       100000000 };

/* rsyslog's syslogTime2time_t leap rule and offset handling. */
static long days_before_year(int y)
{
	long d = 0;
	for (int i = 1970; i < y; i++)
		d += ((i % 100 != 0 && i % 4 == 0) || i == 2000) ? 366 : 365;
	return d;
}

static const int month_days[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };

static long yday0(const struct syslog_time *t)
{
	long d = month_days[(t->month - 1) % 12];
	if (((t->year % 100 != 0 && t->year % 4 == 0) || t->year == 2000) && t->month > 2)
		d++;
	return d + t->day - 1;
}

static long off_secs(const struct syslog_time *t)
{
	return t->off_hour * 3600L + t->off_minute * 60L;
}

static long long rs_epoch(const struct syslog_time *t)
{
	if (t->year < 1970 || t->year > 2100)
		return 0;
	long long s = (days_before_year(t->year) + yday0(t)) * 86400LL
		      + t->hour * 3600 + t->minute * 60 + t->second;
	return t->off_mode == '+' ? s - off_secs(t) : s + off_secs(t);
}

/* getOrdinal() of rsyslog, including its offset quirk. */
static int rs_ordinal(const struct syslog_time *t)
{
	if (t->year < 1970 || t->year > 2100)
		return 0;
	long long this_t = rs_epoch(t);
	long long prev = days_before_year(t->year) * 86400LL - 1;
	long utc = off_secs(t);
	if (t->off_mode == '+')
		utc += -1;
	prev += utc;
	return (int)((this_t - prev) / 86400);
}

static int rs_wday(const struct syslog_time *t)
{
	int g = t->year, f;
	if (t->month < 3) {
		g--;
		f = t->month + 13;
	} else {
		f = t->month + 1;
	}
	return (((36525 * g) / 100) + ((306 * f) / 10) + t->day - 621049) % 7;
}

/* The weekday for date-wday and date-wdayname. rsyslog's formula goes
 * negative before about 1700 and 8.2302 then indexes its name tables out
 * of bounds (garbage, or a crash for wdayname): sluice continues the
 * seven-day cycle instead. rs_week() keeps the raw value, as rsyslog. */
static int wday_0_6(const struct syslog_time *t)
{
	int w = rs_wday(t) % 7;
	return w < 0 ? w + 7 : w;
}

static int rs_week(const struct syslog_time *t)
{
	struct syslog_time y = *t;
	y.month = 1;
	y.day = 1;
	int w = (rs_ordinal(t) + 6) / 7;
	if (rs_wday(t) < rs_wday(&y))
		w++;
	return w;
}

static void to_utc(const struct syslog_time *in, struct syslog_time *out)
{
	time_t e = (time_t)rs_epoch(in);
	struct tm tm;
	gmtime_r(&e, &tm);
	memset(out, 0, sizeof(*out));
	out->year = (int16_t)(tm.tm_year + 1900);
	out->month = (uint8_t)(tm.tm_mon + 1);
	out->day = (uint8_t)tm.tm_mday;
	out->hour = (uint8_t)tm.tm_hour;
	out->minute = (uint8_t)tm.tm_min;
	out->second = (uint8_t)tm.tm_sec;
	out->secfrac = in->secfrac;     /* rsyslog keeps the raw value ... */
	out->secfrac_digits = 6;        /* ... as microseconds */
	out->off_mode = '+';
	out->valid = 1;
}

static size_t fmt_num(char *buf, int v, int width)
{
	return (size_t)snprintf(buf, DT_MAX_LEN, "%0*d", width, v);
}

static size_t fmt_time_uncached(const struct syslog_time *t, enum tpl_datefmt fmt, char *buf)
{
	switch (fmt) {
	case TPL_DF_DEFAULT:
	case TPL_DF_RFC3164: return dt_fmt_rfc3164(t, buf);
	case TPL_DF_RFC3164_BUGGY:
		/* rsyslogd 8.2302 prints date-rfc3164-buggyday like date-rfc3164
		 * (checked on its output) */
		return dt_fmt_rfc3164(t, buf);
	case TPL_DF_RFC3339: return dt_fmt_rfc3339(t, buf);
	case TPL_DF_MYSQL: return dt_fmt_mysql(t, buf);
	case TPL_DF_PGSQL: return dt_fmt_pgsql(t, buf);
	case TPL_DF_UNIX: return (size_t)snprintf(buf, DT_MAX_LEN, "%u", (unsigned)rs_epoch(t));
	case TPL_DF_SECFRAC:
		if (t->secfrac_digits == 0) {
			buf[0] = '0';
			buf[1] = '\0';
			return 1;
		} else {
			int d = (t->secfrac_digits - 1) % 6 + 1;
			return (size_t)snprintf(buf, DT_MAX_LEN, "%0*u", d,
						(unsigned)(t->secfrac % (unsigned)ten_pow[d]));
		}
	case TPL_DF_WDAYNAME: {
		const char *w = dt_wday_names[wday_0_6(t)];
		size_t n = strlen(w);
		memcpy(buf, w, n + 1);
		return n;
	}
	case TPL_DF_WDAY: return fmt_num(buf, wday_0_6(t), 1);
	case TPL_DF_YEAR: return fmt_num(buf, t->year, 4);
	case TPL_DF_MONTH: return fmt_num(buf, t->month, 2);
	case TPL_DF_DAY: return fmt_num(buf, t->day, 2);
	case TPL_DF_HOUR: return fmt_num(buf, t->hour, 2);
	case TPL_DF_MINUTE: return fmt_num(buf, t->minute, 2);
	case TPL_DF_SECOND: return fmt_num(buf, t->second, 2);
	case TPL_DF_TZOFFSHOUR: return fmt_num(buf, t->off_hour, 2);
	case TPL_DF_TZOFFSMIN: return fmt_num(buf, t->off_minute, 2);
	case TPL_DF_TZOFFSDIR:
		buf[0] = t->off_mode == '+' ? '+' : '-';
		buf[1] = '\0';
		return 1;
	case TPL_DF_ORDINAL: return fmt_num(buf, rs_ordinal(t) + 1, 3);
	case TPL_DF_WEEK: return fmt_num(buf, rs_week(t), 2);
	}
	buf[0] = '\0';
	return 0;
}

/* Per-thread cache: the last timestamp formatted as RFC3164 and RFC3339
 * (the forms the built-in templates use on every message). */
struct time_cache {
	struct syslog_time t;
	size_t len;
	char buf[DT_MAX_LEN];
	bool set;
};
static __thread struct time_cache tcache[2];

/* Same date, time of day (to the second) and offset; the fraction may differ. */
static inline bool same_second(const struct syslog_time *a, const struct syslog_time *b)
{
	return a->second == b->second && a->minute == b->minute && a->hour == b->hour &&
	       a->day == b->day && a->month == b->month && a->year == b->year &&
	       a->off_mode == b->off_mode && a->off_hour == b->off_hour &&
	       a->off_minute == b->off_minute && a->valid == b->valid;
}

size_t tpl_fmt_time(const struct syslog_time *t, enum tpl_datefmt fmt, bool utc, char *buf)
{
	struct syslog_time u;
	if (utc) {
		to_utc(t, &u);
		t = &u;
	}
	int slot = fmt == TPL_DF_RFC3339 ? 1 : (fmt == TPL_DF_DEFAULT || fmt == TPL_DF_RFC3164) ? 0 : -1;
	if (slot < 0)
		return fmt_time_uncached(t, fmt, buf);
	struct time_cache *c = &tcache[slot];
	if (slot == 1 && c->set && same_second(&c->t, t)) {
		/* RFC3339 with another fraction (every RFC5424 message has its
		 * own): the cached date, time and offset around new digits */
		size_t tail = c->t.off_mode == 'Z' ? 1 : 6, n = 19;
		memcpy(buf, c->buf, 19);
		if (t->secfrac_digits > 0) {
			buf[n++] = '.';
			n += dt_fmt_secfrac(t, buf + n);
		}
		memcpy(buf + n, c->buf + c->len - tail, tail);
		n += tail;
		buf[n] = '\0';
		return n;
	}
	if (!c->set || memcmp(&c->t, t, sizeof(*t)) != 0) {
		c->len = fmt_time_uncached(t, fmt, c->buf);
		c->t = *t;
		c->set = true;
	}
	memcpy(buf, c->buf, c->len + 1);
	return c->len;
}

/* ------------------------------------------------------- escaping */

static const char hexdigit[] = "0123456789abcdef";

/* rsyslog's jsonAddVal: `escape_all` false = jsonr (keep existing escapes). */
static bool json_escape(struct sbuf *o, const char *p, size_t n, bool escape_all)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if ((c >= 0x23 && c <= 0x2e) || (c >= 0x30 && c <= 0x5b) || c >= 0x5d
		    || c == 0x20 || c == 0x21) {
			if (!sbuf_putc(o, (char)c))
				return false;
			continue;
		}
		char e[7];
		size_t en = 2;
		e[0] = '\\';
		switch (c) {
		case '\0': memcpy(e, "\\u0000", 6); en = 6; break;
		case '"': e[1] = '"'; break;
		case '/': e[1] = '/'; break;
		case '\\':
			if (!escape_all && i + 1 < n) {
				char nc = p[i + 1];
				if (nc == '"' || nc == '/' || nc == '\\' || nc == 'b' || nc == 'f'
				    || nc == 'n' || nc == 'r' || nc == 't' || nc == 'u') {
					e[1] = nc;
					i++;
					break;
				}
			}
			e[1] = '\\';
			break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		default:
			e[1] = 'u';
			e[2] = '0';
			e[3] = '0';
			e[4] = hexdigit[c >> 4];
			e[5] = hexdigit[c & 15];
			en = 6;
			break;
		}
		if (!sbuf_append(o, e, en))
			return false;
	}
	return true;
}

/* Template-level option.sql / stdsql / json (rsyslog doEscape). */
static bool append_escaped(struct sbuf *o, const char *p, size_t n, uint8_t esc)
{
	if (esc != ESC_SQL && esc != ESC_STDSQL && esc != ESC_JSON)
		return sbuf_append(o, p, n);
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		bool ok = true;
		if ((esc == ESC_SQL || esc == ESC_STDSQL) && c == '\'')
			ok = sbuf_putc(o, esc == ESC_STDSQL ? '\'' : '\\');
		else if (esc == ESC_SQL && c == '\\')
			ok = sbuf_putc(o, '\\');
		else if (esc == ESC_JSON && (c == '"' || c == '\\'))
			ok = sbuf_putc(o, '\\');
		if (!ok || !sbuf_putc(o, c))
			return false;
	}
	return true;
}

/* ------------------------------------------------------- rendering */

/* Per-thread work buffers: property scratch and two ping-pong buffers
 * for transformations. Grown once, reused for every message. */
static __thread struct sbuf tls_scratch, tls_work[2];

struct val {
	const char *p;
	size_t n;
	int cur;     /* index of the work buffer p lives in, -1 = elsewhere */
};

/* Start a new copy in the work buffer that `v` does not use. */
static struct sbuf *next_buf(struct val *v)
{
	int i = v->cur == 0 ? 1 : 0;
	sbuf_reset(&tls_work[i]);
	return &tls_work[i];
}

static bool commit(struct val *v, struct sbuf *b)
{
	if (!sbuf_cstr(b))
		return false;
	v->p = b->buf;
	v->n = b->len;
	v->cur = b == &tls_work[0] ? 0 : 1;
	return true;
}

static void set_const(struct val *v, const char *s)
{
	v->p = s;
	v->n = strlen(s);
	v->cur = -1;
}

static bool get_value(const struct tpl_step *s, struct msg *m, struct val *v)
{
	v->cur = -1;
	if (s->ref.id == PROP_TIMEREPORTED || s->ref.id == PROP_TIMEGENERATED) {
		struct sbuf *b = &tls_work[0];
		sbuf_reset(b);
		if (!sbuf_grow(b, DT_MAX_LEN))
			return false;
		b->len = tpl_fmt_time(s->ref.id == PROP_TIMEREPORTED ? &m->t_reported
				      : &m->t_received, (enum tpl_datefmt)s->datefmt, s->date_utc,
				      b->buf);
		v->p = b->buf;
		v->n = b->len;
		v->cur = 0;
		return true;
	}
	v->p = prop_get(m, &s->ref, &v->n, &tls_scratch);
	return true;
}

static bool do_field(const struct tpl_step *s, struct val *v)
{
	const char *p = v->p, *end = v->p + v->n;
	int cur = 1;
	while (p < end && cur < s->field_nr) {
		while (p < end && (unsigned char)*p != s->field_delim)
			p++;
		if (p < end) {
			p++;
			if (s->field_expand)
				while (p < end && (unsigned char)*p == s->field_delim)
					p++;
			cur++;
		}
	}
	if (cur != s->field_nr)
		return false;
	const char *e = p;
	while (e < end && (unsigned char)*e != s->field_delim)
		e++;
	v->p = p;
	v->n = (size_t)(e - p);
	return true;
}

static bool do_regex(const struct tpl_step *s, struct val *v)
{
	struct sbuf *b = next_buf(v);
	if (!sbuf_append(b, v->p, v->n) || !sbuf_cstr(b))
		return false;
	const char *str = b->buf;
	regmatch_t pm[10];
	size_t off = 0;
	int tries = 0;
	bool found = false;
	while (!found) {
		if (off > b->len ||
		    (s->re_pcre ? script_regex_pcre_exec(s->re_pcre, str + off, 10, pm)
				: regexec(&s->re, str + off, 10, pm, 0)) != 0 ||
		    pm[0].rm_so == -1)
			break;
		if (tries == s->re_match) {
			found = true;
		} else {
			off += pm[0].rm_eo > 0 ? (size_t)pm[0].rm_eo : 1;
			tries++;
		}
	}
	if (!found) {
		switch (s->nomatch) {
		case NM_DFLT: set_const(v, "**NO MATCH**"); break;
		case NM_ZERO: set_const(v, "0"); break;
		case NM_BLANK: set_const(v, ""); break;
		default: break;   /* FIELD: keep the whole value */
		}
		return true;
	}
	int sm = s->re_submatch;
	if (pm[sm].rm_so == -1) {
		/* rsyslog then copies an empty match, whatever the nomatch mode */
		set_const(v, "");
		return true;
	}
	v->p = str + off + pm[sm].rm_so;
	v->n = (size_t)(pm[sm].rm_eo - pm[sm].rm_so);
	v->cur = b == &tls_work[0] ? 0 : 1;
	return true;
}

#define TPL_PAD_MAX (64 * 1024)

static bool do_substring(const struct tpl_step *s, struct val *v)
{
	long len = (long)v->n;
	long from = s->from, to = s->to;
	if (s->rel_end) {
		from = len < from ? 0 : len - from;
		to = len < to ? 0 : len - to;
	} else {
		if (from > 0)
			from--;
		if (to > 0)
			to--;
	}
	if (from >= len) {
		set_const(v, "");
		return true;
	}
	if (from == 0 && to >= len && !s->fixed_width)
		return true;
	if (to >= len && !s->fixed_width)
		to = len - 1;
	long want = to - from + 1;
	if (want <= 0) {
		set_const(v, "");
		return true;
	}
	long avail = len - from;
	if (!s->fixed_width) {
		v->p += from;
		v->n = (size_t)(want < avail ? want : avail);
		return true;
	}
	/* fixed-width pads with spaces to the from:to width, but not beyond
	 * TPL_PAD_MAX bytes: %msg:1:2000000000:fixed-width% must not make
	 * every line gigabytes long (the text itself is never cut) */
	if (want > TPL_PAD_MAX && want > avail)
		want = avail > TPL_PAD_MAX ? avail : TPL_PAD_MAX;
	struct sbuf *b = next_buf(v);
	if (!sbuf_append(b, v->p + from, (size_t)(want < avail ? want : avail)))
		return false;
	size_t pad = (size_t)want - b->len;
	if (pad && !sbuf_grow(b, pad))
		return false;
	memset(b->buf + b->len, ' ', pad);
	b->len += pad;
	return commit(v, b);
}

static bool do_compress(struct val *v)
{
	struct sbuf *b = next_buf(v);
	bool prev_sp = false;
	for (size_t i = 0; i < v->n; i++) {
		if (v->p[i] == ' ') {
			if (prev_sp)
				continue;
			prev_sp = true;
		} else {
			prev_sp = false;
		}
		if (!sbuf_putc(b, v->p[i]))
			return false;
	}
	return commit(v, b);
}

static bool do_map(const struct tpl_step *s, struct val *v)
{
	struct sbuf *b = next_buf(v);
	if (!sbuf_grow(b, v->n * 4 + 1))
		return false;
	char *o = b->buf;
	for (size_t i = 0; i < v->n; i++) {
		unsigned char c = (unsigned char)v->p[i];
		if (s->caseconv)
			c = (unsigned char)(s->caseconv == 2 ? toupper(c) : tolower(c));
		if (s->cc != CC_NONE && iscntrl(c)) {
			if (s->cc == CC_DROP)
				continue;
			if (s->cc == CC_SPACE) {
				*o++ = ' ';
				continue;
			}
			o += snprintf(o, 5, "#%3.3d", c);
			continue;
		}
		*o++ = (char)c;
	}
	b->len = (size_t)(o - b->buf);
	return commit(v, b);
}

static bool do_secpath(const struct tpl_step *s, struct val *v, bool copied)
{
	struct sbuf *b = next_buf(v);
	for (size_t i = 0; i < v->n; i++) {
		char c = v->p[i];
		if (c == '/') {
			if (s->secpath == 1)
				continue;
			c = '_';
			/* rsyslog's in-place variant skips the character after a
			 * replaced slash */
			if (copied && i + 1 < v->n) {
				if (!sbuf_putc(b, c))
					return false;
				c = v->p[++i];
			}
		}
		if (!sbuf_putc(b, c))
			return false;
	}
	if (!commit(v, b))
		return false;
	if (v->n == 0)
		set_const(v, "_");
	else if (v->n == 1 && v->p[0] == '.')
		set_const(v, "_");
	else if (v->n == 2 && v->p[0] == '.' && v->p[1] == '.')
		set_const(v, "_.");
	return true;
}

static bool is_json_number(const char *p, size_t n)
{
	if (n == 0)
		return false;
	size_t i = 0;
	if (p[0] == '-')
		i++;
	if (i == n)
		return false;
	for (; i < n; i++)
		if (!isdigit((unsigned char)p[i]))
			return false;
	return true;
}

/* format=csv/json/jsonf/jsonr/jsonfr. Returns false on ENOMEM; sets
 * *skip when onEmpty="skip" drops the field. */
static bool do_format(const struct tpl_step *s, struct val *v, bool *skip)
{
	struct sbuf *b = next_buf(v);
	bool ok = true;
	switch (s->format) {
	case FMT_CSV:
		ok = sbuf_putc(b, '"');
		for (size_t i = 0; ok && i < v->n; i++) {
			if (v->p[i] == '"')
				ok = sbuf_putc(b, '"');
			ok = ok && sbuf_putc(b, v->p[i]);
		}
		ok = ok && sbuf_putc(b, '"');
		break;
	case FMT_JSON:
	case FMT_JSONR:
		ok = json_escape(b, v->p, v->n, s->format == FMT_JSON);
		break;
	case FMT_JSONF:
	case FMT_JSONFR: {
		if (v->n == 0 && s->onempty == EMPTY_SKIP) {
			*skip = true;
			set_const(v, "");
			return true;
		}
		ok = sbuf_putc(b, '"') && sbuf_append(b, s->outname, s->outname_len)
		     && sbuf_append(b, "\":", 2);
		if (!ok)
			break;
		if (v->n == 0 && s->onempty == EMPTY_NULL) {
			ok = sbuf_append(b, "null", 4);
			break;
		}
		bool quote = true;
		if (s->dtype == DT_NUMBER) {
			quote = false;
			if (v->n == 0) {
				ok = sbuf_putc(b, '0');
				break;
			}
		} else if (s->dtype == DT_BOOL) {
			bool f = (v->n == 1 && v->p[0] == '0')
				 || (v->n == 5 && memcmp(v->p, "false", 5) == 0);
			ok = sbuf_puts(b, f ? "false" : "true");
			break;
		} else if (s->dtype == DT_AUTO) {
			quote = !is_json_number(v->p, v->n);
		}
		if (quote)
			ok = sbuf_putc(b, '"');
		ok = ok && json_escape(b, v->p, v->n, s->format == FMT_JSONF);
		if (quote)
			ok = ok && sbuf_putc(b, '"');
		break;
	}
	default:
		return true;
	}
	return ok && commit(v, b);
}

/* Apply a property step's replacer options to `v` (rsyslog's order). */
static bool apply_options(const struct tpl_step *s, struct val *v, bool *skip)
{
	bool copied = false;
	if (s->has_field) {
		if (!do_field(s, v)) {
			set_const(v, "**FIELD NOT FOUND**");
			return true;
		}
		copied = true;
	} else if (s->has_regex == 2) {
		set_const(v, "**NO MATCH** **BAD REGULAR EXPRESSION**");
		return true;
	} else if (s->has_regex) {
		if (!do_regex(s, v))
			return false;
		copied = true;
	}
	if (s->from || s->to) {
		size_t before = v->n;
		const char *bp = v->p;
		if (!do_substring(s, v))
			return false;
		if (v->p != bp || v->n != before)
			copied = true;
	}
	if (s->compress) {
		if (!do_compress(v))
			return false;
		copied = true;
	}
	if (v->n && s->spif)
		set_const(v, v->p[0] == ' ' ? "" : " ");
	else if (v->n == 0 && s->spif && s->spif_empty)
		set_const(v, " ");
	if (v->n && (s->caseconv || s->cc != CC_NONE)) {
		if (!do_map(s, v))
			return false;
		copied = true;
	}
	if (s->secpath && !do_secpath(s, v, copied))
		return false;
	if (s->droplf && s->cc != CC_ESCAPE && v->n && v->p[v->n - 1] == '\n')
		v->n--;
	if (s->format != FMT_NONE)
		return do_format(s, v, skip);
	return true;
}

static bool render_steps(const struct template *t, struct msg *m, struct sbuf *out)
{
	bool jsonf = t->esc == ESC_JSONF;
	bool first = true;
	if (t->is_subtree) {
		size_t n;
		const char *p = prop_get(m, &t->subtree, &n, &tls_scratch);
		if (t->subtree.id == PROP_CEE && m->json) {
			struct fjson_object *j = prop_json_find(m->json, t->subtree.path);
			if (j)
				p = json_object_get_string(j), n = strlen(p);
		}
		return sbuf_append(out, p, n);
	}
	if (jsonf && !sbuf_putc(out, '{'))
		return false;
	for (int i = 0; i < t->n_steps; i++) {
		const struct tpl_step *s = &t->steps[i];
		struct val v;
		bool skip = false;
		if (s->kind == STEP_CONST) {
			v.p = s->cst;
			v.n = s->cst_len;
		} else {
			if (!get_value(s, m, &v) || !apply_options(s, &v, &skip))
				return false;
			if (skip)
				continue;
		}
		if (jsonf) {
			if (!first && !sbuf_append(out, ", ", 2))
				return false;
			first = false;
		}
		if (s->kind == STEP_CONST) {
			if (!sbuf_append(out, v.p, v.n))
				return false;
		} else if (!append_escaped(out, v.p, v.n, t->esc)) {
			return false;
		}
	}
	if (jsonf && !sbuf_append(out, "}\n", 2))
		return false;
	return true;
}

bool tpl_render_generic(const struct template *t, struct msg *m, struct sbuf *out)
{
	return render_steps(t, m, out);
}

bool tpl_render(const struct template *t, struct msg *m, struct sbuf *out)
{
	if (t->strgen)
		return t->strgen(m, out);
	return render_steps(t, m, out);
}

