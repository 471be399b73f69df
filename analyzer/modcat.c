/*
 * modcat: see modcat.h.  Module classes and record_function names of
 * attention blocks say so in their names (Attention, SelfAttention,
 * CrossAttention, MultiheadAttention, self_attn, attn1), in any case; a
 * Python frame's name is its file and function, attention.py(88): forward.
 */
#include "modcat.h"

#include "namematch.h"

static const char *const words[] = { "attention", "attn" };

int modcat_is_attention(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (name_matches(NAME_HAS_ANYCASE, words[i], s, n))
			return 1;
	return 0;
}
