/* mmpstrucdata.c — RFC5424 structured data as fields (rsyslog's
 * mmpstrucdata): [id p="v" ...] elements become
 * $!rfc5424-sd!<id>!<p> = "v", with the escapes \" \\ \] undone and, by
 * default, the element and parameter names lower-cased.
 *
 * Threading: a message modifier (MOD_FLAG_MSG_MODIFIER): tx_add runs on
 * the worker thread that runs the ruleset on the message.
 */
#include "sluice.h"
#include "module.h"
#include "msg.h"
#include "msgvar.h"
#include "prop.h"
#include "ast.h"

#include <ctype.h>
#include <stdio.h>
#include <json.h>
#include <stdlib.h>
#include <string.h>

struct mmp_cfg {
	char *json_root;
	bool lowercase;
};

static const struct param_desc mmp_params[] = {
	{ "jsonRoot", PARAM_STRING, "!", 0, offsetof(struct mmp_cfg, json_root),
	  "where rfc5424-sd goes: \"!\" = $!, \"!a\" = $!a, \".x\" = $.x" },
	{ "sd_name.lowercase", PARAM_BINARY, "on", 0, offsetof(struct mmp_cfg, lowercase),
	  "lower-case element and parameter names" },
};
static const struct param_table mmp_table = PARAM_TABLE(mmp_params, struct mmp_cfg);

struct mmp_act {
	struct mmp_cfg *cfg;
	struct prop_ref root;
};

struct mmp_wrk {
	struct mmp_act *act;
	struct sbuf val;
};

static void *mmp_act_create(void *cfgp, struct cfg_obj *o, int *n_errors)
{
	struct mmp_cfg *cfg = cfgp;
	struct mmp_act *a = sl_xcalloc(1, sizeof(*a));
	a->cfg = cfg;
	char name[512];
	snprintf(name, sizeof(name), "$%s", cfg->json_root);
	if (!msg_var_container_ok(name, &a->root)) {
		cfg_error(&o->pos, "mmpstrucdata: jsonRoot '%s' is not a $! or $. path", cfg->json_root);
		(*n_errors)++;
	}
	return a;
}

static void mmp_act_destroy(void *ap)
{
	struct mmp_act *a = ap;
	if (!a)
		return;
	prop_ref_free(&a->root);
	param_free(&mmp_table, a->cfg);
	free(a);
}

static void *mmp_wrk_create(void *ap)
{
	struct mmp_wrk *w = sl_xcalloc(1, sizeof(*w));
	w->act = ap;
	return w;
}

static void mmp_wrk_destroy(void *wp)
{
	struct mmp_wrk *w = wp;
	if (!w)
		return;
	sbuf_free(&w->val);
	free(w);
}

static void key_of(const char *p, size_t n, bool lower, char *out, size_t size)
{
	if (n >= size)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = lower ? (char)tolower((unsigned char)p[i]) : p[i];
	out[n] = '\0';
}

/* Parse the SD text; returns the {"id": {"p": "v"}} object, or NULL if
 * the text is not well-formed SD anywhere (rsyslog then sets no field at
 * all, and neither do we). */
static struct fjson_object *parse_sd(const char *p, size_t len, bool lower, struct sbuf *sb)
{
	struct fjson_object *all = json_object_new_object();
	size_t i = 0;
	char key[256];
	if (!all)
		return NULL;
	while (i < len) {
		if (p[i] != '[')
			goto fail;
		i++;
		size_t s = i;
		while (i < len && p[i] != ' ' && p[i] != ']' && p[i] != '=' && p[i] != '"')
			i++;
		if (i >= len || i == s || p[i] == '=' || p[i] == '"')
			goto fail;
		struct fjson_object *elem = json_object_new_object();
		key_of(p + s, i - s, lower, key, sizeof(key));
		json_object_object_add(all, key, elem);
		while (i < len && p[i] == ' ') {
			i++;
			s = i;
			while (i < len && p[i] != '=' && p[i] != ' ' && p[i] != ']' && p[i] != '"')
				i++;
			if (i >= len || p[i] != '=' || i == s)
				goto fail;
			key_of(p + s, i - s, lower, key, sizeof(key));
			i++;
			if (i >= len || p[i] != '"')
				goto fail;
			i++;
			sbuf_reset(sb);
			while (i < len && p[i] != '"') {
				if (p[i] == '\\' && i + 1 < len &&
				    (p[i + 1] == '"' || p[i + 1] == '\\' || p[i + 1] == ']'))
					i++;
				sbuf_putc(sb, p[i]);
				i++;
			}
			if (i >= len)
				goto fail; /* unterminated value */
			i++; /* closing quote */
			json_object_object_add(elem, key,
					       json_object_new_string_len(sb->buf ? sb->buf : "", (int)sb->len));
		}
		if (i >= len || p[i] != ']')
			goto fail;
		i++;
	}
	return all;
fail:
	json_object_put(all);
	return NULL;
}

static enum act_result mmp_tx_add(void *wp, struct msg *m, const char *rendered, size_t rlen)
{
	(void)rendered;
	(void)rlen;
	struct mmp_wrk *w = wp;
	struct mmp_act *a = w->act;
	if (m->protocol_version != 1 || m->sd.len == 0)
		return ACT_OK;
	const char *p = msg_span_ptr(m, m->sd);
	if (p[0] != '[')
		return ACT_OK; /* "-": no structured data */
	struct fjson_object *sd = parse_sd(p, m->sd.len, a->cfg->lowercase, &w->val);
	if (!sd)
		return ACT_OK; /* malformed: no fields, as rsyslog */
	struct fjson_object *wrap = json_object_new_object();
	if (!wrap) {
		json_object_put(sd);
		return ACT_FAILED;
	}
	json_object_object_add(wrap, "rfc5424-sd", sd);
	return msg_var_merge(m, &a->root, wrap) ? ACT_OK : ACT_FAILED;
}

static const struct output_ops mmp_output = {
	.act_create = mmp_act_create,
	.act_destroy = mmp_act_destroy,
	.wrk_create = mmp_wrk_create,
	.wrk_destroy = mmp_wrk_destroy,
	.tx_add = mmp_tx_add,
	.default_template = "RSYSLOG_FileFormat",
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "mmpstrucdata",
	.description = "RFC5424 structured data as $!rfc5424-sd fields",
	.type = MOD_OUTPUT,
	.flags = MOD_FLAG_MSG_MODIFIER,
	.inst_params = &mmp_table,
	.output = &mmp_output,
};
