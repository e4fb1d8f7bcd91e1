/* prop.h — message properties: names resolved to ids at config load, and
 * the getter that yields a property's value for a message.
 *
 * Threading: prop_get() is reentrant; it reads the message and writes only
 * into the caller's scratch buffer. The global variables ($/) are guarded
 * by a lock inside prop.c.
 */
#ifndef SLUICE_PROP_H
#define SLUICE_PROP_H

#include <stddef.h>
#include <stdbool.h>
#include "sbuf.h"

struct msg;

enum prop_id {
	PROP_INVALID = 0,
	PROP_MSG,
	PROP_RAWMSG,
	PROP_RAWMSG_AFTER_PRI,
	PROP_HOSTNAME,          /* alias: source */
	PROP_FROMHOST,
	PROP_FROMHOST_IP,
	PROP_SYSLOGTAG,
	PROP_PROGRAMNAME,
	PROP_PRI,
	PROP_PRI_TEXT,
	PROP_IUT,
	PROP_SYSLOGFACILITY,
	PROP_SYSLOGFACILITY_TEXT,
	PROP_SYSLOGSEVERITY,    /* alias: syslogpriority */
	PROP_SYSLOGSEVERITY_TEXT, /* alias: syslogpriority-text */
	PROP_TIMEREPORTED,      /* alias: timestamp */
	PROP_TIMEGENERATED,
	PROP_PROTOCOL_VERSION,
	PROP_STRUCTURED_DATA,
	PROP_APP_NAME,
	PROP_PROCID,
	PROP_MSGID,
	PROP_INPUTNAME,
	PROP_JSONMESG,
	PROP_PARSESUCCESS,
	PROP_UUID,
	PROP_SYS_NOW,           /* $now ... system properties: time = now */
	PROP_SYS_YEAR,
	PROP_SYS_MONTH,
	PROP_SYS_DAY,
	PROP_SYS_HOUR,
	PROP_SYS_HHOUR,
	PROP_SYS_QHOUR,
	PROP_SYS_MINUTE,
	PROP_SYS_WDAY,
	PROP_SYS_NOW_UTC,
	PROP_SYS_YEAR_UTC,
	PROP_SYS_MONTH_UTC,
	PROP_SYS_DAY_UTC,
	PROP_SYS_HOUR_UTC,
	PROP_SYS_HHOUR_UTC,
	PROP_SYS_QHOUR_UTC,
	PROP_SYS_MINUTE_UTC,
	PROP_SYS_WDAY_UTC,
	PROP_SYS_NOW_UNIXTIMESTAMP,
	PROP_SYS_MYHOSTNAME,
	PROP_SYS_BOM,
	PROP_SYS_UPTIME,
	PROP_CEE,               /* $!path  (path in prop_ref.path) */
	PROP_LOCAL_VAR,         /* $.path */
	PROP_GLOBAL_VAR,        /* $/path */
	PROP_CEE_ALL_JSON,      /* $!all-json */
	PROP_CEE_ALL_JSON_PLAIN,
	PROP_MAX
};

/* A resolved reference to a property, made once at config load. */
struct prop_ref {
	enum prop_id id;
	char *path;   /* for variables: the path without the sigil, e.g. "a!b"; "" = root */
};

/* A variable ($!, $. or $/), as opposed to a property of the message. */
static inline bool prop_is_var(enum prop_id id)
{
	return id == PROP_CEE || id == PROP_LOCAL_VAR || id == PROP_GLOBAL_VAR;
}

/* Resolve a property name as written in a config ("msg", "HOSTNAME",
 * "$!foo!bar", "$.x", "$/y", "$now", "timestamp", ...), case-insensitive.
 * Returns false if the name is unknown. `ref->path` is malloc'd for
 * variables (free with prop_ref_free). */
bool prop_ref_parse(const char *name, size_t len, struct prop_ref *ref);
void prop_ref_free(struct prop_ref *ref);
/* The property name closest to a misspelt one (for "did you mean"
 * hints), or NULL. */
const char *prop_suggest(const char *name);

/* The canonical name of a property id (for messages and jsonf outnames). */
const char *prop_name(enum prop_id id);

/* Value of a property. The result points either into the message (no
 * copy) or into `scratch`, which the caller owns and reuses; it is valid
 * until the message is released or scratch is next used. Never NULL: an
 * absent property yields "" (or what rsyslog yields, e.g. "-" for an
 * absent 5424 field). Timestamps come in their default form (RFC3164). */
const char *prop_get(const struct msg *m, const struct prop_ref *ref,
		     size_t *len, struct sbuf *scratch);

/* Find the node at a '!'-separated path ("" = `root` itself) in a JSON
 * tree; NULL if absent. Does not take references. */
struct fjson_object;
struct fjson_object *prop_json_find(struct fjson_object *root, const char *path);

/* The global variables ($/): a JSON tree guarded by one lock. Whoever
 * reads or writes *prop_globals_root() must hold the lock. */
void prop_globals_lock(void);
void prop_globals_unlock(void);
struct fjson_object **prop_globals_root(void);

#endif
