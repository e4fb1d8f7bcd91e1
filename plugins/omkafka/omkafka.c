/* omkafka.c — output to Apache Kafka through librdkafka, with rsyslog's
 * omkafka parameters (8.2302, plus kafkaHeader), and delivery confirmed
 * end to end: a message counts as delivered only when librdkafka's
 * delivery report for it says the broker acknowledged it.
 *
 * Transactions (runtime/module.h): tx_add renders nothing itself (the core
 * passes the template output) and produces the message at once
 * (rd_kafka_produceva, RD_KAFKA_MSG_F_COPY, a per-message opaque that
 * says whether librdkafka chose the partition). tx_commit flushes and
 * serves delivery reports until every message of the worker has its
 * report. Reports with an error keep the message in the worker's retry
 * list (a byte arena, no allocation per message); tx_commit then returns
 * ACT_SUSPENDED, the core waits (action.resumeInterval), calls try_resume
 * (a metadata request) and tx_commit again, which produces only the
 * messages of the retry list again. A transaction also ends suspended when
 * reports stop coming for deliveryTimeout ms (broker unreachable: the
 * messages stay inside librdkafka, which resends them when the broker is
 * back), so the worker holds its batch and the queue in front of the
 * action fills and, when disk-assisted, spills to disk. Errors that
 * retrying cannot fix (message too large, unknown topic or partition,
 * authorisation) go to errorFile instead, unless resubmitOnFailure="on".
 *
 * At shutdown a worker gives librdkafka closeTimeout ms, then purges what
 * is left; those messages, and those of the retry list, are written to
 * failedMsgFile (keepFailedMessages="on") and produced first after the
 * next start, by a producer of the action's own, before inputs run.
 *
 * That is confirmDelivery="transaction". With "async" (the default unless
 * a queue keeps messages on disk, see conf_persistent_queues) tx_commit
 * only serves the reports that came and produces the retry list again: a
 * batch leaves the queue once librdkafka has it, so the worker does not
 * wait and librdkafka's linger.ms fills the produce requests. At most
 * `window` messages per worker are without a report (make_room);
 * kafka_tick serves the reports of idle workers. Shutdown is the same
 * in both modes.
 *
 * Threading: each worker thread of the action has its own rd_kafka_t
 * (struct kafka_wrk). librdkafka calls the delivery-report, error and
 * statistics callbacks from rd_kafka_poll/rd_kafka_flush, i.e. on the
 * thread that polls: the worker's own, or with "async" the housekeeping
 * thread's kafka_tick while the worker is between transactions. The
 * per-worker state is guarded by the worker's mutex, which the worker
 * holds from tx_begin to the successful end of tx_commit (once per
 * transaction) and kafka_tick only tries; workers never wait for each
 * other. The log callback runs on librdkafka's
 * threads and only calls sl_log. The action (struct kafka_act) is
 * read-only after act_start except: its atomic counters; the backlog from
 * failedMsgFile and the shutdown leftovers, guarded by a->mtx (touched by
 * the housekeeping thread's tick, by workers once at their end, and at
 * destroy); the error and statistics files, each with its own mutex.
 */
#include "sluice.h"
#include "module.h"
#include "msg.h"
#include "log.h"
#include "ast.h"
#include "sbuf.h"
#include "template.h"
#include "omkafka.h"
#include "stats.h"
#include "conf.h"

#include <librdkafka/rdkafka.h>

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

extern atomic_bool sl_shutdown_requested;

/* ---- configuration ---- */

struct kafka_cfg {
	struct param_array broker;
	char *topic;
	bool dyna_topic;
	int64_t dyna_topic_cache_size;
	char *key;
	bool dyna_key;
	bool part_auto;
	int64_t part_number;
	int64_t part_fixed;
	struct param_array conf_param;
	struct param_array topic_conf_param;
	char *tpl;
	char *error_file;
	char *stats_file;
	char *stats_name;
	int64_t close_timeout;
	bool reopen_on_hup;
	bool resubmit_on_failure;
	bool keep_failed;
	char *failed_msg_file;
	struct param_array kafka_header;
	int64_t delivery_timeout;
	int64_t max_held;
	char *confirm_delivery;
	int64_t async_window;
};

#define KOFF(f) offsetof(struct kafka_cfg, f)
static const struct param_desc kafka_params[] = {
	{ "broker", PARAM_ARRAY, "localhost:9092", 0, KOFF(broker), "bootstrap brokers, host:port each" },
	{ "topic", PARAM_STRING, NULL, PARAM_REQUIRED, KOFF(topic), "topic, or with dynaTopic the name of a template giving it" },
	{ "dynaTopic", PARAM_BINARY, "off", 0, KOFF(dyna_topic), "topic is a template name, rendered per message" },
	{ "dynaTopic.cacheSize", PARAM_INT, "50", 0, KOFF(dyna_topic_cache_size), "topic handles kept per worker with dynaTopic" },
	{ "key", PARAM_STRING, NULL, 0, KOFF(key), "message key, or with dynaKey the name of a template giving it" },
	{ "dynaKey", PARAM_BINARY, "off", 0, KOFF(dyna_key), "key is a template name, rendered per message" },
	{ "partitions.auto", PARAM_BINARY, "off", 0, KOFF(part_auto), "librdkafka's partitioner chooses (by key)" },
	{ "partitions.number", PARAM_INT, "1", 0, KOFF(part_number), "round-robin over partitions 0..N-1" },
	{ "partitions.useFixed", PARAM_INT, "-1", 0, KOFF(part_fixed), "send everything to this partition" },
	{ "confParam", PARAM_ARRAY, NULL, 0, KOFF(conf_param), "librdkafka settings, \"name=value\" each" },
	{ "topicConfParam", PARAM_ARRAY, NULL, 0, KOFF(topic_conf_param), "librdkafka topic settings, \"name=value\" each" },
	{ "template", PARAM_TEMPLATE, NULL, 0, KOFF(tpl), "template of the message value (default RSYSLOG_FileFormat)" },
	{ "errorFile", PARAM_STRING, NULL, 0, KOFF(error_file), "JSON line per message that failed for good" },
	{ "statsFile", PARAM_STRING, NULL, 0, KOFF(stats_file), "librdkafka statistics JSON, one per line" },
	{ "statsName", PARAM_STRING, NULL, 0, KOFF(stats_name), "name of this action in logs and statistics" },
	{ "closeTimeout", PARAM_INT, "2000", 0, KOFF(close_timeout), "ms to wait for delivery at shutdown" },
	{ "reopenOnHup", PARAM_BINARY, "on", 0, KOFF(reopen_on_hup), "recreate the producers on SIGHUP" },
	{ "resubmitOnFailure", PARAM_BINARY, "off", 0, KOFF(resubmit_on_failure), "retry also messages that failed for good" },
	{ "keepFailedMessages", PARAM_BINARY, "off", 0, KOFF(keep_failed), "save undelivered messages at shutdown in failedMsgFile" },
	{ "failedMsgFile", PARAM_STRING, NULL, 0, KOFF(failed_msg_file), "where undelivered messages wait for the next start" },
	{ "kafkaHeader", PARAM_ARRAY, NULL, 0, KOFF(kafka_header), "headers added to every message, \"name=value\" each" },
	{ "deliveryTimeout", PARAM_INT, "10000", 0, KOFF(delivery_timeout), "sluice: ms without a delivery report before the action suspends" },
	{ "maxHeldMessages", PARAM_INT, "100000", 0, KOFF(max_held), "sluice: undelivered messages a worker holds while the broker is down" },
	{ "confirmDelivery", PARAM_STRING, "auto", 0, KOFF(confirm_delivery), "sluice: transaction, async, or auto (transaction behind a disk queue)" },
	{ "asyncWindow", PARAM_INT, "10000", 0, KOFF(async_window), "sluice: with confirmDelivery=\"async\", messages a worker has produced without their delivery report, at most" },
};
static const struct param_table kafka_table = PARAM_TABLE(kafka_params, struct kafka_cfg);

struct kafka_header {
	char *name;
	char *val;
	size_t val_len;
};

