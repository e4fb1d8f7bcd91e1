/* omfwd.c — syslog forwarding over UDP and TCP (rsyslog's omfwd, 8.2302
 * parameters): traditional (LF) and octet-counted framing, per-message
 * ("single") and stream zlib compression, rebindInterval, keep-alive,
 * udp.sendToAll, and a target array with fail-over (the first target that
 * accepts a connection is used; after a failure the list is tried again
 * from the top, so the primary is preferred once it is back).
 *
 * Bytes on the wire are what rsyslog's omfwd sends: the rendered template
 * (default RSYSLOG_TraditionalForwardFormat), truncated to maxMessageSize,
 * optionally replaced by 'z' + zlib(message) when that is shorter (messages
 * over 60 bytes, compression.mode="single"), then framed: traditional
 * framing appends the delimiter (LF) unless the message already ends with
 * it, octet-counted framing prepends "LEN ".
 *
 * Delivery (TCP): at-least-once as far as a TCP sender can tell. Framed
 * messages of a transaction are kept in the worker (`pend`) until they have
 * been handed to the kernel; a send that fails in the middle of a batch
 * keeps every message that was not completely written, suspends the action
 * (ACT_SUSPENDED), and sends them again, from the first one not completely
 * written, after the connection is back. Since bytes the kernel accepted
 * can still be lost when the peer goes away (they sit in socket buffers),
 * the worker also keeps the last `resendWindow` bytes it sent (whole
 * messages) and repeats them first after a connection loss: messages near
 * a connection loss may arrive twice, none that were accepted is lost
 * unless more than the window was in flight. UDP is fire-and-forget.
 *
 * TLS (StreamDriver="gtls" / StreamDriverMode="1") goes through the
 * netstream layer (runtime/netstrm.h) with rsyslog's auth modes (anon,
 * x509/certvalid, x509/name, x509/fingerprint).
 *
 * Threading: one struct fwd_wrk per worker thread of the action, used only
 * by that thread (tx_*, try_resume); each worker has its own connection, as
 * rsyslog's omfwd. The action instance is read-only after act_create.
 */
#include "sluice.h"
#include "module.h"
#include "msg.h"
#include "log.h"
#include "ast.h"
#include "sbuf.h"
#include "glbl.h"
#include "net.h"
#include "netstrm.h"
#include "stats.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

extern atomic_bool sl_shutdown_requested;

/* ---- configuration ---- */

struct fwd_cfg {
	struct param_array target;
	char *address, *device, *port, *protocol, *netns;
	char *tcp_framing;
	int64_t frame_delim;
	int64_t zip_level;
	char *compression_mode;
	bool strm_flush_on_tx_end;
	int64_t ipfreebind;
	int64_t max_err_msgs;
	int64_t rebind_interval;
	bool keepalive;
	int64_t ka_probes, ka_time, ka_intvl;
	char *gnutls_prio;
	char *strm_driver;
	int64_t strm_mode;
	char *strm_authmode;
	struct param_array strm_peers;
	char *strm_cafile, *strm_keyfile, *strm_certfile;
	bool resend_last;
	bool udp_send_to_all;
	int64_t udp_send_delay;
	int64_t udp_sendbuf;
	char *tpl;
	int64_t resend_window;
	int64_t conn_timeout;
};

