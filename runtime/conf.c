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
#include "log.h"
#include "module.h"
#include "ruleset.h"
#include "script.h"
#include "template.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct mod_inst {
	const struct module *mod;
	void *data;
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
static struct mod_inst *mods;
static struct input_inst *inputs;
static struct queue_cfg main_qcfg;
static bool have_main_queue_obj;

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

/* module(load=...) or $ModLoad: load and initialise once. */
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
		if (o && o->params && o->params->next)
			cfg_error(pos, "module '%s' is already loaded; its parameters can be "
				  "given only once", m->name), (*n_errors)++;
		return mi;
	}
	static const char *const skip[] = { "load", NULL };
	void *cfg = NULL;
	int errs = 0;
	if (m->mod_params) {
		if (o)
			cfg = param_parse(m->mod_params, o, skip, &errs);
		else
			cfg = param_defaults(m->mod_params);
	} else if (o) {
		for (struct cfg_param *p = o->params; p; p = p->next)
			if (strcmp(p->name, "load") != 0 && !p->used) {
				cfg_error(&p->pos, "module '%s' takes no parameter '%s'", m->name, p->name);
				errs++;
			}
	}
	if (errs) {
		*n_errors += errs;
		param_free(m->mod_params, cfg);
		return NULL;
	}
	if (o && (m->type & MOD_OUTPUT)) {
		struct cfg_param *tp = cfg_obj_param(o, "template");
		if (tp)
			action_set_module_default_template(m, param_str(tp));
	}
	mi = sl_xcalloc(1, sizeof(*mi));
	mi->mod = m;
	errs = 0;
	mi->data = m->mod_init ? m->mod_init(cfg, &errs) : cfg;
	if (errs) {
		*n_errors += errs;
		free(mi);
		return NULL;
	}
	mi->next = mods;
	mods = mi;
	return mi;
}

static bool set_size(struct cfg_param *p, int64_t *out)
{
	if (!param_value_size(param_str(p), out)) {
		cfg_error(&p->pos, "parameter '%s': '%s' is not a size", p->name, param_str(p));
		return false;
	}
	return true;
}

static bool set_bool(struct cfg_param *p, bool *out)
{
	if (!param_value_bool(param_str(p), out)) {
		cfg_error(&p->pos, "parameter '%s': expected \"on\" or \"off\", not '%s'",
			  p->name, param_str(p));
		return false;
	}
	return true;
}

static void set_str(char **dst, struct cfg_param *p)
{
	free(*dst);
	*dst = sl_xstrdup(param_str(p));
}

static const char *const global_later[] = {
	/* rsyslog global() parameters accepted but not acted on yet (#3) */
	"defaultnetstreamdrivercertfile", "defaultnetstreamdriverkeyfile",
	"defaultnetstreamdrivercafile", "defaultnetstreamdriver", "processinternalmessages",
	"stdlog.channel", "net.ipprotocol", "net.acladdhostnameonfail", "net.aclresolvehostname",
	"net.permitwarning", "net.permitacl", "abortonuncleanconfig", "umask",
	"internalmsg.ratelimit.interval", "internalmsg.ratelimit.burst", "errormessagestostderr.maxnumber",
	"action.reportsuspension", "action.reportsuspensioncontinuation", "senders.keeptrack",
	"senders.timeouttime", "senders.reportnew", "senders.reportgoneaway", "debug.files",
	"debug.whitelist", "debug.gnutls", "debug.unloadmodules", "shutdown.enable.ctlc",
	"default.action.queue.timeoutshutdown", "default.action.queue.timeoutactioncompletion",
	"default.action.queue.timeoutenqueue", "default.action.queue.timeoutworkerthreadshutdown",
	"default.ruleset.queue.timeoutshutdown", "oversizemsg.errorfile", "oversizemsg.report",
	"oversizemsg.input.mode", "reportchildprocessexits", "environment", "inputs.timeout.shutdown",
	"variables.casesensitive", "dropmsgswithmaliciousdnsptrrecords", "localhostipif",
	"netstreamdriver.caextension", "operatingstatefile", "parser.supportcompressionextension",
	"privdrop.group.keepsupplemental", "security.abortonidresolutionfail", "shutdown.queue.doublesize",
	"mainmsgqueue.size", "debug.abortoninternalerror",
};

