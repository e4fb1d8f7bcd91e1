/* netstrm_gtls.c — plain TCP and gnutls TLS streams for imtcp (server,
 * non-blocking) and omfwd (client, blocking); the contract is in
 * netstrm.h.
 *
 * Threading: a netstrm_ctx is immutable after netstrm_ctx_create() and
 * shared by all threads using it (gnutls credentials and priority caches
 * are safe to share read-only); a netstrm belongs to one thread at a time.
 * No locks here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sluice.h"
#include "netstrm.h"
#include "log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_GNUTLS
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#endif

#define NETSTRM_ERR_MAX 768
#define NETSTRM_ID_MAX 384

struct netstrm_ctx {
	bool tls;
	bool server;
	enum netstrm_auth auth;
	enum netstrm_expired permit_expired;
	bool check_eku;
	bool prioritize_san;
	char **permitted;
	int n_permitted;
	char *who;
#ifdef HAVE_GNUTLS
	gnutls_certificate_credentials_t xcred; /* NULL if no certificate setup */
	bool have_own_cert;
	gnutls_anon_server_credentials_t anon_srv;
	gnutls_anon_client_credentials_t anon_cli;
	gnutls_priority_t prio;
#endif
};

struct netstrm {
	struct netstrm_ctx *ctx;
	int fd;
	bool done;              /* handshake complete and peer authenticated */
	bool want_write;
	char peer[64];
	char *host;             /* client: the name connected to (x509/name default) */
	char err[NETSTRM_ERR_MAX];
	char id[NETSTRM_ID_MAX];
#ifdef HAVE_GNUTLS
	gnutls_session_t sess;
	/* server side: bytes read from the socket that gnutls has not taken
	 * yet (see "Reading ahead" below); rb is NULL while there are none */
	char *rb;
	size_t rb_off, rb_len;
	size_t budget;          /* socket bytes this turn may still read */
#endif
};

