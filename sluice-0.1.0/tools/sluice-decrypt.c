/* sluice-decrypt.c — decrypt log files written by omfile with
 * cry.provider="gcry" (the format of rsyslog's lmcry_gcry; rsyslog's
 * rscryutil reads the same files):
 *
 *   sluice-decrypt [-k KEY | -K KEYFILE] [-a ALGO] [-m MODE] [-o OUT] FILE...
 *
 * For each FILE, FILE.encinfo lists the encryption blocks: after the line
 * "FILETYPE:rsyslog-enrcyption-info", each block is an "IV:<hex>" record
 * and, if the block was closed, an "END:<offset>" record giving the offset
 * in FILE where the block ends (the next block starts there). A block
 * without END runs to the end of FILE (the writer crashed or is still
 * writing; a trailing partial cipher block is ignored). Each block is
 * decrypted with the key and its IV; NUL bytes (the padding added at every
 * flush) are dropped. The clear text goes to stdout (or -o OUT).
 * Defaults: AES128 in CBC mode, as omfile. Exit status 0 on success, 1 on
 * a decryption or format error, 2 on usage errors.
 *
 * Threading: single-threaded tool.
 */
#include "sluice.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_GCRYPT
#include <gcrypt.h>

static int algo_by_name(const char *n)
{
	int a = gcry_cipher_map_name(n);
	if (!strcmp(n, "AES128"))
		a = GCRY_CIPHER_AES128;
	return a;
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

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static unsigned char *read_all(const char *name, size_t *len)
{
	FILE *fp = fopen(name, "rb");
	if (!fp)
		return NULL;
	size_t cap = 65536, n = 0;
	unsigned char *b = malloc(cap);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			unsigned char *nb = realloc(b, cap);
			if (!nb) {
				free(b);
				fclose(fp);
				return NULL;
			}
			b = nb;
		}
		size_t r = fread(b + n, 1, cap - n, fp);
		if (r == 0)
			break;
		n += r;
	}
	fclose(fp);
	*len = n;
	return b;
}

struct opts {
	const unsigned char *key;
	size_t keylen;
	int algo, mode;
	FILE *out;
};

/* Decrypt data[from, to) with `iv`; write clear text without NULs. */
static int decrypt_block(const struct opts *o, unsigned char *data, size_t from, size_t to,
			 const unsigned char *iv, size_t blklen)
{
	gcry_cipher_hd_t hd;
	if (to > from)
		to -= (to - from) % blklen;
	if (to <= from)
		return 0;
	if (gcry_cipher_open(&hd, o->algo, o->mode, 0) || gcry_cipher_setkey(hd, o->key, o->keylen) ||
	    gcry_cipher_setiv(hd, iv, blklen)) {
		fprintf(stderr, "sluice-decrypt: cannot set up the cipher (wrong key length?)\n");
		return -1;
	}
	gcry_error_t e = gcry_cipher_decrypt(hd, data + from, to - from, NULL, 0);
	gcry_cipher_close(hd);
	if (e) {
		fprintf(stderr, "sluice-decrypt: decryption failed: %s\n", gcry_strerror(e));
		return -1;
	}
	size_t d = from;
	for (size_t i = from; i < to; i++)
		if (data[i] != 0)
			data[d++] = data[i];
	if (fwrite(data + from, 1, d - from, o->out) != d - from)
		return -1;
	return 0;
}

