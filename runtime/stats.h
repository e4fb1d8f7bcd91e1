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
/* Unregister and free (the counters themselves belong to the caller).
 * Accepts NULL. */
void stats_obj_destroy(struct stats_obj *o);

enum stats_format {
	STATS_FMT_LEGACY,            /* "name: ctr=1 ctr2=2" */
	STATS_FMT_JSON,              /* {"name":"...","origin":"...","ctr":1} */
	STATS_FMT_JSON_ELASTICSEARCH, /* JSON with '.' in names replaced by '!' */
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

/* Process-wide counters that are not tied to one object. */
extern atomic_uint_fast64_t stats_internal_msgs;

#endif
