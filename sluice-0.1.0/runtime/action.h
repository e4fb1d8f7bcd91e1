/* action.h — actions: one output module instance with its template, its
 * retry settings (resumeRetryCount, resumeInterval with back-off,
 * resumeIntervalMax), fail-over (execOnlyWhenPreviousIsSuspended), its
 * error file, and optionally a queue of its own.
 *
 * Threading: created at load. action_exec runs on worker threads of the
 * queue running the ruleset; with a direct queue it renders and hands the
 * message to the module in that worker's transaction, otherwise it
 * enqueues a reference into the action's queue, whose own workers run the
 * module. Statistics and the suspension state are atomics; the error file
 * has a mutex of its own.
 */
#ifndef SLUICE_ACTION_H
#define SLUICE_ACTION_H

#include "sluice.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include "module.h"
#include "queue.h"

struct template;
struct worker;

struct action_stats {
	atomic_uint_fast64_t processed;   /* committed by the module */
	atomic_uint_fast64_t failed;      /* failed for good (errorFile when set) */
	atomic_uint_fast64_t suspended;   /* times the action was suspended */
	atomic_uint_fast64_t resumed;
	atomic_uint_fast64_t retries;     /* try_resume calls */
	atomic_uint_fast64_t errorfile;   /* lines written to action.errorFile */
	atomic_uint_fast64_t requeued;    /* messages handed back at stop */
};

struct action {
	int id;                     /* index into a worker's act table */
	char *name;                 /* action-N or name= */
	const struct module *mod;
	void *inst;                 /* module's action instance */
	const struct template *tpl;
	int64_t resume_retry_count; /* -1 = for ever */
	int64_t resume_interval;    /* seconds */
	int64_t resume_interval_max;
	bool exec_only_when_prev_suspended;
	bool report_suspension;     /* action.reportSuspension (default on) */
	bool report_continuation;   /* action.reportSuspensionContinuation */
	bool discard;               /* legacy "~": stop processing */
	char *error_file;           /* action.errorFile: JSON lines */
	int64_t error_file_max;     /* action.errorFile.maxSize; 0 = unlimited */
	int error_fd;
	pthread_mutex_t error_mtx;
	/* suspension state shared by the action's workers */
	atomic_bool is_suspended;
	atomic_int_fast64_t next_try_ms;  /* monotonic ms of the next try_resume */
	atomic_int_fast64_t cur_interval; /* seconds, grows with back-off */
	struct queue *queue;        /* NULL: direct */
	struct queue_cfg qcfg;
	struct action_stats stats;
	struct stats_obj *stats_obj; /* the statistics registry's entry (stats.h) */
	/* the action after this one in the configuration when that one has
	 * action.execOnlyWhenPreviousIsSuspended: it also gets the messages
	 * this action accepted into a transaction that then failed for good
	 * (buffered outputs fail at commit, after the chain has run) */
	struct action *failover;
	struct action *next;
};

/* Create an action from an action() object or a legacy action line.
 * Errors are reported with FILE:LINE. */
struct action *action_create(struct cfg_obj *o, int *n_errors);
enum sl_rc action_start_all(void);
void action_stop_all(void);       /* drain action queues */
void action_destroy_all(void);
void action_hup_all(void);
void action_tick_all(void);
int action_count(void);
/* Counters of one action as name=value pairs. */
int action_stats_format(struct action *a, char *buf, size_t len);
struct action *action_first(void);
/* Run a batch of messages through an action in worker `w` (used by action
 * queues and by the direct path). */
void action_consume(void *arg, struct msg **msgs, int n, struct worker *w);
void action_commit(struct action *a, struct worker *w);

/* The action's name in the statistics, as rsyslog's impstats names it:
 * name= when given, else "action-N-MODULE" ("builtin:omfile" for the
 * modules rsyslog has built in). */
void action_stats_name(const struct action *a, char *buf, size_t len);

/* Module-level defaults of template (omfile's template=,
 * $ActionFileDefaultTemplate). */
void action_set_module_default_template(const struct module *mod, const char *tpl);

#endif
