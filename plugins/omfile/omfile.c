/* omfile.c — the file output (rsyslog's builtin omfile, 8.2302 parameters):
 * static files and dynaFile (a file name rendered per message) with an
 * LRU cache of open files, buffered appends, directory creation, owners
 * and modes.
 *
 * Data path. Each worker stages the rendered lines of its transaction in
 * its own buffer (no lock per message); for dynaFile the staged bytes are
 * split into segments by file name. The staged data is handed to the
 * files at tx_commit, or earlier when more than ioBufferSize is staged.
 * Each file has an output buffer of ioBufferSize; data is only ever added
 * to it in whole staged segments and written with write()/writev() until
 * complete (short writes and EINTR handled), so lines from different
 * workers never interleave or split. flushOnTXEnd="on" (default) writes
 * the file buffer at every commit; otherwise it is written when full, by
 * the flushInterval check in tick(), at HUP and at the end.
 *
 * Threading and locking. One mutex per action (`mu`) guards the file
 * table (the static file or the dynaFile cache), every file's buffer and
 * descriptor. It is taken once per hand-over of a worker's staged data
 * (normally once per transaction), by tick() (trylock: a busy action is
 * flushed by its writer anyway), by hup() and by act_destroy(). For a
 * static file this is one lock per file per transaction. Worker staging
 * (struct omfile_wrk) belongs to its worker thread and is never locked.
 *
 * The file layer (omfile_file.c) adds gzip (zipLevel, veryRobustZip),
 * encryption (cry.provider="gcry", omfile_cry.c) and size-limit rotation.
 *
 * Differences from rsyslog, on purpose: asyncWriting="on" uses the same
 * buffered path (the writes are already batched per transaction, so a
 * separate writer thread would only add a hand-over), flushInterval is
 * honoured even without asyncWriting (rsyslog then never flushes a
 * partially filled buffer until it is full or the file is closed), and dynaFileCacheSize may be up to 100,000
 * (rsyslog: 1,000). sig.provider is refused at load.
 */
#include "sluice.h"
#include "module.h"
#include "msg.h"
#include "log.h"
#include "ast.h"
#include "sbuf.h"
#include "stats.h"
#include "template.h"
#include "omfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* ---- configuration ---- */

/* rsyslog caps dynaFileCacheSize at 1,000; sluice's cache is a hash map
 * with an LRU list, so it only needs the file descriptors. */
#define OMFILE_MAX_CACHE 100000

/* module(load="builtin:omfile" ...): defaults of every action. The
 * template= parameter is handled by the core (conf.c). */
struct omfile_mod_cfg {
	char *tpl;
	int dir_mode, file_mode;
	int dir_uid, dir_gid, file_uid, file_gid;
	int64_t dir_uid_num, dir_gid_num, file_uid_num, file_gid_num;
	char *compression_driver;
	int64_t zstd_workers;
};

#define MOFF(f) offsetof(struct omfile_mod_cfg, f)
static const struct param_desc omfile_mod_params[] = {
	{ "template", PARAM_TEMPLATE, NULL, 0, MOFF(tpl), "default template of omfile actions" },
	{ "actionfiledefaulttemplate", PARAM_TEMPLATE, NULL, PARAM_LEGACY, MOFF(tpl), "$ActionFileDefaultTemplate" },
	{ "dirCreateMode", PARAM_FILEMODE, "0700", 0, MOFF(dir_mode), "mode of created directories" },
	{ "fileCreateMode", PARAM_FILEMODE, "0644", 0, MOFF(file_mode), "mode of created files" },
	{ "dirOwner", PARAM_UID, "-1", 0, MOFF(dir_uid), "owner of created directories" },
	{ "dirOwnerNum", PARAM_INT, "-1", 0, MOFF(dir_uid_num), "owner (uid) of created directories" },
	{ "dirGroup", PARAM_GID, "-1", 0, MOFF(dir_gid), "group of created directories" },
	{ "dirGroupNum", PARAM_INT, "-1", 0, MOFF(dir_gid_num), "group (gid) of created directories" },
	{ "fileOwner", PARAM_UID, "-1", 0, MOFF(file_uid), "owner of created files" },
	{ "fileOwnerNum", PARAM_INT, "-1", 0, MOFF(file_uid_num), "owner (uid) of created files" },
	{ "fileGroup", PARAM_GID, "-1", 0, MOFF(file_gid), "group of created files" },
	{ "fileGroupNum", PARAM_INT, "-1", 0, MOFF(file_gid_num), "group (gid) of created files" },
	{ "compression.driver", PARAM_STRING, NULL, 0, MOFF(compression_driver), "zlib (the only one; zstd is not supported)" },
	{ "compression.zstd.workers", PARAM_INT, "0", 0, MOFF(zstd_workers), "accepted, not used" },
};
static const struct param_table omfile_mod_table = PARAM_TABLE(omfile_mod_params, struct omfile_mod_cfg);

