/* template_parse.c — compiling templates: template() objects (string,
 * list, subtree, plugin; options sql/stdsql/json/jsonf/casesensitive),
 * legacy `$template` lines, the property-replacer syntax
 * (%name:from:to:options%) and list property() parameters, and the
 * built-in templates; the registry of templates by name.
 *
 * Threading: main thread only, at config load and exit; the compiled
 * templates are read-only afterwards (see template.c for rendering).
 */
#include "template.h"
#include "template_int.h"
#include "prop.h"
#include "msg.h"
#include "datetime.h"
#include "ast.h"
#include "log.h"
#include "script.h"
#include <ctype.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <libestr.h>
#include <json.h>

struct template *tpl_list;

/* ------------------------------------------------------- compiling */

static struct tpl_step *add_step(struct template *t)
{
	t->steps = sl_xrealloc(t->steps, sizeof(*t->steps) * (size_t)(t->n_steps + 1));
	struct tpl_step *s = &t->steps[t->n_steps++];
	memset(s, 0, sizeof(*s));
	s->field_delim = 9;
	return s;
}

static void add_const(struct template *t, const char *p, size_t n)
{
	if (n == 0)
		return;
	struct tpl_step *s = add_step(t);
	s->kind = STEP_CONST;
	/* not strndup: a legacy "\0" escape puts a NUL into the constant,
	 * which rsyslog writes out as part of it */
	s->cst = sl_xmalloc(n + 1);
	memcpy(s->cst, p, n);
	s->cst[n] = '\0';
	s->cst_len = n;
}

