/* script_func.c — RainerScript built-in functions (rsyslog 8.2302 set):
 * load-time checks (name with a closest-name hint, argument count,
 * constant regexes, selectors, templates, lookup tables, dyn_stats
 * buckets) and their evaluation, reproducing rsyslog's results including
 * its edge cases (see tests/unit/test_script_funcs.c and
 * tests/diff/configs/fn_*.conf; deliberate differences are listed in
 * doc/differences.md).
 *
 * Threading: script_func_compile() at load in the main thread;
 * script_func_call() on worker threads (reads the compiled node, writes
 * the worker's arena, the message's variables and, for the global ones,
 * the locked $/ store). script_error() state is per thread, as rsyslog's
 * is per worker.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <json.h>
#include "sluice.h"
#include "ast.h"
#include "datetime.h"
#include "lookup.h"
#include "msg.h"
#include "prop.h"
#include "template.h"
#include "script.h"
#include "script_int.h"

enum fn_id {
	FN_STRLEN, FN_GETENV, FN_TOLOWER, FN_SUBSTRING, FN_LTRIM, FN_RTRIM, FN_CSTR, FN_CNUM,
	FN_INT2HEX, FN_RE_MATCH, FN_RE_MATCH_I, FN_RE_EXTRACT, FN_RE_EXTRACT_I, FN_FIELD,
	FN_REPLACE, FN_WRAP, FN_EXEC_TEMPLATE, FN_PRIFILT, FN_RANDOM, FN_IPV42NUM, FN_NUM2IPV4,
	FN_FORMAT_TIME, FN_PARSE_TIME, FN_IS_TIME, FN_PARSE_JSON, FN_GET_PROPERTY, FN_LOOKUP,
	FN_DYN_INC, FN_SCRIPT_ERROR, FN_PREV_SUSPENDED, FN_RELOAD_LOOKUP_TABLE,
	FN_PERCENTILE_OBSERVE,
};

static const struct fn_def {
	const char *name;
	enum fn_id id;
	int min_args, max_args;
} fn_defs[] = {
	{ "strlen", FN_STRLEN, 1, 1 }, { "getenv", FN_GETENV, 1, 1 },
	{ "tolower", FN_TOLOWER, 1, 1 }, { "substring", FN_SUBSTRING, 3, 3 },
	{ "ltrim", FN_LTRIM, 1, 1 }, { "rtrim", FN_RTRIM, 1, 1 },
	{ "cstr", FN_CSTR, 1, 1 }, { "cnum", FN_CNUM, 1, 1 },
	{ "int2hex", FN_INT2HEX, 1, 1 }, { "re_match", FN_RE_MATCH, 2, 2 },
	{ "re_match_i", FN_RE_MATCH_I, 2, 2 }, { "re_extract", FN_RE_EXTRACT, 5, 5 },
	{ "re_extract_i", FN_RE_EXTRACT_I, 5, 5 }, { "field", FN_FIELD, 3, 3 },
	{ "replace", FN_REPLACE, 3, 3 }, { "wrap", FN_WRAP, 2, 3 },
	{ "exec_template", FN_EXEC_TEMPLATE, 1, 1 }, { "prifilt", FN_PRIFILT, 1, 1 },
	{ "random", FN_RANDOM, 1, 1 }, { "ipv42num", FN_IPV42NUM, 1, 1 },
	{ "ip42num", FN_IPV42NUM, 1, 1 }, { "num2ipv4", FN_NUM2IPV4, 1, 1 },
	{ "format_time", FN_FORMAT_TIME, 2, 2 }, { "parse_time", FN_PARSE_TIME, 1, 1 },
	{ "is_time", FN_IS_TIME, 1, 2 }, { "parse_json", FN_PARSE_JSON, 2, 2 },
	{ "get_property", FN_GET_PROPERTY, 2, 2 }, { "lookup", FN_LOOKUP, 2, 2 },
	{ "dyn_inc", FN_DYN_INC, 2, 2 }, { "script_error", FN_SCRIPT_ERROR, 0, 0 },
	{ "previous_action_suspended", FN_PREV_SUSPENDED, 0, 0 },
	{ "reload_lookup_table", FN_RELOAD_LOOKUP_TABLE, 1, 2 },
	{ "percentile_observe", FN_PERCENTILE_OBSERVE, 3, 3 },
};

/* What the compiler attaches to an EXPR_FUNC node. */
struct fn_res {
	const struct fn_def *def;
	struct script_regex *re;      /* re_match/re_extract: the constant pattern */
	uint8_t pri_mask[25];         /* prifilt() */
	const struct template *tpl;   /* exec_template() */
	struct lookup_table *table;   /* lookup(), reload_lookup_table */
	struct dynstats_bucket *bucket; /* dyn_inc() */
	struct percentile_bucket *pbucket; /* percentile_observe() */
	struct prop_ref *target;      /* parse_json(): the container */
};

/* script_error() state: per thread (rsyslog: per worker), set only by the
 * functions that report errors (parse_json, parse_time, is_time,
 * get_property). */
static __thread int fn_error;

/* ---- compile ---- */

