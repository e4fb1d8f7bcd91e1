/* conf.h — loading a configuration into running objects, and the order
 * in which they start and stop.
 *
 * Threading: main thread only.
 */
#ifndef SLUICE_CONF_H
#define SLUICE_CONF_H

#include <stdbool.h>
#include "sluice.h"

/* Parse and check `path`, creating every object. Errors are printed as
 * FILE:LINE: ...; returns SL_ERR_CONFIG if there was any. */
enum sl_rc conf_load(const char *path, bool check_only);
/* Start queues, actions and inputs (listeners are bound before return). */
enum sl_rc conf_start(void);
/* Stop inputs, drain the queues, flush the actions. */
void conf_stop(void);
void conf_hup(void);   /* SIGHUP: reopen files */
void conf_tick(void);  /* once a second: flush intervals, timeouts */
void conf_destroy(void);
/* True when the main queue or a ruleset's queue keeps messages on disk
 * (queue.filename or queue.type="Disk"): an output that could let a
 * message leave its queue before the destination confirmed it should not,
 * so that what is persisted stays persisted (omkafka confirmDelivery).
 * Valid from conf_load's end on. */
bool conf_persistent_queues(void);

#endif
