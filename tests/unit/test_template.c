/* test_template.c — unit tests for properties, the property replacer,
 * templates and the strgen fast paths.
 *
 * Expected strings were produced by rsyslogd 8.2302 (imtcp input, omfile
 * output) for the same seven messages and templates; the messages are
 * built here by hand (spans filled directly) so the tests do not depend on
 * the parsers. TZ is irrelevant: every timestamp carries its offset.
 *
 * Threading: single-threaded test program.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json.h>

#include "template.h"
#include "glbl.h"
#include "prop.h"
#include "msg.h"
#include "ast.h"

/* generated from rsyslogd 8.2302 output (see test comments) */
struct oracle { const char *tpl; const char *str; const char *opt; const char *expect; };
static const struct oracle string_oracles[] = {
	{ "props", "msg=[%msg%] raw=[%rawmsg%] rap=[%rawmsg-after-pri%] host=[%hostname%] src=[%source%] fh=[%fromhost%] fhip=[%fromhost-ip%] tag=[%syslogtag%] pn=[%programname%] pri=[%pri%] pt=[%pri-text%] iut=[%iut%] f=[%syslogfacility%] ft=[%syslogfacility-text%] s=[%syslogseverity%] st=[%syslogseverity-text%] sp=[%syslogpriority%] spt=[%syslogpriority-text%] tr=[%timereported%] ts=[%timestamp%] pv=[%protocol-version%] sd=[%structured-data%] app=[%app-name%] pid=[%procid%] mid=[%msgid%] in=[%inputname%] ps=[%parsesuccess%] cee=[%$!%] allj=[%$!all-json%] loc=[%$.%] glo=[%$/%]\n"
	"",
	  NULL,
	  "msg=[ hello world] raw=[<134>Mar  1 01:02:03 host1 prog[123]: hello world] rap=[Mar  1 01:02:03 host1 prog[123]: hello world] host=[host1] src=[host1] fh=[localhost] fhip=[127.0.0.1] tag=[prog[123]:] pn=[prog] pri=[134] pt=[local0.info] iut=[1] f=[16] ft=[local0] s=[6] st=[info] sp=[6] spt=[info] tr=[Mar  1 01:02:03] ts=[Mar  1 01:02:03] pv=[0] sd=[-] app=[prog] pid=[123] mid=[-] in=[imtcp] ps=[FAIL] cee=[] allj=[{}] loc=[] glo=[]\n"
	"msg=[ msg with \"quotes\" and \\ backslash / slash] raw=[<13>2003-08-24T05:14:15.000003-07:00 myhost app: msg with \"quotes\" and \\ backslash / slash] rap=[2003-08-24T05:14:15.000003-07:00 myhost app: msg with \"quotes\" and \\ backslash / slash] host=[myhost] src=[myhost] fh=[localhost] fhip=[127.0.0.1] tag=[app:] pn=[app] pri=[13] pt=[user.notice] iut=[1] f=[1] ft=[user] s=[5] st=[notice] sp=[5] spt=[notice] tr=[Aug 24 05:14:15] ts=[Aug 24 05:14:15] pv=[0] sd=[-] app=[app] pid=[-] mid=[-] in=[imtcp] ps=[FAIL] cee=[] allj=[{}] loc=[] glo=[]\n"
	"msg=[An application event] raw=[<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\"3\" eventSource=\"Application\"] An application event] rap=[1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\"3\" eventSource=\"Application\"] An application event] host=[mymachine.example.com] src=[mymachine.example.com] fh=[localhost] fhip=[127.0.0.1] tag=[evntslog] pn=[evntslog] pri=[165] pt=[local4.notice] iut=[1] f=[20] ft=[local4] s=[5] st=[notice] sp=[5] spt=[notice] tr=[Oct 11 22:14:15] ts=[Oct 11 22:14:15] pv=[1] sd=[[exampleSDID@32473 iut=\"3\" eventSource=\"Application\"]] app=[evntslog] pid=[-] mid=[ID47] in=[imtcp] ps=[FAIL] cee=[] allj=[{}] loc=[] glo=[]\n"
	"msg=[nospace] raw=[<30>Mar 10 12:00:00 host2 tag:nospace] rap=[Mar 10 12:00:00 host2 tag:nospace] host=[host2] src=[host2] fh=[localhost] fhip=[127.0.0.1] tag=[tag:] pn=[tag] pri=[30] pt=[daemon.info] iut=[1] f=[3] ft=[daemon] s=[6] st=[info] sp=[6] spt=[info] tr=[Mar 10 12:00:00] ts=[Mar 10 12:00:00] pv=[0] sd=[-] app=[tag] pid=[-] mid=[-] in=[imtcp] ps=[FAIL] cee=[] allj=[{}] loc=[] glo=[]\n"
	"msg=[ x#011y  z] raw=[<14>Dec 31 23:59:59 h3 a/b: x#011y  z] rap=[Dec 31 23:59:59 h3 a/b: x#011y  z] host=[h3] src=[h3] fh=[localhost] fhip=[127.0.0.1] tag=[a/b:] pn=[a] pri=[14] pt=[user.info] iut=[1] f=[1] ft=[user] s=[6] st=[info] sp=[6] spt=[info] tr=[Dec 31 23:59:59] ts=[Dec 31 23:59:59] pv=[0] sd=[-] app=[a] pid=[-] mid=[-] in=[imtcp] ps=[FAIL] cee=[] allj=[{}] loc=[] glo=[]\n"
	"msg=[] raw=[<191>1 2023-06-15T10:20:30.123456+02:00 h4 app 4711 - - ] rap=[1 2023-06-15T10:20:30.123456+02:00 h4 app 4711 - - ] host=[h4] src=[h4] fh=[localhost] fhip=[127.0.0.1] tag=[app[4711]] pn=[app] pri=[191] pt=[local7.debug] iut=[1] f=[23] ft=[local7] s=[7] st=[debug] sp=[7] spt=[debug] tr=[Jun 15 10:20:30] ts=[Jun 15 10:20:30] pv=[1] sd=[-] app=[app] pid=[4711] mid=[-] in=[imtcp] ps=[FAIL] cee=[] allj=[{}] loc=[] glo=[]\n"
	"msg=[ ..] raw=[<0>Jun  5 00:00:00 h5 su: ..] rap=[Jun  5 00:00:00 h5 su: ..] host=[h5] src=[h5] fh=[localhost] fhip=[127.0.0.1] tag=[su:] pn=[su] pri=[0] pt=[kern.emerg] iut=[1] f=[0] ft=[kern] s=[0] st=[emerg] sp=[0] spt=[emerg] tr=[Jun  5 00:00:00] ts=[Jun  5 00:00:00] pv=[0] sd=[-] app=[su] pid=[-] mid=[-] in=[imtcp] ps=[FAIL] cee=[] allj=[{}] loc=[] glo=[]\n"
	"" },
	{ "dates", "%timereported:::date-rfc3164%|%timereported:::date-rfc3164-buggyday%|%timereported:::date-rfc3339%|%timereported:::date-mysql%|%timereported:::date-pgsql%|%timereported:::date-unixtimestamp%|%timereported:::date-subseconds%|%timereported:::date-year%|%timereported:::date-month%|%timereported:::date-day%|%timereported:::date-hour%|%timereported:::date-minute%|%timereported:::date-second%|%timereported:::date-tzoffsdirection%|%timereported:::date-tzoffshour%|%timereported:::date-tzoffsmin%|%timereported:::date-wday%|%timereported:::date-wdayname%|%timereported:::date-ordinal%|%timereported:::date-week%|%timereported:::date-utc,date-rfc3339%|%timereported:::date-rfc3339,date-utc%|%timereported:::date-utc%|%timereported:::date-utc,date-mysql%|%timereported:::date-utc,date-hour%\n"
	"",
	  NULL,
	  "Mar  1 01:02:03|Mar  1 01:02:03|2026-03-01T01:02:03+00:00|20260301010203|2026-03-01 01:02:03|1772326923|0|2026|03|01|01|02|03|+|00|00|0|Sun|060|10|2026-03-01T01:02:03.000000+00:00|2026-03-01T01:02:03.000000+00:00|Mar  1 01:02:03|20260301010203|01\n"
	"Aug 24 05:14:15|Aug 24 05:14:15|2003-08-24T05:14:15.000003-07:00|20030824051415|2003-08-24 05:14:15|1061727255|000003|2003|08|24|05|14|15|-|07|00|0|Sun|236|35|2003-08-24T12:14:15.000003+00:00|2003-08-24T12:14:15.000003+00:00|Aug 24 12:14:15|20030824121415|12\n"
	"Oct 11 22:14:15|Oct 11 22:14:15|2003-10-11T22:14:15.003Z|20031011221415|2003-10-11 22:14:15|1065910455|003|2003|10|11|22|14|15|-|00|00|6|Sat|284|41|2003-10-11T22:14:15.000003+00:00|2003-10-11T22:14:15.000003+00:00|Oct 11 22:14:15|20031011221415|22\n"
	"Mar 10 12:00:00|Mar 10 12:00:00|2026-03-10T12:00:00+00:00|20260310120000|2026-03-10 12:00:00|1773144000|0|2026|03|10|12|00|00|+|00|00|2|Tue|069|11|2026-03-10T12:00:00.000000+00:00|2026-03-10T12:00:00.000000+00:00|Mar 10 12:00:00|20260310120000|12\n"
	"Dec 31 23:59:59|Dec 31 23:59:59|2026-12-31T23:59:59+00:00|20261231235959|2026-12-31 23:59:59|1798761599|0|2026|12|31|23|59|59|+|00|00|4|Thu|366|53|2026-12-31T23:59:59.000000+00:00|2026-12-31T23:59:59.000000+00:00|Dec 31 23:59:59|20261231235959|23\n"
	"Jun 15 10:20:30|Jun 15 10:20:30|2023-06-15T10:20:30.123456+02:00|20230615102030|2023-06-15 10:20:30|1686817230|123456|2023|06|15|10|20|30|+|02|00|4|Thu|166|24|2023-06-15T08:20:30.123456+00:00|2023-06-15T08:20:30.123456+00:00|Jun 15 08:20:30|20230615082030|08\n"
	"Jun  5 00:00:00|Jun  5 00:00:00|2026-06-05T00:00:00+00:00|20260605000000|2026-06-05 00:00:00|1780617600|0|2026|06|05|00|00|00|+|00|00|5|Fri|156|23|2026-06-05T00:00:00.000000+00:00|2026-06-05T00:00:00.000000+00:00|Jun  5 00:00:00|20260605000000|00\n"
	"" },
	{ "subs", "[%msg:1:5%][%msg:3:$%][%msg:2:2%][%msg:100:200%][%msg:5:3%][%syslogtag:1:32%][%msg:1:20:fixed-width%][%msg:3:1:pos-end-relative%][%msg:::uppercase%][%msg:::lowercase%][%msg:2:6:uppercase%][%msg:::sp-if-no-1st-sp%][%hostname:::sp-if-no-1st-sp%][%msg:::json%][%msg:::jsonr%][%msg:::jsonf%][%msg:::jsonfr%][%msg:::csv%][%msg:::escape-cc%][%msg:::drop-cc%][%msg:::space-cc%][%msg:::compressspace%][%syslogtag:::secpath-drop%][%syslogtag:::secpath-replace%][%msg:::json,uppercase%][%msg:::jsonf:myname%][%msg:1:3:jsonf%]\n"
	"",
	  NULL,
	  "[ hell][ello world][h][][ell][prog[123]:][ hello world        ][rld][ HELLO WORLD][ hello world][HELLO][][ ][ hello world][ hello world][\"msg\":\" hello world\"][\"msg\":\" hello world\"][\" hello world\"][ hello world][ hello world][ hello world][ hello world][prog[123]:][prog[123]:][ HELLO WORLD][\"myname\":\" hello world\"][\"msg\":\" he\"]\n"
	"[ msg ][sg with \"quotes\" and \\ backslash / slash][m][][sg ][app:][ msg with \"quotes\" a][ash][ MSG WITH \"QUOTES\" AND \\ BACKSLASH / SLASH][ msg with \"quotes\" and \\ backslash / slash][MSG W][][ ][ msg with \\\"quotes\\\" and \\\\ backslash \\/ slash][ msg with \\\"quotes\\\" and \\\\ backslash \\/ slash][\"msg\":\" msg with \\\"quotes\\\" and \\\\ backslash \\/ slash\"][\"msg\":\" msg with \\\"quotes\\\" and \\\\ backslash \\/ slash\"][\" msg with \"\"quotes\"\" and \\ backslash / slash\"][ msg with \"quotes\" and \\ backslash / slash][ msg with \"quotes\" and \\ backslash / slash][ msg with \"quotes\" and \\ backslash / slash][ msg with \"quotes\" and \\ backslash / slash][app:][app:][ MSG WITH \\\"QUOTES\\\" AND \\\\ BACKSLASH \\/ SLASH][\"myname\":\" msg with \\\"quotes\\\" and \\\\ backslash \\/ slash\"][\"msg\":\" ms\"]\n"
	"[An ap][ application event][n][][ ap][evntslog][An application event][ent][AN APPLICATION EVENT][an application event][N APP][ ][ ][An application event][An application event][\"msg\":\"An application event\"][\"msg\":\"An application event\"][\"An application event\"][An application event][An application event][An application event][An application event][evntslog][evntslog][AN APPLICATION EVENT][\"myname\":\"An application event\"][\"msg\":\"An \"]\n"
	"[nospa][space][o][][spa][tag:][nospace             ][ace][NOSPACE][nospace][OSPAC][ ][ ][nospace][nospace][\"msg\":\"nospace\"][\"msg\":\"nospace\"][\"nospace\"][nospace][nospace][nospace][nospace][tag:][tag:][NOSPACE][\"myname\":\"nospace\"][\"msg\":\"nos\"]\n"
	"[ x#01][#011y  z][x][][#01][a/b:][ x#011y  z          ][  z][ X#011Y  Z][ x#011y  z][X#011][][ ][ x#011y  z][ x#011y  z][\"msg\":\" x#011y  z\"][\"msg\":\" x#011y  z\"][\" x#011y  z\"][ x#011y  z][ x#011y  z][ x#011y  z][ x#011y z][ab:][a_b:][ X#011Y  Z][\"myname\":\" x#011y  z\"][\"msg\":\" x#\"]\n"
	"[][][][][][app[4711]][][][][][][][ ][][][\"msg\":\"\"][\"msg\":\"\"][\"\"][][][][][app[4711]][app[4711]][][\"myname\":\"\"][\"msg\":\"\"]\n"
	"[ ..][.][.][][.][su:][ ..                 ][ ..][ ..][ ..][..][][ ][ ..][ ..][\"msg\":\" ..\"][\"msg\":\" ..\"][\" ..\"][ ..][ ..][ ..][ ..][su:][su:][ ..][\"myname\":\" ..\"][\"msg\":\" ..\"]\n"
	"" },
	{ "re", "[%msg:R:[a-z]+--end%][%msg:R,ERE,1,DFLT:([a-z]+) ([a-z]+)--end%][%msg:R,ERE,2,BLANK:([a-z]+) ([a-z]+)--end%][%msg:R,ERE,0,BLANK,1:[a-z]+--end%][%msg:R,ERE,0,ZERO:zzz--end%][%msg:R,ERE,0,FIELD:zzz--end%][%msg:R,ERE,0,DFLT:zzz--end%][%msg:R,ERE,0,BLANK,1:[a-z]+--end:uppercase%][%msg:F,32:2%][%msg:F,32:1%][%msg:F,32:9%][%msg:F:1%][%msg:F,32:3:uppercase%][%msg:R,ERE,1,DFLT:([0-9]+)\?x--end%]\n"
	"",
	  NULL,
	  "[**NO MATCH**][hello][world][world][0][ hello world][**NO MATCH**][WORLD][hello][][**FIELD NOT FOUND**][ hello world][WORLD][**NO MATCH**]\n"
	"[**NO MATCH**][msg][with][with][0][ msg with \"quotes\" and \\ backslash / slash][**NO MATCH**][WITH][msg][][slash][ msg with \"quotes\" and \\ backslash / slash][WITH][**NO MATCH**]\n"
	"[**NO MATCH**][n][application][application][0][An application event][**NO MATCH**][APPLICATION][application][An][**FIELD NOT FOUND**][An application event][EVENT][**NO MATCH**]\n"
	"[**NO MATCH**][**NO MATCH**][][][0][nospace][**NO MATCH**][][**FIELD NOT FOUND**][nospace][**FIELD NOT FOUND**][nospace][**FIELD NOT FOUND**][**NO MATCH**]\n"
	"[**NO MATCH**][**NO MATCH**][][y][0][ x#011y  z][**NO MATCH**][Y][x#011y][][**FIELD NOT FOUND**][ x#011y  z][][]\n"
	"[**NO MATCH**][**NO MATCH**][][][0][][**NO MATCH**][][**FIELD NOT FOUND**][][**FIELD NOT FOUND**][][**FIELD NOT FOUND**][**NO MATCH**]\n"
	"[**NO MATCH**][**NO MATCH**][][][0][ ..][**NO MATCH**][][..][][**FIELD NOT FOUND**][ ..][**FIELD NOT FOUND**][**NO MATCH**]\n"
	"" },
	{ "jsonopt", "{\"m\":\"%msg%\",\"t\":\"%syslogtag%\"}\n"
	"",
	  "json",
	  "{\"m\":\" hello world\",\"t\":\"prog[123]:\"}\n"
	"{\"m\":\" msg with \\\"quotes\\\" and \\\\ backslash / slash\",\"t\":\"app:\"}\n"
	"{\"m\":\"An application event\",\"t\":\"evntslog\"}\n"
	"{\"m\":\"nospace\",\"t\":\"tag:\"}\n"
	"{\"m\":\" x#011y  z\",\"t\":\"a/b:\"}\n"
	"{\"m\":\"\",\"t\":\"app[4711]\"}\n"
	"{\"m\":\" ..\",\"t\":\"su:\"}\n"
	"" },
	{ "sqlopt", "'%msg%' '%syslogtag%'\n"
	"",
	  "sql",
	  "' hello world' 'prog[123]:'\n"
	"' msg with \"quotes\" and \\\\ backslash / slash' 'app:'\n"
	"'An application event' 'evntslog'\n"
	"'nospace' 'tag:'\n"
	"' x#011y  z' 'a/b:'\n"
	"'' 'app[4711]'\n"
	"' ..' 'su:'\n"
	"" },
	{ "stdsqlopt", "'%msg%' '%syslogtag%'\n"
	"",
	  "stdsql",
	  "' hello world' 'prog[123]:'\n"
	"' msg with \"quotes\" and \\ backslash / slash' 'app:'\n"
	"'An application event' 'evntslog'\n"
	"'nospace' 'tag:'\n"
	"' x#011y  z' 'a/b:'\n"
	"'' 'app[4711]'\n"
	"' ..' 'su:'\n"
	"" },
	{ "stdjson", "{\"message\":\"%msg:::json%\",\"fromhost\":\"%HOSTNAME:::json%\",\"facility\":\"%syslogfacility-text%\",\"priority\":\"%syslogpriority-text%\",\"timereported\":\"%timereported:::date-rfc3339%\"}\n"
	"",
	  NULL,
	  "{\"message\":\" hello world\",\"fromhost\":\"host1\",\"facility\":\"local0\",\"priority\":\"info\",\"timereported\":\"2026-03-01T01:02:03+00:00\"}\n"
	"{\"message\":\" msg with \\\"quotes\\\" and \\\\ backslash \\/ slash\",\"fromhost\":\"myhost\",\"facility\":\"user\",\"priority\":\"notice\",\"timereported\":\"2003-08-24T05:14:15.000003-07:00\"}\n"
	"{\"message\":\"An application event\",\"fromhost\":\"mymachine.example.com\",\"facility\":\"local4\",\"priority\":\"notice\",\"timereported\":\"2003-10-11T22:14:15.003Z\"}\n"
	"{\"message\":\"nospace\",\"fromhost\":\"host2\",\"facility\":\"daemon\",\"priority\":\"info\",\"timereported\":\"2026-03-10T12:00:00+00:00\"}\n"
	"{\"message\":\" x#011y  z\",\"fromhost\":\"h3\",\"facility\":\"user\",\"priority\":\"info\",\"timereported\":\"2026-12-31T23:59:59+00:00\"}\n"
	"{\"message\":\"\",\"fromhost\":\"h4\",\"facility\":\"local7\",\"priority\":\"debug\",\"timereported\":\"2023-06-15T10:20:30.123456+02:00\"}\n"
	"{\"message\":\" ..\",\"fromhost\":\"h5\",\"facility\":\"kern\",\"priority\":\"emerg\",\"timereported\":\"2026-06-05T00:00:00+00:00\"}\n"
	"" },
	{ "legacyesc", "a\\tb\\\\c\tq\n"
	"",
	  NULL,
	  "a\\tb\\\\c\tq\n"
	"a\\tb\\\\c\tq\n"
	"a\\tb\\\\c\tq\n"
	"a\\tb\\\\c\tq\n"
	"a\\tb\\\\c\tq\n"
	"a\\tb\\\\c\tq\n"
	"a\\tb\\\\c\tq\n"
	"" },
};
static const struct oracle builtin_oracles[] = {
	{ "RSYSLOG_FileFormat", NULL, NULL,
	  "2026-03-01T01:02:03+00:00 host1 prog[123]: hello world\n"
	"2003-08-24T05:14:15.000003-07:00 myhost app: msg with \"quotes\" and \\ backslash / slash\n"
	"2003-10-11T22:14:15.003Z mymachine.example.com evntslog An application event\n"
	"2026-03-10T12:00:00+00:00 host2 tag: nospace\n"
	"2026-12-31T23:59:59+00:00 h3 a/b: x#011y  z\n"
	"2023-06-15T10:20:30.123456+02:00 h4 app[4711] \n"
	"2026-06-05T00:00:00+00:00 h5 su: ..\n"
	"" },
	{ "RSYSLOG_TraditionalFileFormat", NULL, NULL,
	  "Mar  1 01:02:03 host1 prog[123]: hello world\n"
	"Aug 24 05:14:15 myhost app: msg with \"quotes\" and \\ backslash / slash\n"
	"Oct 11 22:14:15 mymachine.example.com evntslog An application event\n"
	"Mar 10 12:00:00 host2 tag: nospace\n"
	"Dec 31 23:59:59 h3 a/b: x#011y  z\n"
	"Jun 15 10:20:30 h4 app[4711] \n"
	"Jun  5 00:00:00 h5 su: ..\n"
	"" },
	{ "RSYSLOG_ForwardFormat", NULL, NULL,
	  "<134>2026-03-01T01:02:03+00:00 host1 prog[123]: hello world<13>2003-08-24T05:14:15.000003-07:00 myhost app: msg with \"quotes\" and \\ backslash / slash<165>2003-10-11T22:14:15.003Z mymachine.example.com evntslog An application event<30>2026-03-10T12:00:00+00:00 host2 tag: nospace<14>2026-12-31T23:59:59+00:00 h3 a/b: x#011y  z<191>2023-06-15T10:20:30.123456+02:00 h4 app[4711] <0>2026-06-05T00:00:00+00:00 h5 su: .." },
	{ "RSYSLOG_TraditionalForwardFormat", NULL, NULL,
	  "<134>Mar  1 01:02:03 host1 prog[123]: hello world<13>Aug 24 05:14:15 myhost app: msg with \"quotes\" and \\ backslash / slash<165>Oct 11 22:14:15 mymachine.example.com evntslog An application event<30>Mar 10 12:00:00 host2 tag: nospace<14>Dec 31 23:59:59 h3 a/b: x#011y  z<191>Jun 15 10:20:30 h4 app[4711] <0>Jun  5 00:00:00 h5 su: .." },
	{ "RSYSLOG_SyslogProtocol23Format", NULL, NULL,
	  "<134>1 2026-03-01T01:02:03+00:00 host1 prog 123 - -  hello world\n"
	"<13>1 2003-08-24T05:14:15.000003-07:00 myhost app - - -  msg with \"quotes\" and \\ backslash / slash\n"
	"<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\"3\" eventSource=\"Application\"] An application event\n"
	"<30>1 2026-03-10T12:00:00+00:00 host2 tag - - - nospace\n"
	"<14>1 2026-12-31T23:59:59+00:00 h3 a - - -  x#011y  z\n"
	"<191>1 2023-06-15T10:20:30.123456+02:00 h4 app 4711 - - \n"
	"<0>1 2026-06-05T00:00:00+00:00 h5 su - - -  ..\n"
	"" },
	{ "RSYSLOG_SyslogRFC5424Format", NULL, NULL,
	  "<134>1 2026-03-01T01:02:03+00:00 host1 prog 123 - -  hello world<13>1 2003-08-24T05:14:15.000003-07:00 myhost app - - -  msg with \"quotes\" and \\ backslash / slash<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\"3\" eventSource=\"Application\"] An application event<30>1 2026-03-10T12:00:00+00:00 host2 tag - - - nospace<14>1 2026-12-31T23:59:59+00:00 h3 a - - -  x#011y  z<191>1 2023-06-15T10:20:30.123456+02:00 h4 app 4711 - - <0>1 2026-06-05T00:00:00+00:00 h5 su - - -  .." },
	{ "RSYSLOG_SysklogdFileFormat", NULL, NULL,
	  "Mar  1 01:02:03 host1 prog[123]: hello world\n"
	"Aug 24 05:14:15 myhost app: msg with \"quotes\" and \\ backslash / slash\n"
	"Oct 11 22:14:15 mymachine.example.com evntslog An application event\n"
	"Mar 10 12:00:00 host2 tag: nospace\n"
	"Dec 31 23:59:59 h3 a/b: x#011y  z\n"
	"Jun 15 10:20:30 h4 app[4711]\n"
	"Jun  5 00:00:00 h5 su: ..\n"
	"" },
	{ "RSYSLOG_DebugFormat", NULL, NULL,
	  "Debug line with all properties:\n"
	"FROMHOST: 'localhost', fromhost-ip: '127.0.0.1', HOSTNAME: 'host1', PRI: 134,\n"
	"syslogtag 'prog[123]:', programname: 'prog', APP-NAME: 'prog', PROCID: '123', MSGID: '-',\n"
	"TIMESTAMP: 'Mar  1 01:02:03', STRUCTURED-DATA: '-',\n"
	"msg: ' hello world'\n"
	"escaped msg: ' hello world'\n"
	"inputname: imtcp rawmsg: '<134>Mar  1 01:02:03 host1 prog[123]: hello world'\n"
	"$!:\n"
	"$.:\n"
	"$/:\n"
	"\n"
	"Debug line with all properties:\n"
	"FROMHOST: 'localhost', fromhost-ip: '127.0.0.1', HOSTNAME: 'myhost', PRI: 13,\n"
	"syslogtag 'app:', programname: 'app', APP-NAME: 'app', PROCID: '-', MSGID: '-',\n"
	"TIMESTAMP: 'Aug 24 05:14:15', STRUCTURED-DATA: '-',\n"
	"msg: ' msg with \"quotes\" and \\ backslash / slash'\n"
	"escaped msg: ' msg with \"quotes\" and \\ backslash / slash'\n"
	"inputname: imtcp rawmsg: '<13>2003-08-24T05:14:15.000003-07:00 myhost app: msg with \"quotes\" and \\ backslash / slash'\n"
	"$!:\n"
	"$.:\n"
	"$/:\n"
	"\n"
	"Debug line with all properties:\n"
	"FROMHOST: 'localhost', fromhost-ip: '127.0.0.1', HOSTNAME: 'mymachine.example.com', PRI: 165,\n"
	"syslogtag 'evntslog', programname: 'evntslog', APP-NAME: 'evntslog', PROCID: '-', MSGID: 'ID47',\n"
	"TIMESTAMP: 'Oct 11 22:14:15', STRUCTURED-DATA: '[exampleSDID@32473 iut=\"3\" eventSource=\"Application\"]',\n"
	"msg: 'An application event'\n"
	"escaped msg: 'An application event'\n"
	"inputname: imtcp rawmsg: '<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\"3\" eventSource=\"Application\"] An application event'\n"
	"$!:\n"
	"$.:\n"
	"$/:\n"
	"\n"
	"Debug line with all properties:\n"
	"FROMHOST: 'localhost', fromhost-ip: '127.0.0.1', HOSTNAME: 'host2', PRI: 30,\n"
	"syslogtag 'tag:', programname: 'tag', APP-NAME: 'tag', PROCID: '-', MSGID: '-',\n"
	"TIMESTAMP: 'Mar 10 12:00:00', STRUCTURED-DATA: '-',\n"
	"msg: 'nospace'\n"
	"escaped msg: 'nospace'\n"
	"inputname: imtcp rawmsg: '<30>Mar 10 12:00:00 host2 tag:nospace'\n"
	"$!:\n"
	"$.:\n"
	"$/:\n"
	"\n"
	"Debug line with all properties:\n"
	"FROMHOST: 'localhost', fromhost-ip: '127.0.0.1', HOSTNAME: 'h3', PRI: 14,\n"
	"syslogtag 'a/b:', programname: 'a', APP-NAME: 'a', PROCID: '-', MSGID: '-',\n"
	"TIMESTAMP: 'Dec 31 23:59:59', STRUCTURED-DATA: '-',\n"
	"msg: ' x#011y  z'\n"
	"escaped msg: ' x#011y  z'\n"
	"inputname: imtcp rawmsg: '<14>Dec 31 23:59:59 h3 a/b: x#011y  z'\n"
	"$!:\n"
	"$.:\n"
	"$/:\n"
	"\n"
	"Debug line with all properties:\n"
	"FROMHOST: 'localhost', fromhost-ip: '127.0.0.1', HOSTNAME: 'h4', PRI: 191,\n"
	"syslogtag 'app[4711]', programname: 'app', APP-NAME: 'app', PROCID: '4711', MSGID: '-',\n"
	"TIMESTAMP: 'Jun 15 10:20:30', STRUCTURED-DATA: '-',\n"
	"msg: ''\n"
	"escaped msg: ''\n"
	"inputname: imtcp rawmsg: '<191>1 2023-06-15T10:20:30.123456+02:00 h4 app 4711 - - '\n"
	"$!:\n"
	"$.:\n"
	"$/:\n"
	"\n"
	"Debug line with all properties:\n"
	"FROMHOST: 'localhost', fromhost-ip: '127.0.0.1', HOSTNAME: 'h5', PRI: 0,\n"
	"syslogtag 'su:', programname: 'su', APP-NAME: 'su', PROCID: '-', MSGID: '-',\n"
	"TIMESTAMP: 'Jun  5 00:00:00', STRUCTURED-DATA: '-',\n"
	"msg: ' ..'\n"
	"escaped msg: ' ..'\n"
	"inputname: imtcp rawmsg: '<0>Jun  5 00:00:00 h5 su: ..'\n"
	"$!:\n"
	"$.:\n"
	"$/:\n"
	"\n"
	"" },
	{ "RSYSLOG_omudpspoofDfltSourceTpl", NULL, NULL,
	  "127.0.0.1127.0.0.1127.0.0.1127.0.0.1127.0.0.1127.0.0.1127.0.0.1" },
};
static const char list1_expect[] = "A:hello|2026-03-01T01:02:03.000000+00:00|HOST1|\"message\":\" hello world\"|\"syslogtag\":\"prog[123]:\"|\"cst\": \"xx\\\"y\"|world|hello|rld|| hello world|1772326923\n"
	"A:msg w|2003-08-24T12:14:15.000003+00:00|MYHOST|\"message\":\" msg with \\\"quotes\\\" and \\\\ backslash \\/ slash\"|\"syslogtag\":\"app:\"|\"cst\": \"xx\\\"y\"|with|msg|ash|| msg with \"quotes\" and \\ backslash / slash|1061727255\n"
	"A:n app|2003-10-11T22:14:15.000003+00:00|MYMACHINE.EXAMPLE.COM|\"message\":\"An application event\"|\"syslogtag\":\"evntslog\"|\"cst\": \"xx\\\"y\"|application|application|ent| |An application event|1065910455\n"
	"A:ospac|2026-03-10T12:00:00.000000+00:00|HOST2|\"message\":\"nospace\"|\"syslogtag\":\"tag:\"|\"cst\": \"xx\\\"y\"|**NO MATCH**|**FIELD NOT FOUND**|ace| |nospace|1773144000\n"
	"A:x#011|2026-12-31T23:59:59.000000+00:00|H3|\"message\":\" x#011y  z\"|\"syslogtag\":\"a\\/b:\"|\"cst\": \"xx\\\"y\"|**NO MATCH**|x#011y|  z|| x#011y  z|1798761599\n"
	"A:|2023-06-15T08:20:30.123456+00:00|H4|\"message\":\"\"|\"syslogtag\":\"app[4711]\"|\"cst\": \"xx\\\"y\"|**NO MATCH**|**FIELD NOT FOUND**||||1686817230\n"
	"A:..|2026-06-05T00:00:00.000000+00:00|H5|\"message\":\" ..\"|\"syslogtag\":\"su:\"|\"cst\": \"xx\\\"y\"|**NO MATCH**|..| ..|| ..|1780617600\n"
	"";
