/* omfile_cry.c — encryption of output files with libgcrypt
 * (cry.provider="gcry"), in the format of rsyslog's lmcry_gcry, so that
 * rsyslog's rscryutil and sluice's tools/sluice-decrypt read it:
 *
 *   FILE           the log data, encrypted in blocks. Every flush of the
 *                  file is padded with NUL bytes to the cipher block length
 *                  and encrypted; the cipher state (CBC chaining) carries
 *                  over from one flush to the next within a block.
 *   FILE.encinfo   text records "TYPE:VALUE\n": first
 *                  "FILETYPE:rsyslog-enrcyption-info" (sic, as rsyslog),
 *                  then per block (one block per open of the file)
 *                  "IV:<hex>" when it starts and "END:<offset>" (decimal
 *                  byte offset in FILE where the block ends) when the file
 *                  is closed. A block without END (crash) runs to the end
 *                  of FILE; when the file is opened again after a crash,
 *                  the dangling block is first closed with END at the
 *                  file's size.
 *
 * Decryption decrypts each block with the key and its IV and drops the NUL
 * padding bytes (so log data must not contain NULs, as with rsyslog).
 * Parameters: cry.key (the key text itself), cry.keyfile (file holding the
 * key bytes), cry.algo (default AES128), cry.mode (default CBC); the key
 * length must be the algorithm's key length (16 bytes for AES128).
 * cry.keyprogram is not supported.
 *
 * Threading: a cry_ctx is read-only after creation; a cry_file belongs to
 * one open file and is used under the owning action's mutex.
 */
#include "sluice.h"
#include "log.h"
#include "ast.h"
#include "omfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#ifdef HAVE_GCRYPT
#include <gcrypt.h>

#define ENCINFO_SUFFIX ".encinfo"
#define FILETYPE_REC "FILETYPE:rsyslog-enrcyption-info\n"

struct cry_ctx {
	int algo, mode;
	size_t blklen;
	unsigned char *key;
	size_t keylen;
};

struct cry_file {
	struct cry_ctx *ctx;
	gcry_cipher_hd_t hd;
	int ei_fd;
	char *ei_name;
};

static int algo_by_name(const char *n)
{
	static const struct { const char *n; int a; } t[] = {
		{ "3DES", GCRY_CIPHER_3DES }, { "CAST5", GCRY_CIPHER_CAST5 },
		{ "BLOWFISH", GCRY_CIPHER_BLOWFISH }, { "AES128", GCRY_CIPHER_AES128 },
		{ "AES192", GCRY_CIPHER_AES192 }, { "AES256", GCRY_CIPHER_AES256 },
		{ "TWOFISH", GCRY_CIPHER_TWOFISH }, { "TWOFISH128", GCRY_CIPHER_TWOFISH128 },
		{ "ARCFOUR", GCRY_CIPHER_ARCFOUR }, { "DES", GCRY_CIPHER_DES },
		{ "SERPENT128", GCRY_CIPHER_SERPENT128 }, { "SERPENT192", GCRY_CIPHER_SERPENT192 },
		{ "SERPENT256", GCRY_CIPHER_SERPENT256 }, { "RFC2268_40", GCRY_CIPHER_RFC2268_40 },
		{ "SEED", GCRY_CIPHER_SEED }, { "CAMELLIA128", GCRY_CIPHER_CAMELLIA128 },
		{ "CAMELLIA192", GCRY_CIPHER_CAMELLIA192 }, { "CAMELLIA256", GCRY_CIPHER_CAMELLIA256 },
	};
	for (size_t i = 0; i < SL_ARRAY_SIZE(t); i++)
		if (!strcmp(t[i].n, n))
			return t[i].a;
	return GCRY_CIPHER_NONE;
}

static int mode_by_name(const char *n)
{
	static const struct { const char *n; int m; } t[] = {
		{ "ECB", GCRY_CIPHER_MODE_ECB }, { "CFB", GCRY_CIPHER_MODE_CFB },
		{ "CBC", GCRY_CIPHER_MODE_CBC }, { "STREAM", GCRY_CIPHER_MODE_STREAM },
		{ "OFB", GCRY_CIPHER_MODE_OFB }, { "CTR", GCRY_CIPHER_MODE_CTR },
	};
	for (size_t i = 0; i < SL_ARRAY_SIZE(t); i++)
		if (!strcmp(t[i].n, n))
			return t[i].m;
	return GCRY_CIPHER_MODE_NONE;
}

static const struct cfg_pos *pos_of(struct cfg_obj *o, const char *name)
{
	for (struct cfg_param *p = o->params; p; p = p->next)
		if (strcasecmp(p->name, name) == 0)
			return &p->pos;
	return &o->pos;
}

