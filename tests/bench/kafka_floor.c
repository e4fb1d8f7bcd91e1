/* kafka_floor.c — librdkafka's own share of producing to Kafka on this
 * machine: N messages shaped as omkafka sends the Kafka bench's (value
 * "v1|tcpflood|tag| msgnum:NNNNNNNN:|167", key "NNNNNNNN", the record
 * timestamp of the message, librdkafka's partitioner, a delivery report
 * per message), produced the way omkafka produces them
 * (rd_kafka_produceva with RD_KAFKA_MSG_F_COPY, rd_kafka_poll every
 * 1,024 messages, at most WINDOW of them without their delivery report
 * and then served until half of them have it, as omkafka's asyncWindow;
 * linger.ms 2 ms, omkafka's default), and nothing else: no input, no
 * parsing, no queue, no template. Its CPU per message is the least a
 * daemon that produces through librdkafka can spend here, and its
 * messages per second the most it can send while the broker shares the
 * machine (with no sender on it either).
 *
 *   kafka_floor BROKER TOPIC N [PRODUCERS [WINDOW [NAME=VALUE ...]]]
 *
 * PRODUCERS (default 2, as sluiced's two queue workers) threads, each
 * with its own producer and N/PRODUCERS messages; WINDOW default 10000
 * (0: no window, librdkafka's own queue limit only); NAME=VALUE are
 * librdkafka settings (e.g. linger.ms=5) for each producer. Prints one
 * line: the messages acknowledged, seconds from the first produce call
 * to the last delivery report, messages per second, CPU seconds (user +
 * system, all threads, librdkafka's included) and CPU µs per message.
 * Driven by tests/services/kafka_bench.sh (KAFKA_BENCH_DUTS=floor).
 */
#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static const char *broker, *topic;
static long long total;
static int producers;
static long long window;
static char **settings; /* NAME=VALUE, NULL-terminated */
static atomic_llong acked, failed;
static double done[64]; /* per producer: when its last report came */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void dr(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	(void)rk;
	long long *outstanding = opaque;
	(*outstanding)--;
	if (m->err)
		atomic_fetch_add_explicit(&failed, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&acked, 1, memory_order_relaxed);
}

