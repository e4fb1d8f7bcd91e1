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
 * Differences from rsyslog, on purpose: asyncWriting="on" uses the same
 * buffered path (the writes are already batched), and flushInterval is
 * honoured even without asyncWriting (rsyslog then never flushes a
 * partially filled buffer until it is full or the file is closed). Not
 * implemented yet (refused at load with a clear error): zipLevel > 0,
 * sig.provider, cry.provider, rotation.sizeLimit.
 */
#include "sluice.h"
#include "module.h"
#include "msg.h"
#include "log.h"
#include "ast.h"
#include "sbuf.h"
#include "template.h"

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
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* ---- configuration ---- */

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
	{ "compression.driver", PARAM_STRING, NULL, 0, MOFF(compression_driver), "zlib (compression not supported yet)" },
	{ "compression.zstd.workers", PARAM_INT, "0", 0, MOFF(zstd_workers), "accepted, not used" },
};
static const struct param_table omfile_mod_table = PARAM_TABLE(omfile_mod_params, struct omfile_mod_cfg);

struct omfile_cfg {
	char *file;
	char *dynafile;
	char *tpl;                   /* used by the core, kept for completeness */
	int64_t cache_size;
	int64_t zip_level;
	int64_t flush_interval;
	bool async_writing;
	bool very_robust_zip;
	bool flush_on_tx_end;
	int64_t iobuf_size;
	int dir_uid, dir_gid, file_uid, file_gid;
	int64_t dir_uid_num, dir_gid_num, file_uid_num, file_gid_num;
	int dir_mode, file_mode;
	bool fail_on_chown;
	bool create_dirs;
	bool sync;
	char *sig_provider, *cry_provider;
	int64_t close_timeout;       /* minutes; -1 = not given */
	bool dyna_no_suspend;
	int64_t rotation_size;
	char *rotation_cmd;
};

#define AOFF(f) offsetof(struct omfile_cfg, f)
static const struct param_desc omfile_params[] = {
	{ "file", PARAM_STRING, NULL, 0, AOFF(file), "file to write to" },
	{ "dynaFile", PARAM_STRING, NULL, 0, AOFF(dynafile), "template naming the file per message" },
	{ "template", PARAM_TEMPLATE, NULL, 0, AOFF(tpl), "template of the lines (default RSYSLOG_FileFormat)" },
	{ "dynaFileCacheSize", PARAM_INT, "10", 0, AOFF(cache_size), "open dynaFiles kept (1..1000)" },
	{ "zipLevel", PARAM_INT, "0", 0, AOFF(zip_level), "gzip level (only 0 supported yet)" },
	{ "flushInterval", PARAM_INT, "1", 0, AOFF(flush_interval), "seconds after which buffered data is written" },
	{ "asyncWriting", PARAM_BINARY, "off", 0, AOFF(async_writing), "accepted; same buffered path" },
	{ "veryRobustZip", PARAM_BINARY, "on", 0, AOFF(very_robust_zip), "accepted, not used" },
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
	{ "sig.provider", PARAM_WORD, NULL, 0, AOFF(sig_provider), "not supported yet" },
	{ "cry.provider", PARAM_WORD, NULL, 0, AOFF(cry_provider), "not supported yet" },
	{ "closeTimeout", PARAM_INT, "-1", 0, AOFF(close_timeout), "minutes of inactivity before a file is closed" },
	{ "dynafile.donotsuspend", PARAM_BINARY, "on", 0, AOFF(dyna_no_suspend), "dynaFile open errors drop the message instead of suspending" },
	{ "rotation.sizeLimit", PARAM_SIZE, "0", 0, AOFF(rotation_size), "not supported yet" },
	{ "rotation.sizeLimitCommand", PARAM_STRING, NULL, 0, AOFF(rotation_cmd), "not supported yet" },
};
static const struct param_table omfile_table = PARAM_TABLE(omfile_params, struct omfile_cfg);

/* The module() values, if module(load="builtin:omfile") was given. Set by
 * mod_init on the main thread at load, read by act_create at load (the
 * act_create contract has no module pointer). */
static const struct omfile_mod_cfg *omfile_mod_defaults;

/* ---- runtime ---- */

