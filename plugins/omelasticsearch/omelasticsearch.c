/* omelasticsearch.c — output to Elasticsearch and OpenSearch through the
 * _bulk API, with rsyslog 8.2302's parameters, and with the fate of every
 * single document known.
 *
 * Data path. tx_add turns the rendered template (the document) into one
 * bulk item — an action line ({"index":{"_index":...}}) and the document
 * line — appended to the worker's body buffer, with an entry in the
 * worker's item table; nothing is allocated per message once the buffers
 * have grown. tx_commit (and tx_add when maxbytes would be exceeded) sends
 * the pending items in one POST to _bulk (bulkmode="off": one item per
 * request) and reads the answer item by item:
 *   2xx                       indexed: the item is done;
 *   429, 5xx, 408 per item,   retried, only those items, with back-off
 *   or for the whole request  (Retry-After honoured), a few seconds within
 *                             the commit, then the action suspends;
 *   no answer (connect error, the next server is tried (fail-over); when
 *   timeout, reset)           none answers, the action suspends;
 *   other 4xx per item        failed for good: one JSON line in errorfile
 *                             (request, reply, reason), counted, and with
 *                             retryfailures="on" re-submitted to
 *                             retryruleset with $.omes;
 *   400/413 for a whole       the request is split in halves until the
 *   request of several items  culprit is alone, which then fails for good.
 * The module commits with tx_commit_items (module.h): each message's slot
 * says OK (indexed), FAILED (refused for good, counted by the core too)
 * or SUSPENDED (no answer for it yet). The core keeps the SUSPENDED ones,
 * waits (action.resumeInterval), calls try_resume (a health check of the
 * servers) and adds exactly those again in a new transaction, so a message
 * leaves the action only when Elasticsearch has answered for it. A 409 for
 * a create that was handed back unanswered and added again counts as a
 * duplicate (the unanswered request had created it), not as a failure.
 *
 * Threading: see module.h — tx_* calls of one worker come from one thread;
 * several workers of an action run in parallel, each with its own curl
 * handle (omes_http.c) and pending items. Shared action state: atomics,
 * the error file's mutex, and the retryfailures rate limiter's mutex (both
 * taken only on the failure path).
 */
#include "omes.h"
#include "ast.h"
#include "input.h"
#include "log.h"
#include "stats.h"
#include "msg.h"
#include "template.h"

#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

extern atomic_bool sl_shutdown_requested;

/* How long tx_commit retries 429/5xx answers itself before suspending. */
#define OMES_RETRY_WINDOW_MS 5000
#define OMES_BACKOFF_MIN_MS 50
#define OMES_BACKOFF_MAX_MS 2000

/* ---- parameters ---- */

#define COFF(f) offsetof(struct omes_cfg, f)
static const struct param_desc omes_params[] = {
	{ "server", PARAM_ARRAY, "localhost", 0, COFF(server), "servers: host, host:port or http(s)://host:port/ (round-robin, fail-over)" },
	{ "serverport", PARAM_INT, "9200", 0, COFF(serverport), "port for servers given without one" },
	{ "healthCheckTimeout", PARAM_INT, "3500", 0, COFF(healthcheck_timeout), "ms for health checks, version detection and connecting" },
	{ "searchIndex", PARAM_STRING, "system", 0, COFF(searchindex), "index (a template name with dynSearchIndex)" },
	{ "dynSearchIndex", PARAM_BINARY, "off", 0, COFF(dyn_searchindex), "searchIndex names a template" },
	{ "searchType", PARAM_STRING, "events", 0, COFF(searchtype), "_type, sent only to Elasticsearch < 7" },
	{ "dynSearchType", PARAM_BINARY, "off", 0, COFF(dyn_searchtype), "searchType names a template" },
	{ "template", PARAM_TEMPLATE, NULL, 0, COFF(tpl), "template of the documents (default StdJSONFmt)" },
	{ "bulkmode", PARAM_BINARY, "off", 0, COFF(bulkmode), "send a batch in one _bulk request" },
	{ "maxbytes", PARAM_SIZE, "100m", 0, COFF(maxbytes), "largest bulk request body" },
	{ "writeoperation", PARAM_WORD, "index", 0, COFF(writeoperation), "index or create" },
	{ "bulkid", PARAM_STRING, NULL, 0, COFF(bulkid), "document _id (a template name with dynbulkid)" },
	{ "dynbulkid", PARAM_BINARY, "off", 0, COFF(dyn_bulkid), "bulkid names a template" },
	{ "pipelineName", PARAM_STRING, NULL, 0, COFF(pipeline), "ingest pipeline (a template name with dynPipelineName)" },
	{ "dynPipelineName", PARAM_BINARY, "off", 0, COFF(dyn_pipeline), "pipelineName names a template" },
	{ "skipPipelineIfEmpty", PARAM_BINARY, "off", 0, COFF(skip_pipeline_if_empty), "no pipeline when it renders empty" },
	{ "parent", PARAM_STRING, NULL, 0, COFF(parent), "parent id (a template name with dynParent)" },
	{ "dynParent", PARAM_BINARY, "off", 0, COFF(dyn_parent), "parent names a template" },
	{ "uid", PARAM_STRING, NULL, 0, COFF(uid), "user for HTTP basic authentication" },
	{ "pwd", PARAM_STRING, NULL, 0, COFF(pwd), "password for HTTP basic authentication" },
	{ "usehttps", PARAM_BINARY, "off", 0, COFF(usehttps), "https for servers given without a scheme" },
	{ "tls.cacert", PARAM_STRING, NULL, 0, COFF(tls_cacert), "CA certificate file to verify the server" },
	{ "tls.mycert", PARAM_STRING, NULL, 0, COFF(tls_mycert), "client certificate file" },
	{ "tls.myprivkey", PARAM_STRING, NULL, 0, COFF(tls_myprivkey), "client private key file" },
	{ "allowUnsignedCerts", PARAM_BINARY, "off", 0, COFF(allow_unsigned_certs), "do not verify the server certificate" },
	{ "skipVerifyHost", PARAM_BINARY, "off", 0, COFF(skip_verify_host), "do not check the server's name in its certificate" },
	{ "timeout", PARAM_STRING, "1m", 0, COFF(timeout), "Elasticsearch's own timeout= of a bulk request" },
	{ "errorfile", PARAM_STRING, NULL, 0, COFF(errorfile), "JSON lines for documents Elasticsearch refused" },
	{ "erroronly", PARAM_BINARY, "off", 0, COFF(erroronly), "accepted; errorfile always holds failed items only" },
	{ "interleaved", PARAM_BINARY, "off", 0, COFF(interleaved), "accepted; errorfile always pairs request and reply per item" },
	{ "retryfailures", PARAM_BINARY, "off", 0, COFF(retryfailures), "re-submit refused documents to retryruleset with $.omes" },
	{ "retryruleset", PARAM_WORD, NULL, 0, COFF(retryruleset), "ruleset for re-submitted documents (default: the default ruleset)" },
	{ "ratelimit.interval", PARAM_INT, "600", 0, COFF(ratelimit_interval), "seconds of the re-submission rate limit (0 = none)" },
	{ "ratelimit.burst", PARAM_INT, "20000", 0, COFF(ratelimit_burst), "re-submissions allowed per interval" },
	{ "rebindinterval", PARAM_INT, "-1", 0, COFF(rebindinterval), "items after which a new connection is opened (-1 = never)" },
	{ "indextimeout", PARAM_INT, "0", 0, COFF(indextimeout), "ms a bulk request may take (0 = no limit)" },
	{ "esVersion.major", PARAM_INT, "0", 0, COFF(esversion_major), "major version of the server (0 = detect)" },
	{ "asyncrepl", PARAM_BINARY, "off", PARAM_DEPRECATED, COFF(asyncrepl), "ignored (removed from Elasticsearch)" },
	{ "compression", PARAM_WORD, "none", 0, COFF(compression), "none or gzip: compress request bodies (sluice extension)" },
};
static const struct param_table omes_table = PARAM_TABLE(omes_params, struct omes_cfg);