/* When a message may leave the queue in front of the action
 * (confirmDelivery): once its delivery report came (CONFIRM_TX), or once
 * librdkafka has it (CONFIRM_ASYNC; reports are served as they come and
 * errors go to the worker's retry list). */
enum confirm_mode { CONFIRM_AUTO, CONFIRM_TX, CONFIRM_ASYNC };

struct kafka_act {
	struct kafka_cfg *cfg;
	enum confirm_mode confirm;     /* CONFIRM_TX or CONFIRM_ASYNC after act_start */
	bool own_queue_persistent;     /* the action's queue has queue.filename */
	char *label;                   /* "omkafka <statsName or topic>" for logs */
	char *brokers;                 /* broker array joined with ',' */
	rd_kafka_conf_t *conf;         /* validated prototype (confParam) */
	rd_kafka_topic_conf_t *tconf;  /* validated prototype (topicConfParam) */
	const struct template *topic_tpl; /* dynaTopic */
	const struct template *key_tpl;   /* dynaKey */
	struct kafka_header *hdrs;
	int n_hdrs;
	struct kafka_file errfile, statsfile;
	atomic_uint hup_gen;
	atomic_uint wrk_seq;
	atomic_llong last_err_log;

	pthread_mutex_t mtx;           /* guards the fields below */
	rd_kafka_t *backlog_rk;        /* sends failedMsgFile's messages; NULL when done */
	struct rec_list backlog_retry; /* backlog messages whose report was an error */
	uint64_t backlog_outstanding;
	time_t backlog_next_retry;
	bool failed_file_unreadable;   /* never overwrite a file we could not read */
	struct rec_list leftovers;     /* workers' undelivered messages at their end */

	pthread_mutex_t wrk_mtx;       /* guards the list of workers (kafka_tick) */
	struct kafka_wrk *wrks;

	atomic_uint_fast64_t n_submitted, n_acked, n_retried, n_failed, n_saved, n_lost;
	/* failed for good, by reason (rsyslog's failures_*), messages kept
	 * for a retry, the dynaTopic cache (rsyslog's topicdynacache.*) */
	atomic_uint_fast64_t n_fail_too_large, n_fail_unknown_topic, n_fail_queue_full,
		n_fail_unknown_partition, n_fail_other, n_held;
	atomic_uint_fast64_t n_tc_skipped, n_tc_miss, n_tc_evicted;
	struct stats_obj *stats_obj;   /* the statistics registry's entry */
};

struct topic_ent {
	char *name;
	size_t len;
	rd_kafka_topic_t *rkt;
	uint64_t used;
};

struct kafka_wrk {
	struct kafka_act *a;
	struct kafka_wrk *next;         /* in a->wrks */
	/* Held by the worker thread from tx_begin to a successful tx_commit
	 * (and in its other calls); between transactions kafka_tick may take
	 * it (trylock) to serve the reports of an idle worker with
	 * confirmDelivery="async". */
	pthread_mutex_t mtx;
	bool held;
	uint64_t window;                /* async: produced, unreported, at most */
	rd_kafka_t *rk;
	rd_kafka_topic_t *rkt;          /* the topic, without dynaTopic */
	struct topic_ent *cache;        /* dynaTopic */
	int n_cache, last_hit;
	uint64_t clock;
	unsigned hup_gen;
	uint64_t outstanding;           /* produced, no delivery report yet */
	uint64_t reports;               /* delivery reports served (progress) */
	struct rec_list retry;          /* to produce again */
	struct rec_list resend;         /* scratch while producing retry again */
	bool down;                      /* librdkafka: all brokers down */
	bool fatal;                     /* librdkafka: fatal error, recreate */
	struct sbuf topic_buf, key_buf;
	rd_kafka_vu_t *vu;              /* produceva argument vector */
	uint32_t rr;                    /* round-robin partition counter */
	unsigned n_since_poll;
	/* submitted / acknowledged since the last counters_flush: the
	 * action's shared atomics are updated once per transaction, not
	 * per message (two workers would bounce their cache line) */
	uint64_t n_submitted, n_acked;
	size_t key_len;                 /* strlen(cfg->key) for a fixed key */
	time_t ts_last_sec;             /* one-entry cache of the timestamp */
	struct syslog_time ts_last;
};

/* librdkafka's linger.ms unless confParam sets it (or its older name
 * queue.buffering.max.ms): 2 ms instead of librdkafka's 5. With
 * asyncWindow, fewer messages wait inside librdkafka and they are still
 * in the CPU's caches when their delivery reports are served (see
 * doc/modules/omkafka.md, "Threading and throughput"). */
#define DEFAULT_LINGER_MS "2"

/* the per-message opaque: librdkafka chose the partition */
#define OPQ_AUTO ((void *)(uintptr_t)1)

/* ---- helpers ---- */

static void SL_PRINTF(2, 3) log_limited(struct kafka_act *a, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	long long now = (long long)time(NULL);
	if (atomic_exchange(&a->last_err_log, now) == now)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sl_err("%s", line);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Errors that a retry cannot fix: these go to errorFile (unless
 * resubmitOnFailure). Everything else (timeouts, transport, leader
 * changes, not enough replicas, purged at shutdown) is retried. */
static bool err_permanent(rd_kafka_resp_err_t e)
{
	switch (e) {
	case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
	case RD_KAFKA_RESP_ERR_INVALID_MSG:
	case RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE:
	case RD_KAFKA_RESP_ERR_INVALID_RECORD:
	case RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE:
	case RD_KAFKA_RESP_ERR_POLICY_VIOLATION:
	case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
	case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
	case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
	case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
	case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
	case RD_KAFKA_RESP_ERR__INVALID_ARG:
		return true;
	default:
		return false;
	}
}

/* Split "name=value"; returns false when there is no '='. */
static bool split_kv(const char *s, char **name, char **val)
{
	const char *eq = strchr(s, '=');
	if (!eq)
		return false;
	*name = sl_xstrndup(s, (size_t)(eq - s));
	*val = sl_xstrdup(eq + 1);
	return true;
}

static const struct cfg_pos *pos_of(struct cfg_obj *o, const char *name)
{
	for (struct cfg_param *p = o->params; p; p = p->next)
		if (strcasecmp(p->name, name) == 0)
			return &p->pos;
	return &o->pos;
}

static bool conf_has(const struct param_array *pa, const char *name)
{
	size_t nl = strlen(name);
	for (int i = 0; i < pa->n; i++)
		if (!strncmp(pa->v[i], name, nl) && pa->v[i][nl] == '=')
			return true;
	return false;
}

/* ---- librdkafka callbacks (worker thread, from poll/flush) ---- */

static void keep_for_retry(struct kafka_wrk *w, const char *topic, size_t tl, const void *key,
			   size_t kl, const void *payload, size_t pl, int32_t part, int64_t ts,
			   rd_kafka_resp_err_t err)
{
	struct kafka_act *a = w->a;
	atomic_fetch_add_explicit(&a->n_held, 1, memory_order_relaxed);
	if (!rec_add(&w->retry, topic, tl, key, kl, payload, pl, part, ts, err)) {
		atomic_fetch_add(&a->n_lost, 1);
		errfile_write(&a->errfile, topic, tl, key, kl, payload, pl, err,
			      "out of memory keeping the message for a retry");
		log_limited(a, "%s: out of memory keeping an undelivered message; it is lost", a->label);
	}
}

static void failed_for_good(struct kafka_act *a, const char *topic, size_t tl, const void *key,
			    size_t kl, const void *payload, size_t pl, rd_kafka_resp_err_t err)
{
	atomic_fetch_add(&a->n_failed, 1);
	switch ((int)err) {
	case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
		atomic_fetch_add(&a->n_fail_too_large, 1);
		break;
	case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
	case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
		atomic_fetch_add(&a->n_fail_unknown_topic, 1);
		break;
	case RD_KAFKA_RESP_ERR__QUEUE_FULL:
		atomic_fetch_add(&a->n_fail_queue_full, 1);
		break;
	case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
		atomic_fetch_add(&a->n_fail_unknown_partition, 1);
		break;
	default:
		atomic_fetch_add(&a->n_fail_other, 1);
		break;
	}
	errfile_write(&a->errfile, topic, tl, key, kl, payload, pl, err, rd_kafka_err2str(err));
	log_limited(a, "%s: a message to topic '%.*s' failed for good: %s%s", a->label, (int)tl,
		    topic, rd_kafka_err2str(err),
		    a->errfile.path ? " (written to errorFile)" : " (no errorFile set; it is lost)");
}

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	struct kafka_wrk *w = opaque;
	(void)rk;
	w->outstanding--;
	w->reports++;
	if (SL_LIKELY(!m->err)) {
		w->down = false;
		w->n_acked++;
		return;
	}
	struct kafka_act *a = w->a;
	const char *topic = rd_kafka_topic_name(m->rkt);
	size_t tl = strlen(topic);
	int32_t part = m->_private == OPQ_AUTO ? REC_PARTITION_AUTO : m->partition;
	rd_kafka_timestamp_type_t tst;
	int64_t ts = rd_kafka_message_timestamp(m, &tst);
	if (ts < 0)
		ts = 0;
	if (!err_permanent(m->err) || a->cfg->resubmit_on_failure)
		keep_for_retry(w, topic, tl, m->key, m->key ? m->key_len : 0, m->payload, m->len,
			       part, ts, m->err);
	else
		failed_for_good(a, topic, tl, m->key, m->key ? m->key_len : 0, m->payload, m->len,
				m->err);
}

