/* pmrfc3164.c — the RFC3164 ("legacy syslog") parser, rsyslog's
 * rsyslog.rfc3164 with its default parameters: the catch-all at the end of
 * the parser chain. It never fails: what does not parse stays in MSG.
 *
 * A parser() instance (type="pmrfc3164") may change: the year after the
 * time (detect.YearAfterTimestamp), '[' ']' around, '/' and '@' in the
 * HOSTNAME (permit.*), a TAG that must end with ':' (else TAG "-" and the
 * parse pointer goes back one byte before the would-be tag, as rsyslog's
 * force.tagEndingByColon does), and one leading SP of MSG dropped
 * (remove.msgFirstSpace).
 *
 * Order, as in rsyslog 8.2302: invalid PRI -> nothing parsed; headerless
 * ("{" or "[" after optional SP/TAB) -> nothing parsed; timestamp (RFC3339,
 * then RFC3164, then RFC3164 after one SP); hostname (tried even without a
 * timestamp); tag up to ':' (included) or SP (not included), at most 510
 * bytes plus the ':'; the rest is MSG, leading SP kept.
 *
 * Threading: runs on a queue worker on a message it owns; no shared state.
 */
#include "parser.h"
#include "msg.h"
#include "glbl.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define HOSTNAME_MAX 511 /* CONF_HOSTNAME_MAXSIZE - 1 */
#define TAG_MAX 510      /* CONF_TAG_MAXSIZE - 2, before the ':' */

static inline bool is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

static inline bool is_host_char(unsigned char c)
{
	return is_alnum(c) || c == '.' || c == '_' || c == '-';
}

/* Byte classes, so the per-byte loops are one table lookup. */
enum { C_HOST = 1, C_PROG_STOP = 2, C_TAG_STOP = 4 };
static const uint8_t cls[256] = {
#define R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
	R16(C_PROG_STOP), R16(C_PROG_STOP),               /* 0x00..0x1f */
	[' '] = C_TAG_STOP, [':'] = C_PROG_STOP | C_TAG_STOP, ['['] = C_PROG_STOP,
	['.'] = C_HOST, ['_'] = C_HOST, ['-'] = C_HOST,
	['0'] = C_HOST, ['1'] = C_HOST, ['2'] = C_HOST, ['3'] = C_HOST, ['4'] = C_HOST,
	['5'] = C_HOST, ['6'] = C_HOST, ['7'] = C_HOST, ['8'] = C_HOST, ['9'] = C_HOST,
	['A'] = C_HOST, ['B'] = C_HOST, ['C'] = C_HOST, ['D'] = C_HOST, ['E'] = C_HOST,
	['F'] = C_HOST, ['G'] = C_HOST, ['H'] = C_HOST, ['I'] = C_HOST, ['J'] = C_HOST,
	['K'] = C_HOST, ['L'] = C_HOST, ['M'] = C_HOST, ['N'] = C_HOST, ['O'] = C_HOST,
	['P'] = C_HOST, ['Q'] = C_HOST, ['R'] = C_HOST, ['S'] = C_HOST, ['T'] = C_HOST,
	['U'] = C_HOST, ['V'] = C_HOST, ['W'] = C_HOST, ['X'] = C_HOST, ['Y'] = C_HOST,
	['Z'] = C_HOST,
	['a'] = C_HOST, ['b'] = C_HOST, ['c'] = C_HOST, ['d'] = C_HOST, ['e'] = C_HOST,
	['f'] = C_HOST, ['g'] = C_HOST, ['h'] = C_HOST, ['i'] = C_HOST, ['j'] = C_HOST,
	['k'] = C_HOST, ['l'] = C_HOST, ['m'] = C_HOST, ['n'] = C_HOST, ['o'] = C_HOST,
	['p'] = C_HOST, ['q'] = C_HOST, ['r'] = C_HOST, ['s'] = C_HOST, ['t'] = C_HOST,
	['u'] = C_HOST, ['v'] = C_HOST, ['w'] = C_HOST, ['x'] = C_HOST, ['y'] = C_HOST,
	['z'] = C_HOST,
	[0x7f] = C_PROG_STOP,
	R16(C_PROG_STOP), R16(C_PROG_STOP), R16(C_PROG_STOP), R16(C_PROG_STOP), /* 0x80.. */
	R16(C_PROG_STOP), R16(C_PROG_STOP), R16(C_PROG_STOP), R16(C_PROG_STOP), /* ..0xff */
#undef R16
};

