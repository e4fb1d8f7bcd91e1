/* ast.h — what the RainerScript front end produces: configuration objects
 * with their parameters, and the script (statements and expressions) of
 * each ruleset, every node carrying its source file and line.
 *
 * The grammar (lexer.l, rainerscript.y) builds this tree; runtime/conf.c
 * walks it to create templates, modules, inputs, actions and rulesets, and
 * stores what it created in the `resolved` pointers; runtime/script.c then
 * executes statements against messages.
 *
 * Threading: built and resolved in the main thread at start; read-only
 * while the daemon runs (script execution only reads it).
 */
#ifndef SLUICE_AST_H
#define SLUICE_AST_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct cfg_errors;

/* Source position; `file` points to a string owned by the cfg_tree. */
struct cfg_pos {
	const char *file;
	int line;
};

/* A parameter value: a string, or an array of strings (`["a", "b"]`). */
struct cfg_value {
	bool is_array;
	bool is_backtick;  /* `cmd` value: stdout of a shell command */
	char *str;         /* when !is_array */
	char **arr;        /* when is_array */
	int n_arr;
};

struct cfg_param {
	char *name;        /* lower-cased */
	struct cfg_value val;
	struct cfg_pos pos;
	bool used;         /* set by whoever consumed it; unused ones are errors */
	struct cfg_param *next;
};

enum cfg_obj_type {
	CFG_OBJ_GLOBAL,
	CFG_OBJ_MODULE,
	CFG_OBJ_INPUT,
	CFG_OBJ_ACTION,
	CFG_OBJ_TEMPLATE,
	CFG_OBJ_RULESET,
	CFG_OBJ_MAIN_QUEUE,
	CFG_OBJ_PROPERTY,   /* only inside a list template's body */
	CFG_OBJ_CONSTANT,   /* only inside a list template's body */
	CFG_OBJ_TIMEZONE,
	CFG_OBJ_PARSER,
	CFG_OBJ_LOOKUP_TABLE,
	CFG_OBJ_DYN_STATS,
	CFG_OBJ_LEGACY,     /* a `$Directive value` line: name = directive
			     * (lower-cased, without '$'), param "value" */
	CFG_OBJ_PERCENTILE_STATS,
};

struct script_stmt;

struct cfg_obj {
	enum cfg_obj_type type;
	struct cfg_param *params;
	struct cfg_pos pos;
	struct cfg_obj *body;         /* template: list of property()/constant() */
	struct script_stmt *script;   /* ruleset: its statements */
	char *legacy_name;            /* CFG_OBJ_LEGACY: directive name */
	void *resolved;               /* what conf.c made of it */
	struct cfg_obj *next;         /* in source order */
	/* Source order of every object (including action objects, which sit
	 * in statements, not in cfg_tree.objs, and template body items).
	 * Binding legacy directives to actions: the `$Action...` /
	 * `$ActionQueue...` lines in effect for an action object A are the
	 * CFG_OBJ_LEGACY objects of cfg_tree.objs with seq < A->seq, replayed
	 * in order (and reset after each action, as rsyslog does). */
	unsigned seq;
};

/* Notes on what the parser produces:
 * - Legacy action lines (`/var/log/x;Tpl`, `-/path`, `@host`, `:omusrmsg:*`,
 *   `~`, `*`, `root,bob`, `|/pipe`) become a STMT_ACTION whose obj is a
 *   CFG_OBJ_ACTION with one param "legacy" = the action text (trailing
 *   blanks removed).
 * - `$RuleSet NAME` creates (once) a CFG_OBJ_RULESET with params name=NAME
 *   and legacy="on", and later top-level statements are appended to its
 *   script; `$RuleSet RSYSLOG_DefaultRuleset` switches back to
 *   cfg_tree.script. No CFG_OBJ_LEGACY is made for `$RuleSet`.
 * - `$IncludeConfig` and include() are expanded in place (no object).
 * - Backtick values (`echo ...`, `cat FILE`) are expanded at parse time as
 *   rsyslog does; is_backtick records that the value came from one.
 * - STMT_PRIFILT keeps the selector text in `name`.
 */

/* ---- expressions ---- */
enum expr_type {
	EXPR_STRING,     /* constant string (escapes already processed) */
	EXPR_NUMBER,     /* constant int64 */
	EXPR_ARRAY,      /* ["a","b"] constant array */
	EXPR_PROPERTY,   /* $msg, $!a!b, $.x, $/y, $now ... */
	EXPR_FUNC,       /* name(args) */
	EXPR_NOT,
	EXPR_NEG,        /* unary minus */
	EXPR_AND, EXPR_OR,
	EXPR_EQ, EXPR_NE, EXPR_LT, EXPR_GT, EXPR_LE, EXPR_GE,
	EXPR_CONTAINS, EXPR_CONTAINS_I, EXPR_STARTSWITH, EXPR_STARTSWITH_I,
	EXPR_ADD, EXPR_SUB, EXPR_CONCAT, EXPR_MUL, EXPR_DIV, EXPR_MOD,
	EXPR_EXISTS,     /* exists($!x): operand is an EXPR_PROPERTY */
};

