/* omes_http.c — omelasticsearch's HTTP side: one libcurl easy handle per
 * worker (so its connections are kept alive and reused from one bulk
 * request to the next), TLS and basic-auth settings, optional gzip request
 * bodies, the health check, and the detection of the server's flavour
 * (whether bulk action lines may carry `_type`).
 *
 * Threading: every function works on one struct omes_wrk, owned by the
 * calling worker thread; the only shared state written here is the
 * action's version decision (atomics, written with the same value by
 * whichever worker decides first).
 */
#include "omes.h"
#include "log.h"

#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <zlib.h>

#define OMES_UPLOAD_BUF (1024 * 1024)   /* curl's maximum is 2 MB */
#define OMES_RECV_BUF (256 * 1024)      /* curl's maximum is 512 kB */

int64_t omes_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct omes_wrk *w = arg;
	return sbuf_append(&w->resp, p, size * n) ? size * n : 0;
}

/* Response headers: Retry-After (seconds) and X-Elastic-Product. */
static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	struct omes_wrk *w = arg;
	size_t len = size * n;
	if (len > 12 && strncasecmp(p, "Retry-After:", 12) == 0) {
		long s = strtol(p + 12, NULL, 10);
		if (s >= 0 && s < 3600)
			w->retry_after_ms = s * 1000;
	} else if (len > 18 && strncasecmp(p, "X-Elastic-Product:", 18) == 0) {
		w->saw_elastic_header = true;
	}
	return len;
}

enum sl_rc omes_http_init(struct omes_wrk *w)
{
	const struct omes_cfg *c = w->act->cfg;
	CURL *h = curl_easy_init();
	if (!h)
		return SL_ERR_NOMEM;
	w->curl = h;
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, w);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, w);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, w->curl_err);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	/* A bulk body is hundreds of kB and its answer tens or hundreds:
	 * curl's default 64 kB / 16 kB buffers cost a send or recv, and a
	 * poll, per buffer. Larger ones (allocated once per handle, only
	 * the upload one as large as a body can be) cut those calls. */
	long ul = c->maxbytes < OMES_UPLOAD_BUF ? (long)c->maxbytes : OMES_UPLOAD_BUF;
	curl_easy_setopt(h, CURLOPT_UPLOAD_BUFFERSIZE, ul);
	curl_easy_setopt(h, CURLOPT_BUFFERSIZE, (long)OMES_RECV_BUF);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(c->healthcheck_timeout > 0 ? c->healthcheck_timeout : 3500));
	if (c->uid) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, c->uid);
		curl_easy_setopt(h, CURLOPT_PASSWORD, c->pwd ? c->pwd : "");
	}
	if (c->tls_cacert)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->tls_cacert);
	if (c->tls_mycert)
		curl_easy_setopt(h, CURLOPT_SSLCERT, c->tls_mycert);
	if (c->tls_myprivkey)
		curl_easy_setopt(h, CURLOPT_SSLKEY, c->tls_myprivkey);
	if (c->allow_unsigned_certs)
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
	if (c->skip_verify_host)
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	/* "Expect: 100-continue" would cost a round trip per large bulk */
	w->hdrs_json = curl_slist_append(NULL, "Content-Type: application/json");
	w->hdrs_json = curl_slist_append(w->hdrs_json, "Expect:");
	w->hdrs_gzip = curl_slist_append(NULL, "Content-Type: application/json");
	w->hdrs_gzip = curl_slist_append(w->hdrs_gzip, "Expect:");
	w->hdrs_gzip = curl_slist_append(w->hdrs_gzip, "Content-Encoding: gzip");
	if (!w->hdrs_json || !w->hdrs_gzip)
		return SL_ERR_NOMEM;
	return SL_OK;
}

void omes_http_fini(struct omes_wrk *w)
{
	if (w->curl)
		curl_easy_cleanup(w->curl);
	curl_slist_free_all(w->hdrs_json);
	curl_slist_free_all(w->hdrs_gzip);
	w->curl = NULL;
	w->hdrs_json = w->hdrs_gzip = NULL;
}

static enum omes_send perform(struct omes_wrk *w)
{
	w->resp.len = 0;
	w->retry_after_ms = -1;
	w->http_status = 0;
	w->curl_err[0] = '\0';
	CURLcode rc = curl_easy_perform(w->curl);
	if (rc != CURLE_OK) {
		if (!w->curl_err[0])
			snprintf(w->curl_err, sizeof(w->curl_err), "%s", curl_easy_strerror(rc));
		return rc == CURLE_OUT_OF_MEMORY ? SEND_NOMEM : SEND_NO_ANSWER;
	}
	curl_easy_getinfo(w->curl, CURLINFO_RESPONSE_CODE, &w->http_status);
	if (!sbuf_cstr(&w->resp))
		return SEND_NOMEM;
	return SEND_ANSWERED;
}

static bool set_url(struct omes_wrk *w, int srv, const char *path, const char *query)
{
	sbuf_reset(&w->url);
	if (!sbuf_puts(&w->url, w->act->servers[srv]) || !sbuf_puts(&w->url, path) ||
	    (query && !sbuf_puts(&w->url, query)) || !sbuf_cstr(&w->url))
		return false;
	curl_easy_setopt(w->curl, CURLOPT_URL, w->url.buf);
	return true;
}

