/* queue.c — the queue engine: configuration (queue.* parameters with
 * rsyslog's defaults), the in-memory stores (FixedArray ring, LinkedList
 * chunks), Direct queues, the disk part of Disk and disk-assisted queues
 * (runtime/queue_disk.c), worker threads with batch dequeue, flow control
 * (full/light delay marks, discardMark), draining and persisting at stop,
 * and the statistics of every queue.
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

#define CHUNK_MSGS 1024

struct queue_chunk {
	struct queue_chunk *next;
	size_t n;                 /* slots used */
	struct msg *m[CHUNK_MSGS];
};

void queue_cfg_defaults(struct queue_cfg *c, enum queue_role role, bool legacy_main)
{
	memset(c, 0, sizeof(*c));
	c->min_dequeue_batch_size = 0;
	c->min_dequeue_batch_timeout = 1000;
	c->worker_min_msgs = -1;
	c->high_watermark = c->low_watermark = -1;
	c->discard_mark = -1;
	c->discard_severity = 8;
	c->full_delay_mark = c->light_delay_mark = -1;
	c->timeout_enqueue = 2000;
	c->timeout_action_completion = 1000;
	c->timeout_worker_shutdown = 60000;
	c->save_on_shutdown = true;
	c->worker_threads = 1;
	c->checkpoint_interval = 0;
	c->sync_queue_files = false;
	c->dequeue_slowdown = 0;
	c->dequeue_time_begin = 0;
	c->dequeue_time_end = 25;
	switch (role) {
	case QUEUE_ROLE_ACTION:
		c->type = QUEUE_DIRECT;
		c->size = 1000;
		c->dequeue_batch_size = 128;
		c->timeout_shutdown = 10;
		c->max_file_size = 1024 * 1024;
		break;
	case QUEUE_ROLE_MAIN:
	case QUEUE_ROLE_RULESET:
		c->type = QUEUE_FIXED_ARRAY;
		c->size = 50000;
		c->dequeue_batch_size = 1024;
		c->timeout_shutdown = 1500;
		c->max_file_size = 16 * 1024 * 1024;
		if (legacy_main) {
			/* rsyslog's legacy main-queue defaults differ (REFERENCE §4). */
			c->size = 100000;
			c->dequeue_batch_size = 256;
			c->worker_threads = 2;
			c->worker_min_msgs = 40000;
			c->high_watermark = 80000;
			c->low_watermark = 20000;
			c->discard_mark = 98000;
			c->max_file_size = 1024 * 1024;
		}
		break;
	}
}

void queue_cfg_free(struct queue_cfg *c)
{
	free(c->filename);
	free(c->spool_directory);
	free(c->cry_provider);
	free(c->cry_key);
	free(c->cry_keyfile);
	free(c->cry_algo);
	free(c->cry_mode);
	c->filename = c->spool_directory = NULL;
	c->cry_provider = c->cry_key = c->cry_keyfile = c->cry_algo = c->cry_mode = NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? sl_xstrdup(s) : NULL;
}

void queue_cfg_copy(struct queue_cfg *dst, const struct queue_cfg *src)
{
	*dst = *src;
	dst->filename = dup_or_null(src->filename);
	dst->spool_directory = dup_or_null(src->spool_directory);
	dst->cry_provider = dup_or_null(src->cry_provider);
	dst->cry_key = dup_or_null(src->cry_key);
	dst->cry_keyfile = dup_or_null(src->cry_keyfile);
	dst->cry_algo = dup_or_null(src->cry_algo);
	dst->cry_mode = dup_or_null(src->cry_mode);
}

struct qparam {
	const char *name;
	size_t off;
	int kind; /* 0 int, 1 size, 2 bool, 3 string, 4 type */
};

