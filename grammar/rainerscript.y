/* rainerscript.y — the RainerScript grammar (rsyslog 8.2302 dialect): top
 * level objects, rulesets with their scripts, expressions, and the legacy
 * forms (selector lines, property filters, `$Directive` lines, legacy
 * actions) that lexer.l hands over as whole tokens.
 *
 * The parser builds the tree declared in ast.h. Objects are appended to
 * cfg_tree.objs when they are reduced; top-level statements go to the
 * default ruleset's script, or to the ruleset named by the last legacy
 * `$RuleSet` line. Includes are processed when `include(...)` is reduced
 * (a default reduction, so no lookahead token has been read yet and the
 * included text is lexed next).
 *
 * Threading: config load only (main thread); the parser state is global.
 */
%code requires {
#include <stddef.h>
#include <stdint.h>
#include "ast.h"

struct cfg_lstr {
	char *s;
	size_t len;
};

struct cfg_strlist {
	char **arr;
	int n;
};

struct cfg_exprlist {
	struct expr **a;
	int n;
};

struct cfg_objtok {
	enum cfg_obj_type type;
	unsigned seq;
};

struct cfg_seqstr {
	char *s;
	unsigned seq;
};
}

%code provides {
/* State shared by lexer.l, rainerscript.y and ast.c while one
 * configuration is parsed. */
struct cfg_parse_ctx {
	struct cfg_tree *tree;
	int n_errors;
	const char *file;           /* current file (owned by tree->files) */
	int line;                   /* current line in it */
	unsigned seq;               /* source-order counter for cfg_obj.seq */
	struct cfg_obj **objs_tail;
	struct script_stmt **top_tail; /* where top-level statements go */
	char last_tok[64];          /* text of the last token (for errors) */
};
extern struct cfg_parse_ctx cfg_pc;

int cfg_yylex(void);
int cfg_yyparse(void);
/* Lexer buffer stack (lexer.l). */
int cfg_lex_push_file(const char *path, const struct cfg_pos *from);
void cfg_lex_push_text(const char *text, size_t len, const char *name);
void cfg_lex_cleanup(void);
/* include(file= / text= mode=) and $IncludeConfig (lexer.l). */
void cfg_do_include(struct cfg_param *params, const struct cfg_pos *pos);
void cfg_include_glob(const char *pattern, int mode, const struct cfg_pos *pos);
/* Register a file name in the tree; returns the tree-owned copy. */
const char *cfg_tree_add_file(struct cfg_tree *t, const char *name);
}

%code {
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>
#include "sluice.h"

#define YYLLOC_DEFAULT(Cur, Rhs, N) do { \
	if (N) (Cur) = YYRHSLOC(Rhs, 1); else (Cur) = YYRHSLOC(Rhs, 0); \
} while (0)

static void cfg_yyerror(const char *msg);
static struct expr *mk_expr(enum expr_type t, const struct cfg_pos *p, struct expr *l, struct expr *r);
static struct script_stmt *mk_stmt(enum stmt_type t, const struct cfg_pos *p);
static struct script_stmt *stmt_append(struct script_stmt *a, struct script_stmt *b);
static struct cfg_obj *mk_obj(enum cfg_obj_type t, unsigned seq, const struct cfg_pos *p, struct cfg_param *params);
static void add_obj(struct cfg_obj *o);
static void add_top_stmt(struct script_stmt *s);
static struct script_stmt *mk_prifilt(char *text, const struct cfg_pos *p, struct script_stmt *body);
static struct script_stmt *mk_propfilt(char *text, const struct cfg_pos *p, struct script_stmt *body);
static struct script_stmt *mk_legacy_action(char *text, unsigned seq, const struct cfg_pos *p);
static struct cfg_obj *mk_legacy(char *text, unsigned seq, const struct cfg_pos *p);
static void legacy_ruleset(char *name, unsigned seq, const struct cfg_pos *p);
static bool check_var(const char *v, const struct cfg_pos *p);
static const char *obj_type_name(enum cfg_obj_type t);
}

