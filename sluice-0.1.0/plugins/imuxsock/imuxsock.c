/* imuxsock.c — local syslog over unix datagram sockets: the system socket
 * (/dev/log by default, SysSock.* module parameters) and extra sockets
 * (input(type="imuxsock" Socket=...)), as rsyslog 8.2302's imuxsock.
 *
 * Each datagram is one message. Credentials of the sender arrive with
 * each datagram (SO_PASSCRED / SCM_CREDENTIALS) and give: the discarding
 * of our own messages (IgnoreOwnMessages), the pid written into the tag
 * (UsePIDFromSystem), the trusted properties (Annotate: appended as
 * " @[_PID=.. _UID=.. _GID=.. _COMM=.. _EXE=.. _CMDLINE=".."]", or with
 * ParseTrusted as $!pid, $!uid, $!gid, $!appname, $!exe, $!cmd) and rate
 * limiting per sending process (RateLimit.Interval/Burst/Severity).
 *
 * Parsing: with UseSpecialParser (the default) the message is parsed
 * here, exactly as rsyslogd 8.2302's "log socket" parser does (checked
 * against rsyslogd): PRI (the first byte is skipped whatever it is),
 * timestamp skipped (with UseSysTimeStamp, the default, rsyslog then
 * steps 16 bytes and keeps its byte count, which shifts the MSG of an
 * RFC3339 timestamp; reproduced), TAG up to the first SP — no HOSTNAME:
 * the host is the local host (or HostName=) — and the rest is MSG.
 * RFC5424 messages are not recognised by that parser (tag "1"), as in
 * rsyslog. With UseSpecialParser="off" the normal parser chain runs; the
 * message then carries MSG_NO_HOSTNAME_PARSE unless ParseHostname="on"
 * and MSG_IGNORE_DATE when IgnoreTimestamp is on.
 *
 * Threading: every listener (each input() and the system socket) is an
 * input instance with its own thread (in_run), its own receive buffers,
 * batch and per-process rate-limit table: nothing is shared between
 * threads but the statistics (atomics) and the stop flag. in_start /
 * in_stop / in_destroy and the configuration run on the main thread.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* recvmmsg, struct ucred */
#endif
#include "sdnotify.h"
#include "stats.h"
#include "sluice.h"
#include "module.h"
#include "input.h"
#include "msg.h"
#include "glbl.h"
#include "log.h"
#include "net.h"
#include "ast.h"
#include "parser.h"
#include "datetime.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <json.h>

#define UX_BATCH 32
#define UX_TAG_MAX 511             /* CONF_TAG_MAXSIZE - 1 */
#define UX_TAG_ROOM (UX_TAG_MAX + 32)
#define UX_RL_SLOTS 1024           /* per-process rate limiters per listener */
#define UX_ANNOTATE_ROOM (3 + 96 + 7 + 1023 + 6 + 1023 + 12 + 2 * 1023 + 2)

/* ---- configuration ---- */

struct ux_mod_cfg {
	bool sys_use;
	bool omit_local;            /* $OmitLocalLogging (inverse of SysSock.Use) */
	char *sys_name;
	bool sys_unlink;
	bool sys_use_pid;
	bool sys_parse_trusted;
	bool sys_annotate;
	bool sys_flow;
	bool sys_ignore_ts;
	bool sys_use_sys_ts;
	bool sys_ignore_own;
	bool sys_parse_host;
	bool sys_special;
	int64_t sys_rl_interval, sys_rl_burst, sys_rl_sev;
};

