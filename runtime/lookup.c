/* lookup.c — lookup tables, dyn_stats and percentile_stats buckets and named time zones: the
 * configuration objects that script functions (lookup(), dyn_inc(),
 * reload_lookup_table) and parsers (timezone) refer to by name.
 *
 * Lookup table files are rsyslog's JSON format:
 *   {"version":1, "nomatch":"x", "type":"string|array|sparseArray",
 *    "table":[{"index":..., "value":...}, ...]}
 * string: exact match; array: the entry whose index equals the key;
 * sparseArray: the entry with the greatest index <= key. Anything else
 * yields "nomatch" ("" when absent).
 *
 * Threading: objects are created and destroyed by the main thread. Table
 * contents (struct lk_data) are immutable; a reload swaps the pointer
 * under the table's rwlock (write), lookups hold it for reading while they
 * copy the value. dyn_stats and percentile_stats buckets have one mutex
 * each; their statistics counters are atomics the registry reads without
 * it (runtime/stats.h).
 */
#include "lookup.h"
#include "ast.h"
#include "log.h"
#include "stats.h"

#include <stdatomic.h>
#include <time.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <json.h>

enum lk_type { LK_STRING, LK_ARRAY, LK_SPARSE };

struct lk_entry {
	char *key;        /* LK_STRING */
	int64_t num;      /* LK_ARRAY, LK_SPARSE */
	char *val;
	size_t val_len;
};

struct lk_data {
	enum lk_type type;
	char *nomatch;
	size_t nomatch_len;
	struct lk_entry *e;   /* sorted by key / num */
	size_t n;
};

struct lookup_table {
	char *name;
	char *file;
	bool reload_on_hup;
	pthread_rwlock_t lock;
	struct lk_data *data;
	struct lookup_table *next;
};

static struct lookup_table *tables;

static void lk_data_free(struct lk_data *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		free(d->e[i].key);
		free(d->e[i].val);
	}
	free(d->e);
	free(d->nomatch);
	free(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(((const struct lk_entry *)a)->key, ((const struct lk_entry *)b)->key);
}

static int cmp_num(const void *a, const void *b)
{
	int64_t x = ((const struct lk_entry *)a)->num, y = ((const struct lk_entry *)b)->num;
	return x < y ? -1 : x > y;
}

static char *json_text(struct fjson_object *o, size_t *len)
{
	const char *s = o ? fjson_object_get_string(o) : "";
	if (!s)
		s = "";
	*len = strlen(s);
	return sl_xstrndup(s, *len);
}