#define AOFF(f) offsetof(struct fwd_cfg, f)
static const struct param_desc fwd_params[] = {
	{ "target", PARAM_ARRAY, NULL, 0, AOFF(target), "host(s) to send to; an array is a fail-over list" },
	{ "address", PARAM_WORD, NULL, 0, AOFF(address), "local address to bind to" },
	{ "device", PARAM_WORD, NULL, 0, AOFF(device), "network device to bind to" },
	{ "port", PARAM_WORD, "514", 0, AOFF(port), "remote port" },
	{ "protocol", PARAM_WORD, "udp", 0, AOFF(protocol), "udp or tcp" },
	{ "networkNamespace", PARAM_WORD, NULL, 0, AOFF(netns), "not supported" },
	{ "TCP_Framing", PARAM_WORD, "traditional", 0, AOFF(tcp_framing), "traditional or octet-counted" },
	{ "TCP_FrameDelimiter", PARAM_INT, "10", 0, AOFF(frame_delim), "delimiter of traditional framing" },
	{ "ZipLevel", PARAM_INT, "9", 0, AOFF(zip_level), "zlib level for compression" },
	{ "compression.mode", PARAM_WORD, "none", 0, AOFF(compression_mode), "none, single or stream:always" },
	{ "compression.stream.flushOnTXEnd", PARAM_BINARY, "on", 0, AOFF(strm_flush_on_tx_end), "sync-flush the zlib stream at each transaction end" },
	{ "ipfreebind", PARAM_INT, "2", 0, AOFF(ipfreebind), "accepted" },
	{ "maxErrorMessages", PARAM_INT, "5", PARAM_DEPRECATED, AOFF(max_err_msgs), "accepted" },
	{ "RebindInterval", PARAM_INT, "0", 0, AOFF(rebind_interval), "reconnect after this many messages (0 = never)" },
	{ "KeepAlive", PARAM_BINARY, "off", 0, AOFF(keepalive), "TCP keep-alive" },
	{ "KeepAlive.Probes", PARAM_INT, "0", 0, AOFF(ka_probes), "keep-alive probes (0 = OS default)" },
	{ "KeepAlive.Time", PARAM_INT, "0", 0, AOFF(ka_time), "keep-alive idle time (0 = OS default)" },
	{ "KeepAlive.Interval", PARAM_INT, "0", 0, AOFF(ka_intvl), "keep-alive interval (0 = OS default)" },
	{ "gnutlsPriorityString", PARAM_STRING, NULL, 0, AOFF(gnutls_prio), "TLS priority string" },
	{ "StreamDriver", PARAM_WORD, NULL, 0, AOFF(strm_driver), "ptcp (plain) or gtls" },
	{ "StreamDriverMode", PARAM_INT, "0", 0, AOFF(strm_mode), "1 = TLS" },
	{ "StreamDriverAuthMode", PARAM_WORD, NULL, 0, AOFF(strm_authmode), "anon, x509/certvalid, x509/name, x509/fingerprint" },
	{ "StreamDriverPermittedPeers", PARAM_ARRAY, NULL, 0, AOFF(strm_peers), "permitted peer names or fingerprints" },
	{ "StreamDriver.CAFile", PARAM_STRING, NULL, 0, AOFF(strm_cafile), "CA certificate file" },
	{ "StreamDriver.KeyFile", PARAM_STRING, NULL, 0, AOFF(strm_keyfile), "own key file" },
	{ "StreamDriver.CertFile", PARAM_STRING, NULL, 0, AOFF(strm_certfile), "own certificate file" },
	{ "ResendLastMSGOnReconnect", PARAM_BINARY, "off", 0, AOFF(resend_last), "accepted; sluice always resends what was not written, see resendWindow" },
	{ "udp.sendToAll", PARAM_BINARY, "off", 0, AOFF(udp_send_to_all), "send to every address the target resolves to" },
	{ "udp.sendDelay", PARAM_INT, "0", 0, AOFF(udp_send_delay), "microseconds to wait after each UDP send" },
	{ "udp.sendbuf", PARAM_SIZE, "0", 0, AOFF(udp_sendbuf), "SO_SNDBUF of UDP sockets (0 = OS default)" },
	{ "template", PARAM_TEMPLATE, NULL, 0, AOFF(tpl), "template (default RSYSLOG_TraditionalForwardFormat)" },
	{ "resendWindow", PARAM_SIZE, "256k", 0, AOFF(resend_window), "sluice: bytes of sent messages repeated after a TCP connection loss (0 = none)" },
	{ "connectTimeout", PARAM_INT, "10", 0, AOFF(conn_timeout), "sluice: seconds a TCP connect may take" },
	/* legacy $Directives (per action, as rsyslog) */
	{ "actionsendtcprebindinterval", PARAM_INT, NULL, PARAM_LEGACY, AOFF(rebind_interval), "$ActionSendTCPRebindInterval" },
	{ "actionsendudprebindinterval", PARAM_INT, NULL, PARAM_LEGACY, AOFF(rebind_interval), "$ActionSendUDPRebindInterval" },
	{ "actionsendstreamdriver", PARAM_WORD, NULL, PARAM_LEGACY, AOFF(strm_driver), "$ActionSendStreamDriver" },
	{ "actionsendstreamdrivermode", PARAM_INT, NULL, PARAM_LEGACY, AOFF(strm_mode), "$ActionSendStreamDriverMode" },
	{ "actionsendstreamdriverauthmode", PARAM_WORD, NULL, PARAM_LEGACY, AOFF(strm_authmode), "$ActionSendStreamDriverAuthMode" },
	{ "actionsendstreamdriverpermittedpeer", PARAM_ARRAY, NULL, PARAM_LEGACY, AOFF(strm_peers), "$ActionSendStreamDriverPermittedPeer" },
	{ "actionsendresendlastmsgonreconnect", PARAM_BINARY, NULL, PARAM_LEGACY, AOFF(resend_last), "$ActionSendResendLastMsgOnReconnect" },
};
static const struct param_table fwd_table = PARAM_TABLE(fwd_params, struct fwd_cfg);

struct fwd_mod_cfg {
	char *tpl;
};
static const struct param_desc fwd_mod_params[] = {
	{ "template", PARAM_TEMPLATE, NULL, 0, offsetof(struct fwd_mod_cfg, tpl), "default template of omfwd actions" },
};
static const struct param_table fwd_mod_table = PARAM_TABLE(fwd_mod_params, struct fwd_mod_cfg);

enum fwd_comp { COMP_NONE, COMP_SINGLE, COMP_STREAM };

#define MIN_SIZE_FOR_COMPRESS 60   /* as rsyslog: smaller messages are sent as they are */
#define UDP_MAX_MSGSIZE 65507
#define SEND_CHUNK (16 * 1024)     /* rsyslog's send buffer size */
#define PEND_MAX (64 * 1024 * 1024) /* held while the destination is down */