static void error_cb(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
	struct kafka_wrk *w = opaque;
	if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
		w->down = true;
	if (err == RD_KAFKA_RESP_ERR__FATAL) {
		char buf[512];
		rd_kafka_fatal_error(rk, buf, sizeof(buf));
		w->fatal = true;
		sl_err("%s: librdkafka fatal error: %s; the producer is recreated", w->a->label, buf);
		return;
	}
	log_limited(w->a, "%s: librdkafka: %s: %s", w->a->label, rd_kafka_err2str(err), reason);
}

static void log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
	const struct kafka_wrk *w = rd_kafka_opaque(rk);
	const char *label = w ? w->a->label : "omkafka";
	if (level <= 3)
		sl_err("%s: librdkafka %s: %s", label, fac, buf);
	else if (level == 4)
		sl_warn("%s: librdkafka %s: %s", label, fac, buf);
	else
		sl_dbg("%s: librdkafka %s: %s", label, fac, buf);
}

static int stats_cb(rd_kafka_t *rk, char *json, size_t len, void *opaque)
{
	struct kafka_wrk *w = opaque;
	(void)rk;
	kfile_write_line(&w->a->statsfile, json, len);
	return 0; /* librdkafka frees json */
}

/* ---- producers ---- */

/* Create a producer with the action's settings; `opaque` is what the
 * callbacks get (a worker, or the action's backlog sender). */
static rd_kafka_t *producer_new(struct kafka_act *a, void *opaque,
				void (*dr)(rd_kafka_t *, const rd_kafka_message_t *, void *))
{
	char err[512];
	rd_kafka_conf_t *c = rd_kafka_conf_dup(a->conf);
	rd_kafka_conf_set_opaque(c, opaque);
	rd_kafka_conf_set_dr_msg_cb(c, dr);
	if (dr == dr_cb) {
		rd_kafka_conf_set_error_cb(c, error_cb);
		if (a->statsfile.path)
			rd_kafka_conf_set_stats_cb(c, stats_cb);
	}
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, c, err, sizeof(err));
	if (!rk) {
		rd_kafka_conf_destroy(c);
		log_limited(a, "%s: cannot create a Kafka producer: %s", a->label, err);
		return NULL;
	}
	if (rd_kafka_brokers_add(rk, a->brokers) == 0 && !conf_has(&a->cfg->conf_param, "bootstrap.servers") &&
	    !conf_has(&a->cfg->conf_param, "metadata.broker.list")) {
		log_limited(a, "%s: no valid broker in '%s'", a->label, a->brokers);
		rd_kafka_destroy(rk);
		return NULL;
	}
	return rk;
}

static rd_kafka_topic_t *topic_new(struct kafka_act *a, rd_kafka_t *rk, const char *name)
{
	rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, name, rd_kafka_topic_conf_dup(a->tconf));
	if (!rkt)
		log_limited(a, "%s: cannot create topic handle '%s': %s", a->label, name,
			    rd_kafka_err2str(rd_kafka_last_error()));
	return rkt;
}

static void wrk_close_producer(struct kafka_wrk *w)
{
	for (int i = 0; i < w->n_cache; i++) {
		if (w->cache[i].rkt)
			rd_kafka_topic_destroy(w->cache[i].rkt);
		free(w->cache[i].name);
		w->cache[i] = (struct topic_ent){ 0 };
	}
	w->last_hit = -1;
	if (w->rkt)
		rd_kafka_topic_destroy(w->rkt);
	w->rkt = NULL;
	if (w->rk)
		rd_kafka_destroy(w->rk);
	w->rk = NULL;
	w->down = w->fatal = false;
}

static bool wrk_open_producer(struct kafka_wrk *w)
{
	struct kafka_act *a = w->a;
	w->rk = producer_new(a, w, dr_cb);
	if (!w->rk)
		return false;
	if (!a->cfg->dyna_topic) {
		w->rkt = topic_new(a, w->rk, a->cfg->topic);
		if (!w->rkt) {
			rd_kafka_destroy(w->rk);
			w->rk = NULL;
			return false;
		}
	}
	w->hup_gen = atomic_load(&a->hup_gen);
	return true;
}

/* Add the worker's counts to the action's statistics. */
static void counters_flush(struct kafka_wrk *w)
{
	if (w->n_submitted) {
		atomic_fetch_add_explicit(&w->a->n_submitted, w->n_submitted, memory_order_relaxed);
		w->n_submitted = 0;
	}
	if (w->n_acked) {
		atomic_fetch_add_explicit(&w->a->n_acked, w->n_acked, memory_order_relaxed);
		w->n_acked = 0;
	}
}

/* The worker's lock (struct kafka_wrk), taken once per transaction. */
static void wrk_hold(struct kafka_wrk *w)
{
	if (!w->held) {
		pthread_mutex_lock(&w->mtx);
		w->held = true;
	}
}

static void wrk_let_go(struct kafka_wrk *w)
{
	if (w->held) {
		w->held = false;
		pthread_mutex_unlock(&w->mtx);
	}
}

/* Serve delivery reports until none is outstanding, or until reports
 * stopped coming for `stall_ms` (`down_ms` when librdkafka says every
 * broker is down, or when the daemon is stopping), or `max_ms` passed
 * (-1: no limit). Returns true when nothing is outstanding. */
static bool wait_reports_to(struct kafka_wrk *w, uint64_t target, int64_t stall_ms,
			    int64_t down_ms, int64_t max_ms)
{
	int64_t start = now_ms(), last = start;
	uint64_t seen = w->reports;
	while (w->outstanding > target) {
		/* flush sends at once, without waiting for linger.ms */
		if (target == 0)
			rd_kafka_flush(w->rk, 100);
		else
			rd_kafka_poll(w->rk, 100);
		int64_t t = now_ms();
		if (w->reports != seen) {
			seen = w->reports;
			last = t;
			continue;
		}
		int64_t limit = (w->down || atomic_load(&sl_shutdown_requested)) ? down_ms : stall_ms;
		if (t - last >= limit || (max_ms >= 0 && t - start >= max_ms))
			break;
	}
	counters_flush(w);
	return w->outstanding <= target;
}

static bool wait_reports(struct kafka_wrk *w, int64_t stall_ms, int64_t down_ms, int64_t max_ms)
{
	return wait_reports_to(w, 0, stall_ms, down_ms, max_ms);
}

/* Recreate the producer (after a fatal error, or for reopenOnHup): give
 * the old one a moment to deliver, purge the rest into the retry list. */
