/*
 * tcpflood - load generator for sluice (and any syslog receiver).
 *
 * Sends numbered syslog messages over TCP (LF or octet-counted framing),
 * TLS (gnutls, when built with HAVE_GNUTLS) or UDP (one datagram per
 * message), spread round-robin over one or more connections, so that
 * tests/check_seq.py can verify that every message arrived exactly once.
 * Messages are generated (RFC3164 or RFC5424, fixed or random size and
 * content), fixed (-M) or read from a file (-I), optionally with the
 * sequence number appended (-S). A progress line goes to stderr once a
 * second, a closing summary to stdout (also after a failure), and every
 * connection error is reported with the connection's index.
 * Options follow rsyslog's tcpflood where that makes sense; see usage()
 * and doc/tcpflood.1.
 *
 * Threading model: single-threaded, no locks. Each connection owns a large
 * send buffer that many messages are packed into; stream connections are
 * non-blocking and flushed from one poll() loop, UDP sockets are blocking
 * and flushed with sendmmsg() in batches. Messages are built into one
 * reused scratch buffer: no allocation per message.
 *
 * Build: gcc -O2 -Wall -Wextra -std=gnu11 -o tcpflood tcpflood.c
 *   TLS: add -DHAVE_GNUTLS $(pkg-config --cflags --libs gnutls)
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h" /* HAVE_GNUTLS */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_GNUTLS
#include <gnutls/gnutls.h>
#endif

#define SEND_BUF_SIZE (64 * 1024)   /* per connection, at least */
#define UDP_BATCH 256               /* datagrams per sendmmsg() */
#define MAX_MSG_SIZE (16 * 1024 * 1024)
#define OC_RESERVE 24               /* room for "LEN " before a message */
#define LINGER_MS 2000              /* wait for peers to close at the end */
#define RANDOM_MIN 64               /* -X without -d/-R: sizes RANDOM_MIN.. */
#define RANDOM_MAX 512              /* ..RANDOM_MAX */

enum transport { TR_TCP, TR_UDP, TR_TLS };
enum framing { FR_LF, FR_OC };

struct opts {                 /* the command line; see usage() */
	const char *host, *port, *hostname, *input_file, *fixed_text;
	const char *cafile, *certfile, *keyfile;
	int nconn, pri;
	uint64_t nmsgs, start;
	uint64_t rate;            /* msgs/s, 0 = unlimited */
	size_t pad_size;          /* -d: pad messages to this size, 0 = off */
	size_t rand_min, rand_max; /* -R: random sizes, rand_max 0 = off */
	enum framing framing;
	enum transport transport;
	bool rfc5424, quiet;
	bool random_text;         /* -X: padding is random text, not 'X' */
	bool append_seq;          /* -S: append " msgnum:N:" to -I/-M messages */
};

struct conn {
	int fd;
	char *buf;                /* queued bytes are buf[off..len) */
	size_t off, len, cap;
	size_t *dgram_end;        /* UDP: end offset of each queued datagram */
	unsigned ndgram;
	bool eof;                 /* the peer closed its side (or failed) */
#ifdef HAVE_GNUTLS
	gnutls_session_t tls;
	size_t tls_retry;         /* size of a send that hit GNUTLS_E_AGAIN */
#endif
};