struct fwd_act {
	struct fwd_cfg *cfg;
	bool tcp;
	bool octet;
	char delim;
	enum fwd_comp comp;
	const char *label;            /* first target, for logs */
	struct netstrm_ctx *tls;      /* StreamDriverMode 1: TLS credentials */
	atomic_llong last_err_log;
	/* statistics (runtime/stats.h): rsyslog's "TCP-TARGET-PORT" /
	 * "UDP-TARGET-PORT" object, origin omfwd; added once per flush
	 * (TCP) or per datagram (UDP, a syscall each anyway) */
	atomic_uint_fast64_t bytes_sent;  /* bytes written to the socket */
	atomic_uint_fast64_t msgs_sent;   /* messages completely written */
	atomic_uint_fast64_t conn_lost;   /* connections lost (send error, peer closed) */
	atomic_uint_fast64_t resent;      /* messages of the window sent again after a loss */
	struct stats_obj *stats_obj;
};

struct fwd_wrk {
	struct fwd_act *a;
	int fd;                       /* TCP connection or UDP socket; -1 = none */
	struct netstrm *ns;           /* TLS: the stream owning fd */
	int cur;                      /* target index connected to */
	struct addrinfo *udp_ai;      /* UDP: resolved target */
	struct sbuf pend;             /* framed messages not yet written */
	struct sbuf bounds;           /* uint32 end offsets of the messages in pend */
	struct sbuf hist;             /* recently written framed messages */
	struct sbuf hbounds;          /* uint32 end offsets of the messages in hist */
	struct sbuf scratch;          /* compression / framing */
	z_stream zs;                  /* compression.mode stream */
	bool zinit;
	bool lost;                    /* connection lost: resend hist window */
	bool commit_failed;           /* last tx_commit returned ACT_SUSPENDED */
	uint64_t n_since_bind;
	uint64_t dropped;
};

/* ---- errors ---- */

static void SL_PRINTF(2, 3) log_err_limited(struct fwd_act *a, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	long long now = (long long)time(NULL);
	if (atomic_exchange(&a->last_err_log, now) == now)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sl_err("%s", line);
}

/* ---- module ---- */

static void *fwd_mod_init(void *mod_cfg, int *n_errors)
{
	(void)n_errors;
	return mod_cfg;
}

static void fwd_mod_exit(void *mod)
{
	param_free(&fwd_mod_table, mod);
}

static const struct cfg_pos *pos_of(struct cfg_obj *o, const char *name)
{
	for (struct cfg_param *p = o->params; p; p = p->next)
		if (strcasecmp(p->name, name) == 0)
			return &p->pos;
	return &o->pos;
}

