/* module.h — the module interface: one const struct per module, stamped
 * with the ABI version, and one parameter table per scope that drives
 * validation, defaults, error messages and the documentation.
 *
 * Lifecycle of an output module:
 *   mod_init (once, module() params) -> act_create (per action(), params
 *   already parsed into the module's config struct) -> act_start (before
 *   inputs run) -> per worker: wrk_create -> tx_begin / tx_add* / tx_commit
 *   ... -> wrk_destroy -> act_destroy -> mod_exit.
 * Lifecycle of an input module:
 *   mod_init -> in_create (per input()) -> in_start (bind; main thread)
 *   -> in_run (its own thread, until in_stop) -> in_destroy.
 *
 * Threading: tx_* calls for one worker instance come from one thread at a
 * time; several worker instances of one action may run in parallel unless
 * the module sets MOD_FLAG_SINGLE_WORKER. in_run runs on a thread of its
 * own; in_stop is called from the main thread and must make in_run return.
 */
#ifndef SLUICE_MODULE_H
#define SLUICE_MODULE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include "sluice.h"

struct cfg_obj;
struct msg;
struct ruleset;
struct template;

#define SLUICE_MODULE_ABI 1

/* ---- parameter tables ---- */
enum param_type {
	PARAM_STRING,     /* char *, malloc'd */
	PARAM_INT,        /* int64_t; accepts decimal, 0x hex, leading-0 octal */
	PARAM_SIZE,       /* int64_t; suffixes k m g t p e (1024-based) and K M G T P E (1000-based), as rsyslog */
	PARAM_BINARY,     /* bool; exactly "on"/"off" (rsyslog rejects "yes", "On") */
	PARAM_FILEMODE,   /* int (octal, "0644") */
	PARAM_ARRAY,      /* struct param_array; a single string is an array of one */
	PARAM_TEMPLATE,   /* char * (template name; resolved and checked by the core) */
	PARAM_RULESET,    /* char * (ruleset name; checked by the core) */
	PARAM_WORD,       /* char *, a single token without spaces */
	PARAM_UID,        /* int (user name or number) */
	PARAM_GID,        /* int (group name or number) */
};

enum param_flags {
	PARAM_REQUIRED = 1u << 0,
	PARAM_DEPRECATED = 1u << 1,
	PARAM_LEGACY = 1u << 2,   /* a legacy $Directive alias (name is the directive, lower-case) */
	/* With PARAM_LEGACY in an input module's inst_params: the directive
	 * creates an input instance (e.g. "udpserverrun", "inputtcpserverrun")
	 * from its value plus the legacy instance settings seen before it. */
	PARAM_LEGACY_RUN = 1u << 3,
};
/* Legacy aliases (runtime/legacy.c): an alias is a second entry of the
 * same table with PARAM_LEGACY, normally with the same offset and type as
 * the RainerScript parameter it stands for (its "twin"; give it dflt NULL
 * or the twin's default, so both forms share one default). In mod_params
 * it sets the module() parameter; in inst_params it sets a default for
 * the inputs (or legacy-syntax actions) defined after it; a
 * PARAM_LEGACY_RUN entry (or one named "...serverrun") creates an input
 * from those (e.g. "udpserverrun", twin "port"). An alias without a twin
 * ($OmitLocalLogging) is passed under its own name on an object of type
 * CFG_OBJ_LEGACY, which param_parse accepts. The legacy value is checked
 * against the type at the directive's line. */

struct param_array {
	char **v;
	int n;
};

struct param_desc {
	const char *name;       /* as in rsyslog's docs; matched case-insensitively */
	enum param_type type;
	const char *dflt;       /* default as config text; NULL = zero/NULL */
	unsigned flags;
	size_t offset;          /* offsetof() into the module's config struct */
	const char *help;       /* one line for docs and --help */
};

struct param_table {
	const struct param_desc *params;
	size_t n;
	size_t struct_size;     /* size of the config struct to allocate */
};