struct flood {
	const struct opts *o;
	char peer[320];           /* "host:port", for error messages */
	struct addrinfo *ai;
	struct conn *conns;
	int nconn;
	struct pollfd *pfds;
	int *pfd_conn;            /* pfds[k] belongs to conns[pfd_conn[k]] */
	/* message source */
	char *file_data;          /* -I: file contents */
	struct line { size_t off, len; } *lines;
	size_t nlines;
	char prefix[512];         /* generated: header up to the sequence number */
	size_t prefix_len;
	char *scratch;            /* OC_RESERVE + longest message + framing */
	size_t scratch_cap;
	char *random_text;        /* -X: random words, copied from at random offsets */
	size_t random_len;
	uint64_t rng;
	/* statistics */
	uint64_t queued;          /* messages handed to connection buffers */
	uint64_t bytes;           /* bytes the kernel (or gnutls) accepted */
	unsigned errors;          /* connection errors reported */
	struct timespec t0;
	double next_progress, last_progress_t;
	uint64_t last_progress_n, last_progress_bytes;
#ifdef HAVE_GNUTLS
	bool tls_inited;
	gnutls_certificate_credentials_t xcred;
	gnutls_anon_client_credentials_t acred;
#endif
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tcpflood [options]\n"
		"Sends N numbered syslog messages to a syslog receiver and reports the rate.\n"
		"Target and transport:\n"
		"  -t HOST      target host (default 127.0.0.1)\n"
		"  -p PORT      target port (default 13514)\n"
		"  -T tcp|udp|tls  transport (default tcp); udp sends one datagram per message\n"
		"  -c N         number of connections (UDP: sockets), messages go round-robin\n"
		"               over them (default 1)\n"
		"  -F lf|oc     stream framing: LF-terminated (default) or octet-counted\n"
		"               (RFC 6587 \"LEN SP MSG\"); ignored for udp\n"
		"TLS (-T tls, gnutls):\n"
		"  -x CAFILE    verify the server's certificate chain against CAFILE (PEM);\n"
		"               without -x any server is accepted, anonymous TLS included\n"
		"  -Z CERTFILE  client certificate (PEM), needs -z\n"
		"  -z KEYFILE   client private key (PEM), needs -Z\n"
		"Amount and pace:\n"
		"  -m N         total number of messages over all connections (default 100)\n"
		"  -r RATE      target rate in msgs/s over all connections (0 = as fast as\n"
		"               possible, default)\n"
		"Message content (default: generated RFC3164 with a sequence number):\n"
		"  -5           generate RFC5424 messages instead of RFC3164\n"
		"  -P PRI       syslog PRI of generated messages (default 167)\n"
		"  -H NAME      hostname in generated messages (default tcpflood)\n"
		"  -s N         first sequence number (default 0)\n"
		"  -d SIZE      pad each message with 'X' to SIZE bytes (without framing)\n"
		"  -R MIN:MAX   pad each message to a random size in MIN..MAX\n"
		"  -X           random message text: pad with random printable words instead\n"
		"               of 'X' (sizes %d..%d unless -d or -R is given)\n"
		"  -M TEXT      send TEXT as every message (fixed message)\n"
		"  -I FILE      send the lines of FILE instead (cycled when -m exceeds them)\n"
		"  -S           with -M or -I: append \" msgnum:NNNNNNNN:\" to each message\n"
		"Output:\n"
		"  -q           quiet: no progress line\n"
		"  -h           this help\n"
		"Generated messages carry \"msgnum:NNNNNNNN:\" (at least 8 digits), which\n"
		"tests/check_seq.py uses to report missing and duplicated messages.\n"
		"While running, a progress line goes to stderr once a second (messages sent,\n"
		"rate, connections); at the end one summary line goes to stdout:\n"
		"  tcpflood: sent N messages (B bytes) over C connections in S s: R msgs/s\n"
		"Errors (connect, TLS handshake, send, reset by the peer) are reported on\n"
		"stderr with the connection's index; then a summary starting with\n"
		"\"tcpflood: FAILED\" is printed. Exit status: 0 all sent, 1 error, 2 usage.\n",
		RANDOM_MIN, RANDOM_MAX);
}

static double elapsed(const struct flood *f)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - f->t0.tv_sec) +
	       (double)(now.tv_nsec - f->t0.tv_nsec) / 1e9;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s == '-' || *s == '\0')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end != '\0' || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Returns the index of s among the (up to three) names, or -1. */
