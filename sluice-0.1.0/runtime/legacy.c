/* legacy.c — rsyslog's legacy `$Directive` lines and legacy action lines,
 * turned into the parameters of the RainerScript objects (see legacy.h
 * for the binding rules).
 *
 * How a directive is found, in this order:
 *   1. the core table below (main queue, action settings, directives that
 *      are accepted with a warning or need code);
 *   2. an alias (PARAM_LEGACY) in glbl_table (global() parameters);
 *   3. an alias in the mod_params, then inst_params, of every module
 *      known so far (module() or $ModLoad before the line).
 * A value is checked at the directive's line against the type of the
 * parameter it sets, then stored under the RainerScript name.
 *
 * Threading: main thread only, while the configuration loads.
 */
#include "legacy.h"
#include "parser.h"
#include "ruleset.h"
#include "input.h"
#include "ast.h"
#include "glbl.h"
#include "log.h"
#include "module.h"
#include "sluice.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- name/value lists ---- */

struct kv {
	char *name;          /* RainerScript name, as it goes into an object */
	char *val;
	struct cfg_pos pos;
	bool alias;          /* the legacy name itself: no RainerScript twin */
};

struct kvlist {
	struct kv *v;
	int n, cap;
};

static void kv_set_alias(struct kvlist *l, const char *name, const char *val,
			 const struct cfg_pos *pos, bool alias)
{
	for (int i = 0; i < l->n; i++) {
		if (strcasecmp(l->v[i].name, name) == 0) {
			free(l->v[i].val);
			l->v[i].val = sl_xstrdup(val);
			l->v[i].pos = *pos;
			l->v[i].alias = alias;
			return;
		}
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = sl_xrealloc(l->v, sizeof(*l->v) * (size_t)l->cap);
	}
	l->v[l->n].name = sl_xstrdup(name);
	l->v[l->n].val = sl_xstrdup(val);
	l->v[l->n].pos = *pos;
	l->v[l->n].alias = alias;
	l->n++;
}

static void kv_set(struct kvlist *l, const char *name, const char *val, const struct cfg_pos *pos)
{
	kv_set_alias(l, name, val, pos, false);
}

static void kv_clear(struct kvlist *l)
{
	for (int i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].val);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static struct cfg_param *obj_find(struct cfg_obj *o, const char *name)
{
	for (struct cfg_param *p = o->params; p; p = p->next)
		if (strcasecmp(p->name, name) == 0)
			return p;
	return NULL;
}

