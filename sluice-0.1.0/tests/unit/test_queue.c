/* test_queue.c — unit tests of the in-memory queues: order, batching,
 * every message delivered exactly once with several producers and
 * workers, flow control (a producer waits while the queue is full), and
 * draining at stop.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "queue.h"

struct sink {
	pthread_mutex_t mtx;
	int *seen;        /* count per message number */
	int n_max;
	int last;         /* for order checks with one worker */
	bool in_order;
	int batches;
	int max_batch;
	int total;
	useconds_t delay; /* per batch, to make the queue fill up */
};

static int msg_num(struct msg *m)
{
	return atoi(m->raw);
}

static void consume(void *arg, struct msg **msgs, int n, struct worker *w)
{
	(void)w;
	struct sink *s = arg;
	if (s->delay)
		usleep(s->delay);
	pthread_mutex_lock(&s->mtx);
	s->batches++;
	if (n > s->max_batch)
		s->max_batch = n;
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

static void sink_init(struct sink *s, int n)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->mtx, NULL);
	s->seen = calloc(n, sizeof(int));
	s->n_max = n;
	s->last = -1;
	s->in_order = true;
}

static struct msg *mk(int k)
{
	char b[32];
	int l = snprintf(b, sizeof(b), "%d", k);
	struct syslog_time t = { 0 };
	return msg_create(b, l, NULL, &t, 0);
}

static void enqueue_range(struct queue *q, int from, int to, int batch)
{
	struct msg *buf[256];
	for (int k = from; k < to;) {
		int n = 0;
		while (n < batch && k < to)
			buf[n++] = mk(k++);
		ck_assert_int_eq(queue_enqueue(q, buf, n, FLOW_DELAY), SL_OK);
	}
}

static void run_single(enum queue_type type)
{
	struct queue_cfg c;
	queue_cfg_defaults(&c, QUEUE_ROLE_MAIN, false);
	c.type = type;
	c.size = 1000;
	c.dequeue_batch_size = 64;
	struct sink s;
	sink_init(&s, 100000);
	struct queue *q = queue_create("t", &c, consume, &s);
	ck_assert_int_eq(queue_start(q), SL_OK);
	enqueue_range(q, 0, 100000, 100);
	queue_drain_and_stop(q);
	ck_assert_int_eq(s.total, 100000);
	ck_assert(s.in_order);
	ck_assert_int_le(s.max_batch, 64);
	for (int i = 0; i < 100000; i++)
		ck_assert_int_eq(s.seen[i], 1);
	ck_assert_uint_eq(atomic_load(&q->stats.enqueued), 100000);
	queue_destroy(q);
	free(s.seen);
}

START_TEST(fixed_array_order)
{
	run_single(QUEUE_FIXED_ARRAY);
}
END_TEST

START_TEST(linked_list_order)
{
	run_single(QUEUE_LINKED_LIST);
}
END_TEST

START_TEST(direct_runs_inline)
{
	struct queue_cfg c;
	queue_cfg_defaults(&c, QUEUE_ROLE_ACTION, false);
	ck_assert_int_eq(c.type, QUEUE_DIRECT);
	struct sink s;
	sink_init(&s, 1000);
	struct queue *q = queue_create("d", &c, consume, &s);
	ck_assert_int_eq(queue_start(q), SL_OK);
	enqueue_range(q, 0, 1000, 10);
	/* no threads: everything was consumed before enqueue returned */
	ck_assert_int_eq(s.total, 1000);
	ck_assert(s.in_order);
	queue_destroy(q);
	free(s.seen);
}
END_TEST

struct producer {
	struct queue *q;
	int from, to;
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	enqueue_range(p->q, p->from, p->to, 37);
	return NULL;
}

