/* lookup.c — lookup tables, dyn_stats buckets and named time zones: the
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
 * copy the value. dyn_stats buckets have one mutex each.
 */
#include "lookup.h"
#include "ast.h"
#include "log.h"

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

struct ds_counter {
	char *key;
	uint64_t n;
	struct ds_counter *next;
};

#define DS_HASH 256

struct dynstats_bucket {
	char *name;
	unsigned max_cardinality, n_keys;
	pthread_mutex_t mtx;
	struct ds_counter *h[DS_HASH];
	struct dynstats_bucket *next;
};

static struct dynstats_bucket *buckets;

enum sl_rc dynstats_bucket_create(struct cfg_obj *o)
{
	const char *name = pstr(o, "name");
	struct cfg_param *mc = cfg_obj_param(o, "maxcardinality");
	/* accepted and checked, used by the statistics layer */
	cfg_obj_param(o, "resettable");
	cfg_obj_param(o, "unusedmetriclife");
	if (!name) {
		cfg_error(&o->pos, "dyn_stats() needs the parameter name=");
		return SL_ERR_CONFIG;
	}
	if (dynstats_find(name)) {
		cfg_error(&o->pos, "dyn_stats bucket '%s' is defined twice", name);
		return SL_ERR_CONFIG;
	}
	struct dynstats_bucket *b = sl_xcalloc(1, sizeof(*b));
	b->name = sl_xstrdup(name);
	b->max_cardinality = 2000;
	if (mc && !mc->val.is_array)
		b->max_cardinality = (unsigned)strtoul(mc->val.str, NULL, 10);
	pthread_mutex_init(&b->mtx, NULL);
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
	unsigned h = ds_hash(key, klen);
	int rc = 0;
	pthread_mutex_lock(&b->mtx);
	struct ds_counter *c = b->h[h];
	while (c && !(strlen(c->key) == klen && !memcmp(c->key, key, klen)))
		c = c->next;
	if (!c) {
		if (b->n_keys >= b->max_cardinality) {
			rc = -1;
			goto out;
		}
		c = sl_xcalloc(1, sizeof(*c));
		c->key = sl_xstrndup(key, klen);
		c->next = b->h[h];
		b->h[h] = c;
		b->n_keys++;
	}
	c->n++;
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
			n = c->n;
	pthread_mutex_unlock(&b->mtx);
	return n;
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
	while (zones) {
		struct tz_entry *z = zones;
		zones = z->next;
		free(z->id);
		free(z);
	}
}