/* The names a misspelt function is compared with. */
static const char *fn_names(size_t i)
{
	return i < SL_ARRAY_SIZE(fn_defs) ? fn_defs[i].name : NULL;
}

const char *script_func_suggest(const char *name)
{
	const char *cands[SL_ARRAY_SIZE(fn_defs)];
	for (size_t i = 0; i < SL_ARRAY_SIZE(fn_defs); i++)
		cands[i] = fn_names(i);
	return cfg_closest(name, cands, SL_ARRAY_SIZE(fn_defs));
}

static bool need_const(struct expr *e, int i, const char *what, int *n_errors)
{
	if (e->args[i]->type == EXPR_STRING)
		return true;
	cfg_error(&e->pos, "%s", what);
	(*n_errors)++;
	return false;
}

bool script_func_compile(struct expr *e, bool as_statement, int *n_errors)
{
	const struct fn_def *def = NULL;
	for (size_t i = 0; i < SL_ARRAY_SIZE(fn_defs); i++)
		if (!strcmp(fn_defs[i].name, e->str))
			def = &fn_defs[i];
	if (def && (def->id == FN_RELOAD_LOOKUP_TABLE) != as_statement)
		def = NULL;  /* reload_lookup_table is a statement, not a function */
	if (!def) {
		const char *s = script_func_suggest(e->str);
		if (s && strcmp(s, "reload_lookup_table"))
			cfg_error(&e->pos, "unknown function '%s' (did you mean '%s'?)", e->str, s);
		else
			cfg_error(&e->pos, "unknown function '%s'", e->str);
		(*n_errors)++;
		return false;
	}
	if (e->n_args < def->min_args || e->n_args > def->max_args) {
		if (def->min_args == def->max_args)
			cfg_error(&e->pos, "function '%s' expects %d argument%s, got %d", def->name,
				  def->min_args, def->min_args == 1 ? "" : "s", e->n_args);
		else
			cfg_error(&e->pos, "function '%s' expects %d to %d arguments, got %d", def->name,
				  def->min_args, def->max_args, e->n_args);
		(*n_errors)++;
		return false;
	}
	struct fn_res *res = sl_xcalloc(1, sizeof(*res));
	res->def = def;
	e->resolved = res;
	char err[256];
	switch (def->id) {
	case FN_RE_MATCH: case FN_RE_MATCH_I: case FN_RE_EXTRACT: case FN_RE_EXTRACT_I: {
		if (!need_const(e, 1, "param 2 of re_match/extract() must be a constant string", n_errors))
			return false;
		bool icase = def->id == FN_RE_MATCH_I || def->id == FN_RE_EXTRACT_I;
		res->re = script_regex_new(e->args[1]->str, true, icase, err, sizeof(err));
		if (!res->re) {
			cfg_error(&e->pos, "%s(): cannot compile regex '%s': %s", def->name, e->args[1]->str, err);
			(*n_errors)++;
			return false;
		}
		break;
	}
	case FN_PRIFILT:
		if (!need_const(e, 0, "param 1 of prifilt() must be a constant string", n_errors))
			return false;
		if (!cfg_decode_prifilt(e->args[0]->str, res->pri_mask, err, sizeof(err))) {
			cfg_error(&e->pos, "prifilt(): %s", err);
			(*n_errors)++;
			return false;
		}
		break;
	case FN_EXEC_TEMPLATE:
		if (!need_const(e, 0, "exec_template(): param 1 must be a constant string", n_errors))
			return false;
		res->tpl = tpl_find(e->args[0]->str);
		if (!res->tpl) {
			const char *s = tpl_suggest(e->args[0]->str);
			if (s)
				cfg_error(&e->pos, "exec_template(): template '%s' could not be found "
					  "(did you mean '%s'?)", e->args[0]->str, s);
			else
				cfg_error(&e->pos, "exec_template(): template '%s' could not be found",
					  e->args[0]->str);
			(*n_errors)++;
			return false;
		}
		break;
	case FN_LOOKUP: case FN_RELOAD_LOOKUP_TABLE:
		if (!need_const(e, 0, def->id == FN_LOOKUP ?
				"table name (param 1) of lookup() must be a constant string" :
				"table name (param 1) of reload_lookup_table() must be a constant string",
				n_errors))
			return false;
		if (def->id == FN_RELOAD_LOOKUP_TABLE && e->n_args == 2 &&
		    !need_const(e, 1, "stub value (param 2) of reload_lookup_table() must be a constant string",
				n_errors))
			return false;
		res->table = lookup_find(e->args[0]->str);
		if (!res->table) {
			cfg_error(&e->pos, "lookup table '%s' not found (used in function: %s)",
				  e->args[0]->str, def->name);
			(*n_errors)++;
			return false;
		}
		break;
	case FN_DYN_INC:
		if (!need_const(e, 0, "dyn-stats bucket-name (param 1) of dyn-stats manipulating functions "
				"like dyn_inc must be a constant string", n_errors))
			return false;
		res->bucket = dynstats_find(e->args[0]->str);
		if (!res->bucket) {
			cfg_error(&e->pos, "dyn-stats bucket '%s' not found", e->args[0]->str);
			(*n_errors)++;
			return false;
		}
		break;
	case FN_PERCENTILE_OBSERVE:
		if (!need_const(e, 0, "percentile-stats bucket-name (param 1) of perctile-stats "
				"manipulating functions like percentile_observe must be a constant string",
				n_errors))
			return false;
		res->pbucket = percentile_find(e->args[0]->str);
		if (!res->pbucket) {
			cfg_error(&e->pos, "perctile-stats bucket '%s' not found", e->args[0]->str);
			(*n_errors)++;
			return false;
		}
		break;
	case FN_PARSE_JSON: {
		if (!need_const(e, 1, "parse_json(): the container (param 2) must be a constant string "
				"like '$!'", n_errors))
			return false;
		const char *t = e->args[1]->str;
		res->target = sl_xcalloc(1, sizeof(*res->target));
		if (strncmp(t, "$!", 2) && strncmp(t, "$.", 2) && strncmp(t, "$/", 2)) {
			/* rsyslog: a container without '$' means "$!"-relative?
			 * No: it takes the name as given after one '$'; anything
			 * else lands in the message tree. */
			cfg_error(&e->pos, "parse_json(): invalid container '%s' (expected $!..., $.... or $/...)", t);
			(*n_errors)++;
			return false;
		}
		if (!prop_ref_parse(t, strlen(t), res->target)) {
			cfg_error(&e->pos, "parse_json(): invalid container '%s'", t);
			(*n_errors)++;
			return false;
		}
		break;
	}
	default:
		break;
	}
	return true;
}

