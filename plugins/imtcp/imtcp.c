/* imtcp.c — the TCP syslog input (rsyslog's imtcp, 8.2302 semantics):
 * listeners, sessions, plain TCP or TLS (gnutls, through netstrm.h), LF
 * and octet-counted framing (runtime/framing.c, shared with imptcp), and
 * batched submission of the raw frames to the ruleset's queue.
 *
 * TLS: streamDriver.mode=1 with streamDriver.name="gtls" (or
 * global(defaultNetstreamDriver="gtls")); the certificate files come from
 * the input, else the module, else global(defaultNetstreamDriver*File).
 * Handshakes are non-blocking steps in the same epoll loop: a client that
 * stalls mid-handshake holds one session slot until the handshake timeout
 * (IMTCP_HANDSHAKE_TIMEOUT_S) and nothing else. Handshake and
 * authentication failures are logged with the peer's IP and the reason,
 * and counted.
 *
 * Hardening: the framer checks an octet count against maxFrameSize before
 * it stores a byte and never stores more than maxMessageSize bytes of a
 * frame; sessions beyond maxSessions are refused at accept (counted, logged
 * at most once a second); reads are non-blocking, so slow, idle or
 * half-open peers cost a session slot and nothing else (keepAlive finds
 * dead peers). At shutdown an input with refusals or errors logs its
 * counters.
 *
 * Threading: every input() instance has workerThreads epoll threads
 * (default 1; worker 0 runs on the input's own thread, in_run, which
 * starts and joins the others). Each worker has its own epoll set over
 * all the input's listeners (EPOLLEXCLUSIVE when there are several, so a
 * new connection wakes one worker) and the shared stop eventfd; a
 * session, and with it its framing state, batch and read buffer, belongs
 * to the worker that accepted it, so per-connection order is kept. The
 * TLS context is read-only after in_create; the only cross-thread data
 * are the `stopping` flag, the session count checked against maxSessions
 * and the statistics (atomics). in_create / in_start / in_stop /
 * in_destroy run on the main thread.
 *
 * Rate limiting (rateLimit.interval/burst) is per input, shared by all its
 * sessions and workers, as rsyslog's per-listener "tcperver" limiter (one
 * lock per batch); drops are counted (ratelimit.discarded) and reported as
 * rsyslog's internal messages. notifyOnConnectionOpen/Close emit
 * rsyslog's internal messages (internal_msg.h). defaultTZ is handed to the
 * parser on the session's msg_origin. handshakeTimeout (a sluice
 * parameter, not in rsyslog) bounds a TLS handshake.
 *
 * TODO(#5): the poll() backend for systems without epoll.
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
#include "netstrm.h"
#include "ratelimit.h"
#include "internal_msg.h"

#include <errno.h>
#include <pthread.h>
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
#define IMTCP_MAX_WORKERS 64
#define IMTCP_HANDSHAKE_TIMEOUT_S 10  /* default of handshakeTimeout */
#define IMTCP_READ_ROUNDS 16          /* TLS: buffers read per wake-up before yielding */

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
	char *sd_cafile, *sd_keyfile, *sd_certfile;
	int64_t worker_threads;
	int64_t hs_timeout;
	bool notify_open;
};

