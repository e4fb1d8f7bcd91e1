/* imtcp.c — the plain TCP syslog input (rsyslog's imtcp, 8.2302
 * semantics): listeners, sessions, LF and octet-counted framing, and
 * batched submission of the raw frames to the ruleset's queue.
 *
 * Framing follows rsyslog's tcps_sess.c state machine, checked against
 * rsyslogd 8.2302 (see REFERENCE-rsyslog.md §7):
 *  - a frame starting with a digit is octet-counted ("LEN SP MSG") when
 *    supportOctetCountedFraming is on; a count < 1 drops the digits and
 *    continues LF-framed; a count > maxFrameSize keeps the digits and
 *    continues LF-framed; a non-SP terminator is dropped (and logged);
 *  - LF (unless disableLFDelimiter) and addtlFrameDelimiter end LF frames;
 *  - a frame longer than global maxMessageSize is cut at that size, the
 *    byte at the cut is dropped (as rsyslog does) and the rest becomes a
 *    new message (both framings), or the rest is discarded up to the end
 *    of the frame with discardTruncatedMsg="on";
 *  - empty frames are dropped; at EOF an unterminated LF frame is
 *    submitted, an incomplete octet-counted frame is dropped (logged).
 *
 * Threading: every input() instance has its own server thread (in_run)
 * with one epoll set over its listeners, an eventfd for in_stop, and its
 * sessions. Sessions, batch and read buffer belong to that thread alone;
 * the only cross-thread data are the `stopping` flag and the statistics
 * (atomics). in_start / in_stop / in_destroy run on the main thread.
 *
 * TODO(#5): TLS (streamDriver.mode=1 via gnutls) slots in at sess_recv();
 * the poll() backend for systems without epoll; reverse DNS for fromhost
 * (net.enableDNS; fromhost is the IP for now); defaultTZ; rate limiting;
 * notifyOnConnectionOpen/Close messages.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif
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

#include <errno.h>
#include <stdarg.h>
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

#define IMTCP_READ_SIZE (64 * 1024)  /* bytes per recv() */
#define IMTCP_BATCH 1024             /* messages per input_submit() */
#define IMTCP_MAX_LISTENERS 16       /* sockets per input (addresses) */
#define IMTCP_EVENTS 256
#define IMTCP_OCTET_COUNT_CAP 200000000 /* rsyslog stops growing the count here */

/* ---- configuration ---- */

/* module(load="imtcp" ...): the defaults of every input */
struct imtcp_mod_cfg {
	int64_t max_sessions;
	int64_t max_listeners;
	bool flow_control;
	bool disable_lf;
	bool discard_truncated;
	bool octet_counted;
	bool notify_close;
	int64_t addtl_delim;
	int64_t max_frame_size;
	bool keepalive;
	int64_t ka_probes, ka_time, ka_intvl;
	int64_t sd_mode;
	char *sd_authmode, *sd_permit_expired, *sd_name;
	bool sd_check_eku, sd_prioritize_san;
	int64_t sd_verify_depth;
	struct param_array permitted_peer;
	char *gnutls_prio;
	bool preserve_case;
};