static int decrypt_file(const struct opts *o, const char *name)
{
	char ei[4096];
	size_t dlen = 0;
	unsigned char *data = read_all(name, &dlen);
	if (!data) {
		fprintf(stderr, "sluice-decrypt: cannot read %s: %s\n", name, strerror(errno));
		return 1;
	}
	snprintf(ei, sizeof(ei), "%s.encinfo", name);
	FILE *fp = fopen(ei, "r");
	if (!fp) {
		fprintf(stderr, "sluice-decrypt: cannot read %s: %s\n", ei, strerror(errno));
		free(data);
		return 1;
	}
	size_t blklen = gcry_cipher_get_algo_blklen(o->algo);
	unsigned char iv[64];
	bool have_iv = false;
	size_t start = 0;
	char line[2048];
	int rc = 0, lineno = 0;
	while (rc == 0 && fgets(line, sizeof(line), fp)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (lineno == 1) {
			if (strcmp(line, "FILETYPE:rsyslog-enrcyption-info") != 0) {
				fprintf(stderr, "sluice-decrypt: %s is not an encryption info file\n", ei);
				rc = 1;
			}
			continue;
		}
		if (!strncmp(line, "IV:", 3)) {
			if (have_iv) { /* previous block never closed: runs to here? no END known */
				fprintf(stderr, "sluice-decrypt: %s:%d: IV without END of the block before\n",
					ei, lineno);
				rc = 1;
				break;
			}
			const char *h = line + 3;
			if (strlen(h) != 2 * blklen || blklen > sizeof(iv)) {
				fprintf(stderr, "sluice-decrypt: %s:%d: IV of wrong length\n", ei, lineno);
				rc = 1;
				break;
			}
			for (size_t i = 0; i < blklen; i++) {
				int hi = hexval(h[2 * i]), lo = hexval(h[2 * i + 1]);
				if (hi < 0 || lo < 0) {
					fprintf(stderr, "sluice-decrypt: %s:%d: bad IV\n", ei, lineno);
					rc = 1;
					break;
				}
				iv[i] = (unsigned char)(hi << 4 | lo);
			}
			have_iv = true;
		} else if (!strncmp(line, "END:", 4)) {
			long long end = atoll(line + 4);
			if (!have_iv || end < (long long)start || (size_t)end > dlen) {
				fprintf(stderr, "sluice-decrypt: %s:%d: END %lld out of place\n", ei, lineno, end);
				rc = 1;
				break;
			}
			if (decrypt_block(o, data, start, (size_t)end, iv, blklen) != 0)
				rc = 1;
			start = (size_t)end;
			have_iv = false;
		} else if (line[0]) {
			/* unknown record types are skipped, as rsyslog allows extension */
		}
	}
	fclose(fp);
	if (rc == 0 && have_iv && decrypt_block(o, data, start, dlen, iv, blklen) != 0)
		rc = 1;
	free(data);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = { .algo = GCRY_CIPHER_AES128, .mode = GCRY_CIPHER_MODE_CBC, .out = stdout };
	unsigned char *keybuf = NULL;
	int c;
	if (!gcry_check_version(GCRYPT_VERSION))
		return 2;
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	while ((c = getopt(argc, argv, "k:K:a:m:o:h")) != -1) {
		switch (c) {
		case 'k':
			o.key = (const unsigned char *)optarg;
			o.keylen = strlen(optarg);
			break;
		case 'K':
			free(keybuf);
			keybuf = read_all(optarg, &o.keylen);
			if (!keybuf) {
				fprintf(stderr, "sluice-decrypt: cannot read key file %s: %s\n", optarg,
					strerror(errno));
				return 2;
			}
			o.key = keybuf;
			break;
		case 'a':
			o.algo = algo_by_name(optarg);
			if (!o.algo) {
				fprintf(stderr, "sluice-decrypt: unknown algorithm %s\n", optarg);
				return 2;
			}
			break;
		case 'm':
			o.mode = mode_by_name(optarg);
			if (o.mode == GCRY_CIPHER_MODE_NONE) {
				fprintf(stderr, "sluice-decrypt: unknown mode %s\n", optarg);
				return 2;
			}
			break;
		case 'o':
			o.out = fopen(optarg, "wb");
			if (!o.out) {
				fprintf(stderr, "sluice-decrypt: cannot write %s: %s\n", optarg, strerror(errno));
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: sluice-decrypt [-k KEY | -K KEYFILE] [-a ALGO] [-m MODE] "
				"[-o OUT] FILE...\n  decrypts files written by omfile with "
				"cry.provider=\"gcry\" (defaults: AES128, CBC)\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!o.key || optind >= argc) {
		fprintf(stderr, "sluice-decrypt: need a key (-k or -K) and at least one file; -h for help\n");
		return 2;
	}
	if (o.keylen != gcry_cipher_get_algo_keylen(o.algo)) {
		fprintf(stderr, "sluice-decrypt: key is %zu bytes, the algorithm needs %zu\n", o.keylen,
			gcry_cipher_get_algo_keylen(o.algo));
		return 2;
	}
	int rc = 0;
	for (int i = optind; i < argc; i++)
		rc |= decrypt_file(&o, argv[i]);
	if (fflush(o.out) != 0)
		rc = 1;
	free(keybuf);
	return rc;
}

#else
int main(void)
{
	fprintf(stderr, "sluice-decrypt: this sluice was built without libgcrypt\n");
	return 2;
}
#endif
