/* imhttp.c — the HTTP endpoint for operators: GET /metrics (every counter
 * of the statistics registry in the Prometheus text format, the loss
 * ledger included), /healthz (the process is alive) and /readyz (every
 * listener bound and every queue loaded, and no action is discarding
 * messages because its retries are used up). Off unless loaded:
 *
 *   module(load="imhttp" ports="127.0.0.1:9100" metricsPath="/metrics"
 *          healthCheckPath="/healthz" readyPath="/readyz")
 *
 * Parameter names are those of rsyslog's imhttp (ports, metricsPath,
 * healthCheckPath; documentRoot and liboptions are accepted and ignored);
 * rsyslog's imhttp also takes messages over HTTP (input()), which sluice
 * does not. A port without an address binds 127.0.0.1 only (rsyslog's
 * civetweb binds every address): exposing the endpoint is a decision the
 * configuration has to spell out ("0.0.0.0:9100").
 *
 * Deliberately small: HTTP/1.0 GET (and HEAD) only, one request per
 * connection (Connection: close), a request head of at most 4 KiB read
 * within 5 s, at most 16 connections at once; nothing else is parsed.
 *
 * Threading: one thread (the input's in_run) polls the listeners and the
 * open connections; in_stop wakes it through an eventfd. It never touches
 * the message path: rendering reads the registry's atomics (and takes
 * each queue's lock for a moment to read its size).
 */
#include "sluice.h"
#include "module.h"
#include "input.h"
#include "action.h"
#include "ast.h"
#include "log.h"
#include "net.h"
#include "sbuf.h"
#include "sdnotify.h"
#include "stats.h"

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
#include <time.h>
#include <unistd.h>

#define HTTP_MAX_LISTENERS 16
#define HTTP_MAX_CONNS 16
#define HTTP_MAX_REQ 4096
#define HTTP_TIMEOUT_MS 5000

struct imhttp_cfg {
	struct param_array ports;
	char *metrics_path;
	char *health_path;
	char *ready_path;
	char *document_root;
	struct param_array liboptions;
};

#define MOFF(f) offsetof(struct imhttp_cfg, f)
static const struct param_desc imhttp_params[] = {
	{ "ports", PARAM_ARRAY, "127.0.0.1:9100", 0, MOFF(ports), "where to listen: PORT (on 127.0.0.1), ADDR:PORT or [ADDR6]:PORT, comma-separated" },
	{ "metricsPath", PARAM_STRING, "/metrics", 0, MOFF(metrics_path), "path of the Prometheus text-format statistics" },
	{ "healthCheckPath", PARAM_STRING, "/healthz", 0, MOFF(health_path), "path answering 200 while the process runs" },
	{ "readyPath", PARAM_STRING, "/readyz", 0, MOFF(ready_path), "path answering 200 once every listener is bound and the queues are loaded, else 503" },
	{ "documentRoot", PARAM_STRING, NULL, 0, MOFF(document_root), "accepted for rsyslog compatibility; no files are served" },
	{ "liboptions", PARAM_ARRAY, NULL, 0, MOFF(liboptions), "accepted for rsyslog compatibility (civetweb options); ignored" },
};
static const struct param_table imhttp_table = PARAM_TABLE(imhttp_params, struct imhttp_cfg);

struct http_conn {
	int fd;                 /* -1 = free slot */
	size_t len;
	int64_t deadline_ms;
	char req[HTTP_MAX_REQ + 1];
};

struct imhttp {
	struct imhttp_cfg *cfg;
	int lfds[HTTP_MAX_LISTENERS];
	int n_lfds;
	int wake_fd;
	atomic_bool stopping;
	struct http_conn conns[HTTP_MAX_CONNS];
	atomic_uint_fast64_t requests, errors;
	struct stats_obj *stats_obj;
};

static void *imhttp_mod_init(void *mod_cfg, int *n_errors)
{
	struct imhttp_cfg *c = mod_cfg ? mod_cfg : param_defaults(&imhttp_table);
	const char *paths[] = { c->metrics_path, c->health_path, c->ready_path };
	for (size_t i = 0; i < SL_ARRAY_SIZE(paths); i++) {
		if (!paths[i] || paths[i][0] != '/') {
			sl_err("imhttp: paths must begin with '/' (got '%s')", paths[i] ? paths[i] : "");
			(*n_errors)++;
		}
	}
	return c;
}

static void imhttp_mod_exit(void *mod)
{
	param_free(&imhttp_table, mod);
}

static void *imhttp_in_create(void *mod, void *cfg, struct cfg_obj *o, int *n_errors)
{
	(void)mod;
	(void)cfg;
	cfg_error(&o->pos, "imhttp: input() (messages over HTTP) is not supported by sluice; "
		  "module(load=\"imhttp\") serves the metrics and health endpoints");
	(*n_errors)++;
	return NULL;
}

static void *imhttp_mod_input(void *mod, int *n_errors)
{
	(void)n_errors;
	struct imhttp *h = sl_xcalloc(1, sizeof(*h));
	h->cfg = mod;
	h->wake_fd = -1;
	for (int i = 0; i < HTTP_MAX_CONNS; i++)
		h->conns[i].fd = -1;
	return h;
}