void script_func_free(struct expr *e)
{
	struct fn_res *res = e->resolved;
	if (!res)
		return;
	script_regex_free(res->re);
	if (res->target) {
		prop_ref_free(res->target);
		free(res->target);
	}
	free(res);
	e->resolved = NULL;
}

/* ---- helpers ---- */

static size_t arena_begin(struct sctx *c)
{
	return c->ctx->scratch[SC_ARENA].len;
}

static void arena_end(struct sctx *c, size_t start, struct sval *out)
{
	struct sbuf *a = &c->ctx->scratch[SC_ARENA];
	size_t len = a->len - start;
	sbuf_putc(a, '\0');
	out->t = SV_STR;
	out->p = NULL;
	out->off = start;
	out->len = len;
}

static void set_arena_str(struct sctx *c, struct sval *out, const char *p, size_t n)
{
	if (!sv_arena(c, out, p, n))
		sv_cstr(out, "", 0);
}

/* Argument as a NUL-terminated string in `b` (for libc calls); rsyslog
 * hands C strings to most functions, so the value ends at a NUL. */
static const char *arg_cstr(struct sctx *c, struct sval *v, struct sbuf *b)
{
	sv_to_str(c, v);
	sbuf_reset(b);
	sbuf_append(b, sv_ptr(c, v), v->len);
	sbuf_cstr(b);
	return b->buf ? b->buf : "";
}

/* A string value cut at its first NUL (C-string semantics). */
static size_t c_len(struct sctx *c, const struct sval *v)
{
	const char *nul = memchr(sv_ptr(c, v), '\0', v->len);
	return nul ? (size_t)(nul - sv_ptr(c, v)) : v->len;
}

/* var2Number with its success flag. */
static int64_t num_ok(struct sctx *c, const struct sval *v, bool *ok)
{
	if (v->t == SV_NUM) {
		*ok = true;
		return v->n;
	}
	return sv_str2num(sv_ptr(c, v), v->len, ok);
}

/* rsyslog's replace(): every occurrence of `find` (left to right, not
 * overlapping) becomes `with`. An empty `find` inserts `with` before
 * each byte and at the end, as rsyslog's algorithm does. */
static void do_replace(struct sctx *c, struct sval *s, struct sval *find, struct sval *with,
		       struct sval *out)
{
	size_t st = arena_begin(c);
	struct sbuf *ar = &c->ctx->scratch[SC_ARENA];
	size_t sl = s->len, fl = find->len, wl = with->len;
	size_t need = fl ? sl + (sl / fl + 1) * wl : sl + (sl + 1) * wl;
	if (!sbuf_grow(ar, need + 1)) {
		sv_cstr(out, "", 0);
		return;
	}
	const char *sp = sv_ptr(c, s), *fp = sv_ptr(c, find), *wp = sv_ptr(c, with);
	char *o = ar->buf + ar->len;
	size_t i = 0;
	while (i <= sl) {
		if (fl == 0) {
			memcpy(o, wp, wl);
			o += wl;
			if (i < sl)
				*o++ = sp[i];
			i++;
			continue;
		}
		if (i + fl <= sl && !memcmp(sp + i, fp, fl)) {
			memcpy(o, wp, wl);
			o += wl;
			i += fl;
		} else {
			if (i < sl)
				*o++ = sp[i];
			i++;
		}
	}
	ar->len = (size_t)(o - ar->buf);
	arena_end(c, st, out);
}

