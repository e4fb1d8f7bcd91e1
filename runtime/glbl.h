/* glbl.h — the daemon-wide settings of global() and their legacy
 * directives. Set while the configuration loads, read-only afterwards.
 *
 * Threading: written by the main thread before any other thread starts.
 */
#ifndef SLUICE_GLBL_H
#define SLUICE_GLBL_H

#include <stdbool.h>
#include <stdint.h>

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
};

extern struct glbl glbl;

/* The host name to use for %HOSTNAME% of internal messages and
 * $myhostname. */
const char *glbl_local_hostname(void);

#endif