#define MOFF(f) offsetof(struct imtcp_mod_cfg, f)
static const struct param_desc imtcp_mod_params[] = {
	{ "maxSessions", PARAM_INT, "200", 0, MOFF(max_sessions), "max sessions per input" },
	{ "maxListeners", PARAM_INT, "20", 0, MOFF(max_listeners), "max listeners (accepted, not enforced)" },
	{ "maxListners", PARAM_INT, "20", PARAM_DEPRECATED, MOFF(max_listeners), "old spelling of maxListeners" },
	{ "flowControl", PARAM_BINARY, "on", 0, MOFF(flow_control), "block senders while the queue is nearly full" },
	{ "disableLFDelimiter", PARAM_BINARY, "off", 0, MOFF(disable_lf), "LF does not end a frame" },
	{ "discardTruncatedMsg", PARAM_BINARY, "off", 0, MOFF(discard_truncated), "drop the rest of an oversize frame" },
	{ "octetCountedFraming", PARAM_BINARY, "on", 0, MOFF(octet_counted), "default of supportOctetCountedFraming" },
	{ "notifyOnConnectionClose", PARAM_BINARY, "off", 0, MOFF(notify_close), "accepted; not implemented yet (#5)" },
	{ "addtlFrameDelimiter", PARAM_INT, "-1", 0, MOFF(addtl_delim), "extra frame delimiter (byte value)" },
	{ "maxFrameSize", PARAM_INT, "200000", 0, MOFF(max_frame_size), "largest octet count accepted" },
	{ "keepAlive", PARAM_BINARY, "off", 0, MOFF(keepalive), "enable TCP keep-alive" },
	{ "keepAlive.probes", PARAM_INT, "0", 0, MOFF(ka_probes), "keep-alive probes (0 = OS default)" },
	{ "keepAlive.time", PARAM_INT, "0", 0, MOFF(ka_time), "keep-alive idle time (0 = OS default)" },
	{ "keepAlive.interval", PARAM_INT, "0", 0, MOFF(ka_intvl), "keep-alive interval (0 = OS default)" },
	{ "streamDriver.mode", PARAM_INT, "0", 0, MOFF(sd_mode), "0 = plain TCP; TLS is issue #5" },
	{ "streamDriver.authMode", PARAM_STRING, NULL, 0, MOFF(sd_authmode), "TLS (#5)" },
	{ "streamDriver.permitExpiredCerts", PARAM_STRING, NULL, 0, MOFF(sd_permit_expired), "TLS (#5)" },
	{ "streamDriver.name", PARAM_STRING, NULL, 0, MOFF(sd_name), "TLS (#5)" },
	{ "streamDriver.CheckExtendedKeyPurpose", PARAM_BINARY, "off", 0, MOFF(sd_check_eku), "TLS (#5)" },
	{ "streamDriver.PrioritizeSAN", PARAM_BINARY, "off", 0, MOFF(sd_prioritize_san), "TLS (#5)" },
	{ "streamDriver.TlsVerifyDepth", PARAM_INT, "0", 0, MOFF(sd_verify_depth), "TLS (#5)" },
	{ "permittedPeer", PARAM_ARRAY, NULL, 0, MOFF(permitted_peer), "TLS (#5)" },
	{ "gnutlsPriorityString", PARAM_STRING, NULL, 0, MOFF(gnutls_prio), "TLS (#5)" },
	{ "preserveCase", PARAM_BINARY, "on", 0, MOFF(preserve_case), "keep the case of fromhost" },
};
static const struct param_table imtcp_mod_table = PARAM_TABLE(imtcp_mod_params, struct imtcp_mod_cfg);

/* input(type="imtcp" ...) */
struct imtcp_inst_cfg {
	char *port;
	char *address;
	char *name;
	char *ruleset;
	int64_t max_sessions;
	int64_t max_listeners;
	bool flow_control;
	bool disable_lf;
	bool discard_truncated;
	bool notify_close;
	bool notify_open;
	bool preserve_case;
	bool supp_octet;
	bool keepalive;
	bool framingfix_asa;
	int64_t addtl_delim;
	int64_t max_frame_size;
	int64_t ka_probes, ka_time, ka_intvl;
	int64_t sd_mode;
	int64_t sd_verify_depth;
	int64_t rl_interval, rl_burst;
	char *listen_port_file;
	char *default_tz;
	char *sd_authmode, *sd_permit_expired, *sd_name;
	char *sd_cafile, *sd_keyfile, *sd_certfile;
	char *gnutls_prio;
	bool sd_check_eku, sd_prioritize_san;
};

