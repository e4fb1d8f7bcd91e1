/* test_hotpath.c — Check tests that the hot-path shortcuts of issue #11
 * behave exactly like the general code they bypass:
 *  - framing_feed's octet-count fast path (runtime/framing.c): the same
 *    stream fed whole, byte by byte (never the fast path) and split at
 *    every position into two and three reads gives the same frames and
 *    counters, and those are the ones the framing rules give;
 *  - the message block allocator (runtime/msg.c): blocks hold the origin
 *    references of up to 8 origins (MSG_ORIGIN_BLOCK), every reference is
 *    given back whatever the release order;
 *  - the RFC3339 / RFC3164 timestamp fast paths (runtime/datetime.c)
 *    against the general scan (same text in a form only the general scan
 *    reads: a leading 0 in the year, a one-digit day, the end of the
 *    buffer) and against hand-computed fields;
 *  - tpl_fmt_time's per-second RFC3339 cache and dt_fmt_secfrac;
 *  - the script compiler's direct compares, facility/severity masks,
 *    truth-value evaluation and re_match shortcut (runtime/script.c),
 *    against the same conditions written so that no shortcut applies;
 *  - pmrfc3164's 16-bytes-at-a-time TAG scan.
 *
 * action_exec() and ruleset_exec_sync() are stubbed (script_stubs.h).
 * Threading: single-threaded test program.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json.h>
#include <regex.h>
#include "config.h"
#ifdef HAVE_PCRE2
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif
#include "ast.h"
#include "datetime.h"
#include "framing.h"
#include "glbl.h"
#include "msg.h"
#include "parser.h"
#include "prop.h"
#include "script.h"
#include "template.h"

#include "script_stubs.h"
#include "unit_time.h"

/* ================================================================ framing */

/* The frames and counters one run of the framing produced. */
struct fr_out {
	char buf[8192]; /* frames, each as "<len>:" + bytes + "|" */
	size_t len;
	int n_frames;
	struct framing_stats stats;
};

static void fr_emit(void *ctx, const char *p, size_t len)
{
	struct fr_out *o = ctx;
	int n = snprintf(o->buf + o->len, sizeof(o->buf) - o->len, "%zu:", len);
	ck_assert(n > 0 && (size_t)n + len + 1 < sizeof(o->buf) - o->len);
	o->len += (size_t)n;
	memcpy(o->buf + o->len, p, len);
	o->len += len;
	o->buf[o->len++] = '|';
	o->buf[o->len] = '\0';
	o->n_frames++;
}

/* Feed one read from a buffer of its own, followed by bytes that change
 * the result if the framing reads past the end of the read (an SP right
 * after digits would complete a count that is not complete yet). */
static void fr_feed(const struct framing_cfg *cfg, struct framing_state *st,
		    const char *p, size_t len, const struct framing_sink *k)
{
	static const char trap[] = " 7 trap\n";
	char *b = malloc(len + sizeof(trap));
	ck_assert_ptr_nonnull(b);
	memcpy(b, p, len);
	memcpy(b + len, trap, sizeof(trap));
	framing_feed(cfg, st, b, len, k);
	free(b);
}

/* Run `s` through the framing, cut into reads at the `n_cuts` positions
 * in `cuts` (ascending), then EOF. */
static void fr_run(const struct framing_cfg *cfg, const char *s, size_t len,
		   const size_t *cuts, int n_cuts, struct fr_out *o)
{
	struct framing_state st;
	memset(&st, 0, sizeof(st));
	memset(o, 0, sizeof(*o));
	struct framing_sink k = { fr_emit, o, "test", "peer", &o->stats };
	size_t at = 0;
	for (int i = 0; i <= n_cuts; i++) {
		size_t to = i < n_cuts ? cuts[i] : len;
		if (to > at)
			fr_feed(cfg, &st, s + at, to - at, &k);
		at = to;
	}
	framing_eof(cfg, &st, &k);
	framing_state_free(&st);
}

static uint64_t st_get(atomic_uint_fast64_t *a)
{
	return (uint64_t)atomic_load(a);
}

static void fr_same(const struct fr_out *exp, const struct fr_out *got, const char *how)
{
	ck_assert_msg(exp->len == got->len && memcmp(exp->buf, got->buf, exp->len) == 0,
		      "%s: frames\n got '%s'\n expected '%s'", how, got->buf, exp->buf);
	struct framing_stats *e = (struct framing_stats *)&exp->stats;
	struct framing_stats *g = (struct framing_stats *)&got->stats;
	ck_assert_msg(st_get(&e->truncated) == st_get(&g->truncated) &&
		      st_get(&e->framing_errors) == st_get(&g->framing_errors) &&
		      st_get(&e->incomplete_eof) == st_get(&g->incomplete_eof) &&
		      st_get(&e->discarded_nomem) == st_get(&g->discarded_nomem),
		      "%s: counters truncated %llu/%llu framing_errors %llu/%llu eof %llu/%llu", how,
		      (unsigned long long)st_get(&g->truncated), (unsigned long long)st_get(&e->truncated),
		      (unsigned long long)st_get(&g->framing_errors),
		      (unsigned long long)st_get(&e->framing_errors),
		      (unsigned long long)st_get(&g->incomplete_eof),
		      (unsigned long long)st_get(&e->incomplete_eof));
}

/* Build the expected result by hand: frames in order, counters. */
static void fr_expect(struct fr_out *o, const char *const *frames, int n,
		      unsigned trunc, unsigned errs, unsigned eof)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < n; i++)
		fr_emit(o, frames[i], strlen(frames[i]));
	atomic_store(&o->stats.truncated, trunc);
	atomic_store(&o->stats.framing_errors, errs);
	atomic_store(&o->stats.incomplete_eof, eof);
}

/* Whole, byte by byte, every split into two and into three reads. */
static void fr_check_all_splits(const struct framing_cfg *cfg, const char *s, const struct fr_out *exp)
{
	size_t len = strlen(s);
	/* the framing logs each session's first error: thousands of sessions */
	fflush(stderr);
	int saved = dup(2);
	FILE *null = fopen("/dev/null", "w");
	ck_assert(saved >= 0 && null);
	dup2(fileno(null), 2);
	struct fr_out *got = malloc(sizeof(*got));
	ck_assert_ptr_nonnull(got);
	char how[96];

	fr_run(cfg, s, len, NULL, 0, got);
	fr_same(exp, got, "one read");

	size_t *all = calloc(len, sizeof(*all));
	ck_assert_ptr_nonnull(all);
	for (size_t i = 0; i + 1 < len; i++)
		all[i] = i + 1;
	fr_run(cfg, s, len, all, (int)len - 1, got);
	fr_same(exp, got, "byte by byte");
	free(all);

	for (size_t i = 1; i < len; i++) {
		size_t c[1] = { i };
		fr_run(cfg, s, len, c, 1, got);
		snprintf(how, sizeof(how), "split at %zu", i);
		fr_same(exp, got, how);
	}
	for (size_t i = 1; i < len; i++)
		for (size_t j = i + 1; j < len; j++) {
			size_t c[2] = { i, j };
			fr_run(cfg, s, len, c, 2, got);
			snprintf(how, sizeof(how), "split at %zu and %zu", i, j);
			fr_same(exp, got, how);
		}
	free(got);
	dup2(saved, 2);
	close(saved);
	fclose(null);
}

/* maxMessageSize 64, maxFrameSize 100: counts of 1..9 digits, 0, above
 * maxFrameSize, not followed by SP, above maxMessageSize, LF frames in
 * between, digits then EOF. */
START_TEST(t_framing_octet_counted)
{
	struct framing_cfg cfg = { .max_msg = 64, .max_frame_size = 100, .addtl_delim = 256,
				   .octet_counted = true };
	static const char s[] =
		"1 a"
		"12 hello world!"
		"003 abc"
		"0004 wxyz"
		"00005 12345"
		"000006 abcdef"
		"0000007 ABCDEFG"
		"00000008 01234567"
		"000000009 123456789"          /* 9 digits: general path only */
		"0 zero\n"                     /* count 0: digits dropped, LF framing */
		"00000000 zeros\n"             /* 8 zeros: count 0 as well */
		"150 big frame\n"              /* > maxFrameSize: digits kept, LF framing */
		"99999999 eight\n"             /* 8 digits > maxFrameSize */
		"100 " "0123456789012345678901234567890123456789012345678901234567890123"
		       "X" "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi" /* = maxFrameSize, > max_msg */
		"5xhello"                      /* count not followed by SP */
		"plain line\n"
		"3 a b"
		"7 \n\n\n\n\n\n\n"             /* an octet frame of LFs */
		"2 ok"
		"123";                         /* digits then EOF */
	static const char *const frames[] = {
		"a", "hello world!", "abc", "wxyz", "12345", "abcdef", "ABCDEFG", "01234567",
		"123456789", "zero", "zeros", "150big frame", "99999999eight",
		"0123456789012345678901234567890123456789012345678901234567890123",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi", "hello", "plain line", "a b", "\n\n\n\n\n\n\n",
		"ok",
	};
	struct fr_out exp;
	/* errors: count 0 (x2), too large (x2), not SP; truncated: the 100-byte
	 * frame; EOF inside the count "123" */
	fr_expect(&exp, frames, (int)(sizeof(frames) / sizeof(frames[0])), 1, 5, 1);
	fr_check_all_splits(&cfg, s, &exp);
}
END_TEST