#define MOFF(f) offsetof(struct ux_mod_cfg, f)
static const struct param_desc ux_mod_params[] = {
	{ "SysSock.Use", PARAM_BINARY, "on", 0, MOFF(sys_use), "listen on the system log socket" },
	{ "SysSock.Name", PARAM_STRING, "/dev/log", 0, MOFF(sys_name), "path of the system log socket" },
	{ "SysSock.Unlink", PARAM_BINARY, "on", 0, MOFF(sys_unlink), "remove the socket before bind and at exit" },
	{ "SysSock.UsePIDFromSystem", PARAM_BINARY, "off", 0, MOFF(sys_use_pid), "write the sender's real pid into the tag" },
	{ "SysSock.ParseTrusted", PARAM_BINARY, "off", 0, MOFF(sys_parse_trusted), "trusted properties as $! fields (with Annotate)" },
	{ "SysSock.Annotate", PARAM_BINARY, "off", 0, MOFF(sys_annotate), "add the trusted properties" },
	{ "SysSock.FlowControl", PARAM_BINARY, "off", 0, MOFF(sys_flow), "slow senders (up to 1 s a batch) above the queue's lightDelayMark" },
	{ "SysSock.IgnoreTimestamp", PARAM_BINARY, "on", 0, MOFF(sys_ignore_ts), "timereported is the reception time" },
	{ "SysSock.UseSysTimeStamp", PARAM_BINARY, "on", 0, MOFF(sys_use_sys_ts), "use the system's reception time" },
	{ "SysSock.IgnoreOwnMessages", PARAM_BINARY, "on", 0, MOFF(sys_ignore_own), "drop messages sent by sluiced itself" },
	{ "SysSock.ParseHostname", PARAM_BINARY, "off", 0, MOFF(sys_parse_host), "parse a HOSTNAME (only without the special parser)" },
	{ "SysSock.UseSpecialParser", PARAM_BINARY, "on", 0, MOFF(sys_special), "rsyslog's log-socket parser (no hostname)" },
	{ "SysSock.RateLimit.Interval", PARAM_INT, "0", 0, MOFF(sys_rl_interval), "per-process rate-limit interval (s, 0 = off)" },
	{ "SysSock.RateLimit.Burst", PARAM_INT, "200", 0, MOFF(sys_rl_burst), "messages per interval and process" },
	{ "SysSock.RateLimit.Severity", PARAM_INT, "1", 0, MOFF(sys_rl_sev), "only severities >= this are limited" },
	{ "omitlocallogging", PARAM_BINARY, "off", PARAM_LEGACY, MOFF(omit_local), "$OmitLocalLogging" },
	{ "systemlogsocketname", PARAM_STRING, "/dev/log", PARAM_LEGACY, MOFF(sys_name), "$SystemLogSocketName" },
	{ "systemlogsocketflowcontrol", PARAM_BINARY, "off", PARAM_LEGACY, MOFF(sys_flow), "$SystemLogSocketFlowControl" },
	{ "systemlogusesystimestamp", PARAM_BINARY, "on", PARAM_LEGACY, MOFF(sys_use_sys_ts), "$SystemLogUseSysTimeStamp" },
	{ "systemlogsocketannotate", PARAM_BINARY, "off", PARAM_LEGACY, MOFF(sys_annotate), "$SystemLogSocketAnnotate" },
	{ "systemlogparsetrusted", PARAM_BINARY, "off", PARAM_LEGACY, MOFF(sys_parse_trusted), "$SystemLogParseTrusted" },
	{ "systemlogusepidfromsystem", PARAM_BINARY, "off", PARAM_LEGACY, MOFF(sys_use_pid), "$SystemLogUsePIDFromSystem" },
	{ "systemlogsocketignoremsgtimestamp", PARAM_BINARY, "on", PARAM_LEGACY, MOFF(sys_ignore_ts), "$SystemLogSocketIgnoreMsgTimestamp" },
	{ "systemlogratelimitinterval", PARAM_INT, "0", PARAM_LEGACY, MOFF(sys_rl_interval), "$SystemLogRateLimitInterval" },
	{ "systemlogratelimitburst", PARAM_INT, "200", PARAM_LEGACY, MOFF(sys_rl_burst), "$SystemLogRateLimitBurst" },
	{ "systemlogratelimitseverity", PARAM_INT, "1", PARAM_LEGACY, MOFF(sys_rl_sev), "$SystemLogRateLimitSeverity" },
};
static const struct param_table ux_mod_table = PARAM_TABLE(ux_mod_params, struct ux_mod_cfg);

struct ux_inst_cfg {
	char *socket;
	char *ruleset;
	char *hostname;
	bool create_path;
	bool unlink_sock;
	bool use_pid;
	bool parse_trusted;
	bool annotate;
	bool flow;
	bool ignore_ts;
	bool use_sys_ts;
	bool ignore_own;
	bool parse_host;
	bool special;
	int64_t rl_interval, rl_burst, rl_sev;
};