#define AOFF(f) offsetof(struct omfile_cfg, f)
static const struct param_desc omfile_params[] = {
	{ "file", PARAM_STRING, NULL, 0, AOFF(file), "file to write to" },
	{ "dynaFile", PARAM_STRING, NULL, 0, AOFF(dynafile), "template naming the file per message" },
	{ "template", PARAM_TEMPLATE, NULL, 0, AOFF(tpl), "template of the lines (default RSYSLOG_FileFormat)" },
	{ "dynaFileCacheSize", PARAM_INT, "10", 0, AOFF(cache_size), "open dynaFiles kept (1..100000; rsyslog caps at 1000)" },
	{ "zipLevel", PARAM_INT, "0", 0, AOFF(zip_level), "gzip level 0..9 (0 = no compression)" },
	{ "flushInterval", PARAM_INT, "1", 0, AOFF(flush_interval), "seconds after which buffered data is written" },
	{ "asyncWriting", PARAM_BINARY, "off", 0, AOFF(async_writing), "accepted; writes are batched per transaction either way" },
	{ "veryRobustZip", PARAM_BINARY, "on", 0, AOFF(very_robust_zip), "end a complete gzip member at every flush (readable after a crash)" },
	{ "flushOnTXEnd", PARAM_BINARY, "on", 0, AOFF(flush_on_tx_end), "write the buffer at each transaction end" },
	{ "ioBufferSize", PARAM_SIZE, "4k", 0, AOFF(iobuf_size), "size of the output buffer per file" },
	{ "dirOwner", PARAM_UID, "-1", 0, AOFF(dir_uid), "owner of created directories" },
	{ "dirOwnerNum", PARAM_INT, "-1", 0, AOFF(dir_uid_num), "owner (uid) of created directories" },
	{ "dirGroup", PARAM_GID, "-1", 0, AOFF(dir_gid), "group of created directories" },
	{ "dirGroupNum", PARAM_INT, "-1", 0, AOFF(dir_gid_num), "group (gid) of created directories" },
	{ "fileOwner", PARAM_UID, "-1", 0, AOFF(file_uid), "owner of created files" },
	{ "fileOwnerNum", PARAM_INT, "-1", 0, AOFF(file_uid_num), "owner (uid) of created files" },
	{ "fileGroup", PARAM_GID, "-1", 0, AOFF(file_gid), "group of created files" },
	{ "fileGroupNum", PARAM_INT, "-1", 0, AOFF(file_gid_num), "group (gid) of created files" },
	{ "dirCreateMode", PARAM_FILEMODE, "0700", 0, AOFF(dir_mode), "mode of created directories" },
	{ "fileCreateMode", PARAM_FILEMODE, "0644", 0, AOFF(file_mode), "mode of created files" },
	{ "failOnChOwnFailure", PARAM_BINARY, "on", 0, AOFF(fail_on_chown), "fail if owner/group cannot be set" },
	{ "createDirs", PARAM_BINARY, "on", 0, AOFF(create_dirs), "create missing directories" },
	{ "sync", PARAM_BINARY, "off", 0, AOFF(sync), "fdatasync() after each flush" },
	{ "sig.provider", PARAM_WORD, NULL, 0, AOFF(sig_provider), "not supported (rsyslog's ksi_ls12 needs the GuardTime service)" },
	{ "cry.provider", PARAM_WORD, NULL, 0, AOFF(cry_provider), "\"gcry\": encrypt the file (with FILE.encinfo)" },
	{ "cry.key", PARAM_STRING, NULL, 0, AOFF(cry_key), "the encryption key itself (prefer cry.keyfile)" },
	{ "cry.keyfile", PARAM_STRING, NULL, 0, AOFF(cry_keyfile), "file holding the key bytes" },
	{ "cry.keyprogram", PARAM_STRING, NULL, 0, AOFF(cry_keyprogram), "not supported" },
	{ "cry.algo", PARAM_WORD, NULL, 0, AOFF(cry_algo), "cipher (default AES128)" },
	{ "cry.mode", PARAM_WORD, NULL, 0, AOFF(cry_mode), "cipher mode (default CBC)" },
	{ "closeTimeout", PARAM_INT, "-1", 0, AOFF(close_timeout), "minutes of inactivity before a file is closed" },
	{ "dynafile.donotsuspend", PARAM_BINARY, "on", 0, AOFF(dyna_no_suspend), "dynaFile open errors drop the message instead of suspending" },
	{ "rotation.sizeLimit", PARAM_SIZE, "0", 0, AOFF(rotation_size), "run rotation.sizeLimitCommand when the file reaches this size (0 = never)" },
	{ "rotation.sizeLimitCommand", PARAM_STRING, NULL, 0, AOFF(rotation_cmd), "program run with the file name as argument" },
	{ "uncachedWrites", PARAM_WORD, "behind", 0, AOFF(uncached), "sluice: off (through the page cache, as rsyslog); behind: only the last 64 MB of a file stay cached; auto (writes of 64k or more) or on (every write): whole pages written past the page cache with RWF_DONTCACHE; direct: full buffers written with O_DIRECT" },
	/* legacy $Directives: defaults of the legacy-syntax actions after them */
	{ "actionfileenablesync", PARAM_BINARY, NULL, PARAM_LEGACY, AOFF(sync), "$ActionFileEnableSync" },
	{ "fileowner", PARAM_UID, NULL, PARAM_LEGACY, AOFF(file_uid), "$FileOwner" },
	{ "fileownernum", PARAM_INT, NULL, PARAM_LEGACY, AOFF(file_uid_num), "$FileOwnerNum" },
	{ "filegroup", PARAM_GID, NULL, PARAM_LEGACY, AOFF(file_gid), "$FileGroup" },
	{ "filegroupnum", PARAM_INT, NULL, PARAM_LEGACY, AOFF(file_gid_num), "$FileGroupNum" },
	{ "dirowner", PARAM_UID, NULL, PARAM_LEGACY, AOFF(dir_uid), "$DirOwner" },
	{ "dirownernum", PARAM_INT, NULL, PARAM_LEGACY, AOFF(dir_uid_num), "$DirOwnerNum" },
	{ "dirgroup", PARAM_GID, NULL, PARAM_LEGACY, AOFF(dir_gid), "$DirGroup" },
	{ "dirgroupnum", PARAM_INT, NULL, PARAM_LEGACY, AOFF(dir_gid_num), "$DirGroupNum" },
	{ "filecreatemode", PARAM_FILEMODE, NULL, PARAM_LEGACY, AOFF(file_mode), "$FileCreateMode" },
	{ "dircreatemode", PARAM_FILEMODE, NULL, PARAM_LEGACY, AOFF(dir_mode), "$DirCreateMode" },
	{ "failonchownfailure", PARAM_BINARY, NULL, PARAM_LEGACY, AOFF(fail_on_chown), "$FailOnChownFailure" },
	{ "createdirs", PARAM_BINARY, NULL, PARAM_LEGACY, AOFF(create_dirs), "$CreateDirs" },
	{ "dynafilecachesize", PARAM_INT, NULL, PARAM_LEGACY, AOFF(cache_size), "$DynaFileCacheSize" },
	{ "omfileziplevel", PARAM_INT, NULL, PARAM_LEGACY, AOFF(zip_level), "$OMFileZipLevel" },
	{ "omfileflushinterval", PARAM_INT, NULL, PARAM_LEGACY, AOFF(flush_interval), "$OMFileFlushInterval" },
	{ "omfileasyncwriting", PARAM_BINARY, NULL, PARAM_LEGACY, AOFF(async_writing), "$OMFileASyncWriting" },
	{ "omfileflushontxend", PARAM_BINARY, NULL, PARAM_LEGACY, AOFF(flush_on_tx_end), "$OMFileFlushOnTXEnd" },
	{ "omfileiobuffersize", PARAM_SIZE, NULL, PARAM_LEGACY, AOFF(iobuf_size), "$OMFileIOBufferSize" },
	{ "omfileforcechown", PARAM_BINARY, NULL, PARAM_LEGACY | PARAM_DEPRECATED, AOFF(force_chown), "$OMFileForceChown (no effect)" },
};
static const struct param_table omfile_table = PARAM_TABLE(omfile_params, struct omfile_cfg);

