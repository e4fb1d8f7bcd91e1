/* queue_disk.c — the disk part of Disk and disk-assisted queues: segment
 * files of versioned, CRC32-checked records, the atomically written .qi
 * state file, recovery from torn or corrupt files, maxDiskSpace, message
 * serialization and encryption at rest (libgcrypt, as rsyslog's
 * lmcry_gcry). The byte layout is in queue_disk.h and doc/queues.md.
 *
 * Threading: struct dq has no lock of its own; every dq_* call comes with
 * the owning queue's mutex held, so reads and writes of the segment files
 * are serialized. The dqf_* format helpers are stateless and also used by
 * tools/sluice-queue.
 */
#include "queue_disk.h"
#include "queue.h"
#include "glbl.h"
#include "log.h"
#include "msg.h"
#include "parser.h"
#include "ruleset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HAVE_GCRYPT
#include <gcrypt.h>
#endif

/* ---- little-endian helpers ---- */
static void put16(unsigned char *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }
static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
static uint16_t get16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}
static uint32_t crc(const void *p, size_t n)
{
	return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

/* ---- format ---- */

void dqf_seg_hdr_encode(const struct dqf_seg_hdr *h, unsigned char out[DQF_SEG_HDR])
{
	memset(out, 0, DQF_SEG_HDR);
	memcpy(out, DQF_SEG_MAGIC, 8);
	put16(out + 8, h->version);
	put16(out + 10, h->flags);
	put64(out + 16, h->seg);
	put16(out + 24, h->algo);
	put16(out + 26, h->mode);
	memcpy(out + 28, h->iv, 16);
	memcpy(out + 44, h->check, 32);
	put32(out + 76, crc(out, 76));
}

bool dqf_seg_hdr_decode(const unsigned char in[DQF_SEG_HDR], struct dqf_seg_hdr *h,
			const char **why)
{
	if (memcmp(in, DQF_SEG_MAGIC, 8) != 0) {
		*why = "not a sluice queue segment (bad magic)";
		return false;
	}
	if (get32(in + 76) != crc(in, 76)) {
		*why = "segment header CRC mismatch";
		return false;
	}
	h->version = get16(in + 8);
	h->flags = get16(in + 10);
	h->seg = get64(in + 16);
	h->algo = get16(in + 24);
	h->mode = get16(in + 26);
	memcpy(h->iv, in + 28, 16);
	memcpy(h->check, in + 44, 32);
	if (h->version < 1 || h->version > DQF_VERSION) {
		*why = "segment format version not supported";
		return false;
	}
	return true;
}

void dqf_state_encode(const struct dqf_state *s, unsigned char out[DQF_QI_SIZE])
{
	memset(out, 0, DQF_QI_SIZE);
	memcpy(out, DQF_QI_MAGIC, 8);
	put16(out + 8, DQF_VERSION);
	put64(out + 16, s->seg);
	put64(out + 24, s->off);
	put64(out + 32, s->records);
	put32(out + 60, crc(out, 60));
}

bool dqf_state_decode(const unsigned char in[DQF_QI_SIZE], struct dqf_state *s)
{
	if (memcmp(in, DQF_QI_MAGIC, 8) != 0 || get32(in + 60) != crc(in, 60))
		return false;
	if (get16(in + 8) < 1 || get16(in + 8) > DQF_VERSION)
		return false;
	s->seg = get64(in + 16);
	s->off = get64(in + 24);
	s->records = get64(in + 32);
	return true;
}

bool dqf_rec_append(struct sbuf *sb, const void *payload, uint32_t len)
{
	unsigned char h[DQF_REC_HDR];
	put32(h, DQF_REC_MAGIC);
	put32(h + 4, len);
	put32(h + 8, crc(payload, len));
	put32(h + 12, crc(h, 12));
	return sbuf_append(sb, (const char *)h, sizeof(h)) &&
	       sbuf_append(sb, payload, len);
}

enum sl_rc dqf_reader_open(struct dqf_reader *r, const char *path, uint64_t off)
{
	memset(r, 0, sizeof(*r));
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0)
		return SL_ERR_IO;
	struct stat st;
	if (fstat(r->fd, &st) != 0) {
		close(r->fd);
		r->fd = -1;
		return SL_ERR_IO;
	}
	r->fsize = (uint64_t)st.st_size;
	r->off = off ? off : DQF_SEG_HDR;
	r->cap = 256 * 1024;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		close(r->fd);
		r->fd = -1;
		return SL_ERR_NOMEM;
	}
	return SL_OK;
}

