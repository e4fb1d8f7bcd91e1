/* prop.c — message properties: name -> id resolution at config load and
 * prop_get(), which yields a property's value for one message.
 *
 * Values point into the message where the bytes exist there (msg, tag,
 * hostname ...) and are otherwise written into the caller's scratch buffer
 * (numbers, synthesized 5424 tags, JSON text). Behaviour follows rsyslog
 * 8.2302 as observed on rsyslogd (e.g. pri-text is "local0.info", an
 * RFC5424 message's syslogtag is "APP-NAME[PROCID]").
 *
 * Threading: prop_ref_parse() runs at config load in the main thread.
 * prop_get() is reentrant. The global variable tree ($/) is guarded by
 * prop_globals_lock()/prop_globals_unlock().
 */
#include "prop.h"
#include "msg.h"
#include "glbl.h"
#include "ast.h"
#include "sluice.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>
#include <json.h>

struct prop_name {
	const char *name;
	enum prop_id id;
};

/* The first entry of each id is its canonical name. */
static const struct prop_name prop_names[] = {
	{ "msg", PROP_MSG },
	{ "rawmsg", PROP_RAWMSG },
	{ "rawmsg-after-pri", PROP_RAWMSG_AFTER_PRI },
	{ "hostname", PROP_HOSTNAME },
	{ "source", PROP_HOSTNAME },
	{ "fromhost", PROP_FROMHOST },
	{ "fromhost-ip", PROP_FROMHOST_IP },
	{ "syslogtag", PROP_SYSLOGTAG },
	{ "programname", PROP_PROGRAMNAME },
	{ "pri", PROP_PRI },
	{ "pri-text", PROP_PRI_TEXT },
	{ "iut", PROP_IUT },
	{ "syslogfacility", PROP_SYSLOGFACILITY },
	{ "syslogfacility-text", PROP_SYSLOGFACILITY_TEXT },
	{ "syslogseverity", PROP_SYSLOGSEVERITY },
	{ "syslogpriority", PROP_SYSLOGSEVERITY },
	{ "syslogseverity-text", PROP_SYSLOGSEVERITY_TEXT },
	{ "syslogpriority-text", PROP_SYSLOGSEVERITY_TEXT },
	{ "timereported", PROP_TIMEREPORTED },
	{ "timestamp", PROP_TIMEREPORTED },
	{ "timegenerated", PROP_TIMEGENERATED },
	{ "protocol-version", PROP_PROTOCOL_VERSION },
	{ "structured-data", PROP_STRUCTURED_DATA },
	{ "app-name", PROP_APP_NAME },
	{ "procid", PROP_PROCID },
	{ "msgid", PROP_MSGID },
	{ "inputname", PROP_INPUTNAME },
	{ "jsonmesg", PROP_JSONMESG },
	{ "parsesuccess", PROP_PARSESUCCESS },
	{ "uuid", PROP_UUID },
	{ "$now", PROP_SYS_NOW },
	{ "$year", PROP_SYS_YEAR },
	{ "$month", PROP_SYS_MONTH },
	{ "$day", PROP_SYS_DAY },
	{ "$hour", PROP_SYS_HOUR },
	{ "$hhour", PROP_SYS_HHOUR },
	{ "$qhour", PROP_SYS_QHOUR },
	{ "$minute", PROP_SYS_MINUTE },
	{ "$wday", PROP_SYS_WDAY },
	{ "$now-utc", PROP_SYS_NOW_UTC },
	{ "$year-utc", PROP_SYS_YEAR_UTC },
	{ "$month-utc", PROP_SYS_MONTH_UTC },
	{ "$day-utc", PROP_SYS_DAY_UTC },
	{ "$hour-utc", PROP_SYS_HOUR_UTC },
	{ "$hhour-utc", PROP_SYS_HHOUR_UTC },
	{ "$qhour-utc", PROP_SYS_QHOUR_UTC },
	{ "$minute-utc", PROP_SYS_MINUTE_UTC },
	{ "$wday-utc", PROP_SYS_WDAY_UTC },
	{ "$now-unixtimestamp", PROP_SYS_NOW_UNIXTIMESTAMP },
	{ "$myhostname", PROP_SYS_MYHOSTNAME },
	{ "$bom", PROP_SYS_BOM },
	{ "$uptime", PROP_SYS_UPTIME },
	{ "$!all-json", PROP_CEE_ALL_JSON },
	{ "$!all-json-plain", PROP_CEE_ALL_JSON_PLAIN },
};