#define QOFF(f) offsetof(struct queue_cfg, f)
static const struct qparam qparams[] = {
	{ "queue.type", QOFF(type), 4 },
	{ "queue.size", QOFF(size), 1 },
	{ "queue.dequeuebatchsize", QOFF(dequeue_batch_size), 1 },
	{ "queue.mindequeuebatchsize", QOFF(min_dequeue_batch_size), 1 },
	{ "queue.mindequeuebatchsize.timeout", QOFF(min_dequeue_batch_timeout), 0 },
	{ "queue.workerthreads", QOFF(worker_threads), 0 },
	{ "queue.workerthreadminimummessages", QOFF(worker_min_msgs), 1 },
	{ "queue.highwatermark", QOFF(high_watermark), 1 },
	{ "queue.lowwatermark", QOFF(low_watermark), 1 },
	{ "queue.discardmark", QOFF(discard_mark), 1 },
	{ "queue.discardseverity", QOFF(discard_severity), 0 },
	{ "queue.fulldelaymark", QOFF(full_delay_mark), 1 },
	{ "queue.lightdelaymark", QOFF(light_delay_mark), 1 },
	{ "queue.timeoutshutdown", QOFF(timeout_shutdown), 0 },
	{ "queue.timeoutenqueue", QOFF(timeout_enqueue), 0 },
	{ "queue.timeoutactioncompletion", QOFF(timeout_action_completion), 0 },
	{ "queue.timeoutworkerthreadshutdown", QOFF(timeout_worker_shutdown), 0 },
	{ "queue.maxfilesize", QOFF(max_file_size), 1 },
	{ "queue.maxdiskspace", QOFF(max_disk_space), 1 },
	{ "queue.saveonshutdown", QOFF(save_on_shutdown), 2 },
	{ "queue.filename", QOFF(filename), 3 },
	{ "queue.spooldirectory", QOFF(spool_directory), 3 },
	{ "queue.checkpointinterval", QOFF(checkpoint_interval), 0 },
	{ "queue.syncqueuefiles", QOFF(sync_queue_files), 2 },
	{ "queue.dequeueslowdown", QOFF(dequeue_slowdown), 0 },
	{ "queue.dequeuetimebegin", QOFF(dequeue_time_begin), 0 },
	{ "queue.dequeuetimeend", QOFF(dequeue_time_end), 0 },
	{ "queue.cry.provider", QOFF(cry_provider), 3 },
	{ "queue.cry.key", QOFF(cry_key), 3 },
	{ "queue.cry.keyfile", QOFF(cry_keyfile), 3 },
	{ "queue.cry.algo", QOFF(cry_algo), 3 },
	{ "queue.cry.mode", QOFF(cry_mode), 3 },
};

/* queue.* parameters that rsyslog knows and that sluice accepts without
 * acting on them (doc/queues.md says why). */
static const char *const qparams_later[] = {
	"queue.samplinginterval", "queue.takeflowctlfrommsg",
};