static void SL_PRINTF(3, 4) set_err(char *err, size_t errlen, const char *fmt, ...)
{
	if (err == NULL || errlen == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

bool netstrm_auth_parse(const char *s, enum netstrm_auth *out)
{
	if (s == NULL || strcasecmp(s, "anon") == 0)
		*out = NETSTRM_AUTH_ANON;
	else if (strcasecmp(s, "x509/certvalid") == 0)
		*out = NETSTRM_AUTH_CERTVALID;
	else if (strcasecmp(s, "x509/name") == 0)
		*out = NETSTRM_AUTH_NAME;
	else if (strcasecmp(s, "x509/fingerprint") == 0)
		*out = NETSTRM_AUTH_FINGERPRINT;
	else
		return false;
	return true;
}

bool netstrm_expired_parse(const char *s, enum netstrm_expired *out)
{
	if (s == NULL || strcasecmp(s, "off") == 0)
		*out = NETSTRM_EXPIRED_DENY;
	else if (strcasecmp(s, "on") == 0)
		*out = NETSTRM_EXPIRED_PERMIT;
	else if (strcasecmp(s, "warn") == 0)
		*out = NETSTRM_EXPIRED_WARN;
	else
		return false;
	return true;
}

bool netstrm_is_fingerprint(const char *s)
{
	return strncasecmp(s, "SHA1:", 5) == 0 || strncasecmp(s, "SHA256:", 7) == 0;
}

bool netstrm_ctx_tls(const struct netstrm_ctx *ctx)
{
	return ctx && ctx->tls;
}

void netstrm_ctx_destroy(struct netstrm_ctx *ctx)
{
	if (ctx == NULL)
		return;
#ifdef HAVE_GNUTLS
	if (ctx->prio)
		gnutls_priority_deinit(ctx->prio);
	if (ctx->xcred)
		gnutls_certificate_free_credentials(ctx->xcred);
	if (ctx->anon_srv)
		gnutls_anon_free_server_credentials(ctx->anon_srv);
	if (ctx->anon_cli)
		gnutls_anon_free_client_credentials(ctx->anon_cli);
#endif
	for (int i = 0; i < ctx->n_permitted; i++)
		free(ctx->permitted[i]);
	free(ctx->permitted);
	free(ctx->who);
	free(ctx);
}

#ifdef HAVE_GNUTLS
static bool file_readable(const char *path, char *err, size_t errlen, const char *what)
{
	if (access(path, R_OK) == 0)
		return true;
	set_err(err, errlen, "cannot read %s '%s': %s", what, path, strerror(errno));
	return false;
}

static bool tls_ctx_setup(struct netstrm_ctx *ctx, const struct netstrm_cfg *cfg,
			  char *err, size_t errlen)
{
	int r;
	bool x509 = cfg->auth != NETSTRM_AUTH_ANON;

	if ((r = gnutls_certificate_allocate_credentials(&ctx->xcred)) < 0)
		goto gnutls_fail;
	if (cfg->cafile && *cfg->cafile) {
		if (!file_readable(cfg->cafile, err, errlen, "CA file"))
			return false;
		r = gnutls_certificate_set_x509_trust_file(ctx->xcred, cfg->cafile,
							   GNUTLS_X509_FMT_PEM);
		if (r < 0) {
			set_err(err, errlen, "CA file '%s': %s", cfg->cafile, gnutls_strerror(r));
			return false;
		}
		if (r == 0) {
			set_err(err, errlen, "CA file '%s' holds no certificate", cfg->cafile);
			return false;
		}
	} else if (cfg->auth == NETSTRM_AUTH_CERTVALID || cfg->auth == NETSTRM_AUTH_NAME) {
		set_err(err, errlen, "authMode %s needs a CA file (streamDriver.cafile or "
			"global(defaultNetstreamDriverCAFile))",
			cfg->auth == NETSTRM_AUTH_NAME ? "x509/name" : "x509/certvalid");
		return false;
	}
	bool have_cert = cfg->certfile && *cfg->certfile;
	bool have_key = cfg->keyfile && *cfg->keyfile;
	if (have_cert != have_key) {
		set_err(err, errlen, "a certificate file needs a key file and vice versa "
			"(certfile=%s keyfile=%s)", have_cert ? cfg->certfile : "(none)",
			have_key ? cfg->keyfile : "(none)");
		return false;
	}
	if (have_cert) {
		if (!file_readable(cfg->certfile, err, errlen, "certificate file") ||
		    !file_readable(cfg->keyfile, err, errlen, "key file"))
			return false;
		r = gnutls_certificate_set_x509_key_file(ctx->xcred, cfg->certfile, cfg->keyfile,
							 GNUTLS_X509_FMT_PEM);
		if (r < 0) {
			set_err(err, errlen, "certificate '%s' / key '%s': %s", cfg->certfile,
				cfg->keyfile, gnutls_strerror(r));
			return false;
		}
		ctx->have_own_cert = true;
	} else if (ctx->server && x509) {
		set_err(err, errlen, "authMode x509/* needs the server's certificate and key "
			"(streamDriver.certfile/keyfile or global(defaultNetstreamDriverCertFile/"
			"KeyFile))");
		return false;
	}
	if (cfg->verify_depth > 0)
		gnutls_certificate_set_verify_limits(ctx->xcred, 16384, (unsigned)cfg->verify_depth);
	if (ctx->server) {
		gnutls_certificate_set_known_dh_params(ctx->xcred, GNUTLS_SEC_PARAM_MEDIUM);
		if (cfg->auth == NETSTRM_AUTH_ANON) {
			if ((r = gnutls_anon_allocate_server_credentials(&ctx->anon_srv)) < 0)
				goto gnutls_fail;
			gnutls_anon_set_server_known_dh_params(ctx->anon_srv, GNUTLS_SEC_PARAM_MEDIUM);
		}
	} else if (cfg->auth == NETSTRM_AUTH_ANON) {
		if ((r = gnutls_anon_allocate_client_credentials(&ctx->anon_cli)) < 0)
			goto gnutls_fail;
	}
	const char *prio = cfg->priority;
	if (prio == NULL || *prio == '\0')
		prio = cfg->auth == NETSTRM_AUTH_ANON ? "NORMAL:+ANON-ECDH:+ANON-DH" : "NORMAL";
	const char *errpos = NULL;
	if ((r = gnutls_priority_init(&ctx->prio, prio, &errpos)) < 0) {
		set_err(err, errlen, "gnutlsPriorityString '%s': %s (at '%s')", prio,
			gnutls_strerror(r), errpos ? errpos : "?");
		return false;
	}
	return true;
gnutls_fail:
	set_err(err, errlen, "gnutls: %s", gnutls_strerror(r));
	return false;
}
#endif

struct netstrm_ctx *netstrm_ctx_create(const struct netstrm_cfg *cfg, bool server,
				       char *err, size_t errlen)
{
	struct netstrm_ctx *ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		set_err(err, errlen, "out of memory");
		return NULL;
	}
	ctx->server = server;
	ctx->auth = cfg->auth;
	ctx->permit_expired = cfg->permit_expired;
	ctx->check_eku = cfg->check_eku;
	ctx->prioritize_san = cfg->prioritize_san;
	ctx->who = strdup(cfg->who ? cfg->who : "netstrm");
	if (ctx->who == NULL)
		goto nomem;
	if (cfg->driver && *cfg->driver && strcasecmp(cfg->driver, "gtls") != 0 &&
	    strcasecmp(cfg->driver, "ptcp") != 0) {
		set_err(err, errlen, "streamDriver.name '%s' is not supported (use \"gtls\" or "
			"\"ptcp\")", cfg->driver);
		goto fail;
	}
	if (cfg->mode != 0 && cfg->mode != 1) {
		set_err(err, errlen, "streamDriver.mode %d is invalid (0 = plain, 1 = TLS)", cfg->mode);
		goto fail;
	}
	if (cfg->mode == 1 && cfg->driver && strcasecmp(cfg->driver, "ptcp") == 0) {
		set_err(err, errlen, "streamDriver.mode 1 (TLS) is not supported by the ptcp "
			"driver: set streamDriver.name=\"gtls\" or "
			"global(defaultNetstreamDriver=\"gtls\")");
		goto fail;
	}
	if (cfg->n_permitted > 0) {
		ctx->permitted = calloc((size_t)cfg->n_permitted, sizeof(char *));
		if (ctx->permitted == NULL)
			goto nomem;
		for (int i = 0; i < cfg->n_permitted; i++) {
			ctx->permitted[i] = strdup(cfg->permitted[i]);
			if (ctx->permitted[i] == NULL)
				goto nomem;
			ctx->n_permitted++;
		}
	}
	if (cfg->auth == NETSTRM_AUTH_FINGERPRINT) {
		if (ctx->n_permitted == 0) {
			set_err(err, errlen, "authMode x509/fingerprint needs permittedPeer entries "
				"(\"SHA1:AA:BB:...\" or \"SHA256:AA:...\")");
			goto fail;
		}
		for (int i = 0; i < ctx->n_permitted; i++)
			if (!netstrm_is_fingerprint(ctx->permitted[i])) {
				set_err(err, errlen, "permittedPeer '%s' is not a fingerprint "
					"(\"SHA1:AA:BB:...\" or \"SHA256:AA:...\") as x509/fingerprint "
					"needs", ctx->permitted[i]);
				goto fail;
			}
	}
	if (server && cfg->auth == NETSTRM_AUTH_NAME && ctx->n_permitted == 0) {
		set_err(err, errlen, "authMode x509/name needs at least one permittedPeer");
		goto fail;
	}
	if (cfg->mode == 0)
		return ctx;
#ifdef HAVE_GNUTLS
	ctx->tls = true;
	if (!tls_ctx_setup(ctx, cfg, err, errlen))
		goto fail;
	return ctx;
#else
	set_err(err, errlen, "TLS (streamDriver.mode=1) is not available: sluice was built "
		"without gnutls");
	goto fail;
#endif
nomem:
	set_err(err, errlen, "out of memory");
fail:
	netstrm_ctx_destroy(ctx);
	return NULL;
}

/* ---- peer authentication ---- */

/* One component of a permitted peer against one of a name. */
static bool comp_match(const char *pat, size_t pl, const char *s, size_t sl)
{
	if (pl == 1 && pat[0] == '*')
		return true;
	if (pl > 1 && pat[0] == '*')
		return sl >= pl - 1 && strncasecmp(s + sl - (pl - 1), pat + 1, pl - 1) == 0;
	if (pl > 1 && pat[pl - 1] == '*')
		return sl >= pl - 1 && strncasecmp(s, pat, pl - 1) == 0;
	return pl == sl && strncasecmp(s, pat, pl) == 0;
}

/* rsyslog's permitted-peer wildcard match, component by component. */
static bool peer_name_match(const char *pat, const char *name)
{
	if (strcasecmp(pat, name) == 0)
		return true;
	if (strchr(pat, '*') == NULL)
		return false;
	const char *p = pat, *n = name;
	for (;;) {
		const char *pe = strchr(p, '.'), *ne = strchr(n, '.');
		size_t pl = pe ? (size_t)(pe - p) : strlen(p);
		size_t nl = ne ? (size_t)(ne - n) : strlen(n);
		if (!comp_match(p, pl, n, nl))
			return false;
		if (!pe || !ne)
			return !pe && !ne;
		p = pe + 1;
		n = ne + 1;
	}
}

#ifdef HAVE_GNUTLS
static void id_append(struct netstrm *s, const char *label, const char *v)
{
	size_t l = strlen(s->id);
	snprintf(s->id + l, sizeof(s->id) - l, "%s%s: %s", l ? "; " : "", label, v);
}

static bool name_permitted(struct netstrm *s, const char *name)
{
	struct netstrm_ctx *ctx = s->ctx;
	if (ctx->n_permitted == 0)
		return s->host && peer_name_match(s->host, name);
	for (int i = 0; i < ctx->n_permitted; i++)
		if (peer_name_match(ctx->permitted[i], name))
			return true;
	return false;
}

static bool check_fingerprint(struct netstrm *s, gnutls_x509_crt_t crt)
{
	static const struct { gnutls_digest_algorithm_t alg; const char *label; } algs[] = {
		{ GNUTLS_DIG_SHA1, "SHA1" }, { GNUTLS_DIG_SHA256, "SHA256" },
	};
	bool ok = false;
	for (size_t a = 0; a < SL_ARRAY_SIZE(algs); a++) {
		unsigned char fp[64];
		size_t fl = sizeof(fp);
		if (gnutls_x509_crt_get_fingerprint(crt, algs[a].alg, fp, &fl) < 0)
			continue;
		char txt[8 + 3 * 64];
		size_t o = (size_t)snprintf(txt, sizeof(txt), "%s", algs[a].label);
		for (size_t i = 0; i < fl && o + 4 < sizeof(txt); i++)
			o += (size_t)snprintf(txt + o, sizeof(txt) - o, ":%02X", fp[i]);
		id_append(s, "fingerprint", txt);
		for (int i = 0; i < s->ctx->n_permitted; i++)
			if (strcasecmp(s->ctx->permitted[i], txt) == 0)
				ok = true;
	}
	if (!ok)
		snprintf(s->err, sizeof(s->err), "peer fingerprint not permitted - not permitted "
			 "to talk to it (%s)", s->id);
	return ok;
}

static bool check_name(struct netstrm *s, gnutls_x509_crt_t crt)
{
	bool ok = false, have_san = false;
	for (unsigned i = 0; i < 1024; i++) {
		char san[256];
		size_t sl = sizeof(san) - 1;
		unsigned crit = 0;
		int r = gnutls_x509_crt_get_subject_alt_name2(crt, i, san, &sl, NULL, &crit);
		if (r == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
			break;
		if (r == GNUTLS_E_SHORT_MEMORY_BUFFER)
			continue;
		if (r < 0)
			break;
		if (r != GNUTLS_SAN_DNSNAME)
			continue;
		san[sl < sizeof(san) ? sl : sizeof(san) - 1] = '\0';
		have_san = true;
		id_append(s, "DNSname", san);
		if (!ok && name_permitted(s, san))
			ok = true;
	}
	if (!ok && (!s->ctx->prioritize_san || !have_san)) {
		char cn[256];
		size_t cl = sizeof(cn);
		if (gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, cn, &cl) == 0) {
			id_append(s, "CN", cn);
			if (name_permitted(s, cn))
				ok = true;
		}
	}
	if (!ok)
		snprintf(s->err, sizeof(s->err), "peer name not authorized - not permitted to talk "
			 "to it. Names: %s", s->id[0] ? s->id : "(none)");
	return ok;
}

/* The chain check of x509/certvalid and x509/name. */
static bool check_chain(struct netstrm *s)
{
	struct netstrm_ctx *ctx = s->ctx;
	unsigned status = 0;
	gnutls_typed_vdata_st vd;
	int r;

	if (ctx->check_eku) {
		memset(&vd, 0, sizeof(vd));
		vd.type = GNUTLS_DT_KEY_PURPOSE_OID;
		vd.data = (unsigned char *)(ctx->server ? GNUTLS_KP_TLS_WWW_CLIENT
							: GNUTLS_KP_TLS_WWW_SERVER);
		r = gnutls_certificate_verify_peers(s->sess, &vd, 1, &status);
	} else {
		r = gnutls_certificate_verify_peers2(s->sess, &status);
	}
	if (r < 0) {
		snprintf(s->err, sizeof(s->err), "cannot verify the peer's certificate: %s",
			 gnutls_strerror(r));
		return false;
	}
	if ((status & GNUTLS_CERT_EXPIRED) && ctx->permit_expired != NETSTRM_EXPIRED_DENY &&
	    (status & ~(GNUTLS_CERT_EXPIRED | GNUTLS_CERT_INVALID)) == 0) {
		if (ctx->permit_expired == NETSTRM_EXPIRED_WARN)
			sl_warn("%s: peer %s: the certificate of the peer has expired; accepted "
				"because permitExpiredCerts is \"warn\"", ctx->who, s->peer);
		status = 0;
	}
	if (status != 0) {
		gnutls_datum_t out = { NULL, 0 };
		if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &out, 0) == 0) {
			snprintf(s->err, sizeof(s->err), "certificate validation failed: %s",
				 (const char *)out.data);
			gnutls_free(out.data);
		} else {
			snprintf(s->err, sizeof(s->err), "certificate validation failed (status 0x%x)",
				 status);
		}
		return false;
	}
	return true;
}