#define IOFF(f) offsetof(struct ux_inst_cfg, f)
static const struct param_desc ux_inst_params[] = {
	{ "Socket", PARAM_STRING, NULL, 0, IOFF(socket), "path of the unix datagram socket (required)" },
	{ "Ruleset", PARAM_RULESET, NULL, 0, IOFF(ruleset), "ruleset to bind to" },
	{ "HostName", PARAM_STRING, NULL, 0, IOFF(hostname), "hostname of the messages (default: the local host)" },
	{ "CreatePath", PARAM_BINARY, "off", 0, IOFF(create_path), "create missing directories of the socket path" },
	{ "Unlink", PARAM_BINARY, "on", 0, IOFF(unlink_sock), "remove the socket before bind and at exit" },
	{ "UsePIDFromSystem", PARAM_BINARY, "off", 0, IOFF(use_pid), "write the sender's real pid into the tag" },
	{ "ParseTrusted", PARAM_BINARY, "off", 0, IOFF(parse_trusted), "trusted properties as $! fields (with Annotate)" },
	{ "Annotate", PARAM_BINARY, "off", 0, IOFF(annotate), "add the trusted properties" },
	{ "FlowControl", PARAM_BINARY, "off", 0, IOFF(flow), "slow senders (up to 1 s a batch) above the queue's lightDelayMark" },
	{ "IgnoreTimestamp", PARAM_BINARY, "on", 0, IOFF(ignore_ts), "timereported is the reception time" },
	{ "UseSysTimeStamp", PARAM_BINARY, "on", 0, IOFF(use_sys_ts), "use the system's reception time" },
	{ "IgnoreOwnMessages", PARAM_BINARY, "on", 0, IOFF(ignore_own), "drop messages sent by sluiced itself" },
	{ "ParseHostname", PARAM_BINARY, "off", 0, IOFF(parse_host), "parse a HOSTNAME (only without the special parser)" },
	{ "UseSpecialParser", PARAM_BINARY, "on", 0, IOFF(special), "rsyslog's log-socket parser (no hostname)" },
	{ "RateLimit.Interval", PARAM_INT, "0", 0, IOFF(rl_interval), "per-process rate-limit interval (s, 0 = off)" },
	{ "RateLimit.Burst", PARAM_INT, "200", 0, IOFF(rl_burst), "messages per interval and process" },
	{ "RateLimit.Severity", PARAM_INT, "1", 0, IOFF(rl_sev), "only severities >= this are limited" },
	{ "addunixlistensocket", PARAM_STRING, NULL, PARAM_LEGACY, IOFF(socket), "$AddUnixListenSocket (creates an input)" },
	{ "inputunixlistensockethostname", PARAM_STRING, NULL, PARAM_LEGACY, IOFF(hostname), "$InputUnixListenSocketHostName" },
	{ "inputunixlistensocketannotate", PARAM_BINARY, "off", PARAM_LEGACY, IOFF(annotate), "$InputUnixListenSocketAnnotate" },
	{ "inputunixlistensocketcreatepath", PARAM_BINARY, "off", PARAM_LEGACY, IOFF(create_path), "$InputUnixListenSocketCreatePath" },
	{ "inputunixlistensocketflowcontrol", PARAM_BINARY, "off", PARAM_LEGACY, IOFF(flow), "$InputUnixListenSocketFlowControl" },
	{ "inputunixlistensocketignoremsgtimestamp", PARAM_BINARY, "on", PARAM_LEGACY, IOFF(ignore_ts), "$InputUnixListenSocketIgnoreMsgTimestamp" },
	{ "inputunixlistensocketusepidfromsystem", PARAM_BINARY, "off", PARAM_LEGACY, IOFF(use_pid), "$InputUnixListenSocketUsePIDFromSystem" },
	{ "inputunixlistensocketusesystimestamp", PARAM_BINARY, "on", PARAM_LEGACY, IOFF(use_sys_ts), "$InputUnixListenSocketUseSysTimeStamp" },
	{ "imuxsockratelimitinterval", PARAM_INT, "0", PARAM_LEGACY, IOFF(rl_interval), "$IMUXSockRateLimitInterval" },
	{ "imuxsockratelimitburst", PARAM_INT, "200", PARAM_LEGACY, IOFF(rl_burst), "$IMUXSockRateLimitBurst" },
	{ "imuxsockratelimitseverity", PARAM_INT, "1", PARAM_LEGACY, IOFF(rl_sev), "$IMUXSockRateLimitSeverity" },
};
static const struct param_table ux_inst_table = PARAM_TABLE(ux_inst_params, struct ux_inst_cfg);

/* ---- runtime ---- */

struct ux_pid_rl {
	pid_t pid;                  /* 0 = free */
	time_t begin;
	int64_t done, lost;
};

struct ux_stats {
	atomic_uint_fast64_t received;
	atomic_uint_fast64_t submitted;
	atomic_uint_fast64_t own_discarded;
	atomic_uint_fast64_t ratelimited;
	atomic_uint_fast64_t truncated;
	atomic_uint_fast64_t discarded_nomem;
};

union ux_cmsg {
	char buf[CMSG_SPACE(sizeof(struct ucred)) + 64];
	struct cmsghdr align;
};