static void run_parallel(enum queue_type type, int workers)
{
	struct queue_cfg c;
	queue_cfg_defaults(&c, QUEUE_ROLE_MAIN, false);
	c.type = type;
	c.size = 500; /* small: producers must wait (flow control) */
	c.dequeue_batch_size = 128;
	c.worker_threads = workers;
	struct sink s;
	const int per = 50000, np = 4;
	sink_init(&s, per * np);
	s.delay = 50;
	struct queue *q = queue_create("p", &c, consume, &s);
	ck_assert_int_eq(queue_start(q), SL_OK);
	pthread_t th[4];
	struct producer pr[4];
	for (int i = 0; i < np; i++) {
		pr[i] = (struct producer){ q, i * per, (i + 1) * per };
		pthread_create(&th[i], NULL, produce, &pr[i]);
	}
	for (int i = 0; i < np; i++)
		pthread_join(th[i], NULL);
	queue_drain_and_stop(q);
	ck_assert_int_eq(s.total, per * np);
	for (int i = 0; i < per * np; i++)
		ck_assert_msg(s.seen[i] == 1, "message %d seen %d times", i, s.seen[i]);
	/* the queue filled up, so producers had to wait at least once */
	ck_assert_uint_gt(atomic_load(&q->stats.full), 0);
	ck_assert_uint_le(atomic_load(&q->stats.max_size), 500);
	ck_assert_uint_eq(atomic_load(&q->stats.discarded_full), 0);
	queue_destroy(q);
	free(s.seen);
}

START_TEST(fixed_array_parallel)
{
	run_parallel(QUEUE_FIXED_ARRAY, 2);
}
END_TEST

START_TEST(linked_list_parallel)
{
	run_parallel(QUEUE_LINKED_LIST, 3);
}
END_TEST

START_TEST(no_delay_discards_when_full)
{
	struct queue_cfg c;
	queue_cfg_defaults(&c, QUEUE_ROLE_MAIN, false);
	c.type = QUEUE_FIXED_ARRAY;
	c.size = 100;
	c.timeout_enqueue = 10;
	struct sink s;
	sink_init(&s, 1000);
	struct queue *q = queue_create("u", &c, consume, &s);
	/* not started: nothing is consumed, so the queue fills */
	struct msg *buf[150];
	for (int i = 0; i < 150; i++)
		buf[i] = mk(i);
	queue_enqueue(q, buf, 150, FLOW_NO_DELAY);
	ck_assert_uint_eq(atomic_load(&q->stats.enqueued), 100);
	ck_assert_uint_eq(atomic_load(&q->stats.discarded_full), 50);
	ck_assert_uint_eq(queue_size(q), 100);
	queue_destroy(q);
	free(s.seen);
}
END_TEST

/* FLOW_LIGHT_DELAY (imuxsock, imklog): above lightDelayMark a batch waits
 * about 1 s, then goes in all the same; below the mark, no wait; a full
 * queue discards as FLOW_NO_DELAY does. */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(light_delay_waits_then_enqueues)
{
	struct queue_cfg c;
	queue_cfg_defaults(&c, QUEUE_ROLE_MAIN, false);
	c.type = QUEUE_FIXED_ARRAY;
	c.size = 100;
	c.light_delay_mark = 10;
	c.timeout_enqueue = 10;
	struct sink s;
	sink_init(&s, 1000);
	struct queue *q = queue_create("l", &c, consume, &s);
	/* not started: nothing is consumed */
	struct msg *buf[100];
	for (int i = 0; i < 20; i++)
		buf[i] = mk(i);
	double t0 = now_s();
	queue_enqueue(q, buf, 20, FLOW_LIGHT_DELAY);      /* 0 < mark: no wait */
	ck_assert(now_s() - t0 < 0.5);
	ck_assert_uint_eq(atomic_load(&q->stats.light_delayed), 0);
	for (int i = 0; i < 20; i++)
		buf[i] = mk(20 + i);
	t0 = now_s();
	queue_enqueue(q, buf, 20, FLOW_LIGHT_DELAY);      /* 20 >= mark: ~1 s */
	double dt = now_s() - t0;
	ck_assert_msg(dt >= 0.9 && dt < 3.0, "light delay took %.2f s", dt);
	ck_assert_uint_eq(atomic_load(&q->stats.light_delayed), 1);
	ck_assert_uint_eq(queue_size(q), 40);
	for (int i = 0; i < 20; i++)
		buf[i] = mk(40 + i);
	t0 = now_s();
	queue_enqueue(q, buf, 20, FLOW_NO_DELAY);         /* no delay class */
	ck_assert(now_s() - t0 < 0.5);
	for (int i = 0; i < 70; i++)
		buf[i] = mk(60 + i);
	queue_enqueue(q, buf, 70, FLOW_LIGHT_DELAY);      /* 40 fit, 30 discarded */
	ck_assert_uint_eq(queue_size(q), 100);
	ck_assert_uint_eq(atomic_load(&q->stats.discarded_full), 30);
	ck_assert_uint_eq(atomic_load(&q->stats.light_delayed), 2);
	queue_destroy(q);
	free(s.seen);
}
END_TEST