static void fn_re_extract(struct sctx *c, struct sval *a, struct sval *out, const struct script_regex *re)
{
	sv_to_str(c, &a[0]);
	size_t len = c_len(c, &a[0]);
	int64_t want = (int16_t)sv_to_num(c, &a[2]);
	uint64_t sub = (uint64_t)sv_to_num(c, &a[3]);
	regmatch_t m[50];
	size_t off = 0;
	if (sub >= 50)
		goto nomatch;
	/* rsyslog restarts regexec at string + offset, so '^' matches at
	 * each restart, and advances by the end of the whole match */
	for (int64_t i = 0;; i++) {
		const char *s = sv_ptr(c, &a[0]);
		if (script_regex_exec(re, s + off, len - off, (size_t)sub + 1, m) != 0 || m[0].rm_so < 0)
			goto nomatch;
		if (i == want) {
			if (m[sub].rm_so < 0)
				goto nomatch;
			size_t so = off + (size_t)m[sub].rm_so, sl = (size_t)(m[sub].rm_eo - m[sub].rm_so);
			size_t st = arena_begin(c);
			if (sbuf_grow(&c->ctx->scratch[SC_ARENA], sl + 1))
				sbuf_append(&c->ctx->scratch[SC_ARENA], sv_ptr(c, &a[0]) + so, sl);
			arena_end(c, st, out);
			return;
		}
		if (i > want)
			goto nomatch;
		off += (size_t)m[0].rm_eo;
		if (off > len)
			goto nomatch;
	}
nomatch:
	*out = a[4];
	sv_to_str(c, out);
}

/* field(): rsyslog's doExtractFieldByChar / doExtractFieldByStr. */
static void fn_field(struct sctx *c, struct sval *a, struct sval *out)
{
	sv_to_str(c, &a[0]);
	const char *s = sv_ptr(c, &a[0]);
	size_t len = c_len(c, &a[0]);
	int64_t n = (int32_t)sv_to_num(c, &a[2]);
	size_t pos = 0, end;
	int64_t cur = 1;
	if (a[1].t == SV_NUM) {
		char d = (char)a[1].n;
		while (pos < len && cur < n) {
			while (pos < len && s[pos] != d)
				pos++;
			if (pos < len && s[pos] == d) {
				pos++;
				cur++;
			}
		}
		if (cur != n)
			goto notfound;
		end = pos;
		while (end < len && s[end] != d)
			end++;
	} else {
		const char *d = sv_ptr(c, &a[1]);
		size_t dl = c_len(c, &a[1]);
		bool lost = false;
		while (!lost && cur < n) {
			const char *f = memmem(s + pos, len - pos, d, dl);
			if (f) {
				pos = (size_t)(f - s) + dl;
				cur++;
			} else {
				lost = true;
			}
		}
		if (cur != n)
			goto notfound;
		const char *f = memmem(s + pos, len - pos, d, dl);
		end = f ? (size_t)(f - s) : len;
	}
	*out = a[0];
	if (out->p)
		out->p += pos;
	else
		out->off += pos;
	out->len = end - pos;
	return;
notfound:
	sv_cstr(out, "***FIELD NOT FOUND***", strlen("***FIELD NOT FOUND***"));
}

/* rsyslog's es_newStrFromSubStr with its unsigned arithmetic; a negative
 * start is an empty result here (rsyslog 8.2302 crashes on it, see
 * doc/differences.md). */
static void fn_substring(struct sctx *c, struct sval *a, struct sval *out)
{
	sv_to_str(c, &a[0]);
	int64_t sl = (int64_t)a[0].len;
	int32_t st = (int32_t)sv_to_num(c, &a[1]);
	uint32_t l = (uint32_t)(int32_t)sv_to_num(c, &a[2]);
	if (st < 0 || st >= sl) {
		sv_cstr(out, "", 0);
		return;
	}
	int64_t n = (int32_t)l >= 0 ? (int64_t)l : sl + (int32_t)l;  /* negative: counted from the end */
	if (n > sl - st)
		n = sl - st;
	if (n < 0)
		n = 0;
	*out = a[0];
	if (out->p)
		out->p += st;
	else
		out->off += (size_t)st;
	out->len = (size_t)n;
}

static void fn_ipv42num(struct sctx *c, struct sval *a, struct sval *out)
{
	sv_to_str(c, &a[0]);
	const char *s = sv_ptr(c, &a[0]);
	size_t len = c_len(c, &a[0]);
	uint32_t num[4] = { 0, 0, 0, 0 };
	int cyc = 0;
	bool prevdot = false, startblank = false, endblank = false;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		if (ch >= '0' && ch <= '9') {
			if (endblank)
				goto bad;
			prevdot = startblank = false;
			num[cyc] = num[cyc] * 10 + (uint32_t)(ch - '0');
		} else if (ch == ' ') {
			prevdot = false;
			if (i == 0 || startblank)
				startblank = true;
			else
				endblank = true;
		} else if (ch == '.') {
			if (endblank || prevdot)
				goto bad;
			startblank = false;
			prevdot = true;
			if (++cyc > 3)
				goto bad;
		} else {
			goto bad;
		}
	}
	if (cyc != 3)
		goto bad;
	/* unsigned 32-bit arithmetic, as rsyslog */
	sv_num(out, (int64_t)(uint32_t)(num[0] * 256u * 256u * 256u + num[1] * 256u * 256u + num[2] * 256u + num[3]));
	return;
