/* parser.c — the steps every message goes through before the message
 * parsers: sanitising the raw bytes (rsyslog's SanitizeMsg: one trailing
 * NUL and one trailing LF dropped, control characters escaped as #ooo),
 * the PRI (rsyslog's ParsePRI), and the default parser chain (pmrfc5424,
 * then pmrfc3164 which takes everything).
 *
 * Threading: called on a queue worker thread on a message that worker owns
 * exclusively; reads the global settings (glbl), which are read-only once
 * the configuration is loaded.
 */
#include "parser.h"
#include "msg.h"
#include "glbl.h"

#include <stdlib.h>
#include <string.h>

#define PRI_MAX 191
#define PRI_DEFAULT 13                       /* user.notice */
#define PRI_INVALID ((MSG_FACILITY_INVALID << 3) | 7) /* LOG_INVLD|LOG_DEBUG */

/* Index of the first byte that needs the sanitising copy (rsyslog's first
 * sweep), or len. The settings are copied to locals: `src` may alias glbl
 * as far as the compiler knows, and this loop runs over every byte. */
static uint32_t first_to_sanitize(const unsigned char *src, uint32_t len)
{
	const bool esc_cc = glbl.escape_cc, esc_8bit = glbl.escape_8bit;
	uint32_t i;

	if (!esc_8bit) {
		/* 8 bytes at a time: does the word hold a byte below `lim`?
		 * (exact for lim <= 128, bytes >= 0x80 never match) */
		const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
		const uint64_t lim = ones * (esc_cc ? 32 : 1);
		for (i = 0; i + 8 <= len; i += 8) {
			uint64_t w;
			memcpy(&w, src + i, 8);
			if ((w - lim) & ~w & high)
				break;
		}
		for (; i < len; i++)
			if (src[i] < 32 && (esc_cc || src[i] == 0))
				return i;
		return len;
	}
	for (i = 0; i < len; i++) {
		if (src[i] < 32 ? (esc_cc || src[i] == 0) : src[i] > 127)
			return i;
	}
	return len;
}

/* Sanitise: the common case (nothing to escape) only trims the length in
 * place. When escaping is needed, the output length is counted first and
 * one buffer of exactly that size is allocated; like rsyslog, the result is
 * cut where it would exceed maxMessageSize (or four times the input).
 * Without escape_cc, control characters other than NUL (and TAB when
 * escape_cc_tab is off) are dropped by the copy, as in rsyslog. On ENOMEM
 * the message is left unescaped but trimmed. */
void parser_sanitize(struct msg *m)
{
	unsigned char *src = (unsigned char *)m->raw;
	uint32_t len = m->raw_len;
	uint32_t first;
	long long max_dest, d, pass;
	char *out;

	if (len > 0 && src[len - 1] == '\0')
		len--;
	if (glbl.drop_trailing_lf && len > 0 && src[len - 1] == '\n')
		len--;

	first = first_to_sanitize(src, len);
	if (first == len) {
		m->raw_len = len;
		m->raw[len] = '\0';
		return;
	}

	max_dest = (long long)len * 4;
	if (glbl.max_msg_size > 0 && max_dest > glbl.max_msg_size)
		max_dest = glbl.max_msg_size;

	/* pass 0 counts, pass 1 writes */
	out = NULL;
	for (pass = 0; pass < 2; pass++) {
		long long s = first > 0 ? first - 1 : 0;
		if (s > max_dest)
			s = max_dest;
		if (out)
			memcpy(out, src, (size_t)s);
		d = s;
		for (; s < len && d < max_dest - 3; s++) {
			unsigned char c = src[s];
			bool esc;
			if (c < 32) {
				if (c == '\t' && !glbl.escape_cc_tab) {
					if (out)
						out[d] = (char)c;
					d++;
					continue;
				}
				esc = (c == 0 || glbl.escape_cc);
				if (!esc)
					continue; /* dropped, as rsyslog does */
			} else {
				esc = (c > 127 && glbl.escape_8bit);
			}
			if (esc) {
				if (out) {
					out[d] = glbl.cc_escape_char;
					out[d + 1] = (char)('0' + ((c & 0300) >> 6));
					out[d + 2] = (char)('0' + ((c & 0070) >> 3));
					out[d + 3] = (char)('0' + (c & 0007));
				}
				d += 4;
			} else {
				if (out)
					out[d] = (char)c;
				d++;
			}
		}
		if (pass == 0) {
			out = malloc((size_t)d + 1);
			if (!out) {
				m->raw_len = len;
				m->raw[len] = '\0';
				return;
			}
		}
	}
	out[d] = '\0';
	msg_set_raw(m, out, (uint32_t)d);
}

void parser_parse_pri(struct msg *m)
{
	const unsigned char *p = (const unsigned char *)m->raw;
	int len = (int)m->raw_len;
	int pri = PRI_DEFAULT;

	if (len > 0 && *p == '<') {
		pri = 0;
		while (--len > 0 && *++p >= '0' && *p <= '9' && pri <= PRI_MAX)
			pri = 10 * pri + (*p - '0');
		if (*p == '>')
			++p;
		else
			pri = PRI_INVALID;
		if (pri > PRI_MAX)
			pri = PRI_INVALID;
	}
	m->facility = (uint8_t)(pri >> 3);
	m->severity = (uint8_t)(pri & 7);
	m->pri = (uint16_t)pri;
	m->off_after_pri = (pri == PRI_INVALID) ? 0 : (uint32_t)((const char *)p - m->raw);
}

void parser_parse(struct msg *m)
{
	if (m->raw_len == 0) {
		/* rsyslog discards empty messages before parsing; keep it well-formed */
		m->off_after_pri = 0;
		m->protocol_version = 0;
		m->flags |= MSG_HOST_IS_FROMHOST | MSG_PARSED;
		m->msg.off = 0;
		m->msg.len = 0;
		return;
	}
	parser_sanitize(m);
	parser_parse_pri(m);
	if (!pm_rfc5424_parse(m))
		pm_rfc3164_parse(m);
	m->flags |= MSG_PARSED;
}
