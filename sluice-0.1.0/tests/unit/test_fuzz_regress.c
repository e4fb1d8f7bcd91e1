/* test_fuzz_regress.c — the bugs fuzzing found, as Check tests against
 * the gcc-built core: each fixed bug has a test that states the right
 * behaviour, and every input in tests/fuzz/regressions/{parser,template}/
 * is replayed through the harness code itself (fuzz_parser.c and
 * fuzz_template.c, included here under other names), so their checks run
 * in `make check` even where clang is missing. (The sanitizer replay of
 * the same inputs is tests/integration/fuzz_smoke.sh.)
 *
 * Threading: single-threaded; Check forks each test.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LLVMFuzzerInitialize fuzz_parser_init
#define LLVMFuzzerTestOneInput fuzz_parser_one
#include "../fuzz/fuzz_parser.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize fuzz_template_init
#define LLVMFuzzerTestOneInput fuzz_template_one
#include "../fuzz/fuzz_template.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput

static const char *srcdir(void)
{
	const char *s = getenv("srcdir");
	return s && *s ? s : ".";
}

/* Render `m` through the template text `tpl` (legacy form); the length
 * of the result goes to *len when len is not NULL. */
static char *render_n(const char *tpl, struct msg *m, size_t *len)
{
	static const struct cfg_pos pos = { "test", 1 };
	struct template **mark = fz_tpl_mark();
	struct sbuf out = SBUF_INIT;
	char args[512];
	snprintf(args, sizeof(args), "t,\"%s\"", tpl);
	ck_assert_int_eq(tpl_create_legacy(args, &pos), SL_OK);
	ck_assert(tpl_render(tpl_find("t"), m, &out));
	ck_assert(sbuf_cstr(&out));
	fz_tpl_drop(mark);
	if (len)
		*len = out.len;
	return out.buf;
}

static char *render(const char *tpl, struct msg *m)
{
	return render_n(tpl, m, NULL);
}

/* Found by fuzz_parser: the strgen of RSYSLOG_ForwardFormat printed an
 * invalid PRI as "<199>"; rsyslogd 8.2302 prints "<invld>", as %PRI%. */
START_TEST(test_forward_invalid_pri)
{
	fz_init();
	struct msg *m = fz_parsed_msg("<13", 3, 0);
	for (const char *const *n = (const char *const[]){ "RSYSLOG_ForwardFormat",
							  "RSYSLOG_TraditionalForwardFormat",
							  "RSYSLOG_SyslogProtocol23Format", NULL };
	     *n; n++) {
		struct sbuf a = SBUF_INIT, b = SBUF_INIT;
		const struct template *t = tpl_find(*n);
		ck_assert_ptr_nonnull(t);
		ck_assert(tpl_render(t, m, &a) && sbuf_cstr(&a));
		ck_assert(tpl_render_generic(t, m, &b) && sbuf_cstr(&b));
		ck_assert_msg(!strncmp(a.buf, "<invld>", 7), "%s: [%s]", *n, a.buf);
		ck_assert_str_eq(a.buf, b.buf);
		sbuf_free(&a);
		sbuf_free(&b);
	}
	msg_release(m);
}
END_TEST

/* Found by fuzz_parser: a timestamp before about 1700 made rsyslog's
 * weekday formula negative, and date-wdayname indexed its table with it
 * (rsyslogd 8.2302 crashes there). sluice continues the weekly cycle. */
START_TEST(test_wday_before_1700)
{
	fz_init();
	static const char *const raws[] = {
		"<13>1 0003-10-11T22:14:15Z host app 123 - - x",
		"<13>1 1003-10-11T22:14:15Z host app 123 - - x",
		"<13>1 2003-10-11T22:14:15Z host app 123 - - x",
	};
	static const char *const want[] = { NULL, NULL, "6 Sat" };
	for (int i = 0; i < 3; i++) {
		struct msg *m = fz_parsed_msg(raws[i], strlen(raws[i]), 0);
		char *s = render("%timereported:::date-wday% %timereported:::date-wdayname%", m);
		ck_assert_msg(strlen(s) == 5 && s[0] >= '0' && s[0] <= '6' && s[1] == ' ',
			      "%s: [%s]", raws[i], s);
		ck_assert_str_eq(s + 2, dt_wday_names[s[0] - '0']);
		if (want[i])
			ck_assert_str_eq(s, want[i]);
		free(s);
		msg_release(m);
	}
}
END_TEST

/* Found by fuzz_template: a legacy "\0" escape put a NUL into a constant
 * that was then copied with strndup, shorter than its recorded length
 * (heap overflow when rendered); and long "\NNN..." escapes overflowed an
 * int. rsyslogd 8.2302 writes the NUL, and the escape's value wraps. */
START_TEST(test_legacy_numeric_escapes)
{
	fz_init();
	struct msg *m = fz_parsed_msg("<13>hello", 9, 0);
	size_t n;
	char *s = render_n("a\\0b\\65c\\300d\\99999999999999999999e\\n", m, &n);
	static const char want[] = "a\0bAc,d\377e\n";
	ck_assert_uint_eq(n, sizeof(want) - 1);
	ck_assert(!memcmp(s, want, n));
	free(s);
	msg_release(m);
}
END_TEST

/* Found by fuzz_template: positions beyond INT_MAX overflowed an int;
 * they saturate (doc/differences.md). */
START_TEST(test_position_saturates)
{
	fz_init();
	static const char raw[] = "<13>Mar  1 01:02:03 host tag: hello";
	struct msg *m = fz_parsed_msg(raw, sizeof(raw) - 1, 0);
	char *s = render("[%msg:2:99999999999999999999%][%msg:99999999999999999999:3%]", m);
	ck_assert_str_eq(s, "[hello][ello]"); /* from > to: swapped, as rsyslog */
	free(s);
	msg_release(m);
}
END_TEST

/* Replay every file of tests/fuzz/regressions/NAME/ through `one`. */
static int replay(const char *name, int (*one)(const uint8_t *, size_t))
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/regressions/%s", srcdir(), name);
	DIR *d = opendir(dir);
	if (!d)
		return 0; /* no regression input for this harness (yet) */
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		ck_assert_msg(f != NULL, "cannot open %s", path);
		static uint8_t buf[1 << 16];
		size_t len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, buf, len);
		one(copy, len);
		free(copy);
		n++;
	}
	closedir(d);
	return n;
}

START_TEST(test_replay_parser)
{
	fuzz_parser_init(NULL, NULL);
	ck_assert_int_gt(replay("parser", fuzz_parser_one), 0);
}
END_TEST

START_TEST(test_replay_template)
{
	fuzz_template_init(NULL, NULL);
	ck_assert_int_ge(replay("template", fuzz_template_one), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuzz_regressions");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_forward_invalid_pri);
	tcase_add_test(tc, test_wday_before_1700);
	tcase_add_test(tc, test_legacy_numeric_escapes);
	tcase_add_test(tc, test_position_saturates);
	tcase_add_test(tc, test_replay_parser);
	tcase_add_test(tc, test_replay_template);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
