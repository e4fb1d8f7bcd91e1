/* conf.c — from the parsed configuration to the running daemon: applies
 * global() and main_queue(), loads modules, creates templates, rulesets,
 * inputs and actions, compiles the scripts; then starts and stops them in
 * the right order.
 *
 * Threading: conf_load/conf_start/conf_stop run on the main thread. Each
 * input runs on a thread of its own, started by conf_start.
 */
#include "conf.h"
#include "action.h"
#include "ast.h"
#include "glbl.h"
#include "legacy.h"
#include "parser.h"
#include "log.h"
#include "module.h"
#include "ruleset.h"
#include "script.h"
#include "sdnotify.h"
#include "template.h"
#include "lookup.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

struct mod_inst {
	const struct module *mod;
	void *data;
	struct cfg_obj *obj;      /* its module() object, NULL for $ModLoad */
	struct cfg_pos pos;       /* where it was first named */
	bool inited;
	struct mod_inst *next;
};

struct input_inst {
	const struct module *mod;
	void *inst;
	pthread_t thread;
	bool running;
	struct input_inst *next;
};

static struct cfg_tree *tree;
static struct mod_inst *mods, *mods_tail;
static struct input_inst *inputs;
static struct queue_cfg main_qcfg;
static bool have_main_queue_obj;
static bool persistent_queues; /* conf_persistent_queues() */

static const char *param_str(struct cfg_param *p)
{
	return p->val.is_array ? (p->val.n_arr ? p->val.arr[0] : "") : p->val.str;
}

static struct mod_inst *mod_loaded(const struct module *m)
{
	for (struct mod_inst *mi = mods; mi; mi = mi->next)
		if (mi->mod == m)
			return mi;
	return NULL;
}

/* module(load=...) or $ModLoad, pass 1: find the module and remember it;
 * it is initialised after pass 1 (register_done), when the legacy
 * directives that set its module parameters have all been seen. */
static struct mod_inst *load_module(const char *name, struct cfg_obj *o,
				    const struct cfg_pos *pos, int *n_errors)
{
	const struct module *m = module_find(name, pos);
	if (!m) {
		(*n_errors)++;
		return NULL;
	}
	struct mod_inst *mi = mod_loaded(m);
	if (mi) {
		if (o && o->params && o->params->next) {
			if (mi->obj) {
				cfg_error(pos, "module '%s' is already loaded (at %s:%d); its parameters "
					  "can be given only once", m->name, mi->obj->pos.file,
					  mi->obj->pos.line);
				(*n_errors)++;
			} else {
				mi->obj = o;  /* $ModLoad then module() with params */
			}
		}
		if (o) {
			for (struct cfg_param *p = o->params; p; p = p->next)
				if (!strcmp(p->name, "load"))
					p->used = true;
		}
		legacy_module_known(m, o);
		return mi;
	}
	mi = sl_xcalloc(1, sizeof(*mi));
	mi->mod = m;
	mi->obj = o;
	if (pos)
		mi->pos = *pos;
	if (mods_tail)
		mods_tail->next = mi;
	else
		mods = mi;
	mods_tail = mi;
	legacy_module_known(m, o);
	return mi;
}

/* Parse a module's parameters (its module() object merged with the
 * legacy directives that set them) and call its mod_init. */
