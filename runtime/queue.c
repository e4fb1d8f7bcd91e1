/* queue.c — in-memory queues (FixedArray ring, LinkedList chunks, Direct)
 * and their worker threads, with batch enqueue/dequeue and flow control.
 *
 * Threading: one mutex per queue guards its storage, counts and flags; it
 * is taken once per enqueued batch and once per dequeued batch. Producers
 * wait on `not_full` (flow control), workers on `not_empty`; `drained` is
 * signalled whenever a worker finishes a batch, for queue_drain_and_stop.
 * A Direct queue has no storage and no threads: the producer runs the
 * consumer in its own thread, with a worker of its own per calling thread.
 */
#include "queue.h"
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
	c->filename = c->spool_directory = NULL;
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
};

/* queue.* parameters that rsyslog knows and that sluice accepts but does
 * not act on yet (issue #4). */
static const char *const qparams_later[] = {
	"queue.checkpointinterval", "queue.syncqueuefiles", "queue.dequeueslowdown",
	"queue.dequeuetimebegin", "queue.dequeuetimeend", "queue.samplinginterval",
	"queue.takeflowctlfrommsg", "queue.cry.provider",
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
	if (c->type == QUEUE_DISK || (c->filename && c->type != QUEUE_DIRECT)) {
		/* TODO(#4): disk and disk-assisted queues. Until then a memory
		 * queue of the same size is used, and we say so. */
		cfg_warn(&o->pos, "disk and disk-assisted queues are not implemented yet; "
			 "using an in-memory LinkedList queue");
		if (c->type == QUEUE_DISK)
			c->type = QUEUE_LINKED_LIST;
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

/* Storage primitives: called with q->mtx held. */
static void store_put(struct queue *q, struct msg *m)
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
				abort(); /* TODO(#4): count and discard instead */
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
	/* Worker k > 0 joins only while more than k * workerThreadMinimumMessages
	 * are waiting, as rsyslog starts its extra workers: with little load
	 * one worker keeps the messages of a connection in order. */
	size_t thresh = 1;
	if (wa_idx > 0) {
		int64_t per = q->cfg.worker_min_msgs;
		if (per <= 0)
			per = q->cfg.size / (q->n_workers ? q->n_workers : 1);
		if (per < 1)
			per = 1;
		thresh = (size_t)per * (size_t)wa_idx;
	}
	pthread_mutex_lock(&q->mtx);
	for (;;) {
		while ((q->count == 0 || (q->count < thresh && !q->stopping)) &&
		       !(q->stopping && q->count == 0) && !q->abort)
			pthread_cond_wait(&q->not_empty, &q->mtx);
		if (q->abort || (q->count == 0 && q->stopping))
			break;
		size_t n = store_take(q, batch, max);
		q->in_flight += n;
		pthread_cond_broadcast(&q->not_full);
		pthread_mutex_unlock(&q->mtx);

		q->consume(q->consume_arg, batch, (int)n, w);
		for (size_t i = 0; i < n; i++)
			msg_release(batch[i]);

		pthread_mutex_lock(&q->mtx);
		q->in_flight -= n;
		pthread_cond_broadcast(&q->drained);
	}
	pthread_mutex_unlock(&q->mtx);
	free(batch);
	return NULL;
}

struct queue *queue_create(const char *name, const struct queue_cfg *cfg,
			   queue_consume_fn fn, void *arg)
{
	struct queue *q = sl_xcalloc(1, sizeof(*q));
	q->name = sl_xstrdup(name);
	q->cfg = *cfg;
	q->cfg.filename = cfg->filename ? sl_xstrdup(cfg->filename) : NULL;
	q->cfg.spool_directory = cfg->spool_directory ? sl_xstrdup(cfg->spool_directory) : NULL;
	q->consume = fn;
	q->consume_arg = arg;
	pthread_mutex_init(&q->mtx, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	pthread_cond_init(&q->drained, NULL);
	pthread_condattr_destroy(&ca);
	if (q->cfg.type == QUEUE_FIXED_ARRAY)
		q->ring = sl_xcalloc((size_t)q->cfg.size, sizeof(*q->ring));
	if (q->cfg.full_delay_mark < 0)
		q->cfg.full_delay_mark = q->cfg.size * 97 / 100;
	if (q->cfg.full_delay_mark < 1)
		q->cfg.full_delay_mark = q->cfg.size;
	return q;
}

enum sl_rc queue_start(struct queue *q)
{
	if (q->cfg.type == QUEUE_DIRECT)
		return SL_OK;
	q->n_workers = (int)q->cfg.worker_threads;
	q->threads = sl_xcalloc(q->n_workers, sizeof(*q->threads));
	q->workers = sl_xcalloc(q->n_workers, sizeof(*q->workers));
	for (int i = 0; i < q->n_workers; i++) {
		q->workers[i] = worker_create();
		struct worker_arg *wa = sl_xmalloc(sizeof(*wa));
		wa->q = q;
		wa->idx = i;
		int rc = pthread_create(&q->threads[i], NULL, worker_main, wa);
		if (rc) {
			sl_err("queue %s: cannot start worker thread: %s", q->name, strerror(rc));
			free(wa);
			q->n_workers = i;
			return SL_ERR_NOMEM;
		}
	}
	return SL_OK;
}

/* Direct queues run the consumer in the producer's thread, with a worker
 * per producing thread. */
static __thread struct worker *direct_worker;

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
		return SL_OK;
	}

	enum sl_rc rc = SL_OK;
	int i = 0;
	size_t cap = (size_t)q->cfg.size;
	pthread_mutex_lock(&q->mtx);
	while (i < n) {
		if (q->stopping || q->abort) {
			rc = SL_ERR_SHUTDOWN;
			break;
		}
		size_t limit = fc == FLOW_DELAY ? (size_t)q->cfg.full_delay_mark : cap;
		if (q->count >= limit) {
			atomic_fetch_add(&q->stats.full, 1);
			if (fc == FLOW_DELAY) {
				/* Back-pressure: the input waits, so the sender waits. */
				struct timespec ts;
				deadline_after(&ts, 1000);
				pthread_cond_timedwait(&q->not_full, &q->mtx, &ts);
				continue;
			}
			/* Cannot wait: wait at most timeoutEnqueue, then discard. */
			struct timespec ts;
			deadline_after(&ts, q->cfg.timeout_enqueue);
			if (pthread_cond_timedwait(&q->not_full, &q->mtx, &ts) == ETIMEDOUT &&
			    q->count >= cap)
				break;
			continue;
		}
		size_t room = limit - q->count;
		while (room-- > 0 && i < n) {
			struct msg *m = msgs[i++];
			if (q->cfg.discard_mark > 0 && q->count >= (size_t)q->cfg.discard_mark &&
			    q->cfg.discard_severity < 8) {
				/* Severity is known only after parsing; the PRI is
				 * parsed by the worker, so discardMark applies to
				 * unparsed messages by their raw PRI (TODO #4). */
			}
			store_put(q, m);
		}
		pthread_cond_signal(&q->not_empty);
	}
	size_t cnt = q->count;
	pthread_mutex_unlock(&q->mtx);
	if (cnt > atomic_load(&q->stats.max_size))
		atomic_store(&q->stats.max_size, cnt);
	atomic_fetch_add(&q->stats.enqueued, (uint64_t)i);
	if (i < n) {
		uint64_t lost = (uint64_t)(n - i);
		if (rc == SL_ERR_SHUTDOWN)
			atomic_fetch_add(&q->stats.discarded_shutdown, lost);
		else
			atomic_fetch_add(&q->stats.discarded_full, lost);
		for (; i < n; i++)
			msg_release(msgs[i]);
	}
	if (rc == SL_OK)
		pthread_cond_broadcast(&q->not_empty);
	return rc;
}

