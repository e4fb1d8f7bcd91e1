/* action.c — actions: creation from action() objects and legacy action
 * lines, per-worker transactions, retry of suspended destinations, and
 * action queues.
 *
 * Threading: actions are created by the main thread at load and are
 * read-only afterwards except their atomic statistics. action_exec and
 * action_commit run on the worker thread that owns `ctx`/`w`; the per-
 * worker transaction state lives in the worker, so no lock is taken here.
 * A module's tx_* functions are called by one thread per worker instance.
 */
#include "action.h"
#include "ast.h"
#include "log.h"
#include "msg.h"
#include "template.h"
#include "worker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

extern atomic_bool sl_shutdown_requested;

static struct action *actions, *actions_last;
static int n_actions;

struct mod_tpl {
	const struct module *mod;
	char *tpl;
};
static struct mod_tpl mod_tpls[32];
static int n_mod_tpls;

void action_set_module_default_template(const struct module *mod, const char *tpl)
{
	for (int i = 0; i < n_mod_tpls; i++) {
		if (mod_tpls[i].mod == mod) {
			free(mod_tpls[i].tpl);
			mod_tpls[i].tpl = sl_xstrdup(tpl);
			return;
		}
	}
	if (n_mod_tpls < (int)SL_ARRAY_SIZE(mod_tpls)) {
		mod_tpls[n_mod_tpls].mod = mod;
		mod_tpls[n_mod_tpls].tpl = sl_xstrdup(tpl);
		n_mod_tpls++;
	}
}

static const char *module_default_template(const struct module *mod)
{
	for (int i = 0; i < n_mod_tpls; i++)
		if (mod_tpls[i].mod == mod)
			return mod_tpls[i].tpl;
	if (mod->output && mod->output->default_template)
		return mod->output->default_template;
	return "RSYSLOG_FileFormat";
}

struct action *action_first(void) { return actions; }
int action_count(void) { return n_actions; }

/* Add a synthetic parameter to an object (used to turn legacy action
 * lines into the same parameters as action()). */
static void obj_add_param(struct cfg_obj *o, const char *name, const char *value)
{
	struct cfg_param *p = sl_xcalloc(1, sizeof(*p));
	p->name = sl_xstrdup(name);
	p->val.str = sl_xstrdup(value);
	p->pos = o->pos;
	p->next = o->params;
	o->params = p;
}

/* Legacy action text: "/path", "-/path", "/path;Template", "~".
 * Rewrites `o` into the parameters of the corresponding action(). */
static const char *legacy_action_module(struct cfg_obj *o, const char *text, bool *discard)
{
	while (*text == ' ' || *text == '\t')
		text++;
	if (strcmp(text, "~") == 0) {
		cfg_warn(&o->pos, "the legacy discard action '~' is deprecated; use 'stop' instead");
		*discard = true;
		return NULL;
	}
	if (text[0] == '/' || (text[0] == '-' && text[1] == '/')) {
		if (text[0] == '-')
			text++;
		const char *semi = strchr(text, ';');
		char *file = semi ? sl_xstrndup(text, semi - text) : sl_xstrdup(text);
		size_t fl = strlen(file);
		while (fl && (file[fl - 1] == ' ' || file[fl - 1] == '\t'))
			file[--fl] = '\0';
		obj_add_param(o, "file", file);
		free(file);
		if (semi) {
			const char *t = semi + 1;
			while (*t == ' ')
				t++;
			char *tpl = sl_xstrdup(t);
			size_t tl = strlen(tpl);
			while (tl && (tpl[tl - 1] == ' ' || tpl[tl - 1] == '\t'))
				tpl[--tl] = '\0';
			obj_add_param(o, "template", tpl);
			free(tpl);
		}
		return "omfile";
	}
	/* TODO(#6): @host, @@host, :omusrmsg:, |pipe and user lists. */
	cfg_error(&o->pos, "legacy action '%s' is not supported yet", text);
	return NULL;
}