static void *fwd_act_create(void *cfgp, struct cfg_obj *o, int *n_errors)
{
	struct fwd_cfg *c = cfgp;
	int errs = 0;
	if (!c)
		return NULL;
	struct fwd_act *a = sl_xcalloc(1, sizeof(*a));
	a->cfg = c;
	if (c->target.n == 0 || !c->target.v[0] || !*c->target.v[0]) {
		cfg_error(&o->pos, "omfwd: parameter 'target' required but not specified");
		errs++;
	} else {
		a->label = c->target.v[0];
	}
	if (!strcasecmp(c->protocol, "tcp"))
		a->tcp = true;
	else if (strcasecmp(c->protocol, "udp")) {
		cfg_error(pos_of(o, "protocol"), "omfwd: protocol '%s' is invalid; use \"udp\" or \"tcp\"",
			  c->protocol);
		errs++;
	}
	if (!strcasecmp(c->tcp_framing, "octet-counted"))
		a->octet = true;
	else if (strcasecmp(c->tcp_framing, "traditional")) {
		cfg_error(pos_of(o, "tcp_framing"), "omfwd: TCP_Framing '%s' is invalid; use "
			  "\"traditional\" or \"octet-counted\"", c->tcp_framing);
		errs++;
	}
	if (c->frame_delim < 0 || c->frame_delim > 255) {
		cfg_error(pos_of(o, "tcp_framedelimiter"), "omfwd: TCP_FrameDelimiter must be 0..255");
		errs++;
	}
	a->delim = (char)c->frame_delim;
	if (!strcasecmp(c->compression_mode, "none"))
		a->comp = COMP_NONE;
	else if (!strcasecmp(c->compression_mode, "single"))
		a->comp = COMP_SINGLE;
	else if (!strcasecmp(c->compression_mode, "stream:always"))
		a->comp = COMP_STREAM;
	else {
		cfg_error(pos_of(o, "compression.mode"), "omfwd: compression.mode '%s' is invalid; "
			  "use \"none\", \"single\" or \"stream:always\"", c->compression_mode);
		errs++;
	}
	if (c->zip_level < 0 || c->zip_level > 9) {
		cfg_error(pos_of(o, "ziplevel"), "omfwd: ZipLevel must be 0..9");
		errs++;
	}
	/* as rsyslog: a ZipLevel without compression.mode means per-message
	 * compression (the pre-7.3.11 behaviour, and legacy @(z9)host) */
	if (a->comp == COMP_NONE && pos_of(o, "ziplevel") != &o->pos &&
	    pos_of(o, "compression.mode") == &o->pos)
		a->comp = COMP_SINGLE;
	if (c->zip_level == 0)
		a->comp = COMP_NONE;
	if (a->comp == COMP_STREAM && !a->tcp) {
		cfg_error(pos_of(o, "compression.mode"), "omfwd: stream compression needs protocol=\"tcp\"");
		errs++;
	}
	bool gtls = c->strm_driver && !strcasecmp(c->strm_driver, "gtls");
	if (c->strm_driver && !gtls && strcasecmp(c->strm_driver, "ptcp")) {
		cfg_error(pos_of(o, "streamdriver"), "omfwd: StreamDriver '%s' is not known; use "
			  "\"ptcp\" or \"gtls\"", c->strm_driver);
		errs++;
	} else if (c->strm_mode == 1 || (gtls && c->strm_mode != 0)) {
		struct netstrm_cfg nc = { .mode = 1, .driver = "gtls" };
		char err[512];
		if (!a->tcp) {
			cfg_error(pos_of(o, "streamdrivermode"), "omfwd: TLS needs protocol=\"tcp\"");
			errs++;
		} else if (!netstrm_auth_parse(c->strm_authmode, &nc.auth)) {
			cfg_error(pos_of(o, "streamdriverauthmode"), "omfwd: StreamDriverAuthMode '%s' "
				  "is not known", c->strm_authmode);
			errs++;
		} else {
			nc.cafile = c->strm_cafile ? c->strm_cafile : glbl.default_netstream_ca_file;
			nc.certfile = c->strm_certfile ? c->strm_certfile : glbl.default_netstream_cert_file;
			nc.keyfile = c->strm_keyfile ? c->strm_keyfile : glbl.default_netstream_key_file;
			nc.permitted = (const char *const *)c->strm_peers.v;
			nc.n_permitted = c->strm_peers.n;
			nc.priority = c->gnutls_prio;
			nc.who = a->label ? a->label : "omfwd";
			a->tls = netstrm_ctx_create(&nc, false, err, sizeof(err));
			if (!a->tls) {
				cfg_error(&o->pos, "omfwd: TLS setup failed: %s", err);
				errs++;
			}
		}
	} else if (c->strm_mode != 0) {
		cfg_error(pos_of(o, "streamdrivermode"), "omfwd: StreamDriverMode must be 0 or 1");
		errs++;
	}
	if (c->netns) {
		cfg_error(pos_of(o, "networknamespace"), "omfwd: networkNamespace is not supported");
		errs++;
	}
	if (c->rebind_interval < 0 || c->resend_window < 0 || c->conn_timeout < 1) {
		cfg_error(&o->pos, "omfwd: rebindInterval and resendWindow must be >= 0, "
			  "connectTimeout >= 1");
		errs++;
	}
	if (errs) {
		*n_errors += errs;
		netstrm_ctx_destroy(a->tls);
		param_free(&fwd_table, c);
		free(a);
		return NULL;
	}
	char sname[512];
	snprintf(sname, sizeof(sname), "%s-%s-%s", a->tcp ? "TCP" : "UDP", a->label,
		 c->port ? c->port : "514");
	if ((a->stats_obj = stats_obj_create(sname, "omfwd")) != NULL) {
		const unsigned R = STATS_CTR_RESETTABLE;
		stats_obj_add(a->stats_obj, "bytes.sent", &a->bytes_sent, R);
		stats_obj_add(a->stats_obj, "sent", &a->msgs_sent, R);
		stats_obj_add(a->stats_obj, "connections.lost", &a->conn_lost, R);
		stats_obj_add(a->stats_obj, "resent", &a->resent, R);
	}
	return a;
}

static enum sl_rc fwd_act_start(void *act)
{
	(void)act; /* connections are made by the workers, on first use */
	return SL_OK;
}

static void fwd_act_destroy(void *act)
{
	struct fwd_act *a = act;
	if (!a)
		return;
	stats_obj_destroy(a->stats_obj);
	netstrm_ctx_destroy(a->tls);
	param_free(&fwd_table, a->cfg);
	free(a);
}

/* ---- connections ---- */

static void conn_close(struct fwd_wrk *w)
{
	if (w->ns)
		netstrm_close(w->ns); /* closes fd */
	else if (w->fd >= 0)
		close(w->fd);
	w->ns = NULL;
	w->fd = -1;
	if (w->zinit) {
		deflateEnd(&w->zs);
		w->zinit = false;
	}
	if (w->udp_ai) {
		freeaddrinfo(w->udp_ai);
		w->udp_ai = NULL;
	}
}

static int bind_local(struct fwd_act *a, int fd, int family)
{
	if (a->cfg->device) {
#ifdef SO_BINDTODEVICE
		if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, a->cfg->device,
			       (socklen_t)strlen(a->cfg->device)) != 0)
			return -1;