/* The module() values, if module(load="builtin:omfile") was given. Set by
 * mod_init on the main thread at load, read by act_create at load (the
 * act_create contract has no module pointer). */
static const struct omfile_mod_cfg *omfile_mod_defaults;

/* ---- runtime ---- */

struct seg {
	size_t name_off, name_len;    /* into names (dynaFile) */
	size_t data_off, data_len;    /* into data; data_len 0 = written */
	uint64_t n_msgs;              /* messages in it (statistics) */
};

struct omfile_wrk {
	struct omfile_act *act;
	struct sbuf data;             /* staged rendered lines */
	struct sbuf names;            /* dynaFile names of the segments */
	struct sbuf namebuf;          /* rendering a dynaFile name */
	struct seg *segs;
	int n_segs, cap_segs;
};

/* ---- module ---- */

static void *omfile_mod_init(void *mod_cfg, int *n_errors)
{
	(void)n_errors;
	omfile_mod_defaults = mod_cfg;
	return mod_cfg;
}

static void omfile_mod_exit(void *mod)
{
	if (omfile_mod_defaults == mod)
		omfile_mod_defaults = NULL;
	param_free(&omfile_mod_table, mod);
}

/* ---- files ---- */

#define log_err_limited omfile_log_err

static struct ofile *ofile_new(const char *name, size_t len, uint32_t hash)
{
	struct ofile *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = malloc(len + 1);
	if (!f->name) {
		free(f);
		return NULL;
	}
	memcpy(f->name, name, len);
	f->name[len] = '\0';
	f->fd = -1;
	f->dfd = -1;
	f->hash = hash;
	return f;
}