#define MOFF(f) offsetof(struct imtcp_mod_cfg, f)
static const struct param_desc imtcp_mod_params[] = {
	{ "maxSessions", PARAM_INT, "200", 0, MOFF(max_sessions), "max sessions per input" },
	{ "maxListeners", PARAM_INT, "20", 0, MOFF(max_listeners), "listen sockets per input (addresses of one port), default of the inputs" },
	{ "maxListners", PARAM_INT, "20", PARAM_DEPRECATED, MOFF(max_listeners), "old spelling of maxListeners" },
	{ "flowControl", PARAM_BINARY, "on", 0, MOFF(flow_control), "block senders while the queue is nearly full" },
	{ "disableLFDelimiter", PARAM_BINARY, "off", 0, MOFF(disable_lf), "LF does not end a frame" },
	{ "discardTruncatedMsg", PARAM_BINARY, "off", 0, MOFF(discard_truncated), "drop the rest of an oversize frame" },
	{ "octetCountedFraming", PARAM_BINARY, "on", 0, MOFF(octet_counted), "default of supportOctetCountedFraming" },
	{ "notifyOnConnectionClose", PARAM_BINARY, "off", 0, MOFF(notify_close), "internal message when a peer closes its session" },
	{ "notifyOnConnectionOpen", PARAM_BINARY, "off", 0, MOFF(notify_open), "internal message for each new session" },
	{ "handshakeTimeout", PARAM_INT, "10", 0, MOFF(hs_timeout), "sluice extension (not in rsyslog): seconds a TLS handshake may take" },
	{ "addtlFrameDelimiter", PARAM_INT, "-1", 0, MOFF(addtl_delim), "extra frame delimiter (byte value)" },
	{ "maxFrameSize", PARAM_INT, "200000", 0, MOFF(max_frame_size), "largest octet count accepted" },
	{ "keepAlive", PARAM_BINARY, "off", 0, MOFF(keepalive), "enable TCP keep-alive" },
	{ "keepAlive.probes", PARAM_INT, "0", 0, MOFF(ka_probes), "keep-alive probes (0 = OS default)" },
	{ "keepAlive.time", PARAM_INT, "0", 0, MOFF(ka_time), "keep-alive idle time (0 = OS default)" },
	{ "keepAlive.interval", PARAM_INT, "0", 0, MOFF(ka_intvl), "keep-alive interval (0 = OS default)" },
	{ "streamDriver.mode", PARAM_INT, "0", 0, MOFF(sd_mode), "0 = plain TCP, 1 = TLS" },
	{ "streamDriver.authMode", PARAM_STRING, NULL, 0, MOFF(sd_authmode), "anon, x509/certvalid, x509/name or x509/fingerprint" },
	{ "streamDriver.permitExpiredCerts", PARAM_STRING, NULL, 0, MOFF(sd_permit_expired), "on, off (default) or warn" },
	{ "streamDriver.name", PARAM_STRING, NULL, 0, MOFF(sd_name), "gtls or ptcp (default: global defaultNetstreamDriver)" },
	{ "streamDriver.CheckExtendedKeyPurpose", PARAM_BINARY, "off", 0, MOFF(sd_check_eku), "peer certificate must be for TLS client use" },
	{ "streamDriver.PrioritizeSAN", PARAM_BINARY, "off", 0, MOFF(sd_prioritize_san), "x509/name: ignore the CN when a dNSName exists" },
	{ "streamDriver.TlsVerifyDepth", PARAM_INT, "0", 0, MOFF(sd_verify_depth), "max certificate chain depth (0 = gnutls default)" },
	{ "streamDriver.cafile", PARAM_STRING, NULL, 0, MOFF(sd_cafile), "CA certificates (PEM)" },
	{ "streamDriver.keyfile", PARAM_STRING, NULL, 0, MOFF(sd_keyfile), "own key (PEM)" },
	{ "streamDriver.certfile", PARAM_STRING, NULL, 0, MOFF(sd_certfile), "own certificate (PEM)" },
	{ "permittedPeer", PARAM_ARRAY, NULL, 0, MOFF(permitted_peer), "peers allowed by x509/name or x509/fingerprint" },
	{ "gnutlsPriorityString", PARAM_STRING, NULL, 0, MOFF(gnutls_prio), "gnutls priority string" },
	{ "preserveCase", PARAM_BINARY, "on", 0, MOFF(preserve_case), "keep the case of fromhost" },
	{ "workerThreads", PARAM_INT, "1", 0, MOFF(worker_threads), "epoll threads per input (post-2302 rsyslog)" },
	/* legacy $Directives (runtime/legacy.c) */
	{ "inputtcpmaxsessions", PARAM_INT, NULL, PARAM_LEGACY, MOFF(max_sessions), "$InputTCPMaxSessions" },
	{ "inputtcpmaxlisteners", PARAM_INT, NULL, PARAM_LEGACY, MOFF(max_listeners), "$InputTCPMaxListeners" },
	{ "inputtcpflowcontrol", PARAM_BINARY, NULL, PARAM_LEGACY, MOFF(flow_control), "$InputTCPFlowControl" },
	{ "inputtcpserverdisablelfdelimiter", PARAM_BINARY, NULL, PARAM_LEGACY, MOFF(disable_lf), "$InputTCPServerDisableLFDelimiter" },
	{ "inputtcpserveraddtlframedelimiter", PARAM_INT, NULL, PARAM_LEGACY, MOFF(addtl_delim), "$InputTCPServerAddtlFrameDelimiter" },
	{ "inputtcpservernotifyonconnectionclose", PARAM_BINARY, NULL, PARAM_LEGACY, MOFF(notify_close), "$InputTCPServerNotifyOnConnectionClose" },
	{ "inputtcpserverkeepalive", PARAM_BINARY, NULL, PARAM_LEGACY, MOFF(keepalive), "$InputTCPServerKeepAlive" },
	{ "inputtcpserverstreamdrivermode", PARAM_INT, NULL, PARAM_LEGACY, MOFF(sd_mode), "$InputTCPServerStreamDriverMode" },
	{ "inputtcpserverstreamdriverauthmode", PARAM_STRING, NULL, PARAM_LEGACY, MOFF(sd_authmode), "$InputTCPServerStreamDriverAuthMode" },
	{ "inputtcpserverstreamdriverpermittedpeer", PARAM_ARRAY, NULL, PARAM_LEGACY, MOFF(permitted_peer), "$InputTCPServerStreamDriverPermittedPeer" },
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
	struct param_array permitted_peer;
	int64_t worker_threads;
	int64_t hs_timeout;
};