/* Load a table file; NULL and a message in err on failure. */
static struct lk_data *lk_load(const char *file, char *err, size_t errsz)
{
	FILE *f = fopen(file, "r");
	struct lk_data *d = NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	struct fjson_object *root = NULL, *v;
	if (!f) {
		snprintf(err, errsz, "cannot open lookup table file '%s': %s", file, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = sl_xrealloc(buf, cap);
		}
		size_t r = fread(buf + len, 1, cap - len - 1, f);
		if (r == 0)
			break;
		len += r;
	}
	fclose(f);
	buf[len] = '\0';
	struct fjson_tokener *tok = fjson_tokener_new();
	root = fjson_tokener_parse_ex(tok, buf, (int)len);
	fjson_tokener_free(tok);
	free(buf);
	if (!root || !fjson_object_is_type(root, fjson_type_object)) {
		snprintf(err, errsz, "lookup table file '%s' is not a JSON object", file);
		goto fail;
	}
	d = sl_xcalloc(1, sizeof(*d));
	if (fjson_object_object_get_ex(root, "version", &v) && fjson_object_get_int(v) != 1) {
		snprintf(err, errsz, "lookup table file '%s': unsupported version %d (expected 1)",
			 file, fjson_object_get_int(v));
		goto fail;
	}
	if (fjson_object_object_get_ex(root, "nomatch", &v))
		d->nomatch = json_text(v, &d->nomatch_len);
	else
		d->nomatch = sl_xstrdup("");
	d->type = LK_STRING;
	if (fjson_object_object_get_ex(root, "type", &v)) {
		const char *t = fjson_object_get_string(v);
		if (!strcmp(t, "string"))
			d->type = LK_STRING;
		else if (!strcmp(t, "array"))
			d->type = LK_ARRAY;
		else if (!strcmp(t, "sparseArray"))
			d->type = LK_SPARSE;
		else {
			snprintf(err, errsz, "lookup table file '%s': unknown type '%s' (expected string, "
				 "array or sparseArray)", file, t);
			goto fail;
		}
	}
	struct fjson_object *tab = NULL;
	if (fjson_object_object_get_ex(root, "table", &tab)) {
		if (!fjson_object_is_type(tab, fjson_type_array)) {
			snprintf(err, errsz, "lookup table file '%s': \"table\" must be an array", file);
			goto fail;
		}
		int n = fjson_object_array_length(tab);
		d->e = sl_xcalloc((size_t)n + 1, sizeof(*d->e));
		for (int i = 0; i < n; i++) {
			struct fjson_object *it = fjson_object_array_get_idx(tab, i), *ix, *vv;
			if (!it || !fjson_object_object_get_ex(it, "index", &ix) ||
			    !fjson_object_object_get_ex(it, "value", &vv)) {
				snprintf(err, errsz, "lookup table file '%s': entry %d needs \"index\" and "
					 "\"value\"", file, i + 1);
				goto fail;
			}
			struct lk_entry *e = &d->e[d->n++];
			e->val = json_text(vv, &e->val_len);
			if (d->type == LK_STRING) {
				size_t kl;
				e->key = json_text(ix, &kl);
			} else {
				e->num = fjson_object_get_int64(ix);
			}
		}
		qsort(d->e, d->n, sizeof(*d->e), d->type == LK_STRING ? cmp_str : cmp_num);
	}
	fjson_object_put(root);
	return d;
fail:
	fjson_object_put(root);
	lk_data_free(d);
	return NULL;
}

static const char *pstr(struct cfg_obj *o, const char *name)
{
	struct cfg_param *p = cfg_obj_param(o, name);
	return p && !p->val.is_array ? p->val.str : NULL;
}

static bool pbool(struct cfg_obj *o, const char *name, bool dflt, int *n_err)
{
	struct cfg_param *p = cfg_obj_param(o, name);
	if (!p)
		return dflt;
	if (!p->val.is_array && !strcasecmp(p->val.str, "on"))
		return true;
	if (!p->val.is_array && !strcasecmp(p->val.str, "off"))
		return false;
	cfg_error(&p->pos, "parameter '%s' must be \"on\" or \"off\"", name);
	(*n_err)++;
	return dflt;
}

enum sl_rc lookup_table_create(struct cfg_obj *o)
{
	int n_err = 0;
	const char *name = pstr(o, "name"), *file = pstr(o, "file");
	bool hup = pbool(o, "reloadonhup", true, &n_err);
	char err[512];
	if (!name || !file) {
		cfg_error(&o->pos, "lookup_table() needs the parameter%s %s",
			  !name && !file ? "s" : "", !name && !file ? "name= and file=" : !name ? "name=" : "file=");
		return SL_ERR_CONFIG;
	}
	if (lookup_find(name)) {
		cfg_error(&o->pos, "lookup table '%s' is defined twice", name);
		return SL_ERR_CONFIG;
	}
	struct lk_data *d = lk_load(file, err, sizeof(err));
	if (!d) {
		cfg_error(&o->pos, "%s", err);
		return SL_ERR_CONFIG;
	}
	if (n_err) {
		lk_data_free(d);
		return SL_ERR_CONFIG;
	}
	struct lookup_table *t = sl_xcalloc(1, sizeof(*t));
	t->name = sl_xstrdup(name);
	t->file = sl_xstrdup(file);
	t->reload_on_hup = hup;
	t->data = d;
	pthread_rwlock_init(&t->lock, NULL);
	t->next = tables;
	tables = t;
	o->resolved = t;
	return SL_OK;
}

