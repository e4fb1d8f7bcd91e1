/* glbl.c — daemon-wide settings (global()) with rsyslog's defaults.
 *
 * Threading: written by the main thread while loading the configuration,
 * read-only afterwards.
 */
#include "glbl.h"
#include "sluice.h"

#include <string.h>
#include <unistd.h>

struct glbl glbl = {
	.max_msg_size = 8096,
	.enable_dns = true,
	.drop_trailing_lf = true,
	.escape_cc = true,
	.escape_cc_tab = true,
	.escape_8bit = false,
	.cc_escape_char = '#',
};

const char *glbl_local_hostname(void)
{
	static char host[256];
	if (glbl.local_hostname)
		return glbl.local_hostname;
	if (!host[0]) {
		if (gethostname(host, sizeof(host) - 1) != 0)
			strcpy(host, "localhost");
		host[sizeof(host) - 1] = '\0';
		if (!glbl.preserve_fqdn) {
			char *dot = strchr(host, '.');
			if (dot)
				*dot = '\0';
		}
	}
	return host;
}
