/* ratelimit.h — rsyslog's "Linux-like" rate limiter for inputs: at most
 * `burst` messages per `interval` seconds; what exceeds it is discarded
 * and counted, and when the next interval starts the loss is reported
 * once ("N messages lost due to rate-limiting").
 *
 * Header-only so every input module gets it without a new core object.
 * Threading: a limiter with `shared` set takes its mutex once per call
 * (callers ask for a whole batch at a time, never per message); without
 * it, the limiter belongs to one thread. interval == 0 disables it and
 * costs one branch.
 */
#ifndef SLUICE_RATELIMIT_H
#define SLUICE_RATELIMIT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "log.h"

struct ratelimit {
	int64_t interval;        /* seconds; 0 = no limit */
	int64_t burst;
	bool shared;
	pthread_mutex_t lock;
	time_t begin;            /* start of the current interval */
	int64_t done;            /* messages let through in it */
	int64_t lost;            /* discarded in it, not yet reported */
	atomic_uint_fast64_t discarded; /* total, for statistics */
	const char *who;         /* label for the loss report; not owned */
};

static inline void ratelimit_init(struct ratelimit *rl, int64_t interval, int64_t burst,
				  bool shared, const char *who)
{
	rl->interval = interval > 0 ? interval : 0;
	rl->burst = burst > 0 ? burst : 0;
	rl->shared = shared;
	pthread_mutex_init(&rl->lock, NULL);
	rl->begin = 0;
	rl->done = rl->lost = 0;
	atomic_init(&rl->discarded, 0);
	rl->who = who;
}

static inline void ratelimit_destroy(struct ratelimit *rl)
{
	pthread_mutex_destroy(&rl->lock);
}

/* How many of the next `n` messages (received at `now`) may pass; the
 * rest are counted as discarded. The caller drops the last n - result. */
static inline int ratelimit_take(struct ratelimit *rl, int n, time_t now)
{
	if (rl->interval == 0 || n <= 0)
		return n;
	if (rl->shared)
		pthread_mutex_lock(&rl->lock);
	if (now >= rl->begin + rl->interval || now < rl->begin) {
		if (rl->lost)
			sl_warn("%s: %lld messages lost due to rate-limiting", rl->who,
				(long long)rl->lost);
		rl->begin = now;
		rl->done = 0;
		rl->lost = 0;
	}
	int64_t room = rl->burst - rl->done;
	int ok = room <= 0 ? 0 : (room < n ? (int)room : n);
	rl->done += ok;
	rl->lost += n - ok;
	if (rl->shared)
		pthread_mutex_unlock(&rl->lock);
	if (ok < n)
		atomic_fetch_add_explicit(&rl->discarded, (uint_fast64_t)(n - ok),
					  memory_order_relaxed);
	return ok;
}

#endif