/* One listening socket: an input() or the system socket. */
struct ux_input {
	struct ux_inst_cfg *cfg;    /* for the system socket: made from the module's */
	bool is_syssock;
	char who[160];
	struct ruleset *ruleset;
	struct msg_origin *origin;  /* one for all its messages */
	enum flow_ctl fc;
	int fd;
	int wake_fd;
	atomic_bool stopping;
	size_t bufsize;             /* maxMessageSize */
	char *bufs;                 /* UX_BATCH * bufsize */
	char *scratch;              /* annotation / tag assembly */
	struct mmsghdr hdrs[UX_BATCH];
	struct iovec iovs[UX_BATCH];
	union ux_cmsg cmsgs[UX_BATCH];
	struct msg *batch[UX_BATCH];
	struct ux_pid_rl *rl;       /* UX_RL_SLOTS, only with rate limiting */
	struct ux_stats stats;
	struct stats_obj *stats_obj; /* statistics registry entry (stats.h) */
	bool activated;             /* fd passed by systemd (socket activation) */
};

/* ---- module ---- */

static void *ux_mod_init(void *mod_cfg, int *n_errors)
{
	(void)n_errors;
	return mod_cfg ? mod_cfg : param_defaults(&ux_mod_table);
}

static void ux_mod_exit(void *mod)
{
	param_free(&ux_mod_table, mod);
}

static struct cfg_param *find_param(struct cfg_obj *o, const char *name)
{
	for (struct cfg_param *p = o->params; p; p = p->next)
		if (strcasecmp(p->name, name) == 0)
			return p;
	return NULL;
}

static struct ux_input *ux_new(struct ux_inst_cfg *c, bool syssock)
{
	struct ux_input *in = sl_xcalloc(1, sizeof(*in));
	in->cfg = c;
	in->is_syssock = syssock;
	in->fd = -1;
	in->wake_fd = -1;
	in->fc = c->flow ? FLOW_LIGHT_DELAY : FLOW_NO_DELAY; /* as rsyslog */
	snprintf(in->who, sizeof(in->who), "imuxsock %s", c->socket ? c->socket : "?");
	return in;
}

static void *ux_in_create(void *mod, void *cfg, struct cfg_obj *o, int *n_errors)
{
	struct ux_inst_cfg *c = cfg;
	(void)mod;
	if (!c)
		return NULL;
	if (!c->socket || !*c->socket) {
		cfg_error(&o->pos, "imuxsock: parameter 'Socket' required but not specified");
		(*n_errors)++;
		param_free(&ux_inst_table, c);
		return NULL;
	}
	struct ruleset *rs = NULL;
	if (c->ruleset && !(rs = ruleset_lookup(c->ruleset))) {
		struct cfg_param *p = find_param(o, "ruleset");
		cfg_error(p ? &p->pos : &o->pos, "imuxsock: ruleset '%s' is not defined", c->ruleset);
		(*n_errors)++;
		param_free(&ux_inst_table, c);
		return NULL;
	}
	struct ux_input *in = ux_new(c, false);
	in->ruleset = rs;
	return in;
}

/* The system socket, unless SysSock.Use="off" / $OmitLocalLogging on. */
static void *ux_mod_input(void *mod, int *n_errors)
{
	struct ux_mod_cfg *m = mod;
	(void)n_errors;
	if (!m || !m->sys_use || m->omit_local)
		return NULL;
	struct ux_inst_cfg *c = param_defaults(&ux_inst_table);
	c->socket = sl_xstrdup(m->sys_name ? m->sys_name : "/dev/log");
	c->unlink_sock = m->sys_unlink;
	c->use_pid = m->sys_use_pid;
	c->parse_trusted = m->sys_parse_trusted;
	c->annotate = m->sys_annotate;
	c->flow = m->sys_flow;
	c->ignore_ts = m->sys_ignore_ts;
	c->use_sys_ts = m->sys_use_sys_ts;
	c->ignore_own = m->sys_ignore_own;
	c->parse_host = m->sys_parse_host;
	c->special = m->sys_special;
	c->rl_interval = m->sys_rl_interval;
	c->rl_burst = m->sys_rl_burst;
	c->rl_sev = m->sys_rl_sev;
	return ux_new(c, true);
}

/* ---- trusted properties ---- */

/* /proc/PID/NAME up to the first LF, control characters as SP; as
 * rsyslog's getTrustedProp. Returns the length or -1. */
static int proc_prop(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	int i;
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n')
			break;
		if (iscntrl((unsigned char)buf[i]))
			buf[i] = ' ';
	}
	buf[i] = '\0';
	return i;
}