#define IOFF(f) offsetof(struct imtcp_inst_cfg, f)
static const struct param_desc imtcp_inst_params[] = {
	{ "port", PARAM_STRING, NULL, PARAM_REQUIRED, IOFF(port), "port (or service) to listen on" },
	{ "address", PARAM_STRING, NULL, 0, IOFF(address), "local address to bind (default: all)" },
	{ "name", PARAM_STRING, NULL, 0, IOFF(name), "value of $inputname (default imtcp)" },
	{ "ruleset", PARAM_RULESET, NULL, 0, IOFF(ruleset), "ruleset to bind to" },
	{ "maxSessions", PARAM_INT, "200", 0, IOFF(max_sessions), "max concurrent sessions" },
	{ "maxListeners", PARAM_INT, "20", 0, IOFF(max_listeners), "listen sockets of this input (one per address the port resolves to)" },
	{ "flowControl", PARAM_BINARY, "on", 0, IOFF(flow_control), "block senders while the queue is nearly full" },
	{ "disableLFDelimiter", PARAM_BINARY, "off", 0, IOFF(disable_lf), "LF does not end a frame" },
	{ "discardTruncatedMsg", PARAM_BINARY, "off", 0, IOFF(discard_truncated), "drop the rest of an oversize frame" },
	{ "notifyOnConnectionClose", PARAM_BINARY, "off", 0, IOFF(notify_close), "internal message when a peer closes its session" },
	{ "notifyOnConnectionOpen", PARAM_BINARY, "off", 0, IOFF(notify_open), "internal message for each new session" },
	{ "handshakeTimeout", PARAM_INT, "10", 0, IOFF(hs_timeout), "sluice extension (not in rsyslog): seconds a TLS handshake may take" },
	{ "addtlFrameDelimiter", PARAM_INT, "-1", 0, IOFF(addtl_delim), "extra frame delimiter (byte value)" },
	{ "maxFrameSize", PARAM_INT, "200000", 0, IOFF(max_frame_size), "largest octet count accepted" },
	{ "preserveCase", PARAM_BINARY, "on", 0, IOFF(preserve_case), "keep the case of fromhost" },
	{ "listenPortFileName", PARAM_STRING, NULL, 0, IOFF(listen_port_file), "write the bound port here" },
	{ "defaultTZ", PARAM_STRING, NULL, 0, IOFF(default_tz), "offset (+hh:mm) for RFC3164 timestamps" },
	{ "streamDriver.mode", PARAM_INT, "0", 0, IOFF(sd_mode), "0 = plain TCP, 1 = TLS" },
	{ "streamDriver.authMode", PARAM_STRING, NULL, 0, IOFF(sd_authmode), "anon, x509/certvalid, x509/name or x509/fingerprint" },
	{ "streamDriver.permitExpiredCerts", PARAM_STRING, NULL, 0, IOFF(sd_permit_expired), "on, off (default) or warn" },
	{ "streamDriver.name", PARAM_STRING, NULL, 0, IOFF(sd_name), "gtls or ptcp (default: global defaultNetstreamDriver)" },
	{ "streamDriver.CheckExtendedKeyPurpose", PARAM_BINARY, "off", 0, IOFF(sd_check_eku), "peer certificate must be for TLS client use" },
	{ "streamDriver.PrioritizeSAN", PARAM_BINARY, "off", 0, IOFF(sd_prioritize_san), "x509/name: ignore the CN when a dNSName exists" },
	{ "streamDriver.TlsVerifyDepth", PARAM_INT, "0", 0, IOFF(sd_verify_depth), "max certificate chain depth (0 = gnutls default)" },
	{ "streamDriver.cafile", PARAM_STRING, NULL, 0, IOFF(sd_cafile), "CA certificates (PEM; default: global defaultNetstreamDriverCAFile)" },
	{ "streamDriver.keyfile", PARAM_STRING, NULL, 0, IOFF(sd_keyfile), "own key (PEM; default: global defaultNetstreamDriverKeyFile)" },
	{ "streamDriver.certfile", PARAM_STRING, NULL, 0, IOFF(sd_certfile), "own certificate (PEM; default: global defaultNetstreamDriverCertFile)" },
	{ "permittedPeer", PARAM_ARRAY, NULL, 0, IOFF(permitted_peer), "peers allowed by x509/name or x509/fingerprint" },
	{ "workerThreads", PARAM_INT, "1", 0, IOFF(worker_threads), "epoll threads sharing the listener (post-2302 rsyslog)" },
	{ "gnutlsPriorityString", PARAM_STRING, NULL, 0, IOFF(gnutls_prio), "gnutls priority string" },
	{ "keepAlive", PARAM_BINARY, "off", 0, IOFF(keepalive), "enable TCP keep-alive" },
	{ "keepAlive.probes", PARAM_INT, "0", 0, IOFF(ka_probes), "keep-alive probes" },
	{ "keepAlive.time", PARAM_INT, "0", 0, IOFF(ka_time), "keep-alive idle time" },
	{ "keepAlive.interval", PARAM_INT, "0", 0, IOFF(ka_intvl), "keep-alive interval" },
	{ "supportOctetCountedFraming", PARAM_BINARY, "on", 0, IOFF(supp_octet), "frames starting with a digit are octet-counted" },
	{ "rateLimit.interval", PARAM_INT, "0", 0, IOFF(rl_interval), "rate-limit interval in seconds (0 = off), per input" },
	{ "rateLimit.burst", PARAM_INT, "10000", 0, IOFF(rl_burst), "messages per interval" },
	{ "framingfix.cisco.asa", PARAM_BINARY, "off", 0, IOFF(framingfix_asa), "ignore a SP before a frame" },
	/* legacy $Directives (runtime/legacy.c); ...ServerRun creates an input */
	{ "inputtcpserverrun", PARAM_STRING, NULL, PARAM_LEGACY | PARAM_LEGACY_RUN, IOFF(port), "$InputTCPServerRun" },
	{ "inputtcpserverbindruleset", PARAM_RULESET, NULL, PARAM_LEGACY, IOFF(ruleset), "$InputTCPServerBindRuleset" },
	{ "inputtcpserverinputname", PARAM_STRING, NULL, PARAM_LEGACY, IOFF(name), "$InputTCPServerInputName" },
	{ "inputtcpserversupportoctetcountedframing", PARAM_BINARY, NULL, PARAM_LEGACY, IOFF(supp_octet), "$InputTCPServerSupportOctetCountedFraming" },
};
static const struct param_table imtcp_inst_table = PARAM_TABLE(imtcp_inst_params, struct imtcp_inst_cfg);

/* ---- runtime ---- */

enum ev_kind { EV_LISTENER, EV_WAKE, EV_SESSION };

/* First member of everything registered with epoll. */
struct ev_src {
	enum ev_kind kind;
	int fd;
};

struct imtcp_worker;

struct imtcp_session {
	struct ev_src ev;
	struct imtcp_worker *w;
	struct msg_origin *origin;      /* one reference, released on close */
	struct netstrm *ns;             /* TLS only (owns the fd then); NULL for plain TCP */
	bool handshaking;               /* TLS handshake not done yet */
	uint32_t ev_mask;               /* events registered with epoll */
	time_t hs_deadline;
	struct framing_state fr;
	struct framing_sink sink;
	char peer[NET_IP_MAX];
	struct imtcp_session *prev, *next;
};

struct imtcp_stats {
	atomic_uint_fast64_t submitted;
	atomic_uint_fast64_t sessions_opened;
	atomic_uint_fast64_t sessions_closed;
	atomic_uint_fast64_t sessions_refused;     /* maxSessions reached */
	atomic_uint_fast64_t tls_established;
	atomic_uint_fast64_t tls_failed;           /* handshake or authentication refused */
	atomic_uint_fast64_t tls_timeout;          /* handshake not done in time */
	atomic_uint_fast64_t tls_aborted;          /* peer closed during the handshake */
	atomic_uint_fast64_t read_errors;
};

struct imtcp_input {
	struct imtcp_inst_cfg *cfg;
	struct ruleset *ruleset;
	const char *inputname;          /* cfg->name or "imtcp"; owned here */
	char who[96];                   /* "imtcp NAME port P" for log lines */
	enum flow_ctl fc;
	struct framing_cfg fcfg;        /* set at in_start */
	struct framing_stats fstats;
	struct netstrm_ctx *tls;        /* NULL for plain TCP */
	struct ev_src listeners[IMTCP_MAX_LISTENERS];
	int n_listeners;
	struct ev_src wake;             /* eventfd written by in_stop, in every epoll set */
	atomic_bool stopping;
	atomic_int n_sessions;          /* all workers: checked against maxSessions */
	atomic_long last_refusal_log;
	struct imtcp_worker *workers;   /* cfg->worker_threads of them */
	int n_workers;
	struct imtcp_stats stats;
	struct stats_obj *stats_obj;    /* statistics registry entry (stats.h) */
	struct ratelimit rl;            /* rateLimit.*: per input, shared by the workers */
	struct msg_origin tz;           /* only default_tz_*: copied to each session's origin */
};

