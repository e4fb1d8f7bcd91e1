/* stats.c — the statistics registry and its output formats (see stats.h).
 *
 * Threading: one mutex guards the list of objects; counters are atomics
 * owned by their modules and read here with relaxed loads.
 */
#include "stats.h"
#include "sluice.h"
#include "action.h"
#include "ast.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct stats_ctr {
	char *name;
	atomic_uint_fast64_t *ctr;     /* NULL: computed by fn */
	uint64_t (*fn)(void *arg);
	void *arg;
	unsigned flags;
	uint64_t base;  /* sum of the values taken by resets (the ledger's totals) */
};

struct stats_obj {
	char *name;
	char *origin;
	struct stats_ctr *ctrs;
	int n_ctrs, cap_ctrs;
	struct stats_obj *next, *prev;
};

static pthread_mutex_t stats_mtx = PTHREAD_MUTEX_INITIALIZER;
static struct stats_obj *objs_first, *objs_last;

atomic_uint_fast64_t stats_internal_msgs;
atomic_uint_fast64_t stats_ledger_received;
atomic_uint_fast64_t stats_ledger_ruled;
atomic_uint_fast64_t stats_ledger_filtered;
atomic_uint_fast64_t stats_ledger_handed;
__thread uint64_t stats_tl_handed;

struct stats_obj *stats_obj_create(const char *name, const char *origin)
{
	struct stats_obj *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->name = strdup(name ? name : "");
	o->origin = strdup(origin ? origin : "");
	if (!o->name || !o->origin) {
		free(o->name);
		free(o->origin);
		free(o);
		return NULL;
	}
	pthread_mutex_lock(&stats_mtx);
	o->prev = objs_last;
	if (objs_last)
		objs_last->next = o;
	else
		objs_first = o;
	objs_last = o;
	pthread_mutex_unlock(&stats_mtx);
	return o;
}

static void obj_add(struct stats_obj *o, const char *ctr_name, atomic_uint_fast64_t *ctr,
		    uint64_t (*fn)(void *), void *arg, unsigned flags)
{
	pthread_mutex_lock(&stats_mtx);
	if (o->n_ctrs == o->cap_ctrs) {
		int cap = o->cap_ctrs ? o->cap_ctrs * 2 : 8;
		struct stats_ctr *n = realloc(o->ctrs, cap * sizeof(*n));
		if (!n) {
			pthread_mutex_unlock(&stats_mtx);
			return;
		}
		o->ctrs = n;
		o->cap_ctrs = cap;
	}
	char *nm = strdup(ctr_name);
	if (nm) {
		o->ctrs[o->n_ctrs++] = (struct stats_ctr){ nm, ctr, fn, arg, flags, 0 };
	}
	pthread_mutex_unlock(&stats_mtx);
}

void stats_obj_add(struct stats_obj *o, const char *ctr_name, atomic_uint_fast64_t *ctr,
		   unsigned flags)
{
	if (o && ctr)
		obj_add(o, ctr_name, ctr, NULL, NULL, flags);
}

void stats_obj_add_fn(struct stats_obj *o, const char *ctr_name, uint64_t (*fn)(void *arg),
		      void *arg, unsigned flags)
{
	if (o && fn)
		obj_add(o, ctr_name, NULL, fn, arg, flags & ~(unsigned)STATS_CTR_RESETTABLE);
}

void stats_obj_destroy(struct stats_obj *o)
{
	if (!o)
		return;
	pthread_mutex_lock(&stats_mtx);
	if (o->prev)
		o->prev->next = o->next;
	else
		objs_first = o->next;
	if (o->next)
		o->next->prev = o->prev;
	else
		objs_last = o->prev;
	pthread_mutex_unlock(&stats_mtx);
	for (int i = 0; i < o->n_ctrs; i++)
		free(o->ctrs[i].name);
	free(o->ctrs);
	free(o->name);
	free(o->origin);
	free(o);
}