/* "PORT", "ADDR:PORT", "[ADDR6]:PORT" -> address and port (in buf). */
static bool split_port(const char *spec, char *buf, size_t size, const char **addr,
		       const char **port)
{
	snprintf(buf, size, "%s", spec);
	char *s = buf;
	while (*s == ' ')
		s++;
	char *colon = strrchr(s, ':');
	if (s[0] == '[') {
		char *rb = strchr(s, ']');
		if (!rb || rb[1] != ':')
			return false;
		*rb = '\0';
		*addr = s + 1;
		*port = rb + 2;
	} else if (colon) {
		*colon = '\0';
		*addr = s;
		*port = colon + 1;
	} else {
		*addr = "127.0.0.1";
		*port = s;
	}
	return **port != '\0';
}

static enum sl_rc imhttp_in_start(void *arg)
{
	struct imhttp *h = arg;
	struct imhttp_cfg *c = h->cfg;
	for (int i = 0; i < c->ports.n; i++) {
		/* a value may itself be a comma-separated list (civetweb style) */
		char *list = sl_xstrdup(c->ports.v[i]), *save = NULL;
		for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char buf[256], who[600];
			const char *addr, *port;
			if (!split_port(tok, buf, sizeof(buf), &addr, &port)) {
				sl_err("imhttp: cannot use ports value '%s' (PORT, ADDR:PORT or [ADDR6]:PORT)", tok);
				free(list);
				return SL_ERR_CONFIG;
			}
			snprintf(who, sizeof(who), "imhttp %s:%s", addr, port);
			int room = HTTP_MAX_LISTENERS - h->n_lfds;
			int n = room > 0 ? net_listen_tcp(addr, port, 16, h->lfds + h->n_lfds, room, who) : -1;
			if (n < 0) {
				free(list);
				return SL_ERR_IO;
			}
			h->n_lfds += n;
		}
		free(list);
	}
	h->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (h->wake_fd < 0)
		return SL_ERR_IO;
	h->stats_obj = stats_obj_create("imhttp", "imhttp");
	stats_obj_add(h->stats_obj, "requests", &h->requests, STATS_CTR_RESETTABLE);
	stats_obj_add(h->stats_obj, "errors", &h->errors, STATS_CTR_RESETTABLE);
	return SL_OK;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void conn_close(struct http_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->len = 0;
}

/* Write all of buf (the socket is blocking for this; SO_SNDTIMEO bounds
 * it). */
static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void respond(struct http_conn *c, int code, const char *reason, const char *ctype,
		    const char *body, size_t blen, bool head_only)
{
	char hdr[256];
	int hl = snprintf(hdr, sizeof(hdr),
			  "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			  "Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
			  code, reason, ctype, blen);
	/* blocking from here, bounded by SO_SNDTIMEO */
	int fl = fcntl(c->fd, F_GETFL);
	if (fl >= 0)
		fcntl(c->fd, F_SETFL, fl & ~O_NONBLOCK);
	struct timeval tv = { .tv_sec = HTTP_TIMEOUT_MS / 1000 };
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	write_all(c->fd, hdr, (size_t)hl);
	if (!head_only && blen)
		write_all(c->fd, body, blen);
	conn_close(c);
}

/* An action with a finite action.resumeRetryCount that is suspended
 * sends what comes to its error file: it failed for good meanwhile. */
static const struct action *failed_action(void)
{
	for (const struct action *a = action_first(); a; a = a->next)
		if (!a->discard && a->resume_retry_count >= 0 && atomic_load(&a->is_suspended))
			return a;
	return NULL;
}

static void handle_request(struct imhttp *h, struct http_conn *c)
{
	struct imhttp_cfg *cfg = h->cfg;
	atomic_fetch_add(&h->requests, 1);
	c->req[c->len] = '\0';
	char method[8], path[1024];
	if (sscanf(c->req, "%7s %1023s", method, path) != 2) {
		atomic_fetch_add(&h->errors, 1);
		respond(c, 400, "Bad Request", "text/plain", "bad request\n", 12, false);
		return;
	}
	bool head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") != 0 && !head) {
		atomic_fetch_add(&h->errors, 1);
		respond(c, 405, "Method Not Allowed", "text/plain", "GET only\n", 9, false);
		return;
	}
	char *q = strchr(path, '?');
	if (q)
		*q = '\0';
	if (!strcmp(path, cfg->metrics_path)) {
		struct sbuf sb = SBUF_INIT;
		stats_render(STATS_FMT_PROMETHEUS, false, NULL, NULL, &sb);
		respond(c, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", sb.buf ? sb.buf : "",
			sb.len, head);
		sbuf_free(&sb);
	} else if (!strcmp(path, cfg->health_path)) {
		respond(c, 200, "OK", "text/plain", "OK\n", 3, head);
	} else if (!strcmp(path, cfg->ready_path)) {
		const struct action *fa = NULL;
		if (!sl_is_ready()) {
			respond(c, 503, "Service Unavailable", "text/plain",
				"not ready: starting or stopping\n", 32, head);
		} else if ((fa = failed_action()) != NULL) {
			char b[300];
			int bl = snprintf(b, sizeof(b), "not ready: action %s is suspended and "
					  "discarding\n", fa->name);
			respond(c, 503, "Service Unavailable", "text/plain", b,
				(size_t)(bl < (int)sizeof(b) ? bl : (int)sizeof(b) - 1), head);
		} else {
			respond(c, 200, "OK", "text/plain", "ready\n", 6, head);
		}
	} else {
		respond(c, 404, "Not Found", "text/plain", "not found\n", 10, head);
	}
}

