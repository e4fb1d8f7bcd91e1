/* omfile_file.c — omfile's file layer: opening output files (creating
 * missing directories, modes, owners), buffered writes, and the optional
 * stages a flush goes through: gzip (zipLevel > 0, zlib) and encryption
 * (cry.provider="gcry"), then size-limit rotation (rotation.sizeLimit,
 * rotation.sizeLimitCommand).
 *
 * A "flush" is one hand-over of the file's buffer (plus staged data) to
 * the kernel. Without zip/crypto it is one writev(). With zip each flush
 * is deflated; veryRobustZip="on" ends a complete gzip member at every
 * flush (so after a crash `zcat` reads everything up to the last flush;
 * gzip readers accept concatenated members), "off" does a Z_SYNC_FLUSH
 * (readable up to the flush, but the stream is only terminated at close).
 * With encryption the bytes of a flush are padded with NULs to the
 * cipher block length and encrypted (CBC chained across flushes), as
 * rsyslog's lmcry_gcry does. The gzip/encryption state cannot carry over
 * a failed write into a reopened file: a write error ends the member and
 * the block, and the bytes of that flush are dropped (counted, logged);
 * plain files keep every unwritten byte buffered.
 *
 * Threading: every function here runs with the action's mutex held
 * (see omfile.h); rotation runs its command synchronously under it.
 */
#include "sluice.h"
#include "log.h"
#include "omfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void omfile_log_err(struct omfile_act *a, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	long long now = (long long)time(NULL);
	if (atomic_exchange(&a->last_err_log, now) == now)
		return; /* at most one line a second per action; counters count all */
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

/* ---- direct writes ----
 *
 * uncachedWrites="direct": the file's buffer is a page-aligned block written with O_DIRECT, so the
 * bytes go from it to the disk without being copied into page-cache
 * pages first (the kernel's largest cost of a busy log file). Every
 * direct write covers whole pages and starts on a page boundary of the
 * file: the buffer begins with the part of the last page that is
 * already in the file (dhead bytes, rewritten unchanged) and a full
 * buffer is written whole. Only a flush (flushInterval, flushOnTXEnd,
 * the queue running empty, close) leaves a partial page; its bytes are
 * appended through the ordinary descriptor (and cached), and the next
 * direct write covers that page again.
 *
 * The ordinary descriptor stays open (O_APPEND) for those tails and for
 * everything else: when the file is not what we wrote (its size differs:
 * another writer appended, or it was truncated) or a direct write fails,
 * the pending bytes move to the ordinary buffer and the file goes on
 * with plain appends until it is reopened, the write error (if any)
 * being reported there as for any write. File systems without O_DIRECT
 * refuse the open and the file takes the RWF_DONTCACHE path of "auto".
 *
 * Not the default: nothing of the file stays in the page cache, so a
 * reader that follows the file (a shipper, `tail -f`, the benchmark's
 * poller) reads it back from the disk, paying in its own CPU and I/O
 * about what the writer saved (doc/benchmarks.md, "Direct writes"). */

static void dio_close(struct ofile *f)
{
	if (f->dfd >= 0)
		close(f->dfd);
	f->dfd = -1;
	f->dhead = f->dlen = 0;
}

static void dio_open(struct omfile_act *a, struct ofile *f)
{
	size_t pg = a->page_size;
	struct stat st;
	f->dio_off = true; /* one try per open */
	if (fstat(f->fd, &st) != 0 || st.st_size != f->size)
		return;
	size_t head = (size_t)(f->size % (off_t)pg);
	char path[64];
	struct stat dst;
	/* the same file as f->fd, not whatever has its name by now */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", f->fd);
	int flags = (head ? O_RDWR : O_WRONLY) | O_DIRECT | O_CLOEXEC | O_NOCTTY;
	int dfd = open(path, flags);
	if (dfd < 0 && errno == ENOENT) /* no /proc */
		dfd = open(f->name, flags);
	if (dfd < 0)
		return; /* no O_DIRECT here (EINVAL), or not readable: RWF_DONTCACHE */
	if (fstat(dfd, &dst) != 0 || dst.st_dev != st.st_dev || dst.st_ino != st.st_ino)
		goto no;
	if (!f->dbuf) {
		void *p;
		if (posix_memalign(&p, pg, a->dio_cap) != 0)
			goto no;
		f->dbuf = p;
	}
	/* a partial last page: its bytes begin the buffer (an O_DIRECT read of
	 * the whole page returns what there is) */
	if (head && pread(dfd, f->dbuf, pg, f->size - (off_t)head) != (ssize_t)head)
		goto no;
	f->dfd = dfd;
	f->dhead = f->dlen = head;
	f->dio_off = false;
	return;
no:
	close(dfd);
}

