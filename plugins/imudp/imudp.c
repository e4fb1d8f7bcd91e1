/* imudp.c — syslog over UDP (rsyslog's imudp, 8.2302 parameters).
 *
 * One datagram is one message (the parser drops a trailing LF). An input
 * binds one socket per port and address (IPv4 and IPv6) and reads them
 * with recvmmsg() in batches of `batchSize`; the reception time is read
 * for the first batch of each wake-up and then every `timeRequery`
 * batches while the socket keeps having data (rsyslog's processSocket;
 * 0 = every batch); the messages of a batch go to the queue with one
 * input_submit(..., FLOW_NO_DELAY): UDP never blocks, and whatever the
 * queue cannot take is discarded and counted by the core. Truncated
 * datagrams (longer than maxMessageSize), rate-limited and unallocatable
 * messages are counted here.
 *
 * The sender's address is fromhost-ip (and, until DNS lookups exist,
 * fromhost). Origins are cached per receiver thread in a small
 * direct-mapped table keyed by (listener, sender address), so a sender
 * seen before costs a hash and a compare, not an allocation.
 *
 * Threading: in_run is the first receiver thread of an input; with
 * threads=N it starts N-1 more. All threads of an input read the same
 * sockets (the kernel hands each datagram to one reader; EPOLLEXCLUSIVE
 * wakes one thread at a time). Each thread owns its receive buffers,
 * batch and origin cache; the rate limiter of an input is shared (one
 * lock per batch, only when rate limiting is configured); statistics are
 * atomics. in_start / in_stop / in_destroy run on the main thread.
 * Unlike rsyslog, `threads` applies to each input, not to the module as a
 * whole (doc/differences.md).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* recvmmsg */
#endif
#include "stats.h"
#include "sluice.h"
#include "module.h"
#include "input.h"
#include "msg.h"
#include "glbl.h"
#include "log.h"
#include "net.h"
#include "dns.h"
#include <netdb.h>
#include "ast.h"
#include "datetime.h"
#include "ratelimit.h"
#include "internal_msg.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <linux/sock_diag.h> /* SK_MEMINFO_* */
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define IMUDP_MAX_SOCKS 64      /* sockets per input (ports x addresses) */
#define IMUDP_MAX_THREADS 32
#define IMUDP_MAX_BATCH 1024
#define IMUDP_CACHE 256         /* origin cache slots per thread (power of 2) */

/* ---- configuration ---- */

struct imudp_mod_cfg {
	int64_t threads;
	int64_t batch_size;
	int64_t time_requery;
	char *sched_policy;
	int64_t sched_prio;
	bool preserve_case;
	int64_t coalesce_delay;
};

#define MOFF(f) offsetof(struct imudp_mod_cfg, f)
static const struct param_desc imudp_mod_params[] = {
	{ "threads", PARAM_INT, "1", 0, MOFF(threads), "receiver threads per input (1..32)" },
	{ "batchSize", PARAM_INT, "32", 0, MOFF(batch_size), "datagrams per recvmmsg() (1..1024)" },
	{ "timeRequery", PARAM_INT, "2", 0, MOFF(time_requery), "batches that share one reception-time query (0 = query every batch)" },
	{ "schedulingPolicy", PARAM_WORD, NULL, 0, MOFF(sched_policy), "SCHED_FIFO, SCHED_RR or SCHED_OTHER for the receiver threads" },
	{ "schedulingPriority", PARAM_INT, "0", 0, MOFF(sched_prio), "priority for schedulingPolicy" },
	{ "preserveCase", PARAM_BINARY, "off", 0, MOFF(preserve_case), "keep the case of fromhost (no effect without DNS)" },
	{ "coalesceDelay", PARAM_INT, "4000", 0, MOFF(coalesce_delay), "sluice: at most this many microseconds a receiver waits after a wake-up that found few datagrams, so the next one finds more (bounded by an eighth of the receive buffer; 0 = off)" },
	{ "udpservertimerequery", PARAM_INT, "2", PARAM_LEGACY, MOFF(time_requery), "$UDPServerTimeRequery" },
	{ "imudpschedulingpolicy", PARAM_WORD, NULL, PARAM_LEGACY, MOFF(sched_policy), "$IMUDPSchedulingPolicy" },
	{ "imudpschedulingpriority", PARAM_INT, "0", PARAM_LEGACY, MOFF(sched_prio), "$IMUDPSchedulingPriority" },
};
static const struct param_table imudp_mod_table = PARAM_TABLE(imudp_mod_params, struct imudp_mod_cfg);

