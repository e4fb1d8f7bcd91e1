/* script.c — RainerScript compiler (names resolved, regexes compiled,
 * constants folded, selectors already decoded by the parser) and executor
 * (statements and expressions evaluated against one message).
 *
 * Values are numbers or strings. Strings point into the message, into the
 * compiled tree, or into the worker's arena (ctx->scratch[1], addressed by
 * offset so it may grow); nothing is malloc'd per evaluation once the
 * scratch buffers have grown. The built-in functions live in
 * script_func.c.
 *
 * Threading: script_compile() runs in the main thread at load;
 * script_exec() runs on worker threads, reads the compiled tree, writes
 * only to the message ($!, $.), the exec context and the global variable
 * store ($/, guarded by a mutex).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <json.h>
#include "sluice.h"
#include "ast.h"
#include "msg.h"
#include "prop.h"
#include "script.h"
#include "script_int.h"

/* ---- values ---- */

const char *sv_ptr(struct sctx *c, const struct sval *v)
{
	if (v->p)
		return v->p;
	return c->ctx->scratch[SC_ARENA].buf + v->off;
}

void sv_num(struct sval *v, int64_t n)
{
	v->t = SV_NUM;
	v->n = n;
	v->p = "";
	v->len = 0;
}

void sv_cstr(struct sval *v, const char *p, size_t len)
{
	v->t = SV_STR;
	v->p = p;
	v->len = len;
}

/* Copy bytes into the arena and make v refer to them. */
bool sv_arena(struct sctx *c, struct sval *v, const char *p, size_t len)
{
	struct sbuf *a = &c->ctx->scratch[SC_ARENA];
	size_t off = a->len;
	if (!sbuf_append(a, p, len) || !sbuf_putc(a, '\0'))
		return false;
	v->t = SV_STR;
	v->p = NULL;
	v->off = off;
	v->len = len;
	return true;
}

/* Full-string integer parse (optional sign, decimal digits). */
bool sv_strict_num(const char *p, size_t len, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	int64_t n = 0;
	if (i < len && (p[i] == '-' || p[i] == '+'))
		neg = p[i++] == '-';
	if (i == len)
		return false;
	for (; i < len; i++) {
		if (!isdigit((unsigned char)p[i]))
			return false;
		n = n * 10 + (p[i] - '0');
	}
	*out = neg ? -n : n;
	return true;
}

/* rsyslog's string-to-number: optional '-', then 0x hex (with rsyslog's
 * digit quirk: 'a'-'f' count 0-5), leading-0 octal or decimal digits;
 * stops at the first other character. */
int64_t sv_cnum(const char *p, size_t len)
{
	size_t i = 0;
	bool neg = false;
	int64_t n = 0;
	if (i < len && p[i] == '-') {
		neg = true;
		i++;
	}
	if (i + 1 < len && p[i] == '0' && (p[i + 1] == 'x' || p[i + 1] == 'X')) {
		for (i += 2; i < len; i++) {
			char ch = (char)tolower((unsigned char)p[i]);
			if (isdigit((unsigned char)ch))
				n = n * 16 + (ch - '0');
			else if (ch >= 'a' && ch <= 'f')
				n = n * 16 + (ch - 'a');
			else
				break;
		}
	} else if (i < len && p[i] == '0') {
		for (; i < len && p[i] >= '0' && p[i] <= '7'; i++)
			n = n * 8 + (p[i] - '0');
	} else {
		for (; i < len && isdigit((unsigned char)p[i]); i++)
			n = n * 10 + (p[i] - '0');
	}
	return neg ? -n : n;
}

int64_t sv_str2num(const char *p, size_t len, bool *ok)
{
	size_t i = 0;
	int64_t n = 0;
	bool neg = false;
	if (len == 0) {
		*ok = true;
		return 0;
	}
	if (p[0] == '-') {
		neg = true;
		i = 1;
	}
	for (; i < len && p[i] >= '0' && p[i] <= '9'; i++)
		n = (int64_t)((uint64_t)n * 10 + (uint64_t)(p[i] - '0'));
	*ok = i == len;
	return neg ? -n : n;
}

/* A value as a number. At run time strings convert as rsyslog's
 * var2Number (decimal prefix); while constants are folded (no message)
 * as its optimizer does (es_str2num: hex and octal too). */
int64_t sv_to_num(struct sctx *c, const struct sval *v)
{
	bool ok;
	if (v->t == SV_NUM)
		return v->n;
	if (!c->m)
		return sv_cnum(sv_ptr(c, v), v->len);
	return sv_str2num(sv_ptr(c, v), v->len, &ok);
}