#define IOFF(f) offsetof(struct imtcp_inst_cfg, f)
static const struct param_desc imtcp_inst_params[] = {
	{ "port", PARAM_STRING, NULL, PARAM_REQUIRED, IOFF(port), "port (or service) to listen on" },
	{ "address", PARAM_STRING, NULL, 0, IOFF(address), "local address to bind (default: all)" },
	{ "name", PARAM_STRING, NULL, 0, IOFF(name), "value of $inputname (default imtcp)" },
	{ "ruleset", PARAM_RULESET, NULL, 0, IOFF(ruleset), "ruleset to bind to" },
	{ "maxSessions", PARAM_INT, "200", 0, IOFF(max_sessions), "max concurrent sessions" },
	{ "maxListeners", PARAM_INT, "20", 0, IOFF(max_listeners), "accepted, not enforced" },
	{ "flowControl", PARAM_BINARY, "on", 0, IOFF(flow_control), "block senders while the queue is nearly full" },
	{ "disableLFDelimiter", PARAM_BINARY, "off", 0, IOFF(disable_lf), "LF does not end a frame" },
	{ "discardTruncatedMsg", PARAM_BINARY, "off", 0, IOFF(discard_truncated), "drop the rest of an oversize frame" },
	{ "notifyOnConnectionClose", PARAM_BINARY, "off", 0, IOFF(notify_close), "accepted; not implemented yet (#5)" },
	{ "notifyOnConnectionOpen", PARAM_BINARY, "off", 0, IOFF(notify_open), "accepted; not implemented yet (#5)" },
	{ "addtlFrameDelimiter", PARAM_INT, "-1", 0, IOFF(addtl_delim), "extra frame delimiter (byte value)" },
	{ "maxFrameSize", PARAM_INT, "200000", 0, IOFF(max_frame_size), "largest octet count accepted" },
	{ "preserveCase", PARAM_BINARY, "on", 0, IOFF(preserve_case), "keep the case of fromhost" },
	{ "listenPortFileName", PARAM_STRING, NULL, 0, IOFF(listen_port_file), "write the bound port here" },
	{ "defaultTZ", PARAM_STRING, NULL, 0, IOFF(default_tz), "accepted; not implemented yet (#5)" },
	{ "streamDriver.mode", PARAM_INT, "0", 0, IOFF(sd_mode), "0 = plain TCP; TLS is issue #5" },
	{ "streamDriver.authMode", PARAM_STRING, NULL, 0, IOFF(sd_authmode), "TLS (#5)" },
	{ "streamDriver.permitExpiredCerts", PARAM_STRING, NULL, 0, IOFF(sd_permit_expired), "TLS (#5)" },
	{ "streamDriver.name", PARAM_STRING, NULL, 0, IOFF(sd_name), "TLS (#5)" },
	{ "streamDriver.CheckExtendedKeyPurpose", PARAM_BINARY, "off", 0, IOFF(sd_check_eku), "TLS (#5)" },
	{ "streamDriver.PrioritizeSAN", PARAM_BINARY, "off", 0, IOFF(sd_prioritize_san), "TLS (#5)" },
	{ "streamDriver.TlsVerifyDepth", PARAM_INT, "0", 0, IOFF(sd_verify_depth), "TLS (#5)" },
	{ "streamDriver.cafile", PARAM_STRING, NULL, 0, IOFF(sd_cafile), "TLS (#5)" },
	{ "streamDriver.keyfile", PARAM_STRING, NULL, 0, IOFF(sd_keyfile), "TLS (#5)" },
	{ "streamDriver.certfile", PARAM_STRING, NULL, 0, IOFF(sd_certfile), "TLS (#5)" },
	{ "gnutlsPriorityString", PARAM_STRING, NULL, 0, IOFF(gnutls_prio), "TLS (#5)" },
	{ "keepAlive", PARAM_BINARY, "off", 0, IOFF(keepalive), "enable TCP keep-alive" },
	{ "keepAlive.probes", PARAM_INT, "0", 0, IOFF(ka_probes), "keep-alive probes" },
	{ "keepAlive.time", PARAM_INT, "0", 0, IOFF(ka_time), "keep-alive idle time" },
	{ "keepAlive.interval", PARAM_INT, "0", 0, IOFF(ka_intvl), "keep-alive interval" },
	{ "supportOctetCountedFraming", PARAM_BINARY, "on", 0, IOFF(supp_octet), "frames starting with a digit are octet-counted" },
	{ "rateLimit.interval", PARAM_INT, "0", 0, IOFF(rl_interval), "accepted; not implemented yet (#5)" },
	{ "rateLimit.burst", PARAM_INT, "10000", 0, IOFF(rl_burst), "accepted; not implemented yet (#5)" },
	{ "framingfix.cisco.asa", PARAM_BINARY, "off", 0, IOFF(framingfix_asa), "ignore a SP before a frame" },
};
static const struct param_table imtcp_inst_table = PARAM_TABLE(imtcp_inst_params, struct imtcp_inst_cfg);

/* ---- runtime ---- */

enum ev_kind { EV_LISTENER, EV_WAKE, EV_SESSION };

/* First member of everything registered with epoll. */
struct ev_src {
	enum ev_kind kind;
	int fd;
};

enum sess_state {
	ST_START,   /* at the start of a frame */
	ST_COUNT,   /* reading the octet count */
	ST_MSG,     /* inside a frame */
	ST_TRUNC,   /* discarding the rest of an oversize frame */
};

struct imtcp_session {
	struct ev_src ev;
	struct msg_origin *origin;      /* one reference, released on close */
	enum sess_state state;
	bool octet;                     /* current frame is octet-counted */
	bool truncation_logged;
	bool framing_error_logged;
	int64_t count;                  /* ST_COUNT: count so far; else bytes left */
	char *carry;                    /* partial frame; capacity max_msg */
	size_t carry_len;
	char peer[NET_IP_MAX];
	struct imtcp_session *prev, *next;
};

struct imtcp_stats {
	atomic_uint_fast64_t submitted;
	atomic_uint_fast64_t sessions_opened;
	atomic_uint_fast64_t sessions_closed;
	atomic_uint_fast64_t sessions_refused;
	atomic_uint_fast64_t truncated;
	atomic_uint_fast64_t framing_errors;
	atomic_uint_fast64_t discarded_nomem;
};

