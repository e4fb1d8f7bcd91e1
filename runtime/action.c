/* action.c — actions: creation from action() objects and legacy action
 * lines, per-worker transactions with a result per message, retry of
 * suspended destinations (resumeRetryCount, resumeInterval with back-off
 * up to resumeIntervalMax), fail-over chains, action.errorFile, action
 * queues, and the statistics dump of queues and actions.
 *
 * Threading: actions are created by the main thread at load and are
 * read-only afterwards except their atomic statistics and suspension
 * state. action_exec and action_commit run on the worker thread that owns
 * `ctx`/`w`; the per-worker transaction state lives in the worker, so no
 * lock is taken on the message path. A module's tx_* functions are called
 * by one thread per worker instance. The error file has its own mutex.
 * A retry loop sleeps (never spins) and gives up when the queue it runs
 * on is aborted at stop (queue_thread_aborting), handing its batch back.
 */
#include "action.h"
#include "ast.h"
#include "log.h"
#include "stats.h"
#include "msg.h"
#include "template.h"
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

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

/* A legacy action line that is still one here: runtime/legacy.c
 * (legacy_action_to_params) turns every legacy action into action()
 * parameters except the discard action "~", which is all that arrives
 * here. Its deprecation warning is given once, by the grammar. */
static const char *legacy_action_module(struct cfg_obj *o, const char *text, bool *discard)
{
	while (*text == ' ' || *text == '\t')
		text++;
	if (strcmp(text, "~") == 0) {
		*discard = true;
		return NULL;
	}
	cfg_error(&o->pos, "legacy action '%s' is not supported", text);
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
		} else if (!strcmp(n, "errorfile")) {
			free(a->error_file);
			a->error_file = sl_xstrdup(v);
		} else if (!strcmp(n, "errorfile.maxsize")) {
			if (!param_value_size(v, &num))
				goto bad_num;
			a->error_file_max = num;
		} else if (!strcmp(n, "reportsuspension") || !strcmp(n, "reportsuspensioncontinuation")) {
			if (!param_value_bool(v, &b)) {
				cfg_error(&p->pos, "parameter '%s': expected \"on\" or \"off\"", p->name);
				ok = false;
				continue;
			}
			if (n[16] == '\0')
				a->report_suspension = b;
			else
				a->report_continuation = b;
		} else if (!strcmp(n, "writeallmarkmessages") || !strcmp(n, "execonlyeverynthtime") ||
			   !strcmp(n, "execonlyeverynthtimetimeout") || !strcmp(n, "execonlyonceeveryinterval") ||
			   !strcmp(n, "repeatedmsgcontainsoriginalmsg") || !strcmp(n, "copymsg") ||
			   !strcmp(n, "externalstate.file")) {
			/* accepted, not acted on (doc/queues.md) */
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

void action_stats_name(const struct action *a, char *buf, size_t len)
{
	char dflt[32];
	snprintf(dflt, sizeof(dflt), "action-%d", a->id);
	if (strcmp(a->name, dflt) != 0 || !a->mod) {
		snprintf(buf, len, "%s", a->name);
		return;
	}
	static const char *const builtin[] = { "omfile", "omfwd", "omusrmsg" };
	bool bi = false;
	for (size_t i = 0; i < SL_ARRAY_SIZE(builtin); i++)
		if (!strcmp(a->mod->name, builtin[i]))
			bi = true;
	snprintf(buf, len, "action-%d-%s%s", a->id, bi ? "builtin:" : "", a->mod->name);
}

/* Register the counters (stats.h): rsyslog's processed failed suspended
 * resumed, then sluice's own. */
static void action_stats_register(struct action *a, const char *name)
{
	const unsigned R = STATS_CTR_RESETTABLE;
	struct stats_obj *o = stats_obj_create(name, "core.action");
	if (!o)
		return;
	stats_obj_add(o, "processed", &a->stats.processed, R);
	stats_obj_add(o, "failed", &a->stats.failed, R);
	stats_obj_add(o, "suspended", &a->stats.suspended, R);
	stats_obj_add(o, "resumed", &a->stats.resumed, R);
	stats_obj_add(o, "retries", &a->stats.retries, R);
	stats_obj_add(o, "errorfile", &a->stats.errorfile, R);
	stats_obj_add(o, "requeued", &a->stats.requeued, R);
	a->stats_obj = o;
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
	a->report_suspension = true;
	a->error_fd = -1;
	pthread_mutex_init(&a->error_mtx, NULL);
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
	if ((a->mod->flags & MOD_FLAG_MSG_MODIFIER) && a->qcfg.type != QUEUE_DIRECT) {
		cfg_error(&o->pos, "'%s' changes the message itself and must run in the ruleset: "
			  "it cannot have a queue of its own (remove queue.type)", a->mod->name);
		goto fail;
	}

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
	if (a->exec_only_when_prev_suspended && actions_last && !actions_last->discard &&
	    !actions_last->failover)
		actions_last->failover = a;
	a->id = n_actions++;
	if (!a->discard) {
		char sn[256];
		action_stats_name(a, sn, sizeof(sn));
		action_stats_register(a, sn);
	}
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
	free(a->error_file);
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
			char qn[300], sn[256];
			action_stats_name(a, sn, sizeof(sn)); /* rsyslog's queue name */
			snprintf(qn, sizeof(qn), "%s queue", sn);
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
	/* the final counters of every queue and action, for the operator */
	stats_dump(stderr);
}

void action_destroy_all(void)
{
	while (actions) {
		struct action *a = actions;
		actions = a->next;
		stats_obj_destroy(a->stats_obj);
		queue_destroy(a->queue);
		if (!a->discard && a->mod->output->act_destroy)
			a->mod->output->act_destroy(a->inst);
		queue_cfg_free(&a->qcfg);
		if (a->error_fd >= 0)
			close(a->error_fd);
		free(a->error_file);
		pthread_mutex_destroy(&a->error_mtx);
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

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleep `ms`, waking every 100 ms to see whether the queue this thread
 * works for is being aborted. Returns false when it is. */
static bool sleep_unless_aborted(int64_t ms)
{
	while (ms > 0) {
		if (queue_thread_aborting())
			return false;
		int64_t step = ms < 100 ? ms : 100;
		struct timespec ts = { step / 1000, (step % 1000) * 1000000 };
		nanosleep(&ts, NULL);
		ms -= step;
	}
	return !queue_thread_aborting();
}

/* JSON string escaping for the error file. */
static void json_str(struct sbuf *sb, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	sbuf_putc(sb, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			sbuf_putc(sb, '\\');
			sbuf_putc(sb, (char)c);
		} else if (c == '\n') {
			sbuf_puts(sb, "\\n");
		} else if (c == '\r') {
			sbuf_puts(sb, "\\r");
		} else if (c == '\t') {
			sbuf_puts(sb, "\\t");
		} else if (c < 0x20) {
			char e[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0 };
			sbuf_puts(sb, e);
		} else {
			sbuf_putc(sb, (char)c);
		}
	}
	sbuf_putc(sb, '"');
}

/* action.errorFile: one JSON line per message that failed for good:
 * {"action":NAME,"module":MOD,"status":"failed"|"suspended","reason":TEXT,
 *  "message":RENDERED,"raw":RAW}. */
static void write_error_file(struct action *a, struct msg *m, const char *status,
			     const char *reason, struct worker *w)
{
	atomic_fetch_add(&a->stats.failed, 1);
	if (!a->error_file)
		return;
	struct sbuf line = { 0 };
	sbuf_reset(&w->render);
	bool rendered = tpl_render(a->tpl, m, &w->render);
	sbuf_puts(&line, "{\"action\":");
	json_str(&line, a->name, strlen(a->name));
	sbuf_puts(&line, ",\"module\":");
	json_str(&line, a->mod->name, strlen(a->mod->name));
	sbuf_puts(&line, ",\"status\":");
	json_str(&line, status, strlen(status));
	sbuf_puts(&line, ",\"reason\":");
	json_str(&line, reason, strlen(reason));
	sbuf_puts(&line, ",\"message\":");
	if (rendered)
		json_str(&line, w->render.buf, w->render.len);
	else
		sbuf_puts(&line, "null");
	sbuf_puts(&line, ",\"raw\":");
	json_str(&line, m->raw, m->raw_len);
	sbuf_puts(&line, "}\n");
	pthread_mutex_lock(&a->error_mtx);
	if (a->error_fd < 0) {
		a->error_fd = open(a->error_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
		if (a->error_fd < 0)
			sl_err("action %s: cannot open action.errorFile %s: %s", a->name,
			       a->error_file, strerror(errno));
	}
	bool room = true;
	if (a->error_fd >= 0 && a->error_file_max > 0) {
		off_t end = lseek(a->error_fd, 0, SEEK_END);
		room = end >= 0 && end + (off_t)line.len <= a->error_file_max;
	}
	if (a->error_fd >= 0 && room && line.buf &&
	    write(a->error_fd, line.buf, line.len) == (ssize_t)line.len)
		atomic_fetch_add(&a->stats.errorfile, 1);
	pthread_mutex_unlock(&a->error_mtx);
	sbuf_free(&line);
}

enum resume_res { RES_RESUMED, RES_GIVE_UP, RES_ABORT };

static int64_t backoff_interval(struct action *a, int64_t tries)
{
	/* rsyslog: the interval grows by resumeInterval every 10 tries */
	int64_t iv = a->resume_interval * (tries / 10 + 1);
	if (iv > a->resume_interval_max)
		iv = a->resume_interval_max;
	return iv > 0 ? iv : 1;
}

static enum sl_rc module_resume(struct action *a, struct act_wrk *aw)
{
	atomic_fetch_add(&a->stats.retries, 1);
	if (!a->mod->output->try_resume)
		return SL_OK;
	return a->mod->output->try_resume(aw->mod_wrk);
}

static void mark_resumed(struct action *a)
{
	if (atomic_exchange(&a->is_suspended, false)) {
		atomic_fetch_add(&a->stats.resumed, 1);
		if (a->report_suspension)
			sl_info("action '%s' (module %s) resumed", a->name, a->mod->name);
	}
}

/* The destination is down. Retry as resumeRetryCount/resumeInterval say,
 * sleeping between tries (messages wait where they are: in this worker's
 * batch, i.e. in the queue). Returns RES_RESUMED when it is back,
 * RES_GIVE_UP when the retries are used up (the action then stays
 * suspended until its next try time; messages meanwhile fail fast), and
 * RES_ABORT when the queue is being aborted at stop. */
static enum resume_res handle_suspension(struct action *a, struct act_wrk *aw)
{
	if (queue_thread_aborting())
		return RES_ABORT;
	if (atomic_load(&a->is_suspended) && a->resume_retry_count >= 0) {
		/* retries already used up by an earlier message: one try when
		 * the next try time has come, none before (no busy loop) */
		int64_t now = mono_ms();
		if (now < atomic_load(&a->next_try_ms))
			return RES_GIVE_UP;
		if (module_resume(a, aw) == SL_OK) {
			mark_resumed(a);
			return RES_RESUMED;
		}
		int64_t iv = atomic_load(&a->cur_interval);
		iv = iv * 2 > a->resume_interval_max ? a->resume_interval_max : iv * 2;
		atomic_store(&a->cur_interval, iv > 0 ? iv : 1);
		atomic_store(&a->next_try_ms, now + atomic_load(&a->cur_interval) * 1000);
		if (a->report_continuation)
			sl_warn("action '%s' (module %s) still suspended; next try in %lld s", a->name,
				a->mod->name, (long long)atomic_load(&a->cur_interval));
		return RES_GIVE_UP;
	}
	if (!atomic_exchange(&a->is_suspended, true)) {
		atomic_fetch_add(&a->stats.suspended, 1);
		if (a->report_suspension)
			sl_warn("action '%s' (module %s) suspended; retrying every %lld s (%s)", a->name,
				a->mod->name, (long long)a->resume_interval,
				a->resume_retry_count < 0 ? "for ever: messages wait in the queue"
							  : "action.resumeRetryCount");
	}
	for (int64_t tries = 0; a->resume_retry_count < 0 || tries < a->resume_retry_count;
	     tries++) {
		int64_t iv = backoff_interval(a, tries);
		if (!sleep_unless_aborted(iv * 1000))
			return RES_ABORT;
		if (module_resume(a, aw) == SL_OK) {
			mark_resumed(a);
			return RES_RESUMED;
		}
		if (a->report_continuation)
			sl_warn("action '%s' (module %s) still suspended after %lld tries", a->name,
				a->mod->name, (long long)tries + 1);
	}
	atomic_store(&a->cur_interval, a->resume_interval > 0 ? a->resume_interval : 1);
	atomic_store(&a->next_try_ms, mono_ms() + atomic_load(&a->cur_interval) * 1000);
	return RES_GIVE_UP;
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
		aw->tx_n = 0;
		worker_open_tx(w, a);
	}
	return aw;
}

static bool track_tx(const struct action *a)
{
	return a->error_file || a->mod->output->tx_commit_items;
}

static void tx_remember(struct act_wrk *aw, struct msg *m)
{
	if (aw->tx_n == aw->tx_cap) {
		int nc = aw->tx_cap ? aw->tx_cap * 2 : 256;
		struct msg **nm = realloc(aw->tx_msgs, (size_t)nc * sizeof(*nm));
		if (!nm)
			return; /* this message cannot be reported per item: counted only */
		aw->tx_msgs = nm;
		aw->tx_cap = nc;
	}
	aw->tx_msgs[aw->tx_n++] = msg_ref(m);
}

static void tx_forget(struct act_wrk *aw)
{
	for (int i = 0; i < aw->tx_n; i++)
		msg_release(aw->tx_msgs[i]);
	aw->tx_n = 0;
}

/* Render `m` with the action's template: into the module's own buffer
 * when it offers one (output_ops.tx_render_buf), else into the worker's.
 * False on ENOMEM (nothing is left in either buffer). */
static inline __attribute__((always_inline)) bool
render_for(struct action *a, struct act_wrk *aw, struct msg *m, struct worker *w,
		       const char **text, size_t *len)
{
	struct sbuf *b = NULL;
	if (a->mod->flags & MOD_FLAG_MSG_MODIFIER) {
		/* mmjsonparse & co. change the message itself: nothing to render */
		sbuf_reset(&w->render);
		sbuf_cstr(&w->render);
		*text = w->render.buf;
		*len = 0;
		return true;
	}
	if (a->mod->output->tx_render_buf)
		b = a->mod->output->tx_render_buf(aw->mod_wrk);
	if (!b) {
		b = &w->render;
		sbuf_reset(b);
	}
	size_t base = b->len;
	if (!tpl_render(a->tpl, m, b)) {
		b->len = base;
		return false;
	}
	*text = b->buf + base;
	*len = b->len - base;
	return true;
}

/* Render and hand one message to the module. Returns false if the
 * message was not accepted (failed for good, or the action is
 * suspended and gave up on it). */
static bool exec_direct(struct action *a, struct msg *m, struct worker *w)
{
	if (w->requeue)
		return false; /* the batch is being handed back (stop) */
	struct act_wrk *aw = open_tx(a, w);
	if (SL_UNLIKELY(atomic_load_explicit(&a->is_suspended, memory_order_relaxed)) &&
	    a->resume_retry_count >= 0) {
		/* suspended after its retries were used up: until the next try
		 * time the module is not called (as rsyslog); the message fails
		 * at once, and a fail-over action takes it */
		enum resume_res rr = handle_suspension(a, aw);
		if (rr == RES_ABORT) {
			w->requeue = true;
			return false;
		}
		if (rr == RES_GIVE_UP) {
			write_error_file(a, m, "suspended", "destination down and "
					 "action.resumeRetryCount used up", w);
			return false;
		}
	}
	const char *text;
	size_t len;
	if (!render_for(a, aw, m, w, &text, &len)) {
		write_error_file(a, m, "failed", "template rendering failed (out of memory)", w);
		return false;
	}
	for (;;) {
		enum act_result r = a->mod->output->tx_add(aw->mod_wrk, m, text, len);
		if (SL_LIKELY(r == ACT_OK || r == ACT_DEFERRED)) {
			if (r == ACT_DEFERRED && track_tx(a))
				tx_remember(aw, m);
			else
				aw->n_processed++;
			if (atomic_load_explicit(&a->is_suspended, memory_order_relaxed))
				mark_resumed(a);
			return true;
		}
		if (r == ACT_FAILED) {
			write_error_file(a, m, "failed", "the output module rejected the message", w);
			return false;
		}
		enum resume_res rr = handle_suspension(a, aw);
		if (rr == RES_ABORT) {
			w->requeue = true;
			return false;
		}
		if (rr == RES_GIVE_UP) {
			write_error_file(a, m, "suspended", "destination down and "
					 "action.resumeRetryCount used up", w);
			return false;
		}
		/* resumed: the module kept nothing of this message; render again
		 * (the render buffer may have been used meanwhile) */
		if (!render_for(a, aw, m, w, &text, &len))
			return false;
	}
}

static bool exec_one(struct action *a, struct msg *m, struct worker *w);

void action_exec(struct action *a, struct msg *m, struct exec_ctx *ctx)
{
	if (a->exec_only_when_prev_suspended && !ctx->prev_action_suspended)
		return;
	if (a->discard) {
		ctx->stopped = true;
		return;
	}
	stats_tl_handed++; /* the loss ledger (stats.h) */
	ctx->prev_action_suspended = exec_one(a, m, ctx->wrk);
}

/* Messages an action gave up on at commit (after the ruleset ran for
 * them): its fail-over chain takes them now, as it would have if the
 * failure had shown when the message was added. */
static void failover_handover(struct action *a, struct msg *m, struct worker *w)
{
	for (struct action *b = a->failover; b && !w->requeue; b = b->failover)
		if (!exec_one(b, m, w))
			break; /* taken */
}

/* Run one message through an action (a queue of its own: collect it for
 * that queue). Returns true when the action counts as suspended for a
 * fail-over chain. */
static bool exec_one(struct action *a, struct msg *m, struct worker *w)
{
	if (a->queue) {
		struct act_wrk *aw = worker_act(w, a->id);
		/* Collect per worker; handed to the action queue in one batch at
		 * the end of the worker's batch (action_commit). */
		if (!aw->in_tx) {
			aw->in_tx = true;
			aw->collecting = true;
			worker_open_tx(w, a);
		}
		if (aw->pend_n == aw->pend_cap) {
			int nc = aw->pend_cap ? aw->pend_cap * 2 : 256;
			struct msg **np = realloc(aw->pend, (size_t)nc * sizeof(*np));
			if (!np) {
				atomic_fetch_add(&a->stats.failed, 1);
				sl_err("action %s: out of memory; message lost", a->name);
				return false;
			}
			aw->pend = np;
			aw->pend_cap = nc;
		}
		aw->pend[aw->pend_n++] = msg_ref(m);
		/* an action with a queue of its own counts as suspended for a
		 * fail-over chain while its destination is down */
		return atomic_load_explicit(&a->is_suspended, memory_order_relaxed);
	}
	return !exec_direct(a, m, w);
}

/* Per-message commit (tx_commit_items): suspended items are added again
 * in a new transaction after the destination is back. */
static void commit_items(struct action *a, struct act_wrk *aw, struct worker *w)
{
	enum act_result *res = NULL;
	int cap = 0;
	for (;;) {
		int n = aw->tx_n;
		if (n > cap) {
			enum act_result *nr = realloc(res, (size_t)n * sizeof(*nr));
			if (!nr)
				break;
			res = nr;
			cap = n;
		}
		for (int i = 0; i < n; i++)
			res[i] = ACT_OK;
		enum act_result r = a->mod->output->tx_commit_items(aw->mod_wrk, res, n);
		if (r == ACT_SUSPENDED)
			for (int i = 0; i < n; i++)
				res[i] = ACT_SUSPENDED;
		int again = 0;
		for (int i = 0; i < n; i++) {
			struct msg *m = aw->tx_msgs[i];
			if (res[i] == ACT_OK || res[i] == ACT_DEFERRED) {
				aw->n_processed++;
				msg_release(m);
			} else if (res[i] == ACT_FAILED) {
				write_error_file(a, m, "failed", "the output module rejected the message", w);
				msg_release(m);
			} else {
				aw->tx_msgs[again++] = m;
			}
		}
		aw->tx_n = again;
		if (!again)
			break;
		enum resume_res rr = handle_suspension(a, aw);
		if (rr != RES_RESUMED) {
			for (int i = 0; i < aw->tx_n; i++) {
				if (rr == RES_GIVE_UP) {
					write_error_file(a, aw->tx_msgs[i], "suspended", "destination down "
							 "and action.resumeRetryCount used up", w);
					failover_handover(a, aw->tx_msgs[i], w);
				}
			}
			if (rr == RES_ABORT)
				w->requeue = true;
			tx_forget(aw);
			break;
		}
		/* again, in a new transaction */
		struct msg **redo = aw->tx_msgs;
		int nredo = aw->tx_n;
		aw->tx_msgs = NULL;
		aw->tx_n = aw->tx_cap = 0;
		if (a->mod->output->tx_begin)
			a->mod->output->tx_begin(aw->mod_wrk);
		for (int i = 0; i < nredo; i++) {
			sbuf_reset(&w->render);
			if (tpl_render(a->tpl, redo[i], &w->render)) {
				enum act_result ar = a->mod->output->tx_add(aw->mod_wrk, redo[i],
									    w->render.buf, w->render.len);
				if (ar == ACT_DEFERRED)
					tx_remember(aw, redo[i]);
				else if (ar == ACT_OK)
					aw->n_processed++;
				else
					write_error_file(a, redo[i], ar == ACT_FAILED ? "failed" : "suspended",
							 "the output module rejected the message", w);
			}
			msg_release(redo[i]);
		}
		free(redo);
	}
	free(res);
}

static void commit_tx(struct action *a, struct act_wrk *aw, struct worker *w);

void action_commit(struct action *a, struct worker *w)
{
	struct act_wrk *aw = worker_act(w, a->id);
	commit_tx(a, aw, w);
	if (aw->n_processed) {
		atomic_fetch_add_explicit(&a->stats.processed, aw->n_processed, memory_order_relaxed);
		aw->n_processed = 0;
	}
}

static void commit_tx(struct action *a, struct act_wrk *aw, struct worker *w)
{
	if (!aw->in_tx)
		return;
	aw->in_tx = false;
	if (aw->collecting) {
		/* a ruleset worker's batch for the action's own queue (the
		 * queue's workers run the module, and commit below) */
		aw->collecting = false;
		int n = aw->pend_n;
		aw->pend_n = 0;
		if (!n)
			return;
		enum sl_rc rc;
		int took = queue_enqueue_some(a->queue, aw->pend, n, FLOW_DELAY, &rc);
		if (took < n) {
			/* only when this worker's own queue is aborted at stop (or
			 * the action queue already stopped): hand the batch back */
			w->requeue = true;
			atomic_fetch_add(&a->stats.requeued, (uint64_t)(n - took));
			for (int i = took; i < n; i++)
				msg_release(aw->pend[i]);
		}
		return;
	}
	if (w->requeue) {
		tx_forget(aw);
		return;
	}
	if (a->mod->output->tx_commit_items) {
		commit_items(a, aw, w);
		return;
	}
	if (!a->mod->output->tx_commit) {
		atomic_fetch_add(&a->stats.processed, (uint64_t)aw->tx_n);
		tx_forget(aw);
		return;
	}
	for (;;) {
		enum act_result r = a->mod->output->tx_commit(aw->mod_wrk);
		if (r == ACT_OK || r == ACT_DEFERRED) {
			atomic_fetch_add(&a->stats.processed, (uint64_t)aw->tx_n);
			if (atomic_load_explicit(&a->is_suspended, memory_order_relaxed))
				mark_resumed(a);
			break;
		}
		if (r == ACT_FAILED) {
			for (int i = 0; i < aw->tx_n; i++)
				write_error_file(a, aw->tx_msgs[i], "failed",
						 "the output module failed the transaction", w);
			break;
		}
		/* ACT_SUSPENDED: the module keeps what it staged; the core
		 * retries tx_commit without adding the messages again. */
		enum resume_res rr = handle_suspension(a, aw);
		if (rr == RES_RESUMED)
			continue;
		if (rr == RES_ABORT) {
			w->requeue = true;
		} else {
			for (int i = 0; i < aw->tx_n; i++) {
				write_error_file(a, aw->tx_msgs[i], "suspended", "destination down and "
						 "action.resumeRetryCount used up", w);
				failover_handover(a, aw->tx_msgs[i], w);
			}
		}
		break;
	}
	tx_forget(aw);
}

void action_consume(void *arg, struct msg **msgs, int n, struct worker *w)
{
	struct action *a = arg;
	for (int i = 0; i < n && !w->requeue; i++)
		exec_direct(a, msgs[i], w);
	worker_commit_all(w);
}

#define AD(x) (unsigned long long)atomic_load(&a->stats.x)

int action_stats_format(struct action *a, char *buf, size_t len)
{
	return snprintf(buf, len, "processed=%llu failed=%llu suspended=%llu resumed=%llu "
			"retries=%llu errorfile=%llu requeued=%llu state=%s",
			AD(processed), AD(failed), AD(suspended), AD(resumed), AD(retries),
			AD(errorfile), AD(requeued),
			atomic_load(&a->is_suspended) ? "suspended" : "active");
}

void stats_dump(FILE *f)
{
	char buf[1024];
	for (struct queue *q = queue_first(); q; q = q->next_all) {
		queue_stats_format(q, buf, sizeof(buf));
		fprintf(f, "sluiced-stats: queue '%s': %s\n", q->name, buf);
	}
	for (struct action *a = actions; a; a = a->next) {
		if (a->discard)
			continue;
		action_stats_format(a, buf, sizeof(buf));
		fprintf(f, "sluiced-stats: action '%s' (%s): %s\n", a->name, a->mod->name, buf);
	}
	fflush(f);
}

/* Declared in stats.h: the statistics object name of an action's module
 * instance. Lives here so that the statistics registry does not depend
 * on the action layer. */
void stats_action_obj_name(const char *mod, struct cfg_obj *o, bool plain, char *buf,
			   size_t len)
{
	struct cfg_param *p = o ? cfg_obj_param(o, "name") : NULL;
	if (plain)
		snprintf(buf, len, "%s", mod);
	else if (p && !p->val.is_array && p->val.str)
		snprintf(buf, len, "%s(%s)", mod, p->val.str);
	else /* action_create numbers the action after act_create returns */
		snprintf(buf, len, "%s(action-%d)", mod, action_count());
}
