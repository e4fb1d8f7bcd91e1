/* test_parser.c — unit tests for the date/time code (runtime/datetime.c),
 * sanitising and PRI (runtime/parser.c) and both message parsers
 * (plugins/pmrfc5424, plugins/pmrfc3164).
 *
 * The big table below was produced by feeding each input to rsyslogd
 * 8.2302 (imudp, TZ=UTC, net.enableDNS off, default parser chain) and
 * recording its properties; expectations are rsyslog's exact output. A NULL
 * timestamp means "the reception time"; BNULL as hostname means "fromhost"
 * (MSG_HOST_IS_FROMHOST). APP-NAME, PROCID, MSGID, STRUCTURED-DATA and the
 * RFC5424 syslogtag are derived from the spans the way parser.h documents
 * (that derivation belongs to the property getters; it is mirrored here so
 * the spans are checked against rsyslog's visible values).
 *
 * Threading: single-threaded test program.
 */
#include "datetime.h"
#include "glbl.h"
#include "msg.h"
#include "parser.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "unit_time.h"

struct bstr {
	const char *p;
	size_t n;
};
#define B(s) { s, sizeof(s) - 1 }
#define BNULL { NULL, 0 }

struct pcase {
	struct bstr in;
	int pri, fac, sev;
	const char *ts;    /* rfc3339 of timereported; NULL = reception time */
	struct bstr host;  /* .p NULL = fromhost */
	struct bstr tag, prog, app, procid, msgid, sd;
	int pv;
	struct bstr msg, raw;
};

/* Reception time of every table message: 2026-11-22T04:34:42.854257Z
 * (rsyslog ran in 2026, the year 3164 timestamps inherit). */
#define RCVD_EPOCH 1795322082
#define RCVD_USEC 854257