/* Make v a string (numbers are rendered into the arena). */
void sv_to_str(struct sctx *c, struct sval *v)
{
	if (v->t == SV_STR)
		return;
	char b[32];
	int n = snprintf(b, sizeof(b), "%" PRId64, v->n);
	if (!sv_arena(c, v, b, (size_t)n))
		sv_cstr(v, "", 0);
}

bool sv_true(struct sctx *c, const struct sval *v)
{
	return sv_to_num(c, v) != 0;
}

/* ---- variables ($!, $., $/) ---- */

struct fjson_object **script_var_root(struct msg *m, enum prop_id id)
{
	switch (id) {
	case PROP_CEE: return &m->json;
	case PROP_LOCAL_VAR: return &m->localvars;
	case PROP_GLOBAL_VAR: return prop_globals_root();
	default: return NULL;
	}
}

/* Find path "a!b" under root; NULL if absent. "" is the root itself. */
struct fjson_object *var_lookup(struct fjson_object *root, const char *path)
{
	struct fjson_object *o = root;
	char name[256];
	while (o && *path) {
		size_t l = strcspn(path, "!");
		if (l >= sizeof(name))
			return NULL;
		memcpy(name, path, l);
		name[l] = '\0';
		struct fjson_object *n = NULL;
		if (!fjson_object_is_type(o, fjson_type_object) || !fjson_object_object_get_ex(o, name, &n))
			return NULL;
		o = n;
		path += l;
		if (*path == '!')
			path++;
	}
	return o;
}

/* Store val (owned) at path, creating containers; val NULL = delete. */
void var_store(struct fjson_object **rootp, const char *path, struct fjson_object *val)
{
	if (!*path) {
		/* whole tree: must be an object */
		if (val && !fjson_object_is_type(val, fjson_type_object)) {
			fjson_object_put(val);
			return;
		}
		fjson_object_put(*rootp);
		*rootp = val;
		return;
	}
	if (!*rootp) {
		if (!val)
			return;
		*rootp = fjson_object_new_object();
	}
	struct fjson_object *o = *rootp;
	char name[256];
	for (;;) {
		size_t l = strcspn(path, "!");
		if (l >= sizeof(name)) {
			fjson_object_put(val);
			return;
		}
		memcpy(name, path, l);
		name[l] = '\0';
		path += l;
		if (!*path) {
			if (val)
				fjson_object_object_add(o, name, val);
			else
				fjson_object_object_del(o, name);
			return;
		}
		path++;
		struct fjson_object *n = NULL;
		if (!fjson_object_object_get_ex(o, name, &n) || !fjson_object_is_type(n, fjson_type_object)) {
			if (!val)
				return;
			n = fjson_object_new_object();
			fjson_object_object_add(o, name, n);
		}
		o = n;
	}
}

struct fjson_object *script_json_copy(struct fjson_object *o)
{
	if (!o)
		return NULL;
	switch (fjson_object_get_type(o)) {
	case fjson_type_object: {
		struct fjson_object *n = fjson_object_new_object();
		struct fjson_object_iterator it = fjson_object_iter_begin(o);
		struct fjson_object_iterator end = fjson_object_iter_end(o);
		while (!fjson_object_iter_equal(&it, &end)) {
			fjson_object_object_add(n, fjson_object_iter_peek_name(&it),
						script_json_copy(fjson_object_iter_peek_value(&it)));
			fjson_object_iter_next(&it);
		}
		return n;
	}
	case fjson_type_array: {
		struct fjson_object *n = fjson_object_new_array();
		int len = fjson_object_array_length(o);
		for (int i = 0; i < len; i++)
			fjson_object_array_add(n, script_json_copy(fjson_object_array_get_idx(o, i)));
		return n;
	}
	default:
		/* scalars are immutable once made: sharing is safe */
		return fjson_object_get(o);
	}
}

/* The value of a variable as a script value. */
static void var_value(struct sctx *c, const struct prop_ref *ref, struct sval *out)
{
	struct fjson_object **rootp = script_var_root(c->m, ref->id);
	bool global = ref->id == PROP_GLOBAL_VAR;
	if (global)
		prop_globals_lock();
	struct fjson_object *o = rootp ? var_lookup(*rootp, ref->path) : NULL;
	if (!o) {
		sv_cstr(out, "", 0);
	} else {
		switch (fjson_object_get_type(o)) {
		case fjson_type_int:
			sv_num(out, fjson_object_get_int64(o));
			break;
		case fjson_type_boolean:
			sv_num(out, fjson_object_get_boolean(o) ? 1 : 0);
			break;
		case fjson_type_string:
			if (global)
				sv_arena(c, out, fjson_object_get_string(o), (size_t)fjson_object_get_string_len(o));
			else
				sv_cstr(out, fjson_object_get_string(o), (size_t)fjson_object_get_string_len(o));
			break;
		case fjson_type_null:
			sv_cstr(out, "", 0);
			break;
		default: {
			const char *s = fjson_object_to_json_string(o);
			sv_arena(c, out, s, strlen(s));
			break;
		}
		}
	}
	if (global)
		prop_globals_unlock();
}

