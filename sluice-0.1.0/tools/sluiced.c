/* sluiced.c — the daemon: options, configuration check, daemonizing, the
 * pid file, privilege dropping after the listeners are bound, and the
 * signal loop (SIGTERM/SIGINT stop, SIGHUP reopens, SIGUSR1 dumps the
 * statistics to stderr).
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
#include "sdnotify.h"
#include "stats.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HAVE_GNUTLS
#include <gnutls/gnutls.h>
#endif
#ifdef HAVE_PCRE2
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif

extern atomic_bool sl_shutdown_requested;
/* runtime/queue.c (declared in queue.h); weak so that a core without
 * statistics still links. */
extern void stats_dump(FILE *f) __attribute__((weak));

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
		"  -v          print the version, the modules found and the libraries, and exit\n",
		SLUICE_SYSCONFDIR);
}

/* Loadable modules in `dir`: either DIR/NAME.so or, in the build tree,
 * DIR/NAME/.libs/NAME.so. Prints name and description of each. */
static int list_modules_in(const char *dir, bool build_tree)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		char path[PATH_MAX];
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.')
			continue;
		if (build_tree)
			snprintf(path, sizeof(path), "%s/%s/.libs/%s.so", dir, de->d_name, de->d_name);
		else if (l > 3 && !strcmp(de->d_name + l - 3, ".so"))
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		else
			continue;
		if (access(path, R_OK) != 0)
			continue;
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		const struct module *m = h ? dlsym(h, SLUICE_MODULE_SYMBOL) : NULL;
		if (m && m->abi == SLUICE_MODULE_ABI)
			printf("  %-16s %s (%s)\n", m->name, m->description ? m->description : "", path);
		else
			printf("  %-16s not usable: %s\n", de->d_name, h ? "no sluice module symbol or other ABI" : dlerror());
		n++;
		if (h)
			dlclose(h);
	}
	closedir(d);
	return n;
}

static void version(const char *moddir)
{
	printf("sluiced %s (module ABI %d)\n", PACKAGE_VERSION, SLUICE_MODULE_ABI);
	printf("built-in modules:\n  omfile, pmrfc5424, pmrfc3164\n");
	printf("loadable modules:\n");
	int n = 0;
	const char *env = getenv("SLUICE_MODDIR");
	if (moddir)
		n += list_modules_in(moddir, false);
	if (env && *env)
		n += list_modules_in(env, false);
	char exe[PATH_MAX];
	ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (el > 0) {
		exe[el] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			char dir[PATH_MAX + 16];
			*slash = '\0';
			snprintf(dir, sizeof(dir), "%s/../plugins", exe);
			n += list_modules_in(dir, true);
		}
	}
	n += list_modules_in(SLUICE_PKGLIBDIR, false);
	if (!n)
		printf("  (none found)\n");
	printf("libraries:\n  zlib %s\n", zlibVersion());
#ifdef HAVE_GNUTLS
	printf("  gnutls %s (TLS)\n", GNUTLS_VERSION);
#else
	printf("  TLS: no\n");
#endif
#ifdef HAVE_PCRE2
	printf("  pcre2 %d.%d (regular expressions)\n", PCRE2_MAJOR, PCRE2_MINOR);
#else
	printf("  pcre2: no (POSIX regex)\n");
#endif
	printf("  libfastjson, libestr\n");
}

/* Drop privileges as global(privDrop.*) / $PrivDropTo... say; called
 * after every listener is bound. Threads already running change too
 * (glibc applies set*id to the whole process). */
