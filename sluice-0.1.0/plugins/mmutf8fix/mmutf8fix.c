/* mmutf8fix.c — repairs invalid UTF-8 in the MSG part before it goes to
 * JSON consumers such as Elasticsearch (rsyslog's mmutf8fix).
 *
 * mode="utf-8" (default): every byte that is not part of a valid UTF-8
 * sequence is replaced by replacementChar; a multi-byte start byte
 * followed by an invalid byte has its whole (incomplete) sequence
 * replaced; overlong forms, surrogates and code points above U+10FFFF are
 * invalid. Control characters are valid UTF-8 and are kept.
 * mode="controlcharacters": every byte outside printable US-ASCII (32 to
 * 126) is replaced.
 * The replacement is done in place, byte for byte, so the length of the
 * message never changes (the MSG lives inside the raw bytes, so rawmsg
 * shows the repair too, as in rsyslog).
 *
 * Threading: a message modifier (MOD_FLAG_MSG_MODIFIER): tx_add runs on
 * the worker thread that runs the ruleset on the message, which owns it.
 */
#include "sluice.h"
#include "module.h"
#include "msg.h"
#include "ast.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct mmu_cfg {
	char *mode;
	char *replacement;
};

static const struct param_desc mmu_params[] = {
	{ "mode", PARAM_WORD, "utf-8", 0, offsetof(struct mmu_cfg, mode),
	  "utf-8 (replace invalid UTF-8) or controlcharacters (replace all but printable ASCII)" },
	{ "replacementChar", PARAM_STRING, " ", 0, offsetof(struct mmu_cfg, replacement),
	  "the character invalid bytes are replaced by (its first byte is used)" },
};
static const struct param_table mmu_table = PARAM_TABLE(mmu_params, struct mmu_cfg);

struct mmu_act {
	struct mmu_cfg *cfg;
	bool ctl_mode;
	char repl;
};

static void *mmu_act_create(void *cfgp, struct cfg_obj *o, int *n_errors)
{
	struct mmu_cfg *cfg = cfgp;
	struct mmu_act *a = sl_xcalloc(1, sizeof(*a));
	a->cfg = cfg;
	a->repl = cfg->replacement[0] ? cfg->replacement[0] : ' ';
	if (!strcasecmp(cfg->mode, "controlcharacters"))
		a->ctl_mode = true;
	else if (strcasecmp(cfg->mode, "utf-8") != 0) {
		cfg_error(&o->pos, "mmutf8fix: mode '%s' is not known; expected \"utf-8\" or "
			  "\"controlcharacters\"", cfg->mode);
		(*n_errors)++;
	}
	return a;
}

static void mmu_act_destroy(void *ap)
{
	struct mmu_act *a = ap;
	if (!a)
		return;
	param_free(&mmu_table, a->cfg);
	free(a);
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid; *bad
 * is set to how many bytes belong to the broken sequence then. */
static size_t utf8_seq(const unsigned char *p, size_t len, size_t *bad)
{
	unsigned char c = p[0];
	size_t n;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07;
	else {
		/* lone continuation byte, C0/C1 (always overlong) or F5..FF */
		size_t k = 1;
		if (c == 0xC0 || c == 0xC1)
			while (k < 2 && k < len && (p[k] & 0xC0) == 0x80)
				k++;
		*bad = k;
		return 0;
	}
	size_t k = 1;
	while (k < n && k < len && (p[k] & 0xC0) == 0x80) {
		cp = (cp << 6) | (p[k] & 0x3F);
		k++;
	}
	if (k < n) {
		*bad = k; /* truncated: the start byte and the continuations seen */
		return 0;
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
		*bad = n;
		return 0;
	}
	return n;
}

static enum act_result mmu_tx_add(void *ap, struct msg *m, const char *rendered, size_t rlen)
{
	(void)rendered;
	(void)rlen;
	struct mmu_act *a = ap;
	if (m->msg.len == 0 || m->msg.off + m->msg.len > m->raw_len)
		return ACT_OK;
	unsigned char *p = (unsigned char *)m->raw + m->msg.off;
	size_t len = m->msg.len;
	if (a->ctl_mode) {
		for (size_t i = 0; i < len; i++)
			if (p[i] < 32 || p[i] > 126)
				p[i] = (unsigned char)a->repl;
		return ACT_OK;
	}
	for (size_t i = 0; i < len;) {
		size_t bad = 0;
		size_t n = utf8_seq(p + i, len - i, &bad);
		if (n) {
			i += n;
			continue;
		}
		for (size_t k = 0; k < bad; k++)
			p[i + k] = (unsigned char)a->repl;
		i += bad;
	}
	return ACT_OK;
}

static const struct output_ops mmu_output = {
	.act_create = mmu_act_create,
	.act_destroy = mmu_act_destroy,
	.tx_add = mmu_tx_add,
	.default_template = "RSYSLOG_FileFormat",
};

const struct module sluice_module = {
	SLUICE_MODULE_V1,
	.name = "mmutf8fix",
	.description = "replace invalid UTF-8 (or non-printable bytes) in the message",
	.type = MOD_OUTPUT,
	.flags = MOD_FLAG_MSG_MODIFIER,
	.inst_params = &mmu_table,
	.output = &mmu_output,
};