struct imtcp_input {
	struct imtcp_inst_cfg *cfg;
	struct ruleset *ruleset;
	const char *inputname;          /* cfg->name or "imtcp"; owned here */
	char who[96];                   /* "imtcp NAME port P" for log lines */
	enum flow_ctl fc;
	size_t max_msg;                 /* glbl.max_msg_size at start */
	unsigned addtl_delim;           /* 0..255, or 256 = none */
	struct ev_src listeners[IMTCP_MAX_LISTENERS];
	int n_listeners;
	struct ev_src wake;             /* eventfd written by in_stop */
	int epfd;
	atomic_bool stopping;
	int n_sessions;
	struct imtcp_session *sessions;
	time_t last_refusal_log;
	char *rbuf;                     /* IMTCP_READ_SIZE, in_run only */
	struct msg *batch[IMTCP_BATCH];
	int n_batch;
	struct imtcp_stats stats;
};

/* ---- module ---- */

static void *imtcp_mod_init(void *mod_cfg, int *n_errors)
{
	struct imtcp_mod_cfg *m = mod_cfg ? mod_cfg : param_defaults(&imtcp_mod_table);
	(void)n_errors;
	return m;
}

static void imtcp_mod_exit(void *mod)
{
	param_free(&imtcp_mod_table, mod);
}

/* ---- configuration of an input ---- */

static struct cfg_param *find_param(struct cfg_obj *o, const char *name)
{
	for (struct cfg_param *p = o->params; p; p = p->next)
		if (strcasecmp(p->name, name) == 0)
			return p;
	return NULL;
}

/* Input parameters not given take the module()'s value (rsyslog's
 * createInstance copies loadModConf). */
static void inherit_module_defaults(struct imtcp_inst_cfg *c, const struct imtcp_mod_cfg *m,
				    struct cfg_obj *o)
{
#define INHERIT(pname, f, mf) do { if (!find_param(o, pname)) c->f = m->mf; } while (0)
	INHERIT("maxsessions", max_sessions, max_sessions);
	INHERIT("maxlisteners", max_listeners, max_listeners);
	INHERIT("flowcontrol", flow_control, flow_control);
	INHERIT("disablelfdelimiter", disable_lf, disable_lf);
	INHERIT("discardtruncatedmsg", discard_truncated, discard_truncated);
	INHERIT("notifyonconnectionclose", notify_close, notify_close);
	INHERIT("addtlframedelimiter", addtl_delim, addtl_delim);
	INHERIT("maxframesize", max_frame_size, max_frame_size);
	INHERIT("keepalive", keepalive, keepalive);
	INHERIT("keepalive.probes", ka_probes, ka_probes);
	INHERIT("keepalive.time", ka_time, ka_time);
	INHERIT("keepalive.interval", ka_intvl, ka_intvl);
	INHERIT("streamdriver.mode", sd_mode, sd_mode);
	INHERIT("preservecase", preserve_case, preserve_case);
	INHERIT("supportoctetcountedframing", supp_octet, octet_counted);
#undef INHERIT
}

static const struct cfg_pos *param_pos(struct cfg_obj *o, const char *name)
{
	struct cfg_param *p = find_param(o, name);
	return p ? &p->pos : &o->pos;
}

static void *imtcp_in_create(void *mod, void *cfg, struct cfg_obj *o, int *n_errors)
{
	struct imtcp_mod_cfg *m = mod;
	struct imtcp_inst_cfg *c = cfg;
	struct imtcp_input *in = NULL;
	int errs = 0;

	if (c == NULL)
		return NULL;
	if (m)
		inherit_module_defaults(c, m, o);

	if (c->max_sessions < 1) {
		cfg_error(param_pos(o, "maxsessions"), "imtcp: maxSessions must be at least 1 (is %lld)",
			  (long long)c->max_sessions);
		errs++;
	}
	if (c->max_frame_size > 200000000) {
		cfg_error(param_pos(o, "maxframesize"), "imtcp: invalid value for 'maxFrameSize': "
			  "%lld, max is 200000000", (long long)c->max_frame_size);
		errs++;
	}
	if (c->addtl_delim < -1 || c->addtl_delim > 255) {
		cfg_error(param_pos(o, "addtlframedelimiter"), "imtcp: addtlFrameDelimiter must be "
			  "a byte value 0..255 (or -1 for none), is %lld", (long long)c->addtl_delim);
		errs++;
	}
	if (c->sd_mode != 0) {
		/* TODO(#5): TLS through gnutls. */
		cfg_error(param_pos(o, "streamdriver.mode"), "imtcp: streamDriver.mode=%lld (TLS) is "
			  "not supported yet by sluice (issue #5)", (long long)c->sd_mode);
		errs++;
	}
	if (c->default_tz)
		cfg_warn(param_pos(o, "defaulttz"), "imtcp: defaultTZ is accepted but not applied yet "
			 "(issue #5)");
	if (c->rl_interval > 0)
		cfg_warn(param_pos(o, "ratelimit.interval"), "imtcp: rateLimit.interval is accepted "
			 "but no rate limiting is done yet (issue #5)");

	in = sl_xcalloc(1, sizeof(*in));
	in->cfg = c;
	in->epfd = -1;
	in->wake.fd = -1;
	in->wake.kind = EV_WAKE;
	in->inputname = c->name ? c->name : "imtcp";
	if (c->ruleset) {
		in->ruleset = ruleset_lookup(c->ruleset);
		if (in->ruleset == NULL) {
			cfg_error(param_pos(o, "ruleset"), "imtcp: ruleset '%s' is not defined",
				  c->ruleset);
			errs++;
		}
	}
	if (c->port && strcmp(c->port, "0") == 0 && c->listen_port_file == NULL) {
		cfg_warn(param_pos(o, "port"), "imtcp: port 0 and no listenPortFileName set -> "
			 "using port 514 instead");
		free(c->port);
		c->port = sl_xstrdup("514");
	}
	snprintf(in->who, sizeof(in->who), "imtcp %s port %s", in->inputname,
		 c->port ? c->port : "?");
	in->fc = c->flow_control ? FLOW_DELAY : FLOW_NO_DELAY;
	in->addtl_delim = c->addtl_delim < 0 ? 256u : (unsigned)c->addtl_delim;
	if (errs) {
		*n_errors += errs;
		param_free(&imtcp_inst_table, c);
		free(in);
		return NULL;
	}
	return in;
}