/* ---- expressions ---- */

const char *script_prop_text(struct sctx *c, const struct prop_ref *ref, size_t *len)
{
	struct sbuf *tmp = &c->ctx->scratch[SC_PROP];
	sbuf_reset(tmp);
	*len = 0;
	return prop_get(c->m, ref, len, tmp);
}

static void get_prop(struct sctx *c, const struct prop_ref *ref, struct sval *out)
{
	if (prop_is_var(ref->id)) {
		var_value(c, ref, out);
		return;
	}
	size_t len;
	const char *p = script_prop_text(c, ref, &len);
	struct sbuf *tmp = &c->ctx->scratch[SC_PROP];
	if (tmp->buf && p >= tmp->buf && p < tmp->buf + tmp->cap) {
		if (!sv_arena(c, out, p, len))
			sv_cstr(out, "", 0);
	} else {
		sv_cstr(out, p, len);
	}
}

static bool mem_contains(const char *h, size_t hl, const char *n, size_t nl, bool icase)
{
	if (nl == 0)
		return true;
	if (nl > hl)
		return false;
	if (!icase)
		return memmem(h, hl, n, nl) != NULL;
	for (size_t i = 0; i + nl <= hl; i++)
		if (!strncasecmp(h + i, n, nl))
			return true;
	return false;
}

static int str_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	int r = memcmp(a, b, al < bl ? al : bl);
	if (r)
		return r;
	return al < bl ? -1 : al > bl;
}

/* rsyslog comparison: numbers numerically; a string that is a number is
 * compared numerically with a number or another numeric string; otherwise
 * both as strings. */
static int cmp_vals(struct sctx *c, struct sval *a, struct sval *b)
{
	int64_t x = 0, y = 0;
	bool an = a->t == SV_NUM, bn = b->t == SV_NUM, ok;
	if (!bn) {
		y = sv_str2num(sv_ptr(c, b), b->len, &ok);
		bn = ok;
	} else {
		y = b->n;
	}
	if (bn) { /* a's number matters only if b is one */
		if (!an) {
			x = sv_str2num(sv_ptr(c, a), a->len, &ok);
			an = ok;
		} else {
			x = a->n;
		}
	}
	if (an && bn)
		return x < y ? -1 : x > y;
	sv_to_str(c, a);
	sv_to_str(c, b);
	return str_cmp(sv_ptr(c, a), a->len, sv_ptr(c, b), b->len);
}

/* == and !=: two strings are equal when their bytes are (rsyslogd 8.2302:
 * $syslogseverity == "05" is false although "5" < "10" is numeric);
 * with a number on either side, as cmp_vals. */
static bool eq_vals(struct sctx *c, struct sval *a, struct sval *b)
{
	if (a->t != SV_NUM && b->t != SV_NUM)
		return a->len == b->len && memcmp(sv_ptr(c, a), sv_ptr(c, b), a->len) == 0;
	return cmp_vals(c, a, b) == 0;
}

static bool match_one(struct sctx *c, enum expr_type op, struct sval *l, const char *r, size_t rl)
{
	struct sval rv;
	sv_cstr(&rv, r, rl);
	switch (op) {
	case EXPR_EQ: case EXPR_NE:
		return eq_vals(c, l, &rv);
	case EXPR_CONTAINS: case EXPR_CONTAINS_I:
		sv_to_str(c, l);
		return mem_contains(sv_ptr(c, l), l->len, r, rl, op == EXPR_CONTAINS_I);
	case EXPR_STARTSWITH: case EXPR_STARTSWITH_I:
		sv_to_str(c, l);
		if (rl > l->len)
			return false;
		return op == EXPR_STARTSWITH ? !memcmp(sv_ptr(c, l), r, rl) : !strncasecmp(sv_ptr(c, l), r, rl);
	default:
		return false;
	}
}

static bool eval_fast_eq(struct sctx *c, const struct expr *e);

/* The truth of a condition: the same as sv_true of eval_expr's value,
 * without building values for and/or/not, the compares marked by
 * mark_fast_eq and re_match on a property. */
static bool eval_cond(struct sctx *c, const struct expr *e)
{
	bool t;
	switch (e->type) {
	case EXPR_AND:
		return eval_cond(c, e->l) && eval_cond(c, e->r);
	case EXPR_OR:
		return eval_cond(c, e->l) || eval_cond(c, e->r);
	case EXPR_NOT:
		return !eval_cond(c, e->l);
	case EXPR_EQ: case EXPR_NE:
		if (e->fast) {
			t = eval_fast_eq(c, e);
			return e->type == EXPR_EQ ? t : !t;
		}
		break;
	case EXPR_FUNC:
		if (script_func_cond(c, e, &t))
			return t;
		break;
	default:
		break;
	}
	struct sval v;
	eval_expr(c, e, &v);
	return sv_true(c, &v);
}