static int pick(const char *s, const char *n0, const char *n1, const char *n2)
{
	const char *names[] = { n0, n1, n2 };
	int i;

	for (i = 0; i < 3; i++)
		if (names[i] && strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	const char *err = NULL;
	uint64_t v;
	char junk;
	int ch, k;

	*o = (struct opts){ .host = "127.0.0.1", .port = "13514", .nconn = 1,
			    .nmsgs = 100, .pri = 167, .hostname = "tcpflood" };
	while ((ch = getopt(argc, argv, "t:p:c:m:F:T:r:d:R:I:M:s:P:5qx:Z:z:H:SXh")) != -1) {
		switch (ch) {
		case 't': o->host = optarg; break;
		case 'p': o->port = optarg; break;
		case 'c':
			if (parse_u64(optarg, 65535, &v) || v == 0)
				goto bad;
			o->nconn = (int)v;
			break;
		case 'm':
			if (parse_u64(optarg, UINT64_MAX / 2, &o->nmsgs))
				goto bad;
			break;
		case 'F':   /* names in enum framing order */
			if ((k = pick(optarg, "lf", "oc", NULL)) < 0)
				goto bad;
			o->framing = (enum framing)k;
			break;
		case 'T':   /* names in enum transport order */
			if ((k = pick(optarg, "tcp", "udp", "tls")) < 0)
				goto bad;
			o->transport = (enum transport)k;
			break;
		case 'r':
			if (parse_u64(optarg, 1000000000, &o->rate))
				goto bad;
			break;
		case 'd':
			if (parse_u64(optarg, MAX_MSG_SIZE, &v))
				goto bad;
			o->pad_size = (size_t)v;
			break;
		case 'R':
			if (sscanf(optarg, "%zu:%zu%c", &o->rand_min, &o->rand_max, &junk) != 2 ||
			    o->rand_min > o->rand_max || o->rand_max == 0 ||
			    o->rand_max > MAX_MSG_SIZE)
				goto bad;
			break;
		case 'I': o->input_file = optarg; break;
		case 'M': o->fixed_text = optarg; break;
		case 's':
			if (parse_u64(optarg, UINT64_MAX / 2, &o->start))
				goto bad;
			break;
		case 'P':
			if (parse_u64(optarg, 191, &v))
				goto bad;
			o->pri = (int)v;
			break;
		case '5': o->rfc5424 = true; break;
		case 'q': o->quiet = true; break;
		case 'x': o->cafile = optarg; break;
		case 'Z': o->certfile = optarg; break;
		case 'z': o->keyfile = optarg; break;
		case 'H': o->hostname = optarg; break;
		case 'S': o->append_seq = true; break;
		case 'X': o->random_text = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc)
		err = "unexpected argument";
	else if (o->input_file && o->fixed_text)
		err = "-I and -M exclude each other";
	else if (o->pad_size && o->rand_max)
		err = "-d and -R exclude each other";
	else if (!o->certfile != !o->keyfile)
		err = "-Z and -z must be given together";
	else if (o->append_seq && !o->input_file && !o->fixed_text)
		err = "-S needs -M or -I (generated messages are numbered anyway)";
	else if ((o->cafile || o->certfile) && o->transport != TR_TLS)
		err = "-x, -Z and -z need -T tls";
#ifndef HAVE_GNUTLS
	else if (o->transport == TR_TLS)
		err = "built without gnutls, -T tls unavailable";
#endif
	if (err) {
		fprintf(stderr, "tcpflood: %s\n", err);
		return -1;
	}
	if (o->random_text && !o->pad_size && !o->rand_max) {
		o->rand_min = RANDOM_MIN;
		o->rand_max = RANDOM_MAX;
	}
	return 0;
bad:
	fprintf(stderr, "tcpflood: bad value '%s' for -%c\n", optarg, ch);
	return -1;
}

/* -I: read FILE into memory once; each non-empty line is one message. */
static int load_input(struct flood *f, const char *path)
{
	FILE *fp = NULL;
	char *p, *end, *nl;
	struct line *grown;
	size_t cap = 0, len;
	long size;

	errno = 0;
	fp = fopen(path, "rb");
	if (!fp || fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET) != 0 || !(f->file_data = malloc((size_t)size + 1)) ||
	    fread(f->file_data, 1, (size_t)size, fp) != (size_t)size) {
		fprintf(stderr, "tcpflood: %s: %s\n", path, errno ? strerror(errno) : "read failed");
		goto fail;
	}
	end = f->file_data + size;
	*end = '\n';   /* sentinel: the last line need not end in LF */
	for (p = f->file_data; p <= end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p) + 1);
		len = (size_t)(nl - p);
		if (len > 0 && p[len - 1] == '\r')
			len--;
		if (len == 0)
			continue;
		if (f->nlines == cap) {
			cap = cap ? 2 * cap : 1024;
			if (!(grown = realloc(f->lines, cap * sizeof(*grown))))
				goto fail;
			f->lines = grown;
		}
		f->lines[f->nlines++] = (struct line){ (size_t)(p - f->file_data), len };
	}
	if (f->nlines == 0) {
		fprintf(stderr, "tcpflood: %s: no lines to send\n", path);
		goto fail;
	}
	fclose(fp);
	return 0;
fail:
	if (fp)
		fclose(fp);
	return -1;
}