struct imudp_inst_cfg {
	struct param_array port;
	char *address;
	char *ruleset;
	char *name;
	char *inputname;        /* deprecated spelling of name */
	bool append_port;
	bool append_port_old;
	int64_t rcvbuf;
	int64_t freebind;
	char *device;
	char *default_tz;
	int64_t rl_interval, rl_burst;
};

#define IOFF(f) offsetof(struct imudp_inst_cfg, f)
static const struct param_desc imudp_inst_params[] = {
	{ "port", PARAM_ARRAY, "514", 0, IOFF(port), "port(s) to listen on" },
	{ "address", PARAM_STRING, NULL, 0, IOFF(address), "local address to bind (default: all)" },
	{ "ruleset", PARAM_RULESET, NULL, 0, IOFF(ruleset), "ruleset to bind to" },
	{ "name", PARAM_STRING, NULL, 0, IOFF(name), "value of $inputname (default imudp)" },
	{ "inputname", PARAM_STRING, NULL, PARAM_DEPRECATED, IOFF(inputname), "old name of name" },
	{ "name.appendPort", PARAM_BINARY, "off", 0, IOFF(append_port), "append the port to the input name" },
	{ "inputname.appendPort", PARAM_BINARY, "off", PARAM_DEPRECATED, IOFF(append_port_old), "old name of name.appendPort" },
	{ "rcvBufSize", PARAM_SIZE, "0", 0, IOFF(rcvbuf), "socket receive buffer (0 = OS default, max 1g)" },
	{ "ipFreeBind", PARAM_INT, "2", 0, IOFF(freebind), "0 off, 1 IP_FREEBIND with a warning, 2 silently" },
	{ "device", PARAM_STRING, NULL, 0, IOFF(device), "bind to this network device" },
	{ "defaultTZ", PARAM_STRING, NULL, 0, IOFF(default_tz), "offset (+hh:mm) for RFC3164 timestamps" },
	{ "rateLimit.interval", PARAM_INT, "0", 0, IOFF(rl_interval), "rate-limit interval in seconds (0 = off)" },
	{ "rateLimit.burst", PARAM_INT, "10000", 0, IOFF(rl_burst), "messages per interval" },
	{ "udpserverrun", PARAM_ARRAY, "514", PARAM_LEGACY, IOFF(port), "$UDPServerRun (creates an input)" },
	{ "udpserveraddress", PARAM_STRING, NULL, PARAM_LEGACY, IOFF(address), "$UDPServerAddress" },
	{ "inputudpserverbindruleset", PARAM_RULESET, NULL, PARAM_LEGACY, IOFF(ruleset), "$InputUDPServerBindRuleset" },
};
static const struct param_table imudp_inst_table = PARAM_TABLE(imudp_inst_params, struct imudp_inst_cfg);

/* ---- runtime ---- */

struct imudp_sock {
	int fd;
	int port;               /* the bound port */
	const char *inputname;  /* owned by the input */
};

struct imudp_stats {
	atomic_uint_fast64_t received;
	atomic_uint_fast64_t submitted;
	atomic_uint_fast64_t truncated;
	atomic_uint_fast64_t discarded_nomem;
	atomic_uint_fast64_t empty;
};

struct imudp_input;

struct cache_slot {
	int sock;                       /* index into in->socks; -1 = empty */
	struct sockaddr_storage addr;
	struct msg_origin *origin;
};

/* One receiver thread. */
struct imudp_thread {
	struct imudp_input *in;
	int idx;
	int epfd;
	pthread_t tid;
	bool started;
	char *bufs;                     /* batch * bufsize */
	struct mmsghdr *hdrs;
	struct iovec *iovs;
	struct sockaddr_storage *addrs;
	struct msg **batch;
	struct msg_alloc alloc;         /* messages are carved from blocks */
	size_t rcvbuf;                  /* smallest receive buffer of the sockets (bytes) */
	uint64_t got;                   /* datagrams and their bytes read in this wake-up */
	uint64_t got_bytes;
	struct cache_slot cache[IMUDP_CACHE];
};

