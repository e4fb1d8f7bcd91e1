/* msgvar.c — merging parsed JSON into a message's $! / $. variables.
 *
 * Threading: see msgvar.h (worker thread owning the message).
 */
#include "msgvar.h"
#include "msg.h"

#include <json.h>
#include <string.h>

bool msg_var_container_ok(const char *name, struct prop_ref *out)
{
	if (!prop_ref_parse(name, strlen(name), out))
		return false;
	if (out->id != PROP_CEE && out->id != PROP_LOCAL_VAR) {
		prop_ref_free(out);
		return false;
	}
	return true;
}

bool msg_var_merge(struct msg *m, const struct prop_ref *container, struct fjson_object *obj)
{
	struct fjson_object **rootp = container->id == PROP_CEE ? &m->json
				    : container->id == PROP_LOCAL_VAR ? &m->localvars : NULL;
	if (!rootp || !obj) {
		json_object_put(obj);
		return false;
	}
	if (!*rootp && !(*rootp = json_object_new_object())) {
		json_object_put(obj);
		return false;
	}
	struct fjson_object *target = *rootp;
	const char *path = container->path ? container->path : "";
	char name[256];
	while (*path) {
		size_t l = strcspn(path, "!");
		if (l >= sizeof(name))
			l = sizeof(name) - 1;
		memcpy(name, path, l);
		name[l] = '\0';
		path += strcspn(path, "!");
		if (*path == '!')
			path++;
		if (!name[0])
			continue;
		struct fjson_object *n = NULL;
		if (!json_object_object_get_ex(target, name, &n) ||
		    !json_object_is_type(n, json_type_object)) {
			n = json_object_new_object();
			if (!n) {
				json_object_put(obj);
				return false;
			}
			json_object_object_add(target, name, n);
		}
		target = n;
	}
	if (!json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		return false;
	}
	struct fjson_object_iterator it = fjson_object_iter_begin(obj);
	struct fjson_object_iterator end = fjson_object_iter_end(obj);
	while (!fjson_object_iter_equal(&it, &end)) {
		const char *k = fjson_object_iter_peek_name(&it);
		struct fjson_object *v = fjson_object_iter_peek_value(&it);
		json_object_object_add(target, k, json_object_get(v));
		fjson_object_iter_next(&it);
	}
	json_object_put(obj);
	return true;
}
