/* mmjsonparse.c — parses JSON in a message into its $! variables
 * (rsyslog's mmjsonparse): CEE-style "@cee:{...}" (cookie mode) or the
 * first JSON object anywhere in the message (find-json mode).
 *
 * As rsyslog 8.2302 does (checked with rsyslogd): leading whitespace of
 * the MSG is skipped; the cookie must follow; the text after it must be
 * exactly one JSON object (whitespace around it allowed). On success the
 * object's members are merged into the container ($! by default) and
 * $parsesuccess is "OK". Otherwise the message is left as it is,
 * {"msg": TEXT} is merged into the container (TEXT = the message without
 * its leading whitespace and without the cookie), and $parsesuccess is
 * "FAIL".
 *
 * Threading: a message modifier (MOD_FLAG_MSG_MODIFIER): tx_add runs on
 * the worker thread that runs the ruleset, which owns the message then.
 * Each worker has its own JSON tokener; the action data is read-only.
 */
#include "sluice.h"
#include "module.h"
#include "msg.h"
#include "msgvar.h"
#include "prop.h"
#include "ast.h"
#include "log.h"
#include "stats.h"

#include <json.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct mmjp_cfg {
	char *cookie;
	bool use_raw_msg;
	char *container;
	char *mode;
	int64_t max_scan_bytes;
	bool allow_trailing;
	bool allow_forward;
};

static const struct param_desc mmjp_params[] = {
	{ "cookie", PARAM_STRING, "@cee:", 0, offsetof(struct mmjp_cfg, cookie),
	  "text that must start the message (cookie mode)" },
	{ "useRawMsg", PARAM_BINARY, "off", 0, offsetof(struct mmjp_cfg, use_raw_msg),
	  "parse rawmsg instead of msg" },
	{ "container", PARAM_STRING, "$!", 0, offsetof(struct mmjp_cfg, container),
	  "variable that receives the parsed fields ($!, $!path or $.path)" },
	{ "mode", PARAM_WORD, "cookie", 0, offsetof(struct mmjp_cfg, mode),
	  "cookie (message starts with the cookie) or find-json (first JSON object anywhere)" },
	{ "max_scan_bytes", PARAM_INT, "65536", 0, offsetof(struct mmjp_cfg, max_scan_bytes),
	  "find-json: how far to look for the start of a JSON object" },
	{ "max_scan_length", PARAM_INT, "65536", 0, offsetof(struct mmjp_cfg, max_scan_bytes),
	  "another name of max_scan_bytes" },
	{ "allow_trailing", PARAM_BINARY, "on", 0, offsetof(struct mmjp_cfg, allow_trailing),
	  "find-json: text after the JSON object is allowed" },
	{ "allow_forward_json_characters", PARAM_BINARY, "on", 0,
	  offsetof(struct mmjp_cfg, allow_forward),
	  "find-json: text before the JSON object is allowed (off: only white space)" },
};
static const struct param_table mmjp_table = PARAM_TABLE(mmjp_params, struct mmjp_cfg);

struct mmjp_stats {
	atomic_uint_fast64_t parsed;
	atomic_uint_fast64_t failed;
};

struct mmjp_act {
	struct mmjp_cfg *cfg;
	struct prop_ref container;
	size_t cookie_len;
	bool find_json;
	struct mmjp_stats stats;
	struct stats_obj *stats_obj; /* "mmjsonparse(ACTION)": parsed failed */
};

struct mmjp_wrk {
	struct mmjp_act *act;
	struct fjson_tokener *tok;
	struct sbuf scratch;
};

static void *mmjp_act_create(void *cfgp, struct cfg_obj *o, int *n_errors)
{
	struct mmjp_cfg *cfg = cfgp;
	struct mmjp_act *a = sl_xcalloc(1, sizeof(*a));
	a->cfg = cfg;
	a->cookie_len = strlen(cfg->cookie);
	if (!msg_var_container_ok(cfg->container, &a->container)) {
		cfg_error(&o->pos, "mmjsonparse: container '%s' is not a $! or $. variable",
			  cfg->container);
		(*n_errors)++;
	}
	if (!strcasecmp(cfg->mode, "find-json"))
		a->find_json = true;
	else if (strcasecmp(cfg->mode, "cookie") != 0) {
		cfg_error(&o->pos, "mmjsonparse: mode '%s' is not known; expected \"cookie\" "
			  "or \"find-json\"", cfg->mode);
		(*n_errors)++;
	}
	if (cfg->max_scan_bytes < 1)
		cfg->max_scan_bytes = 65536;
	char sname[256];
	stats_action_obj_name("mmjsonparse", o, false, sname, sizeof(sname));
	if ((a->stats_obj = stats_obj_create(sname, "mmjsonparse")) != NULL) {
		stats_obj_add(a->stats_obj, "parsed", &a->stats.parsed, STATS_CTR_RESETTABLE);
		stats_obj_add(a->stats_obj, "failed", &a->stats.failed, STATS_CTR_RESETTABLE);
	}
	return a;
}