/* Direct writes end for this file (until it is reopened): the pending
 * bytes become the ordinary buffer's (which is empty while direct writes
 * are on). */
static void dio_stop(struct omfile_act *a, struct ofile *f)
{
	if (f->dfd < 0)
		return;
	f->dio_off = true;
	if (f->dlen > f->dhead && !sbuf_append(&f->buf, f->dbuf + f->dhead, f->dlen - f->dhead)) {
		atomic_fetch_add_explicit(&a->stats.dropped, 1, memory_order_relaxed);
		omfile_log_err(a, "omfile: out of memory: %zu bytes for file '%s' lost", f->dlen - f->dhead,
			       f->name);
	}
	dio_close(f);
}

/* Write the first n bytes of dbuf (whole pages) at their place in the
 * file. False: direct writes stopped (dio_stop), the caller goes on with
 * the ordinary path. */
static bool dio_write(struct omfile_act *a, struct ofile *f, size_t n)
{
	struct stat st = { .st_size = -1 };
	off_t base = f->size - (off_t)f->dhead;
	if (fstat(f->fd, &st) != 0 || st.st_size != f->size) {
		omfile_log_err(a, "omfile: file '%s' is %lld bytes, %lld expected (another writer?): "
			       "appending without O_DIRECT until it is reopened", f->name,
			       (long long)st.st_size, (long long)f->size);
		dio_stop(a, f);
		return false;
	}
	ssize_t w;
	do
		w = pwrite(f->dfd, f->dbuf, n, base);
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)n) {
		/* a short write (disk full) keeps what reached the file; the
		 * ordinary path then writes the rest or reports the error */
		if (w > (ssize_t)f->dhead && fstat(f->fd, &st) == 0 && st.st_size == base + w) {
			size_t done = (size_t)w - f->dhead;
			f->size = base + w;
			atomic_fetch_add_explicit(&a->stats.bytes, done, memory_order_relaxed);
			memmove(f->dbuf, f->dbuf + w, f->dlen - (size_t)w);
			f->dlen -= (size_t)w;
			f->dhead = 0;
		}
		dio_stop(a, f);
		return false;
	}
	size_t done = n - f->dhead;
	f->size = base + (off_t)n;
	atomic_fetch_add_explicit(&a->stats.writes, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->stats.bytes, done, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->stats.bytes_uncached, done, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->stats.bytes_direct, done, memory_order_relaxed);
	memmove(f->dbuf, f->dbuf + n, f->dlen - n);
	f->dlen -= n;
	f->dhead = 0;
	return true;
}

/* A flush with direct writes: the whole pages directly, the rest appended
 * through the ordinary descriptor; that partial page stays at the start of
 * the buffer. False: direct writes stopped, the ordinary path goes on. */