void dqf_reader_close(struct dqf_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->buf);
	r->buf = NULL;
}

/* Make [off, off+n) available in the buffer; NULL if beyond the file. */
static const unsigned char *rd_need(struct dqf_reader *r, uint64_t off, size_t n)
{
	if (off + n > r->fsize) {
		struct stat st;
		if (fstat(r->fd, &st) == 0)
			r->fsize = (uint64_t)st.st_size;
		if (off + n > r->fsize)
			return NULL;
	}
	if (off >= r->base && off + n <= r->base + r->len)
		return (const unsigned char *)r->buf + (off - r->base);
	if (n > r->cap) {
		size_t nc = r->cap;
		while (nc < n)
			nc *= 2;
		char *nb = realloc(r->buf, nc);
		if (!nb)
			return NULL;
		r->buf = nb;
		r->cap = nc;
	}
	size_t want = r->cap;
	size_t got = 0;
	while (got < want) {
		ssize_t k = pread(r->fd, r->buf + got, want - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	r->base = off;
	r->len = got;
	if (got < n)
		return NULL;
	return (const unsigned char *)r->buf;
}

/* A valid record at off? (header CRC, sane length, payload CRC) */
static bool rec_valid(struct dqf_reader *r, uint64_t off, uint32_t *len_out)
{
	const unsigned char *h = rd_need(r, off, DQF_REC_HDR);
	if (!h || get32(h) != DQF_REC_MAGIC || get32(h + 12) != crc(h, 12))
		return false;
	uint32_t len = get32(h + 4);
	uint32_t pc = get32(h + 8);
	if (len > DQF_MAX_REC)
		return false;
	const unsigned char *p = rd_need(r, off + DQF_REC_HDR, len);
	if (!p || crc(p, len) != pc)
		return false;
	*len_out = len;
	return true;
}

enum dqf_next dqf_reader_next(struct dqf_reader *r, const char **payload, uint32_t *len,
			      uint64_t *rec_off)
{
	uint32_t l;
	if (r->off >= r->fsize) {
		struct stat st;
		if (fstat(r->fd, &st) == 0)
			r->fsize = (uint64_t)st.st_size;
		if (r->off >= r->fsize)
			return DQF_EOF;
	}
	if (rec_valid(r, r->off, &l)) {
		*payload = r->buf + (r->off + DQF_REC_HDR - r->base);
		*len = l;
		*rec_off = r->off;
		r->off += DQF_REC_HDR + (uint64_t)l;
		return DQF_REC;
	}
	/* Corrupt or torn: find the next valid record. */
	uint64_t bad = r->off;
	uint64_t o = r->off + 1;
	for (; o + DQF_REC_HDR <= r->fsize; o++) {
		const unsigned char *b = rd_need(r, o, 4);
		if (!b)
			break;
		if (get32(b) == DQF_REC_MAGIC && rec_valid(r, o, &l))
			break;
	}
	if (o + DQF_REC_HDR > r->fsize)
		o = r->fsize;
	*rec_off = bad;
	*len = (uint32_t)(o - bad);
	r->off = o;
	return DQF_BAD;
}

/* ---- message serialization (payload version 1) ---- */

#define PAYLOAD_V1 1
#define PF_PARSED 1u
#define PF_INTERNAL 2u

static bool put_str(struct sbuf *sb, const char *s, size_t n, int width)
{
	unsigned char l[4];
	if (width == 2) {
		if (n > 0xffff)
			n = 0xffff;
		put16(l, (uint16_t)n);
	} else {
		put32(l, (uint32_t)n);
	}
	return sbuf_append(sb, (const char *)l, (size_t)width) && sbuf_append(sb, s ? s : "", n);
}

static size_t json_write(void *ptr, const char *buf, size_t n)
{
	return sbuf_append(ptr, buf, n) ? n : 0;
}

bool dqf_msg_serialize(struct sbuf *sb, const struct msg *m)
{
	unsigned char h[28];
	memset(h, 0, sizeof(h));
	h[0] = PAYLOAD_V1;
	h[1] = (m->flags & MSG_PARSED ? PF_PARSED : 0) | (m->flags & MSG_INTERNAL ? PF_INTERNAL : 0);
	put64(h + 4, (uint64_t)(int64_t)m->ttgen);
	const struct syslog_time *t = &m->t_received;
	put16(h + 12, (uint16_t)t->year);
	h[14] = t->month;
	h[15] = t->day;
	h[16] = t->hour;
	h[17] = t->minute;
	h[18] = t->second;
	h[19] = t->secfrac_digits;
	put32(h + 20, t->secfrac);
	h[24] = (unsigned char)t->off_mode;
	h[25] = t->off_hour;
	h[26] = t->off_minute;
	h[27] = t->valid;
	if (!sbuf_append(sb, (const char *)h, sizeof(h)))
		return false;
	const struct msg_origin *o = m->origin;
	const char *rs = m->ruleset ? m->ruleset->name : "";
	if (!put_str(sb, o ? o->fromhost : "", o ? o->fromhost_len : 0, 2) ||
	    !put_str(sb, o ? o->fromhost_ip : "", o ? o->fromhost_ip_len : 0, 2) ||
	    !put_str(sb, o ? o->inputname : "", o ? o->inputname_len : 0, 2) ||
	    !put_str(sb, rs, strlen(rs), 2) || !put_str(sb, m->raw, m->raw_len, 4))
		return false;
	size_t at = sb->len;
	if (!put_str(sb, "", 0, 4))
		return false;
	if (m->json) {
		size_t start = sb->len;
		fjson_object_dump_ext(m->json, FJSON_TO_STRING_PLAIN, json_write, sb);
		put32((unsigned char *)sb->buf + at, (uint32_t)(sb->len - start));
	}
	return true;
}

struct rd {
	const unsigned char *p;
	size_t len, off;
};

static bool get_str(struct rd *r, int width, const char **s, size_t *n)
{
	if (r->off + (size_t)width > r->len)
		return false;
	size_t l = width == 2 ? get16(r->p + r->off) : get32(r->p + r->off);
	r->off += (size_t)width;
	if (r->off + l > r->len)
		return false;
	*s = (const char *)r->p + r->off;
	*n = l;
	r->off += l;
	return true;
}

/* Input names of loaded messages must outlive them (msg_origin keeps a
 * borrowed pointer): intern them for the life of the process. */
static pthread_mutex_t intern_mtx = PTHREAD_MUTEX_INITIALIZER;
static char *interned[64];

static const char *intern_name(const char *s, size_t n)
{
	const char *res = "";
	pthread_mutex_lock(&intern_mtx);
	for (size_t i = 0; i < SL_ARRAY_SIZE(interned); i++) {
		if (!interned[i]) {
			interned[i] = strndup(s, n);
			res = interned[i] ? interned[i] : "";
			break;
		}
		if (strlen(interned[i]) == n && memcmp(interned[i], s, n) == 0) {
			res = interned[i];
			break;
		}
	}
	pthread_mutex_unlock(&intern_mtx);
	return res;
}

/* The origin of the previous loaded message, reused when equal (records
 * of one sender come in runs), so that loading is not one origin a
 * message. */
static __thread struct msg_origin *last_origin;

static struct msg_origin *origin_for(const char *fh, size_t fhl, const char *ip, size_t ipl,
				     const char *in, size_t inl)
{
	struct msg_origin *o = last_origin;
	if (o && o->fromhost_len == fhl && !memcmp(o->fromhost, fh, fhl) &&
	    o->fromhost_ip_len == ipl && !memcmp(o->fromhost_ip, ip, ipl) &&
	    o->inputname_len == inl && !memcmp(o->inputname, in, inl))
		return o;
	char *a = strndup(fh, fhl), *b = strndup(ip, ipl);
	struct msg_origin *no = a && b ? msg_origin_create(a, b, intern_name(in, inl), NULL) : NULL;
	free(a);
	free(b);
	if (!no)
		return o;
	if (last_origin)
		msg_origin_release(last_origin);
	last_origin = no;
	return no;
}

static struct msg *deserialize(const char *p, size_t len, bool describe_only, struct sbuf *desc)
{
	struct rd r = { (const unsigned char *)p, len, 28 };
	if (len < 28 || r.p[0] != PAYLOAD_V1)
		return NULL;
	unsigned flags = r.p[1];
	time_t ttgen = (time_t)(int64_t)get64(r.p + 4);
	struct syslog_time t;
	memset(&t, 0, sizeof(t));
	t.year = (int16_t)get16(r.p + 12);
	t.month = r.p[14];
	t.day = r.p[15];
	t.hour = r.p[16];
	t.minute = r.p[17];
	t.second = r.p[18];
	t.secfrac_digits = r.p[19];
	t.secfrac = get32(r.p + 20);
	t.off_mode = (char)r.p[24];
	t.off_hour = r.p[25];
	t.off_minute = r.p[26];
	t.valid = r.p[27];
	const char *fh, *ip, *in, *rs, *raw, *js;
	size_t fhl, ipl, inl, rsl, rawl, jsl;
	if (!get_str(&r, 2, &fh, &fhl) || !get_str(&r, 2, &ip, &ipl) || !get_str(&r, 2, &in, &inl) ||
	    !get_str(&r, 2, &rs, &rsl) || !get_str(&r, 4, &raw, &rawl) || !get_str(&r, 4, &js, &jsl))
		return NULL;
	if (describe_only) {
		char line[256];
		snprintf(line, sizeof(line), "time=%04d-%02d-%02dT%02d:%02d:%02d fromhost=%.*s "
			 "fromhost-ip=%.*s inputname=%.*s ruleset=%.*s json=%zu raw=", t.year, t.month,
			 t.day, t.hour, t.minute, t.second, (int)fhl, fh, (int)ipl, ip, (int)inl, in,
			 (int)rsl, rs, jsl);
		sbuf_puts(desc, line);
		sbuf_append(desc, raw, rawl);
		return (struct msg *)desc; /* non-NULL: ok */
	}
	struct msg_origin *o = origin_for(fh, fhl, ip, ipl, in, inl);
	struct msg *m = msg_create(raw, rawl, o, &t, ttgen);
	if (!m)
		return NULL;
	if (rsl) {
		char name[256];
		snprintf(name, sizeof(name), "%.*s", (int)(rsl < 255 ? rsl : 255), rs);
		m->ruleset = ruleset_lookup(name);
		if (!m->ruleset)
			sl_warn("disk queue: message for ruleset '%s', which this configuration "
				"does not have; it runs in the default ruleset", name);
	} else {
		m->ruleset = NULL;
	}
	if (flags & PF_INTERNAL)
		m->flags |= MSG_INTERNAL;
	if (jsl) {
		char *tmp = strndup(js, jsl);
		if (tmp) {
			m->json = fjson_tokener_parse(tmp);
			free(tmp);
		}
	}
	if (flags & PF_PARSED)
		parser_parse(m);
	return m;
}

struct msg *dqf_msg_deserialize(const char *p, size_t len)
{
	return deserialize(p, len, false, NULL);
}

bool dqf_msg_describe(const char *p, size_t len, struct sbuf *out)
{
	return deserialize(p, len, true, out) != NULL;
}

/* ---- encryption ---- */

#ifdef HAVE_GCRYPT
struct dq_crypto {
	gcry_cipher_hd_t hd;
	int algo, mode;
	size_t blk, keylen;
	bool pad;        /* block modes (CBC, ECB) pad with PKCS#7 */
	bool iv;         /* the mode takes an IV */
};

static const char key_check_text[32] = "sluice-queue-key-check-v1.......";

static const struct {
	const char *name;
	int mode;
} cry_modes[] = {
	{ "CBC", GCRY_CIPHER_MODE_CBC }, { "ECB", GCRY_CIPHER_MODE_ECB },
	{ "CFB", GCRY_CIPHER_MODE_CFB }, { "OFB", GCRY_CIPHER_MODE_OFB },
	{ "CTR", GCRY_CIPHER_MODE_CTR }, { "STREAM", GCRY_CIPHER_MODE_STREAM },
};

static pthread_once_t gcry_once = PTHREAD_ONCE_INIT;
static bool gcry_ok;

static void gcry_init_once(void)
{
	gcry_ok = gcry_check_version(GCRYPT_VERSION) != NULL;
	gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
}

static bool gcry_ready(void)
{
	pthread_once(&gcry_once, gcry_init_once);
	return gcry_ok;
}

static bool read_keyfile(const char *path, char **key, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char buf[1024];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	*key = malloc(n + 1);
	if (!*key)
		return false;
	memcpy(*key, buf, n);
	*len = n;
	return true;
}

bool dq_crypto_create(struct dq_crypto **out, const struct queue_cfg *c, const char *qname)
{
	*out = NULL;
	if (!c->cry_provider)
		return true;
	if (strcasecmp(c->cry_provider, "gcry") != 0) {
		sl_err("queue %s: queue.cry.provider '%s' is not known; expected \"gcry\"", qname,
		       c->cry_provider);
		return false;
	}
	if (!gcry_ready()) {
		sl_err("queue %s: libgcrypt could not be initialised", qname);
		return false;
	}
	const char *an = c->cry_algo ? c->cry_algo : "AES128";
	int algo = gcry_cipher_map_name(an);
	if (!algo) {
		sl_err("queue %s: queue.cry.algo '%s' is not known to libgcrypt", qname, an);
		return false;
	}
	const char *mn = c->cry_mode ? c->cry_mode : "CBC";
	int mode = -1;
	for (size_t i = 0; i < SL_ARRAY_SIZE(cry_modes); i++)
		if (!strcasecmp(mn, cry_modes[i].name))
			mode = cry_modes[i].mode;
	if (mode < 0) {
		sl_err("queue %s: queue.cry.mode '%s' is not supported; expected CBC, ECB, CFB, "
		       "OFB, CTR or STREAM", qname, mn);
		return false;
	}
	char *key = NULL;
	size_t klen = 0;
	if (c->cry_key) {
		key = strdup(c->cry_key);
		klen = key ? strlen(key) : 0;
	} else if (c->cry_keyfile) {
		if (!read_keyfile(c->cry_keyfile, &key, &klen)) {
			sl_err("queue %s: cannot read queue.cry.keyfile %s: %s", qname, c->cry_keyfile,
			       strerror(errno));
			return false;
		}
	} else {
		sl_err("queue %s: queue.cry.provider=\"gcry\" needs queue.cry.key or "
		       "queue.cry.keyfile", qname);
		return false;
	}
	struct dq_crypto *cr = calloc(1, sizeof(*cr));
	if (!cr) {
		free(key);
		return false;
	}
	cr->algo = algo;
	cr->mode = mode;
	cr->blk = gcry_cipher_get_algo_blklen(algo);
	cr->keylen = gcry_cipher_get_algo_keylen(algo);
	cr->pad = mode == GCRY_CIPHER_MODE_CBC || mode == GCRY_CIPHER_MODE_ECB;
	cr->iv = mode != GCRY_CIPHER_MODE_ECB && mode != GCRY_CIPHER_MODE_STREAM;
	if (klen != cr->keylen) {
		sl_err("queue %s: the key is %zu bytes long, algorithm %s needs %zu", qname, klen, an,
		       cr->keylen);
		goto fail;
	}
	if (cr->blk > 16 || gcry_cipher_open(&cr->hd, algo, mode, 0) != 0 ||
	    gcry_cipher_setkey(cr->hd, key, klen) != 0) {
		sl_err("queue %s: cannot set up cipher %s/%s", qname, an, mn);
		goto fail;
	}
	memset(key, 0, klen);
	free(key);
	*out = cr;
	return true;
fail:
	memset(key, 0, klen);
	free(key);
	free(cr);
	return false;
}

void dq_crypto_destroy(struct dq_crypto *cr)
{
	if (!cr)
		return;
	gcry_cipher_close(cr->hd);
	free(cr);
}

static bool crypt_buf(struct dq_crypto *cr, bool enc, const void *iv, void *buf, size_t n)
{
	gcry_cipher_reset(cr->hd);
	if (cr->iv) {
		if (cr->mode == GCRY_CIPHER_MODE_CTR) {
			if (gcry_cipher_setctr(cr->hd, iv, cr->blk))
				return false;
		} else if (gcry_cipher_setiv(cr->hd, iv, cr->blk)) {
			return false;
		}
	}
	gcry_error_t e = enc ? gcry_cipher_encrypt(cr->hd, buf, n, NULL, 0)
			     : gcry_cipher_decrypt(cr->hd, buf, n, NULL, 0);
	return e == 0;
}

bool dq_crypto_seg_init(struct dq_crypto *cr, struct dqf_seg_hdr *h)
{
	h->flags |= DQF_SEG_ENCRYPTED;
	h->algo = (uint16_t)cr->algo;
	h->mode = (uint16_t)cr->mode;
	gcry_create_nonce(h->iv, sizeof(h->iv));
	memcpy(h->check, key_check_text, 32);
	return crypt_buf(cr, true, h->iv, h->check, 32);
}

bool dq_crypto_seg_check(struct dq_crypto *cr, const struct dqf_seg_hdr *h)
{
	if (h->algo != cr->algo || h->mode != cr->mode)
		return false;
	unsigned char b[32];
	memcpy(b, h->check, 32);
	return crypt_buf(cr, false, h->iv, b, 32) && memcmp(b, key_check_text, 32) == 0;
}

bool dq_crypto_encrypt(struct dq_crypto *cr, const struct dqf_seg_hdr *h, const char *in,
		       size_t len, struct sbuf *out)
{
	(void)h;
	unsigned char iv[16];
	size_t padn = cr->pad ? cr->blk - len % cr->blk : 0;
	size_t ivn = cr->iv ? cr->blk : 0;
	if (!sbuf_grow(out, ivn + len + padn))
		return false;
	if (ivn) {
		gcry_create_nonce(iv, ivn);
		sbuf_append(out, (const char *)iv, ivn);
	}
	size_t at = out->len;
	sbuf_append(out, in, len);
	for (size_t i = 0; i < padn; i++)
		sbuf_putc(out, (char)padn);
	return crypt_buf(cr, true, iv, out->buf + at, len + padn);
}

bool dq_crypto_decrypt(struct dq_crypto *cr, const struct dqf_seg_hdr *h, const char *in,
		       size_t len, struct sbuf *out)
{
	(void)h;
	size_t ivn = cr->iv ? cr->blk : 0;
	if (len < ivn || (cr->pad && ((len - ivn) % cr->blk != 0 || len == ivn)))
		return false;
	sbuf_reset(out);
	if (!sbuf_append(out, in + ivn, len - ivn))
		return false;
	if (!crypt_buf(cr, false, in, out->buf, out->len))
		return false;
	if (cr->pad) {
		unsigned char p = (unsigned char)out->buf[out->len - 1];
		if (p == 0 || p > cr->blk || p > out->len)
			return false;
		out->len -= p;
	}
	return true;
}
#else
bool dq_crypto_create(struct dq_crypto **out, const struct queue_cfg *c, const char *qname)
{
	*out = NULL;
	if (!c->cry_provider)
		return true;
	sl_err("queue %s: queue.cry.provider is set, but sluice was built without libgcrypt",
	       qname);
	return false;
}
void dq_crypto_destroy(struct dq_crypto *cr) { (void)cr; }
bool dq_crypto_seg_init(struct dq_crypto *cr, struct dqf_seg_hdr *h) { (void)cr; (void)h; return false; }
bool dq_crypto_seg_check(struct dq_crypto *cr, const struct dqf_seg_hdr *h) { (void)cr; (void)h; return false; }
bool dq_crypto_encrypt(struct dq_crypto *cr, const struct dqf_seg_hdr *h, const char *in,
		       size_t len, struct sbuf *out)
{
	(void)cr; (void)h; (void)in; (void)len; (void)out;
	return false;
}
bool dq_crypto_decrypt(struct dq_crypto *cr, const struct dqf_seg_hdr *h, const char *in,
		       size_t len, struct sbuf *out)
{
	(void)cr; (void)h; (void)in; (void)len; (void)out;
	return false;
}
#endif

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
	const unsigned char *h = rd_need(&r, 0, DQF_SEG_HDR);
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
