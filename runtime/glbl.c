/* glbl.c — daemon-wide settings (global()) with rsyslog's defaults, and
 * the one parameter table that both global() and the legacy `$Directive`
 * forms are parsed through.
 *
 * Threading: written by the main thread while loading the configuration,
 * read-only afterwards.
 */
#include "glbl.h"
#include "module.h"
#include "sluice.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The built-in settings (rsyslog's defaults), before any global() */
#define GLBL_BUILTIN { \
	.max_msg_size = 8096, \
	.enable_dns = true, \
	.drop_trailing_lf = true, \
	.escape_cc = true, \
	.escape_cc_tab = true, \
	.escape_8bit = false, \
	.cc_escape_char = '#', \
	.privdrop_uid = -1, \
	.privdrop_gid = -1, \
	.umask = -1, \
}

struct glbl glbl = GLBL_BUILTIN;

void glbl_reset(void)
{
	glbl_free();
	glbl = (struct glbl)GLBL_BUILTIN;
}

#define GOFF(f) offsetof(struct glbl, f)
static const struct param_desc glbl_params[] = {
	{ "maxMessageSize", PARAM_SIZE, "8096", 0, GOFF(max_msg_size), "largest message accepted" },
	{ "maxmessagesize", PARAM_SIZE, NULL, PARAM_LEGACY, GOFF(max_msg_size), NULL },
	{ "workDirectory", PARAM_STRING, NULL, 0, GOFF(work_directory), "directory for queue and state files" },
	{ "workdirectory", PARAM_STRING, NULL, PARAM_LEGACY, GOFF(work_directory), NULL },
	{ "localHostname", PARAM_STRING, NULL, 0, GOFF(local_hostname), "host name of this system" },
	{ "localhostname", PARAM_STRING, NULL, PARAM_LEGACY, GOFF(local_hostname), NULL },
	{ "preserveFQDN", PARAM_BINARY, "off", 0, GOFF(preserve_fqdn), "keep the domain of host names" },
	{ "preservefqdn", PARAM_BINARY, NULL, PARAM_LEGACY, GOFF(preserve_fqdn), NULL },
	{ "net.enableDNS", PARAM_BINARY, "on", 0, GOFF(enable_dns), "resolve sender addresses" },
	{ "parser.dropTrailingLFOnReception", PARAM_BINARY, "on", 0, GOFF(drop_trailing_lf), "drop a trailing LF" },
	{ "droptrailinglfonreception", PARAM_BINARY, NULL, PARAM_LEGACY, GOFF(drop_trailing_lf), NULL },
	{ "parser.escapeControlCharactersOnReceive", PARAM_BINARY, "on", 0, GOFF(escape_cc), "escape control characters" },
	{ "escapecontrolcharactersonreceive", PARAM_BINARY, NULL, PARAM_LEGACY, GOFF(escape_cc), NULL },
	{ "parser.escapeControlCharacterTab", PARAM_BINARY, "on", 0, GOFF(escape_cc_tab), "escape TAB too" },
	{ "escapecontrolcharactertab", PARAM_BINARY, NULL, PARAM_LEGACY, GOFF(escape_cc_tab), NULL },
	{ "parser.escape8BitCharactersOnReceive", PARAM_BINARY, "off", 0, GOFF(escape_8bit), "escape bytes >= 0x80" },
	{ "escape8bitcharactersonreceive", PARAM_BINARY, NULL, PARAM_LEGACY, GOFF(escape_8bit), NULL },
	{ "parser.controlCharacterEscapePrefix", PARAM_STRING, "#", 0, GOFF(cc_escape_prefix), "prefix of escaped control characters" },
	{ "controlcharacterescapeprefix", PARAM_STRING, NULL, PARAM_LEGACY, GOFF(cc_escape_prefix), NULL },
	{ "parser.permitSlashInProgramname", PARAM_BINARY, "off", 0, GOFF(permit_slash_in_programname), "'/' may be part of a program name" },
	{ "defaultNetstreamDriver", PARAM_STRING, NULL, 0, GOFF(default_netstream_driver), "ptcp or gtls" },
	{ "defaultnetstreamdriver", PARAM_STRING, NULL, PARAM_LEGACY, GOFF(default_netstream_driver), NULL },
	{ "defaultNetstreamDriverCAFile", PARAM_STRING, NULL, 0, GOFF(default_netstream_ca_file), "CA file" },
	{ "defaultnetstreamdrivercafile", PARAM_STRING, NULL, PARAM_LEGACY, GOFF(default_netstream_ca_file), NULL },
	{ "defaultNetstreamDriverCertFile", PARAM_STRING, NULL, 0, GOFF(default_netstream_cert_file), "certificate file" },
	{ "defaultnetstreamdrivercertfile", PARAM_STRING, NULL, PARAM_LEGACY, GOFF(default_netstream_cert_file), NULL },
	{ "defaultNetstreamDriverKeyFile", PARAM_STRING, NULL, 0, GOFF(default_netstream_key_file), "key file" },
	{ "defaultnetstreamdriverkeyfile", PARAM_STRING, NULL, PARAM_LEGACY, GOFF(default_netstream_key_file), NULL },
	{ "privDrop.user.name", PARAM_UID, "-1", 0, GOFF(privdrop_uid), "user to run as after binding" },
	{ "privDrop.user.id", PARAM_UID, NULL, 0, GOFF(privdrop_uid), "uid to run as after binding" },
	{ "privdroptouser", PARAM_UID, NULL, PARAM_LEGACY, GOFF(privdrop_uid), NULL },
	{ "privdroptouserid", PARAM_UID, NULL, PARAM_LEGACY, GOFF(privdrop_uid), NULL },
	{ "privDrop.group.name", PARAM_GID, "-1", 0, GOFF(privdrop_gid), "group to run as after binding" },
	{ "privDrop.group.id", PARAM_GID, NULL, 0, GOFF(privdrop_gid), "gid to run as after binding" },
	{ "privdroptogroup", PARAM_GID, NULL, PARAM_LEGACY, GOFF(privdrop_gid), NULL },
	{ "privdroptogroupid", PARAM_GID, NULL, PARAM_LEGACY, GOFF(privdrop_gid), NULL },
	{ "privDrop.group.keepSupplemental", PARAM_BINARY, "off", 0, GOFF(privdrop_keep_supplemental), "keep supplementary groups" },
	{ "umask", PARAM_FILEMODE, NULL, 0, GOFF(umask), "process umask (e.g. 0022)" },
	{ "umask", PARAM_FILEMODE, NULL, PARAM_LEGACY, GOFF(umask), NULL },
	{ "abortOnUncleanConfig", PARAM_BINARY, "off", 0, GOFF(abort_on_unclean_config), "accepted (sluiced -N1 is always strict)" },
	{ "abortonuncleanconfig", PARAM_BINARY, NULL, PARAM_LEGACY, GOFF(abort_on_unclean_config), NULL },
};
const struct param_table glbl_table = PARAM_TABLE(glbl_params, struct glbl);