struct imudp_input {
	struct imudp_inst_cfg *cfg;
	const struct imudp_mod_cfg *mod;
	struct ruleset *ruleset;
	char *names[IMUDP_MAX_SOCKS];   /* input names (one per port with appendPort) */
	int n_names;
	char who[96];
	struct imudp_sock socks[IMUDP_MAX_SOCKS];
	int n_socks;
	int wake_fd;                    /* eventfd written by in_stop */
	atomic_bool stopping;
	int n_threads;
	int batch_size;
	size_t bufsize;
	struct imudp_thread threads[IMUDP_MAX_THREADS];
	struct ratelimit rl;
	struct msg_origin tz;           /* only default_tz_*: copied to each sender's origin */
	struct imudp_stats stats;
	struct stats_obj *stats_obj;    /* statistics registry entry (stats.h) */
};

/* ---- module ---- */

static void *imudp_mod_init(void *mod_cfg, int *n_errors)
{
	struct imudp_mod_cfg *m = mod_cfg ? mod_cfg : param_defaults(&imudp_mod_table);
	if (m->threads < 1 || m->threads > IMUDP_MAX_THREADS) {
		sl_err("imudp: threads must be 1..%d (is %lld)", IMUDP_MAX_THREADS, (long long)m->threads);
		(*n_errors)++;
	}
	if (m->batch_size < 1 || m->batch_size > IMUDP_MAX_BATCH) {
		sl_warn("imudp: batchSize %lld out of range 1..%d, using 32", (long long)m->batch_size,
			IMUDP_MAX_BATCH);
		m->batch_size = 32;
	}
	if (m->sched_policy && strcasecmp(m->sched_policy, "SCHED_FIFO") &&
	    strcasecmp(m->sched_policy, "SCHED_RR") && strcasecmp(m->sched_policy, "SCHED_OTHER")) {
		sl_err("imudp: invalid schedulingPolicy '%s' (SCHED_FIFO, SCHED_RR or SCHED_OTHER)",
		       m->sched_policy);
		(*n_errors)++;
	}
	return m;
}

static void imudp_mod_exit(void *mod)
{
	param_free(&imudp_mod_table, mod);
}

/* ---- configuration of an input ---- */

static struct cfg_param *find_param(struct cfg_obj *o, const char *name)
{
	for (struct cfg_param *p = o->params; p; p = p->next)
		if (strcasecmp(p->name, name) == 0)
			return p;
	return NULL;
}

static const struct cfg_pos *param_pos(struct cfg_obj *o, const char *name)
{
	struct cfg_param *p = o ? find_param(o, name) : NULL;
	return p ? &p->pos : (o ? &o->pos : NULL);
}

static void *imudp_in_create(void *mod, void *cfg, struct cfg_obj *o, int *n_errors)
{
	struct imudp_inst_cfg *c = cfg;
	struct imudp_input *in;
	int errs = 0;

	if (c == NULL)
		return NULL;
	if (c->port.n == 0) {
		cfg_error(param_pos(o, "port"), "imudp: port must not be empty");
		errs++;
	}
	if (c->rcvbuf < 0 || c->rcvbuf > 1024LL * 1024 * 1024) {
		cfg_error(param_pos(o, "rcvbufsize"), "imudp: rcvBufSize must be 0..1g (is %lld)",
			  (long long)c->rcvbuf);
		errs++;
	}
	in = sl_xcalloc(1, sizeof(*in));
	in->cfg = c;
	if (c->default_tz && !msg_origin_parse_default_tz(&in->tz, c->default_tz))
		cfg_warn(param_pos(o, "defaulttz"), "imudp: defaultTZ '%s' is not +hh:mm or -hh:mm; "
			 "ignored", c->default_tz);
	in->mod = mod;
	in->wake_fd = -1;
	if (c->ruleset) {
		in->ruleset = ruleset_lookup(c->ruleset);
		if (!in->ruleset) {
			cfg_error(param_pos(o, "ruleset"), "imudp: ruleset '%s' is not defined", c->ruleset);
			errs++;
		}
	}
	snprintf(in->who, sizeof(in->who), "imudp %s port %s", c->name ? c->name : "imudp",
		 c->port.n ? c->port.v[0] : "?");
	if (errs) {
		*n_errors += errs;
		param_free(&imudp_inst_table, c);
		free(in);
		return NULL;
	}
	ratelimit_init(&in->rl, c->rl_interval, c->rl_burst, true, in->who);
	/* rsyslog has a limiter per socket, "imudp(ADDR/PORT/IPv4)"; sluice one per
	 * input, named after its first address and port */
	char rlname[96];
	snprintf(rlname, sizeof(rlname), "imudp(%s/%s/%s)", c->address ? c->address : "*",
		 c->port.n ? c->port.v[0] : "514", c->address && strchr(c->address, ':') ? "IPv6" : "IPv4");
	ratelimit_set_internal(&in->rl, rlname);
	return in;
}