static bool authenticate(struct netstrm *s)
{
	struct netstrm_ctx *ctx = s->ctx;
	if (ctx->auth == NETSTRM_AUTH_ANON)
		return true;
	unsigned n = 0;
	const gnutls_datum_t *certs = gnutls_certificate_get_peers(s->sess, &n);
	if (certs == NULL || n == 0) {
		snprintf(s->err, sizeof(s->err), "peer did not provide a certificate (authMode "
			 "needs one)");
		return false;
	}
	gnutls_x509_crt_t crt;
	if (gnutls_x509_crt_init(&crt) < 0) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return false;
	}
	bool ok = false;
	int r = gnutls_x509_crt_import(crt, &certs[0], GNUTLS_X509_FMT_DER);
	if (r < 0) {
		snprintf(s->err, sizeof(s->err), "cannot parse the peer's certificate: %s",
			 gnutls_strerror(r));
	} else if (ctx->auth == NETSTRM_AUTH_FINGERPRINT) {
		ok = check_fingerprint(s, crt);
	} else {
		ok = check_chain(s) && (ctx->auth != NETSTRM_AUTH_NAME || check_name(s, crt));
	}
	gnutls_x509_crt_deinit(crt);
	return ok;
}

/* ---- Reading ahead (server side) ----
 * gnutls asks its transport for each record in two reads, the 5-byte
 * header and then the body (up to 16 KiB): two recv() calls per record.
 * A server session instead reads up to NETSTRM_RB_SIZE bytes at a time
 * into a buffer of its own and serves gnutls from there: one recv() per
 * ~16 records at full speed. The buffer belongs to the session only
 * while it holds unread bytes; once gnutls has taken them all and the
 * next read would block (or the turn's budget is spent) it goes back to
 * its thread's spare slot, so thousands of idle sessions hold no
 * buffers. netstrm_pending() counts these bytes, so a caller that reads
 * until EAGAIN or !pending never leaves data where epoll cannot see it. */
