/* legacy.h — rsyslog's legacy configuration forms mapped onto the objects
 * of RainerScript: `$Directive value` lines and legacy action lines
 * (`/path;Tpl`, `@host`, `:omusrmsg:*` ...).
 *
 * A `$Directive` is looked up first in a small table of core directives
 * (main queue, action settings, a few that need code), then as an alias
 * (PARAM_LEGACY) in the parameter tables of global() (glbl_table) and of
 * every module loaded so far. What it sets is kept under the RainerScript
 * name of the parameter and merged into the objects the core builds, so
 * the two forms are parsed by the same table with the same defaults.
 *
 * Binding follows rsyslog: `$Action...`, `$ActionQueue...` and the
 * action-scope aliases of output modules apply to the legacy-syntax
 * actions that come after them in the file (not to action() objects);
 * queue settings, $ActionResumeRetryCount and $ActionName are reset after
 * every action. Input-scope aliases apply to the inputs created by a
 * later PARAM_LEGACY_RUN directive (`$InputTCPServerRun 514`).
 *
 * Threading: main thread only, while the configuration loads.
 */
#ifndef SLUICE_LEGACY_H
#define SLUICE_LEGACY_H

#include <stdbool.h>

struct cfg_tree;
struct cfg_obj;
struct module;

/* Start with a parsed tree (records where actions are). */
void legacy_begin(struct cfg_tree *t);
/* A module became known (module() object `o`, or $ModLoad with o NULL),
 * in source order: its aliases are usable from here on. */
void legacy_module_known(const struct module *m, struct cfg_obj *o);
/* One `$Directive` line, in source order (not $ModLoad, $Template). */
void legacy_directive(struct cfg_obj *o, int *n_errors);

/* Add to `o` the legacy settings of global(), main_queue() or a module's
 * module() parameters that `o` does not give itself. The added params
 * carry the position of their `$Directive`. */
void legacy_merge_global(struct cfg_obj *o);
void legacy_merge_main_queue(struct cfg_obj *o);
bool legacy_have_main_queue(void);
/* Returns true if it added a legacy name that has no RainerScript twin:
 * the caller then parses `o` as type CFG_OBJ_LEGACY (so that param_parse
 * accepts legacy names) with "type" = the module name. */
bool legacy_merge_module(const struct module *m, struct cfg_obj *o);

/* Inputs created by `$...ServerRun` lines (objects with type=MODULE,
 * owned by legacy.c, of type CFG_OBJ_LEGACY so that legacy names without
 * a twin are accepted), linked by `next`. */
struct cfg_obj *legacy_inputs(void);
/* $DefaultRuleset: the ruleset of inputs that name none (NULL: unset). */
const char *legacy_default_ruleset(void);

/* Rewrite a legacy action line (param "legacy") into the parameters of
 * the equivalent action(): type= plus the module's own. Returns the
 * module name, or NULL with *discard set for "~", or NULL after
 * reporting an error. Every form rsyslog 8.2302 accepts is handled:
 * [-]/path[;Tpl], [-]?DynaTpl[;Tpl], @[(opts)]host[:port][;Tpl] (UDP),
 * @@... (TCP; opts o = octet-counted, zN = compression level),
 * :omusrmsg:users[;Tpl], *, user1,user2[;Tpl], :modname:params, ~. */
const char *legacy_action_to_params(struct cfg_obj *o, bool *discard, int *n_errors);

/* Before an action object is created: legacy lines are rewritten (see
 * above) and get the legacy action settings in effect at their place;
 * action() objects only get the positional default template. */
bool legacy_prepare_action(struct cfg_obj *o, int *n_errors);
/* (returns true like legacy_merge_module: parse as CFG_OBJ_LEGACY) */

void legacy_end(void);

#endif