bool stats_format_parse(const char *s, enum stats_format *out)
{
	static const struct { const char *n; enum stats_format f; } names[] = {
		{ "legacy", STATS_FMT_LEGACY }, { "json", STATS_FMT_JSON },
		{ "json-elasticsearch", STATS_FMT_JSON_ELASTICSEARCH }, { "cee", STATS_FMT_CEE },
		{ "prometheus", STATS_FMT_PROMETHEUS },
	};
	for (size_t i = 0; i < SL_ARRAY_SIZE(names); i++) {
		if (!strcasecmp(s, names[i].n)) {
			*out = names[i].f;
			return true;
		}
	}
	return false;
}

static void json_str(struct sbuf *sb, const char *s, bool es)
{
	sbuf_putc(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\' || c == '/') {
			/* rsyslog (libfastjson) escapes '/' too */
			sbuf_putc(sb, '\\');
			sbuf_putc(sb, (char)c);
		} else if (c < 0x20) {
			char b[8];
			snprintf(b, sizeof(b), "\\u%04x", c);
			sbuf_puts(sb, b);
		} else if (es && c == '.') {
			sbuf_putc(sb, '!');
		} else {
			sbuf_putc(sb, (char)c);
		}
	}
	sbuf_putc(sb, '"');
}

static uint64_t read_ctr(struct stats_ctr *c, bool reset)
{
	if (!c->ctr)
		return c->fn(c->arg);
	if (reset && (c->flags & STATS_CTR_RESETTABLE)) {
		uint64_t v = atomic_exchange_explicit(c->ctr, 0, memory_order_relaxed);
		c->base += v;
		return v;
	}
	return atomic_load_explicit(c->ctr, memory_order_relaxed);
}

/* Prometheus metric name: sluice_<origin>_<counter>, [a-zA-Z0-9_] only. */
static void prom_name(char *out, size_t size, const char *origin, const char *ctr)
{
	size_t n = 0;
	const char *parts[] = { "sluice", origin, ctr };
	for (int k = 0; k < 3 && n + 1 < size; k++) {
		if (k && n + 1 < size)
			out[n++] = '_';
		for (const char *p = parts[k]; *p && n + 1 < size; p++)
			out[n++] = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
	}
	out[n] = '\0';
}

struct prom_row {
	char metric[160];
	const char *label;
	uint64_t value;
	bool gauge;
};

static int prom_cmp(const void *a, const void *b)
{
	const struct prom_row *x = a, *y = b;
	int c = strcmp(x->metric, y->metric);
	return c ? c : strcmp(x->label, y->label);
}

static void prom_label(struct sbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			sbuf_putc(sb, '\\');
		if (*s == '\n') {
			sbuf_puts(sb, "\\n");
			continue;
		}
		sbuf_putc(sb, *s);
	}
}

static struct stats_obj *obj_next(struct stats_obj *o);

static void render_prometheus(bool reset, struct sbuf *out)
{
	size_t n = 0, cap = 64;
	struct prom_row *rows = malloc(cap * sizeof(*rows));
	if (!rows)
		return;
	for (struct stats_obj *o = obj_next(NULL); o; o = obj_next(o)) {
		for (int i = 0; i < o->n_ctrs; i++) {
			if (n == cap) {
				struct prom_row *r = realloc(rows, cap * 2 * sizeof(*rows));
				if (!r)
					goto done;
				rows = r;
				cap *= 2;
			}
			struct prom_row *r = &rows[n++];
			prom_name(r->metric, sizeof(r->metric), o->origin, o->ctrs[i].name);
			if (!(o->ctrs[i].flags & STATS_CTR_GAUGE) &&
			    strlen(r->metric) + 7 < sizeof(r->metric))
				strcat(r->metric, "_total");
			r->label = o->name;
			r->value = read_ctr(&o->ctrs[i], reset);
			r->gauge = o->ctrs[i].flags & STATS_CTR_GAUGE;
		}
	}
	qsort(rows, n, sizeof(*rows), prom_cmp);
	for (size_t i = 0; i < n; i++) {
		char b[64];
		if (i == 0 || strcmp(rows[i].metric, rows[i - 1].metric) != 0) {
			sbuf_puts(out, "# TYPE ");
			sbuf_puts(out, rows[i].metric);
			sbuf_puts(out, rows[i].gauge ? " gauge\n" : " counter\n");
		}
		sbuf_puts(out, rows[i].metric);
		sbuf_puts(out, "{name=\"");
		prom_label(out, rows[i].label);
		snprintf(b, sizeof(b), "\"} %llu\n", (unsigned long long)rows[i].value);
		sbuf_puts(out, b);
	}
done:
	free(rows);
}