static void ofile_free(struct omfile_act *a, struct ofile *f)
{
	ofile_close(a, f);
	sbuf_free(&f->buf);
	sbuf_free(&f->xout);
	free(f->dbuf);
	free(f->name);
	free(f);
}

/* ---- dynaFile cache: hash map by name + LRU list ---- */

static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static void lru_unlink(struct omfile_act *a, struct ofile *f)
{
	if (f->prev)
		f->prev->next = f->next;
	else
		a->lru_head = f->next;
	if (f->next)
		f->next->prev = f->prev;
	else
		a->lru_tail = f->prev;
	f->prev = f->next = NULL;
}

static void lru_push_front(struct omfile_act *a, struct ofile *f)
{
	f->prev = NULL;
	f->next = a->lru_head;
	if (a->lru_head)
		a->lru_head->prev = f;
	a->lru_head = f;
	if (!a->lru_tail)
		a->lru_tail = f;
}

static void cache_remove(struct omfile_act *a, struct ofile *f)
{
	struct ofile **pp = &a->htab[f->hash & a->hmask];
	while (*pp && *pp != f)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = f->hnext;
	lru_unlink(a, f);
	a->n_cached--;
	ofile_free(a, f);
}

/* The open file for `name`, opening it (and evicting the least recently
 * used one when the cache is full) if needed. NULL if it cannot be
 * opened. Caller holds a->mu. */
static struct ofile *cache_get(struct omfile_act *a, const char *name, size_t len, uint64_t n_msgs)
{
	uint32_t h = name_hash(name, len);
	/* rsyslog counts per message: every message is a request, one for
	 * the file used just before is a level0 hit. */
	atomic_fetch_add_explicit(&a->stats.requests, n_msgs, memory_order_relaxed);
	if (n_msgs > 1)
		atomic_fetch_add_explicit(&a->stats.level0, n_msgs - 1, memory_order_relaxed);
	for (struct ofile *f = a->htab[h & a->hmask]; f; f = f->hnext) {
		if (f->hash == h && strncmp(f->name, name, len) == 0 && f->name[len] == '\0') {
			if (a->lru_head == f)
				atomic_fetch_add_explicit(&a->stats.level0, 1, memory_order_relaxed);
			if (a->lru_head != f) {
				lru_unlink(a, f);
				lru_push_front(a, f);
			}
			return f;
		}
	}
	atomic_fetch_add_explicit(&a->stats.missed, 1, memory_order_relaxed);
	struct ofile *f = ofile_new(name, len, h);
	if (!f)
		return NULL;
	if (ofile_open(a, f) < 0) {
		free(f->name);
		free(f);
		return NULL;
	}
	if (a->n_cached >= (int)a->cfg->cache_size && a->lru_tail) {
		atomic_fetch_add_explicit(&a->stats.evictions, 1, memory_order_relaxed);
		cache_remove(a, a->lru_tail);
	}
	f->hnext = a->htab[h & a->hmask];
	a->htab[h & a->hmask] = f;
	lru_push_front(a, f);
	a->n_cached++;
	if ((uint64_t)a->n_cached > atomic_load_explicit(&a->stats.maxused, memory_order_relaxed))
		atomic_store_explicit(&a->stats.maxused, (uint64_t)a->n_cached, memory_order_relaxed);
	return f;
}

/* ---- actions ---- */

static const struct cfg_pos *pos_of(struct cfg_obj *o, const char *name)
{
	for (struct cfg_param *p = o->params; p; p = p->next)
		if (strcasecmp(p->name, name) == 0)
			return &p->pos;
	return &o->pos;
}

static bool given(struct cfg_obj *o, const char *name)
{
	return pos_of(o, name) != &o->pos;
}

/* Resolve an owner from the name form, the *Num form and the module
 * default, in that order of precedence. */
static int pick_id(struct cfg_obj *o, const char *pname, int by_name, const char *nname,
		   int64_t by_num, int mod_by_name, int64_t mod_by_num)
{
	if (given(o, pname))
		return by_name;
	if (given(o, nname))
		return (int)by_num;
	if (mod_by_name != -1)
		return mod_by_name;
	return (int)mod_by_num;
}

/* The action's counters in the statistics registry (see omfile.h). */
static void omfile_stats_register(struct omfile_act *a)
{
	const unsigned R = STATS_CTR_RESETTABLE;
	struct omfile_stats *st = &a->stats;
	char name[512];
	if (a->htab)
		snprintf(name, sizeof(name), "dynafile cache %s", a->label);
	else
		snprintf(name, sizeof(name), "omfile(%s)", a->label);
	struct stats_obj *o = stats_obj_create(name, "omfile");
	if (!o)
		return;
	if (a->htab) {
		stats_obj_add(o, "requests", &st->requests, R);
		stats_obj_add(o, "level0", &st->level0, R);
		stats_obj_add(o, "missed", &st->missed, R);
		stats_obj_add(o, "evicted", &st->evictions, R);
		stats_obj_add(o, "maxused", &st->maxused, 0);
		stats_obj_add(o, "closetimeouts", &st->closetimeouts, R);
	}
	stats_obj_add(o, "written", &st->lines, R);
	stats_obj_add(o, "bytes", &st->bytes, R);
	stats_obj_add(o, "writes", &st->writes, R);
	stats_obj_add(o, "opened", &st->opened, R);
	stats_obj_add(o, "closed", &st->closed, R);
	stats_obj_add(o, "failed.open", &st->open_errors, R);
	stats_obj_add(o, "failed.write", &st->write_errors, R);
	stats_obj_add(o, "dropped", &st->dropped, R);
	stats_obj_add(o, "rotations", &st->rotations, R);
	stats_obj_add(o, "bytes.uncached", &st->bytes_uncached, R);
	stats_obj_add(o, "bytes.direct", &st->bytes_direct, R);
	a->stats_obj = o;
}

