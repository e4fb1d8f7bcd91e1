/* param.c — the generic parameter layer: turns the parameters of a
 * configuration object (module(), input(), action(), ...) into a module's
 * config struct, driven by the module's parameter table.
 *
 * Value syntax follows rsyslog 8.2302 (grammar/rainerscript.c nvlstGetParam
 * and libestr's es_str2num), checked against the installed rsyslogd:
 *   INT      decimal, "-" decimal, "0x" hex, leading-0 octal; nothing else
 *   SIZE     digits with at most one suffix: k m g t p e multiply by powers
 *            of 1024, K M G T P E by powers of 1000 ("4k" = 4096,
 *            "4K" = 4000, "4kb" is an error)
 *   BINARY   exactly "on" or "off" (case-sensitive; "yes", "On" are errors)
 *   FILEMODE 4- or 5-digit octal starting with '0' ("0644"); like rsyslog,
 *            longer strings are accepted and only the first 4 digits count
 *   WORD, TEMPLATE  a string without white space
 *   UID/GID  a user/group name, or (sluice extension) a number
 *   ARRAY    ["a", "b"] or a single string (an array of one)
 * A bad value is an error of the object; the field keeps its default.
 *
 * Threading: configuration load only (main thread); no shared state.
 */
#include "module.h"
#include "ast.h"
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- value parsers ---- */