static void *produce_all(void *arg)
{
	long long first = (long long)(intptr_t)arg, n = total / producers;
	long long outstanding = 0;
	char err[512];
	rd_kafka_conf_t *c = rd_kafka_conf_new();
	if (rd_kafka_conf_set(c, "bootstrap.servers", broker, err, sizeof(err)) != RD_KAFKA_CONF_OK ||
	    rd_kafka_conf_set(c, "linger.ms", "2", err, sizeof(err)) != RD_KAFKA_CONF_OK) {
		fprintf(stderr, "kafka_floor: %s\n", err);
		exit(1);
	}
	for (char **kv = settings; *kv; kv++) {
		char name[256];
		const char *eq = strchr(*kv, '=');
		if (!eq || (size_t)(eq - *kv) >= sizeof(name)) {
			fprintf(stderr, "kafka_floor: expected NAME=VALUE, got '%s'\n", *kv);
			exit(2);
		}
		memcpy(name, *kv, (size_t)(eq - *kv));
		name[eq - *kv] = '\0';
		if (rd_kafka_conf_set(c, name, eq + 1, err, sizeof(err)) != RD_KAFKA_CONF_OK) {
			fprintf(stderr, "kafka_floor: %s\n", err);
			exit(2);
		}
	}
	rd_kafka_conf_set_opaque(c, &outstanding);
	rd_kafka_conf_set_dr_msg_cb(c, dr);
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, c, err, sizeof(err));
	if (!rk) {
		fprintf(stderr, "kafka_floor: %s\n", err);
		exit(1);
	}
	rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
	/* Mar  1 01:00:00 of this year, as tcpflood's messages say */
	struct tm tm = { .tm_mon = 2, .tm_mday = 1, .tm_hour = 1 };
	time_t t = time(NULL);
	struct tm nowtm;
	localtime_r(&t, &nowtm);
	tm.tm_year = nowtm.tm_year;
	tm.tm_isdst = -1;
	int64_t ts = (int64_t)mktime(&tm) * 1000;
	char value[128], key[32];
	unsigned since_poll = 0;
	for (long long i = first; i < first + n; i++) {
		int kl = snprintf(key, sizeof(key), "%08lld", i);
		int vl = snprintf(value, sizeof(value), "v1|tcpflood|tag| msgnum:%s:|167", key);
		rd_kafka_vu_t vu[] = {
			{ .vtype = RD_KAFKA_VTYPE_RKT, .u.rkt = rkt },
			{ .vtype = RD_KAFKA_VTYPE_PARTITION, .u.i32 = RD_KAFKA_PARTITION_UA },
			{ .vtype = RD_KAFKA_VTYPE_VALUE, .u.mem = { value, (size_t)vl } },
			{ .vtype = RD_KAFKA_VTYPE_MSGFLAGS, .u.i = RD_KAFKA_MSG_F_COPY },
			{ .vtype = RD_KAFKA_VTYPE_TIMESTAMP, .u.i64 = ts },
			{ .vtype = RD_KAFKA_VTYPE_OPAQUE, .u.ptr = NULL },
			{ .vtype = RD_KAFKA_VTYPE_KEY, .u.mem = { key, (size_t)kl } },
		};
		if (window && outstanding >= window) {
			while (outstanding > window / 2)
				rd_kafka_poll(rk, 100);
			since_poll = 0;
		}
		rd_kafka_error_t *e;
		while ((e = rd_kafka_produceva(rk, vu, sizeof(vu) / sizeof(vu[0])))) {
			if (rd_kafka_error_code(e) != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
				fprintf(stderr, "kafka_floor: %s\n", rd_kafka_error_string(e));
				exit(1);
			}
			rd_kafka_error_destroy(e);
			rd_kafka_poll(rk, 20);
		}
		outstanding++;
		if (++since_poll >= 1024) {
			since_poll = 0;
			rd_kafka_poll(rk, 0);
		}
	}
	while (outstanding > 0)
		rd_kafka_flush(rk, 100);
	done[first / n] = now_s();
	rd_kafka_topic_destroy(rkt);
	rd_kafka_destroy(rk);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: kafka_floor BROKER TOPIC N [PRODUCERS [WINDOW [NAME=VALUE ...]]]\n");
		return 2;
	}
	broker = argv[1];
	topic = argv[2];
	total = atoll(argv[3]);
	producers = argc > 4 ? atoi(argv[4]) : 2;
	window = argc > 5 ? atoll(argv[5]) : 10000;
	settings = argv + (argc > 5 ? 6 : argc); /* argv[argc] is NULL */
	if (total < 1 || producers < 1 || producers > 64 || window < 0 || window == 1) {
		fprintf(stderr, "kafka_floor: N >= 1, 1 <= PRODUCERS <= 64, WINDOW 0 or >= 2\n");
		return 2;
	}
	total -= total % producers;
	pthread_t th[64];
	double t0 = now_s();
	for (int i = 0; i < producers; i++)
		pthread_create(&th[i], NULL, produce_all, (void *)(intptr_t)(i * (total / producers)));
	for (int i = 0; i < producers; i++)
		pthread_join(th[i], NULL);
	double t1 = t0;
	for (int i = 0; i < producers; i++)
		t1 = done[i] > t1 ? done[i] : t1;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	long long ok = atomic_load(&acked);
	printf("acked %lld failed %lld  %.2f s  %.0f msg/s  cpu %.2f s  %.2f us/msg\n", ok,
	       (long long)atomic_load(&failed), t1 - t0, (double)ok / (t1 - t0), cpu,
	       ok ? cpu * 1e6 / (double)ok : 0.0);
	return atomic_load(&failed) ? 1 : 0;
}
