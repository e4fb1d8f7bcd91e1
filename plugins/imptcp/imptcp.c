/* imptcp.c — syslog over plain TCP and unix stream sockets with several
 * epoll threads (rsyslog's imptcp, 8.2302 parameters).
 *
 * Listeners are TCP ports (port=, address=) or a unix stream socket
 * (path=, with unlink, fileOwner/fileGroup(Num), fileCreateMode,
 * failOnChOwnFailure). Frames are cut by runtime/framing.c (LF,
 * addtlFrameDelimiter, octet-counted, multiLine) with the same oversize
 * rules as imtcp; rsyslog 8.2302's imptcp bug of re-submitting an
 * oversize frame once per excess byte is NOT reproduced
 * (doc/differences.md). framing.delimiter.regex (a line matching it
 * starts a message) is framing.c's regex mode; each epoll thread compiles
 * its own copy, since glibc's regexec locks the regex_t.
 * compression.mode="stream:always" (what omfwd sends with the same
 * setting): each session has a zlib inflate stream, the thread's 64 KiB
 * inflate buffer is framed as it fills (bounded memory whatever the
 * ratio); a corrupt stream closes the session, logged and counted.
 *
 * Threading: an input has `threads` epoll threads (module parameter,
 * default 2; per input in sluice, per module in rsyslog). in_run is
 * thread 0: it owns the listeners and accepts; each new session is
 * given, round robin, to one thread and registered in that thread's
 * epoll set; from then on only that thread reads, frames and closes it,
 * so a session needs no lock. Each thread has its own read buffer and
 * message batch (one input_submit per epoll round or full batch). The
 * per-thread session lists are guarded by a mutex taken only on
 * accept/close. The session count, the rate limiter (one lock per
 * batch, only when configured) and the statistics are shared. The stop
 * eventfd stays readable so every thread sees it. in_start / in_stop /
 * in_destroy run on the main thread.
 *
 * As rsyslog: the rate limiter is per input ("imptcp[PORT]"), its reports
 * and notifyOnConnectionOpen/Close are internal messages
 * (internal_msg.h); defaultTZ travels to the parser on the msg_origin.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
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
#include "framing.h"
#include "ratelimit.h"
#include "internal_msg.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <regex.h>

#define IMPTCP_READ_SIZE (64 * 1024)
#define IMPTCP_INFLATE_SIZE (64 * 1024) /* inflate output per call (bounded) */
#define IMPTCP_BATCH 1024
#define IMPTCP_MAX_LISTENERS 16
#define IMPTCP_MAX_THREADS 64
#define IMPTCP_EVENTS 256

/* ---- configuration ---- */

struct imptcp_mod_cfg {
	int64_t threads;
	bool process_on_poller;
};

#define MOFF(f) offsetof(struct imptcp_mod_cfg, f)
static const struct param_desc imptcp_mod_params[] = {
	{ "threads", PARAM_INT, "2", 0, MOFF(threads), "epoll threads per input (1..64)" },
	{ "processOnPoller", PARAM_BINARY, "on", 0, MOFF(process_on_poller), "accepted; a session is always read on its epoll thread (the 'on' behaviour)" },
	{ "inputptcpserverhelperthreads", PARAM_INT, "2", PARAM_LEGACY, MOFF(threads), "$InputPTCPServerHelperThreads" },
};
static const struct param_table imptcp_mod_table = PARAM_TABLE(imptcp_mod_params, struct imptcp_mod_cfg);

struct imptcp_inst_cfg {
	char *port;
	char *path;
	char *address;
	char *name;
	char *ruleset;
	int64_t max_sessions;
	bool supp_octet;
	char *delim_regex;
	bool multiline;
	bool discard_truncated;
	int64_t max_frame_size;
	int64_t addtl_delim;
	bool flow_control;
	bool notify_open, notify_close;
	bool keepalive;
	int64_t ka_probes, ka_time, ka_intvl;
	char *compression;
	char *default_tz;
	int64_t rl_interval, rl_burst;
	bool framingfix_asa;
	bool unlink_path;
	int uid, gid;           /* fileOwner / fileGroup (names) */
	int uid_num, gid_num;   /* fileOwnerNum / fileGroupNum */
	int file_mode;
	bool fail_on_chown;
	bool fail_on_perms;
	char *listen_port_file;
	int64_t backlog;
};