/* ---- the loss ledger (see stats.h) ---- */

enum {
	LG_RECEIVED, LG_LOADED, LG_COPIES, LG_FILTERED, LG_DELIVERED, LG_FAILED, LG_QUEUED,
	LG_DROP_FULL, LG_DROP_NF, LG_DROP_SHUTDOWN, LG_DROP_DISK, LG_UNACCOUNTED, LG_N
};
static const char *const ledger_names[LG_N] = {
	"received", "loaded", "copies", "filtered", "delivered", "failed", "queued",
	"dropped.queue_full", "dropped.discardmark", "dropped.shutdown", "dropped.disk",
	"unaccounted",
};
static uint64_t ledger_v[LG_N];   /* snapshot; guarded by stats_mtx */
static struct stats_ctr ledger_ctrs[LG_N];
static struct stats_obj ledger_obj = { .name = (char *)"ledger", .origin = (char *)"core.ledger" };

static uint64_t ledger_val(void *arg)
{
	return *(const uint64_t *)arg;
}

/* Sum of counter `ctr` over the objects of `origin`. stats_mtx held. */
static uint64_t sum_ctr(const char *origin, const char *ctr)
{
	uint64_t v = 0;
	for (struct stats_obj *o = objs_first; o; o = o->next) {
		if (strcmp(o->origin, origin) != 0)
			continue;
		for (int i = 0; i < o->n_ctrs; i++)
			if (!strcmp(o->ctrs[i].name, ctr))
				v += o->ctrs[i].base + read_ctr(&o->ctrs[i], false);
	}
	return v;
}

/* Take the snapshot. stats_mtx held. */
static void ledger_compute(void)
{
	uint64_t *v = ledger_v;
	uint64_t ruled = atomic_load_explicit(&stats_ledger_ruled, memory_order_relaxed);
	uint64_t filtered = atomic_load_explicit(&stats_ledger_filtered, memory_order_relaxed);
	uint64_t handed = atomic_load_explicit(&stats_ledger_handed, memory_order_relaxed);
	v[LG_RECEIVED] = atomic_load_explicit(&stats_ledger_received, memory_order_relaxed);
	v[LG_LOADED] = sum_ctr("core.queue", "disk.loaded");
	v[LG_FILTERED] = filtered;
	/* messages that went to at least one action: ruled - filtered */
	uint64_t to_actions = ruled > filtered ? ruled - filtered : 0;
	v[LG_COPIES] = handed > to_actions ? handed - to_actions : 0;
	v[LG_DELIVERED] = sum_ctr("core.action", "processed");
	v[LG_FAILED] = sum_ctr("core.action", "failed");
	v[LG_QUEUED] = sum_ctr("core.queue", "size");
	v[LG_DROP_FULL] = sum_ctr("core.queue", "discarded.full");
	v[LG_DROP_NF] = sum_ctr("core.queue", "discarded.nf");
	v[LG_DROP_SHUTDOWN] = sum_ctr("core.queue", "discarded.shutdown");
	v[LG_DROP_DISK] = sum_ctr("core.queue", "discarded.disk");
	uint64_t left = v[LG_RECEIVED] + v[LG_LOADED] + v[LG_COPIES];
	uint64_t right = 0;
	for (int i = LG_FILTERED; i < LG_UNACCOUNTED; i++)
		right += v[i];
	v[LG_UNACCOUNTED] = left > right ? left - right : right - left;
	if (!ledger_obj.ctrs) {
		for (int i = 0; i < LG_N; i++)
			ledger_ctrs[i] = (struct stats_ctr){
				(char *)ledger_names[i], NULL, ledger_val, &ledger_v[i],
				i == LG_QUEUED || i == LG_UNACCOUNTED ? STATS_CTR_GAUGE : 0, 0 };
		ledger_obj.ctrs = ledger_ctrs;
		ledger_obj.n_ctrs = ledger_obj.cap_ctrs = LG_N;
	}
}

