/* queue.h — message queues: FixedArray (a preallocated ring), LinkedList
 * (chunks allocated on demand), Direct (no queue: the producer runs the
 * consumer), Disk (segment files only) and disk-assisted (a memory queue
 * with queue.filename, spilling to a disk part above its high watermark),
 * each with its own pool of worker threads that take batches.
 *
 * Threading: producers (inputs, or workers of another queue) call
 * queue_enqueue from any thread; one mutex per queue guards its storage
 * (memory and disk part) and is taken once per batch, never per message.
 * The consumer callback runs on the queue's worker threads, without the
 * lock held. Statistics are atomics, readable from any thread.
 *
 * The delivery contract (doc/queues.md): a message leaves a queue only
 * after its consumer returned. A consumer that could not finish a batch
 * because the queue is being aborted at shutdown sets worker->requeue;
 * the queue then keeps the whole batch (persisted to disk when the queue
 * has a disk part and saveOnShutdown is on, else discarded and counted).
 */
#ifndef SLUICE_QUEUE_H
#define SLUICE_QUEUE_H

#include "sluice.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "input.h"

struct msg;
struct cfg_obj;
struct worker;
struct dq;

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
	int64_t checkpoint_interval;        /* records between .qi updates; 0 = at stop only */
	int64_t dequeue_slowdown;           /* us to sleep after each dequeue */
	int64_t dequeue_time_begin, dequeue_time_end; /* hours; dequeue only in [begin, end) */
	bool save_on_shutdown;
	bool sync_queue_files;
	char *filename;
	char *spool_directory;
	/* encryption at rest (queue.cry.*); provider NULL = none */
	char *cry_provider, *cry_key, *cry_keyfile, *cry_algo, *cry_mode;
};

enum queue_role { QUEUE_ROLE_MAIN, QUEUE_ROLE_RULESET, QUEUE_ROLE_ACTION };

/* Defaults for a role; `legacy_main` gives the legacy main-queue
 * defaults (no main_queue() object). */
void queue_cfg_defaults(struct queue_cfg *c, enum queue_role role, bool legacy_main);
/* Apply queue.* params of an object (marking them used). Returns false
 * after reporting an error with FILE:LINE. */
bool queue_cfg_from_obj(struct queue_cfg *c, struct cfg_obj *o);
void queue_cfg_free(struct queue_cfg *c);
/* Deep copy (strings duplicated). */
void queue_cfg_copy(struct queue_cfg *dst, const struct queue_cfg *src);

/* Consumer: process `n` messages; the queue releases them afterwards.
 * Setting w->requeue (see worker.h) hands the batch back. */
typedef void (*queue_consume_fn)(void *arg, struct msg **msgs, int n, struct worker *w);

/* Every counter is cumulative except size/disk_* (current values). */
struct queue_stats {
	atomic_uint_fast64_t enqueued;
	atomic_uint_fast64_t processed;     /* batches' messages done by the consumer */
	atomic_uint_fast64_t full;          /* times a producer had to wait */
	atomic_uint_fast64_t discarded_full;    /* FLOW_NO_DELAY and the queue full */
	atomic_uint_fast64_t discarded_nf;      /* discardMark / discardSeverity */
	atomic_uint_fast64_t discarded_shutdown;/* not deliverable at stop, not persisted */
	atomic_uint_fast64_t discarded_disk;    /* maxDiskSpace reached, cannot wait */
	atomic_uint_fast64_t max_size;
	atomic_uint_fast64_t disk_written;   /* records written to the disk part */
	atomic_uint_fast64_t disk_read;      /* records read back */
	atomic_uint_fast64_t disk_size;      /* records in the disk part now */
	atomic_uint_fast64_t disk_bytes;     /* bytes of segment files now */
	atomic_uint_fast64_t disk_full;      /* times maxDiskSpace stopped a write */
	atomic_uint_fast64_t disk_corrupt;   /* corrupt/torn spans skipped */
	atomic_uint_fast64_t disk_errors;    /* write errors (disk full, EIO) */
	atomic_uint_fast64_t loaded;         /* records found on disk at start */
	atomic_uint_fast64_t saved;          /* records persisted at stop (saveOnShutdown) */
	atomic_uint_fast64_t requeued;       /* messages handed back by a consumer */
	atomic_uint_fast64_t spills;         /* times a DA queue started spilling */
	atomic_uint_fast64_t light_delayed;  /* FLOW_LIGHT_DELAY batches slowed at lightDelayMark */
	atomic_uint_fast64_t parsed_ahead;   /* messages parsed by the input's thread (ruleset.c) */
	atomic_uint_fast64_t worker_starts;  /* worker threads started (on demand) */
	atomic_uint_fast64_t worker_idle_exits; /* ... ended after timeoutWorkerThreadShutdown */
};

