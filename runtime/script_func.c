/* script_func.c — RainerScript built-in functions (rsyslog 8.2302 set):
 * load-time checks (name, argument count, constant regexes, selectors,
 * templates) and their evaluation.
 *
 * Threading: script_func_compile() at load in the main thread;
 * script_func_call() on worker threads (reads the compiled node, writes
 * the worker's arena and the message's variables).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
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
#include "msg.h"
#include "prop.h"
#include "template.h"
#include "script.h"
#include "script_int.h"

enum fn_id {
	FN_STRLEN, FN_GETENV, FN_TOLOWER, FN_SUBSTRING, FN_LTRIM, FN_RTRIM, FN_CSTR, FN_CNUM,
	FN_INT2HEX, FN_RE_MATCH, FN_RE_MATCH_I, FN_RE_EXTRACT, FN_RE_EXTRACT_I, FN_FIELD,
	FN_REPLACE, FN_WRAP, FN_EXEC_TEMPLATE, FN_PRIFILT, FN_RANDOM, FN_IPV42NUM, FN_NUM2IPV4,
	FN_FORMAT_TIME, FN_IS_TIME, FN_PARSE_JSON, FN_SCRIPT_ERROR, FN_PREV_SUSPENDED,
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
	{ "format_time", FN_FORMAT_TIME, 2, 2 }, { "is_time", FN_IS_TIME, 1, 2 },
	{ "parse_json", FN_PARSE_JSON, 2, 2 }, { "script_error", FN_SCRIPT_ERROR, 0, 0 },
	{ "previous_action_suspended", FN_PREV_SUSPENDED, 0, 0 },
};

/* What the compiler attaches to an EXPR_FUNC node. */
struct fn_res {
	const struct fn_def *def;
	struct script_regex *re;      /* constant pattern */
	uint8_t pri_mask[25];         /* prifilt() */
	const struct template *tpl;   /* exec_template() */
};

/* script_error() state: per thread, set by the last function that can fail */
static __thread int fn_error;

/* ---- regexes ---- */

struct script_regex *script_regex_new(const char *pat, bool ere, bool icase, char *err, size_t errsz)
{
	struct script_regex *r = sl_xcalloc(1, sizeof(*r));
	int rc = regcomp(&r->re, pat, (ere ? REG_EXTENDED : 0) | (icase ? REG_ICASE : 0));
	if (rc != 0) {
		regerror(rc, &r->re, err, errsz);
		free(r);
		return NULL;
	}
	return r;
}

void script_regex_free(struct script_regex *r)
{
	if (!r)
		return;
	regfree(&r->re);
	free(r);
}

bool script_regex_match(const struct script_regex *r, const char *p, size_t len)
{
	regmatch_t m[1];
	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)len;
	return regexec(&r->re, p, 1, m, REG_STARTEND) == 0;
}

/* ---- compile ---- */