/* programname: the tag up to the first non-printable byte, ':', '[' or
 * (unless permitted) '/'. */
static uint32_t programname_len(const char *tag, uint32_t len)
{
	const bool slash_stops = !glbl.permit_slash_in_programname;
	uint32_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)tag[i];
		if (cls[c] & C_PROG_STOP)
			break;
		if (c == '/' && slash_stops)
			break;
	}
	return i;
}

static const struct pm_rfc3164_opts dflt_opts;

void pm_rfc3164_parse(struct msg *m)
{
	pm_rfc3164_parse_opts(m, &dflt_opts);
}

/* Contract: m has been sanitised and its PRI parsed (m->raw is
 * NUL-terminated). Fills the timestamp, hostname, tag and msg spans. */
void pm_rfc3164_parse_opts(struct msg *m, const struct pm_rfc3164_opts *o)
{
	const char *raw = m->raw;
	const char *end = raw + m->raw_len;
	const char *p = raw + m->off_after_pri;
	int len = (int)(m->raw_len - m->off_after_pri); /* rsyslog's count, may overstate by one */
	int i;

	m->protocol_version = 0;
	m->flags |= MSG_HOST_IS_FROMHOST;
	m->flags &= (uint16_t)~MSG_HAS_TAG;
	m->hostname.off = m->hostname.len = 0;
	m->tag.off = (uint32_t)(p - raw);
	m->tag.len = 0;
	m->programname_len = 0;
	m->app_name.off = m->app_name.len = 0;
	m->procid.off = m->procid.len = 0;
	m->msgid.off = m->msgid.len = 0;
	m->sd.off = m->sd.len = 0;

	if (m->facility == MSG_FACILITY_INVALID)
		goto done;

	/* headerless: SP/TAB then '{' or '[' */
	for (i = 0; i < len && (p[i] == ' ' || p[i] == '\t'); i++)
		;
	if (i < len && (p[i] == '{' || p[i] == '['))
		goto done;

	if (dt_scan_rfc3339_rs(&p, &len, end, &m->t_reported)) {
		/* done */
	} else if (dt_scan_rfc3164_rs_year(&p, &len, end, &m->t_reported, &m->t_received,
					   o->detect_year_after_ts)) {
		msg_apply_default_tz(m); /* defaultTZ of the input (#5) */
	} else if (*p == ' ' && len > 1) { /* HP ProCurve: one leading SP */
		p++;
		len--;
		if (!dt_scan_rfc3164_rs_year(&p, &len, end, &m->t_reported, &m->t_received,
					     o->detect_year_after_ts)) {
			p--;
			len++;
		} else {
			msg_apply_default_tz(m);
		}
	}

	if (m->flags & MSG_IGNORE_DATE)
		m->t_reported = m->t_received; /* the timestamp is skipped, not used */
	if (m->flags & MSG_INTERNAL)
		goto done;
	if (m->flags & MSG_NO_HOSTNAME_PARSE)
		goto tag; /* local sources: rsyslog parses only the TAG */

	/* HOSTNAME: bytes beyond `end` are the terminating NUL, so reading
	 * p[i] for i < len stays inside the buffer even when len is one too
	 * many. */
	if (len > 0) {
		bool had_bracket = false;
		i = 0;
		if (o->permit_sq_brackets && p[0] == '[') {
			had_bracket = true;
			i = 1;
		}
		const int lim = len < HOSTNAME_MAX ? len : HOSTNAME_MAX;
		if (!had_bracket && !o->permit_atsigns && !o->permit_slashes) {
			/* only host characters: the loop below stops at the
			 * first other byte (']' is one of them) */
			while (i < lim && (cls[(unsigned char)p[i]] & C_HOST))
				++i;
		} else {
			while (i < lim) {
				unsigned char c = (unsigned char)p[i];
				if (!(is_host_char(c) || (c == ']' && had_bracket) ||
				      (c == '@' && o->permit_atsigns) || (c == '/' && o->permit_slashes)))
					break;
				++i;
				if (p[i] == ']')
					break;
			}
		}
		if (i == len) {
			m->hostname.off = (uint32_t)(p - raw);
			m->hostname.len = (uint32_t)i;
			m->flags &= (uint16_t)~MSG_HOST_IS_FROMHOST;
			p += i;
			len -= i;
		} else if (i > 0) {
			bool is_host = false;
			if (had_bracket) {
				if (p[i] == ']') {
					++i;
					is_host = true;
				}
			} else if (is_alnum((unsigned char)p[i - 1])) {
				is_host = true;
			}
			if (is_host && p[i] == ' ') {
				m->hostname.off = (uint32_t)(p - raw);
				m->hostname.len = (uint32_t)i;
				m->flags &= (uint16_t)~MSG_HOST_IS_FROMHOST;
				p += i + 1;
				len -= i + 1;
			}
		}
	}

tag:
	/* TAG */
	m->tag.off = (uint32_t)(p - raw);
	i = 0;
#ifdef __SSE2__
	/* 16 bytes at a time while they are all inside the message (len
	 * counts at most the terminating NUL beyond it) */
	{
		const __m128i colon = _mm_set1_epi8(':'), sp = _mm_set1_epi8(' ');
		while (len >= 16 && i + 16 <= TAG_MAX) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
			int hit = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, colon),
								 _mm_cmpeq_epi8(v, sp)));
			int k = hit ? __builtin_ctz((unsigned)hit) : 16;
			p += k;
			len -= k;
			i += k;
			if (hit)
				break;
		}
	}