/* One epoll thread of an input: workers[0] runs on the input's thread
 * (in_run), the others on threads in_run starts. Each has its own epoll
 * set with all listeners (EPOLLEXCLUSIVE: a new connection wakes one
 * worker), and owns the sessions it accepted. */
struct imtcp_worker {
	struct imtcp_input *in;
	int epfd;
	int n_handshaking;
	struct imtcp_session *sessions;
	time_t tls_log_sec;             /* rate limit of TLS failure lines */
	int tls_log_n;
	char *rbuf;                     /* IMTCP_READ_SIZE */
	const struct syslog_time *cur_t; /* reception time of the current read */
	time_t cur_tt;
	struct msg *batch[IMTCP_BATCH];
	int n_batch;
	struct msg_alloc alloc;         /* messages are carved from blocks */
	pthread_t tid;
	bool started;
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

static const struct cfg_pos *param_pos(struct cfg_obj *o, const char *name)
{
	struct cfg_param *p = find_param(o, name);
	return p ? &p->pos : &o->pos;
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
	INHERIT("streamdriver.checkextendedkeypurpose", sd_check_eku, sd_check_eku);
	INHERIT("streamdriver.prioritizesan", sd_prioritize_san, sd_prioritize_san);
	INHERIT("streamdriver.tlsverifydepth", sd_verify_depth, sd_verify_depth);
	INHERIT("workerthreads", worker_threads, worker_threads);
	INHERIT("handshaketimeout", hs_timeout, hs_timeout);
	INHERIT("notifyonconnectionopen", notify_open, notify_open);
#undef INHERIT
#define INHERIT_STR(pname, f) do { \
		if (!find_param(o, pname) && m->f) { free(c->f); c->f = sl_xstrdup(m->f); } \
	} while (0)
	INHERIT_STR("streamdriver.authmode", sd_authmode);
	INHERIT_STR("streamdriver.permitexpiredcerts", sd_permit_expired);
	INHERIT_STR("streamdriver.name", sd_name);
	INHERIT_STR("streamdriver.cafile", sd_cafile);
	INHERIT_STR("streamdriver.keyfile", sd_keyfile);
	INHERIT_STR("streamdriver.certfile", sd_certfile);
	INHERIT_STR("gnutlspriorityString", gnutls_prio);
#undef INHERIT_STR
	if (!find_param(o, "permittedpeer") && m->permitted_peer.n > 0 && c->permitted_peer.n == 0) {
		c->permitted_peer.v = sl_xcalloc((size_t)m->permitted_peer.n, sizeof(char *));
		for (int i = 0; i < m->permitted_peer.n; i++)
			c->permitted_peer.v[i] = sl_xstrdup(m->permitted_peer.v[i]);
		c->permitted_peer.n = m->permitted_peer.n;
	}
}

/* streamDriver.*: make the TLS context (mode 1), or check that plain TCP
 * is what was asked for. Errors are reported at the parameter's line. */
static int setup_stream_driver(struct imtcp_input *in, struct cfg_obj *o)
{
	struct imtcp_inst_cfg *c = in->cfg;
	struct netstrm_cfg nc;
	char err[512];

	memset(&nc, 0, sizeof(nc));
	nc.mode = (int)c->sd_mode;
	nc.driver = c->sd_name ? c->sd_name : glbl.default_netstream_driver;
	if (nc.driver == NULL)
		nc.driver = "ptcp"; /* rsyslog's default driver: no TLS */
	if (!netstrm_auth_parse(c->sd_authmode, &nc.auth)) {
		cfg_error(param_pos(o, "streamdriver.authmode"), "imtcp: invalid streamDriver.authMode "
			  "'%s' (expected anon, x509/certvalid, x509/name or x509/fingerprint)",
			  c->sd_authmode);
		return 1;
	}
	if (!netstrm_expired_parse(c->sd_permit_expired, &nc.permit_expired)) {
		cfg_error(param_pos(o, "streamdriver.permitexpiredcerts"), "imtcp: invalid "
			  "streamDriver.permitExpiredCerts '%s' (expected on, off or warn)",
			  c->sd_permit_expired);
		return 1;
	}
	nc.cafile = c->sd_cafile ? c->sd_cafile : glbl.default_netstream_ca_file;
	nc.certfile = c->sd_certfile ? c->sd_certfile : glbl.default_netstream_cert_file;
	nc.keyfile = c->sd_keyfile ? c->sd_keyfile : glbl.default_netstream_key_file;
	nc.permitted = (const char *const *)c->permitted_peer.v;
	nc.n_permitted = c->permitted_peer.n;
	nc.priority = c->gnutls_prio;
	nc.check_eku = c->sd_check_eku;
	nc.prioritize_san = c->sd_prioritize_san;
	nc.verify_depth = (int)c->sd_verify_depth;
	nc.who = in->who;
	struct netstrm_ctx *ctx = netstrm_ctx_create(&nc, true, err, sizeof(err));
	if (ctx == NULL) {
		const char *pn = find_param(o, "streamdriver.mode") ? "streamdriver.mode"
								    : "streamdriver.name";
		cfg_error(param_pos(o, pn), "imtcp: stream driver: %s", err);
		return 1;
	}
	if (!netstrm_ctx_tls(ctx)) {
		netstrm_ctx_destroy(ctx); /* plain TCP: the fast path needs no context */
		return 0;
	}
	in->tls = ctx;
	return 0;
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

	if (c->max_listeners < 1) { /* rsyslog: error 2207 and the input is dropped */
		cfg_error(param_pos(o, "maxlisteners"), "imtcp: parameter 'maxlisteners' cannot be "
			  "less than one (was %lld)", (long long)c->max_listeners);
		errs++;
	}
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
	if (c->worker_threads < 1 || c->worker_threads > IMTCP_MAX_WORKERS) {
		cfg_error(param_pos(o, "workerthreads"), "imtcp: workerThreads must be 1..%d (is %lld)",
			  IMTCP_MAX_WORKERS, (long long)c->worker_threads);
		errs++;
	}
	if (c->addtl_delim < -1 || c->addtl_delim > 255) {
		cfg_error(param_pos(o, "addtlframedelimiter"), "imtcp: addtlFrameDelimiter must be "
			  "a byte value 0..255 (or -1 for none), is %lld", (long long)c->addtl_delim);
		errs++;
	}
	if (c->hs_timeout < 1) {
		cfg_error(param_pos(o, "handshaketimeout"), "imtcp: handshakeTimeout must be at "
			  "least 1 second (is %lld)", (long long)c->hs_timeout);
		errs++;
	}

	in = sl_xcalloc(1, sizeof(*in));
	in->cfg = c;
	if (c->default_tz && !msg_origin_parse_default_tz(&in->tz, c->default_tz))
		cfg_warn(param_pos(o, "defaulttz"), "imtcp: defaultTZ '%s' is not +hh:mm or -hh:mm; "
			 "ignored", c->default_tz);
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
	ratelimit_init(&in->rl, c->rl_interval, c->rl_burst, true, in->who);
	ratelimit_set_internal(&in->rl, "tcperver"); /* sic: rsyslog's tcpsrv name */
	errs += setup_stream_driver(in, o);
	if (errs) {
		ratelimit_destroy(&in->rl);
		netstrm_ctx_destroy(in->tls);
		*n_errors += errs;
		param_free(&imtcp_inst_table, c);
		free(in);
		return NULL;
	}
	return in;
}