bool queue_cfg_from_obj(struct queue_cfg *c, struct cfg_obj *o)
{
	bool ok = true;
	for (struct cfg_param *p = o->params; p; p = p->next) {
		if (strncmp(p->name, "queue.", 6) != 0)
			continue;
		const struct qparam *qp = NULL;
		for (size_t i = 0; i < SL_ARRAY_SIZE(qparams); i++)
			if (strcmp(p->name, qparams[i].name) == 0)
				qp = &qparams[i];
		if (!qp) {
			bool later = false;
			for (size_t i = 0; i < SL_ARRAY_SIZE(qparams_later); i++)
				if (strcmp(p->name, qparams_later[i]) == 0)
					later = true;
			if (later) {
				p->used = true;
				continue;
			}
			cfg_error(&p->pos, "queue parameter '%s' is not known", p->name);
			ok = false;
			continue;
		}
		p->used = true;
		if (p->val.is_array) {
			cfg_error(&p->pos, "parameter '%s' takes a single value, not an array", p->name);
			ok = false;
			continue;
		}
		const char *v = p->val.str;
		char *field = (char *)c + qp->off;
		int64_t n;
		bool b;
		switch (qp->kind) {
		case 0:
		case 1:
			if (!(qp->kind ? param_value_size(v, &n) : param_value_int(v, &n))) {
				cfg_error(&p->pos, "parameter '%s': '%s' is not a number", p->name, v);
				ok = false;
			} else {
				*(int64_t *)field = n;
			}
			break;
		case 2:
			if (!param_value_bool(v, &b)) {
				cfg_error(&p->pos, "parameter '%s': expected \"on\" or \"off\", not '%s'", p->name, v);
				ok = false;
			} else {
				*(bool *)field = b;
			}
			break;
		case 3:
			free(*(char **)field);
			*(char **)field = sl_xstrdup(v);
			break;
		case 4:
			if (!strcasecmp(v, "fixedarray"))
				c->type = QUEUE_FIXED_ARRAY;
			else if (!strcasecmp(v, "linkedlist"))
				c->type = QUEUE_LINKED_LIST;
			else if (!strcasecmp(v, "direct"))
				c->type = QUEUE_DIRECT;
			else if (!strcasecmp(v, "disk"))
				c->type = QUEUE_DISK;
			else {
				cfg_error(&p->pos, "queue.type '%s' is not known; expected FixedArray, "
					  "LinkedList, Direct or Disk", v);
				ok = false;
			}
			break;
		}
	}
	if (c->type == QUEUE_DISK && !c->filename) {
		cfg_error(&o->pos, "queue.type=\"Disk\" needs queue.filename");
		ok = false;
	}
	if (c->type == QUEUE_DIRECT && c->filename)
		cfg_warn(&o->pos, "queue.filename is ignored for a Direct queue");
	if (c->filename && (strchr(c->filename, '/') || !c->filename[0])) {
		cfg_error(&o->pos, "queue.filename '%s' must be a plain file name; the directory "
			  "is queue.spoolDirectory", c->filename);
		ok = false;
	}
	if (c->cry_provider && !c->filename) {
		cfg_error(&o->pos, "queue.cry.provider needs a disk or disk-assisted queue "
			  "(queue.filename)");
		ok = false;
	}
	if (c->cry_provider && !c->cry_key && !c->cry_keyfile) {
		cfg_error(&o->pos, "queue.cry.provider needs queue.cry.key or queue.cry.keyfile");
		ok = false;
	}
	if (c->discard_severity < 0 || c->discard_severity > 8) {
		cfg_error(&o->pos, "queue.discardSeverity must be 0..8, not %lld",
			  (long long)c->discard_severity);
		ok = false;
	}
	if (c->size < 1)
		c->size = 1;
	if (c->dequeue_batch_size < 1)
		c->dequeue_batch_size = 1;
	if (c->worker_threads < 1)
		c->worker_threads = 1;
	return ok;
}

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

/* Storage primitives: called with q->mtx held. */
static bool store_put(struct queue *q, struct msg *m)
{
	if (q->cfg.type == QUEUE_FIXED_ARRAY) {
		size_t cap = (size_t)q->cfg.size;
		size_t tail = q->head + q->count;
		if (tail >= cap)
			tail -= cap;
		q->ring[tail] = m;
	} else {
		struct queue_chunk *c = q->last;
		if (!c || c->n == CHUNK_MSGS) {
			/* One allocation per 1024 messages. */
			struct queue_chunk *nc = malloc(sizeof(*nc));
			if (!nc)
				return false;
			nc->next = NULL;
			nc->n = 0;
			if (c)
				c->next = nc;
			else
				q->first = nc, q->first_off = 0;
			q->last = c = nc;
		}
		c->m[c->n++] = m;
	}
	q->count++;
	return true;
}

static size_t store_take(struct queue *q, struct msg **out, size_t max)
{
	size_t n = q->count < max ? q->count : max;
	if (q->cfg.type == QUEUE_FIXED_ARRAY) {
		size_t cap = (size_t)q->cfg.size;
		size_t first = cap - q->head;
		if (first > n)
			first = n;
		memcpy(out, q->ring + q->head, first * sizeof(*out));
		if (n > first)
			memcpy(out + first, q->ring, (n - first) * sizeof(*out));
		q->head += n;
		if (q->head >= cap)
			q->head -= cap;
	} else {
		size_t done = 0;
		while (done < n) {
			struct queue_chunk *c = q->first;
			size_t avail = c->n - q->first_off;
			size_t k = n - done < avail ? n - done : avail;
			memcpy(out + done, c->m + q->first_off, k * sizeof(*out));
			done += k;
			q->first_off += k;
			if (q->first_off == c->n && (c->n == CHUNK_MSGS || c != q->last)) {
				q->first = c->next;
				if (!q->first)
					q->last = NULL;
				q->first_off = 0;
				free(c);
			} else if (q->first_off == c->n) {
				/* last chunk emptied: reuse it */
				c->n = 0;
				q->first_off = 0;
			}
		}
	}
	q->count -= n;
	return n;
}

static uint64_t disk_count(struct queue *q)
{
	return q->disk ? dq_count(q->disk) : 0;
}