static int proc_exe(pid_t pid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
	ssize_t n = readlink(path, buf, size - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

/* Append " @[_PID=.. _UID=.. _GID=.. _COMM=.. _EXE=.. _CMDLINE=".."]" to
 * out[0..len) (out has UX_ANNOTATE_ROOM bytes beyond len). */
static size_t annotate(char *out, size_t len, const struct ucred *cr)
{
	char prop[1024];
	int n;
	char *p = out + len;
	p += sprintf(p, " @[_PID=%lu _UID=%lu _GID=%lu", (unsigned long)cr->pid,
		     (unsigned long)cr->uid, (unsigned long)cr->gid);
	if ((n = proc_prop(cr->pid, "comm", prop, sizeof(prop))) >= 0) {
		memcpy(p, " _COMM=", 7);
		memcpy(p + 7, prop, (size_t)n);
		p += 7 + n;
	}
	if ((n = proc_exe(cr->pid, prop, sizeof(prop))) >= 0) {
		memcpy(p, " _EXE=", 6);
		memcpy(p + 6, prop, (size_t)n);
		p += 6 + n;
	}
	if ((n = proc_prop(cr->pid, "cmdline", prop, sizeof(prop))) >= 0) {
		memcpy(p, " _CMDLINE=\"", 11);
		p += 11;
		for (int i = 0; i < n; i++) {
			if (prop[i] == '"' || prop[i] == '\\')
				*p++ = '\\';
			*p++ = prop[i];
		}
		*p++ = '"';
	}
	*p++ = ']';
	return (size_t)(p - out);
}

static struct fjson_object *trusted_json(const struct ucred *cr)
{
	char prop[1024];
	struct fjson_object *j = json_object_new_object();
	if (!j)
		return NULL;
	json_object_object_add(j, "pid", json_object_new_int((int32_t)cr->pid));
	json_object_object_add(j, "uid", json_object_new_int((int32_t)cr->uid));
	json_object_object_add(j, "gid", json_object_new_int((int32_t)cr->gid));
	if (proc_prop(cr->pid, "comm", prop, sizeof(prop)) >= 0)
		json_object_object_add(j, "appname", json_object_new_string(prop));
	if (proc_exe(cr->pid, prop, sizeof(prop)) >= 0)
		json_object_object_add(j, "exe", json_object_new_string(prop));
	if (proc_prop(cr->pid, "cmdline", prop, sizeof(prop)) >= 0)
		json_object_object_add(j, "cmd", json_object_new_string(prop));
	return j;
}

/* ---- parsing ---- */

static uint32_t programname_len(const char *tag, uint32_t len)
{
	uint32_t i;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)tag[i];
		if (c < 0x20 || c > 0x7e || c == ':' || c == '[')
			break;
		if (c == '/' && !glbl.permit_slash_in_programname)
			break;
	}
	return i;
}

/* rsyslog's fixPID: "[pid]:" replaces the tag from its last '[' (or its
 * last byte, assumed ':'). `tag` has room for UX_TAG_ROOM bytes. */
static uint32_t fix_pid(char *tag, uint32_t len, pid_t pid)
{
	char b[32];
	int lp = snprintf(b, sizeof(b), "[%lu]:", (unsigned long)pid);
	int i;
	for (i = (int)len - 1; i >= 0 && tag[i] != '['; --i)
		;
	if (i < 0)
		i = len > 0 ? (int)len - 1 : 0;
	if (i + lp > UX_TAG_MAX + 1)
		return len; /* would not fit: leave it, as rsyslog */
	memcpy(tag + i, b, (size_t)lp);
	return (uint32_t)(i + lp);
}

/* The severity of raw bytes for rate limiting (rsyslog parses the PRI
 * the same loose way). */
static int raw_severity(const char *p, size_t len)
{
	int pri = 0;
	for (size_t i = 1; i < len && i < 5 && p[i] >= '0' && p[i] <= '9'; i++)
		pri = pri * 10 + (p[i] - '0');
	return pri & 7;
}

