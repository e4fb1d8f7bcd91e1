/* script.h — executing RainerScript: the compiler that resolves and checks
 * a ruleset's statements once at load (properties to ids, regexes
 * compiled, constants folded, selectors to PRI masks), and the executor
 * that runs them against one message.
 *
 * Threading: script_compile() runs in the main thread at load. script_exec()
 * runs on queue worker threads; it only reads the compiled tree and writes
 * into the message (variables) and the per-worker exec context.
 */
#ifndef SLUICE_SCRIPT_H
#define SLUICE_SCRIPT_H

#include <regex.h>

#include <stdbool.h>
#include "sbuf.h"

struct script_stmt;
struct msg;
struct action;
struct cfg_obj;
struct ruleset;

/* Per worker-thread state while a message runs through a ruleset. */
struct exec_ctx {
	bool stopped;              /* `stop` was executed: processing of this message ends */
	bool prev_action_suspended; /* for previous_action_suspended() */
	struct sbuf scratch[4];    /* reused buffers for property values and strings */
	void *wrk;                 /* the worker (struct worker *), for actions */
};

/* Hooks the compiler uses to resolve names; provided by runtime/conf.c. */
struct script_resolver {
	/* Create the action for an action() object (or a legacy action line).
	 * Returns NULL after reporting an error. */
	struct action *(*make_action)(struct cfg_obj *o, void *arg);
	/* Find a ruleset by name; NULL if unknown (the compiler reports it). */
	struct ruleset *(*find_ruleset)(const char *name, void *arg);
	void *arg;
};

/* Resolve and check a statement list. Errors are reported with FILE:LINE
 * and counted in *n_errors. */
void script_compile(struct script_stmt *s, const struct script_resolver *r, int *n_errors);

/* Run a statement list on a message. Actions are executed through
 * action_exec(); `call` through ruleset_exec_sync(). */
void script_exec(const struct script_stmt *s, struct msg *m, struct exec_ctx *ctx);

/* Free what script_compile() attached to the statements (property refs,
 * regexes); actions and rulesets belong to their owners. Call before
 * cfg_tree_free(). */
void script_release(struct script_stmt *s);

void exec_ctx_init(struct exec_ctx *ctx);
void exec_ctx_fini(struct exec_ctx *ctx);

/* Provided by the core (action.c / ruleset.c), called by script_exec. */
void action_exec(struct action *a, struct msg *m, struct exec_ctx *ctx);
void ruleset_exec_sync(struct ruleset *rs, struct msg *m, struct exec_ctx *ctx);
/* A deep copy of a JSON tree (scalars are shared: they are immutable). */
struct fjson_object;
struct fjson_object *script_json_copy(struct fjson_object *o);

/* For the property replacer (template.c): a JIT-compiled PCRE2 copy of an
 * ERE whose submatches PCRE2 reports exactly as POSIX does, or NULL (use
 * regexec); script_regex_pcre_exec is then regexec(code, str, nmatch, pm,
 * 0) on the C string str: 0 or REG_NOMATCH. */
void *script_regex_pcre_submatch(const char *ere);
void script_regex_pcre_free(void *code);
int script_regex_pcre_exec(void *code, const char *str, size_t nmatch, regmatch_t *pm);

#endif
