/* imklog.c — the kernel log on Linux: records of /dev/kmsg (rsyslog
 * 8.2302's imklog with its kmsg reader).
 *
 * A record is "PRI,SEQ,USEC,FLAGS;TEXT\n" followed by optional " KEY=VALUE"
 * continuation lines (ignored). Each record becomes one message, made
 * here ready-parsed, as rsyslog does (no parser chain): MSG = the text
 * (after a leading "<N>" or a "secondary" PRI at offset 3/4, as rsyslog's
 * Syslog()), TAG "kernel:", HOSTNAME/fromhost = the local host,
 * fromhost-ip 127.0.0.1, inputname "imklog". Records of other facilities
 * than kern (userspace writes to /dev/kmsg) are dropped and counted
 * unless permitNonKernelFacility="on". With parseKernelTimestamp="on"
 * timereported (and, as in rsyslog, timegenerated) is the boot time plus
 * the record's microseconds; otherwise the time of reading.
 *
 * The device is read from its start, as rsyslog does (boot messages
 * reach the log). The module parameter logPath (rsyslog's $KLogPath)
 * names another file: a character device is read a record per read(); a
 * regular file (used by the tests, since /dev/kmsg of a test machine is
 * not ours to write) is read line by line and then followed like tail -f.
 *
 * Threading: the module runs one input (input_ops.mod_input) with its
 * own thread (in_run); it alone reads and builds messages. in_stop wakes
 * it through an eventfd. Statistics are atomics.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stats.h"
#include "sluice.h"
#include "module.h"
#include "input.h"
#include "msg.h"
#include "glbl.h"
#include "log.h"
#include "ast.h"
#include "datetime.h"
#include "ratelimit.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KLOG_RECORD_MAX 8192       /* a /dev/kmsg record is at most ~1 KiB + dictionary */
#define KLOG_BATCH 256
#define KLOG_TAG "kernel:"

struct klog_cfg {
	char *logpath;
	bool permit_non_kernel;
	int64_t console_level;
	bool parse_ts;
	bool keep_ts;
	char *internal_facility;
	int64_t rl_interval, rl_burst;
	char *ruleset;
	bool symbol_lookup, symbols_twice, use_syscall;
};

#define MOFF(f) offsetof(struct klog_cfg, f)
static const struct param_desc klog_params[] = {
	{ "logPath", PARAM_STRING, "/dev/kmsg", 0, MOFF(logpath), "kernel log device (or a file in kmsg format, for tests)" },
	{ "permitNonKernelFacility", PARAM_BINARY, "off", 0, MOFF(permit_non_kernel), "keep records of facilities other than kern" },
	{ "consoleLogLevel", PARAM_INT, "-1", 0, MOFF(console_level), "set the kernel's console log level (-1 = leave)" },
	{ "parseKernelTimestamp", PARAM_BINARY, "off", 0, MOFF(parse_ts), "timereported from the record's timestamp" },
	{ "keepKernelTimestamp", PARAM_BINARY, "off", 0, MOFF(keep_ts), "keep a \"[sec.usec]\" prefix in the text" },
	{ "internalMsgFacility", PARAM_WORD, NULL, 0, MOFF(internal_facility), "accepted (facility of imklog's own messages)" },
	{ "ratelimitInterval", PARAM_INT, "0", 0, MOFF(rl_interval), "rate-limit interval in seconds (0 = off)" },
	{ "ratelimitBurst", PARAM_INT, "10000", 0, MOFF(rl_burst), "messages per interval" },
	{ "ruleset", PARAM_RULESET, NULL, 0, MOFF(ruleset), "ruleset to bind to" },
	{ "klogpath", PARAM_STRING, "/dev/kmsg", PARAM_LEGACY, MOFF(logpath), "$KLogPath" },
	{ "klogpermitnonkernelfacility", PARAM_BINARY, "off", PARAM_LEGACY, MOFF(permit_non_kernel), "$KLogPermitNonKernelFacility" },
	{ "klogconsoleloglevel", PARAM_INT, "-1", PARAM_LEGACY, MOFF(console_level), "$KLogConsoleLogLevel" },
	{ "klogparsekerneltimestamp", PARAM_BINARY, "off", PARAM_LEGACY, MOFF(parse_ts), "$KLogParseKernelTimestamp" },
	{ "klogkeepkerneltimestamp", PARAM_BINARY, "off", PARAM_LEGACY, MOFF(keep_ts), "$KLogKeepKernelTimestamp" },
	{ "kloginternalmsgfacility", PARAM_WORD, NULL, PARAM_LEGACY, MOFF(internal_facility), "$KLogInternalMsgFacility" },
	{ "klogsymbollookup", PARAM_BINARY, "off", PARAM_LEGACY, MOFF(symbol_lookup), "$KLogSymbolLookup (ignored, as in rsyslog 8)" },
	{ "klogsymbolstwice", PARAM_BINARY, "off", PARAM_LEGACY, MOFF(symbols_twice), "$KLogSymbolsTwice (ignored)" },
	{ "klogusesyscallinterface", PARAM_BINARY, "off", PARAM_LEGACY, MOFF(use_syscall), "$KLogUseSyscallInterface (ignored)" },
};
static const struct param_table klog_table = PARAM_TABLE(klog_params, struct klog_cfg);

