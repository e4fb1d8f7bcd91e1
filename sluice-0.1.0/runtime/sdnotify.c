/* sdnotify.c — readiness, sd_notify and socket activation (see
 * sdnotify.h). The protocols are systemd's documented ones
 * (sd_notify(3), sd_listen_fds(3)); nothing here links libsystemd.
 *
 * Threading: the ready flag is an atomic; sl_notify opens a socket per
 * call (it is called a handful of times, and every WATCHDOG_USEC/2);
 * the table of activated descriptors is touched by the main thread only.
 */
#include "sdnotify.h"
#include "sluice.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static atomic_bool ready;

void sl_set_ready(bool r)
{
	atomic_store(&ready, r);
}

bool sl_is_ready(void)
{
	return atomic_load(&ready);
}

int sl_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	if (!path || !*path)
		return 0;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t l = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || l >= sizeof(sa.sun_path)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(sa.sun_path, path, l);
	if (path[0] == '@')
		sa.sun_path[0] = '\0'; /* abstract namespace */
	socklen_t salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	ssize_t n = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
	int e = errno;
	close(fd);
	errno = e;
	return n < 0 ? -1 : 1;
}

/* $X as an unsigned number; false when unset or malformed. */
static bool env_u64(const char *name, uint64_t *out)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

uint64_t sl_watchdog_usec(void)
{
	uint64_t usec, pid;
	if (!env_u64("WATCHDOG_USEC", &usec) || usec == 0)
		return 0;
	if (env_u64("WATCHDOG_PID", &pid) && pid != (uint64_t)getpid())
		return 0;
	return usec;
}

#define SD_LISTEN_FDS_START 3
#define SD_MAX_FDS 64

static bool fds_taken[SD_MAX_FDS];

int sl_listen_fd_unix(const char *path, int type)
{
	uint64_t n, pid;
	if (!env_u64("LISTEN_FDS", &n) || !env_u64("LISTEN_PID", &pid) ||
	    pid != (uint64_t)getpid())
		return -1;
	if (n > SD_MAX_FDS)
		n = SD_MAX_FDS;
	for (int i = 0; i < (int)n; i++) {
		int fd = SD_LISTEN_FDS_START + i;
		if (fds_taken[i])
			continue;
		int t = 0;
		socklen_t tl = sizeof(t);
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &tl) != 0 || t != type)
			continue;
		struct sockaddr_un sa;
		socklen_t sl = sizeof(sa);
		memset(&sa, 0, sizeof(sa));
		if (getsockname(fd, (struct sockaddr *)&sa, &sl) != 0 || sa.sun_family != AF_UNIX)
			continue;
		size_t pl = sl > offsetof(struct sockaddr_un, sun_path)
				    ? sl - offsetof(struct sockaddr_un, sun_path) : 0;
		if (pl > 0 && sa.sun_path[pl - 1] == '\0')
			pl--;
		if (pl != strlen(path) || memcmp(sa.sun_path, path, pl) != 0)
			continue;
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			fcntl(fd, F_SETFL, fl | O_NONBLOCK);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		fds_taken[i] = true;
		return fd;
	}
	return -1;
}
