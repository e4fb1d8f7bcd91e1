/* script_regex.c — regular expressions of the script engine (re_match(),
 * re_extract(), legacy :prop, regex / ereregex filters), compiled once at
 * load.
 *
 * rsyslog uses POSIX regcomp/regexec. For match/no-match questions with an
 * ERE whose syntax means the same thing in PCRE2 (checked conservatively
 * by pcre_safe(): no backslashes, no "(?", no stacked quantifiers, only
 * well-formed intervals and plain bracket expressions), the pattern is also
 * compiled with PCRE2 and JIT: whether a match exists does not depend on
 * leftmost-longest versus leftmost-first, so the answer is identical and
 * several times faster. Everything else, and every extraction (which
 * needs POSIX submatch positions), uses POSIX.
 *
 * Cheaper still, an ERE that is nothing but literal alternatives
 * ("Failed password|Invalid user", "\\[UFW BLOCK\\]", "^postfix") answers a
 * match/no-match question with a memchr()/memcmp() search or, anchored, memcmp(): it
 * matches exactly when one of its alternatives occurs (at the start of the
 * subject for a leading '^'), whichever engine is asked.
 *
 * Threading: compiled in the main thread; matching is reentrant. PCRE2
 * match data is per thread (created on first use, freed at thread exit),
 * so no allocation happens per match.
 */
#include "config.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sluice.h"
#include "script_int.h"

#ifdef HAVE_PCRE2
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

static pthread_key_t md_key;
static pthread_once_t md_once = PTHREAD_ONCE_INIT;

static void md_free(void *p)
{
	pcre2_match_data_free(p);
}

static void md_key_init(void)
{
	pthread_key_create(&md_key, md_free);
}

/* The thread's match data, room for the 10 pairs of the property
 * replacer (re_match uses only the first). */
static pcre2_match_data *thread_md(void)
{
	pthread_once(&md_once, md_key_init);
	pcre2_match_data *md = pthread_getspecific(md_key);
	if (!md) {
		md = pcre2_match_data_create(10, NULL);
		pthread_setspecific(md_key, md);
	}
	return md;
}

/* The index of the ']' that closes the bracket expression opening at
 * p[i], if PCRE2 reads it as POSIX does (no backslash, which is a literal
 * in POSIX and an escape in PCRE2; nested '[' only as "[:class:]"); 0
 * otherwise. */
static size_t bracket_end(const char *p, size_t i)
{
	size_t j = i + 1;
	if (p[j] == '^')
		j++;
	if (p[j] == ']')
		j++;
	for (; p[j] && p[j] != ']'; j++) {
		if (p[j] == '\\')
			return 0;
		if (p[j] == '[') {
			if (p[j + 1] != ':')
				return 0;
			const char *e = strstr(p + j + 2, ":]");
			if (!e)
				return 0;
			j = (size_t)(e - p) + 1;
		}
	}
	return p[j] ? j : 0;
}

/* Does the ERE mean the same to PCRE2 (for match/no-match)? */
static bool pcre_safe(const char *p)
{
	bool prev_quant = false, prev_open = false;
	for (size_t i = 0; p[i]; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (ch == '\\' && p[i + 1] && strchr(".[](){}*+?|^$\\", p[i + 1])) {
			/* an escaped metacharacter is the literal character in
			 * POSIX ERE and in PCRE2 alike (outside a bracket) */
			i++;
			prev_quant = false;
			prev_open = false;
			continue;
		}
		if (ch == '\\' || ch < 0x20 || ch >= 0x7f)
			return false;
		if (ch == '*' || ch == '+' || ch == '?') {
			if (prev_quant || prev_open || i == 0)
				return false;
			prev_quant = true;
			prev_open = false;
			continue;
		}
		if (ch == '{') {
			/* {m}, {m,}, {m,n} with m <= n */
			size_t j = i + 1;
			unsigned long m = 0, n;
			if (prev_quant || prev_open || i == 0 || p[j] < '0' || p[j] > '9')
				return false;
			while (p[j] >= '0' && p[j] <= '9')
				m = m * 10 + (unsigned long)(p[j++] - '0');
			n = m;
			if (p[j] == ',') {
				j++;
				n = 256;
				if (p[j] >= '0' && p[j] <= '9')
					for (n = 0; p[j] >= '0' && p[j] <= '9'; j++)
						n = n * 10 + (unsigned long)(p[j] - '0');
			}
			if (p[j] != '}' || m > 255 || n < m || n > 256)
				return false;
			i = j;
			prev_quant = true;
			continue;
		}
		if (ch == '}')
			return false;
		if (ch == '[') {
			size_t j = bracket_end(p, i);
			if (j == 0)
				return false;
			i = j;
			prev_quant = prev_open = false;
			continue;
		}
		prev_open = ch == '(' || ch == '|';
		if (prev_open && p[i + 1] == ')')
			return false; /* "()" and "|)": POSIX and PCRE disagree on empty alternatives */
		prev_quant = false;
	}
	return true;
}

