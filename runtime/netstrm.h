/* netstrm.h — the stream-driver layer for syslog over TCP: plain TCP
 * (streamDriver.mode=0) and TLS through gnutls ("gtls", mode=1), for the
 * server side (imtcp) and the client side (omfwd), with rsyslog's
 * authentication modes:
 *
 *   anon              no peer authentication (encryption only)
 *   x509/certvalid    the peer's certificate chain must verify against the
 *                     CA file; any name
 *   x509/name         as certvalid, and a name of the certificate (SAN
 *                     dNSName entries first, then the subject CN — unless
 *                     PrioritizeSAN is on and a dNSName exists) must match
 *                     a permitted peer; "*.example.net"-style wildcards
 *                     match one whole domain component ("*"), or the end
 *                     ("*abc") / start ("abc*") of one component; names are
 *                     compared case-insensitively, component counts must
 *                     be equal
 *   x509/fingerprint  the SHA1 ("SHA1:AA:BB:...") or SHA256
 *                     ("SHA256:AA:...") fingerprint of the peer's
 *                     certificate must be a permitted peer; the chain is
 *                     not verified (as rsyslog)
 *
 * CONTRACT
 *   - A `struct netstrm_ctx` holds what all connections of one listener or
 *     one action share: the gnutls credentials (CA, own cert/key, anon
 *     credentials), the priority cache and the permitted peers. Make it
 *     once at start-up with netstrm_ctx_create() (which copies everything
 *     it needs from the cfg; the cfg may be freed afterwards) and free it
 *     with netstrm_ctx_destroy() after the last connection made from it is
 *     closed. A ctx is read-only after creation and may be shared by any
 *     number of threads.
 *   - A `struct netstrm` is one connection. It belongs to one thread at a
 *     time (no locking inside). It owns its socket: netstrm_close() closes
 *     the fd and frees everything.
 *   - Server side (non-blocking, for an event loop): netstrm_accept() wraps
 *     an accepted non-blocking fd. Call netstrm_handshake() whenever the fd
 *     is ready until it returns NETSTRM_OK; on NETSTRM_AGAIN wait for
 *     readability, or writability when netstrm_want_write() says so; on
 *     NETSTRM_ERR the connection must be closed — netstrm_error() names
 *     the reason (gnutls' text or the authentication failure) for the log.
 *     A plain (mode 0) stream is ready at once. The caller enforces the
 *     handshake timeout (netstrm does not keep timers).
 *     netstrm_recv_record() then returns data; after a read, data may still sit
 *     inside the TLS layer where epoll cannot see it (decrypted, or read
 *     from the socket ahead): netstrm_pending() says so, and the caller
 *     must read again. netstrm_recv_record() returns EAGAIN only when
 *     nothing read ahead is left; netstrm_read_budget() bounds how much a
 *     caller's turn reads from the socket.
 *   - Client side (blocking, for an output worker): netstrm_connect()
 *     resolves, connects and, in TLS mode, does the handshake and checks
 *     the server with the ctx's auth mode, all within `timeout_ms`. With
 *     x509/name and no permitted peers, the server's certificate must
 *     match the host name that was connected to. netstrm_send_all() sends
 *     every byte (or fails; the connection is then unusable).
 *   - Errors: functions that fail write a one-line reason into the
 *     caller's err buffer or into the stream (netstrm_error()); nothing
 *     here logs by itself except the "expired certificate accepted"
 *     warning of permitExpiredCerts="warn" (through sl_warn, naming
 *     `who` and the peer).
 *
 * Build: netstrm_gtls.c is compiled into each module that uses it (the
 * modules are dlopen'ed RTLD_LOCAL, so each has its own copy) and that
 * module links $(GNUTLS_LIBS). Without gnutls (HAVE_GNUTLS unset) only
 * mode 0 works and netstrm_ctx_create() refuses mode 1.
 *
 * Threading: see CONTRACT. gnutls' global state is initialised once per
 * process by the library itself.
 */
#ifndef SLUICE_NETSTRM_H
#define SLUICE_NETSTRM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum netstrm_auth {
	NETSTRM_AUTH_ANON,
	NETSTRM_AUTH_CERTVALID,
	NETSTRM_AUTH_NAME,
	NETSTRM_AUTH_FINGERPRINT,
};

enum netstrm_expired {
	NETSTRM_EXPIRED_DENY,   /* permitExpiredCerts="off" (default) */
	NETSTRM_EXPIRED_PERMIT, /* "on" */
	NETSTRM_EXPIRED_WARN,   /* "warn": accepted, logged */
};

/* What a listener or action configures. All pointers are borrowed for the
 * duration of netstrm_ctx_create() only. */