static void wrk_recreate(struct kafka_wrk *w)
{
	if (w->rk) {
		if (!w->fatal)
			wait_reports(w, 2000, 500, 5000);
		if (w->outstanding) {
			rd_kafka_purge(w->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
			wait_reports(w, 1000, 1000, 5000);
		}
		if (w->outstanding) {
			log_limited(w->a, "%s: %llu messages still inside the old producer are lost",
				    w->a->label, (unsigned long long)w->outstanding);
			atomic_fetch_add(&w->a->n_lost, w->outstanding);
			w->outstanding = 0;
		}
	}
	wrk_close_producer(w);
	wrk_open_producer(w);
}

/* ---- producing ---- */

static void resend_retry(struct kafka_wrk *w);

/* confirmDelivery="async": the worker's window is full. Produce again
 * what failed, then serve reports until half the window is free, or until
 * they stop coming for deliveryTimeout ms (then the action suspends,
 * unless librdkafka said meanwhile that every broker is down). */
static bool make_room(struct kafka_wrk *w)
{
	struct kafka_act *a = w->a;
	if (w->retry.n && !w->down)
		resend_retry(w);
	wait_reports_to(w, w->window / 2, a->cfg->delivery_timeout, 1000, -1);
	/* every broker down: maxHeldMessages applies (kafka_tx_add) */
	if (w->outstanding + w->retry.n < w->window || w->down)
		return true;
	log_limited(a, "%s: %llu messages not yet acknowledged by the broker, %zu to be sent "
		    "again%s; action suspended", a->label, (unsigned long long)w->outstanding,
		    w->retry.n, w->down ? " (all brokers down)" : "");
	return false;
}

enum {
	VU_RKT, VU_PARTITION, VU_VALUE, VU_FLAGS, VU_TIMESTAMP, VU_OPAQUE, VU_FIXED
};

/* One message into librdkafka. Returns its error (0 = queued). */
static rd_kafka_resp_err_t produce(struct kafka_wrk *w, rd_kafka_topic_t *rkt, int32_t part,
				   const void *key, size_t kl, const void *payload, size_t pl,
				   int64_t ts)
{
	struct kafka_act *a = w->a;
	rd_kafka_vu_t *vu = w->vu;
	size_t cnt = VU_FIXED + (size_t)a->n_hdrs;
	vu[VU_RKT].u.rkt = rkt;
	vu[VU_PARTITION].u.i32 = part == REC_PARTITION_AUTO ? RD_KAFKA_PARTITION_UA : part;
	vu[VU_VALUE].u.mem.ptr = (void *)payload;
	vu[VU_VALUE].u.mem.size = pl;
	vu[VU_TIMESTAMP].u.i64 = ts;
	vu[VU_OPAQUE].u.ptr = part == REC_PARTITION_AUTO ? OPQ_AUTO : NULL;
	if (key) {
		vu[cnt].vtype = RD_KAFKA_VTYPE_KEY;
		vu[cnt].u.mem.ptr = (void *)key;
		vu[cnt].u.mem.size = kl;
		cnt++;
	}
	rd_kafka_error_t *e = rd_kafka_produceva(w->rk, vu, cnt);
	if (SL_LIKELY(!e)) {
		w->outstanding++;
		return RD_KAFKA_RESP_ERR_NO_ERROR;
	}
	rd_kafka_resp_err_t code = rd_kafka_error_code(e);
	rd_kafka_error_destroy(e);
	return code;
}

/* produce(), waiting a little (serving reports) while librdkafka's queue
 * is full. */
static rd_kafka_resp_err_t produce_wait(struct kafka_wrk *w, rd_kafka_topic_t *rkt, int32_t part,
					const void *key, size_t kl, const void *payload, size_t pl,
					int64_t ts)
{
	rd_kafka_resp_err_t e = produce(w, rkt, part, key, kl, payload, pl, ts);
	for (int i = 0; e == RD_KAFKA_RESP_ERR__QUEUE_FULL && i < 50; i++) {
		rd_kafka_poll(w->rk, 20);
		e = produce(w, rkt, part, key, kl, payload, pl, ts);
	}
	return e;
}

/* The topic handle for a rendered topic name (dynaTopic), from the
 * worker's cache (least recently used entry evicted). `name` is
 * NUL-terminated. */
static rd_kafka_topic_t *topic_get(struct kafka_wrk *w, const char *name, size_t len)
{
	struct topic_ent *e;
	if (w->last_hit >= 0) {
		e = &w->cache[w->last_hit];
		if (e->len == len && !memcmp(e->name, name, len)) {
			e->used = ++w->clock;
			atomic_fetch_add_explicit(&w->a->n_tc_skipped, 1, memory_order_relaxed);
			return e->rkt;
		}
	}
	int free_slot = -1, lru = 0;
	for (int i = 0; i < w->n_cache; i++) {
		e = &w->cache[i];
		if (!e->rkt) {
			if (free_slot < 0)
				free_slot = i;
			continue;
		}
		if (e->len == len && !memcmp(e->name, name, len)) {
			e->used = ++w->clock;
			w->last_hit = i;
			return e->rkt;
		}
		if (e->used < w->cache[lru].used || !w->cache[lru].rkt)
			lru = i;
	}
	int slot = free_slot >= 0 ? free_slot : lru;
	e = &w->cache[slot];
	atomic_fetch_add_explicit(&w->a->n_tc_miss, 1, memory_order_relaxed);
	rd_kafka_topic_t *rkt = topic_new(w->a, w->rk, name);
	if (!rkt)
		return NULL;
	if (e->rkt) {
		atomic_fetch_add_explicit(&w->a->n_tc_evicted, 1, memory_order_relaxed);
		rd_kafka_topic_destroy(e->rkt);
	} /* librdkafka keeps it while messages use it */
	free(e->name);
	e->name = sl_xstrndup(name, len);
	e->len = len;
	e->rkt = rkt;
	e->used = ++w->clock;
	w->last_hit = slot;
	return rkt;
}

static rd_kafka_topic_t *topic_for(struct kafka_wrk *w, const char *name, size_t len)
{
	if (!w->a->cfg->dyna_topic)
		return w->rkt;
	sbuf_reset(&w->topic_buf);
	if (!sbuf_append(&w->topic_buf, name, len) || !sbuf_cstr(&w->topic_buf))
		return NULL;
	return topic_get(w, w->topic_buf.buf, len);
}

/* Produce the retry list again. What librdkafka refuses stays in it. */
static void resend_retry(struct kafka_wrk *w)
{
	struct kafka_act *a = w->a;
	struct rec_list tmp = w->resend;
	w->resend = w->retry;
	w->retry = tmp;
	rec_reset(&w->retry);
	size_t off = 0;
	struct rec r;
	while (rec_next(&w->resend, &off, &r)) {
		rd_kafka_topic_t *rkt = topic_for(w, r.topic, r.h->topic_len);
		rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR__INVALID_ARG;
		if (rkt)
			e = produce_wait(w, rkt, r.h->partition, r.key, r.h->key_len, r.payload,
					 r.h->payload_len, r.h->ts_ms);
		if (SL_LIKELY(!e)) {
			atomic_fetch_add_explicit(&a->n_retried, 1, memory_order_relaxed);
			continue;
		}
		if (!err_permanent(e) || a->cfg->resubmit_on_failure)
			keep_for_retry(w, r.topic, r.h->topic_len, r.key, r.h->key_len, r.payload,
				       r.h->payload_len, r.h->partition, r.h->ts_ms, e);
		else
			failed_for_good(a, r.topic, r.h->topic_len, r.key, r.h->key_len, r.payload,
					r.h->payload_len, e);
	}
	rec_reset(&w->resend);
}

/* ---- module ---- */

static void *kafka_mod_init(void *mod_cfg, int *n_errors)
{
	(void)n_errors;
	(void)mod_cfg;
	return NULL;
}

static void act_free(struct kafka_act *a)
{
	if (!a)
		return;
	if (a->conf)
		rd_kafka_conf_destroy(a->conf);
	if (a->tconf)
		rd_kafka_topic_conf_destroy(a->tconf);
	for (int i = 0; i < a->n_hdrs; i++) {
		free(a->hdrs[i].name);
		free(a->hdrs[i].val);
	}
	free(a->hdrs);
	kfile_fini(&a->errfile);
	kfile_fini(&a->statsfile);
	rec_free(&a->backlog_retry);
	rec_free(&a->leftovers);
	pthread_mutex_destroy(&a->mtx);
	pthread_mutex_destroy(&a->wrk_mtx);
	free(a->brokers);
	free(a->label);
	param_free(&kafka_table, a->cfg);
	free(a);
}

/* The action's counters in the statistics registry: the first omkafka
 * action is "omkafka" as in rsyslog (its counter names where rsyslog has
 * the counter), later ones "omkafka(NAME)". Main thread, at load. */
static void kafka_stats_register(struct kafka_act *a, struct cfg_obj *o)
{
	static int n_registered;
	const unsigned R = STATS_CTR_RESETTABLE;
	char name[256];
	stats_action_obj_name("omkafka", o, n_registered++ == 0, name, sizeof(name));
	struct stats_obj *so = stats_obj_create(name, "omkafka");
	if (!so)
		return;
	stats_obj_add(so, "submitted", &a->n_submitted, R);
	stats_obj_add(so, "failures", &a->n_failed, R);
	stats_obj_add(so, "topicdynacache.skipped", &a->n_tc_skipped, R);
	stats_obj_add(so, "topicdynacache.miss", &a->n_tc_miss, R);
	stats_obj_add(so, "topicdynacache.evicted", &a->n_tc_evicted, R);
	stats_obj_add(so, "acked", &a->n_acked, R);
	stats_obj_add(so, "failures_msg_too_large", &a->n_fail_too_large, R);
	stats_obj_add(so, "failures_unknown_topic", &a->n_fail_unknown_topic, R);
	stats_obj_add(so, "failures_queue_full", &a->n_fail_queue_full, R);
	stats_obj_add(so, "failures_unknown_partition", &a->n_fail_unknown_partition, R);
	stats_obj_add(so, "failures_other", &a->n_fail_other, R);
	stats_obj_add(so, "held", &a->n_held, R);
	stats_obj_add(so, "resent", &a->n_retried, R);
	stats_obj_add(so, "failedmsgfile.saved", &a->n_saved, R);
	stats_obj_add(so, "lost", &a->n_lost, R);
	a->stats_obj = so;
}

static void *kafka_act_create(void *cfgp, struct cfg_obj *o, int *n_errors)
{
	struct kafka_cfg *c = cfgp;
	char err[512];
	int errs = 0;
	if (!c)
		return NULL;
	struct kafka_act *a = sl_xcalloc(1, sizeof(*a));
	a->cfg = c;
	pthread_mutex_init(&a->mtx, NULL);
	pthread_mutex_init(&a->wrk_mtx, NULL);
	kfile_init(&a->errfile, c->error_file);
	kfile_init(&a->statsfile, c->stats_file);

	size_t ll = strlen(c->stats_name ? c->stats_name : c->topic) + 16;
	a->label = sl_xmalloc(ll);
	snprintf(a->label, ll, "omkafka %s", c->stats_name ? c->stats_name : c->topic);

	/* brokers */
	size_t bl = 1;
	for (int i = 0; i < c->broker.n; i++)
		bl += strlen(c->broker.v[i]) + 1;
	a->brokers = sl_xcalloc(1, bl);
	for (int i = 0; i < c->broker.n; i++) {
		if (i)
			strcat(a->brokers, ",");
		strcat(a->brokers, c->broker.v[i]);
	}
	if (!*a->brokers) {
		cfg_error(pos_of(o, "broker"), "omkafka: parameter 'broker' is empty");
		errs++;
	}

	/* librdkafka settings, checked now so errors name the config line */
	a->conf = rd_kafka_conf_new();
	for (int i = 0; i < c->conf_param.n; i++) {
		char *n, *v;
		if (!split_kv(c->conf_param.v[i], &n, &v)) {
			cfg_error(pos_of(o, "confparam"), "omkafka: confParam '%s' is not of the form "
				  "\"name=value\"", c->conf_param.v[i]);
			errs++;
			continue;
		}
		if (rd_kafka_conf_set(a->conf, n, v, err, sizeof(err)) != RD_KAFKA_CONF_OK) {
			cfg_error(pos_of(o, "confparam"), "omkafka: confParam '%s': %s",
				  c->conf_param.v[i], err);
			errs++;
		}
		free(n);
		free(v);
	}
	rd_kafka_conf_set_log_cb(a->conf, log_cb);
	if (!conf_has(&c->conf_param, "linger.ms") && !conf_has(&c->conf_param, "queue.buffering.max.ms"))
		rd_kafka_conf_set(a->conf, "linger.ms", DEFAULT_LINGER_MS, err, sizeof(err));
	if (c->stats_file && !conf_has(&c->conf_param, "statistics.interval.ms"))
		rd_kafka_conf_set(a->conf, "statistics.interval.ms", "60000", err, sizeof(err));
	/* topic properties given in confParam (message.timeout.ms, acks,
	 * partitioner, ...) land in librdkafka's default topic conf, which
	 * a topic created with a conf of its own would not see: start from
	 * it, then apply topicConfParam */
	rd_kafka_topic_conf_t *dtc = rd_kafka_conf_get_default_topic_conf(a->conf);
	a->tconf = dtc ? rd_kafka_topic_conf_dup(dtc) : rd_kafka_topic_conf_new();
	for (int i = 0; i < c->topic_conf_param.n; i++) {
		char *n, *v;
		if (!split_kv(c->topic_conf_param.v[i], &n, &v)) {
			cfg_error(pos_of(o, "topicconfparam"), "omkafka: topicConfParam '%s' is not of "
				  "the form \"name=value\"", c->topic_conf_param.v[i]);
			errs++;
			continue;
		}
		if (rd_kafka_topic_conf_set(a->tconf, n, v, err, sizeof(err)) != RD_KAFKA_CONF_OK) {
			cfg_error(pos_of(o, "topicconfparam"), "omkafka: topicConfParam '%s': %s",
				  c->topic_conf_param.v[i], err);
			errs++;
		}
		free(n);
		free(v);
	}

	/* headers */
	if (c->kafka_header.n) {
		a->hdrs = sl_xcalloc((size_t)c->kafka_header.n, sizeof(*a->hdrs));
		for (int i = 0; i < c->kafka_header.n; i++) {
			struct kafka_header *h = &a->hdrs[a->n_hdrs];
			if (!split_kv(c->kafka_header.v[i], &h->name, &h->val) || !*h->name) {
				cfg_error(pos_of(o, "kafkaheader"), "omkafka: kafkaHeader '%s' is not of "
					  "the form \"name=value\"", c->kafka_header.v[i]);
				errs++;
				continue;
			}
			h->val_len = strlen(h->val);
			a->n_hdrs++;
		}
	}

	/* topic and key */
	if (c->dyna_topic) {
		a->topic_tpl = tpl_find(c->topic);
		if (!a->topic_tpl) {
			cfg_error(pos_of(o, "topic"), "omkafka: dynaTopic is on, but template '%s' "
				  "(the topic) is not defined", c->topic);
			errs++;
		}
		if (c->dyna_topic_cache_size < 1) {
			cfg_error(pos_of(o, "dynatopic.cachesize"), "omkafka: dynaTopic.cacheSize must be >= 1");
			errs++;
		}
	} else if (!*c->topic) {
		cfg_error(pos_of(o, "topic"), "omkafka: parameter 'topic' is empty");
		errs++;
	}
	if (c->dyna_key) {
		a->key_tpl = c->key ? tpl_find(c->key) : NULL;
		if (!a->key_tpl) {
			cfg_error(pos_of(o, c->key ? "key" : "dynakey"), "omkafka: dynaKey is on, but "
				  "template '%s' (the key) is not defined", c->key ? c->key : "");
			errs++;
		}
	}
	if (c->part_number < 1) {
		cfg_error(pos_of(o, "partitions.number"), "omkafka: partitions.number must be >= 1");
		errs++;
	}
	if (c->part_fixed < -1 || c->part_fixed > INT32_MAX) {
		cfg_error(pos_of(o, "partitions.usefixed"), "omkafka: partitions.useFixed must be >= 0");
		errs++;
	}
	if (!strcasecmp(c->confirm_delivery, "auto")) {
		a->confirm = CONFIRM_AUTO;
	} else if (!strcasecmp(c->confirm_delivery, "transaction")) {
		a->confirm = CONFIRM_TX;
	} else if (!strcasecmp(c->confirm_delivery, "async")) {
		a->confirm = CONFIRM_ASYNC;
	} else {
		cfg_error(pos_of(o, "confirmdelivery"), "omkafka: confirmDelivery must be "
			  "\"transaction\", \"async\" or \"auto\", not \"%s\"", c->confirm_delivery);
		errs++;
	}
	struct cfg_param *qf = cfg_obj_param(o, "queue.filename");
	struct cfg_param *qt = cfg_obj_param(o, "queue.type");
	a->own_queue_persistent = (qf && !qf->val.is_array && qf->val.str && *qf->val.str) ||
				  (qt && !qt->val.is_array && qt->val.str &&
				   !strcasecmp(qt->val.str, "disk"));
	if (c->close_timeout < 0 || c->delivery_timeout < 100 || c->max_held < 1 ||
	    c->async_window < 2) {
		cfg_error(&o->pos, "omkafka: closeTimeout must be >= 0, deliveryTimeout >= 100, "
			  "maxHeldMessages >= 1, asyncWindow >= 2");
		errs++;
	}
	if (c->keep_failed && !c->failed_msg_file)
		cfg_warn(pos_of(o, "keepfailedmessages"), "omkafka: keepFailedMessages is on but no "
			 "failedMsgFile is set: undelivered messages are not kept across a restart");
	if (errs) {
		*n_errors += errs;
		act_free(a);
		return NULL;
	}
	kafka_stats_register(a, o);
	return a;
}

/* Delivery reports of the backlog producer (the thread polling it holds
 * a->mtx). */
static void backlog_dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	struct kafka_act *a = opaque;
	(void)rk;
	a->backlog_outstanding--;
	if (!m->err) {
		atomic_fetch_add_explicit(&a->n_acked, 1, memory_order_relaxed);
		return;
	}
	const char *topic = rd_kafka_topic_name(m->rkt);
	rd_kafka_timestamp_type_t tst;
	int64_t ts = rd_kafka_message_timestamp(m, &tst);
	if (err_permanent(m->err) && !a->cfg->resubmit_on_failure) {
		failed_for_good(a, topic, strlen(topic), m->key, m->key ? m->key_len : 0, m->payload,
				m->len, m->err);
		return;
	}
	if (!rec_add(&a->backlog_retry, topic, strlen(topic), m->key, m->key ? m->key_len : 0,
		     m->payload, m->len, m->_private == OPQ_AUTO ? REC_PARTITION_AUTO : m->partition,
		     ts < 0 ? 0 : ts, m->err))
		atomic_fetch_add(&a->n_lost, 1);
}