static void mmjp_act_destroy(void *ap)
{
	struct mmjp_act *a = ap;
	if (!a)
		return;
	stats_obj_destroy(a->stats_obj);
	prop_ref_free(&a->container);
	param_free(&mmjp_table, a->cfg);
	free(a);
}

static void *mmjp_wrk_create(void *ap)
{
	struct mmjp_wrk *w = sl_xcalloc(1, sizeof(*w));
	w->act = ap;
	w->tok = fjson_tokener_new();
	return w;
}

static void mmjp_wrk_destroy(void *wp)
{
	struct mmjp_wrk *w = wp;
	if (!w)
		return;
	if (w->tok)
		fjson_tokener_free(w->tok);
	sbuf_free(&w->scratch);
	free(w);
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Parse exactly one JSON object spanning [p, p+len) (surrounding
 * whitespace allowed). Returns the object or NULL. */
static struct fjson_object *parse_exact(struct fjson_tokener *tok, const char *p, size_t len,
					bool allow_trailing)
{
	while (len && is_ws(*p))
		p++, len--;
	if (!len || *p != '{')
		return NULL;
	fjson_tokener_reset(tok);
	struct fjson_object *o = fjson_tokener_parse_ex(tok, p, (int)len);
	if (!o)
		return NULL;
	size_t used = (size_t)tok->char_offset;
	if (!allow_trailing) {
		for (size_t i = used; i < len; i++) {
			if (!is_ws(p[i])) {
				json_object_put(o);
				return NULL;
			}
		}
	}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* find-json: the end of the JSON object starting at p[0] == '{', found by
 * a scanner that knows strings and escapes; 0 if it does not end. */
static size_t object_extent(const char *p, size_t len)
{
	int depth = 0;
	bool in_str = false;
	for (size_t i = 0; i < len; i++) {
		char c = p[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"')
			in_str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			return i + 1;
	}
	return 0;
}

static enum act_result mmjp_tx_add(void *wp, struct msg *m, const char *rendered, size_t rlen)
{
	(void)rendered;
	(void)rlen;
	struct mmjp_wrk *w = wp;
	struct mmjp_act *a = w->act;
	struct prop_ref r = { a->cfg->use_raw_msg ? PROP_RAWMSG : PROP_MSG, NULL };
	size_t len;
	const char *p = prop_get(m, &r, &len, &w->scratch);
	struct fjson_object *obj = NULL;

	while (len && is_ws(*p))
		p++, len--;
	const char *text = p; /* what {"msg": ...} gets on failure */
	size_t text_len = len;

	if (!a->find_json) {
		if (len >= a->cookie_len && memcmp(p, a->cfg->cookie, a->cookie_len) == 0) {
			text = p + a->cookie_len;
			text_len = len - a->cookie_len;
			obj = parse_exact(w->tok, text, text_len, false);
		}
	} else {
		size_t scan = len < (size_t)a->cfg->max_scan_bytes ? len : (size_t)a->cfg->max_scan_bytes;
		const char *b = memchr(p, '{', scan);
		if (b && b != p && !a->cfg->allow_forward)
			b = NULL; /* leading white space is already skipped */
		while (b && !obj) {
			size_t rest = len - (size_t)(b - p);
			size_t ext = object_extent(b, rest);
			if (ext) {
				obj = parse_exact(w->tok, b, ext, false);
				if (obj && !a->cfg->allow_trailing) {
					for (size_t i = ext; i < rest; i++)
						if (!is_ws(b[i])) {
							json_object_put(obj);
							obj = NULL;
							break;
						}
				}
			}
			if (obj)
				break;
			size_t off = (size_t)(b + 1 - p);
			b = off < scan ? memchr(b + 1, '{', scan - off) : NULL;
		}
	}
	if (obj) {
		m->flags |= MSG_PARSE_OK;
		m->flags &= ~MSG_PARSE_FAILED;
		atomic_fetch_add_explicit(&a->stats.parsed, 1, memory_order_relaxed);
	} else {
		m->flags &= ~MSG_PARSE_OK;
		m->flags |= MSG_PARSE_FAILED;
		atomic_fetch_add_explicit(&a->stats.failed, 1, memory_order_relaxed);
		obj = json_object_new_object();
		if (obj)
			json_object_object_add(obj, "msg", json_object_new_string_len(text, (int)text_len));
	}
	if (!msg_var_merge(m, &a->container, obj))
		return ACT_FAILED;
	return ACT_OK;
}

static const struct output_ops mmjp_output = {
	.act_create = mmjp_act_create,
	.act_destroy = mmjp_act_destroy,
	.wrk_create = mmjp_wrk_create,
	.wrk_destroy = mmjp_wrk_destroy,
	.tx_add = mmjp_tx_add,
	.default_template = "RSYSLOG_FileFormat",
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "mmjsonparse",
	.description = "parse JSON (CEE @cee: or embedded) into $! variables",
	.type = MOD_OUTPUT,
	.flags = MOD_FLAG_MSG_MODIFIER,
	.inst_params = &mmjp_table,
	.output = &mmjp_output,
};