/* rsyslog's log-socket parser, on the sanitised raw of m. */
static void special_parse(struct ux_input *in, struct msg *m)
{
	const struct ux_inst_cfg *c = in->cfg;
	const char *raw = m->raw;
	const char *end = raw + m->raw_len;
	int len = (int)m->raw_len;
	int off = 1; /* the '<', whatever the byte is */
	int pri = 0;

	while (off < len && raw[off] >= '0' && raw[off] <= '9') {
		if (pri < 10000)
			pri = pri * 10 + (raw[off] - '0');
		off++;
	}
	if (pri > 191) {
		m->facility = MSG_FACILITY_INVALID;
		m->severity = 7;
		m->pri = 199;
	} else {
		m->facility = (uint8_t)(pri >> 3);
		m->severity = (uint8_t)(pri & 7);
		m->pri = (uint16_t)pri;
	}
	m->off_after_pri = (uint32_t)(off + 1 < len ? off + 1 : len);
	const char *p = raw + m->off_after_pri;
	int l = len - (int)m->off_after_pri; /* '>' */

	struct syslog_time dummy;
	if (c->use_sys_ts) {
		/* rsyslog rewrites a valid timestamp with the system time and
		 * steps 16 bytes, keeping the count of the parsed length */
		const char *tp = p;
		int tl = l;
		if (dt_scan_rfc3339_rs(&tp, &tl, end, &dummy) ||
		    dt_scan_rfc3164_rs(&tp, &tl, end, &dummy, &m->t_received)) {
			p = p + 16 <= end ? p + 16 : end;
			l = tl;
		}
	} else {
		struct syslog_time *t = c->ignore_ts ? &dummy : &m->t_reported;
		if (!dt_scan_rfc3339_rs(&p, &l, end, t))
			dt_scan_rfc3164_rs(&p, &l, end, t, &m->t_received);
		if (p > end)
			p = end;
	}
	uint32_t tag_off = (uint32_t)(p - raw);
	uint32_t i = 0;
	while (l > 0 && p < end && *p != ' ' && i < UX_TAG_MAX) {
		p++;
		l--;
		i++;
	}
	m->protocol_version = 0;
	m->flags |= MSG_PARSED | MSG_HOST_IS_FROMHOST;
	m->tag.off = tag_off;
	m->tag.len = i;
	if (i)
		m->flags |= MSG_HAS_TAG;
	if (l < 0)
		l = 0;
	if (l > len)
		l = len;
	m->msg.off = (uint32_t)(len - l);
	m->msg.len = (uint32_t)l;
	m->programname_len = programname_len(raw + m->tag.off, m->tag.len);
}

/* Per-process rate limiting: may this message of `pid` pass? */
static bool pid_rl_pass(struct ux_input *in, pid_t pid, int sev, time_t now)
{
	const struct ux_inst_cfg *c = in->cfg;
	if (!in->rl || sev < c->rl_sev)
		return true;
	struct ux_pid_rl *r = &in->rl[((uint32_t)pid * 2654435761u) % UX_RL_SLOTS];
	if (r->pid != pid) {
		memset(r, 0, sizeof(*r)); /* a new process (or a collision): fresh limiter */
		r->pid = pid;
		r->begin = now;
	}
	if (now >= r->begin + c->rl_interval || now < r->begin) {
		if (r->lost)
			sl_warn("%s: %lld messages lost from pid %ld due to rate-limiting", in->who,
				(long long)r->lost, (long)pid);
		r->begin = now;
		r->done = r->lost = 0;
	}
	if (r->done < c->rl_burst) {
		r->done++;
		return true;
	}
	if (r->lost++ == 0)
		sl_warn("%s: begins to drop messages from pid %ld due to rate-limiting", in->who,
			(long)pid);
	atomic_fetch_add_explicit(&in->stats.ratelimited, 1, memory_order_relaxed);
	return false;
}

/* Make the message of one datagram; NULL if it is dropped. */
static struct msg *one_datagram(struct ux_input *in, char *buf, size_t len,
				const struct ucred *cr, const struct syslog_time *st, time_t tt)
{
	const struct ux_inst_cfg *c = in->cfg;

	if (cr && c->ignore_own && cr->pid == getpid()) {
		atomic_fetch_add_explicit(&in->stats.own_discarded, 1, memory_order_relaxed);
		return NULL;
	}
	if (cr && in->rl && !pid_rl_pass(in, cr->pid, raw_severity(buf, len), tt))
		return NULL;

	const char *src = buf;
	size_t rawlen = len;
	if (cr && c->annotate && !c->parse_trusted) {
		memcpy(in->scratch, buf, len);
		rawlen = annotate(in->scratch, len, cr);
		src = in->scratch;
	}
	bool fix = cr && c->use_pid && c->special;
	/* with UsePIDFromSystem, room for the new tag after the raw's NUL */
	size_t alloc = fix ? rawlen + 1 + UX_TAG_ROOM : rawlen;
	if (fix && src != in->scratch) {
		memcpy(in->scratch, src, rawlen);
		src = in->scratch;
	}
	struct msg *m = msg_create(src, alloc, in->origin, st, tt);
	if (!m) {
		atomic_fetch_add_explicit(&in->stats.discarded_nomem, 1, memory_order_relaxed);
		return NULL;
	}
	m->raw_len = (uint32_t)rawlen;
	m->raw[rawlen] = '\0';
	if (cr && c->annotate && c->parse_trusted)
		m->json = trusted_json(cr);
	if (!c->special) {
		if (!c->parse_host)
			m->flags |= MSG_NO_HOSTNAME_PARSE;
		if (c->ignore_ts)
			m->flags |= MSG_IGNORE_DATE;
		return m; /* the parser chain runs in the queue worker */
	}
	parser_sanitize(m);
	special_parse(in, m);
	if (fix) {
		char tag[UX_TAG_ROOM];
		memcpy(tag, m->raw + m->tag.off, m->tag.len);
		uint32_t tl = fix_pid(tag, m->tag.len, cr->pid);
		if (!(m->flags & MSG_RAW_SEPARATE)) {
			/* the raw stayed inline: the room after it is ours */
			memcpy(m->raw + rawlen + 1, tag, tl);
			m->tag.off = (uint32_t)rawlen + 1;
		} else {
			/* sanitising moved the raw: give it the room (rare) */
			char *r = malloc(m->raw_len + 1 + (size_t)tl);
			if (!r) {
				atomic_fetch_add_explicit(&in->stats.discarded_nomem, 1,
							  memory_order_relaxed);
				msg_release(m);
				return NULL;
			}
			uint32_t rl = m->raw_len;
			memcpy(r, m->raw, rl + 1);
			memcpy(r + rl + 1, tag, tl);
			msg_set_raw(m, r, rl);
			m->tag.off = rl + 1;
		}
		m->tag.len = tl;
		m->programname_len = programname_len(m->raw + m->tag.off, tl);
		if (tl)
			m->flags |= MSG_HAS_TAG;
	}
	return m;
}