bad:
	sv_num(out, -1);
}

static bool is_fmt(struct sctx *c, struct sval *v, const char *name)
{
	size_t l = strlen(name);
	return v->len == l && !memcmp(sv_ptr(c, v), name, l);
}

static void fn_format_time(struct sctx *c, struct sval *a, struct sval *out)
{
	bool ok;
	int64_t ts = num_ok(c, &a[0], &ok);
	sv_to_str(c, &a[1]);
	bool f3164 = is_fmt(c, &a[1], "date-rfc3164"), f3339 = is_fmt(c, &a[1], "date-rfc3339");
	if (!ok || (!f3164 && !f3339)) {
		/* unchanged (rsyslog: the same for a non-number; for an unknown
		 * format it returns uninitialised bytes, see differences.md) */
		*out = a[0];
		sv_to_str(c, out);
		return;
	}
	time_t t = (time_t)ts;
	struct tm tm;
	char b[64];
	if (!gmtime_r(&t, &tm)) {
		*out = a[0];
		sv_to_str(c, out);
		return;
	}
	strftime(b, sizeof(b), f3164 ? "%b %e %H:%M:%S" : "%Y-%m-%dT%H:%M:%SZ", &tm);
	set_arena_str(c, out, b, strlen(b));
}

/* rsyslog's parse_time()/is_time() accept a timestamp followed by a space
 * or the end. */
static bool ts_end_ok(const char *p, size_t left)
{
	return left == 0 || *p == ' ';
}

static bool parse_3339(const char *s, size_t len, struct syslog_time *t)
{
	const char *p = s;
	size_t l = len;
	return dt_parse_rfc3339(&p, &l, t) && ts_end_ok(p, l);
}

static bool parse_3164(const char *s, size_t len, struct syslog_time *t)
{
	struct syslog_time like;
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	memset(&like, 0, sizeof(like));
	like.year = (int16_t)(tm.tm_year + 1900);
	like.month = (uint8_t)(tm.tm_mon + 1);
	like.off_mode = '+';
	like.valid = 1;
	const char *p = s;
	size_t l = len;
	if (len == 0 || !isalpha((unsigned char)s[0]))
		return false;
	return dt_parse_rfc3164(&p, &l, t, &like) && ts_end_ok(p, l);
}

/* rsyslog's estimateYear(): the year an RFC3164 month most likely
 * belongs to, seen from the current UTC date. */
static int estimate_year(int cy, int cm, int im)
{
	im += 12;
	if (im - cm == 1 && cm == 12 && im == 13)
		return cy + 1;
	if (im - cm > 13)
		return cy - 1;
	return cy;
}

static void fn_parse_time(struct sctx *c, struct sval *a, struct sval *out)
{
	struct syslog_time t;
	sv_to_str(c, &a[0]);
	const char *s = sv_ptr(c, &a[0]);
	size_t len = c_len(c, &a[0]);
	fn_error = 0;
	memset(&t, 0, sizeof(t));
	if (parse_3339(s, len, &t)) {
		sv_num(out, (int64_t)dt_to_epoch(&t));
		return;
	}
	memset(&t, 0, sizeof(t));
	if (parse_3164(s, len, &t)) {
		time_t now = time(NULL);
		struct tm tm;
		gmtime_r(&now, &tm);
		t.year = (int16_t)estimate_year(tm.tm_year + 1900, tm.tm_mon + 1, t.month);
		t.off_mode = '+';
		t.off_hour = t.off_minute = 0;
		sv_num(out, (int64_t)dt_to_epoch(&t));
		return;
	}
	fn_error = 1;
	sv_num(out, 0);
}

static void fn_is_time(struct sctx *c, const struct expr *e, struct sval *a, struct sval *out)
{
	struct syslog_time t;
	bool r = false;
	struct sval orig = a[0];
	sv_to_str(c, &a[0]);
	const char *s = sv_ptr(c, &a[0]);
	size_t len = c_len(c, &a[0]);
	/* formats tried: rfc3164, rfc3339, unix (or the one given) */
	int fmts[3] = { 0, 1, 2 }, nf = 3;
	if (e->n_args == 2) {
		sv_to_str(c, &a[1]);
		nf = 1;
		fmts[0] = is_fmt(c, &a[1], "date-rfc3164") ? 0 : is_fmt(c, &a[1], "date-rfc3339") ? 1 :
			  is_fmt(c, &a[1], "date-unix") ? 2 : -1;
	}
	for (int i = 0; i < nf && !r; i++) {
		if (fmts[i] == 0)
			r = parse_3164(s, len, &t);
		else if (fmts[i] == 1)
			r = parse_3339(s, len, &t);
		else if (fmts[i] == 2) {
			bool ok;
			num_ok(c, &orig, &ok);
			r = ok;
		} else
			break;
	}
	fn_error = !r;
	sv_num(out, r);
}

/* A JSON value as a script value (strings copied to the arena when
 * `copy`, i.e. when the tree may change after the lock is released). */