/* ---- reception ---- */

static void batch_submit(struct imudp_input *in, struct msg **batch, int n, time_t now)
{
	if (n == 0)
		return;
	int ok = ratelimit_take_from(&in->rl, n, now, batch[0]->origin->fromhost);
	for (int i = ok; i < n; i++)
		msg_release(batch[i]);
	if (ok == 0)
		return;
	atomic_fetch_add_explicit(&in->stats.submitted, (uint_fast64_t)ok, memory_order_relaxed);
	/* ownership passes to the core; what the queue cannot take it counts */
	(void)input_submit(batch, ok, FLOW_NO_DELAY);
}

/* The origin for a sender on socket `si`: from the thread's cache, or
 * made (once) and cached. NULL on ENOMEM. */
static struct msg_origin *origin_for(struct imudp_thread *t, int si, const struct sockaddr *sa,
				     socklen_t salen)
{
	uint32_t h = (net_sockaddr_hash(sa) ^ ((uint32_t)si * 0x9e3779b1u)) & (IMUDP_CACHE - 1);
	struct cache_slot *c = &t->cache[h];
	if (c->origin && c->sock == si && net_sockaddr_same_addr((struct sockaddr *)&c->addr, sa))
		return c->origin;
	char ip[NET_IP_MAX];
	net_sockaddr_ip(sa, ip, sizeof(ip));
	/* once per new sender (the origin is cached), never per datagram */
	char host[NI_MAXHOST];
	dns_fromhost(sa, salen, ip, host, sizeof(host));
	struct msg_origin *o = msg_origin_create(host, ip, t->in->socks[si].inputname, t->in->ruleset);
	if (!o)
		return NULL;
	o->default_tz_mode = t->in->tz.default_tz_mode;
	o->default_tz_hour = t->in->tz.default_tz_hour;
	o->default_tz_minute = t->in->tz.default_tz_minute;
	msg_origin_release(c->origin); /* messages still holding it keep their reference */
	c->origin = o;
	c->sock = si;
	memset(&c->addr, 0, sizeof(c->addr));
	memcpy(&c->addr, sa, salen < sizeof(c->addr) ? salen : sizeof(c->addr));
	return o;
}

/* Read what socket `si` has, batch by batch, until it would block (or a
 * bounded number of rounds, so other sockets get their turn). */
