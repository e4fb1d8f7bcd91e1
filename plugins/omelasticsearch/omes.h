/* omes.h — what the two files of omelasticsearch share: the parsed
 * configuration, the action instance, the per-worker state with its
 * pending bulk items, and the HTTP helpers of omes_http.c.
 *
 * Threading: struct omes_act is built at load (main thread) and read-only
 * afterwards except its atomic counters, the detected server version
 * (atomics) and the error file, which has its own mutex. struct omes_wrk
 * belongs to one worker thread of the action; nothing in it is locked.
 */
#ifndef SLUICE_OMES_H
#define SLUICE_OMES_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "module.h"
#include "sbuf.h"
#include "sluice.h"

struct template;
struct msg_origin;
struct ruleset;

/* action(type="omelasticsearch" ...) parameters, as parsed by the core. */
struct omes_cfg {
	struct param_array server;
	int64_t serverport;
	int64_t healthcheck_timeout;          /* ms */
	char *searchindex;
	bool dyn_searchindex;
	char *searchtype;
	bool dyn_searchtype;
	char *tpl;                            /* handled by the core */
	bool bulkmode;
	int64_t maxbytes;
	char *writeoperation;
	char *bulkid;
	bool dyn_bulkid;
	char *pipeline;
	bool dyn_pipeline;
	bool skip_pipeline_if_empty;
	char *parent;
	bool dyn_parent;
	char *uid, *pwd;
	bool usehttps;
	char *tls_cacert, *tls_mycert, *tls_myprivkey;
	bool allow_unsigned_certs;
	bool skip_verify_host;
	char *timeout;
	char *errorfile;
	bool erroronly;
	bool interleaved;
	bool retryfailures;
	char *retryruleset;
	int64_t ratelimit_interval;
	int64_t ratelimit_burst;
	int64_t rebindinterval;
	int64_t indextimeout;                 /* ms, 0 = none */
	int64_t esversion_major;              /* 0 = detect */
	bool asyncrepl;
	char *compression;                    /* "none" or "gzip" (sluice extension) */
};

/* Counters of one action (all workers). */
struct omes_stats {
	atomic_uint_fast64_t submitted;        /* documents handed to the module */
	atomic_uint_fast64_t indexed;          /* 2xx from Elasticsearch */
	atomic_uint_fast64_t duplicates;       /* 409 for a create re-sent after an unanswered request */
	atomic_uint_fast64_t failed_bad_request; /* 400 per item (mapping / parsing) */
	atomic_uint_fast64_t failed_conflict;  /* 409 per item */
	atomic_uint_fast64_t failed_other;     /* other 4xx per item, or 4xx for a one-item request */
	atomic_uint_fast64_t retried;          /* item sends repeated (429/5xx/408/connection) */
	atomic_uint_fast64_t resubmitted;      /* retryfailures: handed to retryruleset */
	atomic_uint_fast64_t requests;         /* HTTP requests to _bulk */
	atomic_uint_fast64_t http_errors;      /* whole-request HTTP errors */
	atomic_uint_fast64_t conn_errors;      /* no answer (connect, timeout, reset) */
	atomic_uint_fast64_t conn_error_docs;  /* documents in those requests */
};

enum omes_op { OMES_OP_INDEX, OMES_OP_CREATE };

struct omes_act {
	struct omes_cfg *cfg;
	char *name;                 /* the action's name, for log lines */
	bool started;               /* act_start ran (not a config check) */
	char **servers;             /* base URLs, each ending in '/' */
	int n_servers;
	atomic_uint next_server;    /* round-robin start for new workers */
	enum omes_op op;
	bool gzip;
	const struct template *tpl_index, *tpl_type, *tpl_bulkid, *tpl_pipeline, *tpl_parent;
	char *bulk_query;           /* "?timeout=1m&filter_path=..." */
	/* server flavour: decided once (configured, or detected by any worker) */
	atomic_bool version_known;
	atomic_bool with_type;      /* put _type into action lines (ES < 7) */
	atomic_int es_major;
	/* error file */
	pthread_mutex_t err_mu;
	int err_fd;
	/* retryfailures */
	struct ruleset *retry_rs;
	struct msg_origin *retry_origin;
	pthread_mutex_t rl_mu;
	int64_t rl_window_start;    /* ms */
	int64_t rl_count;
	atomic_uint_fast64_t rl_dropped;
	struct omes_stats st;
	struct stats_obj *stats_obj;  /* the statistics registry's entry */
};

