/* fuzz_config.c — fuzz harness for RainerScript: the lexer and grammar
 * (grammar/lexer.l, grammar/rainerscript.y, grammar/ast.c) on random
 * configuration text, then the script compiler (runtime/script.c,
 * runtime/script_func.c, runtime/script_regex.c: names, functions,
 * regexes, selectors, constant folding) with a stub resolver, and — when
 * the configuration compiled cleanly — the executor on two parsed
 * messages. Templates the text defines (template() and `$template`) are
 * created first, so exec_template() can find them.
 *
 * Input: the configuration text. Text that would read files (`cat FILE`,
 * include(file=...), $IncludeConfig) is skipped: see
 * fz_config_reads_files(), and so is text with regexes that glibc would
 * take gigabytes to compile (fz_regex_blowup()).
 *
 * The stubs: every action is one dummy that counts calls; `call` and
 * call_indirect find rulesets among the ruleset() objects and run their
 * script, at most 8 calls deep (a ruleset calling itself is legal).
 *
 * Checks: ASan/UBSan and LeakSanitizer over parsing, compiling,
 * executing and freeing; a tree is returned exactly when no error was
 * counted.
 *
 * Threading: single-threaded (libFuzzer).
 */
#include "fuzz_common.h"
#include "ast.h"
#include "script.h"

#include <json.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct action {
	unsigned calls;
};
struct ruleset {
	const char *name;
	struct script_stmt *script;
};

#define MAX_RULESETS 64
#define MAX_CALL_DEPTH 8

static struct action dummy_action;
static struct ruleset rulesets[MAX_RULESETS];
static int n_rulesets;
static int call_depth;

void action_exec(struct action *a, struct msg *m, struct exec_ctx *ctx)
{
	(void)m;
	(void)ctx;
	a->calls++;
}

void ruleset_exec_sync(struct ruleset *rs, struct msg *m, struct exec_ctx *ctx)
{
	if (call_depth >= MAX_CALL_DEPTH)
		return;
	call_depth++;
	script_exec(rs->script, m, ctx);
	call_depth--;
}

static struct action *make_action(struct cfg_obj *o, void *arg)
{
	(void)o;
	(void)arg;
	return &dummy_action;
}

static struct ruleset *find_ruleset(const char *name, void *arg)
{
	(void)arg;
	for (int i = 0; i < n_rulesets; i++)
		if (!strcmp(rulesets[i].name, name))
			return &rulesets[i];
	return NULL;
}

static const struct script_resolver resolver = { make_action, find_ruleset, NULL };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

/* The templates a configuration defines, as conf.c would create them. */
static void make_templates(struct cfg_tree *ct)
{
	for (struct cfg_obj *o = ct->objs; o; o = o->next) {
		if (o->type == CFG_OBJ_TEMPLATE) {
			(void)tpl_create_from_obj(o);
		} else if (o->type == CFG_OBJ_LEGACY && o->legacy_name &&
			   !strcmp(o->legacy_name, "template")) {
			struct cfg_param *v = cfg_obj_param(o, "value");
			if (v && !v->val.is_array && v->val.str)
				(void)tpl_create_legacy(v->val.str, &o->pos);
		}
	}
}

static void run_on(struct cfg_tree *ct, const char *raw)
{
	struct exec_ctx ctx;
	struct msg *m = fz_parsed_msg(raw, strlen(raw), 0);
	exec_ctx_init(&ctx);
	call_depth = 0;
	script_exec(ct->script, m, &ctx);
	for (int i = 0; i < n_rulesets; i++) {
		ctx.stopped = false;
		script_exec(rulesets[i].script, m, &ctx);
	}
	exec_ctx_fini(&ctx);
	msg_release(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 16384 || fz_config_reads_files(data, size) || fz_regex_blowup(data, size))
		return 0;
	char *text = strndup((const char *)data, size);
	if (!text)
		return 0;
	int nerr = 0;
	struct cfg_tree *ct = cfg_parse_string(text, "fuzz.conf", &nerr);
	free(text);
	if ((ct != NULL) != (nerr == 0))
		FZ_FAIL("cfg_parse_string returned %p with %d errors", (void *)ct, nerr);
	if (!ct)
		return 0;

	struct template **mark = fz_tpl_mark();
	make_templates(ct);
	n_rulesets = 0;
	for (struct cfg_obj *o = ct->objs; o && n_rulesets < MAX_RULESETS; o = o->next) {
		if (o->type != CFG_OBJ_RULESET)
			continue;
		struct cfg_param *n = cfg_obj_param(o, "name");
		if (!n || n->val.is_array || !n->val.str)
			continue;
		rulesets[n_rulesets].name = n->val.str;
		rulesets[n_rulesets].script = o->script;
		n_rulesets++;
	}
	int cerr = 0;
	script_compile(ct->script, &resolver, &cerr);
	for (int i = 0; i < n_rulesets; i++)
		script_compile(rulesets[i].script, &resolver, &cerr);
	if (cerr == 0) {
		run_on(ct, "<134>Mar  1 01:02:03 host1 prog[123]: hello world 192.0.2.1 {\"a\":1}");
		run_on(ct, "<165>1 2003-10-11T22:14:15.003Z mymachine evntslog 77 ID47 "
			   "[ex@32473 iut=\"3\"] @cee: {\"x\":[1,2,{\"y\":\"z\"}]}");
	}
	script_release(ct->script);
	for (int i = 0; i < n_rulesets; i++)
		script_release(rulesets[i].script);
	fz_tpl_drop(mark);
	cfg_tree_free(ct);

	/* $/ persists across messages by design; not across inputs */
	prop_globals_lock();
	json_object_put(*prop_globals_root());
	*prop_globals_root() = NULL;
	prop_globals_unlock();
	return 0;
}
