/* internal_msg.h — messages the daemon makes about itself for the log
 * stream (rsyslog's "internal messages": inputname "rsyslogd", HOSTNAME
 * and fromhost the local host name, fromhost-ip 127.0.0.1, TAG
 * "rsyslogd:" or "rsyslogd-ERRNO:", MSG the text without a leading SP),
 * used by the network inputs for notifyOnConnectionOpen/Close and the
 * rate limiter's reports.
 *
 * The message is built as "<PRI>TAG TEXT", parsed at once like impstats'
 * lines (MSG_NO_HOSTNAME_PARSE: TAG and MSG only), the SP before the text
 * is taken out of MSG, and it is flagged MSG_INTERNAL. It goes to the
 * default ruleset with FLOW_NO_DELAY: an input thread is never blocked by
 * its own diagnostics (a full queue discards and counts it). Differences
 * from rsyslog: %rawmsg% holds "<PRI>TAG TEXT" (rsyslog: TEXT).
 *
 * Header-only so a plugin gets it without a new core object. Threading:
 * callable from any thread; one origin and one malloc per message, so for
 * rare events only (never per received message).
 */
#ifndef SLUICE_INTERNAL_MSG_H
#define SLUICE_INTERNAL_MSG_H

#include <stdarg.h>
#include <stdio.h>
#include "glbl.h"
#include "input.h"
#include "msg.h"
#include "parser.h"
#include "stats.h"

#define INTMSG_PRI_INFO (5 * 8 + 6) /* syslog.info, rsyslog's LOG_INFO internal messages */
#define INTMSG_PRI_ERR (5 * 8 + 3)  /* syslog.err, rsyslog's LogError() */

/* Submit one internal message. `errcode` > 0 makes the TAG
 * "rsyslogd-ERRCODE:" as rsyslog does for messages with an error code. */
static inline void __attribute__((format(printf, 3, 4)))
internal_msg(int pri, int errcode, const char *fmt, ...)
{
	char buf[2048];
	int hl = errcode > 0 ? snprintf(buf, sizeof(buf), "<%d>rsyslogd-%d: ", pri, errcode)
			     : snprintf(buf, sizeof(buf), "<%d>rsyslogd: ", pri);
	va_list ap;
	va_start(ap, fmt);
	int tl = vsnprintf(buf + hl, sizeof(buf) - (size_t)hl, fmt, ap);
	va_end(ap);
	if (tl < 0)
		return;
	size_t len = (size_t)hl + ((size_t)tl < sizeof(buf) - (size_t)hl ? (size_t)tl
									  : sizeof(buf) - (size_t)hl - 1);
	struct msg_origin *o = msg_origin_create(glbl_local_hostname(), "127.0.0.1", "rsyslogd", NULL);
	if (!o)
		return;
	struct msg *m = msg_create(buf, len, o, NULL, 0);
	msg_origin_release(o); /* the message holds its own reference */
	if (!m)
		return;
	m->flags |= MSG_NO_HOSTNAME_PARSE;
	parser_parse(m);
	if (m->msg.len > 0 && m->raw[m->msg.off] == ' ') { /* rsyslog's MSG has no leading SP */
		m->msg.off++;
		m->msg.len--;
	}
	m->flags |= MSG_INTERNAL;
	atomic_fetch_add(&stats_internal_msgs, 1);
	(void)input_submit(&m, 1, FLOW_NO_DELAY);
}

#endif
