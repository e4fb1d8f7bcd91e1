/* template_int.h — the compiled form of a template, shared by
 * template.c (rendering) and template_parse.c (compiling templates from
 * the configuration, and the built-in ones). Not a public contract.
 *
 * Threading: as template.h (built at load, read-only afterwards).
 */
#ifndef SLUICE_TEMPLATE_INT_H
#define SLUICE_TEMPLATE_INT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "prop.h"
#include "template.h"

enum step_kind { STEP_CONST, STEP_PROP };
enum fmt_kind { FMT_NONE, FMT_CSV, FMT_JSON, FMT_JSONF, FMT_JSONR, FMT_JSONFR };
enum cc_kind { CC_NONE, CC_ESCAPE, CC_SPACE, CC_DROP };
enum tpl_esc { ESC_NONE, ESC_SQL, ESC_STDSQL, ESC_JSON, ESC_JSONF };
enum nomatch_kind { NM_DFLT, NM_BLANK, NM_FIELD, NM_ZERO };
enum dtype_kind { DT_STRING, DT_NUMBER, DT_BOOL, DT_AUTO };
enum empty_kind { EMPTY_KEEP, EMPTY_SKIP, EMPTY_NULL };

struct tpl_step {
	enum step_kind kind;
	char *cst;                 /* STEP_CONST text */
	size_t cst_len;
	struct prop_ref ref;
	uint8_t datefmt;           /* enum tpl_datefmt */
	bool date_utc;
	int from, to;              /* 1-based, 0 = unset */
	bool rel_end, fixed_width;
	bool has_field, field_expand;
	int field_nr;
	unsigned char field_delim;
	uint8_t has_regex;         /* 0 none, 1 ok, 2 failed to compile */
	regex_t re;
	void *re_pcre;             /* PCRE2 copy with the same submatches, or NULL */
	int re_match, re_submatch;
	uint8_t nomatch;
	uint8_t caseconv;          /* 0 none, 1 lower, 2 upper */
	bool spif;                 /* sp-if-no-1st-sp */
	bool spif_empty;           /* strgen semantics: also a SP for an empty value */
	bool compress;
	uint8_t cc, secpath;       /* secpath: 0 none, 1 drop, 2 replace */
	bool droplf, mandatory;
	uint8_t format, dtype, onempty;
	char *outname;
	size_t outname_len;
};

struct template {
	char *name;
	struct tpl_step *steps;
	int n_steps;
	uint8_t esc;
	bool casesensitive;
	bool is_subtree;
	struct prop_ref subtree;
	tpl_strgen_fn strgen;
	struct template *next;
};

/* template_parse.c: every defined template, in definition order */
extern struct template *tpl_list;

#endif
