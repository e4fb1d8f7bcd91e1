/* omkafka_store.c — where omkafka keeps what it could not deliver: record
 * lists in memory (a byte arena per list, no allocation per message), the
 * failedMsgFile that carries undelivered messages across a restart, the
 * errorFile (JSON lines, one per message that failed for good) and the
 * statsFile (librdkafka's statistics JSON, one document per line).
 *
 * Threading: see omkafka.h. rec_* functions have no locks (their list has
 * one owner); kfile_* take the file's mutex; failed_load/failed_save run
 * at start and at shutdown on the thread that starts/destroys the action.
 */
#include "omkafka.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- record lists ---- */

static inline size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

bool rec_add(struct rec_list *l, const char *topic, size_t topic_len, const void *key,
	     size_t key_len, const void *payload, size_t payload_len, int32_t partition,
	     int64_t ts_ms, int32_t err)
{
	size_t kl = key ? key_len : 0;
	size_t need = sizeof(struct rec_hdr) + pad8(topic_len + kl + payload_len);
	if (topic_len > UINT32_MAX || kl >= REC_NO_KEY || payload_len > UINT32_MAX)
		return false;
	if (l->buf.cap - l->buf.len < need && !sbuf_grow(&l->buf, need))
		return false;
	struct rec_hdr h = {
		.payload_len = (uint32_t)payload_len,
		.key_len = key ? (uint32_t)kl : REC_NO_KEY,
		.topic_len = (uint32_t)topic_len,
		.partition = partition,
		.ts_ms = ts_ms,
		.err = err,
	};
	char *p = l->buf.buf + l->buf.len;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	memcpy(p, topic, topic_len);
	p += topic_len;
	if (kl)
		memcpy(p, key, kl);
	p += kl;
	if (payload_len)
		memcpy(p, payload, payload_len);
	l->buf.len += need;
	l->n++;
	return true;
}

bool rec_next(const struct rec_list *l, size_t *off, struct rec *r)
{
	if (*off >= l->buf.len)
		return false;
	const char *p = l->buf.buf + *off;
	r->h = (const struct rec_hdr *)p;
	size_t kl = r->h->key_len == REC_NO_KEY ? 0 : r->h->key_len;
	r->topic = p + sizeof(struct rec_hdr);
	r->key = r->h->key_len == REC_NO_KEY ? NULL : r->topic + r->h->topic_len;
	r->payload = r->topic + r->h->topic_len + kl;
	*off += sizeof(struct rec_hdr) + pad8(r->h->topic_len + kl + r->h->payload_len);
	return true;
}

bool rec_append_all(struct rec_list *dst, const struct rec_list *src)
{
	if (!sbuf_append(&dst->buf, src->buf.buf, src->buf.len))
		return false;
	dst->n += src->n;
	return true;
}

void rec_free(struct rec_list *l)
{
	sbuf_free(&l->buf);
	l->n = 0;
}

/* ---- files ---- */

void kfile_init(struct kafka_file *f, const char *path)
{
	pthread_mutex_init(&f->mtx, NULL);
	f->path = path ? sl_xstrdup(path) : NULL;
	f->fd = -1;
}

void kfile_fini(struct kafka_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	free(f->path);
	f->path = NULL;
	pthread_mutex_destroy(&f->mtx);
}

void kfile_reopen(struct kafka_file *f)
{
	pthread_mutex_lock(&f->mtx);
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	pthread_mutex_unlock(&f->mtx);
}