/* Set a parameter of `o` (replacing a value it has). */
static void obj_set(struct cfg_obj *o, const char *name, const char *val, const struct cfg_pos *pos)
{
	struct cfg_param *p = obj_find(o, name);
	if (p) {
		if (p->val.is_array) {
			for (int i = 0; i < p->val.n_arr; i++)
				free(p->val.arr[i]);
			free(p->val.arr);
			p->val.arr = NULL;
			p->val.n_arr = 0;
			p->val.is_array = false;
		}
		free(p->val.str);
		p->val.str = sl_xstrdup(val);
		p->pos = *pos;
		return;
	}
	p = sl_xcalloc(1, sizeof(*p));
	p->name = sl_xstrdup(name);
	for (char *c = p->name; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	p->val.str = sl_xstrdup(val);
	p->pos = *pos;
	struct cfg_param **tail = &o->params;
	while (*tail)
		tail = &(*tail)->next;
	*tail = p;
}

/* Add the entries of `l` that `o` does not have. Returns true if one
 * of them is a legacy name (see legacy.h: the object must then be parsed
 * as CFG_OBJ_LEGACY). */
static bool merge_missing(struct cfg_obj *o, const struct kvlist *l)
{
	bool alias = false;
	for (int i = 0; i < l->n; i++) {
		if (!obj_find(o, l->v[i].name)) {
			obj_set(o, l->v[i].name, l->v[i].val, &l->v[i].pos);
			alias |= l->v[i].alias;
		}
	}
	return alias;
}

/* ---- state ---- */

struct modstate {
	const struct module *m;
	bool explicit_tpl;     /* module() gave template= */
	struct kvlist mod_kv;  /* module() parameters */
	struct kvlist inst_kv; /* input instance defaults */
};

enum ev_scope {
	EV_ACT,        /* action.* / name of legacy actions, kept */
	EV_ACT_RESET,  /* same, reset after every action */
	EV_ACT_MOD,    /* an output module's action-scope alias, kept */
	EV_MOD_TPL,    /* a module's default template (positional) */
};

struct event {
	unsigned seq;
	enum ev_scope scope;
	const struct module *m;
	char *name;
	char *val;
	struct cfg_pos pos;
	bool alias;
};

static struct {
	struct cfg_tree *tree;
	struct modstate *mods;
	int n_mods;
	struct kvlist global_kv;
	struct kvlist mainq_kv;
	struct event *ev;
	int n_ev, cap_ev;
	unsigned *act_seq;     /* seq of every action object, sorted */
	int n_act;
	struct cfg_obj *inputs, *inputs_tail;
	char *default_ruleset;
	struct cfg_pos default_ruleset_pos;
} L;

static struct modstate *modstate(const struct module *m)
{
	for (int i = 0; i < L.n_mods; i++)
		if (L.mods[i].m == m)
			return &L.mods[i];
	return NULL;
}

static void add_event_alias(struct cfg_obj *o, enum ev_scope sc, const struct module *m,
			    const char *name, const char *val, bool alias)
{
	if (L.n_ev == L.cap_ev) {
		L.cap_ev = L.cap_ev ? L.cap_ev * 2 : 32;
		L.ev = sl_xrealloc(L.ev, sizeof(*L.ev) * (size_t)L.cap_ev);
	}
	struct event *e = &L.ev[L.n_ev++];
	e->seq = o->seq;
	e->scope = sc;
	e->m = m;
	e->name = sl_xstrdup(name);
	e->val = sl_xstrdup(val);
	e->pos = o->pos;
	e->alias = alias;
}

static void add_event(struct cfg_obj *o, enum ev_scope sc, const struct module *m,
		      const char *name, const char *val)
{
	add_event_alias(o, sc, m, name, val, false);
}

static void collect_actions(struct script_stmt *s)
{
	for (; s; s = s->next) {
		if (s->type == STMT_ACTION && s->obj) {
			L.act_seq = sl_xrealloc(L.act_seq, sizeof(unsigned) * (size_t)(L.n_act + 1));
			L.act_seq[L.n_act++] = s->obj->seq;
		}
		collect_actions(s->then_);
		collect_actions(s->else_);
	}
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

void legacy_begin(struct cfg_tree *t)
{
	memset(&L, 0, sizeof(L));
	L.tree = t;
	collect_actions(t->script);
	for (struct cfg_obj *o = t->objs; o; o = o->next)
		if (o->type == CFG_OBJ_RULESET)
			collect_actions(o->script);
	if (L.n_act)
		qsort(L.act_seq, (size_t)L.n_act, sizeof(unsigned), cmp_uint);
}

void legacy_module_known(const struct module *m, struct cfg_obj *o)
{
	struct modstate *ms = modstate(m);
	if (!ms) {
		L.mods = sl_xrealloc(L.mods, sizeof(*L.mods) * (size_t)(L.n_mods + 1));
		ms = &L.mods[L.n_mods++];
		memset(ms, 0, sizeof(*ms));
		ms->m = m;
	}
	if (o && obj_find(o, "template"))
		ms->explicit_tpl = true;
}

/* ---- values ---- */

/* The value of a directive: its first word; the rest of the line may only
 * be a comment. `whole` keeps the whole rest of the line. Returns a new
 * string, or NULL after reporting an error. */
static char *directive_value(struct cfg_obj *o, bool whole, int *n_errors)
{
	struct cfg_param *vp = cfg_obj_param(o, "value");
	const char *v = vp && !vp->val.is_array ? vp->val.str : "";
	if (whole)
		return sl_xstrdup(v);
	size_t l = strcspn(v, " \t");
	const char *rest = v + l;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (*rest && *rest != '#') {
		cfg_error(&o->pos, "$%s: extra characters after the value '%.*s': '%s' "
			  "(a legacy directive takes one value)", o->legacy_name, (int)l, v, rest);
		(*n_errors)++;
		return NULL;
	}
	if (l == 0) {
		cfg_error(&o->pos, "$%s needs a value", o->legacy_name);
		(*n_errors)++;
		return NULL;
	}
	return sl_xstrndup(v, l);
}

/* Legacy numbers may carry ',' or '.' as digit group separators
 * ("1,000"), as rsyslog's parseIntVal allows. */
static void strip_separators(char *v)
{
	char *o = v;
	for (char *p = v; *p; p++)
		if (!((*p == ',' || *p == '.') && p > v && isdigit((unsigned char)p[-1]) &&
		      isdigit((unsigned char)p[1])))
			*o++ = *p;
	*o = '\0';
}

/* Check `v` against a parameter type, reporting at the directive. */
static bool check_value(struct cfg_obj *o, enum param_type t, char *v)
{
	char name[160];
	if (t == PARAM_INT || t == PARAM_SIZE)
		strip_separators(v);
	snprintf(name, sizeof(name), "$%s", o->legacy_name);
	struct param_desc d = { name, t, NULL, 0, 0, NULL };
	struct param_table tab = { &d, 1, 64 };
	struct cfg_param p = { .name = name, .pos = o->pos };
	p.val.str = v;
	struct cfg_obj tmp = { .type = CFG_OBJ_LEGACY, .params = &p, .pos = o->pos };
	int errs = 0;
	void *cfg = param_parse(&tab, &tmp, NULL, &errs);
	param_free(&tab, cfg);
	return errs == 0;
}

/* ---- the core directives ---- */

enum core_kind {
	K_MAINQ,        /* main_queue() parameter `target` */
	K_ACTQ,         /* queue.* of the next legacy action (reset after it) */
	K_ACT,          /* action parameter of following legacy actions */
	K_ACT_RESET,    /* action parameter of the next legacy action only */
	K_WARN,         /* accepted; not supported, said once per line */
	K_IGNORE,       /* accepted; no effect in sluice (documented) */
	K_ERROR,        /* a form sluice refuses, with a reason */
	K_RULESET_Q,    /* $RulesetCreateMainQueue */
	K_RESET,        /* $ResetConfigVariables */
	K_DEFAULT_RS,   /* $DefaultRuleset */
	K_MODDIR,       /* $ModDir */
	K_RS_PARSER,    /* $RulesetParser */
};

struct core_dir {
	const char *name;
	enum core_kind kind;
	const char *target;
	enum param_type type;
};

/* The queue directives exist for the main queue ($MainMsgQueue...) and
 * for actions ($ActionQueue...) with the same suffixes. */
static const struct { const char *suffix; const char *param; enum param_type type; } qdirs[] = {
	{ "type", "queue.type", PARAM_WORD },
	{ "size", "queue.size", PARAM_SIZE },
	{ "dequeuebatchsize", "queue.dequeuebatchsize", PARAM_SIZE },
	{ "highwatermark", "queue.highwatermark", PARAM_SIZE },
	{ "lowwatermark", "queue.lowwatermark", PARAM_SIZE },
	{ "discardmark", "queue.discardmark", PARAM_SIZE },
	{ "discardseverity", "queue.discardseverity", PARAM_INT },
	{ "filename", "queue.filename", PARAM_WORD },
	{ "maxfilesize", "queue.maxfilesize", PARAM_SIZE },
	{ "maxdiskspace", "queue.maxdiskspace", PARAM_SIZE },
	{ "workerthreads", "queue.workerthreads", PARAM_INT },
	{ "workerthreadminimummessages", "queue.workerthreadminimummessages", PARAM_SIZE },
	{ "timeoutshutdown", "queue.timeoutshutdown", PARAM_INT },
	{ "timeoutactioncompletion", "queue.timeoutactioncompletion", PARAM_INT },
	{ "timeoutenqueue", "queue.timeoutenqueue", PARAM_INT },
	{ "workertimeoutthreadshutdown", "queue.timeoutworkerthreadshutdown", PARAM_INT },
	{ "saveonshutdown", "queue.saveonshutdown", PARAM_BINARY },
	{ "checkpointinterval", "queue.checkpointinterval", PARAM_INT },
	{ "syncqueuefiles", "queue.syncqueuefiles", PARAM_BINARY },
	{ "dequeueslowdown", "queue.dequeueslowdown", PARAM_INT },
	{ "dequeuetimebegin", "queue.dequeuetimebegin", PARAM_INT },
	{ "dequeuetimeend", "queue.dequeuetimeend", PARAM_INT },
	{ "persistupdcnt", "queue.checkpointinterval", PARAM_INT },
};

static const struct core_dir core_dirs[] = {
	{ "actionresumeinterval", K_ACT, "action.resumeinterval", PARAM_INT },
	{ "actionresumeretrycount", K_ACT_RESET, "action.resumeretrycount", PARAM_INT },
	{ "actionexeconlywhenpreviousissuspended", K_ACT, "action.execonlywhenpreviousissuspended", PARAM_BINARY },
	{ "actionexeconlyonceeveryinterval", K_ACT, "action.execonlyonceeveryinterval", PARAM_INT },
	{ "actionexeconlyeverynthtime", K_ACT_RESET, "action.execonlyeverynthtime", PARAM_INT },
	{ "actionexeconlyeverynthtimetimeout", K_ACT_RESET, "action.execonlyeverynthtimetimeout", PARAM_INT },
	{ "actionwriteallmarkmessages", K_ACT_RESET, "action.writeallmarkmessages", PARAM_BINARY },
	{ "repeatedmsgcontainsoriginalmsg", K_ACT, "action.repeatedmsgcontainsoriginalmsg", PARAM_BINARY },
	{ "actionname", K_ACT_RESET, "name", PARAM_WORD },
	{ "repeatedmsgreduction", K_WARN, "repeated-message reduction (\"last message repeated n times\") is not implemented; messages are written as they come", PARAM_BINARY },
	{ "optimizeforuniprocessor", K_IGNORE, NULL, PARAM_BINARY },
	{ "maxopenfiles", K_IGNORE, NULL, PARAM_INT },
	{ "logrsyslogstatusmessages", K_IGNORE, NULL, PARAM_BINARY },
	{ "debugprintcfsyslinehandlerlist", K_IGNORE, NULL, PARAM_BINARY },
	{ "debugprintmodulelist", K_IGNORE, NULL, PARAM_BINARY },
	{ "debugprinttemplatelist", K_IGNORE, NULL, PARAM_BINARY },
	{ "generateconfiggraph", K_WARN, "configuration graphs are not generated", PARAM_STRING },
	{ "errormessagestostderr", K_IGNORE, NULL, PARAM_BINARY },
	{ "spacelfonreceive", K_WARN, "parser.spaceLFOnReceive is not implemented", PARAM_BINARY },
	{ "dropmsgswithmaliciousdnsptrrecords", K_IGNORE, NULL, PARAM_BINARY },
	{ "allowedsender", K_WARN, "sender ACLs ($AllowedSender) are not implemented; all senders are accepted", PARAM_STRING },
	{ "outchannel", K_ERROR, "output channels ($outchannel) are not supported; use omfile's rotation.sizeLimit", PARAM_STRING },
	{ "rulesetparser", K_RS_PARSER, NULL, PARAM_WORD },
	{ "rulesetcreatemainqueue", K_RULESET_Q, NULL, PARAM_BINARY },
	{ "resetconfigvariables", K_RESET, NULL, PARAM_STRING },
	{ "defaultruleset", K_DEFAULT_RS, NULL, PARAM_WORD },
	{ "moddir", K_MODDIR, NULL, PARAM_STRING },
};

/* Directives of modules sluice does not have and will not have: a clear
 * word instead of "unknown directive". */
static const struct { const char *prefix; const char *module; } foreign_dirs[] = {
	{ "markmessageperiod", "immark" }, { "inputfile", "imfile" }, { "inputrunfilemonitor", "imfile" },
	{ "inputrelp", "imrelp" }, { "omrelp", "omrelp" }, { "actionomprog", "omprog" },
	{ "actionsendstreamdriver", "omfwd (TLS)" }, { "actionforward", "omfwd" },
	{ "actiongssforward", "omgssapi" }, { "actionmysql", "ommysql" }, { "pgsql", "ompgsql" },
	{ "actionsnmp", "omsnmp" }, { "actionuxsock", "omuxsock" }, { "omuxsock", "omuxsock" },
};

static const struct core_dir *core_find(const char *name, struct core_dir *tmp)
{
	for (size_t i = 0; i < SL_ARRAY_SIZE(core_dirs); i++)
		if (!strcmp(core_dirs[i].name, name))
			return &core_dirs[i];
	const char *sfx = NULL;
	enum core_kind k = K_MAINQ;
	if (!strncmp(name, "mainmsgqueue", 12)) {
		sfx = name + 12;
		k = K_MAINQ;
	} else if (!strncmp(name, "actionqueue", 11)) {
		sfx = name + 11;
		k = K_ACTQ;
	}
	if (sfx) {
		for (size_t i = 0; i < SL_ARRAY_SIZE(qdirs); i++) {
			if (!strcmp(qdirs[i].suffix, sfx)) {
				tmp->name = name;
				tmp->kind = k;
				tmp->target = qdirs[i].param;
				tmp->type = qdirs[i].type;
				return tmp;
			}
		}
	}
	return NULL;
}

/* An alias in a table: the PARAM_LEGACY entry of `name` and its twin. */
static const struct param_desc *alias_find(const struct param_table *t, const char *name,
					   const struct param_desc **twin)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		const struct param_desc *d = &t->params[i];
		if (!(d->flags & PARAM_LEGACY) || strcasecmp(d->name, name) != 0)
			continue;
		*twin = NULL;
		for (size_t j = 0; j < t->n; j++) {
			const struct param_desc *e = &t->params[j];
			if (!(e->flags & PARAM_LEGACY) && e->offset == d->offset && e->type == d->type) {
				*twin = e;
				break;
			}
		}
		return d;
	}
	return NULL;
}

