/* fuzz_parser.c — fuzz harness for the message parsers: sanitising
 * (runtime/parser.c), the PRI, pmrfc5424, pmrfc3164 and the timestamp
 * scanners (runtime/datetime.c), then every property getter
 * (runtime/prop.c), every date format, and every built-in template
 * (runtime/template.c, runtime/strgen.c) on the parsed message.
 *
 * Input layout: byte 0 chooses the settings (bit 0 escape control
 * characters off, 1 escape 8-bit on, 2 escape TAB off, 3 keep a trailing
 * LF, 4 permit '/' in programname, 5 maxMessageSize 64, 6 a local source
 * (no HOSTNAME parsed, as imuxsock), 7 ignore the timestamp); the rest is
 * the raw message as an input would submit it.
 *
 * Checks, besides ASan/UBSan: the invariants of parser.h (every span
 * inside the message, fields in range, fz_check_msg), every getter yields
 * readable bytes, and the strgen fast path of each built-in template
 * gives exactly the bytes of the generic renderer.
 *
 * Threading: single-threaded (libFuzzer).
 */
#include "fuzz_common.h"
#include "glbl.h"
#include "template_int.h"

#include <stdbool.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

static void set_glbl(uint8_t b, const struct glbl *dflt)
{
	glbl.escape_cc = !(b & 0x01) && dflt->escape_cc;
	glbl.escape_8bit = (b & 0x02) || dflt->escape_8bit;
	glbl.escape_cc_tab = !(b & 0x04) && dflt->escape_cc_tab;
	glbl.drop_trailing_lf = !(b & 0x08) && dflt->drop_trailing_lf;
	glbl.permit_slash_in_programname = (b & 0x10) || dflt->permit_slash_in_programname;
	glbl.max_msg_size = (b & 0x20) ? 64 : dflt->max_msg_size;
}

/* The public timestamp parsers on the raw bytes (their own contract:
 * at most len bytes read, cursor inside). */
static void fuzz_timestamps(const char *p, size_t len, const struct syslog_time *rcvd)
{
	struct syslog_time t;
	const char *q = p;
	size_t n = len;
	memset(&t, 0, sizeof(t));
	if (dt_parse_rfc3339(&q, &n, &t)) {
		if (q < p || q > p + len || n != len - (size_t)(q - p))
			FZ_FAIL("dt_parse_rfc3339 cursor moved to %td, len %zu of %zu", q - p, n, len);
		fz_check_time(&t, "rfc3339");
		fz_sink ^= (uint64_t)dt_to_epoch(&t);
	}
	q = p;
	n = len;
	memset(&t, 0, sizeof(t));
	if (dt_parse_rfc3164(&q, &n, &t, rcvd)) {
		if (q < p || q > p + len || n != len - (size_t)(q - p))
			FZ_FAIL("dt_parse_rfc3164 cursor moved to %td, len %zu of %zu", q - p, n, len);
		fz_check_time(&t, "rfc3164");
		fz_sink ^= (uint64_t)dt_to_epoch(&t);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct glbl *dflt;
	static struct glbl saved;
	static struct sbuf scratch = SBUF_INIT, a = SBUF_INIT, b = SBUF_INIT;

	if (!dflt) {
		saved = glbl;
		dflt = &saved;
	}
	if (size < 1)
		return 0;
	uint8_t opt = data[0];
	uint16_t flags = (uint16_t)(((opt & 0x40) ? MSG_NO_HOSTNAME_PARSE : 0) |
				    ((opt & 0x80) ? MSG_IGNORE_DATE : 0));
	data++;
	size--;

	/* the timestamp parsers on a private copy, so reads past it are seen */
	char *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	struct syslog_time rcvd;
	time_t tt;
	fz_rcvd(&rcvd, &tt);
	fuzz_timestamps(copy, size, &rcvd);
	free(copy);

	set_glbl(opt, dflt);
	struct msg *m = fz_parsed_msg((const char *)data, size, flags);
	fz_check_msg(m);
	fz_all_props(m, &scratch);

	for (const struct template *t = tpl_list; t; t = t->next) {
		sbuf_reset(&a);
		if (!tpl_render(t, m, &a))
			FZ_FAIL("tpl_render(%s) failed", t->name);
		fz_touch(a.buf, a.len);
		if (!t->strgen)
			continue;
		sbuf_reset(&b);
		if (!tpl_render_generic(t, m, &b))
			FZ_FAIL("tpl_render_generic(%s) failed", t->name);
		if (a.len != b.len || (a.len && memcmp(a.buf, b.buf, a.len)))
			FZ_FAIL("%s: strgen gave [%.*s], the generic renderer [%.*s]", t->name,
				(int)a.len, a.buf, (int)b.len, b.buf);
	}
	msg_release(m);
	glbl = saved;
	return 0;
}