static const char jsonf_expect[] = "{\"message\":\" hello world\", \"host\":\"host1\", \"cst\": \"x\"}\n"
	"{\"message\":\" msg with \\\"quotes\\\" and \\\\ backslash \\/ slash\", \"host\":\"myhost\", \"cst\": \"x\"}\n"
	"{\"message\":\"An application event\", \"host\":\"mymachine.example.com\", \"cst\": \"x\"}\n"
	"{\"message\":\"nospace\", \"host\":\"host2\", \"cst\": \"x\"}\n"
	"{\"message\":\" x#011y  z\", \"host\":\"h3\", \"cst\": \"x\"}\n"
	"{\"message\":\"\", \"host\":\"h4\", \"cst\": \"x\"}\n"
	"{\"message\":\" ..\", \"host\":\"h5\", \"cst\": \"x\"}\n"
	"";
static const char dtype_expect[] = "{\"n\":5, \"en\":0, \"enull\":null, \"sa\":\"a\\\\nb\\\"\\/\", \"na\":5, \"b\":true, \"eb\":true, \"sn\":a\\\\nb\\\"\\/,  a\\nb\\\"c\\\\d}\n"
	"";

/* ---- messages ---- */
struct mspec {
	const char *raw;
	int pv, pri;
	const char *host, *tag;
	int pnlen;
	const char *app, *procid, *msgid, *sd, *msg;
	struct syslog_time t;
};