%define api.prefix {cfg_yy}
%define parse.error custom
%define api.location.type {struct cfg_pos}
%locations

%union {
	char *s;
	int64_t n;
	unsigned seq;
	struct cfg_lstr str;
	struct cfg_objtok ob;
	struct cfg_seqstr ss;
	struct cfg_strlist sl;
	struct cfg_exprlist el;
	struct expr *e;
	struct script_stmt *st;
	struct cfg_param *p;
	struct cfg_obj *o;
}

%token <s> NAME "parameter name"
%token <s> FUNC "function name"
%token <s> CALLNAME "ruleset name"
%token <ob> BEGINOBJ "object"
%token ENDOBJ "')'"
%token BEGIN_INCLUDE "'include('"
%token <seq> BEGIN_ACTION "'action('"
%token <ob> BEGIN_PROPERTY "'property('"
%token <ob> BEGIN_CONSTANT "'constant('"
%token <ob> BEGIN_TPL "'template('"
%token <ob> BEGIN_RULESET "'ruleset('"
%token STOP "'stop'"
%token SET "'set'"
%token RESET "'reset'"
%token UNSET "'unset'"
%token CONTINUE "'continue'"
%token EXISTS "'exists'"
%token CALL "'call'"
%token CALL_INDIRECT "'call_indirect'"
%token <ss> LEGACY_ACTION "legacy action"
%token <ss> LEGACY_RULESET "'$RuleSet'"
%token <ss> LEGACY_DIRECTIVE "legacy directive"
%token <s> PRIFILT "selector"
%token <s> PROPFILT "property filter"
%token RELOAD_LOOKUP_TABLE "'reload_lookup_table'"
%token IF "'if'"
%token THEN "'then'"
%token ELSE "'else'"
%token FOREACH "'foreach'"
%token IN "'in'"
%token DO "'do'"
%token OR "'or'"
%token AND "'and'"
%token NOT "'not'"
%token <s> VAR "variable"
%token <str> STRING "string"
%token <str> BACKTICK "backtick string"
%token <n> NUMBER "number"
%token CMP_EQ "'=='"
%token CMP_NE "'!='"
%token CMP_LE "'<='"
%token CMP_GE "'>='"
%token CMP_LT "'<'"
%token CMP_GT "'>'"
%token CMP_CONTAINS "'contains'"
%token CMP_CONTAINSI "'contains_i'"
%token CMP_STARTSWITH "'startswith'"
%token CMP_STARTSWITHI "'startswith_i'"

%type <p> nv nvlst
%type <o> obj propconst pc_item
%type <e> expr
%type <st> stmt sitem s_act actlst block script include
%type <sl> strlist
%type <el> fparams

%destructor { free($$); } <s>
%destructor { free($$.s); } <str>
%destructor { free($$.s); } <ss>
%destructor { cfg_expr_free($$); } <e>
%destructor { cfg_stmt_free($$); } <st>
%destructor { cfg_obj_free($$); } <o>
%destructor { cfg_param_free($$); } <p>
%destructor { for (int i = 0; i < $$.n; i++) free($$.arr[i]); free($$.arr); } <sl>
%destructor { for (int i = 0; i < $$.n; i++) cfg_expr_free($$.a[i]); free($$.a); } <el>

%left AND OR
%left CMP_EQ CMP_NE CMP_LE CMP_GE CMP_LT CMP_GT CMP_CONTAINS CMP_CONTAINSI CMP_STARTSWITH CMP_STARTSWITHI
%left '+' '-' '&'
%left '*' '/' '%'
%precedence UMINUS NOT

%precedence LOWER_THAN_ELSE
%precedence ELSE

%%

