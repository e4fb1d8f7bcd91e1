/* input.h — what an input module uses from the core: submitting batches
 * of new messages to their ruleset's queue, with flow control.
 *
 * Threading: input_submit() is called from input threads; it takes one
 * queue lock per batch, never one per message.
 */
#ifndef SLUICE_INPUT_H
#define SLUICE_INPUT_H

#include <stdbool.h>
#include "sluice.h"

struct msg;
struct ruleset;

enum flow_ctl {
	FLOW_NO_DELAY,  /* UDP and the like: never wait; discard (counted) when full */
	FLOW_DELAY,     /* TCP, unix sockets: wait while the queue is above its full-delay mark */
	FLOW_LIGHT_DELAY, /* imuxsock with FlowControl, imklog: above the queue's
			   * light-delay mark, wait up to 1 s per batch (for room
			   * below that mark), then go on; never block for good:
			   * when the queue is full, as FLOW_NO_DELAY */
};

/* Hand `n` messages to the queue of their ruleset (each message's
 * m->ruleset, else its origin's, else the default ruleset). Ownership of
 * the messages' references passes to the core in all cases: what cannot
 * be queued is discarded and counted. Returns SL_OK, or SL_ERR_SHUTDOWN
 * when the daemon is stopping (messages then still queued if there was
 * room). */
enum sl_rc input_submit(struct msg **msgs, int n, enum flow_ctl fc);

/* Look up a ruleset by name (for an input's ruleset= parameter at config
 * time); NULL if there is none. */
struct ruleset *ruleset_lookup(const char *name);

#endif
