/* test_netstrm.c — unit tests of the server side's read-ahead
 * (runtime/netstrm_gtls.c, "Reading ahead"): a TLS session over
 * 127.0.0.1 (anonymous TLS, netstrm's own client in a thread) whose
 * server end is read the way an event loop reads it.
 *   - every byte arrives, in order, also when each turn stops after a few
 *     records and goes back to poll() while netstrm_pending() says no: bytes
 *     read ahead must count as pending, or they would sit where poll()
 *     cannot see them (the client sends nothing more and stays connected);
 *   - netstrm_read_budget() bounds what one turn reads from the socket.
 *
 * Threading: the test thread is the server; one client thread sends.
 */
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <fcntl.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <time.h>

#include "netstrm.h"

#define TOTAL (3 * 1024 * 1024)
#define CHUNK 10000

static unsigned char pattern(size_t i)
{
	return (unsigned char)((i * 131u + (i >> 13)) & 0xff);
}

/* A throw-away self-signed ECDSA certificate for the server (anonymous
 * authentication still has the server show one, as in imtcp). */
static char cert_path[64], key_path[64];

static void write_datum(const char *path, const gnutls_datum_t *d)
{
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "cannot write %s", path);
	ck_assert_uint_eq(fwrite(d->data, 1, d->size, f), d->size);
	fclose(f);
}

static void make_cert(void)
{
	if (cert_path[0])
		return;
	char dir[] = "/tmp/test_netstrm.XXXXXX";
	ck_assert(mkdtemp(dir) != NULL);
	snprintf(cert_path, sizeof(cert_path), "%s/cert.pem", dir);
	snprintf(key_path, sizeof(key_path), "%s/key.pem", dir);
	gnutls_x509_privkey_t key;
	gnutls_x509_crt_t crt;
	gnutls_datum_t d;
	time_t now = time(NULL);
	ck_assert_int_eq(gnutls_x509_privkey_init(&key), 0);
	ck_assert_int_eq(gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
		GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0), 0);
	ck_assert_int_eq(gnutls_x509_crt_init(&crt), 0);
	gnutls_x509_crt_set_version(crt, 3);
	gnutls_x509_crt_set_serial(crt, "\x01", 1);
	gnutls_x509_crt_set_activation_time(crt, now - 3600);
	gnutls_x509_crt_set_expiration_time(crt, now + 86400);
	gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, "localhost", 9);
	ck_assert_int_eq(gnutls_x509_crt_set_key(crt, key), 0);
	ck_assert_int_eq(gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0), 0);
	ck_assert_int_eq(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &d), 0);
	write_datum(cert_path, &d);
	gnutls_free(d.data);
	ck_assert_int_eq(gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &d), 0);
	write_datum(key_path, &d);
	gnutls_free(d.data);
	gnutls_x509_crt_deinit(crt);
	gnutls_x509_privkey_deinit(key);
}

struct client {
	int port;
	int release[2];          /* a pipe: the server has read everything, close */
	char err[256];           /* the client's failure, read after the join */
};

static void *client_main(void *arg)
{
	struct client *c = arg;
	struct netstrm_cfg cfg = { .mode = 1, .driver = "gtls", .auth = NETSTRM_AUTH_ANON };
	char err[256] = "";
	struct netstrm_ctx *ctx = netstrm_ctx_create(&cfg, false, err, sizeof(err));
	struct netstrm *s = NULL;
	char port[16];
	snprintf(port, sizeof(port), "%d", c->port);
	if (ctx)
		s = netstrm_connect(ctx, "127.0.0.1", port, 10000, err, sizeof(err));
	if (s) {
		unsigned char *buf = malloc(CHUNK);
		for (size_t off = 0; buf && off < TOTAL; off += CHUNK) {
			size_t n = TOTAL - off < CHUNK ? TOTAL - off : CHUNK;
			for (size_t i = 0; i < n; i++)
				buf[i] = pattern(off + i);
			if (netstrm_send_all(s, buf, n) != 0) {
				snprintf(err, sizeof(err), "send: %s", netstrm_error(s));
				break;
			}
		}
		free(buf);
	}
	snprintf(c->err, sizeof(c->err), "%s", err);
	/* stay connected, sending nothing more, until the server is done */
	char b;
	while (read(c->release[0], &b, 1) < 0 && errno == EINTR)
		;
	netstrm_close(s);
	netstrm_ctx_destroy(ctx);
	return NULL;
}

/* Accept one TLS session on a fresh listener; the client thread runs. */
static struct netstrm *serve_one(struct client *c, pthread_t *th, struct netstrm_ctx **ctxp)
{
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(lfd, 0);
	/* a receive window far larger than a turn's budget (set before
	 * listen, so the window scale allows it; FORCE works as root) */
	int rcvbuf = 4 * 1024 * 1024;
	if (setsockopt(lfd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) != 0)
		(void)setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(lfd, 1), 0);
	socklen_t sl = sizeof(sa);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	c->port = ntohs(sa.sin_port);
	ck_assert_int_eq(pipe(c->release), 0);
	ck_assert_int_eq(pthread_create(th, NULL, client_main, c), 0);

	int fd = accept(lfd, NULL, NULL);
	ck_assert_int_ge(fd, 0);
	close(lfd);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	make_cert();
	struct netstrm_cfg cfg = { .mode = 1, .driver = "gtls", .auth = NETSTRM_AUTH_ANON,
				   .certfile = cert_path, .keyfile = key_path };
	char err[256] = "";
	*ctxp = netstrm_ctx_create(&cfg, true, err, sizeof(err));
	ck_assert_msg(*ctxp != NULL, "server ctx: %s", err);
	struct netstrm *s = netstrm_accept(*ctxp, fd, "127.0.0.1", err, sizeof(err));
	ck_assert_msg(s != NULL, "accept: %s", err);
	for (int i = 0; i < 1000; i++) {
		enum netstrm_rc r = netstrm_handshake(s);
		if (r == NETSTRM_OK)
			return s;
		ck_assert_msg(r == NETSTRM_AGAIN, "handshake: %s", netstrm_error(s));
		struct pollfd p = { .fd = fd, .events = netstrm_want_write(s) ? POLLOUT : POLLIN };
		poll(&p, 1, 100);
	}
	ck_abort_msg("handshake did not finish");
	return NULL;
}

