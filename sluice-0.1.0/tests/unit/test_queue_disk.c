/* test_queue_disk.c — unit tests of the disk part of queues: the record
 * and message format (round trip, golden files of format version 1),
 * Disk queues across a stop and start, disk-assisted spilling and
 * draining back, saveOnShutdown, torn/corrupt segments and state files,
 * maxDiskSpace, and encryption at rest (wrong key refused).
 *
 * Every test works in its own temp directory. Consumers run on the
 * queue's worker threads; a "gate" holds them back to fill a queue, and
 * hands its batch back when the queue is aborted at stop.
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json.h>

#include "msg.h"
#include "queue.h"
#include "queue_disk.h"
#include "worker.h"

struct sink {
	pthread_mutex_t mtx;
	int *seen;
	int n_max;
	int last;
	bool in_order;
	int total;
	atomic_bool gate_open;
};

static int msg_num(struct msg *m)
{
	const char *p = strchr(m->raw, '#');
	return p ? atoi(p + 1) : -1;
}

static void consume(void *arg, struct msg **msgs, int n, struct worker *w)
{
	struct sink *s = arg;
	while (!atomic_load(&s->gate_open)) {
		if (queue_thread_aborting()) {
			w->requeue = true;
			return;
		}
		usleep(1000);
	}
	pthread_mutex_lock(&s->mtx);
	for (int i = 0; i < n; i++) {
		int k = msg_num(msgs[i]);
		if (k >= 0 && k < s->n_max)
			s->seen[k]++;
		if (k != s->last + 1)
			s->in_order = false;
		s->last = k;
		s->total++;
	}
	pthread_mutex_unlock(&s->mtx);
}

static void sink_init(struct sink *s, int n, bool open)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->mtx, NULL);
	s->seen = calloc(n, sizeof(int));
	s->n_max = n;
	s->last = -1;
	s->in_order = true;
	atomic_init(&s->gate_open, open);
}

static struct msg_origin *origin;

static struct msg *mk(int k)
{
	char b[128];
	int l = snprintf(b, sizeof(b), "<%d>Mar  1 01:00:00 host tag: message #%d padding", 13 + (k % 8), k);
	struct syslog_time t = { .year = 2024, .month = 3, .day = 1, .hour = 1, .valid = 1,
				 .off_mode = '+' };
	return msg_create(b, l, origin, &t, 1709254800);
}

static char tmpdir[256];

static void mk_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/sluice-qd.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	if (!origin)
		origin = msg_origin_create("client.example", "10.0.0.1", "imtcp", NULL);
}

static void rm_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	char p[512];
	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", tmpdir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(tmpdir);
}

static int count_files(const char *prefix)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)) != NULL)
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	if (d)
		closedir(d);
	return n;
}

static void cfg_disk(struct queue_cfg *c, enum queue_type t)
{
	queue_cfg_defaults(c, QUEUE_ROLE_ACTION, false);
	c->type = t;
	c->size = 1000;
	c->dequeue_batch_size = 64;
	c->timeout_shutdown = 200;
	c->timeout_enqueue = 10;
	c->max_file_size = 16 * 1024;
	c->filename = strdup("tq");
	c->spool_directory = strdup(tmpdir);
}

static void enqueue_range(struct queue *q, int from, int to, enum flow_ctl fc)
{
	struct msg *buf[100];
	for (int k = from; k < to;) {
		int n = 0;
		while (n < 100 && k < to)
			buf[n++] = mk(k++);
		queue_enqueue(q, buf, n, fc);
	}
}

/* Start a queue, deliver everything it holds, stop it; returns the sink
 * (caller frees seen). */
static void drain_all(struct queue_cfg *c, struct sink *s, int expect)
{
	struct queue *q = queue_create("tq", c, consume, s);
	ck_assert_int_eq(queue_start(q), SL_OK);
	for (int i = 0; i < 500 && s->total < expect; i++)
		usleep(10000);
	queue_drain_and_stop(q);
	queue_destroy(q);
}