/* ---- sessions ---- */

/* Read from a session. The one place a TLS layer plugs in (#5). Returns
 * what recv() returns. */
static ssize_t sess_recv(struct imtcp_session *s, char *buf, size_t size)
{
	ssize_t n;
	do
		n = recv(s->ev.fd, buf, size, 0);
	while (n < 0 && errno == EINTR);
	return n;
}

static void batch_flush(struct imtcp_input *in)
{
	if (in->n_batch == 0)
		return;
	int n = in->n_batch;
	in->n_batch = 0;
	atomic_fetch_add_explicit(&in->stats.submitted, (uint_fast64_t)n, memory_order_relaxed);
	/* ownership of the references passes to the core in all cases */
	(void)input_submit(in->batch, n, in->fc);
}

/* Make a message of one frame and add it to the batch. */
static void emit(struct imtcp_input *in, struct imtcp_session *s, const char *p, size_t len,
		 const struct syslog_time *t, time_t tt)
{
	if (len == 0)
		return; /* empty frames are dropped, as rsyslog does */
	struct msg *m = msg_create(p, len, s->origin, t, tt);
	if (SL_UNLIKELY(m == NULL)) {
		atomic_fetch_add_explicit(&in->stats.discarded_nomem, 1, memory_order_relaxed);
		return;
	}
	in->batch[in->n_batch++] = m;
	if (in->n_batch == IMTCP_BATCH)
		batch_flush(in);
}

static bool carry_append(struct imtcp_input *in, struct imtcp_session *s, const char *p, size_t n)
{
	if (s->carry == NULL) {
		s->carry = malloc(in->max_msg ? in->max_msg : 1);
		if (s->carry == NULL)
			return false;
	}
	memcpy(s->carry + s->carry_len, p, n);
	s->carry_len += n;
	return true;
}

static void emit_carry(struct imtcp_input *in, struct imtcp_session *s,
		       const struct syslog_time *t, time_t tt)
{
	emit(in, s, s->carry, s->carry_len, t, tt);
	s->carry_len = 0;
}