bool prop_ref_parse(const char *name, size_t len, struct prop_ref *ref)
{
	ref->id = PROP_INVALID;
	ref->path = NULL;
	for (size_t i = 0; i < SL_ARRAY_SIZE(prop_names); i++) {
		const char *n = prop_names[i].name;
		if (strlen(n) == len && strncasecmp(n, name, len) == 0) {
			ref->id = prop_names[i].id;
			return true;
		}
	}
	if (len >= 2 && name[0] == '$' && (name[1] == '!' || name[1] == '.' || name[1] == '/')) {
		ref->id = name[1] == '!' ? PROP_CEE : name[1] == '.' ? PROP_LOCAL_VAR : PROP_GLOBAL_VAR;
		/* "$!" alone is the root; "$!a!b" -> "a!b" */
		const char *p = name + 2;
		size_t n = len - 2;
		if (n && *p == '!')
			p++, n--;
		ref->path = sl_xstrndup(p, n);
		return true;
	}
	return false;
}

void prop_ref_free(struct prop_ref *ref)
{
	free(ref->path);
	ref->path = NULL;
}

const char *prop_name(enum prop_id id)
{
	switch (id) {
	case PROP_CEE: return "$!";
	case PROP_LOCAL_VAR: return "$.";
	case PROP_GLOBAL_VAR: return "$/";
	default: break;
	}
	for (size_t i = 0; i < SL_ARRAY_SIZE(prop_names); i++)
		if (prop_names[i].id == id)
			return prop_names[i].name;
	return "";
}

/* ---- global variables ($/) ---- */
static pthread_mutex_t globals_mtx = PTHREAD_MUTEX_INITIALIZER;
static struct fjson_object *globals_root;

void prop_globals_lock(void) { pthread_mutex_lock(&globals_mtx); }
void prop_globals_unlock(void) { pthread_mutex_unlock(&globals_mtx); }
struct fjson_object **prop_globals_root(void) { return &globals_root; }

/* ---- helpers ---- */
static const char *put_uint(struct sbuf *s, unsigned long v, size_t *len)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%lu", v);
	sbuf_reset(s);
	if (!sbuf_append(s, tmp, (size_t)n) || !sbuf_cstr(s)) {
		*len = 0;
		return "";
	}
	*len = (size_t)n;
	return s->buf;
}

static const char *put_str(struct sbuf *s, const char *p, size_t n, size_t *len)
{
	sbuf_reset(s);
	if (!sbuf_append(s, p, n) || !sbuf_cstr(s)) {
		*len = 0;
		return "";
	}
	*len = n;
	return s->buf;
}

/* Walk a '!'-separated path ("" = the root) in a JSON tree. */
struct fjson_object *prop_json_find(struct fjson_object *root, const char *path)
{
	struct fjson_object *cur = root;
	char key[512];
	const char *p = path;
	while (cur && *p) {
		const char *e = strchr(p, '!');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		if (n) {
			if (!json_object_is_type(cur, json_type_object))
				return NULL;
			struct fjson_object *nx = NULL;
			if (!json_object_object_get_ex(cur, key, &nx))
				return NULL;
			cur = nx;
		}
		p += n;
		if (*p == '!')
			p++;
	}
	return cur;
}

static const char *json_value(struct fjson_object *j, size_t *len, struct sbuf *s)
{
	if (!j) {
		*len = 0;
		return "";
	}
	const char *v = json_object_get_string(j);
	if (!v)
		v = "";
	return put_str(s, v, strlen(v), len);
}

/* Is the span "-" or empty? */
static bool span_is_nil(const struct msg *m, struct msg_span sp)
{
	return sp.len == 0 || (sp.len == 1 && m->raw[sp.off] == '-');
}