static void json_to_sval(struct sctx *c, struct fjson_object *o, bool copy, struct sval *out)
{
	if (!o) {
		sv_cstr(out, "", 0);
		return;
	}
	switch (fjson_object_get_type(o)) {
	case fjson_type_int:
		sv_num(out, fjson_object_get_int64(o));
		return;
	case fjson_type_boolean:
		sv_num(out, fjson_object_get_boolean(o) ? 1 : 0);
		return;
	case fjson_type_string:
		if (copy)
			set_arena_str(c, out, fjson_object_get_string(o), (size_t)fjson_object_get_string_len(o));
		else
			sv_cstr(out, fjson_object_get_string(o), (size_t)fjson_object_get_string_len(o));
		return;
	case fjson_type_null:
		sv_cstr(out, "", 0);
		return;
	default: {
		const char *s = fjson_object_to_json_string(o);
		set_arena_str(c, out, s, strlen(s));
		return;
	}
	}
}

static struct fjson_object *json_child(struct sctx *c, struct fjson_object *o, struct sval *k);

/* The JSON node an expression denotes: a variable, or a nested
 * get_property(). NULL if the expression is not JSON-valued. The caller
 * holds the $/ lock when `*global` is set on return. */
static struct fjson_object *expr_json(struct sctx *c, const struct expr *e, bool *global, bool *is_json)
{
	if (e->type == EXPR_PROPERTY && e->resolved) {
		const struct prop_ref *ref = e->resolved;
		struct fjson_object **rootp = script_var_root(c->m, ref->id);
		if (!rootp)
			return NULL;
		*is_json = true;
		if (ref->id == PROP_GLOBAL_VAR && !*global) {
			prop_globals_lock();
			*global = true;
		}
		return var_lookup(*rootp, ref->path);
	}
	if (e->type == EXPR_FUNC && e->resolved &&
	    ((const struct fn_res *)e->resolved)->def->id == FN_GET_PROPERTY) {
		bool inner = false;
		struct fjson_object *o = expr_json(c, e->args[0], global, &inner);
		if (!inner || !o)
			return NULL;
		*is_json = true;
		struct sval k;
		eval_expr(c, e->args[1], &k);
		return json_child(c, o, &k);
	}
	return NULL;
}

/* Member `k` of an object, or element number `k` of an array. */
static struct fjson_object *json_child(struct sctx *c, struct fjson_object *o, struct sval *k)
{
	if (fjson_object_is_type(o, fjson_type_array)) {
		bool ok;
		int64_t i = num_ok(c, k, &ok);
		if (i < 0 || i >= fjson_object_array_length(o))
			return NULL;
		return fjson_object_array_get_idx(o, (int)i);
	}
	if (fjson_object_is_type(o, fjson_type_object)) {
		char key[512];
		sv_to_str(c, k);
		if (k->len >= sizeof(key))
			return NULL;
		memcpy(key, sv_ptr(c, k), k->len);
		key[k->len] = '\0';
		struct fjson_object *n = NULL;
		return fjson_object_object_get_ex(o, key, &n) ? n : NULL;
	}
	return NULL;
}

static void fn_get_property(struct sctx *c, const struct expr *e, struct sval *out)
{
	bool global = false, is_json = false;
	struct fjson_object *o = expr_json(c, e->args[0], &global, &is_json);
	if (!is_json) {
		fn_error = 1;
		sv_cstr(out, "", 0);
	} else {
		struct sval k;
		struct fjson_object *n = NULL;
		fn_error = 0;
		if (o) {
			eval_expr(c, e->args[1], &k);
			n = json_child(c, o, &k);
		}
		json_to_sval(c, n, global, out);
	}
	if (global)
		prop_globals_unlock();
}

/* parse_json(str, container): rsyslog's msgAddJSON merges an object into
 * the root container, and sets any other path to the parsed value. */
static void fn_parse_json(struct sctx *c, const struct fn_res *res, struct sval *a, struct sval *out)
{
	sv_to_str(c, &a[0]);
	struct fjson_tokener *tok = fjson_tokener_new();
	struct fjson_object *j = tok ? fjson_tokener_parse_ex(tok, sv_ptr(c, &a[0]), (int)c_len(c, &a[0])) : NULL;
	if (tok)
		fjson_tokener_free(tok);
	if (!j) {
		fn_error = 1;
		sv_num(out, 1);
		return;
	}
	const struct prop_ref *ref = res->target;
	struct fjson_object **rootp = script_var_root(c->m, ref->id);
	bool global = ref->id == PROP_GLOBAL_VAR;
	if (global)
		prop_globals_lock();
	if (!*ref->path && *rootp && fjson_object_is_type(j, fjson_type_object)) {
		struct fjson_object_iterator it = fjson_object_iter_begin(j);
		struct fjson_object_iterator end = fjson_object_iter_end(j);
		while (!fjson_object_iter_equal(&it, &end)) {
			fjson_object_object_add(*rootp, fjson_object_iter_peek_name(&it),
						fjson_object_get(fjson_object_iter_peek_value(&it)));
			fjson_object_iter_next(&it);
		}
		fjson_object_put(j);
	} else {
		var_store(rootp, ref->path, j);
	}
	if (global)
		prop_globals_unlock();
	fn_error = 0;
	sv_num(out, 0);
}