#endif
	}
	if (a->cfg->address) {
		struct addrinfo hints = { .ai_family = family, .ai_flags = AI_PASSIVE | AI_NUMERICHOST };
		struct addrinfo *res = NULL;
		if (getaddrinfo(a->cfg->address, NULL, &hints, &res) != 0 || !res)
			return -1;
		int rc = bind(fd, res->ai_addr, res->ai_addrlen);
		freeaddrinfo(res);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* Connect to target `t` (TCP), with a bounded wait. Returns the fd or -1. */
static int tcp_connect(struct fwd_act *a, const char *t)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	int err = getaddrinfo(t, a->cfg->port, &hints, &res);
	if (err != 0) {
		log_err_limited(a, "omfwd: cannot resolve '%s' port '%s': %s", t, a->cfg->port,
				gai_strerror(err));
		return -1;
	}
	int fd = -1;
	int last_errno = 0;
	for (struct addrinfo *r = res; r; r = r->ai_next) {
		fd = socket(r->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			continue;
		if (bind_local(a, fd, r->ai_family) != 0) {
			last_errno = errno;
			close(fd);
			fd = -1;
			continue;
		}
		if (connect(fd, r->ai_addr, r->ai_addrlen) == 0)
			break;
		if (errno == EINPROGRESS) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };
			int soerr = 0;
			socklen_t sl = sizeof(soerr);
			if (poll(&p, 1, (int)a->cfg->conn_timeout * 1000) == 1 &&
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0)
				break;
			last_errno = soerr ? soerr : ETIMEDOUT;
		} else {
			last_errno = errno;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		log_err_limited(a, "omfwd: cannot connect to %s:%s: %s", t, a->cfg->port,
				strerror(last_errno));
		return -1;
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (a->cfg->keepalive)
		net_set_keepalive(fd, (int)a->cfg->ka_probes, (int)a->cfg->ka_time,
				  (int)a->cfg->ka_intvl);
	return fd;
}

static int udp_open(struct fwd_wrk *w, const char *t)
{
	struct fwd_act *a = w->a;
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM };
	int err = getaddrinfo(t, a->cfg->port, &hints, &w->udp_ai);
	if (err != 0) {
		w->udp_ai = NULL;
		log_err_limited(a, "omfwd: cannot resolve '%s' port '%s': %s", t, a->cfg->port,
				gai_strerror(err));
		return -1;
	}
	/* One socket per family is enough: make it for the first address and
	 * reopen per family below if the list mixes families. */
	int fd = socket(w->udp_ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind_local(a, fd, w->udp_ai->ai_family) != 0) {
		log_err_limited(a, "omfwd: cannot create UDP socket for %s: %s", t, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(w->udp_ai);
		w->udp_ai = NULL;
		return -1;
	}
	if (a->cfg->udp_sendbuf > 0) {
		int sz = (int)a->cfg->udp_sendbuf;
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	}
	return fd;
}

/* Make sure there is a connection: try the targets in order. */
static bool ensure_conn(struct fwd_wrk *w)
{
	struct fwd_act *a = w->a;
	if (w->fd >= 0)
		return true;
	for (int i = 0; i < a->cfg->target.n; i++) {
		const char *t = a->cfg->target.v[i];
		if (a->tls) {
			char err[512];
			w->ns = netstrm_connect(a->tls, t, a->cfg->port, (int)a->cfg->conn_timeout * 1000,
						err, sizeof(err));
			if (!w->ns) {
				log_err_limited(a, "omfwd: TLS connection to %s:%s failed: %s", t,
						a->cfg->port, err);
				continue;
			}
			w->fd = netstrm_fd(w->ns);
			if (a->cfg->keepalive)
				net_set_keepalive(w->fd, (int)a->cfg->ka_probes, (int)a->cfg->ka_time,
						  (int)a->cfg->ka_intvl);
		} else {
			w->fd = a->tcp ? tcp_connect(a, t) : udp_open(w, t);
		}
		if (w->fd >= 0) {
			if (i != w->cur)
				sl_info("omfwd: %s: now sending to %s:%s (target %d of %d)", a->label,
					t, a->cfg->port, i + 1, a->cfg->target.n);
			w->cur = i;
			w->n_since_bind = 0;
			return true;
		}
	}
	return false;
}

/* Write all of buf to the TCP connection (polling while the peer is slow,
 * giving up when the daemon stops and the peer does not move for 5 s).
 * Returns the number of bytes written; *ok false on error. */
static size_t send_raw(struct fwd_wrk *w, const char *buf, size_t len, bool *ok)
{
	size_t done = 0;
	int stuck = 0;
	*ok = true;
	if (w->ns) {
		/* TLS: all or nothing (on failure what reached the peer is
		 * unknown; it is all sent again: at-least-once) */
		if (len && netstrm_send_all(w->ns, buf, len) != 0) {
			log_err_limited(w->a, "omfwd: TLS send to %s failed: %s",
					w->a->cfg->target.v[w->cur], netstrm_error(w->ns));
			errno = EIO;
			*ok = false;
			return 0;
		}
		atomic_fetch_add_explicit(&w->a->bytes_sent, len, memory_order_relaxed);
		return len;
	}
	while (done < len) {
		ssize_t n = send(w->fd, buf + done, len - done, MSG_NOSIGNAL);
		if (n > 0) {
			done += (size_t)n;
			atomic_fetch_add_explicit(&w->a->bytes_sent, (uint64_t)n, memory_order_relaxed);
			stuck = 0;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd p = { .fd = w->fd, .events = POLLOUT };
			int pr = poll(&p, 1, 1000);
			if (pr == 0 && atomic_load(&sl_shutdown_requested) && ++stuck >= 5) {
				errno = ETIMEDOUT;
				*ok = false;
				return done;
			}
			continue;
		}
		*ok = false;
		return done;
	}
	return done;
}

/* Is the connection still there? A peer that closed it (FIN) or reset it
 * is noticed before more data is written into it (rsyslog's
 * CheckConnection does the same). */
static bool conn_alive(struct fwd_wrk *w)
{
	char c;
	ssize_t n = recv(w->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n == 0)
		return false;
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		return false;
	return true;
}

/* Send bytes through the stream compressor if configured. */
static size_t send_bytes(struct fwd_wrk *w, const char *buf, size_t len, bool flush, bool *ok)
{
	struct fwd_act *a = w->a;
	if (a->comp != COMP_STREAM)
		return send_raw(w, buf, len, ok);
	if (!w->zinit) {
		memset(&w->zs, 0, sizeof(w->zs));
		if (deflateInit(&w->zs, (int)a->cfg->zip_level) != Z_OK) {
			*ok = false;
			return 0;
		}
		w->zinit = true;
	}
	unsigned char out[32 * 1024];
	w->zs.next_in = (Bytef *)buf;
	w->zs.avail_in = (uInt)len;
	int op = flush && a->cfg->strm_flush_on_tx_end ? Z_SYNC_FLUSH : Z_NO_FLUSH;
	*ok = true;
	do {
		w->zs.next_out = out;
		w->zs.avail_out = sizeof(out);
		deflate(&w->zs, op);
		size_t have = sizeof(out) - w->zs.avail_out;
		if (have && send_raw(w, (char *)out, have, ok) != have)
			return 0; /* the stream is broken: nothing of buf counts as sent */
	} while (w->zs.avail_out == 0);
	return len;
}

/* ---- pending messages ---- */

static inline uint32_t bound_at(const struct sbuf *b, int i)
{
	uint32_t v;
	memcpy(&v, b->buf + (size_t)i * sizeof(v), sizeof(v));
	return v;
}

static inline int n_bounds(const struct sbuf *b)
{
	return (int)(b->len / sizeof(uint32_t));
}

/* Remember [buf, buf+len) (whole messages ending at `ends`) as sent, and
 * keep only the last resendWindow bytes of history. */
static void hist_add(struct fwd_wrk *w, const char *buf, const struct sbuf *ends, int from, int to)
{
	size_t win = (size_t)w->a->cfg->resend_window;
	if (win == 0 || to <= from)
		return;
	for (int i = from; i < to; i++) {
		uint32_t s = i == 0 ? 0 : bound_at(ends, i - 1);
		uint32_t e = bound_at(ends, i);
		if (!sbuf_append(&w->hist, buf + s, e - s))
			return;
		uint32_t he = (uint32_t)w->hist.len;
		sbuf_append(&w->hbounds, (const char *)&he, sizeof(he));
	}
	if (w->hist.len > win + win / 4) {
		/* drop whole messages from the front until at most win remain */
		int n = n_bounds(&w->hbounds), k = 0;
		while (k < n && w->hist.len - bound_at(&w->hbounds, k) > win)
			k++;
		uint32_t cut = k < n ? bound_at(&w->hbounds, k) : (uint32_t)w->hist.len;
		if (k < n && w->hist.len - cut > win)
			k++;
		cut = k == 0 ? 0 : bound_at(&w->hbounds, k - 1);
		memmove(w->hist.buf, w->hist.buf + cut, w->hist.len - cut);
		w->hist.len -= cut;
		memmove(w->hbounds.buf, w->hbounds.buf + (size_t)k * sizeof(uint32_t),
			w->hbounds.len - (size_t)k * sizeof(uint32_t));
		w->hbounds.len -= (size_t)k * sizeof(uint32_t);
		for (int i = 0; i < n_bounds(&w->hbounds); i++) {
			uint32_t v = bound_at(&w->hbounds, i) - cut;
			memcpy(w->hbounds.buf + (size_t)i * sizeof(v), &v, sizeof(v));
		}
	}
}

/* After a connection loss: put the history window in front of pend, so it
 * is sent again first. */
static void hist_requeue(struct fwd_wrk *w)
{
	if (w->hist.len == 0)
		return;
	atomic_fetch_add_explicit(&w->a->resent, (uint64_t)n_bounds(&w->hbounds),
				  memory_order_relaxed);
	size_t hl = w->hist.len;
	if (!sbuf_grow(&w->pend, hl) || !sbuf_grow(&w->bounds, w->hbounds.len))
		return;
	memmove(w->pend.buf + hl, w->pend.buf, w->pend.len);
	memcpy(w->pend.buf, w->hist.buf, hl);
	w->pend.len += hl;
	int nb = n_bounds(&w->bounds), nh = n_bounds(&w->hbounds);
	memmove(w->bounds.buf + w->hbounds.len, w->bounds.buf, w->bounds.len);
	memcpy(w->bounds.buf, w->hbounds.buf, w->hbounds.len);
	w->bounds.len += w->hbounds.len;
	for (int i = nh; i < nh + nb; i++) {
		uint32_t v = bound_at(&w->bounds, i) + (uint32_t)hl;
		memcpy(w->bounds.buf + (size_t)i * sizeof(v), &v, sizeof(v));
	}
	sbuf_reset(&w->hist);
	sbuf_reset(&w->hbounds);
}

/* The connection failed: close it; what pend holds stays for the resend. */
static void conn_lost(struct fwd_wrk *w, const char *why, int err)
{
	log_err_limited(w->a, "omfwd: connection to %s:%s lost (%s: %s); action suspended, "
			"unsent messages are kept and sent again", w->a->cfg->target.v[w->cur],
			w->a->cfg->port, why, strerror(err));
	atomic_fetch_add_explicit(&w->a->conn_lost, 1, memory_order_relaxed);
	conn_close(w);
	w->lost = true;
}

/* Write pend to the connection. Messages completely written leave pend
 * (into the history window); on error the rest stays. Returns false on
 * error (the connection is then closed). */
static bool flush_pend(struct fwd_wrk *w, bool txend)
{
	if (w->pend.len == 0 && !(txend && w->zinit))
		return true;
	if (!ensure_conn(w))
		return false;
	if (w->lost) {
		/* freshly reconnected after a loss: the window goes first */
		w->lost = false;
		hist_requeue(w);
	}
	if (!conn_alive(w)) {
		conn_lost(w, "peer closed the connection", ECONNRESET);
		return false;
	}
	bool ok;
	size_t done = send_bytes(w, w->pend.buf, w->pend.len, txend, &ok);
	int nb = n_bounds(&w->bounds), k = 0;
	while (k < nb && bound_at(&w->bounds, k) <= done)
		k++;
	if (!ok) {
		int e = errno;
		atomic_fetch_add_explicit(&w->a->msgs_sent, (uint64_t)k, memory_order_relaxed);
		hist_add(w, w->pend.buf, &w->bounds, 0, k);
		/* keep messages k.. (the first one not completely written) */
		uint32_t cut = k == 0 ? 0 : bound_at(&w->bounds, k - 1);
		memmove(w->pend.buf, w->pend.buf + cut, w->pend.len - cut);
		w->pend.len -= cut;
		memmove(w->bounds.buf, w->bounds.buf + (size_t)k * 4, w->bounds.len - (size_t)k * 4);
		w->bounds.len -= (size_t)k * 4;
		for (int i = 0; i < n_bounds(&w->bounds); i++) {
			uint32_t v = bound_at(&w->bounds, i) - cut;
			memcpy(w->bounds.buf + (size_t)i * 4, &v, 4);
		}
		conn_lost(w, "send failed", e);
		return false;
	}
	atomic_fetch_add_explicit(&w->a->msgs_sent, (uint64_t)nb, memory_order_relaxed);
	hist_add(w, w->pend.buf, &w->bounds, 0, nb);
	sbuf_reset(&w->pend);
	sbuf_reset(&w->bounds);
	return true;
}

/* ---- workers and transactions ---- */

static void *fwd_wrk_create(void *act)
{
	struct fwd_wrk *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->a = act;
	w->fd = -1;
	return w;
}

static void fwd_wrk_destroy(void *wrk)
{
	struct fwd_wrk *w = wrk;
	if (!w)
		return;
	if (w->a->tcp && w->fd >= 0 && w->pend.len)
		flush_pend(w, true);
	if (w->pend.len)
		sl_warn("omfwd: %s: %zu bytes of messages could not be sent before shutdown",
			w->a->label, w->pend.len);
	if (w->zinit && w->fd >= 0) {
		/* finish the zlib stream so the receiver sees its end */
		unsigned char out[1024];
		bool ok = true;
		w->zs.avail_in = 0;
		int zr;
		do {
			w->zs.next_out = out;
			w->zs.avail_out = sizeof(out);
			zr = deflate(&w->zs, Z_FINISH);
			send_raw(w, (char *)out, sizeof(out) - w->zs.avail_out, &ok);
		} while (ok && zr == Z_OK);
	}
	conn_close(w);
	sbuf_free(&w->pend);
	sbuf_free(&w->bounds);
	sbuf_free(&w->hist);
	sbuf_free(&w->hbounds);
	sbuf_free(&w->scratch);
	free(w);
}

static enum sl_rc fwd_tx_begin(void *wrk)
{
	struct fwd_wrk *w = wrk;
	if (w->commit_failed) {
		/* the core gave up on the transaction whose commit failed (it
		 * wrote its messages to action.errorFile, or hands them back to
		 * the queue at shutdown): they are no longer ours to send */
		w->commit_failed = false;
		sbuf_reset(&w->pend);
		sbuf_reset(&w->bounds);
	}
	if (w->pend.len > PEND_MAX) {
		w->dropped++;
		log_err_limited(w->a, "omfwd: %s: %zu bytes held for a destination that is down; "
				"discarding them", w->a->label, w->pend.len);
		sbuf_reset(&w->pend);
		sbuf_reset(&w->bounds);
	}
	return SL_OK;
}

/* Compress (single mode) if it pays, as rsyslog does. Returns the bytes to
 * frame (maybe w->scratch). */
static const char *maybe_compress(struct fwd_wrk *w, const char *msg, size_t *len)
{
	struct fwd_act *a = w->a;
	if (a->comp != COMP_SINGLE || *len <= MIN_SIZE_FOR_COMPRESS)
		return msg;
	uLongf dl = compressBound((uLong)*len);
	sbuf_reset(&w->scratch);
	if (!sbuf_grow(&w->scratch, dl + 1))
		return msg;
	w->scratch.buf[0] = 'z';
	if (compress2((Bytef *)w->scratch.buf + 1, &dl, (const Bytef *)msg, (uLong)*len,
		      (int)a->cfg->zip_level) != Z_OK || dl + 1 >= *len)
		return msg;
	*len = dl + 1;
	return w->scratch.buf;
}

static enum act_result udp_send(struct fwd_wrk *w, const char *msg, size_t len)
{
	struct fwd_act *a = w->a;
	if (a->cfg->rebind_interval && w->n_since_bind >= (uint64_t)a->cfg->rebind_interval)
		conn_close(w);
	if (!ensure_conn(w))
		return ACT_SUSPENDED;
	w->n_since_bind++;
	if (len > UDP_MAX_MSGSIZE)
		len = UDP_MAX_MSGSIZE;
	bool sent = false;
	int err = 0;
	for (struct addrinfo *r = w->udp_ai; r; r = r->ai_next) {
		size_t l = len;
		for (;;) {
			ssize_t n = sendto(w->fd, msg, l, 0, r->ai_addr, r->ai_addrlen);
			if (n == (ssize_t)l) {
				sent = true;
				atomic_fetch_add_explicit(&a->bytes_sent, l, memory_order_relaxed);
				break;
			}
			if (n < 0 && errno == EMSGSIZE && l > 512) {
				l = l > 1024 ? l - 1024 : 512;
				continue;
			}
			err = errno;
			break;
		}
		if (sent && !a->cfg->udp_send_to_all)
			break;
	}
	if (!sent) {
		log_err_limited(a, "omfwd: %s:%s: error sending via udp: %s", a->cfg->target.v[w->cur],
				a->cfg->port, strerror(err));
		conn_close(w);
		return ACT_SUSPENDED;
	}
	atomic_fetch_add_explicit(&a->msgs_sent, 1, memory_order_relaxed);
	if (a->cfg->udp_send_delay > 0) {
		struct timespec ts = { a->cfg->udp_send_delay / 1000000,
				       (a->cfg->udp_send_delay % 1000000) * 1000 };
		nanosleep(&ts, NULL);
	}
	return ACT_OK;
}

static enum act_result fwd_tx_add(void *wrk, struct msg *m, const char *rendered, size_t len)
{
	struct fwd_wrk *w = wrk;
	struct fwd_act *a = w->a;
	(void)m;
	if (glbl.max_msg_size > 0 && len > (size_t)glbl.max_msg_size)
		len = (size_t)glbl.max_msg_size;
	const char *p = maybe_compress(w, rendered, &len);
	if (!a->tcp)
		return udp_send(w, p, len);

	if (a->cfg->rebind_interval && w->n_since_bind >= (uint64_t)a->cfg->rebind_interval &&
	    w->fd >= 0) {
		if (!flush_pend(w, true))
			return ACT_SUSPENDED;
		conn_close(w); /* clean close: nothing to resend */
		sbuf_reset(&w->hist);
		sbuf_reset(&w->hbounds);
	}
	size_t mark = w->pend.len, bmark = w->bounds.len;
	bool ok = true;
	if (a->octet || *p == 'z') {
		char hdr[24];
		int hl = snprintf(hdr, sizeof(hdr), "%zu ", len);
		ok = sbuf_append(&w->pend, hdr, (size_t)hl) && sbuf_append(&w->pend, p, len);
	} else {
		ok = sbuf_append(&w->pend, p, len);
		if (ok && (len == 0 || p[len - 1] != a->delim))
			ok = sbuf_putc(&w->pend, a->delim);
	}
	uint32_t end = (uint32_t)w->pend.len;
	if (!ok || !sbuf_append(&w->bounds, (const char *)&end, sizeof(end))) {
		w->pend.len = mark;
		w->bounds.len = bmark;
		return ACT_SUSPENDED;
	}
	w->n_since_bind++;
	if (w->pend.len >= SEND_CHUNK) {
		if (!flush_pend(w, false)) {
			/* this message is handed to us again after the resume:
			 * take it out; earlier ones stay pending */
			int nb = n_bounds(&w->bounds);
			if (nb > 0) {
				uint32_t prev = nb >= 2 ? bound_at(&w->bounds, nb - 2) : 0;
				w->pend.len = prev;
				w->bounds.len -= sizeof(uint32_t);
			}
			return ACT_SUSPENDED;
		}
	}
	return ACT_DEFERRED;
}

static enum act_result fwd_tx_commit(void *wrk)
{
	struct fwd_wrk *w = wrk;
	if (!w->a->tcp)
		return ACT_OK;
	w->commit_failed = !flush_pend(w, true);
	return w->commit_failed ? ACT_SUSPENDED : ACT_OK;
}

static enum sl_rc fwd_try_resume(void *wrk)
{
	struct fwd_wrk *w = wrk;
	return ensure_conn(w) ? SL_OK : SL_ERR_SUSPENDED;
}

static const struct output_ops fwd_output_ops = {
	.act_create = fwd_act_create,
	.act_start = fwd_act_start,
	.act_destroy = fwd_act_destroy,
	.wrk_create = fwd_wrk_create,
	.wrk_destroy = fwd_wrk_destroy,
	.tx_begin = fwd_tx_begin,
	.tx_add = fwd_tx_add,
	.tx_commit = fwd_tx_commit,
	.try_resume = fwd_try_resume,
	.default_template = "RSYSLOG_TraditionalForwardFormat",
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "omfwd",
	.description = "forward syslog messages over UDP or TCP",
	.type = MOD_OUTPUT,
	.mod_params = &fwd_mod_table,
	.inst_params = &fwd_table,
	.mod_init = fwd_mod_init,
	.mod_exit = fwd_mod_exit,
	.output = &fwd_output_ops,
};