START_TEST(format_roundtrip)
{
	mk_tmpdir();
	struct msg *m = mk(42);
	m->json = fjson_tokener_parse("{\"a\":1,\"b\":\"x\\\"y\"}");
	struct sbuf sb = { 0 };
	ck_assert(dqf_msg_serialize(&sb, m));
	struct msg *r = dqf_msg_deserialize(sb.buf, sb.len);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->raw_len, m->raw_len);
	ck_assert(memcmp(r->raw, m->raw, m->raw_len) == 0);
	ck_assert_str_eq(r->origin->fromhost, "client.example");
	ck_assert_str_eq(r->origin->fromhost_ip, "10.0.0.1");
	ck_assert_str_eq(r->origin->inputname, "imtcp");
	ck_assert_int_eq(r->t_received.year, 2024);
	ck_assert_int_eq(r->ttgen, 1709254800);
	ck_assert_ptr_nonnull(r->json);
	ck_assert_str_eq(fjson_object_to_json_string_ext(r->json, FJSON_TO_STRING_PLAIN),
			 "{\"a\":1,\"b\":\"x\\\"y\"}");
	/* a damaged payload is refused, not misread */
	ck_assert_ptr_null(dqf_msg_deserialize(sb.buf, sb.len - 3));
	msg_release(r);
	msg_release(m);
	sbuf_free(&sb);
	rm_tmpdir();
}
END_TEST

START_TEST(disk_queue_order_and_restart)
{
	mk_tmpdir();
	struct queue_cfg c;
	cfg_disk(&c, QUEUE_DISK);
	struct sink s;
	sink_init(&s, 5000, false);
	struct queue *q = queue_create("tq", &c, consume, &s);
	ck_assert_int_eq(queue_start(q), SL_OK);
	enqueue_range(q, 0, 5000, FLOW_DELAY);
	ck_assert_uint_eq(atomic_load(&q->stats.disk_written), 5000);
	ck_assert_int_gt(count_files("tq.0"), 3); /* several segments of 16k */
	queue_drain_and_stop(q); /* gate closed: everything stays on disk */
	queue_destroy(q);
	ck_assert_int_eq(s.total, 0);
	ck_assert_int_eq(count_files("tq.qi"), 1);

	struct sink s2;
	sink_init(&s2, 5000, true);
	drain_all(&c, &s2, 5000);
	ck_assert_int_eq(s2.total, 5000);
	ck_assert(s2.in_order);
	for (int i = 0; i < 5000; i++)
		ck_assert_int_eq(s2.seen[i], 1);
	/* an empty queue leaves no files */
	ck_assert_int_eq(count_files("tq"), 0);
	queue_cfg_free(&c);
	free(s.seen);
	free(s2.seen);
	rm_tmpdir();
}
END_TEST

START_TEST(da_spills_and_drains_back)
{
	mk_tmpdir();
	struct queue_cfg c;
	cfg_disk(&c, QUEUE_LINKED_LIST);
	c.high_watermark = 800;
	c.low_watermark = 200;
	struct sink s;
	sink_init(&s, 20000, false);
	struct queue *q = queue_create("tq", &c, consume, &s);
	ck_assert_int_eq(queue_start(q), SL_OK);
	enqueue_range(q, 0, 20000, FLOW_NO_DELAY);
	ck_assert_uint_eq(atomic_load(&q->stats.spills), 1);
	ck_assert_uint_eq(atomic_load(&q->stats.discarded_full), 0);
	ck_assert_uint_gt(atomic_load(&q->stats.disk_written), 19000);
	atomic_store(&s.gate_open, true);
	for (int i = 0; i < 1000 && s.total < 20000; i++)
		usleep(10000);
	ck_assert_int_eq(s.total, 20000);
	ck_assert(s.in_order);
	ck_assert(!q->spilling);
	ck_assert_uint_eq(atomic_load(&q->stats.disk_size), 0);
	/* back in memory: the next messages do not touch the disk */
	uint64_t w = atomic_load(&q->stats.disk_written);
	free(s.seen);
	sink_init(&s, 100, true);
	q->consume_arg = &s;
	enqueue_range(q, 0, 100, FLOW_NO_DELAY);
	for (int i = 0; i < 500 && s.total < 100; i++)
		usleep(10000);
	ck_assert_int_eq(s.total, 100);
	ck_assert_uint_eq(atomic_load(&q->stats.disk_written), w);
	queue_drain_and_stop(q);
	queue_destroy(q);
	ck_assert_int_eq(count_files("tq"), 0);
	queue_cfg_free(&c);
	free(s.seen);
	rm_tmpdir();
}
END_TEST