/* Counts at the limits: maxFrameSize itself accepted, one more rejected;
 * discardTruncatedMsg drops the rest of an oversize octet frame. */
START_TEST(t_framing_limits)
{
	struct framing_cfg cfg = { .max_msg = 16, .max_frame_size = 20, .addtl_delim = 256,
				   .octet_counted = true, .discard_truncated = true };
	static const char s[] =
		"20 0123456789abcdefGHIJ"   /* = maxFrameSize: 16 kept, rest dropped */
		"21 x\n"                     /* maxFrameSize + 1: LF framing */
		"16 0123456789abcdef"        /* = max_msg */
		"17 0123456789abcdefg"       /* max_msg + 1: the last byte is the cut */
		"1 z"
		"00000012 abc";              /* EOF inside the frame */
	static const char *const frames[] = {
		"0123456789abcdef", "21x", "0123456789abcdef", "0123456789abcdef", "z",
	};
	struct fr_out exp;
	fr_expect(&exp, frames, (int)(sizeof(frames) / sizeof(frames[0])), 2, 1, 1);
	fr_check_all_splits(&cfg, s, &exp);
}
END_TEST

/* Octet counting off: digits are just the start of an LF frame. */
START_TEST(t_framing_octet_off)
{
	struct framing_cfg cfg = { .max_msg = 64, .max_frame_size = 100, .addtl_delim = 256 };
	static const char s[] = "12 hello world!\n5 x\n0 y\n12";
	static const char *const frames[] = { "12 hello world!", "5 x", "0 y", "12" };
	struct fr_out exp;
	fr_expect(&exp, frames, 4, 0, 0, 0);
	fr_check_all_splits(&cfg, s, &exp);
}
END_TEST

/* ====================================================== block allocator */

static int rc(struct msg_origin *o)
{
	return atomic_load(&o->refcnt);
}

#define N_ORIG 11

/* One message made through the allocator, as the test sees it. */
struct carved {
	struct msg *m;
	int origin;        /* index, -1 = none */
	bool alive;
	int block;         /* index of m->block among the blocks seen, -1 = own allocation */
};

struct alloc_model {
	struct msg_origin *o[N_ORIG];
	struct carved *c;
	int n;
	const void *blocks[64];
	int n_blocks;
	/* per block: the origins it holds, in the order it took them */
	int held[64][N_ORIG];
	int n_held[64];
	int cur_block;     /* the allocator's current block, -1 after fini */
};

static int model_block(struct alloc_model *a, const void *b)
{
	for (int i = 0; i < a->n_blocks; i++)
		if (a->blocks[i] == b)
			return i;
	ck_assert_int_lt(a->n_blocks, 64);
	a->blocks[a->n_blocks] = b;
	a->n_held[a->n_blocks] = 0;
	return a->n_blocks++;
}

static void model_create(struct alloc_model *a, struct msg_alloc *al, int origin, size_t len)
{
	static char raw[9000];
	memset(raw, 'r', sizeof(raw));
	struct syslog_time t;
	memset(&t, 0, sizeof(t));
	struct msg_origin *o = origin >= 0 ? a->o[origin] : NULL;
	struct msg *m = msg_create_a(al, raw, len, o, &t, 0);
	ck_assert_ptr_nonnull(m);
	struct carved *c = &a->c[a->n++];
	c->m = m;
	c->origin = origin;
	c->alive = true;
	ck_assert(m->origin == o);
	ck_assert_int_eq(m->raw_len, len);
	if (len > 8 * 1024) {
		ck_assert_ptr_null(m->block); /* big: own allocation */
		c->block = -1;
	} else {
		ck_assert_ptr_nonnull(m->block);
		c->block = model_block(a, m->block);
		a->cur_block = c->block;
	}
	/* the block takes the reference of the first 8 origins it sees */
	bool block_ref = false;
	if (o && c->block >= 0) {
		int b = c->block;
		for (int i = 0; i < a->n_held[b]; i++)
			if (a->held[b][i] == origin)
				block_ref = true;
		if (!block_ref && a->n_held[b] < 8) {
			a->held[b][a->n_held[b]++] = origin;
			block_ref = true;
		}
	}
	ck_assert_msg(!!(m->flags & MSG_ORIGIN_BLOCK) == block_ref,
		      "message %d (origin %d, block %d): MSG_ORIGIN_BLOCK %s expected", a->n - 1,
		      origin, c->block, block_ref ? "" : "not");
}

/* Every origin's count = mine + live blocks holding it + live messages
 * with their own reference. A block lives while a message of it lives
 * or it is the allocator's current one. */
static void model_check(const struct alloc_model *a, const char *when)
{
	for (int k = 0; k < N_ORIG; k++) {
		int want = 1;
		for (int b = 0; b < a->n_blocks; b++) {
			bool live = b == a->cur_block;
			for (int i = 0; i < a->n && !live; i++)
				live = a->c[i].alive && a->c[i].block == b;
			for (int i = 0; live && i < a->n_held[b]; i++)
				if (a->held[b][i] == k)
					want++;
		}
		for (int i = 0; i < a->n; i++)
			if (a->c[i].alive && a->c[i].origin == k &&
			    !(a->c[i].m->flags & MSG_ORIGIN_BLOCK))
				want++;
		ck_assert_msg(rc(a->o[k]) == want, "%s: origin %d refcnt %d, expected %d", when, k,
			      rc(a->o[k]), want);
	}
}

static void model_release(struct alloc_model *a, int i)
{
	ck_assert(a->c[i].alive);
	a->c[i].alive = false;
	msg_release(a->c[i].m);
}

static void model_init(struct alloc_model *a, int max_msgs)
{
	memset(a, 0, sizeof(*a));
	a->c = calloc((size_t)max_msgs, sizeof(*a->c));
	ck_assert_ptr_nonnull(a->c);
	a->cur_block = -1;
	static const char *const names[N_ORIG] = { "h0", "h1", "h2", "h3", "h4", "h5", "h6",
						    "h7", "h8", "h9", "h10" };
	for (int k = 0; k < N_ORIG; k++) {
		a->o[k] = msg_origin_create(names[k], "10.0.0.1", "imtest", NULL);
		ck_assert_ptr_nonnull(a->o[k]);
		ck_assert_int_eq(rc(a->o[k]), 1);
	}
}

static void model_fini(struct alloc_model *a)
{
	for (int k = 0; k < N_ORIG; k++) {
		ck_assert_msg(rc(a->o[k]) == 1, "origin %d refcnt %d at the end", k, rc(a->o[k]));
		msg_origin_release(a->o[k]);
	}
	free(a->c);
}

/* Nine origins in one block: eight share the block's reference, the
 * ninth takes its own. */
START_TEST(t_alloc_nine_origins)
{
	struct alloc_model a;
	struct msg_alloc al = { NULL };
	model_init(&a, 64);
	for (int k = 0; k < 9; k++)
		model_create(&a, &al, k, 40);
	for (int k = 0; k < 9; k++)
		ck_assert_int_eq(rc(a.o[k]), 2);
	ck_assert(a.c[7].m->flags & MSG_ORIGIN_BLOCK);
	ck_assert(!(a.c[8].m->flags & MSG_ORIGIN_BLOCK));
	/* a second message of an origin the block holds, and of the ninth */
	model_create(&a, &al, 3, 40);
	model_create(&a, &al, 8, 40);
	ck_assert_int_eq(rc(a.o[3]), 2);
	ck_assert_int_eq(rc(a.o[8]), 3);
	model_create(&a, &al, -1, 40); /* no origin: takes no slot */
	model_create(&a, &al, 9, 40);
	ck_assert_int_eq(rc(a.o[9]), 2);
	ck_assert(!(a.c[a.n - 1].m->flags & MSG_ORIGIN_BLOCK));
	model_check(&a, "after create");

	model_release(&a, 8);
	ck_assert_int_eq(rc(a.o[8]), 2);
	model_release(&a, 10);
	ck_assert_int_eq(rc(a.o[8]), 1);
	for (int i = 0; i < a.n; i++)
		if (a.c[i].alive)
			model_release(&a, i);
	/* the allocator still holds its current block, and so the origins */
	for (int k = 0; k < 8; k++)
		ck_assert_int_eq(rc(a.o[k]), 2);
	model_check(&a, "all released, block current");
	msg_alloc_fini(&al);
	a.cur_block = -1;
	model_check(&a, "after fini");
	model_fini(&a);
}
END_TEST

/* Deterministic pseudo-random numbers. */
static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* Many blocks, origins in changing order (so each block holds a
 * different set), released in the order `mode` picks. */
