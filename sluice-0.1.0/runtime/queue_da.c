/* queue_da.c — the disk-assisted side of a memory queue, and what is left
 * at stop: moving the memory part to the disk part when a DA queue passes
 * its high watermark (in order, so the order holds across the spill and a
 * restart), keeping batches that consumers handed back at shutdown, and
 * saving the rest to disk (saveOnShutdown) or counting it as discarded.
 *
 * Threading: every function is called with q->mtx held.
 */
#include "queue.h"
#include "queue_int.h"
#include "queue_disk.h"
#include "msg.h"
#include "log.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

void queue_held_add(struct queue *q, struct msg **msgs, size_t n)
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

/* DA: move the memory part to disk (in order) and send what comes next
 * there too, so that the order holds across the spill and a restart.
 * Called with the lock held. Returns false when the disk took nothing. */
bool queue_da_start_spill(struct queue *q)
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

/* At stop, with the lock held and the workers gone: persist what is
 * left (handed-back batches first, then the memory part) or count it. */
void queue_persist_rest(struct queue *q)
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