static void *omfile_act_create(void *cfgp, struct cfg_obj *o, int *n_errors)
{
	struct omfile_cfg *c = cfgp;
	struct omfile_act *a = NULL;
	const struct omfile_mod_cfg *m = omfile_mod_defaults;
	int errs = 0;

	if (c == NULL)
		return NULL;
	if ((c->file == NULL) == (c->dynafile == NULL)) {
		cfg_error(&o->pos, "omfile: either the \"file\" or the \"dynaFile\" parameter must be "
			  "given (and not both)");
		errs++;
	}
	if (c->cache_size < 1) {
		cfg_warn(pos_of(o, "dynafilecachesize"), "omfile: dynaFileCacheSize must be greater "
			 "0 (%lld given), changed to 1", (long long)c->cache_size);
		c->cache_size = 1;
	} else if (c->cache_size > OMFILE_MAX_CACHE) {
		cfg_warn(pos_of(o, "dynafilecachesize"), "omfile: dynaFileCacheSize maximum is %d "
			 "(%lld given), changed to %d", OMFILE_MAX_CACHE, (long long)c->cache_size,
			 OMFILE_MAX_CACHE);
		c->cache_size = OMFILE_MAX_CACHE;
	}
	if (c->iobuf_size < 1 || c->iobuf_size > 1024 * 1024 * 1024) {
		cfg_error(pos_of(o, "iobuffersize"), "omfile: ioBufferSize must be between 1 and 1g");
		errs++;
	}
	if (c->close_timeout == 0 || c->close_timeout < -1) {
		cfg_error(pos_of(o, "closetimeout"), "omfile: closeTimeout cannot be less than one "
			  "(was %lld)", (long long)c->close_timeout);
		errs++;
	}
	if (c->zip_level < 0 || c->zip_level > 9) {
		cfg_error(pos_of(o, "ziplevel"), "omfile: zipLevel must be 0..9 (was %lld)",
			  (long long)c->zip_level);
		errs++;
	}
	if (c->zip_level > 0 && m && m->compression_driver &&
	    strcasecmp(m->compression_driver, "zlib") != 0) {
		cfg_error(&o->pos, "omfile: compression.driver '%s' is not supported; sluice "
			  "compresses with zlib", m->compression_driver);
		errs++;
	}
	if (c->sig_provider) {
		cfg_error(pos_of(o, "sig.provider"), "omfile: sig.provider (log signing) is not "
			  "supported by sluice");
		errs++;
	}
	if (c->rotation_size < 0) {
		cfg_error(pos_of(o, "rotation.sizelimit"), "omfile: rotation.sizeLimit cannot be "
			  "negative");
		errs++;
	}
	if (c->cry_provider && c->zip_level > 0) {
		/* the encryption format drops every NUL byte as padding, so
		 * binary (compressed) data cannot be carried */
		cfg_error(pos_of(o, "ziplevel"), "omfile: zipLevel cannot be combined with "
			  "cry.provider (the encrypted format pads with NUL bytes and cannot hold "
			  "compressed data)");
		errs++;
	}
	size_t uncached_min = OMFILE_UNCACHED_AUTO;
	bool direct = false;
	off_t behind = 0;
	if (!strcasecmp(c->uncached, "on")) {
		uncached_min = 0;
	} else if (!strcasecmp(c->uncached, "off")) {
		uncached_min = SIZE_MAX;
	} else if (!strcasecmp(c->uncached, "direct")) {
		direct = true;
	} else if (!strcasecmp(c->uncached, "behind")) {
		uncached_min = SIZE_MAX;
		behind = OMFILE_BEHIND;
	} else if (strcasecmp(c->uncached, "auto")) {
		cfg_error(pos_of(o, "uncachedwrites"), "omfile: uncachedWrites must be \"off\", "
			  "\"behind\", \"auto\", \"on\" or \"direct\", not \"%s\"", c->uncached);
		errs++;
	}
	struct cry_ctx *cry = c->cry_provider && !errs ? cry_ctx_create(c, o, &errs) : NULL;
	if (m) { /* module() defaults for what the action does not set */
		if (!given(o, "filecreatemode"))
			c->file_mode = m->file_mode;
		if (!given(o, "dircreatemode"))
			c->dir_mode = m->dir_mode;
	}

	a = sl_xcalloc(1, sizeof(*a));
	a->cfg = c;
	a->cry = cry;
	pthread_mutex_init(&a->mu, NULL);
	a->iobuf = (size_t)(c->iobuf_size > 0 ? c->iobuf_size : 4096);
	a->uncached_min = uncached_min;
	long pg = sysconf(_SC_PAGESIZE);
	a->page_size = pg > 0 ? (size_t)pg : 4096;
	a->behind = behind;
	if (direct && !cry && c->zip_level == 0)
		a->dio_cap = (a->iobuf + a->page_size - 1) / a->page_size * a->page_size;
	a->file_uid = pick_id(o, "fileowner", c->file_uid, "fileownernum", c->file_uid_num,
			      m ? m->file_uid : -1, m ? m->file_uid_num : -1);
	a->file_gid = pick_id(o, "filegroup", c->file_gid, "filegroupnum", c->file_gid_num,
			      m ? m->file_gid : -1, m ? m->file_gid_num : -1);
	a->dir_uid = pick_id(o, "dirowner", c->dir_uid, "dirownernum", c->dir_uid_num,
			     m ? m->dir_uid : -1, m ? m->dir_uid_num : -1);
	a->dir_gid = pick_id(o, "dirgroup", c->dir_gid, "dirgroupnum", c->dir_gid_num,
			     m ? m->dir_gid : -1, m ? m->dir_gid_num : -1);
	if (c->close_timeout > 0)
		a->close_timeout_s = (int)(c->close_timeout * 60);
	else
		a->close_timeout_s = c->dynafile ? 10 * 60 : 0;

	if (c->dynafile) {
		a->label = c->dynafile;
		a->dyn_tpl = tpl_find(c->dynafile);
		if (!a->dyn_tpl) {
			cfg_error(pos_of(o, "dynafile"), "omfile: dynaFile template '%s' is not defined",
				  c->dynafile);
			errs++;
		}
		size_t hs = 16;
		while (hs < (size_t)c->cache_size * 2)
			hs <<= 1;
		a->htab = sl_xcalloc(hs, sizeof(*a->htab));
		a->hmask = hs - 1;
	} else if (c->file) {
		a->label = c->file;
		a->single = ofile_new(c->file, strlen(c->file), 0);
		if (!a->single)
			errs++;
	}
	if (errs) {
		*n_errors += errs;
		free(a->htab);
		if (a->single)
			ofile_free(a, a->single);
		cry_ctx_destroy(a->cry);
		pthread_mutex_destroy(&a->mu);
		free(a);
		param_free(&omfile_table, c);
		return NULL;
	}
	omfile_stats_register(a);
	return a;
}