struct lookup_table *lookup_find(const char *name)
{
	for (struct lookup_table *t = tables; t; t = t->next)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

bool lookup_is_numeric(const struct lookup_table *t)
{
	/* the type may change on reload; rsyslog fixes the key type at load */
	return t->data && t->data->type != LK_STRING;
}

static const struct lk_entry *lk_search(const struct lk_data *d, const char *key, size_t klen, int64_t knum)
{
	size_t lo = 0, hi = d->n;
	if (d->type == LK_STRING) {
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			const char *k = d->e[mid].key;
			size_t kl = strlen(k);
			int r = memcmp(key, k, klen < kl ? klen : kl);
			if (!r)
				r = klen < kl ? -1 : klen > kl;
			if (!r)
				return &d->e[mid];
			if (r < 0)
				hi = mid;
			else
				lo = mid + 1;
		}
		return NULL;
	}
	/* first entry with num > knum */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->e[mid].num <= knum)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct lk_entry *e = &d->e[lo - 1];
	if (d->type == LK_ARRAY && e->num != knum)
		return NULL;
	return e;
}

void lookup_get(struct lookup_table *t, const char *key, size_t klen, int64_t knum, struct sbuf *out)
{
	pthread_rwlock_rdlock(&t->lock);
	const struct lk_data *d = t->data;
	const struct lk_entry *e = lk_search(d, key, klen, knum);
	if (e)
		sbuf_append(out, e->val, e->val_len);
	else
		sbuf_append(out, d->nomatch, d->nomatch_len);
	pthread_rwlock_unlock(&t->lock);
}

bool lookup_reload(struct lookup_table *t, const char *stub)
{
	char err[512];
	struct lk_data *d = lk_load(t->file, err, sizeof(err));
	if (!d) {
		sl_err("lookup table '%s': reload failed: %s%s", t->name, err,
		       stub ? " (using the stub value)" : " (keeping the old contents)");
		if (!stub)
			return false;
		d = sl_xcalloc(1, sizeof(*d));
		d->type = t->data ? t->data->type : LK_STRING;
		d->nomatch = sl_xstrdup(stub);
		d->nomatch_len = strlen(stub);
	}
	pthread_rwlock_wrlock(&t->lock);
	struct lk_data *old = t->data;
	t->data = d;
	pthread_rwlock_unlock(&t->lock);
	lk_data_free(old);
	return true;
}

void lookup_reload_all(void)
{
	for (struct lookup_table *t = tables; t; t = t->next)
		if (t->reload_on_hup)
			lookup_reload(t, NULL);
}

/* ---- dyn_stats ---- */

/* rsyslog's statistics objects for dyn_stats: one "global" object (origin
 * dynstats) with NAME.ops_overflow, NAME.new_metric_add, NAME.no_metric,
 * NAME.metrics_purged, NAME.ops_ignored, NAME.purge_triggered per bucket,
 * and per bucket an object NAME (origin dynstats.bucket) with one counter
 * per key in the order the keys were first seen. Counters of a
 * resettable bucket are reset at every read (rsyslog's
 * CTR_FLAG_MUST_RESET), with or without impstats resetCounters. */

struct ds_counter {
	char *key;
	atomic_uint_fast64_t n;
	bool live;                 /* in the bucket's statistics object */
	struct ds_counter *next;   /* hash chain */
};

#define DS_HASH 256

struct dynstats_bucket {
	char *name;
	unsigned max_cardinality, n_keys;
	bool resettable;
	unsigned unused_life;      /* seconds; 0: never purge */
	time_t next_purge;
	pthread_mutex_t mtx;
	struct ds_counter *h[DS_HASH];
	struct stats_obj *obj;
	atomic_uint_fast64_t c_overflow, c_new, c_nometric, c_purged, c_ignored, c_purges;
	struct dynstats_bucket *next;
};

static struct dynstats_bucket *buckets;
static struct stats_obj *ds_global;

