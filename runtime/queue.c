/* queue.c — the queue engine's core: creating and starting queues,
 * Direct queues, worker threads (started on demand, ended when idle) with
 * batch dequeue, enqueue with flow control (full/light delay marks,
 * discardMark), draining at stop, and the statistics of every queue.
 * Beside it: queue_cfg.c (queue.* parameters and rsyslog's defaults),
 * queue_array.c (FixedArray ring) and queue_list.c (LinkedList chunks),
 * queue_da.c (disk-assisted spilling, handed-back batches, saving at stop)
 * and queue_disk.c (the disk part of Disk and DA queues).
 *
 * Threading: one mutex per queue guards its storage (memory and disk
 * part), counts and flags; it is taken once per enqueued batch and once
 * per dequeued batch. Producers wait on `not_full` (flow control), workers
 * on `not_empty`; `drained` is signalled whenever a worker finishes a
 * batch, for queue_drain_and_stop. A Direct queue has no storage and no
 * threads: the producer runs the consumer in its own thread, with a worker
 * of its own per calling thread. The registry of queues (for stats_dump)
 * has a mutex of its own.
 */
#include "queue.h"
#include "stats.h"
#include "queue_disk.h"
#include "queue_int.h"
#include "msg.h"
#include "log.h"
#include "worker.h"
#include "module.h"
#include "ast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

struct worker_arg {
	struct queue *q;
	int idx;
};

/* The abort flag of the queue whose worker runs on this thread (NULL on
 * other threads): long waits further down (a full action queue, a
 * suspended action's retries) give up when it is set. */
static __thread atomic_bool *tls_abort;

bool queue_thread_aborting(void)
{
	return tls_abort && atomic_load_explicit(tls_abort, memory_order_relaxed);
}

void queue_thread_set_abort_flag(atomic_bool *flag)
{
	tls_abort = flag;
}

static pthread_mutex_t reg_mtx = PTHREAD_MUTEX_INITIALIZER;
static struct queue *reg_first;

