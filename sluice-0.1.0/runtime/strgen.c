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

#include <string.h>

static __thread struct sbuf sg_scratch;

static const char *prop(const struct msg *m, enum prop_id id, size_t *len)
{
	struct prop_ref r = { id, NULL };
	return prop_get(m, &r, len, &sg_scratch);
}

/* PRI as "<nnn>"; an invalid PRI as "<invld>", as %PRI% prints it */
static bool put_pri(struct sbuf *o, const struct msg *m)
{
	char b[8];
	unsigned p = m->pri;
	size_t n = 0;
	if (m->facility == MSG_FACILITY_INVALID)
		return sbuf_append(o, "<invld>", 7);
	b[n++] = '<';
	if (p >= 100)
		b[n++] = (char)('0' + p / 100);
	if (p >= 10)
		b[n++] = (char)('0' + (p / 10) % 10);
	b[n++] = (char)('0' + p % 10);
	b[n++] = '>';
	return sbuf_append(o, b, n);
}

/* "TIMESTAMP HOSTNAME TAG[SP]MSG" shared by all four classic formats. */
static bool classic(const struct msg *m, struct sbuf *o, enum tpl_datefmt df,
		    size_t tag_max, bool drop_lf)
{
	char tb[DT_MAX_LEN];
	size_t tl = tpl_fmt_time(&m->t_reported, df, false, tb);
	size_t hl, gl;
	const char *h = prop(m, PROP_HOSTNAME, &hl);
	if (!sbuf_grow(o, tl + hl + m->msg.len + 64))
		return false;
	sbuf_append(o, tb, tl);
	sbuf_putc(o, ' ');
	sbuf_append(o, h, hl);
	sbuf_putc(o, ' ');
	const char *g = prop(m, PROP_SYSLOGTAG, &gl);
	if (gl > tag_max)
		gl = tag_max;
	if (!sbuf_append(o, g, gl))
		return false;
	const char *msg = m->msg.len ? msg_span_ptr(m, m->msg) : "";
	size_t ml = m->msg.len;
	if ((ml == 0 || msg[0] != ' ') && !sbuf_putc(o, ' '))
		return false;
	if (drop_lf && ml && msg[ml - 1] == '\n')
		ml--;
	return sbuf_append(o, msg, ml);
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