static bool dio_flush(struct omfile_act *a, struct ofile *f)
{
	size_t whole = f->dlen - f->dlen % a->page_size;
	if (whole > f->dhead && !dio_write(a, f, whole))
		return false;
	size_t at = f->dhead;
	while (at < f->dlen) {
		ssize_t w = write(f->fd, f->dbuf + at, f->dlen - at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		at += (size_t)w;
	}
	size_t done = at - f->dhead;
	if (done) {
		f->size += (off_t)done;
		atomic_fetch_add_explicit(&a->stats.writes, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&a->stats.bytes, done, memory_order_relaxed);
	}
	f->dhead = at;
	if (at < f->dlen) {
		dio_stop(a, f);
		return false;
	}
	return true;
}

int ofile_open(struct omfile_act *a, struct ofile *f)
{
	const int flags = O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC;
	const char *name = f->name;
	int fd = open(name, flags);
	if (fd < 0 && errno != ENOENT)
		goto fail;
	if (fd < 0) {
		fd = open(name, flags | O_CREAT, (mode_t)a->cfg->file_mode);
		if (fd < 0 && errno == ENOENT && a->cfg->create_dirs) {
			if (make_parent_dirs(a, name) != 0)
				goto fail;
			fd = open(name, flags | O_CREAT, (mode_t)a->cfg->file_mode);
		}
		if (fd < 0)
			goto fail;
		if ((a->file_uid != -1 || a->file_gid != -1) &&
		    fchown(fd, (uid_t)a->file_uid, (gid_t)a->file_gid) != 0 &&
		    a->cfg->fail_on_chown) {
			int e = errno;
			close(fd);
			errno = e;
			goto fail;
		}
	}
	struct stat st;
	bool st_ok = fstat(fd, &st) == 0;
	f->size = st_ok ? st.st_size : 0;
	f->uncached_ok = st_ok && S_ISREG(st.st_mode) && a->uncached_min != SIZE_MAX;
	if (a->cry && !f->cry) {
		f->cry = cry_file_open(a->cry, name, f->size);
		if (!f->cry) {
			close(fd);
			errno = EIO;
			goto fail;
		}
	}
	f->fd = fd;
	f->dio_off = !a->dio_cap || !f->uncached_ok;
	f->behind_ok = st_ok && S_ISREG(st.st_mode) && a->behind > 0;
	f->wb_from = f->drop_from = f->size - f->size % OMFILE_BEHIND_STEP;
	atomic_fetch_add_explicit(&a->stats.opened, 1, memory_order_relaxed);
	return 0;
fail:
	atomic_fetch_add_explicit(&a->stats.open_errors, 1, memory_order_relaxed);
	omfile_log_err(a, "omfile: cannot open file '%s': %s", name, strerror(errno));
	return -1;
}

#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080 /* Linux 6.14: uncached buffered writes */
#endif

/* Write at most `max` bytes of *iov (at most two entries; with `flags`
 * through pwritev2 at the file's end), advancing *iov and *n past what
 * was written. Returns the bytes written; *err is 0 or the errno. */
static size_t write_iov(int fd, struct iovec **iov, int *n, size_t max, int flags, int *err)
{
	size_t done = 0;
	*err = 0;
	while (*n > 0 && done < max) {
		struct iovec part[2];
		int k = 0;
		size_t room = max - done;
		for (int i = 0; i < *n && k < 2 && room; i++, k++) {
			part[k].iov_base = (*iov)[i].iov_base;
			part[k].iov_len = (*iov)[i].iov_len < room ? (*iov)[i].iov_len : room;
			room -= part[k].iov_len;
		}
		ssize_t w = flags ? pwritev2(fd, part, k, -1, flags) : writev(fd, part, k);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			*err = errno;
			break;
		}
		done += (size_t)w;
		size_t left = (size_t)w;
		while (*n > 0 && left >= (*iov)->iov_len) {
			left -= (*iov)->iov_len;
			(*iov)++;
			(*n)--;
		}
		if (*n > 0) {
			(*iov)->iov_base = (char *)(*iov)->iov_base + left;
			(*iov)->iov_len -= left;
		}
	}
	return done;
}

/* Write iov[0..n) (n <= 2) completely. Returns the number of bytes
 * written; sets *ok = false (errno set) on an error.
 *
 * uncachedWrites: of a write of at least a->uncached_min bytes, the part
 * that ends on a page boundary of the file goes through the page cache
 * with RWF_DONTCACHE: the kernel starts writing those pages to disk at
 * once and frees them when that is done, so a busy log file does not
 * fill memory with pages nobody reads, and the next writes reuse the
 * freed pages. The tail of the last page is written normally and stays
 * cached until a later write completes it (a dropped partial page would
 * have to be read back for the next append). Kernels or file systems
 * without it answer EOPNOTSUPP before writing anything; the file then
 * goes back to plain writes. */