#define T(y, mo, d, h, mi, s, fd, fr, om, oh, omin) \
	{ y, mo, d, h, mi, s, fd, fr, om, oh, omin, 1 }

static const struct mspec specs[] = {
	{ "<134>Mar  1 01:02:03 host1 prog[123]: hello world", 0, 134, "host1", "prog[123]:", 4,
	  NULL, NULL, NULL, NULL, " hello world", T(2026, 3, 1, 1, 2, 3, 0, 0, '+', 0, 0) },
	{ "<13>2003-08-24T05:14:15.000003-07:00 myhost app: msg with \"quotes\" and \\ backslash / slash",
	  0, 13, "myhost", "app:", 3, NULL, NULL, NULL, NULL,
	  " msg with \"quotes\" and \\ backslash / slash", T(2003, 8, 24, 5, 14, 15, 6, 3, '-', 7, 0) },
	{ "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 "
	  "[exampleSDID@32473 iut=\"3\" eventSource=\"Application\"] An application event",
	  1, 165, "mymachine.example.com", NULL, 0, "evntslog", NULL, "ID47",
	  "[exampleSDID@32473 iut=\"3\" eventSource=\"Application\"]", "An application event",
	  T(2003, 10, 11, 22, 14, 15, 3, 3, 'Z', 0, 0) },
	{ "<30>Mar 10 12:00:00 host2 tag:nospace", 0, 30, "host2", "tag:", 3, NULL, NULL, NULL,
	  NULL, "nospace", T(2026, 3, 10, 12, 0, 0, 0, 0, '+', 0, 0) },
	{ "<14>Dec 31 23:59:59 h3 a/b: x#011y  z", 0, 14, "h3", "a/b:", 1, NULL, NULL, NULL, NULL,
	  " x#011y  z", T(2026, 12, 31, 23, 59, 59, 0, 0, '+', 0, 0) },
	{ "<191>1 2023-06-15T10:20:30.123456+02:00 h4 app 4711 - - ", 1, 191, "h4", NULL, 0, "app",
	  "4711", NULL, NULL, "", T(2023, 6, 15, 10, 20, 30, 6, 123456, '+', 2, 0) },
	{ "<0>Jun  5 00:00:00 h5 su: ..", 0, 0, "h5", "su:", 2, NULL, NULL, NULL, NULL, " ..",
	  T(2026, 6, 5, 0, 0, 0, 0, 0, '+', 0, 0) },
};
#define NMSG ((int)(sizeof(specs) / sizeof(specs[0])))