/* ---- small helpers ---- */

static const struct cfg_pos *pos_of(struct cfg_obj *o, const char *name)
{
	for (struct cfg_param *p = o->params; p; p = p->next)
		if (strcasecmp(p->name, name) == 0)
			return &p->pos;
	return &o->pos;
}

/* Append `s` (len bytes) JSON-escaped (no quotes). */
static bool json_esc(struct sbuf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t start = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		if (!sbuf_append(b, s + start, i - start))
			return false;
		char e[6] = { '\\', 0, 0, 0, 0, 0 };
		size_t el = 2;
		switch (c) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		default:
			e[1] = 'u'; e[2] = '0'; e[3] = '0';
			e[4] = hex[c >> 4]; e[5] = hex[c & 15];
			el = 6;
		}
		if (!sbuf_append(b, e, el))
			return false;
		start = i + 1;
	}
	return sbuf_append(b, s + start, len - start);
}

static void sleep_ms(int64_t ms)
{
	while (ms > 0 && !atomic_load(&sl_shutdown_requested)) {
		int64_t step = ms > 100 ? 100 : ms;
		struct timespec ts = { step / 1000, (step % 1000) * 1000000 };
		nanosleep(&ts, NULL);
		ms -= step;
	}
}

/* Normalise one server entry into "scheme://host:port/path/". */
static char *server_url(const char *s, int64_t port, bool https)
{
	struct sbuf b = SBUF_INIT;
	const char *rest = s;
	if (strncasecmp(s, "http://", 7) == 0 || strncasecmp(s, "https://", 8) == 0) {
		size_t sl = strchr(s, ':') - s + 3;
		sbuf_append(&b, s, sl);
		rest = s + sl;
	} else {
		sbuf_puts(&b, https ? "https://" : "http://");
	}
	const char *slash = strchr(rest, '/');
	size_t hostlen = slash ? (size_t)(slash - rest) : strlen(rest);
	sbuf_append(&b, rest, hostlen);
	/* host has a port unless it lacks ':' (or is a bracketed IPv6 without "]:") */
	const char *close = memchr(rest, ']', hostlen);
	bool has_port = close ? (close + 1 < rest + hostlen && close[1] == ':')
			      : memchr(rest, ':', hostlen) != NULL;
	if (!has_port) {
		char pb[24];
		snprintf(pb, sizeof(pb), ":%lld", (long long)port);
		sbuf_puts(&b, pb);
	}
	if (slash)
		sbuf_puts(&b, slash);
	if (b.len == 0 || b.buf[b.len - 1] != '/')
		sbuf_putc(&b, '/');
	sbuf_cstr(&b);
	return b.buf;
}

/* ---- action instance ---- */

static int n_instances;

static const struct template *dyn_tpl(struct cfg_obj *o, const char *param, const char *name,
				      int *n_errors)
{
	const struct template *t = tpl_find(name);
	if (!t) {
		cfg_error(pos_of(o, param), "omelasticsearch: %s: template '%s' is not defined",
			  param, name);
		(*n_errors)++;
	}
	return t;
}

static void omes_act_destroy(void *p);

static uint64_t omes_failed_items(void *arg)
{
	struct omes_stats *s = arg;
	return atomic_load_explicit(&s->failed_bad_request, memory_order_relaxed) +
	       atomic_load_explicit(&s->failed_conflict, memory_order_relaxed) +
	       atomic_load_explicit(&s->failed_other, memory_order_relaxed);
}

/* The action's counters in the statistics registry: the first action of
 * the module is "omelasticsearch" as in rsyslog (its counter names where
 * rsyslog has the counter), later ones "omelasticsearch(NAME)". */
static void omes_stats_register(struct omes_act *a, struct cfg_obj *o, bool first)
{
	const unsigned R = STATS_CTR_RESETTABLE;
	struct omes_stats *s = &a->st;
	char name[256];
	stats_action_obj_name("omelasticsearch", o, first, name, sizeof(name));
	struct stats_obj *so = stats_obj_create(name, "omelasticsearch");
	if (!so)
		return;
	stats_obj_add(so, "submitted", &s->submitted, R);
	stats_obj_add(so, "failed.http", &s->conn_error_docs, R);
	stats_obj_add(so, "failed.httprequests", &s->conn_errors, R);
	stats_obj_add(so, "failed.es", &s->http_errors, R);
	stats_obj_add(so, "response.success", &s->indexed, R);
	stats_obj_add(so, "response.duplicate", &s->duplicates, R);
	stats_obj_add(so, "response.badargument", &s->failed_bad_request, R);
	stats_obj_add(so, "response.conflict", &s->failed_conflict, R);
	stats_obj_add(so, "response.other", &s->failed_other, R);
	stats_obj_add_fn(so, "failed", omes_failed_items, s, 0);
	stats_obj_add(so, "retried", &s->retried, R);
	stats_obj_add(so, "resubmitted", &s->resubmitted, R);
	stats_obj_add(so, "requests", &s->requests, R);
	stats_obj_add(so, "ratelimit.discarded", &a->rl_dropped, R);
	a->stats_obj = so;
}