#define NETSTRM_RB_SIZE (256 * 1024)

static pthread_key_t rb_key;
static pthread_once_t rb_once = PTHREAD_ONCE_INIT;

static void rb_key_init(void)
{
	(void)pthread_key_create(&rb_key, free);
}

static char *rb_take(void)
{
	pthread_once(&rb_once, rb_key_init);
	char *b = pthread_getspecific(rb_key);
	if (b) {
		(void)pthread_setspecific(rb_key, NULL);
		return b;
	}
	return malloc(NETSTRM_RB_SIZE);
}

/* The session's buffer is empty: keep it as its thread's spare. */
static void rb_give_back(struct netstrm *s)
{
	char *b = s->rb;
	s->rb = NULL;
	s->rb_off = s->rb_len = 0;
	if (!b)
		return;
	pthread_once(&rb_once, rb_key_init);
	if (pthread_getspecific(rb_key) == NULL && pthread_setspecific(rb_key, b) == 0)
		return;
	free(b);
}

static ssize_t rb_pull(gnutls_transport_ptr_t ptr, void *data, size_t len)
{
	struct netstrm *s = ptr;
	if (s->rb_off == s->rb_len) {
		if (s->budget == 0) {
			rb_give_back(s);
			gnutls_transport_set_errno(s->sess, EAGAIN);
			return -1;
		}
		if (!s->rb && !(s->rb = rb_take())) {
			/* no memory for a buffer: read what gnutls asked for */
			ssize_t n = recv(s->fd, data, len, 0);
			if (n < 0)
				gnutls_transport_set_errno(s->sess, errno);
			return n;
		}
		size_t want = s->budget < NETSTRM_RB_SIZE ? s->budget : NETSTRM_RB_SIZE;
		ssize_t n = recv(s->fd, s->rb, want, 0);
		if (n <= 0) {
			int e = errno;
			rb_give_back(s);
			if (n < 0)
				gnutls_transport_set_errno(s->sess, e);
			return n;
		}
		s->rb_off = 0;
		s->rb_len = (size_t)n;
		if (s->budget != SIZE_MAX)
			s->budget -= (size_t)n;
	}
	size_t n = s->rb_len - s->rb_off;
	if (n > len)
		n = len;
	memcpy(data, s->rb + s->rb_off, n);
	s->rb_off += n;
	return (ssize_t)n;
}