static void finish(struct client *c, pthread_t th, struct netstrm *s, struct netstrm_ctx *ctx)
{
	ck_assert_int_eq(write(c->release[1], "x", 1), 1);
	pthread_join(th, NULL);
	close(c->release[0]);
	close(c->release[1]);
	ck_assert_msg(c->err[0] == '\0', "client: %s", c->err);
	netstrm_close(s);
	netstrm_ctx_destroy(ctx);
}

/* Read turns of at most `max_recs` records (then back to poll() unless
 * netstrm_pending()) with `budget` bytes of socket per turn, until all of
 * TOTAL came; fails when poll() sees nothing for 3 s while bytes are
 * missing. Returns the most plaintext bytes one turn but the first
 * delivered. */
static size_t read_all(struct netstrm *s, int max_recs, size_t budget, int slow_turns,
		       size_t *first)
{
	size_t got = 0, max_turn = 0;
	int turns = 0;
	bool bad = false;
	while (got < TOTAL) {
		if (!netstrm_pending(s)) {
			struct pollfd p = { .fd = netstrm_fd(s), .events = POLLIN };
			int r = poll(&p, 1, 3000);
			ck_assert_msg(r > 0, "stranded: %zu of %d bytes arrived, then poll() saw "
				      "nothing for 3 s and netstrm_pending() said no", got, TOTAL);
		}
		if (turns < slow_turns)
			usleep(50 * 1000); /* let the sender fill the socket */
		netstrm_read_budget(s, budget);
		size_t turn = 0;
		for (int recs = 0;; recs++) {
			if (max_recs > 0 && recs >= max_recs && !netstrm_pending(s))
				break;
			if (max_recs > 0 && recs >= max_recs * 64)
				break; /* pending forever would be a bug as well */
			const char *data;
			void *rec;
			ssize_t n = netstrm_recv_record(s, &data, &rec);
			if (n < 0 && errno == EAGAIN)
				break;
			ck_assert_msg(n > 0, "recv_record: %zd (%s)", n, netstrm_error(s));
			for (ssize_t i = 0; i < n && !bad; i++)
				if ((unsigned char)data[i] != pattern(got + (size_t)i))
					bad = true;
			netstrm_record_free(rec);
			ck_assert_msg(!bad, "wrong byte near offset %zu", got);
			got += (size_t)n;
			turn += (size_t)n;
		}
		/* the first turn also gets what the handshake's last read
		 * brought along (read with no budget) */
		if (turn > 0 && ++turns == 1 && first)
			*first = turn;
		if (turns > 1 && turn > max_turn)
			max_turn = turn;
	}
	ck_assert_uint_eq(got, TOTAL);
	return max_turn;
}

/* One session from accept to close, read by read_all (see there). */
static size_t one_session(int max_recs, size_t budget, int slow_turns, size_t *first)
{
	struct client c = { 0 };
	pthread_t th;
	struct netstrm_ctx *ctx;
	struct netstrm *s = serve_one(&c, &th, &ctx);
	size_t max_turn = read_all(s, max_recs, budget, slow_turns, first);
	finish(&c, th, s, ctx);
	return max_turn;
}

START_TEST(t_readahead_counts_as_pending)
{
	/* two records a turn, then poll(): the 256 KiB read ahead hold many
	 * more, and the sender is done, so only netstrm_pending() can say
	 * they are there */
	one_session(2, SIZE_MAX, 0, NULL);
}
END_TEST

START_TEST(t_budget_bounds_a_turn)
{
	/* each turn may read 32 KiB of socket: it then delivers at most
	 * that plus the rest of a record gnutls had begun in the turn before;
	 * the first turns wait 50 ms first, so that the socket holds far
	 * more than the budget */
	size_t first = 0;
	size_t max_turn = one_session(0, 32 * 1024, 8, &first);
	ck_assert_msg(first <= 256 * 1024 + 32 * 1024 + 17 * 1024, "the first turn read %zu bytes "
		      "with a 32 KiB budget", first);
	ck_assert_msg(max_turn > 0, "everything came in one turn despite a 32 KiB budget");
	ck_assert_msg(max_turn <= 32 * 1024 + 17 * 1024, "one turn read %zu bytes with a 32 KiB "
		      "budget", max_turn);
}
END_TEST

START_TEST(t_unlimited_reads_everything)
{
	one_session(0, SIZE_MAX, 0, NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("netstrm");
	TCase *tc = tcase_create("readahead");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_readahead_counts_as_pending);
	tcase_add_test(tc, t_budget_bounds_a_turn);
	tcase_add_test(tc, t_unlimited_reads_everything);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (cert_path[0]) {
		unlink(cert_path);
		unlink(key_path);
		*strrchr(cert_path, '/') = '\0';
		rmdir(cert_path);
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