static void alloc_many(int mode)
{
	enum { N = 1500 };
	struct alloc_model a;
	struct msg_alloc al = { NULL };
	uint32_t seed = 42u + (uint32_t)mode;
	model_init(&a, N);
	for (int i = 0; i < N; i++) {
		int origin = (int)(lcg(&seed) % (N_ORIG + 1)) - 1; /* -1 = none */
		size_t len = 20 + lcg(&seed) % 300;
		if (i % 97 == 0)
			len = 9000; /* too big for a block */
		model_create(&a, &al, origin, len);
	}
	ck_assert_int_ge(a.n_blocks, 4); /* more than one 64 KiB block */
	int n_with_flag = 0, n_without = 0;
	for (int i = 0; i < a.n; i++) {
		if (a.c[i].origin < 0)
			continue;
		if (a.c[i].m->flags & MSG_ORIGIN_BLOCK)
			n_with_flag++;
		else
			n_without++;
	}
	ck_assert_int_gt(n_with_flag, 0);
	ck_assert_int_gt(n_without, 0); /* 11 origins: some blocks see more than 8 */
	model_check(&a, "after create");

	int *order = malloc(N * sizeof(int));
	for (int i = 0; i < N; i++)
		order[i] = i;
	if (mode == 1) { /* newest first */
		for (int i = 0; i < N; i++)
			order[i] = N - 1 - i;
	} else if (mode == 2) { /* shuffled */
		for (int i = N - 1; i > 0; i--) {
			int j = (int)(lcg(&seed) % (uint32_t)(i + 1));
			int t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	} else if (mode == 3) { /* odd ones first, then even */
		int k = 0;
		for (int i = 1; i < N; i += 2)
			order[k++] = i;
		for (int i = 0; i < N; i += 2)
			order[k++] = i;
	}
	if (mode == 2) /* the allocator lets go before the messages are released */
	{
		msg_alloc_fini(&al);
		a.cur_block = -1;
		model_check(&a, "fini first");
	}
	for (int i = 0; i < N; i++) {
		model_release(&a, order[i]);
		if (i % 50 == 0 || i == N - 1) {
			char when[64];
			snprintf(when, sizeof(when), "after %d releases", i + 1);
			model_check(&a, when);
		}
	}
	msg_alloc_fini(&al);
	a.cur_block = -1;
	model_check(&a, "after fini");
	free(order);
	model_fini(&a);
}

START_TEST(t_alloc_many_blocks)
{
	alloc_many(_i);
}
END_TEST

/* Blocks come back from the cache: they must not keep the origins of
 * their previous use. */
START_TEST(t_alloc_block_reuse)
{
	for (int round = 0; round < 3; round++) {
		struct alloc_model a;
		struct msg_alloc al = { NULL };
		model_init(&a, 800);
		for (int i = 0; i < 800; i++)
			model_create(&a, &al, (i + round) % N_ORIG, 200);
		model_check(&a, "create");
		for (int i = 0; i < 800; i++)
			model_release(&a, (i * 7) % 800);
		model_check(&a, "released");
		msg_alloc_fini(&al);
		a.cur_block = -1;
		model_fini(&a);
	}
}
END_TEST

/* ======================================================= RFC3339 scan */


static void time_str(const struct syslog_time *t, char *b, size_t n)
{
	snprintf(b, n, "%d-%d-%d %d:%d:%d frac %u/%u off %c%d:%d valid %d", t->year, t->month,
		 t->day, t->hour, t->minute, t->second, t->secfrac, t->secfrac_digits,
		 t->off_mode ? t->off_mode : '0', t->off_hour, t->off_minute, t->valid);
}

static void same_time(const char *what, const struct syslog_time *got, const struct syslog_time *exp)
{
	char g[128], e[128];
	time_str(got, g, sizeof(g));
	time_str(exp, e, sizeof(e));
	ck_assert_msg(strcmp(g, e) == 0, "%s:\n got      %s\n expected %s", what, g, e);
}

struct c3339 {
	const char *in;
	bool ok;
	struct syslog_time t;
	int rs_adv;      /* dt_scan_rfc3339_rs: bytes consumed (incl. the SP) */
	int parse_adv;   /* dt_parse_rfc3339: bytes consumed (not the SP) */
};

/* struct syslog_time in field order (constant, for the tables) */
#define T3339(y, mo, d, h, mi, s, f, fd, md, oh, om) { y, mo, d, h, mi, s, fd, f, md, oh, om, 1 }
static const struct c3339 c3339s[] = {
	{ "2003-10-11T22:14:15Z host", true, T3339(2003, 10, 11, 22, 14, 15, 0, 0, 'Z', 0, 0), 21, 20 },
	{ "2024-02-29T23:59:59+05:30 x", true, T3339(2024, 2, 29, 23, 59, 59, 0, 0, '+', 5, 30), 26, 25 },
	{ "1999-01-01T00:00:00-11:45 x", true, T3339(1999, 1, 1, 0, 0, 0, 0, 0, '-', 11, 45), 26, 25 },
	{ "2024-01-02T03:04:05.1Z x", true, T3339(2024, 1, 2, 3, 4, 5, 1, 1, 'Z', 0, 0), 23, 22 },
	{ "2024-01-02T03:04:05.12Z x", true, T3339(2024, 1, 2, 3, 4, 5, 12, 2, 'Z', 0, 0), 24, 23 },
	{ "2024-01-02T03:04:05.003+01:00 x", true, T3339(2024, 1, 2, 3, 4, 5, 3, 3, '+', 1, 0), 30, 29 },
	{ "2024-01-02T03:04:05.1234Z x", true, T3339(2024, 1, 2, 3, 4, 5, 1234, 4, 'Z', 0, 0), 26, 25 },
	{ "2024-01-02T03:04:05.12345Z x", true, T3339(2024, 1, 2, 3, 4, 5, 12345, 5, 'Z', 0, 0), 27, 26 },
	{ "2024-01-02T03:04:05.000006-00:00 x", true, T3339(2024, 1, 2, 3, 4, 5, 6, 6, '-', 0, 0), 33, 32 },
	{ "2024-01-02T03:04:05.1234567Z x", true, T3339(2024, 1, 2, 3, 4, 5, 1234567, 7, 'Z', 0, 0), 29, 28 },
	{ "2024-01-02T03:04:05.12345678Z x", true, T3339(2024, 1, 2, 3, 4, 5, 12345678, 8, 'Z', 0, 0), 30, 29 },
	{ "2024-01-02T03:04:05.123456789+23:59 x", true, T3339(2024, 1, 2, 3, 4, 5, 123456789, 9, '+', 23, 59), 36, 35 },
	/* ten digits: rsyslog's ParseInt32 reads on while the value is below
	 * INT_MAX/10-1, so a tenth digit is read after 123456789 but not
	 * after 999999999 (then the '9' left over is not an offset) */
	{ "2024-01-02T03:04:05.1234567890Z x", true, T3339(2024, 1, 2, 3, 4, 5, 1234567890u, 10, 'Z', 0, 0), 32, 31 },
	{ "2024-01-02T03:04:05.9999999999Z x", false, { 0 }, 0, 0 },
	{ "2024-01-02T03:04:05.Z x", true, T3339(2024, 1, 2, 3, 4, 5, 0, 0, 'Z', 0, 0), 22, 21 },
	{ "2016-12-31T23:59:60Z x", true, T3339(2016, 12, 31, 23, 59, 60, 0, 0, 'Z', 0, 0), 21, 20 },
	{ "2016-12-31T23:59:61Z x", false, { 0 }, 0, 0 },
	{ "2024-13-01T00:00:00Z x", false, { 0 }, 0, 0 },
	{ "2024-00-01T00:00:00Z x", false, { 0 }, 0, 0 },
	{ "2024-12-32T00:00:00Z x", false, { 0 }, 0, 0 },
	{ "2024-12-00T00:00:00Z x", false, { 0 }, 0, 0 },
	{ "2024-12-31T24:00:00Z x", false, { 0 }, 0, 0 },
	{ "2024-12-31T23:60:00Z x", false, { 0 }, 0, 0 },
	{ "2099-12-31T23:59:59Z x", true, T3339(2099, 12, 31, 23, 59, 59, 0, 0, 'Z', 0, 0), 21, 20 },
	{ "2100-01-01T00:00:00Z x", false, { 0 }, 0, 0 },
	{ "0000-01-01T00:00:00Z x", true, T3339(0, 1, 1, 0, 0, 0, 0, 0, 'Z', 0, 0), 21, 20 },
	{ "2024-01-02T03:04:05+24:00 x", false, { 0 }, 0, 0 },
	{ "2024-01-02T03:04:05+01:60 x", false, { 0 }, 0, 0 },
	{ "2024-01-02T03:04:05 x", false, { 0 }, 0, 0 },     /* no offset */
	{ "2024-01-02T03:04:05Zx", false, { 0 }, 0, 0 },     /* no SP after */
	{ "2024-01-02T03:04:05x", false, { 0 }, 0, 0 },
	{ "2024-01-02t03:04:05Z x", false, { 0 }, 0, 0 },
	{ "2024-01-02T03:04:05Z", true, T3339(2024, 1, 2, 3, 4, 5, 0, 0, 'Z', 0, 0), 20, 20 }, /* text ends */
	{ "2024-01-02T03:04:05.5-02:00", true, T3339(2024, 1, 2, 3, 4, 5, 5, 1, '-', 2, 0), 27, 27 },
	/* general path only */
	{ "12024-01-02T03:04:05Z x", false, { 0 }, 0, 0 },  /* 5-digit year */
	{ "02024-01-02T03:04:05Z x", true, T3339(2024, 1, 2, 3, 4, 5, 0, 0, 'Z', 0, 0), 22, 21 },
	{ "2024-1-2T3:4:5Z x", true, T3339(2024, 1, 2, 3, 4, 5, 0, 0, 'Z', 0, 0), 16, 15 },
	{ "2024-01-02T03:04:055Z x", true, T3339(2024, 1, 2, 3, 4, 55, 0, 0, 'Z', 0, 0), 22, 21 },
	{ "2024-01-02T03:04:061Z x", false, { 0 }, 0, 0 },
	{ "2024-01-02T03:04:5.25+01:00 x", true, T3339(2024, 1, 2, 3, 4, 5, 25, 2, '+', 1, 0), 28, 27 },
};

/* Scan with both entry points; check result, fields and cursor. */
static void check_3339(const char *in, size_t len, const char *end, bool ok,
		       const struct syslog_time *exp, int rs_adv, int parse_adv, const char *what)
{
	struct syslog_time t, save;
	memset(&t, 0x5a, sizeof(t));
	save = t;
	const char *p = in;
	int ilen = (int)len;
	bool r = dt_scan_rfc3339_rs(&p, &ilen, end, &t);
	ck_assert_msg(r == ok, "%s '%s': dt_scan_rfc3339_rs returned %d", what, in, r);
	if (ok) {
		same_time(what, &t, exp);
		ck_assert_msg(p - in == rs_adv && ilen == (int)len - rs_adv,
			      "%s '%s': cursor +%d len %d, expected +%d len %d", what, in,
			      (int)(p - in), ilen, rs_adv, (int)len - rs_adv);
	} else {
		ck_assert(memcmp(&t, &save, sizeof(t)) == 0);
	}

	memset(&t, 0x5a, sizeof(t));
	p = in;
	size_t slen = len;
	r = dt_parse_rfc3339(&p, &slen, &t);
	ck_assert_msg(r == ok, "%s '%s': dt_parse_rfc3339 returned %d", what, in, r);
	if (ok) {
		same_time(what, &t, exp);
		ck_assert_msg(p - in == parse_adv && slen == len - (size_t)parse_adv,
			      "%s '%s': parse cursor +%d, expected +%d", what, in, (int)(p - in), parse_adv);
	} else {
		ck_assert(p == in && slen == len && memcmp(&t, &save, sizeof(t)) == 0);
	}
}

START_TEST(t_rfc3339_table)
{
	const struct c3339 *c = &c3339s[_i];
	size_t len = strlen(c->in);
	check_3339(c->in, len, c->in + len, c->ok, &c->t, c->rs_adv, c->parse_adv, "as is");

	/* the same text with a leading 0 in the year: only the general scan
	 * reads it; same answer, one byte further */
	if (c->in[0] >= '0' && c->in[0] <= '9' && c->in[4] == '-') {
		char b[128];
		snprintf(b, sizeof(b), "0%s", c->in);
		check_3339(b, len + 1, b + len + 1, c->ok, &c->t, c->rs_adv + 1, c->parse_adv + 1,
			   "leading 0");
	}
}
END_TEST

/* Every byte value at every position of the first 20 bytes (the part the
 * fast path's shape check looks at, eight bytes at a time): the answer is
 * the one the general scan gives for the same text with a leading 0 in
 * the year, which the fast path never takes. */
START_TEST(t_rfc3339_mutations)
{
	static const char base[] = "2024-01-02T03:04:05.123Z x";
	const size_t len = sizeof(base) - 1;
	int n_ok = 0;
	for (size_t pos = 0; pos < 20; pos++) {
		for (int c = 0; c < 256; c++) {
			char a[64], b[64];
			memcpy(a, base, len + 1);
			a[pos] = (char)c;
			b[0] = '0';
			memcpy(b + 1, a, len + 1);
			struct syslog_time ta, tb;
			memset(&ta, 0, sizeof(ta));
			memset(&tb, 0, sizeof(tb));
			const char *pa = a, *pb = b;
			int la = (int)len, lb = (int)len + 1;
			bool ra = dt_scan_rfc3339_rs(&pa, &la, a + len, &ta);
			bool rb = dt_scan_rfc3339_rs(&pb, &lb, b + len + 1, &tb);
			ck_assert_msg(ra == rb, "byte %d at %zu: fast %d, general %d", c, pos, ra, rb);
			if (!ra)
				continue;
			n_ok++;
			ck_assert_msg(pa - a + 1 == pb - b && la == lb, "byte %d at %zu: cursors differ", c,
				      pos);
			same_time("mutation", &ta, &tb);
		}
	}
	/* the unchanged bytes and the digits that keep the fields in range */
	ck_assert_int_gt(n_ok, 20);
}
END_TEST

/* `len` bounds the scan even when the buffer goes on (rsyslog's count). */
START_TEST(t_rfc3339_len_bound)
{
	static const char s[] = "2024-01-02T03:04:05Z rest";
	struct syslog_time exp = mkt(2024, 1, 2, 3, 4, 5, 0, 0, 'Z', 0, 0);
	const char *end = s + sizeof(s) - 1;
	check_3339(s, 20, end, true, &exp, 20, 20, "len 20");
	check_3339(s, 21, end, true, &exp, 21, 20, "len 21");
	check_3339(s, 19, end, false, &exp, 0, 0, "len 19");
	check_3339(s, 10, end, false, &exp, 0, 0, "len 10");
	/* and `end` bounds it too: past it the bytes read as NUL */
	struct syslog_time t;
	const char *p = s;
	int ilen = 25;
	ck_assert(!dt_scan_rfc3339_rs(&p, &ilen, s + 19, &t));
	p = s;
	ilen = 20;
	ck_assert(dt_scan_rfc3339_rs(&p, &ilen, s + 20, &t));
	same_time("end 20", &t, &exp);
	ck_assert_int_eq(p - s, 20);
}
END_TEST

/* ======================================================= RFC3164 scan */

struct c3164 {
	const char *in;
	bool ok;
	struct syslog_time t;  /* year 0 / off '?' = from tz_like */
	int adv, len_left;     /* cursor advance, len after (may overcount) */
	const char *general;   /* the same time in a form the general scan reads */
};

static const struct syslog_time tz3164 = { 2026, 11, 22, 4, 0, 0, 6, 5, '-', 3, 0, 1 };

#define T3164(y, mo, d, h, mi, s, f, fd) { (y) ? (y) : 2026, mo, d, h, mi, s, fd, f, '-', 3, 0, 1 }
static const struct c3164 c3164s[] = {
	{ "Mar 12 10:11:12 host", true, T3164(0, 3, 12, 10, 11, 12, 0, 0), 16, 4, "Mar 012 10:11:12 host" },
	{ "Mar  1 10:11:12 host", true, T3164(0, 3, 1, 10, 11, 12, 0, 0), 16, 4, "Mar 1 10:11:12 host" },
	{ "Mar 01 10:11:12 host", true, T3164(0, 3, 1, 10, 11, 12, 0, 0), 16, 4, "Mar 1 10:11:12 host" },
	{ "Dec 31 23:59:60 host", true, T3164(0, 12, 31, 23, 59, 60, 0, 0), 16, 4, "Dec 31 23:59:60" },
	{ "jan  9 00:00:00 h", true, T3164(0, 1, 9, 0, 0, 0, 0, 0), 16, 1, "jan 9 0:0:0 h" },
	{ "Mar 12 10:11:12.345 host", true, T3164(0, 3, 12, 10, 11, 12, 345, 3), 20, 4, "Mar 012 10:11:12.345" },
	{ "Mar 12 10:11:12.123456789 h", true, T3164(0, 3, 12, 10, 11, 12, 123456789, 9), 26, 1, "Mar 012 10:11:12.123456789" },
	{ "Mar 12 10:11:12: host", true, T3164(0, 3, 12, 10, 11, 12, 0, 0), 17, 4, "Mar 012 10:11:12:" },
	{ "Mar 12 10:11:12.5: host", true, T3164(0, 3, 12, 10, 11, 12, 5, 1), 19, 4, "Mar 012 10:11:12.5:" },
	{ "Mar 12 2024 10:11:12 host", true, T3164(2024, 3, 12, 10, 11, 12, 0, 0), 21, 4, "Mar 12 2024 10:11:12" },
	{ "Mar  2 2024 10:11:12.25 host", true, T3164(2024, 3, 2, 10, 11, 12, 25, 2), 24, 4, "Mar 2 2024 10:11:12.25" },
	/* year first: rsyslog's count is one too high after it */
	{ "2019 Mar 12 10:11:12 h", true, T3164(2019, 3, 12, 10, 11, 12, 0, 0), 21, 2, "2019 Mar 012 10:11:12 h" },
	/* ... and at the very end it fails: the count says one byte is left (the NUL) */
	{ "2019 Mar 12 10:11:12", false, { 0 }, 0, 0, "2019 Mar 012 10:11:12" },
	{ "Mar 00 10:11:12 host", false, { 0 }, 0, 0, "Mar 0 10:11:12 host" },
	{ "Mar  0 10:11:12 host", false, { 0 }, 0, 0, "Mar 0 10:11:12" },
	{ "Mar 32 10:11:12 host", false, { 0 }, 0, 0, "Mar 32 10:11:12" },
	{ "Mar 12 24:00:00 host", false, { 0 }, 0, 0, "Mar 12 24:00:00" },
	{ "Mar 12 23:60:00 host", false, { 0 }, 0, 0, "Mar 12 23:60:00" },
	{ "Mar 12 23:59:61 host", false, { 0 }, 0, 0, "Mar 12 23:59:61" },
	{ "Mar 12 10:11:12x host", false, { 0 }, 0, 0, "Mar 1 10:11:12x" },
	{ "Mar 12 10:11:123 host", false, { 0 }, 0, 0, NULL },  /* second 123 */
	{ "Mar 12 10:11:005 host", true, T3164(0, 3, 12, 10, 11, 5, 0, 0), 17, 4, "Mar 12 10:11:05 host" },
	{ "Mar 12 10:11:059.5 host", true, T3164(0, 3, 12, 10, 11, 59, 5, 1), 19, 4, "Mar 12 10:11:59.5 host" },
	{ "Mar 12 10:11:1 host", true, T3164(0, 3, 12, 10, 11, 1, 0, 0), 15, 4, "Mar 12 10:11:01 host" },
	{ "Mar 12 10:11:12", true, T3164(0, 3, 12, 10, 11, 12, 0, 0), 15, 0, "Mar 12 10:11:12 h" },
	{ "Mar 32 2024 10:11:12 host", false, { 0 }, 0, 0, NULL },
	{ "Mar 12 1970 10:11:12 host", false, { 0 }, 0, 0, NULL }, /* not a Cisco year: hour 1970 */
};

static void check_3164(const char *in, bool ok, const struct syslog_time *exp, int adv,
		       int len_left, bool cmp_cursor, const char *what)
{
	struct syslog_time t, save;
	memset(&t, 0x5a, sizeof(t));
	save = t;
	size_t len = strlen(in);
	const char *p = in;
	int ilen = (int)len;
	bool r = dt_scan_rfc3164_rs_year(&p, &ilen, in + len, &t, &tz3164, false);
	ck_assert_msg(r == ok, "%s '%s': returned %d", what, in, r);
	if (!ok) {
		ck_assert(memcmp(&t, &save, sizeof(t)) == 0);
		return;
	}
	same_time(what, &t, exp);
	if (cmp_cursor)
		ck_assert_msg(p - in == adv && ilen == len_left, "%s '%s': cursor +%d len %d, expected +%d len %d",
			      what, in, (int)(p - in), ilen, adv, len_left);
	/* dt_scan_rfc3164_rs: the same */
	struct syslog_time t2;
	const char *p2 = in;
	int ilen2 = (int)len;
	ck_assert(dt_scan_rfc3164_rs(&p2, &ilen2, in + len, &t2, &tz3164));
	same_time("dt_scan_rfc3164_rs", &t2, &t);
	ck_assert(p2 == p && ilen2 == ilen);
}

START_TEST(t_rfc3164_table)
{
	const struct c3164 *c = &c3164s[_i];
	check_3164(c->in, c->ok, &c->t, c->adv, c->len_left, true, "as is");
	if (c->general)
		check_3164(c->general, c->ok, &c->t, 0, 0, false, "general form");
}
END_TEST

/* A year after the time (detect.YearAfterTimestamp) behind the fast path;
 * and a leading SP (HP ProCurve) handled by pmrfc3164, not here. */
START_TEST(t_rfc3164_year_after)
{
	struct syslog_time t, exp = mkt(2024, 3, 12, 10, 11, 12, 0, 0, '-', 3, 0);
	const char *s = "Mar 12 10:11:12 2024 host";
	const char *p = s;
	int len = (int)strlen(s);
	ck_assert(dt_scan_rfc3164_rs_year(&p, &len, s + strlen(s), &t, &tz3164, true));
	same_time("year after", &t, &exp);
	ck_assert_int_eq(p - s, 21);
	ck_assert_int_eq(len, 4);
	s = "Mar 1 10:11:12 2024 host"; /* general path */
	p = s;
	len = (int)strlen(s);
	exp.day = 1;
	ck_assert(dt_scan_rfc3164_rs_year(&p, &len, s + strlen(s), &t, &tz3164, true));
	same_time("year after, general", &t, &exp);
	ck_assert_int_eq(p - s, 20);
	/* the public parser sees the same */
	s = "Mar 12 10:11:12 host";
	p = s;
	size_t sl = strlen(s);
	ck_assert(dt_parse_rfc3164(&p, &sl, &t, &tz3164));
	exp = mkt(2026, 3, 12, 10, 11, 12, 0, 0, '-', 3, 0);
	same_time("dt_parse_rfc3164", &t, &exp);
	ck_assert_int_eq(p - s, 15);
	ck_assert_int_eq(sl, 5);
}
END_TEST

/* ====================================================== time formatting */

START_TEST(t_secfrac)
{
	static const uint32_t vals[] = { 0, 1, 5, 9, 10, 12, 99, 100, 123, 999, 1000, 4321, 9999,
					 10000, 12345, 99999, 100000, 123456, 999999, 1000000,
					 1234567, 9999999, 12345678, 99999999, 123456789, 999999999,
					 1111111111u, 4294967295u };
	uint32_t seed = 7;
	for (int digits = 0; digits <= 10; digits++) {
		for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]) + 200; v++) {
			struct syslog_time t = mkt(2024, 1, 2, 3, 4, 5, 0, digits, 'Z', 0, 0);
			t.secfrac = v < sizeof(vals) / sizeof(vals[0]) ? vals[v] : lcg(&seed) % 1000000000u;
			char a[DT_MAX_LEN], b[DT_MAX_LEN];
			memset(a, 0, sizeof(a));
			memset(b, 0, sizeof(b));
			size_t na = dt_fmt_secfrac(&t, a), nb = dt_fmt_secfrac_general(&t, b);
			ck_assert_msg(na == nb && memcmp(a, b, na) == 0,
				      "digits %d secfrac %u: got '%.*s' (%zu) expected '%.*s' (%zu)", digits,
				      t.secfrac, (int)na, a, na, (int)nb, b, nb);
		}
	}
	/* two literal values (rsyslog's bytes) */
	char o[DT_MAX_LEN];
	struct syslog_time t = mkt(2024, 1, 2, 3, 4, 5, 3, 3, 'Z', 0, 0);
	ck_assert_int_eq(dt_fmt_secfrac(&t, o), 3);
	ck_assert(memcmp(o, "003", 3) == 0);
	t.secfrac = 1234567;
	t.secfrac_digits = 7;
	ck_assert_int_eq(dt_fmt_secfrac(&t, o), 1);
	ck_assert_int_eq((unsigned char)o[0], 0267);
}
END_TEST