/* The ruleset object made by the last `$RuleSet` before `seq`. */
static struct cfg_obj *legacy_ruleset_at(unsigned seq)
{
	struct cfg_obj *best = NULL;
	for (struct cfg_obj *o = L.tree->objs; o; o = o->next)
		if (o->type == CFG_OBJ_RULESET && o->seq < seq && obj_find(o, "legacy"))
			best = o;
	return best;
}

static void do_core(struct cfg_obj *o, const struct core_dir *cd, int *n_errors)
{
	char *v = directive_value(o, cd->kind == K_WARN || cd->kind == K_ERROR ||
				  cd->kind == K_RESET, n_errors);
	if (!v)
		return;
	switch (cd->kind) {
	case K_MAINQ:
	case K_ACTQ:
	case K_ACT:
	case K_ACT_RESET:
		if (!check_value(o, cd->type, v)) {
			(*n_errors)++;
			break;
		}
		if (cd->kind == K_MAINQ)
			kv_set(&L.mainq_kv, cd->target, v, &o->pos);
		else
			add_event(o, cd->kind == K_ACT ? EV_ACT : EV_ACT_RESET, NULL, cd->target, v);
		break;
	case K_WARN:
		cfg_warn(&o->pos, "$%s is accepted but has no effect: %s", o->legacy_name, cd->target);
		break;
	case K_IGNORE:
		if (!check_value(o, cd->type, v))
			(*n_errors)++;
		else
			sl_dbg("%s:%d: $%s has no effect in sluice", o->pos.file, o->pos.line,
			       o->legacy_name);
		break;
	case K_ERROR:
		cfg_error(&o->pos, "$%s: %s", o->legacy_name, cd->target);
		(*n_errors)++;
		break;
	case K_RULESET_Q: {
		bool on = false;
		if (!check_value(o, PARAM_BINARY, v)) {
			(*n_errors)++;
			break;
		}
		param_value_bool(v, &on);
		struct cfg_obj *rs = legacy_ruleset_at(o->seq);
		if (!rs) {
			cfg_error(&o->pos, "$RulesetCreateMainQueue must follow a $RuleSet line "
				  "(the default ruleset always uses the main queue)");
			(*n_errors)++;
		} else if (on) {
			/* rsyslog gives the ruleset a queue with the main queue's
			 * legacy settings; queue.type makes conf.c create it. */
			for (int i = 0; i < L.mainq_kv.n; i++)
				obj_set(rs, L.mainq_kv.v[i].name, L.mainq_kv.v[i].val, &o->pos);
			if (!obj_find(rs, "queue.type"))
				obj_set(rs, "queue.type", "FixedArray", &o->pos);
		}
		break;
	}
	case K_RS_PARSER: {
		/* rsyslog's rulesetAddParser: appended to the chain of the
		 * current ruleset (the last $RuleSet, else the default one);
		 * the parser must be known at this line. */
		struct cfg_obj *ro = legacy_ruleset_at(o->seq);
		struct cfg_param *np = ro ? obj_find(ro, "name") : NULL;
		struct ruleset *rs;
		if (np && np->val.str) {
			rs = ruleset_lookup(np->val.str);
			if (!rs)
				rs = ruleset_create(np->val.str);
		} else {
			rs = ruleset_default();
		}
		if (!parser_chain_add(&rs->parsers, v, &o->pos))
			(*n_errors)++;
		break;
	}
	case K_DEFAULT_RS:
		free(L.default_ruleset);
		L.default_ruleset = sl_xstrdup(v);
		L.default_ruleset_pos = o->pos;
		break;
	case K_MODDIR:
		module_set_dir(v);
		break;
	case K_RESET:
		/* Back to the defaults: drop what earlier lines set for later
		 * objects (module() settings already given stay, as in rsyslog
		 * where modules read them at load). */
		for (int i = 0; i < L.n_mods; i++)
			kv_clear(&L.mods[i].inst_kv);
		add_event(o, EV_ACT, NULL, "", "");
		break;
	}
	free(v);
}