static struct msg_origin *origin;
static struct msg *msgs[NMSG];

static struct msg_span find_span(const struct msg *m, const char *s, uint32_t *cursor)
{
	struct msg_span sp = { 0, 0 };
	if (!s)
		return sp;
	if (!*s) {
		sp.off = m->raw_len;
		return sp;
	}
	const char *f = strstr(m->raw + *cursor, s);
	ck_assert_ptr_nonnull(f);
	sp.off = (uint32_t)(f - m->raw);
	sp.len = (uint32_t)strlen(s);
	*cursor = sp.off + sp.len;
	return sp;
}

static struct msg *make_msg(const struct mspec *s)
{
	struct msg *m = msg_create(s->raw, strlen(s->raw), origin, &s->t, 0);
	ck_assert_ptr_nonnull(m);
	m->protocol_version = (uint8_t)s->pv;
	m->pri = (uint16_t)s->pri;
	m->facility = (uint8_t)(s->pri / 8);
	m->severity = (uint8_t)(s->pri % 8);
	m->off_after_pri = (uint32_t)(strchr(m->raw, '>') - m->raw + 1);
	uint32_t cur = m->off_after_pri;
	m->hostname = find_span(m, s->host, &cur);
	m->app_name = find_span(m, s->app, &cur);
	m->procid = find_span(m, s->procid, &cur);
	m->tag = find_span(m, s->tag, &cur);
	m->programname_len = (uint32_t)s->pnlen;
	m->msgid = find_span(m, s->msgid, &cur);
	m->sd = find_span(m, s->sd, &cur);
	if (s->msg[0]) {
		m->msg.len = (uint32_t)strlen(s->msg);
		m->msg.off = m->raw_len - m->msg.len;
	} else {
		m->msg.off = m->raw_len;
	}
	m->t_reported = s->t;
	m->flags |= MSG_PARSED;
	return m;
}