conf:	  %empty
	| conf obj			{ add_obj($2); }
	| conf stmt			{ add_top_stmt($2); }
	| conf LEGACY_RULESET		{ legacy_ruleset($2.s, $2.seq, &@2); }
	/* Error recovery: after a syntax error, tokens are dropped (silently)
	 * until a top-level object or statement can start again, so that one
	 * -N1 run reports the errors of several objects/statements. */
	| conf error
	;

include:  BEGIN_INCLUDE nvlst ENDOBJ	{ cfg_do_include($2, &@1); cfg_param_free($2); $$ = NULL; }
	;

obj:	  BEGINOBJ nvlst ENDOBJ		{ $$ = mk_obj($1.type, $1.seq, &@1, $2); }
	| BEGIN_TPL nvlst ENDOBJ	{ $$ = mk_obj(CFG_OBJ_TEMPLATE, $1.seq, &@1, $2); }
	| BEGIN_TPL nvlst ENDOBJ '{' propconst '}'
					{ $$ = mk_obj(CFG_OBJ_TEMPLATE, $1.seq, &@1, $2); $$->body = $5; }
	| BEGIN_RULESET nvlst ENDOBJ '{' script '}'
					{ $$ = mk_obj(CFG_OBJ_RULESET, $1.seq, &@1, $2); $$->script = $5; }
	| BEGIN_RULESET nvlst ENDOBJ '{' '}'
					{ $$ = mk_obj(CFG_OBJ_RULESET, $1.seq, &@1, $2); }
	;

propconst: %empty			{ $$ = NULL; }
	| propconst pc_item		{ struct cfg_obj **pp = &$1; while (*pp) pp = &(*pp)->next; *pp = $2; $$ = $1; }
	;
pc_item:  BEGIN_PROPERTY nvlst ENDOBJ	{ $$ = mk_obj(CFG_OBJ_PROPERTY, $1.seq, &@1, $2); }
	| BEGIN_CONSTANT nvlst ENDOBJ	{ $$ = mk_obj(CFG_OBJ_CONSTANT, $1.seq, &@1, $2); }
	;

nvlst:	  %empty			{ $$ = NULL; }
	| nvlst nv			{ struct cfg_param **pp = &$1; while (*pp) pp = &(*pp)->next; *pp = $2; $$ = $1; }
	;
nv:	  NAME '=' STRING		{ $$ = sl_xcalloc(1, sizeof(*$$)); $$->name = $1; $$->pos = @1;
					  $$->val.str = $3.s; }
	| NAME '=' BACKTICK		{ $$ = sl_xcalloc(1, sizeof(*$$)); $$->name = $1; $$->pos = @1;
					  $$->val.str = $3.s; $$->val.is_backtick = true; }
	| NAME '=' '[' strlist ']'	{ $$ = sl_xcalloc(1, sizeof(*$$)); $$->name = $1; $$->pos = @1;
					  $$->val.is_array = true; $$->val.arr = $4.arr; $$->val.n_arr = $4.n; }
	;
strlist:  STRING			{ $$.arr = sl_xmalloc(sizeof(char *)); $$.arr[0] = $1.s; $$.n = 1; }
	| strlist ',' STRING		{ $$ = $1; $$.arr = sl_xrealloc($$.arr, sizeof(char *) * ($$.n + 1));
					  $$.arr[$$.n++] = $3.s; }
	;

script:	  sitem				{ $$ = $1; }
	| script sitem			{ $$ = stmt_append($1, $2); }
	;

sitem:	  stmt				{ $$ = $1; }
	| BEGINOBJ nvlst ENDOBJ		{ cfg_error(&@1, "object '%s()' is not permitted inside a ruleset or block "
						    "(only at the top level)", obj_type_name($1.type));
					  cfg_pc.n_errors++; cfg_param_free($2); $$ = NULL; }
	;