struct cry_ctx *cry_ctx_create(const struct omfile_cfg *c, struct cfg_obj *o, int *n_errors)
{
	struct cry_ctx *ctx = sl_xcalloc(1, sizeof(*ctx));
	if (strcasecmp(c->cry_provider, "gcry") != 0) {
		cfg_error(pos_of(o, "cry.provider"), "omfile: cry.provider '%s' is not known; "
			  "sluice has \"gcry\"", c->cry_provider);
		goto fail;
	}
	if (!gcry_check_version(GCRYPT_VERSION)) {
		cfg_error(&o->pos, "omfile: libgcrypt version mismatch");
		goto fail;
	}
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	ctx->algo = algo_by_name(c->cry_algo ? c->cry_algo : "AES128");
	if (ctx->algo == GCRY_CIPHER_NONE) {
		cfg_error(pos_of(o, "cry.algo"), "omfile: cry.algo '%s' is not known", c->cry_algo);
		goto fail;
	}
	ctx->mode = mode_by_name(c->cry_mode ? c->cry_mode : "CBC");
	if (ctx->mode == GCRY_CIPHER_MODE_NONE) {
		cfg_error(pos_of(o, "cry.mode"), "omfile: cry.mode '%s' is not known", c->cry_mode);
		goto fail;
	}
	ctx->blklen = gcry_cipher_get_algo_blklen(ctx->algo);
	size_t want = gcry_cipher_get_algo_keylen(ctx->algo);
	if (c->cry_keyprogram) {
		cfg_error(pos_of(o, "cry.keyprogram"), "omfile: cry.keyprogram is not supported; "
			  "use cry.key or cry.keyfile");
		goto fail;
	}
	if (c->cry_key && c->cry_keyfile) {
		cfg_error(pos_of(o, "cry.key"), "omfile: give only one of cry.key and cry.keyfile");
		goto fail;
	}
	if (c->cry_key) {
		ctx->keylen = strlen(c->cry_key);
		ctx->key = (unsigned char *)sl_xstrdup(c->cry_key);
		cfg_warn(pos_of(o, "cry.key"), "omfile: the key is given in the configuration "
			 "(cry.key); prefer cry.keyfile");
	} else if (c->cry_keyfile) {
		int fd = open(c->cry_keyfile, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0 || st.st_size > 4096) {
			cfg_error(pos_of(o, "cry.keyfile"), "omfile: cannot read key file '%s': %s",
				  c->cry_keyfile, fd < 0 ? strerror(errno) : "too large");
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		ctx->key = sl_xmalloc((size_t)st.st_size + 1);
		ssize_t n = read(fd, ctx->key, (size_t)st.st_size);
		close(fd);
		ctx->keylen = n > 0 ? (size_t)n : 0;
	} else {
		cfg_error(pos_of(o, "cry.provider"), "omfile: cry.provider=\"gcry\" needs cry.key or "
			  "cry.keyfile");
		goto fail;
	}
	if (ctx->keylen != want) {
		cfg_error(pos_of(o, c->cry_key ? "cry.key" : "cry.keyfile"), "omfile: key length "
			  "is %zu bytes, the algorithm needs %zu", ctx->keylen, want);
		goto fail;
	}
	return ctx;
fail:
	(*n_errors)++;
	cry_ctx_destroy(ctx);
	return NULL;
}

void cry_ctx_destroy(struct cry_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->key)
		memset(ctx->key, 0, ctx->keylen);
	free(ctx->key);
	free(ctx);
}

static bool ei_write(struct cry_file *cf, const char *rec, size_t len)
{
	return write(cf->ei_fd, rec, len) == (ssize_t)len;
}

/* A block left open by a crash (its last record is an IV) is closed with
 * END at the current size of the log file, so readers know where the new
 * block starts. */
static bool ei_close_dangling(struct cry_file *cf, off_t offset)
{
	char tail[256];
	off_t sz = lseek(cf->ei_fd, 0, SEEK_END);
	if (sz <= 0)
		return true;
	off_t from = sz > (off_t)sizeof(tail) - 1 ? sz - (off_t)sizeof(tail) + 1 : 0;
	ssize_t n = pread(cf->ei_fd, tail, (size_t)(sz - from), from);
	if (n <= 0)
		return true;
	tail[n] = '\0';
	if (tail[n - 1] == '\n')
		tail[--n] = '\0';
	const char *last = strrchr(tail, '\n');
	last = last ? last + 1 : tail;
	if (strncmp(last, "IV:", 3) != 0)
		return true;
	char rec[40];
	int k = snprintf(rec, sizeof(rec), "END:%lld\n", (long long)offset);
	return ei_write(cf, rec, (size_t)k);
}

