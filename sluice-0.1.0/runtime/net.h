/* net.h — small socket helpers shared by the network inputs (imtcp now,
 * imptcp and imudp later): binding listeners for an address/port pair,
 * peer address text, keep-alive settings.
 *
 * Threading: all functions are reentrant and keep no state; errors are
 * logged through sl_log with the `who` label given by the caller.
 */
#ifndef SLUICE_NET_H
#define SLUICE_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Longest text net_sockaddr_ip() produces, with its NUL. */
#define NET_IP_MAX 64

/* Create non-blocking, close-on-exec TCP listening sockets for `address`
 * (NULL or "" or "*" = all local addresses, IPv4 and IPv6) and `port`
 * (number or service name), one per address getaddrinfo() returns.
 * IPv6 sockets are IPV6_V6ONLY so that IPv4 peers arrive on the IPv4
 * socket with plain IPv4 addresses. Stores up to `max_fds` descriptors in
 * `fds` and returns how many; returns -1 (after logging why, labelled
 * `who`) if none could be bound. */
int net_listen_tcp(const char *address, const char *port, int backlog,
		   int *fds, int max_fds, const char *who);

/* The local port a bound socket listens on; -1 on error. */
int net_local_port(int fd);

/* The numeric address of `sa` as text ("192.0.2.1", "2001:db8::1");
 * IPv4-mapped IPv6 addresses are shown as IPv4. Never fails: writes "?"
 * for unknown families. */
void net_sockaddr_ip(const struct sockaddr *sa, char *buf, size_t size);

/* Enable TCP keep-alive on `fd`; `probes`, `idle` and `intvl` of 0 keep
 * the system defaults. Failures are ignored (best effort, as rsyslog). */
void net_set_keepalive(int fd, int probes, int idle, int intvl);

/* ---- added for imudp, imptcp (unix sockets) and imuxsock (issue #5) ---- */

/* Options of net_bind_udp(). */
struct net_udp_opts {
	int rcvbuf;          /* SO_RCVBUFFORCE, then SO_RCVBUF; 0 = OS default */
	int freebind;        /* 0 off; 1 retry with IP_FREEBIND (and warn); 2 retry silently */
	const char *device;  /* SO_BINDTODEVICE; NULL = none */
	bool reuseport;      /* SO_REUSEPORT (several sockets on one port) */
};

/* Create non-blocking, close-on-exec UDP sockets bound to `address`
 * (NULL, "" or "*" = all, IPv4 and IPv6; IPv6 sockets are V6ONLY) and
 * `port`. Stores up to `max_fds` descriptors in `fds` (and their address
 * families in `families` if not NULL); returns how many, or -1 (after
 * logging, labelled `who`) if none could be bound. */
int net_bind_udp(const char *address, const char *port, const struct net_udp_opts *opt,
		 int *fds, int *families, int max_fds, const char *who);

/* Options of net_listen_unix(). */
struct net_unix_opts {
	int type;            /* SOCK_STREAM or SOCK_DGRAM */
	int backlog;         /* SOCK_STREAM only */
	bool unlink_first;   /* remove an existing file at path before bind */
	bool create_path;    /* create missing parent directories (0755) */
	int mode;            /* chmod after bind; -1 = leave */
	int uid, gid;        /* chown after bind; -1 = leave */
	bool fail_on_chown;  /* a failed chown is an error (else a warning) */
	bool passcred;       /* SO_PASSCRED (SCM_CREDENTIALS with each datagram) */
	int rcvbuf;          /* SO_RCVBUF; 0 = OS default */
};

/* Create a non-blocking, close-on-exec unix socket bound to `path`.
 * Returns the descriptor or -1 (after logging, labelled `who`). */
int net_listen_unix(const char *path, const struct net_unix_opts *opt, const char *who);

/* Hash of the address (not the port) of `sa`, for caches keyed by peer. */
uint32_t net_sockaddr_hash(const struct sockaddr *sa);

/* Do `a` and `b` hold the same address (family and address, not port)? */
bool net_sockaddr_same_addr(const struct sockaddr *a, const struct sockaddr *b);

#endif