stmt:	  actlst			{ $$ = $1; }
	| IF expr THEN block %prec LOWER_THAN_ELSE
					{ $$ = mk_stmt(STMT_IF, &@1); $$->cond = $2; $$->then_ = $4; }
	| IF expr THEN block ELSE block	{ $$ = mk_stmt(STMT_IF, &@1); $$->cond = $2; $$->then_ = $4; $$->else_ = $6; }
	| FOREACH '(' VAR IN expr ')' DO block
					{ $$ = mk_stmt(STMT_FOREACH, &@1); $$->var = $3; $$->value = $5; $$->then_ = $8;
					  check_var($3, &@3); }
	| RESET VAR '=' expr ';'	{ $$ = mk_stmt(STMT_RESET, &@1); $$->var = $2; $$->value = $4; check_var($2, &@2); }
	| SET VAR '=' expr ';'		{ $$ = mk_stmt(STMT_SET, &@1); $$->var = $2; $$->value = $4; check_var($2, &@2); }
	| UNSET VAR ';'			{ $$ = mk_stmt(STMT_UNSET, &@1); $$->var = $2; check_var($2, &@2); }
	| PRIFILT block			{ $$ = mk_prifilt($1, &@1, $2); }
	| PROPFILT block		{ $$ = mk_propfilt($1, &@1, $2); }
	| RELOAD_LOOKUP_TABLE '(' fparams ')'
					{ $$ = mk_stmt(STMT_RELOAD_LOOKUP_TABLE, &@1);
					  $$->value = mk_expr(EXPR_FUNC, &@1, NULL, NULL);
					  $$->value->str = sl_xstrdup("reload_lookup_table");
					  $$->value->args = $3.a; $$->value->n_args = $3.n; }
	| include			{ $$ = $1; }
	| LEGACY_DIRECTIVE		{ add_obj(mk_legacy($1.s, $1.seq, &@1)); $$ = NULL; }
	;

block:	  stmt				{ $$ = $1; }
	| '{' script '}'		{ $$ = $2; }
	| '{' '}'			{ $$ = NULL; }
	;

actlst:	  s_act				{ $$ = $1; }
	| actlst '&' s_act		{ $$ = stmt_append($1, $3); }
	;

s_act:	  BEGIN_ACTION nvlst ENDOBJ	{ $$ = mk_stmt(STMT_ACTION, &@1);
					  $$->obj = mk_obj(CFG_OBJ_ACTION, $1, &@1, $2); }
	| LEGACY_ACTION			{ $$ = mk_legacy_action($1.s, $1.seq, &@1); }
	| STOP				{ $$ = mk_stmt(STMT_STOP, &@1); }
	| CALL CALLNAME			{ $$ = mk_stmt(STMT_CALL, &@1); $$->name = $2; }
	| CALL_INDIRECT expr ';'	{ $$ = mk_stmt(STMT_CALL_INDIRECT, &@1); $$->value = $2; }
	| CONTINUE			{ $$ = mk_stmt(STMT_CONTINUE, &@1); }
	;