/* gnutls waits through this only in blocking use; bytes in the buffer
 * count as readable. */
static int rb_pull_timeout(gnutls_transport_ptr_t ptr, unsigned ms)
{
	struct netstrm *s = ptr;
	if (s->rb_off < s->rb_len)
		return 1;
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	int r = poll(&p, 1, ms == GNUTLS_INDEFINITE_TIMEOUT ? -1 : (int)ms);
	if (r < 0)
		gnutls_transport_set_errno(s->sess, errno);
	return r;
}

static int tls_session_init(struct netstrm *s, char *err, size_t errlen)
{
	struct netstrm_ctx *ctx = s->ctx;
	unsigned flags = (ctx->server ? GNUTLS_SERVER : GNUTLS_CLIENT) | GNUTLS_NO_SIGNAL;
	int r;
	if (ctx->server)
		flags |= GNUTLS_NONBLOCK;
	if ((r = gnutls_init(&s->sess, flags)) < 0)
		goto fail;
	if ((r = gnutls_priority_set(s->sess, ctx->prio)) < 0)
		goto fail;
	if (ctx->auth == NETSTRM_AUTH_ANON) {
		r = ctx->server ? gnutls_credentials_set(s->sess, GNUTLS_CRD_ANON, ctx->anon_srv)
				: gnutls_credentials_set(s->sess, GNUTLS_CRD_ANON, ctx->anon_cli);
		if (r < 0)
			goto fail;
	}
	if (ctx->auth != NETSTRM_AUTH_ANON || ctx->have_own_cert || !ctx->server) {
		if ((r = gnutls_credentials_set(s->sess, GNUTLS_CRD_CERTIFICATE, ctx->xcred)) < 0)
			goto fail;
	}
	if (ctx->server)
		gnutls_certificate_server_set_request(s->sess, ctx->auth == NETSTRM_AUTH_ANON
							       ? GNUTLS_CERT_IGNORE
							       : GNUTLS_CERT_REQUIRE);
	gnutls_transport_set_int(s->sess, s->fd);
	if (ctx->server) {
		s->budget = SIZE_MAX;
		/* reads through rb_pull, writes straight to the fd as before */
		gnutls_transport_set_ptr2(s->sess, s, (gnutls_transport_ptr_t)(intptr_t)s->fd);
		gnutls_transport_set_pull_function(s->sess, rb_pull);
		gnutls_transport_set_pull_timeout_function(s->sess, rb_pull_timeout);
	}
	return 0;
fail:
	set_err(err, errlen, "gnutls session setup: %s", gnutls_strerror(r));
	return -1;
}

