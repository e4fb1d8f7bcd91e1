/* ast.c — the configuration tree: parse entry points (file / string),
 * error reporting with source positions, parameter lookup, selector
 * decoding and freeing.
 *
 * Threading: parsing happens once in the main thread at start (the lexer
 * and parser keep global state); cfg_error/cfg_warn may be called from the
 * main thread by every layer that checks the configuration.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>
#include "sluice.h"
#include "ast.h"
#include "rainerscript.h"

static void vreport(const char *kind, const struct cfg_pos *pos, const char *fmt, va_list ap)
{
	char msg[1024];
	char line[1200];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (pos && pos->file)
		snprintf(line, sizeof(line), "%s:%d: %s%s\n", pos->file, pos->line, kind, msg);
	else
		snprintf(line, sizeof(line), "%s%s\n", kind, msg);
	fputs(line, stderr);
}

void cfg_error(const struct cfg_pos *pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", pos, fmt, ap);
	va_end(ap);
}

void cfg_warn(const struct cfg_pos *pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", pos, fmt, ap);
	va_end(ap);
}

struct cfg_param *cfg_obj_param(struct cfg_obj *o, const char *name)
{
	for (struct cfg_param *p = o ? o->params : NULL; p; p = p->next) {
		if (!strcasecmp(p->name, name)) {
			p->used = true;
			return p;
		}
	}
	return NULL;
}

const char *cfg_tree_add_file(struct cfg_tree *t, const char *name)
{
	t->files = sl_xrealloc(t->files, sizeof(char *) * (size_t)(t->n_files + 1));
	t->files[t->n_files] = sl_xstrdup(name);
	return t->files[t->n_files++];
}

/* ---- freeing ---- */

void cfg_param_free(struct cfg_param *p)
{
	while (p) {
		struct cfg_param *n = p->next;
		free(p->name);
		free(p->val.str);
		for (int i = 0; i < p->val.n_arr; i++)
			free(p->val.arr[i]);
		free(p->val.arr);
		free(p);
		p = n;
	}
}

void cfg_expr_free(struct expr *e)
{
	if (!e)
		return;
	cfg_expr_free(e->l);
	cfg_expr_free(e->r);
	free(e->str);
	for (int i = 0; i < e->n_arr; i++)
		free(e->arr[i]);
	free(e->arr);
	for (int i = 0; i < e->n_args; i++)
		cfg_expr_free(e->args[i]);
	free(e->args);
	/* e->resolved is released by script_free_resolved() before this */
	free(e);
}

void cfg_stmt_free(struct script_stmt *s)
{
	while (s) {
		struct script_stmt *n = s->next;
		cfg_expr_free(s->cond);
		cfg_stmt_free(s->then_);
		cfg_stmt_free(s->else_);
		cfg_obj_free(s->obj);
		free(s->var);
		cfg_expr_free(s->value);
		free(s->name);
		free(s->propfilt_value);
		free(s);
		s = n;
	}
}

void cfg_obj_free(struct cfg_obj *o)
{
	while (o) {
		struct cfg_obj *n = o->next;
		cfg_param_free(o->params);
		cfg_obj_free(o->body);
		cfg_stmt_free(o->script);
		free(o->legacy_name);
		free(o);
		o = n;
	}
}

void cfg_tree_free(struct cfg_tree *t)
{
	if (!t)
		return;
	cfg_obj_free(t->objs);
	cfg_stmt_free(t->script);
	for (int i = 0; i < t->n_files; i++)
		free(t->files[i]);
	free(t->files);
	free(t);
}

/* ---- parsing ---- */

static struct cfg_tree *parse_begin(void)
{
	struct cfg_tree *t = sl_xcalloc(1, sizeof(*t));
	memset(&cfg_pc, 0, sizeof(cfg_pc));
	cfg_pc.tree = t;
	cfg_pc.objs_tail = &t->objs;
	cfg_pc.top_tail = &t->script;
	return t;
}

static struct cfg_tree *parse_end(struct cfg_tree *t, int *n_errors)
{
	if (cfg_yyparse() != 0 && cfg_pc.n_errors == 0)
		cfg_pc.n_errors = 1;
	cfg_lex_cleanup();
	if (n_errors)
		*n_errors = cfg_pc.n_errors;
	if (cfg_pc.n_errors) {
		cfg_tree_free(t);
		t = NULL;
	}
	memset(&cfg_pc, 0, sizeof(cfg_pc));
	return t;
}

struct cfg_tree *cfg_parse_string(const char *text, const char *name, int *n_errors)
{
	struct cfg_tree *t = parse_begin();
	cfg_lex_push_text(text, strlen(text), name);
	return parse_end(t, n_errors);
}

struct cfg_tree *cfg_parse_file(const char *path, int *n_errors)
{
	struct cfg_tree *t = parse_begin();
	if (cfg_lex_push_file(path, NULL) != 0) {
		struct cfg_pos p = { path, 0 };
		fprintf(stderr, "%s: cannot read configuration file: %m\n", p.file);
		cfg_tree_free(t);
		memset(&cfg_pc, 0, sizeof(cfg_pc));
		if (n_errors)
			*n_errors = 1;
		return NULL;
	}
	return parse_end(t, n_errors);
}

/* ---- selectors ---- */

