/* test_action_items.c — unit tests of the action core's per-message
 * commit (tx_commit_items, runtime/module.h) with a stub output module:
 * committed items are counted once, SUSPENDED items are added again in a
 * new transaction after try_resume (and only those), FAILED items go to
 * action.errorFile with the reason; when the destination stays down and
 * action.resumeRetryCount is used up, the suspended items go to the error
 * file ("suspended") and to the fail-over action that follows.
 *
 * Threading: single-threaded; the actions run Direct in the test thread.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "action.h"
#include "ast.h"
#include "module.h"
#include "msg.h"
#include "queue.h"
#include "template.h"
#include "worker.h"

#define NMSG 20

/* the stub module's state (one action instance = one struct stub) */
struct stub {
	int delivered[NMSG];      /* committed per message number */
	int added[NMSG];          /* tx_add calls per message number */
	int pending[256];         /* message numbers of the open transaction */
	int n_pending;
	int commits;
	int resumes;
	bool down;                /* every item SUSPENDED, try_resume fails */
	bool suspend_once[NMSG];  /* SUSPENDED at the first commit only */
};

static int num(const struct msg *m)
{
	const char *p = strstr(m->raw, "msg ");
	return p ? atoi(p + 4) : -1;
}

static enum sl_rc stub_tx_begin(void *wrk)
{
	((struct stub *)wrk)->n_pending = 0;
	return SL_OK;
}

static enum act_result stub_tx_add(void *wrk, struct msg *m, const char *r, size_t len)
{
	struct stub *s = wrk;
	(void)r;
	(void)len;
	int k = num(m);
	ck_assert(k >= 0 && k < NMSG);
	s->added[k]++;
	s->pending[s->n_pending++] = k;
	return ACT_DEFERRED;
}

static enum act_result stub_commit_items(void *wrk, enum act_result *res, int n)
{
	struct stub *s = wrk;
	ck_assert_int_eq(n, s->n_pending);
	s->commits++;
	for (int i = 0; i < n; i++) {
		int k = s->pending[i];
		if (s->down) {
			res[i] = ACT_SUSPENDED;
		} else if (k % 7 == 3) {
			res[i] = ACT_FAILED;          /* 3, 10, 17: rejected for good */
		} else if (s->suspend_once[k]) {
			s->suspend_once[k] = false;
			res[i] = ACT_SUSPENDED;       /* retried once, then OK */
		} else {
			res[i] = ACT_OK;
			s->delivered[k]++;
		}
	}
	s->n_pending = 0;
	return ACT_OK;
}

static enum sl_rc stub_try_resume(void *wrk)
{
	struct stub *s = wrk;
	s->resumes++;
	return s->down ? SL_ERR_SUSPENDED : SL_OK;
}

static const struct output_ops stub_ops = {
	.tx_begin = stub_tx_begin,
	.tx_add = stub_tx_add,
	.tx_commit_items = stub_commit_items,
	.try_resume = stub_try_resume,
};

static const struct module stub_mod = {
	.name = "omstub",
	.type = MOD_OUTPUT,
	.output = &stub_ops,
};

static struct action *mk_action(int id, const char *name, struct stub *s, const char *errfile)
{
	struct action *a = calloc(1, sizeof(*a));
	a->id = id;
	a->name = strdup(name);
	a->mod = &stub_mod;
	a->inst = s;
	a->tpl = tpl_find("t_raw");
	ck_assert_ptr_nonnull(a->tpl);
	a->resume_retry_count = 1;
	a->resume_interval = 1;
	a->resume_interval_max = 1;
	a->error_file = errfile ? strdup(errfile) : NULL;
	a->error_fd = -1;
	pthread_mutex_init(&a->error_mtx, NULL);
	return a;
}

static void free_action(struct action *a)
{
	if (a->error_fd >= 0)
		close(a->error_fd);
	free(a->error_file);
	free(a->name);
	free(a);
}

static void mk_msgs(struct msg **m)
{
	struct syslog_time t = { 0 };
	for (int i = 0; i < NMSG; i++) {
		char b[64];
		int l = snprintf(b, sizeof(b), "<13>test msg %d", i);
		m[i] = msg_create(b, (size_t)l, NULL, &t, 0);
	}
}

