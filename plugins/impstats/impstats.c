/* impstats.c — periodic statistics, as rsyslog's impstats: every
 * `interval` seconds, every counter of the statistics registry (inputs,
 * queues, actions, outputs, the process's resource usage and the loss
 * ledger, runtime/stats.h) is rendered in `format` (legacy, json,
 * json-elasticsearch, cee, prometheus) and
 *   - injected as messages (log.syslog="on", the default) with rsyslog's
 *     tag "rsyslogd-pstats:", facility syslog and severity info unless
 *     `facility`/`severity` say otherwise, fromhost the local host name,
 *     inputname "impstats", into `ruleset` (default: the default ruleset),
 *     so that the dashboards built for rsyslog keep working;
 *   - and/or appended to `log.file`, each line prefixed with the time as
 *     ctime(3) prints it and ": " (rsyslog's format).
 * With `resetCounters`, running totals are reset after each report (the
 * loss ledger keeps its own totals). With `bracketing`, each report is
 * framed by lines "BEGIN" and "END".
 *
 * The messages' raw text is "<PRI>rsyslogd-pstats:" followed by the line
 * (rsyslog's rawmsg is the line alone; every other property is the same).
 *
 * Threading: the module runs one input (input_ops.mod_input) whose thread
 * sleeps on a condition variable between reports; in_stop wakes it.
 * Rendering takes the registry's mutex (config/stop only otherwise), so
 * the message path never waits for it.
 */
#include "sluice.h"
#include "module.h"
#include "input.h"
#include "msg.h"
#include "glbl.h"
#include "ast.h"
#include "log.h"
#include "lookup.h"
#include "parser.h"
#include "ruleset.h"
#include "sbuf.h"
#include "stats.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

struct impstats_cfg {
	int64_t interval;
	int64_t facility;
	int64_t severity;
	bool log_syslog;
	char *log_file;
	char *format;
	bool reset;
	char *ruleset;
	bool bracketing;
	bool json_legacy;  /* $PStatJSON */
};

#define MOFF(f) offsetof(struct impstats_cfg, f)
static const struct param_desc impstats_params[] = {
	{ "interval", PARAM_INT, "300", 0, MOFF(interval), "seconds between two reports" },
	{ "facility", PARAM_INT, "5", 0, MOFF(facility), "facility of the messages (number; 5 = syslog)" },
	{ "severity", PARAM_INT, "6", 0, MOFF(severity), "severity of the messages (number; 6 = info)" },
	{ "log.syslog", PARAM_BINARY, "on", 0, MOFF(log_syslog), "inject the reports as messages into the ruleset" },
	{ "log.file", PARAM_STRING, NULL, 0, MOFF(log_file), "also append the reports to this file" },
	{ "format", PARAM_WORD, "legacy", 0, MOFF(format), "legacy, json, json-elasticsearch, cee or prometheus" },
	{ "resetCounters", PARAM_BINARY, "off", 0, MOFF(reset), "reset running totals after each report" },
	{ "ruleset", PARAM_RULESET, NULL, 0, MOFF(ruleset), "ruleset for the messages (default: the default ruleset)" },
	{ "bracketing", PARAM_BINARY, "off", 0, MOFF(bracketing), "frame each report with BEGIN and END lines" },
	{ "pstatinterval", PARAM_INT, NULL, PARAM_LEGACY, MOFF(interval), "$PStatInterval" },
	{ "pstatfacility", PARAM_INT, NULL, PARAM_LEGACY, MOFF(facility), "$PStatFacility" },
	{ "pstatseverity", PARAM_INT, NULL, PARAM_LEGACY, MOFF(severity), "$PStatSeverity" },
	{ "pstatjson", PARAM_BINARY, "off", PARAM_LEGACY, MOFF(json_legacy), "$PStatJSON (format json)" },
};
static const struct param_table impstats_table = PARAM_TABLE(impstats_params, struct impstats_cfg);

/* resource-usage, as rsyslog's impstats reports it */
struct rusage_ctrs {
	atomic_uint_fast64_t utime, stime, maxrss, minflt, majflt, inblock, oublock, nvcsw,
		nivcsw, openfiles;
};

struct impstats {
	struct impstats_cfg *cfg;
	enum stats_format fmt;
	struct ruleset *ruleset;
	struct msg_origin *origin;
	int pri;
	pthread_mutex_t mtx;
	pthread_cond_t cond;
	bool stopping;
	FILE *file;
	struct rusage_ctrs ru;
	struct stats_obj *ru_obj;
	/* one report's messages, submitted as one batch */
	struct msg **batch;
	int n_batch, cap_batch;
	char tstamp[32];  /* "Sun Nov 22 05:10:21 2026" for log.file */
};

