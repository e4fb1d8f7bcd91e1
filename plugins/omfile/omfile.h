/* omfile.h — what the parts of omfile share: the parsed configuration,
 * the action instance, one open output file, and the file layer
 * (omfile_file.c: open with directories/owners/modes, buffered writes
 * through the optional gzip and encryption stages, size-limit rotation)
 * and the libgcrypt provider (omfile_cry.c).
 *
 * Threading: every function taking a struct ofile is called with the
 * action's mutex (omfile_act.mu) held; nothing here locks by itself.
 */
#ifndef SLUICE_OMFILE_H
#define SLUICE_OMFILE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <zlib.h>

#include "sbuf.h"

struct cfg_obj;
struct template;
struct cry_ctx;
struct cry_file;
struct stats_obj;

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
	char *cry_key, *cry_keyfile, *cry_keyprogram, *cry_algo, *cry_mode;
	int64_t close_timeout;       /* minutes; -1 = not given */
	bool dyna_no_suspend;
	int64_t rotation_size;
	char *rotation_cmd;
	char *compression_driver;
	int64_t zstd_workers;
	bool force_chown;            /* legacy $OMFileForceChown: accepted, no effect */
	char *uncached;              /* uncachedWrites: auto, on, off */
};

struct ofile {
	char *name;
	int fd;                       /* -1 = closed (reopened on next write) */
	struct sbuf buf;              /* pending whole lines, at most iobuf bytes */
	struct sbuf xout;             /* gzip/encrypted bytes not yet written */
	z_stream *zs;                 /* zipLevel > 0: the deflate stream */
	bool zmember;                 /* a gzip member is open (needs Z_FINISH) */
	struct cry_file *cry;         /* cry.provider: the cipher state */
	off_t size;                   /* current file size (rotation, encinfo, uncached writes) */
	bool uncached_ok;             /* a regular file whose writes may bypass the cache */
	/* Direct writes (uncachedWrites="direct", see omfile_file.c): while dfd >= 0 the file's bytes collect in dbuf
	 * instead of buf. dbuf starts at a page boundary of the file: its
	 * first dhead bytes are already in the file (the start of the last,
	 * partial page), the bytes from dhead to dlen are pending. */
	int dfd;                      /* O_DIRECT descriptor; -1 = plain writes */
	char *dbuf;                   /* a->dio_cap bytes, page-aligned */
	size_t dhead, dlen;
	bool dio_off;                 /* not (again) until the file is reopened */
	/* uncachedWrites="behind": writeback started up to wb_from, pages
	 * dropped from the cache up to drop_from (regular files only) */
	bool behind_ok;
	off_t wb_from, drop_from;
	time_t first_pending;         /* when buf became non-empty */
	time_t last_write;            /* for closeTimeout */
	uint32_t hash;
	struct ofile *hnext;          /* hash chain */
	struct ofile *prev, *next;    /* LRU list, most recent first */
};

/* Registered in the statistics registry (runtime/stats.h) by act_create:
 * a dynaFile action as rsyslog's "dynafile cache TEMPLATE" (origin
 * omfile: requests level0 missed evicted maxused closetimeouts, then
 * sluice's), a static file as "omfile(FILE)" (sluice's only). The cache
 * counters are updated under omfile_act.mu, once per run of lines for
 * one file, never per message. */
struct omfile_stats {
	atomic_uint_fast64_t requests;     /* dynaFile: messages whose file was looked up */
	atomic_uint_fast64_t level0;       /* ... that went to the file used just before */
	atomic_uint_fast64_t missed;       /* ... whose file was not in the cache */
	atomic_uint_fast64_t maxused;      /* most files the cache held at once */
	atomic_uint_fast64_t closetimeouts; /* files closed by closeTimeout */
	atomic_uint_fast64_t lines;        /* messages handed to the file layer */
	atomic_uint_fast64_t opened;       /* files opened */
	atomic_uint_fast64_t closed;       /* files closed (HUP, eviction, timeout, stop) */
	atomic_uint_fast64_t bytes;
	atomic_uint_fast64_t writes;
	atomic_uint_fast64_t open_errors;
	atomic_uint_fast64_t write_errors;
	atomic_uint_fast64_t dropped;      /* dynaFile messages whose file could not be opened */
	atomic_uint_fast64_t evictions;
	atomic_uint_fast64_t rotations;
	atomic_uint_fast64_t bytes_uncached; /* of `bytes`: written past the page cache
	                                      * (O_DIRECT or RWF_DONTCACHE) */
	atomic_uint_fast64_t bytes_direct;   /* of those: written with O_DIRECT */
};

