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

/* Blocks of messages (see struct msg_alloc). `refcnt` counts the live
 * messages carved from the block plus one while an allocator still fills
 * it. */
struct msg_block {
	atomic_int refcnt;
	size_t used;
	size_t cap;
	_Alignas(16) char data[];
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

static void block_release(struct msg_block *b)
{
	if (atomic_fetch_sub_explicit(&b->refcnt, 1, memory_order_acq_rel) != 1)
		return;
	pthread_mutex_lock(&block_cache_mtx);
	if (n_block_cache < MSG_BLOCK_CACHE) {
		block_cache[n_block_cache++] = b;
		b = NULL;
	}
	pthread_mutex_unlock(&block_cache_mtx);
	free(b);
}

static struct msg_block *block_get(void)
{
	struct msg_block *b = NULL;
	pthread_mutex_lock(&block_cache_mtx);
	if (n_block_cache > 0)
		b = block_cache[--n_block_cache];
	pthread_mutex_unlock(&block_cache_mtx);
	return b ? b : malloc(sizeof(*b) + MSG_BLOCK_SIZE);
}

void msg_alloc_fini(struct msg_alloc *a)
{
	if (a && a->cur) {
		block_release(a->cur);
		a->cur = NULL;
	}
}

static struct msg *carve(struct msg_alloc *a, size_t need)
{
	need = (need + 15) & ~(size_t)15;
	struct msg_block *b = a->cur;
	if (!b || b->cap - b->used < need) {
		if (b)
			block_release(b);
		a->cur = b = block_get();
		if (!b)
			return NULL;
		atomic_init(&b->refcnt, 1);
		b->used = 0;
		b->cap = MSG_BLOCK_SIZE;
	}
	struct msg *m = (struct msg *)(b->data + b->used);
	b->used += need;
	atomic_fetch_add_explicit(&b->refcnt, 1, memory_order_relaxed);
	m->block = b;
	return m;
}

struct msg *msg_create(const char *raw, size_t len, struct msg_origin *origin,
		       const struct syslog_time *rcvd, time_t ttgen)
{
	return msg_create_a(NULL, raw, len, origin, rcvd, ttgen);
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
		struct msg_block *b = m->block;
		memset(m, 0, sizeof(*m));
		m->block = b;
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
	msg_origin_release(m->origin);
	if (m->block)
		block_release(m->block);
	else
		free(m);
}
