/* test_script_funcs.c — Check tests for the RainerScript built-in
 * functions and operators: one assertion per edge case, each value taken
 * from rsyslogd 8.2302 (tests/diff/configs/fn_*.conf compare the same
 * cases with the real daemon), lookup tables with reload, dyn_inc,
 * closest-name hints, and a micro-benchmark of the bench filter
 * expressions that also asserts they allocate nothing per message.
 *
 * malloc/calloc/realloc are wrapped (glibc's __libc_* entry points) to
 * count allocations. Threading: single-threaded.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json.h>
#include "ast.h"
#include "lookup.h"
#include "msg.h"
#include "prop.h"
#include "script.h"
#include "script_int.h"
#include "sbuf.h"
#include "stats.h"

/* ---- allocation counting ---- */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static volatile long n_allocs;
void *malloc(size_t n) { n_allocs++; return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { n_allocs++; return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { n_allocs++; return __libc_realloc(p, n); }

/* ---- stubs of the core, recording calls ---- */
#include "script_stubs.h"


#define EQ(expr, want) ck_assert_str_eq(eval(expr), want)

START_TEST(t_numbers)
{
	EQ("\"0x1F\" + 0", "21");          /* constants fold as rsyslog's optimizer: hex */
	EQ("\"012\" + 0", "10");           /* ... and octal */
	EQ("\"\" == 0", "1");
	EQ("\"-\" == 0", "1");
	EQ("\"+5\" == 5", "0");
	EQ("\"007\" == 7", "1");
	EQ("\"10\" < \"9\"", "0");          /* two numeric strings compare as numbers */
	EQ("\"abc\" < \"abd\"", "1");
	EQ("5 / 0", "0");
	EQ("5 % 0", "0");
	EQ("-7 % 3", "-1");
	EQ("cnum(\"0xff\") & \",\" & cnum(\"0xg\") & \",\" & cnum(\"-5x\")", "\"85,0,-5\"");
	EQ("int2hex(\"abc\") & \",\" & int2hex(\"\") & \",\" & int2hex(\"12x\")", "\"NAN,0,NAN\"");
	EQ("num2ipv4(4294967295) & \",\" & num2ipv4(4294967296) & \",\" & num2ipv4(\"abc\") & \",\" & num2ipv4(\"\")",
	   "\"255.255.255.255,-1,-1,0.0.0.0\"");
	EQ("ipv42num(\" 1.2.3.4\") & \",\" & ipv42num(\"1.2.3.4 \") & \",\" & ipv42num(\"1..2.3\")", "\"16909060,16909060,-1\"");
	EQ("ipv42num(\"256.1.1.1\") & \",\" & ipv42num(\"1.2 .3.4\") & \",\" & ipv42num(\"\")", "\"65793,-1,-1\"");
	EQ("(1 and \"0\") & (\"abc\" or 0) & (not \"x\") & (not \"1\") & (-\"5\") & (- -3)", "\"0010-53\"");
	EQ("\"a\" & 1 + 1", "1");   /* & and + share a precedence level */
}
END_TEST

START_TEST(t_runtime_numbers)
{
	/* at run time strings convert as decimal prefixes (var2Number) */
	struct msg *m = mk_msg("prog: 0x1F", 1, 5, "prog:");
	run("set $.h = \"0x1F\"; set $.o = \"012\"; set $!r = ($.h + 0) & \",\" & ($.o + 0) & \",\" & cnum($.h) & \",\" & ($msg + 1);", m);
	struct fjson_object *r = NULL;
	ck_assert(fjson_object_object_get_ex(m->json, "r", &r));
	ck_assert_str_eq(fjson_object_get_string(r), "0,12,0,1");
	msg_release(m);
}
END_TEST

START_TEST(t_strings)
{
	EQ("substring(\"abcdef\", 4, 10) & \",\" & substring(\"abcdef\", 6, 1) & \",\" & substring(\"abcdef\", 0, 0)", "\"ef,,\"");
	EQ("substring(\"abcdef\", 0, -1) & \",\" & substring(\"abcdef\", 2, -1) & \",\" & substring(\"abcdef\", 2, -3)", "\"abcde,cdef,cde\"");
	EQ("substring(\"abcdef\", 2, -10) & \",\" & substring(\"abcdef\", 3, -1) & \",\" & substring(\"abcdef\", -1, 2)", "\",def,\"");
	EQ("field(\"a b c\", 32, 4) & \",\" & field(\"a b c\", 32, 0) & \",\" & field(\"a  c\", 32, 2)", "\"***FIELD NOT FOUND***,***FIELD NOT FOUND***,\"");
	EQ("field(\"a::b::c\", \"::\", 2) & \",\" & field(\"a b \", 32, 3) & \",\" & field(\"\", 32, 1) & \",\" & field(\"abc\", \"\", 2)", "\"b,,,\"");
	EQ("\"[\" & ltrim(\"   \") & \"][\" & rtrim(\"   \") & \"][\" & rtrim(\"\") & \"][\" & ltrim(\"\\ta\") & \"]\"", "\"[][][][\\ta]\"");
	EQ("replace(\"aaa\", \"aa\", \"b\") & \",\" & replace(\"abcabc\", \"bc\", \"\") & \",\" & replace(\"abc\", \"\", \"x\")", "\"ba,aa,xaxbxcx\"");
	EQ("replace(\"aab\", \"ab\", \"X\") & \",\" & replace(123123, 2, 9)", "\"aX,193193\"");
	EQ("wrap(\"a'b\", \"'\", \"\\\\'\") & \",\" & wrap(\"\", \"--\") & \",\" & wrap(\"xx\", \"\")", "\"'a\\\\'b',----,xx\"");
	EQ("tolower(\"AbC\\xC3\\x89\") & \",\" & strlen(\"\\xC3\\x89\") & \",\" & strlen(12345) & \",\" & cstr(-5)", "\"abc\xc3\x89,2,5,-5\"");
	EQ("[\"x\",\"y\"] & (\"y\" == [\"x\",\"y\"]) & (\"z\" != [\"x\",\"y\"]) & (\"xa\" startswith [\"y\",\"x\"]) & (\"AB\" contains_i [\"b\"])", "\"x1111\"");
}
END_TEST

START_TEST(t_regex)
{
	EQ("re_extract(\"aaa\", \"a*\", 1, 0, \"D\")", "\"\"");
	EQ("re_extract(\"ab12cd34\", \"[0-9]+\", 1, 0, \"D\")", "\"34\"");
	EQ("re_extract(\"ab12cd34\", \"^[a-z]+\", 1, 0, \"D\")", "\"D\"");
	EQ("re_extract(\"abc\", \"(x)?b\", 0, 1, \"D\") & re_extract(\"abc\", \"b\", 0, 50, \"D\") & re_extract(\"abc\", \"b\", 0, 10, \"D\")", "\"DDD\"");
	EQ("re_extract(\"abc\", \"x\", 0, 0, 42)", "\"42\"");
	EQ("re_match(\"abc\", '^$') & re_match(\"\", '^$') & re_match(\"ABC\", \"abc\") & re_match_i(\"ABC\", \"abc\")", "\"0101\"");
	EQ("re_extract_i(\"xABCx\", \"(b)c\", 0, 1, \"D\")", "\"B\"");
	/* re_extract does not set script_error() */
	EQ("parse_json(\"{}\", '$!q') & re_extract(\"a\", \"z\", 0, 0, \"d\") & script_error()", "\"0d0\"");
	/* a constant ERE that means the same to PCRE2 is matched by its JIT */
	struct script_regex *r;
	char err[128];
	r = script_regex_new("^(sshd|cron)[0-9]*: .*fail(ed|ure)", true, false, err, sizeof(err));
	ck_assert(r);
#ifdef HAVE_PCRE2
	ck_assert(script_regex_uses_jit(r));
#endif
	ck_assert(script_regex_match(r, "sshd12: login failed", 20));
	ck_assert(!script_regex_match(r, "sshd12: login faile", 19));
	script_regex_free(r);
	/* an escaped metacharacter is a literal in both engines: JIT */
	r = script_regex_new("a\\.b\\[UFW\\] x*", true, false, err, sizeof(err));
	ck_assert(r);
#ifdef HAVE_PCRE2
	ck_assert(script_regex_uses_jit(r));
#endif
	ck_assert(script_regex_match(r, "xa.b[UFW] ", 10) && !script_regex_match(r, "axb[UFW] ", 9));
	script_regex_free(r);
	/* nothing but literal alternatives: memmem/memcmp */
	r = script_regex_new("a\\.b\\[UFW\\]|^postfix", true, false, err, sizeof(err));
	ck_assert(r && script_regex_is_literal(r) && !script_regex_uses_jit(r));
	ck_assert(script_regex_match(r, "xa.b[UFW]", 9) && !script_regex_match(r, "axb[UFW]", 8));
	ck_assert(script_regex_match(r, "postfix/smtpd", 13) && !script_regex_match(r, "xpostfix", 8));
	ck_assert(!script_regex_match(r, "postfi", 6) && !script_regex_match(r, "a.b[UFW\0]", 10));
	script_regex_free(r);
	static const char *not_literal[] = { "a|", "|a", "^", "a||b", "a$", "a.b", "a\\wb", "a^b", "a\tb", "(ab)" };
	for (size_t i = 0; i < sizeof(not_literal) / sizeof(*not_literal); i++) {
		r = script_regex_new(not_literal[i], true, false, err, sizeof(err));
		ck_assert_msg(r && !script_regex_is_literal(r), "literal: %s", not_literal[i]);
		script_regex_free(r);
	}
	r = script_regex_new("abc", true, true, err, sizeof(err)); /* re_match_i: not literal */
	ck_assert(r && !script_regex_is_literal(r) && script_regex_match(r, "xABCx", 5));
	script_regex_free(r);
	/* a backslash inside a bracket is literal to POSIX only: POSIX */
	r = script_regex_new("a[\\.]b", true, false, err, sizeof(err));
	ck_assert(r && !script_regex_uses_jit(r));
	ck_assert(script_regex_match(r, "a\\b", 3) && script_regex_match(r, "a.b", 3));
	script_regex_free(r);
	/* an escaped ordinary character (\w is a class in PCRE2): POSIX */
	r = script_regex_new("a\\wb", true, false, err, sizeof(err));
	ck_assert(r && !script_regex_uses_jit(r));
	script_regex_free(r);
}
END_TEST

/* Literal alternatives answer as POSIX regexec does: random patterns of
 * that shape (escaped metacharacters, '^' anchors) against random texts
 * over the same characters. */
START_TEST(t_regex_literal_same)
{
	static const char *atoms[] = { "a", "b", " ", "\\.", "\\[", "\\|", "\\^", "\\$", "\\\\", "\\(", "\\*" };
	static const char tchars[] = "ab .[|^$\\(*";
	unsigned seed = 12345;
	char err[128];
	int literal = 0;
	for (int round = 0; round < 3000; round++) {
		char pat[128] = "";
		int n_alts = 1 + (int)(rand_r(&seed) % 3);
		for (int k = 0; k < n_alts; k++) {
			if (k)
				strcat(pat, "|");
			if (rand_r(&seed) % 3 == 0)
				strcat(pat, "^");
			int n_atoms = 1 + (int)(rand_r(&seed) % 4);
			for (int j = 0; j < n_atoms; j++)
				strcat(pat, atoms[rand_r(&seed) % (sizeof(atoms) / sizeof(*atoms))]);
		}
		struct script_regex *r = script_regex_new(pat, true, false, err, sizeof(err));
		regex_t re;
		ck_assert_msg(r && regcomp(&re, pat, REG_EXTENDED) == 0, "compile %s", pat);
		ck_assert_msg(script_regex_is_literal(r), "not literal: %s", pat);
		literal++;
		for (int t = 0; t < 40; t++) {
			char txt[16];
			size_t len = rand_r(&seed) % 13;
			for (size_t i = 0; i < len; i++)
				txt[i] = tchars[rand_r(&seed) % (sizeof(tchars) - 1)];
			txt[len] = '\0';
			bool want = regexec(&re, txt, 0, NULL, 0) == 0;
			ck_assert_msg(script_regex_match(r, txt, len) == want, "'%s' on '%s': %d, POSIX %d", pat,
				      txt, !want, want);
		}
		regfree(&re);
		script_regex_free(r);
	}
	ck_assert_int_eq(literal, 3000);
}
END_TEST

START_TEST(t_time)
{
	EQ("format_time(0, \"date-rfc3339\") & \",\" & format_time(1507165811, \"date-rfc3164\") & \",\" & format_time(\"\", \"date-rfc3339\")",
	   "\"1970-01-01T00:00:00Z,Oct  5 01:10:11,1970-01-01T00:00:00Z\"");
	EQ("format_time(\"12x\", \"date-rfc3339\") & \",\" & format_time(-1, \"date-rfc3339\")", "\"12x,1969-12-31T23:59:59Z\"");
	EQ("parse_time(\"2017-10-05T01:10:11Z\") & \",\" & parse_time(\"2017-10-05T01:10:11.5+02:00\") & \",\" & parse_time(\"2017-10-05T01:10:11Z trailing\")",
	   "\"1507165811,1507158611,1507165811\"");
	EQ("parse_time(\"2017-10-05T01:10:11Zx\") & script_error() & \",\" & parse_time(\"\") & script_error()", "\"01,01\"");
	EQ("parse_time(\"Oct  5 01:10:11\") > 0", "1");
	EQ("is_time(\"\") & is_time(\"x\") & is_time(\"123\") & is_time(\"-123\") & is_time(\"12a\") & is_time(\"Oct  5 01:10:11\")", "\"101101\"");
	EQ("is_time(\"Oct 5 01:10:11\") & is_time(\"2017-10-05T01:10:11Z\") & is_time(\"2017-10-05T01:10:11\")", "\"110\"");
	EQ("is_time(\"123\", \"date-unix\") & is_time(\"123\", \"date-rfc3164\") & is_time(\"Oct  5 01:10:11\", \"date-rfc3339\") & is_time(\"x\", \"bogus\") & is_time(123) & script_error()",
	   "\"100010\"");
}
END_TEST

START_TEST(t_json)
{
	EQ("parse_json(\"{\\\"a\\\":1}\", '$.pj') & script_error() & parse_json(\"5\", '$.x') & $.pj!a", "\"0011\"");
	EQ("parse_json(\"[1,2]\", '$.a') & $.a", "\"0[ 1, 2 ]\"");
	struct msg *m = mk_msg("prog: x", 1, 5, "prog:");
	run("set $.j!a!b = \"deep\"; set $.j!a!c = 5; set $.p = parse_json('[10,20,{\"x\":1}]', '$.arr');\n"
	    "set $!r = get_property($.j, \"a\") & \"|\" & get_property($.j, \"a!b\") & \"|\" & get_property($.arr, 1) & \"|\" & "
	    "get_property($.arr, \"1\") & \"|\" & (get_property($.j!a, \"c\") + 1) & \"|\" & get_property(get_property($.j, \"a\"), \"b\") & \"|\" & "
	    "get_property(\"abc\", \"x\") & script_error() & \"|\" & get_property($.arr, 5) & script_error() & \"|\" & exists($.j!a!c) & exists($.j!a!z);", m);
	struct fjson_object *r = NULL;
	ck_assert(fjson_object_object_get_ex(m->json, "r", &r));
	ck_assert_str_eq(fjson_object_get_string(r), "{ \"b\": \"deep\", \"c\": 5 }||20|20|6|deep|1|0|10");
	msg_release(m);
}
END_TEST

START_TEST(t_foreach_globals)
{
	struct msg *m = mk_msg("prog: x", 1, 5, "prog:");
	run("set $.p = parse_json('{\"l\":[1,\"two\",{\"k\":3}],\"o\":{\"a\":1,\"b\":\"x\"}}', '$.in');\n"
	    "set $/count = 0;\n"
	    "foreach ($.i in $.in!l) do { set $!s = $!s & $.i & \";\"; set $/count = $/count + 1; }\n"
	    "foreach ($.kv in $.in!o) do { set $!t = $!t & $.kv!key & \"=\" & $.kv!value & \";\"; }\n"
	    "set $!r = $!s & \"|\" & $!t & \"|\" & $/count;", m);
	struct fjson_object *r = NULL;
	ck_assert(fjson_object_object_get_ex(m->json, "r", &r));
	ck_assert_str_eq(fjson_object_get_string(r), "1;two;{ \"k\": 3 };|a=1;b=x;|3");
	/* the template layer sees the same $/ store */
	struct prop_ref ref;
	struct sbuf sb = SBUF_INIT;
	size_t len;
	ck_assert(prop_ref_parse("$/count", 7, &ref));
	const char *v = prop_get(m, &ref, &len, &sb);
	ck_assert_int_eq((int)len, 1);
	ck_assert(!memcmp(v, "3", 1));
	prop_ref_free(&ref);
	sbuf_free(&sb);
	msg_release(m);
}
END_TEST

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	FILE *f = fopen(p, "w");
	ck_assert(f);
	fputs(text, f);
	fclose(f);
}

/* percentile_stats: rsyslog's index max(0, p/100*n - 1) over the sorted
 * window, the window (windowSize 4 -> a ring of 4 keeping 3), window
 * counters restarting after a report, the key order, and the lines. */
START_TEST(t_percentile)
{
	int nerr = 0;
	struct cfg_tree *t = parse("percentile_stats(name=\"pu\" percentiles=[\"50\",\"95\"] windowSize=\"4\")\n"
				   "set $!r = percentile_observe(\"pu\", \"k\", \"7\") & percentile_observe(\"pu\", \"k\", \"x\");\n",
				   &nerr);
	ck_assert_msg(t && nerr == 0, "%s", errbuf);
	for (struct cfg_obj *o = t->objs; o; o = o->next)
		if (o->type == CFG_OBJ_PERCENTILE_STATS)
			ck_assert_int_eq(percentile_bucket_create(o), SL_OK);
	script_compile(t->script, &resolver, &nerr);
	ck_assert_msg(nerr == 0, "%s", errbuf);
	struct percentile_bucket *b = percentile_find("pu");
	ck_assert_ptr_nonnull(b);
	struct exec_ctx ctx;
	exec_ctx_init(&ctx);
	struct msg *m = mk_msg("prog: x", 1, 5, "prog:");
	script_exec(t->script, m, &ctx);  /* observes 7; "x" is not a number */
	struct fjson_object *r = NULL;
	ck_assert(fjson_object_object_get_ex(m->json, "r", &r));
	ck_assert_str_eq(fjson_object_get_string(r), "00");
	msg_release(m);
	ck_assert_int_eq(percentile_observe(b, "k", 1, 1), 0);
	ck_assert_int_eq(percentile_observe(b, "k", 1, 9), 0);
	ck_assert_int_eq(percentile_observe(b, "j", 1, 4), 0);
	struct sbuf sb = SBUF_INIT;
	ck_assert(stats_render_obj("pu", STATS_FMT_LEGACY, &sb));
	ck_assert_str_eq(sb.buf, "pu: origin=percentile.bucket k.p50=0 k.p95=0 k.window_min=1 k.window_max=9 "
			 "k.window_sum=17 k.window_count=3 j.p50=0 j.p95=0 j.window_min=4 j.window_max=4 "
			 "j.window_sum=4 j.window_count=1 ");
	lookup_stats_reported();
	/* the ring kept 1, 9, 7 -> sorted 1 7 9: p50 index 0.5, p95 index 1.85 */
	sb.len = 0;
	ck_assert(stats_render_obj("pu", STATS_FMT_LEGACY, &sb));
	ck_assert_str_eq(sb.buf, "pu: origin=percentile.bucket k.p50=1 k.p95=7 k.window_min=1 k.window_max=9 "
			 "k.window_sum=17 k.window_count=3 j.p50=4 j.p95=4 j.window_min=4 j.window_max=4 "
			 "j.window_sum=4 j.window_count=1 ");
	/* a new observation restarts the window counters */
	percentile_observe(b, "k", 1, 5);
	sb.len = 0;
	ck_assert(stats_render_obj("pu", STATS_FMT_LEGACY, &sb));
	ck_assert(strstr(sb.buf, " k.window_min=5 k.window_max=5 k.window_sum=5 k.window_count=1 "));
	sbuf_free(&sb);
}
END_TEST

START_TEST(t_lookup)
{
	char cfg[2048];
	int nerr = 0;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sluice-lookup.XXXXXX");
	ck_assert(mkdtemp(tmpdir));
	write_file("s.json", "{\"version\":1,\"nomatch\":\"unk\",\"type\":\"string\",\"table\":["
		   "{\"index\":\"host1\",\"value\":\"web\"},{\"index\":\"db_2\",\"value\":\"db\"}]}");
	write_file("a.json", "{\"version\":1,\"type\":\"array\",\"table\":["
		   "{\"index\":1,\"value\":\"one\"},{\"index\":2,\"value\":\"two\"}]}");
	write_file("sp.json", "{\"version\":1,\"nomatch\":\"low\",\"type\":\"sparseArray\",\"table\":["
		   "{\"index\":10,\"value\":\"ten+\"},{\"index\":100,\"value\":\"hundred+\"}]}");
	snprintf(cfg, sizeof(cfg),
		 "lookup_table(name=\"s\" file=\"%s/s.json\")\n"
		 "lookup_table(name=\"a\" file=\"%s/a.json\" reloadOnHUP=\"off\")\n"
		 "lookup_table(name=\"sp\" file=\"%s/sp.json\")\n"
		 "dyn_stats(name=\"b\")\n"
		 "set $!r = lookup(\"s\", \"host1\") & \",\" & lookup(\"s\", \"x\") & \",\" & lookup(\"a\", 2) & \",\" & "
		 "lookup(\"a\", \"3\") & \",\" & lookup(\"sp\", 5) & \",\" & lookup(\"sp\", 10) & \",\" & lookup(\"sp\", 99) & \",\" & "
		 "lookup(\"sp\", 1000) & \",\" & dyn_inc(\"b\", \"k\") & dyn_inc(\"b\", \"k\");\n"
		 "if $msg contains \"reload\" then reload_lookup_table(\"s\", \"stub\")\n", tmpdir, tmpdir, tmpdir);
	struct cfg_tree *t = parse(cfg, &nerr);
	ck_assert_msg(t && nerr == 0, "%s", errbuf);
	for (struct cfg_obj *o = t->objs; o; o = o->next) {
		if (o->type == CFG_OBJ_LOOKUP_TABLE)
			ck_assert_int_eq(lookup_table_create(o), SL_OK);
		else if (o->type == CFG_OBJ_DYN_STATS)
			ck_assert_int_eq(dynstats_bucket_create(o), SL_OK);
	}
	script_compile(t->script, &resolver, &nerr);
	ck_assert_msg(nerr == 0, "%s", errbuf);
	struct exec_ctx ctx;
	exec_ctx_init(&ctx);
	struct msg *m = mk_msg("prog: x", 1, 5, "prog:");
	script_exec(t->script, m, &ctx);
	struct fjson_object *r = NULL;
	ck_assert(fjson_object_object_get_ex(m->json, "r", &r));
	ck_assert_str_eq(fjson_object_get_string(r), "web,unk,two,,low,ten+,ten+,hundred+,00");
	ck_assert_int_eq((int)dynstats_get(dynstats_find("b"), "k"), 2);
	msg_release(m);
	/* HUP: a changed file is re-read (reloadOnHUP defaults to on) */
	write_file("s.json", "{\"version\":1,\"table\":[{\"index\":\"host1\",\"value\":\"NEW\"}]}");
	write_file("a.json", "{\"version\":1,\"type\":\"array\",\"table\":[{\"index\":2,\"value\":\"NEW\"}]}");
	lookup_reload_all();
	m = mk_msg("prog: x", 1, 5, "prog:");
	script_exec(t->script, m, &ctx);
	ck_assert(fjson_object_object_get_ex(m->json, "r", &r));
	ck_assert_str_eq(fjson_object_get_string(r), "NEW,,two,,low,ten+,ten+,hundred+,00");
	msg_release(m);
	/* reload_lookup_table with a broken file: the stub value answers */
	write_file("s.json", "{broken");
	m = mk_msg("prog: reload", 1, 5, "prog:");
	script_exec(t->script, m, &ctx);
	msg_release(m);
	m = mk_msg("prog: x", 1, 5, "prog:");
	script_exec(t->script, m, &ctx);
	ck_assert(fjson_object_object_get_ex(m->json, "r", &r));
	ck_assert_str_eq(fjson_object_get_string(r), "stub,stub,two,,low,ten+,ten+,hundred+,00");
	msg_release(m);
	exec_ctx_fini(&ctx);
	script_release(t->script);
	cfg_tree_free(t);
	lookup_destroy_all();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(t_errors)
{
	expect_error("set $!a = strln($msg);", "test.conf:1: unknown function 'strln' (did you mean 'strlen'?)");
	expect_error("set $!a = $hostnme;", "test.conf:1: unknown property '$hostnme' (did you mean 'hostname'?)");
	expect_error("set $!a = re_match($msg, $msg);", "test.conf:1: param 2 of re_match/extract() must be a constant string");
	expect_error("set $!a = re_match($msg, \"(\");", "test.conf:1: re_match(): cannot compile regex '(': Unmatched ( or \\(");
	expect_error("set $!a = lookup(\"nope\", $msg);", "test.conf:1: lookup table 'nope' not found (used in function: lookup)");
	expect_error("set $!a = dyn_inc(\"nope\", $msg);", "test.conf:1: dyn-stats bucket 'nope' not found");
	expect_error("set $!a = exec_template(\"nope\");", "test.conf:1: exec_template(): template 'nope' could not be found");
	expect_error("set $!a = prifilt($msg);", "test.conf:1: param 1 of prifilt() must be a constant string");
	expect_error("set $!a = reload_lookup_table(\"t\");", "test.conf:1: unknown function 'reload_lookup_table'");
	expect_error("\n\nset $!a = \"cost: $5\";", "test.conf:3: $-sign in double quotes must be escaped, problem string is: \"cost: $5\" (write \\$ or use single quotes)");
	expect_error("set $!a = substring(\"a\", 1);", "test.conf:1: function 'substring' expects 3 arguments, got 2");
	expect_error("set $!a = wrap(\"a\");", "test.conf:1: function 'wrap' expects 2 to 3 arguments, got 1");
}
END_TEST

/* The three filters of the bench scenario, per message: time and
 * allocations (none once the scratch buffers have grown). */
START_TEST(t_bench_filters)
{
	static const char *const exprs[] = {
		"$programname == \"sshd\"",
		"re_match($msg, \"error|fail(ed|ure)\")",
		"$syslogseverity <= 4",
	};
	for (size_t k = 0; k < 3; k++) {
		char cfg[256];
		int nerr = 0;
		snprintf(cfg, sizeof(cfg), "if %s then action(name=\"A\")\n", exprs[k]);
		struct cfg_tree *t = parse(cfg, &nerr);
		ck_assert(t);
		script_compile(t->script, &resolver, &nerr);
		ck_assert_int_eq(nerr, 0);
		struct exec_ctx ctx;
		exec_ctx_init(&ctx);
		struct msg *m = mk_msg("sshd[1234]: Accepted publickey for alice from 192.0.2.1 port 50022 ssh2 and some more text", 4, 6, "sshd[1234]:");
		script_exec(t->script, m, &ctx);  /* warm-up: scratch buffers grow */
		const int n = 1000000;
		long a0 = n_allocs;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < n; i++) {
			calls[0] = '\0';
			script_exec(t->script, m, &ctx);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long allocs = n_allocs - a0;
		double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / n;
		printf("bench filter %-45s %6.1f ns/msg, %ld allocations in %d runs\n", exprs[k], ns, allocs, n);
		ck_assert_int_eq(allocs, 0);
		msg_release(m);
		exec_ctx_fini(&ctx);
		script_release(t->script);
		cfg_tree_free(t);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("script_funcs");
	TCase *tc = tcase_create("all");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_numbers);
	tcase_add_test(tc, t_runtime_numbers);
	tcase_add_test(tc, t_strings);
	tcase_add_test(tc, t_regex);
	tcase_add_test(tc, t_regex_literal_same);
	tcase_add_test(tc, t_time);
	tcase_add_test(tc, t_json);
	tcase_add_test(tc, t_foreach_globals);
	tcase_add_test(tc, t_lookup);
	tcase_add_test(tc, t_percentile);
	tcase_add_test(tc, t_errors);
	tcase_add_test(tc, t_bench_filters);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