static bool action_params(struct action *a, struct cfg_obj *o)
{
	bool ok = true;
	for (struct cfg_param *p = o->params; p; p = p->next) {
		if (strncmp(p->name, "action.", 7) != 0)
			continue;
		const char *n = p->name + 7;
		const char *v = p->val.is_array ? "" : p->val.str;
		int64_t num;
		bool b;
		p->used = true;
		if (!strcmp(n, "resumeretrycount")) {
			if (!param_value_int(v, &num))
				goto bad_num;
			a->resume_retry_count = num;
		} else if (!strcmp(n, "resumeinterval")) {
			if (!param_value_int(v, &num))
				goto bad_num;
			a->resume_interval = num;
		} else if (!strcmp(n, "resumeintervalmax")) {
			if (!param_value_int(v, &num))
				goto bad_num;
			a->resume_interval_max = num;
		} else if (!strcmp(n, "execonlywhenpreviousissuspended")) {
			if (!param_value_bool(v, &b)) {
				cfg_error(&p->pos, "parameter '%s': expected \"on\" or \"off\"", p->name);
				ok = false;
				continue;
			}
			a->exec_only_when_prev_suspended = b;
		} else if (!strcmp(n, "errorfile") || !strcmp(n, "errorfile.maxsize") ||
			   !strcmp(n, "reportsuspension") || !strcmp(n, "reportsuspensioncontinuation") ||
			   !strcmp(n, "writeallmarkmessages") || !strcmp(n, "execonlyeverynthtime") ||
			   !strcmp(n, "execonlyeverynthtimetimeout") || !strcmp(n, "execonlyonceeveryinterval") ||
			   !strcmp(n, "repeatedmsgcontainsoriginalmsg") || !strcmp(n, "copymsg") ||
			   !strcmp(n, "externalstate.file")) {
			/* TODO(#4): accepted, not acted on yet. */
		} else {
			cfg_error(&p->pos, "action parameter '%s' is not known", p->name);
			ok = false;
		}
		continue;
bad_num:
		cfg_error(&p->pos, "parameter '%s': '%s' is not a number", p->name, v);
		ok = false;
	}
	return ok;
}

struct action *action_create(struct cfg_obj *o, int *n_errors)
{
	static const char *const skip[] = { "type", "name", "template", "action.*", "queue.*", NULL };
	struct action *a = sl_xcalloc(1, sizeof(*a));
	const char *modname = NULL;
	struct cfg_param *p;
	char namebuf[32];

	a->resume_retry_count = 0;
	a->resume_interval = 30;
	a->resume_interval_max = 1800;
	queue_cfg_defaults(&a->qcfg, QUEUE_ROLE_ACTION, false);

	if ((p = cfg_obj_param(o, "legacy")) != NULL) {
		modname = legacy_action_module(o, p->val.str, &a->discard);
		if (!modname && !a->discard)
			goto fail;
	} else if ((p = cfg_obj_param(o, "type")) != NULL && !p->val.is_array) {
		modname = p->val.str;
	} else {
		cfg_error(&o->pos, "action() needs a type= parameter naming its output module");
		goto fail;
	}
	if ((p = cfg_obj_param(o, "name")) != NULL && !p->val.is_array)
		a->name = sl_xstrdup(p->val.str);
	else {
		snprintf(namebuf, sizeof(namebuf), "action-%d", n_actions);
		a->name = sl_xstrdup(namebuf);
	}
	if (a->discard)
		goto done;

	a->mod = module_find(modname, &o->pos);
	if (!a->mod)
		goto fail;
	if (!(a->mod->type & MOD_OUTPUT) || !a->mod->output) {
		cfg_error(&o->pos, "module '%s' is not an output module", modname);
		goto fail;
	}
	const char *tplname = module_default_template(a->mod);
	if ((p = cfg_obj_param(o, "template")) != NULL && !p->val.is_array)
		tplname = p->val.str;
	a->tpl = tpl_find(tplname);
	if (!a->tpl) {
		cfg_error(p ? &p->pos : &o->pos, "template '%s' is not defined", tplname);
		goto fail;
	}
	if (!action_params(a, o) || !queue_cfg_from_obj(&a->qcfg, o))
		goto fail;

