/* net.c — socket helpers for the network inputs; see net.h.
 *
 * Threading: no state; callable from any thread.
 */
#include "net.h"
#include "log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int net_listen_tcp(const char *address, const char *port, int backlog,
		   int *fds, int max_fds, const char *who)
{
	struct addrinfo hints, *res = NULL, *ai;
	int n = 0, rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	if (address && (address[0] == '\0' || strcmp(address, "*") == 0))
		address = NULL;
	rc = getaddrinfo(address, port, &hints, &res);
	if (rc != 0) {
		sl_err("%s: cannot resolve listen address '%s' port '%s': %s", who,
		       address ? address : "*", port, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai && n < max_fds; ai = ai->ai_next) {
		char ip[NET_IP_MAX];
		int one = 1;
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				ai->ai_protocol);
		if (fd < 0) {
			/* e.g. IPv6 disabled on this host: use what works */
			if (errno != EAFNOSUPPORT)
				sl_warn("%s: socket(): %s", who, strerror(errno));
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		net_sockaddr_ip(ai->ai_addr, ip, sizeof(ip));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, backlog) != 0) {
			sl_err("%s: cannot listen on %s port %s: %s", who, ip, port, strerror(errno));
			close(fd);
			continue;
		}
		fds[n++] = fd;
	}
	freeaddrinfo(res);
	if (n == 0) {
		sl_err("%s: no listener could be created for address '%s' port '%s'", who,
		       address ? address : "*", port);
		return -1;
	}
	return n;
}

int net_local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return -1;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return -1;
}

void net_sockaddr_ip(const struct sockaddr *sa, char *buf, size_t size)
{
	const char *r = NULL;
	if (sa->sa_family == AF_INET) {
		r = inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, size);
	} else if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(a))
			r = inet_ntop(AF_INET, &a->s6_addr[12], buf, size);
		else
			r = inet_ntop(AF_INET6, a, buf, size);
	}
	if (r == NULL && size > 1)
		snprintf(buf, size, "?");
}

void net_set_keepalive(int fd, int probes, int idle, int intvl)
{
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
#ifdef TCP_KEEPCNT
	if (probes > 0)
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof(probes));
#endif
#ifdef TCP_KEEPIDLE
	if (idle > 0)
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
#endif
#ifdef TCP_KEEPINTVL
	if (intvl > 0)
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
#endif
}
