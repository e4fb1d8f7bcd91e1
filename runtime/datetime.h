/* datetime.h — syslog timestamps: the broken-down form kept in a message,
 * parsing of RFC3164 and RFC3339 timestamps, and formatting in every form
 * the property replacer knows.
 *
 * Threading: all functions are reentrant; the only shared state is the
 * timezone data of libc (tzset() is called once at start).
 */
#ifndef SLUICE_DATETIME_H
#define SLUICE_DATETIME_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <time.h>

/* A timestamp as the sender wrote it (or as we took it at reception).
 * Times are kept in the sender's own offset, as rsyslog does: formatting
 * RFC3164 prints the fields as they are, without conversion. */
struct syslog_time {
	int16_t year;
	uint8_t month;          /* 1..12 */
	uint8_t day;            /* 1..31 */
	uint8_t hour, minute, second;
	uint8_t secfrac_digits; /* 0 = no fraction; else number of digits 1..9 */
	uint32_t secfrac;       /* the fraction as written, secfrac_digits digits */
	char off_mode;          /* '+', '-' or 'Z' */
	uint8_t off_hour, off_minute;
	uint8_t valid;          /* 0 = not set */
};

/* Current local time, with microsecond fraction (6 digits) and the local
 * UTC offset, as rsyslog sets timegenerated. `now` may be NULL. */
void dt_now(struct syslog_time *t, struct timespec *now);

/* Convert a unix time (UTC seconds + fraction) into local time. */
void dt_from_epoch(struct syslog_time *t, time_t secs, uint32_t usecs);

/* Parse an RFC3339 timestamp at *p (at most *len bytes). On success the
 * cursor is advanced past the timestamp (not past a following space) and
 * true is returned; on failure nothing is changed. */
bool dt_parse_rfc3339(const char **p, size_t *len, struct syslog_time *t);

/* Parse an RFC3164 timestamp ("Mmm dd hh:mm:ss" and rsyslog's accepted
 * variants, see REFERENCE-rsyslog.md §6). `year` is used when the
 * timestamp has none (rsyslog: the current year of reception) and the
 * offset is taken from `tz_like` (the reception time). Cursor semantics as
 * dt_parse_rfc3339. */
bool dt_parse_rfc3164(const char **p, size_t *len, struct syslog_time *t,
		      const struct syslog_time *tz_like);

/* Seconds since the epoch (UTC) of a timestamp, honouring its offset. */
time_t dt_to_epoch(const struct syslog_time *t);

/* Formatters: write into `out` (which must hold DT_MAX_LEN bytes), NUL-
 * terminate, and return the length without the NUL. */
#define DT_MAX_LEN 64
size_t dt_fmt_rfc3164(const struct syslog_time *t, char *out);        /* "Mar  1 01:00:00" */
size_t dt_fmt_rfc3164_buggyday(const struct syslog_time *t, char *out); /* "Mar 01 01:00:00" */
size_t dt_fmt_rfc3339(const struct syslog_time *t, char *out);        /* "2003-03-01T01:00:00.123+01:00" */
/* Just the fraction digits of dt_fmt_rfc3339 (none without a fraction). */
size_t dt_fmt_secfrac(const struct syslog_time *t, char *out);
/* The same by rsyslog's rule spelled out (digits counted modulo 6, each
 * "digit" squeezed through a short): what the fast path above must match
 * (tests/unit/test_hotpath.c); 0 when there are no digits. */
size_t dt_fmt_secfrac_general(const struct syslog_time *t, char *out);
size_t dt_fmt_mysql(const struct syslog_time *t, char *out);          /* "20030301010000" */
size_t dt_fmt_pgsql(const struct syslog_time *t, char *out);          /* "2003-03-01 01:00:00" */
size_t dt_fmt_unix(const struct syslog_time *t, char *out);           /* "1046476800" */
size_t dt_fmt_subseconds(const struct syslog_time *t, char *out);     /* fraction digits, "0" if none */

/* Month names "Jan".."Dec" and weekday names "Sun".."Sat". */
extern const char *const dt_month_names[12];
extern const char *const dt_wday_names[7];

#endif
