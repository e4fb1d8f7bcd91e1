/* template.c — templates and the property replacer.
 *
 * A template compiles once, at config load, into a flat array of steps
 * (constants and properties with their replacer options; regexes are
 * compiled here too). tpl_render() walks the steps and appends to the
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
#include "prop.h"
#include "msg.h"
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

enum step_kind { STEP_CONST, STEP_PROP };
enum fmt_kind { FMT_NONE, FMT_CSV, FMT_JSON, FMT_JSONF, FMT_JSONR, FMT_JSONFR };
enum cc_kind { CC_NONE, CC_ESCAPE, CC_SPACE, CC_DROP };
enum tpl_esc { ESC_NONE, ESC_SQL, ESC_STDSQL, ESC_JSON, ESC_JSONF };
enum nomatch_kind { NM_DFLT, NM_BLANK, NM_FIELD, NM_ZERO };
enum dtype_kind { DT_STRING, DT_NUMBER, DT_BOOL, DT_AUTO };
enum empty_kind { EMPTY_KEEP, EMPTY_SKIP, EMPTY_NULL };

struct tpl_step {
	enum step_kind kind;
	char *cst;                 /* STEP_CONST text */
	size_t cst_len;
	struct prop_ref ref;
	uint8_t datefmt;           /* enum tpl_datefmt */
	bool date_utc;
	int from, to;              /* 1-based, 0 = unset */
	bool rel_end, fixed_width;
	bool has_field, field_expand;
	int field_nr;
	unsigned char field_delim;
	uint8_t has_regex;         /* 0 none, 1 ok, 2 failed to compile */
	regex_t re;
	int re_match, re_submatch;
	uint8_t nomatch;
	uint8_t caseconv;          /* 0 none, 1 lower, 2 upper */
	bool spif;                 /* sp-if-no-1st-sp */
	bool spif_empty;           /* strgen semantics: also a SP for an empty value */
	bool compress;
	uint8_t cc, secpath;       /* secpath: 0 none, 1 drop, 2 replace */
	bool droplf, mandatory;
	uint8_t format, dtype, onempty;
	char *outname;
	size_t outname_len;
};

struct template {
	char *name;
	struct tpl_step *steps;
	int n_steps;
	uint8_t esc;
	bool casesensitive;
	bool is_subtree;
	struct prop_ref subtree;
	tpl_strgen_fn strgen;
	struct template *next;
};

static struct template *tpl_list;

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
		const char *w = dt_wday_names[rs_wday(t) % 7];
		size_t n = strlen(w);
		memcpy(buf, w, n + 1);
		return n;
	}
	case TPL_DF_WDAY: return fmt_num(buf, rs_wday(t), 1);
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
		if (off > b->len || regexec(&s->re, str + off, 10, pm, 0) != 0 || pm[0].rm_so == -1)
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
	struct sbuf *b = next_buf(v);
	if (!sbuf_append(b, v->p + from, (size_t)(want < avail ? want : avail)))
		return false;
	while ((long)b->len < want)
		if (!sbuf_putc(b, ' '))
			return false;
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

/* ------------------------------------------------------- compiling */

static struct tpl_step *add_step(struct template *t)
{
	t->steps = sl_xrealloc(t->steps, sizeof(*t->steps) * (size_t)(t->n_steps + 1));
	struct tpl_step *s = &t->steps[t->n_steps++];
	memset(s, 0, sizeof(*s));
	s->field_delim = 9;
	return s;
}

static void add_const(struct template *t, const char *p, size_t n)
{
	if (n == 0)
		return;
	struct tpl_step *s = add_step(t);
	s->kind = STEP_CONST;
	s->cst = sl_xstrndup(p, n);
	s->cst_len = n;
}