static void setup(void)
{
	origin = msg_origin_create("localhost", "127.0.0.1", "imtcp", NULL);
	for (int i = 0; i < NMSG; i++)
		msgs[i] = make_msg(&specs[i]);
	tpl_init_builtins();
}

static void teardown(void)
{
	for (int i = 0; i < NMSG; i++)
		msg_release(msgs[i]);
	msg_origin_release(origin);
	tpl_destroy_all();
}

/* ---- building config objects by hand ---- */
static struct cfg_param *mkparam(const char *name, const char *val)
{
	struct cfg_param *p = calloc(1, sizeof(*p));
	p->name = strdup(name);
	p->val.str = strdup(val);
	p->pos.file = "test.conf";
	p->pos.line = 7;
	return p;
}

/* mkobj(type, "name", "value", ..., NULL) */
static struct cfg_obj *mkobj(enum cfg_obj_type type, ...)
{
	struct cfg_obj *o = calloc(1, sizeof(*o));
	struct cfg_param **tail = &o->params;
	va_list ap;
	const char *n;
	o->type = type;
	o->pos.file = "test.conf";
	o->pos.line = 7;
	va_start(ap, type);
	while ((n = va_arg(ap, const char *))) {
		*tail = mkparam(n, va_arg(ap, const char *));
		tail = &(*tail)->next;
	}
	va_end(ap);
	return o;
}