size_t queue_size(struct queue *q)
{
	pthread_mutex_lock(&q->mtx);
	size_t n = q->count + q->in_flight;
	pthread_mutex_unlock(&q->mtx);
	return n;
}

void queue_drain_and_stop(struct queue *q)
{
	if (q->cfg.type == QUEUE_DIRECT || !q->threads)
		return;
	pthread_mutex_lock(&q->mtx);
	q->stopping = true;
	pthread_cond_broadcast(&q->not_empty);
	pthread_cond_broadcast(&q->not_full);
	size_t last = q->count + q->in_flight;
	uint64_t since = now_ms();
	while (q->count + q->in_flight > 0) {
		struct timespec ts;
		deadline_after(&ts, 100);
		pthread_cond_timedwait(&q->drained, &q->mtx, &ts);
		size_t cur = q->count + q->in_flight;
		if (cur < last) {
			last = cur;
			since = now_ms();
		} else if (now_ms() - since > (uint64_t)q->cfg.timeout_shutdown) {
			break;
		}
	}
	size_t left = q->count;
	if (left) {
		sl_err("queue %s: no progress for %lld ms at shutdown; discarding %zu messages "
		       "(queue.timeoutShutdown)", q->name, (long long)q->cfg.timeout_shutdown, left);
		q->abort = true;
		struct msg *m;
		while (store_take(q, &m, 1) == 1)
			msg_release(m);
		atomic_fetch_add(&q->stats.discarded_shutdown, left);
	}
	q->abort = true;
	pthread_cond_broadcast(&q->not_empty);
	pthread_mutex_unlock(&q->mtx);
	for (int i = 0; i < q->n_workers; i++)
		pthread_join(q->threads[i], NULL);
	for (int i = 0; i < q->n_workers; i++)
		worker_commit_all(q->workers[i]);
}

void queue_destroy(struct queue *q)
{
	if (!q)
		return;
	for (int i = 0; i < q->n_workers; i++)
		worker_destroy(q->workers[i]);
	free(q->workers);
	free(q->threads);
	struct msg *m;
	while (q->count && store_take(q, &m, 1) == 1)
		msg_release(m);
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