/* One backlog message into the backlog producer. */
static rd_kafka_resp_err_t backlog_produce1(struct kafka_act *a, const char *topic,
					    const struct rec *r)
{
	int32_t part = r->h->partition == REC_PARTITION_AUTO ? RD_KAFKA_PARTITION_UA
							     : r->h->partition;
	void *opq = r->h->partition == REC_PARTITION_AUTO ? OPQ_AUTO : NULL;
	void *payload = (void *)r->payload;
	size_t pl = r->h->payload_len;
	const void *key = r->key;
	size_t kl = r->key ? r->h->key_len : 0;
	int64_t ts = r->h->ts_ms;
	return rd_kafka_producev(a->backlog_rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(part),
				 RD_KAFKA_V_VALUE(payload, pl), RD_KAFKA_V_KEY(key, kl),
				 RD_KAFKA_V_TIMESTAMP(ts), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
				 RD_KAFKA_V_OPAQUE(opq), RD_KAFKA_V_END);
}

/* Produce `l` with the backlog producer (a->mtx held). What librdkafka
 * refuses goes to backlog_retry. */
static void backlog_produce(struct kafka_act *a, const struct rec_list *l)
{
	size_t off = 0;
	struct rec r;
	char name[512];
	while (rec_next(l, &off, &r)) {
		size_t tl = r.h->topic_len < sizeof(name) - 1 ? r.h->topic_len : sizeof(name) - 1;
		memcpy(name, r.topic, tl);
		name[tl] = '\0';
		rd_kafka_resp_err_t e = backlog_produce1(a, name, &r);
		for (int i = 0; e == RD_KAFKA_RESP_ERR__QUEUE_FULL && i < 50; i++) {
			rd_kafka_poll(a->backlog_rk, 20);
			e = backlog_produce1(a, name, &r);
		}
		if (!e) {
			a->backlog_outstanding++;
			continue;
		}
		if (err_permanent(e) && !a->cfg->resubmit_on_failure)
			failed_for_good(a, r.topic, r.h->topic_len, r.key, r.h->key_len, r.payload,
					r.h->payload_len, e);
		else if (!rec_add(&a->backlog_retry, r.topic, r.h->topic_len, r.key,
				  r.key ? r.h->key_len : 0, r.payload, r.h->payload_len,
				  r.h->partition, r.h->ts_ms, e))
			atomic_fetch_add(&a->n_lost, 1);
	}
}