struct queue *queue_first(void)
{
	return reg_first;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void deadline_after(struct timespec *ts, int64_t ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

int queue_raw_severity(const char *raw, size_t len)
{
	if (len < 3 || raw[0] != '<')
		return -1;
	int v = 0;
	size_t i = 1;
	for (; i < len && i < 5 && raw[i] >= '0' && raw[i] <= '9'; i++)
		v = v * 10 + (raw[i] - '0');
	if (i == 1 || i >= len || raw[i] != '>' || v > 191)
		return -1;
	return v & 7;
}

/* Outside [dequeueTimeBegin, dequeueTimeEnd)? (hours, local time) */
static bool outside_dequeue_window(struct queue *q)
{
	int64_t b = q->cfg.dequeue_time_begin, e = q->cfg.dequeue_time_end;
	if (b <= 0 && e >= 24)
		return false;
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	if (b <= e)
		return !(tm.tm_hour >= b && tm.tm_hour < e);
	return !(tm.tm_hour >= b || tm.tm_hour < e);
}

/* Direct queues run the consumer in the producer's thread, with a worker
 * per producing thread (freed when a queue worker thread ends). */
static __thread struct worker *direct_worker;

/* Worker k > 0 works only while more than k * workerThreadMinimumMessages
 * are waiting, as rsyslog starts its extra workers: under light load one
 * worker keeps the messages of a connection in order. */
static size_t worker_threshold(struct queue *q, int k)
{
	if (k == 0)
		return 1;
	int64_t per = q->cfg.worker_min_msgs;
	if (per <= 0)
		per = q->cfg.size / (q->n_workers ? q->n_workers : 1);
	if (per < 1)
		per = 1;
	return (size_t)per * (size_t)k;
}

/* Nothing for a worker with this threshold to do now (lock held). */
#define NO_WORK(q, thresh)                                                              \
	(((q->count == 0 && disk_count(q) == 0) ||                                      \
	  (q->count + disk_count(q) < (thresh) && !q->stopping)) &&                     \
	 !(q->stopping && q->count == 0 && disk_count(q) == 0) && !q->abort)

static void *worker_main(void *arg)
{
	struct worker_arg *wa = arg;
	struct queue *q = wa->q;
	struct worker *w = q->workers[wa->idx];
	int wa_idx = wa->idx;
	size_t max = (size_t)q->cfg.dequeue_batch_size;
	struct msg **batch = malloc(max * sizeof(*batch));
	free(wa);
	if (!batch) {
		sl_err("queue %s: cannot allocate a batch of %zu", q->name, max);
		return NULL;
	}
	tls_abort = &q->abort_flag;
	size_t thresh = worker_threshold(q, wa_idx);
	int64_t idle_ms = q->cfg.timeout_worker_shutdown;
	pthread_mutex_lock(&q->mtx);
	for (;;) {
		bool idle_timeout = false;
		if (NO_WORK(q, thresh)) {
			/* timeoutWorkerThreadShutdown: -1 = wait for ever */
			struct timespec ts;
			if (idle_ms >= 0)
				deadline_after(&ts, idle_ms);
			while (NO_WORK(q, thresh)) {
				if (idle_ms < 0) {
					pthread_cond_wait(&q->not_empty, &q->mtx);
				} else if (pthread_cond_timedwait(&q->not_empty, &q->mtx, &ts) ==
					   ETIMEDOUT) {
					idle_timeout = NO_WORK(q, thresh);
					break;
				}
			}
		}
		if (idle_timeout) {
			/* idle for timeoutWorkerThreadShutdown: end this thread;
			 * queue_enqueue starts it again when work comes */
			q->w_running[wa_idx] = false;
			q->n_running--;
			atomic_fetch_add(&q->stats.worker_idle_exits, 1);
			break;
		}
		if (q->abort || (q->count == 0 && disk_count(q) == 0 && q->stopping))
			break;
		if (!q->stopping && outside_dequeue_window(q)) {
			struct timespec ts;
			deadline_after(&ts, 1000);
			pthread_cond_timedwait(&q->not_empty, &q->mtx, &ts);
			continue;
		}
		if (q->cfg.min_dequeue_batch_size > 1 && !q->stopping &&
		    q->count + disk_count(q) < (size_t)q->cfg.min_dequeue_batch_size) {
			/* queue.minDequeueBatchSize: wait a little for a fuller batch */
			struct timespec ts;
			deadline_after(&ts, q->cfg.min_dequeue_batch_timeout);
			while (q->count + disk_count(q) < (size_t)q->cfg.min_dequeue_batch_size &&
			       !q->stopping && !q->abort &&
			       pthread_cond_timedwait(&q->not_empty, &q->mtx, &ts) != ETIMEDOUT)
				;
			if (q->abort)
				break;
		}
		size_t n;
		uint64_t ticket = 0;
		bool from_disk = false;
		if (q->count > 0) {
			n = store_take(q, batch, max);
		} else {
			n = (size_t)dq_take(q->disk, batch, (int)max, &ticket);
			from_disk = true;
			if (q->is_da && q->spilling && dq_count(q->disk) == 0) {
				/* the disk part is empty: back to memory */
				q->spilling = false;
				sl_info("queue %s: disk part drained; back to memory", q->name);
			}
			if (n == 0)
				continue;
		}
		q->in_flight += n;
		pthread_cond_broadcast(&q->not_full);
		pthread_mutex_unlock(&q->mtx);

		w->requeue = false;
		q->consume(q->consume_arg, batch, (int)n, w);
		bool requeue = w->requeue;
		if (!requeue) {
			for (size_t i = 0; i < n; i++)
				msg_release(batch[i]);
			atomic_fetch_add_explicit(&q->stats.processed, n, memory_order_relaxed);
		}

		pthread_mutex_lock(&q->mtx);
		if (requeue) {
			atomic_fetch_add(&q->stats.requeued, n);
			if (from_disk) {
				dq_untake(q->disk, ticket);
				for (size_t i = 0; i < n; i++)
					msg_release(batch[i]);
			} else {
				queue_held_add(q, batch, n);
			}
		} else if (from_disk) {
			dq_done(q->disk, ticket);
		}
		q->in_flight -= n;
		pthread_cond_broadcast(&q->drained);
		if (q->cfg.dequeue_slowdown > 0 && !q->stopping) {
			pthread_mutex_unlock(&q->mtx);
			usleep((useconds_t)q->cfg.dequeue_slowdown);
			pthread_mutex_lock(&q->mtx);
		}
	}
	pthread_mutex_unlock(&q->mtx);
	free(batch);
	if (direct_worker) {
		worker_destroy(direct_worker);
		direct_worker = NULL;
	}
	return NULL;
}

static int64_t pct(int64_t v, int64_t size, int p)
{
	if (v >= 0)
		return v;
	int64_t r = size * p / 100;
	return r > 0 ? r : 1;
}

/* statistics: "size" is what waits or is in flight, memory and disk */
static uint64_t queue_stat_size(void *arg)
{
	struct queue *q = arg;
	pthread_mutex_lock(&q->mtx);
	uint64_t n = q->count + q->in_flight;
	pthread_mutex_unlock(&q->mtx);
	return n + atomic_load(&q->stats.disk_size);
}

/* Register the counters with the statistics registry (stats.h): rsyslog's
 * names first (size enqueued full discarded.full discarded.nf maxqsize),
 * then sluice's own. */
static void queue_stats_register(struct queue *q)
{
	struct queue_stats *st = &q->stats;
	const unsigned R = STATS_CTR_RESETTABLE, G = STATS_CTR_GAUGE;
	struct stats_obj *o = stats_obj_create(q->name, "core.queue");
	if (!o)
		return;
	stats_obj_add_fn(o, "size", queue_stat_size, q, G);
	stats_obj_add(o, "enqueued", &st->enqueued, R);
	stats_obj_add(o, "full", &st->full, R);
	stats_obj_add(o, "discarded.full", &st->discarded_full, R);
	stats_obj_add(o, "discarded.nf", &st->discarded_nf, R);
	stats_obj_add(o, "maxqsize", &st->max_size, G);
	stats_obj_add(o, "processed", &st->processed, R);
	stats_obj_add(o, "discarded.shutdown", &st->discarded_shutdown, R);
	stats_obj_add(o, "discarded.disk", &st->discarded_disk, R);
	stats_obj_add(o, "disk.size", &st->disk_size, G);
	stats_obj_add(o, "disk.bytes", &st->disk_bytes, G);
	stats_obj_add(o, "disk.written", &st->disk_written, R);
	stats_obj_add(o, "disk.read", &st->disk_read, R);
	stats_obj_add(o, "disk.full", &st->disk_full, R);
	stats_obj_add(o, "disk.corrupt", &st->disk_corrupt, R);
	stats_obj_add(o, "disk.errors", &st->disk_errors, R);
	stats_obj_add(o, "disk.loaded", &st->loaded, 0);
	stats_obj_add(o, "disk.saved", &st->saved, R);
	stats_obj_add(o, "requeued", &st->requeued, R);
	stats_obj_add(o, "spills", &st->spills, R);
	stats_obj_add(o, "parsed.ahead", &st->parsed_ahead, R);
	q->stats_obj = o;
}

struct queue *queue_create(const char *name, const struct queue_cfg *cfg,
			   queue_consume_fn fn, void *arg)
{
	struct queue *q = sl_xcalloc(1, sizeof(*q));
	q->name = sl_xstrdup(name);
	queue_cfg_copy(&q->cfg, cfg);
	q->consume = fn;
	q->consume_arg = arg;
	pthread_mutex_init(&q->mtx, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	pthread_cond_init(&q->drained, NULL);
	if (q->cfg.size < 1)
		q->cfg.size = 1;
	if (q->cfg.type == QUEUE_FIXED_ARRAY)
		q->ring = sl_xcalloc((size_t)q->cfg.size, sizeof(*q->ring));
	int64_t sz = q->cfg.size;
	q->cfg.full_delay_mark = pct(q->cfg.full_delay_mark, sz, 97);
	q->cfg.light_delay_mark = pct(q->cfg.light_delay_mark, sz, 70);
	q->cfg.high_watermark = pct(q->cfg.high_watermark, sz, 90);
	q->cfg.low_watermark = pct(q->cfg.low_watermark, sz, 70);
	q->cfg.discard_mark = pct(q->cfg.discard_mark, sz, 98);
	if (q->cfg.full_delay_mark > sz)
		q->cfg.full_delay_mark = sz;
	if (q->cfg.high_watermark > sz)
		q->cfg.high_watermark = sz;
	q->is_da = q->cfg.filename && (q->cfg.type == QUEUE_FIXED_ARRAY ||
				       q->cfg.type == QUEUE_LINKED_LIST);
	atomic_init(&q->abort_flag, false);
	queue_stats_register(q);
	pthread_mutex_lock(&reg_mtx);
	q->next_all = reg_first;
	reg_first = q;
	pthread_mutex_unlock(&reg_mtx);
	return q;
}

/* Start worker thread k (lock held); joins its earlier thread first (it
 * has ended: it cleared w_running under the lock and needs it no more). */
static bool start_worker(struct queue *q, int k)
{
	if (q->w_running[k])
		return true;
	if (q->w_joinable[k]) {
		pthread_join(q->threads[k], NULL);
		q->w_joinable[k] = false;
	}
	struct worker_arg *wa = sl_xmalloc(sizeof(*wa));
	wa->q = q;
	wa->idx = k;
	int rc = pthread_create(&q->threads[k], NULL, worker_main, wa);
	if (rc) {
		sl_err("queue %s: cannot start worker thread: %s", q->name, strerror(rc));
		free(wa);
		return false;
	}
	q->w_running[k] = q->w_joinable[k] = true;
	q->n_running++;
	atomic_fetch_add(&q->stats.worker_starts, 1);
	return true;
}

/* Start the workers the queue's size calls for (lock held): worker k when
 * more than its threshold wait; all of them while draining at stop. */
static void workers_adjust(struct queue *q)
{
	if (!q->w_running || q->abort)
		return;
	size_t have = q->count + disk_count(q);
	if (have == 0)
		return;
	for (int k = 0; k < q->n_workers; k++) {
		if (q->w_running[k])
			continue;
		if (!q->stopping && have < worker_threshold(q, k))
			break;
		if (!start_worker(q, k))
			break;
	}
}

enum sl_rc queue_start(struct queue *q)
{
	if (q->cfg.type == QUEUE_DIRECT)
		return SL_OK;
	if ((q->cfg.type == QUEUE_DISK || q->is_da) && !q->disk) {
		pthread_mutex_lock(&q->mtx);
		enum sl_rc rc = dq_open(&q->disk, q);
		if (rc == SL_OK && q->is_da && dq_count(q->disk) > 0)
			q->spilling = true; /* saved messages go first: keep the order */
		pthread_mutex_unlock(&q->mtx);
		if (rc != SL_OK) {
			sl_err("queue %s: cannot open its disk part; not starting", q->name);
			return rc;
		}
	}
	q->n_workers = (int)q->cfg.worker_threads;
	if (q->n_workers < 1)
		q->n_workers = 1;
	q->threads = sl_xcalloc(q->n_workers, sizeof(*q->threads));
	q->workers = sl_xcalloc(q->n_workers, sizeof(*q->workers));
	q->w_running = sl_xcalloc(q->n_workers, sizeof(*q->w_running));
	q->w_joinable = sl_xcalloc(q->n_workers, sizeof(*q->w_joinable));
	for (int i = 0; i < q->n_workers; i++)
		q->workers[i] = worker_create();
	/* the first worker runs from the start (it ends when idle for
	 * timeoutWorkerThreadShutdown); the others start on demand */
	pthread_mutex_lock(&q->mtx);
	bool ok = start_worker(q, 0);
	workers_adjust(q);
	pthread_mutex_unlock(&q->mtx);
	return ok ? SL_OK : SL_ERR_NOMEM;
}


/* Wait for room, as the flow-control class allows. Returns false when
 * the producer must give up (NO_DELAY timeout, shutdown, aborted). */
static bool wait_room(struct queue *q, enum flow_ctl fc)
{
	atomic_fetch_add(&q->stats.full, 1);
	struct timespec ts;
	if (fc == FLOW_DELAY) {
		/* Back-pressure: the input waits, so the sender waits. */
		deadline_after(&ts, 200);
		pthread_cond_timedwait(&q->not_full, &q->mtx, &ts);
		return !queue_thread_aborting();
	}
	deadline_after(&ts, q->cfg.timeout_enqueue);
	return pthread_cond_timedwait(&q->not_full, &q->mtx, &ts) != ETIMEDOUT;
}

/* queue.lightDelayMark (rsyslog's eFLOWCTL_LIGHT_DELAY): a FLOW_LIGHT_DELAY
 * producer above the mark waits once, up to 1 s, for the queue to go below
 * it, then enqueues anyway (the full-queue rules still apply). Once per
 * batch (rsyslog: once per message). Called with the lock held. */
static void light_delay(struct queue *q)
{
	if (q->stopping || q->abort || queue_thread_aborting())
		return;
	size_t mark = (size_t)q->cfg.light_delay_mark;
	if (q->count + disk_count(q) < mark)
		return;
	atomic_fetch_add(&q->stats.light_delayed, 1);
	struct timespec ts;
	deadline_after(&ts, 1000);
	while (q->count + disk_count(q) >= mark && !q->stopping && !q->abort &&
	       pthread_cond_timedwait(&q->not_full, &q->mtx, &ts) != ETIMEDOUT)
		;
}

/* Enqueue with the caller keeping what was not taken: returns how many
 * of msgs (a prefix) the queue took. */
int queue_enqueue_some(struct queue *q, struct msg **msgs, int n, enum flow_ctl fc,
		       enum sl_rc *rcp)
{
	enum sl_rc rc = SL_OK;
	int i = 0;
	size_t cap = (size_t)q->cfg.size;
	pthread_mutex_lock(&q->mtx);
	if (fc == FLOW_LIGHT_DELAY)
		light_delay(q);
	while (i < n) {
		if (q->stopping || q->abort) {
			rc = SL_ERR_SHUTDOWN;
			break;
		}
		if (q->cfg.type == QUEUE_DISK || (q->is_da && q->spilling)) {
			bool full = false;
			int w = dq_put(q->disk, msgs + i, n - i, &full);
			for (int k = 0; k < w; k++)
				msg_release(msgs[i + k]);
			i += w;
			pthread_cond_broadcast(&q->not_empty);
			if (i < n && !wait_room(q, fc)) {
				rc = full ? SL_ERR_AGAIN : SL_ERR_IO;
				break;
			}
			continue;
		}
		if (q->is_da && q->count + (size_t)(n - i) > (size_t)q->cfg.high_watermark &&
		    queue_da_start_spill(q))
			continue;
		size_t limit = fc == FLOW_DELAY ? (size_t)q->cfg.full_delay_mark : cap;
		if (q->count >= limit) {
			if (!wait_room(q, fc)) {
				if (fc == FLOW_DELAY)
					rc = SL_ERR_SHUTDOWN;
				break;
			}
			continue;
		}
		size_t room = limit - q->count;
		while (room > 0 && i < n) {
			struct msg *m = msgs[i];
			if (q->cfg.discard_severity < 8 &&
			    q->count >= (size_t)q->cfg.discard_mark) {
				/* discardMark: the severity comes from a cheap scan
				 * of the PRI (parsing happens later, in workers). */
				int sev = queue_raw_severity(m->raw, m->raw_len);
				if (sev < 0)
					sev = m->severity;
				if (sev >= q->cfg.discard_severity) {
					msg_release(m);
					msgs[i] = NULL;
					i++;
					atomic_fetch_add_explicit(&q->stats.discarded_nf, 1,
								  memory_order_relaxed);
					continue;
				}
			}
			if (!store_put(q, m))
				break;
			i++;
			room--;
		}
		if (room > 0 && i < n) {
			rc = SL_ERR_NOMEM;
			break;
		}
		pthread_cond_signal(&q->not_empty);
	}
	size_t cnt = q->count + disk_count(q);
	if (SL_UNLIKELY(q->n_running < q->n_workers))
		workers_adjust(q);
	pthread_mutex_unlock(&q->mtx);
	if (cnt > atomic_load(&q->stats.max_size))
		atomic_store(&q->stats.max_size, cnt);
	atomic_fetch_add(&q->stats.enqueued, (uint64_t)i);
	pthread_cond_broadcast(&q->not_empty);
	*rcp = rc;
	return i;
}

enum sl_rc queue_enqueue(struct queue *q, struct msg **msgs, int n, enum flow_ctl fc)
{
	if (n <= 0)
		return SL_OK;
	if (q->cfg.type == QUEUE_DIRECT) {
		if (!direct_worker)
			direct_worker = worker_create();
		q->consume(q->consume_arg, msgs, n, direct_worker);
		worker_commit_all(direct_worker);
		for (int i = 0; i < n; i++)
			msg_release(msgs[i]);
		atomic_fetch_add(&q->stats.enqueued, (uint64_t)n);
		atomic_fetch_add(&q->stats.processed, (uint64_t)n);
		return SL_OK;
	}
	enum sl_rc rc;
	int i = queue_enqueue_some(q, msgs, n, fc, &rc);
	if (i < n) {
		uint64_t lost = (uint64_t)(n - i);
		if (rc == SL_ERR_SHUTDOWN)
			atomic_fetch_add(&q->stats.discarded_shutdown, lost);
		else if (rc == SL_ERR_AGAIN || rc == SL_ERR_IO)
			atomic_fetch_add(&q->stats.discarded_disk, lost);
		else
			atomic_fetch_add(&q->stats.discarded_full, lost);
		for (; i < n; i++)
			msg_release(msgs[i]);
	}
	return rc;
}

size_t queue_size(struct queue *q)
{
	pthread_mutex_lock(&q->mtx);
	size_t n = q->count + q->in_flight + disk_count(q);
	pthread_mutex_unlock(&q->mtx);
	return n;
}

void queue_drain_and_stop(struct queue *q)
{
	if (q->cfg.type == QUEUE_DIRECT || !q->threads)
		goto close_disk;
	pthread_mutex_lock(&q->mtx);
	q->stopping = true;
	workers_adjust(q); /* workers that ended when idle: back for the drain */
	pthread_cond_broadcast(&q->not_empty);
	pthread_cond_broadcast(&q->not_full);
	/* With a disk part, what is left is kept on disk: wait at most
	 * timeoutShutdown. Without one, wait while there is progress. */
	bool bounded = q->disk && (q->cfg.save_on_shutdown || q->cfg.type == QUEUE_DISK);
	/* without a disk part: timeoutShutdown, then timeoutActionCompletion
	 * for the batch in progress, both counted from the last progress */
	uint64_t window = (uint64_t)q->cfg.timeout_shutdown +
			  (bounded ? 0 : (uint64_t)q->cfg.timeout_action_completion);
	size_t last = q->count + q->in_flight + disk_count(q);
	uint64_t start = now_ms(), since = start;
	while (q->count + q->in_flight + disk_count(q) > 0) {
		struct timespec ts;
		deadline_after(&ts, 50);
		pthread_cond_timedwait(&q->drained, &q->mtx, &ts);
		size_t cur = q->count + q->in_flight + disk_count(q);
		uint64_t now = now_ms();
		if (cur < last) {
			last = cur;
			since = now;
		}
		if (now - (bounded ? start : since) > window)
			break;
	}
	q->abort = true;
	atomic_store(&q->abort_flag, true);
	pthread_cond_broadcast(&q->not_empty);
	pthread_cond_broadcast(&q->not_full);
	pthread_mutex_unlock(&q->mtx);
	for (int i = 0; i < q->n_workers; i++)
		if (q->w_joinable[i]) {
			pthread_join(q->threads[i], NULL);
			q->w_joinable[i] = false;
		}
	q->n_running = 0;
	/* The workers' open transactions: commit them here (a suspended
	 * action gives up at once, since the queue is aborted). */
	atomic_bool *saved_flag = tls_abort;
	tls_abort = &q->abort_flag;
	for (int i = 0; i < q->n_workers; i++) {
		q->workers[i]->requeue = false;
		worker_commit_all(q->workers[i]);
	}
	tls_abort = saved_flag;
	pthread_mutex_lock(&q->mtx);
	queue_persist_rest(q);
	pthread_mutex_unlock(&q->mtx);
close_disk:
	if (q->disk) {
		pthread_mutex_lock(&q->mtx);
		dq_close(q->disk);
		q->disk = NULL;
		pthread_mutex_unlock(&q->mtx);
	}
}

void queue_destroy(struct queue *q)
{
	if (!q)
		return;
	stats_obj_destroy(q->stats_obj);
	q->stats_obj = NULL;
	pthread_mutex_lock(&reg_mtx);
	for (struct queue **pp = &reg_first; *pp; pp = &(*pp)->next_all)
		if (*pp == q) {
			*pp = q->next_all;
			break;
		}
	pthread_mutex_unlock(&reg_mtx);
	if (q->disk) {
		dq_close(q->disk);
		q->disk = NULL;
	}
	for (int i = 0; i < q->n_workers; i++)
		worker_destroy(q->workers[i]);
	free(q->workers);
	free(q->threads);
	free(q->w_running);
	free(q->w_joinable);
	struct msg *m;
	while (q->count && store_take(q, &m, 1) == 1)
		msg_release(m);
	if (q->held) {
		for (size_t i = 0; i < q->held->n; i++)
			msg_release(q->held->m[i]);
		free(q->held->m);
		free(q->held);
	}
	free(q->ring);
	qlist_free(q);
	pthread_mutex_destroy(&q->mtx);
	pthread_cond_destroy(&q->not_empty);
	pthread_cond_destroy(&q->not_full);
	pthread_cond_destroy(&q->drained);
	queue_cfg_free(&q->cfg);
	free(q->name);
	free(q);
}

#define LD(x) (unsigned long long)atomic_load(&q->stats.x)

int queue_stats_format(struct queue *q, char *buf, size_t len)
{
	size_t mem = q->count, infl = q->in_flight; /* racy reads: statistics only */
	return snprintf(buf, len,
			"size=%llu mem=%zu inflight=%zu maxsize=%llu enqueued=%llu processed=%llu "
			"full=%llu discarded.full=%llu discarded.nf=%llu discarded.shutdown=%llu "
			"discarded.disk=%llu disk.size=%llu disk.bytes=%llu disk.written=%llu "
			"disk.read=%llu disk.full=%llu disk.corrupt=%llu disk.errors=%llu "
			"disk.loaded=%llu disk.saved=%llu requeued=%llu spills=%llu lightdelayed=%llu "
			"parsed.ahead=%llu workers=%d workers.started=%llu workers.idleexit=%llu",
			(unsigned long long)(mem + infl) + LD(disk_size), mem, infl, LD(max_size),
			LD(enqueued), LD(processed), LD(full), LD(discarded_full), LD(discarded_nf),
			LD(discarded_shutdown), LD(discarded_disk), LD(disk_size), LD(disk_bytes),
			LD(disk_written), LD(disk_read), LD(disk_full), LD(disk_corrupt),
			LD(disk_errors), LD(loaded), LD(saved), LD(requeued), LD(spills),
			LD(light_delayed), LD(parsed_ahead), q->n_running, LD(worker_starts), LD(worker_idle_exits));
}