static uint64_t ds_must_reset(void *arg)
{
	return atomic_exchange_explicit((atomic_uint_fast64_t *)arg, 0, memory_order_relaxed);
}

static void ds_register(struct dynstats_bucket *b, struct ds_counter *c)
{
	if (b->resettable)
		stats_obj_add_fn(b->obj, c->key, ds_must_reset, &c->n, 0);
	else
		stats_obj_add(b->obj, c->key, &c->n, 0);
	c->live = true;
}

static void ds_global_add(struct stats_obj *g, const char *bname, const char *ctr,
			  atomic_uint_fast64_t *p)
{
	char nm[512];
	snprintf(nm, sizeof(nm), "%s.%s", bname, ctr);
	stats_obj_add(g, nm, p, STATS_CTR_RESETTABLE);
}

static long long pnum(struct cfg_obj *o, const char *name, long long dflt, int *n_err)
{
	struct cfg_param *p = cfg_obj_param(o, name);
	if (!p)
		return dflt;
	char *end = NULL;
	long long v = p->val.is_array ? -1 : strtoll(p->val.str, &end, 10);
	if (p->val.is_array || !end || end == p->val.str || *end || v < 0) {
		cfg_error(&p->pos, "parameter '%s' must be a non-negative number", name);
		(*n_err)++;
		return dflt;
	}
	return v;
}

enum sl_rc dynstats_bucket_create(struct cfg_obj *o)
{
	int n_err = 0;
	const char *name = pstr(o, "name");
	long long mc = pnum(o, "maxcardinality", 2000, &n_err);
	long long life = pnum(o, "unusedmetriclife", 3600, &n_err);
	bool resettable = pbool(o, "resettable", true, &n_err);
	if (!name) {
		cfg_error(&o->pos, "dyn_stats() needs the parameter name=");
		return SL_ERR_CONFIG;
	}
	if (n_err)
		return SL_ERR_CONFIG;
	if (dynstats_find(name)) {
		cfg_error(&o->pos, "dyn_stats bucket '%s' is defined twice", name);
		return SL_ERR_CONFIG;
	}
	struct dynstats_bucket *b = sl_xcalloc(1, sizeof(*b));
	b->name = sl_xstrdup(name);
	b->max_cardinality = (unsigned)mc;
	b->resettable = resettable;
	b->unused_life = (unsigned)life;
	if (b->unused_life)
		b->next_purge = time(NULL) + b->unused_life;
	pthread_mutex_init(&b->mtx, NULL);
	if (!ds_global)
		ds_global = stats_obj_create("global", "dynstats");
	ds_global_add(ds_global, name, "ops_overflow", &b->c_overflow);
	ds_global_add(ds_global, name, "new_metric_add", &b->c_new);
	ds_global_add(ds_global, name, "no_metric", &b->c_nometric);
	ds_global_add(ds_global, name, "metrics_purged", &b->c_purged);
	ds_global_add(ds_global, name, "ops_ignored", &b->c_ignored);
	ds_global_add(ds_global, name, "purge_triggered", &b->c_purges);
	b->obj = stats_obj_create(name, "dynstats.bucket");
	b->next = buckets;
	buckets = b;
	o->resolved = b;
	return SL_OK;
}

