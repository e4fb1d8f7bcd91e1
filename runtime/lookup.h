/* lookup.h — lookup tables (`lookup_table(name= file= reloadOnHUP=)`,
 * the `lookup()` function and `reload_lookup_table()`), dyn_stats buckets
 * (`dyn_stats(name=)`, `dyn_inc()`) and named time zones (`timezone(id=
 * offset=)`), the configuration objects that script functions and parsers
 * refer to by name.
 *
 * Contract with runtime/conf.c: during pass 1 over the objects (before any
 * script is compiled), call lookup_table_create() for CFG_OBJ_LOOKUP_TABLE,
 * dynstats_bucket_create() for CFG_OBJ_DYN_STATS,
 * percentile_bucket_create() for CFG_OBJ_PERCENTILE_STATS and tz_create_from_obj()
 * for CFG_OBJ_TIMEZONE; each reports its own errors as FILE:LINE and marks
 * the parameters it used (so check_unused() flags the rest). On SIGHUP call
 * lookup_reload_all(). At exit, lookup_destroy_all().
 *
 * Threading: creation and destruction in the main thread. A table's
 * contents are immutable once loaded; a reload builds new contents and
 * swaps them under the table's rwlock, which lookups take for reading (a
 * lookup copies the value out while holding it). dyn_stats and
 * percentile_stats buckets have one mutex each; their counters are atomics
 * that the statistics registry reads without it. The time-zone list is read-only after
 * load.
 */
#ifndef SLUICE_LOOKUP_H
#define SLUICE_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sbuf.h"
#include "sluice.h"

struct cfg_obj;
struct lookup_table;
struct dynstats_bucket;

enum sl_rc lookup_table_create(struct cfg_obj *o);
struct lookup_table *lookup_find(const char *name);
/* Append the value for a key to `out` (the table's nomatch value when
 * absent). String tables use `key`/`klen`; array and sparseArray tables
 * use `knum` (rsyslog converts the key to a number for them). */
bool lookup_is_numeric(const struct lookup_table *t);
void lookup_get(struct lookup_table *t, const char *key, size_t klen, int64_t knum,
		struct sbuf *out);
/* Re-read a table's file. On failure the old contents stay, unless
 * `stub` is given: then every lookup yields the stub value. Returns
 * false on failure (reported with sl_err). */
bool lookup_reload(struct lookup_table *t, const char *stub);
/* SIGHUP: reload every table created with reloadOnHUP="on" (default). */
void lookup_reload_all(void);
void lookup_destroy_all(void);

enum sl_rc dynstats_bucket_create(struct cfg_obj *o);
struct dynstats_bucket *dynstats_find(const char *name);
/* Count one occurrence of `key`; returns 0 as rsyslog's dyn_inc() does
 * (-1 when the bucket is full and the key is new). */
int dynstats_inc(struct dynstats_bucket *b, const char *key, size_t klen);
/* Value of a counter (0 if absent); for tests and statistics. */
uint64_t dynstats_get(struct dynstats_bucket *b, const char *key);
/* dyn_inc()'s result when the bucket is full and the key new (rsyslog's
 * RS_RET_OUT_OF_MEMORY). */
#define DYNSTATS_RC_OVERFLOW (-6)

/* percentile_stats(name= percentiles=[...] windowSize= delimiter=) and
 * percentile_observe(): see lookup.c for the statistics they produce. */
struct percentile_bucket;
enum sl_rc percentile_bucket_create(struct cfg_obj *o);
struct percentile_bucket *percentile_find(const char *name);
/* Record one observation; returns 0 (rsyslog's result). */
int percentile_observe(struct percentile_bucket *b, const char *key, size_t klen, int64_t value);

/* Call after each statistics report (impstats): computes the percentiles
 * of the observations since the previous report (shown by the next one,
 * as rsyslog 8.2302 does) and purges dyn_stats keys unused for
 * unusedMetricLife seconds. */
void lookup_stats_reported(void);
/* Call just before each statistics report: computes the percentiles of
 * every percentile_stats bucket but the first defined (rsyslog computes
 * them all after reading the first bucket's object). */
void lookup_stats_reporting(void);

/* timezone(id="CET" offset="+01:00") */
struct tz_info {
	char off_mode;     /* '+' or '-' */
	uint8_t off_hour, off_minute;
};
enum sl_rc tz_create_from_obj(struct cfg_obj *o);
/* Find a zone by its id (case-sensitive, as rsyslog); false if unknown. */
bool tz_find(const char *id, size_t len, struct tz_info *out);

#endif