static void free_obj(struct cfg_obj *o)
{
	while (o) {
		struct cfg_obj *nx = o->next;
		struct cfg_param *p = o->params;
		while (p) {
			struct cfg_param *pn = p->next;
			free(p->name);
			free(p->val.str);
			free(p);
			p = pn;
		}
		free_obj(o->body);
		free(o);
		o = nx;
	}
}

static void add_body(struct cfg_obj *tpl, struct cfg_obj *item)
{
	struct cfg_obj **t = &tpl->body;
	while (*t)
		t = &(*t)->next;
	*t = item;
}

static enum sl_rc make_string_tpl(const char *name, const char *str, const char *opt)
{
	char on[64];
	struct cfg_obj *o;
	if (opt) {
		snprintf(on, sizeof(on), "option.%s", opt);
		o = mkobj(CFG_OBJ_TEMPLATE, "name", name, "type", "string", "string", str, on, "on",
			  NULL);
	} else {
		o = mkobj(CFG_OBJ_TEMPLATE, "name", name, "type", "string", "string", str, NULL);
	}
	enum sl_rc rc = tpl_create_from_obj(o);
	free_obj(o);
	return rc;
}

static void render_all(const struct template *t, struct sbuf *out, bool generic)
{
	sbuf_reset(out);
	for (int i = 0; i < NMSG; i++)
		ck_assert(generic ? tpl_render_generic(t, msgs[i], out) : tpl_render(t, msgs[i], out));
}

static void assert_buf(struct sbuf *b, const char *expect, const char *what)
{
	ck_assert(sbuf_cstr(b));
	if (strcmp(b->buf, expect) != 0)
		ck_abort_msg("%s:\nexpected: [%s]\ngot:      [%s]", what, expect, b->buf);
}

/* ---- tests ---- */
START_TEST(test_string_templates_match_rsyslog)
{
	struct sbuf out = SBUF_INIT;
	for (size_t i = 0; i < sizeof(string_oracles) / sizeof(string_oracles[0]); i++) {
		const struct oracle *o = &string_oracles[i];
		ck_assert_int_eq(make_string_tpl(o->tpl, o->str, o->opt), SL_OK);
		const struct template *t = tpl_find(o->tpl);
		ck_assert_ptr_nonnull(t);
		render_all(t, &out, false);
		assert_buf(&out, o->expect, o->tpl);
	}
	sbuf_free(&out);
}
END_TEST

START_TEST(test_builtins_match_rsyslog)
{
	struct sbuf out = SBUF_INIT;
	for (size_t i = 0; i < sizeof(builtin_oracles) / sizeof(builtin_oracles[0]); i++) {
		const struct oracle *o = &builtin_oracles[i];
		const struct template *t = tpl_find(o->tpl);
		ck_assert_ptr_nonnull(t);
		render_all(t, &out, false);
		assert_buf(&out, o->expect, o->tpl);
		render_all(t, &out, true);
		assert_buf(&out, o->expect, o->tpl);
	}
	sbuf_free(&out);
}
END_TEST

/* Every built-in format with a strgen fast path renders `m` exactly as
 * the generic renderer does (`what` and `i` name the case). */
static void strgen_same_as_generic(struct msg *m, const char *what, int i)
{
	static const char *names[] = { "RSYSLOG_FileFormat", "RSYSLOG_TraditionalFileFormat",
		"RSYSLOG_ForwardFormat", "RSYSLOG_TraditionalForwardFormat",
		"RSYSLOG_SyslogProtocol23Format" };
	struct sbuf a = SBUF_INIT, b = SBUF_INIT;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		const struct template *t = tpl_find(names[k]);
		ck_assert_ptr_nonnull(t);
		sbuf_reset(&a);
		sbuf_reset(&b);
		ck_assert(tpl_render(t, m, &a));
		ck_assert(tpl_render_generic(t, m, &b));
		sbuf_cstr(&a);
		sbuf_cstr(&b);
		if (a.len != b.len || memcmp(a.buf, b.buf, a.len) != 0)
			ck_abort_msg("%s %s %d: strgen [%s] generic [%s]", names[k], what, i, a.buf,
				     b.buf);
	}
	sbuf_free(&a);
	sbuf_free(&b);
}

/* RFC5424 fields of every length from 0 to 40 (the strgen copies short
 * fields in pieces of 1-3, 4-7 and 8-16 bytes): the same bytes as the
 * generic renderer, in every built-in format. */
START_TEST(test_strgen_field_lengths)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";
	static const uint32_t pow10[7] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	for (int len = 0; len <= 40; len++) {
		char f[4][48], sd[64], msgtext[48], raw[512];
		for (int k = 0; k < 4; k++) {
			memcpy(f[k], abc + k, (size_t)len);
			f[k][len] = '\0';
		}
		snprintf(sd, sizeof(sd), "[x@1 a=\"%.*s\"]", len, abc);
		snprintf(msgtext, sizeof(msgtext), "%.*s", len, abc + 5);
		snprintf(raw, sizeof(raw), "<%d>1 2003-10-11T22:14:15.%.*sZ %s %s %s %s %s %s",
			 len * 4 + 3, len % 7, "123456", len ? f[0] : "-", len ? f[1] : "-",
			 len ? f[2] : "-", len ? f[3] : "-", len % 2 ? sd : "-", msgtext);
		struct mspec sp = { raw, 1, len * 4 + 3, len ? f[0] : "-", NULL, 0,
				    len ? f[1] : NULL, len ? f[2] : NULL, len ? f[3] : NULL,
				    len % 2 ? sd : NULL, msgtext,
				    T(2003, 10, 11, 22, 14, 15, len % 7, 123456 / pow10[6 - len % 7], 'Z', 0, 0) };
		struct msg *m = make_msg(&sp);
		strgen_same_as_generic(m, "field length", len);
		msg_release(m);
	}
}
END_TEST