struct dynstats_bucket *dynstats_find(const char *name)
{
	for (struct dynstats_bucket *b = buckets; b; b = b->next)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

static unsigned ds_hash(const char *k, size_t l)
{
	unsigned h = 5381;
	for (size_t i = 0; i < l; i++)
		h = h * 33 + (unsigned char)k[i];
	return h % DS_HASH;
}

int dynstats_inc(struct dynstats_bucket *b, const char *key, size_t klen)
{
	if (klen == 0) {
		atomic_fetch_add_explicit(&b->c_nometric, 1, memory_order_relaxed);
		return 0;
	}
	unsigned h = ds_hash(key, klen);
	int rc = 0;
	pthread_mutex_lock(&b->mtx);
	struct ds_counter *c = b->h[h];
	while (c && !(strlen(c->key) == klen && !memcmp(c->key, key, klen)))
		c = c->next;
	if (c && !c->live) {
		/* a survivor of the last purge, used again: back in the object */
		ds_register(b, c);
	} else if (!c) {
		if (b->n_keys >= b->max_cardinality) {
			atomic_fetch_add_explicit(&b->c_overflow, 1, memory_order_relaxed);
			rc = DYNSTATS_RC_OVERFLOW;
			goto out;
		}
		c = sl_xcalloc(1, sizeof(*c));
		c->key = sl_xstrndup(key, klen);
		c->next = b->h[h];
		b->h[h] = c;
		b->n_keys++;
		ds_register(b, c);
		atomic_fetch_add_explicit(&b->c_new, 1, memory_order_relaxed);
	}
	atomic_fetch_add_explicit(&c->n, 1, memory_order_relaxed);
out:
	pthread_mutex_unlock(&b->mtx);
	return rc;
}

uint64_t dynstats_get(struct dynstats_bucket *b, const char *key)
{
	uint64_t n = 0;
	pthread_mutex_lock(&b->mtx);
	for (struct ds_counter *c = b->h[ds_hash(key, strlen(key))]; c; c = c->next)
		if (!strcmp(c->key, key))
			n = atomic_load_explicit(&c->n, memory_order_relaxed);
	pthread_mutex_unlock(&b->mtx);
	return n;
}

/* rsyslog's bucket reset after unusedMetricLife: the keys of the last
 * period become survivors (out of the statistics object, values kept);
 * survivors not used since the previous purge are dropped for good and
 * counted in metrics_purged. */
static void ds_purge(struct dynstats_bucket *b)
{
	pthread_mutex_lock(&b->mtx);
	stats_obj_destroy(b->obj);
	b->obj = stats_obj_create(b->name, "dynstats.bucket");
	uint64_t dropped = 0;
	for (int i = 0; i < DS_HASH; i++) {
		for (struct ds_counter **pp = &b->h[i]; *pp;) {
			struct ds_counter *c = *pp;
			if (!c->live) {
				*pp = c->next;
				free(c->key);
				free(c);
				dropped++;
				continue;
			}
			c->live = false;
			pp = &c->next;
		}
	}
	b->n_keys = 0;
	pthread_mutex_unlock(&b->mtx);
	atomic_fetch_add_explicit(&b->c_purged, dropped, memory_order_relaxed);
	atomic_fetch_add_explicit(&b->c_purges, 1, memory_order_relaxed);
}

/* ---- percentile_stats ---- */

/* rsyslog's percentile buckets: per key a FIFO of the last observations
 * (a ring of windowSize rounded up to a power of two, holding one less),
 * and counters KEY<delim>pN..., window_min, window_max, window_sum,
 * window_count in the bucket's object (origin percentile.bucket), keys in
 * the order first seen; NAME.new_metric_add and NAME.ops_overflow in the
 * object "global" (origin percentile). After each statistics report the
 * percentiles are computed from the observations since the previous one
 * (so a report shows the percentiles of the interval before it, as
 * rsyslog 8.2302 prints them), and the window counters restart with the
 * next observation. */

struct pct_key {
	char *name;
	int64_t *ring;
	size_t head, tail;
	bool reported;
	atomic_uint_fast64_t wmin, wmax, wsum, wcount;
	atomic_uint_fast64_t *p;   /* one per percentile */
	struct pct_key *hnext;     /* hash chain */
	struct pct_key *onext;     /* creation order */
};

#define PCT_HASH 64

struct percentile_bucket {
	char *name, *delim;
	uint8_t *pct;
	size_t n_pct;
	size_t window, ring_size;  /* ring_size: power of two */
	pthread_mutex_t mtx;
	struct pct_key *h[PCT_HASH];
	struct pct_key *first, *last;
	struct stats_obj *obj;
	int64_t *scratch;          /* window values for the report */
	atomic_uint_fast64_t c_new, c_overflow;
	struct percentile_bucket *next;
};

static struct percentile_bucket *pbuckets;
static struct stats_obj *pct_global;

struct percentile_bucket *percentile_find(const char *name)
{
	for (struct percentile_bucket *b = pbuckets; b; b = b->next)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

enum sl_rc percentile_bucket_create(struct cfg_obj *o)
{
	int n_err = 0;
	const char *name = pstr(o, "name");
	const char *delim = pstr(o, "delimiter");
	struct cfg_param *pp = cfg_obj_param(o, "percentiles");
	long long ws = pnum(o, "windowsize", 0, &n_err);
	if (!name) {
		cfg_error(&o->pos, "percentile_stats() needs the parameter name=");
		return SL_ERR_CONFIG;
	}
	if (n_err)
		return SL_ERR_CONFIG;
	if (!pp || !pp->val.is_array || pp->val.n_arr == 0) {
		cfg_error(pp ? &pp->pos : &o->pos,
			  "percentile_stats() needs percentiles= as an array of numbers 0..100, e.g. [\"95\"]");
		return SL_ERR_CONFIG;
	}
	if (ws < 2 || ws > (1LL << 24)) {
		cfg_error(&o->pos, "percentile_stats(): windowSize= must be between 2 and 16777216");
		return SL_ERR_CONFIG;
	}
	if (percentile_find(name)) {
		cfg_error(&o->pos, "percentile_stats bucket '%s' is defined twice", name);
		return SL_ERR_CONFIG;
	}
	uint8_t *pct = sl_xcalloc((size_t)pp->val.n_arr, 1);
	for (size_t i = 0; i < (size_t)pp->val.n_arr; i++) {
		const char *s = pp->val.arr[i];
		char *end = NULL;
		long v = strtol(s, &end, 10);
		if (end == s || *end || v < 0 || v > 100) {
			cfg_error(&pp->pos, "percentile_stats(): percentile '%s' is not a number 0..100", s);
			free(pct);
			return SL_ERR_CONFIG;
		}
		pct[i] = (uint8_t)v;
	}
	struct percentile_bucket *b = sl_xcalloc(1, sizeof(*b));
	b->name = sl_xstrdup(name);
	b->delim = sl_xstrdup(delim ? delim : ".");
	b->pct = pct;
	b->n_pct = (size_t)pp->val.n_arr;
	b->window = (size_t)ws;
	b->ring_size = 1;
	while (b->ring_size < b->window)
		b->ring_size <<= 1;
	b->scratch = sl_xcalloc(b->window, sizeof(int64_t));
	pthread_mutex_init(&b->mtx, NULL);
	if (!pct_global)
		pct_global = stats_obj_create("global", "percentile");
	char nm[512];
	snprintf(nm, sizeof(nm), "%s.new_metric_add", name);
	stats_obj_add(pct_global, nm, &b->c_new, STATS_CTR_RESETTABLE);
	snprintf(nm, sizeof(nm), "%s.ops_overflow", name);
	stats_obj_add(pct_global, nm, &b->c_overflow, STATS_CTR_RESETTABLE);
	b->obj = stats_obj_create(name, "percentile.bucket");
	b->next = pbuckets;
	pbuckets = b;
	o->resolved = b;
	return SL_OK;
}

static struct pct_key *pct_key_new(struct percentile_bucket *b, const char *key, size_t klen,
				   int64_t value)
{
	struct pct_key *k = sl_xcalloc(1, sizeof(*k));
	k->name = sl_xstrndup(key, klen);
	k->ring = sl_xcalloc(b->ring_size, sizeof(int64_t));
	k->p = sl_xcalloc(b->n_pct, sizeof(*k->p));
	atomic_store_explicit(&k->wmin, (uint64_t)value, memory_order_relaxed);
	char nm[512];
	for (size_t i = 0; i < b->n_pct; i++) {
		snprintf(nm, sizeof(nm), "%s%sp%d", k->name, b->delim, b->pct[i]);
		stats_obj_add(b->obj, nm, &k->p[i], 0);
	}
	static const char *const wn[] = { "window_min", "window_max", "window_sum", "window_count" };
	atomic_uint_fast64_t *wc[] = { &k->wmin, &k->wmax, &k->wsum, &k->wcount };
	for (int i = 0; i < 4; i++) {
		snprintf(nm, sizeof(nm), "%s%s%s", k->name, b->delim, wn[i]);
		stats_obj_add(b->obj, nm, wc[i], 0);
	}
	return k;
}

int percentile_observe(struct percentile_bucket *b, const char *key, size_t klen, int64_t value)
{
	unsigned h = ds_hash(key, klen) % PCT_HASH;
	pthread_mutex_lock(&b->mtx);
	struct pct_key *k = b->h[h];
	while (k && !(strlen(k->name) == klen && !memcmp(k->name, key, klen)))
		k = k->hnext;
	if (!k) {
		k = pct_key_new(b, key, klen, value);
		k->hnext = b->h[h];
		b->h[h] = k;
		if (b->last)
			b->last->onext = k;
		else
			b->first = k;
		b->last = k;
		atomic_fetch_add_explicit(&b->c_new, 1, memory_order_relaxed);
	}
	size_t m = b->ring_size - 1;
	if (((k->head + 1) & m) == k->tail)  /* full: drop the oldest */
		k->tail = (k->tail + 1) & m;
	k->ring[k->head] = value;
	k->head = (k->head + 1) & m;
	uint64_t v = (uint64_t)value;  /* rsyslog compares as unsigned */
	if (k->reported) {
		atomic_store_explicit(&k->wcount, 0, memory_order_relaxed);
		atomic_store_explicit(&k->wsum, 0, memory_order_relaxed);
		atomic_store_explicit(&k->wmin, v, memory_order_relaxed);
		atomic_store_explicit(&k->wmax, v, memory_order_relaxed);
		k->reported = false;
	}
	atomic_store_explicit(&k->wcount, atomic_load_explicit(&k->wcount, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	atomic_store_explicit(&k->wsum, atomic_load_explicit(&k->wsum, memory_order_relaxed) + v,
			      memory_order_relaxed);
	if (v < atomic_load_explicit(&k->wmin, memory_order_relaxed))
		atomic_store_explicit(&k->wmin, v, memory_order_relaxed);
	if (v > atomic_load_explicit(&k->wmax, memory_order_relaxed))
		atomic_store_explicit(&k->wmax, v, memory_order_relaxed);
	pthread_mutex_unlock(&b->mtx);
	return 0;
}

static int pct_cmp(const void *a, const void *b)
{
	/* rsyslog's comparator: the difference truncated to int */
	return (int)(*(const int64_t *)a - *(const int64_t *)b);
}

static void pct_report(struct percentile_bucket *b)
{
	pthread_mutex_lock(&b->mtx);
	size_t m = b->ring_size - 1;
	for (struct pct_key *k = b->first; k; k = k->onext) {
		size_t n = 0;
		while (k->tail != k->head && n < b->window) {
			b->scratch[n++] = k->ring[k->tail];
			k->tail = (k->tail + 1) & m;
		}
		if (!n)
			continue;
		qsort(b->scratch, n, sizeof(int64_t), pct_cmp);
		for (size_t i = 0; i < b->n_pct; i++) {
			double d = b->pct[i] / 100.0 * (double)n - 1;
			size_t idx = d > 0 ? (size_t)d : 0;
			atomic_store_explicit(&k->p[i], (uint64_t)b->scratch[idx], memory_order_relaxed);
		}
		k->reported = true;
	}
	pthread_mutex_unlock(&b->mtx);
}

void lookup_stats_reporting(void)
{
	/* rsyslog computes every bucket when the first one (in config
	 * order) has been read: that one shows last report's values, the
	 * others the current ones */
	for (struct percentile_bucket *b = pbuckets; b && b->next; b = b->next)
		pct_report(b);
}

void lookup_stats_reported(void)
{
	time_t now = time(NULL);
	for (struct dynstats_bucket *b = buckets; b; b = b->next)
		if (b->unused_life && now >= b->next_purge) {
			ds_purge(b);
			b->next_purge = now + b->unused_life;
		}
	for (struct percentile_bucket *b = pbuckets; b; b = b->next)
		pct_report(b);
}

/* ---- time zones ---- */

struct tz_entry {
	char *id;
	struct tz_info info;
	struct tz_entry *next;
};
static struct tz_entry *zones;

enum sl_rc tz_create_from_obj(struct cfg_obj *o)
{
	const char *id = pstr(o, "id"), *off = pstr(o, "offset");
	struct cfg_param *op = cfg_obj_param(o, "offset");
	if (!id || !off) {
		cfg_error(&o->pos, "timezone() needs the parameters id= and offset=");
		return SL_ERR_CONFIG;
	}
	/* rsyslog: [+-]hh:mm, hh 0..12, mm 0..59 */
	if (strlen(off) != 6 || (off[0] != '+' && off[0] != '-') || off[3] != ':' ||
	    off[1] < '0' || off[1] > '9' || off[2] < '0' || off[2] > '9' ||
	    off[4] < '0' || off[4] > '5' || off[5] < '0' || off[5] > '9' ||
	    (off[1] - '0') * 10 + (off[2] - '0') > 12) {
		cfg_error(&op->pos, "timezone(): invalid offset '%s' (expected [+-]hh:mm, hh 00..12, mm 00..59)",
			  off);
		return SL_ERR_CONFIG;
	}
	struct tz_info ti;
	if (tz_find(id, strlen(id), &ti)) {
		cfg_error(&o->pos, "timezone '%s' is defined twice", id);
		return SL_ERR_CONFIG;
	}
	struct tz_entry *z = sl_xcalloc(1, sizeof(*z));
	z->id = sl_xstrdup(id);
	z->info.off_mode = off[0];
	z->info.off_hour = (uint8_t)((off[1] - '0') * 10 + (off[2] - '0'));
	z->info.off_minute = (uint8_t)((off[4] - '0') * 10 + (off[5] - '0'));
	z->next = zones;
	zones = z;
	return SL_OK;
}

bool tz_find(const char *id, size_t len, struct tz_info *out)
{
	for (struct tz_entry *z = zones; z; z = z->next) {
		if (strlen(z->id) == len && !memcmp(z->id, id, len)) {
			*out = z->info;
			return true;
		}
	}
	return false;
}

void lookup_destroy_all(void)
{
	while (tables) {
		struct lookup_table *t = tables;
		tables = t->next;
		lk_data_free(t->data);
		pthread_rwlock_destroy(&t->lock);
		free(t->name);
		free(t->file);
		free(t);
	}
	while (buckets) {
		struct dynstats_bucket *b = buckets;
		buckets = b->next;
		stats_obj_destroy(b->obj);
		for (int i = 0; i < DS_HASH; i++) {
			while (b->h[i]) {
				struct ds_counter *c = b->h[i];
				b->h[i] = c->next;
				free(c->key);
				free(c);
			}
		}
		pthread_mutex_destroy(&b->mtx);
		free(b->name);
		free(b);
	}
	stats_obj_destroy(ds_global);
	ds_global = NULL;
	while (pbuckets) {
		struct percentile_bucket *b = pbuckets;
		pbuckets = b->next;
		stats_obj_destroy(b->obj);
		while (b->first) {
			struct pct_key *k = b->first;
			b->first = k->onext;
			free(k->name);
			free(k->ring);
			free(k->p);
			free(k);
		}
		pthread_mutex_destroy(&b->mtx);
		free(b->scratch);
		free(b->pct);
		free(b->delim);
		free(b->name);
		free(b);
	}
	stats_obj_destroy(pct_global);
	pct_global = NULL;
	while (zones) {
		struct tz_entry *z = zones;
		zones = z->next;
		free(z->id);
		free(z);
	}
}
