/* glbl.h — the daemon-wide settings of global() and their legacy
 * directives. One parameter table (glbl_table) describes them: global()
 * and the `$Directive` aliases are parsed through it, so the two forms
 * share one default. Set while the configuration loads, read-only
 * afterwards.
 *
 * Threading: written by the main thread before any other thread starts.
 */
#ifndef SLUICE_GLBL_H
#define SLUICE_GLBL_H

#include <stdbool.h>
#include <stdint.h>

struct param_table;

struct glbl {
	int64_t max_msg_size;          /* maxMessageSize, default 8096 */
	char *work_directory;          /* workDirectory */
	char *local_hostname;          /* localHostname; default: gethostname() */
	bool preserve_fqdn;
	bool enable_dns;               /* net.enableDNS (default on) */
	bool drop_trailing_lf;         /* parser.dropTrailingLFOnReception (on) */
	bool escape_cc;                /* parser.escapeControlCharactersOnReceive (on) */
	bool escape_cc_tab;            /* parser.escapeControlCharacterTab (on) */
	bool escape_8bit;              /* parser.escape8BitCharactersOnReceive (off) */
	char cc_escape_char;           /* parser.controlCharacterEscapePrefix ('#') */
	bool permit_slash_in_programname; /* parser.permitSlashInProgramname (off) */
	char *default_netstream_driver;     /* defaultNetstreamDriver */
	char *default_netstream_ca_file;
	char *default_netstream_cert_file;
	char *default_netstream_key_file;
	int debug;                     /* -d */
	/* privilege dropping after the listeners are bound (sluiced.c) */
	int privdrop_uid;              /* privDrop.user.name / .id; -1 = keep */
	int privdrop_gid;              /* privDrop.group.name / .id; -1 = keep */
	bool privdrop_keep_supplemental; /* privDrop.group.keepSupplemental */
	int umask;                     /* umask; -1 = leave the process umask */
	bool abort_on_unclean_config;  /* abortOnUncleanConfig (accepted) */
	char *cc_escape_prefix;        /* text of controlCharacterEscapePrefix */
};

extern struct glbl glbl;

/* The parameters of global(), with their legacy aliases. */
extern const struct param_table glbl_table;

/* Names of global() parameters rsyslog has that are accepted and ignored
 * (NULL-terminated; for param_parse's skip list). */
extern const char *const glbl_ignored[];

/* Copy a parsed config struct of glbl_table into `glbl` (keeps -d and
 * takes ownership of the strings); frees `parsed`. */
void glbl_apply(void *parsed);
/* Free what glbl owns (at exit). */
void glbl_free(void);
/* Back to the built-in settings (frees what global() set). */
void glbl_reset(void);

/* The host name to use for %HOSTNAME% of internal messages and
 * $myhostname. */
const char *glbl_local_hostname(void);

#endif
