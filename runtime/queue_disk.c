/* queue_disk.c — the disk part of Disk and disk-assisted queues: the
 * segment files of a queue directory, verified at start (torn or corrupt
 * spans reported with file and offset and skipped), appending batches
 * (maxFileSize, maxDiskSpace, syncQueueFiles), reading them back with
 * tickets that are committed (dq_done) or handed back (dq_untake),
 * deleting consumed segments, and the atomically written .qi state
 * (checkpointInterval). The record format, message serialization and
 * encryption are in queue_disk_format.c.
 *
 * Threading: struct dq has no lock of its own; every dq_* call comes with
 * the owning queue's mutex held, so reads and writes of the segment files
 * are serialized.
 */
#include "queue_disk.h"
#include "queue.h"
#include "glbl.h"
#include "log.h"
#include "msg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the disk part of a queue ---- */

struct seginfo {
	uint64_t num;
	uint64_t size;
	struct dqf_seg_hdr hdr;
};

enum { TK_INFLIGHT, TK_DONE, TK_UNTAKEN };

struct ticket {
	uint64_t id;
	uint64_t end_seg, end_off;
	int n;
	int state;
};

struct dq {
	struct queue *q;
	char *dir, *prefix, *qi_path;
	struct dq_crypto *cry;
	struct seginfo *segs;       /* present segments, ascending */
	size_t nsegs, capsegs;
	/* writer */
	int wfd;
	uint64_t wseg, woff;
	struct dqf_seg_hdr whdr;
	/* reader */
	bool rd_open;
	struct dqf_reader rd;
	struct dqf_seg_hdr rhdr;
	uint64_t rseg, roff;        /* next record to read */
	/* committed: everything before this is consumed */
	uint64_t cseg, coff;
	struct ticket *tk;
	size_t ntk, captk;
	uint64_t next_ticket;
	uint64_t count, bytes, since_ckpt;
	struct sbuf wbuf, ser, enc;
};

static char *seg_path(const struct dq *d, uint64_t num)
{
	char *p;
	if (asprintf(&p, "%s/%s.%08llu", d->dir, d->prefix, (unsigned long long)num) < 0)
		return NULL;
	return p;
}

static void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static void update_stats(struct dq *d)
{
	atomic_store(&d->q->stats.disk_size, d->count);
	atomic_store(&d->q->stats.disk_bytes, d->bytes);
}

static struct seginfo *seg_find(struct dq *d, uint64_t num)
{
	for (size_t i = 0; i < d->nsegs; i++)
		if (d->segs[i].num == num)
			return &d->segs[i];
	return NULL;
}

static struct seginfo *seg_add(struct dq *d, uint64_t num)
{
	if (d->nsegs == d->capsegs) {
		size_t nc = d->capsegs ? d->capsegs * 2 : 16;
		struct seginfo *ns = realloc(d->segs, nc * sizeof(*ns));
		if (!ns)
			return NULL;
		d->segs = ns;
		d->capsegs = nc;
	}
	size_t i = d->nsegs;
	while (i > 0 && d->segs[i - 1].num > num) {
		d->segs[i] = d->segs[i - 1];
		i--;
	}
	memset(&d->segs[i], 0, sizeof(d->segs[i]));
	d->segs[i].num = num;
	d->nsegs++;
	return &d->segs[i];
}

static void seg_remove_idx(struct dq *d, size_t i)
{
	memmove(d->segs + i, d->segs + i + 1, (d->nsegs - i - 1) * sizeof(*d->segs));
	d->nsegs--;
}

static bool write_state(struct dq *d)
{
	struct dqf_state st = { d->cseg, d->coff, d->count };
	unsigned char b[DQF_QI_SIZE];
	dqf_state_encode(&st, b);
	char *tmp;
	if (asprintf(&tmp, "%s.tmp", d->qi_path) < 0)
		return false;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	bool ok = fd >= 0 && write(fd, b, sizeof(b)) == (ssize_t)sizeof(b) && fsync(fd) == 0;
	if (fd >= 0)
		ok = close(fd) == 0 && ok;
	if (ok && rename(tmp, d->qi_path) != 0)
		ok = false;
	if (!ok) {
		sl_err("queue %s: cannot write state file %s: %s", d->q->name, d->qi_path,
		       strerror(errno));
		unlink(tmp);
	} else {
		fsync_dir(d->dir);
	}
	free(tmp);
	d->since_ckpt = 0;
	return ok;
}