static void conn_read(struct imhttp *h, struct http_conn *c)
{
	ssize_t n = recv(c->fd, c->req + c->len, HTTP_MAX_REQ - c->len, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->len += (size_t)n;
	c->req[c->len] = '\0';
	if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n")) {
		handle_request(h, c);
		return;
	}
	if (c->len >= HTTP_MAX_REQ) {
		atomic_fetch_add(&h->errors, 1);
		respond(c, 431, "Request Header Fields Too Large", "text/plain", "too large\n", 10,
			false);
	}
}

static void imhttp_in_run(void *arg)
{
	struct imhttp *h = arg;
	struct pollfd pf[1 + HTTP_MAX_LISTENERS + HTTP_MAX_CONNS];
	struct http_conn *pc[HTTP_MAX_CONNS];
	while (!atomic_load(&h->stopping)) {
		int n = 0, nc = 0, n_open = 0;
		pf[n++] = (struct pollfd){ .fd = h->wake_fd, .events = POLLIN };
		for (int i = 0; i < HTTP_MAX_CONNS; i++)
			n_open += h->conns[i].fd >= 0;
		for (int i = 0; i < h->n_lfds; i++) /* no accept while every slot is busy */
			pf[n++] = (struct pollfd){ .fd = h->lfds[i], .events = n_open < HTTP_MAX_CONNS ? POLLIN : 0 };
		int first_conn = n;
		int64_t now = now_ms(), wait = -1;
		for (int i = 0; i < HTTP_MAX_CONNS; i++) {
			struct http_conn *c = &h->conns[i];
			if (c->fd < 0)
				continue;
			if (c->deadline_ms <= now) {
				conn_close(c); /* too slow: drop */
				atomic_fetch_add(&h->errors, 1);
				continue;
			}
			if (wait < 0 || c->deadline_ms - now < wait)
				wait = c->deadline_ms - now;
			pc[nc++] = c;
			pf[n++] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
		}
		int r = poll(pf, (nfds_t)n, (int)wait);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			sl_err("imhttp: poll: %s", strerror(errno));
			break;
		}
		if (pf[0].revents)
			break;
		for (int i = 1; i < first_conn; i++) {
			if (!(pf[i].revents & POLLIN))
				continue;
			int fd = accept4(pf[i].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
			if (fd < 0)
				continue;
			struct http_conn *slot = NULL;
			for (int k = 0; k < HTTP_MAX_CONNS && !slot; k++)
				if (h->conns[k].fd < 0)
					slot = &h->conns[k];
			if (!slot) {
				close(fd);
				continue;
			}
			slot->fd = fd;
			slot->len = 0;
			slot->deadline_ms = now_ms() + HTTP_TIMEOUT_MS;
		}
		for (int i = 0; i < nc; i++)
			if (pf[first_conn + i].revents && pc[i]->fd >= 0)
				conn_read(h, pc[i]);
	}
}

static void imhttp_in_stop(void *arg)
{
	struct imhttp *h = arg;
	uint64_t one = 1;
	atomic_store(&h->stopping, true);
	if (h->wake_fd >= 0 && write(h->wake_fd, &one, sizeof(one)) < 0)
		sl_err("imhttp: cannot wake the thread: %s", strerror(errno));
}

static void imhttp_in_destroy(void *arg)
{
	struct imhttp *h = arg;
	if (!h)
		return;
	stats_obj_destroy(h->stats_obj);
	for (int i = 0; i < HTTP_MAX_CONNS; i++)
		conn_close(&h->conns[i]);
	for (int i = 0; i < h->n_lfds; i++)
		close(h->lfds[i]);
	if (h->wake_fd >= 0)
		close(h->wake_fd);
	free(h); /* the config belongs to the module */
}

static const struct input_ops imhttp_input_ops = {
	.in_create = imhttp_in_create,
	.in_start = imhttp_in_start,
	.in_run = imhttp_in_run,
	.in_stop = imhttp_in_stop,
	.in_destroy = imhttp_in_destroy,
	.mod_input = imhttp_mod_input,
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "imhttp",
	.description = "HTTP endpoint: /metrics (Prometheus), /healthz, /readyz",
	.type = MOD_INPUT,
	.mod_params = &imhttp_table,
	.mod_init = imhttp_mod_init,
	.mod_exit = imhttp_mod_exit,
	.input = &imhttp_input_ops,
};