/* The syslogtag: the tag span, or for RFC5424 "APP-NAME[PROCID]". */
static const char *get_tag(const struct msg *m, size_t *len, struct sbuf *s)
{
	if (m->tag.len || m->protocol_version != 1 || (m->flags & MSG_HOST_IS_FROMHOST)) {
		/* RFC5424 with an invalid timestamp: rsyslog's tag is empty */
		*len = m->tag.len;
		return m->tag.len ? msg_span_ptr(m, m->tag) : "";
	}
	sbuf_reset(s);
	if (m->app_name.len)
		sbuf_append(s, msg_span_ptr(m, m->app_name), m->app_name.len);
	else
		sbuf_putc(s, '-');
	if (!span_is_nil(m, m->procid)) {
		sbuf_putc(s, '[');
		sbuf_append(s, msg_span_ptr(m, m->procid), m->procid.len);
		sbuf_putc(s, ']');
	}
	if (!sbuf_cstr(s)) {
		*len = 0;
		return "";
	}
	*len = s->len;
	return s->buf;
}

static const char *get_programname(const struct msg *m, size_t *len)
{
	if (m->tag.len || m->protocol_version != 1 || (m->flags & MSG_HOST_IS_FROMHOST)) {
		*len = m->programname_len <= m->tag.len ? m->programname_len : m->tag.len;
		return *len ? msg_span_ptr(m, m->tag) : "";
	}
	if (m->app_name.len) {
		*len = m->app_name.len;
		return msg_span_ptr(m, m->app_name);
	}
	*len = 1;
	return "-";
}

static const char *get_hostname(const struct msg *m, size_t *len)
{
	if ((m->flags & MSG_HOST_IS_FROMHOST) || m->hostname.len == 0) {
		if (m->origin && (m->flags & MSG_HOST_IS_FROMHOST)) {
			*len = m->origin->fromhost_len;
			return m->origin->fromhost;
		}
		*len = m->hostname.len;
		return m->hostname.len ? msg_span_ptr(m, m->hostname) : "";
	}
	*len = m->hostname.len;
	return msg_span_ptr(m, m->hostname);
}

/* For RFC3164 messages, rsyslog emulates PROCID from "tag[pid]". */
static const char *get_procid(const struct msg *m, size_t *len)
{
	if (m->protocol_version == 1) {
		if (m->procid.len) {
			*len = m->procid.len;
			return msg_span_ptr(m, m->procid);
		}
	} else if (m->tag.len) {
		const char *t = msg_span_ptr(m, m->tag);
		const char *lb = memchr(t, '[', m->tag.len);
		if (lb) {
			size_t rest = m->tag.len - (size_t)(lb + 1 - t);
			const char *rb = memchr(lb + 1, ']', rest);
			if (rb) { /* "prog[]" gives an empty PROCID, as rsyslog */
				*len = (size_t)(rb - lb - 1);
				return lb + 1;
			}
		}
	}
	*len = 1;
	return "-";
}

static const char *get_appname(const struct msg *m, size_t *len)
{
	if (m->protocol_version == 1) {
		if (m->flags & MSG_HOST_IS_FROMHOST) {
			/* RFC5424 with an invalid timestamp: rsyslog prints "" */
			*len = 0;
			return "";
		}
		return msg_span_or_dash(m, m->app_name, len);
	}
	const char *p = get_programname(m, len);
	if (*len == 0) {
		*len = 1;
		return "-";
	}
	return p;
}

static const char *get_inputname(const struct msg *m, size_t *len)
{
	if (m->origin) {
		*len = m->origin->inputname_len;
		return m->origin->inputname;
	}
	*len = 0;
	return "";
}

static size_t fmt2(char *o, int v)
{
	o[0] = (char)('0' + (v / 10) % 10);
	o[1] = (char)('0' + v % 10);
	return 2;
}