static void *impstats_mod_init(void *mod_cfg, int *n_errors)
{
	struct impstats_cfg *c = mod_cfg ? mod_cfg : param_defaults(&impstats_table);
	if (c->interval < 1) {
		sl_err("impstats: interval must be at least 1 second (is %lld)", (long long)c->interval);
		(*n_errors)++;
	}
	if (c->facility < 0 || c->facility > 23) {
		sl_err("impstats: facility must be 0..23 (is %lld)", (long long)c->facility);
		(*n_errors)++;
	}
	if (c->severity < 0 || c->severity > 7) {
		sl_err("impstats: severity must be 0..7 (is %lld)", (long long)c->severity);
		(*n_errors)++;
	}
	enum stats_format f;
	if (!stats_format_parse(c->format ? c->format : "legacy", &f)) {
		sl_err("impstats: format '%s' is not one of legacy, json, json-elasticsearch, cee, "
		       "prometheus", c->format);
		(*n_errors)++;
	}
	return c;
}

static void impstats_mod_exit(void *mod)
{
	param_free(&impstats_table, mod);
}

static void *impstats_in_create(void *mod, void *cfg, struct cfg_obj *o, int *n_errors)
{
	(void)mod;
	(void)cfg;
	cfg_error(&o->pos, "impstats takes no input(); configure it with module(load=\"impstats\" ...)");
	(*n_errors)++;
	return NULL;
}

static void *impstats_mod_input(void *mod, int *n_errors)
{
	struct impstats_cfg *c = mod;
	if (!c)
		return NULL;
	struct impstats *st = sl_xcalloc(1, sizeof(*st));
	st->cfg = c;
	if (!stats_format_parse(c->format ? c->format : "legacy", &st->fmt))
		st->fmt = STATS_FMT_LEGACY;
	if (c->json_legacy && (!c->format || !strcasecmp(c->format, "legacy")))
		st->fmt = STATS_FMT_JSON;
	if (c->ruleset && !(st->ruleset = ruleset_lookup(c->ruleset))) {
		sl_err("impstats: ruleset '%s' is not defined", c->ruleset);
		(*n_errors)++;
		free(st);
		return NULL;
	}
	st->pri = (int)(c->facility * 8 + c->severity);
	pthread_mutex_init(&st->mtx, NULL);
	pthread_cond_init(&st->cond, NULL);
	return st;
}

static uint64_t count_open_files(void)
{
	DIR *d = opendir("/proc/self/fd");
	uint64_t n = 0;
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n > 0 ? n - 1 : 0; /* not the one opendir holds */
}

static void update_rusage(struct impstats *st)
{
	struct rusage r;
	if (getrusage(RUSAGE_SELF, &r) != 0)
		return;
	struct rusage_ctrs *c = &st->ru;
	atomic_store(&c->utime, (uint64_t)r.ru_utime.tv_sec * 1000000 + (uint64_t)r.ru_utime.tv_usec);
	atomic_store(&c->stime, (uint64_t)r.ru_stime.tv_sec * 1000000 + (uint64_t)r.ru_stime.tv_usec);
	atomic_store(&c->maxrss, (uint64_t)r.ru_maxrss);
	atomic_store(&c->minflt, (uint64_t)r.ru_minflt);
	atomic_store(&c->majflt, (uint64_t)r.ru_majflt);
	atomic_store(&c->inblock, (uint64_t)r.ru_inblock);
	atomic_store(&c->oublock, (uint64_t)r.ru_oublock);
	atomic_store(&c->nvcsw, (uint64_t)r.ru_nvcsw);
	atomic_store(&c->nivcsw, (uint64_t)r.ru_nivcsw);
	atomic_store(&c->openfiles, count_open_files());
}

static enum sl_rc impstats_in_start(void *arg)
{
	struct impstats *st = arg;
	struct impstats_cfg *c = st->cfg;
	if (c->log_file) {
		st->file = fopen(c->log_file, "a");
		if (!st->file) {
			sl_err("impstats: cannot open log.file %s: %s", c->log_file, strerror(errno));
			return SL_ERR_IO;
		}
	}
	st->origin = msg_origin_create(glbl_local_hostname(), "127.0.0.1", "impstats", st->ruleset);
	if (!st->origin)
		return SL_ERR_NOMEM;
	struct stats_obj *o = st->ru_obj = stats_obj_create("resource-usage", "impstats");
	struct rusage_ctrs *r = &st->ru;
	const unsigned G = STATS_CTR_GAUGE;
	stats_obj_add(o, "utime", &r->utime, 0);
	stats_obj_add(o, "stime", &r->stime, 0);
	stats_obj_add(o, "maxrss", &r->maxrss, G);
	stats_obj_add(o, "minflt", &r->minflt, 0);
	stats_obj_add(o, "majflt", &r->majflt, 0);
	stats_obj_add(o, "inblock", &r->inblock, 0);
	stats_obj_add(o, "oublock", &r->oublock, 0);
	stats_obj_add(o, "nvcsw", &r->nvcsw, 0);
	stats_obj_add(o, "nivcsw", &r->nivcsw, 0);
	stats_obj_add(o, "openfiles", &r->openfiles, G);
	update_rusage(st);
	return SL_OK;
}