/* Serve the backlog producer; when every backlog message is delivered,
 * drop the producer and the file. Called with a->mtx held. */
static void backlog_step(struct kafka_act *a)
{
	if (!a->backlog_rk)
		return;
	rd_kafka_poll(a->backlog_rk, 0);
	if (a->backlog_outstanding)
		return;
	if (a->backlog_retry.n == 0) {
		rd_kafka_destroy(a->backlog_rk);
		a->backlog_rk = NULL;
		const struct rec_list *none[1] = { &a->leftovers };
		failed_save(a->cfg->failed_msg_file, none, 1);
		sl_info("%s: every message from failedMsgFile %s is delivered", a->label,
			a->cfg->failed_msg_file);
		return;
	}
	time_t t = time(NULL);
	if (t < a->backlog_next_retry)
		return;
	a->backlog_next_retry = t + 5;
	struct rec_list l = a->backlog_retry;
	a->backlog_retry = (struct rec_list){ SBUF_INIT, 0 };
	backlog_produce(a, &l);
	rec_free(&l);
}

static enum sl_rc kafka_act_start(void *act)
{
	struct kafka_act *a = act;
	if (a->confirm == CONFIRM_AUTO)
		a->confirm = (a->own_queue_persistent || conf_persistent_queues()) ? CONFIRM_TX
										     : CONFIRM_ASYNC;
	sl_dbg("%s: confirmDelivery %s", a->label,
	       a->confirm == CONFIRM_TX ? "transaction" : "async");
	if (!a->cfg->keep_failed || !a->cfg->failed_msg_file)
		return SL_OK;
	struct rec_list l = { SBUF_INIT, 0 };
	long n = failed_load(a->cfg->failed_msg_file, &l);
	if (n < 0) {
		a->failed_file_unreadable = true;
		return SL_OK;
	}
	if (n == 0) {
		rec_free(&l);
		return SL_OK;
	}
	pthread_mutex_lock(&a->mtx);
	a->backlog_rk = producer_new(a, a, backlog_dr_cb);
	if (a->backlog_rk) {
		sl_info("%s: %ld undelivered messages from failedMsgFile %s are sent first", a->label,
			n, a->cfg->failed_msg_file);
		backlog_produce(a, &l);
	} else {
		a->failed_file_unreadable = true; /* keep the file as it is */
	}
	pthread_mutex_unlock(&a->mtx);
	rec_free(&l);
	return SL_OK;
}