static void make_input(struct cfg_obj *o, struct modstate *ms, const char *pname,
		       const char *v)
{
	struct cfg_obj *in = sl_xcalloc(1, sizeof(*in));
	/* CFG_OBJ_LEGACY: param_parse accepts legacy names on it (those
	 * without a twin); "type" names the module, as for input(). */
	in->type = CFG_OBJ_LEGACY;
	in->pos = o->pos;
	in->seq = o->seq;
	obj_set(in, "type", ms->m->name, &o->pos);
	for (int i = 0; i < ms->inst_kv.n; i++)
		obj_set(in, ms->inst_kv.v[i].name, ms->inst_kv.v[i].val, &ms->inst_kv.v[i].pos);
	obj_set(in, pname, v, &o->pos);
	/* $DefaultRuleset applies to legacy inputs without a binding. */
	const struct param_desc *rtwin = NULL;
	for (size_t i = 0; ms->m->inst_params && i < ms->m->inst_params->n; i++)
		if (!strcasecmp(ms->m->inst_params->params[i].name, "ruleset"))
			rtwin = &ms->m->inst_params->params[i];
	if (rtwin && L.default_ruleset && !obj_find(in, "ruleset"))
		obj_set(in, "ruleset", L.default_ruleset, &L.default_ruleset_pos);
	if (L.inputs_tail)
		L.inputs_tail->next = in;
	else
		L.inputs = in;
	L.inputs_tail = in;
}