static const struct pcase cases[] = {
	{ B("<13>Mar  1 01:00:00 host tag: hello"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" hello"), B("<13>Mar  1 01:00:00 host tag: hello") },
	{ B("<13>Mar 1 01:00:00 host tag[123]: hello"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag[123]:"), B("tag"), B("tag"), B("123"), B("-"), B("-"), 0, B(" hello"), B("<13>Mar 1 01:00:00 host tag[123]: hello") },
	{ B("<13>Mar 01 01:00:00 host tag hello"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" hello"), B("<13>Mar 01 01:00:00 host tag hello") },
	{ B("<>Mar  1 01:00:00 host tag: hello"), 0, 0, 0, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" hello"), B("<>Mar  1 01:00:00 host tag: hello") },
	{ B("<0013>Mar  1 01:00:00 host tag: hello"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" hello"), B("<0013>Mar  1 01:00:00 host tag: hello") },
	{ B("Mar  1 01:00:00 host tag: hello"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" hello"), B("Mar  1 01:00:00 host tag: hello") },
	{ B("<200>Mar  1 01:00:00 host tag: hello"), 199, 24, 7, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("<200>Mar  1 01:00:00 host tag: hello"), B("<200>Mar  1 01:00:00 host tag: hello") },
	{ B("<191>Mar  1 01:00:00 host tag: hello"), 191, 23, 7, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" hello"), B("<191>Mar  1 01:00:00 host tag: hello") },
	{ B("<192>Mar  1 01:00:00 host tag: hello"), 199, 24, 7, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("<192>Mar  1 01:00:00 host tag: hello"), B("<192>Mar  1 01:00:00 host tag: hello") },
	{ B("<1a>Mar  1 01:00:00 host tag: hello"), 199, 24, 7, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("<1a>Mar  1 01:00:00 host tag: hello"), B("<1a>Mar  1 01:00:00 host tag: hello") },
	{ B("<13 Mar  1 01:00:00 host tag: hello"), 199, 24, 7, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("<13 Mar  1 01:00:00 host tag: hello"), B("<13 Mar  1 01:00:00 host tag: hello") },
	{ B("<1999>x"), 199, 24, 7, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("<1999>x"), B("<1999>x") },
	{ B("<13>hello world"), 13, 1, 5, NULL, B("hello"), B("world"), B("world"), B("world"), B("-"), B("-"), B("-"), 0, B(""), B("<13>hello world") },
	{ B("<13>hello"), 13, 1, 5, NULL, B("hello"), B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(""), B("<13>hello") },
	{ B("<13>tag: msg"), 13, 1, 5, NULL, BNULL, B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" msg"), B("<13>tag: msg") },
	{ B("<13> {\042a\042:1}"), 13, 1, 5, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(" {\042a\042:1}"), B("<13> {\042a\042:1}") },
	{ B("<13>[1,2]"), 13, 1, 5, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("[1,2]"), B("<13>[1,2]") },
	{ B("<13>\011[x] y"), 13, 1, 5, NULL, BNULL, B("#011[x]"), B("#011"), B("#011"), B("x"), B("-"), B("-"), 0, B(" y"), B("<13>#011[x] y") },
	{ B("<13>Mar  1 01:00:00.123456 host tag: m"), 13, 1, 5, "2026-03-01T01:00:00.123456+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" m"), B("<13>Mar  1 01:00:00.123456 host tag: m") },
	{ B("<13>Mar  1 01:00:00: host tag: m"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" m"), B("<13>Mar  1 01:00:00: host tag: m") },
	{ B("<13>2019 Mar  1 01:00:00 host tag: m"), 13, 1, 5, "2019-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" m"), B("<13>2019 Mar  1 01:00:00 host tag: m") },
	{ B("<13>Mar  1 2019 01:00:00 host tag: m"), 13, 1, 5, "2019-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" m"), B("<13>Mar  1 2019 01:00:00 host tag: m") },
	{ B("<13> Mar  1 01:00:00 host tag: m"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" m"), B("<13> Mar  1 01:00:00 host tag: m") },
	{ B("<13>mar  1 01:00:00 host tag: m"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" m"), B("<13>mar  1 01:00:00 host tag: m") },
	{ B("<13>Mar  1 01:00:00host tag: m"), 13, 1, 5, NULL, B("Mar"), B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(" 1 01:00:00host tag: m"), B("<13>Mar  1 01:00:00host tag: m") },
	{ B("<13>2003-10-11T22:14:15.003Z host tag: m"), 13, 1, 5, "2003-10-11T22:14:15.003Z", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" m"), B("<13>2003-10-11T22:14:15.003Z host tag: m") },
	{ B("<13>2003-10-11T22:14:15.003+02:00 host tag: m"), 13, 1, 5, "2003-10-11T22:14:15.003+02:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" m"), B("<13>2003-10-11T22:14:15.003+02:00 host tag: m") },
	{ B("<13>2003-10-11T22:14:15 host tag: m"), 13, 1, 5, NULL, BNULL, B("2003-10-11T22:"), B("2003-10-11T22"), B("2003-10-11T22"), B("-"), B("-"), B("-"), 0, B("14:15 host tag: m"), B("<13>2003-10-11T22:14:15 host tag: m") },
	{ B("<13>2003-10-11T22:14:15.123456789Z host tag: m"), 13, 1, 5, "2003-10-11T22:14:15.\26789Z", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" m"), B("<13>2003-10-11T22:14:15.123456789Z host tag: m") },
	{ B("<13>2003-10-11T22:14:15.1234567Z host tag: m"), 13, 1, 5, "2003-10-11T22:14:15.\267Z", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" m"), B("<13>2003-10-11T22:14:15.1234567Z host tag: m") },
	{ B("<13>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\0423\042 eventSource=\042Application\042 eventID=\0421011\042] BOMAn application event log entry"), 13, 1, 5, "2003-10-11T22:14:15.003Z", B("mymachine.example.com"), B("evntslog"), B("evntslog"), B("evntslog"), B("-"), B("ID47"), B("[exampleSDID@32473 iut=\0423\042 eventSource=\042Application\042 eventID=\0421011\042]"), 1, B("BOMAn application event log entry"), B("<13>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\0423\042 eventSource=\042Application\042 eventID=\0421011\042] BOMAn application event log entry") },
	{ B("<13>1 - host app 123 ID [a][b] msg"), 13, 1, 5, NULL, B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("[a][b]"), 1, B("msg"), B("<13>1 - host app 123 ID [a][b] msg") },
	{ B("<13>1 - host app 123 ID [a] [b] msg"), 13, 1, 5, NULL, B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("[a]"), 1, B("[b] msg"), B("<13>1 - host app 123 ID [a] [b] msg") },
	{ B("<13>1 - host app 123 ID - msg"), 13, 1, 5, NULL, B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("-"), 1, B("msg"), B("<13>1 - host app 123 ID - msg") },
	{ B("<13>1 - - - - - - msg"), 13, 1, 5, NULL, B("-"), B("-"), B("-"), B("-"), B("-"), B("-"), B("-"), 1, B("msg"), B("<13>1 - - - - - - msg") },
	{ B("<13>1 bad host app 123 ID - msg"), 13, 1, 5, NULL, BNULL, B(""), B(""), B(""), B("-"), B("-"), B("-"), 1, B("bad host app 123 ID - msg"), B("<13>1 bad host app 123 ID - msg") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID hello world"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("ID"), 1, B("hello world"), B("<13>1 2003-10-11T22:14:15Z host app 123 ID hello world") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID [abc"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("[ab"), 1, B("c"), B("<13>1 2003-10-11T22:14:15Z host app 123 ID [abc") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a x=\042\134] y\042] msg"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("[a x=\042\134] y\042]"), 1, B("msg"), B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a x=\042\134] y\042] msg") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a x=\042] y\042] msg"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("[a x=\042]"), 1, B("y\042] msg"), B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a x=\042] y\042] msg") },
	{ B("<13>1 2003-10-11T22:14:15Z host  123 ID - msg"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("-[123]"), B("-"), B("-"), B("123"), B("ID"), B("-"), 1, B("msg"), B("<13>1 2003-10-11T22:14:15Z host  123 ID - msg") },
	{ B("<13>1 2003-10-11T22:14:15Z"), 13, 1, 5, "2003-10-11T22:14:15Z", B(""), B("-[]"), B("-"), B("-"), B(""), B(""), B(""), 1, B(""), B("<13>1 2003-10-11T22:14:15Z") },
	{ B("<13>1 - host app"), 13, 1, 5, NULL, B("host"), B("app[]"), B("app"), B("app"), B(""), B(""), B(""), 1, B(""), B("<13>1 - host app") },
	{ B("<13>1 -"), 13, 1, 5, NULL, BNULL, B(""), B(""), B(""), B("-"), B("-"), B("-"), 1, B("-"), B("<13>1 -") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID -msg"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("-"), 1, B("msg"), B("<13>1 2003-10-11T22:14:15Z host app 123 ID -msg") },
	{ B("<13>Mar  1 01:00:00 host tag: a\011b\001c\177d\303\251e\000f"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" a#011b#001c\177d\303\251e#000f"), B("<13>Mar  1 01:00:00 host tag: a#011b#001c\177d\303\251e#000f") },
	{ B("<13>Mar  1 01:00:00 host tag: trailing lf\012"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" trailing lf"), B("<13>Mar  1 01:00:00 host tag: trailing lf") },
	{ B("<13>Mar  1 01:00:00 host tag: two lf\012\012"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" two lf#012"), B("<13>Mar  1 01:00:00 host tag: two lf#012") },
	{ B("<13>Mar  1 01:00:00 host tag: nul\000"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" nul"), B("<13>Mar  1 01:00:00 host tag: nul") },
	{ B("<13>Mar  1 01:00:00 host tag: nul lf\012\000"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" nul lf"), B("<13>Mar  1 01:00:00 host tag: nul lf") },
	{ B("<13>Mar  1 01:00:00 host tag: lf nul\000\012"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" lf nul#000"), B("<13>Mar  1 01:00:00 host tag: lf nul#000") },
	{ B("<13>Mar  1 01:00:00 host tag: cr\015\012"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" cr#015"), B("<13>Mar  1 01:00:00 host tag: cr#015") },
	{ B("<13>Mar  1 01:00:00 host tag: \033[0m"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" #033[0m"), B("<13>Mar  1 01:00:00 host tag: #033[0m") },
	{ B("<13>Mar  1 01:00:00 host prog/sub[12]: x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("prog/sub[12]:"), B("prog"), B("prog"), B("12"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 host prog/sub[12]: x") },
	{ B("<13>Mar  1 01:00:00 host prog[12] x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("prog[12]"), B("prog"), B("prog"), B("12"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 host prog[12] x") },
	{ B("<13>Mar  1 01:00:00 host prog[12 x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("prog[12"), B("prog"), B("prog"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 host prog[12 x") },
	{ B("<13>Mar  1 01:00:00 host :x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B(":"), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("x"), B("<13>Mar  1 01:00:00 host :x") },
	{ B("<13>Mar  1 01:00:00 host  x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 host  x") },
	{ B("<13>Mar  1 01:00:00 host"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(""), B("<13>Mar  1 01:00:00 host") },
	{ B("<13>Mar  1 01:00:00 host-"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host-"), B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(""), B("<13>Mar  1 01:00:00 host-") },
	{ B("<13>Mar  1 01:00:00 host- x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", BNULL, B("host-"), B("host-"), B("host-"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 host- x") },
	{ B("<13>Mar  1 01:00:00 host. x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", BNULL, B("host."), B("host."), B("host."), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 host. x") },
	{ B("<13>Mar  1 01:00:00 ho_st x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("ho_st"), B("x"), B("x"), B("x"), B("-"), B("-"), B("-"), 0, B(""), B("<13>Mar  1 01:00:00 ho_st x") },
	{ B("<13>Mar  1 01:00:00 ho@st x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", BNULL, B("ho@st"), B("ho@st"), B("ho@st"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 ho@st x") },
	{ B("<13>Mar  1 01:00:00 [1.2.3.4] x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", BNULL, B("[1.2.3.4]"), B(""), B("-"), B("1.2.3.4"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 [1.2.3.4] x") },
	{ B("<13>Mar  1 01:00:00 fe80::1 x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", BNULL, B("fe80:"), B("fe80"), B("fe80"), B("-"), B("-"), B("-"), 0, B(":1 x"), B("<13>Mar  1 01:00:00 fe80::1 x") },
	{ B("<13>Mar  1 01:00:00 1.2.3.4 x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("1.2.3.4"), B("x"), B("x"), B("x"), B("-"), B("-"), B("-"), 0, B(""), B("<13>Mar  1 01:00:00 1.2.3.4 x") },
	{ B("<13>Mar  1 01:00:00"), 13, 1, 5, "2026-03-01T01:00:00+00:00", BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(""), B("<13>Mar  1 01:00:00") },
	{ B("<13>Mar  1 01:00:00 "), 13, 1, 5, "2026-03-01T01:00:00+00:00", BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(""), B("<13>Mar  1 01:00:00 ") },
	{ B("<13>Mar  1 01:00:00:"), 13, 1, 5, "2026-03-01T01:00:00+00:00", BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(""), B("<13>Mar  1 01:00:00:") },
	{ B("<13>2019 Mar  1 01:00:00 host"), 13, 1, 5, "2019-03-01T01:00:00+00:00", BNULL, B("host\000"), B("host"), B("host"), B("-"), B("-"), B("-"), 0, B(""), B("<13>2019 Mar  1 01:00:00 host") },
	{ B("<13>2019 Mar  1 01:00:00 host tag"), 13, 1, 5, "2019-03-01T01:00:00+00:00", B("host"), B("tag\000"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(""), B("<13>2019 Mar  1 01:00:00 host tag") },
	{ B("<13>Mar  1 :: host tag: x"), 13, 1, 5, "2026-03-01T00:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 :: host tag: x") },
	{ B("<13>Mar 32 01:00:00 host tag: x"), 13, 1, 5, NULL, B("Mar"), B("32"), B("32"), B("32"), B("-"), B("-"), B("-"), 0, B(" 01:00:00 host tag: x"), B("<13>Mar 32 01:00:00 host tag: x") },
	{ B("<13>Mar 0 01:00:00 host tag: x"), 13, 1, 5, NULL, B("Mar"), B("0"), B("0"), B("0"), B("-"), B("-"), B("-"), 0, B(" 01:00:00 host tag: x"), B("<13>Mar 0 01:00:00 host tag: x") },
	{ B("<13>Mar  1 24:00:00 host tag: x"), 13, 1, 5, NULL, B("Mar"), B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(" 1 24:00:00 host tag: x"), B("<13>Mar  1 24:00:00 host tag: x") },
	{ B("<13>Mar  1 23:59:60 host tag: x"), 13, 1, 5, "2026-03-01T23:59:60+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 23:59:60 host tag: x") },
	{ B("<13>Mar  1 1:2:3 host tag: x"), 13, 1, 5, "2026-03-01T01:02:03+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 1:2:3 host tag: x") },
	{ B("<13>Mar   1 01:00:00 host tag: x"), 13, 1, 5, NULL, B("Mar"), B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("  1 01:00:00 host tag: x"), B("<13>Mar   1 01:00:00 host tag: x") },
	{ B("<13>Mar 1 2100 01:00:00 host tag: x"), 13, 1, 5, NULL, B("Mar"), B("1"), B("1"), B("1"), B("-"), B("-"), B("-"), 0, B(" 2100 01:00:00 host tag: x"), B("<13>Mar 1 2100 01:00:00 host tag: x") },
	{ B("<13>Mar 1 1971 01:00:00 host tag: x"), 13, 1, 5, "1971-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar 1 1971 01:00:00 host tag: x") },
	{ B("<13>1969 Mar 1 01:00:00 host tag: x"), 13, 1, 5, NULL, B("1969"), B("Mar"), B("Mar"), B("Mar"), B("-"), B("-"), B("-"), 0, B(" 1 01:00:00 host tag: x"), B("<13>1969 Mar 1 01:00:00 host tag: x") },
	{ B("<13>Mar  1 01:00:00.5 host tag: x"), 13, 1, 5, "2026-03-01T01:00:00.5+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00.5 host tag: x") },
	{ B("<13>Mar  1 01:00:00.000001 host tag: x"), 13, 1, 5, "2026-03-01T01:00:00.000001+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00.000001 host tag: x") },
	{ B("<13>  Mar  1 01:00:00 host tag: x"), 13, 1, 5, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("  Mar  1 01:00:00 host tag: x"), B("<13>  Mar  1 01:00:00 host tag: x") },
	{ B("<13>-1-1T::Z host tag: x"), 13, 1, 5, "0000-01-01T00:00:00Z", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>-1-1T::Z host tag: x") },
	{ B("<13>2100-01-01T00:00:00Z host tag: x"), 13, 1, 5, NULL, BNULL, B("2100-01-01T00:"), B("2100-01-01T00"), B("2100-01-01T00"), B("-"), B("-"), B("-"), 0, B("00:00Z host tag: x"), B("<13>2100-01-01T00:00:00Z host tag: x") },
	{ B("<13>2099-12-31T23:59:60.1-23:59 host tag: x"), 13, 1, 5, "2099-12-31T23:59:60.1-23:59", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>2099-12-31T23:59:60.1-23:59 host tag: x") },
	{ B("<13>2003-10-11T22:14:15.003+02:00"), 13, 1, 5, "2003-10-11T22:14:15.003+02:00", BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(""), B("<13>2003-10-11T22:14:15.003+02:00") },
	{ B("<13>2003-10-11T22:14:15.003+2:0 h t: x"), 13, 1, 5, "2003-10-11T22:14:15.003+02:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>2003-10-11T22:14:15.003+2:0 h t: x") },
	{ B("<13>2003-10-11T22:14:15.Z h t: x"), 13, 1, 5, "2003-10-11T22:14:15Z", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>2003-10-11T22:14:15.Z h t: x") },
	{ B("<13>2003-10-11T22:14:15.003+02:00x h t: x"), 13, 1, 5, NULL, BNULL, B("2003-10-11T22:"), B("2003-10-11T22"), B("2003-10-11T22"), B("-"), B("-"), B("-"), 0, B("14:15.003+02:00x h t: x"), B("<13>2003-10-11T22:14:15.003+02:00x h t: x") },
	{ B("<13>Jan  1 01:00:00 h t: x"), 13, 1, 5, "2026-01-01T01:00:00+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Jan  1 01:00:00 h t: x") },
	{ B("<13>Jul  4 01:00:00 h t: x"), 13, 1, 5, "2026-07-04T01:00:00+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Jul  4 01:00:00 h t: x") },
	{ B("<13>Dec 31 23:59:59 h t: x"), 13, 1, 5, "2026-12-31T23:59:59+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Dec 31 23:59:59 h t: x") },
	{ B("<13>Feb 29 01:00:00 h t: x"), 13, 1, 5, "2026-02-29T01:00:00+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Feb 29 01:00:00 h t: x") },
	{ B("<13>"), 13, 1, 5, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(""), B("<13>") },
	{ B("<13>1"), 13, 1, 5, NULL, B("1"), B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(""), B("<13>1") },
	{ B("<13>1 "), 13, 1, 5, NULL, BNULL, B(""), B(""), B(""), B("-"), B("-"), B("-"), 1, B(""), B("<13>1 ") },
	{ B("1 2003-10-11T22:14:15Z host app 123 ID - nopri"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("-"), 1, B("nopri"), B("1 2003-10-11T22:14:15Z host app 123 ID - nopri") },
	{ B("<13>1  2003-10-11T22:14:15Z host app 123 ID - x"), 13, 1, 5, NULL, BNULL, B(""), B(""), B(""), B("-"), B("-"), B("-"), 1, B(" 2003-10-11T22:14:15Z host app 123 ID - x"), B("<13>1  2003-10-11T22:14:15Z host app 123 ID - x") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a]x"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("[a]"), 1, B("x"), B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a]x") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a]"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("[a]"), 1, B(""), B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a]") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a] "), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("[a]"), 1, B(""), B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a] ") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID ["), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B(""), 1, B("["), B("<13>1 2003-10-11T22:14:15Z host app 123 ID [") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a]]"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("[a]]"), 1, B(""), B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a]]") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a\134]"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("[a\134]"), 1, B(""), B("<13>1 2003-10-11T22:14:15Z host app 123 ID [a\134]") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID\357\273\277x"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID\357\273\277x"), B("ID\357\273\277x"), 1, B(""), B("<13>1 2003-10-11T22:14:15Z host app 123 ID\357\273\277x") },
	{ B("<13>1 2003-10-11T22:14:15Z host app 123 ID - \357\273\277msg"), 13, 1, 5, "2003-10-11T22:14:15Z", B("host"), B("app[123]"), B("app"), B("app"), B("123"), B("ID"), B("-"), 1, B("\357\273\277msg"), B("<13>1 2003-10-11T22:14:15Z host app 123 ID - \357\273\277msg") },
	{ B("<13>2 2003-10-11T22:14:15Z host app 123 ID - x"), 13, 1, 5, NULL, B("2"), B("2003-10-11T22:"), B("2003-10-11T22"), B("2003-10-11T22"), B("-"), B("-"), B("-"), 0, B("14:15Z host app 123 ID - x"), B("<13>2 2003-10-11T22:14:15Z host app 123 ID - x") },
	{ B("<13>1 Mar  1 01:00:00 host app 123 ID - x"), 13, 1, 5, NULL, BNULL, B(""), B(""), B(""), B("-"), B("-"), B("-"), 1, B("Mar  1 01:00:00 host app 123 ID - x"), B("<13>1 Mar  1 01:00:00 host app 123 ID - x") },
	{ B("<13>Mar  1 01:00:00 host tag: x\000"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 host tag: x") },
	{ B("<13>hello\000world foo"), 13, 1, 5, NULL, BNULL, B("hello#000world"), B("hello#000world"), B("hello#000world"), B("-"), B("-"), B("-"), 0, B(" foo"), B("<13>hello#000world foo") },
	{ B("<13>abc:def ghi"), 13, 1, 5, NULL, BNULL, B("abc:"), B("abc"), B("abc"), B("-"), B("-"), B("-"), 0, B("def ghi"), B("<13>abc:def ghi") },
	{ B("<13>host tag: x"), 13, 1, 5, NULL, B("host"), B("tag:"), B("tag"), B("tag"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>host tag: x") },
	{ B("<13>host.example.com tag[1]: x"), 13, 1, 5, NULL, B("host.example.com"), B("tag[1]:"), B("tag"), B("tag"), B("1"), B("-"), B("-"), 0, B(" x"), B("<13>host.example.com tag[1]: x") },
	{ B("<13>2019 Mar  1 01:00:00"), 13, 1, 5, NULL, B("2019"), B("Mar"), B("Mar"), B("Mar"), B("-"), B("-"), B("-"), 0, B("  1 01:00:00"), B("<13>2019 Mar  1 01:00:00") },
	{ B("<13>2019 Mar  1 01:00:00 "), 13, 1, 5, "2019-03-01T01:00:00+00:00", BNULL, B("\000"), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(""), B("<13>2019 Mar  1 01:00:00 ") },
	{ B("<13>Mar  1 01:00:00 h pr\303\266g[1]: x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("h"), B("pr\303\266g[1]:"), B("pr"), B("pr"), B("1"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 h pr\303\266g[1]: x") },
	{ B("<13>Mar  1 01:00:00 h prog[]: x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("h"), B("prog[]:"), B("prog"), B("prog"), B(""), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 h prog[]: x") },
	{ B("<13>Mar  1 01:00:00 h a/b: x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("h"), B("a/b:"), B("a"), B("a"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 h a/b: x") },
	{ B("<13>Mar  1 01:00:00 h: x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", BNULL, B("h:"), B("h"), B("h"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Mar  1 01:00:00 h: x") },
	{ B("<165>Mar  1 01:00:00 h t: x"), 165, 20, 5, "2026-03-01T01:00:00+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<165>Mar  1 01:00:00 h t: x") },
	{ B("<0>Mar  1 01:00:00 h t: x"), 0, 0, 0, "2026-03-01T01:00:00+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<0>Mar  1 01:00:00 h t: x") },
	{ B("<000000000000000013>Mar  1 01:00:00 h t: x"), 13, 1, 5, "2026-03-01T01:00:00+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<000000000000000013>Mar  1 01:00:00 h t: x") },
	{ B("<1919>x"), 199, 24, 7, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("<1919>x"), B("<1919>x") },
	{ B("<"), 199, 24, 7, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("<"), B("<") },
	{ B("<1"), 199, 24, 7, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("<1"), B("<1") },
	{ B("<13"), 199, 24, 7, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B("<13"), B("<13") },
	{ B("\012"), 13, 1, 5, NULL, BNULL, B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(""), B("") },
	{ B("<13>1 2003-10-11T22:14:15.003Z h a p m [x@1 a=\042\134\134\042] msg"), 13, 1, 5, "2003-10-11T22:14:15.003Z", B("h"), B("a[p]"), B("a"), B("a"), B("p"), B("m"), B("[x@1 a=\042\134\134\042]"), 1, B("msg"), B("<13>1 2003-10-11T22:14:15.003Z h a p m [x@1 a=\042\134\134\042] msg") },
	{ B("<13>1 2003-10-11T22:14:15.003Z h a p m [x@1]  msg"), 13, 1, 5, "2003-10-11T22:14:15.003Z", B("h"), B("a[p]"), B("a"), B("a"), B("p"), B("m"), B("[x@1]"), 1, B(" msg"), B("<13>1 2003-10-11T22:14:15.003Z h a p m [x@1]  msg") },
	{ B("<13>1 2003-10-11T22:14:15.003Z  a p m - msg"), 13, 1, 5, "2003-10-11T22:14:15.003Z", B(""), B("a[p]"), B("a"), B("a"), B("p"), B("m"), B("-"), 1, B("msg"), B("<13>1 2003-10-11T22:14:15.003Z  a p m - msg") },
	{ B("<13>1 2003-10-11T22:14:15.123456Z h a p m - msg"), 13, 1, 5, "2003-10-11T22:14:15.123456Z", B("h"), B("a[p]"), B("a"), B("a"), B("p"), B("m"), B("-"), 1, B("msg"), B("<13>1 2003-10-11T22:14:15.123456Z h a p m - msg") },
	{ B("<13>1 2003-10-11T22:14:15.003-07:30 h a p m - msg"), 13, 1, 5, "2003-10-11T22:14:15.003-07:30", B("h"), B("a[p]"), B("a"), B("a"), B("p"), B("m"), B("-"), 1, B("msg"), B("<13>1 2003-10-11T22:14:15.003-07:30 h a p m - msg") },
	{ B("<13>Sep  9 09:09:09 h t: x"), 13, 1, 5, "2026-09-09T09:09:09+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Sep  9 09:09:09 h t: x") },
	{ B("<13>OCT 10 10:10:10 h t: x"), 13, 1, 5, "2026-10-10T10:10:10+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>OCT 10 10:10:10 h t: x") },
	{ B("<13>Nov 11 11:11:11 h t: x"), 13, 1, 5, "2026-11-11T11:11:11+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Nov 11 11:11:11 h t: x") },
	{ B("<13>Apr  1 01:00:00 h t: x"), 13, 1, 5, "2026-04-01T01:00:00+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Apr  1 01:00:00 h t: x") },
	{ B("<13>May  1 01:00:00 h t: x"), 13, 1, 5, "2026-05-01T01:00:00+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>May  1 01:00:00 h t: x") },
	{ B("<13>Jun  1 01:00:00 h t: x"), 13, 1, 5, "2026-06-01T01:00:00+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Jun  1 01:00:00 h t: x") },
	{ B("<13>Aug  1 01:00:00 h t: x"), 13, 1, 5, "2026-08-01T01:00:00+00:00", B("h"), B("t:"), B("t"), B("t"), B("-"), B("-"), B("-"), 0, B(" x"), B("<13>Aug  1 01:00:00 h t: x") },
	{ B("<13>Jux  1 01:00:00 h t: x"), 13, 1, 5, NULL, B("Jux"), B(""), B(""), B("-"), B("-"), B("-"), B("-"), 0, B(" 1 01:00:00 h t: x"), B("<13>Jux  1 01:00:00 h t: x") },
};


static struct msg *mk(const char *raw, size_t len)
{
	return unit_msg_at(raw, len, RCVD_EPOCH, RCVD_USEC);
}

/* -------- derivations of the visible properties (see parser.h) -------- */

static char dbuf[8][4096];

static struct bstr span(const struct msg *m, struct msg_span s)
{
	struct bstr b = { m->raw + s.off, s.len };
	return b;
}

static struct bstr lit(const char *s)
{
	struct bstr b = { s, strlen(s) };
	return b;
}

static bool is_dash(struct bstr b)
{
	return b.n == 1 && b.p[0] == '-';
}

static struct bstr d_app(const struct msg *m);
static struct bstr d_procid(const struct msg *m);

static struct bstr d_tag(const struct msg *m)
{
	struct bstr a, p;
	size_t n;

	if (m->protocol_version == 0)
		return span(m, m->tag);
	if (m->flags & MSG_HOST_IS_FROMHOST)
		return lit("");
	a = d_app(m);
	p = d_procid(m);
	memcpy(dbuf[0], a.p, a.n);
	n = a.n;
	if (!is_dash(p)) {
		dbuf[0][n++] = '[';
		memcpy(dbuf[0] + n, p.p, p.n);
		n += p.n;
		dbuf[0][n++] = ']';
	}
	return (struct bstr){ dbuf[0], n };
}

static struct bstr d_prog(const struct msg *m)
{
	struct bstr t = d_tag(m);
	size_t i;

	if (m->protocol_version == 0)
		return (struct bstr){ t.p, m->programname_len };
	for (i = 0; i < t.n; i++) {
		unsigned char c = (unsigned char)t.p[i];
		if (c < 0x20 || c > 0x7e || c == ':' || c == '[' || c == '/')
			break;
	}
	return (struct bstr){ t.p, i };
}

static struct bstr d_app(const struct msg *m)
{
	if (m->protocol_version == 0) {
		struct bstr p = (struct bstr){ m->raw + m->tag.off, m->programname_len };
		return p.n ? p : lit("-");
	}
	if (m->flags & MSG_HOST_IS_FROMHOST)
		return lit("");
	return m->app_name.len ? span(m, m->app_name) : lit("-");
}

static struct bstr d_procid(const struct msg *m)
{
	if (m->protocol_version == 0) {
		struct bstr t = span(m, m->tag);
		size_t i = 0, j;
		while (i < t.n && t.p[i] != '[')
			i++;
		if (i >= t.n)
			return lit("-");
		for (j = ++i; j < t.n && t.p[j] != ']'; j++)
			;
		if (j >= t.n)
			return lit("-");
		return (struct bstr){ t.p + i, j - i };
	}
	if (m->flags & MSG_HOST_IS_FROMHOST)
		return lit("-");
	return span(m, m->procid);
}

static struct bstr d_5424(const struct msg *m, struct msg_span s)
{
	if (m->protocol_version == 0 || (m->flags & MSG_HOST_IS_FROMHOST))
		return lit("-");
	return span(m, s);
}

#define ck_bstr_eq(what, got, exp)                                                     \
	ck_assert_msg((got).n == (exp).n && memcmp((got).p, (exp).p, (got).n) == 0,      \
		      "case %d %s: got '%.*s' (%zu), expected '%.*s' (%zu)", _i, what,   \
		      (int)(got).n, (got).p, (got).n, (int)(exp).n, (exp).p, (exp).n)

static bool same_time(const struct syslog_time *a, const struct syslog_time *b)
{
	return a->year == b->year && a->month == b->month && a->day == b->day &&
	       a->hour == b->hour && a->minute == b->minute && a->second == b->second &&
	       a->secfrac == b->secfrac && a->secfrac_digits == b->secfrac_digits &&
	       a->off_mode == b->off_mode && a->off_hour == b->off_hour &&
	       a->off_minute == b->off_minute;
}

START_TEST(test_rsyslog_table)
{
	const struct pcase *c = &cases[_i];
	struct msg *m = mk(c->in.p, c->in.n);
	char ts[DT_MAX_LEN];

	parser_parse(m);
	ck_assert(m->flags & MSG_PARSED);
	ck_assert_int_eq(m->pri, c->pri);
	ck_assert_int_eq(m->facility, c->fac);
	ck_assert_int_eq(m->severity, c->sev);
	ck_assert_int_eq(m->protocol_version, c->pv);
	ck_bstr_eq("raw", ((struct bstr){ m->raw, m->raw_len }), c->raw);
	ck_assert_int_eq(m->raw[m->raw_len], '\0');
	if (c->ts) {
		dt_fmt_rfc3339(&m->t_reported, ts);
		ck_assert_msg(strcmp(ts, c->ts) == 0, "case %d ts: got %s expected %s", _i, ts, c->ts);
	} else {
		ck_assert_msg(same_time(&m->t_reported, &m->t_received), "case %d: ts not reception time", _i);
	}
	if (c->host.p) {
		ck_assert_msg(!(m->flags & MSG_HOST_IS_FROMHOST), "case %d: hostname expected", _i);
		ck_bstr_eq("hostname", span(m, m->hostname), c->host);
	} else {
		ck_assert_msg(m->flags & MSG_HOST_IS_FROMHOST, "case %d: fromhost expected", _i);
	}
	ck_bstr_eq("syslogtag", d_tag(m), c->tag);
	ck_bstr_eq("programname", d_prog(m), c->prog);
	ck_bstr_eq("app-name", d_app(m), c->app);
	ck_bstr_eq("procid", d_procid(m), c->procid);
	ck_bstr_eq("msgid", d_5424(m, m->msgid), c->msgid);
	ck_bstr_eq("structured-data", d_5424(m, m->sd), c->sd);
	ck_bstr_eq("msg", span(m, m->msg), c->msg);
	ck_assert(m->msg.off + m->msg.len == m->raw_len);
	if (m->protocol_version == 0 && m->tag.len)
		ck_assert(m->flags & MSG_HAS_TAG);
	msg_release(m);
}
END_TEST

/* ----------------------------------------------------------- sanitizing */

static struct msg *sanitized(const char *raw, size_t len)
{
	struct msg *m = mk(raw, len);
	parser_sanitize(m);
	return m;
}

#define RAW_EQ(m, s) do {                                                              \
	ck_assert_msg((m)->raw_len == sizeof(s) - 1 && memcmp((m)->raw, s, sizeof(s) - 1) == 0, \
		      "raw '%.*s' != '%s'", (int)(m)->raw_len, (m)->raw, s);             \
	ck_assert_int_eq((m)->raw[(m)->raw_len], 0);                                     \
} while (0)

/* One byte to escape at every position of texts of 1 to 80 bytes (the
 * scan goes 32, 16 bytes at a time, then the last 16 bytes overlapping,
 * or byte by byte for short texts), among printable and 8-bit bytes that
 * must be left alone; with escape_cc on (\001 escaped) and off (only NUL
 * escaped, \001 kept). */
START_TEST(test_sanitize_every_position)
{
	for (int cc = 0; cc < 2; cc++) {
		glbl.escape_cc = cc == 1;
		const char bad = cc ? '\001' : '\0';
		const char *esc = cc ? "#001" : "#000";
		for (size_t len = 1; len <= 80; len++) {
			for (size_t pos = 0; pos <= len; pos++) { /* pos == len: none */
				char in[96], want[128];
				for (size_t k = 0; k < len; k++)
					in[k] = k % 5 == 4 ? (char)0xc3 : (char)('a' + k % 26);
				if (!cc && len > 4 && pos != 3)
					in[3] = '\001'; /* without escape_cc: kept if nothing
							 * else is escaped, else dropped */
				size_t wl = 0;
				if (pos < len - 1)
					in[pos] = bad;
				for (size_t k = 0; k < len; k++) {
					if (k == pos && pos < len - 1) {
						memcpy(want + wl, esc, 4);
						wl += 4;
					} else if (!cc && in[k] == '\001' && pos < len - 1 && k + 1 >= pos) {
						/* dropped by the copy, which starts one byte
						 * before the first to escape (as rsyslog's) */
						continue;
					} else {
						want[wl++] = in[k];
					}
				}
				struct msg *m = sanitized(in, len);
				ck_assert_msg(m->raw_len == wl && memcmp(m->raw, want, wl) == 0,
					      "escape_cc %d, length %zu, byte at %zu: got '%.*s'", cc, len,
					      pos, (int)m->raw_len, m->raw);
				msg_release(m);
			}
		}
	}
	glbl_reset();
}
END_TEST

START_TEST(test_sanitize_defaults)
{
	struct msg *m;

	m = sanitized("plain text", 10);
	RAW_EQ(m, "plain text");
	ck_assert(!(m->flags & MSG_RAW_SEPARATE)); /* nothing to escape: no allocation */
	msg_release(m);

	m = sanitized("a\tb\001c\177d\303\251e\000f", 12);
	RAW_EQ(m, "a#011b#001c\177d\303\251e#000f");
	ck_assert(m->flags & MSG_RAW_SEPARATE);
	msg_release(m);

	m = sanitized("lf\n", 3);
	RAW_EQ(m, "lf");
	msg_release(m);
	m = sanitized("two\n\n", 5);
	RAW_EQ(m, "two#012");
	msg_release(m);
	m = sanitized("nul\0", 4);
	RAW_EQ(m, "nul");
	msg_release(m);
	m = sanitized("nul lf\n\0", 8);
	RAW_EQ(m, "nul lf");
	msg_release(m);
	m = sanitized("lf nul\0\n", 8);
	RAW_EQ(m, "lf nul#000");
	msg_release(m);
	m = sanitized("cr\r\n", 4);
	RAW_EQ(m, "cr#015");
	msg_release(m);
	m = sanitized("\n", 1);
	RAW_EQ(m, "");
	msg_release(m);
	m = sanitized("\001", 1);
	RAW_EQ(m, "#001");
	msg_release(m);
	m = sanitized("0123456789abcdef\177\200\377xyz0123456789\037", 33);
	RAW_EQ(m, "0123456789abcdef\177\200\377xyz0123456789#037");
	msg_release(m);
}
END_TEST

START_TEST(test_sanitize_options)
{
	struct msg *m;

	glbl.cc_escape_char = '\\';
	m = sanitized("a\tb", 3);
	RAW_EQ(m, "a\\011b");
	msg_release(m);
	glbl_reset();

	glbl.escape_cc_tab = false;
	m = sanitized("a\tb\001", 4);
	RAW_EQ(m, "a\tb#001");
	msg_release(m);
	glbl_reset();

	/* without escaping, only NUL triggers the copy, which then drops the
	 * other control characters (rsyslog does the same) */
	glbl.escape_cc = false;
	m = sanitized("a\tb\001c", 5);
	RAW_EQ(m, "a\tb\001c");
	msg_release(m);
	m = sanitized("a\tb\001c\000d", 7); /* bytes before the first NUL: as they are */
	RAW_EQ(m, "a\tb\001c#000d");
	msg_release(m);
	m = sanitized("\000x\001y\tz", 6);
	RAW_EQ(m, "#000xyz");
	msg_release(m);
	m = sanitized("0123456789\001abcdef\000x\001", 20);
	RAW_EQ(m, "0123456789\001abcdef#000x");
	msg_release(m);
	m = sanitized("0123456789\001abcdefghi\303", 21);
	RAW_EQ(m, "0123456789\001abcdefghi\303");
	msg_release(m);
	glbl_reset();

	glbl.escape_8bit = true;
	m = sanitized("\303\251x", 3);
	RAW_EQ(m, "#303#251x");
	msg_release(m);
	glbl_reset();

	glbl.drop_trailing_lf = false;
	m = sanitized("x\n", 2);
	RAW_EQ(m, "x#012");
	msg_release(m);
	glbl_reset();
}
END_TEST

/* rsyslog cuts the escaped message at maxMessageSize: output stops once
 * it reaches max-3 (verified with rsyslogd: 8093 bytes for max 8096). */
START_TEST(test_sanitize_truncates)
{
	static char in[8100];
	struct msg *m;
	size_t i;

	for (i = 0; i < 7925; i++)
		in[i] = 'a';
	for (; i < 8025; i++)
		in[i] = '\001';
	m = sanitized(in, 8025);
	ck_assert_int_eq(m->raw_len, 8093);
	ck_assert(memcmp(m->raw + 8089, "#001", 4) == 0);
	ck_assert_int_eq(m->raw[8093], 0);
	msg_release(m);

	glbl.max_msg_size = 16;
	m = sanitized("\001\001\001\001\001\001", 6);
	RAW_EQ(m, "#001#001#001#001");
	msg_release(m);
	glbl_reset();
}
END_TEST

/* ------------------------------------------------------------------ PRI */

struct pri_case {
	const char *raw;
	int pri, fac, sev;
	unsigned off;
};

static const struct pri_case pri_cases[] = {
	{ "<13>x", 13, 1, 5, 4 },
	{ "<>x", 0, 0, 0, 2 },
	{ "<0>x", 0, 0, 0, 3 },
	{ "<0013>x", 13, 1, 5, 6 },
	{ "<191>x", 191, 23, 7, 5 },
	{ "<192>x", 199, 24, 7, 0 },
	{ "<1999>x", 199, 24, 7, 0 },
	{ "<1a>x", 199, 24, 7, 0 },
	{ "<13 x", 199, 24, 7, 0 },
	{ "<13", 199, 24, 7, 0 },
	{ "<", 199, 24, 7, 0 },
	{ "x<13>", 13, 1, 5, 0 },
	{ "", 13, 1, 5, 0 },
};

START_TEST(test_pri)
{
	const struct pri_case *c = &pri_cases[_i];
	struct msg *m = mk(c->raw, strlen(c->raw));

	parser_parse_pri(m);
	ck_assert_int_eq(m->pri, c->pri);
	ck_assert_int_eq(m->facility, c->fac);
	ck_assert_int_eq(m->severity, c->sev);
	ck_assert_int_eq(m->off_after_pri, c->off);
	msg_release(m);
}
END_TEST

START_TEST(test_5424_declines)
{
	struct msg *m = mk("<13>Mar  1 01:00:00 h t: x", 26);

	parser_sanitize(m);
	parser_parse_pri(m);
	ck_assert(!pm_rfc5424_parse(m));
	ck_assert_int_eq(m->msg.len, 0);
	ck_assert_int_eq(m->flags, 0);
	msg_release(m);
}
END_TEST

START_TEST(test_3164_slash_in_programname)
{
	struct msg *m;

	glbl.permit_slash_in_programname = true;
	m = mk("<13>Mar  1 01:00:00 h a/b[1]: x", 31);
	parser_parse(m);
	ck_assert_int_eq(m->programname_len, 3);
	ck_assert(memcmp(m->raw + m->tag.off, "a/b", 3) == 0);
	msg_release(m);
	glbl_reset();
}
END_TEST

/* ------------------------------------------------------------- datetime */


#define FMT_EQ(fn, t, exp) do {                                                        \
	char b_[DT_MAX_LEN];                                                           \
	size_t n_ = fn(&(t), b_);                                                      \
	ck_assert_msg(n_ == sizeof(exp) - 1 && memcmp(b_, exp, n_) == 0 && b_[n_] == 0, \
		      #fn ": got '%s' expected '%s'", b_, exp);                        \
} while (0)

START_TEST(test_formatters)
{
	struct syslog_time t = mkt(2003, 3, 1, 1, 0, 0, 123, 3, '+', 1, 0);
	struct syslog_time z = mkt(2003, 10, 11, 22, 14, 15, 0, 0, 'Z', 0, 0);
	struct syslog_time neg = mkt(2099, 12, 31, 23, 59, 60, 1, 1, '-', 23, 59);
	struct syslog_time f9 = mkt(2003, 10, 11, 22, 14, 15, 123456789, 9, 'Z', 0, 0);
	struct syslog_time f7 = mkt(2003, 10, 11, 22, 14, 15, 1234567, 7, 'Z', 0, 0);
	struct syslog_time f6 = mkt(2003, 10, 11, 22, 14, 15, 1, 6, 'Z', 0, 0);
	struct syslog_time y0 = mkt(0, 1, 1, 0, 0, 0, 0, 0, 'Z', 0, 0);

	FMT_EQ(dt_fmt_rfc3164, t, "Mar  1 01:00:00");
	FMT_EQ(dt_fmt_rfc3164_buggyday, t, "Mar 01 01:00:00");
	FMT_EQ(dt_fmt_rfc3164, z, "Oct 11 22:14:15");
	FMT_EQ(dt_fmt_rfc3164_buggyday, z, "Oct 11 22:14:15");
	FMT_EQ(dt_fmt_rfc3339, t, "2003-03-01T01:00:00.123+01:00");
	FMT_EQ(dt_fmt_rfc3339, z, "2003-10-11T22:14:15Z");
	FMT_EQ(dt_fmt_rfc3339, neg, "2099-12-31T23:59:60.1-23:59");
	FMT_EQ(dt_fmt_rfc3339, f6, "2003-10-11T22:14:15.000001Z");
	/* rsyslog's output for 9 and 7 fraction digits (checked with rsyslogd) */
	FMT_EQ(dt_fmt_rfc3339, f9, "2003-10-11T22:14:15.\26789Z");
	FMT_EQ(dt_fmt_rfc3339, f7, "2003-10-11T22:14:15.\267Z");
	FMT_EQ(dt_fmt_rfc3339, y0, "0000-01-01T00:00:00Z");
	FMT_EQ(dt_fmt_mysql, t, "20030301010000");
	FMT_EQ(dt_fmt_pgsql, t, "2003-03-01 01:00:00");
	FMT_EQ(dt_fmt_subseconds, t, "123");
	FMT_EQ(dt_fmt_subseconds, z, "0");
	FMT_EQ(dt_fmt_subseconds, f6, "000001");
	FMT_EQ(dt_fmt_unix, z, "1065910455");
	FMT_EQ(dt_fmt_unix, t, "1046476800");
	FMT_EQ(dt_fmt_unix, y0, "0");
	ck_assert_str_eq(dt_month_names[0], "Jan");
	ck_assert_str_eq(dt_month_names[11], "Dec");
	ck_assert_str_eq(dt_wday_names[0], "Sun");
	ck_assert_str_eq(dt_wday_names[6], "Sat");
}
END_TEST

START_TEST(test_to_epoch)
{
	struct syslog_time t;

	t = mkt(1970, 1, 1, 0, 0, 0, 0, 0, 'Z', 0, 0);
	ck_assert_int_eq(dt_to_epoch(&t), 0);
	t = mkt(2000, 3, 1, 0, 0, 0, 0, 0, 'Z', 0, 0);
	ck_assert_int_eq(dt_to_epoch(&t), 951868800);
	t = mkt(2024, 2, 29, 12, 0, 0, 0, 0, '+', 0, 0);
	ck_assert_int_eq(dt_to_epoch(&t), 1709208000);
	t = mkt(2024, 12, 31, 23, 59, 59, 0, 0, '+', 5, 30);
	ck_assert_int_eq(dt_to_epoch(&t), 1735689599 - 19800);
	t = mkt(2024, 12, 31, 23, 59, 59, 0, 0, '-', 7, 0);
	ck_assert_int_eq(dt_to_epoch(&t), 1735689599 + 25200);
	t = mkt(2100, 3, 1, 0, 0, 0, 0, 0, 'Z', 0, 0);
	ck_assert_int_eq(dt_to_epoch(&t), 4107542400);
	t = mkt(1969, 12, 31, 0, 0, 0, 0, 0, 'Z', 0, 0);
	ck_assert_int_eq(dt_to_epoch(&t), 0);
	t = mkt(2101, 1, 1, 0, 0, 0, 0, 0, 'Z', 0, 0);
	ck_assert_int_eq(dt_to_epoch(&t), 0);
}
END_TEST

START_TEST(test_from_epoch_and_now)
{
	struct syslog_time t;
	struct timespec now;
	char b[DT_MAX_LEN];

	setenv("TZ", "Asia/Kolkata", 1);
	tzset();
	dt_from_epoch(&t, 1046476800, 42);
	dt_fmt_rfc3339(&t, b);
	ck_assert_str_eq(b, "2003-03-01T05:30:00.000042+05:30");

	setenv("TZ", "America/New_York", 1);
	tzset();
	dt_from_epoch(&t, 1795322082, 854257);
	dt_fmt_rfc3339(&t, b);
	ck_assert_str_eq(b, "2026-11-21T23:34:42.854257-05:00");
	dt_from_epoch(&t, 1783141200, 0);
	dt_fmt_rfc3339(&t, b);
	ck_assert_str_eq(b, "2026-07-04T01:00:00.000000-04:00");

	setenv("TZ", "UTC", 1);
	tzset();
	dt_now(&t, &now);
	ck_assert_int_eq(t.secfrac_digits, 6);
	ck_assert_int_eq(t.secfrac, (uint32_t)(now.tv_nsec / 1000));
	ck_assert_int_eq(t.off_mode, '+');
	ck_assert_int_eq(dt_to_epoch(&t), now.tv_sec);
	ck_assert(now.tv_sec - time(NULL) <= 1 && time(NULL) - now.tv_sec <= 1);
	dt_now(&t, NULL);
	ck_assert(t.valid);
}
END_TEST

/* The public parsers stop before the SP that follows the timestamp and
 * leave everything untouched on failure. */
START_TEST(test_public_parsers)
{
	struct syslog_time t, tz = mkt(2026, 11, 22, 4, 0, 0, 5, 6, '-', 3, 0), save;
	const char *s, *p;
	size_t len;
	char b[DT_MAX_LEN];

	s = "2003-10-11T22:14:15.003+02:00 rest";
	p = s;
	len = strlen(s);
	ck_assert(dt_parse_rfc3339(&p, &len, &t));
	ck_assert_int_eq(p - s, 29);
	ck_assert_int_eq(len, 5);
	dt_fmt_rfc3339(&t, b);
	ck_assert_str_eq(b, "2003-10-11T22:14:15.003+02:00");

	s = "2003-10-11T22:14:15";
	p = s;
	len = strlen(s);
	memset(&t, 0x55, sizeof(t));
	save = t;
	ck_assert(!dt_parse_rfc3339(&p, &len, &t));
	ck_assert(p == s && len == strlen(s) && memcmp(&t, &save, sizeof(t)) == 0);

	s = "Jul  4 01:02:03: host";
	p = s;
	len = strlen(s);
	ck_assert(dt_parse_rfc3164(&p, &len, &t, &tz));
	ck_assert_int_eq(p - s, 16);
	ck_assert_int_eq(len, 5);
	dt_fmt_rfc3339(&t, b);
	ck_assert_str_eq(b, "2026-07-04T01:02:03-03:00");

	s = "Mar  1 2019 01:00:00.5";
	p = s;
	len = strlen(s);
	ck_assert(dt_parse_rfc3164(&p, &len, &t, &tz));
	ck_assert_int_eq(len, 0);
	dt_fmt_rfc3339(&t, b);
	ck_assert_str_eq(b, "2019-03-01T01:00:00.5-03:00");

	s = "Mar  1 01:00:00x";
	p = s;
	len = strlen(s);
	ck_assert(!dt_parse_rfc3164(&p, &len, &t, &tz));
	ck_assert(p == s);

	/* bounded by len, not by the NUL */
	s = "Mar  1 01:00:00 host";
	p = s;
	len = 12;
	ck_assert(!dt_parse_rfc3164(&p, &len, &t, &tz));
	len = 15;
	ck_assert(dt_parse_rfc3164(&p, &len, &t, &tz));
	ck_assert_int_eq(len, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("parser");
	TCase *tc;
	SRunner *sr;
	int failed;

	setenv("TZ", "UTC", 1);
	tzset();
	glbl_reset();

	tc = tcase_create("rsyslog");
	tcase_add_loop_test(tc, test_rsyslog_table, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("sanitize");
	tcase_add_test(tc, test_sanitize_defaults);
	tcase_add_test(tc, test_sanitize_every_position);
	tcase_add_test(tc, test_sanitize_options);
	tcase_add_test(tc, test_sanitize_truncates);
	suite_add_tcase(s, tc);

	tc = tcase_create("pri");
	tcase_add_loop_test(tc, test_pri, 0, (int)(sizeof(pri_cases) / sizeof(pri_cases[0])));
	tcase_add_test(tc, test_5424_declines);
	tcase_add_test(tc, test_3164_slash_in_programname);
	suite_add_tcase(s, tc);

	tc = tcase_create("datetime");
	tcase_add_test(tc, test_formatters);
	tcase_add_test(tc, test_to_epoch);
	tcase_add_test(tc, test_from_epoch_and_now);
	tcase_add_test(tc, test_public_parsers);
	suite_add_tcase(s, tc);

	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