/* One line of the report: to the file and/or as a message. */
static void emit_line(const char *text, size_t len, void *arg)
{
	struct impstats *st = arg;
	if (st->file)
		fprintf(st->file, "%s: %.*s\n", st->tstamp, (int)len, text);
	if (!st->cfg->log_syslog)
		return;
	char hdr[48];
	int hl = snprintf(hdr, sizeof(hdr), "<%d>rsyslogd-pstats:", st->pri);
	struct sbuf sb = SBUF_INIT;
	if (!sbuf_append(&sb, hdr, (size_t)hl) || !sbuf_append(&sb, text, len)) {
		sbuf_free(&sb);
		return;
	}
	struct msg *m = msg_create(sb.buf, sb.len, st->origin, NULL, 0);
	sbuf_free(&sb);
	if (!m)
		return;
	m->flags |= MSG_NO_HOSTNAME_PARSE; /* local: TAG and MSG only */
	parser_parse(m);
	m->ruleset = st->ruleset;
	if (st->n_batch == st->cap_batch) {
		int nc = st->cap_batch ? st->cap_batch * 2 : 64;
		struct msg **nb = realloc(st->batch, (size_t)nc * sizeof(*nb));
		if (!nb) {
			msg_release(m);
			return;
		}
		st->batch = nb;
		st->cap_batch = nc;
	}
	st->batch[st->n_batch++] = m;
}

static void report(struct impstats *st)
{
	time_t now = time(NULL);
	char tb[32];
	if (!ctime_r(&now, tb))
		tb[0] = '\0';
	tb[strcspn(tb, "\n")] = '\0';
	snprintf(st->tstamp, sizeof(st->tstamp), "%s", tb);
	update_rusage(st);
	if (st->cfg->bracketing)
		emit_line("BEGIN", 5, st);
	lookup_stats_reporting();
	if (st->fmt == STATS_FMT_PROMETHEUS) {
		struct sbuf sb = SBUF_INIT;
		stats_render(st->fmt, st->cfg->reset, NULL, NULL, &sb);
		for (size_t off = 0; off < sb.len;) {
			const char *nl = memchr(sb.buf + off, '\n', sb.len - off);
			size_t l = nl ? (size_t)(nl - (sb.buf + off)) : sb.len - off;
			emit_line(sb.buf + off, l, st);
			off += l + 1;
		}
		sbuf_free(&sb);
	} else {
		stats_render(st->fmt, st->cfg->reset, emit_line, st, NULL);
	}
	if (st->cfg->bracketing)
		emit_line("END", 3, st);
	lookup_stats_reported(); /* percentile_stats windows, dyn_stats purges */
	if (st->file)
		fflush(st->file);
	if (st->n_batch) {
		atomic_fetch_add(&stats_internal_msgs, (uint64_t)st->n_batch);
		(void)input_submit(st->batch, st->n_batch, FLOW_DELAY);
		st->n_batch = 0;
	}
}

static void impstats_in_run(void *arg)
{
	struct impstats *st = arg;
	pthread_mutex_lock(&st->mtx);
	while (!st->stopping) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += st->cfg->interval;
		while (!st->stopping && pthread_cond_timedwait(&st->cond, &st->mtx, &ts) != ETIMEDOUT)
			;
		if (st->stopping)
			break;
		pthread_mutex_unlock(&st->mtx);
		report(st);
		pthread_mutex_lock(&st->mtx);
	}
	pthread_mutex_unlock(&st->mtx);
}

static void impstats_in_stop(void *arg)
{
	struct impstats *st = arg;
	pthread_mutex_lock(&st->mtx);
	st->stopping = true;
	pthread_cond_signal(&st->cond);
	pthread_mutex_unlock(&st->mtx);
}

static void impstats_in_destroy(void *arg)
{
	struct impstats *st = arg;
	if (!st)
		return;
	stats_obj_destroy(st->ru_obj);
	if (st->file)
		fclose(st->file);
	for (int i = 0; i < st->n_batch; i++)
		msg_release(st->batch[i]);
	free(st->batch);
	msg_origin_release(st->origin);
	pthread_mutex_destroy(&st->mtx);
	pthread_cond_destroy(&st->cond);
	free(st); /* the config belongs to the module */
}

static const struct input_ops impstats_input_ops = {
	.in_create = impstats_in_create,
	.in_start = impstats_in_start,
	.in_run = impstats_in_run,
	.in_stop = impstats_in_stop,
	.in_destroy = impstats_in_destroy,
	.mod_input = impstats_mod_input,
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "impstats",
	.description = "periodic statistics of every input, queue and action, and the loss ledger",
	.type = MOD_INPUT,
	.mod_params = &impstats_table,
	.mod_init = impstats_mod_init,
	.mod_exit = impstats_mod_exit,
	.input = &impstats_input_ops,
};