expr:	  expr AND expr			{ $$ = mk_expr(EXPR_AND, &@2, $1, $3); }
	| expr OR expr			{ $$ = mk_expr(EXPR_OR, &@2, $1, $3); }
	| NOT expr			{ $$ = mk_expr(EXPR_NOT, &@1, $2, NULL); }
	| expr CMP_EQ expr		{ $$ = mk_expr(EXPR_EQ, &@2, $1, $3); }
	| expr CMP_NE expr		{ $$ = mk_expr(EXPR_NE, &@2, $1, $3); }
	| expr CMP_LE expr		{ $$ = mk_expr(EXPR_LE, &@2, $1, $3); }
	| expr CMP_GE expr		{ $$ = mk_expr(EXPR_GE, &@2, $1, $3); }
	| expr CMP_LT expr		{ $$ = mk_expr(EXPR_LT, &@2, $1, $3); }
	| expr CMP_GT expr		{ $$ = mk_expr(EXPR_GT, &@2, $1, $3); }
	| expr CMP_CONTAINS expr	{ $$ = mk_expr(EXPR_CONTAINS, &@2, $1, $3); }
	| expr CMP_CONTAINSI expr	{ $$ = mk_expr(EXPR_CONTAINS_I, &@2, $1, $3); }
	| expr CMP_STARTSWITH expr	{ $$ = mk_expr(EXPR_STARTSWITH, &@2, $1, $3); }
	| expr CMP_STARTSWITHI expr	{ $$ = mk_expr(EXPR_STARTSWITH_I, &@2, $1, $3); }
	| expr '&' expr			{ $$ = mk_expr(EXPR_CONCAT, &@2, $1, $3); }
	| expr '+' expr			{ $$ = mk_expr(EXPR_ADD, &@2, $1, $3); }
	| expr '-' expr			{ $$ = mk_expr(EXPR_SUB, &@2, $1, $3); }
	| expr '*' expr			{ $$ = mk_expr(EXPR_MUL, &@2, $1, $3); }
	| expr '/' expr			{ $$ = mk_expr(EXPR_DIV, &@2, $1, $3); }
	| expr '%' expr			{ $$ = mk_expr(EXPR_MOD, &@2, $1, $3); }
	| '(' expr ')'			{ $$ = $2; }
	| '-' expr %prec UMINUS		{ $$ = mk_expr(EXPR_NEG, &@1, $2, NULL); }
	| EXISTS '(' VAR ')'		{ $$ = mk_expr(EXPR_EXISTS, &@1, mk_expr(EXPR_PROPERTY, &@3, NULL, NULL), NULL);
					  $$->l->str = $3; $$->l->str_len = strlen($3); check_var($3, &@3); }
	| FUNC '(' ')'			{ $$ = mk_expr(EXPR_FUNC, &@1, NULL, NULL); $$->str = $1; }
	| FUNC '(' fparams ')'		{ $$ = mk_expr(EXPR_FUNC, &@1, NULL, NULL); $$->str = $1;
					  $$->args = $3.a; $$->n_args = $3.n; }
	| NUMBER			{ $$ = mk_expr(EXPR_NUMBER, &@1, NULL, NULL); $$->num = $1; }
	| STRING			{ $$ = mk_expr(EXPR_STRING, &@1, NULL, NULL); $$->str = $1.s; $$->str_len = $1.len; }
	| BACKTICK			{ $$ = mk_expr(EXPR_STRING, &@1, NULL, NULL); $$->str = $1.s; $$->str_len = $1.len; }
	| VAR				{ $$ = mk_expr(EXPR_PROPERTY, &@1, NULL, NULL); $$->str = $1; $$->str_len = strlen($1); }
	| '[' strlist ']'		{ $$ = mk_expr(EXPR_ARRAY, &@1, NULL, NULL); $$->arr = $2.arr; $$->n_arr = $2.n; }
	;

fparams:  expr				{ $$.a = sl_xmalloc(sizeof(struct expr *)); $$.a[0] = $1; $$.n = 1; }
	| fparams ',' expr		{ $$ = $1; $$.a = sl_xrealloc($$.a, sizeof(struct expr *) * ($$.n + 1));
					  $$.a[$$.n++] = $3; }
	;

%%

struct cfg_parse_ctx cfg_pc;

static void cfg_yyerror(const char *msg)
{
	cfg_error(&cfg_yylloc, "%s", msg);
	cfg_pc.n_errors++;
}

/* Token names without the quoting bison adds to aliases. */
static void append_sym(char *buf, size_t sz, const char *name)
{
	size_t n = strlen(buf);
	if (name[0] == '"') {
		name++;
		size_t l = strlen(name);
		if (l && name[l - 1] == '"')
			l--;
		snprintf(buf + n, sz - n, "%.*s", (int)l, name);
	} else {
		snprintf(buf + n, sz - n, "%s", name);
	}
}

