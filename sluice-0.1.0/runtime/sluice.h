/* sluice.h — things every part of sluice shares: the return-code enum and
 * its strerror table, small helpers, and the config header.
 *
 * Threading: nothing here has state; sl_strerror() returns static strings.
 */
#ifndef SLUICE_H
#define SLUICE_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* One return-code enum for the whole code base (curl's CURLcode). */
enum sl_rc {
	SL_OK = 0,
	SL_ERR_NOMEM,
	SL_ERR_IO,
	SL_ERR_PARSE,      /* input did not match what a parser expected */
	SL_ERR_CONFIG,     /* configuration error, already reported */
	SL_ERR_NOT_FOUND,
	SL_ERR_INVALID,    /* invalid argument */
	SL_ERR_TOO_LONG,
	SL_ERR_SUSPENDED,  /* action: destination down, retry later */
	SL_ERR_FAILED,     /* action: failed for good */
	SL_ERR_AGAIN,      /* try again (non-blocking I/O, full queue) */
	SL_ERR_SHUTDOWN,   /* the daemon is stopping */
	SL_ERR_MODULE,     /* module could not be loaded */
	SL_RC_MAX
};

const char *sl_strerror(enum sl_rc rc);

#define SL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SL_LIKELY(x) __builtin_expect(!!(x), 1)
#define SL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SL_UNUSED __attribute__((unused))
#define SL_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Allocation that aborts on failure: used only at config time, never on the
 * message path (where an allocation failure is counted and handled). */
void *sl_xmalloc(size_t n);
void *sl_xcalloc(size_t n, size_t m);
void *sl_xrealloc(void *p, size_t n);
char *sl_xstrdup(const char *s);
char *sl_xstrndup(const char *s, size_t n);

#endif
