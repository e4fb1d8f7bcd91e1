/* dns.h — the sender's name for %fromhost%: reverse DNS (net.enableDNS),
 * as rsyslog resolves it, else the IP address.
 *
 * Threading: reentrant; called by input threads once per connection (TCP)
 * or once per new sender (UDP), never per message. Answers (failures too)
 * are cached per thread for 60 s (dns.c), so a connection flood from the
 * same hosts does not wait on the resolver for each connection.
 */
#ifndef SLUICE_DNS_H
#define SLUICE_DNS_H

#include <stddef.h>
#include <sys/socket.h>

/* Write the name to use as fromhost for `sa` into `out` (NUL-terminated).
 * `ip` is the address as text, used when DNS is off or finds nothing. */
void dns_fromhost(const struct sockaddr *sa, socklen_t salen, const char *ip,
		  char *out, size_t size);

#endif