/* The strgen fast paths must give the bytes of the generic renderer, also
 * for odd messages (no tag, LF at the end, long tag, empty fields). */
START_TEST(test_strgen_equals_generic)
{
	static const struct mspec odd[] = {
		{ "<13>Feb  9 09:09:09 hx averyveryveryveryverylongtagname0123456789[77]: x\n", 0,
		  13, "hx", "averyveryveryveryverylongtagname0123456789[77]:", 42, NULL, NULL, NULL,
		  NULL, " x\n", T(2024, 2, 9, 9, 9, 9, 1, 5, '-', 11, 30) },
		{ "<13>hello", 0, 13, "hello", NULL, 0, NULL, NULL, NULL, NULL, "",
		  T(2024, 2, 29, 23, 0, 0, 9, 123456789, '+', 5, 45) },
		{ "<86>1 - - - - - - x", 1, 86, "-", NULL, 0, NULL, NULL, NULL, NULL, "x",
		  T(2000, 12, 31, 0, 0, 0, 0, 0, 'Z', 0, 0) },
	};
	struct sbuf a = SBUF_INIT;
	struct msg *extra[3];
	for (int i = 0; i < 3; i++) {
		extra[i] = make_msg(&odd[i]);
		if (!odd[i].host)
			extra[i]->flags |= MSG_HOST_IS_FROMHOST;
	}
	for (int i = 0; i < NMSG + 3; i++)
		strgen_same_as_generic(i < NMSG ? msgs[i] : extra[i - NMSG], "msg", i);
	sbuf_reset(&a);
	ck_assert(tpl_render(tpl_find("RSYSLOG_TraditionalForwardFormat"), extra[0], &a));
	sbuf_cstr(&a);
	ck_assert_str_eq(a.buf, "<13>Feb  9 09:09:09 hx averyveryveryveryverylongtagname x\n");
	sbuf_reset(&a);
	ck_assert(tpl_render(tpl_find("RSYSLOG_FileFormat"), extra[2], &a));
	sbuf_cstr(&a);
	/* as rsyslogd 8.2302 writes it: nil HOSTNAME and APP-NAME are "-" */
	ck_assert_str_eq(a.buf, "2000-12-31T00:00:00Z - - x\n");
	for (int i = 0; i < 3; i++)
		msg_release(extra[i]);
	sbuf_free(&a);
}
END_TEST

START_TEST(test_list_template)
{
	struct cfg_obj *o = mkobj(CFG_OBJ_TEMPLATE, "name", "list1", "type", "list", NULL);
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "A:", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "msg", "position.from", "2", "position.to", "6", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "|", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "timereported", "dateformat", "rfc3339",
			  "date.inutc", "on", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "|", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "hostname", "caseconversion", "upper", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "|", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "msg", "format", "jsonf", "outname", "message", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "|", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "syslogtag", "format", "jsonf", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "|", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "xx\"y", "format", "jsonf", "outname", "cst", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "|", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "msg", "regex.expression", "([a-z]+) ([a-z]+)",
			  "regex.type", "ERE", "regex.submatch", "2", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "|", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "msg", "field.number", "2", "field.delimiter", "32", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "|", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "msg", "position.from", "3", "position.to", "1",
			  "position.relativetoend", "on", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "|", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "msg", "droplastlf", "on", "spifno1stsp", "on", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "|", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "msg", "controlcharacters", "escape", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "|", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "timereported", "dateformat", "unixtimestamp", NULL));
	/* the grammar already turned "\n" into LF; rsyslog unescapes constants once more */
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "\\n", NULL));
	ck_assert_int_eq(tpl_create_from_obj(o), SL_OK);
	free_obj(o);
	struct sbuf out = SBUF_INIT;
	render_all(tpl_find("LIST1"), &out, false);
	assert_buf(&out, list1_expect, "list1");

	o = mkobj(CFG_OBJ_TEMPLATE, "name", "jsonf", "type", "list", "option.jsonf", "on", NULL);
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "msg", "outname", "message", "format", "jsonf", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "hostname", "outname", "host", "format", "jsonf", NULL));
	add_body(o, mkobj(CFG_OBJ_CONSTANT, "value", "x", "outname", "cst", "format", "jsonf", NULL));
	ck_assert_int_eq(tpl_create_from_obj(o), SL_OK);
	free_obj(o);
	render_all(tpl_find("jsonf"), &out, false);
	assert_buf(&out, jsonf_expect, "jsonf");
	sbuf_free(&out);
}
END_TEST

/* datatype / onEmpty / jsonr with $! variables (rsyslogd output). */
START_TEST(test_jsonf_datatypes)
{
	struct msg *m = msgs[0];
	struct cfg_obj *o = mkobj(CFG_OBJ_TEMPLATE, "name", "t", "type", "list", "option.jsonf", "on", NULL);
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "$!n", "format", "jsonf", "datatype", "number", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "$!e", "format", "jsonf", "datatype", "number", "outname", "en", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "$!e", "format", "jsonf", "onempty", "skip", "outname", "es", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "$!e", "format", "jsonf", "onempty", "null", "outname", "enull", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "$!s", "format", "jsonf", "datatype", "auto", "outname", "sa", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "$!n", "format", "jsonf", "datatype", "auto", "outname", "na", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "$!b", "format", "jsonf", "datatype", "bool", "outname", "b", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "$!e", "format", "jsonf", "datatype", "bool", "outname", "eb", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "$!s", "format", "jsonf", "datatype", "number", "outname", "sn", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "msg", "format", "jsonr", "outname", "x", NULL));
	add_body(o, mkobj(CFG_OBJ_PROPERTY, "name", "$!e", "format", "jsonf", "onempty", "skip", "outname", "es2", NULL));
	ck_assert_int_eq(tpl_create_from_obj(o), SL_OK);
	free_obj(o);
	/* the oracle message was "<13>Mar  1 01:02:03 host1 tag: a\nb"c\d" */
	static const char raw[] = "<13>Mar  1 01:02:03 host1 tag: a\\nb\"c\\d";
	struct msg *d = msg_create(raw, sizeof(raw) - 1, origin, &m->t_received, 0);
	d->msg.off = (uint32_t)(strstr(raw, ": ") - raw + 1);
	d->msg.len = (uint32_t)(sizeof(raw) - 1 - d->msg.off);
	d->json = json_object_new_object();
	json_object_object_add(d->json, "n", json_object_new_int(5));
	json_object_object_add(d->json, "e", json_object_new_string(""));
	json_object_object_add(d->json, "s", json_object_new_string("a\\nb\"/"));
	json_object_object_add(d->json, "b", json_object_new_string("true"));
	struct sbuf out = SBUF_INIT;
	ck_assert(tpl_render(tpl_find("t"), d, &out));
	assert_buf(&out, dtype_expect, "datatypes");
	msg_release(d);
	sbuf_free(&out);
}
END_TEST