/* Does the alias create an input? PARAM_LEGACY_RUN says so; the names
 * rsyslog uses for it are recognised too, so a table that only sets
 * PARAM_LEGACY still works. */
static bool is_run_directive(const struct param_desc *d)
{
	size_t l = strlen(d->name);
	return (d->flags & PARAM_LEGACY_RUN) ||
	       (l > 9 && !strcasecmp(d->name + l - 9, "serverrun")) ||
	       !strcasecmp(d->name, "addunixlistensocket");
}

void legacy_directive(struct cfg_obj *o, int *n_errors)
{
	const char *name = o->legacy_name;
	struct core_dir tmp;
	const struct core_dir *cd = core_find(name, &tmp);
	if (cd) {
		do_core(o, cd, n_errors);
		return;
	}

	const struct param_desc *twin = NULL, *d;
	if ((d = alias_find(&glbl_table, name, &twin)) != NULL) {
		char *v = directive_value(o, false, n_errors);
		if (!v)
			return;
		if (!check_value(o, d->type, v))
			(*n_errors)++;
		else
			kv_set(&L.global_kv, twin ? twin->name : d->name, v, &o->pos);
		free(v);
		return;
	}

	for (int i = 0; i < L.n_mods; i++) {
		struct modstate *ms = &L.mods[i];
		const struct module *m = ms->m;
		bool inst = false;
		d = alias_find(m->mod_params, name, &twin);
		if (!d) {
			d = alias_find(m->inst_params, name, &twin);
			inst = true;
		}
		if (!d)
			continue;
		/* Without a RainerScript twin the legacy name itself is used. */
		const char *pname = twin ? twin->name : d->name;
		bool alias = twin == NULL;
		char *v = directive_value(o, false, n_errors);
		if (!v)
			return;
		if (!check_value(o, d->type, v)) {
			(*n_errors)++;
		} else if (!inst) {
			if (!strcasecmp(pname, "template") && (m->type & MOD_OUTPUT))
				add_event(o, EV_MOD_TPL, m, pname, v);
			else
				kv_set_alias(&ms->mod_kv, pname, v, &o->pos, alias);
		} else if (is_run_directive(d)) {
			make_input(o, ms, pname, v);
		} else if (m->type & MOD_INPUT) {
			kv_set_alias(&ms->inst_kv, pname, v, &o->pos, alias);
		} else {
			add_event_alias(o, EV_ACT_MOD, m, pname, v, alias);
		}
		free(v);
		return;
	}

	for (size_t i = 0; i < SL_ARRAY_SIZE(foreign_dirs); i++) {
		if (!strncmp(name, foreign_dirs[i].prefix, strlen(foreign_dirs[i].prefix))) {
			cfg_error(&o->pos, "legacy directive $%s belongs to module %s, which sluice "
				  "does not have", name, foreign_dirs[i].module);
			(*n_errors)++;
			return;
		}
	}
	cfg_error(&o->pos, "invalid or yet-unknown config file command '$%s' - have you "
		  "forgotten to load a module?", name);
	(*n_errors)++;
}