static const char *sys_time(enum prop_id id, size_t *len, struct sbuf *s)
{
	time_t now = time(NULL);
	struct tm tm;
	bool utc = id >= PROP_SYS_NOW_UTC && id <= PROP_SYS_WDAY_UTC;
	if (utc)
		gmtime_r(&now, &tm);
	else
		localtime_r(&now, &tm);
	if (utc)
		id = (enum prop_id)(id - (PROP_SYS_NOW_UTC - PROP_SYS_NOW));
	char b[32];
	size_t n = 0;
	switch (id) {
	case PROP_SYS_NOW:
		n = (size_t)snprintf(b, sizeof(b), "%04d-%02d-%02d", tm.tm_year + 1900,
				     tm.tm_mon + 1, tm.tm_mday);
		break;
	case PROP_SYS_YEAR: n = (size_t)snprintf(b, sizeof(b), "%04d", tm.tm_year + 1900); break;
	case PROP_SYS_MONTH: n = fmt2(b, tm.tm_mon + 1); break;
	case PROP_SYS_DAY: n = fmt2(b, tm.tm_mday); break;
	case PROP_SYS_HOUR: n = fmt2(b, tm.tm_hour); break;
	case PROP_SYS_HHOUR: n = fmt2(b, tm.tm_min / 30); break;
	case PROP_SYS_QHOUR: n = fmt2(b, tm.tm_min / 15); break;
	case PROP_SYS_MINUTE: n = fmt2(b, tm.tm_min); break;
	case PROP_SYS_WDAY: n = (size_t)snprintf(b, sizeof(b), "%d", tm.tm_wday); break;
	default: break;
	}
	return put_str(s, b, n, len);
}

/* rsyslog's jsonmesg: a JSON object of the main properties. */
static const char *get_jsonmesg(const struct msg *m, size_t *len, struct sbuf *s)
{
	static const enum prop_id ids[] = {
		PROP_MSG, PROP_RAWMSG, PROP_TIMEREPORTED, PROP_HOSTNAME, PROP_SYSLOGTAG,
		PROP_INPUTNAME, PROP_FROMHOST, PROP_FROMHOST_IP, PROP_PRI,
		PROP_SYSLOGFACILITY, PROP_SYSLOGSEVERITY, PROP_TIMEGENERATED,
		PROP_PROGRAMNAME, PROP_PROTOCOL_VERSION, PROP_STRUCTURED_DATA,
		PROP_APP_NAME, PROP_PROCID, PROP_MSGID,
	};
	struct fjson_object *o = json_object_new_object();
	struct sbuf tmp = SBUF_INIT;
	if (!o)
		goto fail;
	for (size_t i = 0; i < SL_ARRAY_SIZE(ids); i++) {
		struct prop_ref r = { ids[i], NULL };
		size_t n;
		const char *v;
		char tb[DT_MAX_LEN];
		if (ids[i] == PROP_TIMEREPORTED || ids[i] == PROP_TIMEGENERATED) {
			n = dt_fmt_rfc3339(ids[i] == PROP_TIMEREPORTED ? &m->t_reported
					   : &m->t_received, tb);
			v = tb;
		} else {
			v = prop_get(m, &r, &n, &tmp);
		}
		json_object_object_add(o, prop_name(ids[i]), json_object_new_string_len(v, (int)n));
	}
	json_object_object_add(o, "uuid", NULL);
	if (m->json)
		json_object_object_add(o, "$!", json_object_get(m->json));
	const char *str = json_object_get_string(o);
	const char *res = put_str(s, str, strlen(str), len);
	json_object_put(o);
	sbuf_free(&tmp);
	return res;
fail:
	*len = 0;
	return "";
}