static int yyreport_syntax_error(const yypcontext_t *ctx)
{
	enum { MAXEXP = YYNTOKENS };
	yysymbol_kind_t exp[MAXEXP];
	char buf[768];
	int n = yypcontext_expected_tokens(ctx, exp, MAXEXP);
	yysymbol_kind_t la = yypcontext_token(ctx);
	bool ops = false;

	if (la == YYSYMBOL_YYEOF) {
		snprintf(buf, sizeof(buf), "syntax error: unexpected end of file");
	} else {
		snprintf(buf, sizeof(buf), "syntax error at '%s': unexpected ", cfg_pc.last_tok);
		append_sym(buf, sizeof(buf), yysymbol_name(la));
	}
	/* after an expression every operator is possible: say so once */
	for (int i = 0; i < n; i++)
		if (exp[i] == YYSYMBOL_CMP_EQ)
			ops = true;
	int listed = 0;
	for (int i = 0; i < n && n <= 12 + (ops ? 18 : 0); i++) {
		bool is_op = exp[i] == YYSYMBOL_AND || exp[i] == YYSYMBOL_OR ||
			     (exp[i] >= YYSYMBOL_CMP_EQ && exp[i] <= YYSYMBOL_CMP_STARTSWITHI) ||
			     (strlen(yysymbol_name(exp[i])) == 3 && strchr("+-&*/%", yysymbol_name(exp[i])[1]));
		if (ops && is_op)
			continue;
		strncat(buf, listed ? " or " : ", expected ", sizeof(buf) - strlen(buf) - 1);
		append_sym(buf, sizeof(buf), yysymbol_name(exp[i]));
		listed++;
	}
	if (ops)
		strncat(buf, listed ? " or an operator" : ", expected an operator", sizeof(buf) - strlen(buf) - 1);
	cfg_error(yypcontext_location(ctx), "%s", buf);
	cfg_pc.n_errors++;
	return 0;
}

static struct expr *mk_expr(enum expr_type t, const struct cfg_pos *p, struct expr *l, struct expr *r)
{
	struct expr *e = sl_xcalloc(1, sizeof(*e));
	e->type = t;
	e->pos = *p;
	e->l = l;
	e->r = r;
	return e;
}

static struct script_stmt *mk_stmt(enum stmt_type t, const struct cfg_pos *p)
{
	struct script_stmt *s = sl_xcalloc(1, sizeof(*s));
	s->type = t;
	s->pos = *p;
	return s;
}

static struct script_stmt *stmt_append(struct script_stmt *a, struct script_stmt *b)
{
	if (!a)
		return b;
	struct script_stmt *t = a;
	while (t->next)
		t = t->next;
	t->next = b;
	return a;
}

static struct cfg_obj *mk_obj(enum cfg_obj_type t, unsigned seq, const struct cfg_pos *p, struct cfg_param *params)
{
	struct cfg_obj *o = sl_xcalloc(1, sizeof(*o));
	o->type = t;
	o->seq = seq;
	o->pos = *p;
	o->params = params;
	return o;
}

static void add_obj(struct cfg_obj *o)
{
	if (!o)
		return;
	*cfg_pc.objs_tail = o;
	while (o->next)
		o = o->next;
	cfg_pc.objs_tail = &o->next;
}

static void add_top_stmt(struct script_stmt *s)
{
	if (!s)
		return;
	*cfg_pc.top_tail = s;
	while (s->next)
		s = s->next;
	cfg_pc.top_tail = &s->next;
}

static struct script_stmt *mk_prifilt(char *text, const struct cfg_pos *p, struct script_stmt *body)
{
	struct script_stmt *s = mk_stmt(STMT_PRIFILT, p);
	char err[256];
	s->then_ = body;
	s->name = text;   /* the selector as written, for diagnostics */
	if (!cfg_decode_prifilt(text, s->pri_mask, err, sizeof(err))) {
		cfg_error(p, "%s", err);
		cfg_pc.n_errors++;
	}
	return s;
}