START_TEST(da_save_on_shutdown)
{
	mk_tmpdir();
	struct queue_cfg c;
	cfg_disk(&c, QUEUE_FIXED_ARRAY);
	struct sink s;
	sink_init(&s, 700, false);
	struct queue *q = queue_create("tq", &c, consume, &s);
	ck_assert_int_eq(queue_start(q), SL_OK);
	enqueue_range(q, 0, 700, FLOW_DELAY); /* below the high watermark: memory */
	ck_assert_uint_eq(atomic_load(&q->stats.disk_written), 0);
	queue_drain_and_stop(q);
	ck_assert_uint_eq(atomic_load(&q->stats.saved), 700);
	ck_assert_uint_eq(atomic_load(&q->stats.discarded_shutdown), 0);
	queue_destroy(q);
	struct sink s2;
	sink_init(&s2, 700, true);
	drain_all(&c, &s2, 700);
	ck_assert_int_eq(s2.total, 700);
	ck_assert(s2.in_order);
	/* without saveOnShutdown the rest is discarded and counted */
	c.save_on_shutdown = false;
	free(s.seen);
	sink_init(&s, 700, false);
	q = queue_create("tq", &c, consume, &s);
	ck_assert_int_eq(queue_start(q), SL_OK);
	enqueue_range(q, 0, 300, FLOW_DELAY);
	queue_drain_and_stop(q);
	ck_assert_uint_eq(atomic_load(&q->stats.discarded_shutdown), 300);
	queue_destroy(q);
	queue_cfg_free(&c);
	free(s.seen);
	free(s2.seen);
	rm_tmpdir();
}
END_TEST

static void fill_and_stop(struct queue_cfg *c, int n)
{
	struct sink s;
	sink_init(&s, n, false);
	struct queue *q = queue_create("tq", c, consume, &s);
	ck_assert_int_eq(queue_start(q), SL_OK);
	enqueue_range(q, 0, n, FLOW_DELAY);
	queue_drain_and_stop(q);
	queue_destroy(q);
	free(s.seen);
}

START_TEST(corrupt_and_truncated_segments)
{
	mk_tmpdir();
	struct queue_cfg c;
	cfg_disk(&c, QUEUE_DISK);
	c.max_file_size = 1024 * 1024; /* one segment */
	fill_and_stop(&c, 100);
	char seg[512];
	snprintf(seg, sizeof(seg), "%s/tq.00000001", tmpdir);
	struct stat st;
	ck_assert_int_eq(stat(seg, &st), 0);
	/* flip a byte inside the 50th record's payload, cut the last record */
	int fd = open(seg, O_RDWR);
	struct dqf_reader r;
	ck_assert_int_eq(dqf_reader_open(&r, seg, 0), SL_OK);
	const char *p;
	uint32_t len;
	uint64_t off = 0, off50 = 0, off99 = 0;
	for (int i = 0; i < 100; i++) {
		ck_assert_int_eq(dqf_reader_next(&r, &p, &len, &off), DQF_REC);
		if (i == 50)
			off50 = off;
		if (i == 99)
			off99 = off;
	}
	dqf_reader_close(&r);
	char b;
	ck_assert_int_eq(pread(fd, &b, 1, (off_t)off50 + 40), 1);
	b ^= 0x5a;
	ck_assert_int_eq(pwrite(fd, &b, 1, (off_t)off50 + 40), 1);
	ck_assert_int_eq(ftruncate(fd, (off_t)off99 + 30), 0);
	close(fd);

	struct sink s;
	sink_init(&s, 100, true);
	struct queue *q = queue_create("tq", &c, consume, &s);
	ck_assert_int_eq(queue_start(q), SL_OK);
	ck_assert_uint_eq(atomic_load(&q->stats.loaded), 98);
	ck_assert_uint_eq(atomic_load(&q->stats.disk_corrupt), 2);
	for (int i = 0; i < 500 && s.total < 98; i++)
		usleep(10000);
	queue_drain_and_stop(q);
	queue_destroy(q);
	ck_assert_int_eq(s.total, 98);
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(s.seen[i], i == 50 || i == 99 ? 0 : 1);
	free(s.seen);

	/* a corrupt state file: read from the oldest segment, lose nothing */
	fill_and_stop(&c, 40);
	char qi[512];
	snprintf(qi, sizeof(qi), "%s/tq.qi", tmpdir);
	fd = open(qi, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "garbage", 7), 7);
	close(fd);
	sink_init(&s, 100, true);
	drain_all(&c, &s, 40);
	ck_assert_int_eq(s.total, 40);
	/* a segment whose header is destroyed is left alone, never reused */
	fill_and_stop(&c, 10);
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		if (!strncmp(de->d_name, "tq.0", 4))
			snprintf(seg, sizeof(seg), "%s/%s", tmpdir, de->d_name);
	closedir(d);
	fd = open(seg, O_WRONLY);
	ck_assert_int_eq(pwrite(fd, "XXXX", 4, 0), 4);
	close(fd);
	free(s.seen);
	sink_init(&s, 100, true);
	struct queue *q2 = queue_create("tq", &c, consume, &s);
	ck_assert_int_eq(queue_start(q2), SL_OK);
	ck_assert_uint_eq(atomic_load(&q2->stats.disk_corrupt), 1);
	enqueue_range(q2, 0, 5, FLOW_DELAY);
	for (int i = 0; i < 300 && s.total < 5; i++)
		usleep(10000);
	queue_drain_and_stop(q2);
	queue_destroy(q2);
	ck_assert_int_eq(s.total, 5);
	ck_assert_int_eq(stat(seg, &st), 0); /* still there */
	queue_cfg_free(&c);
	free(s.seen);
	rm_tmpdir();
}
END_TEST

