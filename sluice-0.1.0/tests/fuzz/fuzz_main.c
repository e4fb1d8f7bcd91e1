/* fuzz_main.c — a self-contained driver for the LLVMFuzzerTestOneInput
 * harnesses in this folder, for machines without libFuzzer: it replays
 * the files named on the command line (the seed corpus), then mutates
 * them with a seeded xorshift generator (bit flips, byte runs, syslog
 * framing tokens, splices, cuts) until FUZZ_SECONDS (default 10) pass.
 * A failing input is written to ./fuzz-crash-<n> before the harness
 * aborts, so it can become a regression seed. Environment: FUZZ_SECONDS,
 * FUZZ_SEED (default 1).
 *
 * Threading: single-threaded.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT 65536
#define MAX_SEEDS 1024

static uint8_t *seeds[MAX_SEEDS];
static size_t seed_len[MAX_SEEDS];
static int n_seeds;
static uint64_t rng;
static uint8_t *cur;
static size_t cur_len;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void add_seed(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f || n_seeds == MAX_SEEDS) {
		if (f)
			fclose(f);
		return;
	}
	uint8_t *b = malloc(FUZZ_MAX_INPUT);
	size_t n = fread(b, 1, FUZZ_MAX_INPUT, f);
	fclose(f);
	seeds[n_seeds] = b;
	seed_len[n_seeds++] = n;
}

static void add_path(const char *path)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return;
	if (!S_ISDIR(sb.st_mode)) {
		add_seed(path);
		return;
	}
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char p[4096];
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		add_seed(p);
	}
	if (d)
		closedir(d);
}

/* On abort, keep the input that caused it. */
static void save_crash(int sig)
{
	char name[64];
	snprintf(name, sizeof(name), "fuzz-crash-%d", (int)getpid());
	FILE *f = fopen(name, "wb");
	if (f) {
		fwrite(cur, 1, cur_len, f);
		fclose(f);
		fprintf(stderr, "fuzz_main: failing input saved to %s\n", name);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static const char *const tokens[] = { "\n", " ", "0", "9", "200000 ", "99999999999 ", "<13>",
				      "1 ", "\r\n", "\0", "8096 ", "12 " };

static size_t mutate(uint8_t *b, size_t n)
{
	int rounds = 1 + (int)(next() % 8);
	for (int r = 0; r < rounds; r++) {
		size_t pos = n ? next() % n : 0;
		switch (next() % 7) {
		case 0: /* bit flip */
			if (n)
				b[pos] ^= (uint8_t)(1u << (next() % 8));
			break;
		case 1: /* random byte */
			if (n)
				b[pos] = (uint8_t)next();
			break;
		case 2: { /* insert a framing token */
			const char *t = tokens[next() % (sizeof(tokens) / sizeof(tokens[0]))];
			size_t tl = strlen(t) ? strlen(t) : 1;
			if (n + tl < FUZZ_MAX_INPUT) {
				memmove(b + pos + tl, b + pos, n - pos);
				memcpy(b + pos, t, tl);
				n += tl;
			}
			break;
		}
		case 3: { /* run of one byte */
			size_t l = 1 + next() % 2048;
			if (n + l < FUZZ_MAX_INPUT) {
				memmove(b + pos + l, b + pos, n - pos);
				memset(b + pos, (int)(next() % 4 == 0 ? '\n' : 'A' + next() % 26), l);
				n += l;
			}
			break;
		}
		case 4: /* cut */
			if (n > 5)
				n = 5 + next() % (n - 5);
			break;
		case 5: { /* splice another seed */
			int s = (int)(next() % (uint64_t)n_seeds);
			size_t l = seed_len[s] > 5 ? seed_len[s] - 5 : 0;
			if (l && n + l < FUZZ_MAX_INPUT) {
				memmove(b + pos + l, b + pos, n - pos);
				memcpy(b + pos, seeds[s] + 5, l);
				n += l;
			}
			break;
		}
		case 6: /* configuration bytes */
			if (n >= 5)
				b[next() % 5] = (uint8_t)next();
			break;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	const char *e = getenv("FUZZ_SECONDS");
	double secs = e ? atof(e) : 10;
	e = getenv("FUZZ_SEED");
	rng = e ? strtoull(e, NULL, 0) : 1;
	if (rng == 0)
		rng = 1;
	for (int i = 1; i < argc; i++)
		add_path(argv[i]);
	if (n_seeds == 0) {
		static uint8_t dflt[] = "\0\100\0\0\20" "12 <13>a b: cd\n<13>x y: z\n";
		seeds[0] = dflt;
		seed_len[0] = sizeof(dflt) - 1;
		n_seeds = 1;
	}
	cur = malloc(FUZZ_MAX_INPUT);
	signal(SIGABRT, save_crash);
	signal(SIGSEGV, save_crash);
	for (int i = 0; i < n_seeds; i++) {
		memcpy(cur, seeds[i], seed_len[i]);
		cur_len = seed_len[i];
		LLVMFuzzerTestOneInput(cur, cur_len);
	}
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long runs = 0;
	for (;;) {
		if ((runs & 255) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 >= secs)
				break;
		}
		int s = (int)(next() % (uint64_t)n_seeds);
		memcpy(cur, seeds[s], seed_len[s]);
		cur_len = mutate(cur, seed_len[s]);
		LLVMFuzzerTestOneInput(cur, cur_len);
		runs++;
	}
	printf("fuzz_main: %d seeds replayed, %lu mutated inputs in %.0f s, no failure\n", n_seeds,
	       runs, secs);
	return 0;
}
