/* fuzz_common.h — what the parser, template and config harnesses share:
 * a fixed reception time and origin (so every run renders the same
 * bytes), the invariants a parsed message must satisfy, and a walk over
 * every property getter that touches each byte it returns (ASan then sees
 * any span that points outside the message).
 *
 * Header-only (static functions) so each harness stays one compile unit
 * plus the sources under test. A failed invariant prints what was wrong
 * and aborts, which libFuzzer reports as a crash and keeps the input.
 *
 * Threading: single-threaded (libFuzzer calls the harness on one thread).
 */
#ifndef SLUICE_FUZZ_COMMON_H
#define SLUICE_FUZZ_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "datetime.h"
#include "msg.h"
#include "parser.h"
#include "prop.h"
#include "template.h"
#include "template_int.h"

/* Where a harness reports a failed check (stderr may be closed by
 * -close_fd_mask; the abort is what counts). */
#define FZ_FAIL(...)                                                                     \
	do {                                                                             \
		fprintf(stderr, "fuzz check failed at %s:%d: ", __FILE__, __LINE__);     \
		fprintf(stderr, __VA_ARGS__);                                            \
		fputc('\n', stderr);                                                     \
		abort();                                                                 \
	} while (0)

static volatile uint64_t fz_sink;

/* Read every byte of a value (FNV-1a into a volatile sink). */
static inline void fz_touch(const char *p, size_t len)
{
	uint64_t h = 14695981039346656037ull ^ len;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	fz_sink ^= h;
}

/* The reception time of every fuzzed message: 2026-03-01T01:02:03.123456Z */
static inline void fz_rcvd(struct syslog_time *t, time_t *tt)
{
	memset(t, 0, sizeof(*t));
	t->year = 2026;
	t->month = 3;
	t->day = 1;
	t->hour = 1;
	t->minute = 2;
	t->second = 3;
	t->secfrac = 123456;
	t->secfrac_digits = 6;
	t->off_mode = '+';
	t->valid = 1;
	*tt = 1772326923;
}

static struct msg_origin *fz_origin;

/* Once per process: UTC (rendering must not depend on the machine's zone),
 * the built-in templates and the shared origin. */
static inline void fz_init(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	tpl_init_builtins();
	if (!fz_origin)
		fz_origin = msg_origin_create("fuzz.example.net", "192.0.2.7", "imtcp", NULL);
}

/* A message with the given raw bytes, parsed by the real parser chain. */
static inline struct msg *fz_parsed_msg(const char *raw, size_t len, uint16_t extra_flags)
{
	struct syslog_time t;
	time_t tt;
	fz_rcvd(&t, &tt);
	struct msg *m = msg_create(raw, len, fz_origin, &t, tt);
	if (!m)
		FZ_FAIL("msg_create failed");
	m->flags |= extra_flags;
	parser_parse(m);
	return m;
}

/* The fields of a parsed timestamp. (secfrac_digits is not bounded:
 * rsyslog keeps every digit written, in a byte, and prints them modulo 6.) */
static inline void fz_check_time(const struct syslog_time *t, const char *what)
{
	if (!t->valid)
		return;
	if (t->month < 1 || t->month > 12 || t->day < 1 || t->day > 31 || t->hour > 23 ||
	    t->minute > 59 || t->second > 60 || t->off_hour > 23 ||
	    t->off_minute > 59 || (t->off_mode != '+' && t->off_mode != '-' && t->off_mode != 'Z'))
		FZ_FAIL("%s out of range: %d-%d-%d %d:%d:%d .%u(%u) %c%d:%d", what, t->year, t->month,
			t->day, t->hour, t->minute, t->second, t->secfrac, t->secfrac_digits,
			t->off_mode ? t->off_mode : '?', t->off_hour, t->off_minute);
}

static inline void fz_check_span(const struct msg *m, struct msg_span s, uint32_t limit,
				 const char *what)
{
	if ((uint64_t)s.off + s.len > limit)
		FZ_FAIL("%s span %u+%u beyond %u (raw_len %u)", what, s.off, s.len, limit, m->raw_len);
}

/* What parser.h promises about a parsed message. */
static inline void fz_check_msg(const struct msg *m)
{
	if (!(m->flags & MSG_PARSED))
		FZ_FAIL("MSG_PARSED not set");
	if (m->raw[m->raw_len] != '\0')
		FZ_FAIL("raw not NUL-terminated at raw_len %u", m->raw_len);
	if (m->facility > MSG_FACILITY_INVALID || m->severity > 7)
		FZ_FAIL("facility %u severity %u", m->facility, m->severity);
	if (m->off_after_pri > m->raw_len)
		FZ_FAIL("off_after_pri %u > raw_len %u", m->off_after_pri, m->raw_len);
	if (m->protocol_version > 1)
		FZ_FAIL("protocol_version %u", m->protocol_version);
	fz_check_span(m, m->hostname, m->raw_len, "hostname");
	/* the tag may take in the terminating NUL (parser.h) */
	fz_check_span(m, m->tag, m->raw_len + 1, "tag");
	if (m->programname_len > m->tag.len)
		FZ_FAIL("programname_len %u > tag len %u", m->programname_len, m->tag.len);
	fz_check_span(m, m->app_name, m->raw_len, "app-name");
	fz_check_span(m, m->procid, m->raw_len, "procid");
	fz_check_span(m, m->msgid, m->raw_len, "msgid");
	fz_check_span(m, m->sd, m->raw_len, "structured-data");
	fz_check_span(m, m->msg, m->raw_len, "msg");
	fz_check_time(&m->t_reported, "timereported");
	fz_check_time(&m->t_received, "timegenerated");
}