static void read_sock(struct imudp_thread *t, int si)
{
	struct imudp_input *in = t->in;
	int fd = in->socks[si].fd;
	int bs = in->batch_size;
	int64_t requery = in->mod ? in->mod->time_requery : 2;
	int64_t used = 0;
	struct syslog_time st = { 0 };
	struct timespec now = { 0, 0 };

	for (int round = 0; round < 64 && !atomic_load_explicit(&in->stopping, memory_order_relaxed);
	     round++) {
		for (int i = 0; i < bs; i++) {
			t->hdrs[i].msg_hdr.msg_name = &t->addrs[i];
			t->hdrs[i].msg_hdr.msg_namelen = sizeof(t->addrs[i]);
			t->hdrs[i].msg_hdr.msg_flags = 0;
		}
		int n = recvmmsg(fd, t->hdrs, (unsigned)bs, MSG_DONTWAIT, NULL);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				sl_err("%s: recvmmsg: %s", in->who, strerror(errno));
			return;
		}
		atomic_fetch_add_explicit(&in->stats.received, (uint_fast64_t)n, memory_order_relaxed);
		t->got += (uint64_t)n;
		/* as rsyslog: the first batch of a wake-up always reads the clock */
		if (requery <= 0 || used++ % requery == 0)
			dt_now(&st, &now);
		int nb = 0;
		for (int i = 0; i < n; i++) {
			size_t len = t->hdrs[i].msg_len;
			t->got_bytes += len;
			if (len == 0) {
				atomic_fetch_add_explicit(&in->stats.empty, 1, memory_order_relaxed);
				continue; /* rsyslog drops empty datagrams */
			}
			if (t->hdrs[i].msg_hdr.msg_flags & MSG_TRUNC) {
				atomic_fetch_add_explicit(&in->stats.truncated, 1, memory_order_relaxed);
				if (len > in->bufsize)
					len = in->bufsize;
			}
			struct msg_origin *o = origin_for(t, si, (struct sockaddr *)&t->addrs[i],
							  t->hdrs[i].msg_hdr.msg_namelen);
			struct msg *m = o ? msg_create_a(&t->alloc, t->bufs + (size_t)i * in->bufsize,
							 len, o, &st, now.tv_sec) : NULL;
			if (SL_UNLIKELY(m == NULL)) {
				atomic_fetch_add_explicit(&in->stats.discarded_nomem, 1,
							  memory_order_relaxed);
				continue;
			}
			t->batch[nb++] = m;
		}
		batch_submit(in, t->batch, nb, now.tv_sec);
		if (n < bs)
			return; /* drained */
	}
}

static void apply_sched(struct imudp_input *in)
{
	const char *pol = in->mod ? in->mod->sched_policy : NULL;
	if (!pol)
		return;
	int policy = !strcasecmp(pol, "SCHED_FIFO") ? SCHED_FIFO
		     : !strcasecmp(pol, "SCHED_RR") ? SCHED_RR : SCHED_OTHER;
	struct sched_param sp = { .sched_priority = (int)in->mod->sched_prio };
	int e = pthread_setschedparam(pthread_self(), policy, &sp);
	if (e)
		sl_warn("%s: cannot set scheduling policy %s priority %d: %s", in->who, pol,
			sp.sched_priority, strerror(e));
}

static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Bytes in the receive queue of socket `fd` (SO_MEMINFO), -1 if unknown. */
static int64_t rcvq_bytes(int fd)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t l = sizeof(mi);
	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &l) != 0 ||
	    l < sizeof(mi[0]) * (SK_MEMINFO_RMEM_ALLOC + 1))
		return -1;
	return mi[SK_MEMINFO_RMEM_ALLOC];
}

/* Coalescing (coalesceDelay). At moderate rates each wake-up finds a few
 * datagrams, and each costs context switches (this thread, and the queue
 * worker it wakes, which then takes a small batch): most of the CPU per
 * message. After a wake-up that read less than IMUDP_COALESCE datagrams,
 * the receiver naps long enough for about that many to arrive at the
 * rate just seen, but never longer than coalesceDelay and never for more
 * than an eighth of what the receive buffer holds at that rate.
 *
 * The rate seen can be far too low (a sender that writes in bursts, a
 * burst after a quiet spell), and a datagram that finds the buffer full
 * is lost. So a nap goes in steps, each short enough that the socket
 * cannot fill more than half its buffer even at IMUDP_WORST bytes per
 * µs (a million of the smallest datagrams a second; each takes 832 bytes
 * of the buffer, more than its length); between steps the receiver asks
 * how much each of its sockets has queued (SO_MEMINFO). With
 * rcvBufSize="4m" (8 MB) the first step already covers the longest nap;
 * with the default buffer (about 200 KB) the steps are about 100 µs.
 * Rates that fill a wake-up never nap. */