/* Writes v in decimal, at least 8 digits with leading zeros; returns length. */
static size_t fmt_seq(char *p, uint64_t v)
{
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < 8)
		tmp[n++] = '0';
	for (i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

static uint64_t rng_next(struct flood *f)
{
	uint64_t x = f->rng;   /* xorshift64 */

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return f->rng = x;
}

/*
 * -X: a table of random lowercase words and spaces, twice as long as the
 * longest padding, so that any padding is one memcpy from a random offset.
 */
static int random_text_setup(struct flood *f, size_t longest)
{
	size_t i, word = 0;
	uint64_t r;

	f->random_len = 2 * longest + 4096;
	f->random_text = malloc(f->random_len);
	if (!f->random_text)
		return -1;
	for (i = 0; i < f->random_len; i++) {
		r = rng_next(f);
		if (word >= 2 && r % 7 == 0) {
			f->random_text[i] = ' ';
			word = 0;
		} else {
			f->random_text[i] = (char)('a' + (r >> 8) % 26);
			word++;
		}
	}
	return 0;
}

static int msg_setup(struct flood *f)
{
	const struct opts *o = f->o;
	size_t longest, i;
	int n;

	if (o->rfc5424)
		n = snprintf(f->prefix, sizeof(f->prefix),
			     "<%d>1 2003-03-01T01:00:00.000+01:00 %s tcpflood - tag "
			     "[tcpflood@32473 MSGNUM=\"", o->pri, o->hostname);
	else
		n = snprintf(f->prefix, sizeof(f->prefix),
			     "<%d>Mar  1 01:00:00 %s tag msgnum:", o->pri, o->hostname);
	if (n < 0 || (size_t)n >= sizeof(f->prefix)) {
		fprintf(stderr, "tcpflood: hostname too long\n");
		return -1;
	}
	f->prefix_len = (size_t)n;
	longest = f->prefix_len + 64;
	if (o->fixed_text && strlen(o->fixed_text) > longest)
		longest = strlen(o->fixed_text);
	for (i = 0; i < f->nlines; i++)
		if (f->lines[i].len > longest)
			longest = f->lines[i].len;
	longest += 32;   /* -S: " msgnum:N:" */
	if (o->pad_size > longest)
		longest = o->pad_size;
	if (o->rand_max > longest)
		longest = o->rand_max;
	f->scratch_cap = OC_RESERVE + longest + 1;
	f->scratch = malloc(f->scratch_cap);
	if (!f->scratch)
		return -1;
	f->rng = 0x9e3779b97f4a7c15ULL;
	if (o->random_text)
		return random_text_setup(f, longest);
	return 0;
}

/*
 * Builds message number idx (0-based) into f->scratch, framed for the
 * transport; returns a pointer into the scratch buffer and its length.
 */
static const char *msg_build(struct flood *f, uint64_t idx, size_t *len_out)
{
	const struct opts *o = f->o;
	char *body = f->scratch + OC_RESERVE, *p = body;
	uint64_t seq = o->start + idx;
	size_t len, target = o->pad_size;

	if (o->fixed_text) {
		len = strlen(o->fixed_text);
		memcpy(p, o->fixed_text, len);
		p += len;
	} else if (f->nlines) {
		const struct line *l = &f->lines[idx % f->nlines];

		memcpy(p, f->file_data + l->off, l->len);
		p += l->len;
	}
	if ((o->fixed_text || f->nlines) && o->append_seq) {
		memcpy(p, " msgnum:", 8);
		p += 8;
		p += fmt_seq(p, seq);
		*p++ = ':';
	} else if (!o->fixed_text && !f->nlines) {
		memcpy(p, f->prefix, f->prefix_len);
		p += f->prefix_len;
		p += fmt_seq(p, seq);
		if (o->rfc5424) {
			memcpy(p, "\"] msgnum:", 10);
			p += 10;
			p += fmt_seq(p, seq);
		}
		*p++ = ':';
	}
	len = (size_t)(p - body);
	if (o->rand_max)
		target = o->rand_min + (size_t)(rng_next(f) % (o->rand_max - o->rand_min + 1));
	if (target > len && f->random_text) {
		size_t at = (size_t)(rng_next(f) % (f->random_len - (target - len)));

		memcpy(p, f->random_text + at, target - len);
		p += target - len;
		if (p[-1] == ' ')
			p[-1] = 'x';   /* no trailing space */
		len = target;
	} else if (target > len) {
		memset(p, 'X', target - len);
		p += target - len;
		len = target;
	}
	if (o->transport == TR_UDP) {
		*len_out = len;
		return body;
	}
	if (o->framing == FR_LF) {
		*p = '\n';
		*len_out = len + 1;
		return body;
	}
	/* octet counting: "LEN SP MSG", LEN written backwards before body */
	*len_out = len;
	p = body;
	*--p = ' ';
	do {
		*--p = (char)('0' + len % 10);
		len /= 10;
	} while (len);
	*len_out += (size_t)(body - p);
	return p;
}

#ifdef HAVE_GNUTLS
/* Process-wide gnutls state and the credentials all sessions share. */
static int tls_setup(struct flood *f)
{
	const struct opts *o = f->o;
	const char *what = "gnutls";
	int r;

	if ((r = gnutls_global_init()) < 0)
		goto fail;
	f->tls_inited = true;
	if ((r = gnutls_certificate_allocate_credentials(&f->xcred)) < 0)
		goto fail;
	if (o->cafile) {
		what = o->cafile;
		r = gnutls_certificate_set_x509_trust_file(f->xcred, o->cafile,
							   GNUTLS_X509_FMT_PEM);
		if (r == 0)
			r = GNUTLS_E_NO_CERTIFICATE_FOUND;
		if (r < 0)
			goto fail;
	} else if ((r = gnutls_anon_allocate_client_credentials(&f->acred)) < 0) {
		goto fail;
	}
	if (o->certfile) {
		what = o->certfile;
		r = gnutls_certificate_set_x509_key_file(f->xcred, o->certfile, o->keyfile,
							 GNUTLS_X509_FMT_PEM);
		if (r < 0)
			goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "tcpflood: %s: %s\n", what, gnutls_strerror(r));
	return -1;
}

static void tls_teardown(struct flood *f)
{
	if (f->xcred)
		gnutls_certificate_free_credentials(f->xcred);
	if (f->acred)
		gnutls_anon_free_client_credentials(f->acred);
	if (f->tls_inited)
		gnutls_global_deinit();
}

/*
 * Handshake on the still blocking socket of c. With -x the server's
 * chain is verified against the CA file (not its name: test certificates
 * rarely match 127.0.0.1); without it anything goes, anonymous included.
 */
static int tls_open(struct flood *f, struct conn *c, int idx)
{
	const struct opts *o = f->o;
	unsigned char addr[sizeof(struct in6_addr)];
	int r;

	if ((r = gnutls_init(&c->tls, GNUTLS_CLIENT)) < 0)
		goto fail;
	if (o->cafile) {
		if ((r = gnutls_set_default_priority(c->tls)) < 0)
			goto fail;
		gnutls_session_set_verify_cert(c->tls, NULL, 0);
	} else {
		r = gnutls_priority_set_direct(c->tls, "NORMAL:+ANON-ECDH:+ANON-DH", NULL);
		if (r < 0)
			goto fail;
		if ((r = gnutls_credentials_set(c->tls, GNUTLS_CRD_ANON, f->acred)) < 0)
			goto fail;
	}
	if ((r = gnutls_credentials_set(c->tls, GNUTLS_CRD_CERTIFICATE, f->xcred)) < 0)
		goto fail;
	if (inet_pton(AF_INET, o->host, addr) != 1 && inet_pton(AF_INET6, o->host, addr) != 1)
		gnutls_server_name_set(c->tls, GNUTLS_NAME_DNS, o->host, strlen(o->host));
	gnutls_transport_set_int(c->tls, c->fd);
	gnutls_handshake_set_timeout(c->tls, GNUTLS_DEFAULT_HANDSHAKE_TIMEOUT);
	do {
		r = gnutls_handshake(c->tls);
	} while (r < 0 && !gnutls_error_is_fatal(r));
	if (r < 0) {
		fprintf(stderr, "tcpflood: TLS handshake with %s (connection %d): %s\n",
			f->peer, idx, gnutls_strerror(r));
		if (r == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) {
			gnutls_datum_t out;
			unsigned status = gnutls_session_get_verify_cert_status(c->tls);

			if (gnutls_certificate_verification_status_print(
				    status, gnutls_certificate_type_get(c->tls), &out, 0) == 0) {
				fprintf(stderr, "tcpflood: %s\n", out.data);
				gnutls_free(out.data);
			}
		}
		return -1;
	}
	return 0;
fail:
	fprintf(stderr, "tcpflood: TLS setup for %s (connection %d): %s\n", f->peer,
		idx, gnutls_strerror(r));
	return -1;
}
#endif /* HAVE_GNUTLS */

static int resolve(struct flood *f)
{
	const struct opts *o = f->o;
	struct addrinfo hints = { 0 };
	int r;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = o->transport == TR_UDP ? SOCK_DGRAM : SOCK_STREAM;
	snprintf(f->peer, sizeof(f->peer), strchr(o->host, ':') ? "[%s]:%s" : "%s:%s",
		 o->host, o->port);
	r = getaddrinfo(o->host, o->port, &hints, &f->ai);
	if (r != 0) {
		fprintf(stderr, "tcpflood: resolve %s: %s\n", f->peer, gai_strerror(r));
		return -1;
	}
	return 0;
}

/* Connects c (the idx-th connection) and gives it its send buffer. */
static int conn_open(struct flood *f, struct conn *c, int idx)
{
	struct addrinfo *ai;
	int err = 0, fl;

	c->fd = -1;
	for (ai = f->ai; ai; ai = ai->ai_next) {
		c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (c->fd < 0) {
			err = errno;
			continue;
		}
		if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		err = errno;
		close(c->fd);
		c->fd = -1;
	}
	if (c->fd < 0) {
		fprintf(stderr, "tcpflood: connect to %s (connection %d): %s\n", f->peer,
			idx, strerror(err));
		goto fail;
	}
#ifdef HAVE_GNUTLS
	if (f->o->transport == TR_TLS && tls_open(f, c, idx) < 0)
		goto fail;
#endif
	if (f->o->transport != TR_UDP) {
		fl = fcntl(c->fd, F_GETFL);
		if (fl < 0 || fcntl(c->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
			fprintf(stderr, "tcpflood: fcntl: %s\n", strerror(errno));
			goto fail;
		}
	} else {
		c->dgram_end = malloc(UDP_BATCH * sizeof(size_t));
		if (!c->dgram_end)
			goto fail;
	}
	c->cap = SEND_BUF_SIZE;
	if (c->cap < 2 * f->scratch_cap)
		c->cap = 2 * f->scratch_cap;
	c->buf = malloc(c->cap);
	if (!c->buf)
		goto fail;
	return 0;
fail:
	return -1;
}

static bool conn_pending(const struct conn *c)
{
#ifdef HAVE_GNUTLS
	if (c->tls_retry)
		return true;
#endif
	return c->off < c->len;
}

/*
 * Fills f->pfds with the connections that have queued data (POLLOUT) or
 * whose peer has not closed yet (POLLIN); returns how many.
 */
static int poll_set(struct flood *f, short events)
{
	struct conn *c;
	int i, n = 0;

	for (i = 0; i < f->nconn; i++) {
		c = &f->conns[i];
		if (events == POLLOUT ? !conn_pending(c) : c->eof)
			continue;
		f->pfds[n] = (struct pollfd){ .fd = c->fd, .events = events };
		f->pfd_conn[n++] = i;
	}
	return n;
}

/*
 * Writes queued bytes of a stream connection until done or the socket
 * would block. Returns -1 after reporting a write error.
 */
static int conn_write(struct flood *f, struct conn *c, int idx)
{
	ssize_t r;

	while (conn_pending(c)) {
#ifdef HAVE_GNUTLS
		if (c->tls) {
			size_t n = c->len - c->off;

			/* after GNUTLS_E_AGAIN gnutls wants (NULL, 0) to resume */
			r = c->tls_retry ? gnutls_record_send(c->tls, NULL, 0)
					 : gnutls_record_send(c->tls, c->buf + c->off, n);
			if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
				if (!c->tls_retry)
					c->tls_retry = n;
				return 0;
			}
			if (r < 0) {
				fprintf(stderr, "tcpflood: TLS send to %s (connection %d): %s\n",
					f->peer, idx, gnutls_strerror((int)r));
				return -1;
			}
			c->tls_retry = 0;
			c->off += (size_t)r;
			f->bytes += (size_t)r;
			continue;
		}
#endif
		r = send(c->fd, c->buf + c->off, c->len - c->off, MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			fprintf(stderr, "tcpflood: send to %s (connection %d): %s\n", f->peer,
				idx, strerror(errno));
			return -1;
		}
		c->off += (size_t)r;
		f->bytes += (size_t)r;
	}
	c->off = c->len = 0;
	return 0;
}

/* Sends all queued datagrams of c with sendmmsg(); the socket blocks. */
static int udp_flush(struct flood *f, struct conn *c, int idx)
{
	struct mmsghdr mm[UDP_BATCH];
	struct iovec iov[UDP_BATCH];
	size_t start = 0;
	unsigned k, done = 0;
	int r;

	for (k = 0; k < c->ndgram; k++) {
		iov[k].iov_base = c->buf + start;
		iov[k].iov_len = c->dgram_end[k] - start;
		start = c->dgram_end[k];
		memset(&mm[k], 0, sizeof(mm[k]));
		mm[k].msg_hdr.msg_iov = &iov[k];
		mm[k].msg_hdr.msg_iovlen = 1;
	}
	while (done < c->ndgram) {
		r = sendmmsg(c->fd, mm + done, c->ndgram - done, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS || errno == EAGAIN) {
				poll(NULL, 0, 1);
				continue;
			}
			fprintf(stderr, "tcpflood: send to %s (connection %d): %s\n", f->peer,
				idx, strerror(errno));
			return -1;
		}
		done += (unsigned)r;
	}
	f->bytes += c->len;
	c->ndgram = 0;
	c->off = c->len = 0;
	return 0;
}

