/* framing.c — cutting a stream into syslog frames; see framing.h.
 *
 * The state machine follows rsyslog's tcps_sess.c, checked against
 * rsyslogd 8.2302 (REFERENCE-rsyslog.md §7); it is the one imtcp uses:
 *  - a frame starting with a digit is octet-counted ("LEN SP MSG") when
 *    octet counting is on; a count < 1 drops the digits and continues
 *    LF-framed; a count > maxFrameSize keeps the digits and continues
 *    LF-framed; a non-SP terminator is dropped (and logged);
 *  - LF (unless disabled) and the additional delimiter end LF frames
 *    (with multiLine, LF only when followed by '<' or at the end of a read);
 *  - a frame longer than maxMessageSize is cut at that size, the byte at
 *    the cut is dropped (as rsyslog's imtcp does) and the rest becomes a
 *    new message, or is discarded up to the end of the frame with
 *    discardTruncatedMsg;
 *  - the octet count is checked against maxFrameSize before a byte of
 *    the frame is stored, and no more than maxMessageSize bytes are ever
 *    stored (no octet-count overflow of the CVE-2018-16881 kind);
 *  - empty frames are dropped.
 * With start_re (imptcp framing.delimiter.regex) framing_feed_regex
 * cuts instead: checked against rsyslogd 8.2302 — a line (without its
 * LF) matching the regex starts a message, other lines are appended with
 * their LF between; a message longer than maxMessageSize keeps its first
 * maxMessageSize bytes and the rest up to the next start line is dropped
 * (counted as truncated). Unlike rsyslog, the message still open when the
 * peer closes is emitted, not lost (doc/differences.md).
 *
 * Threading: see framing.h (one thread per framing_state).
 */
#include "framing.h"
#include "log.h"
#include "sluice.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OCTET_COUNT_CAP 200000000 /* rsyslog stops growing the count here */