/* ":prop, [!]op, "value"" as matched by the lexer. */
static struct script_stmt *mk_propfilt(char *text, const struct cfg_pos *p, struct script_stmt *body)
{
	static const struct { const char *name; enum propfilt_op op; } ops[] = {
		{ "contains", PROPFILT_CONTAINS }, { "isequal", PROPFILT_ISEQUAL },
		{ "startswith", PROPFILT_STARTSWITH }, { "regex", PROPFILT_REGEX },
		{ "ereregex", PROPFILT_EREREGEX }, { "isempty", PROPFILT_ISEMPTY },
	};
	struct script_stmt *s = mk_stmt(STMT_PROPFILT, p);
	const char *c = text;
	s->then_ = body;
	while (*c == ' ' || *c == '\t')
		c++;
	c++; /* ':' */
	const char *ns = c;
	while (*c && *c != ',' && *c != ' ' && *c != '\t')
		c++;
	s->name = sl_xstrndup(ns, (size_t)(c - ns));
	while (*c == ' ' || *c == '\t' || *c == ',')
		c++;
	if (*c == '!') {
		s->propfilt_negate = true;
		c++;
	}
	const char *os = c;
	while (isalpha((unsigned char)*c))
		c++;
	size_t ol = (size_t)(c - os);
	bool found = false;
	for (size_t i = 0; i < SL_ARRAY_SIZE(ops); i++) {
		if (strlen(ops[i].name) == ol && !strncasecmp(os, ops[i].name, ol)) {
			s->propfilt_op = ops[i].op;
			found = true;
		}
	}
	if (!found) {
		cfg_error(p, "unknown property filter operation '%.*s' (expected contains, isequal, "
			  "startswith, regex, ereregex or isempty)", (int)ol, os);
		cfg_pc.n_errors++;
	}
	while (*c && *c != '"')
		c++;
	if (*c == '"')
		c++;
	size_t vl = strlen(c);
	if (vl && c[vl - 1] == '"')
		vl--;
	char *v = sl_xmalloc(vl + 1), *o = v;
	for (size_t i = 0; i < vl; i++) {
		if (c[i] == '\\' && i + 1 < vl && c[i + 1] == '"')
			i++;
		*o++ = c[i];
	}
	*o = '\0';
	s->propfilt_value = v;
	free(text);
	return s;
}

static struct script_stmt *mk_legacy_action(char *text, unsigned seq, const struct cfg_pos *p)
{
	struct script_stmt *s = mk_stmt(STMT_ACTION, p);
	struct cfg_param *par = sl_xcalloc(1, sizeof(*par));
	size_t l = strlen(text);
	while (l && (text[l - 1] == ' ' || text[l - 1] == '\t' || text[l - 1] == '\r'))
		text[--l] = '\0';
	par->name = sl_xstrdup("legacy");
	par->val.str = text;
	par->pos = *p;
	s->obj = mk_obj(CFG_OBJ_ACTION, seq, p, par);
	if (!strcmp(text, "~"))
		cfg_warn(p, "the legacy discard action '~' is deprecated, use 'stop' instead");
	return s;
}