struct klog_stats {
	atomic_uint_fast64_t records;
	atomic_uint_fast64_t submitted;
	atomic_uint_fast64_t non_kernel_dropped;
	atomic_uint_fast64_t malformed;
	atomic_uint_fast64_t overwritten;  /* EPIPE: the kernel overwrote records */
	atomic_uint_fast64_t discarded_nomem;
};

struct klog_input {
	struct klog_cfg *cfg;           /* owned by the module */
	struct ruleset *ruleset;
	struct msg_origin *origin;
	int fd;
	bool is_dev;
	int wake_fd;
	atomic_bool stopping;
	char *buf;                      /* file mode: line assembly */
	size_t buf_len;
	struct msg *batch[KLOG_BATCH];
	int n_batch;
	struct ratelimit rl;
	struct klog_stats stats;
	struct stats_obj *stats_obj; /* statistics registry entry (stats.h) */
};

/* ---- module ---- */

static void *klog_mod_init(void *mod_cfg, int *n_errors)
{
	struct klog_cfg *c = mod_cfg ? mod_cfg : param_defaults(&klog_table);
	(void)n_errors;
	return c;
}

static void klog_mod_exit(void *mod)
{
	param_free(&klog_table, mod);
}

static void *klog_mod_input(void *mod, int *n_errors)
{
	struct klog_cfg *c = mod;
	struct klog_input *in = sl_xcalloc(1, sizeof(*in));
	in->cfg = c;
	in->fd = -1;
	in->wake_fd = -1;
	if (c->ruleset && !(in->ruleset = ruleset_lookup(c->ruleset))) {
		sl_err("imklog: ruleset '%s' is not defined", c->ruleset);
		(*n_errors)++;
		free(in);
		return NULL;
	}
	ratelimit_init(&in->rl, c->rl_interval, c->rl_burst, false, "imklog");
	const unsigned R = STATS_CTR_RESETTABLE;
	struct stats_obj *so = in->stats_obj = stats_obj_create("imklog", "imklog");
	stats_obj_add(so, "submitted", &in->stats.submitted, R);
	stats_obj_add(so, "records", &in->stats.records, R);
	stats_obj_add(so, "non_kernel.discarded", &in->stats.non_kernel_dropped, R);
	stats_obj_add(so, "malformed", &in->stats.malformed, R);
	stats_obj_add(so, "overwritten", &in->stats.overwritten, R);
	stats_obj_add(so, "discarded.nomem", &in->stats.discarded_nomem, R);
	return in;
}

/* ---- records ---- */

static void flush(struct klog_input *in)
{
	int n = in->n_batch;
	if (n == 0)
		return;
	in->n_batch = 0;
	int ok = ratelimit_take(&in->rl, n, time(NULL));
	for (int i = ok; i < n; i++)
		msg_release(in->batch[i]);
	if (ok) {
		atomic_fetch_add_explicit(&in->stats.submitted, (uint_fast64_t)ok, memory_order_relaxed);
		(void)input_submit(in->batch, ok, FLOW_LIGHT_DELAY);
	}
}

/* rsyslog's parsePRI: "<N>" at *p; advances and sets *pri on success. */
static bool parse_pri(const char **p, const char *end, int *pri)
{
	const char *s = *p;
	int v = 0;
	if (s >= end || *s != '<')
		return false;
	s++;
	if (s >= end || *s < '0' || *s > '9')
		return false;
	while (s < end && *s >= '0' && *s <= '9') {
		if (v < 100000)
			v = v * 10 + (*s - '0');
		s++;
	}
	if (s >= end || *s != '>')
		return false;
	*p = s + 1;
	*pri = v;
	return true;
}