static void *omes_act_create(void *cfgp, struct cfg_obj *o, int *n_errors)
{
	struct omes_cfg *c = cfgp;
	struct omes_act *a = sl_xcalloc(1, sizeof(*a));
	a->cfg = c;
	a->err_fd = -1;
	pthread_mutex_init(&a->err_mu, NULL);
	pthread_mutex_init(&a->rl_mu, NULL);
	struct cfg_param *np = cfg_obj_param(o, "name");
	if (np && !np->val.is_array) {
		a->name = sl_xstrdup(np->val.str);
	} else {
		char nb[40];
		snprintf(nb, sizeof(nb), "omelasticsearch-%d", n_instances);
		a->name = sl_xstrdup(nb);
	}
	bool first_instance = n_instances == 0;
	n_instances++;

	if (c->server.n == 0) {
		cfg_error(pos_of(o, "server"), "omelasticsearch: server: at least one server is needed");
		(*n_errors)++;
	}
	a->n_servers = c->server.n;
	a->servers = sl_xcalloc(a->n_servers ? a->n_servers : 1, sizeof(char *));
	for (int i = 0; i < c->server.n; i++)
		a->servers[i] = server_url(c->server.v[i], c->serverport, c->usehttps);
	if (c->serverport < 1 || c->serverport > 65535) {
		cfg_error(pos_of(o, "serverport"), "omelasticsearch: serverport %lld is not a port (1..65535)",
			  (long long)c->serverport);
		(*n_errors)++;
	}
	if (!strcasecmp(c->writeoperation, "index")) {
		a->op = OMES_OP_INDEX;
	} else if (!strcasecmp(c->writeoperation, "create")) {
		a->op = OMES_OP_CREATE;
	} else {
		cfg_error(pos_of(o, "writeoperation"), "omelasticsearch: writeoperation '%s' is not "
			  "known; expected \"index\" or \"create\"", c->writeoperation);
		(*n_errors)++;
	}
	if (a->op == OMES_OP_CREATE && !c->bulkid) {
		/* as rsyslog: create needs an id to make sense */
		cfg_error(pos_of(o, "writeoperation"), "omelasticsearch: writeoperation=\"create\" needs "
			  "bulkid (and usually dynbulkid=\"on\")");
		(*n_errors)++;
	}
	if (!strcasecmp(c->compression, "gzip")) {
		a->gzip = true;
	} else if (strcasecmp(c->compression, "none") != 0) {
		cfg_error(pos_of(o, "compression"), "omelasticsearch: compression '%s' is not known; "
			  "expected \"none\" or \"gzip\"", c->compression);
		(*n_errors)++;
	}
	if (c->maxbytes < 1024) {
		cfg_error(pos_of(o, "maxbytes"), "omelasticsearch: maxbytes must be at least 1k");
		(*n_errors)++;
	}
	if (c->dyn_searchindex)
		a->tpl_index = dyn_tpl(o, "searchindex", c->searchindex, n_errors);
	if (c->dyn_searchtype)
		a->tpl_type = dyn_tpl(o, "searchtype", c->searchtype, n_errors);
	if (c->dyn_bulkid) {
		if (!c->bulkid) {
			cfg_error(pos_of(o, "dynbulkid"), "omelasticsearch: dynbulkid=\"on\" needs bulkid= (a template name)");
			(*n_errors)++;
		} else {
			a->tpl_bulkid = dyn_tpl(o, "bulkid", c->bulkid, n_errors);
		}
	}
	if (c->dyn_pipeline) {
		if (!c->pipeline) {
			cfg_error(pos_of(o, "dynpipelinename"), "omelasticsearch: dynPipelineName=\"on\" needs pipelineName= (a template name)");
			(*n_errors)++;
		} else {
			a->tpl_pipeline = dyn_tpl(o, "pipelinename", c->pipeline, n_errors);
		}
	}
	if (c->dyn_parent) {
		if (!c->parent) {
			cfg_error(pos_of(o, "dynparent"), "omelasticsearch: dynParent=\"on\" needs parent= (a template name)");
			(*n_errors)++;
		} else {
			a->tpl_parent = dyn_tpl(o, "parent", c->parent, n_errors);
		}
	}
	if (c->asyncrepl)
		cfg_warn(pos_of(o, "asyncrepl"), "omelasticsearch: asyncrepl is ignored (Elasticsearch removed it)");
	if (c->tls_cacert && access(c->tls_cacert, R_OK) != 0) {
		cfg_error(pos_of(o, "tls.cacert"), "omelasticsearch: tls.cacert '%s' cannot be read: %s",
			  c->tls_cacert, strerror(errno));
		(*n_errors)++;
	}
	if (c->tls_mycert && access(c->tls_mycert, R_OK) != 0) {
		cfg_error(pos_of(o, "tls.mycert"), "omelasticsearch: tls.mycert '%s' cannot be read: %s",
			  c->tls_mycert, strerror(errno));
		(*n_errors)++;
	}
	if (c->tls_myprivkey && access(c->tls_myprivkey, R_OK) != 0) {
		cfg_error(pos_of(o, "tls.myprivkey"), "omelasticsearch: tls.myprivkey '%s' cannot be read: %s",
			  c->tls_myprivkey, strerror(errno));
		(*n_errors)++;
	}

	/* The answer only needs each item's status and error. */
	struct sbuf q = SBUF_INIT;
	sbuf_puts(&q, "?filter_path=errors,items.*.status,items.*.error,items.*._index,items.*._id");
	if (c->timeout && *c->timeout) {
		sbuf_puts(&q, "&timeout=");
		sbuf_puts(&q, c->timeout);
	}
	sbuf_cstr(&q);
	a->bulk_query = q.buf;

	if (c->esversion_major > 0) {
		atomic_store(&a->es_major, (int)c->esversion_major);
		atomic_store(&a->with_type, c->esversion_major < 7);
		atomic_store(&a->version_known, true);
	}
	omes_stats_register(a, o, first_instance);
	return a;
}