/* The once-a-second progress line on stderr; the rate is since the last. */
static void progress(struct flood *f)
{
	double t;

	if (f->o->quiet || (t = elapsed(f)) < f->next_progress)
		return;
	fprintf(stderr, "tcpflood: %" PRIu64 "/%" PRIu64 " sent, %.0f msgs/s, %.1f MB/s, "
		"%d connections\n", f->queued, f->o->nmsgs,
		(double)(f->queued - f->last_progress_n) / (t - f->last_progress_t),
		(double)(f->bytes - f->last_progress_bytes) / (t - f->last_progress_t) / 1e6,
		f->nconn);
	f->last_progress_bytes = f->bytes;
	f->last_progress_t = t;
	f->last_progress_n = f->queued;
	f->next_progress = t + 1.0;
}

/*
 * Pushes queued data out. UDP: flushes every connection. Streams: waits up
 * to ms milliseconds for writable connections with queued data and writes
 * to them. With nothing queued at all it just sleeps ms.
 */
static int io_wait(struct flood *f, int ms)
{
	int i, k, nfds = 0, r;

	if (f->o->transport == TR_UDP) {
		for (i = 0; i < f->nconn; i++) {
			if (!f->conns[i].ndgram)
				continue;
			if (udp_flush(f, &f->conns[i], i) < 0)
				return -1;
			nfds++;
		}
		if (!nfds)
			poll(NULL, 0, ms);
		progress(f);
		return 0;
	}
	nfds = poll_set(f, POLLOUT);
	r = poll(nfds ? f->pfds : NULL, (nfds_t)nfds, ms);
	if (r < 0 && errno != EINTR) {
		fprintf(stderr, "tcpflood: poll: %s\n", strerror(errno));
		return -1;
	}
	for (k = 0; r > 0 && k < nfds; k++) {
		if (f->pfds[k].revents &&
		    conn_write(f, &f->conns[f->pfd_conn[k]], f->pfd_conn[k]) < 0)
			return -1;
	}
	progress(f);
	return 0;
}