static void handshake_error(struct netstrm *s, int r)
{
	if (r == GNUTLS_E_FATAL_ALERT_RECEIVED || r == GNUTLS_E_WARNING_ALERT_RECEIVED)
		snprintf(s->err, sizeof(s->err), "TLS handshake failed: %s (alert '%s')",
			 gnutls_strerror(r), gnutls_alert_get_name(gnutls_alert_get(s->sess)));
	else
		snprintf(s->err, sizeof(s->err), "TLS handshake failed: %s", gnutls_strerror(r));
}
#endif /* HAVE_GNUTLS */

static struct netstrm *strm_new(struct netstrm_ctx *ctx, int fd, const char *peer)
{
	struct netstrm *s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->ctx = ctx;
	s->fd = fd;
	snprintf(s->peer, sizeof(s->peer), "%s", peer ? peer : "?");
	return s;
}

struct netstrm *netstrm_accept(struct netstrm_ctx *ctx, int fd, const char *peer,
			       char *err, size_t errlen)
{
	struct netstrm *s = strm_new(ctx, fd, peer);
	if (s == NULL) {
		set_err(err, errlen, "out of memory");
		return NULL;
	}
	if (!ctx->tls) {
		s->done = true;
		return s;
	}
#ifdef HAVE_GNUTLS
	if (tls_session_init(s, err, errlen) < 0) {
		if (s->sess)
			gnutls_deinit(s->sess);
		free(s);
		return NULL;
	}
#endif
	return s;
}