struct ofile {
	char *name;
	int fd;                       /* -1 = closed (reopened on next write) */
	struct sbuf buf;              /* pending whole lines, at most iobuf bytes */
	time_t first_pending;         /* when buf became non-empty */
	time_t last_write;            /* for closeTimeout */
	uint32_t hash;
	struct ofile *hnext;          /* hash chain */
	struct ofile *prev, *next;    /* LRU list, most recent first */
};

struct omfile_stats {
	atomic_uint_fast64_t bytes;
	atomic_uint_fast64_t writes;
	atomic_uint_fast64_t open_errors;
	atomic_uint_fast64_t write_errors;
	atomic_uint_fast64_t dropped;      /* dynaFile messages whose file could not be opened */
	atomic_uint_fast64_t evictions;
};

struct omfile_act {
	struct omfile_cfg *cfg;
	const struct template *dyn_tpl;
	const char *label;            /* file name or dynaFile template, for logs */
	size_t iobuf;
	int file_uid, file_gid, dir_uid, dir_gid;
	int close_timeout_s;          /* 0 = never */
	pthread_mutex_t mu;           /* guards everything below */
	struct ofile *single;         /* static file */
	struct ofile **htab;          /* dynaFile cache */
	size_t hmask;
	struct ofile *lru_head, *lru_tail;
	int n_cached;
	atomic_llong last_err_log;    /* log rate limit (any thread) */
	struct omfile_stats stats;
};

struct seg {
	size_t name_off, name_len;    /* into names (dynaFile) */
	size_t data_off, data_len;    /* into data; data_len 0 = written */
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

/* Log an error of action `a`, at most one line a second per action so a
 * broken destination cannot flood the log; the counters count them all. */
static void SL_PRINTF(2, 3) log_err_limited(struct omfile_act *a, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	long long now = (long long)time(NULL);
	if (atomic_exchange(&a->last_err_log, now) == now)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sl_err("%s", line);
}

/* Create the parent directories of `path` (mkdir -p), chown'ing the new
 * ones when dirOwner/dirGroup are set. */
static int make_parent_dirs(struct omfile_act *a, const char *path)
{
	char tmp[PATH_MAX];
	size_t len = strlen(path);
	if (len >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(tmp, path, len + 1);
	char *slash = strrchr(tmp, '/');
	if (slash == NULL || slash == tmp)
		return 0;
	*slash = '\0';
	for (char *p = tmp + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(tmp, (mode_t)a->cfg->dir_mode) == 0) {
				if ((a->dir_uid != -1 || a->dir_gid != -1) &&
				    chown(tmp, (uid_t)a->dir_uid, (gid_t)a->dir_gid) != 0 &&
				    a->cfg->fail_on_chown) {
					sl_err("omfile: cannot set owner/group of directory %s: %s", tmp,
					       strerror(errno));
					return -1;
				}
			} else if (errno != EEXIST) {
				return -1;
			}
			*p = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}

/* Open `name` for appending; create it (and its directories) if needed
 * with the configured mode and owner. Returns the fd or -1 (logged). */
static int open_file(struct omfile_act *a, const char *name)
{
	const int flags = O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC;
	int fd = open(name, flags);
	if (fd >= 0)
		return fd;
	if (errno != ENOENT)
		goto fail;
	fd = open(name, flags | O_CREAT, (mode_t)a->cfg->file_mode);
	if (fd < 0 && errno == ENOENT && a->cfg->create_dirs) {
		if (make_parent_dirs(a, name) != 0)
			goto fail;
		fd = open(name, flags | O_CREAT, (mode_t)a->cfg->file_mode);
	}
	if (fd < 0)
		goto fail;
	if ((a->file_uid != -1 || a->file_gid != -1) &&
	    fchown(fd, (uid_t)a->file_uid, (gid_t)a->file_gid) != 0 && a->cfg->fail_on_chown) {
		int e = errno;
		close(fd);
		errno = e;
		goto fail;
	}
	return fd;
fail:
	atomic_fetch_add_explicit(&a->stats.open_errors, 1, memory_order_relaxed);
	log_err_limited(a, "omfile: cannot open file '%s': %s", name, strerror(errno));
	return -1;
}

/* Write iov[0..n) completely (short writes, EINTR). Returns the number
 * of bytes written; sets *ok = false on an error. */
static size_t write_all(int fd, struct iovec *iov, int n, bool *ok)
{
	size_t done = 0;
	*ok = true;
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			*ok = false;
			return done;
		}
		done += (size_t)w;
		size_t left = (size_t)w;
		while (n > 0 && left >= iov->iov_len) {
			left -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + left;
			iov->iov_len -= left;
		}
	}
	return done;
}