/* $! / $. / $/ variables, as rsyslogd printed them. */
START_TEST(test_variables)
{
	struct msg *m = msgs[2];
	m->json = json_object_new_object();
	struct fjson_object *foo = json_object_new_object();
	json_object_object_add(foo, "bar", json_object_new_string("up"));
	json_object_object_add(m->json, "foo", foo);
	json_object_object_add(m->json, "n", json_object_new_int(5));
	m->localvars = json_object_new_object();
	json_object_object_add(m->localvars, "loc", json_object_new_string("l"));
	prop_globals_lock();
	*prop_globals_root() = json_object_new_object();
	json_object_object_add(*prop_globals_root(), "g", json_object_new_string("gv"));
	prop_globals_unlock();
	ck_assert_int_eq(make_string_tpl("t1",
		"A[%$!%] B[%$!all-json%] C[%$!foo%] D[%$!n%] E[%$!foo:::jsonf%] F[%$!:::jsonf%] "
		"G[%$!foo!bar%] H[%$.%] I[%$.loc%] J[%$/g%] K[%$!Foo!BAR%] tag[%syslogtag%] "
		"L[%$!n:::json%] M[%$!foo!bar:::jsonf%]", NULL), SL_OK);
	struct sbuf out = SBUF_INIT;
	ck_assert(tpl_render(tpl_find("t1"), m, &out));
	assert_buf(&out, "A[{ \"foo\": { \"bar\": \"up\" }, \"n\": 5 }] B[{ \"foo\": { \"bar\": \"up\" }, "
		   "\"n\": 5 }] C[{ \"bar\": \"up\" }] D[5] E[\"foo\":\"{ \\\"bar\\\": \\\"up\\\" }\"] "
		   "F[\"\":\"{ \\\"foo\\\": { \\\"bar\\\": \\\"up\\\" }, \\\"n\\\": 5 }\"] G[up] "
		   "H[{ \"loc\": \"l\" }] I[l] J[gv] K[up] tag[evntslog] L[5] M[\"foo!bar\":\"up\"]",
		   "variables");
	prop_globals_lock();
	json_object_put(*prop_globals_root());
	*prop_globals_root() = NULL;
	prop_globals_unlock();
	sbuf_free(&out);
}
END_TEST

START_TEST(test_props_direct)
{
	struct sbuf s = SBUF_INIT;
	struct prop_ref r;
	size_t n;
	ck_assert(prop_ref_parse("SOURCE", 6, &r));
	ck_assert_int_eq(r.id, PROP_HOSTNAME);
	ck_assert(prop_ref_parse("syslogpriority-text", 19, &r));
	ck_assert_int_eq(r.id, PROP_SYSLOGSEVERITY_TEXT);
	ck_assert(prop_ref_parse("timestamp", 9, &r));
	ck_assert_int_eq(r.id, PROP_TIMEREPORTED);
	ck_assert(prop_ref_parse("$!all-json", 10, &r));
	ck_assert_int_eq(r.id, PROP_CEE_ALL_JSON);
	ck_assert(prop_ref_parse("$now-utc", 8, &r));
	ck_assert_int_eq(r.id, PROP_SYS_NOW_UTC);
	ck_assert(prop_ref_parse("$!a!b", 5, &r));
	ck_assert_int_eq(r.id, PROP_CEE);
	ck_assert_str_eq(r.path, "a!b");
	prop_ref_free(&r);
	ck_assert(!prop_ref_parse("nosuch", 6, &r));
	const char *v;
	r.path = NULL;
	r.id = PROP_SYS_BOM;
	v = prop_get(msgs[0], &r, &n, &s);
	ck_assert_int_eq(n, 3);
	ck_assert(memcmp(v, "\xEF\xBB\xBF", 3) == 0);
	r.id = PROP_PRI_TEXT;
	v = prop_get(msgs[0], &r, &n, &s);
	ck_assert_str_eq(v, "local0.info");
	r.id = PROP_SYS_YEAR;
	v = prop_get(msgs[0], &r, &n, &s);
	ck_assert_int_eq(n, 4);
	r.id = PROP_SYS_MYHOSTNAME;
	glbl.local_hostname = (char *)"testhost";
	v = prop_get(msgs[0], &r, &n, &s);
	glbl.local_hostname = NULL;
	ck_assert_str_eq(v, "testhost");
	r.id = PROP_SYSLOGTAG;
	v = prop_get(msgs[5], &r, &n, &s);
	ck_assert_int_eq(n, 9);
	ck_assert(memcmp(v, "app[4711]", 9) == 0);
	r.id = PROP_JSONMESG;
	v = prop_get(msgs[2], &r, &n, &s);
	static const char jm_head[] = "{ \"msg\": \"An application event\", \"rawmsg\": ";
	ck_assert(strncmp(v, jm_head, sizeof(jm_head) - 1) == 0);
	ck_assert_ptr_nonnull(strstr(v, "\"syslogtag\": \"evntslog\", \"inputname\": \"imtcp\", "
				   "\"fromhost\": \"localhost\", \"fromhost-ip\": \"127.0.0.1\", "
				   "\"pri\": \"165\", \"syslogfacility\": \"20\", \"syslogseverity\": \"5\""));
	ck_assert_ptr_nonnull(strstr(v, "\"procid\": \"-\", \"msgid\": \"ID47\", \"uuid\": null }"));
	sbuf_free(&s);
}
END_TEST

START_TEST(test_legacy_and_errors)
{
	struct cfg_pos pos = { "legacy.conf", 12 };
	struct sbuf out = SBUF_INIT;
	/* legacy strings process escapes themselves: \n \\ \% and decimal codes;
	 * an unknown escape yields the character itself */
	ck_assert_int_eq(tpl_create_legacy(" Leg , \"%syslogtag%|\\t|\\\\|\\%|\\65|%msg:2:4%\\n\" , sql",
					   &pos), SL_OK);
	ck_assert(tpl_render(tpl_find("leg"), msgs[1], &out));
	assert_buf(&out, "app:|t|\\|%|A|msg\n", "legacy");
	sbuf_reset(&out);
	ck_assert_int_eq(tpl_create_legacy("q,\"'%msg%'\",stdsql", &pos), SL_OK);
	ck_assert(tpl_render(tpl_find("q"), msgs[1], &out));
	assert_buf(&out, "' msg with \"quotes\" and \\ backslash / slash'", "stdsql");
	/* duplicate names (case-insensitive) and unknown properties are errors */
	ck_assert_int_eq(tpl_create_legacy("LEG,\"x\"", &pos), SL_ERR_CONFIG);
	ck_assert_int_eq(make_string_tpl("bad", "x %nosuchprop% y", NULL), SL_ERR_CONFIG);
	ck_assert_ptr_null(tpl_find("bad"));
	ck_assert_int_eq(make_string_tpl("rsyslog_fileformat", "x", NULL), SL_ERR_CONFIG);
	/* a bad regex renders rsyslog's marker */
	ck_assert_int_eq(make_string_tpl("badre", "%msg:R,ERE,0,DFLT:(--end%", NULL), SL_OK);
	sbuf_reset(&out);
	ck_assert(tpl_render(tpl_find("badre"), msgs[0], &out));
	assert_buf(&out, "**NO MATCH** **BAD REGULAR EXPRESSION**", "badre");
	sbuf_free(&out);
}
END_TEST

static Suite *template_suite(void)
{
	Suite *s = suite_create("template");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_string_templates_match_rsyslog);
	tcase_add_test(tc, test_builtins_match_rsyslog);
	tcase_add_test(tc, test_strgen_equals_generic);
	tcase_add_test(tc, test_strgen_field_lengths);
	tcase_add_test(tc, test_list_template);
	tcase_add_test(tc, test_jsonf_datatypes);
	tcase_add_test(tc, test_variables);
	tcase_add_test(tc, test_props_direct);
	tcase_add_test(tc, test_legacy_and_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(template_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
