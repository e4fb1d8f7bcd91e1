/* stats.h — the statistics registry: every input, queue, action and the
 * process register their counters here once, by name; impstats and the
 * HTTP /metrics endpoint read them all, in every output format.
 *
 * A counter is an atomic the owner already increments on its own path
 * (no call per message into this registry); the registry only keeps a
 * pointer to it.
 *
 * Threading: registration and removal take a mutex (config load and
 * shutdown only). Rendering takes the same mutex and reads the counters
 * with relaxed atomic loads, so it can run on any thread at any time.
 */
#ifndef SLUICE_STATS_H
#define SLUICE_STATS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "sbuf.h"

struct stats_obj;

enum stats_ctr_flags {
	STATS_CTR_RESETTABLE = 1u << 0, /* reset by impstats resetCounters="on" */
	STATS_CTR_GAUGE = 1u << 1,      /* a level (queue size), not a running total */
};

/* A named set of counters, e.g. name "main Q", origin "core.queue".
 * Returns NULL on ENOMEM. */
struct stats_obj *stats_obj_create(const char *name, const char *origin);
/* Register a counter (the pointer must stay valid until
 * stats_obj_destroy). */
void stats_obj_add(struct stats_obj *o, const char *ctr_name, atomic_uint_fast64_t *ctr,
		   unsigned flags);
/* Register a counter computed when it is read (a queue's current size,
 * read under the queue's lock; the loss ledger): fn(arg) is called while
 * rendering, with the registry's mutex held, so it must not call into the
 * registry. `arg` must stay valid until stats_obj_destroy. Never reset. */
void stats_obj_add_fn(struct stats_obj *o, const char *ctr_name, uint64_t (*fn)(void *arg),
		      void *arg, unsigned flags);
/* Unregister and free (the counters themselves belong to the caller).
 * Accepts NULL. */
void stats_obj_destroy(struct stats_obj *o);

/* The object name of an output module's own counters for the action
 * being created from `o` (call it from act_create, on the main thread):
 * "MOD(NAME)", NAME being the action's name= or the core's default
 * "action-N". With `plain` (rsyslog names the object after the module,
 * e.g. "omelasticsearch"), the name is just MOD. */
struct cfg_obj;
void stats_action_obj_name(const char *mod, struct cfg_obj *o, bool plain, char *buf,
			   size_t len);

enum stats_format {
	STATS_FMT_LEGACY,            /* "name: origin=o ctr=1 ctr2=2 " (rsyslog's) */
	STATS_FMT_JSON,              /* { "name": "...", "origin": "...", "ctr": 1 } */
	STATS_FMT_JSON_ELASTICSEARCH, /* JSON with '.' in counter names replaced by '!' */
	STATS_FMT_CEE,               /* "@cee: " + JSON */
	STATS_FMT_PROMETHEUS,        /* the text exposition format */
};

bool stats_format_parse(const char *s, enum stats_format *out);

/* Render every object. For the line formats, `line` is called once per
 * object with the line (without LF); for Prometheus the whole exposition
 * is appended to `out` and `line` is not used. With `reset`, resettable
 * counters are reset after being read. */
void stats_render(enum stats_format fmt, bool reset,
		  void (*line)(const char *text, size_t len, void *arg), void *arg,
		  struct sbuf *out);

/* Render one object (e.g. "ledger") in `fmt` into `out` (a line format;
 * no trailing LF), NUL-terminated. False when there is no such object. */
bool stats_render_obj(const char *obj_name, enum stats_format fmt, struct sbuf *out);

/* Value of one counter by object and counter name (tests, /readyz);
 * false when there is none. */
bool stats_get(const char *obj_name, const char *ctr_name, uint64_t *out);

/* Process-wide counters that are not tied to one object. */
extern atomic_uint_fast64_t stats_internal_msgs;

/* The loss ledger (doc/statistics.md), rendered as the object "ledger"
 * (origin core.ledger) after all others. Its terms come from these
 * counters and from the registered queue and action counters:
 *
 *   received + loaded + copies
 *       = filtered + delivered + failed + queued + dropped.<reason>
 *
 * received: messages handed to input_submit (every input, internal ones
 * too); loaded: records found in disk queues at start; filtered: messages
 * the rules handed to no action; copies: extra copies when a message went
 * to more than one action (handed - messages that went to some action);
 * delivered/failed: committed / failed for good by actions; queued: in any
 * queue now (memory, in flight, disk); dropped: discarded by queues, by
 * reason. "unaccounted" is |left - right|: 0 whenever no batch is in the
 * middle of being processed (a batch in flight can be counted on both
 * sides for a moment).
 *
 * Counted once per batch, never per message (ruleset.c, action.c). */
extern atomic_uint_fast64_t stats_ledger_received;  /* input_submit */
extern atomic_uint_fast64_t stats_ledger_ruled;     /* messages through the rules */
extern atomic_uint_fast64_t stats_ledger_filtered;  /* ... that went to no action */
extern atomic_uint_fast64_t stats_ledger_handed;    /* copies handed to actions */
/* Per thread: copies handed to actions (action_exec), read by the
 * ruleset consumer before and after each message. */
extern __thread uint64_t stats_tl_handed;

#endif
