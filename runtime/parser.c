/* parser.c — the steps every message goes through before the message
 * parsers: sanitising the raw bytes (rsyslog's SanitizeMsg: one trailing
 * NUL and one trailing LF dropped, control characters escaped as #ooo),
 * the PRI (rsyslog's ParsePRI), and the parser chain: the default one
 * (pmrfc5424, then pmrfc3164 which takes everything) or the chain of the
 * message's ruleset (ruleset(parser=[...]), $RulesetParser), made of the
 * built-in instances rsyslog.rfc5424 / rsyslog.rfc3164 and parser()
 * objects.
 *
 * Threading: parsing runs on a queue worker thread on a message that
 * worker owns exclusively; it reads the global settings (glbl) and the
 * parser instances and chains, all built by the main thread at config load
 * and read-only afterwards.
 */
#include "parser.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "msg.h"
#include "glbl.h"
#include "ruleset.h"
#include "module.h"
#include "ast.h"
#include "log.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PRI_MAX 191
#define PRI_DEFAULT 13                       /* user.notice */
#define PRI_INVALID ((MSG_FACILITY_INVALID << 3) | 7) /* LOG_INVLD|LOG_DEBUG */

/* Index of the first byte that needs the sanitising copy (rsyslog's first
 * sweep), or len. The settings are copied to locals: `src` may alias glbl
 * as far as the compiler knows, and this loop runs over every byte. */
static uint32_t first_to_sanitize(const unsigned char *src, uint32_t len)
{
	const bool esc_cc = glbl.escape_cc, esc_8bit = glbl.escape_8bit;
	uint32_t i;

	if (!esc_8bit) {
		i = 0;
#ifdef __SSE2__
		/* 32, then 16 bytes at a time: is a byte <= top (unsigned)? That
		 * is exactly the scalar test below, so the first set bit of
		 * the mask is the answer. */
		const __m128i top = _mm_set1_epi8(esc_cc ? 31 : 0);
#define SL_LE_TOP(v) _mm_cmpeq_epi8(_mm_min_epu8(v, top), v)
		for (; i + 32 <= len; i += 32) {
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 16));
			if (_mm_movemask_epi8(_mm_or_si128(SL_LE_TOP(a), SL_LE_TOP(b)))) {
				unsigned mk = (unsigned)_mm_movemask_epi8(SL_LE_TOP(a)) |
					      (unsigned)_mm_movemask_epi8(SL_LE_TOP(b)) << 16;
				return i + (uint32_t)__builtin_ctz(mk);
			}
		}
		if (len >= 16) {
			if (i + 16 <= len) {
				__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
				unsigned mk = (unsigned)_mm_movemask_epi8(SL_LE_TOP(v));
				if (mk)
					return i + (uint32_t)__builtin_ctz(mk);
				i += 16;
			}
			if (i < len) {
				/* the last 16 bytes, overlapping clean ones */
				__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + len - 16));
				unsigned mk = (unsigned)_mm_movemask_epi8(SL_LE_TOP(v));
				return mk ? len - 16 + (uint32_t)__builtin_ctz(mk) : len;
			}
			return len;
		}
#undef SL_LE_TOP
#endif
		/* 8 bytes at a time: does the word hold a byte below `lim`?
		 * (exact for lim <= 128, bytes >= 0x80 never match) */
		const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
		const uint64_t lim = ones * (esc_cc ? 32 : 1);
		for (; i + 8 <= len; i += 8) {
			uint64_t w;
			memcpy(&w, src + i, 8);
			if ((w - lim) & ~w & high)
				break;
		}
		for (; i < len; i++)
			if (src[i] < 32 && (esc_cc || src[i] == 0))
				return i;
		return len;
	}
	for (i = 0; i < len; i++) {
		if (src[i] < 32 ? (esc_cc || src[i] == 0) : src[i] > 127)
			return i;
	}
	return len;
}