struct expr {
	enum expr_type type;
	struct cfg_pos pos;
	struct expr *l, *r;   /* operands (unary: l) */
	char *str;            /* EXPR_STRING value; EXPR_PROPERTY name as written; EXPR_FUNC name */
	size_t str_len;
	int64_t num;
	char **arr;           /* EXPR_ARRAY */
	int n_arr;
	struct expr **args;   /* EXPR_FUNC */
	int n_args;
	void *resolved;       /* filled by the script compiler (prop_ref, regex, ...) */
	int fast;             /* set by the script compiler: EXPR_EQ/NE of a message
			       * property (l) and a constant string (r), see script.c */
};

/* ---- statements ---- */
enum stmt_type {
	STMT_IF,          /* cond, then_, else_ */
	STMT_ACTION,      /* obj = the action() object (or the legacy one) */
	STMT_SET,         /* var, value */
	STMT_RESET,
	STMT_UNSET,       /* var */
	STMT_STOP,
	STMT_CONTINUE,
	STMT_CALL,        /* name */
	STMT_CALL_INDIRECT, /* value */
	STMT_FOREACH,     /* var, value, then_ */
	STMT_PRIFILT,     /* selector: pri_mask, then_ */
	STMT_PROPFILT,    /* legacy ":prop, [!]op, "value"": prop_name, propfilt_op, value str, negate, then_ */
	STMT_RELOAD_LOOKUP_TABLE,
};

enum propfilt_op {
	PROPFILT_CONTAINS,
	PROPFILT_ISEQUAL,
	PROPFILT_STARTSWITH,
	PROPFILT_REGEX,
	PROPFILT_EREREGEX,
	PROPFILT_ISEMPTY,
};

struct script_stmt {
	enum stmt_type type;
	struct cfg_pos pos;
	struct expr *cond;          /* IF */
	struct script_stmt *then_;  /* IF, FOREACH, PRIFILT, PROPFILT: body */
	struct script_stmt *else_;  /* IF */
	struct cfg_obj *obj;        /* ACTION */
	char *var;                  /* SET/RESET/UNSET/FOREACH: "$!a!b", "$.x" as written */
	struct expr *value;         /* SET/RESET/FOREACH/CALL_INDIRECT */
	char *name;                 /* CALL: ruleset name; PROPFILT: property name */
	uint8_t pri_mask[25];       /* PRIFILT: per facility (0..24) a bitmask of severities 0..7 */
	enum propfilt_op propfilt_op;
	bool propfilt_negate;
	char *propfilt_value;
	void *resolved;             /* ACTION: struct action *; CALL: struct ruleset *; ... */
	struct script_stmt *next;
};

/* The whole configuration as parsed, all included files merged in order. */
struct cfg_tree {
	struct cfg_obj *objs;        /* every object in source order */
	struct script_stmt *script;  /* top-level statements: the default ruleset */
	char **files;                /* names of all files read (owned; cfg_pos points here) */
	int n_files;
};

/* Parse a configuration file (and everything it includes). Errors are
 * printed to stderr as "FILE:LINE: message" and counted; returns NULL if
 * the file could not be read or any error was found. */
struct cfg_tree *cfg_parse_file(const char *path, int *n_errors);
/* Same, from a string (for tests); `name` is used in error messages. */
struct cfg_tree *cfg_parse_string(const char *text, const char *name, int *n_errors);
void cfg_tree_free(struct cfg_tree *t);

/* Report a config error at a position: prints "FILE:LINE: message" to
 * stderr. Used by every layer that checks the configuration. */
void cfg_error(const struct cfg_pos *pos, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cfg_warn(const struct cfg_pos *pos, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Look up a parameter of an object by (lower-case) name; NULL if absent.
 * Marks it used. */
struct cfg_param *cfg_obj_param(struct cfg_obj *o, const char *name);

/* Free functions for tree parts (all accept NULL; lists are freed along
 * their `next` chain). */
void cfg_expr_free(struct expr *e);
void cfg_stmt_free(struct script_stmt *s);
void cfg_obj_free(struct cfg_obj *o);
void cfg_param_free(struct cfg_param *p);

/* The candidate closest to `word` (case-insensitive edit distance at most
 * 2, and at most a third of the word's length), for "did you mean"
 * hints; NULL if none is close. */
const char *cfg_closest(const char *word, const char *const *cands, size_t n);

/* Decode a selector ("*.info;mail.none", "auth,authpriv.*", "kern.!=err")
 * into a PRI mask (25 facilities x 8 severity bits). Returns false and
 * writes a message into err on an unknown name. */
bool cfg_decode_prifilt(const char *sel, uint8_t mask[25], char *err, size_t errsz);

#endif