static void init_module(struct mod_inst *mi, int *n_errors)
{
	const struct module *m = mi->mod;
	static const char *const skip[] = { "load", NULL };
	struct cfg_obj tmp = { .type = CFG_OBJ_MODULE, .pos = mi->pos };
	struct cfg_obj *o = mi->obj;
	if (!o) {
		o = &tmp;
		struct cfg_param *lp = sl_xcalloc(1, sizeof(*lp));
		lp->name = sl_xstrdup("load");
		lp->val.str = sl_xstrdup(m->name);
		lp->pos = mi->pos;
		tmp.params = lp;
	}
	bool as_legacy = legacy_merge_module(m, o);
	void *cfg = NULL;
	int errs = 0;
	if (m->mod_params && as_legacy) {
		/* legacy names without a twin: parse as a legacy object (see
		 * legacy.h); "type" labels the errors with the module name */
		static const char *const skip2[] = { "load", "type", NULL };
		enum cfg_obj_type saved = o->type;
		struct cfg_param tp = { .name = (char *)"type", .pos = o->pos };
		tp.val.str = (char *)m->name;
		tp.next = o->params;
		o->params = &tp;
		o->type = CFG_OBJ_LEGACY;
		cfg = param_parse(m->mod_params, o, skip2, &errs);
		o->type = saved;
		o->params = tp.next;
	} else if (m->mod_params) {
		cfg = param_parse(m->mod_params, o, skip, &errs);
	} else {
		for (struct cfg_param *p = o->params; p; p = p->next)
			if (strcmp(p->name, "load") != 0 && !p->used) {
				cfg_error(&p->pos, "module '%s' takes no parameter '%s'", m->name, p->name);
				errs++;
			}
	}
	if (!errs && mi->obj && (m->type & MOD_OUTPUT)) {
		struct cfg_param *tp = cfg_obj_param(mi->obj, "template");
		if (tp)
			action_set_module_default_template(m, param_str(tp));
	}
	if (o == &tmp) {
		cfg_param_free(tmp.params);
		tmp.params = NULL;
	}
	if (errs) {
		*n_errors += errs;
		param_free(m->mod_params, cfg);
		return;
	}
	errs = 0;
	mi->data = m->mod_init ? m->mod_init(cfg, &errs) : cfg;
	if (errs) {
		*n_errors += errs;
		return;
	}
	mi->inited = true;
}

/* global() objects and the legacy directives of global settings, parsed
 * together through glbl_table: a later global() value of the same name
 * replaces an earlier one, a global() value wins over a `$Directive`. */
static void apply_globals(int *n_errors)
{
	struct cfg_obj merged = { .type = CFG_OBJ_GLOBAL };
	struct cfg_param **tail = &merged.params;
	bool have_umask = false;
	for (struct cfg_obj *o = tree->objs; o; o = o->next) {
		if (o->type != CFG_OBJ_GLOBAL)
			continue;
		if (!merged.pos.file)
			merged.pos = o->pos;
		for (struct cfg_param *p = o->params; p; p = p->next) {
			p->used = true;
			struct cfg_param *q;
			for (q = merged.params; q; q = q->next)
				if (!strcmp(q->name, p->name))
					break;
			if (!q) {
				q = sl_xcalloc(1, sizeof(*q));
				q->name = sl_xstrdup(p->name);
				*tail = q;
				tail = &q->next;
			} else {
				free(q->val.str);
				for (int i = 0; i < q->val.n_arr; i++)
					free(q->val.arr[i]);
				free(q->val.arr);
			}
			q->pos = p->pos;
			q->val.is_array = p->val.is_array;
			q->val.str = p->val.str ? sl_xstrdup(p->val.str) : NULL;
			q->val.n_arr = p->val.n_arr;
			q->val.arr = NULL;
			if (p->val.is_array) {
				q->val.arr = sl_xcalloc((size_t)p->val.n_arr + 1, sizeof(char *));
				for (int i = 0; i < p->val.n_arr; i++)
					q->val.arr[i] = sl_xstrdup(p->val.arr[i]);
			}
		}
	}
	legacy_merge_global(&merged);
	for (struct cfg_param *p = merged.params; p; p = p->next)
		if (!strcmp(p->name, "umask"))
			have_umask = true;
	int errs = 0;
	void *g = param_parse(&glbl_table, &merged, glbl_ignored, &errs);
	cfg_param_free(merged.params);
	*n_errors += errs;
	glbl_apply(g);
	if (!have_umask)
		glbl.umask = -1;
}

/* `$Directive` lines: the two that build objects here, the rest in
 * legacy.c. */
static void apply_legacy(struct cfg_obj *o, int *n_errors)
{
	const char *d = o->legacy_name;
	struct cfg_param *vp = cfg_obj_param(o, "value");
	const char *v = vp ? param_str(vp) : "";
	if (!strcmp(d, "modload")) {
		size_t l = strcspn(v, " \t");
		char *name = sl_xstrndup(v, l);
		const char *rest = v + l + strspn(v + l, " \t");
		if (!*name) {
			cfg_error(&o->pos, "$ModLoad needs a module name");
			(*n_errors)++;
		} else if (*rest && *rest != '#') {
			cfg_error(&o->pos, "$ModLoad: extra characters after the module name: '%s'", rest);
			(*n_errors)++;
		} else {
			load_module(name, NULL, &o->pos, n_errors);
		}
		free(name);
	} else if (!strcmp(d, "template")) {
		if (tpl_create_legacy(v, &o->pos) != SL_OK)
			(*n_errors)++;
	} else {
		legacy_directive(o, n_errors);
	}
}