static int drop_privileges(void)
{
	if (glbl.privdrop_gid >= 0) {
		gid_t g = (gid_t)glbl.privdrop_gid;
		if (!glbl.privdrop_keep_supplemental && setgroups(1, &g) != 0) {
			sl_err("cannot drop supplementary groups: %s", strerror(errno));
			return -1;
		}
		if (setgid(g) != 0) {
			sl_err("cannot change to group %d: %s", (int)g, strerror(errno));
			return -1;
		}
		sl_info("changed group to %d", (int)g);
	}
	if (glbl.privdrop_uid >= 0) {
		uid_t u = (uid_t)glbl.privdrop_uid;
		if (glbl.privdrop_gid < 0 && !glbl.privdrop_keep_supplemental) {
			struct passwd *pw = getpwuid(u);
			if (pw && initgroups(pw->pw_name, pw->pw_gid) != 0) {
				sl_err("cannot set the groups of user %s: %s", pw->pw_name, strerror(errno));
				return -1;
			}
		}
		if (setuid(u) != 0) {
			sl_err("cannot change to user %d: %s", (int)u, strerror(errno));
			return -1;
		}
		sl_info("changed user to %d", (int)u);
	}
	return 0;
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

/* ---- systemd and the final ledger (issue #9; runtime/sdnotify.h) ---- */

static uint64_t wd_interval_ms;   /* WATCHDOG=1 every ..., 0 = no watchdog */
static struct timespec wd_next;

static void sd_ready_and_watchdog_setup(void)
{
	char st[64];
	snprintf(st, sizeof(st), "READY=1\nMAINPID=%ld", (long)getpid());
	if (sl_notify(st) < 0)
		sl_warn("sd_notify: cannot tell $NOTIFY_SOCKET that sluiced is ready: %s",
			strerror(errno));
	uint64_t usec = sl_watchdog_usec();
	if (usec) {
		wd_interval_ms = usec / 2000;
		if (wd_interval_ms == 0)
			wd_interval_ms = 1;
		clock_gettime(CLOCK_MONOTONIC, &wd_next);
		sl_info("systemd watchdog: WATCHDOG=1 every %llu ms",
			(unsigned long long)wd_interval_ms);
	}
}

/* Send WATCHDOG=1 when due; shorten *to so that the next is on time. */
static void sd_watchdog_tick(struct timespec *to)
{
	if (!wd_interval_ms)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t left = (int64_t)(wd_next.tv_sec - now.tv_sec) * 1000 +
		       (wd_next.tv_nsec - now.tv_nsec) / 1000000;
	if (left <= 0) {
		sl_notify("WATCHDOG=1");
		wd_next = now;
		wd_next.tv_sec += (time_t)(wd_interval_ms / 1000);
		wd_next.tv_nsec += (long)(wd_interval_ms % 1000) * 1000000;
		if (wd_next.tv_nsec >= 1000000000) {
			wd_next.tv_sec++;
			wd_next.tv_nsec -= 1000000000;
		}
		left = (int64_t)wd_interval_ms;
	}
	if (left < (int64_t)to->tv_sec * 1000 + to->tv_nsec / 1000000) {
		to->tv_sec = (time_t)(left / 1000);
		to->tv_nsec = (long)(left % 1000) * 1000000;
	}
}

/* The loss ledger after the queues drained (doc/statistics.md). */
static void log_final_ledger(void)
{
	struct sbuf sb = SBUF_INIT;
	if (stats_render_obj("ledger", STATS_FMT_LEGACY, &sb) && sbuf_cstr(&sb))
		sl_info("final %s", sb.buf);
	sbuf_free(&sb);
}

int main(int argc, char **argv)
{
	const char *conf = SLUICE_SYSCONFDIR "/sluice.conf";
	const char *pidfile = "/run/sluiced.pid";
	bool foreground = false;
	int check_level = 0;
	bool want_version = false;
	const char *moddir = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "nf:i:N:M:dvh")) != -1) {
		switch (opt) {
		case 'n': foreground = true; break;
		case 'f': conf = optarg; break;
		case 'i': pidfile = optarg; break;
		case 'N': check_level = atoi(optarg); if (check_level < 1) check_level = 1; break;
		case 'M': module_set_dir(optarg); moddir = optarg; break;
		case 'd': sl_debug_on = 1; glbl.debug = 1; break;
		case 'v': want_version = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (want_version) {
		version(moddir);
		return 0;
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
	if (drop_privileges() != 0) {
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
	/* systemd (Type=notify): every listener is bound and the queues are
	 * loaded (conf_start returned); WATCHDOG=1 at half the interval */
	sd_ready_and_watchdog_setup();

	for (;;) {
		struct timespec to = { 1, 0 };
		sd_watchdog_tick(&to);
		int sig = sigtimedwait(&sigs, NULL, &to);
		if (sig == SIGTERM || sig == SIGINT)
			break;
		if (sig == SIGHUP) {
			sl_info("SIGHUP: reopening output files");
			conf_hup();
		}
		if (sig == SIGUSR1) {
			if (stats_dump) {
				sl_info("SIGUSR1: statistics follow");
				stats_dump(stderr);
			} else {
				sl_info("SIGUSR1: this build has no statistics");
			}
		}
		conf_tick();
	}
	sl_info("stopping: draining queues");
	sl_set_ready(false);
	sl_notify("STOPPING=1");
	atomic_store(&sl_shutdown_requested, true);
	conf_stop();
	log_final_ledger();
	conf_tick();
	conf_destroy();
	if (strcmp(pidfile, "NONE") != 0)
		unlink(pidfile);
	return 0;
}