static void fmt_eq_general(const struct syslog_time *t, const char *what)
{
	char a[DT_MAX_LEN], b[DT_MAX_LEN];
	memset(a, 'x', sizeof(a));
	size_t na = tpl_fmt_time(t, TPL_DF_RFC3339, false, a);
	size_t nb = dt_fmt_rfc3339(t, b);
	ck_assert_msg(na == nb && memcmp(a, b, nb + 1) == 0, "%s: tpl_fmt_time '%s' (%zu), dt_fmt_rfc3339 '%s' (%zu)",
		      what, a, na, b, nb);
}

START_TEST(t_tpl_rfc3339_cache)
{
	struct syslog_time t = mkt(2024, 1, 2, 3, 4, 5, 1, 1, '+', 1, 0);
	char what[64];
	fmt_eq_general(&t, "first");
	/* the same second, other fractions, 0..9 digits, back and forth */
	static const struct { uint32_t f; int d; } fr[] = {
		{ 12, 2 }, { 123, 3 }, { 0, 0 }, { 123456, 6 }, { 5, 6 }, { 1234567, 7 },
		{ 12345678, 8 }, { 123456789, 9 }, { 7, 1 }, { 0, 0 }, { 99999, 5 }, { 1, 4 },
		{ 12345, 3 }, /* more value than digits: the general rule's bytes */
	};
	for (size_t i = 0; i < sizeof(fr) / sizeof(fr[0]); i++) {
		t.secfrac = fr[i].f;
		t.secfrac_digits = (uint8_t)fr[i].d;
		snprintf(what, sizeof(what), "fraction %u/%d", fr[i].f, fr[i].d);
		fmt_eq_general(&t, what);
	}
	/* a field changes, each in turn, then fractions again */
	struct syslog_time base = t;
	for (int field = 0; field < 10; field++) {
		t = base;
		switch (field) {
		case 0: t.second = 6; break;
		case 1: t.minute = 5; break;
		case 2: t.hour = 4; break;
		case 3: t.day = 3; break;
		case 4: t.month = 2; break;
		case 5: t.year = 2025; break;
		case 6: t.off_mode = '-'; break;
		case 7: t.off_hour = 2; break;
		case 8: t.off_minute = 30; break;
		case 9: t.off_mode = 'Z'; t.off_hour = 0; t.off_minute = 0; break;
		}
		for (int j = 0; j < 4; j++) {
			t.secfrac = (uint32_t)(j * 37);
			t.secfrac_digits = (uint8_t)(j == 2 ? 0 : 3 + j);
			snprintf(what, sizeof(what), "field %d, fraction %d", field, j);
			fmt_eq_general(&t, what);
		}
		/* back to the base second */
		t = base;
		fmt_eq_general(&t, "base again");
	}
	/* 'Z' then '+00:00' in the same second */
	t = mkt(2024, 6, 1, 0, 0, 0, 1, 1, 'Z', 0, 0);
	fmt_eq_general(&t, "Z");
	t.secfrac = 2;
	fmt_eq_general(&t, "Z again");
	t.off_mode = '+';
	fmt_eq_general(&t, "+00:00");
	t.secfrac = 3;
	t.secfrac_digits = 2;
	fmt_eq_general(&t, "+00:00 again");
	t.off_mode = 'Z';
	t.secfrac_digits = 0;
	fmt_eq_general(&t, "Z without fraction");
	/* a different format in between does not disturb it */
	char b[DT_MAX_LEN];
	tpl_fmt_time(&t, TPL_DF_RFC3164, false, b);
	t.secfrac_digits = 6;
	t.secfrac = 424242;
	fmt_eq_general(&t, "after rfc3164");
}
END_TEST