#define PARAM_TABLE(arr, type) { (arr), SL_ARRAY_SIZE(arr), sizeof(type) }

/* Parse the parameters of `o` against `t` into a newly allocated, zeroed
 * struct of t->struct_size (defaults applied first, then `base` values if
 * given, e.g. module-level defaults for input params). Unknown parameters
 * and bad values are reported with FILE:LINE (the closest valid name is
 * suggested) and counted in *n_errors. `skip` lists names handled by the
 * caller (e.g. "type", "name", "queue.*" prefixes), may be NULL. */
void *param_parse(const struct param_table *t, struct cfg_obj *o,
		  const char *const *skip, int *n_errors);
/* Apply only the defaults. */
void *param_defaults(const struct param_table *t);
/* Free a config struct (its strings and arrays too). Accepts NULL. */
void param_free(const struct param_table *t, void *cfg);
/* Parse one value; used by the parsers above and by the legacy layer. */
bool param_value_int(const char *s, int64_t *out);
bool param_value_size(const char *s, int64_t *out);
bool param_value_bool(const char *s, bool *out);

/* ---- outputs ---- */

/* What happened to one message of a transaction. */
enum act_result {
	ACT_OK,         /* committed */
	ACT_DEFERRED,   /* accepted, committed with the transaction */
	ACT_SUSPENDED,  /* destination down: retry later */
	ACT_FAILED,     /* failed for good: goes to action.errorFile */
};

/* Per-action instance data: an opaque pointer owned by the module. */
struct output_ops {
	/* Create the action instance from its parsed config (ownership of
	 * `cfg` passes to the module). `o` is for further checks and errors. */
	void *(*act_create)(void *cfg, struct cfg_obj *o, int *n_errors);
	enum sl_rc (*act_start)(void *act);
	void (*act_destroy)(void *act);
	/* Per worker thread of the action. */
	void *(*wrk_create)(void *act);
	void (*wrk_destroy)(void *wrk);
	enum sl_rc (*tx_begin)(void *wrk);
	/* `rendered` is the template output for the message (with `len`);
	 * the buffer is reused after the call returns, so copy what you keep. */
	enum act_result (*tx_add)(void *wrk, struct msg *m, const char *rendered, size_t len);
	/* Optional: a buffer of the module's that the core renders the next
	 * message's template into (appending), instead of its own; tx_add
	 * then gets `rendered` pointing at those bytes, already in place, so
	 * the module need not copy them. Called before each message's
	 * rendering; NULL = use the core's buffer this time. If tx_add then
	 * returns anything but ACT_OK or ACT_DEFERRED, the module must have
	 * taken the bytes out of its buffer again (the core renders the
	 * message again when it retries). */
	struct sbuf *(*tx_render_buf)(void *wrk);
	enum act_result (*tx_commit)(void *wrk);
	/* Called after a suspension, to see if the destination is back. */
	enum sl_rc (*try_resume)(void *wrk);
	/* SIGHUP: reopen files etc. Called from the main thread. */
	void (*hup)(void *act);
	/* Periodic call (about once a second) from the housekeeping thread:
	 * flush intervals, close timeouts. */
	void (*tick)(void *act);
	/* The template the action wants when none is given. */
	const char *default_template;
	/* Optional (NULL = use tx_commit): commit with a result per message.
	 * Called instead of tx_commit when set. `res` has one slot per
	 * tx_add of this transaction that returned ACT_DEFERRED, in the
	 * order of those calls (messages for which tx_add returned ACT_OK,
	 * ACT_FAILED or ACT_SUSPENDED are not in it); the core fills every
	 * slot with ACT_OK before the call. The module sets each slot:
	 *   ACT_OK / ACT_DEFERRED  committed;
	 *   ACT_SUSPENDED          not delivered, retry later: the core calls
	 *                          try_resume (with action.resumeInterval
	 *                          back-off) and then adds exactly these
	 *                          messages again in a new transaction
	 *                          (tx_begin, tx_add..., tx_commit_items), so
	 *                          the module must not keep them itself;
	 *   ACT_FAILED             failed for good: written to
	 *                          action.errorFile with the reason, counted.
	 * The return value is the transaction's overall result: ACT_OK when
	 * the slots say it all; ACT_SUSPENDED means nothing was committed
	 * (every slot is treated as ACT_SUSPENDED). Modules that keep failed
	 * items in their worker state instead return ACT_SUSPENDED from plain
	 * tx_commit; the core then calls tx_commit again after try_resume,
	 * without adding the messages again (omfile does this). */
	enum act_result (*tx_commit_items)(void *wrk, enum act_result *res, int n);
	/* Optional: the worker found its queue empty after a batch (the
	 * burst is over). A buffering module may write out now instead of
	 * waiting for its flush timer; called on the worker thread with the
	 * worker's instance, outside any transaction. */
	void (*idle)(void *wrk);
};