/* Verify one segment from `off` at start: count its records, report
 * corrupt spans. Returns false when the segment cannot be used at all. */
static bool scan_segment(struct dq *d, struct seginfo *s, uint64_t off, uint64_t *records)
{
	char *path = seg_path(d, s->num);
	struct dqf_reader r;
	*records = 0;
	if (!path || dqf_reader_open(&r, path, 0) != SL_OK) {
		sl_err("queue %s: cannot open %s: %s", d->q->name, path ? path : "?", strerror(errno));
		free(path);
		return false;
	}
	s->size = r.fsize;
	const unsigned char *h = dqf_reader_need(&r, 0, DQF_SEG_HDR);
	const char *why = "file shorter than a segment header";
	if (!h || !dqf_seg_hdr_decode(h, &s->hdr, &why)) {
		sl_err("queue %s: %s, offset 0: %s; the file is left in place and not used",
		       d->q->name, path, why);
		atomic_fetch_add(&d->q->stats.disk_corrupt, 1);
		goto fail;
	}
	if (s->hdr.flags & DQF_SEG_ENCRYPTED) {
		if (!d->cry) {
			sl_err("queue %s: %s is encrypted, but the queue has no queue.cry.provider "
			       "and key", d->q->name, path);
			goto fail_key;
		}
		if (!dq_crypto_seg_check(d->cry, &s->hdr)) {
			sl_err("queue %s: %s: wrong key (or algorithm/mode) for this encrypted "
			       "queue file; refusing to start the queue", d->q->name, path);
			goto fail_key;
		}
	}
	r.off = off > DQF_SEG_HDR ? off : DQF_SEG_HDR;
	if (r.off > r.fsize) {
		sl_err("queue %s: %s: the state file points to offset %llu beyond the end (%llu); "
		       "the segment is taken as consumed", d->q->name, path,
		       (unsigned long long)r.off, (unsigned long long)r.fsize);
		r.off = r.fsize;
	}
	for (;;) {
		const char *p;
		uint32_t len;
		uint64_t ro;
		enum dqf_next k = dqf_reader_next(&r, &p, &len, &ro);
		if (k == DQF_EOF)
			break;
		if (k == DQF_BAD) {
			sl_err("queue %s: %s, offset %llu: corrupt or torn data (%u bytes) skipped; "
			       "the queue goes on with the next intact record", d->q->name, path,
			       (unsigned long long)ro, len);
			atomic_fetch_add(&d->q->stats.disk_corrupt, 1);
			continue;
		}
		(*records)++;
	}
	dqf_reader_close(&r);
	free(path);
	return true;
fail_key:
	dqf_reader_close(&r);
	free(path);
	errno = EACCES;
	return false;
fail:
	dqf_reader_close(&r);
	free(path);
	errno = EINVAL;
	return false;
}

enum sl_rc dq_open(struct dq **out, struct queue *q)
{
	struct dq *d = calloc(1, sizeof(*d));
	if (!d)
		return SL_ERR_NOMEM;
	d->q = q;
	d->wfd = -1;
	const char *dir = q->cfg.spool_directory ? q->cfg.spool_directory
			  : glbl.work_directory ? glbl.work_directory : ".";
	d->dir = strdup(dir);
	d->prefix = strdup(q->cfg.filename ? q->cfg.filename : q->name);
	if (!d->dir || !d->prefix || asprintf(&d->qi_path, "%s/%s.qi", d->dir, d->prefix) < 0)
		goto nomem;
	if (!dq_crypto_create(&d->cry, &q->cfg, q->name))
		goto fail;

