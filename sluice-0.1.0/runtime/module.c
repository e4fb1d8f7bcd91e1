/* module.c — finding modules: the built-in ones, and loadable shared
 * objects from the module directory (or, when run from the build tree,
 * from beside the daemon binary).
 *
 * Threading: main thread only, while the configuration loads.
 */
#include "module.h"
#include "ast.h"
#include "log.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

extern const struct module omfile_module;

static const struct module *const builtin_modules[] = {
	&omfile_module,
};

/* Modules rsyslog has that sluice will have, with the issue that brings
 * them: a config naming them gets a clear message instead of "unknown". */
static const struct { const char *name; int issue; } planned[] = {
	{ "lmnet", 5 }, { "lmnsd_gtls", 5 }, { "builtin:omfile", 0 },
};

struct loaded {
	char *name;
	void *handle;
	const struct module *mod;
};
static struct loaded loaded[64];
static int n_loaded;
static char *mod_dir;
static bool find_quiet; /* module_find_quiet: no error for a missing module */

void module_set_dir(const char *dir)
{
	free(mod_dir);
	mod_dir = dir ? sl_xstrdup(dir) : NULL;
}

static const struct module *try_load(const char *path, const char *name,
				     const struct cfg_pos *pos, bool *found)
{
	if (access(path, F_OK) != 0)
		return NULL;
	*found = true;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		cfg_error(pos, "module '%s' could not be loaded from %s: %s", name, path, dlerror());
		return NULL;
	}
	const struct module *m = dlsym(h, SLUICE_MODULE_SYMBOL);
	if (!m) {
		cfg_error(pos, "%s is not a sluice module (no symbol %s)", path, SLUICE_MODULE_SYMBOL);
		dlclose(h);
		return NULL;
	}
	if (m->abi != SLUICE_MODULE_ABI) {
		cfg_error(pos, "module %s was built for module ABI %d, this sluiced has ABI %d",
			  path, m->abi, SLUICE_MODULE_ABI);
		dlclose(h);
		return NULL;
	}
	if (n_loaded < (int)SL_ARRAY_SIZE(loaded)) {
		loaded[n_loaded].name = sl_xstrdup(name);
		loaded[n_loaded].handle = h;
		loaded[n_loaded].mod = m;
		n_loaded++;
	}
	return m;
}

const struct module *module_find(const char *name, const struct cfg_pos *pos)
{
	const char *base = name;
	if (strncasecmp(base, "builtin:", 8) == 0)
		base += 8;
	/* "/usr/lib/rsyslog/imtcp.so" or "imtcp.so" name the same module */
	const char *slash = strrchr(base, '/');
	if (slash)
		base = slash + 1;
	char clean[128];
	snprintf(clean, sizeof(clean), "%s", base);
	size_t cl = strlen(clean);
	if (cl > 3 && strcmp(clean + cl - 3, ".so") == 0)
		clean[cl - 3] = '\0';

	for (size_t i = 0; i < SL_ARRAY_SIZE(builtin_modules); i++)
		if (strcasecmp(builtin_modules[i]->name, clean) == 0)
			return builtin_modules[i];
	for (int i = 0; i < n_loaded; i++)
		if (strcasecmp(loaded[i].name, clean) == 0)
			return loaded[i].mod;

	char path[PATH_MAX * 2];
	bool found = false;
	const struct module *m = NULL;
	const char *env = getenv("SLUICE_MODDIR");
	if (mod_dir) {
		snprintf(path, sizeof(path), "%s/%s.so", mod_dir, clean);
		if ((m = try_load(path, clean, pos, &found)) || found)
			return m;
	}
	if (env && *env) {
		snprintf(path, sizeof(path), "%s/%s.so", env, clean);
		if ((m = try_load(path, clean, pos, &found)) || found)
			return m;
	}
	/* Run from the build tree: tools/sluiced next to plugins/NAME/.libs. */
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *d = strrchr(exe, '/');
		if (d) {
			*d = '\0';
			snprintf(path, sizeof(path), "%s/../plugins/%s/.libs/%s.so", exe, clean, clean);
			if ((m = try_load(path, clean, pos, &found)) || found)
				return m;
		}
	}
	snprintf(path, sizeof(path), "%s/%s.so", SLUICE_PKGLIBDIR, clean);
	if ((m = try_load(path, clean, pos, &found)) || found)
		return m;

	if (find_quiet)
		return NULL;
	for (size_t i = 0; i < SL_ARRAY_SIZE(planned); i++) {
		if (strcasecmp(planned[i].name, clean) == 0) {
			cfg_error(pos, "module '%s' is not available in this version of sluice yet "
				  "(planned: issue #%d)", clean, planned[i].issue);
			return NULL;
		}
	}
	cfg_error(pos, "module '%s' is not known (looked for a built-in module and for %s.so)",
		  clean, clean);
	return NULL;
}

/* Like module_find, but a module that is not there is no error. */
const struct module *module_find_quiet(const char *name)
{
	find_quiet = true;
	const struct module *m = module_find(name, NULL);
	find_quiet = false;
	return m;
}