/* Count a framing error; log the first of each session (with the peer). */
static void SL_PRINTF(3, 4) framing_error(struct imtcp_input *in, struct imtcp_session *s,
					  const char *fmt, ...)
{
	atomic_fetch_add_explicit(&in->stats.framing_errors, 1, memory_order_relaxed);
	if (s->framing_error_logged)
		return;
	s->framing_error_logged = true;
	char what[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	sl_err("%s: framing error in TCP message from peer %s: %s (further framing errors of "
	       "this session are only counted)", in->who, s->peer, what);
}

/* A frame reached maxMessageSize and goes on: count it, log once. */
static void truncated(struct imtcp_input *in, struct imtcp_session *s)
{
	atomic_fetch_add_explicit(&in->stats.truncated, 1, memory_order_relaxed);
	if (s->truncation_logged)
		return;
	s->truncation_logged = true;
	sl_warn("%s: message from peer %s is larger than the maximum message size %zu; %s "
		"(further truncations in this session are only counted)", in->who, s->peer,
		in->max_msg, in->cfg->discard_truncated ? "the rest is discarded"
							 : "the rest becomes a new message");
}

/* A frame has max_msg bytes and byte *p continues it. rsyslog 8.2302
 * (tcps_sess.c, confirmed with rsyslogd) submits the max_msg bytes and
 * drops this byte; the rest of the frame then becomes a new message
 * (without looking for an octet count again), or is discarded with
 * discardTruncatedMsg="on". We do the same so the output is the same. */
static void split_byte(struct imtcp_input *in, struct imtcp_session *s, const char **p)
{
	truncated(in, s);
	(*p)++;
	if (s->octet && --s->count == 0) {
		s->state = ST_START;
		return;
	}
	if (in->cfg->discard_truncated)
		s->state = ST_TRUNC;
}

/* The end of the frame delimiters within p[0..n): NULL if none. */
static const char *find_delim(const struct imtcp_input *in, const char *p, size_t n)
{
	const char *lf = in->cfg->disable_lf ? NULL : memchr(p, '\n', n);
	if (in->addtl_delim < 256) {
		size_t lim = lf ? (size_t)(lf - p) : n;
		const char *d = memchr(p, (int)in->addtl_delim, lim);
		if (d)
			return d;
	}
	return lf;
}

/* Cut the bytes of one read into frames. Complete frames become
 * messages; a partial frame stays in the session (s->carry) for the next
 * read. Never writes more than max_msg bytes into the carry buffer. */
static void sess_feed(struct imtcp_input *in, struct imtcp_session *s, const char *p,
		      size_t len, const struct syslog_time *t, time_t tt)
{
	const char *end = p + len;
	const size_t max = in->max_msg;

	while (p < end) {
		switch (s->state) {
		case ST_START:
			s->carry_len = 0;
			if (in->cfg->supp_octet && *p >= '0' && *p <= '9') {
				s->state = ST_COUNT;
				s->octet = true;
				s->count = 0;
			} else if (in->cfg->framingfix_asa && *p == ' ') {
				p++; /* Cisco ASA: SP in front of a frame */
			} else {
				s->state = ST_MSG;
				s->octet = false;
			}
			break;

		case ST_COUNT:
			while (p < end && *p >= '0' && *p <= '9') {
				if (s->count <= IMTCP_OCTET_COUNT_CAP)
					s->count = s->count * 10 + (*p - '0');
				/* the digits are kept in case the count is unusable */
				if (s->carry_len < max && !carry_append(in, s, p, 1))
					s->carry_len = max; /* ENOMEM: behave as truncated */
				p++;
			}
			if (p == end)
				break;
			if (*p != ' ')
				framing_error(in, s, "octet count not followed by SP but by byte %d",
					      (unsigned char)*p);
			p++; /* the terminator is dropped, SP or not */
			if (s->count < 1) {
				framing_error(in, s, "invalid octet count %lld", (long long)s->count);
				s->octet = false;
			}
			if (s->count > in->cfg->max_frame_size) {
				framing_error(in, s, "frame too large (%lld), changing to LF framing",
					      (long long)s->count);
				s->octet = false; /* digits stay in the frame */
			} else {
				s->carry_len = 0;
			}
			s->state = ST_MSG;
			break;

		case ST_MSG:
			if (s->octet) {
				size_t avail = (size_t)(end - p);
				if (s->carry_len == max) {
					/* full, and the frame goes on: this byte splits it */
					emit_carry(in, s, t, tt);
					split_byte(in, s, &p);
					break;
				}
				size_t take = max - s->carry_len;
				if ((uint64_t)take > (uint64_t)s->count)
					take = (size_t)s->count;
				if (take > avail)
					take = avail;
				if (s->carry_len == 0 && take == (size_t)s->count) {
					/* the whole frame is in this read */
					emit(in, s, p, take, t, tt);
					p += take;
					s->count = 0;
					s->state = ST_START;
					break;
				}
				if (s->carry_len == 0 && take == max && avail > take) {
					/* a max-size piece and the byte that splits it */
					emit(in, s, p, take, t, tt);
					p += take;
					s->count -= (int64_t)take;
					split_byte(in, s, &p);
					break;
				}
				if (!carry_append(in, s, p, take)) {
					atomic_fetch_add_explicit(&in->stats.discarded_nomem, 1,
								  memory_order_relaxed);
					s->carry_len = 0;
					s->state = ST_TRUNC;
					break;
				}
				p += take;
				s->count -= (int64_t)take;
				if (s->count == 0) {
					emit_carry(in, s, t, tt);
					s->state = ST_START;
				}
			} else {
				size_t avail = (size_t)(end - p);
				size_t room = max - s->carry_len;
				size_t window = avail < room + 1 ? avail : room + 1;
				const char *d = find_delim(in, p, window);
				if (d) {
					size_t n = (size_t)(d - p);
					if (s->carry_len == 0) {
						emit(in, s, p, n, t, tt);
					} else {
						carry_append(in, s, p, n);
						emit_carry(in, s, t, tt);
					}
					p = d + 1;
					s->state = ST_START;
				} else if (avail > room) {
					/* longer than maxMessageSize: p[room] splits it */
					if (s->carry_len == 0) {
						emit(in, s, p, room, t, tt);
					} else {
						carry_append(in, s, p, room);
						emit_carry(in, s, t, tt);
					}
					p += room;
					split_byte(in, s, &p);
				} else {
					if (!carry_append(in, s, p, avail)) {
						atomic_fetch_add_explicit(&in->stats.discarded_nomem, 1,
									  memory_order_relaxed);
						s->carry_len = 0;
						s->state = ST_TRUNC;
					}
					p = end;
				}
			}
			break;

		case ST_TRUNC:
			if (s->octet) {
				size_t avail = (size_t)(end - p);
				size_t take = (uint64_t)avail < (uint64_t)s->count ? avail : (size_t)s->count;
				p += take;
				s->count -= (int64_t)take;
				if (s->count == 0)
					s->state = ST_START;
			} else {
				const char *d = find_delim(in, p, (size_t)(end - p));
				if (d) {
					p = d + 1;
					s->state = ST_START;
				} else {
					p = end;
				}
			}
			s->carry_len = 0;
			break;
		}
	}
}

/* The peer closed the connection: submit an unterminated LF frame (as
 * rsyslog does); an incomplete octet-counted frame is dropped. */
static void sess_eof(struct imtcp_input *in, struct imtcp_session *s)
{
	if (s->state == ST_START)
		return;
	if (s->state == ST_MSG && !s->octet) {
		if (s->carry_len) {
			struct syslog_time t;
			struct timespec now;
			dt_now(&t, &now);
			emit_carry(in, s, &t, now.tv_sec);
		}
	} else if (s->state == ST_COUNT || (s->octet && s->state != ST_START)) {
		sl_warn("%s: incomplete frame at end of stream from peer %s - ignoring extra data "
			"(a message may be lost)", in->who, s->peer);
	}
	s->state = ST_START;
	s->carry_len = 0;
}

static void sess_close(struct imtcp_input *in, struct imtcp_session *s)
{
	epoll_ctl(in->epfd, EPOLL_CTL_DEL, s->ev.fd, NULL);
	close(s->ev.fd);
	msg_origin_release(s->origin);
	free(s->carry);
	if (s->prev)
		s->prev->next = s->next;
	else
		in->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	in->n_sessions--;
	atomic_fetch_add_explicit(&in->stats.sessions_closed, 1, memory_order_relaxed);
	free(s);
}

static void sess_readable(struct imtcp_input *in, struct imtcp_session *s)
{
	ssize_t n = sess_recv(s, in->rbuf, IMTCP_READ_SIZE);
	if (n > 0) {
		struct syslog_time t;
		struct timespec now;
		dt_now(&t, &now); /* one reception time per read */
		sess_feed(in, s, in->rbuf, (size_t)n, &t, now.tv_sec);
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n == 0)
		sess_eof(in, s);
	else
		sl_info("%s: session from %s closed with error: %s", in->who, s->peer, strerror(errno));
	sess_close(in, s);
}

static void accept_sessions(struct imtcp_input *in, int lfd)
{
	for (int i = 0; i < 64; i++) { /* bounded: sessions get their turn too */
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE) {
				sl_err("%s: cannot accept: %s", in->who, strerror(errno));
				/* avoid spinning on the still-readable listener */
				struct timespec ts = { 0, 10 * 1000000 };
				nanosleep(&ts, NULL);
			}
			return;
		}
		char ip[NET_IP_MAX];
		net_sockaddr_ip((struct sockaddr *)&ss, ip, sizeof(ip));
		if (in->n_sessions >= in->cfg->max_sessions) {
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
		struct imtcp_session *s = calloc(1, sizeof(*s));
		char host[NI_MAXHOST];
		dns_fromhost((struct sockaddr *)&ss, sl, ip, host, sizeof(host));
		struct msg_origin *o = s ? msg_origin_create(host, ip, in->inputname, in->ruleset) : NULL;
		if (!s || !o) {
			sl_err("%s: out of memory accepting session from %s", in->who, ip);
			free(s);
			close(fd);
			continue;
		}
		s->ev.kind = EV_SESSION;
		s->ev.fd = fd;
		s->origin = o;
		s->state = ST_START;
		snprintf(s->peer, sizeof(s->peer), "%s", ip);
		if (in->cfg->keepalive)
			net_set_keepalive(fd, (int)in->cfg->ka_probes, (int)in->cfg->ka_time,
					  (int)in->cfg->ka_intvl);
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &s->ev };
		if (epoll_ctl(in->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
			sl_err("%s: epoll_ctl: %s", in->who, strerror(errno));
			msg_origin_release(o);
			free(s);
			close(fd);
			continue;
		}
		s->next = in->sessions;
		if (in->sessions)
			in->sessions->prev = s;
		in->sessions = s;
		in->n_sessions++;
		atomic_fetch_add_explicit(&in->stats.sessions_opened, 1, memory_order_relaxed);
	}
}

