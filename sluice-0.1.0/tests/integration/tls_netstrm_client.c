/* tls_netstrm_client.c — drives the client side of runtime/netstrm.h
 * (what omfwd uses for TLS) for tests/integration/tls_client.sh: connects
 * with the given stream-driver settings, sends N octet-counted RFC3164
 * messages "msgnum:%08d:" and closes.
 *
 * usage: tls_netstrm_client HOST PORT MODE AUTHMODE CAFILE CERTFILE KEYFILE
 *                           PEERS N [START]
 *   MODE 0|1; files "-" for none; PEERS comma-separated or "-".
 * Exit 0 when all was sent; 1 with the reason on stderr otherwise.
 *
 * Threading: single-threaded.
 */
#include "sluice.h"
#include "netstrm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *arg(const char *s)
{
	return strcmp(s, "-") == 0 ? NULL : s;
}

int main(int argc, char **argv)
{
	if (argc < 10) {
		fprintf(stderr, "usage: %s HOST PORT MODE AUTHMODE CAFILE CERTFILE KEYFILE PEERS N "
			"[START]\n", argv[0]);
		return 2;
	}
	struct netstrm_cfg cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.mode = atoi(argv[3]);
	cfg.driver = "gtls";
	if (!netstrm_auth_parse(argv[4], &cfg.auth)) {
		fprintf(stderr, "bad auth mode %s\n", argv[4]);
		return 2;
	}
	cfg.cafile = arg(argv[5]);
	cfg.certfile = arg(argv[6]);
	cfg.keyfile = arg(argv[7]);
	char *peers[16];
	int np = 0;
	char *list = arg(argv[8]) ? strdup(argv[8]) : NULL;
	for (char *save = NULL, *t = list ? strtok_r(list, ",", &save) : NULL; t && np < 16;
	     t = strtok_r(NULL, ",", &save))
		peers[np++] = t;
	cfg.permitted = (const char *const *)peers;
	cfg.n_permitted = np;
	cfg.who = "tls_netstrm_client";
	long n = atol(argv[9]);
	long start = argc > 10 ? atol(argv[10]) : 0;

	char err[768];
	struct netstrm_ctx *ctx = netstrm_ctx_create(&cfg, false, err, sizeof(err));
	if (!ctx) {
		fprintf(stderr, "tls_netstrm_client: %s\n", err);
		return 1;
	}
	struct netstrm *s = netstrm_connect(ctx, argv[1], argv[2], 10000, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "tls_netstrm_client: %s\n", err);
		netstrm_ctx_destroy(ctx);
		return 1;
	}
	fprintf(stderr, "tls_netstrm_client: connected, server: %s\n", netstrm_peer_id(s));
	int rc = 0;
	for (long i = 0; i < n; i++) {
		char msg[128], frame[160];
		int ml = snprintf(msg, sizeof(msg), "<13>Mar  1 01:00:00 nsclient tag msgnum:%08ld:",
				  start + i);
		int fl = snprintf(frame, sizeof(frame), "%d %s", ml, msg);
		if (netstrm_send_all(s, frame, (size_t)fl) != 0) {
			fprintf(stderr, "tls_netstrm_client: %s\n", netstrm_error(s));
			rc = 1;
			break;
		}
	}
	netstrm_close(s);
	netstrm_ctx_destroy(ctx);
	free(list);
	return rc;
}
