/* mmnormalize.c — normalizes free-text messages into fields with a
 * liblognorm (v2) rulebase, as rsyslog's mmnormalize: the fields land in
 * $! (or `path`), $parsesuccess tells whether a rule matched. When no rule
 * matches, liblognorm's own description of the failure (originalmsg,
 * unparsed-data) is merged instead, exactly as rsyslog does.
 *
 * Threading: a message modifier (MOD_FLAG_MSG_MODIFIER): tx_add runs on
 * the worker thread that runs the ruleset on the message. The liblognorm
 * context is built at load and only read afterwards (ln_normalize does
 * not modify it), so workers share it without a lock.
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
#include <liblognorm.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mmn_cfg {
	char *rulebase;
	struct param_array rule;
	bool use_raw_msg;
	char *path;
	char *variable;
};

static const struct param_desc mmn_params[] = {
	{ "ruleBase", PARAM_STRING, NULL, 0, offsetof(struct mmn_cfg, rulebase),
	  "liblognorm rulebase file" },
	{ "rule", PARAM_ARRAY, NULL, 0, offsetof(struct mmn_cfg, rule),
	  "rulebase lines given inline (instead of ruleBase)" },
	{ "useRawMsg", PARAM_BINARY, "off", 0, offsetof(struct mmn_cfg, use_raw_msg),
	  "normalize rawmsg instead of msg" },
	{ "path", PARAM_STRING, "$!", 0, offsetof(struct mmn_cfg, path),
	  "variable that receives the fields ($!, $!path or $.path)" },
	{ "variable", PARAM_STRING, NULL, 0, offsetof(struct mmn_cfg, variable),
	  "normalize this property or variable instead of msg" },
	{ "$mmnormalizerulebase", PARAM_STRING, NULL, PARAM_LEGACY, offsetof(struct mmn_cfg, rulebase),
	  "legacy name of ruleBase" },
	{ "$mmnormalizeuserawmsg", PARAM_BINARY, "off", PARAM_LEGACY, offsetof(struct mmn_cfg, use_raw_msg),
	  "legacy name of useRawMsg" },
};
static const struct param_table mmn_table = PARAM_TABLE(mmn_params, struct mmn_cfg);

struct mmn_act {
	struct mmn_cfg *cfg;
	ln_ctx ctx;
	struct prop_ref path;
	struct prop_ref input;   /* what is normalized */
	atomic_uint_fast64_t parsed, failed;
	struct stats_obj *stats_obj; /* "mmnormalize(ACTION)": parsed failed */
};

struct mmn_wrk {
	struct mmn_act *act;
	struct sbuf scratch;
};

struct load_err {
	const struct cfg_pos *pos;
	const char *what;
	int n;
};

/* liblognorm 2.0.6 does not hand the cookie back to the callback, so the
 * rulebase being loaded is remembered here (config load: main thread). */
static struct load_err *loading;

static void ln_err_cb(void *cookie, const char *msg, size_t len)
{
	(void)cookie;
	struct load_err *e = loading;
	if (!e)
		return;
	/* liblognorm names the rulebase file and line in its message */
	cfg_error(e->pos, "mmnormalize: rulebase %s: %.*s", e->what, (int)len, msg);
	e->n++;
}