static struct ruleset *resolver_find_ruleset(const char *name, void *arg)
{
	(void)arg;
	return ruleset_lookup(name);
}

/* script_compile counts one error for an action it gets no object for;
 * what went wrong is reported (with FILE:LINE) by the layers below. */
static struct action *resolver_make_action(struct cfg_obj *o, void *arg)
{
	(void)arg;
	int errs = 0;
	bool as_legacy = legacy_prepare_action(o, &errs);
	if (errs)
		return NULL;
	if (!as_legacy)
		return action_create(o, &errs);
	/* legacy names without a twin (see legacy.h) */
	o->type = CFG_OBJ_LEGACY;
	struct action *a = action_create(o, &errs);
	o->type = CFG_OBJ_ACTION;
	return a;
}

static void create_input(struct cfg_obj *o, int *n_errors)
{
	struct cfg_param *tp = cfg_obj_param(o, "type");
	if (!tp) {
		cfg_error(&o->pos, "input() needs a type= parameter naming its input module");
		(*n_errors)++;
		return;
	}
	const struct module *m = module_find(param_str(tp), &o->pos);
	if (!m) {
		(*n_errors)++;
		return;
	}
	if (!(m->type & MOD_INPUT) || !m->input) {
		cfg_error(&o->pos, "module '%s' is not an input module", m->name);
		(*n_errors)++;
		return;
	}
	struct mod_inst *mi = mod_loaded(m);
	if (mi && !mi->inited) {
		(*n_errors)++; /* its module() errors are reported already */
		return;
	}
	if (!mi) {
		cfg_error(&o->pos, "input module '%s' is not loaded; add module(load=\"%s\") "
			  "before this input()", m->name, m->name);
		(*n_errors)++;
		return;
	}
	static const char *const skip[] = { "type", NULL };
	int errs = 0;
	const char *dflt_rs = legacy_default_ruleset();
	if (dflt_rs && !cfg_obj_param(o, "ruleset") && m->inst_params) {
		for (size_t i = 0; i < m->inst_params->n; i++) {
			if (!strcasecmp(m->inst_params->params[i].name, "ruleset")) {
				struct cfg_param *rp = sl_xcalloc(1, sizeof(*rp));
				rp->name = sl_xstrdup("ruleset");
				rp->val.str = sl_xstrdup(dflt_rs);
				rp->pos = o->pos;
				rp->next = o->params;
				o->params = rp;
				break;
			}
		}
	}
	void *cfg = m->inst_params ? param_parse(m->inst_params, o, skip, &errs) : NULL;
	if (errs) {
		*n_errors += errs;
		param_free(m->inst_params, cfg);
		return;
	}
	void *in = m->input->in_create(mi->data, cfg, o, &errs);
	if (!in || errs) {
		*n_errors += errs ? errs : 1;
		return;
	}
	struct input_inst *ii = sl_xcalloc(1, sizeof(*ii));
	ii->mod = m;
	ii->inst = in;
	struct input_inst **tail = &inputs;
	while (*tail)
		tail = &(*tail)->next;
	*tail = ii;
}

static void check_unused(struct cfg_obj *o, const char *what, int *n_errors)
{
	for (struct cfg_param *p = o->params; p; p = p->next) {
		if (!p->used) {
			cfg_error(&p->pos, "parameter '%s' is not known for %s", p->name, what);
			(*n_errors)++;
		}
	}
}

static const char *const qtype_names[] = { "Direct", "FixedArray", "LinkedList", "Disk" };

static const char *qtype_name(enum queue_type t)
{
	return (unsigned)t < SL_ARRAY_SIZE(qtype_names) ? qtype_names[t] : "?";
}

/* -d: what the configuration became (modules, inputs, rulesets,
 * actions with the settings legacy lines gave them). */