/* Sanitise: the common case (nothing to escape) only trims the length in
 * place. When escaping is needed, the output length is counted first and
 * one buffer of exactly that size is allocated; like rsyslog, the result is
 * cut where it would exceed maxMessageSize (or four times the input).
 * Without escape_cc, control characters other than NUL (and TAB when
 * escape_cc_tab is off) are dropped by the copy, as in rsyslog. On ENOMEM
 * the message is left unescaped but trimmed. */
void parser_sanitize(struct msg *m)
{
	unsigned char *src = (unsigned char *)m->raw;
	uint32_t len = m->raw_len;
	uint32_t first;
	long long max_dest, d, pass;
	char *out;

	if (len > 0 && src[len - 1] == '\0')
		len--;
	if (glbl.drop_trailing_lf && len > 0 && src[len - 1] == '\n')
		len--;

	first = first_to_sanitize(src, len);
	if (first == len) {
		m->raw_len = len;
		m->raw[len] = '\0';
		return;
	}

	max_dest = (long long)len * 4;
	if (glbl.max_msg_size > 0 && max_dest > glbl.max_msg_size)
		max_dest = glbl.max_msg_size;

	/* pass 0 counts, pass 1 writes */
	out = NULL;
	for (pass = 0; pass < 2; pass++) {
		long long s = first > 0 ? first - 1 : 0;
		if (s > max_dest)
			s = max_dest;
		if (out)
			memcpy(out, src, (size_t)s);
		d = s;
		for (; s < len && d < max_dest - 3; s++) {
			unsigned char c = src[s];
			bool esc;
			if (c < 32) {
				if (c == '\t' && !glbl.escape_cc_tab) {
					if (out)
						out[d] = (char)c;
					d++;
					continue;
				}
				esc = (c == 0 || glbl.escape_cc);
				if (!esc)
					continue; /* dropped, as rsyslog does */
			} else {
				esc = (c > 127 && glbl.escape_8bit);
			}
			if (esc) {
				if (out) {
					out[d] = glbl.cc_escape_char;
					out[d + 1] = (char)('0' + ((c & 0300) >> 6));
					out[d + 2] = (char)('0' + ((c & 0070) >> 3));
					out[d + 3] = (char)('0' + (c & 0007));
				}
				d += 4;
			} else {
				if (out)
					out[d] = (char)c;
				d++;
			}
		}
		if (pass == 0) {
			out = malloc((size_t)d + 1);
			if (!out) {
				m->raw_len = len;
				m->raw[len] = '\0';
				return;
			}
		}
	}
	out[d] = '\0';
	msg_set_raw(m, out, (uint32_t)d);
}

void parser_parse_pri(struct msg *m)
{
	const unsigned char *p = (const unsigned char *)m->raw;
	int len = (int)m->raw_len;
	int pri = PRI_DEFAULT;

	if (len > 0 && *p == '<') {
		pri = 0;
		while (--len > 0 && *++p >= '0' && *p <= '9' && pri <= PRI_MAX)
			pri = 10 * pri + (*p - '0');
		if (*p == '>')
			++p;
		else
			pri = PRI_INVALID;
		if (pri > PRI_MAX)
			pri = PRI_INVALID;
	}
	m->facility = (uint8_t)(pri >> 3);
	m->severity = (uint8_t)(pri & 7);
	m->pri = (uint16_t)pri;
	m->off_after_pri = (pri == PRI_INVALID) ? 0 : (uint32_t)((const char *)p - m->raw);
}

static bool run_chain(struct msg *m, const struct parser_chain *c)
{
	for (int i = 0; i < c->n; i++) {
		const struct parser_inst *pi = c->p[i];
		if (pi->kind == PARSER_RFC5424) {
			if (pm_rfc5424_parse(m))
				return true;
		} else {
			pm_rfc3164_parse_opts(m, &pi->o3164);
			return true; /* pmrfc3164 takes every message */
		}
	}
	return false;
}