/* ---- sessions ---- */

static void batch_flush(struct imtcp_worker *w)
{
	struct imtcp_input *in = w->in;
	if (w->n_batch == 0)
		return;
	int n = w->n_batch;
	w->n_batch = 0;
	if (in->rl.interval) {
		int ok = ratelimit_take_from(&in->rl, n, w->batch[n - 1]->ttgen,
					     w->batch[0]->origin->fromhost);
		for (int i = ok; i < n; i++)
			msg_release(w->batch[i]);
		if (ok == 0)
			return;
		n = ok;
	}
	atomic_fetch_add_explicit(&in->stats.submitted, (uint_fast64_t)n, memory_order_relaxed);
	/* ownership of the references passes to the core in all cases */
	(void)input_submit(w->batch, n, in->fc);
}

/* framing sink: make a message of one frame and add it to the batch. */
static void sess_emit(void *ctx, const char *p, size_t len)
{
	struct imtcp_session *s = ctx;
	struct imtcp_worker *w = s->w;
	struct imtcp_input *in = w->in;
	struct msg *m = msg_create_a(&w->alloc, p, len, s->origin, w->cur_t, w->cur_tt);
	if (SL_UNLIKELY(m == NULL)) {
		atomic_fetch_add_explicit(&in->fstats.discarded_nomem, 1, memory_order_relaxed);
		return;
	}
	w->batch[w->n_batch++] = m;
	if (w->n_batch == IMTCP_BATCH)
		batch_flush(w);
}

/* The reception time of the messages cut until w->cur_t is reset: `t`
 * belongs to the caller and lives that long. */
static void sess_clock(struct imtcp_worker *w, struct syslog_time *t)
{
	struct timespec now;
	dt_now(t, &now);
	w->cur_t = t;
	w->cur_tt = now.tv_sec;
}

/* Cut one read into frames with one reception time. */
static void sess_feed(struct imtcp_worker *w, struct imtcp_session *s, const char *p, size_t n)
{
	struct syslog_time t;
	sess_clock(w, &t);
	framing_feed(&w->in->fcfg, &s->fr, p, n, &s->sink);
	w->cur_t = NULL;
}

static void sess_close(struct imtcp_worker *w, struct imtcp_session *s)
{
	struct imtcp_input *in = w->in;
	epoll_ctl(w->epfd, EPOLL_CTL_DEL, s->ev.fd, NULL);
	if (s->ns)
		netstrm_close(s->ns); /* closes the fd */
	else
		close(s->ev.fd);
	if (s->handshaking)
		w->n_handshaking--;
	msg_origin_release(s->origin);
	framing_state_free(&s->fr);
	if (s->prev)
		s->prev->next = s->next;
	else
		w->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	atomic_fetch_sub(&in->n_sessions, 1);
	atomic_fetch_add_explicit(&in->stats.sessions_closed, 1, memory_order_relaxed);
	free(s);
}

/* The peer closed (or the read failed): flush what the framer holds. */
static void sess_end(struct imtcp_worker *w, struct imtcp_session *s, ssize_t n)
{
	struct imtcp_input *in = w->in;
	if (n == 0) {
		struct syslog_time t;
		sess_clock(w, &t);
		framing_eof(&in->fcfg, &s->fr, &s->sink);
		w->cur_t = NULL;
		if (in->cfg->notify_close)
			internal_msg(INTMSG_PRI_ERR, 2144, "Netstream session %p closed by remote peer "
				     "%s.  [v8.2302.0 try https://www.rsyslog.com/e/2144 ]", (void *)s,
				     s->peer);
	} else {
		atomic_fetch_add_explicit(&in->stats.read_errors, 1, memory_order_relaxed);
		sl_info("%s: session from %s closed with error: %s", in->who, s->peer,
			s->ns && errno == EIO ? netstrm_error(s->ns) : strerror(errno));
	}
	sess_close(w, s);
}

static void sess_readable_plain(struct imtcp_worker *w, struct imtcp_session *s)
{
	ssize_t n;
	do
		n = recv(s->ev.fd, w->rbuf, IMTCP_READ_SIZE, 0);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		sess_feed(w, s, w->rbuf, (size_t)n);
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	sess_end(w, s, n);
}

/* TLS: frames are cut straight from each decrypted record (no copy out of
 * gnutls), with one reception time for up to IMTCP_READ_SIZE bytes of
 * records; stop when the socket is drained (AGAIN), or after
 * IMTCP_READ_ROUNDS such rounds (the fd stays readable, epoll comes back)
 * — but never leave decrypted bytes inside gnutls, where epoll cannot see
 * them. */