const char *const glbl_ignored[] = {
	/* rsyslog global() parameters accepted but not acted on yet (#3) */
	"processinternalmessages", "stdlog.channel", "net.ipprotocol", "net.acladdhostnameonfail",
	"net.aclresolvehostname", "net.permitwarning", "net.permitacl",
	"internalmsg.ratelimit.interval", "internalmsg.ratelimit.burst", "internalmsg.severity",
	"errormessagestostderr.maxnumber", "action.reportsuspension",
	"action.reportsuspensioncontinuation", "senders.keeptrack", "senders.timeouttime",
	"senders.reportnew", "senders.reportgoneaway", "debug.files", "debug.whitelist",
	"debug.gnutls", "debug.unloadmodules", "debug.logfile", "shutdown.enable.ctlc",
	"default.action.queue.timeoutshutdown", "default.action.queue.timeoutactioncompletion",
	"default.action.queue.timeoutenqueue", "default.action.queue.timeoutworkerthreadshutdown",
	"default.ruleset.queue.timeoutshutdown", "default.ruleset.queue.timeoutactioncompletion",
	"default.ruleset.queue.timeoutenqueue", "default.ruleset.queue.timeoutworkerthreadshutdown",
	"oversizemsg.errorfile", "oversizemsg.report", "oversizemsg.input.mode",
	"reportchildprocessexits", "environment", "inputs.timeout.shutdown",
	"variables.casesensitive", "dropmsgswithmaliciousdnsptrrecords", "localhostipif",
	"netstreamdriver.caextension", "operatingstatefile", "parser.supportcompressionextension",
	"security.abortonidresolutionfail", "shutdown.queue.doublesize", "mainmsgqueue.size",
	"debug.abortoninternalerror", "parser.parsehostnameandtag", "parser.spacelfonreceive",
	"net.permitacl", "defaultnetstreamdriver.tlsverifydepth", "resetconfigvariables",
	"ratelimit.interval", "ratelimit.burst", "json.encoding", NULL,
};

void glbl_apply(void *parsed)
{
	struct glbl *g = parsed;
	int debug = glbl.debug;
	glbl_free();
	glbl = *g;
	glbl.debug = debug;
	glbl.cc_escape_char = glbl.cc_escape_prefix && glbl.cc_escape_prefix[0]
		? glbl.cc_escape_prefix[0] : '#';
	if (glbl.max_msg_size < 128)
		glbl.max_msg_size = 128;
	free(g); /* the strings now belong to glbl */
}

void glbl_free(void)
{
	char **strs[] = {
		&glbl.work_directory, &glbl.local_hostname, &glbl.default_netstream_driver,
		&glbl.default_netstream_ca_file, &glbl.default_netstream_cert_file,
		&glbl.default_netstream_key_file, &glbl.cc_escape_prefix,
	};
	for (size_t i = 0; i < SL_ARRAY_SIZE(strs); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
}

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