static void file_close(struct omfile_act *a, struct ofile *f)
{
	(void)a;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* Write f's buffer and then `data` (may be NULL/0) to the file in one
 * writev. Caller holds a->mu. On error the file is closed; unwritten
 * buffer bytes stay in the buffer, and *data_done says how much of `data`
 * was written. Returns false on error. */
static bool file_write(struct omfile_act *a, struct ofile *f, const char *data, size_t len,
		       size_t *data_done)
{
	struct iovec iov[2];
	int n = 0;
	bool ok;
	size_t blen = f->buf.len;

	*data_done = 0;
	if (f->fd < 0 && (f->fd = open_file(a, f->name)) < 0)
		return false;
	if (blen) {
		iov[n].iov_base = f->buf.buf;
		iov[n++].iov_len = blen;
	}
	if (len) {
		iov[n].iov_base = (void *)data;
		iov[n++].iov_len = len;
	}
	if (n == 0)
		return true;
	size_t w = write_all(f->fd, iov, n, &ok);
	atomic_fetch_add_explicit(&a->stats.writes, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->stats.bytes, w, memory_order_relaxed);
	f->last_write = time(NULL);
	if (w >= blen) {
		f->buf.len = 0;
		*data_done = w - blen;
	} else {
		memmove(f->buf.buf, f->buf.buf + w, blen - w);
		f->buf.len = blen - w;
	}
	if (!ok) {
		int e = errno;
		atomic_fetch_add_explicit(&a->stats.write_errors, 1, memory_order_relaxed);
		log_err_limited(a, "omfile: write error on file '%s': %s", f->name, strerror(e));
		file_close(a, f);
		return false;
	}
	if (a->cfg->sync)
		fdatasync(f->fd);
	return true;
}

static bool file_flush(struct omfile_act *a, struct ofile *f)
{
	size_t done;
	if (f->buf.len == 0)
		return true;
	return file_write(a, f, NULL, 0, &done);
}

/* Hand staged bytes to a file: into its buffer if they fit, else written
 * together with the buffer. With `flush`, nothing stays buffered.
 * Caller holds a->mu. Returns how many bytes of `data` were consumed
 * (all of them unless false is returned). */
static bool file_put(struct omfile_act *a, struct ofile *f, const char *data, size_t len,
		     bool flush, size_t *consumed)
{
	*consumed = 0;
	if (f->buf.len + len <= a->iobuf) {
		if (f->fd < 0 && (f->fd = open_file(a, f->name)) < 0)
			return false;
		if (f->buf.cap < a->iobuf && !sbuf_grow(&f->buf, a->iobuf - f->buf.len))
			return file_write(a, f, data, len, consumed);
		if (f->buf.len == 0)
			f->first_pending = time(NULL);
		sbuf_append(&f->buf, data, len);
		*consumed = len;
		return flush ? file_flush(a, f) : true;
	}
	return file_write(a, f, data, len, consumed);
}

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
	f->hash = hash;
	return f;
}