static void fn_lookup(struct sctx *c, const struct fn_res *res, struct sval *a, struct sval *out)
{
	struct sbuf *tmp = &c->ctx->scratch[SC_TMP];
	sbuf_reset(tmp);
	if (lookup_is_numeric(res->table)) {
		lookup_get(res->table, "", 0, sv_to_num(c, &a[1]), tmp);
	} else {
		sv_to_str(c, &a[1]);
		lookup_get(res->table, sv_ptr(c, &a[1]), c_len(c, &a[1]), 0, tmp);
	}
	set_arena_str(c, out, tmp->buf ? tmp->buf : "", tmp->len);
}

/* ---- call ---- */

bool script_func_cond(struct sctx *c, const struct expr *e, bool *truth)
{
	const struct fn_res *res = e->resolved;
	if (!res || (res->def->id != FN_RE_MATCH && res->def->id != FN_RE_MATCH_I))
		return false;
	const struct expr *arg = e->args[0];
	if (arg->type != EXPR_PROPERTY || !arg->resolved)
		return false;
	const struct prop_ref *ref = arg->resolved;
	if (prop_is_var(ref->id))
		return false;
	/* the property's text, as eval_expr would give it to re_match */
	size_t len;
	const char *p = script_prop_text(c, ref, &len);
	*truth = script_regex_match(res->re, p, len);
	return true;
}

