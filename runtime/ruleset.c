/* ruleset.c — rulesets and the queue consumer that runs messages through
 * them: parse once, run the script, commit the worker's transactions.
 *
 * Threading: the list of rulesets is built by the main thread at load and
 * read-only afterwards. ruleset_consume runs on queue worker threads with
 * the worker's own state only.
 */
#include "ruleset.h"
#include "action.h"
#include "msg.h"
#include "parser.h"
#include "script.h"
#include "worker.h"
#include "input.h"
#include "log.h"
#include "stats.h"

#include <stdatomic.h>
#include <stddef.h>
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

/* rsyslog's MsgDup for `call` of a ruleset with its own queue: a new
 * message with the same (sanitised) raw bytes, parsed fields, origin and
 * times, and deep copies of $! and $. (the caller and the called ruleset
 * run on different threads: sharing the trees would race). A copy rather
 * than a reference for that reason; the raw bytes are copied too, which
 * also keeps bytes the parsers place after the NUL (a TAG "-"). */
static struct msg *msg_copy(const struct msg *m, struct ruleset *rs)
{
	uint32_t len = m->raw_len;
	if (m->tag.len && m->tag.off + m->tag.len > len + 1)
		len = m->tag.off + m->tag.len;
	struct msg *c = msg_create(m->raw, len, m->origin, &m->t_received, m->ttgen);
	if (!c)
		return NULL;
	char *raw = c->raw;
	struct msg_block *blk = c->block;
	size_t from = offsetof(struct msg, flags), to = offsetof(struct msg, inline_raw);
	memcpy((char *)c + from, (const char *)m + from, to - from);
	c->raw = raw;
	c->raw_len = m->raw_len;
	c->flags &= (uint16_t)~(MSG_RAW_SEPARATE | MSG_ORIGIN_BLOCK); /* c took its own origin reference */
	c->block = blk;
	c->origin = m->origin; /* msg_create took its reference */
	c->ruleset = rs;
	c->json = m->json ? script_json_copy(m->json) : NULL;
	c->localvars = m->localvars ? script_json_copy(m->localvars) : NULL;
	return c;
}

void ruleset_exec_sync(struct ruleset *rs, struct msg *m, struct exec_ctx *ctx)
{
	if (!rs->queue) {
		script_exec(rs->script, m, ctx);
		return;
	}
	/* rsyslog's execCall: a copy goes to the ruleset's queue (never
	 * waiting: eFLOWCTL_NO_DELAY); its workers run it later. For the
	 * loss ledger the copy counts as handed on, like a copy to an
	 * action queue. */
	struct msg *c = msg_copy(m, rs);
	if (!c) {
		sl_err("call %s: out of memory, message not passed on", rs->name);
		return;
	}
	stats_tl_handed++;
	queue_enqueue(rs->queue, &c, 1, FLOW_NO_DELAY);
}

static void report_no_parser(const struct msg *m)
{
	static atomic_int n_reported;
	if (atomic_fetch_add_explicit(&n_reported, 1, memory_order_relaxed) < 1000)
		sl_err("one message could not be processed by any parser, message is being "
		       "discarded (start of raw msg: '%.60s')", m->raw);
}

void ruleset_consume(void *arg, struct msg **msgs, int n, struct worker *w)
{
	(void)arg;
	struct ruleset *dflt = ruleset_default();
	uint64_t handed0 = stats_tl_handed, filtered = 0;
	for (int i = 0; i < n; i++) {
		struct msg *m = msgs[i];
		if (i + 2 < n) {
			/* a message was written on the input's core: start moving
			 * the one after next into this core's cache (header and the
			 * first 200 bytes of its text, which it is followed by) */
			const char *q = (const char *)msgs[i + 2];
			__builtin_prefetch(q);
			__builtin_prefetch(q + 64);
			__builtin_prefetch(q + 128);
			__builtin_prefetch(q + 192);
			__builtin_prefetch(q + 256);
			__builtin_prefetch(q + 320);
		}
		if (!(m->flags & MSG_PARSED) && !parser_parse(m)) {
			/* no parser of the ruleset's chain took it: rsyslog
			 * 8.2302 says so (rate-limited) and, despite the
			 * message's wording, still runs it, unparsed */
			report_no_parser(m);
		}
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

	/* End of a burst: let buffering outputs write now rather than on
	 * their flush timer. The count is read without the queue's lock: a
	 * hint, not a decision (a message arriving right now simply comes
	 * with the next batch). */
	struct ruleset *qrs = arg;
	struct queue *q = qrs && qrs->queue ? qrs->queue : main_queue;
	if (q && __atomic_load_n(&q->count, __ATOMIC_RELAXED) == 0) {
		for (struct action *a = action_first(); a; a = a->next) {
			if (a->queue || !a->mod || !a->mod->output || !a->mod->output->idle ||
			    a->id >= w->n_acts || !w->acts[a->id].created)
				continue;
			a->mod->output->idle(w->acts[a->id].mod_wrk);
		}
	}
}

/* The queue's workers are behind (PARSE_AHEAD_BATCHES batches or more
 * wait): the input thread, which would soon wait for room anyway, parses
 * the messages itself while their bytes are still in its cache; the
 * workers skip parsing them. A queue that keeps up gets its messages
 * unparsed, as before, and the input thread stays free for reading.
 * Only for inputs that wait for room (FLOW_DELAY: TCP, TLS, unix
 * stream sockets). The result is the same either way: parser_parse is
 * the same function, and its outcome depends only on the message, its
 * ruleset and the global settings. Measured in doc/benchmarks.md
 * ("Parsing on the input thread"). */
#define PARSE_AHEAD_BATCHES 4

static void parse_ahead(struct queue *q, struct msg **msgs, int n, enum flow_ctl fc)
{
	/* UDP and the like must never be slowed down (their senders do not
	 * wait); Disk and DA queues take messages as they come */
	if (fc != FLOW_DELAY || q->disk)
		return;
	size_t waiting = __atomic_load_n(&q->count, __ATOMIC_RELAXED);
	if (waiting < (size_t)q->cfg.dequeue_batch_size * PARSE_AHEAD_BATCHES)
		return;
	for (int i = 0; i < n; i++) {
		struct msg *m = msgs[i];
		if (!(m->flags & MSG_PARSED) && !parser_parse(m))
			report_no_parser(m);
	}
	atomic_fetch_add_explicit(&q->stats.parsed_ahead, (uint64_t)n, memory_order_relaxed);
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
		parse_ahead(q, msgs + start, end - start, fc);
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
		free(rs->parsers);
		free(rs->name);
		free(rs);
	}
	rulesets_last = default_rs = NULL;
}