static void ofile_free(struct omfile_act *a, struct ofile *f)
{
	file_flush(a, f);
	file_close(a, f);
	sbuf_free(&f->buf);
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
static struct ofile *cache_get(struct omfile_act *a, const char *name, size_t len)
{
	uint32_t h = name_hash(name, len);
	for (struct ofile *f = a->htab[h & a->hmask]; f; f = f->hnext) {
		if (f->hash == h && strncmp(f->name, name, len) == 0 && f->name[len] == '\0') {
			if (a->lru_head != f) {
				lru_unlink(a, f);
				lru_push_front(a, f);
			}
			return f;
		}
	}
	struct ofile *f = ofile_new(name, len, h);
	if (!f)
		return NULL;
	f->fd = open_file(a, f->name);
	if (f->fd < 0) {
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
	} else if (c->cache_size > 1000) {
		cfg_warn(pos_of(o, "dynafilecachesize"), "omfile: dynaFileCacheSize maximum is 1,000 "
			 "(%lld given), changed to 1,000", (long long)c->cache_size);
		c->cache_size = 1000;
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
	if (c->zip_level != 0) {
		cfg_error(pos_of(o, "ziplevel"), "omfile: zipLevel is not supported by sluice yet");
		errs++;
	}
	if (c->sig_provider || c->cry_provider) {
		cfg_error(pos_of(o, c->sig_provider ? "sig.provider" : "cry.provider"),
			  "omfile: sig.provider/cry.provider are not supported by sluice yet");
		errs++;
	}
	if (c->rotation_size > 0) {
		cfg_error(pos_of(o, "rotation.sizelimit"), "omfile: rotation.sizeLimit is not "
			  "supported by sluice yet");
		errs++;
	}
	if (m) { /* module() defaults for what the action does not set */
		if (!given(o, "filecreatemode"))
			c->file_mode = m->file_mode;
		if (!given(o, "dircreatemode"))
			c->dir_mode = m->dir_mode;
	}

	a = sl_xcalloc(1, sizeof(*a));
	a->cfg = c;
	pthread_mutex_init(&a->mu, NULL);
	a->iobuf = (size_t)(c->iobuf_size > 0 ? c->iobuf_size : 4096);
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
		pthread_mutex_destroy(&a->mu);
		free(a);
		param_free(&omfile_table, c);
		return NULL;
	}
	return a;
}

static enum sl_rc omfile_act_start(void *act)
{
	(void)act; /* files are opened on first write, as rsyslog does */
	return SL_OK;
}

static void close_all(struct omfile_act *a)
{
	if (a->single) {
		file_flush(a, a->single);
		file_close(a, a->single);
	}
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
	pthread_mutex_destroy(&a->mu);
	free(a->htab);
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
	if (f->buf.len && now - f->first_pending >= a->cfg->flush_interval)
		file_flush(a, f);
	if (a->close_timeout_s > 0 && f->fd >= 0 && f->buf.len == 0 &&
	    now - f->last_write >= a->close_timeout_s) {
		file_close(a, f);
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
			: cache_get(a, w->names.buf + s->name_off, s->name_len);
		if (f == NULL) {
			if (a->cfg->dyna_no_suspend) {
				/* dynafile.donotsuspend: drop these lines, as rsyslog */
				atomic_fetch_add_explicit(&a->stats.dropped, 1, memory_order_relaxed);
				s->data_len = 0;
				continue;
			}
			rc = ACT_SUSPENDED;
			break;
		}
		size_t done;
		bool ok = file_put(a, f, w->data.buf + s->data_off, s->data_len, flush, &done);
		s->data_off += done;
		s->data_len -= done;
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

static bool add_seg(struct omfile_wrk *w, const char *name, size_t name_len)
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
	s->data_off = w->data.len;
	s->data_len = 0;
	w->n_segs++;
	return true;
}

static enum act_result omfile_tx_add(void *wrk, struct msg *m, const char *rendered, size_t len)
{
	struct omfile_wrk *w = wrk;
	struct omfile_act *a = w->act;

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
			if (!add_seg(w, w->namebuf.buf, w->namebuf.len))
				return ACT_SUSPENDED;
		}
	} else if (w->n_segs == 0 ||
		   w->segs[w->n_segs - 1].data_off + w->segs[w->n_segs - 1].data_len != w->data.len) {
		if (!add_seg(w, "", 0))
			return ACT_SUSPENDED;
	}
	if (!sbuf_append(&w->data, rendered, len))
		return ACT_SUSPENDED;
	w->segs[w->n_segs - 1].data_len += len;
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
	if (a->single->fd < 0 && (a->single->fd = open_file(a, a->single->name)) < 0)
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
	.tx_commit = omfile_tx_commit,
	.try_resume = omfile_try_resume,
	.hup = omfile_hup,
	.tick = omfile_tick,
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