void script_func_call(struct sctx *c, const struct expr *e, struct sval *out)
{
	const struct fn_res *res = e->resolved;
	struct sval a[5];
	struct sbuf *tmp = &c->ctx->scratch[SC_TMP];
	bool ok;

	if (!res) {
		sv_cstr(out, "", 0);
		return;
	}
	switch (res->def->id) {
	case FN_GET_PROPERTY:
		fn_get_property(c, e, out);
		return;
	case FN_RE_EXTRACT: case FN_RE_EXTRACT_I:
		/* the default (param 5) is only evaluated when there is no match */
		eval_expr(c, e->args[0], &a[0]);
		eval_expr(c, e->args[2], &a[2]);
		eval_expr(c, e->args[3], &a[3]);
		eval_expr(c, e->args[4], &a[4]);
		fn_re_extract(c, a, out, res->re);
		return;
	case FN_RE_MATCH: case FN_RE_MATCH_I:
		eval_expr(c, e->args[0], &a[0]);
		sv_to_str(c, &a[0]);
		sv_num(out, script_regex_match(res->re, sv_ptr(c, &a[0]), a[0].len));
		return;
	case FN_PRIFILT: {
		unsigned f = c->m->facility > 24 ? 24 : c->m->facility;
		sv_num(out, (res->pri_mask[f] >> (c->m->severity & 7)) & 1);
		return;
	}
	default:
		break;
	}
	for (int i = 0; i < e->n_args && i < 5; i++) {
		/* constant names (table, bucket, container) are resolved */
		if (((res->def->id == FN_LOOKUP || res->def->id == FN_DYN_INC ||
		      res->def->id == FN_PERCENTILE_OBSERVE) && i == 0) ||
		    (res->def->id == FN_PARSE_JSON && i == 1) || res->def->id == FN_RELOAD_LOOKUP_TABLE)
			continue;
		eval_expr(c, e->args[i], &a[i]);
	}
	switch (res->def->id) {
	case FN_STRLEN:
		sv_to_str(c, &a[0]);
		sv_num(out, (int64_t)a[0].len);
		return;
	case FN_GETENV: {
		const char *v = getenv(arg_cstr(c, &a[0], tmp));
		sv_cstr(out, v ? v : "", v ? strlen(v) : 0);
		return;
	}
	case FN_TOLOWER: {
		sv_to_str(c, &a[0]);
		size_t st = arena_begin(c);
		struct sbuf *ar = &c->ctx->scratch[SC_ARENA];
		if (!sbuf_grow(ar, a[0].len + 1)) {
			sv_cstr(out, "", 0);
			return;
		}
		const char *s = sv_ptr(c, &a[0]);
		for (size_t i = 0; i < a[0].len; i++) {
			unsigned char ch = (unsigned char)s[i];
			ar->buf[ar->len++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
		}
		arena_end(c, st, out);
		return;
	}
	case FN_SUBSTRING:
		fn_substring(c, a, out);
		return;
	case FN_LTRIM: case FN_RTRIM: {
		sv_to_str(c, &a[0]);
		const char *s = sv_ptr(c, &a[0]);
		size_t b = 0, en = c_len(c, &a[0]);
		if (res->def->id == FN_LTRIM)
			while (b < en && s[b] == ' ')
				b++;
		else
			while (en > 0 && s[en - 1] == ' ')
				en--;
		*out = a[0];
		if (out->p)
			out->p += b;
		else
			out->off += b;
		out->len = en - b;
		return;
	}
	case FN_CSTR:
		*out = a[0];
		sv_to_str(c, out);
		return;
	case FN_CNUM:
		/* a constant string converts as rsyslog's optimizer does
		 * (hex, octal); anything else as at run time (decimal) */
		if (e->args[0]->type == EXPR_STRING)
			sv_num(out, sv_cnum(e->args[0]->str, e->args[0]->str_len));
		else
			sv_num(out, sv_to_num(c, &a[0]));
		return;
	case FN_INT2HEX: {
		int64_t n = num_ok(c, &a[0], &ok);
		char b[32];
		int l = ok ? snprintf(b, sizeof(b), "%" PRIx64, (uint64_t)n) : snprintf(b, sizeof(b), "NAN");
		set_arena_str(c, out, b, (size_t)l);
		return;
	}
	case FN_FIELD:
		fn_field(c, a, out);
		return;
	case FN_REPLACE:
		sv_to_str(c, &a[0]);
		sv_to_str(c, &a[1]);
		sv_to_str(c, &a[2]);
		do_replace(c, &a[0], &a[1], &a[2], out);
		return;
	case FN_WRAP: {
		struct sval src = a[0];
		sv_to_str(c, &a[0]);
		sv_to_str(c, &a[1]);
		if (e->n_args == 3) {
			sv_to_str(c, &a[2]);
			do_replace(c, &a[0], &a[1], &a[2], &src);
		} else {
			src = a[0];
		}
		size_t st = arena_begin(c);
		struct sbuf *ar = &c->ctx->scratch[SC_ARENA];
		if (!sbuf_grow(ar, src.len + 2 * a[1].len + 1)) {
			sv_cstr(out, "", 0);
			return;
		}
		memcpy(ar->buf + ar->len, sv_ptr(c, &a[1]), a[1].len);
		ar->len += a[1].len;
		memcpy(ar->buf + ar->len, sv_ptr(c, &src), src.len);
		ar->len += src.len;
		memcpy(ar->buf + ar->len, sv_ptr(c, &a[1]), a[1].len);
		ar->len += a[1].len;
		arena_end(c, st, out);
		return;
	}
	case FN_EXEC_TEMPLATE: {
		struct sbuf *tb = &c->ctx->scratch[SC_TPL];
		sbuf_reset(tb);
		if (!tpl_render(res->tpl, c->m, tb)) {
			sv_cstr(out, "", 0);
			return;
		}
		set_arena_str(c, out, tb->buf ? tb->buf : "", tb->len);
		return;
	}
	case FN_RANDOM: {
		int64_t mx = num_ok(c, &a[0], &ok);
		sv_num(out, ok && mx != 0 ? (int64_t)random() % mx : 0);
		return;
	}
	case FN_IPV42NUM:
		fn_ipv42num(c, a, out);
		return;
	case FN_NUM2IPV4: {
		int64_t n = num_ok(c, &a[0], &ok);
		char b[32];
		if (!ok || n < 0 || n > 0xffffffffLL)
			snprintf(b, sizeof(b), "-1");
		else
			snprintf(b, sizeof(b), "%u.%u.%u.%u", (unsigned)(n >> 24) & 255, (unsigned)(n >> 16) & 255,
				 (unsigned)(n >> 8) & 255, (unsigned)n & 255);
		set_arena_str(c, out, b, strlen(b));
		return;
	}
	case FN_FORMAT_TIME:
		fn_format_time(c, a, out);
		return;
	case FN_PARSE_TIME:
		fn_parse_time(c, a, out);
		return;
	case FN_IS_TIME:
		fn_is_time(c, e, a, out);
		return;
	case FN_PARSE_JSON:
		fn_parse_json(c, res, a, out);
		return;
	case FN_LOOKUP:
		fn_lookup(c, res, a, out);
		return;
	case FN_DYN_INC:
		sv_to_str(c, &a[1]);
		sv_num(out, dynstats_inc(res->bucket, sv_ptr(c, &a[1]), c_len(c, &a[1])));
		return;
	case FN_PERCENTILE_OBSERVE: {
		/* rsyslog observes only a valid number ("didn't get a valid
		 * number" otherwise) and returns 0 either way */
		sv_to_str(c, &a[1]);
		sv_to_str(c, &a[2]);
		const char *v = sv_ptr(c, &a[2]);
		size_t vl = c_len(c, &a[2]), i = 0;
		bool neg = false;
		uint64_t n = 0;
		if (i < vl && (v[i] == '-' || v[i] == '+'))
			neg = v[i++] == '-';
		bool ok = i < vl;
		for (; i < vl; i++) {
			if (v[i] < '0' || v[i] > '9') {
				ok = false;
				break;
			}
			n = n * 10 + (uint64_t)(v[i] - '0');
		}
		if (ok)
			percentile_observe(res->pbucket, sv_ptr(c, &a[1]), c_len(c, &a[1]),
					   neg ? -(int64_t)n : (int64_t)n);
		sv_num(out, 0);
		return;
	}
	case FN_RELOAD_LOOKUP_TABLE:
		lookup_reload(res->table, e->n_args == 2 ? e->args[1]->str : NULL);
		sv_num(out, 0);
		return;
	case FN_SCRIPT_ERROR:
		sv_num(out, fn_error);
		return;
	case FN_PREV_SUSPENDED:
		sv_num(out, c->ctx->prev_action_suspended);
		return;
	default:
		break;
	}
	sv_cstr(out, "", 0);
}

int script_func_error(void)
{
	return fn_error;
}
