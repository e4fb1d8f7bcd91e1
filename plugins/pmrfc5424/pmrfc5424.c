/* pmrfc5424.c — the RFC5424 parser, rsyslog's rsyslog.rfc5424: takes a
 * message only when "1 " follows the PRI.
 *
 * As in rsyslog 8.2302: TIMESTAMP "-" means the reception time; an
 * unparsable timestamp stops parsing (HOSTNAME = fromhost, MSG = from the
 * bad timestamp on). HOSTNAME, APP-NAME, PROCID and MSGID are the next
 * SP-terminated tokens, not validated. STRUCTURED-DATA is "-" or runs from
 * '[' to the first "] " not preceded by '\'; if it starts with neither,
 * rsyslog reuses its scratch buffer and reports MSGID as the SD (kept).
 *
 * Threading: runs on a queue worker on a message it owns; no shared state.
 */
#include "parser.h"
#include "msg.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

struct cursor {
	const char *raw;
	const char *p;
	int len;
};

/* One SP-terminated field; the SP (if any) is consumed. */
static struct msg_span field(struct cursor *c)
{
	struct msg_span s;

	s.off = (uint32_t)(c->p - c->raw);
#ifdef __SSE2__
	/* 16 bytes at a time while they are all inside the message */
	while (c->len >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)c->p);
		int hit = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
		int k = hit ? __builtin_ctz((unsigned)hit) : 16;
		c->p += k;
		c->len -= k;
		if (hit)
			break;
	}
#endif
	while (c->len > 0 && *c->p != ' ') {
		c->p++;
		c->len--;
	}
	s.len = (uint32_t)(c->p - c->raw) - s.off;
	if (c->len > 0) {
		c->p++;
		c->len--;
	}
	return s;
}

/* STRUCTURED-DATA, rsyslog's parseRFCStructuredData. `prev` is the span
 * rsyslog's scratch buffer still holds (MSGID). */
static struct msg_span structured_data(struct cursor *c, struct msg_span prev)
{
	struct msg_span s;
	const char *q;

	if (c->len == 0 || (*c->p != '[' && *c->p != '-'))
		return prev;
	s.off = (uint32_t)(c->p - c->raw);
	if (*c->p == '-') {
		c->p++;
		c->len--;
		s.len = 1;
	} else {
		for (;;) {
			if (c->len < 2) {
				if (c->len > 0 && *c->p == ']') {
					c->p++;
					c->len--;
				}
				q = c->p;
				break;
			}
			if (c->p[0] == '\\' && c->p[1] == ']') {
				c->p += 2;
				c->len -= 2;
			} else if (c->p[0] == ']' && c->p[1] == ' ') {
				/* 8.2302 leaves the SP for the check below: a
				 * second SP stays in MSG */
				c->p++;
				c->len--;
				q = c->p;
				break;
			} else {
				c->p++;
				c->len--;
			}
		}
		s.len = (uint32_t)(q - c->raw) - s.off;
	}
	if (c->len > 0 && *c->p == ' ') {
		c->p++;
		c->len--;
	}
	return s;
}

/* Contract: m has been sanitised and its PRI parsed. Returns false and
 * leaves m unchanged when the message is not RFC5424. */
bool pm_rfc5424_parse(struct msg *m)
{
	struct cursor c;
	const char *end = m->raw + m->raw_len;
	static const struct msg_span none = { 0, 0 };

	c.raw = m->raw;
	c.p = m->raw + m->off_after_pri;
	c.len = (int)(m->raw_len - m->off_after_pri);
	if (c.len < 2 || c.p[0] != '1' || c.p[1] != ' ')
		return false;

	m->protocol_version = 1;
	c.p += 2;
	c.len -= 2;
	m->tag = none;
	m->programname_len = 0;
	m->flags &= (uint16_t)~MSG_HAS_TAG;

	if (c.len >= 2 && c.p[0] == '-' && c.p[1] == ' ') {
		m->t_reported = m->t_received;
		c.p += 2;
		c.len -= 2;
	} else if (!dt_scan_rfc3339_rs(&c.p, &c.len, end, &m->t_reported)) {
		m->flags |= MSG_HOST_IS_FROMHOST;
		m->hostname = m->app_name = m->procid = m->msgid = m->sd = none;
		goto done;
	}

	m->flags &= (uint16_t)~MSG_HOST_IS_FROMHOST;
	m->hostname = field(&c);
	m->app_name = field(&c);
	m->procid = field(&c);
	m->msgid = field(&c);
	m->sd = structured_data(&c, m->msgid);

done:
	m->msg.off = (uint32_t)(c.p - m->raw);
	m->msg.len = (uint32_t)(end - c.p);
	return true;
}
