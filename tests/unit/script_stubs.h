/* script_stubs.h — shared by the RainerScript unit tests (test_grammar.c,
 * test_script_funcs.c): stubs of the core's action_exec() and
 * ruleset_exec_sync() that record the calls, a resolver that makes them,
 * hand-built messages, and helpers that parse, compile, run and evaluate
 * config text. Include it once, after the Check, ast, msg, prop and
 * script headers. Threading: single-threaded.
 */
#ifndef SLUICE_TEST_SCRIPT_STUBS_H
#define SLUICE_TEST_SCRIPT_STUBS_H
static char calls[1024];

struct action { char name[32]; };
struct ruleset { char name[32]; struct script_stmt *script; };

void action_exec(struct action *a, struct msg *m, struct exec_ctx *ctx)
{
	(void)m; (void)ctx;
	strncat(calls, a->name, sizeof(calls) - strlen(calls) - 1);
	strncat(calls, ";", sizeof(calls) - strlen(calls) - 1);
}

void ruleset_exec_sync(struct ruleset *rs, struct msg *m, struct exec_ctx *ctx)
{
	strncat(calls, "call:", sizeof(calls) - strlen(calls) - 1);
	strncat(calls, rs->name, sizeof(calls) - strlen(calls) - 1);
	strncat(calls, ";", sizeof(calls) - strlen(calls) - 1);
	script_exec(rs->script, m, ctx);
}

static struct action acts[64];
static int n_acts;
static struct ruleset rsets[4];
static int n_rsets;

/* action name = its "name" param, else the legacy text, else "A<seq>" */
static struct action *mk_action(struct cfg_obj *o, void *arg)
{
	(void)arg;
	struct action *a = &acts[n_acts++];
	struct cfg_param *p = cfg_obj_param(o, "name");
	if (!p)
		p = cfg_obj_param(o, "legacy");
	if (p)
		snprintf(a->name, sizeof(a->name), "%s", p->val.str);
	else
		snprintf(a->name, sizeof(a->name), "A%u", o->seq);
	return a;
}

static struct ruleset *find_rs(const char *name, void *arg)
{
	(void)arg;
	for (int i = 0; i < n_rsets; i++)
		if (!strcmp(rsets[i].name, name))
			return &rsets[i];
	return NULL;
}

static const struct script_resolver resolver = { mk_action, find_rs, NULL };

/* ---- helpers ---- */

static char errbuf[8192];

/* Parse a config, capturing stderr into errbuf. */
static struct cfg_tree *parse(const char *text, int *nerr)
{
	fflush(stderr);
	int saved = dup(2);
	FILE *tf = tmpfile();
	dup2(fileno(tf), 2);
	struct cfg_tree *t = cfg_parse_string(text, "test.conf", nerr);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tf);
	size_t n = fread(errbuf, 1, sizeof(errbuf) - 1, tf);
	errbuf[n] = '\0';
	fclose(tf);
	return t;
}

static struct msg *mk_msg(const char *raw, int fac, int sev, const char *tag)
{
	struct syslog_time t;
	memset(&t, 0, sizeof(t));
	struct msg *m = msg_create(raw, strlen(raw), NULL, &t, 0);
	m->facility = (uint8_t)fac;
	m->severity = (uint8_t)sev;
	m->pri = (uint16_t)(fac * 8 + sev);
	m->flags |= MSG_PARSED | MSG_HAS_TAG;
	const char *sp = strchr(raw, ' ');
	if (tag) {
		m->tag.off = 0;
		m->tag.len = (uint32_t)strlen(tag);
		m->programname_len = (uint32_t)strcspn(tag, "[:");
	}
	m->msg.off = sp ? (uint32_t)(sp - raw) : 0;
	m->msg.len = (uint32_t)strlen(raw) - m->msg.off;
	return m;
}

/* Run a config's default script on a message; returns the calls made. */
static const char *run(const char *cfg, struct msg *m)
{
	int nerr = 0;
	struct cfg_tree *t = parse(cfg, &nerr);
	ck_assert_msg(t != NULL, "parse failed: %s", errbuf);
	n_acts = 0;
	calls[0] = '\0';
	script_compile(t->script, &resolver, &nerr);
	ck_assert_msg(nerr == 0, "compile failed: %s", errbuf);
	struct exec_ctx ctx;
	exec_ctx_init(&ctx);
	script_exec(t->script, m, &ctx);
	exec_ctx_fini(&ctx);
	script_release(t->script);
	cfg_tree_free(t);
	return calls;
}

/* Evaluate `set $!r = EXPR;` and return $!r as JSON text. */
static char jres[512];
static const char *eval(const char *expr)
{
	char cfg[1024];
	snprintf(cfg, sizeof(cfg), "set $!r = %s;\n", expr);
	struct msg *m = mk_msg("prog: hello world", 1, 5, "prog:");
	run(cfg, m);
	struct fjson_object *r = NULL;
	ck_assert(m->json && fjson_object_object_get_ex(m->json, "r", &r));
	snprintf(jres, sizeof(jres), "%s", fjson_object_to_json_string(r));
	msg_release(m);
	return jres;
}

/* Expect a parse or compile error with this exact first line. */
static void expect_error(const char *cfg, const char *want)
{
	int nerr = 0;
	struct cfg_tree *t = parse(cfg, &nerr);
	if (t) {
		fflush(stderr);
		int saved = dup(2);
		FILE *tf = tmpfile();
		dup2(fileno(tf), 2);
		script_compile(t->script, &resolver, &nerr);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		rewind(tf);
		size_t n = fread(errbuf, 1, sizeof(errbuf) - 1, tf);
		errbuf[n] = '\0';
		fclose(tf);
		script_release(t->script);
		cfg_tree_free(t);
	}
	ck_assert_int_gt(nerr, 0);
	char first[1024];
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(errbuf, "\n"), errbuf);
	ck_assert_str_eq(first, want);
}

#endif
