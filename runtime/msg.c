/* msg.c — creating, sharing and freeing message objects and their origins.
 *
 * Threading: msg_create is called by input threads, msg_release by any
 * thread that holds a reference; reference counts are atomic, nothing
 * else is shared.
 */
#include "msg.h"
#include "sluice.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <json.h>

const char *const msg_facility_names[25] = {
	"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
	"uucp", "cron", "authpriv", "ftp", "ntp", "audit", "alert", "clock",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
	"invld",
};

const char *const msg_severity_names[8] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

struct msg_origin *msg_origin_create(const char *fromhost, const char *fromhost_ip,
				     const char *inputname, struct ruleset *rs)
{
	struct msg_origin *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	atomic_init(&o->refcnt, 1);
	o->fromhost = strdup(fromhost ? fromhost : "");
	o->fromhost_ip = strdup(fromhost_ip ? fromhost_ip : "");
	if (!o->fromhost || !o->fromhost_ip) {
		free(o->fromhost);
		free(o->fromhost_ip);
		free(o);
		return NULL;
	}
	o->inputname = inputname ? inputname : "";
	o->fromhost_len = (uint16_t)strlen(o->fromhost);
	o->fromhost_ip_len = (uint16_t)strlen(o->fromhost_ip);
	o->inputname_len = (uint16_t)strlen(o->inputname);
	o->ruleset = rs;
	return o;
}

void msg_origin_ref(struct msg_origin *o)
{
	atomic_fetch_add_explicit(&o->refcnt, 1, memory_order_relaxed);
}

void msg_origin_release(struct msg_origin *o)
{
	if (!o)
		return;
	if (atomic_fetch_sub_explicit(&o->refcnt, 1, memory_order_acq_rel) != 1)
		return;
	free(o->fromhost);
	free(o->fromhost_ip);
	free(o);
}

/* Blocks of messages (see struct msg_alloc).
 *
 * The allocating thread and the threads releasing messages must not write
 * the same cache line per message, or every message costs a cache-line
 * transfer between cores. So:
 * - `refcnt` starts at BLOCK_BIAS when an allocator takes the block; the
 *   allocator counts what it carves in `carved` (its own field) and
 *   gives back BLOCK_BIAS - carved in one atomic operation when it lets
 *   the block go. Releasing a message is one decrement; whoever brings
 *   refcnt to 0 frees the block.
 * - the block, not each message, holds the reference on the origins of
 *   its messages (up to BLOCK_ORIGINS of them; a message from yet another
 *   origin takes its own reference, MSG_ORIGIN_BLOCK not set).
 * refcnt lives on its own cache line. */
#define BLOCK_ORIGINS 8
#define BLOCK_BIAS (1 << 30)

struct msg_block {
	size_t used;
	size_t cap;
	int carved;
	int n_origins;
	struct msg_origin *origins[BLOCK_ORIGINS];
	_Alignas(64) atomic_int refcnt;
	_Alignas(64) char data[];
};

#define MSG_BLOCK_SIZE (64 * 1024)
#define MSG_BLOCK_MAX_MSG (8 * 1024) /* bigger messages get their own allocation */

/* Freed blocks are kept for reuse (a few MiB at most): memory that was
 * just used is still in the caches, and a fresh block would cost page
 * faults and cache misses on every message carved from it. One lock per
 * block, i.e. per few hundred messages. */
#define MSG_BLOCK_CACHE 64
static pthread_mutex_t block_cache_mtx = PTHREAD_MUTEX_INITIALIZER;
static struct msg_block *block_cache[MSG_BLOCK_CACHE];
static int n_block_cache;

static void block_free(struct msg_block *b)
{
	for (int i = 0; i < b->n_origins; i++)
		msg_origin_release(b->origins[i]);
	b->n_origins = 0;
	pthread_mutex_lock(&block_cache_mtx);
	if (n_block_cache < MSG_BLOCK_CACHE) {
		block_cache[n_block_cache++] = b;
		b = NULL;
	}
	pthread_mutex_unlock(&block_cache_mtx);
	free(b);
}

static void block_put(struct msg_block *b, int n)
{
	if (atomic_fetch_sub_explicit(&b->refcnt, n, memory_order_acq_rel) == n)
		block_free(b);
}

static struct msg_block *block_get(void)
{
	struct msg_block *b = NULL;
	pthread_mutex_lock(&block_cache_mtx);
	if (n_block_cache > 0)
		b = block_cache[--n_block_cache];
	pthread_mutex_unlock(&block_cache_mtx);
	if (!b) {
		b = aligned_alloc(64, sizeof(*b) + MSG_BLOCK_SIZE);
		if (!b)
			return NULL;
		b->n_origins = 0;
	}
	b->used = 0;
	b->cap = MSG_BLOCK_SIZE;
	b->carved = 0;
	atomic_init(&b->refcnt, BLOCK_BIAS);
	return b;
}