static bool conn_has_room(const struct flood *f, struct conn *c, size_t len)
{
	if (f->o->transport == TR_UDP)
		return c->ndgram < UDP_BATCH && c->cap - c->len >= len;
	if (c->cap - c->len >= len)
		return true;
	if (c->off > 0) {   /* compact: queued bytes move to the front */
		memmove(c->buf, c->buf + c->off, c->len - c->off);
		c->len -= c->off;
		c->off = 0;
	}
	return c->cap - c->len >= len;
}

/* -r: blocks until message idx may be sent, flushing what is queued. */
static int rate_wait(struct flood *f, uint64_t idx, uint64_t *budget)
{
	double rate = (double)f->o->rate, t;
	int ms;

	for (;;) {
		t = elapsed(f);
		*budget = (uint64_t)(t * rate) + 1;
		if (idx < *budget)
			return 0;
		ms = (int)(((double)idx / rate - t) * 1000.0) + 1;
		if (ms > 1000)
			ms = 1000;
		if (io_wait(f, ms) < 0)
			return -1;
	}
}

static int flood_run(struct flood *f)
{
	const struct opts *o = f->o;
	uint64_t i, budget = 0;
	const char *msg;
	struct conn *c;
	size_t len;
	int ci;

	for (i = 0; i < o->nmsgs; i++) {
		if (o->rate && i >= budget && rate_wait(f, i, &budget) < 0)
			goto fail;
		if ((i & 4095) == 0)
			progress(f);
		ci = (int)(i % (uint64_t)f->nconn);
		c = &f->conns[ci];
		msg = msg_build(f, i, &len);
		if (!conn_has_room(f, c, len)) {
			if (o->transport == TR_UDP) {
				if (udp_flush(f, c, ci) < 0)
					goto fail;
			} else {
				if (conn_write(f, c, ci) < 0)
					goto fail;
				while (!conn_has_room(f, c, len))
					if (io_wait(f, 1000) < 0)
						goto fail;
			}
		}
		memcpy(c->buf + c->len, msg, len);
		c->len += len;
		if (o->transport == TR_UDP)
			c->dgram_end[c->ndgram++] = c->len;
		f->queued++;
	}
	for (;;) {   /* drain */
		bool pending = false;

		for (ci = 0; ci < f->nconn; ci++)
			pending |= conn_pending(&f->conns[ci]) || f->conns[ci].ndgram;
		if (!pending)
			break;
		if (io_wait(f, 1000) < 0)
			goto fail;
	}
	return 0;
fail:
	return -1;
}