#define IOFF(f) offsetof(struct imptcp_inst_cfg, f)
static const struct param_desc imptcp_inst_params[] = {
	{ "port", PARAM_STRING, NULL, 0, IOFF(port), "TCP port to listen on (or path=)" },
	{ "path", PARAM_STRING, NULL, 0, IOFF(path), "unix stream socket to listen on (or port=)" },
	{ "address", PARAM_STRING, NULL, 0, IOFF(address), "local address to bind (default: all)" },
	{ "name", PARAM_STRING, NULL, 0, IOFF(name), "value of $inputname (default imptcp)" },
	{ "ruleset", PARAM_RULESET, NULL, 0, IOFF(ruleset), "ruleset to bind to" },
	{ "maxSessions", PARAM_INT, "0", 0, IOFF(max_sessions), "max concurrent sessions (0 = unlimited)" },
	{ "supportOctetCountedFraming", PARAM_BINARY, "on", 0, IOFF(supp_octet), "frames starting with a digit are octet-counted" },
	{ "framing.delimiter.regex", PARAM_STRING, NULL, 0, IOFF(delim_regex), "POSIX ERE: a line matching it starts a new message (multi-line input)" },
	{ "multiLine", PARAM_BINARY, "off", 0, IOFF(multiline), "LF ends a frame only before '<' or at the end of a read" },
	{ "discardTruncatedMsg", PARAM_BINARY, "off", 0, IOFF(discard_truncated), "drop the rest of an oversize frame" },
	{ "maxFrameSize", PARAM_INT, "200000", 0, IOFF(max_frame_size), "largest octet count accepted" },
	{ "addtlFrameDelimiter", PARAM_INT, "-1", 0, IOFF(addtl_delim), "extra frame delimiter (byte value)" },
	{ "flowControl", PARAM_BINARY, "on", 0, IOFF(flow_control), "block senders while the queue is nearly full" },
	{ "notifyOnConnectionOpen", PARAM_BINARY, "off", 0, IOFF(notify_open), "log each new connection" },
	{ "notifyOnConnectionClose", PARAM_BINARY, "off", 0, IOFF(notify_close), "log each closed connection" },
	{ "keepAlive", PARAM_BINARY, "off", 0, IOFF(keepalive), "enable TCP keep-alive" },
	{ "keepAlive.probes", PARAM_INT, "0", 0, IOFF(ka_probes), "keep-alive probes (0 = OS default)" },
	{ "keepAlive.time", PARAM_INT, "0", 0, IOFF(ka_time), "keep-alive idle time (0 = OS default)" },
	{ "keepAlive.interval", PARAM_INT, "0", 0, IOFF(ka_intvl), "keep-alive interval (0 = OS default)" },
	{ "compression.mode", PARAM_WORD, "none", 0, IOFF(compression), "none or stream:always (zlib stream, as omfwd sends)" },
	{ "defaultTZ", PARAM_STRING, NULL, 0, IOFF(default_tz), "offset (+hh:mm) for RFC3164 timestamps" },
	{ "rateLimit.interval", PARAM_INT, "0", 0, IOFF(rl_interval), "rate-limit interval in seconds (0 = off)" },
	{ "rateLimit.burst", PARAM_INT, "10000", 0, IOFF(rl_burst), "messages per interval" },
	{ "framingfix.cisco.asa", PARAM_BINARY, "off", 0, IOFF(framingfix_asa), "ignore a SP before a frame" },
	{ "unlink", PARAM_BINARY, "off", 0, IOFF(unlink_path), "remove the socket file before bind and at exit" },
	{ "fileOwner", PARAM_UID, "-1", 0, IOFF(uid), "owner of the socket file (user name)" },
	{ "fileOwnerNum", PARAM_UID, "-1", 0, IOFF(uid_num), "owner of the socket file (number)" },
	{ "fileGroup", PARAM_GID, "-1", 0, IOFF(gid), "group of the socket file (group name)" },
	{ "fileGroupNum", PARAM_GID, "-1", 0, IOFF(gid_num), "group of the socket file (number)" },
	{ "fileCreateMode", PARAM_FILEMODE, "0644", 0, IOFF(file_mode), "mode of the socket file" },
	{ "failOnChOwnFailure", PARAM_BINARY, "on", 0, IOFF(fail_on_chown), "a failed chown fails the listener" },
	{ "failOnPermsFailure", PARAM_BINARY, "on", 0, IOFF(fail_on_perms), "accepted (rsyslog: chmod failure is fatal)" },
	{ "listenPortFileName", PARAM_STRING, NULL, 0, IOFF(listen_port_file), "write the bound port here" },
	{ "socketBacklog", PARAM_INT, "64", 0, IOFF(backlog), "listen() backlog" },
	{ "inputptcpserverrun", PARAM_STRING, NULL, PARAM_LEGACY, IOFF(port), "$InputPTCPServerRun (creates an input)" },
	{ "inputptcpserverlistenip", PARAM_STRING, NULL, PARAM_LEGACY, IOFF(address), "$InputPTCPServerListenIP" },
	{ "inputptcpserverbindruleset", PARAM_RULESET, NULL, PARAM_LEGACY, IOFF(ruleset), "$InputPTCPServerBindRuleset" },
	{ "inputptcpserverinputname", PARAM_STRING, NULL, PARAM_LEGACY, IOFF(name), "$InputPTCPServerInputName" },
	{ "inputptcpserveraddtlframedelimiter", PARAM_INT, "-1", PARAM_LEGACY, IOFF(addtl_delim), "$InputPTCPServerAddtlFrameDelimiter" },
	{ "inputptcpserverkeepalive", PARAM_BINARY, "off", PARAM_LEGACY, IOFF(keepalive), "$InputPTCPServerKeepAlive" },
	{ "inputptcpservernotifyonconnectionclose", PARAM_BINARY, "off", PARAM_LEGACY, IOFF(notify_close), "$InputPTCPServerNotifyOnConnectionClose" },
	{ "inputptcpserversupportoctetcountedframing", PARAM_BINARY, "on", PARAM_LEGACY, IOFF(supp_octet), "$InputPTCPServerSupportOctetCountedFraming" },
};
static const struct param_table imptcp_inst_table = PARAM_TABLE(imptcp_inst_params, struct imptcp_inst_cfg);