static const struct { const char *name; int val; } fac_names[] = {
	{ "kern", 0 }, { "user", 1 }, { "mail", 2 }, { "daemon", 3 }, { "auth", 4 },
	{ "security", 4 }, { "syslog", 5 }, { "lpr", 6 }, { "news", 7 }, { "uucp", 8 },
	{ "cron", 9 }, { "authpriv", 10 }, { "ftp", 11 }, { "ntp", 12 }, { "audit", 13 },
	{ "alert", 14 }, { "clock", 15 }, { "local0", 16 }, { "local1", 17 }, { "local2", 18 },
	{ "local3", 19 }, { "local4", 20 }, { "local5", 21 }, { "local6", 22 }, { "local7", 23 },
	{ "invld", 24 },
};
static const struct { const char *name; int val; } sev_names[] = {
	{ "emerg", 0 }, { "panic", 0 }, { "alert", 1 }, { "crit", 2 }, { "err", 3 },
	{ "error", 3 }, { "warning", 4 }, { "warn", 4 }, { "notice", 5 }, { "info", 6 },
	{ "debug", 7 },
};

static int lookup_num(const char *s, size_t l, int max)
{
	if (l == 0 || l > 3)
		return -1;
	int v = 0;
	for (size_t i = 0; i < l; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= max ? v : -1;
}

enum { SEV_ALL = 100, SEV_NONE = 101 };

/* As rsyslog 8.2302's DecodePRIFilter (checked with rsyslogd, see
 * tests/diff/configs/prifilt_negate.conf): the mask starts empty and each
 * ';' part changes it in order, so "X.!sev" alone removes from nothing and
 * selects nothing; "*.*;local0.!warning" is everything but local0 at
 * warning and above; "X.!=sev" clears one bit; "X.!*" clears X;
 * "X.!none" selects all of X. */
bool cfg_decode_prifilt(const char *sel, uint8_t mask[25], char *err, size_t errsz)
{
	memset(mask, 0, 25);
	const char *p = sel;
	while (*p) {
		const char *end = p + strcspn(p, ";");
		const char *dot = NULL;
		for (const char *q = end; q > p; q--)
			if (q[-1] == '.') {
				dot = q - 1;
				break;
			}
		if (!dot) {
			snprintf(err, errsz, "invalid selector '%.*s': expected FACILITY.SEVERITY",
				 (int)(end - p), p);
			return false;
		}
		/* severity */
		const char *s = dot + 1;
		bool negate = false, single = false;
		if (*s == '!') {
			negate = true;
			s++;
		}
		if (*s == '=') {
			single = true;
			s++;
		}
		size_t sl = (size_t)(end - s);
		int sev = -1;
		if (sl == 1 && *s == '*')
			sev = SEV_ALL;
		else if (sl == 4 && !strncasecmp(s, "none", 4))
			sev = SEV_NONE;
		else {
			for (size_t i = 0; i < SL_ARRAY_SIZE(sev_names); i++)
				if (strlen(sev_names[i].name) == sl && !strncasecmp(s, sev_names[i].name, sl))
					sev = sev_names[i].val;
			if (sev < 0)
				sev = lookup_num(s, sl, 7);
		}
		if (sev < 0) {
			snprintf(err, errsz, "unknown severity '%.*s' in selector '%s'", (int)sl, s, sel);
			return false;
		}
		/* facilities */
		const char *f = p;
		while (f < dot) {
			const char *fe = f;
			while (fe < dot && *fe != ',')
				fe++;
			size_t fl = (size_t)(fe - f);
			int lo, hi;
			if (fl == 1 && *f == '*') {
				lo = 0;
				hi = 24;
			} else {
				int fac = -1;
				for (size_t i = 0; i < SL_ARRAY_SIZE(fac_names); i++)
					if (strlen(fac_names[i].name) == fl && !strncasecmp(f, fac_names[i].name, fl))
						fac = fac_names[i].val;
				if (fac < 0)
					fac = lookup_num(f, fl, 23);
				if (fac < 0) {
					snprintf(err, errsz, "unknown facility '%.*s' in selector '%s'",
						 (int)fl, f, sel);
					return false;
				}
				lo = hi = fac;
			}
			for (int i = lo; i <= hi; i++) {
				if (sev == SEV_NONE) {
					/* rsyslog: "!none" selects every severity */
					mask[i] = negate ? 0xff : 0;
				} else if (sev == SEV_ALL) {
					mask[i] = negate ? 0 : 0xff;
				} else if (single) {
					if (negate)
						mask[i] &= (uint8_t)~(1u << sev);
					else
						mask[i] |= (uint8_t)(1u << sev);
				} else {
					for (int j = 0; j <= sev; j++) {
						if (negate)
							mask[i] &= (uint8_t)~(1u << j);
						else
							mask[i] |= (uint8_t)(1u << j);
					}
				}
			}
			f = fe < dot ? fe + 1 : fe;
		}
		p = *end ? end + 1 : end;
	}
	return true;
}

/* Levenshtein distance, case-insensitive, capped (words are short). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	size_t prev[65], cur[65];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(size_t) * (lb + 1));
	}
	return prev[lb];
}

const char *cfg_closest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t best_d = 3, wl = strlen(word);
	for (size_t i = 0; i < n; i++) {
		if (!cands[i])
			continue;
		size_t d = edit_distance(word, cands[i]);
		if (d < best_d && d * 3 <= wl + 1) {
			best = cands[i];
			best_d = d;
		}
	}
	return best;
}