/* %uuid%: 32 upper-case hex digits, as rsyslog prints its libuuid value.
 * sluice derives it from the message (its address, reception time and
 * bytes, mixed with a per-process random key), so it is stable for the
 * life of the message and unique in practice, without storing it. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static const char *get_uuid(const struct msg *m, size_t *len, struct sbuf *s)
{
	static uint64_t key;
	uint64_t k = __atomic_load_n(&key, __ATOMIC_RELAXED);
	if (!k) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		k = mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid()) | 1;
		__atomic_store_n(&key, k, __ATOMIC_RELAXED);
	}
	uint64_t h = k ^ (uint64_t)(uintptr_t)m;
	for (uint32_t i = 0; i < m->raw_len; i++)
		h = (h ^ (unsigned char)m->raw[i]) * 0x100000001b3ULL;
	uint64_t a = mix64(h ^ (uint64_t)m->ttgen), b = mix64(a ^ k ^ (uint64_t)m->t_received.secfrac);
	char buf[33];
	snprintf(buf, sizeof(buf), "%016llX%016llX", (unsigned long long)a, (unsigned long long)b);
	return put_str(s, buf, 32, len);
}

static char num_strs[256][4];

__attribute__((constructor)) static void prop_init_numbers(void)
{
	for (int i = 0; i < 256; i++)
		snprintf(num_strs[i], sizeof(num_strs[i]), "%d", i);
}

static const char *small_num(unsigned v, size_t *len)
{
	const char *p = num_strs[v & 0xff];
	*len = strlen(p);
	return p;
}

const char *prop_get(const struct msg *m, const struct prop_ref *ref,
		     size_t *len, struct sbuf *scratch)
{
	char tb[DT_MAX_LEN];
	switch (ref->id) {
	case PROP_MSG:
		*len = m->msg.len;
		return m->msg.len ? msg_span_ptr(m, m->msg) : "";
	case PROP_RAWMSG:
		*len = m->raw_len;
		return m->raw;
	case PROP_RAWMSG_AFTER_PRI: {
		/* rsyslog does not use the parsed PRI here: it skips "<x>",
		 * "<xx>" or "<xxx>" whatever the bytes between the brackets. */
		uint32_t off = 0;
		if (m->raw_len > 0 && m->raw[0] == '<') {
			for (uint32_t k = 2; k <= 4 && k < m->raw_len; k++) {
				if (m->raw[k] == '>') {
					off = k + 1;
					break;
				}
			}
		}
		*len = m->raw_len - off;
		return m->raw + off;
	}
	case PROP_HOSTNAME:
		return get_hostname(m, len);
	case PROP_FROMHOST:
		if (m->origin) {
			*len = m->origin->fromhost_len;
			return m->origin->fromhost;
		}
		break;
	case PROP_FROMHOST_IP:
		if (m->origin) {
			*len = m->origin->fromhost_ip_len;
			return m->origin->fromhost_ip;
		}
		break;
	case PROP_SYSLOGTAG:
		return get_tag(m, len, scratch);
	case PROP_PROGRAMNAME:
		return get_programname(m, len);
	case PROP_PRI:
		if (m->facility == MSG_FACILITY_INVALID) {
			/* rsyslog prints an invalid PRI as "invld" */
			*len = 5;
			return "invld";
		}
		return small_num(m->pri, len);
	case PROP_PRI_TEXT: {
		const char *f = msg_facility_names[m->facility <= 24 ? m->facility : 24];
		const char *sv = msg_severity_names[m->severity & 7];
		sbuf_reset(scratch);
		sbuf_puts(scratch, f);
		sbuf_putc(scratch, '.');
		sbuf_puts(scratch, sv);
		if (!sbuf_cstr(scratch))
			break;
		*len = scratch->len;
		return scratch->buf;
	}
	case PROP_IUT:
		*len = 1;
		return "1";
	case PROP_SYSLOGFACILITY:
		if (m->facility == MSG_FACILITY_INVALID) {
			*len = 5;
			return "invld";
		}
		return small_num(m->facility, len);
	case PROP_SYSLOGFACILITY_TEXT: {
		const char *f = msg_facility_names[m->facility <= 24 ? m->facility : 24];
		*len = strlen(f);
		return f;
	}
	case PROP_SYSLOGSEVERITY:
		return small_num(m->severity, len);
	case PROP_SYSLOGSEVERITY_TEXT: {
		const char *f = msg_severity_names[m->severity & 7];
		*len = strlen(f);
		return f;
	}
	case PROP_TIMEREPORTED:
		*len = dt_fmt_rfc3164(&m->t_reported, tb);
		return put_str(scratch, tb, *len, len);
	case PROP_TIMEGENERATED:
		*len = dt_fmt_rfc3164(&m->t_received, tb);
		return put_str(scratch, tb, *len, len);
	case PROP_PROTOCOL_VERSION:
		*len = 1;
		return m->protocol_version == 1 ? "1" : "0";
	case PROP_STRUCTURED_DATA:
		return msg_span_or_dash(m, m->sd, len);
	case PROP_APP_NAME:
		return get_appname(m, len);
	case PROP_PROCID:
		return get_procid(m, len);
	case PROP_MSGID:
		if (m->protocol_version == 1)
			return msg_span_or_dash(m, m->msgid, len);
		*len = 1;
		return "-";
	case PROP_INPUTNAME:
		return get_inputname(m, len);
	case PROP_JSONMESG:
		return get_jsonmesg(m, len, scratch);
	case PROP_PARSESUCCESS:
		/* rsyslog: "OK" only after a successful mm-module parse */
		if (m->flags & MSG_PARSE_OK) {
			*len = 2;
			return "OK";
		}
		*len = 4;
		return "FAIL";
	case PROP_UUID:
		return get_uuid(m, len, scratch);
	case PROP_SYS_NOW: case PROP_SYS_YEAR: case PROP_SYS_MONTH: case PROP_SYS_DAY:
	case PROP_SYS_HOUR: case PROP_SYS_HHOUR: case PROP_SYS_QHOUR: case PROP_SYS_MINUTE:
	case PROP_SYS_WDAY: case PROP_SYS_NOW_UTC: case PROP_SYS_YEAR_UTC:
	case PROP_SYS_MONTH_UTC: case PROP_SYS_DAY_UTC: case PROP_SYS_HOUR_UTC:
	case PROP_SYS_HHOUR_UTC: case PROP_SYS_QHOUR_UTC: case PROP_SYS_MINUTE_UTC:
	case PROP_SYS_WDAY_UTC:
		return sys_time(ref->id, len, scratch);
	case PROP_SYS_NOW_UNIXTIMESTAMP:
		return put_uint(scratch, (unsigned long)time(NULL), len);
	case PROP_SYS_MYHOSTNAME: {
		const char *h = glbl_local_hostname();
		if (!h)
			break;
		*len = strlen(h);
		return h;
	}
	case PROP_SYS_BOM:
		*len = 3;
		return "\xEF\xBB\xBF";
	case PROP_SYS_UPTIME: {
		struct sysinfo si;
		if (sysinfo(&si) < 0) {
			*len = sizeof("**SYSCALL FAILED**") - 1;
			return "**SYSCALL FAILED**";
		}
		return put_uint(scratch, (unsigned long)si.uptime, len);
	}
	case PROP_CEE:
		if (!m->json)
			break;
		return json_value(prop_json_find(m->json, ref->path ? ref->path : ""), len, scratch);
	case PROP_LOCAL_VAR:
		if (!m->localvars)
			break;
		return json_value(prop_json_find(m->localvars, ref->path ? ref->path : ""),
				  len, scratch);
	case PROP_GLOBAL_VAR: {
		const char *r;
		prop_globals_lock();
		if (!globals_root) {
			prop_globals_unlock();
			break;
		}
		r = json_value(prop_json_find(globals_root, ref->path ? ref->path : ""), len, scratch);
		prop_globals_unlock();
		return r;
	}
	case PROP_CEE_ALL_JSON:
	case PROP_CEE_ALL_JSON_PLAIN: {
		if (!m->json) {
			*len = 2;
			return "{}";
		}
		const char *v = json_object_to_json_string_ext(m->json,
			ref->id == PROP_CEE_ALL_JSON ? JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN);
		return put_str(scratch, v, strlen(v), len);
	}
	default:
		break;
	}
	*len = 0;
	return "";
}

const char *prop_suggest(const char *name)
{
	const char *cands[SL_ARRAY_SIZE(prop_names)];
	if (name[0] == '$' && name[1] && !strchr("$!./", name[1]))
		name++;  /* "$hostnme" in an expression */
	for (size_t i = 0; i < SL_ARRAY_SIZE(prop_names); i++)
		cands[i] = prop_names[i].name;
	return cfg_closest(name, cands, SL_ARRAY_SIZE(prop_names));
}
