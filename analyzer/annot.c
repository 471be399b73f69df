/*
 * annot: see annot.h.  One table of the names that are not user
 * annotations, beside classify.h's collectives; annot_is_user() reads
 * them and knows nothing else.
 */
#include "annot.h"

#include <string.h>

#include "classify.h"

enum annot_match { PREFIX, EXACT, SUFFIX_NODE };

struct annot_rule {
	enum annot_match how;
	const char *text;
	const char *why;		/* for the reader of this table */
};

static const struct annot_rule not_user[] = {
	{ PREFIX, "[", "profiler bookkeeping: [memory], [OutOfMemory]" },
	{ EXACT, "detach_", "autograd's manual op, recorded without a namespace" },
	{ EXACT, "detach", "the same" },
	{ EXACT, "set_data", "the same" },
	{ EXACT, "requires_grad_", "the same" },
	{ EXACT, "retain_grad", "the same" },
	{ SUFFIX_NODE, "Backward", "autograd graph nodes: MmBackward0, AddBackward1" },
};

/* "ns::..." with ns a C identifier: an operator of a registered library. */
static int has_namespace(const char *s, size_t len)
{
	size_t i = 0;

	if (!len || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return 0;
	while (i < len && (s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
			   (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z')))
		i++;
	return i + 1 < len && s[i] == ':' && s[i + 1] == ':';
}

/* A class name, then word and digits only at the end, with no space. */
static int is_node(const char *s, size_t len, const char *word)
{
	size_t w = strlen(word), d = len;

	if (memchr(s, ' ', len))
		return 0;
	while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	return d > w && memcmp(s + d - w, word, w) == 0;
}

int annot_is_user(const char *s, size_t len)
{
	if (!len || has_namespace(s, len) || (classify_flags(classify_name(s, len)) & CF_NOT_ANNOT))
		return 0;
	for (size_t i = 0; i < sizeof(not_user) / sizeof(not_user[0]); i++) {
		const struct annot_rule *r = &not_user[i];
		size_t n = strlen(r->text);

		switch (r->how) {
		case PREFIX:
			if (len >= n && !memcmp(s, r->text, n))
				return 0;
			break;
		case EXACT:
			if (len == n && !memcmp(s, r->text, n))
				return 0;
			break;
		case SUFFIX_NODE:
			if (is_node(s, len, r->text))
				return 0;
			break;
		}
	}
	return 1;
}
