/* ruleset.h — rulesets: a named script with a parser chain and, when it
 * has queue.* parameters, a queue of its own. The default ruleset
 * (RSYSLOG_DefaultRuleset) runs on the main queue.
 *
 * Threading: created at load; read-only afterwards. ruleset_exec_sync runs
 * on queue worker threads. `call` of a ruleset with a queue of its own
 * enqueues a copy of the message there (as rsyslog's MsgDup: raw bytes,
 * parsed fields, $! and $. deep-copied), so the called ruleset runs
 * asynchronously on its own workers and the caller goes on at once.
 */
#ifndef SLUICE_RULESET_H
#define SLUICE_RULESET_H

#include "queue.h"

struct script_stmt;
struct parser_chain;

struct ruleset {
	char *name;
	struct script_stmt *script;
	struct queue *queue;        /* NULL: the main queue */
	struct parser_chain *parsers; /* parser=: NULL = the default chain */
	struct ruleset *next;
};

#define RULESET_DEFAULT_NAME "RSYSLOG_DefaultRuleset"

struct ruleset *ruleset_create(const char *name);
struct ruleset *ruleset_default(void);
struct ruleset *ruleset_first(void);
/* The main queue, which serves the default ruleset and every ruleset
 * without a queue of its own. */
extern struct queue *main_queue;

/* Queue consumer: parse and run each message of a batch through its
 * ruleset, then commit the worker's open transactions. */
void ruleset_consume(void *arg, struct msg **msgs, int n, struct worker *w);
void ruleset_destroy_all(void);

#endif
