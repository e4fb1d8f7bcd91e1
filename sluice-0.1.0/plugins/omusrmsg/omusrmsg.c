/* omusrmsg.c — write messages to the terminals of logged-in users, as
 * syslogd and rsyslog's omusrmsg do: `:omusrmsg:*` (everybody, "wall"),
 * `:omusrmsg:root,bob` or action(type="omusrmsg" users="root,bob").
 *
 * For each message the utmp database is read (getutxent); every
 * USER_PROCESS entry whose user is wanted gets the message written to its
 * terminal /dev/<ut_line>, opened non-blocking so that a stopped terminal
 * (^S) cannot block the daemon; a terminal that does not take the whole
 * message loses the rest, as in rsyslog. Default templates are rsyslog's
 * " StdUsrMsgFmt" for user lists and " WallFmt" for "*".
 *
 * Threading: the utmp API keeps global state, so the module is
 * MOD_FLAG_SINGLE_WORKER and, in addition, takes a process-wide mutex
 * around the utmp scan (two omusrmsg actions may run on two threads).
 */
#include "sluice.h"
#include "module.h"
#include "msg.h"
#include "log.h"
#include "ast.h"
#include "sbuf.h"
#include "template.h"

#include <errno.h>
#include <fcntl.h>
#include <paths.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utmpx.h>

#define MAX_USERS 256

struct usr_cfg {
	char *users;
	char *tpl;
	char *utmp_file;
};

#define AOFF(f) offsetof(struct usr_cfg, f)
static const struct param_desc usr_params[] = {
	{ "users", PARAM_STRING, NULL, PARAM_REQUIRED, AOFF(users), "\"*\" for all logged-in users, or a comma-separated list of user names" },
	{ "template", PARAM_TEMPLATE, NULL, 0, AOFF(tpl), "template (default \" StdUsrMsgFmt\", \" WallFmt\" for \"*\")" },
	{ "utmp.file", PARAM_STRING, NULL, 0, AOFF(utmp_file), "sluice (for tests): utmp file to read instead of the system's" },
};
static const struct param_table usr_table = PARAM_TABLE(usr_params, struct usr_cfg);

struct usr_act {
	struct usr_cfg *cfg;
	bool wall;
	int n_users;
	char *users[MAX_USERS];
	const struct template *wall_tpl;   /* set when "*" and no template= */
	struct sbuf render;
};

static pthread_mutex_t utmp_mu = PTHREAD_MUTEX_INITIALIZER;

static void *usr_act_create(void *cfgp, struct cfg_obj *o, int *n_errors)
{
	struct usr_cfg *c = cfgp;
	if (!c)
		return NULL;
	struct usr_act *a = sl_xcalloc(1, sizeof(*a));
	a->cfg = c;
	const char *u = c->users;
	while (*u == ' ' || *u == '\t')
		u++;
	if (strcmp(u, "*") == 0) {
		a->wall = true;
	} else {
		char *dup = sl_xstrdup(u), *save = NULL;
		for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			while (*t == ' ')
				t++;
			size_t l = strlen(t);
			while (l && t[l - 1] == ' ')
				t[--l] = '\0';
			if (!l)
				continue;
			if (a->n_users == MAX_USERS) {
				cfg_warn(&o->pos, "omusrmsg: more than %d users given; the rest is ignored",
					 MAX_USERS);
				break;
			}
			a->users[a->n_users++] = sl_xstrdup(t);
		}
		free(dup);
		if (a->n_users == 0) {
			cfg_error(&o->pos, "omusrmsg: no user names in users=\"%s\"", c->users);
			(*n_errors)++;
			param_free(&usr_table, c);
			free(a);
			return NULL;
		}
	}
	bool tpl_given = false;
	for (struct cfg_param *p = o->params; p; p = p->next)
		if (!strcasecmp(p->name, "template"))
			tpl_given = true;
	if (a->wall && !tpl_given)
		a->wall_tpl = tpl_find(" WallFmt");
	return a;
}

static void usr_act_destroy(void *act)
{
	struct usr_act *a = act;
	if (!a)
		return;
	for (int i = 0; i < a->n_users; i++)
		free(a->users[i]);
	sbuf_free(&a->render);
	param_free(&usr_table, a->cfg);
	free(a);
}

static bool wanted(const struct usr_act *a, const char *user)
{
	if (a->wall)
		return true;
	for (int i = 0; i < a->n_users; i++)
		if (strncmp(a->users[i], user, sizeof(((struct utmpx *)0)->ut_user)) == 0)
			return true;
	return false;
}

/* Write `msg` to every wanted user's terminal. */
static void write_to_users(struct usr_act *a, const char *msg, size_t len)
{
	struct utmpx *ut;
	char dev[sizeof(_PATH_DEV) + sizeof(ut->ut_line) + 1];
	char user[sizeof(ut->ut_user) + 1];

	pthread_mutex_lock(&utmp_mu);
	if (a->cfg->utmp_file)
		utmpxname(a->cfg->utmp_file);
	setutxent();
	while ((ut = getutxent()) != NULL) {
		if (ut->ut_type != USER_PROCESS || ut->ut_user[0] == '\0')
			continue;
		memcpy(user, ut->ut_user, sizeof(ut->ut_user));
		user[sizeof(ut->ut_user)] = '\0';
		if (strcmp(user, "LOGIN") == 0 || !wanted(a, user))
			continue;
		size_t ll = strnlen(ut->ut_line, sizeof(ut->ut_line));
		if (ll == 0 || memmem(ut->ut_line, ll, "..", 2) != NULL)
			continue; /* no line, or one that climbs out of /dev */
		snprintf(dev, sizeof(dev), "%s%.*s", _PATH_DEV, (int)ll, ut->ut_line);
		int fd = open(dev, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && (st.st_mode & S_IWUSR)) {
			ssize_t n;
			do
				n = write(fd, msg, len);
			while (n < 0 && errno == EINTR);
		}
		close(fd);
	}
	endutxent();
	if (a->cfg->utmp_file)
		utmpxname(_PATH_UTMPX);
	pthread_mutex_unlock(&utmp_mu);
}

static enum act_result usr_tx_add(void *wrk, struct msg *m, const char *rendered, size_t len)
{
	struct usr_act *a = wrk; /* no per-worker data: single worker */
	if (a->wall_tpl) {
		sbuf_reset(&a->render);
		if (!tpl_render(a->wall_tpl, m, &a->render))
			return ACT_FAILED;
		rendered = a->render.buf;
		len = a->render.len;
	}
	write_to_users(a, rendered, len);
	return ACT_OK;
}

static const struct output_ops usr_output_ops = {
	.act_create = usr_act_create,
	.act_destroy = usr_act_destroy,
	.tx_add = usr_tx_add,
	.default_template = " StdUsrMsgFmt",
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "omusrmsg",
	.description = "write messages to logged-in users' terminals",
	.type = MOD_OUTPUT,
	.flags = MOD_FLAG_SINGLE_WORKER,
	.inst_params = &usr_table,
	.output = &usr_output_ops,
};