static void apply_global(struct cfg_obj *o, int *n_errors)
{
	for (struct cfg_param *p = o->params; p; p = p->next) {
		const char *n = p->name;
		bool ok = true;
		p->used = true;
		if (!strcmp(n, "workdirectory"))
			set_str(&glbl.work_directory, p);
		else if (!strcmp(n, "maxmessagesize"))
			ok = set_size(p, &glbl.max_msg_size);
		else if (!strcmp(n, "localhostname"))
			set_str(&glbl.local_hostname, p);
		else if (!strcmp(n, "preservefqdn"))
			ok = set_bool(p, &glbl.preserve_fqdn);
		else if (!strcmp(n, "net.enabledns"))
			ok = set_bool(p, &glbl.enable_dns);
		else if (!strcmp(n, "parser.droptrailinglfonreception"))
			ok = set_bool(p, &glbl.drop_trailing_lf);
		else if (!strcmp(n, "parser.escapecontrolcharactersonreceive"))
			ok = set_bool(p, &glbl.escape_cc);
		else if (!strcmp(n, "parser.escapecontrolcharactertab"))
			ok = set_bool(p, &glbl.escape_cc_tab);
		else if (!strcmp(n, "parser.escape8bitcharactersonreceive"))
			ok = set_bool(p, &glbl.escape_8bit);
		else if (!strcmp(n, "parser.permitslashinprogramname"))
			ok = set_bool(p, &glbl.permit_slash_in_programname);
		else if (!strcmp(n, "parser.controlcharacterescapeprefix"))
			glbl.cc_escape_char = param_str(p)[0] ? param_str(p)[0] : '#';
		else {
			bool later = false;
			for (size_t i = 0; i < SL_ARRAY_SIZE(global_later); i++)
				if (!strcmp(n, global_later[i]))
					later = true;
			if (!strncmp(n, "defaultnetstreamdriver", 22)) {
				if (!strcmp(n, "defaultnetstreamdriver"))
					set_str(&glbl.default_netstream_driver, p);
				else if (!strcmp(n, "defaultnetstreamdrivercafile"))
					set_str(&glbl.default_netstream_ca_file, p);
				else if (!strcmp(n, "defaultnetstreamdrivercertfile"))
					set_str(&glbl.default_netstream_cert_file, p);
				else if (!strcmp(n, "defaultnetstreamdriverkeyfile"))
					set_str(&glbl.default_netstream_key_file, p);
				later = true;
			}
			if (!later) {
				cfg_error(&p->pos, "global() parameter '%s' is not known", n);
				ok = false;
			}
		}
		if (!ok)
			(*n_errors)++;
	}
	if (glbl.max_msg_size < 128)
		glbl.max_msg_size = 128;
}

/* Legacy $Directives of the foundation; the rest come with issue #3. */
static void apply_legacy(struct cfg_obj *o, int *n_errors)
{
	const char *d = o->legacy_name;
	struct cfg_param *vp = cfg_obj_param(o, "value");
	const char *v = vp ? param_str(vp) : "";
	if (!strcasecmp(d, "modload")) {
		load_module(v, NULL, &o->pos, n_errors);
	} else if (!strcasecmp(d, "template")) {
		if (tpl_create_legacy(v, &o->pos) != SL_OK)
			(*n_errors)++;
	} else if (!strcasecmp(d, "actionfiledefaulttemplate")) {
		const struct module *m = module_find("omfile", &o->pos);
		if (m)
			action_set_module_default_template(m, v);
	} else if (!strcasecmp(d, "workdirectory")) {
		free(glbl.work_directory);
		glbl.work_directory = sl_xstrdup(v);
	} else if (!strcasecmp(d, "maxmessagesize")) {
		if (!param_value_size(v, &glbl.max_msg_size)) {
			cfg_error(&o->pos, "$MaxMessageSize: '%s' is not a size", v);
			(*n_errors)++;
		}
	} else if (!strcasecmp(d, "preservefqdn")) {
		param_value_bool(v, &glbl.preserve_fqdn);
	} else if (!strcasecmp(d, "localhostname")) {
		free(glbl.local_hostname);
		glbl.local_hostname = sl_xstrdup(v);
	} else {
		/* TODO(#3): the remaining $Directives. Accepted with a warning so
		 * that existing configurations still start. */
		cfg_warn(&o->pos, "legacy directive $%s is not supported yet and is ignored", d);
	}
}

static struct ruleset *resolver_find_ruleset(const char *name, void *arg)
{
	(void)arg;
	return ruleset_lookup(name);
}