START_TEST(max_disk_space)
{
	mk_tmpdir();
	struct queue_cfg c;
	cfg_disk(&c, QUEUE_DISK);
	c.max_disk_space = 64 * 1024;
	struct sink s;
	sink_init(&s, 3000, false);
	struct queue *q = queue_create("tq", &c, consume, &s);
	ck_assert_int_eq(queue_start(q), SL_OK);
	enqueue_range(q, 0, 3000, FLOW_NO_DELAY);
	uint64_t written = atomic_load(&q->stats.disk_written);
	uint64_t lost = atomic_load(&q->stats.discarded_disk);
	ck_assert_uint_gt(lost, 0);
	ck_assert_uint_eq(written + lost, 3000);
	ck_assert_uint_gt(atomic_load(&q->stats.disk_full), 0);
	ck_assert_uint_le(atomic_load(&q->stats.disk_bytes), 64 * 1024);
	atomic_store(&s.gate_open, true);
	for (int i = 0; i < 500 && s.total < (int)written; i++)
		usleep(10000);
	queue_drain_and_stop(q);
	queue_destroy(q);
	ck_assert_int_eq(s.total, (int)written);
	queue_cfg_free(&c);
	free(s.seen);
	rm_tmpdir();
}
END_TEST

static bool file_contains(const char *path, const char *needle)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return memmem(buf, n, needle, strlen(needle)) != NULL;
}

START_TEST(encrypted_queue)
{
#ifndef HAVE_GCRYPT
	return;
#else
	mk_tmpdir();
	struct queue_cfg c;
	cfg_disk(&c, QUEUE_DISK);
	c.cry_provider = strdup("gcry");
	c.cry_key = strdup("0123456789abcdef"); /* AES128: 16 bytes */
	fill_and_stop(&c, 200);
	char seg[512];
	snprintf(seg, sizeof(seg), "%s/tq.00000001", tmpdir);
	ck_assert(!file_contains(seg, "message #1"));
	ck_assert(!file_contains(seg, "client.example"));
	/* a wrong key: the queue does not start, the files stay */
	struct queue_cfg bad;
	queue_cfg_copy(&bad, &c);
	free(bad.cry_key);
	bad.cry_key = strdup("fedcba9876543210");
	struct sink s;
	sink_init(&s, 200, true);
	struct queue *q = queue_create("tq", &bad, consume, &s);
	ck_assert_int_ne(queue_start(q), SL_OK);
	queue_destroy(q);
	struct stat st;
	ck_assert_int_eq(stat(seg, &st), 0);
	/* no key at all */
	free(bad.cry_provider);
	free(bad.cry_key);
	bad.cry_provider = bad.cry_key = NULL;
	q = queue_create("tq", &bad, consume, &s);
	ck_assert_int_ne(queue_start(q), SL_OK);
	queue_destroy(q);
	/* the right key: all delivered */
	drain_all(&c, &s, 200);
	ck_assert_int_eq(s.total, 200);
	ck_assert(s.in_order);
	queue_cfg_free(&bad);
	queue_cfg_free(&c);
	free(s.seen);
	rm_tmpdir();
#endif
}
END_TEST