static void read_batch(struct ux_input *in)
{
	for (int round = 0; round < 64 && !atomic_load_explicit(&in->stopping, memory_order_relaxed);
	     round++) {
		for (int i = 0; i < UX_BATCH; i++) {
			in->hdrs[i].msg_hdr.msg_name = NULL;
			in->hdrs[i].msg_hdr.msg_namelen = 0;
			in->hdrs[i].msg_hdr.msg_control = in->cmsgs[i].buf;
			in->hdrs[i].msg_hdr.msg_controllen = sizeof(in->cmsgs[i].buf);
			in->hdrs[i].msg_hdr.msg_flags = 0;
		}
		int n = recvmmsg(in->fd, in->hdrs, UX_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				sl_err("%s: recvmmsg: %s", in->who, strerror(errno));
			return;
		}
		atomic_fetch_add_explicit(&in->stats.received, (uint_fast64_t)n, memory_order_relaxed);
		struct syslog_time st;
		struct timespec now;
		dt_now(&st, &now);
		int nb = 0;
		for (int i = 0; i < n; i++) {
			size_t len = in->hdrs[i].msg_len;
			if (len == 0)
				continue;
			if (in->hdrs[i].msg_hdr.msg_flags & MSG_TRUNC) {
				atomic_fetch_add_explicit(&in->stats.truncated, 1, memory_order_relaxed);
				if (len > in->bufsize)
					len = in->bufsize;
			}
			const struct ucred *cr = NULL;
			struct ucred crbuf;
			for (struct cmsghdr *cm = CMSG_FIRSTHDR(&in->hdrs[i].msg_hdr); cm;
			     cm = CMSG_NXTHDR(&in->hdrs[i].msg_hdr, cm)) {
				if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS) {
					memcpy(&crbuf, CMSG_DATA(cm), sizeof(crbuf));
					cr = &crbuf;
				}
			}
			struct msg *m = one_datagram(in, in->bufs + (size_t)i * in->bufsize, len, cr,
						     &st, now.tv_sec);
			if (m)
				in->batch[nb++] = m;
		}
		if (nb) {
			atomic_fetch_add_explicit(&in->stats.submitted, (uint_fast64_t)nb,
						  memory_order_relaxed);
			(void)input_submit(in->batch, nb, in->fc);
		}
		if (n < UX_BATCH)
			return;
	}
}

/* ---- lifecycle ---- */

/* The statistics registry (stats.h): rsyslog's "imuxsock" object
 * ("submitted", "ratelimit.discarded"), one per socket. */
static void ux_stats_register(struct ux_input *in)
{
	char name[300];
	const unsigned R = STATS_CTR_RESETTABLE;
	if (in->is_syssock)
		snprintf(name, sizeof(name), "imuxsock");
	else
		snprintf(name, sizeof(name), "imuxsock(%s)", in->cfg->socket);
	struct stats_obj *o = in->stats_obj = stats_obj_create(name, "imuxsock");
	stats_obj_add(o, "submitted", &in->stats.submitted, R);
	stats_obj_add(o, "ratelimit.discarded", &in->stats.ratelimited, R);
	stats_obj_add(o, "msgs.received", &in->stats.received, R);
	stats_obj_add(o, "own.discarded", &in->stats.own_discarded, R);
	stats_obj_add(o, "truncated", &in->stats.truncated, R);
	stats_obj_add(o, "discarded.nomem", &in->stats.discarded_nomem, R);
}