static int count_lines_with(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[1024];
	int n = 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

static void setup(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	tpl_init_builtins();
	struct cfg_pos pos = { 0 };
	ck_assert_int_eq(tpl_create_legacy("t_raw,\"%rawmsg%\\n\"", &pos), SL_OK);
}

START_TEST(items_ok_failed_suspended)
{
	setup();
	char errf[] = "/tmp/test_action_items.XXXXXX";
	int fd = mkstemp(errf);
	ck_assert_int_ge(fd, 0);
	close(fd);
	struct stub s = { 0 };
	s.suspend_once[5] = s.suspend_once[6] = s.suspend_once[12] = true;
	struct action *a = mk_action(0, "items", &s, errf);
	struct worker *w = worker_create();
	struct msg *m[NMSG];
	mk_msgs(m);
	action_consume(a, m, NMSG, w);
	for (int k = 0; k < NMSG; k++) {
		bool failed = k % 7 == 3;
		ck_assert_msg(s.delivered[k] == (failed ? 0 : 1), "msg %d delivered %d times", k,
			      s.delivered[k]);
		bool again = k == 5 || k == 6 || k == 12;
		ck_assert_msg(s.added[k] == (again ? 2 : 1), "msg %d added %d times", k, s.added[k]);
	}
	ck_assert_int_eq(s.commits, 2);     /* the first, and the one of the 3 retried */
	ck_assert_int_eq(s.resumes, 1);
	ck_assert_uint_eq(atomic_load(&a->stats.processed), NMSG - 3);
	ck_assert_uint_eq(atomic_load(&a->stats.failed), 3);
	ck_assert_uint_eq(atomic_load(&a->stats.errorfile), 3);
	ck_assert_int_eq(count_lines_with(errf, "\"status\":\"failed\""), 3);
	ck_assert_int_eq(count_lines_with(errf, "\"raw\":\"<13>test msg 10\""), 1);
	ck_assert_int_eq(count_lines_with(errf, "\"message\":\"<13>test msg 17\\n\""), 1);
	ck_assert_int_eq(count_lines_with(errf, "the output module rejected the message"), 3);
	for (int i = 0; i < NMSG; i++)
		msg_release(m[i]);
	worker_destroy(w);
	free_action(a);
	unlink(errf);
}
END_TEST

START_TEST(items_down_give_up_and_fail_over)
{
	setup();
	char errf[] = "/tmp/test_action_items.XXXXXX";
	int fd = mkstemp(errf);
	ck_assert_int_ge(fd, 0);
	close(fd);
	struct stub s1 = { .down = true }, s2 = { 0 };
	struct action *a = mk_action(0, "primary", &s1, errf);
	struct action *b = mk_action(1, "secondary", &s2, NULL);
	b->exec_only_when_prev_suspended = true;
	a->failover = b;
	struct worker *w = worker_create();
	struct msg *m[NMSG];
	mk_msgs(m);
	action_consume(a, m, NMSG, w);
	/* one retry (resumeRetryCount=1), then every item fails for good as
	 * "suspended" and the fail-over action gets it (3, 10, 17 it rejects) */
	ck_assert_int_eq(s1.resumes, 1);
	ck_assert_uint_eq(atomic_load(&a->stats.processed), 0);
	ck_assert_int_eq(count_lines_with(errf, "\"status\":\"suspended\""), NMSG);
	for (int k = 0; k < NMSG; k++) {
		ck_assert_int_eq(s1.delivered[k], 0);
		ck_assert_int_eq(s2.added[k], 1);
		ck_assert_int_eq(s2.delivered[k], k % 7 == 3 ? 0 : 1);
	}
	ck_assert_uint_eq(atomic_load(&b->stats.processed), NMSG - 3);
	ck_assert(atomic_load(&a->is_suspended));
	for (int i = 0; i < NMSG; i++)
		msg_release(m[i]);
	worker_destroy(w);
	free_action(a);
	free_action(b);
	unlink(errf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("action_items");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, items_ok_failed_suspended);
	tcase_add_test(tc, items_down_give_up_and_fail_over);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