/* One record "PRI,SEQ,USEC,FLAGS;TEXT" (without the dictionary lines). */
static void record(struct klog_input *in, const char *r, size_t len)
{
	const char *end = r + len;
	const char *p = r;
	long long pri = 0, usec = 0;

	atomic_fetch_add_explicit(&in->stats.records, 1, memory_order_relaxed);
	while (p < end && *p >= '0' && *p <= '9')
		pri = pri * 10 + (*p++ - '0');
	if (p == r || p >= end || *p != ',') {
		atomic_fetch_add_explicit(&in->stats.malformed, 1, memory_order_relaxed);
		return;
	}
	p++;
	while (p < end && *p >= '0' && *p <= '9')
		p++; /* sequence number */
	if (p < end && *p == ',')
		p++;
	while (p < end && *p >= '0' && *p <= '9')
		usec = usec * 10 + (*p++ - '0');
	const char *semi = memchr(p, ';', (size_t)(end - p));
	if (!semi) {
		atomic_fetch_add_explicit(&in->stats.malformed, 1, memory_order_relaxed);
		return;
	}
	const char *text = semi + 1;
	const char *nl = memchr(text, '\n', (size_t)(end - text));
	const char *tend = nl ? nl : end;
	int prio = (int)(pri > 1023 ? 1023 : pri);

	/* rsyslog's Syslog(): a secondary PRI (systemd) wins, else a leading one */
	int p2;
	const char *t2 = NULL;
	if (tend - text > 3 && text[3] == '<')
		t2 = text + 3;
	else if (tend - text > 4 && text[3] == ' ' && text[4] == '<')
		t2 = text + 4;
	if (t2 && parse_pri(&t2, tend, &p2) && p2 >= 8 && p2 <= 192) {
		text = t2;
		prio = p2;
	} else if (parse_pri(&text, tend, &p2)) {
		prio = p2;
	}
	if ((prio >> 3) != 0 && !in->cfg->permit_non_kernel) {
		atomic_fetch_add_explicit(&in->stats.non_kernel_dropped, 1, memory_order_relaxed);
		return;
	}

	struct syslog_time st;
	struct timespec now;
	dt_now(&st, &now);
	time_t tt = now.tv_sec;
	if (in->cfg->parse_ts) {
		struct timespec mono, real;
		clock_gettime(CLOCK_MONOTONIC, &mono);
		clock_gettime(CLOCK_REALTIME, &real);
		long long sec = real.tv_sec + (usec / 1000000) - mono.tv_sec;
		long long us = real.tv_nsec / 1000 + (usec % 1000000) - mono.tv_nsec / 1000;
		while (us < 0) {
			us += 1000000;
			sec--;
		}
		while (us > 999999) {
			us -= 1000000;
			sec++;
		}
		dt_from_epoch(&st, (time_t)sec, (uint32_t)us);
		tt = (time_t)sec;
		/* a "[  123.456789] " prefix in the text goes unless kept */
		if (!in->cfg->keep_ts && text < tend && *text == '[') {
			const char *q = text + 1;
			while (q < tend && (*q == ' ' || (*q >= '0' && *q <= '9') || *q == '.'))
				q++;
			if (q < tend && *q == ']') {
				q++;
				if (q < tend && *q == ' ')
					q++;
				text = q;
			}
		}
	}

	size_t tlen = (size_t)(tend - text);
	char tmp[KLOG_RECORD_MAX + sizeof(KLOG_TAG) + 1];
	if (tlen > KLOG_RECORD_MAX)
		tlen = KLOG_RECORD_MAX;
	/* raw = the text; the tag "kernel:" sits after the raw's NUL */
	memcpy(tmp, text, tlen);
	tmp[tlen] = '\0';
	memcpy(tmp + tlen + 1, KLOG_TAG, sizeof(KLOG_TAG) - 1);
	struct msg *m = msg_create(tmp, tlen + sizeof(KLOG_TAG), in->origin, &st, tt);
	if (!m) {
		atomic_fetch_add_explicit(&in->stats.discarded_nomem, 1, memory_order_relaxed);
		return;
	}
	m->raw_len = (uint32_t)tlen;
	m->raw[tlen] = '\0';
	if (prio > 191) {
		m->facility = MSG_FACILITY_INVALID;
		m->severity = 7;
		m->pri = 199;
	} else {
		m->facility = (uint8_t)(prio >> 3);
		m->severity = (uint8_t)(prio & 7);
		m->pri = (uint16_t)prio;
	}
	m->protocol_version = 0;
	m->off_after_pri = 0;
	m->tag.off = (uint32_t)tlen + 1;
	m->tag.len = sizeof(KLOG_TAG) - 1;
	m->programname_len = sizeof(KLOG_TAG) - 2; /* "kernel" */
	m->msg.off = 0;
	m->msg.len = (uint32_t)tlen;
	m->flags |= MSG_PARSED | MSG_HAS_TAG | MSG_HOST_IS_FROMHOST;
	in->batch[in->n_batch++] = m;
	if (in->n_batch == KLOG_BATCH)
		flush(in);
}