/* Templates made while fuzzing are dropped again. tpl_list holds the
 * templates in definition order, so the new ones follow the last one
 * present before: fz_tpl_mark() returns where they will hang, and
 * fz_tpl_drop() frees what hangs there. */
static inline struct template **fz_tpl_mark(void)
{
	struct template **pp = &tpl_list;
	while (*pp)
		pp = &(*pp)->next;
	return pp;
}

static inline void fz_tpl_drop(struct template **mark)
{
	struct template *added = *mark, *head;
	*mark = NULL;
	head = tpl_list;
	tpl_list = added;
	tpl_destroy_all();
	tpl_list = head;
}

/* Case-insensitive search in a byte range. */
static inline bool fz_has(const uint8_t *p, size_t n, const char *word)
{
	size_t wl = strlen(word);
	for (size_t i = 0; i + wl <= n; i++) {
		size_t k = 0;
		while (k < wl && (p[i + k] | 0x20) == (word[k] | 0x20))
			k++;
		if (k == wl)
			return true;
	}
	return false;
}

/* Configuration text may read files: `cat FILE` in backticks, include()
 * with file=, $IncludeConfig. A fuzzer that found "/dev/zero" or
 * "/dev/stdin" would hang or eat memory there, which is the trusted
 * config's right, not a bug; such inputs are skipped. include(text=...)
 * and `echo ...` stay in. */
static inline bool fz_config_reads_files(const uint8_t *p, size_t n)
{
	return (memchr(p, '`', n) && fz_has(p, n, "cat")) || fz_has(p, n, "includeconfig") ||
	       (fz_has(p, n, "include") && fz_has(p, n, "file"));
}

/* glibc's regcomp() copies the operand of a repetition for each operator
 * stacked on it: "a++++…" or "((a{99}){99}){99}" grow exponentially and
 * take gigabytes to compile. Such a regex in a (trusted) configuration
 * exhausts memory in rsyslogd just the same; it is not what the template
 * and config harnesses look for, so inputs whose regex trees would be
 * that large are skipped. The estimate treats the whole text as one
 * regex (so it only overestimates): atoms count 1, a group its contents,
 * a quantifier multiplies its operand by 2 (+ * ?) or by its largest
 * bound ({n,m}), and escaped ( ) { count as unescaped (BRE). */
static inline bool fz_regex_blowup(const uint8_t *p, size_t n)
{
	enum { DEPTH = 64 };
	double seq[DEPTH + 1], last[DEPTH + 1];
	int d = 0;
	seq[0] = last[0] = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		if (c == '\\' && i + 1 < n && (p[i + 1] == '(' || p[i + 1] == ')' || p[i + 1] == '{'))
			c = p[++i];
		if (c == '(' && d < DEPTH) {
			d++;
			seq[d] = last[d] = 0;
		} else if (c == ')' && d > 0) {
			double g = seq[d] + 1;
			d--;
			seq[d] += g;
			last[d] = g;
		} else if (c == '+' || c == '*' || c == '?' || c == '{') {
			double f = 2;
			if (c == '{') {
				unsigned long b = 0, v = 0;
				while (i + 1 < n && ((p[i + 1] >= '0' && p[i + 1] <= '9') || p[i + 1] == ',')) {
					i++;
					v = p[i] == ',' ? 0 : v * 10 + (p[i] - '0');
					if (v > 1000000)
						v = 1000000;
					if (v > b)
						b = v;
				}
				f = (double)b + 1;
			}
			seq[d] += last[d] * (f - 1);
			last[d] *= f;
		} else {
			seq[d] += 1;
			last[d] = 1;
		}
		if (seq[d] > 2e5 || last[d] > 2e5)
			return true;
	}
	return false;
}

/* Every property getter, and every date format of both timestamps. */
static inline void fz_all_props(const struct msg *m, struct sbuf *scratch)
{
	for (int id = PROP_INVALID + 1; id < PROP_MAX; id++) {
		struct prop_ref ref = { (enum prop_id)id, NULL };
		static char root[] = "";
		static char path[] = "a!b";
		size_t len = 0;
		const char *v;
		if (id == PROP_UUID || id == PROP_SYS_UPTIME)
			continue; /* random / clock: no input dependence */
		if (id == PROP_CEE || id == PROP_LOCAL_VAR || id == PROP_GLOBAL_VAR)
			ref.path = root;
		v = prop_get(m, &ref, &len, scratch);
		if (!v)
			FZ_FAIL("prop_get(%s) returned NULL", prop_name((enum prop_id)id));
		fz_touch(v, len);
		if (ref.path) {
			ref.path = path;
			v = prop_get(m, &ref, &len, scratch);
			if (!v)
				FZ_FAIL("prop_get(%s a!b) returned NULL", prop_name((enum prop_id)id));
			fz_touch(v, len);
		}
	}
	for (int f = TPL_DF_DEFAULT; f <= TPL_DF_WEEK; f++) {
		char buf[DT_MAX_LEN];
		for (int utc = 0; utc < 2; utc++) {
			size_t n = tpl_fmt_time(&m->t_reported, (enum tpl_datefmt)f, utc, buf);
			if (n >= DT_MAX_LEN)
				FZ_FAIL("date format %d gave %zu bytes", f, n);
			fz_touch(buf, n);
			n = tpl_fmt_time(&m->t_received, (enum tpl_datefmt)f, utc, buf);
			if (n >= DT_MAX_LEN)
				FZ_FAIL("date format %d gave %zu bytes", f, n);
			fz_touch(buf, n);
		}
	}
}

#endif