/* ---- merging into objects ---- */

void legacy_merge_global(struct cfg_obj *o)
{
	merge_missing(o, &L.global_kv);
}

void legacy_merge_main_queue(struct cfg_obj *o)
{
	merge_missing(o, &L.mainq_kv);
}

bool legacy_have_main_queue(void)
{
	return L.mainq_kv.n > 0;
}

bool legacy_merge_module(const struct module *m, struct cfg_obj *o)
{
	struct modstate *ms = modstate(m);
	return ms ? merge_missing(o, &ms->mod_kv) : false;
}

const char *legacy_default_ruleset(void)
{
	return L.default_ruleset;
}

struct cfg_obj *legacy_inputs(void)
{
	return L.inputs;
}

/* ---- legacy action lines ---- */

static char *trim_dup(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return sl_xstrndup(s, n);
}

/* "text;Template": splits off the template name into param template. */
static char *split_template(struct cfg_obj *o, const char *text)
{
	const char *semi = strchr(text, ';');
	if (!semi)
		return trim_dup(text, strlen(text));
	char *tpl = trim_dup(semi + 1, strlen(semi + 1));
	if (*tpl)
		obj_set(o, "template", tpl, &o->pos);
	free(tpl);
	return trim_dup(text, (size_t)(semi - text));
}