static enum sl_rc omes_act_start(void *p)
{
	struct omes_act *a = p;
	const struct omes_cfg *c = a->cfg;
	a->started = true;
	if (c->errorfile) {
		a->err_fd = open(c->errorfile, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
		if (a->err_fd < 0) {
			sl_err("omelasticsearch %s: cannot open errorfile %s: %s", a->name, c->errorfile,
			       strerror(errno));
			return SL_ERR_IO;
		}
	}
	if (c->retryfailures) {
		if (c->retryruleset) {
			a->retry_rs = ruleset_lookup(c->retryruleset);
			if (!a->retry_rs) {
				sl_err("omelasticsearch %s: retryruleset '%s' is not defined", a->name,
				       c->retryruleset);
				return SL_ERR_CONFIG;
			}
		}
		a->retry_origin = msg_origin_create("localhost", "127.0.0.1", "omelasticsearch",
						    a->retry_rs);
	}
	return SL_OK;
}

/* The closing line with the action's counters. */
static void omes_log_stats(struct omes_act *a)
{
	struct omes_stats *s = &a->st;
	uint64_t failed = atomic_load(&s->failed_bad_request) + atomic_load(&s->failed_conflict) +
			  atomic_load(&s->failed_other);
	sl_info("omelasticsearch %s: submitted=%llu indexed=%llu duplicates=%llu failed=%llu "
		"(bad_request=%llu conflict=%llu other=%llu) retried=%llu "
		"resubmitted=%llu requests=%llu http_errors=%llu connection_errors=%llu",
		a->name, (unsigned long long)atomic_load(&s->submitted),
		(unsigned long long)atomic_load(&s->indexed),
		(unsigned long long)atomic_load(&s->duplicates), (unsigned long long)failed,
		(unsigned long long)atomic_load(&s->failed_bad_request),
		(unsigned long long)atomic_load(&s->failed_conflict),
		(unsigned long long)atomic_load(&s->failed_other),
		(unsigned long long)atomic_load(&s->retried),
		(unsigned long long)atomic_load(&s->resubmitted),
		(unsigned long long)atomic_load(&s->requests),
		(unsigned long long)atomic_load(&s->http_errors),
		(unsigned long long)atomic_load(&s->conn_errors));
}

static void omes_act_destroy(void *p)
{
	struct omes_act *a = p;
	if (!a)
		return;
	stats_obj_destroy(a->stats_obj);
	if (a->started)
		omes_log_stats(a);
	if (a->err_fd >= 0)
		close(a->err_fd);
	msg_origin_release(a->retry_origin);
	for (int i = 0; i < a->n_servers; i++)
		free(a->servers[i]);
	free(a->servers);
	free(a->bulk_query);
	free(a->name);
	pthread_mutex_destroy(&a->err_mu);
	pthread_mutex_destroy(&a->rl_mu);
	param_free(&omes_table, a->cfg);
	free(a);
}

/* ---- failed items: errorfile and retryfailures ---- */

static const char *reason_of(struct fjson_object *reply, struct sbuf *b)
{
	struct fjson_object *err, *t, *r, *cb;
	sbuf_reset(b);
	if (reply && fjson_object_object_get_ex(reply, "error", &err)) {
		if (fjson_object_get_type(err) == fjson_type_string) {
			sbuf_puts(b, fjson_object_get_string(err));
		} else {
			if (fjson_object_object_get_ex(err, "type", &t))
				sbuf_puts(b, fjson_object_get_string(t));
			if (fjson_object_object_get_ex(err, "reason", &r)) {
				sbuf_puts(b, ": ");
				sbuf_puts(b, fjson_object_get_string(r));
			}
			if (fjson_object_object_get_ex(err, "caused_by", &cb) &&
			    fjson_object_object_get_ex(cb, "reason", &r)) {
				sbuf_puts(b, " (caused by: ");
				sbuf_puts(b, fjson_object_get_string(r));
				sbuf_puts(b, ")");
			}
		}
	}
	sbuf_cstr(b);
	return b->len ? b->buf : "no reason given";
}

/* Parse `len` bytes as JSON; a string object when they are not JSON. */
static struct fjson_object *json_or_string(const char *p, size_t len)
{
	struct fjson_tokener *tok = fjson_tokener_new();
	struct fjson_object *o = tok ? fjson_tokener_parse_ex(tok, p, (int)len) : NULL;
	if (tok)
		fjson_tokener_free(tok);
	return o ? o : fjson_object_new_string_len(p, (int)len);
}

/* retryfailures="on": hand the document back to the rules, with what
 * Elasticsearch said in $.omes, subject to ratelimit.interval/burst. */
static void resubmit(struct omes_act *a, const char *doc, size_t doclen, struct fjson_object *reply,
		     long status)
{
	const struct omes_cfg *c = a->cfg;
	if (c->ratelimit_interval > 0) {
		bool ok;
		int64_t now = omes_now_ms();
		pthread_mutex_lock(&a->rl_mu);
		if (now - a->rl_window_start >= c->ratelimit_interval * 1000) {
			a->rl_window_start = now;
			a->rl_count = 0;
		}
		ok = a->rl_count < c->ratelimit_burst;
		if (ok)
			a->rl_count++;
		pthread_mutex_unlock(&a->rl_mu);
		if (!ok) {
			atomic_fetch_add(&a->rl_dropped, 1);
			return;
		}
	}
	struct msg *m = msg_create(doc, doclen, a->retry_origin, NULL, 0);
	if (!m)
		return;
	struct fjson_object *omes = fjson_object_new_object();
	struct fjson_object *lv = fjson_object_new_object();
	if (!omes || !lv) {
		if (omes)
			fjson_object_put(omes);
		if (lv)
			fjson_object_put(lv);
		msg_release(m);
		return;
	}
	fjson_object_object_add(omes, "writeoperation",
				fjson_object_new_string(a->op == OMES_OP_CREATE ? "create" : "index"));
	fjson_object_object_add(omes, "status", fjson_object_new_int((int)status));
	if (reply) {
		struct fjson_object_iterator it = fjson_object_iter_begin(reply);
		struct fjson_object_iterator end = fjson_object_iter_end(reply);
		for (; !fjson_object_iter_equal(&it, &end); fjson_object_iter_next(&it)) {
			const char *k = fjson_object_iter_peek_name(&it);
			if (strcmp(k, "status") == 0)
				continue;
			fjson_object_object_add(omes, k, fjson_object_get(fjson_object_iter_peek_value(&it)));
		}
	}
	fjson_object_object_add(lv, "omes", omes);
	m->localvars = lv;
	struct fjson_object *d = json_or_string(doc, doclen);
	if (d && fjson_object_get_type(d) == fjson_type_object)
		m->json = d;
	else if (d)
		fjson_object_put(d);
	atomic_fetch_add(&a->st.resubmitted, 1);
	input_submit(&m, 1, FLOW_NO_DELAY);
}

/* One item failed for good: errorfile line, counters, retryfailures. */
static void item_failed(struct omes_wrk *w, const struct omes_item *it, struct fjson_object *reply,
			long status, const char *why)
{
	struct omes_act *a = w->act;
	const char *meta = w->body.buf + it->off;
	const char *doc = meta + it->meta_len;
	size_t doclen = it->len - it->meta_len - 1;
	struct sbuf rb = SBUF_INIT;
	const char *reason = why ? why : reason_of(reply, &rb);

	if (status == 409)
		atomic_fetch_add(&a->st.failed_conflict, 1);
	else if (status == 400)
		atomic_fetch_add(&a->st.failed_bad_request, 1);
	else
		atomic_fetch_add(&a->st.failed_other, 1);

	if (a->err_fd >= 0) {
		struct fjson_object *line = fjson_object_new_object();
		struct fjson_object *req = fjson_object_new_object();
		if (line && req) {
			char ts[40];
			time_t now = time(NULL);
			struct tm tm;
			gmtime_r(&now, &tm);
			strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
			fjson_object_object_add(line, "time", fjson_object_new_string(ts));
			fjson_object_object_add(line, "action", fjson_object_new_string(a->name));
			fjson_object_object_add(line, "url", fjson_object_new_string(
				w->url.buf ? w->url.buf : a->servers[w->srv]));
			fjson_object_object_add(line, "status", fjson_object_new_int((int)status));
			fjson_object_object_add(line, "reason", fjson_object_new_string(reason));
			fjson_object_object_add(req, "action", json_or_string(meta, it->meta_len - 1));
			fjson_object_object_add(req, "document", json_or_string(doc, doclen));
			fjson_object_object_add(line, "request", req);
			req = NULL;
			fjson_object_object_add(line, "reply", reply ? fjson_object_get(reply) : NULL);
			const char *txt = fjson_object_to_json_string_ext(line, FJSON_TO_STRING_PLAIN);
			size_t tl = strlen(txt);
			struct sbuf out = SBUF_INIT;
			if (sbuf_append(&out, txt, tl) && sbuf_putc(&out, '\n')) {
				pthread_mutex_lock(&a->err_mu);
				size_t done = 0;
				while (done < out.len) {
					ssize_t n = write(a->err_fd, out.buf + done, out.len - done);
					if (n < 0 && errno == EINTR)
						continue;
					if (n <= 0)
						break;
					done += (size_t)n;
				}
				pthread_mutex_unlock(&a->err_mu);
			}
			sbuf_free(&out);
		}
		if (req)
			fjson_object_put(req);
		if (line)
			fjson_object_put(line);
	} else {
		sl_warn("omelasticsearch %s: document refused (status %ld): %s", a->name, status, reason);
	}
	if (a->cfg->retryfailures)
		resubmit(a, doc, doclen, reply, status);
	sbuf_free(&rb);
}

/* ---- worker ---- */

static void *omes_wrk_create(void *act)
{
	struct omes_act *a = act;
	struct omes_wrk *w = sl_xcalloc(1, sizeof(*w));
	w->act = a;
	w->retry_after_ms = -1;
	w->chunk_limit = a->cfg->bulkmode ? 0 : 1;
	if (a->n_servers)
		w->srv = (int)(atomic_fetch_add(&a->next_server, 1) % (unsigned)a->n_servers);
	if (omes_http_init(w) != SL_OK)
		sl_err("omelasticsearch %s: cannot set up libcurl; every send will be retried", a->name);
	return w;
}

static void compact(struct omes_wrk *w);
static void publish_submitted(struct omes_wrk *w);
static enum act_result flush(struct omes_wrk *w);

static void omes_wrk_destroy(void *p)
{
	struct omes_wrk *w = p;
	if (!w)
		return;
	/* Pending items, if any, belong to a transaction the core dropped
	 * (it requeues or accounts for those messages itself). */
	publish_submitted(w);
	omes_http_fini(w);
	sbuf_free(&w->body);
	sbuf_free(&w->resp);
	sbuf_free(&w->url);
	sbuf_free(&w->tmp);
	for (int i = 0; i < OMES_META_CACHE; i++) {
		sbuf_free(&w->mc[i].idx);
		sbuf_free(&w->mc[i].line);
	}
	sbuf_free(&w->gz);
	sbuf_free(&w->carry);
	sbuf_free(&w->carry_next);
	free(w->slot_res);
	free(w->items);
	free(w);
}

/* Add the worker's count of tx_add calls to the action's counter. */
static void publish_submitted(struct omes_wrk *w)
{
	if (w->submitted) {
		atomic_fetch_add_explicit(&w->act->st.submitted, w->submitted, memory_order_relaxed);
		w->submitted = 0;
	}
}

static enum sl_rc omes_tx_begin(void *p)
{
	struct omes_wrk *w = p;
	publish_submitted(w);
	/* Anything left belongs to a transaction the core dropped (stop,
	 * requeue): those messages are the core's again. */
	w->n_items = 0;
	w->body.len = 0;
	w->n_slots = 0;
	return SL_OK;
}

/* Hand the pending items back to the core as ACT_SUSPENDED: it adds
 * exactly those messages again after try_resume. */
static void hand_back(struct omes_wrk *w)
{
	for (size_t i = 0; i < w->n_items; i++) {
		struct omes_item *it = &w->items[i];
		w->slot_res[it->slot] = ACT_SUSPENDED;
		if (w->act->op == OMES_OP_CREATE && it->unanswered)
			sbuf_append(&w->carry_next, w->body.buf + it->off, it->meta_len);
	}
	atomic_fetch_add(&w->act->st.retried, w->n_items);
	w->n_items = 0;
	w->body.len = 0;
}

/* Append a "key":"value" pair of the action line (value JSON-escaped). */
static bool meta_kv(struct sbuf *b, const char *key, const char *v, size_t vl)
{
	return sbuf_puts(b, ",\"") && sbuf_puts(b, key) && sbuf_puts(b, "\":\"") &&
	       json_esc(b, v, vl) && sbuf_putc(b, '"');
}

/* Value of a static or dyn* parameter for message m: rendered into w->tmp
 * (from offset *off), returned as pointer/length. */
static bool param_value(struct omes_wrk *w, struct msg *m, const struct template *t,
			const char *fixed, const char **v, size_t *vl)
{
	if (!t) {
		*v = fixed;
		*vl = strlen(fixed);
		return true;
	}
	sbuf_reset(&w->tmp);
	if (!tpl_render(t, m, &w->tmp))
		return false;
	*v = w->tmp.buf ? w->tmp.buf : "";
	*vl = w->tmp.len;
	return true;
}

static enum act_result omes_tx_add(void *p, struct msg *m, const char *doc, size_t len)
{
	struct omes_wrk *w = p;
	struct omes_act *a = w->act;
	const struct omes_cfg *c = a->cfg;