enum netstrm_rc netstrm_handshake(struct netstrm *s)
{
	if (s->done)
		return NETSTRM_OK;
#ifdef HAVE_GNUTLS
	for (int tries = 0; tries < 8; tries++) {
		int r = gnutls_handshake(s->sess);
		if (r == 0) {
			if (!authenticate(s))
				return NETSTRM_ERR;
			s->done = true;
			return NETSTRM_OK;
		}
		if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
			s->want_write = gnutls_record_get_direction(s->sess) == 1;
			return NETSTRM_AGAIN;
		}
		if (r == GNUTLS_E_PREMATURE_TERMINATION) {
			snprintf(s->err, sizeof(s->err), "peer closed the connection during the TLS "
				 "handshake");
			return NETSTRM_EOF;
		}
		if (gnutls_error_is_fatal(r)) {
			handshake_error(s, r);
			return NETSTRM_ERR;
		}
		/* a warning alert or the like: go on */
	}
	snprintf(s->err, sizeof(s->err), "TLS handshake failed: too many warnings from peer");
#endif
	return NETSTRM_ERR;
}

bool netstrm_want_write(const struct netstrm *s)
{
	return s->want_write;
}

bool netstrm_handshake_done(const struct netstrm *s)
{
	return s->done;
}

#ifdef HAVE_GNUTLS
/* What a negative gnutls_record_recv* result means for the caller:
 * 1 = read again, else the netstrm_recv_record result (0 = end, -1 +
 * errno). */
static int recv_error(struct netstrm *s, ssize_t r)
{
	if (r == GNUTLS_E_INTERRUPTED)
		return 1;
	if (r == GNUTLS_E_AGAIN) {
		errno = EAGAIN;
		return -1;
	}
	/* most senders just close the socket without a close_notify */
	if (r == GNUTLS_E_PREMATURE_TERMINATION)
		return 0;
	if (!gnutls_error_is_fatal((int)r)) {
		if (r == GNUTLS_E_REHANDSHAKE) {
			snprintf(s->err, sizeof(s->err), "peer asked for renegotiation, "
				 "which is not supported");
			errno = EIO;
			return -1;
		}
		return 1; /* warning alert: read on */
	}
	snprintf(s->err, sizeof(s->err), "TLS receive error: %s", gnutls_strerror((int)r));
	errno = EIO;
	return -1;
}
#endif

ssize_t netstrm_recv_record(struct netstrm *s, const char **data, void **rec)
{
	*rec = NULL;
#ifdef HAVE_GNUTLS
	for (;;) {
		gnutls_packet_t pkt = NULL;
		ssize_t r = gnutls_record_recv_packet(s->sess, &pkt);
		if (r > 0 && pkt) {
			gnutls_datum_t d;
			gnutls_packet_get(pkt, &d, NULL);
			*data = (const char *)d.data;
			*rec = pkt;
			return (ssize_t)d.size;
		}
		if (pkt)
			gnutls_packet_deinit(pkt);
		if (r >= 0)
			return 0;
		int e = recv_error(s, r);
		if (e != 1)
			return e;
	}
#else
	(void)s;
	(void)data;
	errno = EIO;
	return -1;
#endif
}

void netstrm_read_budget(struct netstrm *s, size_t bytes)
{
#ifdef HAVE_GNUTLS
	s->budget = bytes;
#else
	(void)s;
	(void)bytes;
#endif
}

void netstrm_record_free(void *rec)
{
#ifdef HAVE_GNUTLS
	if (rec)
		gnutls_packet_deinit(rec);
#else
	(void)rec;
#endif
}

bool netstrm_pending(const struct netstrm *s)
{
#ifdef HAVE_GNUTLS
	return s->ctx->tls && s->sess &&
	       (s->rb_off < s->rb_len || gnutls_record_check_pending(s->sess) > 0);
#else
	(void)s;
	return false;
#endif
}

