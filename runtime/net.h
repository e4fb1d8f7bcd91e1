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

#endif
