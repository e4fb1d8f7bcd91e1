/* sbuf.h — a growable byte buffer, owned by its caller and reused across
 * messages so rendering does not allocate per message once it has grown.
 *
 * Threading: a buffer belongs to one thread at a time; no locking.
 */
#ifndef SLUICE_SBUF_H
#define SLUICE_SBUF_H

#include <stddef.h>
#include <string.h>
#include <stdbool.h>

struct sbuf {
	char *buf;
	size_t len;
	size_t cap;
};

#define SBUF_INIT { NULL, 0, 0 }

/* Make room for at least `extra` more bytes. Returns false on ENOMEM (the
 * buffer is unchanged then). */
bool sbuf_grow(struct sbuf *sb, size_t extra);
void sbuf_free(struct sbuf *sb);

static inline void sbuf_reset(struct sbuf *sb) { sb->len = 0; }

static inline bool sbuf_append(struct sbuf *sb, const char *p, size_t n)
{
	if (sb->cap - sb->len < n && !sbuf_grow(sb, n))
		return false;
	if (n)
		memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
	return true;
}

static inline bool sbuf_putc(struct sbuf *sb, char c)
{
	if (sb->cap == sb->len && !sbuf_grow(sb, 1))
		return false;
	sb->buf[sb->len++] = c;
	return true;
}

static inline bool sbuf_puts(struct sbuf *sb, const char *s)
{
	return sbuf_append(sb, s, strlen(s));
}

/* NUL-terminate without counting the NUL in len. */
static inline bool sbuf_cstr(struct sbuf *sb)
{
	if (sb->cap == sb->len && !sbuf_grow(sb, 1))
		return false;
	sb->buf[sb->len] = '\0';
	return true;
}

#endif
