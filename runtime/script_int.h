/* script_int.h — internals shared by script.c (compiler, executor) and
 * script_func.c (built-in functions). Not a public contract.
 *
 * Threading: as script.h.
 */
#ifndef SLUICE_SCRIPT_INT_H
#define SLUICE_SCRIPT_INT_H

#include <regex.h>
#include <stdint.h>
#include "ast.h"
#include "prop.h"
#include "script.h"

struct fjson_object;

/* scratch buffer roles in struct exec_ctx */
enum { SC_PROP = 0, SC_ARENA = 1, SC_TMP = 2, SC_TPL = 3 };

enum { SV_NUM, SV_STR };

/* A script value. Strings: p != NULL points to stable bytes (message,
 * compiled tree); p == NULL means the bytes are at `off` in the arena. */
struct sval {
	int t;
	int64_t n;
	const char *p;
	size_t off;
	size_t len;
};

struct sctx {
	struct msg *m;
	struct exec_ctx *ctx;
};

struct re_lit {
	const char *s;
	size_t len;
	size_t key;    /* the byte memchr() looks for: a rare-looking one */
	bool anchored; /* only at the start of the subject ('^') */
};

struct script_regex {
	regex_t re;
	void *pcre;   /* pcre2_code with JIT, when the ERE means the same to PCRE2 */
	struct re_lit *lits; /* the ERE is only literal alternatives */
	int n_lits;
};

/* STMT_PROPFILT resolved data */
struct propfilt_res {
	struct prop_ref ref;
	struct script_regex *re;
};

const char *sv_ptr(struct sctx *c, const struct sval *v);
void sv_num(struct sval *v, int64_t n);
void sv_cstr(struct sval *v, const char *p, size_t len);
bool sv_arena(struct sctx *c, struct sval *v, const char *p, size_t len);
bool sv_strict_num(const char *p, size_t len, int64_t *out);
int64_t sv_cnum(const char *p, size_t len);
/* rsyslog's var2Number for strings: optional '-', decimal digits; *ok
 * tells whether the whole string was a number ("" is, with value 0). */
int64_t sv_str2num(const char *p, size_t len, bool *ok);
int64_t sv_to_num(struct sctx *c, const struct sval *v);
void sv_to_str(struct sctx *c, struct sval *v);
bool sv_true(struct sctx *c, const struct sval *v);
void eval_expr(struct sctx *c, const struct expr *e, struct sval *out);

struct fjson_object *var_lookup(struct fjson_object *root, const char *path);
void var_store(struct fjson_object **rootp, const char *path, struct fjson_object *val);
struct fjson_object **script_var_root(struct msg *m, enum prop_id id);

/* script_func.c */
/* Check and prepare a function call node at load (name, arg count,
 * constant regex, prifilt selector, template); reports errors. */
bool script_func_compile(struct expr *e, bool as_statement, int *n_errors);
/* The built-in function whose name is closest to `name`, or NULL. */
const char *script_func_suggest(const char *name);
/* script_error() of the calling thread (for tests). */
int script_func_error(void);
void script_func_free(struct expr *e);
void script_func_call(struct sctx *c, const struct expr *e, struct sval *out);
/* The truth of function call `e` as a condition, when it can be had
 * without building values (re_match on a message property): true and
 * *truth set; false = not such a call, use script_func_call. */
bool script_func_cond(struct sctx *c, const struct expr *e, bool *truth);
/* The text of message property `ref` (not a variable): into the message
 * or the SC_PROP scratch buffer, valid until that is used again. */
const char *script_prop_text(struct sctx *c, const struct prop_ref *ref, size_t *len);
struct script_regex *script_regex_new(const char *pat, bool ere, bool icase, char *err, size_t errsz);
void script_regex_free(struct script_regex *r);
/* script_regex.c: match bytes (need not be NUL-terminated); uses PCRE2
 * JIT where that gives the same answer, else POSIX regexec. */
bool script_regex_match(const struct script_regex *r, const char *p, size_t len);
/* POSIX regexec on bytes [p, p+len) with submatches (offsets relative to
 * p); returns regexec's code. nmatch 0 = no submatches wanted. */
int script_regex_exec(const struct script_regex *r, const char *p, size_t len, size_t nmatch,
		      regmatch_t *m);
bool script_regex_uses_jit(const struct script_regex *r);
bool script_regex_is_literal(const struct script_regex *r);
#endif