/* Files are opened on first write, as rsyslog does. A large dynaFile
 * cache needs as many descriptors: raise the soft RLIMIT_NOFILE towards
 * the hard limit when the cache would not fit. */
static enum sl_rc omfile_act_start(void *act)
{
	struct omfile_act *a = act;
	struct rlimit rl;
	if (!a->htab || getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return SL_OK;
	rlim_t want = (rlim_t)a->cfg->cache_size + 256;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		rlim_t old = rl.rlim_cur;
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur >= want)
			sl_info("omfile: dynaFile '%s': raised the open files limit from %llu to %llu "
				"for dynaFileCacheSize %lld", a->label, (unsigned long long)old,
				(unsigned long long)rl.rlim_cur, (long long)a->cfg->cache_size);
		else
			sl_warn("omfile: dynaFile '%s': dynaFileCacheSize %lld needs about %llu open "
				"files, the limit is %llu; files will be closed and reopened more "
				"often", a->label, (long long)a->cfg->cache_size,
				(unsigned long long)want, (unsigned long long)rl.rlim_cur);
	}
	return SL_OK;
}

static void close_all(struct omfile_act *a)
{
	if (a->single)
		ofile_close(a, a->single);
	while (a->lru_head)
		cache_remove(a, a->lru_head);
}

static void omfile_act_destroy(void *act)
{
	struct omfile_act *a = act;
	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	close_all(a);
	if (a->single)
		ofile_free(a, a->single);
	pthread_mutex_unlock(&a->mu);
	stats_obj_destroy(a->stats_obj);
	pthread_mutex_destroy(&a->mu);
	free(a->htab);
	cry_ctx_destroy(a->cry);
	param_free(&omfile_table, a->cfg);
	free(a);
}

/* SIGHUP (main thread): write what is buffered and close every file;
 * they are reopened by the next write (logrotate). */
static void omfile_hup(void *act)
{
	struct omfile_act *a = act;
	pthread_mutex_lock(&a->mu);
	close_all(a);
	pthread_mutex_unlock(&a->mu);
}