/* Device: one record per read(). */
static void read_dev(struct klog_input *in)
{
	char rec[KLOG_RECORD_MAX];
	for (int i = 0; i < KLOG_BATCH; i++) {
		ssize_t n = read(in->fd, rec, sizeof(rec));
		if (n > 0) {
			record(in, rec, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EPIPE) {
			/* records were overwritten before we read them */
			atomic_fetch_add_explicit(&in->stats.overwritten, 1, memory_order_relaxed);
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			sl_err("imklog: error reading kernel log %s: %s", in->cfg->logpath,
			       strerror(errno));
		break;
	}
	flush(in);
}

/* Regular file: lines; " KEY=VALUE" continuation lines are skipped. */
static bool read_file(struct klog_input *in)
{
	ssize_t n = read(in->fd, in->buf + in->buf_len, KLOG_RECORD_MAX * 4 - in->buf_len);
	if (n <= 0)
		return false;
	in->buf_len += (size_t)n;
	char *s = in->buf, *end = in->buf + in->buf_len, *nl;
	while ((nl = memchr(s, '\n', (size_t)(end - s))) != NULL) {
		if (nl > s && *s != ' ')
			record(in, s, (size_t)(nl - s));
		s = nl + 1;
	}
	in->buf_len = (size_t)(end - s);
	if (in->buf_len == KLOG_RECORD_MAX * 4) {
		atomic_fetch_add_explicit(&in->stats.malformed, 1, memory_order_relaxed);
		in->buf_len = 0; /* an endless line: drop it */
	}
	memmove(in->buf, s, in->buf_len);
	flush(in);
	return true;
}

static enum sl_rc klog_in_start(void *arg)
{
	struct klog_input *in = arg;
	struct stat sb;
	in->fd = open(in->cfg->logpath, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (in->fd < 0) {
		sl_err("imklog: cannot open kernel log (%s): %s", in->cfg->logpath, strerror(errno));
		return SL_ERR_IO;
	}
	in->is_dev = fstat(in->fd, &sb) == 0 && S_ISCHR(sb.st_mode);
	if (in->is_dev && in->cfg->console_level >= 0 &&
	    klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, (int)in->cfg->console_level) < 0)
		sl_warn("imklog: cannot set console log level: %s", strerror(errno));
	in->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	in->buf = malloc(KLOG_RECORD_MAX * 4);
	in->origin = msg_origin_create(glbl_local_hostname(), "127.0.0.1", "imklog", in->ruleset);
	if (in->wake_fd < 0 || !in->buf || !in->origin)
		return SL_ERR_NOMEM;
	return SL_OK;
}

static void klog_in_run(void *arg)
{
	struct klog_input *in = arg;
	struct pollfd pf[2] = { { .fd = in->fd, .events = POLLIN }, { .fd = in->wake_fd, .events = POLLIN } };
	while (!atomic_load(&in->stopping)) {
		if (!in->is_dev) {
			if (!read_file(in))
				poll(&pf[1], 1, 100); /* at EOF: follow the file */
			continue;
		}
		int n = poll(pf, 2, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			sl_err("imklog: poll: %s", strerror(errno));
			break;
		}
		if (pf[0].revents)
			read_dev(in);
	}
	flush(in);
}

static void klog_in_stop(void *arg)
{
	struct klog_input *in = arg;
	uint64_t one = 1;
	atomic_store(&in->stopping, true);
	if (in->wake_fd >= 0 && write(in->wake_fd, &one, sizeof(one)) < 0)
		sl_err("imklog: cannot wake the input thread: %s", strerror(errno));
}

static void klog_in_destroy(void *arg)
{
	struct klog_input *in = arg;
	if (!in)
		return;
	stats_obj_destroy(in->stats_obj);
	if (in->fd >= 0)
		close(in->fd);
	if (in->wake_fd >= 0)
		close(in->wake_fd);
	free(in->buf);
	msg_origin_release(in->origin);
	ratelimit_destroy(&in->rl);
	free(in); /* the config belongs to the module */
}

static const struct input_ops klog_input_ops = {
	.in_start = klog_in_start,
	.in_run = klog_in_run,
	.in_stop = klog_in_stop,
	.in_destroy = klog_in_destroy,
	.mod_input = klog_mod_input,
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "imklog",
	.description = "the Linux kernel log (/dev/kmsg)",
	.type = MOD_INPUT,
	.mod_params = &klog_table,
	.mod_init = klog_mod_init,
	.mod_exit = klog_mod_exit,
	.input = &klog_input_ops,
};