/* ---- client side ---- */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int connect_tcp(const char *host, const char *port, int64_t deadline, char *err,
		       size_t errlen, char *peer, size_t peerlen)
{
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int r = getaddrinfo(host, port, &hints, &res);
	if (r != 0) {
		set_err(err, errlen, "cannot resolve %s:%s: %s", host, port, gai_strerror(r));
		return -1;
	}
	int fd = -1, last_errno = 0;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			last_errno = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
			last_errno = errno;
			close(fd);
			fd = -1;
			continue;
		}
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		int left = (int)(deadline - now_ms());
		int pr = left > 0 ? poll(&pfd, 1, left) : 0;
		int soerr = 0;
		socklen_t sl = sizeof(soerr);
		if (pr <= 0) {
			last_errno = pr == 0 ? ETIMEDOUT : errno;
		} else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 || soerr != 0) {
			last_errno = soerr ? soerr : errno;
		} else {
			getnameinfo(ai->ai_addr, ai->ai_addrlen, peer, (socklen_t)peerlen, NULL, 0,
				    NI_NUMERICHOST);
			break;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		set_err(err, errlen, "cannot connect to %s:%s: %s", host, port,
			strerror(last_errno ? last_errno : ECONNREFUSED));
		return -1;
	}
	return fd;
}

struct netstrm *netstrm_connect(struct netstrm_ctx *ctx, const char *host, const char *port,
				int timeout_ms, char *err, size_t errlen)
{
	int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 30000);
	char peer[64] = "?";
	int fd = connect_tcp(host, port, deadline, err, errlen, peer, sizeof(peer));
	if (fd < 0)
		return NULL;
	struct netstrm *s = strm_new(ctx, fd, peer);
	if (s == NULL || (s->host = strdup(host)) == NULL) {
		set_err(err, errlen, "out of memory");
		goto fail;
	}
	if (!ctx->tls) {
		/* blocking from here on */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		s->done = true;
		return s;
	}
#ifdef HAVE_GNUTLS
	if (tls_session_init(s, err, errlen) < 0)
		goto fail;
	/* SNI only for names, not for IP literals */
	unsigned char addr[16];
	if (inet_pton(AF_INET, host, addr) != 1 && inet_pton(AF_INET6, host, addr) != 1)
		gnutls_server_name_set(s->sess, GNUTLS_NAME_DNS, host, strlen(host));
	/* the handshake runs non-blocking with poll() so that the deadline holds */
	for (;;) {
		int r = gnutls_handshake(s->sess);
		if (r == 0)
			break;
		if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
			struct pollfd pfd = { .fd = fd, .events = gnutls_record_get_direction(s->sess)
								      ? POLLOUT : POLLIN };
			int left = (int)(deadline - now_ms());
			if (left <= 0 || poll(&pfd, 1, left) == 0) {
				set_err(err, errlen, "TLS handshake with %s:%s timed out", host, port);
				goto fail;
			}
			continue;
		}
		if (gnutls_error_is_fatal(r)) {
			handshake_error(s, r);
			set_err(err, errlen, "%s:%s: %s", host, port, s->err);
			goto fail;
		}
	}
	if (!authenticate(s)) {
		set_err(err, errlen, "%s:%s: %s", host, port, s->err);
		goto fail;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	s->done = true;
	return s;
#endif
fail:
	if (s)
		netstrm_close(s);
	else
		close(fd);
	return NULL;
}

int netstrm_send_all(struct netstrm *s, const void *buf, size_t n)
{
	const char *p = buf;
	while (n > 0) {
		ssize_t r;
		if (!s->ctx->tls) {
			r = send(s->fd, p, n, MSG_NOSIGNAL);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				snprintf(s->err, sizeof(s->err), "send: %s", strerror(errno));
				return -1;
			}
		} else {
#ifdef HAVE_GNUTLS
			r = gnutls_record_send(s->sess, p, n);
			if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
				/* only after a signal on a blocking fd: resume */
				r = gnutls_record_send(s->sess, NULL, 0);
				if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED)
					continue;
			}
			if (r < 0) {
				snprintf(s->err, sizeof(s->err), "TLS send: %s",
					 gnutls_strerror((int)r));
				return -1;
			}
#else
			return -1;
#endif
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int netstrm_fd(const struct netstrm *s)
{
	return s->fd;
}

const char *netstrm_error(const struct netstrm *s)
{
	return s->err;
}

const char *netstrm_peer_id(const struct netstrm *s)
{
	return s->id;
}

void netstrm_close(struct netstrm *s)
{
	if (s == NULL)
		return;
#ifdef HAVE_GNUTLS
	if (s->sess) {
		if (s->done) {
			fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
			gnutls_bye(s->sess, GNUTLS_SHUT_WR);
		}
		gnutls_deinit(s->sess);
	}
	rb_give_back(s);
#endif
	if (s->fd >= 0)
		close(s->fd);
	free(s->host);
	free(s);
}