bool script_func_compile(struct expr *e, int *n_errors)
{
	const struct fn_def *def = NULL;
	for (size_t i = 0; i < SL_ARRAY_SIZE(fn_defs); i++)
		if (!strcmp(fn_defs[i].name, e->str))
			def = &fn_defs[i];
	if (!def) {
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
	case FN_RE_MATCH: case FN_RE_MATCH_I: case FN_RE_EXTRACT: case FN_RE_EXTRACT_I:
		if (e->args[1]->type == EXPR_STRING) {
			bool icase = def->id == FN_RE_MATCH_I || def->id == FN_RE_EXTRACT_I;
			res->re = script_regex_new(e->args[1]->str, true, icase, err, sizeof(err));
			if (!res->re) {
				cfg_error(&e->pos, "%s(): invalid regular expression '%s': %s", def->name,
					  e->args[1]->str, err);
				(*n_errors)++;
				return false;
			}
		}
		break;
	case FN_PRIFILT:
		if (e->args[0]->type != EXPR_STRING) {
			cfg_error(&e->pos, "prifilt(): the selector must be a constant string");
			(*n_errors)++;
			return false;
		}
		if (!cfg_decode_prifilt(e->args[0]->str, res->pri_mask, err, sizeof(err))) {
			cfg_error(&e->pos, "prifilt(): %s", err);
			(*n_errors)++;
			return false;
		}
		break;
	case FN_EXEC_TEMPLATE:
		if (e->args[0]->type != EXPR_STRING) {
			cfg_error(&e->pos, "exec_template(): the template name must be a constant string");
			(*n_errors)++;
			return false;
		}
		res->tpl = tpl_find(e->args[0]->str);
		if (!res->tpl) {
			cfg_error(&e->pos, "exec_template(): unknown template '%s'", e->args[0]->str);
			(*n_errors)++;
			return false;
		}
		break;
	case FN_PARSE_JSON:
		if (e->args[1]->type != EXPR_STRING || (strncmp(e->args[1]->str, "$!", 2) &&
		    strncmp(e->args[1]->str, "$.", 2) && strncmp(e->args[1]->str, "$/", 2))) {
			cfg_error(&e->pos, "parse_json(): the container must be a constant variable name like '$!'");
			(*n_errors)++;
			return false;
		}
		{
			struct prop_ref *ref = sl_xcalloc(1, sizeof(*ref));
			if (!prop_ref_parse(e->args[1]->str, e->args[1]->str_len, ref)) {
				cfg_error(&e->pos, "parse_json(): invalid container '%s'", e->args[1]->str);
				(*n_errors)++;
				free(ref);
				return false;
			}
			e->args[1]->resolved = ref;
		}
		break;
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
	if (res->def->id == FN_PARSE_JSON && e->args[1]->resolved) {
		prop_ref_free(e->args[1]->resolved);
		free(e->args[1]->resolved);
		e->args[1]->resolved = NULL;
	}
	script_regex_free(res->re);
	free(res);
	e->resolved = NULL;
}

/* ---- helpers ---- */

/* Append to the arena as one growing string; returns the start offset. */
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

/* Argument as NUL-terminated string in SC_TMP (for libc calls). */
static const char *arg_cstr(struct sctx *c, struct sval *v, struct sbuf *b)
{
	sv_to_str(c, v);
	sbuf_reset(b);
	sbuf_append(b, sv_ptr(c, v), v->len);
	sbuf_cstr(b);
	return b->buf ? b->buf : "";
}

static void fn_re_extract(struct sctx *c, const struct fn_res *res, struct sval *a, struct sval *out,
			  const struct script_regex *re)
{
	const char *s = sv_ptr(c, &a[0]);
	size_t len = a[0].len;
	int64_t want = sv_to_num(c, &a[2]), sub = sv_to_num(c, &a[3]);
	regmatch_t m[10];
	size_t pos = 0;
	fn_error = 0;
	if (sub < 0 || sub > 9)
		goto nomatch;
	for (int64_t i = 0; pos <= len; i++) {
		m[0].rm_so = (regoff_t)pos;
		m[0].rm_eo = (regoff_t)len;
		if (regexec(&re->re, s, 10, m, REG_STARTEND) != 0)
			goto nomatch;
		if (i == want) {
			if (m[sub].rm_so < 0)
				goto nomatch;
			size_t st = arena_begin(c);
			/* s may live in the arena: re-derive after growth */
			size_t so = (size_t)m[sub].rm_so, sl = (size_t)(m[sub].rm_eo - m[sub].rm_so);
			if (sbuf_grow(&c->ctx->scratch[SC_ARENA], sl + 1)) {
				s = sv_ptr(c, &a[0]);
				sbuf_append(&c->ctx->scratch[SC_ARENA], s + so, sl);
			}
			arena_end(c, st, out);
			return;
		}
		pos = (size_t)m[0].rm_eo > pos ? (size_t)m[0].rm_eo : pos + 1;
	}
nomatch:
	fn_error = 1;
	*out = a[4];
	(void)res;
}

static void fn_field(struct sctx *c, struct sval *a, struct sval *out)
{
	const char *s = sv_ptr(c, &a[0]);
	size_t len = a[0].len;
	char dbuf[2];
	const char *d;
	size_t dl;
	if (a[1].t == SV_NUM) {
		dbuf[0] = (char)a[1].n;
		d = dbuf;
		dl = 1;
	} else {
		d = sv_ptr(c, &a[1]);
		dl = a[1].len;
	}
	int64_t n = sv_to_num(c, &a[2]);
	size_t start = 0;
	if (dl == 0 || n < 1)
		goto notfound;
	for (int64_t i = 1; i < n; i++) {
		const char *f = memmem(s + start, len - start, d, dl);
		if (!f)
			goto notfound;
		start = (size_t)(f - s) + dl;
	}
	const char *f = memmem(s + start, len - start, d, dl);
	size_t end = f ? (size_t)(f - s) : len;
	if (a[0].p)
		sv_cstr(out, s + start, end - start);
	else {
		*out = a[0];
		out->off += start;
		out->len = end - start;
	}
	return;
notfound:
	sv_cstr(out, "***FIELD NOT FOUND***", strlen("***FIELD NOT FOUND***"));
}

static void fn_format_time(struct sctx *c, struct sval *a, struct sval *out)
{
	int64_t ts;
	if (a[0].t == SV_NUM)
		ts = a[0].n;
	else if (!sv_strict_num(sv_ptr(c, &a[0]), a[0].len, &ts)) {
		*out = a[0];
		return;
	}
	sv_to_str(c, &a[1]);
	const char *fmt = sv_ptr(c, &a[1]);
	time_t t = (time_t)ts;
	struct tm tm;
	char b[64];
	gmtime_r(&t, &tm);
	if (a[1].len == 12 && !strncasecmp(fmt, "date-rfc3164", 12))
		strftime(b, sizeof(b), "%b %e %H:%M:%S", &tm);
	else
		strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%SZ", &tm);
	sv_arena(c, out, b, strlen(b));
}

static bool is_time_str(const char *s, size_t len, const char *fmt)
{
	int64_t n;
	struct tm tm;
	char b[64];
	if (len >= sizeof(b))
		return false;
	memcpy(b, s, len);
	b[len] = '\0';
	if (!fmt || !strcasecmp(fmt, "date-unix")) {
		if (sv_strict_num(s, len, &n))
			return true;
		if (fmt)
			return false;
	}
	memset(&tm, 0, sizeof(tm));
	if (!fmt || !strcasecmp(fmt, "date-rfc3339")) {
		const char *e = strptime(b, "%Y-%m-%dT%H:%M:%S", &tm);
		if (e) {
			if (*e == '.') {
				e++;
				while (isdigit((unsigned char)*e))
					e++;
			}
			if (*e == 'Z' && e[1] == '\0')
				return true;
			if ((*e == '+' || *e == '-') && isdigit((unsigned char)e[1]) && isdigit((unsigned char)e[2]) &&
			    e[3] == ':' && isdigit((unsigned char)e[4]) && isdigit((unsigned char)e[5]) && !e[6])
				return true;
		}
		if (fmt)
			return false;
	}
	const char *e = strptime(b, "%b %d %H:%M:%S", &tm);
	return e && *e == '\0';
}

/* ---- call ---- */

void script_func_call(struct sctx *c, const struct expr *e, struct sval *out)
{
	const struct fn_res *res = e->resolved;
	struct sval a[5];
	struct sbuf *tmp = &c->ctx->scratch[SC_TMP];

	if (!res) {
		sv_cstr(out, "", 0);
		return;
	}
	for (int i = 0; i < e->n_args && i < 5; i++) {
		if (res->def->id == FN_PARSE_JSON && i == 1)
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
		for (size_t i = 0; i < a[0].len; i++)
			ar->buf[ar->len++] = (char)tolower((unsigned char)s[i]);
		arena_end(c, st, out);
		return;
	}
	case FN_SUBSTRING: {
		sv_to_str(c, &a[0]);
		int64_t st = sv_to_num(c, &a[1]), l = sv_to_num(c, &a[2]);
		int64_t sl = (int64_t)a[0].len;
		if (l < 0)
			l = sl - st + l + 1;
		if (st < 0 || st >= sl || l <= 0) {
			sv_cstr(out, "", 0);
			return;
		}
		if (st + l > sl)
			l = sl - st;
		*out = a[0];
		if (out->p)
			out->p += st;
		else
			out->off += (size_t)st;
		out->len = (size_t)l;
		return;
	}
	case FN_LTRIM: case FN_RTRIM: {
		sv_to_str(c, &a[0]);
		const char *s = sv_ptr(c, &a[0]);
		size_t b = 0, en = a[0].len;
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
		sv_num(out, sv_to_num(c, &a[0]));
		return;
	case FN_INT2HEX: {
		char b[32];
		int n = snprintf(b, sizeof(b), "%" PRIx64, (uint64_t)sv_to_num(c, &a[0]));
		sv_arena(c, out, b, (size_t)n);
		return;
	}
	case FN_RE_MATCH: case FN_RE_MATCH_I: case FN_RE_EXTRACT: case FN_RE_EXTRACT_I: {
		struct script_regex *re = res->re, *dyn = NULL;
		char err[128];
		sv_to_str(c, &a[0]);
		if (!re) {
			bool icase = res->def->id == FN_RE_MATCH_I || res->def->id == FN_RE_EXTRACT_I;
			dyn = re = script_regex_new(arg_cstr(c, &a[1], tmp), true, icase, err, sizeof(err));
		}
		if (!re) {
			fn_error = 1;
			if (res->def->id == FN_RE_MATCH || res->def->id == FN_RE_MATCH_I)
				sv_num(out, 0);
			else
				*out = a[4];
			return;
		}
		if (res->def->id == FN_RE_MATCH || res->def->id == FN_RE_MATCH_I)
			sv_num(out, script_regex_match(re, sv_ptr(c, &a[0]), a[0].len));
		else
			fn_re_extract(c, res, a, out, re);
		script_regex_free(dyn);
		return;
	}
	case FN_FIELD:
		sv_to_str(c, &a[0]);
		fn_field(c, a, out);
		return;
	case FN_REPLACE: {
		sv_to_str(c, &a[0]);
		sv_to_str(c, &a[1]);
		sv_to_str(c, &a[2]);
		if (a[1].len == 0) {
			*out = a[0];
			return;
		}
		size_t st = arena_begin(c);
		struct sbuf *ar = &c->ctx->scratch[SC_ARENA];
		size_t i = 0;
		while (i < a[0].len) {
			const char *s = sv_ptr(c, &a[0]), *f = sv_ptr(c, &a[1]);
			if (i + a[1].len <= a[0].len && !memcmp(s + i, f, a[1].len)) {
				size_t tl = a[2].len;
				if (sbuf_grow(ar, tl)) {
					memcpy(ar->buf + ar->len, sv_ptr(c, &a[2]), tl);
					ar->len += tl;
				}
				i += a[1].len;
			} else {
				sbuf_putc(ar, s[i]);
				i++;
			}
		}
		arena_end(c, st, out);
		return;
	}
	case FN_WRAP: {
		sv_to_str(c, &a[0]);
		sv_to_str(c, &a[1]);
		if (e->n_args == 3)
			sv_to_str(c, &a[2]);
		size_t st = arena_begin(c);
		struct sbuf *ar = &c->ctx->scratch[SC_ARENA];
		size_t need = a[1].len * 2 + a[0].len * (e->n_args == 3 ? a[2].len + 1 : 1) + 1;
		if (!sbuf_grow(ar, need)) {
			sv_cstr(out, "", 0);
			return;
		}
		const char *s = sv_ptr(c, &a[0]), *w = sv_ptr(c, &a[1]);
		memcpy(ar->buf + ar->len, w, a[1].len);
		ar->len += a[1].len;
		for (size_t i = 0; i < a[0].len; i++) {
			if (e->n_args == 3 && i + a[1].len <= a[0].len && a[1].len &&
			    !memcmp(s + i, w, a[1].len)) {
				memcpy(ar->buf + ar->len, sv_ptr(c, &a[2]), a[2].len);
				ar->len += a[2].len;
				i += a[1].len - 1;
			} else {
				ar->buf[ar->len++] = s[i];
			}
		}
		memcpy(ar->buf + ar->len, w, a[1].len);
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
		sv_arena(c, out, tb->buf ? tb->buf : "", tb->len);
		return;
	}
	case FN_PRIFILT: {
		unsigned f = c->m->facility > 24 ? 24 : c->m->facility;
		sv_num(out, (res->pri_mask[f] >> (c->m->severity & 7)) & 1);
		return;
	}
	case FN_RANDOM: {
		int64_t mx = sv_to_num(c, &a[0]);
		sv_num(out, mx > 0 ? (int64_t)((uint64_t)random() % (uint64_t)mx) : 0);
		return;
	}
	case FN_IPV42NUM: {
		const char *s = arg_cstr(c, &a[0], tmp);
		struct in_addr ia;
		while (*s == ' ')
			s++;
		size_t l = strlen(s);
		while (l && s[l - 1] == ' ')
			l--;
		char b[32];
		if (l >= sizeof(b)) {
			sv_num(out, -1);
			return;
		}
		memcpy(b, s, l);
		b[l] = '\0';
		if (inet_pton(AF_INET, b, &ia) != 1)
			sv_num(out, -1);
		else
			sv_num(out, (int64_t)ntohl(ia.s_addr));
		return;
	}
	case FN_NUM2IPV4: {
		int64_t n = sv_to_num(c, &a[0]);
		char b[32];
		if (n < 0 || n > 0xffffffffLL)
			snprintf(b, sizeof(b), "-1");
		else
			snprintf(b, sizeof(b), "%u.%u.%u.%u", (unsigned)(n >> 24) & 255, (unsigned)(n >> 16) & 255,
				 (unsigned)(n >> 8) & 255, (unsigned)n & 255);
		sv_arena(c, out, b, strlen(b));
		return;
	}
	case FN_FORMAT_TIME:
		fn_format_time(c, a, out);
		return;
	case FN_IS_TIME: {
		sv_to_str(c, &a[0]);
		char fmt[32] = "";
		if (e->n_args == 2) {
			sv_to_str(c, &a[1]);
			snprintf(fmt, sizeof(fmt), "%.*s", (int)a[1].len, sv_ptr(c, &a[1]));
		}
		bool r = is_time_str(sv_ptr(c, &a[0]), a[0].len, e->n_args == 2 ? fmt : NULL);
		fn_error = !r;
		sv_num(out, r);
		return;
	}
	case FN_PARSE_JSON: {
		const struct prop_ref *ref = e->args[1]->resolved;
		sv_to_str(c, &a[0]);
		struct fjson_tokener *tok = fjson_tokener_new();
		struct fjson_object *j = tok ? fjson_tokener_parse_ex(tok, sv_ptr(c, &a[0]), (int)a[0].len) : NULL;
		if (tok)
			fjson_tokener_free(tok);
		if (!j) {
			fn_error = 1;
			sv_num(out, 1);
			return;
		}
		struct fjson_object **rootp = script_var_root(c->m, ref->id);
		if (rootp && ref->id != PROP_GLOBAL_VAR)
			var_store(rootp, ref->path, j);
		else
			fjson_object_put(j);
		fn_error = 0;
		sv_num(out, 0);
		return;
	}
	case FN_SCRIPT_ERROR:
		sv_num(out, fn_error);
		return;
	case FN_PREV_SUSPENDED:
		sv_num(out, c->ctx->prev_action_suspended);
		return;
	}
	sv_cstr(out, "", 0);
}