/* An operand of a comparison. Properties that are always a decimal
 * number are taken as numbers: rsyslog compares a numeric string
 * numerically anyway, and contains/startswith see the same decimal text,
 * so only formatting and parsing it again is saved. Only for comparisons:
 * `set $!x = $syslogseverity;` must still store the string. An invalid
 * PRI prints "invld" and keeps the string path. */
static void eval_cmp_operand(struct sctx *c, const struct expr *e, struct sval *out)
{
	if (e->type == EXPR_PROPERTY) {
		const struct prop_ref *ref = e->resolved;
		if (ref->id == PROP_SYSLOGSEVERITY) {
			sv_num(out, c->m->severity);
			return;
		}
		if ((ref->id == PROP_SYSLOGFACILITY || ref->id == PROP_PRI) &&
		    c->m->facility != MSG_FACILITY_INVALID) {
			sv_num(out, ref->id == PROP_PRI ? c->m->pri : c->m->facility);
			return;
		}
	}
	eval_expr(c, e, out);
}

void eval_expr(struct sctx *c, const struct expr *e, struct sval *out)
{
	struct sval a, b;
	switch (e->type) {
	case EXPR_STRING:
		sv_cstr(out, e->str, e->str_len);
		return;
	case EXPR_NUMBER:
		sv_num(out, e->num);
		return;
	case EXPR_ARRAY:
		/* an array on its own evaluates to its first element */
		sv_cstr(out, e->n_arr ? e->arr[0] : "", e->n_arr ? strlen(e->arr[0]) : 0);
		return;
	case EXPR_PROPERTY:
		get_prop(c, e->resolved, out);
		return;
	case EXPR_FUNC:
		script_func_call(c, e, out);
		return;
	case EXPR_EXISTS: {
		const struct prop_ref *ref = e->l->resolved;
		struct fjson_object **rootp = script_var_root(c->m, ref->id);
		bool global = ref->id == PROP_GLOBAL_VAR;
		if (global)
			prop_globals_lock();
		bool ex = rootp && *rootp && var_lookup(*rootp, ref->path) != NULL;
		if (global)
			prop_globals_unlock();
		sv_num(out, ex);
		return;
	}
	case EXPR_NOT:
		eval_expr(c, e->l, &a);
		sv_num(out, !sv_true(c, &a));
		return;
	case EXPR_NEG:
		eval_expr(c, e->l, &a);
		sv_num(out, -sv_to_num(c, &a));
		return;
	case EXPR_AND:
		eval_expr(c, e->l, &a);
		if (!sv_true(c, &a)) {
			sv_num(out, 0);
			return;
		}
		eval_expr(c, e->r, &b);
		sv_num(out, sv_true(c, &b));
		return;
	case EXPR_OR:
		eval_expr(c, e->l, &a);
		if (sv_true(c, &a)) {
			sv_num(out, 1);
			return;
		}
		eval_expr(c, e->r, &b);
		sv_num(out, sv_true(c, &b));
		return;
	case EXPR_EQ: case EXPR_NE: case EXPR_CONTAINS: case EXPR_CONTAINS_I:
	case EXPR_STARTSWITH: case EXPR_STARTSWITH_I:
		if (e->fast) {
			bool eq = eval_fast_eq(c, e);
			sv_num(out, e->type == EXPR_EQ ? eq : !eq);
			return;
		}
		/* == and != between two strings compare the bytes (rsyslogd:
		 * $syslogseverity == "05" is false), so no numeric shortcut */
		eval_expr(c, e->l, &a);
		if (e->r->type == EXPR_ARRAY) {
			bool any = false;
			for (int i = 0; i < e->r->n_arr && !any; i++)
				any = match_one(c, e->type, &a, e->r->arr[i], strlen(e->r->arr[i]));
			sv_num(out, e->type == EXPR_NE ? !any : any);
			return;
		}
		eval_expr(c, e->r, &b);
		switch (e->type) {
		case EXPR_EQ: sv_num(out, eq_vals(c, &a, &b)); return;
		case EXPR_NE: sv_num(out, !eq_vals(c, &a, &b)); return;
		default:
			sv_to_str(c, &b);
			sv_num(out, match_one(c, e->type, &a, sv_ptr(c, &b), b.len));
			return;
		}
	case EXPR_LT: case EXPR_GT: case EXPR_LE: case EXPR_GE: {
		eval_cmp_operand(c, e->l, &a);
		eval_cmp_operand(c, e->r, &b);
		int r = cmp_vals(c, &a, &b);
		sv_num(out, e->type == EXPR_LT ? r < 0 : e->type == EXPR_GT ? r > 0 :
			    e->type == EXPR_LE ? r <= 0 : r >= 0);
		return;
	}
	case EXPR_ADD: case EXPR_SUB: case EXPR_MUL: case EXPR_DIV: case EXPR_MOD: {
		eval_expr(c, e->l, &a);
		eval_expr(c, e->r, &b);
		int64_t x = sv_to_num(c, &a), y = sv_to_num(c, &b), r = 0;
		switch (e->type) {
		case EXPR_ADD: r = (int64_t)((uint64_t)x + (uint64_t)y); break;
		case EXPR_SUB: r = (int64_t)((uint64_t)x - (uint64_t)y); break;
		case EXPR_MUL: r = (int64_t)((uint64_t)x * (uint64_t)y); break;
		case EXPR_DIV: r = (y == 0 || (x == INT64_MIN && y == -1)) ? 0 : x / y; break;
		default: r = (y == 0 || (x == INT64_MIN && y == -1)) ? 0 : x % y; break;
		}
		sv_num(out, r);
		return;
	}
	case EXPR_CONCAT: {
		eval_expr(c, e->l, &a);
		eval_expr(c, e->r, &b);
		sv_to_str(c, &a);
		sv_to_str(c, &b);
		struct sbuf *ar = &c->ctx->scratch[SC_ARENA];
		size_t off = ar->len;
		/* copy a then b; pointers are re-derived after each append */
		if (!sbuf_grow(ar, a.len + b.len + 1)) {
			sv_cstr(out, "", 0);
			return;
		}
		memmove(ar->buf + off, sv_ptr(c, &a), a.len);
		memmove(ar->buf + off + a.len, sv_ptr(c, &b), b.len);
		ar->len = off + a.len + b.len;
		ar->buf[ar->len++] = '\0';
		out->t = SV_STR;
		out->p = NULL;
		out->off = off;
		out->len = a.len + b.len;
		return;
	}
	}
	sv_cstr(out, "", 0);
}