#endif
	while (len > 0 && !(cls[(unsigned char)*p] & C_TAG_STOP) && i < TAG_MAX) {
		p++;
		len--;
		i++;
	}
	if (len > 0 && *p == ':') {
		p++;
		len--;
		i++;
	} else if (o->force_tag_colon) {
		/* not a tag: rsyslog goes back i + 1 bytes (one before the
		 * would-be tag) and sets the TAG "-" */
		p -= i + 1;
		len += i + 1;
		if (p < raw) /* rsyslog would read before its buffer; stay in it */
			p = raw;
		const char *dash = memchr(raw, '-', (size_t)m->raw_len);
		if (!dash) {
			/* the span needs a "-" somewhere in raw: keep it after
			 * the terminating NUL of a copy (rare: only this option) */
			char *copy = malloc((size_t)m->raw_len + 3);
			if (copy) {
				uint32_t off = (uint32_t)(p - raw);
				memcpy(copy, raw, (size_t)m->raw_len + 1);
				copy[m->raw_len + 1] = '-';
				copy[m->raw_len + 2] = '\0';
				msg_set_raw(m, copy, m->raw_len);
				raw = m->raw;
				end = raw + m->raw_len;
				p = raw + off;
				dash = raw + m->raw_len + 1;
			}
		}
		m->tag.off = dash ? (uint32_t)(dash - raw) : m->tag.off;
		i = dash ? 1 : 0;
	}
	m->tag.len = (uint32_t)i;
	if (i > 0)
		m->flags |= MSG_HAS_TAG;
	m->programname_len = programname_len(raw + m->tag.off, m->tag.len);

done:
	if (o->remove_msg_first_space && p < end && *p == ' ')
		p++;
	if (p > end) /* the year-first overcount consumed the NUL */
		p = end;
	m->msg.off = (uint32_t)(p - raw);
	m->msg.len = (uint32_t)(end - p);
}