/* Do the submatch positions of ERE `p` come out of PCRE2 exactly as out of
 * POSIX regexec? pcre_safe() covers match/no-match only: where a match
 * starts and ends and what each group holds can differ (leftmost-longest
 * versus leftmost-first) as soon as there is an alternation or a
 * quantified group. Accepted here: pcre_safe patterns made of single
 * characters, '.', escaped metacharacters and bracket expressions, each
 * with at most one quantifier, grouped by unnested, unquantified,
 * non-empty parentheses (at most 9), '^' only first and '$' only last.
 * For these the greedy-first match is the leftmost-longest one and the
 * groups agree; tests/unit/test_hotpath.c compares both engines on
 * random patterns and texts of this shape (and shows that alternation or
 * a quantified group do make them differ). */
static bool pcre_submatch_safe(const char *p)
{
	if (!pcre_safe(p))
		return false;
	int groups = 0;
	bool in_group = false;
	for (size_t i = 0; p[i]; i++) {
		char ch = p[i];
		if (ch == '\\') {
			i++; /* pcre_safe allowed only escaped metacharacters */
			continue;
		}
		if (ch == '[') { /* pcre_safe checked it */
			i = bracket_end(p, i);
			continue;
		}
		switch (ch) {
		case '|':
			return false;
		case '(':
			if (in_group || p[i + 1] == ')')
				return false;
			in_group = true;
			groups++;
			break;
		case ')':
			if (!in_group || (p[i + 1] && strchr("*+?{", p[i + 1]) != NULL))
				return false;
			in_group = false;
			break;
		case '^':
			if (i != 0)
				return false;
			break;
		case '$':
			if (p[i + 1] != '\0')
				return false;
			break;
		default:
			break;
		}
	}
	return !in_group && groups <= 9;
}

#endif

void *script_regex_pcre_submatch(const char *ere)
{
#ifdef HAVE_PCRE2
	if (!pcre_submatch_safe(ere))
		return NULL;
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)ere, PCRE2_ZERO_TERMINATED,
				      PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY, &ec, &eo, NULL);
	if (c && pcre2_jit_compile(c, PCRE2_JIT_COMPLETE) == 0)
		return c;
	pcre2_code_free(c);
#else
	(void)ere;
#endif
	return NULL;
}

void script_regex_pcre_free(void *code)
{
#ifdef HAVE_PCRE2
	pcre2_code_free(code);
#else
	(void)code;
#endif
}

int script_regex_pcre_exec(void *code, const char *str, size_t nmatch, regmatch_t *pm)
{
#ifdef HAVE_PCRE2
	pcre2_match_data *md = thread_md();
	if (!md)
		return REG_ESPACE;
	/* regexec reads a C string */
	int rc = pcre2_jit_match(code, (PCRE2_SPTR)str, strlen(str), 0, 0, md, NULL);
	if (rc < 0)
		return REG_NOMATCH;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	for (size_t k = 0; k < nmatch; k++) {
		if (k < (size_t)rc && ov[2 * k] != PCRE2_UNSET) {
			pm[k].rm_so = (regoff_t)ov[2 * k];
			pm[k].rm_eo = (regoff_t)ov[2 * k + 1];
		} else {
			pm[k].rm_so = pm[k].rm_eo = -1;
		}
	}
	return 0;
#else
	(void)code; (void)str; (void)nmatch; (void)pm;
	return REG_NOMATCH;
#endif
}

/* The ERE `p` as literal alternatives, into r->lits; false (nothing set)
 * when it is anything else: an alternative may hold characters from
 * 0x20 to 0x7e other than metacharacters, and metacharacters escaped
 * with a backslash, and may start with '^'; none may be empty. */