static void tick_file(struct omfile_act *a, struct ofile *f, time_t now, bool *evict)
{
	*evict = false;
	if (ofile_has_pending(f) && now - f->first_pending >= a->cfg->flush_interval)
		ofile_flush(a, f);
	if (a->close_timeout_s > 0 && f->fd >= 0 && !ofile_has_pending(f) &&
	    now - f->last_write >= a->close_timeout_s) {
		ofile_close(a, f);
		atomic_fetch_add_explicit(&a->stats.closetimeouts, 1, memory_order_relaxed);
		*evict = true;
	}
}

/* About once a second (housekeeping thread): flushInterval, closeTimeout. */
static void omfile_tick(void *act)
{
	struct omfile_act *a = act;
	bool evict;
	if (pthread_mutex_trylock(&a->mu) != 0)
		return; /* a writer is busy with it right now */
	time_t now = time(NULL);
	if (a->single)
		tick_file(a, a->single, now, &evict);
	for (struct ofile *f = a->lru_head, *next; f; f = next) {
		next = f->next;
		tick_file(a, f, now, &evict);
		if (evict)
			cache_remove(a, f);
	}
	pthread_mutex_unlock(&a->mu);
}

/* The worker's queue ran empty: write out what the files hold now
 * (flushOnTXEnd="off" batches writes during a burst; there is no reason
 * to keep the tail of the burst waiting for the flushInterval timer). */
static void omfile_idle(void *wrk)
{
	struct omfile_wrk *w = wrk;
	if (!w)
		return;
	struct omfile_act *a = w->act;
	if (pthread_mutex_trylock(&a->mu) != 0)
		return; /* another worker is writing: it flushes on its own idle */
	if (a->single && ofile_has_pending(a->single))
		ofile_flush(a, a->single);
	for (struct ofile *f = a->lru_head; f; f = f->next)
		if (ofile_has_pending(f))
			ofile_flush(a, f);
	pthread_mutex_unlock(&a->mu);
}

/* ---- workers and transactions ---- */

static void *omfile_wrk_create(void *act)
{
	struct omfile_wrk *w = calloc(1, sizeof(*w));
	if (w)
		w->act = act;
	return w;
}

static void wrk_reset(struct omfile_wrk *w)
{
	sbuf_reset(&w->data);
	sbuf_reset(&w->names);
	w->n_segs = 0;
}

static void omfile_wrk_destroy(void *wrk)
{
	struct omfile_wrk *w = wrk;
	if (!w)
		return;
	sbuf_free(&w->data);
	sbuf_free(&w->names);
	sbuf_free(&w->namebuf);
	free(w->segs);
	free(w);
}

static enum sl_rc omfile_tx_begin(void *wrk)
{
	/* Anything still staged belongs to a transaction the core gave up
	 * on (it counted those messages as failed). */
	wrk_reset(wrk);
	return SL_OK;
}

/* Hand everything staged to the files (one lock). `final` = transaction
 * end. On a static file error, what was not written stays staged and
 * ACT_SUSPENDED is returned; the core retries later. */
static enum act_result stage_flush(struct omfile_wrk *w, bool final)
{
	struct omfile_act *a = w->act;
	enum act_result rc = ACT_OK;
	bool flush = final && (a->cfg->flush_on_tx_end || a->cfg->sync);

	pthread_mutex_lock(&a->mu);
	for (int i = 0; i < w->n_segs; i++) {
		struct seg *s = &w->segs[i];
		if (s->data_len == 0)
			continue;
		struct ofile *f = a->single ? a->single
			: cache_get(a, w->names.buf + s->name_off, s->name_len, s->n_msgs);
		if (f == NULL) {
			if (a->cfg->dyna_no_suspend) {
				/* dynafile.donotsuspend: drop these lines, as rsyslog */
				atomic_fetch_add_explicit(&a->stats.dropped, s->n_msgs, memory_order_relaxed);
				s->data_len = 0;
				s->n_msgs = 0;
				continue;
			}
			rc = ACT_SUSPENDED;
			break;
		}
		size_t done;
		bool ok = ofile_put(a, f, w->data.buf + s->data_off, s->data_len, flush, &done);
		s->data_off += done;
		s->data_len -= done;
		if (s->data_len == 0) {
			atomic_fetch_add_explicit(&a->stats.lines, s->n_msgs, memory_order_relaxed);
			s->n_msgs = 0;
		}
		if (!ok) {
			rc = ACT_SUSPENDED;
			break;
		}
	}
	pthread_mutex_unlock(&a->mu);
	if (rc == ACT_OK)
		wrk_reset(w);
	return rc;
}

/* A new segment for the file `name`, its data starting at `data_off`. */
static bool add_seg(struct omfile_wrk *w, const char *name, size_t name_len, size_t data_off)
{
	if (w->n_segs == w->cap_segs) {
		int nc = w->cap_segs ? w->cap_segs * 2 : 16;
		struct seg *ns = realloc(w->segs, (size_t)nc * sizeof(*ns));
		if (!ns)
			return false;
		w->segs = ns;
		w->cap_segs = nc;
	}
	struct seg *s = &w->segs[w->n_segs];
	s->name_off = w->names.len;
	s->name_len = name_len;
	if (!sbuf_append(&w->names, name, name_len))
		return false;
	s->data_off = data_off;
	s->data_len = 0;
	s->n_msgs = 0;
	w->n_segs++;
	return true;
}

