/* worker.h — per-thread state of a queue worker: the script execution
 * context, the render buffer, and the per-action transaction state.
 *
 * Threading: a worker belongs to exactly one thread.
 */
#ifndef SLUICE_WORKER_H
#define SLUICE_WORKER_H

#include <stdbool.h>
#include "script.h"
#include "sbuf.h"

struct action;

struct act_wrk {
	void *mod_wrk;       /* the output module's per-worker data */
	bool in_tx;          /* a transaction is open */
	bool created;
};

struct worker {
	struct exec_ctx ctx;
	struct sbuf render;
	struct act_wrk *acts;  /* indexed by action id */
	int n_acts;
	struct action **open_tx; /* actions with an open transaction */
	int n_open;
};

struct worker *worker_create(void);
void worker_destroy(struct worker *w);
/* The state of action `id` for this worker, growing the table as needed. */
struct act_wrk *worker_act(struct worker *w, int id);
/* Commit every open transaction of this worker (end of a batch). */
void worker_commit_all(struct worker *w);

#endif