/* ---- lifecycle ---- */

static void write_port_file(struct imtcp_input *in)
{
	const char *path = in->cfg->listen_port_file;
	if (!path || in->n_listeners == 0)
		return;
	int port = net_local_port(in->listeners[0].fd);
	FILE *f = fopen(path, "w");
	if (!f) {
		sl_err("%s: cannot write listenPortFileName %s: %s", in->who, path, strerror(errno));
		return;
	}
	fprintf(f, "%d", port);
	fclose(f);
}

static enum sl_rc imtcp_in_start(void *arg)
{
	struct imtcp_input *in = arg;
	int fds[IMTCP_MAX_LISTENERS];
	int backlog = (int)(in->cfg->max_sessions / 10 + 5);

	if (backlog < 64)
		backlog = 64;
	in->max_msg = glbl.max_msg_size > 0 ? (size_t)glbl.max_msg_size : 8096;
	int n = net_listen_tcp(in->cfg->address, in->cfg->port, backlog, fds,
			       IMTCP_MAX_LISTENERS, in->who);
	if (n < 0)
		return SL_ERR_IO;
	for (int i = 0; i < n; i++) {
		in->listeners[i].kind = EV_LISTENER;
		in->listeners[i].fd = fds[i];
	}
	in->n_listeners = n;
	in->epfd = epoll_create1(EPOLL_CLOEXEC);
	in->wake.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (in->epfd < 0 || in->wake.fd < 0) {
		sl_err("%s: epoll/eventfd: %s", in->who, strerror(errno));
		return SL_ERR_IO;
	}
	for (int i = 0; i < n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &in->listeners[i] };
		if (epoll_ctl(in->epfd, EPOLL_CTL_ADD, fds[i], &ev) != 0)
			return SL_ERR_IO;
	}
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &in->wake };
	if (epoll_ctl(in->epfd, EPOLL_CTL_ADD, in->wake.fd, &ev) != 0)
		return SL_ERR_IO;
	in->rbuf = malloc(IMTCP_READ_SIZE);
	if (!in->rbuf)
		return SL_ERR_NOMEM;
	write_port_file(in);
	return SL_OK;
}

