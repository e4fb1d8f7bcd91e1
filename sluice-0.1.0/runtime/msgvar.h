/* msgvar.h — what message-modification modules (mmjsonparse, mmnormalize)
 * use to put parsed fields into a message's variables.
 *
 * Threading: called on the worker thread that runs the ruleset on the
 * message, which is the only thread touching its JSON trees then.
 */
#ifndef SLUICE_MSGVAR_H
#define SLUICE_MSGVAR_H

#include <stdbool.h>
#include "prop.h"

struct msg;
struct fjson_object;

/* Merge the members of `obj` (a JSON object; the reference is taken over)
 * into the container variable `container` ("$!", "$!a!b", "$.x"), creating
 * it as needed, as rsyslog's msgAddJSON does. Returns false if the
 * container is not a $! or $. variable or memory ran out. */
bool msg_var_merge(struct msg *m, const struct prop_ref *container, struct fjson_object *obj);

/* Check a container name at config time ("$!", "$!path", "$.path"). */
bool msg_var_container_ok(const char *name, struct prop_ref *out);

#endif
