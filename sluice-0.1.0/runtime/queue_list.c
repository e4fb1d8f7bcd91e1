/* queue_list.c — the LinkedList store: chunks of CHUNK_MSGS message
 * pointers, allocated as the queue grows (one malloc per 1024 messages)
 * and freed as they empty; the last chunk is reused when it empties.
 *
 * Threading: called with q->mtx held (queue.c, queue_da.c).
 */
#include "queue.h"
#include "queue_int.h"

#include <stdlib.h>
#include <string.h>

bool qlist_put(struct queue *q, struct msg *m)
{
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
	q->count++;
	return true;
}

size_t qlist_take(struct queue *q, struct msg **out, size_t max)
{
	size_t n = q->count < max ? q->count : max;
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
	q->count -= n;
	return n;
}

void qlist_free(struct queue *q)
{
	while (q->first) {
		struct queue_chunk *c = q->first;
		q->first = c->next;
		free(c);
	}
	q->last = NULL;
}