static int *resolver_errors;
static struct action *resolver_make_action(struct cfg_obj *o, void *arg)
{
	(void)arg;
	int errs = 0;
	struct action *a = action_create(o, &errs);
	/* Errors are counted here; script_compile does not count a NULL. */
	if (errs && resolver_errors)
		*resolver_errors += errs;
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
	if (!mi) {
		cfg_error(&o->pos, "input module '%s' is not loaded; add module(load=\"%s\") "
			  "before this input()", m->name, m->name);
		(*n_errors)++;
		return;
	}
	static const char *const skip[] = { "type", NULL };
	int errs = 0;
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

enum sl_rc conf_load(const char *path, bool check_only)
{
	int n_errors = 0;
	(void)check_only;
	tpl_init_builtins();
	tree = cfg_parse_file(path, &n_errors);
	if (!tree)
		return SL_ERR_CONFIG;

	/* The built-in output module is always loaded. */
	load_module("omfile", NULL, NULL, &n_errors);
	ruleset_default();

	/* Pass 1: settings, modules, templates, rulesets (so that later
	 * objects can refer to them whatever the order in the file). */
	for (struct cfg_obj *o = tree->objs; o; o = o->next) {
		switch (o->type) {
		case CFG_OBJ_GLOBAL:
			apply_global(o, &n_errors);
			break;
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
		case CFG_OBJ_PARSER:
		case CFG_OBJ_LOOKUP_TABLE:
		case CFG_OBJ_DYN_STATS:
			cfg_warn(&o->pos, "this object is not supported yet and is ignored (issue #3)");
			for (struct cfg_param *p = o->params; p; p = p->next)
				p->used = true;
			break;
		default:
			break;
		}
	}

	/* The main queue: main_queue() gets the modern defaults, otherwise
	 * rsyslog's legacy main-queue defaults apply (REFERENCE §4). */
	queue_cfg_defaults(&main_qcfg, QUEUE_ROLE_MAIN, !have_main_queue_obj);
	for (struct cfg_obj *o = tree->objs; o; o = o->next) {
		if (o->type == CFG_OBJ_MAIN_QUEUE) {
			if (!queue_cfg_from_obj(&main_qcfg, o))
				n_errors++;
			check_unused(o, "main_queue()", &n_errors);
		}
	}
	if (main_qcfg.type == QUEUE_DIRECT)
		main_qcfg.type = QUEUE_FIXED_ARRAY; /* rsyslog refuses a direct main queue too */

	/* Rulesets with queue.* parameters get a queue of their own. */
	for (struct cfg_obj *o = tree->objs; o; o = o->next) {
		if (o->type != CFG_OBJ_RULESET || !o->resolved)
			continue;
		struct ruleset *rs = o->resolved;
		bool has_q = false;
		for (struct cfg_param *p = o->params; p; p = p->next) {
			if (!strcmp(p->name, "name"))
				p->used = true;
			else if (!strncmp(p->name, "queue.", 6))
				has_q = true;
			else if (!strcmp(p->name, "parser")) {
				p->used = true; /* TODO(#3): custom parser chains */
			}
		}
		if (has_q) {
			struct queue_cfg qc;
			queue_cfg_defaults(&qc, QUEUE_ROLE_RULESET, false);
			if (!queue_cfg_from_obj(&qc, o))
				n_errors++;
			else if (qc.type != QUEUE_DIRECT)
				rs->queue = queue_create(rs->name, &qc, ruleset_consume, rs);
			queue_cfg_free(&qc);
		}
		check_unused(o, "ruleset()", &n_errors);
	}

	/* Pass 2: inputs. */
	for (struct cfg_obj *o = tree->objs; o; o = o->next)
		if (o->type == CFG_OBJ_INPUT)
			create_input(o, &n_errors);

	/* Scripts: the default ruleset's top-level statements and each
	 * ruleset's body; actions are created here, in source order. */
	struct script_resolver r = {
		.make_action = resolver_make_action,
		.find_ruleset = resolver_find_ruleset,
	};
	resolver_errors = &n_errors;
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
	resolver_errors = NULL;

	for (struct cfg_obj *o = tree->objs; o; o = o->next)
		if (o->type == CFG_OBJ_GLOBAL)
			check_unused(o, "global()", &n_errors);

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
	action_destroy_all();
	while (mods) {
		struct mod_inst *mi = mods;
		mods = mi->next;
		if (mi->mod->mod_exit)
			mi->mod->mod_exit(mi->data);
		free(mi);
	}
	tpl_destroy_all();
	cfg_tree_free(tree);
	tree = NULL;
	queue_cfg_free(&main_qcfg);
}