static bool parse_digits(const char *s, int base, int64_t *out)
{
	uint64_t v = 0;
	if (*s == '\0')
		return false;
	for (; *s; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return false;
		if (d >= base)
			return false;
		if (v > ((uint64_t)INT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false; /* overflow */
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = (int64_t)v;
	return true;
}

/* es_str2num semantics: "-" decimal, "0x" hex, "0" octal, else decimal. */
bool param_value_int(const char *s, int64_t *out)
{
	int64_t v;
	if (s == NULL || *s == '\0')
		return false;
	if (s[0] == '-') {
		if (!parse_digits(s + 1, 10, &v))
			return false;
		*out = -v;
		return true;
	}
	if (s[0] == '0') {
		if (s[1] == 'x')
			return parse_digits(s + 2, 16, out);
		return parse_digits(s, 8, out);
	}
	return parse_digits(s, 10, out);
}

bool param_value_size(const char *s, int64_t *out)
{
	uint64_t n = 0, mult = 1;
	const char *p = s;
	if (s == NULL || !isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		if (n > (uint64_t)INT64_MAX / 10)
			return false;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (*p != '\0') {
		switch (*p) {
		case 'k': mult = 1024ULL; break;
		case 'm': mult = 1024ULL * 1024; break;
		case 'g': mult = 1024ULL * 1024 * 1024; break;
		case 't': mult = 1024ULL * 1024 * 1024 * 1024; break;
		case 'p': mult = 1024ULL * 1024 * 1024 * 1024 * 1024; break;
		case 'e': mult = 1024ULL * 1024 * 1024 * 1024 * 1024 * 1024; break;
		case 'K': mult = 1000ULL; break;
		case 'M': mult = 1000000ULL; break;
		case 'G': mult = 1000000000ULL; break;
		case 'T': mult = 1000000000000ULL; break;
		case 'P': mult = 1000000000000000ULL; break;
		case 'E': mult = 1000000000000000000ULL; break;
		default: return false;
		}
		if (p[1] != '\0')
			return false;
	}
	if (n != 0 && mult > (uint64_t)INT64_MAX / n)
		return false;
	*out = (int64_t)(n * mult);
	return true;
}

bool param_value_bool(const char *s, bool *out)
{
	if (s == NULL)
		return false;
	if (strcmp(s, "on") == 0) {
		*out = true;
		return true;
	}
	if (strcmp(s, "off") == 0) {
		*out = false;
		return true;
	}
	return false;
}

static bool value_filemode(const char *s, int *out)
{
	size_t len = strlen(s);
	if (len < 4 || s[0] != '0')
		return false;
	for (int i = 1; i < 4; i++)
		if (s[i] < '0' || s[i] > '7')
			return false;
	int v = (s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0');
	if (len == 5) {
		if (s[4] < '0' || s[4] > '7')
			return false;
		v = v * 8 + (s[4] - '0');
	}
	*out = v;
	return true;
}

static bool has_space(const char *s)
{
	for (; *s; s++)
		if (isspace((unsigned char)*s))
			return true;
	return false;
}

static bool value_id(const char *s, bool user, int *out)
{
	char buf[4096];
	int64_t n;
	if (user) {
		struct passwd pw, *res = NULL;
		if (getpwnam_r(s, &pw, buf, sizeof(buf), &res) == 0 && res) {
			*out = (int)res->pw_uid;
			return true;
		}
	} else {
		struct group gr, *res = NULL;
		if (getgrnam_r(s, &gr, buf, sizeof(buf), &res) == 0 && res) {
			*out = (int)res->gr_gid;
			return true;
		}
	}
	/* "-1" is accepted too: it is how tables say "not set". */
	if (param_value_int(s, &n) && n >= -1 && n <= INT32_MAX) {
		*out = (int)n;
		return true;
	}
	return false;
}

/* ---- fields ---- */

static void *field(void *cfg, const struct param_desc *d)
{
	return (char *)cfg + d->offset;
}

static void free_field(void *cfg, const struct param_desc *d)
{
	switch (d->type) {
	case PARAM_STRING:
	case PARAM_TEMPLATE:
	case PARAM_RULESET:
	case PARAM_WORD: {
		char **sp = field(cfg, d);
		free(*sp);
		*sp = NULL;
		break;
	}
	case PARAM_ARRAY: {
		struct param_array *a = field(cfg, d);
		for (int i = 0; i < a->n; i++)
			free(a->v[i]);
		free(a->v);
		a->v = NULL;
		a->n = 0;
		break;
	}
	default:
		break;
	}
}

/* Store a value into the field of `d`. `arr`/`n_arr` are used for arrays
 * given as arrays; otherwise `s`. On error, reports at `pos` (if given)
 * and leaves the field unchanged. */
static bool set_field(void *cfg, const struct param_desc *d, const char *s,
		      char *const *arr, int n_arr, const struct cfg_pos *pos)
{
	int64_t i64;
	bool b;
	int iv;

	if (arr && d->type != PARAM_ARRAY) {
		if (pos)
			cfg_error(pos, "parameter '%s' must be a single value, not an array",
				  d->name);
		return false;
	}
	switch (d->type) {
	case PARAM_STRING:
	case PARAM_RULESET:
		free_field(cfg, d);
		*(char **)field(cfg, d) = sl_xstrdup(s);
		return true;
	case PARAM_WORD:
	case PARAM_TEMPLATE:
		if (has_space(s)) {
			if (pos)
				cfg_error(pos, "parameter '%s' contains whitespace, which is not permitted",
					  d->name);
			return false;
		}
		free_field(cfg, d);
		*(char **)field(cfg, d) = sl_xstrdup(s);
		return true;
	case PARAM_INT:
		if (!param_value_int(s, &i64)) {
			if (pos)
				cfg_error(pos, "parameter '%s' is not a proper number: '%s'", d->name, s);
			return false;
		}
		*(int64_t *)field(cfg, d) = i64;
		return true;
	case PARAM_SIZE:
		if (!param_value_size(s, &i64)) {
			if (pos)
				cfg_error(pos, "parameter '%s' does not contain a valid size: '%s' "
					  "(digits with an optional k/m/g (x1024) or K/M/G (x1000))",
					  d->name, s);
			return false;
		}
		*(int64_t *)field(cfg, d) = i64;
		return true;
	case PARAM_BINARY:
		if (!param_value_bool(s, &b)) {
			if (pos)
				cfg_error(pos, "parameter '%s' must be \"on\" or \"off\" but is '%s'",
					  d->name, s);
			return false;
		}
		*(bool *)field(cfg, d) = b;
		return true;
	case PARAM_FILEMODE:
		if (!value_filemode(s, &iv)) {
			if (pos)
				cfg_error(pos, "file modes need to be specified as 4- or 5-digit octal "
					  "numbers starting with '0' - parameter '%s=\"%s\"' is not a "
					  "file mode", d->name, s);
			return false;
		}
		*(int *)field(cfg, d) = iv;
		return true;
	case PARAM_UID:
	case PARAM_GID:
		if (!value_id(s, d->type == PARAM_UID, &iv)) {
			if (pos)
				cfg_error(pos, "parameter '%s': ID for %s '%s' could not be found",
					  d->name, d->type == PARAM_UID ? "user" : "group", s);
			return false;
		}
		*(int *)field(cfg, d) = iv;
		return true;
	case PARAM_ARRAY: {
		struct param_array *a = field(cfg, d);
		free_field(cfg, d);
		if (arr) {
			a->v = sl_xcalloc((size_t)n_arr + 1, sizeof(char *));
			for (int k = 0; k < n_arr; k++)
				a->v[k] = sl_xstrdup(arr[k]);
			a->n = n_arr;
		} else {
			a->v = sl_xcalloc(2, sizeof(char *));
			a->v[0] = sl_xstrdup(s);
			a->n = 1;
		}
		return true;
	}
	}
	return false;
}

void *param_defaults(const struct param_table *t)
{
	void *cfg = sl_xcalloc(1, t->struct_size ? t->struct_size : 1);
	for (size_t i = 0; i < t->n; i++) {
		const struct param_desc *d = &t->params[i];
		if (d->dflt == NULL)
			continue;
		if (!set_field(cfg, d, d->dflt, NULL, 0, NULL))
			sl_err("internal error: default '%s' of parameter '%s' is not valid",
			       d->dflt, d->name);
	}
	return cfg;
}

void param_free(const struct param_table *t, void *cfg)
{
	if (cfg == NULL)
		return;
	for (size_t i = 0; i < t->n; i++)
		free_field(cfg, &t->params[i]);
	free(cfg);
}

/* ---- matching and suggestions ---- */

static bool skipped(const char *name, const char *const *skip)
{
	if (skip == NULL)
		return false;
	for (; *skip; skip++) {
		size_t l = strlen(*skip);
		if (l && (*skip)[l - 1] == '*') {
			if (strncasecmp(name, *skip, l - 1) == 0)
				return true;
		} else if (strcasecmp(name, *skip) == 0) {
			return true;
		}
	}
	return false;
}

/* Case-insensitive Levenshtein distance, capped (names are short). */
static int edit_distance(const char *a, const char *b)
{
	enum { MAXL = 64 };
	size_t la = strlen(a), lb = strlen(b);
	int row[MAXL + 1];
	if (la > MAXL || lb > MAXL)
		return 1000;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int prev = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int cur = row[j];
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int v = prev + cost;
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			prev = cur;
		}
	}
	return row[lb];
}

static const char *closest_name(const struct param_table *t, const char *name)
{
	const char *best = NULL;
	int best_d = 1000;
	size_t len = strlen(name);
	int limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
	for (size_t i = 0; i < t->n; i++) {
		const struct param_desc *d = &t->params[i];
		if (d->flags & PARAM_LEGACY)
			continue;
		int dist = edit_distance(name, d->name);
		if (dist < best_d) {
			best_d = dist;
			best = d->name;
		}
	}
	return best_d <= limit ? best : NULL;
}

/* What the object is, for error messages: the module name for module(),
 * input() and action(), else the object kind. */
static void obj_label(const struct cfg_obj *o, char *buf, size_t size)
{
	const char *key = o->type == CFG_OBJ_MODULE ? "load" : "type";
	for (const struct cfg_param *p = o->params; p; p = p->next) {
		if (strcasecmp(p->name, key) == 0 && !p->val.is_array && p->val.str) {
			const char *s = p->val.str;
			if (strncasecmp(s, "builtin:", 8) == 0)
				s += 8;
			const char *slash = strrchr(s, '/');
			if (slash)
				s = slash + 1;
			snprintf(buf, size, "%s", s);
			size_t l = strlen(buf);
			if (l > 3 && strcmp(buf + l - 3, ".so") == 0)
				buf[l - 3] = '\0';
			return;
		}
	}
	static const char *const kinds[] = {
		[CFG_OBJ_GLOBAL] = "global", [CFG_OBJ_MODULE] = "module",
		[CFG_OBJ_INPUT] = "input", [CFG_OBJ_ACTION] = "action",
		[CFG_OBJ_TEMPLATE] = "template", [CFG_OBJ_RULESET] = "ruleset",
		[CFG_OBJ_MAIN_QUEUE] = "main_queue", [CFG_OBJ_PROPERTY] = "property",
		[CFG_OBJ_CONSTANT] = "constant", [CFG_OBJ_TIMEZONE] = "timezone",
		[CFG_OBJ_PARSER] = "parser", [CFG_OBJ_LOOKUP_TABLE] = "lookup_table",
		[CFG_OBJ_DYN_STATS] = "dyn_stats", [CFG_OBJ_LEGACY] = "legacy directive",
	};
	const char *k = (unsigned)o->type < SL_ARRAY_SIZE(kinds) && kinds[o->type]
		? kinds[o->type] : "object";
	snprintf(buf, size, "%s", k);
}

void *param_parse(const struct param_table *t, struct cfg_obj *o,
		  const char *const *skip, int *n_errors)
{
	void *cfg = param_defaults(t);
	bool *seen = sl_xcalloc(t->n + 1, sizeof(bool));
	char label[96];
	int errs = 0;

	obj_label(o, label, sizeof(label));
	for (struct cfg_param *p = o->params; p; p = p->next) {
		if (skipped(p->name, skip))
			continue;
		const struct param_desc *d = NULL;
		size_t idx = 0;
		for (size_t i = 0; i < t->n; i++) {
			if ((t->params[i].flags & PARAM_LEGACY) && o->type != CFG_OBJ_LEGACY)
				continue;
			if (strcasecmp(p->name, t->params[i].name) == 0) {
				d = &t->params[i];
				idx = i;
				break;
			}
		}
		if (d == NULL) {
			if (p->used) /* consumed by the caller */
				continue;
			const char *sugg = closest_name(t, p->name);
			if (sugg)
				cfg_error(&p->pos, "parameter '%s' is not known for %s; did you mean '%s'?",
					  p->name, label, sugg);
			else
				cfg_error(&p->pos, "parameter '%s' is not known for %s", p->name, label);
			errs++;
			continue;
		}
		p->used = true;
		if (seen[idx]) {
			cfg_error(&p->pos, "parameter '%s' specified more than once for %s",
				  d->name, label);
			errs++;
			continue;
		}
		seen[idx] = true;
		if (d->flags & PARAM_DEPRECATED)
			cfg_warn(&p->pos, "parameter '%s' is deprecated but accepted; consider "
				 "removing or replacing it", d->name);
		if (!set_field(cfg, d, p->val.str ? p->val.str : "",
			       p->val.is_array ? p->val.arr : NULL, p->val.n_arr, &p->pos))
			errs++;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct param_desc *d = &t->params[i];
		if ((d->flags & PARAM_REQUIRED) && !seen[i]) {
			cfg_error(&o->pos, "parameter '%s' required but not specified for %s",
				  d->name, label);
			errs++;
		}
	}
	free(seen);
	if (n_errors)
		*n_errors += errs;
	return cfg;
}