void kfile_write_line(struct kafka_file *f, const char *line, size_t len)
{
	if (!f->path)
		return;
	pthread_mutex_lock(&f->mtx);
	if (f->fd < 0) {
		f->fd = open(f->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
		if (f->fd < 0) {
			int e = errno;
			pthread_mutex_unlock(&f->mtx);
			sl_err("omkafka: cannot open %s: %s", f->path, strerror(e));
			return;
		}
	}
	/* the caller's buffer has room for the LF only by copying; lines are
	 * rare (errors, statistics), so two iovecs would be no faster */
	char *buf = malloc(len + 1);
	if (buf) {
		memcpy(buf, line, len);
		buf[len] = '\n';
		if (write(f->fd, buf, len + 1) != (ssize_t)(len + 1))
			sl_err("omkafka: write to %s failed: %s", f->path, strerror(errno));
		free(buf);
	}
	pthread_mutex_unlock(&f->mtx);
}

/* JSON string escaping (RFC 8259): quotes, backslash, control chars. */
static bool json_str(struct sbuf *sb, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	bool ok = sbuf_putc(sb, '"');
	for (size_t i = 0; ok && i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': ok = sbuf_append(sb, "\\\"", 2); break;
		case '\\': ok = sbuf_append(sb, "\\\\", 2); break;
		case '\n': ok = sbuf_append(sb, "\\n", 2); break;
		case '\r': ok = sbuf_append(sb, "\\r", 2); break;
		case '\t': ok = sbuf_append(sb, "\\t", 2); break;
		case '\b': ok = sbuf_append(sb, "\\b", 2); break;
		case '\f': ok = sbuf_append(sb, "\\f", 2); break;
		default:
			if (c < 0x20) {
				char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
				ok = sbuf_append(sb, u, 6);
			} else {
				ok = sbuf_putc(sb, (char)c);
			}
		}
	}
	return ok && sbuf_putc(sb, '"');
}

void errfile_write(struct kafka_file *f, const char *topic, size_t topic_len,
		   const char *key, size_t key_len, const char *payload, size_t len, int err,
		   const char *errmsg)
{
	if (!f->path)
		return;
	struct sbuf sb = SBUF_INIT;
	char num[32];
	int nl = snprintf(num, sizeof(num), "%d", err);
	bool ok = sbuf_puts(&sb, "{\"errcode\":") && sbuf_append(&sb, num, (size_t)nl) &&
		  sbuf_puts(&sb, ",\"errmsg\":") && json_str(&sb, errmsg, strlen(errmsg)) &&
		  sbuf_puts(&sb, ",\"topic\":") && json_str(&sb, topic, topic_len);
	if (ok && key)
		ok = sbuf_puts(&sb, ",\"key\":") && json_str(&sb, key, key_len);
	ok = ok && sbuf_puts(&sb, ",\"data\":") && json_str(&sb, payload, len) && sbuf_putc(&sb, '}');
	if (ok)
		kfile_write_line(f, sb.buf, sb.len);
	sbuf_free(&sb);
}

/* ---- failedMsgFile ---- */

#define FAILED_MAGIC "#sluice-omkafka-failed v1"

/* Escape TAB, LF, CR and backslash so a record is one line. */
static bool esc(struct sbuf *sb, const char *s, size_t n)
{
	bool ok = true;
	for (size_t i = 0; ok && i < n; i++) {
		switch (s[i]) {
		case '\\': ok = sbuf_append(sb, "\\\\", 2); break;
		case '\t': ok = sbuf_append(sb, "\\t", 2); break;
		case '\n': ok = sbuf_append(sb, "\\n", 2); break;
		case '\r': ok = sbuf_append(sb, "\\r", 2); break;
		default: ok = sbuf_putc(sb, s[i]);
		}
	}
	return ok;
}

/* Unescape in place; returns the new length. */
static size_t unesc(char *s, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			char c = s[++i];
			s[o++] = c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
		} else {
			s[o++] = s[i];
		}
	}
	return o;
}

/* One line of sluice's format: TOPIC TAB PARTITION TAB TS TAB KEYFIELD TAB
 * PAYLOAD, KEYFIELD "-" (no key) or "=" KEY; fields escaped. */
static bool parse_v1(char *line, size_t len, struct rec_list *out)
{
	char *f[5];
	size_t fl[5];
	int nf = 0;
	char *p = line, *end = line + len;
	while (nf < 5) {
		char *t = nf < 4 ? memchr(p, '\t', (size_t)(end - p)) : NULL;
		f[nf] = p;
		fl[nf] = (size_t)((t ? t : end) - p);
		nf++;
		if (!t)
			break;
		p = t + 1;
	}
	if (nf != 5 || (fl[3] == 0) || (f[3][0] != '-' && f[3][0] != '='))
		return false;
	char tmp[32];
	if (fl[1] >= sizeof(tmp) || fl[2] >= sizeof(tmp))
		return false;
	memcpy(tmp, f[1], fl[1]);
	tmp[fl[1]] = '\0';
	long part = strtol(tmp, NULL, 10);
	memcpy(tmp, f[2], fl[2]);
	tmp[fl[2]] = '\0';
	long long ts = strtoll(tmp, NULL, 10);
	fl[0] = unesc(f[0], fl[0]);
	bool has_key = f[3][0] == '=';
	size_t kl = has_key ? unesc(f[3] + 1, fl[3] - 1) : 0;
	fl[4] = unesc(f[4], fl[4]);
	return rec_add(out, f[0], fl[0], has_key ? f[3] + 1 : NULL, kl, f[4], fl[4], (int32_t)part,
		       ts, 0);
}