static inline void count(atomic_uint_fast64_t *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

static void emit(const struct framing_sink *k, const char *p, size_t len)
{
	if (len)
		k->emit(k->ctx, p, len); /* empty frames are dropped, as rsyslog does */
}

static bool carry_append(const struct framing_cfg *cfg, struct framing_state *st,
			 const char *p, size_t n)
{
	if (st->carry == NULL) {
		st->carry = malloc(cfg->max_msg ? cfg->max_msg : 1);
		if (st->carry == NULL)
			return false;
	}
	if (n > cfg->max_msg - st->carry_len) /* never past the buffer */
		n = cfg->max_msg - st->carry_len;
	memcpy(st->carry + st->carry_len, p, n);
	st->carry_len += n;
	return true;
}

static void emit_carry(const struct framing_sink *k, struct framing_state *st)
{
	emit(k, st->carry, st->carry_len);
	st->carry_len = 0;
}

static void SL_PRINTF(3, 4) framing_error(const struct framing_sink *k, struct framing_state *st,
					  const char *fmt, ...)
{
	count(&k->stats->framing_errors);
	if (st->framing_error_logged)
		return;
	st->framing_error_logged = true;
	char what[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	sl_err("%s: framing error in message from peer %s: %s (further framing errors of "
	       "this session are only counted)", k->who, k->peer, what);
}

static void truncated(const struct framing_cfg *cfg, const struct framing_sink *k,
		      struct framing_state *st)
{
	count(&k->stats->truncated);
	if (st->truncation_logged)
		return;
	st->truncation_logged = true;
	sl_warn("%s: message from peer %s is larger than the maximum message size %zu; %s "
		"(further truncations in this session are only counted)", k->who, k->peer,
		cfg->max_msg, cfg->discard_truncated ? "the rest is discarded"
						     : "the rest becomes a new message");
}

/* A frame has max_msg bytes and byte *p continues it: that byte is
 * dropped; the rest becomes a new message or is discarded. */
static void split_byte(const struct framing_cfg *cfg, const struct framing_sink *k,
		       struct framing_state *st, const char **p)
{
	truncated(cfg, k, st);
	(*p)++;
	if (st->octet && --st->count == 0) {
		st->state = FR_START;
		return;
	}
	if (cfg->discard_truncated)
		st->state = FR_TRUNC;
}

/* The first frame delimiter within p[0..n) (`end` is the end of the
 * read, for multiLine's look-ahead): NULL if none. */
static const char *find_delim(const struct framing_cfg *cfg, const char *p, size_t n,
			      const char *end)
{
	const char *lf = NULL;
	if (!cfg->disable_lf) {
		const char *s = p;
		size_t left = n;
		while ((lf = memchr(s, '\n', left)) != NULL) {
			if (!cfg->multiline || lf + 1 == end || lf[1] == '<')
				break;
			left -= (size_t)(lf + 1 - s);
			s = lf + 1;
		}
	}
	if (cfg->addtl_delim < 256) {
		size_t lim = lf ? (size_t)(lf - p) : n;
		const char *d = memchr(p, (int)cfg->addtl_delim, lim);
		if (d)
			return d;
	}
	return lf;
}

/* start_re: append n bytes to the current line (at most max_msg kept). */
static bool line_append(const struct framing_cfg *cfg, struct framing_state *st,
			const char *p, size_t n)
{
	if (st->line == NULL) {
		st->line = malloc(cfg->max_msg + 1);
		if (st->line == NULL)
			return false;
	}
	if (n > cfg->max_msg - st->line_len) {
		n = cfg->max_msg - st->line_len;
		st->line_truncated = true;
	}
	memcpy(st->line + st->line_len, p, n);
	st->line_len += n;
	return true;
}

/* start_re: the current line is complete (or the peer closed after it
 * without an LF). Starts a new message if it matches, then appends it to
 * the current message. */
static void line_done(const struct framing_cfg *cfg, struct framing_state *st,
		      const struct framing_sink *k)
{
	const size_t max = cfg->max_msg;
	if (st->line == NULL && !line_append(cfg, st, "", 0)) {
		count(&k->stats->discarded_nomem);
		return;
	}
	st->line[st->line_len] = '\0';
	if (st->have_msg &&
	    regexec(cfg->start_re, st->line, 0, NULL, 0) == 0) {
		emit_carry(k, st);
		st->have_msg = false;
		st->state = FR_START;
	}
	if (st->state == FR_TRUNC) { /* the message is full: drop the line */
		st->line_len = 0;
		st->line_truncated = false;
		return;
	}
	size_t need = st->line_len + (st->have_msg ? 1 : 0);
	if (need > max - st->carry_len || st->line_truncated) {
		truncated(cfg, k, st);
		st->state = FR_TRUNC;
	}
	if ((st->have_msg && !carry_append(cfg, st, "\n", 1)) ||
	    !carry_append(cfg, st, st->line, st->line_len)) {
		count(&k->stats->discarded_nomem);
		st->carry_len = 0;
		st->state = FR_TRUNC;
	}
	st->have_msg = true;
	st->line_len = 0;
	st->line_truncated = false;
}

static void framing_feed_regex(const struct framing_cfg *cfg, struct framing_state *st,
			       const char *p, size_t len, const struct framing_sink *k)
{
	const char *end = p + len;
	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((lf ? lf : end) - p);
		if (!line_append(cfg, st, p, n)) {
			count(&k->stats->discarded_nomem);
			st->line_len = 0;
		}
		if (!lf)
			return;
		line_done(cfg, st, k);
		p = lf + 1;
	}
}

void framing_feed(const struct framing_cfg *cfg, struct framing_state *st,
		  const char *p, size_t len, const struct framing_sink *k)
{
	const char *end = p + len;
	const size_t max = cfg->max_msg;

	if (SL_UNLIKELY(cfg->start_re != NULL)) {
		framing_feed_regex(cfg, st, p, len, k);
		return;
	}

	while (p < end) {
		switch (st->state) {
		case FR_START:
			st->carry_len = 0;
			if (cfg->octet_counted && *p >= '0' && *p <= '9') {
				/* Fast path: the count and its SP are in this read and
				 * the count is usable (the slow path below keeps the
				 * digits in case it is not). */
				const char *q = p;
				int64_t c = 0;
				while (q < end && q - p < 8 && *q >= '0' && *q <= '9')
					c = c * 10 + (*q++ - '0');
				if (q < end && *q == ' ' && c >= 1 && c <= (int64_t)cfg->max_frame_size) {
					st->octet = true;
					st->count = c;
					st->state = FR_MSG;
					p = q + 1;
					break;
				}
				st->state = FR_COUNT;
				st->octet = true;
				st->count = 0;
			} else if (cfg->framingfix_asa && *p == ' ') {
				p++; /* Cisco ASA: SP in front of a frame */
			} else {
				st->state = FR_MSG;
				st->octet = false;
			}
			break;

		case FR_COUNT:
			while (p < end && *p >= '0' && *p <= '9') {
				if (st->count <= OCTET_COUNT_CAP)
					st->count = st->count * 10 + (*p - '0');
				/* the digits are kept in case the count is unusable */
				if (st->carry_len < max && !carry_append(cfg, st, p, 1))
					st->carry_len = max; /* ENOMEM: behave as truncated */
				p++;
			}
			if (p == end)
				break;
			if (*p != ' ')
				framing_error(k, st, "octet count not followed by SP but by byte %d",
					      (unsigned char)*p);
			p++; /* the terminator is dropped, SP or not */
			if (st->count < 1) {
				framing_error(k, st, "invalid octet count %lld", (long long)st->count);
				st->octet = false;
			}
			if (st->count > cfg->max_frame_size) {
				framing_error(k, st, "frame too large (%lld), changing to LF framing",
					      (long long)st->count);
				st->octet = false; /* digits stay in the frame */
			} else {
				st->carry_len = 0;
			}
			st->state = FR_MSG;
			break;

		case FR_MSG:
			if (st->octet) {
				size_t avail = (size_t)(end - p);
				if (st->carry_len == max) {
					emit_carry(k, st);
					split_byte(cfg, k, st, &p);
					break;
				}
				size_t take = max - st->carry_len;
				if ((uint64_t)take > (uint64_t)st->count)
					take = (size_t)st->count;
				if (take > avail)
					take = avail;
				if (st->carry_len == 0 && take == (size_t)st->count) {
					emit(k, p, take); /* the whole frame is in this read */
					p += take;
					st->count = 0;
					st->state = FR_START;
					break;
				}
				if (st->carry_len == 0 && take == max && avail > take) {
					emit(k, p, take);
					p += take;
					st->count -= (int64_t)take;
					split_byte(cfg, k, st, &p);
					break;
				}
				if (!carry_append(cfg, st, p, take)) {
					count(&k->stats->discarded_nomem);
					st->carry_len = 0;
					st->state = FR_TRUNC;
					break;
				}
				p += take;
				st->count -= (int64_t)take;
				if (st->count == 0) {
					emit_carry(k, st);
					st->state = FR_START;
				}
			} else {
				size_t avail = (size_t)(end - p);
				size_t room = max - st->carry_len;
				size_t window = avail < room + 1 ? avail : room + 1;
				const char *d = find_delim(cfg, p, window, end);
				if (d) {
					size_t n = (size_t)(d - p);
					if (st->carry_len == 0) {
						emit(k, p, n);
					} else {
						carry_append(cfg, st, p, n);
						emit_carry(k, st);
					}
					p = d + 1;
					st->state = FR_START;
				} else if (avail > room) {
					/* longer than maxMessageSize: p[room] splits it */
					if (st->carry_len == 0) {
						emit(k, p, room);
					} else {
						carry_append(cfg, st, p, room);
						emit_carry(k, st);
					}
					p += room;
					split_byte(cfg, k, st, &p);
				} else {
					if (!carry_append(cfg, st, p, avail)) {
						count(&k->stats->discarded_nomem);
						st->carry_len = 0;
						st->state = FR_TRUNC;
					}
					p = end;
				}
			}
			break;

		case FR_TRUNC:
			if (st->octet) {
				size_t avail = (size_t)(end - p);
				size_t take = (uint64_t)avail < (uint64_t)st->count ? avail
										: (size_t)st->count;
				p += take;
				st->count -= (int64_t)take;
				if (st->count == 0)
					st->state = FR_START;
			} else {
				const char *d = find_delim(cfg, p, (size_t)(end - p), end);
				if (d) {
					p = d + 1;
					st->state = FR_START;
				} else {
					p = end;
				}
			}
			st->carry_len = 0;
			break;
		}
	}
}

void framing_eof(const struct framing_cfg *cfg, struct framing_state *st,
		 const struct framing_sink *k)
{
	if (cfg->start_re != NULL) {
		if (st->line_len)
			line_done(cfg, st, k);
		if (st->have_msg)
			emit_carry(k, st);
		st->have_msg = false;
		st->state = FR_START;
		st->carry_len = 0;
		return;
	}
	if (st->state == FR_START)
		return;
	if (st->state == FR_MSG && !st->octet) {
		if (st->carry_len)
			emit_carry(k, st);
	} else if (st->state == FR_COUNT || (st->octet && st->state != FR_START)) {
		count(&k->stats->incomplete_eof);
		sl_warn("%s: incomplete frame at end of stream from peer %s - ignoring extra data "
			"(a message may be lost)", k->who, k->peer);
	}
	st->state = FR_START;
	st->carry_len = 0;
}

void framing_state_free(struct framing_state *st)
{
	free(st->carry);
	st->carry = NULL;
	st->carry_len = 0;
	free(st->line);
	st->line = NULL;
	st->line_len = 0;
	st->have_msg = false;
	st->state = FR_START;
}