/* With utc=true the cache holds the converted time: compare the answer
 * right after another second (full formatting) with the answer after the
 * same second with another fraction (the shortcut). */
START_TEST(t_tpl_rfc3339_utc)
{
	struct syslog_time t = mkt(2024, 1, 2, 3, 4, 5, 1, 1, '+', 1, 30);
	struct syslog_time other = mkt(2020, 5, 5, 5, 5, 5, 0, 0, 'Z', 0, 0);
	char cold[DT_MAX_LEN], warm[DT_MAX_LEN];
	static const struct { uint32_t f; int d; } fr[] = {
		{ 0, 0 }, { 1, 1 }, { 12, 2 }, { 123456, 6 }, { 1234567, 7 }, { 123456789, 9 }, { 999999, 6 },
	};
	for (size_t i = 0; i < sizeof(fr) / sizeof(fr[0]); i++) {
		t.secfrac = fr[i].f;
		t.secfrac_digits = (uint8_t)fr[i].d;
		tpl_fmt_time(&other, TPL_DF_RFC3339, true, cold);
		size_t nc = tpl_fmt_time(&t, TPL_DF_RFC3339, true, cold);
		struct syslog_time w = t;
		w.secfrac = 77;
		w.secfrac_digits = 2;
		tpl_fmt_time(&w, TPL_DF_RFC3339, true, warm);
		size_t nw = tpl_fmt_time(&t, TPL_DF_RFC3339, true, warm);
		ck_assert_msg(nc == nw && strcmp(cold, warm) == 0, "utc %u/%d: '%s' vs '%s'", fr[i].f,
			      fr[i].d, cold, warm);
		ck_assert_msg(strncmp(cold, "2024-01-02T01:34:05.", 20) == 0, "utc: '%s'", cold);
		ck_assert_msg(strcmp(cold + nc - 6, "+00:00") == 0, "utc: '%s'", cold);
	}
}
END_TEST