/* ---- runtime ---- */

enum ev_kind { EV_LISTENER, EV_WAKE, EV_SESSION };

struct ev_src {
	enum ev_kind kind;
	int fd;
};

struct imptcp_input;
struct imptcp_thread;

struct imptcp_session {
	struct ev_src ev;
	struct imptcp_thread *owner;
	struct msg_origin *origin;
	struct framing_state fr;
	z_stream *zs;                   /* compression.mode="stream:always" only */
	char peer[NET_IP_MAX];
	struct imptcp_session *prev, *next;
};

struct imptcp_thread {
	struct imptcp_input *in;
	int idx;
	int epfd;
	pthread_t tid;
	bool started;
	pthread_mutex_t lock;           /* guards `sessions` (accept/close only) */
	struct imptcp_session *sessions;
	char *rbuf;
	char *zbuf;                     /* inflate output (stream:always only) */
	struct framing_cfg frcfg;       /* the input's, with this thread's regex */
	regex_t start_re;               /* framing.delimiter.regex (own copy: regexec locks) */
	bool start_re_ok;
	struct msg *batch[IMPTCP_BATCH];
	int n_batch;
	struct msg_alloc alloc;         /* messages are carved from blocks */
	/* reception time of the read being framed */
	struct syslog_time now_st;
	time_t now_tt;
	struct imptcp_session *cur;     /* session being framed (for emit) */
};

struct imptcp_stats {
	atomic_uint_fast64_t submitted;
	atomic_uint_fast64_t sessions_opened;
	atomic_uint_fast64_t sessions_closed;
	atomic_uint_fast64_t sessions_refused;
	atomic_uint_fast64_t discarded_nomem;
	atomic_uint_fast64_t bytes_received;     /* compressed bytes (stream:always) */
	atomic_uint_fast64_t bytes_decompressed;
	atomic_uint_fast64_t decompress_errors;  /* sessions closed for a corrupt stream */
	struct framing_stats fr;
};

struct imptcp_input {
	struct imptcp_inst_cfg *cfg;
	struct ruleset *ruleset;
	const char *inputname;
	char who[128];
	enum flow_ctl fc;
	struct framing_cfg frcfg;
	bool is_unix;
	bool zstream;                   /* compression.mode="stream:always" */
	struct ev_src listeners[IMPTCP_MAX_LISTENERS];
	int n_listeners;
	struct ev_src wake;
	atomic_bool stopping;
	atomic_int n_sessions;
	unsigned next_thread;           /* round robin; thread 0 only */
	time_t last_refusal_log;
	struct msg_origin *unix_origin; /* all sessions of a unix socket share it */
	int n_threads;
	struct imptcp_thread threads[IMPTCP_MAX_THREADS];
	struct ratelimit rl;
	struct msg_origin tz;           /* only default_tz_*: copied to each session's origin */
	struct imptcp_stats stats;
	struct stats_obj *stats_obj;    /* statistics registry entry (stats.h) */
};

/* ---- module ---- */

static void *imptcp_mod_init(void *mod_cfg, int *n_errors)
{
	struct imptcp_mod_cfg *m = mod_cfg ? mod_cfg : param_defaults(&imptcp_mod_table);
	if (m->threads < 1 || m->threads > IMPTCP_MAX_THREADS) {
		sl_err("imptcp: threads must be 1..%d (is %lld)", IMPTCP_MAX_THREADS,
		       (long long)m->threads);
		(*n_errors)++;
	}
	return m;
}

static void imptcp_mod_exit(void *mod)
{
	param_free(&imptcp_mod_table, mod);
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
	struct cfg_param *p = find_param(o, name);
	return p ? &p->pos : &o->pos;
}