static void lower_str(char *p)
{
	for (; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

static bool set_format(struct tpl_step *s, uint8_t f, const struct cfg_pos *pos, const char *what)
{
	if (s->format != FMT_NONE) {
		cfg_warn(pos, "can only specify one option out of (json, jsonf, jsonr, jsonfr, csv)"
			 " - %s ignored", what);
		return false;
	}
	s->format = f;
	return true;
}

static const struct { const char *name; uint8_t fmt; } date_opts[] = {
	{ "mysql", TPL_DF_MYSQL }, { "pgsql", TPL_DF_PGSQL }, { "rfc3164", TPL_DF_RFC3164 },
	{ "rfc3164-buggyday", TPL_DF_RFC3164_BUGGY }, { "rfc3339", TPL_DF_RFC3339 },
	{ "unixtimestamp", TPL_DF_UNIX }, { "subseconds", TPL_DF_SECFRAC },
	{ "wdayname", TPL_DF_WDAYNAME }, { "wday", TPL_DF_WDAY }, { "year", TPL_DF_YEAR },
	{ "month", TPL_DF_MONTH }, { "day", TPL_DF_DAY }, { "hour", TPL_DF_HOUR },
	{ "minute", TPL_DF_MINUTE }, { "second", TPL_DF_SECOND },
	{ "tzoffshour", TPL_DF_TZOFFSHOUR }, { "tzoffsmin", TPL_DF_TZOFFSMIN },
	{ "tzoffsdirection", TPL_DF_TZOFFSDIR }, { "ordinal", TPL_DF_ORDINAL },
	{ "week", TPL_DF_WEEK },
};

static int date_fmt_by_name(const char *n)
{
	for (size_t i = 0; i < SL_ARRAY_SIZE(date_opts); i++)
		if (strcmp(date_opts[i].name, n) == 0)
			return date_opts[i].fmt;
	return -1;
}

/* The options after the second ':' of %prop:from:to:options% */
static void parse_options(const char **pp, struct tpl_step *s, const struct cfg_pos *pos)
{
	const char *p = *pp;
	while (*p && *p != '%' && *p != ':') {
		char b[64];
		size_t i = 0;
		while (i < sizeof(b) - 1 && *p && *p != '%' && *p != ':' && *p != ',')
			b[i++] = (char)tolower((unsigned char)*p++);
		b[i] = '\0';
		while (*p && *p != '%' && *p != ':' && *p != ',')
			p++;
		if (*p == ',')
			p++;
		int df;
		if (strncmp(b, "date-", 5) == 0 && (df = date_fmt_by_name(b + 5)) >= 0)
			s->datefmt = (uint8_t)df;
		else if (!strcmp(b, "date-utc")) s->date_utc = true;
		else if (!strcmp(b, "lowercase")) s->caseconv = 1;
		else if (!strcmp(b, "uppercase")) s->caseconv = 2;
		else if (!strcmp(b, "sp-if-no-1st-sp")) s->spif = true;
		else if (!strcmp(b, "compressspace")) s->compress = true;
		else if (!strcmp(b, "escape-cc")) s->cc = s->cc ? s->cc : CC_ESCAPE;
		else if (!strcmp(b, "drop-cc")) s->cc = CC_DROP;
		else if (!strcmp(b, "space-cc")) s->cc = s->cc == CC_DROP ? CC_DROP : CC_SPACE;
		else if (!strcmp(b, "drop-last-lf")) s->droplf = true;
		else if (!strcmp(b, "secpath-drop")) s->secpath = 1;
		else if (!strcmp(b, "secpath-replace")) s->secpath = s->secpath ? s->secpath : 2;
		else if (!strcmp(b, "pos-end-relative")) s->rel_end = true;
		else if (!strcmp(b, "fixed-width")) s->fixed_width = true;
		else if (!strcmp(b, "csv")) set_format(s, FMT_CSV, pos, b);
		else if (!strcmp(b, "json")) set_format(s, FMT_JSON, pos, b);
		else if (!strcmp(b, "jsonf")) set_format(s, FMT_JSONF, pos, b);
		else if (!strcmp(b, "jsonr")) set_format(s, FMT_JSONR, pos, b);
		else if (!strcmp(b, "jsonfr")) set_format(s, FMT_JSONFR, pos, b);
		else if (!strcmp(b, "mandatory-field")) s->mandatory = true;
		else
			cfg_warn(pos, "template error: invalid field option '%s' specified - ignored", b);
	}
	*pp = p;
}

/* A decimal number of a replacer option; saturates at INT_MAX (rsyslog's
 * int overflows there) and consumes all the digits. */
static int read_num(const char **pp)
{
	int n = 0;
	while (isdigit((unsigned char)**pp)) {
		int d = *(*pp)++ - '0';
		n = n > (INT_MAX - d) / 10 ? INT_MAX : n * 10 + d;
	}
	return n;
}

static bool compile_regex(struct tpl_step *s, const char *re, bool ere)
{
	if (regcomp(&s->re, re, ere ? REG_EXTENDED : 0) != 0) {
		s->has_regex = 2;
		return false;
	}
	s->has_regex = 1;
	if (ere)
		s->re_pcre = script_regex_pcre_submatch(re);
	return true;
}

/* One %...% parameter; *pp is just after the opening '%'. */
static enum sl_rc parse_param(const char **pp, struct template *t, const struct cfg_pos *pos)
{
	const char *p = *pp;
	const char *name = p;
	while (*p && *p != '%' && *p != ':')
		p++;
	size_t name_len = (size_t)(p - name);
	struct tpl_step *s = add_step(t);
	s->kind = STEP_PROP;
	if (!prop_ref_parse(name, name_len, &s->ref)) {
		cfg_error(pos, "invalid property '%.*s'", (int)name_len, name);
		return SL_ERR_CONFIG;
	}
	bool ere = false;
	if (*p == ':') {
		p++;
		if (*p == 'R') {
			p++;
			if (*p == ',') {
				p++;
				if (!strncmp(p, "BRE", 3) && (p[3] == ',' || p[3] == ':')) {
					p += 3;
				} else if (!strncmp(p, "ERE", 3) && (p[3] == ',' || p[3] == ':')) {
					ere = true;
					p += 3;
				} else {
					cfg_warn(pos, "invalid regular expression type, rest of line %s", p);
				}
			}
			if (*p == ',') {
				p++;
				if (isdigit((unsigned char)*p))
					s->re_submatch = *p++ - '0';
			}
			if (*p == ',') {
				p++;
				if (!strncmp(p, "DFLT", 4) && (p[4] == ',' || p[4] == ':')) {
					s->nomatch = NM_DFLT; p += 4;
				} else if (!strncmp(p, "BLANK", 5) && (p[5] == ',' || p[5] == ':')) {
					s->nomatch = NM_BLANK; p += 5;
				} else if (!strncmp(p, "FIELD", 5) && (p[5] == ',' || p[5] == ':')) {
					s->nomatch = NM_FIELD; p += 5;
				} else if (!strncmp(p, "ZERO", 4) && (p[4] == ',' || p[4] == ':')) {
					s->nomatch = NM_ZERO; p += 4;
				} else if (*p != ',') {
					cfg_warn(pos, "invalid regular expression type, rest of line %s", p);
				}
			}
			if (*p == ',') {
				p++;
				if (isdigit((unsigned char)*p))
					s->re_match = *p++ - '0';
			}
			if (*p != ':')
				cfg_warn(pos, "invalid character in frompos after \"R\", property: '%%%s'", *pp);
			else
				s->has_regex = 1;
		} else if (*p == 'F') {
			p++;
			s->has_field = true;
			if (*p == ',') {
				p++;
				if (!isdigit((unsigned char)*p)) {
					cfg_warn(pos, "invalid character in frompos after \"F,\" - using 9 (HT) as field delimiter");
				} else {
					int d = read_num(&p);
					s->field_delim = (unsigned char)(d > 255 ? 9 : d);
					if (*p == '+') {
						s->field_expand = true;
						p++;
					}
					if (*p == ',') {
						p++;
						s->from = read_num(&p);
					} else if (*p != ':') {
						cfg_error(pos, "error: invalid character '%c' in frompos after \"F,\", be sure to use DECIMAL character codes!", *p);
						return SL_ERR_CONFIG;
					}
				}
			} else if (*p != ':') {
				cfg_warn(pos, "invalid character in frompos after \"F\"");
			}
		} else {
			s->from = read_num(&p);
			while (*p && *p != '%' && *p != ':')
				p++;
		}
	}
	if (*p == ':') {
		p++;
		if (s->has_regex) {
			const char *e = strstr(p, "--end");
			if (!e) {
				s->has_regex = 0;
			} else {
				char *re = sl_xstrndup(p, (size_t)(e - p));
				compile_regex(s, re, ere);
				free(re);
				p = e + 5;
			}
		} else if (*p == '$') {
			p++;
			s->to = 9999999;
		} else {
			if (s->has_field) {
				s->field_nr = read_num(&p);
				if (*p == ',') {
					p++;
					s->to = read_num(&p);
				}
			} else {
				s->to = read_num(&p);
			}
			while (*p && *p != '%' && *p != ':')
				p++;
		}
	}
	if (*p == ':') {
		p++;
		parse_options(&p, s, pos);
	}
	if (s->rel_end ? s->to > s->from : s->to < s->from) {
		int x = s->to;
		s->to = s->from;
		s->from = x;
	}
	const char *fname = NULL;
	size_t fname_len = 0;
	if (*p == ':') {
		p++;
		fname = p;
		while (*p && *p != ':' && *p != '%')
			p++;
		fname_len = (size_t)(p - fname);
	}
	if (fname) {
		s->outname = sl_xstrndup(fname, fname_len);
	} else if (s->ref.id == PROP_CEE || s->ref.id == PROP_LOCAL_VAR) {
		s->outname = sl_xstrndup(name + 2, name_len - 2);
	} else {
		s->outname = sl_xstrndup(name, name_len);
	}
	s->outname_len = strlen(s->outname);
	if (*p)
		p++;   /* the closing '%' */
	*pp = p;
	return SL_OK;
}

/* Parse a template string. Legacy `$template` strings (`legacy`) process
 * backslash escapes and end at an unescaped '"'; RainerScript strings
 * arrive with escapes already processed. */
static enum sl_rc parse_string(struct template *t, const char **pp, bool legacy,
			       const struct cfg_pos *pos)
{
	const char *p = *pp;
	struct sbuf c = SBUF_INIT;
	enum sl_rc rc = SL_OK;
	while (*p && !(legacy && *p == '"')) {
		if (*p == '%') {
			add_const(t, c.buf, c.len);
			sbuf_reset(&c);
			p++;
			rc = parse_param(&p, t, pos);
			if (rc != SL_OK)
				goto fail;
			continue;
		}
		if (legacy && *p == '\\') {
			p++;
			switch (*p) {
			case '\0': break;
			case 'n': sbuf_putc(&c, '\n'); p++; break;
			case 'r': sbuf_putc(&c, '\r'); p++; break;
			case '\\': sbuf_putc(&c, '\\'); p++; break;
			case '%': sbuf_putc(&c, '%'); p++; break;
			default:
				if (isdigit((unsigned char)*p)) {
					/* rsyslog's int wraps; unsigned does the same
					 * without undefined behaviour */
					unsigned n = 0;
					while (isdigit((unsigned char)*p))
						n = n * 10u + (unsigned)(*p++ - '0');
					sbuf_putc(&c, (char)n);
				} else {
					sbuf_putc(&c, *p++);
				}
				break;
			}
			continue;
		}
		sbuf_putc(&c, *p++);
	}
	add_const(t, c.buf, c.len);
	if (legacy && *p == '"')
		p++;
fail:
	sbuf_free(&c);
	*pp = p;
	return rc;
}

static void apply_case_sensitivity(struct template *t)
{
	if (t->casesensitive)
		return;
	for (int i = 0; i < t->n_steps; i++) {
		struct tpl_step *s = &t->steps[i];
		if (s->kind == STEP_PROP && prop_is_var(s->ref.id)) {
			lower_str(s->ref.path);
			lower_str(s->outname);
		}
	}
}

static void tpl_free(struct template *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n_steps; i++) {
		struct tpl_step *s = &t->steps[i];
		free(s->cst);
		free(s->outname);
		prop_ref_free(&s->ref);
		if (s->has_regex == 1) {
			regfree(&s->re);
			script_regex_pcre_free(s->re_pcre);
		}
	}
	free(t->steps);
	prop_ref_free(&t->subtree);
	free(t->name);
	free(t);
}

static const struct template *find(const char *name)
{
	for (const struct template *t = tpl_list; t; t = t->next)
		if (strcasecmp(t->name, name) == 0)
			return t;
	return NULL;
}

const struct template *tpl_find(const char *name)
{
	return name ? find(name) : NULL;
}

const char *tpl_name(const struct template *t)
{
	return t->name;
}

const char *tpl_suggest(const char *name)
{
	size_t n = 0, i = 0;
	for (const struct template *t = tpl_list; t; t = t->next)
		n++;
	const char **cands = sl_xcalloc(n + 1, sizeof(*cands));
	for (const struct template *t = tpl_list; t; t = t->next)
		if (t->name[0] != ' ')   /* internal templates are not referencable */
			cands[i++] = t->name;
	const char *r = cfg_closest(name, cands, i);
	free(cands);
	return r;
}

static enum sl_rc tpl_register(struct template *t, const struct cfg_pos *pos)
{
	if (find(t->name)) {
		if (pos)
			cfg_error(pos, "template '%s' is defined more than once", t->name);
		tpl_free(t);
		return SL_ERR_CONFIG;
	}
	struct template **pp = &tpl_list;
	while (*pp)
		pp = &(*pp)->next;
	*pp = t;
	return SL_OK;
}

/* ---- template() objects ---- */

static bool param_bool(const struct cfg_param *p)
{
	const char *v = p->val.str ? p->val.str : "";
	return !strcasecmp(v, "on") || !strcasecmp(v, "yes") || !strcmp(v, "1")
	       || !strcasecmp(v, "true");
}

static bool param_int(const struct cfg_param *p, int *out)
{
	char *end;
	const char *v = p->val.str ? p->val.str : "";
	long n = strtol(v, &end, 0);
	if (!*v || *end) {
		cfg_error(&p->pos, "parameter '%s': '%s' is not a number", p->name, v);
		return false;
	}
	*out = (int)n;
	return true;
}

static const char *pstr(const struct cfg_param *p)
{
	return p->val.str ? p->val.str : "";
}

static enum sl_rc bad_value(const struct cfg_param *p, const char *what)
{
	cfg_error(&p->pos, "invalid %s '%s' for property", what, pstr(p));
	return SL_ERR_CONFIG;
}

/* A property() object of a list template. */
static enum sl_rc list_property(struct template *t, struct cfg_obj *o)
{
	struct tpl_step *s = add_step(t);
	int from = -1, to = -1, fieldnum = -1, delim = 9;
	char *re = NULL;
	bool ere = false;
	enum sl_rc rc = SL_ERR_CONFIG;
	const char *name = "";
	s->kind = STEP_PROP;
	for (struct cfg_param *p = o->params; p; p = p->next) {
		const char *n = p->name, *v = pstr(p);
		p->used = true;
		if (!strcmp(n, "name")) {
			name = v;
		} else if (!strcmp(n, "outname")) {
			free(s->outname);
			s->outname = sl_xstrdup(v);
		} else if (!strcmp(n, "droplastlf")) {
			s->droplf = param_bool(p);
		} else if (!strcmp(n, "fixedwidth")) {
			s->fixed_width = param_bool(p);
		} else if (!strcmp(n, "mandatory")) {
			s->mandatory = param_bool(p);
		} else if (!strcmp(n, "spifno1stsp")) {
			s->spif = param_bool(p);
		} else if (!strcmp(n, "compressspace")) {
			s->compress = param_bool(p);
		} else if (!strcmp(n, "date.inutc")) {
			s->date_utc = param_bool(p);
		} else if (!strcmp(n, "position.relativetoend")) {
			s->rel_end = param_bool(p);
		} else if (!strcmp(n, "position.from")) {
			if (!param_int(p, &from)) goto fail;
		} else if (!strcmp(n, "position.to")) {
			if (!param_int(p, &to)) goto fail;
		} else if (!strcmp(n, "field.number")) {
			if (!param_int(p, &fieldnum)) goto fail;
		} else if (!strcmp(n, "field.delimiter")) {
			if (!param_int(p, &delim)) goto fail;
		} else if (!strcmp(n, "regex.expression")) {
			free(re);
			re = sl_xstrdup(v);
		} else if (!strcmp(n, "regex.type")) {
			if (!strcmp(v, "ERE")) ere = true;
			else if (strcmp(v, "BRE")) { bad_value(p, "regex.type"); goto fail; }
		} else if (!strcmp(n, "regex.nomatchmode")) {
			if (!strcmp(v, "DFLT")) s->nomatch = NM_DFLT;
			else if (!strcmp(v, "BLANK")) s->nomatch = NM_BLANK;
			else if (!strcmp(v, "FIELD")) s->nomatch = NM_FIELD;
			else if (!strcmp(v, "ZERO")) s->nomatch = NM_ZERO;
			else { bad_value(p, "format type"); goto fail; }
		} else if (!strcmp(n, "regex.match")) {
			if (!param_int(p, &s->re_match)) goto fail;
		} else if (!strcmp(n, "regex.submatch")) {
			if (!param_int(p, &s->re_submatch)) goto fail;
		} else if (!strcmp(n, "format")) {
			if (!strcmp(v, "csv")) s->format = FMT_CSV;
			else if (!strcmp(v, "json")) s->format = FMT_JSON;
			else if (!strcmp(v, "jsonf")) s->format = FMT_JSONF;
			else if (!strcmp(v, "jsonr")) s->format = FMT_JSONR;
			else if (!strcmp(v, "jsonfr")) s->format = FMT_JSONFR;
			else { bad_value(p, "format type"); goto fail; }
		} else if (!strcmp(n, "controlcharacters")) {
			if (!strcmp(v, "escape")) s->cc = CC_ESCAPE;
			else if (!strcmp(v, "space")) s->cc = CC_SPACE;
			else if (!strcmp(v, "drop")) s->cc = CC_DROP;
			else { bad_value(p, "controlcharacter mode"); goto fail; }
		} else if (!strcmp(n, "securepath")) {
			if (!strcmp(v, "drop")) s->secpath = 1;
			else if (!strcmp(v, "replace")) s->secpath = 2;
			else { bad_value(p, "securepath mode"); goto fail; }
		} else if (!strcmp(n, "caseconversion")) {
			if (!strcmp(v, "lower")) s->caseconv = 1;
			else if (!strcmp(v, "upper")) s->caseconv = 2;
			else { bad_value(p, "caseconversion type"); goto fail; }
		} else if (!strcmp(n, "dateformat")) {
			int df = date_fmt_by_name(v);
			if (df < 0) { bad_value(p, "date format"); goto fail; }
			s->datefmt = (uint8_t)df;
		} else if (!strcmp(n, "datatype")) {
			if (!strcmp(v, "string")) s->dtype = DT_STRING;
			else if (!strcmp(v, "number")) s->dtype = DT_NUMBER;
			else if (!strcmp(v, "bool")) s->dtype = DT_BOOL;
			else if (!strcmp(v, "auto")) s->dtype = DT_AUTO;
			else { bad_value(p, "datatype"); goto fail; }
		} else if (!strcmp(n, "onempty")) {
			if (!strcmp(v, "keep")) s->onempty = EMPTY_KEEP;
			else if (!strcmp(v, "skip")) s->onempty = EMPTY_SKIP;
			else if (!strcmp(v, "null")) s->onempty = EMPTY_NULL;
			else { bad_value(p, "onEmpty mode"); goto fail; }
		} else {
			cfg_error(&p->pos, "parameter '%s' not known for property()", n);
			goto fail;
		}
	}
	if (!prop_ref_parse(name, strlen(name), &s->ref)) {
		cfg_error(&o->pos, "invalid property '%s'", name);
		goto fail;
	}
	if (!s->outname)
		s->outname = sl_xstrdup(strncmp(name, "$!", 2) == 0 ? name + 2 : name);
	s->outname_len = strlen(s->outname);
	if (to == -1 && from != -1)
		to = 2000000000;
	if (from == -1 && to != -1)
		from = 0;
	if (s->rel_end ? to > from : to < from) {
		cfg_error(&o->pos, s->rel_end ? "position.to=%d is higher than postion.from=%d in 'relativeToEnd' mode"
			  : "position.to=%d is lower than postion.from=%d", to, from);
		goto fail;
	}
	if (fieldnum != -1 && re) {
		cfg_error(&o->pos, "both field extraction and regex extraction specified - this is not possible, remove one");
		goto fail;
	}
	if (fieldnum != -1) {
		s->has_field = true;
		s->field_nr = fieldnum;
		s->field_delim = (unsigned char)delim;
	}
	if (from != -1) {
		s->from = from;
		s->to = to;
	}
	if (re && !compile_regex(s, re, ere)) {
		cfg_error(&o->pos, "error compiling regex '%s'", re);
		goto fail;
	}
	rc = SL_OK;
fail:
	free(re);
	return rc;
}

/* A constant() object: its value is unescaped once more, as rsyslog does. */
static enum sl_rc list_constant(struct template *t, struct cfg_obj *o)
{
	const char *value = NULL, *outname = NULL;
	bool jsonf = false;
	for (struct cfg_param *p = o->params; p; p = p->next) {
		p->used = true;
		if (!strcmp(p->name, "value")) {
			value = pstr(p);
		} else if (!strcmp(p->name, "outname")) {
			outname = pstr(p);
		} else if (!strcmp(p->name, "format")) {
			if (strcmp(pstr(p), "jsonf")) {
				cfg_error(&p->pos, "invalid format type '%s' for constant", pstr(p));
				return SL_ERR_CONFIG;
			}
			jsonf = true;
		} else {
			cfg_error(&p->pos, "parameter '%s' not known for constant()", p->name);
			return SL_ERR_CONFIG;
		}
	}
	if (!value) {
		cfg_error(&o->pos, "constant() needs parameter 'value'");
		return SL_ERR_CONFIG;
	}
	if (jsonf && !outname) {
		cfg_error(&o->pos, "constant set to format jsonf, but outname not specified - aborting");
		return SL_ERR_CONFIG;
	}
	es_str_t *es = es_newStrFromCStr(value, strlen(value));
	if (!es)
		return SL_ERR_NOMEM;
	es_unescapeStr(es);
	char *v = es_str2cstr(es, NULL);
	size_t vlen = es_strlen(es);
	es_deleteStr(es);
	struct tpl_step *s = add_step(t);
	s->kind = STEP_CONST;
	if (jsonf) {
		/* rsyslog: the spaced JSON of {outname: value} without "{ " and " }" */
		struct fjson_object *j = json_object_new_object();
		json_object_object_add(j, outname, json_object_new_string_len(v, (int)vlen));
		const char *js = json_object_get_string(j);
		size_t n = strlen(js);
		s->cst = sl_xstrndup(js + 2, n >= 4 ? n - 4 : 0);
		s->cst_len = strlen(s->cst);
		json_object_put(j);
		free(v);
	} else {
		s->cst = v;
		s->cst_len = vlen;
	}
	if (outname)
		s->outname = sl_xstrdup(outname);
	return SL_OK;
}

enum sl_rc tpl_create_from_obj(struct cfg_obj *o)
{
	struct cfg_param *pname = cfg_obj_param(o, "name");
	struct cfg_param *ptype = cfg_obj_param(o, "type");
	struct cfg_param *pstring = cfg_obj_param(o, "string");
	struct cfg_param *psub = cfg_obj_param(o, "subtree");
	struct cfg_param *pplug = cfg_obj_param(o, "plugin");
	struct cfg_param *opt;
	struct template *t = NULL;
	enum { T_STRING, T_LIST, T_SUBTREE, T_PLUGIN } type = T_STRING;
	int nopts = 0;

	if (!pname || !pname->val.str || !*pname->val.str) {
		cfg_error(&o->pos, "template() needs parameter 'name'");
		return SL_ERR_CONFIG;
	}
	const char *name = pname->val.str;
	if (!ptype) {
		cfg_error(&o->pos, "template '%s': parameter 'type' missing", name);
		return SL_ERR_CONFIG;
	}
	const char *ty = pstr(ptype);
	if (!strcmp(ty, "string")) type = T_STRING;
	else if (!strcmp(ty, "list")) type = T_LIST;
	else if (!strcmp(ty, "subtree")) type = T_SUBTREE;
	else if (!strcmp(ty, "plugin")) type = T_PLUGIN;
	else {
		cfg_error(&ptype->pos, "invalid template type '%s'", ty);
		return SL_ERR_CONFIG;
	}
	t = sl_xcalloc(1, sizeof(*t));
	t->name = sl_xstrdup(name);
	if ((opt = cfg_obj_param(o, "option.sql")) && param_bool(opt)) { t->esc = ESC_SQL; nopts++; }
	if ((opt = cfg_obj_param(o, "option.stdsql")) && param_bool(opt)) { t->esc = ESC_STDSQL; nopts++; }
	if ((opt = cfg_obj_param(o, "option.json")) && param_bool(opt)) { t->esc = ESC_JSON; nopts++; }
	if ((opt = cfg_obj_param(o, "option.jsonf")) && param_bool(opt)) { t->esc = ESC_JSONF; nopts++; }
	if ((opt = cfg_obj_param(o, "option.casesensitive")))
		t->casesensitive = param_bool(opt);
	if (nopts > 1) {
		cfg_error(&o->pos, "template '%s' has multiple incompatible options of sql, stdsql or json specified", name);
		goto fail;
	}
	for (struct cfg_param *p = o->params; p; p = p->next)
		if (!p->used) {
			cfg_error(&p->pos, "parameter '%s' not known for template()", p->name);
			goto fail;
		}
	switch (type) {
	case T_STRING: {
		if (!pstring) {
			cfg_error(&o->pos, "template '%s' of type string needs string parameter", name);
			goto fail;
		}
		const char *p = pstr(pstring);
		if (parse_string(t, &p, false, &pstring->pos) != SL_OK)
			goto fail;
		break;
	}
	case T_LIST:
		if (!o->body) {
			cfg_error(&o->pos, "template '%s' of type list has has no parameters specified", name);
			goto fail;
		}
		for (struct cfg_obj *b = o->body; b; b = b->next) {
			enum sl_rc rc = b->type == CFG_OBJ_PROPERTY ? list_property(t, b)
					: b->type == CFG_OBJ_CONSTANT ? list_constant(t, b)
					: SL_ERR_CONFIG;
			if (rc != SL_OK) {
				if (b->type != CFG_OBJ_PROPERTY && b->type != CFG_OBJ_CONSTANT)
					cfg_error(&b->pos, "only property() and constant() are allowed in a list template");
				goto fail;
			}
		}
		break;
	case T_SUBTREE: {
		const char *v = psub ? pstr(psub) : NULL;
		if (!v) {
			cfg_error(&o->pos, "template '%s' of type subtree needs subtree parameter", name);
			goto fail;
		}
		if (strncmp(v, "$!", 2) != 0) {
			cfg_error(&psub->pos, "invalid subtree parameter, variable must start with '$!' but var name is '%s'", v);
			goto fail;
		}
		prop_ref_parse(v, strlen(v), &t->subtree);
		if (!t->casesensitive)
			lower_str(t->subtree.path);
		t->is_subtree = true;
		break;
	}
	case T_PLUGIN: {
		const struct template *b = pplug ? find(pstr(pplug)) : NULL;
		if (!b || !b->strgen) {
			cfg_error(&o->pos, "template '%s': unknown strgen plugin '%s'", name,
				  pplug ? pstr(pplug) : "");
			goto fail;
		}
		t->strgen = b->strgen;
		break;
	}
	}
	apply_case_sensitivity(t);
	if (tpl_register(t, &o->pos) != SL_OK)
		return SL_ERR_CONFIG;
	o->resolved = t;
	return SL_OK;
fail:
	tpl_free(t);
	return SL_ERR_CONFIG;
}

enum sl_rc tpl_create_legacy(const char *args, const struct cfg_pos *pos)
{
	const char *p = args;
	while (isspace((unsigned char)*p))
		p++;
	const char *n = p;
	while (*p && *p != ',')
		p++;
	const char *ne = p;
	while (ne > n && isspace((unsigned char)ne[-1]))
		ne--;
	if (ne == n || *p != ',') {
		cfg_error(pos, "invalid $template line: expected name,\"string\"");
		return SL_ERR_CONFIG;
	}
	struct template *t = sl_xcalloc(1, sizeof(*t));
	t->name = sl_xstrndup(n, (size_t)(ne - n));
	p++;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '=') {
		const struct template *b = find(p + 1);
		if (!b || !b->strgen) {
			cfg_error(pos, "template '%s': error defining template via strgen module", t->name);
			goto fail;
		}
		t->strgen = b->strgen;
		return tpl_register(t, pos);
	}
	if (*p != '"') {
		cfg_error(pos, "template '%s' invalid, does not start with '\"'", t->name);
		goto fail;
	}
	p++;
	if (parse_string(t, &p, true, pos) != SL_OK)
		goto fail;
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (*p != ',')
			break;
		p++;
		while (isspace((unsigned char)*p))
			p++;
		char ob[128];
		size_t i = 0;
		while (i < sizeof(ob) - 1 && *p && *p != '=' && *p != ',' && *p != '\n')
			ob[i++] = (char)tolower((unsigned char)*p++);
		ob[i] = '\0';
		while (i > 0 && isspace((unsigned char)ob[i - 1]))
			ob[--i] = '\0';
		if (!strcmp(ob, "stdsql")) t->esc = ESC_STDSQL;
		else if (!strcmp(ob, "json")) t->esc = ESC_JSON;
		else if (!strcmp(ob, "sql")) t->esc = ESC_SQL;
		else if (!strcmp(ob, "nosql")) t->esc = ESC_NONE;
		else if (!strcmp(ob, "casesensitive")) t->casesensitive = true;
		else cfg_warn(pos, "template '%s': invalid option '%s' ignored", t->name, ob);
	}
	apply_case_sensitivity(t);
	return tpl_register(t, pos);