	int errs = 0;
	void *cfg = a->mod->inst_params ? param_parse(a->mod->inst_params, o, skip, &errs)
					: NULL;
	if (errs) {
		*n_errors += errs;
		param_free(a->mod->inst_params, cfg);
		goto fail_counted;
	}
	errs = 0;
	a->inst = a->mod->output->act_create(cfg, o, &errs);
	if (!a->inst || errs) {
		*n_errors += errs ? errs : 1;
		goto fail_counted;
	}
done:
	a->id = n_actions++;
	if (actions_last)
		actions_last->next = a;
	else
		actions = a;
	actions_last = a;
	return a;
fail:
	(*n_errors)++;
fail_counted:
	queue_cfg_free(&a->qcfg);
	free(a->name);
	free(a);
	return NULL;
}

enum sl_rc action_start_all(void)
{
	for (struct action *a = actions; a; a = a->next) {
		if (a->discard)
			continue;
		if (a->mod->output->act_start) {
			enum sl_rc rc = a->mod->output->act_start(a->inst);
			if (rc != SL_OK) {
				sl_err("action %s (%s): cannot start: %s", a->name, a->mod->name,
				       sl_strerror(rc));
				return rc;
			}
		}
		if (a->qcfg.type != QUEUE_DIRECT) {
			char qn[128];
			snprintf(qn, sizeof(qn), "%s queue", a->name);
			a->queue = queue_create(qn, &a->qcfg, action_consume, a);
			enum sl_rc rc = queue_start(a->queue);
			if (rc != SL_OK)
				return rc;
		}
	}
	return SL_OK;
}

void action_stop_all(void)
{
	for (struct action *a = actions; a; a = a->next)
		if (a->queue)
			queue_drain_and_stop(a->queue);
}

void action_destroy_all(void)
{
	while (actions) {
		struct action *a = actions;
		actions = a->next;
		queue_destroy(a->queue);
		if (!a->discard && a->mod->output->act_destroy)
			a->mod->output->act_destroy(a->inst);
		queue_cfg_free(&a->qcfg);
		free(a->name);
		free(a);
	}
	actions_last = NULL;
	n_actions = 0;
	for (int i = 0; i < n_mod_tpls; i++)
		free(mod_tpls[i].tpl);
	n_mod_tpls = 0;
}

void action_hup_all(void)
{
	for (struct action *a = actions; a; a = a->next)
		if (!a->discard && a->mod->output->hup)
			a->mod->output->hup(a->inst);
}

void action_tick_all(void)
{
	for (struct action *a = actions; a; a = a->next)
		if (!a->discard && a->mod->output->tick)
			a->mod->output->tick(a->inst);
}

static void sleep_interruptible(int64_t secs)
{
	for (int64_t i = 0; i < secs * 10 && !atomic_load(&sl_shutdown_requested); i++) {
		struct timespec ts = { 0, 100 * 1000000 };
		nanosleep(&ts, NULL);
	}
}

/* The destination is down: wait and retry as action.resumeRetryCount and
 * action.resumeInterval say. Returns true when the destination is back.
 * TODO(#4): hold the messages in the action's queue instead of blocking
 * the worker, and report suspension as action.reportSuspension says. */
static bool wait_resume(struct action *a, struct act_wrk *aw)
{
	atomic_fetch_add(&a->stats.suspended, 1);
	sl_warn("action %s (%s) suspended; will retry every %lld s", a->name, a->mod->name,
		(long long)a->resume_interval);
	for (int64_t tries = 0;
	     a->resume_retry_count < 0 || tries < a->resume_retry_count; tries++) {
		int64_t iv = a->resume_interval * (tries / 10 + 1);
		if (iv > a->resume_interval_max)
			iv = a->resume_interval_max;
		sleep_interruptible(iv > 0 ? iv : 1);
		if (atomic_load(&sl_shutdown_requested))
			return false;
		if (!a->mod->output->try_resume ||
		    a->mod->output->try_resume(aw->mod_wrk) == SL_OK) {
			atomic_fetch_add(&a->stats.resumed, 1);
			sl_info("action %s (%s) resumed", a->name, a->mod->name);
			return true;
		}
	}
	return false;
}

