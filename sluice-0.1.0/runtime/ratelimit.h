/* ratelimit.h — rsyslog's "Linux-like" rate limiter for inputs: at most
 * `burst` messages per `interval` seconds; what exceeds it is discarded
 * and counted (`discarded`, for statistics).
 *
 * Reports, as rsyslog 8.2302 (runtime/ratelimit.c withinRatelimit): the
 * first loss of a window is announced ("NAME from <HOST:->: begin to drop
 * messages due to rate-limiting"), and when a message comes after the
 * window (or at ratelimit_destroy) the loss is reported once ("NAME: N
 * messages lost due to rate-limiting (B allowed within I seconds)"). With
 * ratelimit_set_internal() both are internal messages (rsyslogd-2177,
 * syslog.info, internal_msg.h) under rsyslog's limiter NAME ("tcperver"
 * for imtcp, "imptcp[PORT]", "imudp(ADDR/PORT/IPv4)"); without it they go
 * to sluiced's diagnostics (stderr) under `who`. Windows: a window starts
 * with the first message after the previous one ended, and ends when a
 * message comes more than `interval` seconds after its start (rsyslog's
 * `tt > begin + interval`).
 *
 * Header-only so every input module gets it without a new core object.
 * Threading: a limiter with `shared` set takes its mutex once per call
 * (callers ask for a whole batch at a time, never per message); without
 * it, the limiter belongs to one thread. Reports are formatted under the
 * lock and emitted after it. interval == 0 disables it and costs one
 * branch.
 */
#ifndef SLUICE_RATELIMIT_H
#define SLUICE_RATELIMIT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "internal_msg.h"
#include "log.h"

#define RATELIMIT_ERRCODE 2177 /* rsyslog's RS_RET_RATE_LIMITED */

struct ratelimit {
	int64_t interval;        /* seconds; 0 = no limit */
	int64_t burst;
	bool shared;
	bool internal;           /* reports as internal messages under `name` */
	pthread_mutex_t lock;
	time_t begin;            /* start of the current window; 0 = none yet */
	int64_t done;            /* messages let through in it */
	int64_t lost;            /* discarded in it, not yet reported */
	atomic_uint_fast64_t discarded; /* total, for statistics */
	const char *who;         /* label for stderr reports; not owned */
	char name[96];           /* rsyslog's limiter name, for internal reports */
};

static inline void ratelimit_init(struct ratelimit *rl, int64_t interval, int64_t burst,
				  bool shared, const char *who)
{
	rl->interval = interval > 0 ? interval : 0;
	rl->burst = burst > 0 ? burst : 0;
	rl->shared = shared;
	rl->internal = false;
	pthread_mutex_init(&rl->lock, NULL);
	rl->begin = 0;
	rl->done = rl->lost = 0;
	atomic_init(&rl->discarded, 0);
	rl->who = who;
	rl->name[0] = '\0';
}

/* Report as rsyslog does, as internal messages under rsyslog's `name`. */
static inline void ratelimit_set_internal(struct ratelimit *rl, const char *name)
{
	rl->internal = true;
	snprintf(rl->name, sizeof(rl->name), "%s", name);
}

static inline void ratelimit_report_lost_(const struct ratelimit *rl, int64_t lost)
{
	if (rl->internal)
		internal_msg(INTMSG_PRI_INFO, RATELIMIT_ERRCODE, "%s: %lld messages lost due to "
			     "rate-limiting (%lld allowed within %lld seconds)", rl->name,
			     (long long)lost, (long long)rl->burst, (long long)rl->interval);
	else
		sl_warn("%s: %lld messages lost due to rate-limiting", rl->who, (long long)lost);
}

/* How many of the next `n` messages (received at `now`, from `host`, the
 * fromhost of the first of them, or NULL) may pass; the rest are counted
 * as discarded. The caller drops the last n - result. */
static inline int ratelimit_take_from(struct ratelimit *rl, int n, time_t now, const char *host)
{
	if (rl->interval == 0 || n <= 0)
		return n;
	int64_t report_lost = 0;
	bool report_begin = false;
	if (rl->shared)
		pthread_mutex_lock(&rl->lock);
	if (rl->begin == 0)
		rl->begin = now;
	if (now > rl->begin + rl->interval || now < rl->begin) {
		report_lost = rl->lost;
		rl->begin = now;
		rl->done = 0;
		rl->lost = 0;
	}
	int64_t room = rl->burst - rl->done;
	int ok = room <= 0 ? 0 : (room < n ? (int)room : n);
	rl->done += ok;
	if (ok < n) {
		report_begin = rl->lost == 0;
		rl->lost += n - ok;
	}
	if (rl->shared)
		pthread_mutex_unlock(&rl->lock);
	if (report_lost)
		ratelimit_report_lost_(rl, report_lost);
	if (ok < n) {
		atomic_fetch_add_explicit(&rl->discarded, (uint_fast64_t)(n - ok),
					  memory_order_relaxed);
		if (report_begin && rl->internal)
			internal_msg(INTMSG_PRI_INFO, RATELIMIT_ERRCODE, "%s from <%s:->: begin to "
				     "drop messages due to rate-limiting", rl->name,
				     host ? host : "");
	}
	return ok;
}

static inline int ratelimit_take(struct ratelimit *rl, int n, time_t now)
{
	return ratelimit_take_from(rl, n, now, NULL);
}

/* Report a loss not reported yet (rsyslog does at shutdown). An input
 * calls it at the end of in_run, while the queues still take messages. */
static inline void ratelimit_flush(struct ratelimit *rl)
{
	if (rl->shared)
		pthread_mutex_lock(&rl->lock);
	int64_t lost = rl->lost;
	rl->lost = 0;
	if (rl->shared)
		pthread_mutex_unlock(&rl->lock);
	if (lost)
		ratelimit_report_lost_(rl, lost);
}

/* Flushes (see above) and frees the limiter. */
static inline void ratelimit_destroy(struct ratelimit *rl)
{
	ratelimit_flush(rl);
	pthread_mutex_destroy(&rl->lock);
}

#endif
