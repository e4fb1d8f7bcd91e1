/* udp_floor: the least CPU a UDP receiver on this machine can spend per
 * datagram — a receiver that does nothing but take datagrams off one
 * socket, as imudp does, so that sluiced's and rsyslogd's CPU per message
 * can be set against it (doc/benchmarks.md, "UDP: the kernel's floor").
 *
 *   udp_floor PORT COUNT recvmmsg BATCH      recvmmsg() batches of BATCH,
 *                                            64 KiB buffers, sender addresses
 *   udp_floor PORT COUNT uring NBUF          io_uring multishot recvmsg into
 *                                            a ring of NBUF 2 KiB buffers
 *                                            (built with -DHAVE_URING -luring)
 *
 * Both nap 500 us when a wake-up found little, as imudp's coalescing does.
 * Prints the datagrams received and user, system and total CPU us per
 * datagram once COUNT datagrams have arrived. Driven by udp_floor.sh. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_URING
#include <liburing.h>
#include <sys/mman.h>
#endif

static void nap(void)
{
	struct timespec ts = { 0, 500000 };
	nanosleep(&ts, NULL);
}

static long by_recvmmsg(int s, long total, int bs, unsigned long *sum)
{
	size_t bsz = 65536;
	char *buf = malloc((size_t)bs * bsz);
	struct mmsghdr *h = calloc((size_t)bs, sizeof(*h));
	struct iovec *iv = calloc((size_t)bs, sizeof(*iv));
	struct sockaddr_storage *ad = calloc((size_t)bs, sizeof(*ad));
	if (!buf || !h || !iv || !ad)
		return -1;
	for (int i = 0; i < bs; i++) {
		iv[i].iov_base = buf + (size_t)i * bsz;
		iv[i].iov_len = bsz;
		h[i].msg_hdr.msg_iov = &iv[i];
		h[i].msg_hdr.msg_iovlen = 1;
	}
	long got = 0;
	while (got < total) {
		struct pollfd p = { s, POLLIN, 0 };
		poll(&p, 1, -1);
		for (;;) {
			for (int i = 0; i < bs; i++) {
				h[i].msg_hdr.msg_name = &ad[i];
				h[i].msg_hdr.msg_namelen = sizeof(ad[i]);
			}
			int n = recvmmsg(s, h, (unsigned)bs, MSG_DONTWAIT, NULL);
			if (n <= 0)
				break;
			got += n;
			for (int i = 0; i < n; i++)
				*sum += ((unsigned char *)iv[i].iov_base)[h[i].msg_len / 2];
			if (n < bs) {
				nap();
				break;
			}
		}
	}
	return got;
}

#ifdef HAVE_URING
static long by_uring(int s, long total, int nbuf, unsigned long *sum)
{
	const size_t bsz = 2048;
	struct io_uring ring;
	struct io_uring_params p = { 0 };
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE;
	p.cq_entries = 8192;
	int r = io_uring_queue_init_params(64, &ring, &p);
	if (r) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-r));
		return -1;
	}
	struct io_uring_buf_ring *br = mmap(NULL, (size_t)nbuf * sizeof(struct io_uring_buf),
					    PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	struct io_uring_buf_reg reg = { .ring_addr = (unsigned long)br, .ring_entries = (unsigned)nbuf, .bgid = 1 };
	if (br == MAP_FAILED || (r = io_uring_register_buf_ring(&ring, &reg, 0)) != 0) {
		fprintf(stderr, "buffer ring: %s\n", strerror(r ? -r : errno));
		return -1;
	}
	io_uring_buf_ring_init(br);
	char *mem = malloc((size_t)nbuf * bsz);
	for (int i = 0; i < nbuf; i++)
		io_uring_buf_ring_add(br, mem + (size_t)i * bsz, bsz, (unsigned short)i,
				      io_uring_buf_ring_mask((unsigned)nbuf), i);
	io_uring_buf_ring_advance(br, nbuf);
	struct msghdr mh = { .msg_namelen = sizeof(struct sockaddr_storage) };
	long got = 0;
	bool armed = false;
	while (got < total) {
		if (!armed) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			io_uring_prep_recvmsg_multishot(sqe, s, &mh, 0);
			sqe->flags |= IOSQE_BUFFER_SELECT;
			sqe->buf_group = 1;
			armed = true;
		}
		r = io_uring_submit_and_wait(&ring, 1);
		if (r < 0 && r != -EINTR) {
			fprintf(stderr, "io_uring_enter: %s\n", strerror(-r));
			return -1;
		}
		struct io_uring_cqe *cqe;
		unsigned head;
		int n = 0;
		io_uring_for_each_cqe(&ring, head, cqe) {
			n++;
			if (!(cqe->flags & IORING_CQE_F_MORE))
				armed = false;
			if (cqe->res < 0)
				continue; /* -ENOBUFS: re-armed above */
			int bid = (int)(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
			char *b = mem + (size_t)bid * bsz;
			struct io_uring_recvmsg_out *o = io_uring_recvmsg_validate(b, cqe->res, &mh);
			if (o) {
				unsigned char *pl = io_uring_recvmsg_payload(o, &mh);
				*sum += pl[io_uring_recvmsg_payload_length(o, cqe->res, &mh) / 2];
				got++;
			}
			io_uring_buf_ring_add(br, b, bsz, (unsigned short)bid,
					      io_uring_buf_ring_mask((unsigned)nbuf), 0);
			io_uring_buf_ring_advance(br, 1);
		}
		io_uring_cq_advance(&ring, (unsigned)n);
		if (n < 8) /* the multishot takes 32 a turn; fewer: the socket is empty */
			nap();
	}
	return got;
}
#endif

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: %s PORT COUNT recvmmsg BATCH | uring NBUF\n", argv[0]);
		return 2;
	}
	long total = atol(argv[2]);
	int arg = atoi(argv[4]);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	int rb = 8 << 20; /* what rcvBufSize="4m" gives */
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb));
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])) };
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		perror("bind");
		return 1;
	}
	unsigned long sum = 0;
	long got = -1;
	if (!strcmp(argv[3], "recvmmsg"))
		got = by_recvmmsg(s, total, arg, &sum);
#ifdef HAVE_URING
	else if (!strcmp(argv[3], "uring"))
		got = by_uring(s, total, arg, &sum);
#endif
	else
		fprintf(stderr, "udp_floor: unknown mode %s\n", argv[3]);
	if (got <= 0)
		return 1;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double u = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	double k = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("mode=%s datagrams=%ld user_us=%.3f sys_us=%.3f cpu_us=%.3f (checksum %lu)\n", argv[3], got,
	       u * 1e6 / (double)got, k * 1e6 / (double)got, (u + k) * 1e6 / (double)got, sum);
	return 0;
}
