/* sdnotify.h — the daemon's readiness and the systemd protocols, done
 * directly (no libsystemd): sd_notify datagrams to $NOTIFY_SOCKET
 * (READY=1, STOPPING=1, WATCHDOG=1, STATUS=...), the watchdog interval
 * from $WATCHDOG_USEC/$WATCHDOG_PID, and socket activation
 * ($LISTEN_FDS/$LISTEN_PID, descriptors from 3 on) for imuxsock.
 *
 * Threading: sl_set_ready / sl_is_ready are atomics, callable from any
 * thread (the HTTP endpoint reads them). sl_notify may be called from any
 * thread (one sendmsg per call). sl_listen_fd_unix is called from the main
 * thread while inputs start.
 */
#ifndef SLUICE_SDNOTIFY_H
#define SLUICE_SDNOTIFY_H

#include <stdbool.h>
#include <stdint.h>

/* The daemon is ready: every listener is bound and every queue is
 * loaded (set at the end of conf_start; cleared when stopping). */
void sl_set_ready(bool ready);
bool sl_is_ready(void);

/* Send `state` ("READY=1", "STOPPING=1", ...) to $NOTIFY_SOCKET (an
 * absolute path, or '@' for the abstract namespace). Returns 1 when sent,
 * 0 when there is no $NOTIFY_SOCKET, -1 on error (errno set). */
int sl_notify(const char *state);

/* The watchdog interval in microseconds when systemd asked for one
 * ($WATCHDOG_USEC, for this process by $WATCHDOG_PID if set), else 0. */
uint64_t sl_watchdog_usec(void);

/* Socket activation: a descriptor passed by systemd that is a unix
 * socket of `type` (SOCK_DGRAM/SOCK_STREAM) bound to `path`, made
 * non-blocking and close-on-exec; -1 when there is none. The descriptor
 * belongs to the caller from then on (it is handed out once). */
int sl_listen_fd_unix(const char *path, int type);

#endif
