/* strgen.c — string generators: hand-written renderers for the built-in
 * templates that every default configuration uses. Each produces exactly
 * the bytes the generic renderer produces for the template's string (see
 * builtins[] in template.c; the unit tests compare both), including
 * rsyslog's strgen quirk of a SP before an empty MSG.
 *
 * Threading: reentrant; per-call state is on the stack, property scratch
 * and the timestamp cache are thread-local.
 */
#include "template.h"
#include "prop.h"
#include "msg.h"
#include "datetime.h"

#include <stdint.h>
#include <string.h>

static __thread struct sbuf sg_scratch;

static const char *prop(const struct msg *m, enum prop_id id, size_t *len)
{
	struct prop_ref r = { id, NULL };
	return prop_get(m, &r, len, &sg_scratch);
}

/* A valid PRI as "<nnn>" at d (at most 5 bytes); returns the end. */
static inline char *pri_digits(char *d, unsigned p)
{
	*d++ = '<';
	if (p >= 100)
		*d++ = (char)('0' + p / 100);
	if (p >= 10)
		*d++ = (char)('0' + (p / 10) % 10);
	*d++ = (char)('0' + p % 10);
	*d++ = '>';
	return d;
}

/* PRI as "<nnn>"; an invalid PRI as "<invld>", as %PRI% prints it */
static bool put_pri(struct sbuf *o, const struct msg *m)
{
	char b[8];
	if (m->facility == MSG_FACILITY_INVALID)
		return sbuf_append(o, "<invld>", 7);
	return sbuf_append(o, b, (size_t)(pri_digits(b, m->pri) - b));
}

/* Copy n bytes, most often a short field, without a call into libc:
 * up to 16 bytes as two overlapping loads and stores. */
static inline char *put(char *d, const char *s, size_t n)
{
	if (n > 16) {
		memcpy(d, s, n);
	} else if (n >= 8) {
		uint64_t a, b;
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(d, &a, 4);
		memcpy(d + n - 4, &b, 4);
	} else if (n) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
	return d + n;
}

/* "TIMESTAMP HOSTNAME TAG[SP]MSG" shared by all four classic formats;
 * room is made for one more byte (the callers' LF). */
static bool classic(const struct msg *m, struct sbuf *o, enum tpl_datefmt df,
		    size_t tag_max, bool drop_lf)
{
	char tb[DT_MAX_LEN];
	size_t tl = tpl_fmt_time(&m->t_reported, df, false, tb);
	size_t hl, gl;
	const char *h, *g;
	if (m->tag.len && m->hostname.len && !(m->flags & MSG_HOST_IS_FROMHOST)) {
		/* the usual case: both are spans of the message (what prop_get
		 * gives for them here) */
		h = msg_span_ptr(m, m->hostname);
		hl = m->hostname.len;
		g = msg_span_ptr(m, m->tag);
		gl = m->tag.len;
	} else {
		h = prop(m, PROP_HOSTNAME, &hl); /* never the scratch buffer */
		g = prop(m, PROP_SYSLOGTAG, &gl);
	}
	if (gl > tag_max)
		gl = tag_max;
	const char *msg = m->msg.len ? msg_span_ptr(m, m->msg) : "";
	size_t ml = m->msg.len;
	bool sp = ml == 0 || msg[0] != ' ';
	if (drop_lf && ml && msg[ml - 1] == '\n')
		ml--;
	size_t total = tl + hl + gl + ml + 4;
	if (o->cap - o->len < total && !sbuf_grow(o, total))
		return false;
	char *d = put(o->buf + o->len, tb, tl);
	*d++ = ' ';
	d = put(d, h, hl);
	*d++ = ' ';
	d = put(d, g, gl);
	if (sp)
		*d++ = ' ';
	d = put(d, msg, ml);
	o->len = (size_t)(d - o->buf);
	return true;
}

bool strgen_file(const struct msg *m, struct sbuf *out)
{
	return classic(m, out, TPL_DF_RFC3339, SIZE_MAX, true) && sbuf_putc(out, '\n');
}

bool strgen_trad_file(const struct msg *m, struct sbuf *out)
{
	return classic(m, out, TPL_DF_RFC3164, SIZE_MAX, true) && sbuf_putc(out, '\n');
}

bool strgen_forward(const struct msg *m, struct sbuf *out)
{
	return put_pri(out, m) && classic(m, out, TPL_DF_RFC3339, 32, false);
}

bool strgen_trad_forward(const struct msg *m, struct sbuf *out)
{
	return put_pri(out, m) && classic(m, out, TPL_DF_RFC3164, 32, false);
}

bool strgen_protocol23(const struct msg *m, struct sbuf *out)
{
	static const enum prop_id ids[] = { PROP_HOSTNAME, PROP_APP_NAME, PROP_PROCID,
					    PROP_MSGID, PROP_STRUCTURED_DATA };
	char tb[DT_MAX_LEN];
	size_t tl = tpl_fmt_time(&m->t_reported, TPL_DF_RFC3339, false, tb);
	if (m->protocol_version == 1 && !(m->flags & MSG_HOST_IS_FROMHOST) && m->hostname.len &&
	    m->facility != MSG_FACILITY_INVALID) {
		/* a parsed RFC5424 message: every field is a span of its own
		 * (what prop_get gives for these properties in this case), so
		 * the line is sized once and copied without further checks */
		const char *v[5];
		size_t vl[5], total = 8 + tl + 5 + 1 + m->msg.len + 1;
		v[0] = msg_span_ptr(m, m->hostname);
		vl[0] = m->hostname.len;
		v[1] = msg_span_or_dash(m, m->app_name, &vl[1]);
		v[2] = msg_span_or_dash(m, m->procid, &vl[2]);
		v[3] = msg_span_or_dash(m, m->msgid, &vl[3]);
		v[4] = msg_span_or_dash(m, m->sd, &vl[4]);
		for (int i = 0; i < 5; i++)
			total += vl[i];
		if (out->cap - out->len < total && !sbuf_grow(out, total))
			return false;
		char *d = pri_digits(out->buf + out->len, m->pri);
		*d++ = '1';
		*d++ = ' ';
		d = put(d, tb, tl);
		for (int i = 0; i < 5; i++) {
			*d++ = ' ';
			d = put(d, v[i], vl[i]);
		}
		*d++ = ' ';
		if (m->msg.len)
			d = put(d, msg_span_ptr(m, m->msg), m->msg.len);
		*d++ = '\n';
		out->len = (size_t)(d - out->buf);
		return true;
	}
	if (!put_pri(out, m) || !sbuf_append(out, "1 ", 2) || !sbuf_append(out, tb, tl))
		return false;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		size_t n;
		const char *v = prop(m, ids[i], &n);
		if (!sbuf_putc(out, ' ') || !sbuf_append(out, v, n))
			return false;
	}
	return sbuf_putc(out, ' ')
	       && sbuf_append(out, m->msg.len ? msg_span_ptr(m, m->msg) : "", m->msg.len)
	       && sbuf_putc(out, '\n');
}