/* ---- statements ---- */

static bool propfilt_match(struct sctx *c, const struct script_stmt *s)
{
	const struct propfilt_res *res = s->resolved;
	struct sval v;
	get_prop(c, &res->ref, &v);
	const char *p = sv_ptr(c, &v);
	const char *val = s->propfilt_value;
	size_t vl = strlen(val);
	bool r = false;
	switch (s->propfilt_op) {
	case PROPFILT_CONTAINS:
		r = mem_contains(p, v.len, val, vl, false);
		break;
	case PROPFILT_ISEQUAL:
		r = v.len == vl && !memcmp(p, val, vl);
		break;
	case PROPFILT_STARTSWITH:
		r = v.len >= vl && !memcmp(p, val, vl);
		break;
	case PROPFILT_ISEMPTY:
		r = v.len == 0;
		break;
	case PROPFILT_REGEX:
	case PROPFILT_EREREGEX:
		r = res->re && script_regex_match(res->re, p, v.len);
		break;
	}
	return s->propfilt_negate ? !r : r;
}

static void var_set(struct sctx *c, const struct script_stmt *s)
{
	const struct prop_ref *ref = s->resolved;
	struct fjson_object **rootp = script_var_root(c->m, ref->id);
	struct fjson_object *nv = NULL;
	if (!rootp)
		return;
	if (s->type != STMT_UNSET) {
		const struct expr *e = s->value;
		if (e->type == EXPR_PROPERTY && e->resolved &&
		    (((const struct prop_ref *)e->resolved)->id == PROP_CEE ||
		     ((const struct prop_ref *)e->resolved)->id == PROP_LOCAL_VAR)) {
			const struct prop_ref *src = e->resolved;
			struct fjson_object **sr = script_var_root(c->m, src->id);
			struct fjson_object *so = sr ? var_lookup(*sr, src->path) : NULL;
			if (so)
				nv = script_json_copy(so);
		}
		if (!nv) {
			struct sval v;
			eval_expr(c, e, &v);
			if (v.t == SV_NUM)
				nv = fjson_object_new_int64(v.n);
			else
				nv = fjson_object_new_string_len(sv_ptr(c, &v), (int)v.len);
		}
	}
	if (ref->id == PROP_GLOBAL_VAR)
		prop_globals_lock();
	var_store(rootp, ref->path, nv);
	if (ref->id == PROP_GLOBAL_VAR)
		prop_globals_unlock();
}

static void exec_list(struct sctx *c, const struct script_stmt *s);