static void lower_str(char *p)
{
	for (; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

static bool is_var(enum prop_id id)
{
	return id == PROP_CEE || id == PROP_LOCAL_VAR || id == PROP_GLOBAL_VAR;
}

static bool set_format(struct tpl_step *s, uint8_t f, const struct cfg_pos *pos, const char *what)
{
	if (s->format != FMT_NONE) {
		cfg_warn(pos, "can only specify one option out of (json, jsonf, jsonr, jsonfr, csv)"
			 " - %s ignored", what);
		return false;
	}
	s->format = f;
	return true;
}

static const struct { const char *name; uint8_t fmt; } date_opts[] = {
	{ "mysql", TPL_DF_MYSQL }, { "pgsql", TPL_DF_PGSQL }, { "rfc3164", TPL_DF_RFC3164 },
	{ "rfc3164-buggyday", TPL_DF_RFC3164_BUGGY }, { "rfc3339", TPL_DF_RFC3339 },
	{ "unixtimestamp", TPL_DF_UNIX }, { "subseconds", TPL_DF_SECFRAC },
	{ "wdayname", TPL_DF_WDAYNAME }, { "wday", TPL_DF_WDAY }, { "year", TPL_DF_YEAR },
	{ "month", TPL_DF_MONTH }, { "day", TPL_DF_DAY }, { "hour", TPL_DF_HOUR },
	{ "minute", TPL_DF_MINUTE }, { "second", TPL_DF_SECOND },
	{ "tzoffshour", TPL_DF_TZOFFSHOUR }, { "tzoffsmin", TPL_DF_TZOFFSMIN },
	{ "tzoffsdirection", TPL_DF_TZOFFSDIR }, { "ordinal", TPL_DF_ORDINAL },
	{ "week", TPL_DF_WEEK },
};

static int date_fmt_by_name(const char *n)
{
	for (size_t i = 0; i < SL_ARRAY_SIZE(date_opts); i++)
		if (strcmp(date_opts[i].name, n) == 0)
			return date_opts[i].fmt;
	return -1;
}

/* The options after the second ':' of %prop:from:to:options% */
static void parse_options(const char **pp, struct tpl_step *s, const struct cfg_pos *pos)
{
	const char *p = *pp;
	while (*p && *p != '%' && *p != ':') {
		char b[64];
		size_t i = 0;
		while (i < sizeof(b) - 1 && *p && *p != '%' && *p != ':' && *p != ',')
			b[i++] = (char)tolower((unsigned char)*p++);
		b[i] = '\0';
		while (*p && *p != '%' && *p != ':' && *p != ',')
			p++;
		if (*p == ',')
			p++;
		int df;
		if (strncmp(b, "date-", 5) == 0 && (df = date_fmt_by_name(b + 5)) >= 0)
			s->datefmt = (uint8_t)df;
		else if (!strcmp(b, "date-utc")) s->date_utc = true;
		else if (!strcmp(b, "lowercase")) s->caseconv = 1;
		else if (!strcmp(b, "uppercase")) s->caseconv = 2;
		else if (!strcmp(b, "sp-if-no-1st-sp")) s->spif = true;
		else if (!strcmp(b, "compressspace")) s->compress = true;
		else if (!strcmp(b, "escape-cc")) s->cc = s->cc ? s->cc : CC_ESCAPE;
		else if (!strcmp(b, "drop-cc")) s->cc = CC_DROP;
		else if (!strcmp(b, "space-cc")) s->cc = s->cc == CC_DROP ? CC_DROP : CC_SPACE;
		else if (!strcmp(b, "drop-last-lf")) s->droplf = true;
		else if (!strcmp(b, "secpath-drop")) s->secpath = 1;
		else if (!strcmp(b, "secpath-replace")) s->secpath = s->secpath ? s->secpath : 2;
		else if (!strcmp(b, "pos-end-relative")) s->rel_end = true;
		else if (!strcmp(b, "fixed-width")) s->fixed_width = true;
		else if (!strcmp(b, "csv")) set_format(s, FMT_CSV, pos, b);
		else if (!strcmp(b, "json")) set_format(s, FMT_JSON, pos, b);
		else if (!strcmp(b, "jsonf")) set_format(s, FMT_JSONF, pos, b);
		else if (!strcmp(b, "jsonr")) set_format(s, FMT_JSONR, pos, b);
		else if (!strcmp(b, "jsonfr")) set_format(s, FMT_JSONFR, pos, b);
		else if (!strcmp(b, "mandatory-field")) s->mandatory = true;
		else
			cfg_warn(pos, "template error: invalid field option '%s' specified - ignored", b);
	}
	*pp = p;
}

static int read_num(const char **pp)
{
	int n = 0;
	while (isdigit((unsigned char)**pp))
		n = n * 10 + *(*pp)++ - '0';
	return n;
}

static bool compile_regex(struct tpl_step *s, const char *re, bool ere)
{
	if (regcomp(&s->re, re, ere ? REG_EXTENDED : 0) != 0) {
		s->has_regex = 2;
		return false;
	}
	s->has_regex = 1;
	return true;
}

/* One %...% parameter; *pp is just after the opening '%'. */
static enum sl_rc parse_param(const char **pp, struct template *t, const struct cfg_pos *pos)
{
	const char *p = *pp;
	const char *name = p;
	while (*p && *p != '%' && *p != ':')
		p++;
	size_t name_len = (size_t)(p - name);
	struct tpl_step *s = add_step(t);
	s->kind = STEP_PROP;
	if (!prop_ref_parse(name, name_len, &s->ref)) {
		cfg_error(pos, "invalid property '%.*s'", (int)name_len, name);
		return SL_ERR_CONFIG;
	}
	bool ere = false;
	if (*p == ':') {
		p++;
		if (*p == 'R') {
			p++;
			if (*p == ',') {
				p++;
				if (!strncmp(p, "BRE", 3) && (p[3] == ',' || p[3] == ':')) {
					p += 3;
				} else if (!strncmp(p, "ERE", 3) && (p[3] == ',' || p[3] == ':')) {
					ere = true;
					p += 3;
				} else {
					cfg_warn(pos, "invalid regular expression type, rest of line %s", p);
				}
			}
			if (*p == ',') {
				p++;
				if (isdigit((unsigned char)*p))
					s->re_submatch = *p++ - '0';
			}
			if (*p == ',') {
				p++;
				if (!strncmp(p, "DFLT", 4) && (p[4] == ',' || p[4] == ':')) {
					s->nomatch = NM_DFLT; p += 4;
				} else if (!strncmp(p, "BLANK", 5) && (p[5] == ',' || p[5] == ':')) {
					s->nomatch = NM_BLANK; p += 5;
				} else if (!strncmp(p, "FIELD", 5) && (p[5] == ',' || p[5] == ':')) {
					s->nomatch = NM_FIELD; p += 5;
				} else if (!strncmp(p, "ZERO", 4) && (p[4] == ',' || p[4] == ':')) {
					s->nomatch = NM_ZERO; p += 4;
				} else if (*p != ',') {
					cfg_warn(pos, "invalid regular expression type, rest of line %s", p);
				}
			}
			if (*p == ',') {
				p++;
				if (isdigit((unsigned char)*p))
					s->re_match = *p++ - '0';
			}
			if (*p != ':')
				cfg_warn(pos, "invalid character in frompos after \"R\", property: '%%%s'", *pp);
			else
				s->has_regex = 1;
		} else if (*p == 'F') {
			p++;
			s->has_field = true;
			if (*p == ',') {
				p++;
				if (!isdigit((unsigned char)*p)) {
					cfg_warn(pos, "invalid character in frompos after \"F,\" - using 9 (HT) as field delimiter");
				} else {
					int d = read_num(&p);
					s->field_delim = (unsigned char)(d > 255 ? 9 : d);
					if (*p == '+') {
						s->field_expand = true;
						p++;
					}
					if (*p == ',') {
						p++;
						s->from = read_num(&p);
					} else if (*p != ':') {
						cfg_error(pos, "error: invalid character '%c' in frompos after \"F,\", be sure to use DECIMAL character codes!", *p);
						return SL_ERR_CONFIG;
					}
				}
			} else if (*p != ':') {
				cfg_warn(pos, "invalid character in frompos after \"F\"");
			}
		} else {
			s->from = read_num(&p);
			while (*p && *p != '%' && *p != ':')
				p++;
		}
	}
	if (*p == ':') {
		p++;
		if (s->has_regex) {
			const char *e = strstr(p, "--end");
			if (!e) {
				s->has_regex = 0;
			} else {
				char *re = sl_xstrndup(p, (size_t)(e - p));
				compile_regex(s, re, ere);
				free(re);
				p = e + 5;
			}
		} else if (*p == '$') {
			p++;
			s->to = 9999999;
		} else {
			if (s->has_field) {
				s->field_nr = read_num(&p);
				if (*p == ',') {
					p++;
					s->to = read_num(&p);
				}
			} else {
				s->to = read_num(&p);
			}
			while (*p && *p != '%' && *p != ':')
				p++;
		}
	}
	if (*p == ':') {
		p++;
		parse_options(&p, s, pos);
	}
	if (s->rel_end ? s->to > s->from : s->to < s->from) {
		int x = s->to;
		s->to = s->from;
		s->from = x;
	}
	const char *fname = NULL;
	size_t fname_len = 0;
	if (*p == ':') {
		p++;
		fname = p;
		while (*p && *p != ':' && *p != '%')
			p++;
		fname_len = (size_t)(p - fname);
	}
	if (fname) {
		s->outname = sl_xstrndup(fname, fname_len);
	} else if (s->ref.id == PROP_CEE || s->ref.id == PROP_LOCAL_VAR) {
		s->outname = sl_xstrndup(name + 2, name_len - 2);
	} else {
		s->outname = sl_xstrndup(name, name_len);
	}
	s->outname_len = strlen(s->outname);
	if (*p)
		p++;   /* the closing '%' */
	*pp = p;
	return SL_OK;
}

/* Parse a template string. Legacy `$template` strings (`legacy`) process
 * backslash escapes and end at an unescaped '"'; RainerScript strings
 * arrive with escapes already processed. */
static enum sl_rc parse_string(struct template *t, const char **pp, bool legacy,
			       const struct cfg_pos *pos)
{
	const char *p = *pp;
	struct sbuf c = SBUF_INIT;
	enum sl_rc rc = SL_OK;
	while (*p && !(legacy && *p == '"')) {
		if (*p == '%') {
			add_const(t, c.buf, c.len);
			sbuf_reset(&c);
			p++;
			rc = parse_param(&p, t, pos);
			if (rc != SL_OK)
				goto fail;
			continue;
		}
		if (legacy && *p == '\\') {
			p++;
			switch (*p) {
			case '\0': break;
			case 'n': sbuf_putc(&c, '\n'); p++; break;
			case 'r': sbuf_putc(&c, '\r'); p++; break;
			case '\\': sbuf_putc(&c, '\\'); p++; break;
			case '%': sbuf_putc(&c, '%'); p++; break;
			default:
				if (isdigit((unsigned char)*p)) {
					int n = 0;
					while (isdigit((unsigned char)*p))
						n = n * 10 + *p++ - '0';
					sbuf_putc(&c, (char)n);
				} else {
					sbuf_putc(&c, *p++);
				}
				break;
			}
			continue;
		}
		sbuf_putc(&c, *p++);
	}
	add_const(t, c.buf, c.len);
	if (legacy && *p == '"')
		p++;
fail:
	sbuf_free(&c);
	*pp = p;
	return rc;
}

static void apply_case_sensitivity(struct template *t)
{
	if (t->casesensitive)
		return;
	for (int i = 0; i < t->n_steps; i++) {
		struct tpl_step *s = &t->steps[i];
		if (s->kind == STEP_PROP && is_var(s->ref.id)) {
			lower_str(s->ref.path);
			lower_str(s->outname);
		}
	}
}

static void tpl_free(struct template *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n_steps; i++) {
		struct tpl_step *s = &t->steps[i];
		free(s->cst);
		free(s->outname);
		prop_ref_free(&s->ref);
		if (s->has_regex == 1)
			regfree(&s->re);
	}
	free(t->steps);
	prop_ref_free(&t->subtree);
	free(t->name);
	free(t);
}

static const struct template *find(const char *name)
{
	for (const struct template *t = tpl_list; t; t = t->next)
		if (strcasecmp(t->name, name) == 0)
			return t;
	return NULL;
}

const struct template *tpl_find(const char *name)
{
	return name ? find(name) : NULL;
}

const char *tpl_name(const struct template *t)
{
	return t->name;
}

static enum sl_rc tpl_register(struct template *t, const struct cfg_pos *pos)
{
	if (find(t->name)) {
		if (pos)
			cfg_error(pos, "template '%s' is defined more than once", t->name);
		tpl_free(t);
		return SL_ERR_CONFIG;
	}
	struct template **pp = &tpl_list;
	while (*pp)
		pp = &(*pp)->next;
	*pp = t;
	return SL_OK;
}

/* ---- template() objects ---- */

static bool param_bool(const struct cfg_param *p)
{
	const char *v = p->val.str ? p->val.str : "";
	return !strcasecmp(v, "on") || !strcasecmp(v, "yes") || !strcmp(v, "1")
	       || !strcasecmp(v, "true");
}

static bool param_int(const struct cfg_param *p, int *out)
{
	char *end;
	const char *v = p->val.str ? p->val.str : "";
	long n = strtol(v, &end, 0);
	if (!*v || *end) {
		cfg_error(&p->pos, "parameter '%s': '%s' is not a number", p->name, v);
		return false;
	}
	*out = (int)n;
	return true;
}

static const char *pstr(const struct cfg_param *p)
{
	return p->val.str ? p->val.str : "";
}

static enum sl_rc bad_value(const struct cfg_param *p, const char *what)
{
	cfg_error(&p->pos, "invalid %s '%s' for property", what, pstr(p));
	return SL_ERR_CONFIG;
}

/* A property() object of a list template. */
static enum sl_rc list_property(struct template *t, struct cfg_obj *o)
{
	struct tpl_step *s = add_step(t);
	int from = -1, to = -1, fieldnum = -1, delim = 9;
	char *re = NULL;
	bool ere = false;
	enum sl_rc rc = SL_ERR_CONFIG;
	const char *name = "";
	s->kind = STEP_PROP;
	for (struct cfg_param *p = o->params; p; p = p->next) {
		const char *n = p->name, *v = pstr(p);
		p->used = true;
		if (!strcmp(n, "name")) {
			name = v;
		} else if (!strcmp(n, "outname")) {
			free(s->outname);
			s->outname = sl_xstrdup(v);
		} else if (!strcmp(n, "droplastlf")) {
			s->droplf = param_bool(p);
		} else if (!strcmp(n, "fixedwidth")) {
			s->fixed_width = param_bool(p);
		} else if (!strcmp(n, "mandatory")) {
			s->mandatory = param_bool(p);
		} else if (!strcmp(n, "spifno1stsp")) {
			s->spif = param_bool(p);
		} else if (!strcmp(n, "compressspace")) {
			s->compress = param_bool(p);
		} else if (!strcmp(n, "date.inutc")) {
			s->date_utc = param_bool(p);
		} else if (!strcmp(n, "position.relativetoend")) {
			s->rel_end = param_bool(p);
		} else if (!strcmp(n, "position.from")) {
			if (!param_int(p, &from)) goto fail;
		} else if (!strcmp(n, "position.to")) {
			if (!param_int(p, &to)) goto fail;
		} else if (!strcmp(n, "field.number")) {
			if (!param_int(p, &fieldnum)) goto fail;
		} else if (!strcmp(n, "field.delimiter")) {
			if (!param_int(p, &delim)) goto fail;
		} else if (!strcmp(n, "regex.expression")) {
			free(re);
			re = sl_xstrdup(v);
		} else if (!strcmp(n, "regex.type")) {
			if (!strcmp(v, "ERE")) ere = true;
			else if (strcmp(v, "BRE")) { bad_value(p, "regex.type"); goto fail; }
		} else if (!strcmp(n, "regex.nomatchmode")) {
			if (!strcmp(v, "DFLT")) s->nomatch = NM_DFLT;
			else if (!strcmp(v, "BLANK")) s->nomatch = NM_BLANK;
			else if (!strcmp(v, "FIELD")) s->nomatch = NM_FIELD;
			else if (!strcmp(v, "ZERO")) s->nomatch = NM_ZERO;
			else { bad_value(p, "format type"); goto fail; }
		} else if (!strcmp(n, "regex.match")) {
			if (!param_int(p, &s->re_match)) goto fail;
		} else if (!strcmp(n, "regex.submatch")) {
			if (!param_int(p, &s->re_submatch)) goto fail;
		} else if (!strcmp(n, "format")) {
			if (!strcmp(v, "csv")) s->format = FMT_CSV;
			else if (!strcmp(v, "json")) s->format = FMT_JSON;
			else if (!strcmp(v, "jsonf")) s->format = FMT_JSONF;
			else if (!strcmp(v, "jsonr")) s->format = FMT_JSONR;
			else if (!strcmp(v, "jsonfr")) s->format = FMT_JSONFR;
			else { bad_value(p, "format type"); goto fail; }
		} else if (!strcmp(n, "controlcharacters")) {
			if (!strcmp(v, "escape")) s->cc = CC_ESCAPE;
			else if (!strcmp(v, "space")) s->cc = CC_SPACE;
			else if (!strcmp(v, "drop")) s->cc = CC_DROP;
			else { bad_value(p, "controlcharacter mode"); goto fail; }
		} else if (!strcmp(n, "securepath")) {
			if (!strcmp(v, "drop")) s->secpath = 1;
			else if (!strcmp(v, "replace")) s->secpath = 2;
			else { bad_value(p, "securepath mode"); goto fail; }
		} else if (!strcmp(n, "caseconversion")) {
			if (!strcmp(v, "lower")) s->caseconv = 1;
			else if (!strcmp(v, "upper")) s->caseconv = 2;
			else { bad_value(p, "caseconversion type"); goto fail; }
		} else if (!strcmp(n, "dateformat")) {
			int df = date_fmt_by_name(v);
			if (df < 0) { bad_value(p, "date format"); goto fail; }
			s->datefmt = (uint8_t)df;
		} else if (!strcmp(n, "datatype")) {
			if (!strcmp(v, "string")) s->dtype = DT_STRING;
			else if (!strcmp(v, "number")) s->dtype = DT_NUMBER;
			else if (!strcmp(v, "bool")) s->dtype = DT_BOOL;
			else if (!strcmp(v, "auto")) s->dtype = DT_AUTO;
			else { bad_value(p, "datatype"); goto fail; }
		} else if (!strcmp(n, "onempty")) {
			if (!strcmp(v, "keep")) s->onempty = EMPTY_KEEP;
			else if (!strcmp(v, "skip")) s->onempty = EMPTY_SKIP;
			else if (!strcmp(v, "null")) s->onempty = EMPTY_NULL;
			else { bad_value(p, "onEmpty mode"); goto fail; }
		} else {
			cfg_error(&p->pos, "parameter '%s' not known for property()", n);
			goto fail;
		}
	}
	if (!prop_ref_parse(name, strlen(name), &s->ref)) {
		cfg_error(&o->pos, "invalid property '%s'", name);
		goto fail;
	}
	if (!s->outname)
		s->outname = sl_xstrdup(strncmp(name, "$!", 2) == 0 ? name + 2 : name);
	s->outname_len = strlen(s->outname);
	if (to == -1 && from != -1)
		to = 2000000000;
	if (from == -1 && to != -1)
		from = 0;
	if (s->rel_end ? to > from : to < from) {
		cfg_error(&o->pos, s->rel_end ? "position.to=%d is higher than postion.from=%d in 'relativeToEnd' mode"
			  : "position.to=%d is lower than postion.from=%d", to, from);
		goto fail;
	}
	if (fieldnum != -1 && re) {
		cfg_error(&o->pos, "both field extraction and regex extraction specified - this is not possible, remove one");
		goto fail;
	}
	if (fieldnum != -1) {
		s->has_field = true;
		s->field_nr = fieldnum;
		s->field_delim = (unsigned char)delim;
	}
	if (from != -1) {
		s->from = from;
		s->to = to;
	}
	if (re && !compile_regex(s, re, ere)) {
		cfg_error(&o->pos, "error compiling regex '%s'", re);
		goto fail;
	}
	rc = SL_OK;
fail:
	free(re);
	return rc;
}

/* A constant() object: its value is unescaped once more, as rsyslog does. */
static enum sl_rc list_constant(struct template *t, struct cfg_obj *o)
{
	const char *value = NULL, *outname = NULL;
	bool jsonf = false;
	for (struct cfg_param *p = o->params; p; p = p->next) {
		p->used = true;
		if (!strcmp(p->name, "value")) {
			value = pstr(p);
		} else if (!strcmp(p->name, "outname")) {
			outname = pstr(p);
		} else if (!strcmp(p->name, "format")) {
			if (strcmp(pstr(p), "jsonf")) {
				cfg_error(&p->pos, "invalid format type '%s' for constant", pstr(p));
				return SL_ERR_CONFIG;
			}
			jsonf = true;
		} else {
			cfg_error(&p->pos, "parameter '%s' not known for constant()", p->name);
			return SL_ERR_CONFIG;
		}
	}
	if (!value) {
		cfg_error(&o->pos, "constant() needs parameter 'value'");
		return SL_ERR_CONFIG;
	}
	if (jsonf && !outname) {
		cfg_error(&o->pos, "constant set to format jsonf, but outname not specified - aborting");
		return SL_ERR_CONFIG;
	}
	es_str_t *es = es_newStrFromCStr(value, strlen(value));
	if (!es)
		return SL_ERR_NOMEM;
	es_unescapeStr(es);
	char *v = es_str2cstr(es, NULL);
	size_t vlen = es_strlen(es);
	es_deleteStr(es);
	struct tpl_step *s = add_step(t);
	s->kind = STEP_CONST;
	if (jsonf) {
		/* rsyslog: the spaced JSON of {outname: value} without "{ " and " }" */
		struct fjson_object *j = json_object_new_object();
		json_object_object_add(j, outname, json_object_new_string_len(v, (int)vlen));
		const char *js = json_object_get_string(j);
		size_t n = strlen(js);
		s->cst = sl_xstrndup(js + 2, n >= 4 ? n - 4 : 0);
		s->cst_len = strlen(s->cst);
		json_object_put(j);
		free(v);
	} else {
		s->cst = v;
		s->cst_len = vlen;
	}
	if (outname)
		s->outname = sl_xstrdup(outname);
	return SL_OK;
}

enum sl_rc tpl_create_from_obj(struct cfg_obj *o)
{
	struct cfg_param *pname = cfg_obj_param(o, "name");
	struct cfg_param *ptype = cfg_obj_param(o, "type");
	struct cfg_param *pstring = cfg_obj_param(o, "string");
	struct cfg_param *psub = cfg_obj_param(o, "subtree");
	struct cfg_param *pplug = cfg_obj_param(o, "plugin");
	struct cfg_param *opt;
	struct template *t = NULL;
	enum { T_STRING, T_LIST, T_SUBTREE, T_PLUGIN } type = T_STRING;
	int nopts = 0;

	if (!pname || !pname->val.str || !*pname->val.str) {
		cfg_error(&o->pos, "template() needs parameter 'name'");
		return SL_ERR_CONFIG;
	}
	const char *name = pname->val.str;
	if (!ptype) {
		cfg_error(&o->pos, "template '%s': parameter 'type' missing", name);
		return SL_ERR_CONFIG;
	}
	const char *ty = pstr(ptype);
	if (!strcmp(ty, "string")) type = T_STRING;
	else if (!strcmp(ty, "list")) type = T_LIST;
	else if (!strcmp(ty, "subtree")) type = T_SUBTREE;
	else if (!strcmp(ty, "plugin")) type = T_PLUGIN;
	else {
		cfg_error(&ptype->pos, "invalid template type '%s'", ty);
		return SL_ERR_CONFIG;
	}
	t = sl_xcalloc(1, sizeof(*t));
	t->name = sl_xstrdup(name);
	if ((opt = cfg_obj_param(o, "option.sql")) && param_bool(opt)) { t->esc = ESC_SQL; nopts++; }
	if ((opt = cfg_obj_param(o, "option.stdsql")) && param_bool(opt)) { t->esc = ESC_STDSQL; nopts++; }
	if ((opt = cfg_obj_param(o, "option.json")) && param_bool(opt)) { t->esc = ESC_JSON; nopts++; }
	if ((opt = cfg_obj_param(o, "option.jsonf")) && param_bool(opt)) { t->esc = ESC_JSONF; nopts++; }
	if ((opt = cfg_obj_param(o, "option.casesensitive")))
		t->casesensitive = param_bool(opt);
	if (nopts > 1) {
		cfg_error(&o->pos, "template '%s' has multiple incompatible options of sql, stdsql or json specified", name);
		goto fail;
	}
	for (struct cfg_param *p = o->params; p; p = p->next)
		if (!p->used) {
			cfg_error(&p->pos, "parameter '%s' not known for template()", p->name);
			goto fail;
		}
	switch (type) {
	case T_STRING: {
		if (!pstring) {
			cfg_error(&o->pos, "template '%s' of type string needs string parameter", name);
			goto fail;
		}
		const char *p = pstr(pstring);
		if (parse_string(t, &p, false, &pstring->pos) != SL_OK)
			goto fail;
		break;
	}
	case T_LIST:
		if (!o->body) {
			cfg_error(&o->pos, "template '%s' of type list has has no parameters specified", name);
			goto fail;
		}
		for (struct cfg_obj *b = o->body; b; b = b->next) {
			enum sl_rc rc = b->type == CFG_OBJ_PROPERTY ? list_property(t, b)
					: b->type == CFG_OBJ_CONSTANT ? list_constant(t, b)
					: SL_ERR_CONFIG;
			if (rc != SL_OK) {
				if (b->type != CFG_OBJ_PROPERTY && b->type != CFG_OBJ_CONSTANT)
					cfg_error(&b->pos, "only property() and constant() are allowed in a list template");
				goto fail;
			}
		}
		break;
	case T_SUBTREE: {
		const char *v = psub ? pstr(psub) : NULL;
		if (!v) {
			cfg_error(&o->pos, "template '%s' of type subtree needs subtree parameter", name);
			goto fail;
		}
		if (strncmp(v, "$!", 2) != 0) {
			cfg_error(&psub->pos, "invalid subtree parameter, variable must start with '$!' but var name is '%s'", v);
			goto fail;
		}
		prop_ref_parse(v, strlen(v), &t->subtree);
		if (!t->casesensitive)
			lower_str(t->subtree.path);
		t->is_subtree = true;
		break;
	}
	case T_PLUGIN: {
		const struct template *b = pplug ? find(pstr(pplug)) : NULL;
		if (!b || !b->strgen) {
			cfg_error(&o->pos, "template '%s': unknown strgen plugin '%s'", name,
				  pplug ? pstr(pplug) : "");
			goto fail;
		}
		t->strgen = b->strgen;
		break;
	}
	}
	apply_case_sensitivity(t);
	if (tpl_register(t, &o->pos) != SL_OK)
		return SL_ERR_CONFIG;
	o->resolved = t;
	return SL_OK;
fail:
	tpl_free(t);
	return SL_ERR_CONFIG;
}

enum sl_rc tpl_create_legacy(const char *args, const struct cfg_pos *pos)
{
	const char *p = args;
	while (isspace((unsigned char)*p))
		p++;
	const char *n = p;
	while (*p && *p != ',')
		p++;
	const char *ne = p;
	while (ne > n && isspace((unsigned char)ne[-1]))
		ne--;
	if (ne == n || *p != ',') {
		cfg_error(pos, "invalid $template line: expected name,\"string\"");
		return SL_ERR_CONFIG;
	}
	struct template *t = sl_xcalloc(1, sizeof(*t));
	t->name = sl_xstrndup(n, (size_t)(ne - n));
	p++;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '=') {
		const struct template *b = find(p + 1);
		if (!b || !b->strgen) {
			cfg_error(pos, "template '%s': error defining template via strgen module", t->name);
			goto fail;
		}
		t->strgen = b->strgen;
		return tpl_register(t, pos);
	}
	if (*p != '"') {
		cfg_error(pos, "template '%s' invalid, does not start with '\"'", t->name);
		goto fail;
	}
	p++;
	if (parse_string(t, &p, true, pos) != SL_OK)
		goto fail;
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (*p != ',')
			break;
		p++;
		while (isspace((unsigned char)*p))
			p++;
		char ob[128];
		size_t i = 0;
		while (i < sizeof(ob) - 1 && *p && *p != '=' && *p != ',' && *p != '\n')
			ob[i++] = (char)tolower((unsigned char)*p++);
		ob[i] = '\0';
		while (i > 0 && isspace((unsigned char)ob[i - 1]))
			ob[--i] = '\0';
		if (!strcmp(ob, "stdsql")) t->esc = ESC_STDSQL;
		else if (!strcmp(ob, "json")) t->esc = ESC_JSON;
		else if (!strcmp(ob, "sql")) t->esc = ESC_SQL;
		else if (!strcmp(ob, "nosql")) t->esc = ESC_NONE;
		else if (!strcmp(ob, "casesensitive")) t->casesensitive = true;
		else cfg_warn(pos, "template '%s': invalid option '%s' ignored", t->name, ob);
	}
	apply_case_sensitivity(t);
	return tpl_register(t, pos);
