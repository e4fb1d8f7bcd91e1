/* fuzz_template.c — fuzz harness for templates and the property
 * replacer: compiling template text (runtime/template_parse.c: legacy
 * `$template` lines, and template() objects of every type, string and
 * list with property()/constant() parameters, parsed by the real
 * RainerScript grammar) and rendering the result (runtime/template.c,
 * runtime/prop.c, runtime/strgen.c) against parsed messages.
 *
 * Input layout: byte 0 bit 0 chooses the form — 0: the rest is the text
 * after `$template NAME,` (string and options, as tpl_create_legacy
 * takes it); 1: the rest is configuration text whose template() objects
 * are created. A NUL byte, if any, ends the template text; what follows
 * is a raw message (parsed by the real parser chain) to render. The
 * templates are always rendered against four fixed messages too (RFC3164,
 * RFC5424 with structured data, invalid PRI, empty), with $!, $. and $/
 * trees set.
 *
 * Checks: ASan/UBSan on compiling, rendering and freeing; every byte
 * rendered is read. Compile errors are expected and fine. Text whose
 * regexes glibc would take gigabytes to compile is skipped
 * (fz_regex_blowup).
 *
 * Threading: single-threaded (libFuzzer).
 */
#include "fuzz_common.h"
#include "ast.h"

#include <json.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_FIXED 4
static struct msg *fixed[N_FIXED];
static struct fjson_object *tree;

static const char json_text[] =
	"{\"a\":{\"b\":\"x\\\"y\",\"c\":[1,\"two\",{\"d\":null}]},\"n\":-5,\"f\":1.5,\"t\":true,"
	"\"e\":\"\",\"u\":\"\\u00e9\\u0001\"}";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const raws[N_FIXED] = {
		"<134>Mar  1 01:02:03 host1 prog[123]: hello \"world\" \\ /x",
		("<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog 77 ID47 "
		 "[exampleSDID@32473 iut=\"3\" eventSource=\"App\\]\"][x@1 a=\"b\"] An event"),
		"<999>garbage",
		"",
	};
	(void)argc;
	(void)argv;
	fz_init();
	tree = fjson_tokener_parse(json_text);
	if (!tree)
		FZ_FAIL("bad JSON seed");
	for (int i = 0; i < N_FIXED; i++) {
		fixed[i] = fz_parsed_msg(raws[i], strlen(raws[i]), 0);
		fixed[i]->json = json_object_get(tree);
		if (i == 0)
			fixed[i]->localvars = json_object_get(tree);
	}
	prop_globals_lock();
	*prop_globals_root() = json_object_get(tree);
	prop_globals_unlock();
	return 0;
}

/* Render `m` through every template made since `mark`. */
static void render_all(struct template **mark, struct msg *m, struct sbuf *out)
{
	for (struct template *t = *mark; t; t = t->next) {
		sbuf_reset(out);
		if (!tpl_render(t, m, out))
			FZ_FAIL("tpl_render(%s) failed", t->name);
		fz_touch(out->buf, out->len);
		if (t->strgen) {
			sbuf_reset(out);
			if (!tpl_render_generic(t, m, out))
				FZ_FAIL("tpl_render_generic(%s) failed", t->name);
			fz_touch(out->buf, out->len);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sbuf out = SBUF_INIT;
	static const struct cfg_pos pos = { "fuzz.conf", 1 };

	if (size < 1 || size > 16384)
		return 0;
	bool as_config = data[0] & 1;
	data++;
	size--;
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	if ((as_config && fz_config_reads_files(data, tlen)) || fz_regex_blowup(data, tlen))
		return 0;

	struct template **mark = fz_tpl_mark();
	int nerr = 0;
	struct cfg_tree *ct = NULL;
	if (as_config) {
		char *text = strndup((const char *)data, tlen);
		ct = cfg_parse_string(text, "fuzz.conf", &nerr);
		free(text);
		for (struct cfg_obj *o = ct ? ct->objs : NULL; o; o = o->next)
			if (o->type == CFG_OBJ_TEMPLATE)
				(void)tpl_create_from_obj(o);
	} else {
		char *args = malloc(tlen + 4);
		if (!args)
			return 0;
		memcpy(args, "fz,", 3);
		memcpy(args + 3, data, tlen);
		args[tlen + 3] = '\0';
		(void)tpl_create_legacy(args, &pos);
		free(args);
	}
	cfg_tree_free(ct); /* templates must not point into the tree */

	for (int i = 0; i < N_FIXED; i++)
		render_all(mark, fixed[i], &out);
	if (nul) {
		size_t mlen = size - tlen - 1;
		struct msg *m = fz_parsed_msg((const char *)nul + 1, mlen, 0);
		m->json = json_object_get(tree);
		render_all(mark, m, &out);
		msg_release(m);
	}
	fz_tpl_drop(mark);
	return 0;
}
