/* net.c — socket helpers for the network inputs (TCP listeners, UDP and
 * unix sockets, peer addresses); see net.h.
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
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* getaddrinfo for a listener: "" or "*" means every address. Reports
 * failures (naming `who`); returns NULL then. Free with freeaddrinfo. */
static struct addrinfo *resolve_passive(const char *address, const char *port, int socktype,
					const char *who)
{
	struct addrinfo hints, *res = NULL;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = socktype;
	hints.ai_flags = AI_PASSIVE;
	if (address && (address[0] == '\0' || strcmp(address, "*") == 0))
		address = NULL;
	rc = getaddrinfo(address, port, &hints, &res);
	if (rc != 0) {
		sl_err("%s: cannot resolve listen address '%s' port '%s': %s", who,
		       address ? address : "*", port, gai_strerror(rc));
		return NULL;
	}
	return res;
}

int net_listen_tcp(const char *address, const char *port, int backlog,
		   int *fds, int max_fds, const char *who)
{
	struct addrinfo *res, *ai;
	int n = 0;

	res = resolve_passive(address, port, SOCK_STREAM, who);
	if (!res)
		return -1;
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

/* ---- UDP and unix sockets (imudp, imptcp, imuxsock) ---- */

static void set_rcvbuf(int fd, int rcvbuf)
{
	if (rcvbuf <= 0)
		return;
#ifdef SO_RCVBUFFORCE
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) == 0)
		return;
#endif
	/* without CAP_NET_ADMIN: the regular way, capped at rmem_max */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
}

int net_bind_udp(const char *address, const char *port, const struct net_udp_opts *opt,
		 int *fds, int *families, int max_fds, const char *who)
{
	struct addrinfo *res, *ai;
	int n = 0, rc;

	res = resolve_passive(address, port, SOCK_DGRAM, who);
	if (!res)
		return -1;
	for (ai = res; ai && n < max_fds; ai = ai->ai_next) {
		char ip[NET_IP_MAX];
		int one = 1;
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				ai->ai_protocol);
		if (fd < 0) {
			if (errno != EAFNOSUPPORT)
				sl_warn("%s: socket(): %s", who, strerror(errno));
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
#ifdef SO_REUSEPORT
		if (opt && opt->reuseport)
			setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
#endif
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
#ifdef SO_BINDTODEVICE
		if (opt && opt->device && *opt->device &&
		    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, opt->device,
			       (socklen_t)strlen(opt->device) + 1) != 0)
			sl_warn("%s: cannot bind to device %s: %s", who, opt->device, strerror(errno));
#endif
		if (opt)
			set_rcvbuf(fd, opt->rcvbuf);
		net_sockaddr_ip(ai->ai_addr, ip, sizeof(ip));
		rc = bind(fd, ai->ai_addr, ai->ai_addrlen);
#ifdef IP_FREEBIND
		if (rc != 0 && errno == EADDRNOTAVAIL && opt && opt->freebind > 0) {
			/* the address is not (yet) configured: bind anyway, as rsyslog */
			if (setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one)) == 0) {
				if (opt->freebind == 1)
					sl_warn("%s: address %s is not available; bound with "
						"IP_FREEBIND", who, ip);
				rc = bind(fd, ai->ai_addr, ai->ai_addrlen);
			}
		}
#endif
		if (rc != 0) {
			sl_err("%s: cannot bind UDP %s port %s: %s", who, ip, port, strerror(errno));
			close(fd);
			continue;
		}
		if (families)
			families[n] = ai->ai_family;
		fds[n++] = fd;
	}
	freeaddrinfo(res);
	if (n == 0) {
		sl_err("%s: no UDP socket could be bound for address '%s' port '%s'", who,
		       address ? address : "*", port);
		return -1;
	}
	return n;
}

/* mkdir -p of the directory part of `path`. */
static void make_parent_dirs(const char *path)
{
	char buf[sizeof(((struct sockaddr_un *)0)->sun_path)];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
}

int net_listen_unix(const char *path, const struct net_unix_opts *opt, const char *who)
{
	struct sockaddr_un sun;
	int one = 1;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		sl_err("%s: unix socket path too long (max %zu bytes): %s", who,
		       sizeof(sun.sun_path) - 1, path);
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path));
	if (opt->create_path)
		make_parent_dirs(path);
	if (opt->unlink_first && unlink(path) != 0 && errno != ENOENT)
		sl_warn("%s: cannot remove old socket %s: %s", who, path, strerror(errno));
	int fd = socket(AF_UNIX, opt->type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		sl_err("%s: socket(AF_UNIX): %s", who, strerror(errno));
		return -1;
	}
	if (opt->passcred)
		setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	if (opt->rcvbuf > 0)
		set_rcvbuf(fd, opt->rcvbuf);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		sl_err("%s: cannot bind unix socket %s: %s", who, path, strerror(errno));
		close(fd);
		return -1;
	}
	if (opt->type == SOCK_STREAM && listen(fd, opt->backlog > 0 ? opt->backlog : 64) != 0) {
		sl_err("%s: cannot listen on unix socket %s: %s", who, path, strerror(errno));
		close(fd);
		return -1;
	}
	if (opt->mode >= 0 && chmod(path, (mode_t)opt->mode) != 0)
		sl_warn("%s: cannot chmod %s to %04o: %s", who, path, opt->mode, strerror(errno));
	if ((opt->uid >= 0 || opt->gid >= 0) &&
	    chown(path, (uid_t)opt->uid, (gid_t)opt->gid) != 0) {
		if (opt->fail_on_chown) {
			sl_err("%s: cannot chown %s to %d:%d: %s", who, path, opt->uid, opt->gid,
			       strerror(errno));
			close(fd);
			return -1;
		}
		sl_warn("%s: cannot chown %s to %d:%d: %s", who, path, opt->uid, opt->gid,
			strerror(errno));
	}
	return fd;
}

uint32_t net_sockaddr_hash(const struct sockaddr *sa)
{
	const unsigned char *p;
	size_t n;
	uint32_t h = 2166136261u; /* FNV-1a */

	if (sa->sa_family == AF_INET) {
		p = (const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr;
		n = 4;
	} else if (sa->sa_family == AF_INET6) {
		p = (const unsigned char *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
		n = 16;
	} else {
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

bool net_sockaddr_same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
	return false;
}