/* output_ops.tx_render_buf: a static file's lines are rendered straight
 * into the staging buffer (no copy in tx_add). The buffer is written out
 * first when it is nearly full; a dynaFile renders its name first, so it
 * takes the core's buffer. */
static struct sbuf *omfile_tx_render_buf(void *wrk)
{
	struct omfile_wrk *w = wrk;
	struct omfile_act *a = w->act;
	if (a->dyn_tpl)
		return NULL;
	if (w->data.len && w->data.len + 4096 > a->iobuf && stage_flush(w, false) != ACT_OK)
		return NULL; /* tx_add flushes again and reports the suspension */
	return &w->data;
}

static enum act_result omfile_tx_add(void *wrk, struct msg *m, const char *rendered, size_t len)
{
	struct omfile_wrk *w = wrk;
	struct omfile_act *a = w->act;

	if (len && w->data.buf && rendered + len == w->data.buf + w->data.len &&
	    rendered >= w->data.buf) {
		/* rendered in place (omfile_tx_render_buf): account for it */
		size_t start = w->data.len - len;
		struct seg *last = w->n_segs ? &w->segs[w->n_segs - 1] : NULL;
		if (!last || last->data_off + last->data_len != start) {
			if (!add_seg(w, "", 0, start)) {
				w->data.len = start; /* the core renders it again */
				return ACT_SUSPENDED;
			}
			last = &w->segs[w->n_segs - 1];
		}
		last->data_len += len;
		last->n_msgs++;
		return ACT_DEFERRED;
	}

	if (w->data.len && w->data.len + len > a->iobuf) {
		enum act_result r = stage_flush(w, false);
		if (r != ACT_OK)
			return r;
	}
	if (a->dyn_tpl) {
		sbuf_reset(&w->namebuf);
		if (!tpl_render(a->dyn_tpl, m, &w->namebuf))
			return ACT_SUSPENDED; /* ENOMEM: try again later */
		if (w->namebuf.len == 0) {
			log_err_limited(a, "omfile: dynaFile template '%s' rendered an empty file "
					"name; message discarded", a->label);
			return ACT_FAILED;
		}
		struct seg *last = w->n_segs ? &w->segs[w->n_segs - 1] : NULL;
		if (!last || last->name_len != w->namebuf.len ||
		    memcmp(w->names.buf + last->name_off, w->namebuf.buf, w->namebuf.len) != 0 ||
		    last->data_off + last->data_len != w->data.len) {
			if (!add_seg(w, w->namebuf.buf, w->namebuf.len, w->data.len))
				return ACT_SUSPENDED;
		}
	} else if (w->n_segs == 0 ||
		   w->segs[w->n_segs - 1].data_off + w->segs[w->n_segs - 1].data_len != w->data.len) {
		if (!add_seg(w, "", 0, w->data.len))
			return ACT_SUSPENDED;
	}
	if (!sbuf_append(&w->data, rendered, len))
		return ACT_SUSPENDED;
	w->segs[w->n_segs - 1].data_len += len;
	w->segs[w->n_segs - 1].n_msgs++;
	return ACT_DEFERRED;
}

static enum act_result omfile_tx_commit(void *wrk)
{
	return stage_flush(wrk, true);
}

/* After a suspension: is the file writable again? */
static enum sl_rc omfile_try_resume(void *wrk)
{
	struct omfile_wrk *w = wrk;
	struct omfile_act *a = w->act;
	enum sl_rc rc = SL_OK;
	if (!a->single)
		return SL_OK;
	pthread_mutex_lock(&a->mu);
	if (a->single->fd < 0 && ofile_open(a, a->single) < 0)
		rc = SL_ERR_SUSPENDED;
	pthread_mutex_unlock(&a->mu);
	return rc;
}

static const struct output_ops omfile_output_ops = {
	.act_create = omfile_act_create,
	.act_start = omfile_act_start,
	.act_destroy = omfile_act_destroy,
	.wrk_create = omfile_wrk_create,
	.wrk_destroy = omfile_wrk_destroy,
	.tx_begin = omfile_tx_begin,
	.tx_add = omfile_tx_add,
	.tx_render_buf = omfile_tx_render_buf,
	.tx_commit = omfile_tx_commit,
	.try_resume = omfile_try_resume,
	.hup = omfile_hup,
	.tick = omfile_tick,
	.idle = omfile_idle,
	.default_template = "RSYSLOG_FileFormat",
};

const struct module omfile_module = {
	SLUICE_MODULE_V1,
	.name = "omfile",
	.description = "write to files (static or per-message file names)",
	.type = MOD_OUTPUT,
	.mod_params = &omfile_mod_table,
	.inst_params = &omfile_table,
	.mod_init = omfile_mod_init,
	.mod_exit = omfile_mod_exit,
	.output = &omfile_output_ops,
};