#define RE_MAX_LITS 16
static bool literal_alts(struct script_regex *r, const char *p)
{
	/* one block: the alternatives, then their text (never longer than p) */
	struct re_lit *alt = malloc(RE_MAX_LITS * sizeof(*alt) + strlen(p));
	if (!alt)
		return false;
	char *o = (char *)(alt + RE_MAX_LITS);
	int n = 0;
	for (size_t i = 0;;) {
		if (n == RE_MAX_LITS)
			goto no;
		struct re_lit *l = &alt[n++];
		l->anchored = p[i] == '^';
		i += l->anchored;
		l->s = o;
		l->key = SIZE_MAX;
		for (; p[i] && p[i] != '|'; i++) {
			unsigned char ch = (unsigned char)p[i];
			if (ch == '\\' && p[i + 1] && strchr(".[](){}*+?|^$\\", p[i + 1]))
				ch = (unsigned char)p[++i];
			else if (ch < 0x20 || ch >= 0x7f || strchr(".[](){}*+?^$\\", ch))
				goto no;
			/* memchr() looks for the first byte that is not a lower-case
			 * letter, a digit or a space (those are everywhere in log
			 * text), or for the first byte */
			if (l->key == SIZE_MAX && !(ch >= 'a' && ch <= 'z') && !(ch >= '0' && ch <= '9') &&
			    ch != ' ')
				l->key = (size_t)(o - l->s);
			*o++ = (char)ch;
		}
		l->len = (size_t)(o - l->s);
		if (l->len == 0)
			goto no;
		if (l->key == SIZE_MAX)
			l->key = 0;
		if (!p[i])
			break;
		i++; /* '|' */
	}
	r->lits = alt;
	r->n_lits = n;
	return true;
no:
	free(alt);
	return false;
}

struct script_regex *script_regex_new(const char *pat, bool ere, bool icase, char *err, size_t errsz)
{
	struct script_regex *r = sl_xcalloc(1, sizeof(*r));
	int rc = regcomp(&r->re, pat, (ere ? REG_EXTENDED : 0) | (icase ? REG_ICASE : 0));
	if (rc != 0) {
		regerror(rc, &r->re, err, errsz);
		free(r);
		return NULL;
	}
	if (ere && !icase && literal_alts(r, pat))
		return r;
#ifdef HAVE_PCRE2
	if (ere && pcre_safe(pat)) {
		int ec;
		PCRE2_SIZE eo;
		pcre2_code *c = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
					      PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY | (icase ? PCRE2_CASELESS : 0),
					      &ec, &eo, NULL);
		if (c && pcre2_jit_compile(c, PCRE2_JIT_COMPLETE) == 0)
			r->pcre = c;
		else
			pcre2_code_free(c);
	}
#endif
	return r;
}

void script_regex_free(struct script_regex *r)
{
	if (!r)
		return;
	regfree(&r->re);
#ifdef HAVE_PCRE2
	pcre2_code_free(r->pcre);
#endif
	free(r->lits);
	free(r);
}

bool script_regex_uses_jit(const struct script_regex *r)
{
	return r->pcre != NULL;
}

bool script_regex_is_literal(const struct script_regex *r)
{
	return r->lits != NULL;
}

/* Does l occur in p[0..len)? memchr() for its key byte, then memcmp():
 * for the short literals and lines of log filters this is several times
 * cheaper than glibc's memmem, whose set-up alone costs more. */
static bool lit_find(const struct re_lit *l, const char *p, size_t len)
{
	if (l->len > len)
		return false;
	const char *from = p + l->key, *end = p + len - l->len + l->key + 1;
	char key = l->s[l->key];
	while (from < end) {
		const char *q = memchr(from, key, (size_t)(end - from));
		if (!q)
			return false;
		if (memcmp(q - l->key, l->s, l->len) == 0)
			return true;
		from = q + 1;
	}
	return false;
}

bool script_regex_match(const struct script_regex *r, const char *p, size_t len)
{
	/* rsyslog hands regexec a C string: it ends at the first NUL */
	const char *nul = memchr(p, '\0', len);
	if (nul)
		len = (size_t)(nul - p);
	if (r->lits) {
		for (int k = 0; k < r->n_lits; k++) {
			const struct re_lit *l = &r->lits[k];
			if (l->anchored ? len >= l->len && memcmp(p, l->s, l->len) == 0
					: lit_find(l, p, len))
				return true;
		}
		return false;
	}
#ifdef HAVE_PCRE2
	if (r->pcre) {
		pcre2_match_data *md = thread_md();
		if (md)
			return pcre2_jit_match(r->pcre, (PCRE2_SPTR)p, len, 0, 0, md, NULL) >= 0;
	}
#endif
	regmatch_t m[1];
	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)len;
	return regexec(&r->re, p, 1, m, REG_STARTEND) == 0;
}

int script_regex_exec(const struct script_regex *r, const char *p, size_t len, size_t nmatch,
		      regmatch_t *m)
{
	regmatch_t tmp[1];
	if (nmatch == 0) {
		m = tmp;
		nmatch = 1;
	}
	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)len;
	return regexec(&r->re, p, nmatch, m, REG_STARTEND);
}