/* The objects to render: the registered ones, then the ledger (when
 * anything is registered). stats_mtx held. */
static struct stats_obj *obj_next(struct stats_obj *o)
{
	if (!o)
		return objs_first;
	if (o == &ledger_obj)
		return NULL;
	if (o->next)
		return o->next;
	ledger_compute();
	return &ledger_obj;
}

static void render_line(struct stats_obj *o, enum stats_format fmt, bool reset, struct sbuf *out);

void stats_render(enum stats_format fmt, bool reset,
		  void (*line)(const char *text, size_t len, void *arg), void *arg,
		  struct sbuf *out)
{
	pthread_mutex_lock(&stats_mtx);
	if (fmt == STATS_FMT_PROMETHEUS) {
		render_prometheus(reset, out);
		pthread_mutex_unlock(&stats_mtx);
		return;
	}
	struct sbuf sb = SBUF_INIT;
	for (struct stats_obj *o = obj_next(NULL); o; o = obj_next(o)) {
		sbuf_reset(&sb);
		render_line(o, fmt, reset, &sb);
		if (line && sbuf_cstr(&sb))
			line(sb.buf, sb.len, arg);
	}
	sbuf_free(&sb);
	pthread_mutex_unlock(&stats_mtx);
}

/* One object in a line format. stats_mtx held. */
static void render_line(struct stats_obj *o, enum stats_format fmt, bool reset, struct sbuf *out)
{
	{
		struct sbuf sb = *out;
		char b[64];
		if (fmt == STATS_FMT_LEGACY) {
			/* rsyslog's: "NAME: origin=ORIGIN ctr=1 ctr=2 " (the
			 * trailing space included) */
			sbuf_puts(&sb, o->name);
			sbuf_puts(&sb, ": origin=");
			sbuf_puts(&sb, o->origin);
			sbuf_putc(&sb, ' ');
			for (int i = 0; i < o->n_ctrs; i++) {
				snprintf(b, sizeof(b), "=%llu ",
					 (unsigned long long)read_ctr(&o->ctrs[i], reset));
				sbuf_puts(&sb, o->ctrs[i].name);
				sbuf_puts(&sb, b);
			}
		} else {
			bool es = fmt == STATS_FMT_JSON_ELASTICSEARCH;
			if (fmt == STATS_FMT_CEE)
				sbuf_puts(&sb, "@cee: ");
			sbuf_puts(&sb, "{ \"name\": ");
			json_str(&sb, o->name, false);
			sbuf_puts(&sb, ", \"origin\": ");
			json_str(&sb, o->origin, false);
			for (int i = 0; i < o->n_ctrs; i++) {
				sbuf_puts(&sb, ", ");
				json_str(&sb, o->ctrs[i].name, es);
				snprintf(b, sizeof(b), ": %llu",
					 (unsigned long long)read_ctr(&o->ctrs[i], reset));
				sbuf_puts(&sb, b);
			}
			sbuf_puts(&sb, " }");
		}
		*out = sb;
	}
}

bool stats_render_obj(const char *obj_name, enum stats_format fmt, struct sbuf *out)
{
	bool found = false;
	pthread_mutex_lock(&stats_mtx);
	for (struct stats_obj *o = obj_next(NULL); o && !found; o = obj_next(o)) {
		if (strcmp(o->name, obj_name) != 0)
			continue;
		render_line(o, fmt, false, out);
		found = sbuf_cstr(out); /* callers read it as a C string */
	}
	pthread_mutex_unlock(&stats_mtx);
	return found;
}

bool stats_get(const char *obj_name, const char *ctr_name, uint64_t *out)
{
	bool found = false;
	pthread_mutex_lock(&stats_mtx);
	for (struct stats_obj *o = obj_next(NULL); o && !found; o = obj_next(o)) {
		if (strcmp(o->name, obj_name) != 0)
			continue;
		for (int i = 0; i < o->n_ctrs; i++) {
			if (!strcmp(o->ctrs[i].name, ctr_name)) {
				*out = read_ctr(&o->ctrs[i], false);
				found = true;
				break;
			}
		}
	}
	pthread_mutex_unlock(&stats_mtx);
	return found;
}