	struct stat st;
	if (stat(d->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		sl_err("queue %s: queue directory %s is not usable: %s (set queue.spoolDirectory "
		       "or global(workDirectory=...))", q->name, d->dir,
		       errno ? strerror(errno) : "not a directory");
		goto fail;
	}
	DIR *dh = opendir(d->dir);
	if (!dh) {
		sl_err("queue %s: cannot read %s: %s", q->name, d->dir, strerror(errno));
		goto fail;
	}
	size_t pl = strlen(d->prefix);
	struct dirent *de;
	while ((de = readdir(dh)) != NULL) {
		const char *n = de->d_name;
		if (strncmp(n, d->prefix, pl) != 0 || n[pl] != '.')
			continue;
		const char *num = n + pl + 1;
		size_t dl = strspn(num, "0123456789");
		if (dl < 8 || num[dl] != '\0')
			continue;
		if (!seg_add(d, strtoull(num, NULL, 10)))
			goto nomem_dir;
	}
	closedir(dh);

	/* Where consumption stopped. */
	bool have_state = false;
	int fd = open(d->qi_path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		unsigned char b[DQF_QI_SIZE];
		struct dqf_state s;
		ssize_t k = read(fd, b, sizeof(b));
		close(fd);
		if (k == (ssize_t)sizeof(b) && dqf_state_decode(b, &s)) {
			d->cseg = s.seg;
			d->coff = s.off;
			have_state = true;
		} else {
			sl_err("queue %s: state file %s, offset 0: corrupt or truncated; reading "
			       "from the oldest segment (messages may repeat, none is lost)",
			       q->name, d->qi_path);
			atomic_fetch_add(&q->stats.disk_corrupt, 1);
		}
	}
	if (!have_state || (d->nsegs && d->cseg < d->segs[0].num)) {
		d->cseg = d->nsegs ? d->segs[0].num : 1;
		d->coff = 0;
	}
	/* Segments before the committed one were consumed: remove them. */
	while (d->nsegs && d->segs[0].num < d->cseg) {
		char *p = seg_path(d, d->segs[0].num);
		if (p)
			unlink(p);
		free(p);
		seg_remove_idx(d, 0);
	}
	for (size_t i = 0; i < d->nsegs;) {
		uint64_t n;
		struct seginfo *s = &d->segs[i];
		if (!scan_segment(d, s, s->num == d->cseg ? d->coff : 0, &n)) {
			if (errno == EACCES)
				goto fail;
			seg_remove_idx(d, i);
			continue;
		}
		d->count += n;
		d->bytes += s->size;
		i++;
	}
	if (d->nsegs && d->cseg != d->segs[0].num) {
		d->cseg = d->segs[0].num;
		d->coff = 0;
	}
	d->rseg = d->cseg;
	d->roff = d->coff > DQF_SEG_HDR ? d->coff : DQF_SEG_HDR;
	d->wseg = d->nsegs ? d->segs[d->nsegs - 1].num + 1 : d->cseg;
	/* Bad segments left in place must never be overwritten. */
	for (;;) {
		char *p = seg_path(d, d->wseg);
		bool exists = p && access(p, F_OK) == 0;
		free(p);
		if (!exists)
			break;
		d->wseg++;
	}
	if (d->count) {
		sl_info("queue %s: %llu messages waiting in %zu segment file(s) of %s/%s",
			q->name, (unsigned long long)d->count, d->nsegs, d->dir, d->prefix);
	}
	atomic_store(&q->stats.loaded, d->count);
	update_stats(d);
	*out = d;
	return SL_OK;
nomem_dir:
	closedir(dh);
nomem:
	sl_err("queue %s: out of memory opening the disk queue", q->name);
fail:
	dq_crypto_destroy(d->cry);
	free(d->segs);
	free(d->dir);
	free(d->prefix);
	free(d->qi_path);
	free(d);
	return SL_ERR_IO;
}

uint64_t dq_count(const struct dq *d)
{
	return d->count;
}

/* Write what is staged in wbuf to the write segment. On failure the
 * segment is cut back to its last good size (no torn record). */
static bool flush_wbuf(struct dq *d)
{
	size_t done = 0;
	while (done < d->wbuf.len) {
		ssize_t k = write(d->wfd, d->wbuf.buf + done, d->wbuf.len - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = errno;
			if (ftruncate(d->wfd, (off_t)d->woff) != 0) {
				/* the reader still stops at the torn record */
			}
			sl_err("queue %s: cannot write segment %s.%08llu: %s", d->q->name, d->prefix,
			       (unsigned long long)d->wseg, strerror(e));
			atomic_fetch_add(&d->q->stats.disk_errors, 1);
			sbuf_reset(&d->wbuf);
			return false;
		}
		done += (size_t)k;
	}
	if (d->q->cfg.sync_queue_files)
		fdatasync(d->wfd);
	d->woff += d->wbuf.len;
	d->bytes += d->wbuf.len;
	struct seginfo *s = seg_find(d, d->wseg);
	if (s)
		s->size = d->woff;
	sbuf_reset(&d->wbuf);
	return true;
}

static void close_wseg(struct dq *d)
{
	if (d->wfd < 0)
		return;
	if (d->q->cfg.sync_queue_files)
		fsync(d->wfd);
	close(d->wfd);
	d->wfd = -1;
	d->wseg++;
}

static bool open_wseg(struct dq *d)
{
	for (int tries = 0; tries < 1000; tries++, d->wseg++) {
		char *p = seg_path(d, d->wseg);
		if (!p)
			return false;
		d->wfd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
		int e = errno;
		free(p);
		if (d->wfd >= 0)
			break;
		if (e != EEXIST) {
			sl_err("queue %s: cannot create segment %s/%s.%08llu: %s", d->q->name, d->dir,
			       d->prefix, (unsigned long long)d->wseg, strerror(e));
			atomic_fetch_add(&d->q->stats.disk_errors, 1);
			return false;
		}
	}
	if (d->wfd < 0)
		return false;
	memset(&d->whdr, 0, sizeof(d->whdr));
	d->whdr.version = DQF_VERSION;
	d->whdr.seg = d->wseg;
	if (d->cry && !dq_crypto_seg_init(d->cry, &d->whdr)) {
		close(d->wfd);
		d->wfd = -1;
		return false;
	}
	struct seginfo *s = seg_add(d, d->wseg);
	if (!s) {
		close(d->wfd);
		d->wfd = -1;
		return false;
	}
	s->hdr = d->whdr;
	unsigned char h[DQF_SEG_HDR];
	dqf_seg_hdr_encode(&d->whdr, h);
	d->woff = 0;
	sbuf_reset(&d->wbuf);
	sbuf_append(&d->wbuf, (const char *)h, sizeof(h));
	if (d->q->cfg.sync_queue_files)
		fsync_dir(d->dir);
	return true;
}

int dq_put(struct dq *d, struct msg **msgs, int n, bool *full)
{
	int staged = 0, written = 0;
	uint64_t maxf = d->q->cfg.max_file_size > 0 ? (uint64_t)d->q->cfg.max_file_size : 1024 * 1024;
	uint64_t maxd = d->q->cfg.max_disk_space > 0 ? (uint64_t)d->q->cfg.max_disk_space : 0;
	*full = false;
	for (int i = 0; i < n; i++) {
		sbuf_reset(&d->ser);
		if (!dqf_msg_serialize(&d->ser, msgs[i]))
			break;
		const char *pl = d->ser.buf;
		size_t plen = d->ser.len;
		if (d->cry) {
			sbuf_reset(&d->enc);
			if (!dq_crypto_encrypt(d->cry, &d->whdr, pl, plen, &d->enc))
				break;
			pl = d->enc.buf;
			plen = d->enc.len;
		}
		uint64_t rec = DQF_REC_HDR + plen;
		if (d->wfd >= 0 && d->woff + d->wbuf.len + rec > maxf &&
		    d->woff + d->wbuf.len > DQF_SEG_HDR) {
			if (!flush_wbuf(d))
				goto out;
			written = staged;
			close_wseg(d);
		}
		uint64_t hdr_cost = d->wfd < 0 ? DQF_SEG_HDR : 0;
		if (maxd && d->bytes + d->wbuf.len + rec + hdr_cost > maxd) {
			*full = true;
			atomic_fetch_add(&d->q->stats.disk_full, 1);
			break;
		}
		if (d->wfd < 0 && !open_wseg(d))
			break;
		if (!dqf_rec_append(&d->wbuf, pl, (uint32_t)plen))
			break;
		staged++;
	}
	if (d->wbuf.len && d->wfd >= 0 && flush_wbuf(d))
		written = staged;
out:
	d->count += (uint64_t)written;
	atomic_fetch_add(&d->q->stats.disk_written, (uint64_t)written);
	update_stats(d);
	return written;
}

static void report_bad(struct dq *d, uint64_t seg, uint64_t off, uint64_t len, const char *what)
{
	sl_err("queue %s: %s/%s.%08llu, offset %llu: %s (%llu bytes) skipped", d->q->name, d->dir,
	       d->prefix, (unsigned long long)seg, (unsigned long long)off, what,
	       (unsigned long long)len);
	atomic_fetch_add(&d->q->stats.disk_corrupt, 1);
}

static bool open_reader(struct dq *d)
{
	struct seginfo *s = NULL;
	for (size_t i = 0; i < d->nsegs; i++)
		if (d->segs[i].num >= d->rseg) {
			s = &d->segs[i];
			break;
		}
	if (!s)
		return false;
	if (s->num != d->rseg) {
		d->rseg = s->num;
		d->roff = DQF_SEG_HDR;
	}
	char *p = seg_path(d, s->num);
	if (!p || dqf_reader_open(&d->rd, p, d->roff) != SL_OK) {
		sl_err("queue %s: cannot open %s: %s", d->q->name, p ? p : "?", strerror(errno));
		free(p);
		return false;
	}
	free(p);
	d->rhdr = s->hdr;
	d->rd_open = true;
	return true;
}

int dq_take(struct dq *d, struct msg **out, int max, uint64_t *ticket)
{
	int got = 0;
	while (got < max && d->count > 0) {
		if (!d->rd_open && !open_reader(d)) {
			d->count = 0; /* nothing readable left */
			break;
		}
		const char *p;
		uint32_t len;
		uint64_t ro;
		enum dqf_next k = dqf_reader_next(&d->rd, &p, &len, &ro);
		d->roff = d->rd.off;
		if (k == DQF_EOF) {
			if (d->rseg >= d->wseg && d->wfd >= 0) {
				d->count = 0; /* the write segment: all read */
				break;
			}
			dqf_reader_close(&d->rd);
			d->rd_open = false;
			/* the next segment, if any */
			bool more = false;
			for (size_t i = 0; i < d->nsegs; i++)
				if (d->segs[i].num > d->rseg) {
					d->rseg = d->segs[i].num;
					more = true;
					break;
				}
			if (!more) {
				d->count = 0;
				break;
			}
			d->roff = DQF_SEG_HDR;
			continue;
		}
		if (k == DQF_BAD) {
			report_bad(d, d->rseg, ro, len, "corrupt or torn data");
			continue;
		}
		if (d->rhdr.flags & DQF_SEG_ENCRYPTED) {
			if (!d->cry || !dq_crypto_decrypt(d->cry, &d->rhdr, p, len, &d->enc)) {
				report_bad(d, d->rseg, ro, len, "record that does not decrypt");
				d->count--;
				continue;
			}
			p = d->enc.buf;
			len = (uint32_t)d->enc.len;
		}
		struct msg *m = dqf_msg_deserialize(p, len);
		d->count--;
		if (!m) {
			report_bad(d, d->rseg, ro, len, "record with a malformed message");
			continue;
		}
		out[got++] = m;
	}
	if (got) {
		if (d->ntk == d->captk) {
			size_t nc = d->captk ? d->captk * 2 : 8;
			struct ticket *nt = realloc(d->tk, nc * sizeof(*nt));
			if (!nt) {
				for (int i = 0; i < got; i++)
					msg_release(out[i]);
				return 0;
			}
			d->tk = nt;
			d->captk = nc;
		}
		struct ticket *t = &d->tk[d->ntk++];
		t->id = ++d->next_ticket;
		t->end_seg = d->rseg;
		t->end_off = d->roff;
		t->n = got;
		t->state = TK_INFLIGHT;
		*ticket = t->id;
		atomic_fetch_add(&d->q->stats.disk_read, (uint64_t)got);
	}
	update_stats(d);
	return got;
}

static void delete_consumed(struct dq *d)
{
	while (d->nsegs && d->segs[0].num < d->cseg) {
		if (d->rd_open && d->rseg == d->segs[0].num)
			break;
		char *p = seg_path(d, d->segs[0].num);
		if (p && unlink(p) != 0 && errno != ENOENT)
			sl_warn("queue %s: cannot remove %s: %s", d->q->name, p, strerror(errno));
		free(p);
		d->bytes -= d->segs[0].size < d->bytes ? d->segs[0].size : d->bytes;
		seg_remove_idx(d, 0);
	}
}

static void set_ticket(struct dq *d, uint64_t ticket, int state)
{
	for (size_t i = 0; i < d->ntk; i++)
		if (d->tk[i].id == ticket)
			d->tk[i].state = state;
	size_t k = 0;
	while (k < d->ntk && d->tk[k].state == TK_DONE) {
		d->cseg = d->tk[k].end_seg;
		d->coff = d->tk[k].end_off;
		d->since_ckpt += (uint64_t)d->tk[k].n;
		k++;
	}
	if (k) {
		memmove(d->tk, d->tk + k, (d->ntk - k) * sizeof(*d->tk));
		d->ntk -= k;
	}
	delete_consumed(d);
	if (d->q->cfg.checkpoint_interval > 0 &&
	    d->since_ckpt >= (uint64_t)d->q->cfg.checkpoint_interval)
		write_state(d);
	update_stats(d);
}

void dq_done(struct dq *d, uint64_t ticket)
{
	set_ticket(d, ticket, TK_DONE);
}

void dq_untake(struct dq *d, uint64_t ticket)
{
	/* Never committed: the state file keeps pointing before it, so the
	 * batch is read again after a restart. */
	set_ticket(d, ticket, TK_UNTAKEN);
}

void dq_close(struct dq *d)
{
	if (!d)
		return;
	if (d->wbuf.len && d->wfd >= 0)
		flush_wbuf(d);
	if (d->wfd >= 0) {
		fsync(d->wfd);
		close(d->wfd);
		d->wfd = -1;
	}
	if (d->rd_open)
		dqf_reader_close(&d->rd);
	d->rd_open = false;
	bool pending = d->ntk > 0;
	if (d->count == 0 && !pending) {
		for (size_t i = 0; i < d->nsegs; i++) {
			char *p = seg_path(d, d->segs[i].num);
			if (p)
				unlink(p);
			free(p);
		}
		unlink(d->qi_path);
		d->nsegs = 0;
		d->bytes = 0;
	} else {
		if (!pending && d->nsegs && d->cseg < d->segs[0].num) {
			d->cseg = d->segs[0].num;
			d->coff = 0;
		}
		uint64_t kept = d->count;
		for (size_t i = 0; i < d->ntk; i++)
			kept += (uint64_t)d->tk[i].n;
		write_state(d);
		sl_info("queue %s: %llu messages kept in %s/%s.* for the next start", d->q->name,
			(unsigned long long)kept, d->dir, d->prefix);
	}
	update_stats(d);
	dq_crypto_destroy(d->cry);
	free(d->segs);
	free(d->tk);
	free(d->dir);
	free(d->prefix);
	free(d->qi_path);
	sbuf_free(&d->wbuf);
	sbuf_free(&d->ser);
	sbuf_free(&d->enc);
	free(d);
}