static void debug_dump(void)
{
	for (struct mod_inst *mi = mods; mi; mi = mi->next)
		sl_dbg("config: module %s%s", mi->mod->name, mi->inited ? "" : " (not initialised)");
	int n = 0;
	for (struct input_inst *ii = inputs; ii; ii = ii->next)
		sl_dbg("config: input %d: %s", n++, ii->mod->name);
	sl_dbg("config: main queue %s size %lld batch %lld workers %lld", qtype_name(main_qcfg.type),
	       (long long)main_qcfg.size, (long long)main_qcfg.dequeue_batch_size,
	       (long long)main_qcfg.worker_threads);
	for (struct ruleset *rs = ruleset_first(); rs; rs = rs->next)
		sl_dbg("config: ruleset %s%s", rs->name, rs->queue ? " (own queue)" : "");
	for (struct action *a = action_first(); a; a = a->next) {
		if (a->discard) {
			sl_dbg("config: action %s: discard (~)", a->name);
			continue;
		}
		sl_dbg("config: action %s: module %s template %s queue %s retry %lld every %lld s%s",
		       a->name, a->mod->name, a->tpl ? tpl_name(a->tpl) : "-", qtype_name(a->qcfg.type),
		       (long long)a->resume_retry_count, (long long)a->resume_interval,
		       a->exec_only_when_prev_suspended ? " only when previous is suspended" : "");
	}
}

enum sl_rc conf_load(const char *path, bool check_only)
{
	int n_errors = 0;
	(void)check_only;
	tpl_init_builtins();
	tree = cfg_parse_file(path, &n_errors);
	if (!tree)
		return SL_ERR_CONFIG;

	legacy_begin(tree);
	/* The built-in output module is always loaded. */
	load_module("omfile", NULL, NULL, &n_errors);
	/* rsyslog has omfwd and omusrmsg built in: legacy actions and their
	 * $Directives work without $ModLoad, so they are loaded here when
	 * this build has them. */
	static const char *const auto_mods[] = { "omfwd", "omusrmsg" };
	for (size_t i = 0; i < SL_ARRAY_SIZE(auto_mods); i++)
		if (module_find_quiet(auto_mods[i]))
			load_module(auto_mods[i], NULL, NULL, &n_errors);
	ruleset_default();

	/* Pass 1: settings, modules, templates, rulesets (so that later
	 * objects can refer to them whatever the order in the file). */
	for (struct cfg_obj *o = tree->objs; o; o = o->next) {
		switch (o->type) {
		case CFG_OBJ_GLOBAL:
			break; /* after pass 1, with the legacy directives */
		case CFG_OBJ_MAIN_QUEUE:
			have_main_queue_obj = true;
			break;
		case CFG_OBJ_MODULE: {
			struct cfg_param *lp = cfg_obj_param(o, "load");
			if (!lp) {
				cfg_error(&o->pos, "module() needs a load= parameter");
				n_errors++;
				break;
			}
			load_module(param_str(lp), o, &o->pos, &n_errors);
			break;
		}
		case CFG_OBJ_TEMPLATE:
			if (tpl_create_from_obj(o) != SL_OK)
				n_errors++;
			break;
		case CFG_OBJ_RULESET: {
			struct cfg_param *np = cfg_obj_param(o, "name");
			if (!np) {
				cfg_error(&o->pos, "ruleset() needs a name= parameter");
				n_errors++;
				break;
			}
			struct ruleset *rs = ruleset_lookup(param_str(np));
			if (rs && rs->script) {
				cfg_error(&o->pos, "ruleset '%s' is defined twice", param_str(np));
				n_errors++;
				break;
			}
			if (!rs)
				rs = ruleset_create(param_str(np));
			rs->script = o->script;
			o->resolved = rs;
			break;
		}
		case CFG_OBJ_LEGACY:
			apply_legacy(o, &n_errors);
			break;
		case CFG_OBJ_TIMEZONE:
			if (tz_create_from_obj(o) != SL_OK)
				n_errors++;
			break;
		case CFG_OBJ_LOOKUP_TABLE:
			if (lookup_table_create(o) != SL_OK)
				n_errors++;
			break;
		case CFG_OBJ_DYN_STATS:
			if (dynstats_bucket_create(o) != SL_OK)
				n_errors++;
			break;
		case CFG_OBJ_PERCENTILE_STATS:
			if (percentile_bucket_create(o) != SL_OK)
				n_errors++;
			break;
		case CFG_OBJ_PARSER:
			parser_create_from_obj(o, &n_errors);
			break;
		default:
			break;
		}
	}