struct cry_file *cry_file_open(struct cry_ctx *ctx, const char *name, off_t offset)
{
	struct cry_file *cf = calloc(1, sizeof(*cf));
	unsigned char iv[64];
	char rec[8 + 2 * sizeof(iv)];
	if (!cf)
		return NULL;
	cf->ctx = ctx;
	cf->ei_fd = -1;
	size_t nl = strlen(name);
	cf->ei_name = malloc(nl + sizeof(ENCINFO_SUFFIX));
	if (!cf->ei_name || ctx->blklen > sizeof(iv))
		goto fail;
	memcpy(cf->ei_name, name, nl);
	memcpy(cf->ei_name + nl, ENCINFO_SUFFIX, sizeof(ENCINFO_SUFFIX));
	if (gcry_cipher_open(&cf->hd, ctx->algo, ctx->mode, 0) ||
	    gcry_cipher_setkey(cf->hd, ctx->key, ctx->keylen))
		goto fail;
	gcry_create_nonce(iv, ctx->blklen);
	if (gcry_cipher_setiv(cf->hd, iv, ctx->blklen))
		goto fail;
	cf->ei_fd = open(cf->ei_name, O_RDWR | O_APPEND | O_CLOEXEC | O_NOCTTY);
	if (cf->ei_fd >= 0 && !ei_close_dangling(cf, offset))
		goto fail;
	if (cf->ei_fd < 0) {
		cf->ei_fd = open(cf->ei_name, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
		if (cf->ei_fd < 0 || !ei_write(cf, FILETYPE_REC, sizeof(FILETYPE_REC) - 1))
			goto fail;
	}
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;
	memcpy(rec, "IV:", 3);
	k = 3;
	for (size_t i = 0; i < ctx->blklen; i++) {
		rec[k++] = hex[iv[i] >> 4];
		rec[k++] = hex[iv[i] & 15];
	}
	rec[k++] = '\n';
	if (!ei_write(cf, rec, k))
		goto fail;
	return cf;
fail:
	sl_err("omfile: cannot start encryption of '%s' (encinfo %s): %s", name,
	       cf->ei_name ? cf->ei_name : "?", strerror(errno));
	if (cf->hd)
		gcry_cipher_close(cf->hd);
	if (cf->ei_fd >= 0)
		close(cf->ei_fd);
	free(cf->ei_name);
	free(cf);
	return NULL;
}

bool cry_encrypt(struct cry_file *cf, struct sbuf *sb, size_t from)
{
	size_t len = sb->len - from;
	size_t pad = (cf->ctx->blklen - len % cf->ctx->blklen) % cf->ctx->blklen;
	if (pad) {
		if (!sbuf_grow(sb, pad))
			return false;
		memset(sb->buf + sb->len, 0, pad);
		sb->len += pad;
		len += pad;
	}
	return gcry_cipher_encrypt(cf->hd, sb->buf + from, len, NULL, 0) == 0;
}

void cry_file_close(struct cry_file *cf, off_t end_offset)
{
	char rec[40];
	if (!cf)
		return;
	int n = snprintf(rec, sizeof(rec), "END:%lld\n", (long long)end_offset);
	if (!ei_write(cf, rec, (size_t)n))
		sl_err("omfile: cannot write END record to %s: %s", cf->ei_name, strerror(errno));
	gcry_cipher_close(cf->hd);
	close(cf->ei_fd);
	free(cf->ei_name);
	free(cf);
}

#else /* !HAVE_GCRYPT */

struct cry_ctx *cry_ctx_create(const struct omfile_cfg *c, struct cfg_obj *o, int *n_errors)
{
	(void)c;
	cfg_error(&o->pos, "omfile: cry.provider needs libgcrypt, which this sluice was built without");
	(*n_errors)++;
	return NULL;
}
void cry_ctx_destroy(struct cry_ctx *ctx) { (void)ctx; }
/* A block left open by a crash (its last record is an IV) is closed with
 * END at the current size of the log file, so readers know where the new
 * block starts. */
static bool ei_close_dangling(struct cry_file *cf, off_t offset)
{
	char tail[256];
	off_t sz = lseek(cf->ei_fd, 0, SEEK_END);
	if (sz <= 0)
		return true;
	off_t from = sz > (off_t)sizeof(tail) - 1 ? sz - (off_t)sizeof(tail) + 1 : 0;
	ssize_t n = pread(cf->ei_fd, tail, (size_t)(sz - from), from);
	if (n <= 0)
		return true;
	tail[n] = '\0';
	if (tail[n - 1] == '\n')
		tail[--n] = '\0';
	const char *last = strrchr(tail, '\n');
	last = last ? last + 1 : tail;
	if (strncmp(last, "IV:", 3) != 0)
		return true;
	char rec[40];
	int k = snprintf(rec, sizeof(rec), "END:%lld\n", (long long)offset);
	return ei_write(cf, rec, (size_t)k);
}

struct cry_file *cry_file_open(struct cry_ctx *ctx, const char *name, off_t offset)
{
	(void)ctx;
	(void)name;
	return NULL;
}
bool cry_encrypt(struct cry_file *cf, struct sbuf *sb, size_t from)
{
	(void)cf;
	(void)sb;
	(void)from;
	return false;
}
void cry_file_close(struct cry_file *cf, off_t end_offset)
{
	(void)cf;
	(void)end_offset;
}
#endif