fail:
	tpl_free(t);
	return SL_ERR_CONFIG;
}

/* ---- built-in templates ---- */

struct builtin {
	const char *name;
	const char *str;
	tpl_strgen_fn strgen;
	uint8_t esc;
};

static const struct builtin builtins[] = {
	{ "RSYSLOG_FileFormat",
	  "%TIMESTAMP:::date-rfc3339% %HOSTNAME% %syslogtag%%msg:::sp-if-no-1st-sp%%msg:::drop-last-lf%\n",
	  strgen_file, ESC_NONE },
	{ "RSYSLOG_TraditionalFileFormat",
	  "%TIMESTAMP% %HOSTNAME% %syslogtag%%msg:::sp-if-no-1st-sp%%msg:::drop-last-lf%\n",
	  strgen_trad_file, ESC_NONE },
	{ "RSYSLOG_ForwardFormat",
	  "<%PRI%>%TIMESTAMP:::date-rfc3339% %HOSTNAME% %syslogtag:1:32%%msg:::sp-if-no-1st-sp%%msg%",
	  strgen_forward, ESC_NONE },
	{ "RSYSLOG_TraditionalForwardFormat",
	  "<%PRI%>%TIMESTAMP% %HOSTNAME% %syslogtag:1:32%%msg:::sp-if-no-1st-sp%%msg%",
	  strgen_trad_forward, ESC_NONE },
	{ "RSYSLOG_SyslogProtocol23Format",
	  "<%PRI%>1 %TIMESTAMP:::date-rfc3339% %HOSTNAME% %APP-NAME% %PROCID% %MSGID% %STRUCTURED-DATA% %msg%\n",
	  strgen_protocol23, ESC_NONE },
	{ "RSYSLOG_SyslogRFC5424Format",
	  "<%PRI%>1 %TIMESTAMP:::date-rfc3339% %HOSTNAME% %APP-NAME% %PROCID% %MSGID% %STRUCTURED-DATA% %msg%",
	  NULL, ESC_NONE },
	{ "RSYSLOG_SysklogdFileFormat",
	  "%TIMESTAMP% %HOSTNAME% %syslogtag%%msg:::sp-if-no-1st-sp%%msg%\n", NULL, ESC_NONE },
	{ "RSYSLOG_DebugFormat",
	  "Debug line with all properties:\nFROMHOST: '%FROMHOST%', fromhost-ip: '%fromhost-ip%', "
	  "HOSTNAME: '%HOSTNAME%', PRI: %PRI%,\nsyslogtag '%syslogtag%', programname: '%programname%', "
	  "APP-NAME: '%APP-NAME%', PROCID: '%PROCID%', MSGID: '%MSGID%',\nTIMESTAMP: '%TIMESTAMP%', "
	  "STRUCTURED-DATA: '%STRUCTURED-DATA%',\nmsg: '%msg%'\nescaped msg: '%msg:::drop-cc%'\n"
	  "inputname: %inputname% rawmsg: '%rawmsg%'\n$!:%$!%\n$.:%$.%\n$/:%$/%\n\n", NULL, ESC_NONE },
	{ "RSYSLOG_omudpspoofDfltSourceTpl", "%fromhost-ip%", NULL, ESC_NONE },
	{ " StdJSONFmt",
	  "{\"message\":\"%msg:::json%\",\"fromhost\":\"%HOSTNAME:::json%\",\"facility\":"
	  "\"%syslogfacility-text%\",\"priority\":\"%syslogpriority-text%\",\"timereported\":"
	  "\"%timereported:::date-rfc3339%\",\"timegenerated\":\"%timegenerated:::date-rfc3339%\"}",
	  NULL, ESC_NONE },
	{ " WallFmt",
	  "\r\n\7Message from syslogd@%HOSTNAME% at %timegenerated% ...\r\n %syslogtag%%msg%\n\r",
	  NULL, ESC_NONE },
	{ " StdUsrMsgFmt", " %syslogtag%%msg%\n\r", NULL, ESC_NONE },
	{ " StdDBFmt",
	  "insert into SystemEvents (Message, Facility, FromHost, Priority, DeviceReportedTime, "
	  "ReceivedAt, InfoUnitID, SysLogTag) values ('%msg%', %syslogfacility%, '%HOSTNAME%', "
	  "%syslogpriority%, '%timereported:::date-mysql%', '%timegenerated:::date-mysql%', %iut%, "
	  "'%syslogtag%')", NULL, ESC_SQL },
	{ " StdPgSQLFmt",
	  "insert into SystemEvents (Message, Facility, FromHost, Priority, DeviceReportedTime, "
	  "ReceivedAt, InfoUnitID, SysLogTag) values ('%msg%', %syslogfacility%, '%HOSTNAME%', "
	  "%syslogpriority%, '%timereported:::date-pgsql%', '%timegenerated:::date-pgsql%', %iut%, "
	  "'%syslogtag%')", NULL, ESC_STDSQL },
	{ " FullJSONFmt",
	  "{\"message\":\"%msg:::json%\",\"fromhost\":\"%HOSTNAME:::json%\",\"programname\":"
	  "\"%programname%\",\"syslogtag\":\"%syslogtag:::json%\",\"timereported\":"
	  "\"%timereported:::date-rfc3339%\",\"timegenerated\":\"%timegenerated:::date-rfc3339%\","
	  "\"facility\":\"%syslogfacility-text%\",\"priority\":\"%syslogpriority-text%\"}",
	  NULL, ESC_NONE },
};

void tpl_init_builtins(void)
{
	static const struct cfg_pos pos = { "<built-in>", 0 };
	for (size_t i = 0; i < SL_ARRAY_SIZE(builtins); i++) {
		if (find(builtins[i].name))
			continue;
		struct template *t = sl_xcalloc(1, sizeof(*t));
		t->name = sl_xstrdup(builtins[i].name);
		t->esc = builtins[i].esc;
		const char *p = builtins[i].str;
		if (parse_string(t, &p, false, &pos) != SL_OK) {
			tpl_free(t);
			continue;
		}
		t->strgen = builtins[i].strgen;
		/* rsyslog's strgens (smfile, smfwd ...) emit the SP also for an
		 * empty MSG; the generic steps of these templates do the same. */
		if (t->strgen)
			for (int k = 0; k < t->n_steps; k++)
				if (t->steps[k].spif)
					t->steps[k].spif_empty = true;
		apply_case_sensitivity(t);
		tpl_register(t, NULL);
	}
}

void tpl_destroy_all(void)
{
	while (tpl_list) {
		struct template *t = tpl_list;
		tpl_list = t->next;
		tpl_free(t);
	}
}