static struct act_wrk *open_tx(struct action *a, struct worker *w)
{
	struct act_wrk *aw = worker_act(w, a->id);
	if (!aw->created) {
		aw->mod_wrk = a->mod->output->wrk_create ? a->mod->output->wrk_create(a->inst) : a->inst;
		aw->created = true;
	}
	if (!aw->in_tx) {
		if (a->mod->output->tx_begin)
			a->mod->output->tx_begin(aw->mod_wrk);
		aw->in_tx = true;
		w->open_tx[w->n_open++] = a;
	}
	return aw;
}

/* Render and hand one message to the module. Returns false if the
 * message could not be delivered (suspended for good or failed). */
static bool exec_direct(struct action *a, struct msg *m, struct worker *w)
{
	struct act_wrk *aw = open_tx(a, w);
	sbuf_reset(&w->render);
	if (!tpl_render(a->tpl, m, &w->render)) {
		atomic_fetch_add(&a->stats.failed, 1);
		return false;
	}
	for (;;) {
		enum act_result r = a->mod->output->tx_add(aw->mod_wrk, m, w->render.buf, w->render.len);
		if (SL_LIKELY(r == ACT_OK || r == ACT_DEFERRED)) {
			atomic_fetch_add_explicit(&a->stats.processed, 1, memory_order_relaxed);
			return true;
		}
		if (r == ACT_FAILED) {
			atomic_fetch_add(&a->stats.failed, 1);
			return false;
		}
		if (!wait_resume(a, aw)) {
			atomic_fetch_add(&a->stats.failed, 1);
			return false;
		}
	}
}

void action_exec(struct action *a, struct msg *m, struct exec_ctx *ctx)
{
	struct worker *w = ctx->wrk;
	if (a->exec_only_when_prev_suspended && !ctx->prev_action_suspended)
		return;
	if (a->discard) {
		ctx->stopped = true;
		return;
	}
	if (a->queue) {
		struct act_wrk *aw = worker_act(w, a->id);
		/* Collect per worker; handed to the action queue in one batch at
		 * the end of the worker's batch (action_commit). */
		if (!aw->in_tx) {
			aw->in_tx = true;
			w->open_tx[w->n_open++] = a;
		}
		if (a->queue && aw->mod_wrk == NULL) {
			aw->mod_wrk = sl_xcalloc(1, sizeof(struct sbuf)); /* pending list storage */
		}
		struct sbuf *pend = aw->mod_wrk;
		struct msg *r = msg_ref(m);
		if (!sbuf_append(pend, (const char *)&r, sizeof(r))) {
			msg_release(r);
			atomic_fetch_add(&a->stats.failed, 1);
		}
		ctx->prev_action_suspended = false;
		return;
	}
	ctx->prev_action_suspended = !exec_direct(a, m, w);
}

void action_commit(struct action *a, struct worker *w)
{
	struct act_wrk *aw = worker_act(w, a->id);
	if (!aw->in_tx)
		return;
	aw->in_tx = false;
	if (a->queue) {
		struct sbuf *pend = aw->mod_wrk;
		int n = (int)(pend->len / sizeof(struct msg *));
		if (n)
			queue_enqueue(a->queue, (struct msg **)pend->buf, n, FLOW_DELAY);
		sbuf_reset(pend);
		return;
	}
	if (!a->mod->output->tx_commit)
		return;
	for (;;) {
		enum act_result r = a->mod->output->tx_commit(aw->mod_wrk);
		if (r != ACT_SUSPENDED)
			break;
		if (!wait_resume(a, aw))
			break;
	}
}

void action_consume(void *arg, struct msg **msgs, int n, struct worker *w)
{
	struct action *a = arg;
	for (int i = 0; i < n; i++)
		exec_direct(a, msgs[i], w);
	worker_commit_all(w);
}