#define OMES_META_CACHE 4

enum omes_item_state { ITEM_PENDING = 0, ITEM_DONE, ITEM_RETRY };

/* One document waiting for Elasticsearch's answer: its action line and
 * document line are bytes [off, off+len) of the worker's body. */
struct omes_item {
	uint32_t off;
	uint32_t len;        /* action line + document line, each with its LF */
	uint32_t meta_len;   /* action line with its LF */
	uint32_t slot;       /* its place among the transaction's deferred adds */
	uint8_t state;
	uint8_t unanswered;  /* sent at least once without getting an answer */
};

struct omes_wrk {
	struct omes_act *act;
	CURL *curl;
	struct curl_slist *hdrs_json, *hdrs_gzip;
	int srv;                  /* current server */
	struct sbuf body;         /* NDJSON of every pending item, in order */
	struct omes_item *items;
	size_t n_items, cap_items;
	size_t chunk_limit;       /* max items per request now (0 = all) */
	/* result per deferred tx_add of the open transaction (tx_commit_items) */
	enum act_result *slot_res;
	uint32_t n_slots, cap_slots;
	/* writeoperation=create: action lines of items handed back to the core
	 * unanswered; when the core adds them again, a 409 means "indexed by
	 * the unanswered request", not a conflict */
	struct sbuf carry, carry_next;
	size_t carry_off;
	struct sbuf resp;
	struct sbuf url;
	struct sbuf tmp;          /* rendering of dyn* templates */
	/* the last action lines made of _index alone, with their index
	 * (a few: daily indices interleave around midnight, per-host or
	 * per-app indices all the time); line.len == 0: unused */
	struct omes_meta_cache {
		struct sbuf idx, line;
	} mc[OMES_META_CACHE];
	unsigned mc_next;         /* the entry to replace next */
	struct sbuf gz;
	uint64_t submitted;       /* tx_add calls not yet added to st.submitted:
				   * counted here, published once per
				   * transaction (no atomic per message) */
	int64_t ops_since_bind;   /* rebindinterval */
	int64_t not_before;       /* ms (monotonic): Retry-After */
	int64_t next_detect;      /* ms (monotonic): next version detection try */
	int64_t retry_after_ms;   /* from the last response, -1 = none */
	bool saw_elastic_header;  /* X-Elastic-Product seen */
	long http_status;
	char curl_err[CURL_ERROR_SIZE];
};

/* ---- omes_http.c ---- */
enum omes_send {
	SEND_ANSWERED,   /* HTTP answer; w->http_status and w->resp hold it */
	SEND_NO_ANSWER,  /* connection failure, timeout: w->curl_err says why */
	SEND_NOMEM,
};

/* Set up the worker's curl handle (TLS, auth, timeouts). */
enum sl_rc omes_http_init(struct omes_wrk *w);
void omes_http_fini(struct omes_wrk *w);
/* GET base-URL-of-server + path with the health-check timeout. */
enum omes_send omes_http_get(struct omes_wrk *w, int srv, const char *path);
/* POST `len` bytes of NDJSON to the server's _bulk endpoint. */
enum omes_send omes_http_bulk(struct omes_wrk *w, int srv, const char *data, size_t len);
/* Decide whether action lines carry _type (GET /, else _nodes). Returns
 * SL_OK when decided, SL_ERR_SUSPENDED when no server answered. */
enum sl_rc omes_detect_version(struct omes_wrk *w);
/* Monotonic clock in ms. */
int64_t omes_now_ms(void);

#endif