static void *imptcp_in_create(void *mod, void *cfg, struct cfg_obj *o, int *n_errors)
{
	struct imptcp_mod_cfg *m = mod;
	struct imptcp_inst_cfg *c = cfg;
	struct imptcp_input *in;
	int errs = 0;

	if (c == NULL)
		return NULL;
	if (!c->port && !c->path) {
		cfg_error(&o->pos, "imptcp: either port= or path= must be given");
		errs++;
	}
	if (c->port && c->path) {
		cfg_error(param_pos(o, "path"), "imptcp: port= and path= cannot both be given "
			  "(use two inputs)");
		errs++;
	}
	if (c->max_frame_size < 1 || c->max_frame_size > 200000000) {
		cfg_error(param_pos(o, "maxframesize"), "imptcp: invalid value for 'maxFrameSize': "
			  "%lld, must be 1..200000000", (long long)c->max_frame_size);
		errs++;
	}
	if (c->addtl_delim < -1 || c->addtl_delim > 255) {
		cfg_error(param_pos(o, "addtlframedelimiter"), "imptcp: addtlFrameDelimiter must be "
			  "a byte value 0..255 (or -1 for none), is %lld", (long long)c->addtl_delim);
		errs++;
	}
	if (c->max_sessions < 0) {
		cfg_error(param_pos(o, "maxsessions"), "imptcp: maxSessions must be >= 0");
		errs++;
	}
	if (c->delim_regex) { /* compiled again per thread in in_start */
		regex_t re;
		int rc = regcomp(&re, c->delim_regex, REG_EXTENDED | REG_NOSUB);
		if (rc != 0) {
			char eb[160];
			regerror(rc, &re, eb, sizeof(eb));
			cfg_error(param_pos(o, "framing.delimiter.regex"), "imptcp: invalid "
				  "framing.delimiter.regex '%s': %s", c->delim_regex, eb);
			errs++;
		} else {
			regfree(&re);
		}
	}
	bool zstream = false;
	if (c->compression && strcasecmp(c->compression, "stream:always") == 0) {
		zstream = true;
	} else if (c->compression && strcasecmp(c->compression, "none") != 0) {
		/* rsyslog: "unknown compression mode" (8.2302 imptcp) */
		cfg_error(param_pos(o, "compression.mode"), "imptcp: invalid value for "
			  "compression.mode: '%s' (use \"none\" or \"stream:always\")",
			  c->compression);
		errs++;
	}

	in = sl_xcalloc(1, sizeof(*in));
	in->cfg = c;
	if (c->default_tz && !msg_origin_parse_default_tz(&in->tz, c->default_tz))
		cfg_warn(param_pos(o, "defaulttz"), "imptcp: defaultTZ '%s' is not +hh:mm or -hh:mm; "
			 "ignored", c->default_tz);
	in->wake.fd = -1;
	in->wake.kind = EV_WAKE;
	in->inputname = c->name ? c->name : "imptcp";
	in->is_unix = c->path != NULL;
	in->zstream = zstream;
	in->n_threads = m ? (int)m->threads : 2;
	if (c->ruleset) {
		in->ruleset = ruleset_lookup(c->ruleset);
		if (!in->ruleset) {
			cfg_error(param_pos(o, "ruleset"), "imptcp: ruleset '%s' is not defined",
				  c->ruleset);
			errs++;
		}
	}
	if (errs) {
		*n_errors += errs;
		param_free(&imptcp_inst_table, c);
		free(in);
		return NULL;
	}
	snprintf(in->who, sizeof(in->who), "imptcp %s %s %s", in->inputname,
		 in->is_unix ? "path" : "port", in->is_unix ? c->path : c->port);
	in->fc = c->flow_control ? FLOW_DELAY : FLOW_NO_DELAY;
	in->frcfg.max_frame_size = c->max_frame_size;
	in->frcfg.addtl_delim = c->addtl_delim < 0 ? 256u : (unsigned)c->addtl_delim;
	in->frcfg.octet_counted = c->supp_octet;
	in->frcfg.discard_truncated = c->discard_truncated;
	in->frcfg.framingfix_asa = c->framingfix_asa;
	in->frcfg.multiline = c->multiline;
	ratelimit_init(&in->rl, c->rl_interval, c->rl_burst, true, in->who);
	char rlname[96];
	snprintf(rlname, sizeof(rlname), "imptcp[%s]", in->is_unix ? c->path : c->port);
	ratelimit_set_internal(&in->rl, rlname);
	return in;
}

/* ---- sessions ---- */

static void batch_flush(struct imptcp_thread *t)
{
	struct imptcp_input *in = t->in;
	int n = t->n_batch;
	if (n == 0)
		return;
	t->n_batch = 0;
	int ok = ratelimit_take_from(&in->rl, n, t->now_tt ? t->now_tt : time(NULL),
				     t->batch[0]->origin->fromhost);
	for (int i = ok; i < n; i++)
		msg_release(t->batch[i]);
	if (ok == 0)
		return;
	atomic_fetch_add_explicit(&in->stats.submitted, (uint_fast64_t)ok, memory_order_relaxed);
	(void)input_submit(t->batch, ok, in->fc);
}