/* Golden files of format version 1 (tests/golden/queue-v1/): written by
 * this version with SLUICE_GOLDEN_WRITE=DIR, and read by every later one. */
START_TEST(golden_v1_readable)
{
	const char *src = getenv("srcdir") ? getenv("srcdir") : ".";
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/tests/golden/queue-v1", src);
	mk_tmpdir();
	const char *w = getenv("SLUICE_GOLDEN_WRITE");
	struct queue_cfg c;
	cfg_disk(&c, QUEUE_DISK);
	if (w) {
		free(c.spool_directory);
		c.spool_directory = strdup(w);
		free(c.filename);
		c.filename = strdup("golden");
		struct sink s;
		sink_init(&s, 10, false);
		struct queue *q = queue_create("golden", &c, consume, &s);
		ck_assert_int_eq(queue_start(q), SL_OK);
		struct msg *m[10];
		for (int i = 0; i < 10; i++) {
			m[i] = mk(i);
			if (i == 3)
				m[i]->json = fjson_tokener_parse("{\"k\":\"v\"}");
		}
		queue_enqueue(q, m, 10, FLOW_DELAY);
		queue_drain_and_stop(q);
		queue_destroy(q);
		free(s.seen);
	}
	/* copy to a temp dir (reading consumes), then read */
	char cmd[1200];
	snprintf(cmd, sizeof(cmd), "cp %s/golden.* %s/", dir, tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	free(c.filename);
	c.filename = strdup("golden");
	free(c.spool_directory);
	c.spool_directory = strdup(tmpdir);
	struct sink s;
	sink_init(&s, 10, true);
	drain_all(&c, &s, 10);
	ck_assert_int_eq(s.total, 10);
	ck_assert(s.in_order);
	queue_cfg_free(&c);
	free(s.seen);
	rm_tmpdir();
}
END_TEST

START_TEST(raw_severity_scan)
{
	ck_assert_int_eq(queue_raw_severity("<13>x", 5), 5);
	ck_assert_int_eq(queue_raw_severity("<191>x", 6), 7);
	ck_assert_int_eq(queue_raw_severity("<0>x", 4), 0);
	ck_assert_int_eq(queue_raw_severity("<192>x", 6), -1);
	ck_assert_int_eq(queue_raw_severity("13>x", 4), -1);
	ck_assert_int_eq(queue_raw_severity("<>x", 3), -1);
}
END_TEST

START_TEST(discard_mark_by_severity)
{
	struct queue_cfg c;
	queue_cfg_defaults(&c, QUEUE_ROLE_MAIN, false);
	c.type = QUEUE_LINKED_LIST;
	c.size = 1000;
	c.discard_mark = 100;
	c.discard_severity = 6; /* info and debug go when above the mark */
	struct sink s;
	sink_init(&s, 1000, false);
	struct queue *q = queue_create("d", &c, consume, &s);
	/* not started: the queue fills */
	enqueue_range(q, 0, 400, FLOW_NO_DELAY); /* severities 5,6,7,0,1,2,3,4 cycling */
	/* above 100: of each 8, severities 6 and 7 are dropped */
	uint64_t nf = atomic_load(&q->stats.discarded_nf);
	uint64_t expect = 0;
	for (int k = 100; k < 400; k++)
		expect += (k % 8 == 1 || k % 8 == 2);
	ck_assert_uint_eq(nf, expect);
	ck_assert_uint_eq(queue_size(q) + nf, 400);
	queue_destroy(q);
	free(s.seen);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("queue_disk");
	TCase *tc = tcase_create("disk");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, format_roundtrip);
	tcase_add_test(tc, disk_queue_order_and_restart);
	tcase_add_test(tc, da_spills_and_drains_back);
	tcase_add_test(tc, da_save_on_shutdown);
	tcase_add_test(tc, corrupt_and_truncated_segments);
	tcase_add_test(tc, max_disk_space);
	tcase_add_test(tc, encrypted_queue);
	tcase_add_test(tc, golden_v1_readable);
	tcase_add_test(tc, raw_severity_scan);
	tcase_add_test(tc, discard_mark_by_severity);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
