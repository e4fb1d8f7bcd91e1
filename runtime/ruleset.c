/* ruleset.c — rulesets and the queue consumer that runs messages through
 * them: parse once, run the script, commit the worker's transactions.
 *
 * Threading: the list of rulesets is built by the main thread at load and
 * read-only afterwards. ruleset_consume runs on queue worker threads with
 * the worker's own state only.
 */
#include "ruleset.h"
#include "msg.h"
#include "parser.h"
#include "script.h"
#include "worker.h"
#include "input.h"
#include "log.h"
#include "stats.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct queue *main_queue;
static struct ruleset *rulesets, *rulesets_last;
static struct ruleset *default_rs;

struct ruleset *ruleset_create(const char *name)
{
	struct ruleset *rs = sl_xcalloc(1, sizeof(*rs));
	rs->name = sl_xstrdup(name);
	if (rulesets_last)
		rulesets_last->next = rs;
	else
		rulesets = rs;
	rulesets_last = rs;
	return rs;
}

struct ruleset *ruleset_lookup(const char *name)
{
	for (struct ruleset *rs = rulesets; rs; rs = rs->next)
		if (strcasecmp(rs->name, name) == 0)
			return rs;
	return NULL;
}

struct ruleset *ruleset_default(void)
{
	if (!default_rs) {
		default_rs = ruleset_lookup(RULESET_DEFAULT_NAME);
		if (!default_rs)
			default_rs = ruleset_create(RULESET_DEFAULT_NAME);
	}
	return default_rs;
}

struct ruleset *ruleset_first(void) { return rulesets; }

void ruleset_exec_sync(struct ruleset *rs, struct msg *m, struct exec_ctx *ctx)
{
	/* TODO(#3): a called ruleset with a queue of its own gets a copy of
	 * the message enqueued, as rsyslog does; for now it runs inline. */
	script_exec(rs->script, m, ctx);
}

void ruleset_consume(void *arg, struct msg **msgs, int n, struct worker *w)
{
	(void)arg;
	struct ruleset *dflt = ruleset_default();
	uint64_t handed0 = stats_tl_handed, filtered = 0;
	for (int i = 0; i < n; i++) {
		struct msg *m = msgs[i];
		if (!(m->flags & MSG_PARSED))
			parser_parse(m);
		struct ruleset *rs = m->ruleset ? m->ruleset : dflt;
		w->ctx.stopped = false;
		w->ctx.prev_action_suspended = false;
		uint64_t h = stats_tl_handed;
		script_exec(rs->script, m, &w->ctx);
		filtered += stats_tl_handed == h; /* the loss ledger: went to no action */
	}
	worker_commit_all(w);
	/* the loss ledger (stats.h), once per batch */
	atomic_fetch_add_explicit(&stats_ledger_handed, stats_tl_handed - handed0, memory_order_relaxed);
	atomic_fetch_add_explicit(&stats_ledger_filtered, filtered, memory_order_relaxed);
	atomic_fetch_add_explicit(&stats_ledger_ruled, (uint64_t)n, memory_order_relaxed);
}

/* Route a batch from an input to the queues of the messages' rulesets:
 * consecutive messages bound for the same queue go in one enqueue. */
enum sl_rc input_submit(struct msg **msgs, int n, enum flow_ctl fc)
{
	enum sl_rc rc = SL_OK;
	int start = 0;
	atomic_fetch_add_explicit(&stats_ledger_received, (uint64_t)(n > 0 ? n : 0),
				  memory_order_relaxed);
	while (start < n) {
		struct ruleset *rs = msgs[start]->ruleset;
		struct queue *q = rs && rs->queue ? rs->queue : main_queue;
		int end = start + 1;
		while (end < n) {
			struct ruleset *r2 = msgs[end]->ruleset;
			struct queue *q2 = r2 && r2->queue ? r2->queue : main_queue;
			if (q2 != q)
				break;
			end++;
		}
		enum sl_rc r = queue_enqueue(q, msgs + start, end - start, fc);
		if (r != SL_OK)
			rc = r;
		start = end;
	}
	return rc;
}

void ruleset_destroy_all(void)
{
	while (rulesets) {
		struct ruleset *rs = rulesets;
		rulesets = rs->next;
		if (rs->queue)
			queue_destroy(rs->queue);
		free(rs->name);
		free(rs);
	}
	rulesets_last = default_rs = NULL;
}
