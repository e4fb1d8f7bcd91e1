/* queue_int.h — internals the queue engine's files share (queue.c,
 * queue_array.c, queue_list.c, queue_da.c): the LinkedList chunk, the
 * handed-back batches, and the store primitives.
 *
 * Threading: every function here is called with q->mtx held.
 */
#ifndef SLUICE_QUEUE_INT_H
#define SLUICE_QUEUE_INT_H

#include "queue.h"
#include "queue_disk.h"

#define CHUNK_MSGS 1024

struct queue_chunk {
	struct queue_chunk *next;
	size_t n;                 /* slots used */
	struct msg *m[CHUNK_MSGS];
};

/* Batches handed back by consumers at shutdown (w->requeue), kept in
 * order, persisted or counted by queue_drain_and_stop. */
struct held {
	struct msg **m;
	size_t n, cap;
};

/* FixedArray (queue_array.c) and LinkedList (queue_list.c) stores: put
 * one message (false: out of memory), take up to max in order. */
bool qarr_put(struct queue *q, struct msg *m);
size_t qarr_take(struct queue *q, struct msg **out, size_t max);
bool qlist_put(struct queue *q, struct msg *m);
size_t qlist_take(struct queue *q, struct msg **out, size_t max);
void qlist_free(struct queue *q);

static inline bool store_put(struct queue *q, struct msg *m)
{
	return q->cfg.type == QUEUE_FIXED_ARRAY ? qarr_put(q, m) : qlist_put(q, m);
}

static inline size_t store_take(struct queue *q, struct msg **out, size_t max)
{
	return q->cfg.type == QUEUE_FIXED_ARRAY ? qarr_take(q, out, max)
						: qlist_take(q, out, max);
}

static inline uint64_t disk_count(struct queue *q)
{
	return q->disk ? dq_count(q->disk) : 0;
}

/* queue_da.c */
void queue_held_add(struct queue *q, struct msg **msgs, size_t n);
/* DA: move the memory part to disk and send what comes next there;
 * false when the disk took nothing. */
bool queue_da_start_spill(struct queue *q);
/* At stop (workers gone): persist the handed-back batches and the memory
 * part, or discard and count them. */
void queue_persist_rest(struct queue *q);

#endif