struct netstrm_cfg {
	int mode;                       /* 0 = plain TCP, 1 = TLS */
	const char *driver;             /* streamDriver.name: NULL, "ptcp" or "gtls" */
	enum netstrm_auth auth;
	const char *cafile;             /* PEM; needed for certvalid/name */
	const char *certfile;           /* PEM; own certificate (chain) */
	const char *keyfile;            /* PEM; own key */
	const char *const *permitted;   /* permittedPeer entries */
	int n_permitted;
	const char *priority;           /* gnutlsPriorityString; NULL = default */
	enum netstrm_expired permit_expired;
	bool check_eku;                 /* CheckExtendedKeyPurpose */
	bool prioritize_san;            /* PrioritizeSAN */
	int verify_depth;               /* TlsVerifyDepth; 0 = gnutls default */
	const char *who;                /* label for log lines: "imtcp NAME port P" */
};

struct netstrm_ctx;
struct netstrm;

enum netstrm_rc {
	NETSTRM_OK = 0,
	NETSTRM_AGAIN,   /* would block: wait for the fd (see netstrm_want_write) */
	NETSTRM_ERR,     /* failed for good; reason in netstrm_error() */
	NETSTRM_EOF,     /* handshake: the peer closed the connection before it was
			  * done (a port probe, a client giving up); not an attack */
};

/* Parse streamDriver.authMode text ("anon", "x509/certvalid", "x509/name",
 * "x509/fingerprint"; case-insensitive; NULL = anon). False if unknown. */
bool netstrm_auth_parse(const char *s, enum netstrm_auth *out);
/* Parse permitExpiredCerts text ("on", "off", "warn"; NULL = off). */
bool netstrm_expired_parse(const char *s, enum netstrm_expired *out);
/* Is this permitted-peer text a valid fingerprint form ("SHA1:..."/"SHA256:...")? */
bool netstrm_is_fingerprint(const char *s);

/* Make the shared context. `server` selects the side. Returns NULL and
 * writes the reason to err (e.g. "cannot read certfile /x: ...") on
 * failure. */
struct netstrm_ctx *netstrm_ctx_create(const struct netstrm_cfg *cfg, bool server,
				       char *err, size_t errlen);
void netstrm_ctx_destroy(struct netstrm_ctx *ctx); /* accepts NULL */
bool netstrm_ctx_tls(const struct netstrm_ctx *ctx);

/* Server side: wrap an accepted non-blocking socket. `peer` (the peer's
 * IP text) is copied for messages. Returns NULL on out-of-memory or a
 * gnutls setup failure (err filled); the fd is then NOT closed. */
struct netstrm *netstrm_accept(struct netstrm_ctx *ctx, int fd, const char *peer,
			       char *err, size_t errlen);

/* Drive the (non-blocking) handshake one step; see CONTRACT. For a plain
 * stream returns NETSTRM_OK at once. After NETSTRM_OK the peer has been
 * authenticated according to the ctx. */
enum netstrm_rc netstrm_handshake(struct netstrm *s);
/* After NETSTRM_AGAIN: true if the stream waits to write, not to read. */
bool netstrm_want_write(const struct netstrm *s);
bool netstrm_handshake_done(const struct netstrm *s);

/* TLS streams only (plain sessions are read with recv): the next
 * decrypted record, without copying it out of the TLS layer. Returns its
 * length (>0) with *data pointing into it and *rec to give to
 * netstrm_record_free when done; 0 at the peer's end of stream (TLS
 * close_notify or TCP FIN); -1 with errno EAGAIN when nothing is there,
 * -1 with errno EIO (TLS error; reason in netstrm_error()) or the
 * socket's errno otherwise. */
ssize_t netstrm_recv_record(struct netstrm *s, const char **data, void **rec);
void netstrm_record_free(void *rec);
/* True if data is waiting inside the TLS layer: decrypted, or read from
 * the socket ahead (server side) and not yet decrypted. */
bool netstrm_pending(const struct netstrm *s);
/* Server side: from now on, read at most `bytes` more from the socket
 * (netstrm_recv_record then returns -1/EAGAIN once what was read is
 * used up, although the socket may hold more: the caller yields, and
 * level-triggered epoll comes back). SIZE_MAX (the start) = no limit.
 * Server TLS streams read the socket ahead in blocks of up to 256 KiB
 * and serve the TLS layer from there (one recv per many records). */
void netstrm_read_budget(struct netstrm *s, size_t bytes);

/* Client side: connect to host:port (blocking, bounded by timeout_ms for
 * connect and handshake), authenticate the server. NULL + err on failure. */
struct netstrm *netstrm_connect(struct netstrm_ctx *ctx, const char *host, const char *port,
				int timeout_ms, char *err, size_t errlen);
/* Send all n bytes (blocking). 0 on success, -1 on failure (reason in
 * netstrm_error()); a failed stream must be closed. */
int netstrm_send_all(struct netstrm *s, const void *buf, size_t n);

int netstrm_fd(const struct netstrm *s);
/* The last failure's reason; "" if none. Valid until the next call. */
const char *netstrm_error(const struct netstrm *s);
/* The names / fingerprint the peer's certificate showed, for log lines
 * ("DNSname: a.example.net; CN: a.example.net"); "" if none. */
const char *netstrm_peer_id(const struct netstrm *s);
/* Close: a TLS bye is attempted (non-blocking, best effort), the fd is
 * closed, everything freed. Accepts NULL. */
void netstrm_close(struct netstrm *s);

#endif