#define IMUDP_COALESCE 1024
#define IMUDP_WORST 832
static void coalesce(struct imudp_thread *t, int64_t since)
{
	struct imudp_input *in = t->in;
	int64_t max = in->mod ? in->mod->coalesce_delay : 0;
	uint64_t got = t->got;
	if (max <= 0 || got == 0 || got >= IMUDP_COALESCE)
		return;
	int64_t dt = mono_us() - since;
	if (dt < 1)
		dt = 1;
	uint64_t truesize = t->got_bytes / got + 1024; /* a datagram's share of the buffer */
	uint64_t want = t->rcvbuf / truesize / 8;
	if (want > IMUDP_COALESCE)
		want = IMUDP_COALESCE;
	int64_t nap = (int64_t)(want * (uint64_t)dt / got);
	if (nap > max)
		nap = max;
	int64_t fill = 0; /* the wake-up left the sockets empty (or they were) */
	while (nap >= 50) {
		int64_t step = ((int64_t)t->rcvbuf / 2 - fill) / IMUDP_WORST;
		if (step > nap)
			step = nap;
		if (step < 50 || atomic_load_explicit(&in->stopping, memory_order_relaxed))
			return;
		struct timespec ts = { step / 1000000, (step % 1000000) * 1000 };
		nanosleep(&ts, NULL);
		nap -= step;
		if (nap < 50)
			return;
		fill = 0;
		for (int si = 0; si < in->n_socks; si++) {
			int64_t b = rcvq_bytes(in->socks[si].fd);
			if (b < 0)
				return;
			if (b > fill)
				fill = b;
		}
	}
}

static void *receiver(void *arg)
{
	struct imudp_thread *t = arg;
	struct imudp_input *in = t->in;
	struct epoll_event evs[IMUDP_MAX_SOCKS + 1];

	apply_sched(in);
	t->rcvbuf = SIZE_MAX;
	for (int i = 0; i < in->n_socks; i++) {
		int v = 0;
		socklen_t vl = sizeof(v);
		if (getsockopt(in->socks[i].fd, SOL_SOCKET, SO_RCVBUF, &v, &vl) == 0 && v > 0 &&
		    (size_t)v < t->rcvbuf)
			t->rcvbuf = (size_t)v;
	}
	if (t->rcvbuf == SIZE_MAX)
		t->rcvbuf = 0;
	int64_t since = mono_us(); /* end of the previous wake-up */
	while (!atomic_load(&in->stopping)) {
		int n = epoll_wait(t->epfd, evs, IMUDP_MAX_SOCKS + 1, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			sl_err("%s: epoll_wait: %s", in->who, strerror(errno));
			break;
		}
		t->got = t->got_bytes = 0;
		for (int i = 0; i < n; i++) {
			int si = (int)evs[i].data.u32;
			if (si >= 0 && si < in->n_socks)
				read_sock(t, si);
		}
		int64_t end = mono_us();
		coalesce(t, since);
		since = end;
	}
	msg_alloc_fini(&t->alloc);
	return NULL;
}

/* ---- lifecycle ---- */

static const char *name_for_port(struct imudp_input *in, const char *port)
{
	const struct imudp_inst_cfg *c = in->cfg;
	const char *base = c->name ? c->name : c->inputname ? c->inputname : "imudp";
	if (!(c->append_port || c->append_port_old)) {
		if (in->n_names == 0)
			in->names[in->n_names++] = sl_xstrdup(base);
		return in->names[0];
	}
	if (in->n_names >= IMUDP_MAX_SOCKS)
		return in->names[in->n_names - 1];
	size_t l = strlen(base) + strlen(port) + 1;
	char *s = sl_xmalloc(l);
	snprintf(s, l, "%s%s", base, port);
	in->names[in->n_names++] = s;
	return s;
}

static bool thread_setup(struct imudp_input *in, struct imudp_thread *t, int idx)
{
	int bs = in->batch_size;
	t->in = in;
	t->idx = idx;
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	t->bufs = malloc((size_t)bs * in->bufsize);
	t->hdrs = calloc((size_t)bs, sizeof(*t->hdrs));
	t->iovs = calloc((size_t)bs, sizeof(*t->iovs));
	t->addrs = calloc((size_t)bs, sizeof(*t->addrs));
	t->batch = calloc((size_t)bs, sizeof(*t->batch));
	if (t->epfd < 0 || !t->bufs || !t->hdrs || !t->iovs || !t->addrs || !t->batch)
		return false;
	for (int i = 0; i < IMUDP_CACHE; i++)
		t->cache[i].sock = -1;
	for (int i = 0; i < bs; i++) {
		t->iovs[i].iov_base = t->bufs + (size_t)i * in->bufsize;
		t->iovs[i].iov_len = in->bufsize;
		t->hdrs[i].msg_hdr.msg_iov = &t->iovs[i];
		t->hdrs[i].msg_hdr.msg_iovlen = 1;
	}
	for (int i = 0; i < in->n_socks; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
#ifdef EPOLLEXCLUSIVE
		if (in->n_threads > 1)
			ev.events |= EPOLLEXCLUSIVE;
#endif
		if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, in->socks[i].fd, &ev) != 0)
			return false;
	}
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = UINT32_MAX };
	return epoll_ctl(t->epfd, EPOLL_CTL_ADD, in->wake_fd, &ev) == 0;
}