/* framing sink: one frame of t->cur */
static void emit(void *ctx, const char *p, size_t len)
{
	struct imptcp_thread *t = ctx;
	struct msg *m = msg_create_a(&t->alloc, p, len, t->cur->origin, &t->now_st, t->now_tt);
	if (SL_UNLIKELY(m == NULL)) {
		atomic_fetch_add_explicit(&t->in->stats.discarded_nomem, 1, memory_order_relaxed);
		return;
	}
	t->batch[t->n_batch++] = m;
	if (t->n_batch == IMPTCP_BATCH)
		batch_flush(t);
}

static void make_sink(struct imptcp_thread *t, struct imptcp_session *s, struct framing_sink *k)
{
	k->emit = emit;
	k->ctx = t;
	k->who = t->in->who;
	k->peer = s->peer;
	k->stats = &t->in->stats.fr;
	t->cur = s;
}

static void sess_close(struct imptcp_thread *t, struct imptcp_session *s)
{
	struct imptcp_input *in = t->in;
	epoll_ctl(t->epfd, EPOLL_CTL_DEL, s->ev.fd, NULL);
	if (in->cfg->notify_close) { /* rsyslog's two messages (8.2302 closeSess) */
		internal_msg(INTMSG_PRI_ERR, 2144, "imptcp session %d closed by remote peer %s. "
			     "[v8.2302.0 try https://www.rsyslog.com/e/2144 ]", s->ev.fd,
			     s->origin->fromhost);
		internal_msg(INTMSG_PRI_INFO, 0, "imptcp: session on socket %d closed with iRet 0.  "
			     "[v8.2302.0]", s->ev.fd);
	}
	close(s->ev.fd);
	msg_origin_release(s->origin);
	framing_state_free(&s->fr);
	if (s->zs) {
		inflateEnd(s->zs);
		free(s->zs);
	}
	pthread_mutex_lock(&t->lock);
	if (s->prev)
		s->prev->next = s->next;
	else
		t->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	pthread_mutex_unlock(&t->lock);
	atomic_fetch_sub(&in->n_sessions, 1);
	atomic_fetch_add_explicit(&in->stats.sessions_closed, 1, memory_order_relaxed);
	free(s);
}

/* compression.mode="stream:always": inflate n bytes of t->rbuf into
 * t->zbuf (at most IMPTCP_INFLATE_SIZE at a time, so a small compressed
 * read of a very repetitive stream never needs more memory) and frame
 * the output. A finished zlib stream (the sender's Z_FINISH) may be
 * followed by a new one. False when the stream is corrupt. */
static bool sess_inflate(struct imptcp_thread *t, struct imptcp_session *s, size_t n,
			 const struct framing_sink *k)
{
	struct imptcp_input *in = t->in;
	z_stream *zs = s->zs;
	atomic_fetch_add_explicit(&in->stats.bytes_received, n, memory_order_relaxed);
	zs->next_in = (Bytef *)t->rbuf;
	zs->avail_in = (uInt)n;
	do {
		zs->next_out = (Bytef *)t->zbuf;
		zs->avail_out = IMPTCP_INFLATE_SIZE;
		int r = inflate(zs, Z_NO_FLUSH);
		size_t out = IMPTCP_INFLATE_SIZE - zs->avail_out;
		if (out) {
			atomic_fetch_add_explicit(&in->stats.bytes_decompressed, out,
						  memory_order_relaxed);
			framing_feed(&t->frcfg, &s->fr, t->zbuf, out, k);
		}
		if (r == Z_STREAM_END) {
			inflateReset(zs); /* the sender may start a new stream */
		} else if (r == Z_BUF_ERROR) {
			break; /* no progress possible: all input consumed */
		} else if (r != Z_OK) {
			atomic_fetch_add_explicit(&in->stats.decompress_errors, 1,
						  memory_order_relaxed);
			sl_err("%s: corrupt compressed stream from peer %s (zlib error %d: %s); "
			       "closing the session", in->who, s->peer, r,
			       zs->msg ? zs->msg : "?");
			return false;
		}
	} while (zs->avail_in > 0 || zs->avail_out == 0);
	return true;
}