	if (SL_UNLIKELY(!atomic_load(&a->version_known))) {
		/* Best effort, at most every 10 s per worker: while no server
		 * answers, documents are built without _type (every server of
		 * the last years rejects it; esVersion.major="6" for older). */
		int64_t now = omes_now_ms();
		if (now >= w->next_detect) {
			w->next_detect = now + 10000;
			omes_detect_version(w);
		}
	}
	/* The document goes on one line: drop trailing line ends. */
	while (len && (doc[len - 1] == '\n' || doc[len - 1] == '\r'))
		len--;
	/* Keep maxbytes: send what is pending first. If that cannot be done
	 * now, this message is not taken (the core retries it after resume). */
	size_t est = len + 256;
	if (w->n_items && w->body.len + est > (size_t)c->maxbytes) {
		if (flush(w) != ACT_OK)
			hand_back(w);
	}
	if (w->n_slots == w->cap_slots) {
		uint32_t nc = w->cap_slots ? w->cap_slots * 2 : 256;
		enum act_result *nr = realloc(w->slot_res, nc * sizeof(*nr));
		if (!nr)
			return ACT_SUSPENDED;
		w->slot_res = nr;
		w->cap_slots = nc;
	}
	if (w->n_items == w->cap_items) {
		size_t nc = w->cap_items ? w->cap_items * 2 : 256;
		struct omes_item *ni = realloc(w->items, nc * sizeof(*ni));
		if (!ni)
			return ACT_SUSPENDED;
		w->items = ni;
		w->cap_items = nc;
	}
	struct sbuf *b = &w->body;
	size_t start = b->len;
	const char *v;
	size_t vl;
	bool ok = param_value(w, m, a->tpl_index, c->searchindex, &v, &vl);
	/* Only _index in the action line (the usual case): the line is the
	 * same as an earlier one with the same index, so copy that. */
	bool with_type = atomic_load(&a->with_type);
	bool index_only = !c->bulkid && !c->pipeline && !c->parent && !with_type;
	struct omes_meta_cache *mc = NULL;
	if (ok && index_only) {
		for (int i = 0; i < OMES_META_CACHE; i++) {
			struct omes_meta_cache *e = &w->mc[i];
			if (e->line.len && e->idx.len == vl && (vl == 0 || memcmp(v, e->idx.buf, vl) == 0)) {
				ok = sbuf_append(b, e->line.buf, e->line.len);
				goto meta_done;
			}
		}
		mc = &w->mc[w->mc_next];
		w->mc_next = (w->mc_next + 1) % OMES_META_CACHE;
		sbuf_reset(&mc->idx);
		sbuf_reset(&mc->line);
		if (!sbuf_append(&mc->idx, v, vl))
			mc = NULL;
	}
	ok = ok && sbuf_puts(b, a->op == OMES_OP_CREATE ? "{\"create\":{\"_index\":\""
							: "{\"index\":{\"_index\":\"") &&
		  json_esc(b, v, vl) && sbuf_putc(b, '"');
	if (ok && with_type)
		ok = param_value(w, m, a->tpl_type, c->searchtype, &v, &vl) && meta_kv(b, "_type", v, vl);
	if (ok && c->bulkid)
		ok = param_value(w, m, a->tpl_bulkid, c->bulkid, &v, &vl) && meta_kv(b, "_id", v, vl);
	if (ok && c->pipeline) {
		ok = param_value(w, m, a->tpl_pipeline, c->pipeline, &v, &vl);
		if (ok && !(vl == 0 && c->skip_pipeline_if_empty))
			ok = meta_kv(b, "pipeline", v, vl);
	}
	if (ok && c->parent) {
		ok = param_value(w, m, a->tpl_parent, c->parent, &v, &vl);
		/* _parent went away with types; routing carries it since ES 6 */
		if (ok)
			ok = meta_kv(b, with_type ? "_parent" : "routing", v, vl);
	}
	ok = ok && sbuf_puts(b, "}}\n");
	if (ok && mc && !sbuf_append(&mc->line, b->buf + start, b->len - start))
		mc->line.len = 0;
meta_done:;
	size_t meta_len = ok ? b->len - start : 0;
	if (ok) {
		size_t dstart = b->len;
		ok = sbuf_append(b, doc, len) && sbuf_putc(b, '\n');
		if (ok && memchr(b->buf + dstart, '\n', len)) {
			/* an LF inside would end the document early: JSON allows
			 * whitespace between tokens, so make it a space */
			for (size_t i = dstart; i < dstart + len; i++)
				if (b->buf[i] == '\n')
					b->buf[i] = ' ';
		}
	}
	if (!ok) {
		b->len = start;
		return ACT_SUSPENDED;
	}
	struct omes_item *it = &w->items[w->n_items++];
	it->off = (uint32_t)start;
	it->len = (uint32_t)(b->len - start);
	it->meta_len = (uint32_t)meta_len;
	it->state = ITEM_PENDING;
	it->unanswered = 0;
	it->slot = w->n_slots++;
	w->slot_res[it->slot] = ACT_SUSPENDED;
	if (SL_UNLIKELY(w->carry_off < w->carry.len)) {
		/* is this a create handed back unanswered, added again? */
		const char *cm = w->carry.buf + w->carry_off;
		if (w->carry.len - w->carry_off >= meta_len && memcmp(cm, b->buf + start, meta_len) == 0) {
			it->unanswered = 1;
			w->carry_off += meta_len;
		} else {
			w->carry_off = w->carry.len;
		}
	}
	w->submitted++;
	return ACT_DEFERRED;
}

/* Drop done items, keep the others in order (bytes and table). */
static void compact(struct omes_wrk *w)
{
	size_t wr = 0, out = 0;
	for (size_t i = 0; i < w->n_items; i++) {
		struct omes_item it = w->items[i];
		if (it.state == ITEM_DONE)
			continue;
		if (it.off != out)
			memmove(w->body.buf + out, w->body.buf + it.off, it.len);
		it.off = (uint32_t)out;
		it.state = ITEM_PENDING;
		out += it.len;
		w->items[wr++] = it;
	}
	w->n_items = wr;
	w->body.len = out;
}

static bool retriable(long status)
{
	return status == 429 || status == 408 || status >= 500;
}

/* Read the per-item answer of a _bulk request covering items [0, k). */
static void read_items(struct omes_wrk *w, size_t k)
{
	struct omes_act *a = w->act;
	const char *r = w->resp.buf;
	/* fast path: nothing failed */
	const char *e = strstr(r, "\"errors\":");
	if (e && e - r < 64 && strncmp(e + 9, "false", 5) == 0) {
		for (size_t i = 0; i < k; i++) {
			w->items[i].state = ITEM_DONE;
			w->slot_res[w->items[i].slot] = ACT_OK;
		}
		atomic_fetch_add_explicit(&a->st.indexed, k, memory_order_relaxed);
		return;
	}
	struct fjson_tokener *tok = fjson_tokener_new();
	struct fjson_object *root = tok ? fjson_tokener_parse_ex(tok, r, (int)w->resp.len) : NULL;
	if (tok)
		fjson_tokener_free(tok);
	struct fjson_object *items = NULL;
	if (!root || !fjson_object_object_get_ex(root, "items", &items) ||
	    fjson_object_get_type(items) != fjson_type_array) {
		sl_err("omelasticsearch %s: _bulk answered %ld with no item list; retrying %zu documents",
		       a->name, w->http_status, k);
		for (size_t i = 0; i < k; i++)
			w->items[i].state = ITEM_RETRY;
		atomic_fetch_add(&a->st.retried, k);
		if (root)
			fjson_object_put(root);
		return;
	}
	size_t n = (size_t)fjson_object_array_length(items);
	uint64_t ok = 0, dup = 0, retry = 0;
	struct sbuf rb = SBUF_INIT;
	for (size_t i = 0; i < k; i++) {
		struct omes_item *it = &w->items[i];
		struct fjson_object *wrap = i < n ? fjson_object_array_get_idx(items, (int)i) : NULL;
		struct fjson_object *res = NULL, *st;
		if (wrap && fjson_object_get_type(wrap) == fjson_type_object) {
			struct fjson_object_iterator b = fjson_object_iter_begin(wrap);
			struct fjson_object_iterator en = fjson_object_iter_end(wrap);
			if (!fjson_object_iter_equal(&b, &en))
				res = fjson_object_iter_peek_value(&b);
		}
		long status = res && fjson_object_object_get_ex(res, "status", &st)
				      ? (long)fjson_object_get_int64(st) : -1;
		if (status >= 200 && status < 300) {
			it->state = ITEM_DONE;
			w->slot_res[it->slot] = ACT_OK;
			ok++;
		} else if (status == 409 && a->op == OMES_OP_CREATE && it->unanswered) {
			/* the earlier, unanswered request had created it */
			it->state = ITEM_DONE;
			w->slot_res[it->slot] = ACT_OK;
			dup++;
		} else if (status < 0 || retriable(status)) {
			it->state = ITEM_RETRY;
			retry++;
		} else {
			item_failed(w, it, res, status, NULL);
			it->state = ITEM_DONE;
			w->slot_res[it->slot] = ACT_FAILED;
		}
	}
	sbuf_free(&rb);
	atomic_fetch_add_explicit(&a->st.indexed, ok, memory_order_relaxed);
	if (dup)
		atomic_fetch_add(&a->st.duplicates, dup);
	if (retry)
		atomic_fetch_add(&a->st.retried, retry);
	fjson_object_put(root);
}

/* Send every pending item; see the top of the file. Returns ACT_OK when
 * Elasticsearch has answered for all of them, ACT_SUSPENDED otherwise
 * (the unanswered ones stay pending). */
static enum act_result flush(struct omes_wrk *w)
{
	struct omes_act *a = w->act;
	const struct omes_cfg *c = a->cfg;
	int64_t deadline = omes_now_ms() + OMES_RETRY_WINDOW_MS;
	int64_t backoff = OMES_BACKOFF_MIN_MS;
	int servers_failed = 0;