static void sess_readable_tls(struct imtcp_worker *w, struct imtcp_session *s)
{
	struct imtcp_input *in = w->in;
	netstrm_read_budget(s->ns, (size_t)IMTCP_READ_SIZE * IMTCP_READ_ROUNDS);
	for (int round = 0;; round++) {
		size_t got = 0;
		ssize_t n = 1;
		struct syslog_time t;
		sess_clock(w, &t);
		while (got < IMTCP_READ_SIZE) {
			const char *data;
			void *rec;
			n = netstrm_recv_record(s->ns, &data, &rec);
			if (n <= 0)
				break;
			framing_feed(&in->fcfg, &s->fr, data, (size_t)n, &s->sink);
			netstrm_record_free(rec);
			got += (size_t)n;
		}
		w->cur_t = NULL;
		if (n == 0 || (n < 0 && errno != EAGAIN)) {
			sess_end(w, s, n);
			return;
		}
		if (n < 0)
			return; /* drained */
		if (round + 1 >= IMTCP_READ_ROUNDS && !netstrm_pending(s->ns))
			return;
	}
}

/* Rate-limited log line for TLS failures (at most 10 a second). */
static void SL_PRINTF(2, 3) tls_log(struct imtcp_worker *w, const char *fmt, ...)
{
	struct imtcp_input *in = w->in;
	time_t now = time(NULL);
	if (now != w->tls_log_sec) {
		w->tls_log_sec = now;
		w->tls_log_n = 0;
	}
	if (++w->tls_log_n > 10) {
		if (w->tls_log_n == 11)
			sl_err("%s: more TLS failures in this second; only counted", in->who);
		return;
	}
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sl_err("%s", line);
}

static void sess_set_events(struct imtcp_worker *w, struct imtcp_session *s, uint32_t mask)
{
	if (s->ev_mask == mask)
		return;
	struct epoll_event ev = { .events = mask, .data.ptr = &s->ev };
	if (epoll_ctl(w->epfd, EPOLL_CTL_MOD, s->ev.fd, &ev) == 0)
		s->ev_mask = mask;
}

/* One step of a TLS handshake (the fd was ready). */
static void sess_handshake(struct imtcp_worker *w, struct imtcp_session *s)
{
	struct imtcp_input *in = w->in;
	switch (netstrm_handshake(s->ns)) {
	case NETSTRM_AGAIN:
		sess_set_events(w, s, netstrm_want_write(s->ns) ? EPOLLOUT : EPOLLIN);
		return;
	case NETSTRM_OK:
		s->handshaking = false;
		w->n_handshaking--;
		atomic_fetch_add_explicit(&in->stats.tls_established, 1, memory_order_relaxed);
		sl_dbg("%s: TLS session with %s established (%s)", in->who, s->peer,
		       netstrm_peer_id(s->ns));
		sess_set_events(w, s, EPOLLIN);
		/* application data may have come with the last handshake flight */
		sess_readable_tls(w, s);
		return;
	case NETSTRM_EOF:
		atomic_fetch_add_explicit(&in->stats.tls_aborted, 1, memory_order_relaxed);
		sl_dbg("%s: %s: %s", in->who, s->peer, netstrm_error(s->ns));
		sess_close(w, s);
		return;
	case NETSTRM_ERR:
		break;
	}
	atomic_fetch_add_explicit(&in->stats.tls_failed, 1, memory_order_relaxed);
	tls_log(w, "%s: TLS session from peer %s refused: %s", in->who, s->peer,
		netstrm_error(s->ns));
	sess_close(w, s);
}

/* Close the sessions whose TLS handshake did not finish in time. */
static void sweep_handshakes(struct imtcp_worker *w, time_t now)
{
	struct imtcp_input *in = w->in;
	struct imtcp_session *s = w->sessions, *next;
	for (; s && w->n_handshaking > 0; s = next) {
		next = s->next;
		if (!s->handshaking || s->hs_deadline > now)
			continue;
		atomic_fetch_add_explicit(&in->stats.tls_timeout, 1, memory_order_relaxed);
		tls_log(w, "%s: TLS session from peer %s refused: handshake not complete after "
			"%lld s", in->who, s->peer, (long long)in->cfg->hs_timeout);
		sess_close(w, s);
	}
}

static void sess_event(struct imtcp_worker *w, struct imtcp_session *s)
{
	if (s->handshaking)
		sess_handshake(w, s);
	else if (s->ns)
		sess_readable_tls(w, s);
	else
		sess_readable_plain(w, s);
}

static void accept_sessions(struct imtcp_worker *w, int lfd)
{
	struct imtcp_input *in = w->in;
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
		if (atomic_fetch_add(&in->n_sessions, 1) >= in->cfg->max_sessions) {
			atomic_fetch_sub(&in->n_sessions, 1);
			close(fd);
			atomic_fetch_add_explicit(&in->stats.sessions_refused, 1, memory_order_relaxed);
			long now = (long)time(NULL), last = atomic_load(&in->last_refusal_log);
			if (now != last && atomic_compare_exchange_strong(&in->last_refusal_log, &last, now)) {
				sl_err("%s: too many tcp sessions (maxSessions=%lld) - dropping incoming "
				       "request from %s", in->who, (long long)in->cfg->max_sessions, ip);
			}
			continue;
		}
		struct imtcp_session *s = calloc(1, sizeof(*s));
		char host[NI_MAXHOST];
		dns_fromhost((struct sockaddr *)&ss, sl, ip, host, sizeof(host));
		struct msg_origin *o = s ? msg_origin_create(host, ip, in->inputname, in->ruleset) : NULL;
		if (o) {
			o->default_tz_mode = in->tz.default_tz_mode;
			o->default_tz_hour = in->tz.default_tz_hour;
			o->default_tz_minute = in->tz.default_tz_minute;
		}
		char err[256] = "out of memory";
		struct netstrm *ns = NULL;
		if (s && o && in->tls)
			ns = netstrm_accept(in->tls, fd, ip, err, sizeof(err));
		if (!s || !o || (in->tls && !ns)) {
			sl_err("%s: cannot accept session from %s: %s", in->who, ip, err);
			atomic_fetch_sub(&in->n_sessions, 1);
			msg_origin_release(o);
			free(s);
			close(fd);
			continue;
		}
		s->ev.kind = EV_SESSION;
		s->w = w;
		s->ev.fd = fd;
		s->origin = o;
		s->ns = ns;
		snprintf(s->peer, sizeof(s->peer), "%s", ip);
		s->sink.emit = sess_emit;
		s->sink.ctx = s;
		s->sink.who = in->who;
		s->sink.peer = s->peer;
		s->sink.stats = &in->fstats;
		if (in->cfg->keepalive)
			net_set_keepalive(fd, (int)in->cfg->ka_probes, (int)in->cfg->ka_time,
					  (int)in->cfg->ka_intvl);
		s->ev_mask = EPOLLIN;
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &s->ev };
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
			sl_err("%s: epoll_ctl: %s", in->who, strerror(errno));
			atomic_fetch_sub(&in->n_sessions, 1);
			msg_origin_release(o);
			if (ns)
				netstrm_close(ns);
			else
				close(fd);
			free(s);
			continue;
		}
		s->next = w->sessions;
		if (w->sessions)
			w->sessions->prev = s;
		w->sessions = s;
		atomic_fetch_add_explicit(&in->stats.sessions_opened, 1, memory_order_relaxed);
		if (in->cfg->notify_open)
			internal_msg(INTMSG_PRI_INFO, 0, "imtcp: connection established with host: %s "
				     "[v8.2302.0]", ip);
		if (ns) {
			s->handshaking = true;
			s->hs_deadline = time(NULL) + in->cfg->hs_timeout;
			w->n_handshaking++;
			sess_handshake(w, s); /* the ClientHello may be there already */
		}
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

