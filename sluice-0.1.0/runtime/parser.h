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

/* Sanitise, parse the PRI, and run the parser chain of the message's
 * ruleset (m->ruleset; the default chain pmrfc5424, pmrfc3164 when it has
 * none). Sets MSG_PARSED. With the default chain it never fails: what does
 * not parse is kept as well as it parses. Returns false when a custom
 * chain has no parser that takes the message: the caller reports it
 * (rsyslog: "one message could not be processed by any parser, message
 * is being discarded") but, as rsyslog 8.2302 actually does, still runs
 * the message, unparsed: HOSTNAME = fromhost, empty TAG, protocol 0,
 * MSG = the raw message (rsyslog's MSG is then off by one byte, read
 * from before its buffer: doc/differences.md). */
bool parser_parse(struct msg *m);

/* ---- parser instances and chains (parser() objects, ruleset parser=) ----
 * A parser instance is a parser module with its settings: the built-in
 * "rsyslog.rfc5424" and "rsyslog.rfc3164" and those made by parser()
 * objects. A chain is a small array of instances, tried in order until one
 * takes the message. Built at config load by the main thread, read-only
 * afterwards. */
enum parser_kind { PARSER_RFC5424, PARSER_RFC3164 };

/* pmrfc3164's parameters (rsyslog 8.2302), all off by default. */
struct pm_rfc3164_opts {
	bool detect_year_after_ts;     /* detect.YearAfterTimestamp */
	bool permit_sq_brackets;       /* permit.squareBracketsInHostname */
	bool permit_slashes;           /* permit.slashesInHostname */
	bool permit_atsigns;           /* permit.AtSignsInHostname */
	bool force_tag_colon;          /* force.tagEndingByColon */
	bool remove_msg_first_space;   /* remove.msgFirstSpace */
};

struct parser_inst {
	char *name;
	enum parser_kind kind;
	struct pm_rfc3164_opts o3164;
	struct parser_inst *next;
};

#define PARSER_CHAIN_MAX 16
struct parser_chain {
	int n;
	const struct parser_inst *p[PARSER_CHAIN_MAX];
};

struct cfg_obj;
struct cfg_pos;
struct cfg_param;
/* A parser() object: checks name=/type= and the module's parameters
 * (errors with FILE:LINE, counted in *n_errors) and registers it. */
void parser_create_from_obj(struct cfg_obj *o, int *n_errors);
/* Instance by name (case-insensitive), built-ins included; NULL if none. */
const struct parser_inst *parser_lookup(const char *name);
/* Append instance `name` to *chain (allocated on first use); reports an
 * unknown name (with the closest known one) or a full chain at `pos`.
 * Returns false on error. */
bool parser_chain_add(struct parser_chain **chain, const char *name, const struct cfg_pos *pos);
/* Free all parser() instances (the built-ins are static). */
void parser_destroy_all(void);

/* The steps, exposed for tests and for custom parser chains. */
void parser_sanitize(struct msg *m);   /* escaping, trailing LF/NUL */
void parser_parse_pri(struct msg *m);  /* sets pri/facility/severity, off_after_pri */
/* pmrfc5424: returns false (and changes nothing) if the message is not
 * RFC5424 ("1 " after the PRI). */
bool pm_rfc5424_parse(struct msg *m);
/* pmrfc3164: the catch-all, always succeeds. pm_rfc3164_parse_opts runs
 * it with a parser() instance's settings (NULL = the defaults). */
void pm_rfc3164_parse(struct msg *m);
void pm_rfc3164_parse_opts(struct msg *m, const struct pm_rfc3164_opts *o);

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
/* As dt_scan_rfc3164_rs, with rsyslog's bDetectYearAfterTime: a year
 * 2000..2099 after the time ("Mmm dd hh:mm:ss yyyy ") is taken too. */
bool dt_scan_rfc3164_rs_year(const char **p, int *len, const char *end, struct syslog_time *t,
			     const struct syslog_time *tz_like, bool detect_year_after);

#endif
