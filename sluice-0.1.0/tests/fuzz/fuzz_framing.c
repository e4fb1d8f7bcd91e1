/* fuzz_framing.c — fuzz harness for the TCP framer (runtime/framing.c),
 * used by imtcp and imptcp: LF, additional-delimiter and octet-counted
 * framing, oversize frames, bad octet counts.
 *
 * Input layout: byte 0..3 choose the configuration (maxMessageSize 1..512
 * so truncation paths run often, maxFrameSize, the flags, the additional
 * delimiter), byte 4 the read size; the rest is the stream. The stream is
 * fed once whole and once cut into reads of the chosen size. Checks:
 * every frame is 1..max_msg bytes long and readable (ASan sees any read
 * past it), and — unless multiLine is on, whose rule looks at the end of
 * a read — both feedings give the same frames (framing must not depend
 * on how TCP segments the stream).
 *
 * Built two ways: with clang -fsanitize=fuzzer (libFuzzer provides main,
 * see tests/fuzz/README.md), or with FUZZ_STANDALONE as a self-contained
 * program (tests/fuzz/fuzz_main.c) that replays the seed corpus and then
 * mutates it with a seeded generator for a bounded time, in CI.
 *
 * Threading: single-threaded.
 */
#include "framing.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* framing.c logs through sl_log; the harness only counts. */
int sl_debug_on;
void sl_log(int lvl, const char *fmt, ...)
{
	(void)lvl;
	(void)fmt;
}

struct collect {
	size_t max_msg;
	uint64_t hash;
	size_t frames;
};

static void on_frame(void *ctx, const char *p, size_t len)
{
	struct collect *c = ctx;
	if (len == 0 || len > c->max_msg) {
		fprintf(stderr, "fuzz_framing: frame of %zu bytes (max_msg %zu)\n", len, c->max_msg);
		abort();
	}
	/* FNV-1a over the frame and its length: touches every byte */
	uint64_t h = c->hash ^ len;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	c->hash = h * 1099511628211ull;
	c->frames++;
}

static void run(const struct framing_cfg *cfg, const uint8_t *data, size_t size, size_t chunk,
		struct collect *c)
{
	struct framing_stats stats;
	struct framing_state st;
	memset(&stats, 0, sizeof(stats));
	memset(&st, 0, sizeof(st));
	struct framing_sink sink = { .emit = on_frame, .ctx = c, .who = "fuzz", .peer = "fuzz",
				     .stats = &stats };
	c->max_msg = cfg->max_msg;
	c->hash = 14695981039346656037ull;
	c->frames = 0;
	for (size_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		/* a private copy of each read, so ASan sees reads past its end */
		char *buf = malloc(n ? n : 1);
		if (!buf)
			abort();
		memcpy(buf, data + off, n);
		framing_feed(cfg, &st, buf, n, &sink);
		free(buf);
	}
	framing_eof(cfg, &st, &sink);
	framing_state_free(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5)
		return 0;
	struct framing_cfg cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_msg = 1 + (((size_t)data[0] << 8 | data[1]) % 512);
	static const int64_t frame_sizes[] = { 0, 1, 10, 100, 200000, 200000000 };
	cfg.max_frame_size = frame_sizes[(data[2] & 0x0f) % 6];
	cfg.octet_counted = !(data[2] & 0x10);
	cfg.disable_lf = data[2] & 0x20;
	cfg.discard_truncated = data[2] & 0x40;
	cfg.framingfix_asa = data[2] & 0x80;
	cfg.addtl_delim = (data[3] & 1) ? data[3] : 256;
	cfg.multiline = (data[3] & 0x06) == 0x06;
	size_t chunk = 1 + data[4] % 64;
	data += 5;
	size -= 5;

	struct collect whole, cut;
	run(&cfg, data, size, size ? size : 1, &whole);
	run(&cfg, data, size, chunk, &cut);
	if (!cfg.multiline && (whole.hash != cut.hash || whole.frames != cut.frames)) {
		fprintf(stderr, "fuzz_framing: %zu frames read whole, %zu read in %zu-byte pieces "
			"(or different bytes)\n", whole.frames, cut.frames, chunk);
		abort();
	}
	return 0;
}