/* The statistics registry (stats.h): rsyslog's object "NAME(PORT)" with
 * "submitted", then sluice's own counters. */
static void imtcp_stats_register(struct imtcp_input *in)
{
	char name[160];
	const unsigned R = STATS_CTR_RESETTABLE;
	snprintf(name, sizeof(name), "%s(%s)", in->inputname, in->cfg->port ? in->cfg->port : "");
	struct stats_obj *o = in->stats_obj = stats_obj_create(name, "imtcp");
	stats_obj_add(o, "submitted", &in->stats.submitted, R);
	stats_obj_add(o, "sessions.opened", &in->stats.sessions_opened, R);
	stats_obj_add(o, "sessions.closed", &in->stats.sessions_closed, R);
	stats_obj_add(o, "sessions.refused", &in->stats.sessions_refused, R);
	stats_obj_add(o, "tls.established", &in->stats.tls_established, R);
	stats_obj_add(o, "tls.failed", &in->stats.tls_failed, R);
	stats_obj_add(o, "tls.timeout", &in->stats.tls_timeout, R);
	stats_obj_add(o, "tls.aborted", &in->stats.tls_aborted, R);
	stats_obj_add(o, "read.errors", &in->stats.read_errors, R);
	stats_obj_add(o, "framing.truncated", &in->fstats.truncated, R);
	stats_obj_add(o, "framing.errors", &in->fstats.framing_errors, R);
	stats_obj_add(o, "discarded.nomem", &in->fstats.discarded_nomem, R);
	stats_obj_add(o, "ratelimit.discarded", &in->rl.discarded, R);
}

/* How many sockets a listen on ADDRESS:PORT would want (getaddrinfo
 * results, as net_listen_tcp sees them); for maxListeners. */
static int count_listen_addrs(const char *address, const char *port)
{
	struct addrinfo hints, *res = NULL;
	int n = 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	if (address && (address[0] == '\0' || strcmp(address, "*") == 0))
		address = NULL;
	if (getaddrinfo(address, port, &hints, &res) != 0)
		return 0;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next)
		n++;
	freeaddrinfo(res);
	return n;
}

static enum sl_rc imtcp_in_start(void *arg)
{
	struct imtcp_input *in = arg;
	int fds[IMTCP_MAX_LISTENERS];
	int backlog = (int)(in->cfg->max_sessions / 10 + 5);

	if (backlog < 64)
		backlog = 64;
	struct imtcp_inst_cfg *c = in->cfg;
	in->fcfg.max_msg = glbl.max_msg_size > 0 ? (size_t)glbl.max_msg_size : 8096;
	in->fcfg.max_frame_size = c->max_frame_size;
	in->fcfg.addtl_delim = c->addtl_delim < 0 ? 256u : (unsigned)c->addtl_delim;
	in->fcfg.octet_counted = c->supp_octet;
	in->fcfg.disable_lf = c->disable_lf;
	in->fcfg.discard_truncated = c->discard_truncated;
	in->fcfg.framingfix_asa = c->framingfix_asa;
	in->fcfg.multiline = false;
	int max_lstn = c->max_listeners < IMTCP_MAX_LISTENERS ? (int)c->max_listeners
							      : IMTCP_MAX_LISTENERS;
	int n = net_listen_tcp(in->cfg->address, in->cfg->port, backlog, fds, max_lstn, in->who);
	if (n < 0)
		return SL_ERR_IO;
	if (n == max_lstn && count_listen_addrs(c->address, c->port) > n) {
		/* as rsyslog 8.2302: the first maxListeners sockets serve, the
		 * other addresses are not bound (error 2080) */
		const char *a = c->address && c->address[0] && strcmp(c->address, "*") != 0
			? c->address : "**UNSPECIFIED**";
		sl_warn("%s: maxListeners=%d reached: could not create tcp listener, ignoring "
			"port %s bind-address %s", in->who, max_lstn, c->port, a);
		internal_msg(INTMSG_PRI_ERR, 2080, "Could not create tcp listener, ignoring port "
			     "%s bind-address %s. [v8.2302.0 try https://www.rsyslog.com/e/2080 ]",
			     c->port, a);
	}
	for (int i = 0; i < n; i++) {
		in->listeners[i].kind = EV_LISTENER;
		in->listeners[i].fd = fds[i];
	}
	in->n_listeners = n;
	in->wake.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (in->wake.fd < 0) {
		sl_err("%s: eventfd: %s", in->who, strerror(errno));
		return SL_ERR_IO;
	}
	in->n_workers = (int)c->worker_threads;
	in->workers = calloc((size_t)in->n_workers, sizeof(*in->workers));
	if (!in->workers)
		return SL_ERR_NOMEM;
	for (int k = 0; k < in->n_workers; k++)
		in->workers[k].epfd = -1;
	for (int k = 0; k < in->n_workers; k++) {
		struct imtcp_worker *w = &in->workers[k];
		w->in = in;
		w->epfd = epoll_create1(EPOLL_CLOEXEC);
		w->rbuf = malloc(IMTCP_READ_SIZE);
		if (w->epfd < 0 || !w->rbuf) {
			sl_err("%s: epoll/malloc: %s", in->who, strerror(errno));
			return SL_ERR_IO;
		}
		/* with several workers each new connection wakes one of them */
		uint32_t lev = EPOLLIN | (in->n_workers > 1 ? EPOLLEXCLUSIVE : 0);
		for (int i = 0; i < n; i++) {
			struct epoll_event ev = { .events = lev, .data.ptr = &in->listeners[i] };
			if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fds[i], &ev) != 0)
				return SL_ERR_IO;
		}
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &in->wake };
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, in->wake.fd, &ev) != 0)
			return SL_ERR_IO;
	}
	write_port_file(in);
	imtcp_stats_register(in);
	return SL_OK;
}