static void sess_readable(struct imptcp_thread *t, struct imptcp_session *s)
{
	struct imptcp_input *in = t->in;
	struct framing_sink k;
	/* a few reads per event, so one busy sender cannot starve the others */
	for (int round = 0; round < 4; round++) {
		ssize_t n;
		do
			n = recv(s->ev.fd, t->rbuf, IMPTCP_READ_SIZE, 0);
		while (n < 0 && errno == EINTR);
		if (n > 0) {
			struct timespec now;
			dt_now(&t->now_st, &now); /* one reception time per read */
			t->now_tt = now.tv_sec;
			make_sink(t, s, &k);
			if (s->zs) {
				if (!sess_inflate(t, s, (size_t)n, &k)) {
					sess_close(t, s);
					return;
				}
			} else {
				framing_feed(&t->frcfg, &s->fr, t->rbuf, (size_t)n, &k);
			}
			if ((size_t)n < IMPTCP_READ_SIZE)
				return;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n == 0) {
			make_sink(t, s, &k);
			framing_eof(&t->frcfg, &s->fr, &k);
		} else {
			sl_info("%s: session from %s closed with error: %s", in->who, s->peer,
				strerror(errno));
		}
		sess_close(t, s);
		return;
	}
}

static void accept_sessions(struct imptcp_thread *t0, int lfd)
{
	struct imptcp_input *in = t0->in;
	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE) {
				sl_err("%s: cannot accept: %s", in->who, strerror(errno));
				struct timespec ts = { 0, 10 * 1000000 };
				nanosleep(&ts, NULL);
			}
			return;
		}
		char ip[NET_IP_MAX];
		if (in->is_unix)
			snprintf(ip, sizeof(ip), "%s", "127.0.0.1");
		else
			net_sockaddr_ip((struct sockaddr *)&ss, ip, sizeof(ip));
		if (in->cfg->max_sessions > 0 &&
		    atomic_load(&in->n_sessions) >= in->cfg->max_sessions) {
			close(fd);
			atomic_fetch_add_explicit(&in->stats.sessions_refused, 1, memory_order_relaxed);
			time_t now = time(NULL);
			if (now != in->last_refusal_log) {
				in->last_refusal_log = now;
				sl_err("%s: too many tcp sessions (maxSessions=%lld) - dropping incoming "
				       "request from %s", in->who, (long long)in->cfg->max_sessions, ip);
			}
			continue;
		}
		struct imptcp_session *s = calloc(1, sizeof(*s));
		struct msg_origin *o = NULL;
		if (s && in->is_unix) {
			o = in->unix_origin;
			msg_origin_ref(o);
		} else if (s) {
			char host[NI_MAXHOST];
			dns_fromhost((struct sockaddr *)&ss, sl, ip, host, sizeof(host));
			o = msg_origin_create(host, ip, in->inputname, in->ruleset);
			if (o) {
				o->default_tz_mode = in->tz.default_tz_mode;
				o->default_tz_hour = in->tz.default_tz_hour;
				o->default_tz_minute = in->tz.default_tz_minute;
			}
		}
		if (!s || !o) {
			sl_err("%s: out of memory accepting session from %s", in->who, ip);
			free(s);
			close(fd);
			continue;
		}
		if (in->zstream) {
			s->zs = calloc(1, sizeof(*s->zs));
			if (!s->zs || inflateInit(s->zs) != Z_OK) {
				sl_err("%s: cannot set up zlib for session from %s", in->who, ip);
				free(s->zs);
				free(s);
				msg_origin_release(o);
				close(fd);
				continue;
			}
		}
		s->ev.kind = EV_SESSION;
		s->ev.fd = fd;
		s->origin = o;
		snprintf(s->peer, sizeof(s->peer), "%s", ip);
		if (in->cfg->keepalive && !in->is_unix)
			net_set_keepalive(fd, (int)in->cfg->ka_probes, (int)in->cfg->ka_time,
					  (int)in->cfg->ka_intvl);
		struct imptcp_thread *t = &in->threads[in->next_thread++ % (unsigned)in->n_threads];
		if (!t->started && t != t0)
			t = t0; /* that thread could not be started */
		s->owner = t;
		pthread_mutex_lock(&t->lock);
		s->next = t->sessions;
		if (t->sessions)
			t->sessions->prev = s;
		t->sessions = s;
		pthread_mutex_unlock(&t->lock);
		atomic_fetch_add(&in->n_sessions, 1);
		atomic_fetch_add_explicit(&in->stats.sessions_opened, 1, memory_order_relaxed);
		if (in->cfg->notify_open)
			internal_msg(INTMSG_PRI_INFO, 0, "imptcp: connection established with host: "
				     "%s [v8.2302.0]", o->fromhost);
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &s->ev };
		if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
			sl_err("%s: epoll_ctl: %s", in->who, strerror(errno));
			/* not yet visible to its thread: close it here */
			s->owner = t;
			pthread_mutex_lock(&t->lock);
			if (s->prev)
				s->prev->next = s->next;
			else
				t->sessions = s->next;
			if (s->next)
				s->next->prev = s->prev;
			pthread_mutex_unlock(&t->lock);
			atomic_fetch_sub(&in->n_sessions, 1);
			msg_origin_release(o);
			close(fd);
			if (s->zs) {
				inflateEnd(s->zs);
				free(s->zs);
			}
			free(s);
		}
	}
}