/* Workers on demand: worker k starts when more than
 * k * workerThreadMinimumMessages wait, and every worker ends after
 * timeoutWorkerThreadShutdown ms without work; new work starts one again. */
static pthread_mutex_t gate_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static bool gate_open;

static void consume_gated(void *arg, struct msg **msgs, int n, struct worker *w)
{
	pthread_mutex_lock(&gate_mtx);
	while (!gate_open)
		pthread_cond_wait(&gate_cv, &gate_mtx);
	pthread_mutex_unlock(&gate_mtx);
	consume(arg, msgs, n, w);
}

static int running(struct queue *q)
{
	pthread_mutex_lock(&q->mtx);
	int n = q->n_running;
	pthread_mutex_unlock(&q->mtx);
	return n;
}

START_TEST(workers_on_demand_and_idle_exit)
{
	struct queue_cfg c;
	queue_cfg_defaults(&c, QUEUE_ROLE_MAIN, false);
	c.type = QUEUE_LINKED_LIST;
	c.size = 1000;
	c.dequeue_batch_size = 10;
	c.worker_threads = 3;
	c.worker_min_msgs = 100;
	c.timeout_worker_shutdown = 300;
	struct sink s;
	sink_init(&s, 1000);
	gate_open = false;
	struct queue *q = queue_create("w", &c, consume_gated, &s);
	ck_assert_int_eq(queue_start(q), SL_OK);
	ck_assert_int_eq(running(q), 1);           /* only the first */
	enqueue_range(q, 0, 50, 50);
	usleep(100000);
	ck_assert_int_eq(running(q), 1);           /* 50 < 100: no second */
	enqueue_range(q, 50, 250, 200);            /* 240 wait: 2 more */
	ck_assert_int_eq(running(q), 3);
	ck_assert_uint_eq(atomic_load(&q->stats.worker_starts), 3);
	pthread_mutex_lock(&gate_mtx);
	gate_open = true;
	pthread_cond_broadcast(&gate_cv);
	pthread_mutex_unlock(&gate_mtx);
	for (int i = 0; i < 100 && running(q) > 0; i++)
		usleep(20000);                     /* 300 ms idle, then they end */
	ck_assert_int_eq(running(q), 0);
	ck_assert_uint_eq(atomic_load(&q->stats.worker_idle_exits), 3);
	ck_assert_int_eq(s.total, 250);
	enqueue_range(q, 250, 255, 5);             /* work again: one starts */
	ck_assert_int_eq(running(q), 1);
	ck_assert_uint_eq(atomic_load(&q->stats.worker_starts), 4);
	queue_drain_and_stop(q);
	ck_assert_int_eq(s.total, 255);
	for (int i = 0; i < 255; i++)
		ck_assert_int_eq(s.seen[i], 1);
	queue_destroy(q);
	free(s.seen);
}
END_TEST

START_TEST(legacy_main_defaults)
{
	struct queue_cfg c;
	queue_cfg_defaults(&c, QUEUE_ROLE_MAIN, true);
	ck_assert_int_eq(c.size, 100000);
	ck_assert_int_eq(c.dequeue_batch_size, 256);
	ck_assert_int_eq(c.worker_threads, 2);
	queue_cfg_defaults(&c, QUEUE_ROLE_MAIN, false);
	ck_assert_int_eq(c.size, 50000);
	ck_assert_int_eq(c.dequeue_batch_size, 1024);
	ck_assert_int_eq(c.worker_threads, 1);
	queue_cfg_defaults(&c, QUEUE_ROLE_ACTION, false);
	ck_assert_int_eq(c.size, 1000);
	ck_assert_int_eq(c.dequeue_batch_size, 128);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("queue");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, fixed_array_order);
	tcase_add_test(tc, linked_list_order);
	tcase_add_test(tc, direct_runs_inline);
	tcase_add_test(tc, fixed_array_parallel);
	tcase_add_test(tc, linked_list_parallel);
	tcase_add_test(tc, no_delay_discards_when_full);
	tcase_add_test(tc, light_delay_waits_then_enqueues);
	tcase_add_test(tc, workers_on_demand_and_idle_exit);
	tcase_add_test(tc, legacy_main_defaults);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