/* The event loop of one worker, until in_stop. */
static void *worker_run(void *arg)
{
	struct imtcp_worker *w = arg;
	struct imtcp_input *in = w->in;
	struct epoll_event evs[IMTCP_EVENTS];

	time_t next_sweep = 0;

	while (!atomic_load(&in->stopping)) {
		/* wake up once a second while TLS handshakes are pending */
		int n = epoll_wait(w->epfd, evs, IMTCP_EVENTS, w->n_handshaking ? 1000 : -1);
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
				accept_sessions(w, src->fd);
				break;
			case EV_WAKE:
				break; /* the loop condition sees `stopping` */
			case EV_SESSION:
				sess_event(w, (struct imtcp_session *)src);
				break;
			}
		}
		if (w->n_handshaking) {
			time_t now = time(NULL);
			if (now >= next_sweep) {
				sweep_handshakes(w, now);
				next_sweep = now + 1;
			}
		}
		/* one submission per round (and whenever the batch filled) */
		batch_flush(w);
	}
	batch_flush(w);
	while (w->sessions)
		sess_close(w, w->sessions);
	msg_alloc_fini(&w->alloc);
	return NULL;
}

/* The input's thread runs worker 0 and starts (and joins) the others. */
static void imtcp_in_run(void *arg)
{
	struct imtcp_input *in = arg;
	for (int k = 1; k < in->n_workers; k++) {
		int rc = pthread_create(&in->workers[k].tid, NULL, worker_run, &in->workers[k]);
		if (rc != 0)
			sl_err("%s: cannot start worker thread %d: %s (continuing with fewer)", in->who,
			       k, strerror(rc));
		else
			in->workers[k].started = true;
	}
	worker_run(&in->workers[0]);
	for (int k = 1; k < in->n_workers; k++)
		if (in->workers[k].started)
			pthread_join(in->workers[k].tid, NULL);
	ratelimit_flush(&in->rl); /* the loss report, while the queues still take it */
}

static void imtcp_in_stop(void *arg)
{
	struct imtcp_input *in = arg;
	uint64_t one = 1;
	atomic_store(&in->stopping, true);
	if (in->wake.fd >= 0 && write(in->wake.fd, &one, sizeof(one)) < 0)
		sl_err("%s: cannot wake the input thread: %s", in->who, strerror(errno));
}

/* At shutdown: the counters of an input that refused or lost something. */
static void log_stats(struct imtcp_input *in)
{
	uint64_t refused = atomic_load(&in->stats.sessions_refused);
	uint64_t tls_failed = atomic_load(&in->stats.tls_failed);
	uint64_t tls_timeout = atomic_load(&in->stats.tls_timeout);
	uint64_t ferr = atomic_load(&in->fstats.framing_errors);
	uint64_t trunc = atomic_load(&in->fstats.truncated);
	uint64_t nomem = atomic_load(&in->fstats.discarded_nomem);
	uint64_t inc = atomic_load(&in->fstats.incomplete_eof);
	uint64_t rerr = atomic_load(&in->stats.read_errors);
	uint64_t rl = atomic_load(&in->rl.discarded);
	if (!(refused | tls_failed | tls_timeout | ferr | trunc | nomem | inc | rerr | rl))
		return;
	sl_info("%s: statistics: submitted=%llu sessions.opened=%llu sessions.closed=%llu "
		"sessions.refused=%llu tls.established=%llu tls.failed=%llu tls.timeout=%llu tls.aborted=%llu "
		"framing.errors=%llu truncated=%llu incomplete.eof=%llu discarded.nomem=%llu "
		"read.errors=%llu ratelimit.discarded=%llu", in->who,
		(unsigned long long)atomic_load(&in->stats.submitted),
		(unsigned long long)atomic_load(&in->stats.sessions_opened),
		(unsigned long long)atomic_load(&in->stats.sessions_closed),
		(unsigned long long)refused,
		(unsigned long long)atomic_load(&in->stats.tls_established),
		(unsigned long long)tls_failed, (unsigned long long)tls_timeout,
		(unsigned long long)atomic_load(&in->stats.tls_aborted),
		(unsigned long long)ferr, (unsigned long long)trunc, (unsigned long long)inc,
		(unsigned long long)nomem, (unsigned long long)rerr, (unsigned long long)rl);
}

static void imtcp_in_destroy(void *arg)
{
	struct imtcp_input *in = arg;
	if (in == NULL)
		return;
	stats_obj_destroy(in->stats_obj);
	for (int k = 0; k < in->n_workers; k++) {
		struct imtcp_worker *w = &in->workers[k];
		while (w->sessions) /* only if in_run never ran */
			sess_close(w, w->sessions);
		if (w->epfd >= 0)
			close(w->epfd);
		free(w->rbuf);
	}
	free(in->workers);
	log_stats(in);
	for (int i = 0; i < in->n_listeners; i++)
		close(in->listeners[i].fd);
	if (in->wake.fd >= 0)
		close(in->wake.fd);
	ratelimit_destroy(&in->rl);
	netstrm_ctx_destroy(in->tls);
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
	.description = "syslog over TCP and TLS (LF and octet-counted framing)",
	.type = MOD_INPUT,
	.mod_params = &imtcp_mod_table,
	.inst_params = &imtcp_inst_table,
	.mod_init = imtcp_mod_init,
	.mod_exit = imtcp_mod_exit,
	.input = &imtcp_input_ops,
};