/* ============================================================ conditions */

static struct msg *parsed(const char *raw)
{
	struct msg *m = unit_msg_at(raw, strlen(raw), 1795322082, 854257);
	parser_parse(m);
	ck_assert(m->flags & MSG_PARSED);
	return m;
}

/* Each property reference `$name` rewritten as `($name & "")`: the same
 * bytes, but no longer a property, so no shortcut applies. */
static void generalise(const char *in, char *out, size_t n)
{
	size_t o = 0;
	for (const char *p = in; *p && o + 8 < n;) {
		if (*p == '"' || *p == '\'') { /* a string: copied as it is */
			char q = *p;
			out[o++] = *p++;
			while (*p && *p != q && o + 8 < n) {
				if (*p == '\\' && p[1])
					out[o++] = *p++;
				out[o++] = *p++;
			}
			if (*p)
				out[o++] = *p++;
		} else if (*p == '$') {
			const char *q = p + 1;
			while (*q && (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-!.", *q)))
				q++;
			int w = snprintf(out + o, n - o, "(%.*s & \"\")", (int)(q - p), p);
			ck_assert(w > 0 && (size_t)w < n - o);
			o += (size_t)w;
			p = q;
		} else {
			out[o++] = *p++;
		}
	}
	out[o] = '\0';
}

/* The messages the conditions run on. */
static const char *const cond_msgs[] = {
	"<38>Mar 12 10:11:12 host sshd[123]: Accepted password for root",   /* auth.info */
	"<0>Mar 12 10:11:12 host kernel: panic: oops",                     /* kern.emerg */
	"<200>Mar 12 10:11:12 host sshd: garbage pri",                     /* invld */
	"<13>Mar 12 10:11:12 host sshdx: user notice",                     /* user.notice */
	"<14>Mar 12 10:11:12 host ssh: x",                                 /* user.info */
	"<134>1 2024-01-02T03:04:05.123Z host sshd 77 ID - Failed password", /* local0.info, RFC5424 */
};
#define N_CMSG (int)(sizeof(cond_msgs) / sizeof(cond_msgs[0]))

struct ccase {
	const char *cond;
	const char *truth; /* one '1' or '0' per message of cond_msgs */
};

static const struct ccase ccases[] = {
	{ "$programname == \"sshd\"", "100001" },
	{ "\"sshd\" == $programname", "100001" },
	{ "$programname != \"sshd\"", "011110" },
	{ "\"sshd\" != $programname", "011110" },
	{ "$programname == \"ssh\"", "000010" },
	{ "$programname == \"\"", "001000" },
	{ "$programname == \"SSHD\"", "000000" },
	{ "$syslogtag == \"sshd[123]:\"", "100000" },
	{ "$hostname == \"host\"", "110111" },
	{ "$syslogfacility-text == \"kern\"", "010000" },
	{ "\"kern\" == $syslogfacility-text", "010000" },
	{ "$syslogfacility-text == \"invld\"", "001000" },
	{ "$syslogfacility-text != \"invld\"", "110111" },
	{ "$syslogfacility-text == \"auth\"", "100000" },
	{ "$syslogfacility-text == \"local0\"", "000001" },
	{ "$syslogfacility-text == \"user\"", "000110" },
	{ "$syslogfacility-text == \"\"", "000000" },
	{ "$syslogseverity-text != \"info\"", "011100" },
	{ "$syslogseverity-text == \"info\"", "100011" },
	{ "$syslogseverity-text == \"INFO\"", "000000" },
	{ "$syslogseverity-text == \"emerg\"", "010000" },
	{ "$syslogseverity-text == \"debug\"", "001000" },
	{ "$programname == \"sshd\" and $syslogseverity-text == \"info\"", "100001" },
	{ "$programname == \"sshd\" or $syslogfacility-text == \"kern\"", "110001" },
	{ "not ($programname == \"sshd\")", "011110" },
	{ "not $programname == \"sshd\"", "000000" }, /* (not $programname) == "sshd" */
	{ "not ($programname == \"sshd\" or $programname == \"kernel\")", "001110" },
	{ "$syslogfacility-text == \"user\" and not ($syslogseverity-text == \"info\")", "000100" },
	{ "$syslogfacility-text == \"user\" and not $syslogseverity-text == \"info\"", "000000" },
	{ "not $programname == \"1\"", "111111" }, /* (not "sshd") == "1": a non-numeric string is false */
	{ "($programname == \"sshd\" and $syslogfacility-text != \"auth\") or $programname == \"ssh\"", "000011" },
	{ "re_match($msg, \"password\")", "100001" },
	{ "re_match($msg, \"^ *(panic|user)\")", "010100" },
	{ "re_match($msg, \"(panic|garbage)\")", "011000" },
	{ "not re_match($msg, \"password\")", "011110" },
	{ "re_match($msg, \"[Ff]ailed\") and $programname == \"sshd\"", "000001" },
	{ "re_match_i($msg, \"ACCEPTED\") or re_match($programname, '^ssh$')", "100010" },
	{ "re_match($syslogtag, \"\\\\[123\\\\]\")", "100000" },
	{ "$msg contains \"password\" and $programname == \"sshd\"", "100001" },
	{ "$syslogseverity == 6 and $programname != \"kernel\"", "100011" },
};

/* The truth of `cond` on message `mi`: as `if` (eval_cond) and as a value
 * (eval_expr), each as written and generalised. */
static void check_cond(const char *cond, int mi, bool want)
{
	char cfg[2048], gen[1024];
	const char *forms[2] = { cond, gen };
	generalise(cond, gen, sizeof(gen));
	for (int f = 0; f < 2; f++) {
		struct msg *m = parsed(cond_msgs[mi]);
		snprintf(cfg, sizeof(cfg),
			 "if %s then { action(name=\"T\" type=\"x\") } else { action(name=\"F\" type=\"x\") }\n",
			 forms[f]);
		const char *got = run(cfg, m);
		ck_assert_msg(strcmp(got, want ? "T;" : "F;") == 0, "if %s on message %d: %s", forms[f], mi, got);
		snprintf(cfg, sizeof(cfg), "set $!r = %s;\n", forms[f]);
		run(cfg, m);
		struct fjson_object *r = NULL;
		ck_assert(m->json && fjson_object_object_get_ex(m->json, "r", &r));
		ck_assert_msg(strcmp(fjson_object_to_json_string(r), want ? "1" : "0") == 0,
			      "set $!r = %s on message %d: %s", forms[f], mi, fjson_object_to_json_string(r));
		msg_release(m);
	}
}

START_TEST(t_conditions)
{
	const struct ccase *c = &ccases[_i];
	ck_assert_int_eq((int)strlen(c->truth), N_CMSG);
	for (int mi = 0; mi < N_CMSG; mi++)
		check_cond(c->cond, mi, c->truth[mi] == '1');
}
END_TEST

/* The facility/severity masks against every facility and severity: the
 * -text compare equals the compare of the property's bytes. */
START_TEST(t_condition_masks)
{
	for (int fac = 0; fac <= 24; fac++) {
		for (int sev = 0; sev < 8; sev += 3) {
			char raw[64];
			if (fac < 24)
				snprintf(raw, sizeof(raw), "<%d>Mar 12 10:11:12 host t: x", fac * 8 + sev);
			else
				snprintf(raw, sizeof(raw), "<999>Mar 12 10:11:12 host t: x");
			struct msg *m = parsed(raw);
			ck_assert_int_eq(m->facility, fac);
			char cfg[512];
			snprintf(cfg, sizeof(cfg),
				 "if $syslogfacility-text == \"%s\" then action(name=\"F\" type=\"x\")\n"
				 "if $syslogfacility-text == \"local%d\" then action(name=\"L\" type=\"x\")\n"
				 "if $syslogseverity-text == \"%s\" then action(name=\"S\" type=\"x\")\n"
				 "if $syslogseverity-text != \"%s\" then action(name=\"N\" type=\"x\")\n",
				 msg_facility_names[fac], fac - 16, msg_severity_names[m->severity],
				 msg_severity_names[m->severity]);
			const char *got = run(cfg, m);
			char want[16];
			snprintf(want, sizeof(want), "F;%sS;", fac >= 16 && fac <= 23 ? "L;" : "");
			ck_assert_msg(strcmp(got, want) == 0, "facility %d severity %d: %s, expected %s", fac,
				      m->severity, got, want);
			msg_release(m);
		}
	}
}
END_TEST

/* ============================================================ pmrfc3164 */

/* The TAG as the byte-by-byte rule finds it: up to ':' (included), SP,
 * `len` bytes or TAG_MAX (510) bytes. */
static uint32_t ref_tag_len(const char *p, int len, bool *colon)
{
	int i = 0;
	while (len > 0 && *p != ':' && *p != ' ' && i < 510) {
		p++;
		len--;
		i++;
	}
	*colon = len > 0 && *p == ':';
	return (uint32_t)(i + (*colon ? 1 : 0));
}

static void check_tag(const char *prefix, const char *tag, const char *suffix, bool year_first)
{
	size_t lp = strlen(prefix), lt = strlen(tag), ls = strlen(suffix);
	char *raw = malloc(lp + lt + ls + 1);
	memcpy(raw, prefix, lp);
	memcpy(raw + lp, tag, lt);
	memcpy(raw + lp + lt, suffix, ls + 1);
	struct msg *m = parsed(raw);
	ck_assert_int_eq(m->protocol_version, 0);
	ck_assert(!(m->flags & MSG_HOST_IS_FROMHOST));
	ck_assert_int_eq(m->tag.off, lp);
	bool colon;
	/* rsyslog's count after a year first is one too high: the NUL */
	int len = (int)(lt + ls) + (year_first ? 1 : 0);
	uint32_t want = ref_tag_len(m->raw + m->tag.off, len, &colon);
	ck_assert_msg(m->tag.len == want, "tag of %zu bytes + '%.10s': tag.len %u, expected %u", lt, suffix,
		      m->tag.len, want);
	uint32_t after = m->tag.off + want;
	if (after > m->raw_len)
		after = m->raw_len;
	ck_assert_msg(m->msg.off == after, "msg.off %u expected %u", m->msg.off, after);
	ck_assert_int_eq(m->msg.off + m->msg.len, m->raw_len);
	ck_assert(m->flags & MSG_HAS_TAG);
	msg_release(m);
	free(raw);
}

START_TEST(t_3164_tag_lengths)
{
	static char tag[700];
	static const char *const pre[] = { "<13>Mar 12 10:11:12 host ", "<13>2019 Mar 12 10:11:12 host " };
	for (size_t pi = 0; pi < sizeof(pre) / sizeof(pre[0]); pi++) {
		bool yf = pi == 1;
		for (int n = 1; n <= 600; n++) {
			if (n > 70 && n < 490 && n != 128 && n != 256)
				continue;
			for (int k = 0; k < n; k++)
				tag[k] = (char)('a' + k % 26);
			tag[n] = '\0';
			check_tag(pre[pi], tag, " rest of message", yf);  /* ends at SP */
			check_tag(pre[pi], tag, "", yf);                  /* ends with the buffer */
			tag[n - 1] = ':';                                 /* ':' at offset n-1 */
			check_tag(pre[pi], tag, " rest", yf);
			check_tag(pre[pi], tag, "", yf);
			check_tag(pre[pi], tag, ":x", yf);
			tag[n - 1] = '[';
			check_tag(pre[pi], tag, "]: x", yf);
		}
	}
}
END_TEST

/* The cases the brief names, with the values spelled out. */
START_TEST(t_3164_tag_explicit)
{
	static const int colon_at[] = { 15, 16, 17, 31, 32 };
	char raw[1024], tag[700];
	for (size_t i = 0; i < sizeof(colon_at) / sizeof(colon_at[0]); i++) {
		int k = colon_at[i];
		memset(tag, 'T', (size_t)k);
		tag[k] = ':';
		tag[k + 1] = '\0';
		snprintf(raw, sizeof(raw), "<13>Mar 12 10:11:12 host %s hello", tag);
		struct msg *m = parsed(raw);
		ck_assert_int_eq(m->tag.len, k + 1);
		ck_assert(memcmp(m->raw + m->tag.off, tag, (size_t)k + 1) == 0);
		ck_assert_int_eq(m->programname_len, k);
		ck_assert_int_eq(m->msg.len, 6);
		ck_assert(memcmp(m->raw + m->msg.off, " hello", 6) == 0);
		msg_release(m);
	}
	/* 600 bytes without ':' or SP: the TAG stops at 510 */
	memset(tag, 'x', 600);
	tag[600] = '\0';
	snprintf(raw, sizeof(raw), "<13>Mar 12 10:11:12 host %s", tag);
	struct msg *m = parsed(raw);
	ck_assert_int_eq(m->tag.len, 510);
	ck_assert_int_eq(m->msg.len, 90);
	ck_assert_int_eq(m->msg.off, m->tag.off + 510);
	msg_release(m);
	/* ... with a ':' right after the 510th byte: TAG_MAX counts the
	 * bytes before the ':', which is taken */
	tag[510] = ':';
	snprintf(raw, sizeof(raw), "<13>Mar 12 10:11:12 host %s", tag);
	m = parsed(raw);
	ck_assert_int_eq(m->tag.len, 511);
	ck_assert_int_eq(m->raw[m->tag.off + 510], ':');
	ck_assert_int_eq(m->msg.off, m->tag.off + 511);
	msg_release(m);
	/* ':' as the 510th byte: included */
	tag[510] = 'x';
	tag[509] = ':';
	snprintf(raw, sizeof(raw), "<13>Mar 12 10:11:12 host %s", tag);
	m = parsed(raw);
	ck_assert_int_eq(m->tag.len, 510);
	ck_assert_int_eq(m->raw[m->tag.off + 509], ':');
	msg_release(m);
	/* a TAG of 16 and of 32 bytes ending exactly at the end of the buffer */
	m = parsed("<13>Mar 12 10:11:12 host abcdefghijklmnop");
	ck_assert_int_eq(m->tag.len, 16);
	ck_assert_int_eq(m->msg.len, 0);
	msg_release(m);
	m = parsed("<13>Mar 12 10:11:12 host abcdefghijklmnopqrstuvwxyz012345");
	ck_assert_int_eq(m->tag.len, 32);
	ck_assert_int_eq(m->msg.len, 0);
	msg_release(m);
	m = parsed("<13>Mar 12 10:11:12 host abcdefghijklmno:");
	ck_assert_int_eq(m->tag.len, 16);
	ck_assert_int_eq(m->programname_len, 15);
	ck_assert_int_eq(m->msg.len, 0);
	msg_release(m);
	/* year first: rsyslog's count includes the NUL, so the TAG does */
	m = parsed("<13>2019 Mar 12 10:11:12 host abcdefghijklmno");
	ck_assert_int_eq(m->tag.len, 16);
	ck_assert_int_eq(m->raw[m->tag.off + 15], '\0');
	ck_assert_int_eq(m->msg.len, 0);
	msg_release(m);
}
END_TEST

/* HOSTNAME around its 511-byte limit (the byte-class loop). */
START_TEST(t_3164_hostname_limit)
{
	static char raw[1400], host[700];
	for (int n = 505; n <= 515; n++) {
		memset(host, 'h', (size_t)n);
		host[n] = '\0';
		snprintf(raw, sizeof(raw), "<13>Mar 12 10:11:12 %s tag: x", host);
		struct msg *m = parsed(raw);
		if (n <= 511) {
			ck_assert_msg(!(m->flags & MSG_HOST_IS_FROMHOST), "hostname of %d", n);
			ck_assert_int_eq(m->hostname.len, n);
			ck_assert_int_eq(m->tag.len, 4);
		} else { /* not a hostname: the word is the TAG, cut at 510 */
			ck_assert_msg(m->flags & MSG_HOST_IS_FROMHOST, "hostname of %d", n);
			ck_assert_int_eq(m->tag.len, 510);
		}
		msg_release(m);
	}
	struct msg *m = parsed("<13>Mar 12 10:11:12 a.b-c_d tag: x");
	ck_assert_int_eq(m->hostname.len, 7);
	msg_release(m);
	m = parsed("<13>Mar 12 10:11:12 a]b tag: x"); /* ']' stops it: not a hostname */
	ck_assert(m->flags & MSG_HOST_IS_FROMHOST);
	ck_assert_int_eq(m->tag.len, 3);
	msg_release(m);
}
END_TEST


#ifdef HAVE_PCRE2
/* ---- property replacer regexes: PCRE2 copy with POSIX's submatches ---- */

/* A small deterministic generator (the same cases on every run). */
static uint32_t rx_seed;
static unsigned rx_rnd(unsigned n)
{
	rx_seed = rx_seed * 1103515245u + 12345u;
	return (rx_seed >> 8) % n;
}

/* Random patterns of the accepted shape: single characters, '.', bracket
 * expressions and escaped metacharacters, each with at most one
 * quantifier, some in unnested, unquantified groups, '^' first and '$'
 * last now and then. */
static void rx_pattern(char *pat, bool ungated)
{
	static const char *atoms[] = { "a", "b", "c", ".", "[ab]", "[bc]", "[^a]", "0", "[0-9]",
				       "\\.", "[[:digit:]]", ":" };
	static const char *quants[] = { "", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "{1,3}" };
	int k = 1 + (int)rx_rnd(5), groups = 0;
	bool in = false;
	pat[0] = '\0';
	if (rx_rnd(8) == 0)
		strcat(pat, "^");
	for (int i = 0; i < k; i++) {
		if (!in && groups < 3 && rx_rnd(4) == 0) {
			strcat(pat, "(");
			in = true;
			groups++;
		}
		strcat(pat, atoms[rx_rnd(sizeof(atoms) / sizeof(atoms[0]))]);
		strcat(pat, quants[rx_rnd(sizeof(quants) / sizeof(quants[0]))]);
		if (in && rx_rnd(2) == 0) {
			/* `ungated`: sometimes a quantified group or an alternation,
			 * which must be refused */
			strcat(pat, ungated && rx_rnd(3) == 0 ? ")*" : ")");
			in = false;
		} else if (ungated && rx_rnd(6) == 0) {
			strcat(pat, "|");
		}
	}
	if (in)
		strcat(pat, ")");
	if (rx_rnd(8) == 0)
		strcat(pat, "$");
}

START_TEST(t_tpl_regex_pcre_same_submatches)
{
	long compared = 0, accelerated = 0;
	rx_seed = 42;
	for (int it = 0; it < 20000; it++) {
		char pat[256];
		rx_pattern(pat, false);
		regex_t re;
		if (regcomp(&re, pat, REG_EXTENDED) != 0)
			continue;
		void *pc = script_regex_pcre_submatch(pat);
		ck_assert_msg(pc != NULL, "pattern of the accepted shape refused: %s", pat);
		accelerated++;
		for (int t = 0; t < 20; t++) {
			char txt[24];
			int n = (int)rx_rnd(14);
			for (int j = 0; j < n; j++)
				txt[j] = "abc0123.:\n"[rx_rnd(10)];
			txt[n] = '\0';
			regmatch_t a[10], b[10];
			int ra = regexec(&re, txt, 10, a, 0);
			int rb = script_regex_pcre_exec(pc, txt, 10, b);
			ck_assert_msg((ra == 0) == (rb == 0), "%s on \"%s\": POSIX %d, PCRE2 %d", pat, txt, ra, rb);
			if (ra != 0)
				continue;
			for (int g = 0; g < 10; g++)
				ck_assert_msg(a[g].rm_so == b[g].rm_so && a[g].rm_eo == b[g].rm_eo,
					      "%s on \"%s\": group %d POSIX %d-%d, PCRE2 %d-%d", pat, txt, g,
					      (int)a[g].rm_so, (int)a[g].rm_eo, (int)b[g].rm_so, (int)b[g].rm_eo);
			compared++;
		}
		script_regex_pcre_free(pc);
		regfree(&re);
	}
	ck_assert_int_gt(accelerated, 15000);
	ck_assert_int_gt(compared, 50000);
}
END_TEST

/* Alternations, quantified groups and the like are left to POSIX; the
 * random patterns that include them really do give other submatches in
 * PCRE2 (so refusing them matters). */
START_TEST(t_tpl_regex_pcre_refused)
{
	static const char *refused[] = {
		"a|b", "(a|ab)(c|bcd)", "(ab)*", "(a)+b", "((a)b)", "()", "a{,3}", "[\\d]", "\\d+",
		"a^b", "a$b", "[[=a=]]", "[[.a.]]", "x(?:y)", "a**", "(a", "\\w+",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		ck_assert_msg(script_regex_pcre_submatch(refused[i]) == NULL, "accepted: %s", refused[i]);
	/* the ES benchmark's template regex is accepted */
	void *pc = script_regex_pcre_submatch("msgnum:0*([0-9]+)");
	ck_assert_ptr_nonnull(pc);
	regmatch_t m[10];
	ck_assert_int_eq(script_regex_pcre_exec(pc, "x msgnum:00012345: y", 10, m), 0);
	ck_assert_int_eq(m[1].rm_so, 12); /* "12345": the zeros go to 0* */
	ck_assert_int_eq(m[1].rm_eo, 17);
	ck_assert_int_eq(m[2].rm_so, -1);
	script_regex_pcre_free(pc);

	long differ = 0;
	rx_seed = 7;
	for (int it = 0; it < 5000 && differ == 0; it++) {
		char pat[256];
		rx_pattern(pat, true);
		regex_t re;
		if (regcomp(&re, pat, REG_EXTENDED) != 0)
			continue;
		if (script_regex_pcre_submatch(pat) != NULL) {
			regfree(&re);
			continue;
		}
		/* compile it anyway, without the check, to show the difference */
		int ec;
		PCRE2_SIZE eo;
		pcre2_code *c = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
					      PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY, &ec, &eo, NULL);
		pcre2_match_data *md = pcre2_match_data_create(10, NULL);
		for (int t = 0; c && t < 20; t++) {
			char txt[24];
			int n = (int)rx_rnd(14);
			for (int j = 0; j < n; j++)
				txt[j] = "abc0123"[rx_rnd(7)];
			txt[n] = '\0';
			regmatch_t a[10];
			int ra = regexec(&re, txt, 10, a, 0);
			int rb = pcre2_match(c, (PCRE2_SPTR)txt, (size_t)n, 0, 0, md, NULL);
			if ((ra == 0) != (rb > 0)) {
				differ++;
				continue;
			}
			if (ra != 0)
				continue;
			PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
			for (int g = 0; g < rb && g < 10; g++)
				if (ov[2 * g] != PCRE2_UNSET &&
				    ((long)ov[2 * g] != (long)a[g].rm_so || (long)ov[2 * g + 1] != (long)a[g].rm_eo))
					differ++;
		}
		pcre2_match_data_free(md);
		pcre2_code_free(c);
		regfree(&re);
	}
	ck_assert_msg(differ > 0, "no refused pattern behaved differently: the generator is too tame");
}
END_TEST
#endif /* HAVE_PCRE2 */

int main(void)
{
	Suite *s = suite_create("hotpath");
	TCase *tc;
	SRunner *sr;
	int failed;

	setenv("TZ", "UTC", 1);
	tzset();
	glbl_reset();
	(void)expect_error; /* script_stubs.h helpers this file does not use */
	(void)eval;

	tc = tcase_create("framing");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, t_framing_octet_counted);
	tcase_add_test(tc, t_framing_limits);
	tcase_add_test(tc, t_framing_octet_off);
	suite_add_tcase(s, tc);

	tc = tcase_create("alloc");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_alloc_nine_origins);
	tcase_add_loop_test(tc, t_alloc_many_blocks, 0, 4);
	tcase_add_test(tc, t_alloc_block_reuse);
	suite_add_tcase(s, tc);

	tc = tcase_create("datetime");
	tcase_add_loop_test(tc, t_rfc3339_table, 0, (int)(sizeof(c3339s) / sizeof(c3339s[0])));
	tcase_add_test(tc, t_rfc3339_len_bound);
	tcase_add_test(tc, t_rfc3339_mutations);
	tcase_add_loop_test(tc, t_rfc3164_table, 0, (int)(sizeof(c3164s) / sizeof(c3164s[0])));
	tcase_add_test(tc, t_rfc3164_year_after);
	tcase_add_test(tc, t_secfrac);
	tcase_add_test(tc, t_tpl_rfc3339_cache);
	tcase_add_test(tc, t_tpl_rfc3339_utc);
	suite_add_tcase(s, tc);

	tc = tcase_create("conditions");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, t_conditions, 0, (int)(sizeof(ccases) / sizeof(ccases[0])));
	tcase_add_test(tc, t_condition_masks);
	suite_add_tcase(s, tc);

	tc = tcase_create("pmrfc3164");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_3164_tag_lengths);
	tcase_add_test(tc, t_3164_tag_explicit);
	tcase_add_test(tc, t_3164_hostname_limit);
	suite_add_tcase(s, tc);

#ifdef HAVE_PCRE2
	tc = tcase_create("template regex");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, t_tpl_regex_pcre_same_submatches);
	tcase_add_test(tc, t_tpl_regex_pcre_refused);
	suite_add_tcase(s, tc);
#endif

	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