static bool parse_fwd(struct cfg_obj *o, const char *p, int *n_errors)
{
	bool tcp = false;
	p++;
	if (*p == '@') {
		tcp = true;
		p++;
	}
	obj_set(o, "protocol", tcp ? "tcp" : "udp", &o->pos);
	if (*p == '(') {
		const char *close = strchr(p, ')');
		if (!close) {
			cfg_error(&o->pos, "legacy forwarding action: '(' of the options is not closed");
			(*n_errors)++;
			return false;
		}
		char *opts = sl_xstrndup(p + 1, (size_t)(close - p - 1));
		char *save = NULL;
		for (char *t = strtok_r(opts, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			while (*t == ' ')
				t++;
			if (t[0] == 'z' && isdigit((unsigned char)t[1]) && t[2] == '\0') {
				char lvl[2] = { t[1], 0 };
				obj_set(o, "ziplevel", lvl, &o->pos);
			} else if (!strcmp(t, "o")) {
				if (tcp)
					obj_set(o, "tcp_framing", "octet-counted", &o->pos);
				else
					cfg_warn(&o->pos, "option 'o' (octet-counted framing) applies to "
						 "TCP (@@) only; ignored");
			} else {
				cfg_error(&o->pos, "legacy forwarding action: unknown option '%s' "
					  "(known: o, z0..z9)", t);
				(*n_errors)++;
				free(opts);
				return false;
			}
		}
		free(opts);
		p = close + 1;
	}
	char *rest = split_template(o, p);
	char *host, *port = NULL;
	if (rest[0] == '[') {
		char *rb = strchr(rest, ']');
		if (!rb) {
			cfg_error(&o->pos, "legacy forwarding action: IPv6 address '[' is not closed");
			(*n_errors)++;
			free(rest);
			return false;
		}
		host = sl_xstrndup(rest + 1, (size_t)(rb - rest - 1));
		if (rb[1] == ':')
			port = sl_xstrdup(rb + 2);
	} else {
		char *colon = strchr(rest, ':');
		host = colon ? sl_xstrndup(rest, (size_t)(colon - rest)) : sl_xstrdup(rest);
		if (colon)
			port = sl_xstrdup(colon + 1);
	}
	bool ok = true;
	if (!*host) {
		cfg_error(&o->pos, "legacy forwarding action '%s' names no host", rest);
		ok = false;
	} else if (port && (!*port || strspn(port, "0123456789") != strlen(port))) {
		cfg_error(&o->pos, "legacy forwarding action: port '%s' is not a number", port);
		ok = false;
	}
	if (ok) {
		obj_set(o, "target", host, &o->pos);
		if (port)
			obj_set(o, "port", port, &o->pos);
	} else {
		(*n_errors)++;
	}
	free(host);
	free(port);
	free(rest);
	return ok;
}

const char *legacy_action_to_params(struct cfg_obj *o, bool *discard, int *n_errors)
{
	struct cfg_param *lp = obj_find(o, "legacy");
	const char *text = lp && !lp->val.is_array ? lp->val.str : "";
	const char *mod = NULL;
	*discard = false;
	while (*text == ' ' || *text == '\t')
		text++;
	if (!strcmp(text, "~")) {
		*discard = true;
		return NULL;
	}
	char *owned = sl_xstrdup(text); /* `text` goes away with the param */
	const char *t = owned;
	bool nosync = false;
	if (t[0] == '-' && (t[1] == '/' || t[1] == '?')) {
		nosync = true;
		t++;
	}
	if (t[0] == '/' || t[0] == '?') {
		char *path = split_template(o, t + (t[0] == '?'));
		if (!*path) {
			cfg_error(&o->pos, "legacy file action '%s' names no file", owned);
			(*n_errors)++;
		} else {
			obj_set(o, t[0] == '?' ? "dynafile" : "file", path, &o->pos);
			if (nosync)
				obj_set(o, "sync", "off", &o->pos);
			mod = "omfile";
		}
		free(path);
	} else if (t[0] == '@') {
		if (parse_fwd(o, t, n_errors))
			mod = "omfwd";
	} else if (t[0] == ':') {
		const char *c2 = strchr(t + 1, ':');
		char *mname = sl_xstrndup(t + 1, c2 ? (size_t)(c2 - t - 1) : strlen(t + 1));
		if (!c2 || !*mname) {
			cfg_error(&o->pos, "legacy action '%s': expected ':module:parameters'", owned);
			(*n_errors)++;
		} else if (!strcasecmp(mname, "omusrmsg")) {
			char *users = split_template(o, c2 + 1);
			obj_set(o, "users", users, &o->pos);
			free(users);
			mod = "omusrmsg";
		} else if (!strcasecmp(mname, "omfile") || !strcasecmp(mname, "omfwd")) {
			cfg_error(&o->pos, "legacy action ':%s:' is not valid: write the file or "
				  "host directly (/path, @host), or use action(type=\"%s\" ...)",
				  mname, mname);
			(*n_errors)++;
		} else {
			cfg_error(&o->pos, "the legacy action syntax of module '%s' (':%s:...') is "
				  "not supported; use action(type=\"%s\" ...)", mname, mname, mname);
			(*n_errors)++;
		}
		free(mname);
	} else if (t[0] == '*' && (t[1] == '\0' || t[1] == ';')) {
		char *rest = split_template(o, t);
		free(rest);
		obj_set(o, "users", "*", &o->pos);
		mod = "omusrmsg";
	} else if (isalnum((unsigned char)t[0]) || t[0] == '_') {
		char *users = split_template(o, t);
		obj_set(o, "users", users, &o->pos);
		free(users);
		mod = "omusrmsg";
	} else if (t[0] == '|') {
		cfg_error(&o->pos, "legacy pipe action '%s': named pipes (ompipe) are not "
			  "supported by sluice and not planned; write to a file or use omfwd", owned);
		(*n_errors)++;
	} else if (t[0] == '^') {
		cfg_error(&o->pos, "legacy program action '%s' (shell execute) was removed in "
			  "rsyslog 8 and is not supported", owned);
		(*n_errors)++;
	} else if (t[0] == '>') {
		cfg_error(&o->pos, "legacy database action '%s' (ommysql) is not supported "
			  "by sluice", owned);
		(*n_errors)++;
	} else {
		cfg_error(&o->pos, "legacy action '%s' is not understood (expected /file, "
			  "-/file, ?DynaFile, @host, @@host, :omusrmsg:users, *, a user list or ~)",
			  owned);
		(*n_errors)++;
	}
	free(owned);
	if (!mod)
		return NULL;
	/* The legacy line is now an action(); drop the "legacy" param. */
	for (struct cfg_param **pp = &o->params; *pp; pp = &(*pp)->next) {
		if (*pp == lp) {
			*pp = lp->next;
			lp->next = NULL;
			cfg_param_free(lp);
			break;
		}
	}
	obj_set(o, "type", mod, &o->pos);
	return mod;
}

/* Replay the directives before `seq` (resetting the per-action ones at
 * every action before it) into `act` (action settings) and the module's
 * action-scope list. */
static void replay(unsigned seq, const struct module *m, struct kvlist *act,
		   struct kvlist *modact, struct kvlist *tpl)
{
	int ai = 0;
	struct kvlist reset = { 0 };
	for (int i = 0; i < L.n_ev && L.ev[i].seq < seq; i++) {
		const struct event *e = &L.ev[i];
		while (ai < L.n_act && L.act_seq[ai] < e->seq) {
			kv_clear(&reset);
			ai++;
		}
		if (!e->name[0]) { /* $ResetConfigVariables */
			kv_clear(act);
			kv_clear(&reset);
			kv_clear(modact);
			kv_clear(tpl);
			continue;
		}
		switch (e->scope) {
		case EV_ACT:
			kv_set(act, e->name, e->val, &e->pos);
			break;
		case EV_ACT_RESET:
			kv_set(&reset, e->name, e->val, &e->pos);
			break;
		case EV_ACT_MOD:
			if (e->m == m)
				kv_set_alias(modact, e->name, e->val, &e->pos, e->alias);
			break;
		case EV_MOD_TPL:
			if (e->m == m)
				kv_set(tpl, e->name, e->val, &e->pos);
			break;
		}
	}
	while (ai < L.n_act && L.act_seq[ai] < seq) {
		kv_clear(&reset);
		ai++;
	}
	for (int i = 0; i < reset.n; i++)
		kv_set(act, reset.v[i].name, reset.v[i].val, &reset.v[i].pos);
	kv_clear(&reset);
}

bool legacy_prepare_action(struct cfg_obj *o, int *n_errors)
{
	bool alias = false;
	bool is_legacy = obj_find(o, "legacy") != NULL;
	const char *modname = NULL;
	if (is_legacy) {
		bool discard = false;
		modname = legacy_action_to_params(o, &discard, n_errors);
		if (!modname)
			return false; /* "~" stays a legacy line; errors are reported */
	} else {
		struct cfg_param *tp = obj_find(o, "type");
		if (!tp || tp->val.is_array)
			return false;
		modname = tp->val.str;
	}
	/* Only modules already known can have settings; module_find here
	 * would report a missing module twice. */
	const struct module *m = NULL;
	for (int i = 0; i < L.n_mods; i++) {
		const char *n = L.mods[i].m->name;
		const char *b = modname;
		if (!strncasecmp(b, "builtin:", 8))
			b += 8;
		if (!strcasecmp(n, b))
			m = L.mods[i].m;
	}
	struct kvlist act = { 0 }, modact = { 0 }, tpl = { 0 };
	replay(o->seq, m, &act, &modact, &tpl);
	struct modstate *ms = m ? modstate(m) : NULL;
	if (ms && !ms->explicit_tpl)
		merge_missing(o, &tpl);
	if (is_legacy) {
		/* the line's own parameters (file, template, sync) win */
		alias = merge_missing(o, &modact);
		merge_missing(o, &act);
	}
	kv_clear(&act);
	kv_clear(&modact);
	kv_clear(&tpl);
	return alias;
}

void legacy_end(void)
{
	for (int i = 0; i < L.n_mods; i++) {
		kv_clear(&L.mods[i].mod_kv);
		kv_clear(&L.mods[i].inst_kv);
	}
	free(L.mods);
	kv_clear(&L.global_kv);
	kv_clear(&L.mainq_kv);
	for (int i = 0; i < L.n_ev; i++) {
		free(L.ev[i].name);
		free(L.ev[i].val);
	}
	free(L.ev);
	free(L.act_seq);
	cfg_obj_free(L.inputs);
	free(L.default_ruleset);
	memset(&L, 0, sizeof(L));
}