static void kafka_tick(void *act)
{
	struct kafka_act *a = act;
	if (pthread_mutex_trylock(&a->mtx) == 0) {
		backlog_step(a);
		pthread_mutex_unlock(&a->mtx);
	}
	if (a->confirm != CONFIRM_ASYNC)
		return;
	/* Workers between transactions: serve the reports of what they
	 * produced last (a burst has ended), produce again what failed. A
	 * worker inside a transaction holds its lock and is skipped. */
	pthread_mutex_lock(&a->wrk_mtx);
	for (struct kafka_wrk *w = a->wrks; w; w = w->next) {
		if (pthread_mutex_trylock(&w->mtx) != 0)
			continue;
		if (w->rk && (w->outstanding || w->retry.n)) {
			/* also when every broker seems down: no transaction
			 * comes to try again, librdkafka keeps them until
			 * message.timeout.ms and then reports them here again */
			rd_kafka_poll(w->rk, 0);
			if (w->retry.n)
				resend_retry(w);
			counters_flush(w);
		}
		pthread_mutex_unlock(&w->mtx);
	}
	pthread_mutex_unlock(&a->wrk_mtx);
}

static void kafka_hup(void *act)
{
	struct kafka_act *a = act;
	kfile_reopen(&a->errfile);
	kfile_reopen(&a->statsfile);
	if (a->cfg->reopen_on_hup)
		atomic_fetch_add(&a->hup_gen, 1);
}

