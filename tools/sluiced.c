/* sluiced.c — the daemon: options, configuration check, daemonizing, the
 * pid file, and the signal loop (SIGTERM/SIGINT stop, SIGHUP reopens).
 *
 * Threading: the main thread blocks the signals before any other thread
 * exists (so every thread inherits the mask) and then waits for them with
 * sigtimedwait, running the once-a-second housekeeping (flush intervals)
 * between signals. Inputs and queue workers run on their own threads.
 */
#include "sluice.h"
#include "conf.h"
#include "datetime.h"
#include "glbl.h"
#include "log.h"
#include "module.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern atomic_bool sl_shutdown_requested;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sluiced [-n] [-f CONFIG] [-i PIDFILE] [-N LEVEL] [-M MODDIR] [-d] [-v]\n"
		"  -n          stay in the foreground\n"
		"  -f CONFIG   configuration file (default %s/sluice.conf)\n"
		"  -i PIDFILE  pid file (default /run/sluiced.pid; NONE for none)\n"
		"  -N LEVEL    check the configuration and exit (non-zero on any error)\n"
		"  -M MODDIR   directory of loadable modules\n"
		"  -d          debug output\n"
		"  -v          print the version and exit\n",
		SLUICE_SYSCONFDIR);
}

static void version(void)
{
	printf("sluiced %s (module ABI %d)\n", PACKAGE_VERSION, SLUICE_MODULE_ABI);
	printf("built-in modules: omfile, pmrfc5424, pmrfc3164\n");
	printf("loadable modules: imtcp\n");
	printf("TLS: %s, PCRE2: %s\n",
#ifdef HAVE_GNUTLS
	       "gnutls",
#else
	       "no",
#endif
#ifdef HAVE_PCRE2
	       "yes"
#else
	       "no"
#endif
	);
}

static int write_pidfile(const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		sl_err("cannot write pid file %s: %s", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "%ld\n", (long)getpid());
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		sl_err("cannot write pid file %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Classic double-fork daemonizing; the parent waits until the child has
 * started (listeners bound) so that init scripts see a ready daemon. */
static int daemonize(int *notify_fd)
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(p[1]);
		char c = 1;
		ssize_t n = read(p[0], &c, 1);
		_exit(n == 1 && c == 0 ? 0 : 1);
	}
	close(p[0]);
	setsid();
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	if (chdir("/") != 0) {
		/* keep going: cwd does not matter after start */
	}
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		if (null > 2)
			close(null);
	}
	*notify_fd = p[1];
	return 0;
}

int main(int argc, char **argv)
{
	const char *conf = SLUICE_SYSCONFDIR "/sluice.conf";
	const char *pidfile = "/run/sluiced.pid";
	bool foreground = false;
	int check_level = 0;
	int opt;

	while ((opt = getopt(argc, argv, "nf:i:N:M:dvh")) != -1) {
		switch (opt) {
		case 'n': foreground = true; break;
		case 'f': conf = optarg; break;
		case 'i': pidfile = optarg; break;
		case 'N': check_level = atoi(optarg); if (check_level < 1) check_level = 1; break;
		case 'M': module_set_dir(optarg); break;
		case 'd': sl_debug_on = 1; glbl.debug = 1; break;
		case 'v': version(); return 0;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	tzset();

	/* Every thread inherits this mask; the main thread takes the signals. */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (conf_load(conf, check_level > 0) != SL_OK) {
		conf_destroy();
		return 1;
	}
	if (check_level > 0) {
		fprintf(stderr, "sluiced: configuration %s is valid\n", conf);
		conf_destroy();
		return 0;
	}

	int notify_fd = -1;
	if (!foreground && daemonize(&notify_fd) != 0) {
		sl_err("cannot daemonize: %s", strerror(errno));
		return 1;
	}
	if (strcmp(pidfile, "NONE") != 0 && write_pidfile(pidfile) != 0)
		return 1;
	if (conf_start() != SL_OK) {
		sl_err("start failed; stopping");
		atomic_store(&sl_shutdown_requested, true);
		conf_stop();
		conf_destroy();
		if (strcmp(pidfile, "NONE") != 0)
			unlink(pidfile);
		return 1;
	}
	if (notify_fd >= 0) {
		char c = 0;
		if (write(notify_fd, &c, 1) != 1) {
			/* parent gone: nothing to tell */
		}
		close(notify_fd);
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 2);
			if (null > 2)
				close(null);
		}
	}
	sl_info("sluiced %s started (pid %ld, config %s)", PACKAGE_VERSION, (long)getpid(), conf);

	for (;;) {
		struct timespec to = { 1, 0 };
		int sig = sigtimedwait(&sigs, NULL, &to);
		if (sig == SIGTERM || sig == SIGINT)
			break;
		if (sig == SIGHUP) {
			sl_info("SIGHUP: reopening output files");
			conf_hup();
		}
		conf_tick();
	}
	sl_info("stopping: draining queues");
	atomic_store(&sl_shutdown_requested, true);
	conf_stop();
	conf_tick();
	conf_destroy();
	if (strcmp(pidfile, "NONE") != 0)
		unlink(pidfile);
	return 0;
}