	apply_globals(&n_errors);
	if (glbl.umask >= 0)
		umask((mode_t)glbl.umask);
	/* Modules now, with their legacy module settings merged in. */
	for (struct mod_inst *mi = mods; mi; mi = mi->next)
		init_module(mi, &n_errors);

	/* The main queue: main_queue() gets the modern defaults, otherwise
	 * rsyslog's legacy main-queue defaults apply (REFERENCE §4), also
	 * when $MainMsgQueue... lines set some of them (doc/migrating.md). */
	queue_cfg_defaults(&main_qcfg, QUEUE_ROLE_MAIN, !have_main_queue_obj);
	if (legacy_have_main_queue()) {
		struct cfg_obj lq = { .type = CFG_OBJ_MAIN_QUEUE };
		legacy_merge_main_queue(&lq);
		if (!queue_cfg_from_obj(&main_qcfg, &lq))
			n_errors++;
		cfg_param_free(lq.params);
	}
	for (struct cfg_obj *o = tree->objs; o; o = o->next) {
		if (o->type == CFG_OBJ_MAIN_QUEUE) {
			if (!queue_cfg_from_obj(&main_qcfg, o))
				n_errors++;
			check_unused(o, "main_queue()", &n_errors);
		}
	}
	if (main_qcfg.type == QUEUE_DIRECT)
		main_qcfg.type = QUEUE_FIXED_ARRAY; /* rsyslog refuses a direct main queue too */
	persistent_queues = main_qcfg.filename || main_qcfg.type == QUEUE_DISK;

	/* Rulesets with queue.* parameters get a queue of their own. */
	for (struct cfg_obj *o = tree->objs; o; o = o->next) {
		if (o->type != CFG_OBJ_RULESET || !o->resolved)
			continue;
		struct ruleset *rs = o->resolved;
		bool has_q = false;
		for (struct cfg_param *p = o->params; p; p = p->next) {
			if (!strcmp(p->name, "name") || !strcmp(p->name, "legacy"))
				p->used = true;
			else if (!strncmp(p->name, "queue.", 6))
				has_q = true;
			else if (!strcmp(p->name, "parser")) {
				/* the ruleset's parser chain, in this order */
				p->used = true;
				if (p->val.is_array) {
					for (int i = 0; i < p->val.n_arr; i++)
						if (!parser_chain_add(&rs->parsers, p->val.arr[i], &p->pos))
							n_errors++;
				} else if (!parser_chain_add(&rs->parsers, p->val.str ? p->val.str : "",
							     &p->pos)) {
					n_errors++;
				}
			}
		}
		if (has_q) {
			struct queue_cfg qc;
			queue_cfg_defaults(&qc, QUEUE_ROLE_RULESET, false);
			if (!queue_cfg_from_obj(&qc, o))
				n_errors++;
			else if (qc.type != QUEUE_DIRECT)
				rs->queue = queue_create(rs->name, &qc, ruleset_consume, rs);
			if (qc.filename || qc.type == QUEUE_DISK)
				persistent_queues = true;
			queue_cfg_free(&qc);
		}
		check_unused(o, "ruleset()", &n_errors);
	}

	/* Pass 2: inputs. */
	for (struct cfg_obj *o = tree->objs; o; o = o->next)
		if (o->type == CFG_OBJ_INPUT)
			create_input(o, &n_errors);
	for (struct cfg_obj *o = legacy_inputs(); o; o = o->next)
		create_input(o, &n_errors);
	/* Inputs that modules run without an input() (imuxsock's system
	 * socket, imklog): see input_ops.mod_input. */
	for (struct mod_inst *mi = mods; mi; mi = mi->next) {
		if (!mi->mod->input || !mi->mod->input->mod_input)
			continue;
		int errs = 0;
		void *in = mi->mod->input->mod_input(mi->data, &errs);
		n_errors += errs;
		if (!in)
			continue;
		struct input_inst *ii = sl_xcalloc(1, sizeof(*ii));
		ii->mod = mi->mod;
		ii->inst = in;
		struct input_inst **tail = &inputs;
		while (*tail)
			tail = &(*tail)->next;
		*tail = ii;
	}