fail:
	tpl_free(t);
	return SL_ERR_CONFIG;
}

/* ---- built-in templates ---- */

struct builtin {
	const char *name;
	const char *str;
	tpl_strgen_fn strgen;
	uint8_t esc;
};

static const struct builtin builtins[] = {
	{ "RSYSLOG_FileFormat",
	  "%TIMESTAMP:::date-rfc3339% %HOSTNAME% %syslogtag%%msg:::sp-if-no-1st-sp%%msg:::drop-last-lf%\n",
	  strgen_file, ESC_NONE },
	{ "RSYSLOG_TraditionalFileFormat",
	  "%TIMESTAMP% %HOSTNAME% %syslogtag%%msg:::sp-if-no-1st-sp%%msg:::drop-last-lf%\n",
	  strgen_trad_file, ESC_NONE },
	{ "RSYSLOG_ForwardFormat",
	  "<%PRI%>%TIMESTAMP:::date-rfc3339% %HOSTNAME% %syslogtag:1:32%%msg:::sp-if-no-1st-sp%%msg%",
	  strgen_forward, ESC_NONE },
	{ "RSYSLOG_TraditionalForwardFormat",
	  "<%PRI%>%TIMESTAMP% %HOSTNAME% %syslogtag:1:32%%msg:::sp-if-no-1st-sp%%msg%",
	  strgen_trad_forward, ESC_NONE },
	{ "RSYSLOG_SyslogProtocol23Format",
	  "<%PRI%>1 %TIMESTAMP:::date-rfc3339% %HOSTNAME% %APP-NAME% %PROCID% %MSGID% %STRUCTURED-DATA% %msg%\n",
	  strgen_protocol23, ESC_NONE },
	{ "RSYSLOG_SyslogRFC5424Format",
	  "<%PRI%>1 %TIMESTAMP:::date-rfc3339% %HOSTNAME% %APP-NAME% %PROCID% %MSGID% %STRUCTURED-DATA% %msg%",
	  NULL, ESC_NONE },
	{ "RSYSLOG_SysklogdFileFormat",
	  "%TIMESTAMP% %HOSTNAME% %syslogtag%%msg:::sp-if-no-1st-sp%%msg%\n", NULL, ESC_NONE },
	{ "RSYSLOG_DebugFormat",
	  "Debug line with all properties:\nFROMHOST: '%FROMHOST%', fromhost-ip: '%fromhost-ip%', "
	  "HOSTNAME: '%HOSTNAME%', PRI: %PRI%,\nsyslogtag '%syslogtag%', programname: '%programname%', "
	  "APP-NAME: '%APP-NAME%', PROCID: '%PROCID%', MSGID: '%MSGID%',\nTIMESTAMP: '%TIMESTAMP%', "
	  "STRUCTURED-DATA: '%STRUCTURED-DATA%',\nmsg: '%msg%'\nescaped msg: '%msg:::drop-cc%'\n"
	  "inputname: %inputname% rawmsg: '%rawmsg%'\n$!:%$!%\n$.:%$.%\n$/:%$/%\n\n", NULL, ESC_NONE },
	{ "RSYSLOG_omudpspoofDfltSourceTpl", "%fromhost-ip%", NULL, ESC_NONE },
	{ " StdJSONFmt",
	  "{\"message\":\"%msg:::json%\",\"fromhost\":\"%HOSTNAME:::json%\",\"facility\":"
	  "\"%syslogfacility-text%\",\"priority\":\"%syslogpriority-text%\",\"timereported\":"
	  "\"%timereported:::date-rfc3339%\",\"timegenerated\":\"%timegenerated:::date-rfc3339%\"}",
	  NULL, ESC_NONE },
	{ " WallFmt",
	  "\r\n\7Message from syslogd@%HOSTNAME% at %timegenerated% ...\r\n %syslogtag%%msg%\n\r",
	  NULL, ESC_NONE },
	{ " StdUsrMsgFmt", " %syslogtag%%msg%\n\r", NULL, ESC_NONE },
	{ " StdDBFmt",
	  "insert into SystemEvents (Message, Facility, FromHost, Priority, DeviceReportedTime, "
	  "ReceivedAt, InfoUnitID, SysLogTag) values ('%msg%', %syslogfacility%, '%HOSTNAME%', "
	  "%syslogpriority%, '%timereported:::date-mysql%', '%timegenerated:::date-mysql%', %iut%, "
	  "'%syslogtag%')", NULL, ESC_SQL },
	{ " StdPgSQLFmt",
	  "insert into SystemEvents (Message, Facility, FromHost, Priority, DeviceReportedTime, "
	  "ReceivedAt, InfoUnitID, SysLogTag) values ('%msg%', %syslogfacility%, '%HOSTNAME%', "
	  "%syslogpriority%, '%timereported:::date-pgsql%', '%timegenerated:::date-pgsql%', %iut%, "
	  "'%syslogtag%')", NULL, ESC_STDSQL },
	{ " FullJSONFmt",
	  "{\"message\":\"%msg:::json%\",\"fromhost\":\"%HOSTNAME:::json%\",\"programname\":"
	  "\"%programname%\",\"syslogtag\":\"%syslogtag:::json%\",\"timereported\":"
	  "\"%timereported:::date-rfc3339%\",\"timegenerated\":\"%timegenerated:::date-rfc3339%\","
	  "\"facility\":\"%syslogfacility-text%\",\"priority\":\"%syslogpriority-text%\"}",
	  NULL, ESC_NONE },
};

void tpl_init_builtins(void)
{
	static const struct cfg_pos pos = { "<built-in>", 0 };
	for (size_t i = 0; i < SL_ARRAY_SIZE(builtins); i++) {
		if (find(builtins[i].name))
			continue;
		struct template *t = sl_xcalloc(1, sizeof(*t));
		t->name = sl_xstrdup(builtins[i].name);
		t->esc = builtins[i].esc;
		const char *p = builtins[i].str;
		if (parse_string(t, &p, false, &pos) != SL_OK) {
			tpl_free(t);
			continue;
		}
		t->strgen = builtins[i].strgen;
		/* rsyslog's strgens (smfile, smfwd ...) emit the SP also for an
		 * empty MSG; the generic steps of these templates do the same. */
		if (t->strgen)
			for (int k = 0; k < t->n_steps; k++)
				if (t->steps[k].spif)
					t->steps[k].spif_empty = true;
		apply_case_sensitivity(t);
		tpl_register(t, NULL);
	}
}

void tpl_destroy_all(void)
{
	while (tpl_list) {
		struct template *t = tpl_list;
		tpl_list = t->next;
		tpl_free(t);
	}
}
