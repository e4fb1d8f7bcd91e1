/* parser.h — the parser chain: sanitising the raw bytes (control
 * characters, trailing LF), the PRI, and then the message parsers
 * (pmrfc5424, then pmrfc3164 which never fails).
 *
 * Threading: called on queue worker threads, on a message that worker
 * owns exclusively; no shared state besides read-only settings (glbl).
 */
#ifndef SLUICE_PARSER_H
#define SLUICE_PARSER_H

#include <stdbool.h>

struct msg;

/* Sanitise, parse the PRI, and run the default chain. Sets MSG_PARSED.
 * Never fails: what does not parse is kept as well as it parses. */
void parser_parse(struct msg *m);

/* The steps, exposed for tests and for custom parser chains. */
void parser_sanitize(struct msg *m);   /* escaping, trailing LF/NUL */
void parser_parse_pri(struct msg *m);  /* sets pri/facility/severity, off_after_pri */
/* pmrfc5424: returns false (and changes nothing) if the message is not
 * RFC5424 ("1 " after the PRI). */
bool pm_rfc5424_parse(struct msg *m);
/* pmrfc3164: the catch-all, always succeeds. */
void pm_rfc3164_parse(struct msg *m);

/* What the parsers leave in the message (struct msg), for the property
 * getters:
 *  - invalid PRI (>191, non-digit, no '>'): facility 24, severity 7,
 *    pri 199 (rsyslog prints %PRI% and %syslogfacility% as "invld",
 *    pri-text "invld.debug", syslogseverity 7), off_after_pri 0;
 *    pmrfc3164 then parses nothing: msg = whole raw.
 *  - RFC3164 (protocol_version 0): hostname span or MSG_HOST_IS_FROMHOST;
 *    tag span (may be empty; MSG_HAS_TAG when non-empty), programname_len.
 *    After a year-first timestamp rsyslog's tag can take in the message's
 *    terminating NUL: the tag span may then end at raw_len + 1 (the NUL
 *    is part of the value, as rsyslog writes it);
 *    app_name/procid/msgid/sd have len 0 (derive them from the tag as
 *    rsyslog does: app-name = programname or "-", procid = text between
 *    the first '[' and the following ']' of the tag or "-", msgid "-",
 *    structured-data "-").
 *  - RFC5424 (protocol_version 1), timestamp valid: MSG_HOST_IS_FROMHOST
 *    clear; hostname/app_name/procid/msgid/sd spans as in the message
 *    (a nil field is the literal "-"; a field may be empty). rsyslog then
 *    prints an empty APP-NAME as "-", the others as they are (empty).
 *    If the SD field starts with neither '[' nor '-', rsyslog reports the
 *    MSGID again as STRUCTURED-DATA: sd is then a copy of the msgid span.
 *    tag span is empty: rsyslog's syslogtag is app-name "[" procid "]"
 *    (just app-name when procid is "-"), without ':'.
 *  - RFC5424 with an invalid timestamp: MSG_HOST_IS_FROMHOST set, all
 *    other spans len 0, msg = from the bad timestamp on; rsyslog prints
 *    APP-NAME "" and PROCID/MSGID/STRUCTURED-DATA "-", syslogtag "".
 *  - rawmsg-after-pri: rsyslog does not use off_after_pri for it but
 *    recomputes it from raw (skip "<x>", "<xx>" or "<xxx>" if raw starts
 *    with '<'); off_after_pri is where the parsers started. */

/* rsyslog-exact timestamp scanners for the parser modules (datetime.c).
 * Like dt_parse_rfc3339/dt_parse_rfc3164, but they also consume the one
 * SP that must follow the timestamp, and keep rsyslog's count of the
 * bytes left in *len (which a year-first RFC3164 timestamp overstates by
 * one). Bytes at or after `end` read as NUL. */
struct syslog_time;
bool dt_scan_rfc3339_rs(const char **p, int *len, const char *end, struct syslog_time *t);
bool dt_scan_rfc3164_rs(const char **p, int *len, const char *end, struct syslog_time *t,
			const struct syslog_time *tz_like);

#endif