long failed_load(const char *path, struct rec_list *out)
{
	FILE *fp = fopen(path, "re");
	if (!fp) {
		if (errno == ENOENT)
			return 0;
		sl_err("omkafka: cannot read failedMsgFile %s: %s; its messages are not resent",
		       path, strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long loaded = 0, bad = 0;
	bool v1 = false, first = true;
	while ((n = getline(&line, &cap, fp)) > 0) {
		size_t len = (size_t)n;
		if (line[len - 1] == '\n')
			len--;
		if (first) {
			first = false;
			if (len == strlen(FAILED_MAGIC) && !memcmp(line, FAILED_MAGIC, len)) {
				v1 = true;
				continue;
			}
		}
		if (len == 0)
			continue;
		bool ok;
		if (v1) {
			ok = parse_v1(line, len, out);
		} else {
			/* rsyslog: TOPIC TAB PAYLOAD (payload without its LF) */
			char *tab = memchr(line, '\t', len);
			ok = tab && rec_add(out, line, (size_t)(tab - line), NULL, 0, tab + 1,
					    len - (size_t)(tab - line) - 1, REC_PARTITION_AUTO, 0, 0);
		}
		if (ok)
			loaded++;
		else
			bad++;
	}
	free(line);
	fclose(fp);
	if (bad)
		sl_err("omkafka: failedMsgFile %s: %ld malformed line(s) skipped", path, bad);
	return loaded;
}

bool failed_save(const char *path, const struct rec_list *const *lists, int n)
{
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += lists[i]->n;
	if (total == 0) {
		if (unlink(path) != 0 && errno != ENOENT) {
			sl_err("omkafka: cannot remove failedMsgFile %s: %s", path, strerror(errno));
			return false;
		}
		return true;
	}
	size_t pl = strlen(path);
	char *tmp = malloc(pl + 8);
	if (!tmp)
		return false;
	memcpy(tmp, path, pl);
	memcpy(tmp + pl, ".tmp", 5);
	FILE *fp = fopen(tmp, "we");
	if (!fp) {
		sl_err("omkafka: cannot write failedMsgFile %s: %s; %zu undelivered messages are lost",
		       tmp, strerror(errno), total);
		free(tmp);
		return false;
	}
	struct sbuf sb = SBUF_INIT;
	bool ok = fprintf(fp, "%s\n", FAILED_MAGIC) > 0;
	for (int i = 0; ok && i < n; i++) {
		size_t off = 0;
		struct rec r;
		while (ok && rec_next(lists[i], &off, &r)) {
			char num[64];
			int nl = snprintf(num, sizeof(num), "\t%d\t%lld\t", (int)r.h->partition,
					  (long long)r.h->ts_ms);
			sbuf_reset(&sb);
			ok = esc(&sb, r.topic, r.h->topic_len) && sbuf_append(&sb, num, (size_t)nl);
			if (ok && r.key)
				ok = sbuf_putc(&sb, '=') && esc(&sb, r.key, r.h->key_len);
			else if (ok)
				ok = sbuf_putc(&sb, '-');
			ok = ok && sbuf_putc(&sb, '\t') && esc(&sb, r.payload, r.h->payload_len) &&
			     sbuf_putc(&sb, '\n');
			ok = ok && fwrite(sb.buf, 1, sb.len, fp) == sb.len;
		}
	}
	sbuf_free(&sb);
	ok = ok && fflush(fp) == 0 && fsync(fileno(fp)) == 0;
	if (fclose(fp) != 0)
		ok = false;
	if (ok && rename(tmp, path) != 0)
		ok = false;
	if (!ok) {
		sl_err("omkafka: cannot write failedMsgFile %s: %s; %zu undelivered messages are lost",
		       path, strerror(errno), total);
		unlink(tmp);
	}
	free(tmp);
	return ok;
}