/* The allocator lets its current block go. */
static void block_retire(struct msg_block *b)
{
	block_put(b, BLOCK_BIAS - b->carved);
}

void msg_alloc_fini(struct msg_alloc *a)
{
	if (a && a->cur) {
		block_retire(a->cur);
		a->cur = NULL;
	}
}

static struct msg *carve(struct msg_alloc *a, size_t need)
{
	need = (need + 15) & ~(size_t)15;
	struct msg_block *b = a->cur;
	if (!b || b->cap - b->used < need) {
		if (b)
			block_retire(b);
		a->cur = b = block_get();
		if (!b)
			return NULL;
	}
	struct msg *m = (struct msg *)(b->data + b->used);
	b->used += need;
	b->carved++;
	/* The next message goes right after this one; its lines are most
	 * likely in the cache of the core that released them: ask for them
	 * now, so the transfer overlaps this message's work. */
	__builtin_prefetch(b->data + b->used, 1);
	__builtin_prefetch(b->data + b->used + 64, 1);
	__builtin_prefetch(b->data + b->used + 128, 1);
	__builtin_prefetch(b->data + b->used + 192, 1);
	return m;
}

/* Does block `b` hold (or can it take) the reference on `o`? */
static bool block_holds_origin(struct msg_block *b, struct msg_origin *o)
{
	for (int i = 0; i < b->n_origins; i++)
		if (b->origins[i] == o)
			return true;
	if (b->n_origins == BLOCK_ORIGINS)
		return false;
	msg_origin_ref(o);
	b->origins[b->n_origins++] = o;
	return true;
}

struct msg *msg_create(const char *raw, size_t len, struct msg_origin *origin,
		       const struct syslog_time *rcvd, time_t ttgen)
{
	return msg_create_a(NULL, raw, len, origin, rcvd, ttgen);
}

/* memset of a struct this size is "rep stos" here, which starts slowly;
 * eleven 16-byte stores are faster. */
_Static_assert(sizeof(struct msg) % 16 == 0, "struct msg is a multiple of 16 bytes");
static inline void zero_msg(struct msg *m)
{
	typedef long long v2 __attribute__((vector_size(16), may_alias, aligned(16)));
	v2 *w = (v2 *)(void *)m;
	const v2 z = { 0, 0 };
	/* unrolled by hand: gcc turns the loop back into memset */
	w[0] = z; w[1] = z; w[2] = z; w[3] = z; w[4] = z; w[5] = z;
	w[6] = z; w[7] = z; w[8] = z; w[9] = z; w[10] = z;
	_Static_assert(sizeof(struct msg) == 11 * 16, "zero_msg stores 11 x 16 bytes");
}

struct msg *msg_create_a(struct msg_alloc *a, const char *raw, size_t len,
			 struct msg_origin *origin, const struct syslog_time *rcvd, time_t ttgen)
{
	size_t need = sizeof(struct msg) + len + 1;
	struct msg *m;
	if (a && len <= MSG_BLOCK_MAX_MSG) {
		m = carve(a, need);
		if (!m)
			return NULL;
		zero_msg(m);
		m->block = a->cur;
	} else {
		m = malloc(need);
		if (!m)
			return NULL;
		memset(m, 0, sizeof(*m));
	}
	atomic_init(&m->refcnt, 1);
	memcpy(m->inline_raw, raw, len);
	m->inline_raw[len] = '\0';
	m->raw = m->inline_raw;
	m->raw_len = (uint32_t)len;
	m->pri = 13;
	m->facility = 1;
	m->severity = 5;
	if (rcvd) {
		m->t_received = *rcvd;
		m->ttgen = ttgen;
	} else {
		struct timespec now;
		dt_now(&m->t_received, &now);
		m->ttgen = now.tv_sec;
	}
	m->t_reported = m->t_received;
	if (origin) {
		if (m->block && block_holds_origin(m->block, origin))
			m->flags |= MSG_ORIGIN_BLOCK;
		else
			msg_origin_ref(origin);
		m->origin = origin;
		m->ruleset = origin->ruleset;
	}
	return m;
}

void msg_set_raw(struct msg *m, char *raw, uint32_t len)
{
	if (m->flags & MSG_RAW_SEPARATE)
		free(m->raw);
	m->raw = raw;
	m->raw_len = len;
	m->flags |= MSG_RAW_SEPARATE;
}

void msg_release(struct msg *m)
{
	if (!m)
		return;
	if (atomic_fetch_sub_explicit(&m->refcnt, 1, memory_order_acq_rel) != 1)
		return;
	if (m->flags & MSG_RAW_SEPARATE)
		free(m->raw);
	if (m->json)
		json_object_put(m->json);
	if (m->localvars)
		json_object_put(m->localvars);
	if (!(m->flags & MSG_ORIGIN_BLOCK))
		msg_origin_release(m->origin);
	if (m->block)
		block_put(m->block, 1);
	else
		free(m);
}