enum omes_send omes_http_get(struct omes_wrk *w, int srv, const char *path)
{
	const struct omes_cfg *c = w->act->cfg;
	if (!set_url(w, srv, path, NULL))
		return SEND_NOMEM;
	curl_easy_setopt(w->curl, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(w->curl, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(w->curl, CURLOPT_TIMEOUT_MS,
			 (long)(c->healthcheck_timeout > 0 ? c->healthcheck_timeout : 3500));
	return perform(w);
}

/* gzip `len` bytes into w->gz. */
static bool gzip_body(struct omes_wrk *w, const char *data, size_t len)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return false;
	size_t bound = deflateBound(&zs, len) + 32;
	sbuf_reset(&w->gz);
	if (!sbuf_grow(&w->gz, bound)) {
		deflateEnd(&zs);
		return false;
	}
	zs.next_in = (Bytef *)data;
	zs.avail_in = (uInt)len;
	zs.next_out = (Bytef *)w->gz.buf;
	zs.avail_out = (uInt)bound;
	int rc = deflate(&zs, Z_FINISH);
	w->gz.len = zs.total_out;
	deflateEnd(&zs);
	return rc == Z_STREAM_END;
}

enum omes_send omes_http_bulk(struct omes_wrk *w, int srv, const char *data, size_t len)
{
	const struct omes_cfg *c = w->act->cfg;
	if (!set_url(w, srv, "_bulk", w->act->bulk_query))
		return SEND_NOMEM;
	if (w->act->gzip) {
		if (!gzip_body(w, data, len))
			return SEND_NOMEM;
		data = w->gz.buf;
		len = w->gz.len;
	}
	curl_easy_setopt(w->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(w->curl, CURLOPT_POSTFIELDS, data);
	curl_easy_setopt(w->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(w->curl, CURLOPT_HTTPHEADER, w->act->gzip ? w->hdrs_gzip : w->hdrs_json);
	curl_easy_setopt(w->curl, CURLOPT_TIMEOUT_MS, (long)(c->indextimeout > 0 ? c->indextimeout : 0));
	bool rebind = c->rebindinterval > 0 && w->ops_since_bind >= c->rebindinterval;
	if (rebind) {
		/* close the old connection and open a new one for this request */
		curl_easy_setopt(w->curl, CURLOPT_FRESH_CONNECT, 1L);
		w->ops_since_bind = 0;
	}
	enum omes_send r = perform(w);
	if (rebind)
		curl_easy_setopt(w->curl, CURLOPT_FRESH_CONNECT, 0L);
	return r;
}

/* Decide from a parsed GET / answer; false if it says nothing useful. */
static bool decide_from_root(struct omes_act *a, struct fjson_object *root)
{
	struct fjson_object *ver, *num, *dist;
	if (!root || !fjson_object_object_get_ex(root, "version", &ver) ||
	    !fjson_object_object_get_ex(ver, "number", &num))
		return false;
	int major = atoi(fjson_object_get_string(num));
	bool opensearch = fjson_object_object_get_ex(ver, "distribution", &dist) &&
			  strcasecmp(fjson_object_get_string(dist), "opensearch") == 0;
	atomic_store(&a->es_major, major);
	atomic_store(&a->with_type, !opensearch && major > 0 && major < 7);
	return true;
}

enum sl_rc omes_detect_version(struct omes_wrk *w)
{
	struct omes_act *a = w->act;
	for (int tries = 0; tries < a->n_servers; tries++) {
		int srv = (w->srv + tries) % a->n_servers;
		w->saw_elastic_header = false;
		enum omes_send r = omes_http_get(w, srv, "");
		if (r != SEND_ANSWERED)
			continue;
		bool decided = false;
		if (w->http_status == 200) {
			struct fjson_object *root = fjson_tokener_parse(w->resp.buf);
			decided = decide_from_root(a, root);
			if (root)
				fjson_object_put(root);
		}
		if (!decided) {
			/* Some answer, but no version: Elasticsearch's test
			 * distribution answers GET / with 405, a proxy may hide
			 * it. Ask the node; Elasticsearch >= 7.14 also sends
			 * X-Elastic-Product on every answer. */
			bool elastic = w->saw_elastic_header;
			int major = 0;
			if (omes_http_get(w, srv, "_nodes/_local?filter_path=nodes.*.version") ==
				    SEND_ANSWERED && w->http_status == 200) {
				const char *v = strstr(w->resp.buf, "\"version\":\"");
				major = v ? atoi(v + 11) : 0;
			}
			elastic = elastic || w->saw_elastic_header;
			atomic_store(&a->es_major, major);
			/* without a version, leave _type out: modern servers all
			 * reject it */
			atomic_store(&a->with_type, major > 0 && major < 7 && !elastic);
		}
		w->srv = srv;
		atomic_store(&a->version_known, true);
		sl_info("omelasticsearch %s: server %s: %s%d; bulk action lines %s _type",
			a->name, a->servers[srv], "major version ", atomic_load(&a->es_major),
			atomic_load(&a->with_type) ? "carry" : "omit");
		return SL_OK;
	}
	return SL_ERR_SUSPENDED;
}