/* Batches handed back by consumers at shutdown (w->requeue), kept in
 * order, persisted or counted by queue_drain_and_stop. */
struct held {
	struct msg **m;
	size_t n, cap;
};

static void held_add(struct queue *q, struct msg **msgs, size_t n)
{
	struct held *h = q->held;
	if (!h)
		h = q->held = sl_xcalloc(1, sizeof(*h));
	if (h->n + n > h->cap) {
		size_t nc = h->cap ? h->cap : 1024;
		while (nc < h->n + n)
			nc *= 2;
		h->m = sl_xrealloc(h->m, nc * sizeof(*h->m));
		h->cap = nc;
	}
	memcpy(h->m + h->n, msgs, n * sizeof(*msgs));
	h->n += n;
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
				held_add(q, batch, n);
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


/* DA: move the memory part to disk (in order) and send what comes next
 * there too, so that the order holds across the spill and a restart.
 * Called with the lock held. Returns false when the disk took nothing. */
static bool start_spill(struct queue *q)
{
	size_t n = q->count;
	struct msg **tmp = n ? malloc(n * sizeof(*tmp)) : NULL;
	if (n && !tmp)
		return false;
	if (n)
		store_take(q, tmp, n);
	bool full = false;
	int w = n ? dq_put(q->disk, tmp, (int)n, &full) : 0;
	for (int i = 0; i < w; i++)
		msg_release(tmp[i]);
	/* what the disk did not take goes back (rare: disk full or failing) */
	for (size_t i = (size_t)w; i < n; i++)
		store_put(q, tmp[i]);
	free(tmp);
	if ((size_t)w < n)
		return false;
	q->spilling = true;
	atomic_fetch_add(&q->stats.spills, 1);
	sl_info("queue %s: above its high watermark (%lld); spilling to disk", q->name,
		(long long)q->cfg.high_watermark);
	return true;
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
		    start_spill(q))
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

/* At stop, with the lock held and the workers gone: persist what is
 * left (handed-back batches first, then the memory part) or count it. */
static void persist_or_discard(struct queue *q)
{
	size_t nh = q->held ? q->held->n : 0;
	size_t total = nh + q->count;
	if (total == 0)
		return;
	struct msg **all = malloc(total * sizeof(*all));
	if (!all) {
		sl_err("queue %s: out of memory at stop; %zu messages lost", q->name, total);
		return;
	}
	if (nh)
		memcpy(all, q->held->m, nh * sizeof(*all));
	if (q->held)
		q->held->n = 0;
	store_take(q, all + nh, q->count);
	size_t saved = 0;
	bool persist = q->disk && (q->cfg.save_on_shutdown || q->cfg.type == QUEUE_DISK);
	if (persist) {
		bool full = false;
		saved = (size_t)dq_put(q->disk, all, (int)total, &full);
		atomic_fetch_add(&q->stats.saved, saved);
		sl_info("queue %s: %zu messages saved to disk for the next start", q->name, saved);
	}
	if (saved < total) {
		sl_err("queue %s: %zu messages could not be delivered before the stop and are "
		       "discarded (%s)", q->name, total - saved,
		       persist ? "the disk part is full or failing"
		       : q->disk ? "queue.saveOnShutdown is off"
				 : "no disk part: set queue.filename to keep them");
		atomic_fetch_add(&q->stats.discarded_shutdown, total - saved);
	}
	for (size_t i = 0; i < total; i++)
		msg_release(all[i]);
	free(all);
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
	persist_or_discard(q);
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
	while (q->first) {
		struct queue_chunk *c = q->first;
		q->first = c->next;
		free(c);
	}
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
			"workers=%d workers.started=%llu workers.idleexit=%llu",
			(unsigned long long)(mem + infl) + LD(disk_size), mem, infl, LD(max_size),
			LD(enqueued), LD(processed), LD(full), LD(discarded_full), LD(discarded_nf),
			LD(discarded_shutdown), LD(discarded_disk), LD(disk_size), LD(disk_bytes),
			LD(disk_written), LD(disk_read), LD(disk_full), LD(disk_corrupt),
			LD(disk_errors), LD(loaded), LD(saved), LD(requeued), LD(spills),
			LD(light_delayed), q->n_running, LD(worker_starts), LD(worker_idle_exits));
}