struct omfile_act {
	struct omfile_cfg *cfg;
	const struct template *dyn_tpl;
	const char *label;            /* file name or dynaFile template, for logs */
	size_t iobuf;
	size_t uncached_min;          /* uncachedWrites: smallest write to pass by the
	                               * cache (SIZE_MAX = never) */
	size_t page_size;             /* uncached spans end on a page boundary */
	size_t dio_cap;               /* uncachedWrites="direct": ioBufferSize rounded up
	                               * to whole pages; 0 = no direct writes */
	off_t behind;                 /* uncachedWrites="behind": how much of the end of a
	                               * file stays cached (0 = no drop-behind) */
	int file_uid, file_gid, dir_uid, dir_gid;
	int close_timeout_s;          /* 0 = never */
	struct cry_ctx *cry;          /* cry.provider="gcry" */
	pthread_mutex_t mu;           /* guards everything below */
	struct ofile *single;         /* static file */
	struct ofile **htab;          /* dynaFile cache */
	size_t hmask;
	struct ofile *lru_head, *lru_tail;
	int n_cached;
	atomic_llong last_err_log;    /* log rate limit (any thread) */
	struct omfile_stats stats;
	struct stats_obj *stats_obj;  /* the registry's entry; NULL when none */
};

/* uncachedWrites="auto": the page-aligned part of a write of at least
 * this many bytes bypasses the page cache (RWF_DONTCACHE). Only a busy
 * file writes that much at once (a worker's batch, a full ioBufferSize);
 * quiet files keep the page cache as always. ("on": every write; "off"
 * and "behind", the default: none; "direct": see omfile_file.c.) */
#define OMFILE_UNCACHED_AUTO (64 * 1024)

/* uncachedWrites="behind": the last OMFILE_BEHIND bytes of a file stay in
 * the page cache; writeback of what lies more than half of that behind
 * the end is started, and what lies further back is dropped, in steps of
 * OMFILE_BEHIND_STEP. */
#define OMFILE_BEHIND (64 * 1024 * 1024)
#define OMFILE_BEHIND_STEP (8 * 1024 * 1024)

/* ---- omfile_file.c ---- */
void omfile_log_err(struct omfile_act *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Open f (creating it and its directories as configured); 0 or -1 (logged). */
int ofile_open(struct omfile_act *a, struct ofile *f);
/* Write f's buffer and then `data` (may be NULL/0). On error the file is
 * closed; unwritten bytes stay buffered and *data_done says how much of
 * `data` was consumed. Returns false on error. */
bool ofile_write(struct omfile_act *a, struct ofile *f, const char *data, size_t len,
		 size_t *data_done);
bool ofile_flush(struct omfile_act *a, struct ofile *f);
/* Hand data to a file: into its buffer if it fits, else written together
 * with the buffer; with `flush` nothing stays buffered. */
bool ofile_put(struct omfile_act *a, struct ofile *f, const char *data, size_t len, bool flush,
	       size_t *consumed);
/* Flush, finish the gzip member / encryption block, close. */
void ofile_close(struct omfile_act *a, struct ofile *f);
bool ofile_has_pending(const struct ofile *f);

/* ---- omfile_cry.c (libgcrypt; stubs that refuse when not built) ---- */
/* Check the cry.* parameters and load the key; reports errors at `o`.
 * Returns NULL (after counting errors) when they are invalid. */
struct cry_ctx *cry_ctx_create(const struct omfile_cfg *c, struct cfg_obj *o, int *n_errors);
void cry_ctx_destroy(struct cry_ctx *ctx);
/* A new encryption block for file `name` (whose current size is `offset`):
 * writes FILETYPE (new encinfo) and IV records to NAME.encinfo. */
struct cry_file *cry_file_open(struct cry_ctx *ctx, const char *name, off_t offset);
/* Encrypt `len` bytes in place after padding them with NULs to the block
 * length (sb must have room; it is grown as needed). */
bool cry_encrypt(struct cry_file *cf, struct sbuf *sb, size_t from);
/* Write the END record (file offset of the block's end) and free. */
void cry_file_close(struct cry_file *cf, off_t end_offset);

#endif
