/* dns.c — reverse lookup of a sender's address for %fromhost%, with a
 * small per-thread cache.
 *
 * An input thread resolves once per connection (TCP) or per new sender
 * (UDP); a flood of connections from the same few hosts would make each
 * accept wait for getnameinfo(). So every thread keeps the last
 * DNS_CACHE_SLOTS answers (direct-mapped by address hash) for
 * DNS_CACHE_TTL_S seconds, failures included (a resolver that times out
 * is the case that hurts). Names longer than DNS_CACHE_NAME-1 bytes are
 * not cached. The cache is rsyslog's idea too (its dnscache, which keeps
 * entries for the whole run by default); a TTL keeps renamed hosts from
 * being wrong for long.
 *
 * Threading: reentrant; the cache is per thread (allocated on the
 * thread's first lookup, freed at thread exit), so no lock.
 */
#include "dns.h"
#include "glbl.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DNS_CACHE_SLOTS 64
#define DNS_CACHE_TTL_S 60
#define DNS_CACHE_NAME 256

struct dns_slot {
	time_t expires;          /* 0 = empty */
	uint8_t family;
	uint8_t addr[16];
	char name[DNS_CACHE_NAME];
};

struct dns_cache {
	struct dns_slot slot[DNS_CACHE_SLOTS];
};

static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

static void cache_key_make(void)
{
	(void)pthread_key_create(&cache_key, free);
}

static struct dns_cache *thread_cache(void)
{
	pthread_once(&cache_once, cache_key_make);
	struct dns_cache *c = pthread_getspecific(cache_key);
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (c && pthread_setspecific(cache_key, c) != 0) {
			free(c);
			c = NULL;
		}
	}
	return c;
}

/* The address bytes of `sa` (4 or 16) and its family; 0 if neither. */
static size_t addr_key(const struct sockaddr *sa, uint8_t *out, uint8_t *family)
{
	if (sa->sa_family == AF_INET) {
		memcpy(out, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		*family = 4;
		return 4;
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		*family = 6;
		return 16;
	}
	return 0;
}

static void resolve(const struct sockaddr *sa, socklen_t salen, const char *ip, char *out,
		    size_t size)
{
	if (getnameinfo(sa, salen, out, size, NULL, 0, NI_NAMEREQD) == 0 && out[0]) {
		/* rsyslog takes the name as the resolver gives it; a name that
		 * is really an address (a PTR record pointing to an IP) is not
		 * trusted and the IP is used. */
		unsigned char buf[sizeof(struct in6_addr)];
		if (inet_pton(AF_INET, out, buf) != 1 && inet_pton(AF_INET6, out, buf) != 1)
			return;
	}
	snprintf(out, size, "%s", ip);
}

void dns_fromhost(const struct sockaddr *sa, socklen_t salen, const char *ip,
		  char *out, size_t size)
{
	if (!glbl.enable_dns || !sa) {
		snprintf(out, size, "%s", ip);
		return;
	}
	uint8_t key[16], family = 0;
	size_t kl = addr_key(sa, key, &family);
	struct dns_cache *c = kl ? thread_cache() : NULL;
	if (!c) {
		resolve(sa, salen, ip, out, size);
		return;
	}
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < kl; i++)
		h = (h ^ key[i]) * 16777619u;
	struct dns_slot *s = &c->slot[h % DNS_CACHE_SLOTS];
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (s->expires > now.tv_sec && s->family == family && memcmp(s->addr, key, kl) == 0) {
		snprintf(out, size, "%s", s->name);
		return;
	}
	resolve(sa, salen, ip, out, size);
	size_t nl = strlen(out);
	if (nl < sizeof(s->name)) {
		memcpy(s->name, out, nl + 1);
		memcpy(s->addr, key, kl);
		s->family = family;
		s->expires = now.tv_sec + DNS_CACHE_TTL_S;
	}
}
