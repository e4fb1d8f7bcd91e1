/* template.h — templates: a compiled, flat list of steps (constants and
 * properties with replacer options) rendered into a caller-owned buffer,
 * plus the built-in templates, which have fast string generators.
 *
 * Threading: templates are created at config load by the main thread and
 * are read-only afterwards; tpl_render() is reentrant (all per-call state
 * lives in the caller's buffers).
 */
#ifndef SLUICE_TEMPLATE_H
#define SLUICE_TEMPLATE_H

#include <stdbool.h>
#include "sbuf.h"
#include "sluice.h"

struct msg;
struct cfg_obj;
struct cfg_pos;
struct template;

/* Register the built-in templates (RSYSLOG_FileFormat, ...). Called once
 * before the configuration is loaded. */
void tpl_init_builtins(void);

/* Create a template from a template() object and register it under its
 * name. Errors are reported with FILE:LINE; returns SL_ERR_CONFIG then. */
enum sl_rc tpl_create_from_obj(struct cfg_obj *o);

/* Legacy `$template name,"string"[,option]`: `args` is the text after the
 * directive name. */
enum sl_rc tpl_create_legacy(const char *args, const struct cfg_pos *pos);

/* Find a template by name (case-insensitive); NULL if unknown. */
const struct template *tpl_find(const char *name);
const char *tpl_name(const struct template *t);
/* The defined template whose name is closest to `name` (for "did you
 * mean" hints), or NULL. */
const char *tpl_suggest(const char *name);

/* Render `m` through `t`, appending to `out`. Returns false on ENOMEM. */
bool tpl_render(const struct template *t, struct msg *m, struct sbuf *out);

/* Render through the generic step list even where the template has a
 * strgen fast path (used by tests to compare both). */
bool tpl_render_generic(const struct template *t, struct msg *m, struct sbuf *out);

/* ---- shared by template.c and strgen.c only ---- */
enum tpl_datefmt {
	TPL_DF_DEFAULT = 0, TPL_DF_MYSQL, TPL_DF_PGSQL, TPL_DF_RFC3164, TPL_DF_RFC3164_BUGGY,
	TPL_DF_RFC3339, TPL_DF_UNIX, TPL_DF_SECFRAC, TPL_DF_WDAYNAME, TPL_DF_WDAY,
	TPL_DF_YEAR, TPL_DF_MONTH, TPL_DF_DAY, TPL_DF_HOUR, TPL_DF_MINUTE, TPL_DF_SECOND,
	TPL_DF_TZOFFSHOUR, TPL_DF_TZOFFSMIN, TPL_DF_TZOFFSDIR, TPL_DF_ORDINAL, TPL_DF_WEEK,
};
struct syslog_time;
/* Format a timestamp (per-thread cache of the last result per format);
 * `buf` holds DT_MAX_LEN bytes; returns the length. */
size_t tpl_fmt_time(const struct syslog_time *t, enum tpl_datefmt fmt, bool utc, char *buf);

typedef bool (*tpl_strgen_fn)(const struct msg *m, struct sbuf *out);
bool strgen_file(const struct msg *m, struct sbuf *out);
bool strgen_trad_file(const struct msg *m, struct sbuf *out);
bool strgen_forward(const struct msg *m, struct sbuf *out);
bool strgen_trad_forward(const struct msg *m, struct sbuf *out);
bool strgen_protocol23(const struct msg *m, struct sbuf *out);

/* Free all templates (at exit). */
void tpl_destroy_all(void);

#endif
