/* log.h — the daemon's own diagnostics. Messages go to stderr (and, once
 * the daemon runs, into the internal message stream).
 *
 * Threading: callable from any thread; each line is written with one
 * write() so lines never interleave.
 */
#ifndef SLUICE_LOG_H
#define SLUICE_LOG_H

enum log_level { LOG_LVL_ERR = 3, LOG_LVL_WARN = 4, LOG_LVL_INFO = 6, LOG_LVL_DEBUG = 7 };

void sl_log(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define sl_err(...) sl_log(LOG_LVL_ERR, __VA_ARGS__)
#define sl_warn(...) sl_log(LOG_LVL_WARN, __VA_ARGS__)
#define sl_info(...) sl_log(LOG_LVL_INFO, __VA_ARGS__)
#define sl_dbg(...) do { if (sl_debug_on) sl_log(LOG_LVL_DEBUG, __VA_ARGS__); } while (0)
extern int sl_debug_on;

#endif