static void exec_foreach(struct sctx *c, const struct script_stmt *s)
{
	const struct prop_ref *iv = s->resolved;
	struct fjson_object *coll = NULL;
	const struct expr *e = s->value;
	if (e->type == EXPR_PROPERTY && e->resolved) {
		const struct prop_ref *src = e->resolved;
		struct fjson_object **sr = script_var_root(c->m, src->id);
		if (src->id == PROP_GLOBAL_VAR)
			prop_globals_lock();
		struct fjson_object *o = sr ? var_lookup(*sr, src->path) : NULL;
		if (o)
			coll = script_json_copy(o);
		if (src->id == PROP_GLOBAL_VAR)
			prop_globals_unlock();
	} else {
		struct sval v;
		c->ctx->scratch[SC_ARENA].len = 0;
		eval_expr(c, e, &v);
		if (v.t == SV_STR) {
			struct fjson_tokener *tok = fjson_tokener_new();
			coll = fjson_tokener_parse_ex(tok, sv_ptr(c, &v), (int)v.len);
			fjson_tokener_free(tok);
		}
	}
	if (!coll)
		return;
	struct fjson_object **rootp = script_var_root(c->m, iv->id);
	if (fjson_object_is_type(coll, fjson_type_array)) {
		int n = fjson_object_array_length(coll);
		for (int i = 0; i < n && !c->ctx->stopped; i++) {
			var_store(rootp, iv->path, script_json_copy(fjson_object_array_get_idx(coll, i)));
			exec_list(c, s->then_);
		}
	} else if (fjson_object_is_type(coll, fjson_type_object)) {
		struct fjson_object_iterator it = fjson_object_iter_begin(coll);
		struct fjson_object_iterator end = fjson_object_iter_end(coll);
		while (!fjson_object_iter_equal(&it, &end) && !c->ctx->stopped) {
			struct fjson_object *kv = fjson_object_new_object();
			fjson_object_object_add(kv, "key", fjson_object_new_string(fjson_object_iter_peek_name(&it)));
			fjson_object_object_add(kv, "value", script_json_copy(fjson_object_iter_peek_value(&it)));
			var_store(rootp, iv->path, kv);
			exec_list(c, s->then_);
			fjson_object_iter_next(&it);
		}
	}
	fjson_object_put(coll);
}

static void exec_list(struct sctx *c, const struct script_stmt *s)
{
	struct sval v;
	for (; s && !c->ctx->stopped; s = s->next) {
		c->ctx->scratch[SC_ARENA].len = 0;
		switch (s->type) {
		case STMT_IF:
			if (eval_cond(c, s->cond))
				exec_list(c, s->then_);
			else
				exec_list(c, s->else_);
			break;
		case STMT_ACTION:
			if (s->resolved)
				action_exec(s->resolved, c->m, c->ctx);
			break;
		case STMT_SET:
		case STMT_RESET:
		case STMT_UNSET:
			var_set(c, s);
			break;
		case STMT_STOP:
			c->ctx->stopped = true;
			break;
		case STMT_CONTINUE:
			break;
		case STMT_CALL:
			if (s->resolved)
				ruleset_exec_sync(s->resolved, c->m, c->ctx);
			break;
		case STMT_CALL_INDIRECT: {
			eval_expr(c, s->value, &v);
			sv_to_str(c, &v);
			struct script_resolver *r = s->resolved;
			char name[256];
			snprintf(name, sizeof(name), "%.*s", (int)v.len, sv_ptr(c, &v));
			struct ruleset *rs = r && r->find_ruleset ? r->find_ruleset(name, r->arg) : NULL;
			if (rs)
				ruleset_exec_sync(rs, c->m, c->ctx);
			break;
		}
		case STMT_FOREACH:
			exec_foreach(c, s);
			break;
		case STMT_PRIFILT: {
			unsigned f = c->m->facility > 24 ? 24 : c->m->facility;
			if (s->pri_mask[f] & (1u << (c->m->severity & 7)))
				exec_list(c, s->then_);
			break;
		}
		case STMT_PROPFILT:
			if (propfilt_match(c, s))
				exec_list(c, s->then_);
			break;
		case STMT_RELOAD_LOOKUP_TABLE:
			script_func_call(c, s->value, &v);
			break;
		}
	}
}

void script_exec(const struct script_stmt *s, struct msg *m, struct exec_ctx *ctx)
{
	struct sctx c = { .m = m, .ctx = ctx };
	exec_list(&c, s);
}

void exec_ctx_init(struct exec_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	for (int i = 0; i < 4; i++) {
		ctx->scratch[i] = (struct sbuf)SBUF_INIT;
		sbuf_grow(&ctx->scratch[i], 1024);
	}
}

void exec_ctx_fini(struct exec_ctx *ctx)
{
	for (int i = 0; i < 4; i++)
		sbuf_free(&ctx->scratch[i]);
}

/* ---- compiler ---- */