static void kafka_act_destroy(void *act)
{
	struct kafka_act *a = act;
	if (!a)
		return;
	stats_obj_destroy(a->stats_obj);
	a->stats_obj = NULL;
	pthread_mutex_lock(&a->mtx);
	if (a->backlog_rk) {
		/* the backlog producer gets closeTimeout too, then is purged */
		int64_t end = now_ms() + a->cfg->close_timeout;
		while (a->backlog_outstanding && now_ms() < end)
			rd_kafka_flush(a->backlog_rk, 100);
		if (a->backlog_outstanding) {
			rd_kafka_purge(a->backlog_rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
			for (int i = 0; i < 50 && a->backlog_outstanding; i++)
				rd_kafka_poll(a->backlog_rk, 100);
		}
		rd_kafka_destroy(a->backlog_rk);
		a->backlog_rk = NULL;
	}
	size_t n = a->backlog_retry.n + a->leftovers.n;
	if (a->cfg->keep_failed && a->cfg->failed_msg_file && !a->failed_file_unreadable) {
		/* the older messages (the backlog) first */
		const struct rec_list *lists[2] = { &a->backlog_retry, &a->leftovers };
		if (failed_save(a->cfg->failed_msg_file, lists, 2)) {
			atomic_fetch_add(&a->n_saved, n);
			if (n)
				sl_warn("%s: %zu undelivered messages saved in failedMsgFile %s; they are "
					"sent first after the next start", a->label, n,
					a->cfg->failed_msg_file);
		} else {
			atomic_fetch_add(&a->n_lost, n);
		}
	} else if (n) {
		const struct rec_list *lists[2] = { &a->backlog_retry, &a->leftovers };
		for (int i = 0; i < 2; i++) {
			size_t off = 0;
			struct rec r;
			while (rec_next(lists[i], &off, &r))
				errfile_write(&a->errfile, r.topic, r.h->topic_len, r.key, r.h->key_len,
					      r.payload, r.h->payload_len, r.h->err,
					      "not delivered before shutdown");
		}
		atomic_fetch_add(&a->n_lost, n);
		sl_err("%s: %zu messages could not be delivered before shutdown and are lost "
		       "(set keepFailedMessages=\"on\" and failedMsgFile to keep them)", a->label, n);
	}
	pthread_mutex_unlock(&a->mtx);
	sl_dbg("%s: submitted=%llu acked=%llu retried=%llu failed=%llu saved=%llu lost=%llu",
	       a->label, (unsigned long long)atomic_load(&a->n_submitted),
	       (unsigned long long)atomic_load(&a->n_acked),
	       (unsigned long long)atomic_load(&a->n_retried),
	       (unsigned long long)atomic_load(&a->n_failed),
	       (unsigned long long)atomic_load(&a->n_saved),
	       (unsigned long long)atomic_load(&a->n_lost));
	act_free(a);
}

/* ---- workers and transactions ---- */

static void *kafka_wrk_create(void *act)
{
	struct kafka_act *a = act;
	struct kafka_wrk *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->a = a;
	w->last_hit = -1;
	w->rr = atomic_fetch_add(&a->wrk_seq, 1);
	w->window = (uint64_t)(a->cfg->max_held < a->cfg->async_window ? a->cfg->max_held
									    : a->cfg->async_window);
	w->key_len = a->cfg->key ? strlen(a->cfg->key) : 0;
	if (a->cfg->dyna_topic) {
		w->n_cache = (int)a->cfg->dyna_topic_cache_size;
		w->cache = calloc((size_t)w->n_cache, sizeof(*w->cache));
	}
	w->vu = calloc(VU_FIXED + (size_t)a->n_hdrs + 1, sizeof(*w->vu));
	if (!w->vu || (a->cfg->dyna_topic && !w->cache)) {
		free(w->cache);
		free(w->vu);
		free(w);
		return NULL;
	}
	w->vu[VU_RKT].vtype = RD_KAFKA_VTYPE_RKT;
	w->vu[VU_PARTITION].vtype = RD_KAFKA_VTYPE_PARTITION;
	w->vu[VU_VALUE].vtype = RD_KAFKA_VTYPE_VALUE;
	w->vu[VU_FLAGS].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
	w->vu[VU_FLAGS].u.i = RD_KAFKA_MSG_F_COPY;
	w->vu[VU_TIMESTAMP].vtype = RD_KAFKA_VTYPE_TIMESTAMP;
	w->vu[VU_OPAQUE].vtype = RD_KAFKA_VTYPE_OPAQUE;
	for (int i = 0; i < a->n_hdrs; i++) {
		rd_kafka_vu_t *v = &w->vu[VU_FIXED + i];
		v->vtype = RD_KAFKA_VTYPE_HEADER;
		v->u.header.name = a->hdrs[i].name;
		v->u.header.val = a->hdrs[i].val;
		v->u.header.size = (ssize_t)a->hdrs[i].val_len;
	}
	/* the producer is made on first use (try_resume retries it) */
	wrk_open_producer(w);
	pthread_mutex_init(&w->mtx, NULL);
	pthread_mutex_lock(&a->wrk_mtx);
	w->next = a->wrks;
	a->wrks = w;
	pthread_mutex_unlock(&a->wrk_mtx);
	return w;
}

static void kafka_wrk_destroy(void *wrk)
{
	struct kafka_wrk *w = wrk;
	if (!w)
		return;
	struct kafka_act *a = w->a;
	pthread_mutex_lock(&a->wrk_mtx);
	for (struct kafka_wrk **pp = &a->wrks; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	}
	pthread_mutex_unlock(&a->wrk_mtx);
	wrk_hold(w);
	if (w->rk) {
		if (w->retry.n && !w->down)
			resend_retry(w);
		wait_reports(w, a->cfg->close_timeout, a->cfg->close_timeout, a->cfg->close_timeout);
		if (w->outstanding) {
			/* what librdkafka still holds comes back as _PURGE_* reports */
			rd_kafka_purge(w->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
			wait_reports(w, 2000, 2000, 5000);
		}
		if (w->outstanding) {
			sl_err("%s: %llu messages inside librdkafka could not be taken back at shutdown "
			       "and are lost", a->label, (unsigned long long)w->outstanding);
			atomic_fetch_add(&a->n_lost, w->outstanding);
		}
		rd_kafka_poll(w->rk, 0); /* the last statistics and errors */
	}
	counters_flush(w);
	wrk_close_producer(w);
	if (w->retry.n) {
		pthread_mutex_lock(&a->mtx);
		if (!rec_append_all(&a->leftovers, &w->retry)) {
			atomic_fetch_add(&a->n_lost, w->retry.n);
			sl_err("%s: out of memory: %zu undelivered messages are lost", a->label, w->retry.n);
		}
		pthread_mutex_unlock(&a->mtx);
	}
	rec_free(&w->retry);
	rec_free(&w->resend);
	wrk_let_go(w);
	pthread_mutex_destroy(&w->mtx);
	sbuf_free(&w->topic_buf);
	sbuf_free(&w->key_buf);
	free(w->cache);
	free(w->vu);
	free(w);
}

static enum sl_rc kafka_tx_begin(void *wrk)
{
	struct kafka_wrk *w = wrk;
	wrk_hold(w);
	if (SL_UNLIKELY(w->rk && (w->fatal || w->hup_gen != atomic_load(&w->a->hup_gen)) &&
			(w->fatal || w->a->confirm == CONFIRM_ASYNC ||
			 (w->outstanding == 0 && w->retry.n == 0))))
		wrk_recreate(w);
	return SL_OK;
}

static inline int64_t msg_ts_ms(struct kafka_wrk *w, const struct msg *m)
{
	const struct syslog_time *t = &m->t_reported;
	if (!t->valid)
		return (int64_t)m->ttgen * 1000;
	if (t->second != w->ts_last.second || t->minute != w->ts_last.minute ||
	    t->hour != w->ts_last.hour || t->day != w->ts_last.day ||
	    t->month != w->ts_last.month || t->year != w->ts_last.year ||
	    t->off_mode != w->ts_last.off_mode || t->off_hour != w->ts_last.off_hour ||
	    t->off_minute != w->ts_last.off_minute || !w->ts_last.valid) {
		w->ts_last = *t;
		w->ts_last_sec = dt_to_epoch(t);
	}
	return (int64_t)w->ts_last_sec * 1000;
}

static enum act_result kafka_tx_add(void *wrk, struct msg *m, const char *rendered, size_t len)
{
	struct kafka_wrk *w = wrk;
	struct kafka_act *a = w->a;
	const struct kafka_cfg *c = a->cfg;

	if (SL_UNLIKELY(!w->held))
		wrk_hold(w);
	if (SL_UNLIKELY(!w->rk) && !wrk_open_producer(w))
		return ACT_SUSPENDED;
	/* a broker that is down: hold at most maxHeldMessages, then refuse */
	if (SL_UNLIKELY(w->down && w->outstanding + w->retry.n >= (uint64_t)c->max_held))
		return ACT_SUSPENDED;
	/* async: at most `window` messages without their report while a
	 * broker answers (while none does, maxHeldMessages above: what
	 * librdkafka holds at a stop is saved in failedMsgFile, what waits
	 * in a memory queue is not) */
	if (SL_UNLIKELY(w->outstanding + w->retry.n >= w->window) && !w->down &&
	    a->confirm == CONFIRM_ASYNC && !make_room(w))
		return ACT_SUSPENDED;

	rd_kafka_topic_t *rkt = w->rkt;
	const char *tname = c->topic;
	size_t tlen = 0;
	if (c->dyna_topic) {
		sbuf_reset(&w->topic_buf);
		if (!tpl_render(a->topic_tpl, m, &w->topic_buf) || !sbuf_cstr(&w->topic_buf))
			return ACT_SUSPENDED;
		tname = w->topic_buf.buf;
		tlen = w->topic_buf.len;
		if (tlen == 0) {
			failed_for_good(a, "", 0, NULL, 0, rendered, len, RD_KAFKA_RESP_ERR__INVALID_ARG);
			return ACT_FAILED;
		}
		rkt = topic_get(w, tname, tlen);
		if (!rkt)
			return ACT_SUSPENDED;
	}

	const char *key = NULL;
	size_t klen = 0;
	if (c->key) {
		if (c->dyna_key) {
			sbuf_reset(&w->key_buf);
			if (!tpl_render(a->key_tpl, m, &w->key_buf))
				return ACT_SUSPENDED;
			key = w->key_buf.buf ? w->key_buf.buf : "";
			klen = w->key_buf.len;
		} else {
			key = c->key;
			klen = w->key_len;
		}
	}

	int32_t part;
	if (c->part_auto)
		part = REC_PARTITION_AUTO;
	else if (c->part_fixed >= 0)
		part = (int32_t)c->part_fixed;
	else
		part = (int32_t)(w->rr++ % (uint32_t)c->part_number);

	int64_t ts = msg_ts_ms(w, m);
	rd_kafka_resp_err_t e = produce_wait(w, rkt, part, key, klen, rendered, len, ts);
	if (SL_UNLIKELY(e)) {
		if (!tlen)
			tlen = strlen(tname);
		if (err_permanent(e) && !c->resubmit_on_failure) {
			failed_for_good(a, tname, tlen, key, klen, rendered, len, e);
			return ACT_FAILED;
		}
		/* held by the worker; produced again at the commit */
		if (!rec_add(&w->retry, tname, tlen, key, klen, rendered, len, part, ts, e))
			return ACT_SUSPENDED;
	}
	w->n_submitted++;
	if (SL_UNLIKELY(++w->n_since_poll >= 1024)) {
		w->n_since_poll = 0;
		rd_kafka_poll(w->rk, 0);
	}
	return ACT_DEFERRED;
}

static enum act_result kafka_tx_commit(void *wrk)
{
	struct kafka_wrk *w = wrk;
	struct kafka_act *a = w->a;
	if (SL_UNLIKELY(!w->held))
		wrk_hold(w);
	if (SL_UNLIKELY(!w->rk)) {
		if (w->retry.n)
			return ACT_SUSPENDED;
		wrk_let_go(w);
		return ACT_OK;
	}
	if (a->confirm == CONFIRM_ASYNC) {
		/* the messages are librdkafka's now: serve the reports that
		 * came, produce again what failed, and let the batch go */
		rd_kafka_poll(w->rk, 0);
		if (SL_UNLIKELY(w->retry.n) && !w->down)
			resend_retry(w);
		w->n_since_poll = 0;
		counters_flush(w);
		wrk_let_go(w);
		return ACT_OK;
	}
	if (SL_UNLIKELY(w->retry.n))
		resend_retry(w);
	w->n_since_poll = 0;
	if (SL_LIKELY(wait_reports(w, a->cfg->delivery_timeout, 1000, -1) && w->retry.n == 0)) {
		wrk_let_go(w);
		return ACT_OK;
	}
	log_limited(a, "%s: %llu messages not yet acknowledged by the broker, %zu to be sent "
		    "again%s; action suspended", a->label, (unsigned long long)w->outstanding,
		    w->retry.n, w->down ? " (all brokers down)" : "");
	return ACT_SUSPENDED;
}

static enum sl_rc kafka_try_resume(void *wrk)
{
	struct kafka_wrk *w = wrk;
	if (!w->held)
		wrk_hold(w);
	if (!w->rk && !wrk_open_producer(w))
		return SL_ERR_SUSPENDED;
	if (w->fatal)
		wrk_recreate(w);
	if (!w->rk)
		return SL_ERR_SUSPENDED;
	const struct rd_kafka_metadata *md = NULL;
	rd_kafka_resp_err_t e = rd_kafka_metadata(w->rk, 0, NULL, &md, 2000);
	rd_kafka_poll(w->rk, 0);
	if (e != RD_KAFKA_RESP_ERR_NO_ERROR)
		return SL_ERR_SUSPENDED;
	rd_kafka_metadata_destroy(md);
	w->down = false;
	return SL_OK;
}

static const struct output_ops kafka_output_ops = {
	.act_create = kafka_act_create,
	.act_start = kafka_act_start,
	.act_destroy = kafka_act_destroy,
	.wrk_create = kafka_wrk_create,
	.wrk_destroy = kafka_wrk_destroy,
	.tx_begin = kafka_tx_begin,
	.tx_add = kafka_tx_add,
	.tx_commit = kafka_tx_commit,
	.try_resume = kafka_try_resume,
	.hup = kafka_hup,
	.tick = kafka_tick,
	.default_template = "RSYSLOG_FileFormat",
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "omkafka",
	.description = "write messages to Apache Kafka (librdkafka), acknowledged end to end",
	.type = MOD_OUTPUT,
	.inst_params = &kafka_table,
	.mod_init = kafka_mod_init,
	.output = &kafka_output_ops,
};
