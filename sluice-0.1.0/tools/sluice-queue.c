/* sluice-queue.c — inspect the files of a sluice disk or disk-assisted
 * queue: list the segments and the state file, verify every record (CRC,
 * length, framing; exit status 1 on any corruption), dump records, and
 * count them.
 *
 *   sluice-queue [-k KEYFILE | -K KEY] [-a ALGO] [-m MODE] list   DIR PREFIX
 *   sluice-queue ... verify DIR PREFIX
 *   sluice-queue ... dump   DIR PREFIX
 *   sluice-queue ... count  DIR PREFIX
 *
 * Reading never changes the files. Encrypted records are listed and
 * verified without the key (the CRC covers the stored bytes); dump needs
 * the key and reports a wrong one.
 *
 * Threading: single-threaded.
 */
#include "queue_disk.h"
#include "queue.h"
#include "msg.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sluice-queue [-k KEYFILE | -K KEY] [-a ALGO] [-m MODE] "
		   "list|verify|dump|count DIR PREFIX\n");
}

int main(int argc, char **argv)
{
	struct queue_cfg qc;
	memset(&qc, 0, sizeof(qc));
	int opt;
	while ((opt = getopt(argc, argv, "k:K:a:m:h")) != -1) {
		switch (opt) {
		case 'k': qc.cry_keyfile = optarg; qc.cry_provider = "gcry"; break;
		case 'K': qc.cry_key = optarg; qc.cry_provider = "gcry"; break;
		case 'a': qc.cry_algo = optarg; break;
		case 'm': qc.cry_mode = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (argc - optind != 3) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[optind], *dir = argv[optind + 1], *prefix = argv[optind + 2];
	bool dump = !strcmp(cmd, "dump"), verify = !strcmp(cmd, "verify");
	bool list = !strcmp(cmd, "list"), count = !strcmp(cmd, "count");
	if (!dump && !verify && !list && !count) {
		usage(stderr);
		return 2;
	}
	struct dq_crypto *cr = NULL;
	if (qc.cry_provider && !dq_crypto_create(&cr, &qc, prefix))
		return 2;

	DIR *dh = opendir(dir);
	if (!dh) {
		fprintf(stderr, "sluice-queue: cannot open %s: %s\n", dir, strerror(errno));
		return 2;
	}
	uint64_t *segs = NULL;
	size_t n = 0, cap = 0, pl = strlen(prefix);
	struct dirent *de;
	while ((de = readdir(dh)) != NULL) {
		const char *nm = de->d_name;
		if (strncmp(nm, prefix, pl) || nm[pl] != '.')
			continue;
		size_t dl = strspn(nm + pl + 1, "0123456789");
		if (dl < 8 || nm[pl + 1 + dl])
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			segs = realloc(segs, cap * sizeof(*segs));
			if (!segs)
				return 2;
		}
		segs[n++] = strtoull(nm + pl + 1, NULL, 10);
	}
	closedir(dh);
	qsort(segs, n, sizeof(*segs), cmp_u64);

	int bad = 0;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.qi", dir, prefix);
	struct dqf_state st = { 0, 0, 0 };
	bool have_state = false;
	FILE *qf = fopen(path, "rb");
	if (qf) {
		unsigned char b[DQF_QI_SIZE];
		size_t k = fread(b, 1, sizeof(b), qf);
		fclose(qf);
		if (k == sizeof(b) && dqf_state_decode(b, &st)) {
			have_state = true;
			if (list || verify)
				printf("state %s: segment %llu offset %llu (%llu records at write time)\n",
				       path, (unsigned long long)st.seg, (unsigned long long)st.off,
				       (unsigned long long)st.records);
		} else {
			printf("BAD state %s offset 0: corrupt or truncated state file\n", path);
			bad++;
		}
	}
	uint64_t total = 0;
	struct sbuf dec = { 0 }, desc = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (have_state && segs[i] < st.seg)
			continue;
		snprintf(path, sizeof(path), "%s/%s.%08llu", dir, prefix, (unsigned long long)segs[i]);
		struct dqf_reader r;
		if (dqf_reader_open(&r, path, 0) != SL_OK) {
			printf("BAD %s: cannot open: %s\n", path, strerror(errno));
			bad++;
			continue;
		}
		struct dqf_seg_hdr h;
		const char *why = "file shorter than a segment header";
		unsigned char hb[DQF_SEG_HDR];
		if (pread(r.fd, hb, sizeof(hb), 0) != (ssize_t)sizeof(hb) ||
		    !dqf_seg_hdr_decode(hb, &h, &why)) {
			printf("BAD %s offset 0: %s\n", path, why);
			bad++;
			dqf_reader_close(&r);
			continue;
		}
		bool enc = h.flags & DQF_SEG_ENCRYPTED;
		if (enc && dump && (!cr || !dq_crypto_seg_check(cr, &h))) {
			fprintf(stderr, "sluice-queue: %s is encrypted: %s\n", path,
				cr ? "wrong key (or algorithm/mode)" : "give the key with -k or -K");
			return 2;
		}
		if (have_state && segs[i] == st.seg && st.off > DQF_SEG_HDR)
			r.off = st.off;
		uint64_t recs = 0, bytes_bad = 0;
		for (;;) {
			const char *p;
			uint32_t len;
			uint64_t off;
			enum dqf_next k = dqf_reader_next(&r, &p, &len, &off);
			if (k == DQF_EOF)
				break;
			if (k == DQF_BAD) {
				printf("BAD %s offset %llu: corrupt or torn data, %u bytes\n", path,
				       (unsigned long long)off, len);
				bad++;
				bytes_bad += len;
				continue;
			}
			recs++;
			if (dump) {
				const char *pp = p;
				size_t pn = len;
				if (enc) {
					if (!dq_crypto_decrypt(cr, &h, p, len, &dec)) {
						printf("BAD %s offset %llu: record does not decrypt\n", path,
						       (unsigned long long)off);
						bad++;
						continue;
					}
					pp = dec.buf;
					pn = dec.len;
				}
				sbuf_reset(&desc);
				if (!dqf_msg_describe(pp, pn, &desc)) {
					printf("BAD %s offset %llu: malformed message record\n", path,
					       (unsigned long long)off);
					bad++;
					continue;
				}
				printf("%s@%llu %.*s\n", path, (unsigned long long)off, (int)desc.len,
				       desc.buf);
			}
		}
		total += recs;
		if (list || verify)
			printf("segment %s: version %u%s, %llu bytes, %llu records%s\n", path,
			       h.version, enc ? ", encrypted" : "", (unsigned long long)r.fsize,
			       (unsigned long long)recs, bytes_bad ? " (with corrupt spans)" : "");
		dqf_reader_close(&r);
	}
	if (count)
		printf("%llu\n", (unsigned long long)total);
	else if (list || verify)
		printf("total: %zu segment(s), %llu records, %d problem(s)\n", n,
		       (unsigned long long)total, bad);
	sbuf_free(&dec);
	sbuf_free(&desc);
	dq_crypto_destroy(cr);
	free(segs);
	return bad ? 1 : 0;
}