static bool is_const(const struct expr *e)
{
	return e && (e->type == EXPR_STRING || e->type == EXPR_NUMBER);
}

/* Fold an operator node whose operands are constants: evaluate it with a
 * throw-away context and replace the node by the result. */
static void fold(struct expr *e)
{
	struct exec_ctx ctx;
	struct sval v;
	exec_ctx_init(&ctx);
	struct sctx c = { .m = NULL, .ctx = &ctx };
	eval_expr(&c, e, &v);
	cfg_expr_free(e->l);
	cfg_expr_free(e->r);
	e->l = e->r = NULL;
	if (v.t == SV_NUM) {
		e->type = EXPR_NUMBER;
		e->num = v.n;
	} else {
		const char *p = sv_ptr(&c, &v);
		e->type = EXPR_STRING;
		e->str = sl_xstrndup(p, v.len);
		e->str_len = v.len;
	}
	exec_ctx_fini(&ctx);
}

static struct prop_ref *resolve_prop(const char *name, const struct cfg_pos *pos, int *n_errors)
{
	struct prop_ref *ref = sl_xcalloc(1, sizeof(*ref));
	if (!prop_ref_parse(name, strlen(name), ref)) {
		/* "$msg" etc: the lexer keeps the '$', prop_ref_parse accepts
		 * names with and without it; try without */
		if (!(name[0] == '$' && prop_ref_parse(name + 1, strlen(name + 1), ref))) {
			const char *sug = prop_suggest(name);
			if (sug)
				cfg_error(pos, "unknown property '%s' (did you mean '%s'?)", name, sug);
			else
				cfg_error(pos, "unknown property '%s'", name);
			(*n_errors)++;
			free(ref);
			return NULL;
		}
	}
	return ref;
}

/* `$prop == "text"` and `!=` (either order) compare the bytes of the
 * property with the constant (eq_vals on two strings). The compiler marks
 * such nodes so they are evaluated without the general machinery:
 * FAST_PROP_EQ fetches the property and compares; for the -text forms of
 * facility and severity, which are a function of a small number, the
 * answer for every number is worked out here (FAST_FAC_MASK /
 * FAST_SEV_MASK, bit n of e->num = the text of n equals the constant). */
enum { FAST_NONE, FAST_PROP_EQ, FAST_FAC_MASK, FAST_SEV_MASK };

static void mark_fast_eq(struct expr *e)
{
	if (e->l->type == EXPR_STRING && e->r->type == EXPR_PROPERTY) {
		struct expr *t = e->l;
		e->l = e->r;
		e->r = t;
	}
	if (e->l->type != EXPR_PROPERTY || e->r->type != EXPR_STRING || !e->l->resolved)
		return;
	const struct prop_ref *ref = e->l->resolved;
	if (prop_is_var(ref->id))
		return;
	if (ref->id == PROP_SYSLOGFACILITY_TEXT || ref->id == PROP_SYSLOGSEVERITY_TEXT) {
		bool fac = ref->id == PROP_SYSLOGFACILITY_TEXT;
		int64_t mask = 0;
		for (int n = 0; n < (fac ? 25 : 8); n++) {
			struct msg m;
			struct sbuf scratch = { 0 };
			size_t len = 0;
			memset(&m, 0, sizeof(m));
			if (fac)
				m.facility = (uint8_t)n;
			else
				m.severity = (uint8_t)n;
			const char *v = prop_get(&m, ref, &len, &scratch);
			if (len == e->r->str_len && memcmp(v, e->r->str, len) == 0)
				mask |= (int64_t)1 << n;
			sbuf_free(&scratch);
		}
		e->num = mask;
		e->fast = fac ? FAST_FAC_MASK : FAST_SEV_MASK;
		return;
	}
	e->fast = FAST_PROP_EQ;
}

static bool eval_fast_eq(struct sctx *c, const struct expr *e)
{
	const struct msg *m = c->m;
	switch (e->fast) {
	case FAST_FAC_MASK:
		return (e->num >> (m->facility <= 24 ? m->facility : 24)) & 1;
	case FAST_SEV_MASK:
		return (e->num >> (m->severity & 7)) & 1;
	default: {
		size_t len;
		const char *p = script_prop_text(c, e->l->resolved, &len);
		return len == e->r->str_len && memcmp(p, e->r->str, len) == 0;
	}
	}
}