static void imtcp_in_run(void *arg)
{
	struct imtcp_input *in = arg;
	struct epoll_event evs[IMTCP_EVENTS];

	while (!atomic_load(&in->stopping)) {
		int n = epoll_wait(in->epfd, evs, IMTCP_EVENTS, -1);
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
				accept_sessions(in, src->fd);
				break;
			case EV_WAKE:
				break; /* the loop condition sees `stopping` */
			case EV_SESSION:
				sess_readable(in, (struct imtcp_session *)src);
				break;
			}
		}
		/* one submission per round (and whenever the batch filled) */
		batch_flush(in);
	}
	batch_flush(in);
	while (in->sessions)
		sess_close(in, in->sessions);
}

static void imtcp_in_stop(void *arg)
{
	struct imtcp_input *in = arg;
	uint64_t one = 1;
	atomic_store(&in->stopping, true);
	if (in->wake.fd >= 0 && write(in->wake.fd, &one, sizeof(one)) < 0)
		sl_err("%s: cannot wake the input thread: %s", in->who, strerror(errno));
}

static void imtcp_in_destroy(void *arg)
{
	struct imtcp_input *in = arg;
	if (in == NULL)
		return;
	while (in->sessions) /* only if in_run never ran */
		sess_close(in, in->sessions);
	for (int i = 0; i < in->n_listeners; i++)
		close(in->listeners[i].fd);
	if (in->wake.fd >= 0)
		close(in->wake.fd);
	if (in->epfd >= 0)
		close(in->epfd);
	free(in->rbuf);
	param_free(&imtcp_inst_table, in->cfg);
	free(in);
}

static const struct input_ops imtcp_input_ops = {
	.in_create = imtcp_in_create,
	.in_start = imtcp_in_start,
	.in_run = imtcp_in_run,
	.in_stop = imtcp_in_stop,
	.in_destroy = imtcp_in_destroy,
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "imtcp",
	.description = "syslog over plain TCP (LF and octet-counted framing)",
	.type = MOD_INPUT,
	.mod_params = &imtcp_mod_table,
	.inst_params = &imtcp_inst_table,
	.mod_init = imtcp_mod_init,
	.mod_exit = imtcp_mod_exit,
	.input = &imtcp_input_ops,
};