/* ---- threads ---- */

static void *poller(void *arg)
{
	struct imptcp_thread *t = arg;
	struct imptcp_input *in = t->in;
	struct epoll_event evs[IMPTCP_EVENTS];

	while (!atomic_load(&in->stopping)) {
		int n = epoll_wait(t->epfd, evs, IMPTCP_EVENTS, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			sl_err("%s: epoll_wait: %s", in->who, strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++) {
			struct ev_src *src = evs[i].data.ptr;
			switch (src->kind) {
			case EV_LISTENER:
				accept_sessions(t, src->fd);
				break;
			case EV_WAKE:
				break;
			case EV_SESSION:
				sess_readable(t, (struct imptcp_session *)src);
				break;
			}
		}
		batch_flush(t);
	}
	batch_flush(t);
	msg_alloc_fini(&t->alloc);
	return NULL;
}

static void write_port_file(struct imptcp_input *in)
{
	const char *path = in->cfg->listen_port_file;
	if (!path || in->n_listeners == 0 || in->is_unix)
		return;
	FILE *f = fopen(path, "w");
	if (!f) {
		sl_err("%s: cannot write listenPortFileName %s: %s", in->who, path, strerror(errno));
		return;
	}
	fprintf(f, "%d", net_local_port(in->listeners[0].fd));
	fclose(f);
}

/* The statistics registry (stats.h): rsyslog's "imptcp(ADDR/PORT/...)"
 * object with "submitted", then sluice's own counters. */
static void imptcp_stats_register(struct imptcp_input *in)
{
	char name[300];
	const unsigned R = STATS_CTR_RESETTABLE;
	struct imptcp_inst_cfg *c = in->cfg;
	if (in->is_unix)
		snprintf(name, sizeof(name), "imptcp(%s)", c->path ? c->path : "");
	else
		snprintf(name, sizeof(name), "imptcp(%s/%s)", c->address ? c->address : "*",
			 c->port ? c->port : "514");
	struct stats_obj *o = in->stats_obj = stats_obj_create(name, "imptcp");
	stats_obj_add(o, "submitted", &in->stats.submitted, R);
	stats_obj_add(o, "sessions.opened", &in->stats.sessions_opened, R);
	stats_obj_add(o, "sessions.closed", &in->stats.sessions_closed, R);
	stats_obj_add(o, "sessions.refused", &in->stats.sessions_refused, R);
	stats_obj_add(o, "discarded.nomem", &in->stats.discarded_nomem, R);
	if (in->zstream) {
		stats_obj_add(o, "bytes.received", &in->stats.bytes_received, R);
		stats_obj_add(o, "bytes.decompressed", &in->stats.bytes_decompressed, R);
		stats_obj_add(o, "decompress.errors", &in->stats.decompress_errors, R);
	}
	stats_obj_add(o, "framing.truncated", &in->stats.fr.truncated, R);
	stats_obj_add(o, "framing.errors", &in->stats.fr.framing_errors, R);
	stats_obj_add(o, "ratelimit.discarded", &in->rl.discarded, R);
}

static enum sl_rc imptcp_in_start(void *arg)
{
	struct imptcp_input *in = arg;
	struct imptcp_inst_cfg *c = in->cfg;
	int fds[IMPTCP_MAX_LISTENERS];
	int n;

	in->frcfg.max_msg = glbl.max_msg_size > 0 ? (size_t)glbl.max_msg_size : 8096;
	if (in->is_unix) {
		struct net_unix_opts uo = {
			.type = SOCK_STREAM,
			.backlog = (int)c->backlog,
			.unlink_first = c->unlink_path,
			.mode = c->file_mode,
			.uid = c->uid_num >= 0 ? c->uid_num : c->uid,
			.gid = c->gid_num >= 0 ? c->gid_num : c->gid,
			.fail_on_chown = c->fail_on_chown,
		};
		fds[0] = net_listen_unix(c->path, &uo, in->who);
		if (fds[0] < 0)
			return SL_ERR_IO;
		n = 1;
		in->unix_origin = msg_origin_create(glbl_local_hostname(), "127.0.0.1",
						    in->inputname, in->ruleset);
		if (!in->unix_origin)
			return SL_ERR_NOMEM;
		in->unix_origin->default_tz_mode = in->tz.default_tz_mode;
		in->unix_origin->default_tz_hour = in->tz.default_tz_hour;
		in->unix_origin->default_tz_minute = in->tz.default_tz_minute;
	} else {
		const char *port = c->port;
		if (strcmp(port, "0") == 0 && !c->listen_port_file)
			port = "514"; /* as imtcp: port 0 only with listenPortFileName */
		n = net_listen_tcp(c->address, port, (int)c->backlog, fds, IMPTCP_MAX_LISTENERS,
				   in->who);
		if (n < 0)
			return SL_ERR_IO;
	}
	for (int i = 0; i < n; i++) {
		in->listeners[i].kind = EV_LISTENER;
		in->listeners[i].fd = fds[i];
	}
	in->n_listeners = n;
	in->wake.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (in->wake.fd < 0)
		return SL_ERR_IO;
	for (int ti = 0; ti < in->n_threads; ti++) {
		struct imptcp_thread *t = &in->threads[ti];
		t->in = in;
		t->idx = ti;
		pthread_mutex_init(&t->lock, NULL);
		t->epfd = epoll_create1(EPOLL_CLOEXEC);
		t->rbuf = malloc(IMPTCP_READ_SIZE);
		t->frcfg = in->frcfg;
		if (c->delim_regex) {
			if (regcomp(&t->start_re, c->delim_regex, REG_EXTENDED | REG_NOSUB) != 0)
				return SL_ERR_CONFIG;
			t->start_re_ok = true;
			t->frcfg.start_re = &t->start_re;
		}
		if (in->zstream)
			t->zbuf = malloc(IMPTCP_INFLATE_SIZE);
		if (t->epfd < 0 || !t->rbuf || (in->zstream && !t->zbuf))
			return SL_ERR_NOMEM;
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &in->wake };
		if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, in->wake.fd, &ev) != 0)
			return SL_ERR_IO;
	}
	for (int i = 0; i < n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &in->listeners[i] };
		if (epoll_ctl(in->threads[0].epfd, EPOLL_CTL_ADD, fds[i], &ev) != 0)
			return SL_ERR_IO;
	}
	write_port_file(in);
	imptcp_stats_register(in);
	return SL_OK;
}

