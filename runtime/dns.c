/* dns.c — reverse lookup of a sender's address for %fromhost%.
 *
 * Threading: reentrant (getnameinfo); no shared state.
 * TODO(#5): a cache with a TTL, so that a slow resolver cannot stall an
 * input thread that accepts many connections from the same hosts.
 */
#include "dns.h"
#include "glbl.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

void dns_fromhost(const struct sockaddr *sa, socklen_t salen, const char *ip,
		  char *out, size_t size)
{
	if (glbl.enable_dns && sa &&
	    getnameinfo(sa, salen, out, size, NULL, 0, NI_NAMEREQD) == 0 && out[0]) {
		/* rsyslog takes the name as the resolver gives it; a name that
		 * is really an address (a PTR record pointing to an IP) is not
		 * trusted and the IP is used. */
		unsigned char buf[sizeof(struct in6_addr)];
		if (inet_pton(AF_INET, out, buf) != 1 && inet_pton(AF_INET6, out, buf) != 1)
			return;
	}
	snprintf(out, size, "%s", ip);
}