static enum sl_rc ux_in_start(void *arg)
{
	struct ux_input *in = arg;
	const struct ux_inst_cfg *c = in->cfg;
	struct net_unix_opts uo = {
		.type = SOCK_DGRAM,
		.unlink_first = c->unlink_sock,
		.create_path = c->create_path,
		.mode = 0666,
		.uid = -1,
		.gid = -1,
		.passcred = true,
	};
	in->bufsize = glbl.max_msg_size > 0 ? (size_t)glbl.max_msg_size : 8096;
	/* socket activation (sluiced.socket, like Debian's syslog.socket):
	 * systemd bound the socket and passes it in $LISTEN_FDS */
	in->fd = sl_listen_fd_unix(c->socket, SOCK_DGRAM);
	if (in->fd < 0 && in->is_syssock) /* Debian's syslog.socket, as rsyslog */
		in->fd = sl_listen_fd_unix("/run/systemd/journal/syslog", SOCK_DGRAM);
	if (in->fd >= 0) {
		int one = 1;
		in->activated = true;
		if (setsockopt(in->fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) != 0)
			sl_warn("%s: SO_PASSCRED: %s", in->who, strerror(errno));
		sl_info("%s: using the socket passed by systemd", in->who);
	} else {
		in->fd = net_listen_unix(c->socket, &uo, in->who);
	}
	if (in->fd < 0)
		return SL_ERR_IO;
	in->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	in->bufs = malloc(UX_BATCH * in->bufsize);
	in->scratch = malloc(in->bufsize + UX_ANNOTATE_ROOM + 1 + UX_TAG_ROOM);
	in->origin = msg_origin_create(c->hostname ? c->hostname : glbl_local_hostname(),
				       "127.0.0.1", "imuxsock", in->ruleset);
	if (in->wake_fd < 0 || !in->bufs || !in->scratch || !in->origin)
		return SL_ERR_NOMEM;
	if (c->rl_interval > 0) {
		in->rl = calloc(UX_RL_SLOTS, sizeof(*in->rl));
		if (!in->rl)
			return SL_ERR_NOMEM;
	}
	for (int i = 0; i < UX_BATCH; i++) {
		in->iovs[i].iov_base = in->bufs + (size_t)i * in->bufsize;
		in->iovs[i].iov_len = in->bufsize;
		in->hdrs[i].msg_hdr.msg_iov = &in->iovs[i];
		in->hdrs[i].msg_hdr.msg_iovlen = 1;
	}
	ux_stats_register(in);
	return SL_OK;
}

static void ux_in_run(void *arg)
{
	struct ux_input *in = arg;
	struct pollfd pf[2] = { { .fd = in->fd, .events = POLLIN }, { .fd = in->wake_fd, .events = POLLIN } };
	while (!atomic_load(&in->stopping)) {
		int n = poll(pf, 2, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			sl_err("%s: poll: %s", in->who, strerror(errno));
			break;
		}
		if (pf[0].revents)
			read_batch(in);
	}
}

static void ux_in_stop(void *arg)
{
	struct ux_input *in = arg;
	uint64_t one = 1;
	atomic_store(&in->stopping, true);
	if (in->wake_fd >= 0 && write(in->wake_fd, &one, sizeof(one)) < 0)
		sl_err("%s: cannot wake the input thread: %s", in->who, strerror(errno));
}

static void ux_in_destroy(void *arg)
{
	struct ux_input *in = arg;
	if (!in)
		return;
	stats_obj_destroy(in->stats_obj);
	if (in->fd >= 0) {
		close(in->fd);
		if (in->cfg->unlink_sock && !in->activated) /* systemd's socket stays */
			unlink(in->cfg->socket);
	}
	if (in->wake_fd >= 0)
		close(in->wake_fd);
	free(in->bufs);
	free(in->scratch);
	free(in->rl);
	msg_origin_release(in->origin);
	param_free(&ux_inst_table, in->cfg);
	free(in);
}

static const struct input_ops ux_input_ops = {
	.in_create = ux_in_create,
	.in_start = ux_in_start,
	.in_run = ux_in_run,
	.in_stop = ux_in_stop,
	.in_destroy = ux_in_destroy,
	.mod_input = ux_mod_input,
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "imuxsock",
	.description = "local syslog over unix datagram sockets (/dev/log)",
	.type = MOD_INPUT,
	.mod_params = &ux_mod_table,
	.inst_params = &ux_inst_table,
	.mod_init = ux_mod_init,
	.mod_exit = ux_mod_exit,
	.input = &ux_input_ops,
};