/*
 * Reads and discards what the peer sent, until it would block. Sets c->eof
 * on end of stream or error; returns -1 after reporting an error (a reset,
 * or a TLS alert such as a rejected client certificate).
 */
static int conn_read(struct flood *f, struct conn *c, int idx)
{
	char junk[16384];
	ssize_t r;

	for (;;) {
#ifdef HAVE_GNUTLS
		if (c->tls) {
			r = gnutls_record_recv(c->tls, junk, sizeof(junk));
			if (r > 0)
				continue;
			if (r == 0 || r == GNUTLS_E_PREMATURE_TERMINATION)
				break;
			if (!gnutls_error_is_fatal((int)r))
				return 0;
			fprintf(stderr, "tcpflood: TLS from %s (connection %d): %s\n", f->peer,
				idx, r == GNUTLS_E_FATAL_ALERT_RECEIVED
					? gnutls_alert_get_name(gnutls_alert_get(c->tls))
					: gnutls_strerror((int)r));
			c->eof = true;
			return -1;
		}
#endif
		r = recv(c->fd, junk, sizeof(junk), 0);
		if (r > 0 || (r < 0 && errno == EINTR))
			continue;
		if (r == 0)
			break;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		fprintf(stderr, "tcpflood: recv from %s (connection %d): %s\n", f->peer,
			idx, strerror(errno));
		c->eof = true;
		return -1;
	}
	c->eof = true;
	return 0;
}

/*
 * Ends all streams after the last byte is queued: TLS close_notify, then
 * shutdown(SHUT_WR), then up to LINGER_MS waiting for the peers to close,
 * reading what they send. Reading matters: closing a socket with unread
 * input (a TLS 1.3 session ticket, say) sends a reset, and a reset makes
 * the receiver drop data it has not read yet. Returns -1 if any
 * connection reported an error.
 */