bool parser_parse(struct msg *m)
{
	if (m->raw_len == 0) {
		/* rsyslog discards empty messages before parsing; keep it well-formed */
		m->off_after_pri = 0;
		m->protocol_version = 0;
		m->flags |= MSG_HOST_IS_FROMHOST | MSG_PARSED;
		m->msg.off = 0;
		m->msg.len = 0;
		return true;
	}
	parser_sanitize(m);
	parser_parse_pri(m);
	const struct parser_chain *c = m->ruleset ? m->ruleset->parsers : NULL;
	bool ok = true;
	if (__builtin_expect(c == NULL, 1)) {
		if (!pm_rfc5424_parse(m))
			pm_rfc3164_parse(m);
	} else if (!run_chain(m, c)) {
		/* no parser took it: nothing but the PRI is parsed */
		m->protocol_version = 0;
		m->flags |= MSG_HOST_IS_FROMHOST;
		m->flags &= (uint16_t)~MSG_HAS_TAG;
		m->tag.off = m->tag.len = m->programname_len = 0;
		m->hostname.off = m->hostname.len = 0;
		m->app_name.off = m->app_name.len = 0;
		m->procid.off = m->procid.len = 0;
		m->msgid.off = m->msgid.len = 0;
		m->sd.off = m->sd.len = 0;
		m->msg.off = 0;
		m->msg.len = m->raw_len;
		ok = false;
	}
	m->flags |= MSG_PARSED;
	return ok;
}

/* ---- parser instances (config load, main thread) ---- */

static struct parser_inst builtin_5424 = { .name = "rsyslog.rfc5424", .kind = PARSER_RFC5424 };
static struct parser_inst builtin_3164 = { .name = "rsyslog.rfc3164", .kind = PARSER_RFC3164,
					   .next = &builtin_5424 };
static struct parser_inst *custom; /* parser() objects, newest first */

struct parser_cfg {
	char *name;
	char *type;
	bool year_after, sq_brackets, slashes, atsigns, tag_colon, first_space;
};

#define PC(f) offsetof(struct parser_cfg, f)
static const struct param_desc pm3164_params[] = {
	{ "name", PARAM_STRING, NULL, PARAM_REQUIRED, PC(name), "the instance's name" },
	{ "type", PARAM_STRING, NULL, PARAM_REQUIRED, PC(type), "the parser module" },
	{ "detect.yearaftertimestamp", PARAM_BINARY, "off", 0, PC(year_after),
	  "take a year 2000..2099 after the time" },
	{ "permit.squarebracketsinhostname", PARAM_BINARY, "off", 0, PC(sq_brackets),
	  "HOSTNAME may be enclosed in [ ]" },
	{ "permit.slashesinhostname", PARAM_BINARY, "off", 0, PC(slashes), "HOSTNAME may hold '/'" },
	{ "permit.atsignsinhostname", PARAM_BINARY, "off", 0, PC(atsigns), "HOSTNAME may hold '@'" },
	{ "force.tagendingbycolon", PARAM_BINARY, "off", 0, PC(tag_colon),
	  "a TAG must end with ':' (else TAG is \"-\")" },
	{ "remove.msgfirstspace", PARAM_BINARY, "off", 0, PC(first_space),
	  "drop one leading SP of MSG" },
};
static const struct param_desc pm5424_params[] = {
	{ "name", PARAM_STRING, NULL, PARAM_REQUIRED, PC(name), "the instance's name" },
	{ "type", PARAM_STRING, NULL, PARAM_REQUIRED, PC(type), "the parser module" },
};
static const struct param_table pm3164_table = PARAM_TABLE(pm3164_params, struct parser_cfg);
static const struct param_table pm5424_table = PARAM_TABLE(pm5424_params, struct parser_cfg);

const struct parser_inst *parser_lookup(const char *name)
{
	for (const struct parser_inst *p = custom; p; p = p->next)
		if (strcasecmp(p->name, name) == 0)
			return p;
	for (const struct parser_inst *p = &builtin_3164; p; p = p->next)
		if (strcasecmp(p->name, name) == 0)
			return p;
	return NULL;
}