/* "$Directive value" -> CFG_OBJ_LEGACY. */
static struct cfg_obj *mk_legacy(char *text, unsigned seq, const struct cfg_pos *p)
{
	const char *c = text + 1;
	const char *ne = c;
	while (*ne && *ne != ' ' && *ne != '\t')
		ne++;
	struct cfg_obj *o = mk_obj(CFG_OBJ_LEGACY, seq, p, NULL);
	o->legacy_name = sl_xstrndup(c, (size_t)(ne - c));
	for (char *q = o->legacy_name; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	while (*ne == ' ' || *ne == '\t')
		ne++;
	size_t vl = strlen(ne);
	while (vl && (ne[vl - 1] == ' ' || ne[vl - 1] == '\t' || ne[vl - 1] == '\r'))
		vl--;
	struct cfg_param *par = sl_xcalloc(1, sizeof(*par));
	par->name = sl_xstrdup("value");
	par->val.str = sl_xstrndup(ne, vl);
	par->pos = *p;
	o->params = par;
	free(text);
	return o;
}

/* Legacy "$RuleSet name": later top-level statements go to that ruleset
 * (RSYSLOG_DefaultRuleset switches back to the default one). The ruleset
 * object is synthesised (param name=NAME, param "legacy"="on") the first
 * time a name is seen. */
static void legacy_ruleset(char *text, unsigned seq, const struct cfg_pos *p)
{
	const char *c = text + strlen("$ruleset");
	while (*c == ' ' || *c == '\t')
		c++;
	size_t l = strlen(c);
	while (l && (c[l - 1] == ' ' || c[l - 1] == '\t' || c[l - 1] == '\r'))
		l--;
	char *name = sl_xstrndup(c, l);
	free(text);
	if (!strcasecmp(name, "RSYSLOG_DefaultRuleset")) {
		struct script_stmt **pp = &cfg_pc.tree->script;
		while (*pp)
			pp = &(*pp)->next;
		cfg_pc.top_tail = pp;
		free(name);
		return;
	}
	struct cfg_obj *rs = NULL;
	for (struct cfg_obj *o = cfg_pc.tree->objs; o; o = o->next) {
		if (o->type != CFG_OBJ_RULESET)
			continue;
		for (struct cfg_param *q = o->params; q; q = q->next)
			if (!strcmp(q->name, "name") && !q->val.is_array && !strcmp(q->val.str, name))
				rs = o;
	}
	if (!rs) {
		struct cfg_param *np = sl_xcalloc(1, sizeof(*np));
		struct cfg_param *lp = sl_xcalloc(1, sizeof(*lp));
		np->name = sl_xstrdup("name");
		np->val.str = name;
		np->pos = *p;
		np->next = lp;
		lp->name = sl_xstrdup("legacy");
		lp->val.str = sl_xstrdup("on");
		lp->pos = *p;
		rs = mk_obj(CFG_OBJ_RULESET, seq, p, np);
		add_obj(rs);
	} else {
		free(name);
	}
	struct script_stmt **pp = &rs->script;
	while (*pp)
		pp = &(*pp)->next;
	cfg_pc.top_tail = pp;
}

static bool check_var(const char *v, const struct cfg_pos *p)
{
	if (v[0] == '$' && (v[1] == '!' || v[1] == '.' || v[1] == '/'))
		return true;
	cfg_error(p, "'%s' is not a variable: only $!..., $.... and $/... can be used here", v);
	cfg_pc.n_errors++;
	return false;
}

static const char *obj_type_name(enum cfg_obj_type t)
{
	switch (t) {
	case CFG_OBJ_GLOBAL: return "global";
	case CFG_OBJ_MODULE: return "module";
	case CFG_OBJ_INPUT: return "input";
	case CFG_OBJ_ACTION: return "action";
	case CFG_OBJ_TEMPLATE: return "template";
	case CFG_OBJ_RULESET: return "ruleset";
	case CFG_OBJ_MAIN_QUEUE: return "main_queue";
	case CFG_OBJ_PROPERTY: return "property";
	case CFG_OBJ_CONSTANT: return "constant";
	case CFG_OBJ_TIMEZONE: return "timezone";
	case CFG_OBJ_PARSER: return "parser";
	case CFG_OBJ_LOOKUP_TABLE: return "lookup_table";
	case CFG_OBJ_DYN_STATS: return "dyn_stats";
	case CFG_OBJ_PERCENTILE_STATS: return "percentile_stats";
	case CFG_OBJ_LEGACY: return "legacy";
	}
	return "?";
}
