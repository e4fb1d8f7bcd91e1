/* worker.c — per-thread worker state (see worker.h): the script context,
 * the render buffer, and per action the module's worker data, the open
 * transaction's messages and the batch pending for an action queue.
 *
 * Threading: a worker is used by one thread only (the queue's drain at
 * stop uses it after that thread has been joined).
 */
#include "worker.h"
#include "action.h"
#include "msg.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

struct worker *worker_create(void)
{
	struct worker *w = sl_xcalloc(1, sizeof(*w));
	exec_ctx_init(&w->ctx);
	w->ctx.wrk = w;
	return w;
}

struct act_wrk *worker_act(struct worker *w, int id)
{
	if (id >= w->n_acts) {
		int n = id + 8;
		w->acts = sl_xrealloc(w->acts, n * sizeof(*w->acts));
		memset(w->acts + w->n_acts, 0, (n - w->n_acts) * sizeof(*w->acts));
		w->n_acts = n;
	}
	return &w->acts[id];
}

void worker_open_tx(struct worker *w, struct action *a)
{
	if (w->n_open == w->open_cap) {
		int nc = w->open_cap ? w->open_cap * 2 : 16;
		w->open_tx = sl_xrealloc(w->open_tx, (size_t)nc * sizeof(*w->open_tx));
		w->open_cap = nc;
	}
	w->open_tx[w->n_open++] = a;
}

void worker_commit_all(struct worker *w)
{
	for (int i = 0; i < w->n_open; i++)
		action_commit(w->open_tx[i], w);
	w->n_open = 0;
}

void worker_destroy(struct worker *w)
{
	if (!w)
		return;
	worker_commit_all(w);
	for (struct action *a = action_first(); a; a = a->next) {
		if (a->id >= w->n_acts)
			continue;
		struct act_wrk *aw = &w->acts[a->id];
		if (aw->created && a->mod->output->wrk_destroy)
			a->mod->output->wrk_destroy(aw->mod_wrk);
	}
	for (int i = 0; i < w->n_acts; i++) {
		struct act_wrk *aw = &w->acts[i];
		for (int k = 0; k < aw->tx_n; k++)
			msg_release(aw->tx_msgs[k]);
		for (int k = 0; k < aw->pend_n; k++)
			msg_release(aw->pend[k]);
		free(aw->tx_msgs);
		free(aw->pend);
	}
	exec_ctx_fini(&w->ctx);
	sbuf_free(&w->render);
	free(w->acts);
	free(w->open_tx);
	free(w);
}
