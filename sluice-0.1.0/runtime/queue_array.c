/* queue_array.c — the FixedArray store: a preallocated ring of
 * queue.size message pointers (q->ring, q->head, q->count).
 *
 * Threading: called with q->mtx held (queue.c, queue_da.c).
 */
#include "queue.h"
#include "queue_int.h"

#include <string.h>

bool qarr_put(struct queue *q, struct msg *m)
{
	size_t cap = (size_t)q->cfg.size;
	size_t tail = q->head + q->count;
	if (tail >= cap)
		tail -= cap;
	q->ring[tail] = m;
	q->count++;
	return true;
}

size_t qarr_take(struct queue *q, struct msg **out, size_t max)
{
	size_t n = q->count < max ? q->count : max;
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
	q->count -= n;
	return n;
}
