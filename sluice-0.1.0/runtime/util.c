/* util.c — small shared helpers: config-time allocation, the return-code
 * strings, the growable buffer, and the daemon's own diagnostics.
 *
 * Threading: sl_log() may be called from any thread; everything else is
 * stateless.
 */
#include "sluice.h"
#include "sbuf.h"
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int sl_debug_on;

static const char *const rc_text[SL_RC_MAX] = {
	[SL_OK] = "ok",
	[SL_ERR_NOMEM] = "out of memory",
	[SL_ERR_IO] = "i/o error",
	[SL_ERR_PARSE] = "parse error",
	[SL_ERR_CONFIG] = "configuration error",
	[SL_ERR_NOT_FOUND] = "not found",
	[SL_ERR_INVALID] = "invalid argument",
	[SL_ERR_TOO_LONG] = "too long",
	[SL_ERR_SUSPENDED] = "action suspended",
	[SL_ERR_FAILED] = "failed",
	[SL_ERR_AGAIN] = "try again",
	[SL_ERR_SHUTDOWN] = "shutting down",
	[SL_ERR_MODULE] = "module could not be loaded",
};

const char *sl_strerror(enum sl_rc rc)
{
	if ((unsigned)rc >= SL_RC_MAX || !rc_text[rc])
		return "unknown error";
	return rc_text[rc];
}

static void oom(void)
{
	static const char m[] = "sluiced: out of memory at configuration time\n";
	if (write(2, m, sizeof(m) - 1) < 0) {
		/* nothing more we can do */
	}
	abort();
}

void *sl_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *sl_xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		oom();
	return p;
}

void *sl_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *sl_xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");
	if (!p)
		oom();
	return p;
}

char *sl_xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		oom();
	return p;
}

bool sbuf_grow(struct sbuf *sb, size_t extra)
{
	size_t need = sb->len + extra;
	if (need < sb->cap)
		return true; /* room already (callers may reserve ahead) */
	size_t cap = sb->cap ? sb->cap : 256;
	while (cap < need + 1)
		cap *= 2;
	char *p = realloc(sb->buf, cap);
	if (!p)
		return false;
	sb->buf = p;
	sb->cap = cap;
	return true;
}

void sbuf_free(struct sbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void sl_log(enum log_level lvl, const char *fmt, ...)
{
	char line[2048];
	const char *lv = lvl <= LOG_LVL_ERR ? "error" : lvl == LOG_LVL_WARN ? "warning"
		       : lvl == LOG_LVL_INFO ? "info" : "debug";
	int n = snprintf(line, sizeof(line), "sluiced: %s: ", lv);
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(2, line, n) < 0) {
		/* stderr gone: nothing to do */
	}
}

#include <stdatomic.h>
/* Set by the daemon when SIGTERM arrives; long waits (action retries)
 * poll it so that shutdown is never held up by a dead destination. */
atomic_bool sl_shutdown_requested;