struct queue_chunk;
struct held;

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
	size_t count;          /* messages waiting in memory */
	size_t in_flight;      /* messages taken by workers, not yet done */
	/* disk part: Disk queues, and DA queues (memory + disk) */
	struct dq *disk;
	struct held *held;     /* batches handed back at shutdown */
	bool is_da;            /* memory queue with a disk part */
	bool spilling;         /* DA: new messages go to the disk part */
	bool stopping;         /* draining: no more waiting for new messages */
	bool abort;            /* workers stop now, leaving the rest */
	atomic_bool abort_flag; /* same, readable without the lock (retry loops) */
	int n_workers;         /* queue.workerThreads: the most that may run */
	pthread_t *threads;
	struct worker **workers;
	/* Workers start on demand (worker k when more than
	 * k * workerThreadMinimumMessages wait) and end after
	 * timeoutWorkerThreadShutdown ms without work, as in rsyslog. */
	bool *w_running;       /* thread k is working or waiting for work */
	bool *w_joinable;      /* thread k was started and not yet joined */
	int n_running;
	struct queue_stats stats;
	struct queue *next_all; /* registry for stats_dump */
	struct stats_obj *stats_obj; /* the statistics registry's entry (stats.h) */
};

/* Create a queue (not yet running). Disk and DA queues open (and verify)
 * their files in queue_start. */
struct queue *queue_create(const char *name, const struct queue_cfg *cfg,
			   queue_consume_fn fn, void *arg);
/* Open the disk part (Disk/DA), start the workers. Fails with a message
 * when the queue directory cannot be used or an encrypted queue's key is
 * wrong. */
enum sl_rc queue_start(struct queue *q);
/* Enqueue a batch (ownership of the references passes to the queue in
 * every case; what cannot be queued is discarded and counted). */
enum sl_rc queue_enqueue(struct queue *q, struct msg **msgs, int n, enum flow_ctl fc);
/* The same, but the caller keeps the references of the messages that
 * were not taken: returns how many (a prefix of msgs) the queue took;
 * *rc says why it stopped short. */
int queue_enqueue_some(struct queue *q, struct msg **msgs, int n, enum flow_ctl fc,
		       enum sl_rc *rc);
/* True on a queue worker thread whose queue is being aborted at stop:
 * retry loops and waits for room give up. */
bool queue_thread_aborting(void);
/* Set the flag queue_thread_aborting() reads for this thread. */
void queue_thread_set_abort_flag(atomic_bool *flag);
/* Stop: drain what is queued while the queue makes progress; after
 * cfg.timeout_shutdown ms without progress, abort the workers (a retry
 * loop of a suspended action gives up and hands its batch back). What
 * is left is persisted (disk part and saveOnShutdown; a Disk queue keeps
 * its files in any case) or discarded, counted and logged. */
void queue_drain_and_stop(struct queue *q);
void queue_destroy(struct queue *q);
/* Messages waiting or in flight, memory and disk part. */
size_t queue_size(struct queue *q);

/* Statistics of every queue and action, one line each, as
 * "sluiced-stats: queue NAME: size=... enqueued=..." (impstats-like
 * name=value pairs). Callable from any thread while running. */
void stats_dump(FILE *f);
/* Render one queue's counters as name=value pairs into buf. */
int queue_stats_format(struct queue *q, char *buf, size_t len);
/* First queue of the registry (for stats), then q->next_all. */
struct queue *queue_first(void);

/* Cheap PRI scan of a raw message ("<N>..."): severity 0..7, or -1. */
int queue_raw_severity(const char *raw, size_t len);

#endif