static size_t write_all(struct omfile_act *a, struct ofile *f, struct iovec *iov, int n, bool *ok)
{
	size_t total = 0, done = 0;
	int err = 0;
	for (int i = 0; i < n; i++)
		total += iov[i].iov_len;
	if (f->uncached_ok && total >= a->uncached_min && total > 0) {
		off_t end = f->size + (off_t)total;
		off_t aligned = end - end % (off_t)a->page_size;
		if (aligned > f->size) {
			done = write_iov(f->fd, &iov, &n, (size_t)(aligned - f->size), RWF_DONTCACHE,
					 &err);
			atomic_fetch_add_explicit(&a->stats.bytes_uncached, done, memory_order_relaxed);
			if (err == EOPNOTSUPP || err == EINVAL) {
				f->uncached_ok = false;
				err = 0;
			}
		}
	}
	if (!err)
		done += write_iov(f->fd, &iov, &n, SIZE_MAX, 0, &err);
	*ok = err == 0;
	errno = err;
	return done;
}

/* rotation.sizeLimit reached: close the file and run the command with the
 * file name as its only argument (as rsyslog's outchannel/rotation does);
 * the next write reopens the file (normally a new one, the command having
 * moved the old one away). */
static void rotate(struct omfile_act *a, struct ofile *f)
{
	atomic_fetch_add_explicit(&a->stats.rotations, 1, memory_order_relaxed);
	ofile_close(a, f);
	if (!a->cfg->rotation_cmd || !*a->cfg->rotation_cmd) {
		omfile_log_err(a, "omfile: file '%s' reached rotation.sizeLimit %lld but no "
			       "rotation.sizeLimitCommand is set; it keeps growing", f->name,
			       (long long)a->cfg->rotation_size);
		return;
	}
	pid_t pid;
	char *argv[] = { a->cfg->rotation_cmd, f->name, NULL };
	int rc = posix_spawnp(&pid, a->cfg->rotation_cmd, NULL, NULL, argv, environ);
	if (rc != 0) {
		omfile_log_err(a, "omfile: cannot run rotation.sizeLimitCommand '%s': %s",
			       a->cfg->rotation_cmd, strerror(rc));
		return;
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		omfile_log_err(a, "omfile: rotation.sizeLimitCommand '%s %s' failed (status %d)",
			       a->cfg->rotation_cmd, f->name, st);
}

/* Deflate `len` bytes of `p` into f->xout with `op`. */
static bool zip_bytes(struct omfile_act *a, struct ofile *f, const char *p, size_t len, int op)
{
	if (!f->zs) {
		f->zs = calloc(1, sizeof(*f->zs));
		if (!f->zs || deflateInit2(f->zs, (int)a->cfg->zip_level, Z_DEFLATED, 15 + 16, 8,
					   Z_DEFAULT_STRATEGY) != Z_OK) {
			free(f->zs);
			f->zs = NULL;
			return false;
		}
	}
	if (len == 0 && op == Z_NO_FLUSH)
		return true;
	if (len || op == Z_FINISH || op == Z_SYNC_FLUSH)
		f->zmember = true;
	f->zs->next_in = (Bytef *)p;
	f->zs->avail_in = (uInt)len;
	for (;;) {
		size_t room = deflateBound(f->zs, f->zs->avail_in) + 64;
		if (!sbuf_grow(&f->xout, room))
			return false;
		f->zs->next_out = (Bytef *)f->xout.buf + f->xout.len;
		f->zs->avail_out = (uInt)(f->xout.cap - f->xout.len);
		int zr = deflate(f->zs, op);
		f->xout.len = f->xout.cap - f->zs->avail_out;
		if (zr == Z_STREAM_ERROR)
			return false;
		if (op == Z_FINISH ? zr == Z_STREAM_END : (f->zs->avail_in == 0 && f->zs->avail_out != 0))
			break;
	}
	if (op == Z_FINISH) {
		deflateReset(f->zs); /* the next flush starts a new member */
		f->zmember = false;
	}
	return true;
}

/* Turn buf + data into transformed bytes appended to f->xout. */
static bool transform(struct omfile_act *a, struct ofile *f, const char *data, size_t len, bool final)
{
	size_t from = f->xout.len;
	if (a->cfg->zip_level > 0) {
		int end_op = a->cfg->very_robust_zip ? Z_FINISH : Z_SYNC_FLUSH;
		if (!zip_bytes(a, f, f->buf.buf, f->buf.len, Z_NO_FLUSH) ||
		    !zip_bytes(a, f, data, len, Z_NO_FLUSH))
			return false;
		if (f->zmember && !zip_bytes(a, f, NULL, 0, final ? Z_FINISH : end_op))
			return false;
	} else {
		if (!sbuf_append(&f->xout, f->buf.buf, f->buf.len) || !sbuf_append(&f->xout, data, len))
			return false;
	}
	if (f->cry && f->xout.len > from && !cry_encrypt(f->cry, &f->xout, from))
		return false;
	return true;
}

static bool write_xout(struct omfile_act *a, struct ofile *f)
{
	struct iovec iov = { f->xout.buf, f->xout.len };
	bool ok;
	if (f->xout.len == 0)
		return true;
	size_t w = write_all(a, f, &iov, 1, &ok);
	f->size += (off_t)w;
	atomic_fetch_add_explicit(&a->stats.writes, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->stats.bytes, w, memory_order_relaxed);
	memmove(f->xout.buf, f->xout.buf + w, f->xout.len - w);
	f->xout.len -= w;
	return ok;
}

/* uncachedWrites="behind" (drop-behind): start the writeback of what lies
 * more than half of a->behind before the end of the file, and drop from
 * the page cache what lies more than a->behind before it (written back
 * by then, normally; pages still dirty are left alone by the kernel).
 * A reader that follows the file finds its end in memory; the pages of
 * older parts are freed a few seconds after they were written, so new
 * writes get pages freed a moment ago. On this project's virtual machine
 * those cost the writer a fraction of pages the host has taken back
 * (doc/benchmarks.md, "Drop-behind"). */
static void drop_behind(struct omfile_act *a, struct ofile *f)
{
	const off_t step = OMFILE_BEHIND_STEP;
	while (f->size - f->wb_from >= a->behind / 2 + step) {
		sync_file_range(f->fd, f->wb_from, step, SYNC_FILE_RANGE_WRITE);
		f->wb_from += step;
	}
	while (f->size - f->drop_from >= a->behind + step) {
		posix_fadvise(f->fd, f->drop_from, step, POSIX_FADV_DONTNEED);
		f->drop_from += step;
	}
}

static void after_write(struct omfile_act *a, struct ofile *f)
{
	f->last_write = time(NULL);
	if (f->behind_ok && f->fd >= 0)
		drop_behind(a, f);
	if (a->cfg->sync && f->fd >= 0)
		fdatasync(f->fd);
	if (a->cfg->rotation_size > 0 && f->size >= a->cfg->rotation_size)
		rotate(a, f);
}

/* A write failed: close the file. For gzip/encrypted files the stream
 * state cannot continue into a reopened (maybe new) file, so the gzip
 * member and the encryption block end here and the transformed bytes not
 * yet written are dropped (counted, logged); plain files keep everything
 * unwritten in their buffer. */
static bool write_error(struct omfile_act *a, struct ofile *f, int e)
{
	atomic_fetch_add_explicit(&a->stats.write_errors, 1, memory_order_relaxed);
	omfile_log_err(a, "omfile: write error on file '%s': %s%s", f->name, strerror(e),
		       f->xout.len ? "; the compressed/encrypted bytes of this flush are lost" : "");
	if (f->xout.len)
		atomic_fetch_add_explicit(&a->stats.dropped, 1, memory_order_relaxed);
	f->xout.len = 0;
	if (f->cry) {
		cry_file_close(f->cry, f->size);
		f->cry = NULL;
	}
	if (f->zs) {
		deflateEnd(f->zs);
		free(f->zs);
		f->zs = NULL;
		f->zmember = false;
	}
	dio_stop(a, f);
	if (f->fd >= 0) {
		close(f->fd);
		atomic_fetch_add_explicit(&a->stats.closed, 1, memory_order_relaxed);
	}
	f->fd = -1;
	return false;
}

bool ofile_write(struct omfile_act *a, struct ofile *f, const char *data, size_t len,
		 size_t *data_done)
{
	*data_done = 0;
	dio_stop(a, f); /* (not while direct writes are on; see ofile_put) */
	if (f->fd < 0 && ofile_open(a, f) < 0)
		return false;
	if (a->cfg->zip_level > 0 || f->cry) {
		if (!transform(a, f, data, len, false))
			return write_error(a, f, ENOMEM);
		f->buf.len = 0;
		*data_done = len;
		if (!write_xout(a, f))
			return write_error(a, f, errno);
		after_write(a, f);
		return true;
	}

	struct iovec iov[2];
	int n = 0;
	bool ok;
	size_t blen = f->buf.len;
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
	size_t w = write_all(a, f, iov, n, &ok);
	int e = errno;
	f->size += (off_t)w;
	atomic_fetch_add_explicit(&a->stats.writes, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->stats.bytes, w, memory_order_relaxed);
	if (w >= blen) {
		f->buf.len = 0;
		*data_done = w - blen;
	} else {
		memmove(f->buf.buf, f->buf.buf + w, blen - w);
		f->buf.len = blen - w;
	}
	if (!ok)
		return write_error(a, f, e);
	after_write(a, f);
	return true;
}

bool ofile_has_pending(const struct ofile *f)
{
	return f->buf.len || f->xout.len || f->dlen > f->dhead;
}

bool ofile_flush(struct omfile_act *a, struct ofile *f)
{
	size_t done;
	if (!ofile_has_pending(f))
		return true;
	if (f->dfd >= 0) {
		if (dio_flush(a, f)) {
			after_write(a, f);
			return true;
		}
	}
	return ofile_write(a, f, NULL, 0, &done);
}

bool ofile_put(struct omfile_act *a, struct ofile *f, const char *data, size_t len, bool flush,
	       size_t *consumed)
{
	*consumed = 0;
	if (f->fd < 0 && ofile_open(a, f) < 0)
		return false;
	if (!f->dio_off && f->dfd < 0 && f->buf.len == 0)
		dio_open(a, f);
	if (f->dfd >= 0) {
		if (f->dlen == f->dhead)
			f->first_pending = time(NULL);
		while (len) {
			size_t k = a->dio_cap - f->dlen < len ? a->dio_cap - f->dlen : len;
			memcpy(f->dbuf + f->dlen, data, k);
			f->dlen += k;
			data += k;
			len -= k;
			*consumed += k;
			if (f->dlen == a->dio_cap) {
				if (!dio_write(a, f, f->dlen)) {
					size_t more;
					bool ok = ofile_write(a, f, data, len, &more);
					*consumed += more;
					return ok;
				}
				after_write(a, f);
				if (f->dfd < 0) { /* rotated: the rest goes to the new file */
					size_t more;
					bool ok = ofile_put(a, f, data, len, flush, &more);
					*consumed += more;
					return ok;
				}
			}
		}
		return flush ? ofile_flush(a, f) : true;
	}
	/* A big chunk into an empty buffer (a worker's whole transaction,
	 * usually) is written as it is rather than copied into the buffer
	 * first; gzip and encryption keep buffering. */
	bool as_is = f->buf.len == 0 && len >= a->iobuf / 2 && a->cfg->zip_level == 0 && !f->cry;
	if (f->buf.len + len <= a->iobuf && !as_is) {
		if (f->buf.cap < a->iobuf && !sbuf_grow(&f->buf, a->iobuf - f->buf.len))
			return ofile_write(a, f, data, len, consumed);
		if (f->buf.len == 0)
			f->first_pending = time(NULL);
		sbuf_append(&f->buf, data, len);
		*consumed = len;
		return flush ? ofile_flush(a, f) : true;
	}
	return ofile_write(a, f, data, len, consumed);
}

void ofile_close(struct omfile_act *a, struct ofile *f)
{
	if (f->fd >= 0) {
		ofile_flush(a, f);
		dio_stop(a, f); /* what a failed flush left moves to buf */
		if (f->fd >= 0 && f->zs && f->zmember) {
			size_t from = f->xout.len;
			if (zip_bytes(a, f, NULL, 0, Z_FINISH) && f->cry && f->xout.len > from)
				cry_encrypt(f->cry, &f->xout, from);
			write_xout(a, f);
		}
	}
	if (f->cry) {
		cry_file_close(f->cry, f->size);
		f->cry = NULL;
	}
	if (f->zs) {
		deflateEnd(f->zs);
		free(f->zs);
		f->zs = NULL;
		f->zmember = false;
	}
	/* transformed bytes that could not be written belong to a stream that
	 * is now closed: a new file starts clean */
	f->xout.len = 0;
	if (f->fd >= 0) {
		close(f->fd);
		atomic_fetch_add_explicit(&a->stats.closed, 1, memory_order_relaxed);
	}
	f->fd = -1;
}
