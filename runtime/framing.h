/* framing.h — cutting a TCP / stream-socket byte stream into syslog
 * frames: LF (and an additional delimiter) framing and RFC6587
 * octet-counted framing, with rsyslog 8.2302's rules for oversize frames
 * (see framing.c). Shared by the stream inputs (imptcp now; imtcp may
 * adopt it).
 *
 * Threading: a framing_state belongs to one session and is used by the
 * one thread that reads that session; framing_cfg is read-only; the
 * statistics are atomics and may be shared by many sessions.
 */
#ifndef SLUICE_FRAMING_H
#define SLUICE_FRAMING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <regex.h>

/* How an input cuts frames (built once from its parameters). */
struct framing_cfg {
	size_t max_msg;            /* global maxMessageSize: longest frame kept */
	int64_t max_frame_size;    /* maxFrameSize: largest octet count accepted */
	unsigned addtl_delim;      /* addtlFrameDelimiter 0..255; 256 = none */
	bool octet_counted;        /* supportOctetCountedFraming */
	bool disable_lf;           /* disableLFDelimiter */
	bool discard_truncated;    /* discardTruncatedMsg */
	bool framingfix_asa;       /* framingfix.cisco.asa: SP before a frame */
	bool multiline;            /* imptcp multiLine: LF ends a frame only before '<' or at the end of a read */
	/* imptcp framing.delimiter.regex (NULL: not used): the stream is cut
	 * into LF-terminated lines; a line the regex matches (POSIX ERE,
	 * checked without its LF) starts a new message, any other line is
	 * appended to the current one after an LF. Octet counting and the
	 * additional delimiter do not apply. glibc's regexec locks the
	 * regex_t, so each reading thread should use its own copy. */
	const regex_t *start_re;
};

/* Counters of one input (shared by its sessions). */
struct framing_stats {
	atomic_uint_fast64_t truncated;      /* frames longer than maxMessageSize */
	atomic_uint_fast64_t framing_errors; /* bad octet counts and the like */
	atomic_uint_fast64_t discarded_nomem;
	atomic_uint_fast64_t incomplete_eof; /* octet-counted frame cut by EOF */
};

/* Where frames go. emit() gets each complete, non-empty frame; the bytes
 * are valid only during the call. */
struct framing_sink {
	void (*emit)(void *ctx, const char *p, size_t len);
	void *ctx;
	const char *who;           /* "imptcp NAME port P" for log lines */
	const char *peer;          /* peer address text */
	struct framing_stats *stats;
};

enum framing_st { FR_START, FR_COUNT, FR_MSG, FR_TRUNC };

/* The state of one session; zero-initialised is a valid start. */
struct framing_state {
	enum framing_st state;
	bool octet;                /* current frame is octet-counted */
	bool truncation_logged;
	bool framing_error_logged;
	int64_t count;             /* FR_COUNT: count so far; else bytes left */
	char *carry;               /* partial frame; capacity cfg->max_msg; malloc'd on demand */
	size_t carry_len;
	/* start_re only: the current line (capacity max_msg + 1) and
	 * whether a message has been started */
	char *line;
	size_t line_len;
	bool have_msg;
	bool line_truncated;
};

/* Cut `len` bytes read from the session into frames. Never stores more
 * than cfg->max_msg bytes of a frame (with start_re: of a message and of
 * a line). */
void framing_feed(const struct framing_cfg *cfg, struct framing_state *st,
		  const char *p, size_t len, const struct framing_sink *sink);

/* The peer closed: an unterminated LF frame is emitted (as rsyslog
 * does), an incomplete octet-counted frame is dropped, logged and counted. */
void framing_eof(const struct framing_cfg *cfg, struct framing_state *st,
		 const struct framing_sink *sink);

/* Free the carry buffer (the state can be reused after). */
void framing_state_free(struct framing_state *st);

#endif