void parser_create_from_obj(struct cfg_obj *o, int *n_errors)
{
	struct cfg_param *tp = cfg_obj_param(o, "type");
	const char *type = tp && !tp->val.is_array && tp->val.str ? tp->val.str : NULL;
	const struct param_table *t;
	enum parser_kind kind;

	if (tp)
		tp->used = false; /* param_parse takes it (and reports a missing one) */
	if (type && (!strcasecmp(type, "pmrfc3164") || !strcasecmp(type, "builtin:pmrfc3164"))) {
		t = &pm3164_table;
		kind = PARSER_RFC3164;
	} else if (type && (!strcasecmp(type, "pmrfc5424") || !strcasecmp(type, "builtin:pmrfc5424"))) {
		t = &pm5424_table;
		kind = PARSER_RFC5424;
	} else if (type) {
		static const char *const known[] = { "pmrfc3164", "pmrfc5424" };
		const char *sugg = cfg_closest(type, known, SL_ARRAY_SIZE(known));
		if (sugg)
			cfg_error(&tp->pos, "parser module '%s' is not known; did you mean '%s'?", type, sugg);
		else
			cfg_error(&tp->pos, "parser module '%s' is not supported by sluice "
				  "(supported: pmrfc3164, pmrfc5424)", type);
		(*n_errors)++;
		for (struct cfg_param *p = o->params; p; p = p->next)
			p->used = true;
		return;
	} else {
		cfg_error(&o->pos, "parameter 'type' required but not specified for parser");
		(*n_errors)++;
		for (struct cfg_param *p = o->params; p; p = p->next)
			p->used = true;
		return;
	}
	int errs = 0;
	struct parser_cfg *pc = param_parse(t, o, NULL, &errs);
	*n_errors += errs;
	if (errs || !pc->name) {
		param_free(t, pc);
		return;
	}
	if (parser_lookup(pc->name)) {
		/* rsyslog: "parser module name '%s' already exists" */
		cfg_error(&o->pos, "parser name '%s' already exists", pc->name);
		(*n_errors)++;
		param_free(t, pc);
		return;
	}
	struct parser_inst *pi = sl_xcalloc(1, sizeof(*pi));
	pi->name = sl_xstrdup(pc->name);
	pi->kind = kind;
	pi->o3164 = (struct pm_rfc3164_opts){
		.detect_year_after_ts = pc->year_after,
		.permit_sq_brackets = pc->sq_brackets,
		.permit_slashes = pc->slashes,
		.permit_atsigns = pc->atsigns,
		.force_tag_colon = pc->tag_colon,
		.remove_msg_first_space = pc->first_space,
	};
	pi->next = custom;
	custom = pi;
	param_free(t, pc);
}

bool parser_chain_add(struct parser_chain **chain, const char *name, const struct cfg_pos *pos)
{
	const struct parser_inst *pi = parser_lookup(name);
	if (!pi) {
		const char *cands[64];
		size_t n = 0;
		for (const struct parser_inst *p = custom; p && n < 62; p = p->next)
			cands[n++] = p->name;
		cands[n++] = builtin_3164.name;
		cands[n++] = builtin_5424.name;
		const char *sugg = cfg_closest(name, cands, n);
		if (sugg)
			cfg_error(pos, "parser '%s' is not known; did you mean '%s'?", name, sugg);
		else
			cfg_error(pos, "parser '%s' is not known (define it with parser(name=... "
				  "type=...) or use rsyslog.rfc5424 / rsyslog.rfc3164)", name);
		return false;
	}
	if (!*chain)
		*chain = sl_xcalloc(1, sizeof(**chain));
	if ((*chain)->n >= PARSER_CHAIN_MAX) {
		cfg_error(pos, "too many parsers for one ruleset (at most %d)", PARSER_CHAIN_MAX);
		return false;
	}
	(*chain)->p[(*chain)->n++] = pi;
	return true;
}

void parser_destroy_all(void)
{
	while (custom) {
		struct parser_inst *p = custom;
		custom = p->next;
		free(p->name);
		free(p);
	}
}