	if (!w->curl)
		return ACT_SUSPENDED;
	if (w->not_before && omes_now_ms() < w->not_before)
		return ACT_SUSPENDED;
	while (w->n_items) {
		size_t k = w->n_items;
		if (w->chunk_limit && k > w->chunk_limit)
			k = w->chunk_limit;
		size_t bytes = w->items[k - 1].off + w->items[k - 1].len;
		enum omes_send r = omes_http_bulk(w, w->srv, w->body.buf, bytes);
		atomic_fetch_add_explicit(&a->st.requests, 1, memory_order_relaxed);
		w->ops_since_bind += (int64_t)k;
		if (r == SEND_NOMEM)
			return ACT_SUSPENDED;
		if (r == SEND_NO_ANSWER) {
			atomic_fetch_add(&a->st.conn_errors, 1);
			atomic_fetch_add(&a->st.conn_error_docs, k);
			for (size_t i = 0; i < k; i++)
				w->items[i].unanswered = 1;
			sl_warn("omelasticsearch %s: %s: no answer (%s); %zu documents pending",
				a->name, a->servers[w->srv], w->curl_err, w->n_items);
			w->srv = (w->srv + 1) % a->n_servers;
			if (++servers_failed >= a->n_servers)
				return ACT_SUSPENDED;
			atomic_fetch_add(&a->st.retried, k);
			continue;
		}
		servers_failed = 0;
		long st = w->http_status;
		if (st >= 200 && st < 300) {
			read_items(w, k);
			bool again = false;
			for (size_t i = 0; i < k; i++)
				if (w->items[i].state == ITEM_RETRY)
					again = true;
			compact(w);
			/* round-robin as rsyslog 8.2302 (incrementServerIndex
			 * after each request): the next request, of this batch
			 * or the next, goes to the next server */
			if (a->n_servers > 1)
				w->srv = (w->srv + 1) % a->n_servers;
			if (!again) {
				backoff = OMES_BACKOFF_MIN_MS;
				continue;
			}
		} else if (retriable(st) || st == 401 || st == 403) {
			/* overloaded, or not allowed (yet): nothing was indexed */
			atomic_fetch_add(&a->st.http_errors, 1);
			if (st == 401 || st == 403) {
				/* not transient: no back-off loop, suspend at once;
				 * the core keeps or gives up the documents as
				 * action.resumeRetryCount says (rsyslog 8.2302
				 * drops them into errorfile instead) */
				sl_err("omelasticsearch %s: %s refused the request with HTTP %ld; check "
				       "uid/pwd; suspending with %zu documents pending", a->name,
				       a->servers[w->srv], st, w->n_items);
				if (a->n_servers > 1)
					w->srv = (w->srv + 1) % a->n_servers;
				return ACT_SUSPENDED;
			}
			atomic_fetch_add(&a->st.retried, k);
		} else if (k > 1) {
			/* 400, 413, ...: one bad item, or too big; halve */
			atomic_fetch_add(&a->st.http_errors, 1);
			w->chunk_limit = k / 2;
			continue;
		} else {
			atomic_fetch_add(&a->st.http_errors, 1);
			struct fjson_object *reply = json_or_string(w->resp.buf, w->resp.len);
			char why[160];
			snprintf(why, sizeof(why), "the whole request was refused with HTTP %ld", st);
			item_failed(w, &w->items[0], reply, st, why);
			if (reply)
				fjson_object_put(reply);
			w->items[0].state = ITEM_DONE;
			w->slot_res[w->items[0].slot] = ACT_FAILED;
			compact(w);
			continue;
		}
		/* back off before sending the rest again */
		int64_t wait = w->retry_after_ms >= 0 ? w->retry_after_ms : backoff;
		int64_t now = omes_now_ms();
		if (now + wait > deadline || atomic_load(&sl_shutdown_requested)) {
			if (w->retry_after_ms > 0)
				w->not_before = now + w->retry_after_ms;
			sl_warn("omelasticsearch %s: %s keeps refusing (HTTP %ld); suspending with %zu "
				"documents pending", a->name, a->servers[w->srv], st, w->n_items);
			return ACT_SUSPENDED;
		}
		sleep_ms(wait);
		backoff = backoff * 2 > OMES_BACKOFF_MAX_MS ? OMES_BACKOFF_MAX_MS : backoff * 2;
		/* spread the retries over the servers (a 2xx answer has
		 * already moved on) */
		if (a->n_servers > 1 && !(st >= 200 && st < 300))
			w->srv = (w->srv + 1) % a->n_servers;
	}
	w->chunk_limit = c->bulkmode ? 0 : 1;
	return ACT_OK;
}

/* End of a transaction: send what is pending and report per message. */
static enum act_result omes_tx_commit_items(void *p, enum act_result *res, int n)
{
	struct omes_wrk *w = p;
	publish_submitted(w);
	if (w->n_items && flush(w) != ACT_OK)
		hand_back(w);
	if ((uint32_t)n != w->n_slots)
		sl_err("omelasticsearch %s: the core committed %d messages, the module saw %u",
		       w->act->name, n, w->n_slots);
	for (int i = 0; i < n; i++)
		res[i] = (uint32_t)i < w->n_slots ? w->slot_res[i] : ACT_SUSPENDED;
	w->n_slots = 0;
	/* the next transaction may start with these, added again */
	struct sbuf t = w->carry;
	w->carry = w->carry_next;
	w->carry_next = t;
	w->carry_next.len = 0;
	w->carry_off = 0;
	return ACT_OK;
}

/* After a suspension: does a server answer its health check? */
static enum sl_rc omes_try_resume(void *p)
{
	struct omes_wrk *w = p;
	struct omes_act *a = w->act;
	if (!w->curl)
		return SL_ERR_SUSPENDED;
	if (w->not_before) {
		if (omes_now_ms() < w->not_before)
			return SL_ERR_SUSPENDED;
		w->not_before = 0;
	}
	for (int t = 0; t < a->n_servers; t++) {
		int srv = (w->srv + t) % a->n_servers;
		if (omes_http_get(w, srv, "_cluster/health") == SEND_ANSWERED &&
		    w->http_status >= 200 && w->http_status < 300) {
			w->srv = srv;
			if (!atomic_load(&a->version_known))
				return omes_detect_version(w);
			return SL_OK;
		}
	}
	return SL_ERR_SUSPENDED;
}

/* ---- module ---- */

static void *omes_mod_init(void *cfg, int *n_errors)
{
	(void)cfg;
	if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK) {
		sl_err("omelasticsearch: libcurl cannot be initialised");
		(*n_errors)++;
	}
	return NULL;
}

static void omes_mod_exit(void *mod)
{
	(void)mod;
	curl_global_cleanup();
}

static const struct output_ops omes_output_ops = {
	.act_create = omes_act_create,
	.act_start = omes_act_start,
	.act_destroy = omes_act_destroy,
	.wrk_create = omes_wrk_create,
	.wrk_destroy = omes_wrk_destroy,
	.tx_begin = omes_tx_begin,
	.tx_add = omes_tx_add,
	.tx_commit_items = omes_tx_commit_items,
	.try_resume = omes_try_resume,
	.default_template = " StdJSONFmt",
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "omelasticsearch",
	.description = "index documents into Elasticsearch / OpenSearch (_bulk, per-item results)",
	.type = MOD_OUTPUT,
	.inst_params = &omes_table,
	.mod_init = omes_mod_init,
	.mod_exit = omes_mod_exit,
	.output = &omes_output_ops,
};