static void compile_expr(struct expr *e, int *n_errors)
{
	if (!e)
		return;
	compile_expr(e->l, n_errors);
	if (e->type != EXPR_EXISTS)
		compile_expr(e->r, n_errors);
	for (int i = 0; i < e->n_args; i++)
		compile_expr(e->args[i], n_errors);
	switch (e->type) {
	case EXPR_PROPERTY:
		e->resolved = resolve_prop(e->str, &e->pos, n_errors);
		break;
	case EXPR_FUNC:
		script_func_compile(e, false, n_errors);
		break;
	case EXPR_NOT: case EXPR_NEG:
		if (is_const(e->l))
			fold(e);
		break;
	case EXPR_STRING: case EXPR_NUMBER: case EXPR_ARRAY: case EXPR_EXISTS:
		break;
	default:
		if (is_const(e->l) && is_const(e->r))
			fold(e);
		else if (e->type == EXPR_EQ || e->type == EXPR_NE)
			mark_fast_eq(e);
		break;
	}
}

static void compile_list(struct script_stmt *s, const struct script_resolver *r, int *n_errors)
{
	for (; s; s = s->next) {
		compile_expr(s->cond, n_errors);
		if (s->type == STMT_RELOAD_LOOKUP_TABLE) {
			for (int i = 0; i < s->value->n_args; i++)
				compile_expr(s->value->args[i], n_errors);
			script_func_compile(s->value, true, n_errors);
		} else {
			compile_expr(s->value, n_errors);
		}
		switch (s->type) {
		case STMT_ACTION:
			if (r && r->make_action) {
				s->resolved = r->make_action(s->obj, r->arg);
				if (!s->resolved)
					(*n_errors)++;
			}
			break;
		case STMT_SET: case STMT_RESET: case STMT_UNSET: case STMT_FOREACH:
			s->resolved = resolve_prop(s->var, &s->pos, n_errors);
			if (s->resolved) {
				enum prop_id id = ((struct prop_ref *)s->resolved)->id;
				if (id != PROP_CEE && id != PROP_LOCAL_VAR && id != PROP_GLOBAL_VAR) {
					cfg_error(&s->pos, "'%s' is not a variable that can be assigned", s->var);
					(*n_errors)++;
				}
			}
			break;
		case STMT_CALL:
			if (r && r->find_ruleset) {
				s->resolved = r->find_ruleset(s->name, r->arg);
				if (!s->resolved) {
					cfg_error(&s->pos, "call: unknown ruleset '%s'", s->name);
					(*n_errors)++;
				}
			}
			break;
		case STMT_CALL_INDIRECT:
			if (r) {
				struct script_resolver *cp = sl_xmalloc(sizeof(*cp));
				*cp = *r;
				s->resolved = cp;
			}
			break;
		case STMT_PROPFILT: {
			struct propfilt_res *res = sl_xcalloc(1, sizeof(*res));
			struct prop_ref *ref = resolve_prop(s->name, &s->pos, n_errors);
			if (ref) {
				res->ref = *ref;
				free(ref);
			}
			if (s->propfilt_op == PROPFILT_REGEX || s->propfilt_op == PROPFILT_EREREGEX) {
				char err[256];
				res->re = script_regex_new(s->propfilt_value, s->propfilt_op == PROPFILT_EREREGEX,
							   false, err, sizeof(err));
				if (!res->re) {
					cfg_error(&s->pos, "invalid regular expression '%s': %s", s->propfilt_value, err);
					(*n_errors)++;
				}
			}
			s->resolved = res;
			break;
		}
		default:
			break;
		}
		compile_list(s->then_, r, n_errors);
		compile_list(s->else_, r, n_errors);
	}
}

void script_compile(struct script_stmt *s, const struct script_resolver *r, int *n_errors)
{
	int dummy = 0;
	compile_list(s, r, n_errors ? n_errors : &dummy);
}

static void release_expr(struct expr *e)
{
	if (!e)
		return;
	release_expr(e->l);
	if (e->type != EXPR_EXISTS)
		release_expr(e->r);
	for (int i = 0; i < e->n_args; i++)
		release_expr(e->args[i]);
	if (e->type == EXPR_PROPERTY && e->resolved) {
		prop_ref_free(e->resolved);
		free(e->resolved);
		e->resolved = NULL;
	} else if (e->type == EXPR_FUNC) {
		script_func_free(e);
	}
}

void script_release(struct script_stmt *s)
{
	for (; s; s = s->next) {
		release_expr(s->cond);
		release_expr(s->value);
		switch (s->type) {
		case STMT_SET: case STMT_RESET: case STMT_UNSET: case STMT_FOREACH:
			if (s->resolved) {
				prop_ref_free(s->resolved);
				free(s->resolved);
			}
			s->resolved = NULL;
			break;
		case STMT_CALL_INDIRECT:
			free(s->resolved);
			s->resolved = NULL;
			break;
		case STMT_PROPFILT:
			if (s->resolved) {
				struct propfilt_res *res = s->resolved;
				prop_ref_free(&res->ref);
				script_regex_free(res->re);
				free(res);
			}
			s->resolved = NULL;
			break;
		default:
			break;
		}
		script_release(s->then_);
		script_release(s->else_);
	}
}