static void imptcp_in_run(void *arg)
{
	struct imptcp_input *in = arg;
	in->threads[0].started = true;
	for (int i = 1; i < in->n_threads; i++) {
		int e = pthread_create(&in->threads[i].tid, NULL, poller, &in->threads[i]);
		if (e)
			sl_err("%s: cannot start epoll thread %d: %s", in->who, i, strerror(e));
		else
			in->threads[i].started = true;
	}
	poller(&in->threads[0]);
	for (int i = 1; i < in->n_threads; i++)
		if (in->threads[i].started)
			pthread_join(in->threads[i].tid, NULL);
	for (int i = 0; i < in->n_threads; i++) {
		struct imptcp_thread *t = &in->threads[i];
		while (t->sessions)
			sess_close(t, t->sessions);
		t->started = false;
	}
	ratelimit_flush(&in->rl); /* the loss report, while the queues still take it */
}

static void imptcp_in_stop(void *arg)
{
	struct imptcp_input *in = arg;
	uint64_t one = 1;
	atomic_store(&in->stopping, true);
	if (in->wake.fd >= 0 && write(in->wake.fd, &one, sizeof(one)) < 0)
		sl_err("%s: cannot wake the epoll threads: %s", in->who, strerror(errno));
}

static void imptcp_in_destroy(void *arg)
{
	struct imptcp_input *in = arg;
	if (!in)
		return;
	stats_obj_destroy(in->stats_obj);
	for (int i = 0; i < IMPTCP_MAX_THREADS; i++) {
		struct imptcp_thread *t = &in->threads[i];
		if (!t->in)
			continue;
		while (t->sessions)
			sess_close(t, t->sessions);
		if (t->epfd >= 0)
			close(t->epfd);
		free(t->rbuf);
		free(t->zbuf);
		if (t->start_re_ok)
			regfree(&t->start_re);
		pthread_mutex_destroy(&t->lock);
	}
	for (int i = 0; i < in->n_listeners; i++)
		close(in->listeners[i].fd);
	if (in->is_unix && in->cfg->unlink_path && in->n_listeners)
		unlink(in->cfg->path);
	if (in->wake.fd >= 0)
		close(in->wake.fd);
	msg_origin_release(in->unix_origin);
	ratelimit_destroy(&in->rl);
	param_free(&imptcp_inst_table, in->cfg);
	free(in);
}

static const struct input_ops imptcp_input_ops = {
	.in_create = imptcp_in_create,
	.in_start = imptcp_in_start,
	.in_run = imptcp_in_run,
	.in_stop = imptcp_in_stop,
	.in_destroy = imptcp_in_destroy,
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "imptcp",
	.description = "syslog over plain TCP and unix stream sockets, several epoll threads",
	.type = MOD_INPUT,
	.mod_params = &imptcp_mod_table,
	.inst_params = &imptcp_inst_table,
	.mod_init = imptcp_mod_init,
	.mod_exit = imptcp_mod_exit,
	.input = &imptcp_input_ops,
};