/* ---- inputs ---- */
struct input_ops {
	void *(*in_create)(void *mod, void *cfg, struct cfg_obj *o, int *n_errors);
	enum sl_rc (*in_start)(void *in);     /* bind sockets; main thread */
	void (*in_run)(void *in);             /* own thread; returns after in_stop */
	void (*in_stop)(void *in);            /* main thread; make in_run return */
	void (*in_destroy)(void *in);
	/* An input the module runs without any input() statement (imuxsock's
	 * system socket, imklog): called once per configuration, after the
	 * input()s are created, with the module's data. Returns an instance
	 * driven like an input()'s (in_start, in_run, in_stop, in_destroy), or
	 * NULL for none; errors are counted in *n_errors. May be NULL. */
	void *(*mod_input)(void *mod, int *n_errors);
};

enum mod_type { MOD_INPUT = 1, MOD_OUTPUT = 2, MOD_PARSER = 4, MOD_FUNCTION = 8 };

enum mod_flags {
	MOD_FLAG_SINGLE_WORKER = 1u << 0, /* tx_* must not run on two threads at once */
	/* A message modifier (mmjsonparse, mmnormalize): tx_add changes the
	 * message itself (its $! tree, $parsesuccess) on the worker thread
	 * that runs the ruleset, so it must run synchronously (never from an
	 * action queue) and needs no template; `rendered` is then empty. */
	MOD_FLAG_MSG_MODIFIER = 1u << 1,
};

struct module {
	int abi;                       /* SLUICE_MODULE_ABI, set by SLUICE_MODULE_V1 */
	const char *name;              /* "imtcp" */
	const char *description;
	enum mod_type type;
	unsigned flags;
	const struct param_table *mod_params;   /* module(load=...) params; may be NULL */
	const struct param_table *inst_params;  /* input()/action() params */
	/* module(load=...) with its parsed params (ownership passes); returns
	 * the module's global data. Called once even without module(). */
	void *(*mod_init)(void *mod_cfg, int *n_errors);
	void (*mod_exit)(void *mod);
	const struct output_ops *output;
	const struct input_ops *input;
};

#define SLUICE_MODULE_V1 .abi = SLUICE_MODULE_ABI

/* A loadable module exports one symbol of this name. */
#define SLUICE_MODULE_SYMBOL "sluice_module"

/* Find a module by name: the built-in ones first, then a shared object
 * from the module directory. Reports errors at `pos`. */
struct cfg_pos;
const struct module *module_find(const char *name, const struct cfg_pos *pos);
/* Like module_find, but a module that is not there is no error (NULL);
 * used for the modules rsyslog has built in (omfwd, omusrmsg). */
const struct module *module_find_quiet(const char *name);
/* Where loadable modules are looked for (set from -M or the build tree). */
void module_set_dir(const char *dir);

#endif