static int flood_finish(struct flood *f)
{
	struct conn *c;
	double until;
	int i, k, nfds, left, rc = 0;

	if (f->o->transport == TR_UDP)
		return 0;
	for (i = 0; i < f->nconn; i++) {
		c = &f->conns[i];
#ifdef HAVE_GNUTLS
		if (c->tls) {   /* blocking: the send buffer may still be full */
			int fl = fcntl(c->fd, F_GETFL), r;

			fcntl(c->fd, F_SETFL, fl & ~O_NONBLOCK);
			r = gnutls_bye(c->tls, GNUTLS_SHUT_WR);
			fcntl(c->fd, F_SETFL, fl);
			if (r < 0) {
				fprintf(stderr, "tcpflood: TLS close to %s (connection %d): %s\n",
					f->peer, i, gnutls_strerror(r));
				f->errors++;
				rc = -1;
			}
		}
#endif
		if (shutdown(c->fd, SHUT_WR) < 0) {
			fprintf(stderr, "tcpflood: shutdown to %s (connection %d): %s\n",
				f->peer, i, strerror(errno));
			f->errors++;
			rc = -1;
		}
	}
	until = elapsed(f) + LINGER_MS / 1000.0;
	for (;;) {
		nfds = poll_set(f, POLLIN);
		left = (int)((until - elapsed(f)) * 1000.0);
		if (nfds == 0 || left <= 0)
			break;
		if (poll(f->pfds, (nfds_t)nfds, left) < 0 && errno != EINTR)
			break;
		for (k = 0; k < nfds; k++)
			if (f->pfds[k].revents &&
			    conn_read(f, &f->conns[f->pfd_conn[k]], f->pfd_conn[k]) < 0) {
				f->errors++;
				rc = -1;
			}
	}
	return rc;
}

/* Closes c's socket and frees what it owns; c may be half set up. */
static void conn_free(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
#ifdef HAVE_GNUTLS
	if (c->tls)
		gnutls_deinit(c->tls);
	c->tls = NULL;
#endif
	free(c->buf);
	free(c->dgram_end);
	c->buf = NULL;
	c->dgram_end = NULL;
}

/* Many connections need many descriptors: raise the soft limit if needed. */
static void raise_fd_limit(int nconn)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)nconn + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < want)
		fprintf(stderr, "tcpflood: warning: open file limit %lu is below %lu needed "
			"for %d connections\n", (unsigned long)rl.rlim_cur,
			(unsigned long)want, nconn);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct flood f = { 0 };
	double secs;
	bool started = false;
	int i, opened = 0, rc = 1;

	if (parse_opts(argc, argv, &o) < 0)
		return 2;
	f.o = &o;
	f.nconn = o.nconn;
	signal(SIGPIPE, SIG_IGN);
	if (o.input_file && load_input(&f, o.input_file) < 0)
		goto fail;
	if (msg_setup(&f) < 0 || resolve(&f) < 0)
		goto fail;
#ifdef HAVE_GNUTLS
	if (o.transport == TR_TLS && tls_setup(&f) < 0)
		goto fail;
#endif
	f.conns = calloc((size_t)f.nconn, sizeof(*f.conns));
	f.pfds = calloc((size_t)f.nconn, sizeof(*f.pfds));
	f.pfd_conn = calloc((size_t)f.nconn, sizeof(*f.pfd_conn));
	if (!f.conns || !f.pfds || !f.pfd_conn) {
		fprintf(stderr, "tcpflood: out of memory\n");
		goto fail;
	}
	raise_fd_limit(f.nconn);
	clock_gettime(CLOCK_MONOTONIC, &f.t0);
	for (opened = 0; opened < f.nconn; opened++)
		if (conn_open(&f, &f.conns[opened], opened) < 0) {
			f.errors++;
			opened++;   /* its fd, if any, is closed below */
			goto fail;
		}
	if (!o.quiet && f.nconn > 1)
		fprintf(stderr, "tcpflood: %d connections open in %.3f s\n", f.nconn, elapsed(&f));
	clock_gettime(CLOCK_MONOTONIC, &f.t0);
	f.next_progress = 1.0;
	started = true;
	if (flood_run(&f) < 0) {
		f.errors++;
		goto fail;
	}
	secs = elapsed(&f);
	if (flood_finish(&f) < 0)
		goto fail;
	rc = 0;
	printf("tcpflood: sent %" PRIu64 " messages (%" PRIu64 " bytes) over %d connections "
	       "in %.3f s: %.0f msgs/s\n", f.queued, f.bytes, f.nconn, secs,
	       secs > 0 ? (double)f.queued / secs : 0.0);
fail:
	if (rc != 0 && f.conns) {
		secs = started ? elapsed(&f) : 0.0;
		printf("tcpflood: FAILED: %u connection error(s); %" PRIu64 " of %" PRIu64
		       " messages queued, %" PRIu64 " bytes sent, %d of %d connections opened, "
		       "%.3f s\n", f.errors, f.queued, o.nmsgs, f.bytes,
		       started ? f.nconn : (opened > 0 ? opened - 1 : 0), f.nconn, secs);
	}
	fflush(stdout);
	for (i = 0; i < opened; i++)
		conn_free(&f.conns[i]);
#ifdef HAVE_GNUTLS
	tls_teardown(&f);
#endif
	if (f.ai)
		freeaddrinfo(f.ai);
	free(f.conns);
	free(f.pfds);
	free(f.pfd_conn);
	free(f.scratch);
	free(f.random_text);
	free(f.file_data);
	free(f.lines);
	return rc;
}
