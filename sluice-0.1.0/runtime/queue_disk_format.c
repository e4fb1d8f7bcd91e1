/* queue_disk_format.c — the on-disk format of disk queues (version 1):
 * segment headers, records (length-prefixed, CRC32-checked) and the .qi
 * state, a buffered reader of segment files that skips torn or corrupt
 * spans, the serialization of messages (payload version 1) and the
 * encryption of payloads (libgcrypt, as rsyslog's lmcry_gcry). The byte
 * layout is in queue_disk.h and doc/queues.md. Used by queue_disk.c and by
 * tools/sluice-queue.
 *
 * Threading: the dqf_* helpers are stateless; a struct dqf_reader and a
 * struct dq_crypto are used by one thread at a time (the queue's lock).
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
const unsigned char *dqf_reader_need(struct dqf_reader *r, uint64_t off, size_t n)
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
	const unsigned char *h = dqf_reader_need(r, off, DQF_REC_HDR);
	if (!h || get32(h) != DQF_REC_MAGIC || get32(h + 12) != crc(h, 12))
		return false;
	uint32_t len = get32(h + 4);
	uint32_t pc = get32(h + 8);
	if (len > DQF_MAX_REC)
		return false;
	const unsigned char *p = dqf_reader_need(r, off + DQF_REC_HDR, len);
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
		const unsigned char *b = dqf_reader_need(r, o, 4);
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
