/* worker.h — per-thread state of a queue worker: the script execution
 * context, the render buffer, and the per-action transaction state.
 *
 * Threading: a worker belongs to exactly one thread.
 */
#ifndef SLUICE_WORKER_H
#define SLUICE_WORKER_H

#include <stdbool.h>
#include <stdint.h>
#include "script.h"
#include "sbuf.h"

struct action;

struct act_wrk {
	void *mod_wrk;       /* the output module's per-worker data */
	bool in_tx;          /* a transaction is open */
	bool created;
	bool collecting;     /* in_tx means: collecting for the action's queue */
	/* messages of the open transaction (references), for per-message
	 * results, action.errorFile and retries; reused, never shrunk */
	struct msg **tx_msgs;
	int tx_n, tx_cap;
	/* messages collected for the action's own queue (references) */
	struct msg **pend;
	int pend_n, pend_cap;
	/* messages processed since the last commit: added to the action's
	 * shared `processed` counter once per commit, not one atomic each */
	uint64_t n_processed;
};

struct worker {
	struct exec_ctx ctx;
	struct sbuf render;
	struct act_wrk *acts;  /* indexed by action id */
	int n_acts;
	struct action **open_tx; /* actions with an open transaction */
	int n_open, open_cap;
	/* Set by a consumer (action code) when it could not finish its batch
	 * because the queue is being aborted at stop: the queue keeps the
	 * whole batch (persists it or counts it). Reset by the queue. */
	bool requeue;
};

struct worker *worker_create(void);
void worker_destroy(struct worker *w);
/* The state of action `id` for this worker, growing the table as needed. */
struct act_wrk *worker_act(struct worker *w, int id);
/* Remember that action `a` has an open transaction in this worker. */
void worker_open_tx(struct worker *w, struct action *a);
/* Commit every open transaction of this worker (end of a batch); also
 * those opened while committing (fail-over actions). */
void worker_commit_all(struct worker *w);

#endif