	/* Scripts: the default ruleset's top-level statements and each
	 * ruleset's body; actions are created here, in source order. */
	struct script_resolver r = {
		.make_action = resolver_make_action,
		.find_ruleset = resolver_find_ruleset,
	};
	struct ruleset *dflt = ruleset_default();
	if (!dflt->script)
		dflt->script = tree->script;
	else if (tree->script) {
		cfg_error(&tree->script->pos, "statements outside a ruleset while ruleset '%s' "
			  "is also defined", RULESET_DEFAULT_NAME);
		n_errors++;
	}
	script_compile(dflt->script, &r, &n_errors);
	for (struct cfg_obj *o = tree->objs; o; o = o->next)
		if (o->type == CFG_OBJ_RULESET && o->resolved && o->resolved != dflt)
			script_compile(((struct ruleset *)o->resolved)->script, &r, &n_errors);


	if (sl_debug_on)
		debug_dump();
	if (n_errors) {
		sl_err("%d error%s in the configuration %s", n_errors, n_errors == 1 ? "" : "s", path);
		return SL_ERR_CONFIG;
	}
	return SL_OK;
}

static void *input_thread(void *arg)
{
	struct input_inst *ii = arg;
	ii->mod->input->in_run(ii->inst);
	return NULL;
}

bool conf_persistent_queues(void)
{
	return persistent_queues;
}

enum sl_rc conf_start(void)
{
	main_queue = queue_create("main Q", &main_qcfg, ruleset_consume, NULL);
	enum sl_rc rc = action_start_all();
	if (rc != SL_OK)
		return rc;
	if ((rc = queue_start(main_queue)) != SL_OK)
		return rc;
	for (struct ruleset *rs = ruleset_first(); rs; rs = rs->next)
		if (rs->queue && (rc = queue_start(rs->queue)) != SL_OK)
			return rc;
	/* Bind every listener before any input thread runs, so that a
	 * failure to bind stops the start cleanly. */
	for (struct input_inst *ii = inputs; ii; ii = ii->next) {
		if (ii->mod->input->in_start && (rc = ii->mod->input->in_start(ii->inst)) != SL_OK) {
			sl_err("input %s: cannot start: %s", ii->mod->name, sl_strerror(rc));
			return rc;
		}
	}
	for (struct input_inst *ii = inputs; ii; ii = ii->next) {
		int e = pthread_create(&ii->thread, NULL, input_thread, ii);
		if (e) {
			sl_err("input %s: cannot start thread: %s", ii->mod->name, strerror(e));
			return SL_ERR_NOMEM;
		}
		ii->running = true;
	}
	sl_set_ready(true); /* /readyz, READY=1 (sdnotify.h) */
	return SL_OK;
}

void conf_stop(void)
{
	/* Inputs first (they submit what they have), then the queues in the
	 * order messages flow: rulesets, main, actions. */
	for (struct input_inst *ii = inputs; ii; ii = ii->next)
		if (ii->running && ii->mod->input->in_stop)
			ii->mod->input->in_stop(ii->inst);
	for (struct input_inst *ii = inputs; ii; ii = ii->next)
		if (ii->running) {
			pthread_join(ii->thread, NULL);
			ii->running = false;
		}
	for (struct ruleset *rs = ruleset_first(); rs; rs = rs->next)
		if (rs->queue)
			queue_drain_and_stop(rs->queue);
	if (main_queue)
		queue_drain_and_stop(main_queue);
	action_stop_all();
}

void conf_hup(void)
{
	action_hup_all();
	lookup_reload_all();
}

void conf_tick(void)
{
	action_tick_all();
}

void conf_destroy(void)
{
	while (inputs) {
		struct input_inst *ii = inputs;
		inputs = ii->next;
		if (ii->mod->input->in_destroy)
			ii->mod->input->in_destroy(ii->inst);
		free(ii);
	}
	queue_destroy(main_queue);
	main_queue = NULL;
	ruleset_destroy_all();
	parser_destroy_all();
	action_destroy_all();
	while (mods) {
		struct mod_inst *mi = mods;
		mods = mi->next;
		if (mi->inited && mi->mod->mod_exit)
			mi->mod->mod_exit(mi->data);
		free(mi);
	}
	mods_tail = NULL;
	legacy_end();
	tpl_destroy_all();
	lookup_destroy_all();
	cfg_tree_free(tree);
	tree = NULL;
	queue_cfg_free(&main_qcfg);
}