/* Datagrams the kernel dropped on this input's sockets (receive buffer
 * full): the "drops" column of /proc/net/udp and udp6 for the sockets'
 * inodes. Read only when statistics are rendered. */
static uint64_t imudp_kernel_drops(void *arg)
{
	struct imudp_input *in = arg;
	unsigned long inodes[IMUDP_MAX_SOCKS];
	int n = 0;
	uint64_t drops = 0;
	for (int i = 0; i < in->n_socks && n < IMUDP_MAX_SOCKS; i++) {
		struct stat st;
		if (fstat(in->socks[i].fd, &st) == 0)
			inodes[n++] = (unsigned long)st.st_ino;
	}
	static const char *const files[] = { "/proc/net/udp", "/proc/net/udp6" };
	for (int f = 0; f < 2; f++) {
		FILE *fp = fopen(files[f], "r");
		if (!fp)
			continue;
		char line[512];
		while (fgets(line, sizeof(line), fp)) {
			/* sl local rem st tx:rx tr:when retr uid timeout inode ref ptr drops */
			unsigned long ino = 0, ref = 0;
			unsigned long long dr = 0;
			char ptr[64];
			if (sscanf(line, " %*s %*s %*s %*s %*s %*s %*s %*s %*s %lu %lu %63s %llu",
				   &ino, &ref, ptr, &dr) != 4)
				continue;
			for (int i = 0; i < n; i++)
				if (inodes[i] == ino)
					drops += dr;
		}
		fclose(fp);
	}
	return drops;
}

/* The statistics registry (stats.h): one object per input, named like
 * rsyslog's "imudp(ADDR/PORT)", with rsyslog's "submitted" first. */
static void imudp_stats_register(struct imudp_input *in)
{
	char name[200];
	const unsigned R = STATS_CTR_RESETTABLE;
	const struct imudp_inst_cfg *c = in->cfg;
	snprintf(name, sizeof(name), "imudp(%s/%s)", c->address ? c->address : "*",
		 c->port.n ? c->port.v[0] : "514");
	struct stats_obj *o = in->stats_obj = stats_obj_create(name, "imudp");
	stats_obj_add(o, "submitted", &in->stats.submitted, R);
	stats_obj_add(o, "msgs.received", &in->stats.received, R);
	stats_obj_add(o, "truncated", &in->stats.truncated, R);
	stats_obj_add(o, "empty", &in->stats.empty, R);
	stats_obj_add(o, "discarded.nomem", &in->stats.discarded_nomem, R);
	stats_obj_add(o, "ratelimit.discarded", &in->rl.discarded, R);
	stats_obj_add_fn(o, "kernel.drops", imudp_kernel_drops, in, 0);
}

static enum sl_rc imudp_in_start(void *arg)
{
	struct imudp_input *in = arg;
	const struct imudp_inst_cfg *c = in->cfg;
	struct net_udp_opts opt = {
		.rcvbuf = (int)c->rcvbuf,
		.freebind = (int)c->freebind,
		.device = c->device,
	};