static void *mmn_act_create(void *cfgp, struct cfg_obj *o, int *n_errors)
{
	struct mmn_cfg *cfg = cfgp;
	struct mmn_act *a = sl_xcalloc(1, sizeof(*a));
	a->cfg = cfg;
	a->input.id = cfg->use_raw_msg ? PROP_RAWMSG : PROP_MSG;
	if (!msg_var_container_ok(cfg->path, &a->path)) {
		cfg_error(&o->pos, "mmnormalize: path '%s' is not a $! or $. variable", cfg->path);
		(*n_errors)++;
	}
	if (cfg->variable) {
		prop_ref_free(&a->input);
		if (!prop_ref_parse(cfg->variable, strlen(cfg->variable), &a->input)) {
			cfg_error(&o->pos, "mmnormalize: variable '%s' is not a property or variable",
				  cfg->variable);
			(*n_errors)++;
		}
	}
	if ((cfg->rulebase == NULL) == (cfg->rule.n == 0)) {
		cfg_error(&o->pos, "mmnormalize: give exactly one of ruleBase= and rule=");
		(*n_errors)++;
		return a;
	}
	a->ctx = ln_initCtx();
	if (!a->ctx) {
		cfg_error(&o->pos, "mmnormalize: cannot initialise liblognorm");
		(*n_errors)++;
		return a;
	}
	struct load_err le = { &o->pos, cfg->rulebase ? cfg->rulebase : "(rule=)", 0 };
	loading = &le;
	ln_setErrMsgCB(a->ctx, ln_err_cb, &le);
	int rc;
	if (cfg->rulebase) {
		rc = ln_loadSamples(a->ctx, cfg->rulebase);
	} else {
		/* ln_loadSamplesFromString takes v2 rules without a version line */
		struct sbuf sb = SBUF_INIT;
		for (int i = 0; i < cfg->rule.n; i++) {
			sbuf_puts(&sb, cfg->rule.v[i]);
			sbuf_putc(&sb, '\n');
		}
		sbuf_cstr(&sb);
		rc = ln_loadSamplesFromString(a->ctx, sb.buf);
		sbuf_free(&sb);
	}
	ln_setErrMsgCB(a->ctx, NULL, NULL);
	loading = NULL;
	if (rc != 0 || le.n) {
		if (!le.n)
			cfg_error(&o->pos, "mmnormalize: rulebase %s could not be loaded", le.what);
		(*n_errors)++;
	}
	char sname[256];
	stats_action_obj_name("mmnormalize", o, false, sname, sizeof(sname));
	if ((a->stats_obj = stats_obj_create(sname, "mmnormalize")) != NULL) {
		stats_obj_add(a->stats_obj, "parsed", &a->parsed, STATS_CTR_RESETTABLE);
		stats_obj_add(a->stats_obj, "failed", &a->failed, STATS_CTR_RESETTABLE);
	}
	return a;
}

static void mmn_act_destroy(void *ap)
{
	struct mmn_act *a = ap;
	if (!a)
		return;
	stats_obj_destroy(a->stats_obj);
	if (a->ctx)
		ln_exitCtx(a->ctx);
	prop_ref_free(&a->path);
	prop_ref_free(&a->input);
	param_free(&mmn_table, a->cfg);
	free(a);
}

static void *mmn_wrk_create(void *ap)
{
	struct mmn_wrk *w = sl_xcalloc(1, sizeof(*w));
	w->act = ap;
	return w;
}

static void mmn_wrk_destroy(void *wp)
{
	struct mmn_wrk *w = wp;
	if (!w)
		return;
	sbuf_free(&w->scratch);
	free(w);
}

static enum act_result mmn_tx_add(void *wp, struct msg *m, const char *rendered, size_t rlen)
{
	(void)rendered;
	(void)rlen;
	struct mmn_wrk *w = wp;
	struct mmn_act *a = w->act;
	size_t len;
	const char *p = prop_get(m, &a->input, &len, &w->scratch);
	struct json_object *json = NULL;
	int rc = ln_normalize(a->ctx, p, len, &json);
	if (rc == 0) {
		m->flags |= MSG_PARSE_OK;
		m->flags &= ~MSG_PARSE_FAILED;
		atomic_fetch_add_explicit(&a->parsed, 1, memory_order_relaxed);
	} else {
		m->flags &= ~MSG_PARSE_OK;
		m->flags |= MSG_PARSE_FAILED;
		atomic_fetch_add_explicit(&a->failed, 1, memory_order_relaxed);
	}
	if (json && !msg_var_merge(m, &a->path, json))
		return ACT_FAILED;
	return ACT_OK;
}

static const struct output_ops mmn_output = {
	.act_create = mmn_act_create,
	.act_destroy = mmn_act_destroy,
	.wrk_create = mmn_wrk_create,
	.wrk_destroy = mmn_wrk_destroy,
	.tx_add = mmn_tx_add,
	.default_template = "RSYSLOG_FileFormat",
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "mmnormalize",
	.description = "normalize messages into fields with a liblognorm rulebase",
	.type = MOD_OUTPUT,
	.flags = MOD_FLAG_MSG_MODIFIER,
	.inst_params = &mmn_table,
	.output = &mmn_output,
};
