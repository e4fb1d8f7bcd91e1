/* queue.h — message queues: FixedArray (a preallocated ring), LinkedList
 * (chunks allocated on demand) and Direct (no queue: the producer runs the
 * consumer), each with its own pool of worker threads that take batches.
 *
 * Threading: producers (inputs, or workers of another queue) call
 * queue_enqueue from any thread; one mutex per queue guards its storage
 * and is taken once per batch, never per message. The consumer callback
 * runs on the queue's worker threads, without the lock held.
 * Disk and disk-assisted queues come with issue #4.
 */
#ifndef SLUICE_QUEUE_H
#define SLUICE_QUEUE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "sluice.h"
#include "input.h"

struct msg;
struct cfg_obj;
struct worker;

enum queue_type { QUEUE_DIRECT, QUEUE_FIXED_ARRAY, QUEUE_LINKED_LIST, QUEUE_DISK };

/* queue.* parameters. -1 means "derive from size" as rsyslog does. */
struct queue_cfg {
	enum queue_type type;
	int64_t size;
	int64_t dequeue_batch_size;
	int64_t min_dequeue_batch_size;
	int64_t min_dequeue_batch_timeout;  /* ms */
	int64_t worker_threads;
	int64_t worker_min_msgs;
	int64_t high_watermark, low_watermark;
	int64_t discard_mark, discard_severity;
	int64_t full_delay_mark, light_delay_mark;
	int64_t timeout_shutdown;           /* ms */
	int64_t timeout_enqueue;            /* ms */
	int64_t timeout_action_completion;  /* ms */
	int64_t timeout_worker_shutdown;    /* ms */
	int64_t max_file_size, max_disk_space;
	bool save_on_shutdown;
	char *filename;
	char *spool_directory;
};

enum queue_role { QUEUE_ROLE_MAIN, QUEUE_ROLE_RULESET, QUEUE_ROLE_ACTION };

/* Defaults for a role; `legacy_main` gives the legacy main-queue
 * defaults (no main_queue() object). */
void queue_cfg_defaults(struct queue_cfg *c, enum queue_role role, bool legacy_main);
/* Apply queue.* params of an object (marking them used). Returns false
 * after reporting an error. */
bool queue_cfg_from_obj(struct queue_cfg *c, struct cfg_obj *o);
void queue_cfg_free(struct queue_cfg *c);

/* Consumer: process `n` messages; the queue releases them afterwards. */
typedef void (*queue_consume_fn)(void *arg, struct msg **msgs, int n, struct worker *w);

struct queue_stats {
	atomic_uint_fast64_t enqueued;
	atomic_uint_fast64_t full;         /* times a producer had to wait */
	atomic_uint_fast64_t discarded_full;
	atomic_uint_fast64_t discarded_nf;  /* discardMark */
	atomic_uint_fast64_t discarded_shutdown;
	atomic_uint_fast64_t max_size;
};

struct queue_chunk;

struct queue {
	char *name;
	struct queue_cfg cfg;
	queue_consume_fn consume;
	void *consume_arg;

	pthread_mutex_t mtx;
	pthread_cond_t not_empty;
	pthread_cond_t not_full;
	pthread_cond_t drained;
	/* FixedArray: a ring of cfg.size pointers */
	struct msg **ring;
	size_t head;
	/* LinkedList: chunks */
	struct queue_chunk *first, *last;
	size_t first_off;
	size_t count;          /* messages waiting */
	size_t in_flight;      /* messages taken by workers, not yet done */
	bool stopping;         /* no more waiting for new messages */
	bool abort;            /* workers stop now, leaving the rest */
	int n_workers;
	pthread_t *threads;
	struct worker **workers;
	struct queue_stats stats;
};

/* Create a queue (not yet running). */
struct queue *queue_create(const char *name, const struct queue_cfg *cfg,
			   queue_consume_fn fn, void *arg);
enum sl_rc queue_start(struct queue *q);
/* Enqueue a batch (ownership of the references passes to the queue in
 * every case; what cannot be queued is discarded and counted). */
enum sl_rc queue_enqueue(struct queue *q, struct msg **msgs, int n, enum flow_ctl fc);
/* Stop: stop taking new work after draining what is queued. Waits while
 * the queue makes progress; gives up after cfg.timeout_shutdown ms
 * without progress, discarding (and counting) the rest. */
void queue_drain_and_stop(struct queue *q);
void queue_destroy(struct queue *q);
size_t queue_size(struct queue *q);

#endif