	in->bufsize = glbl.max_msg_size > 0 ? (size_t)glbl.max_msg_size : 8096;
	in->batch_size = in->mod ? (int)in->mod->batch_size : 32;
	in->n_threads = in->mod ? (int)in->mod->threads : 1;
	for (int p = 0; p < c->port.n; p++) {
		int fds[IMUDP_MAX_SOCKS];
		int room = IMUDP_MAX_SOCKS - in->n_socks;
		if (room <= 0) {
			sl_err("%s: too many sockets (max %d), port %s not bound", in->who,
			       IMUDP_MAX_SOCKS, c->port.v[p]);
			break;
		}
		int n = net_bind_udp(c->address, c->port.v[p], &opt, fds, NULL, room, in->who);
		if (n < 0)
			continue; /* rsyslog goes on with the ports it could bind */
		const char *name = name_for_port(in, c->port.v[p]);
		for (int i = 0; i < n; i++) {
			in->socks[in->n_socks].fd = fds[i];
			in->socks[in->n_socks].port = net_local_port(fds[i]);
			in->socks[in->n_socks].inputname = name;
			in->n_socks++;
		}
	}
	if (in->n_socks == 0) {
		sl_err("%s: no UDP socket could be bound", in->who);
		return SL_ERR_IO;
	}
	in->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (in->wake_fd < 0)
		return SL_ERR_IO;
	for (int i = 0; i < in->n_threads; i++)
		if (!thread_setup(in, &in->threads[i], i)) {
			sl_err("%s: cannot set up receiver thread: %s", in->who, strerror(errno));
			return SL_ERR_NOMEM;
		}
	imudp_stats_register(in);
	return SL_OK;
}

static void imudp_in_run(void *arg)
{
	struct imudp_input *in = arg;
	for (int i = 1; i < in->n_threads; i++) {
		int e = pthread_create(&in->threads[i].tid, NULL, receiver, &in->threads[i]);
		if (e)
			sl_err("%s: cannot start receiver thread %d: %s", in->who, i, strerror(e));
		else
			in->threads[i].started = true;
	}
	receiver(&in->threads[0]);
	for (int i = 1; i < in->n_threads; i++)
		if (in->threads[i].started) {
			pthread_join(in->threads[i].tid, NULL);
			in->threads[i].started = false;
		}
	ratelimit_flush(&in->rl); /* the loss report, while the queues still take it */
	uint64_t discarded = atomic_load(&in->rl.discarded);
	sl_dbg("%s: received %llu, submitted %llu, truncated %llu, rate-limited %llu", in->who,
	       (unsigned long long)atomic_load(&in->stats.received),
	       (unsigned long long)atomic_load(&in->stats.submitted),
	       (unsigned long long)atomic_load(&in->stats.truncated),
	       (unsigned long long)discarded);
}

static void imudp_in_stop(void *arg)
{
	struct imudp_input *in = arg;
	uint64_t one = 1;
	atomic_store(&in->stopping, true);
	/* the eventfd stays readable: every thread sees it */
	if (in->wake_fd >= 0 && write(in->wake_fd, &one, sizeof(one)) < 0)
		sl_err("%s: cannot wake the receiver threads: %s", in->who, strerror(errno));
}

static void imudp_in_destroy(void *arg)
{
	struct imudp_input *in = arg;
	if (!in)
		return;
	stats_obj_destroy(in->stats_obj);
	for (int i = 0; i < IMUDP_MAX_THREADS; i++) {
		struct imudp_thread *t = &in->threads[i];
		if (t->in == NULL)
			continue;
		if (t->epfd >= 0)
			close(t->epfd);
		for (int k = 0; k < IMUDP_CACHE; k++)
			msg_origin_release(t->cache[k].origin);
		free(t->bufs);
		free(t->hdrs);
		free(t->iovs);
		free(t->addrs);
		free(t->batch);
	}
	for (int i = 0; i < in->n_socks; i++)
		close(in->socks[i].fd);
	if (in->wake_fd >= 0)
		close(in->wake_fd);
	for (int i = 0; i < in->n_names; i++)
		free(in->names[i]);
	ratelimit_destroy(&in->rl);
	param_free(&imudp_inst_table, in->cfg);
	free(in);
}

static const struct input_ops imudp_input_ops = {
	.in_create = imudp_in_create,
	.in_start = imudp_in_start,
	.in_run = imudp_in_run,
	.in_stop = imudp_in_stop,
	.in_destroy = imudp_in_destroy,
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "imudp",
	.description = "syslog over UDP (recvmmsg, several threads, IPv4 and IPv6)",
	.type = MOD_INPUT,
	.mod_params = &imudp_mod_table,
	.inst_params = &imudp_inst_table,
	.mod_init = imudp_mod_init,
	.mod_exit = imudp_mod_exit,
	.input = &imudp_input_ops,
};
