/*
 * hostcat: see hostcat.h.  Kineto's ActivityType names (libkineto
 * ActivityType.cpp) and PyTorch 1.8/1.9's "Operator" for cpu_op; compared
 * exactly, as Kineto writes them.
 */
#include "hostcat.h"

#include "namematch.h"

static const struct {
	const char *cat;
	enum host_cat hc;
} table[] = {
	{ "cpu_op", HC_CPU_OP },
	{ "Operator", HC_CPU_OP },		/* Kineto 2021 */
	{ "python_function", HC_FRAME },	/* with_stack / with_modules: nn.Module: X_0 */
	{ "user_annotation", HC_ANNOT },	/* record_function */
	{ "gpu_user_annotation", HC_GPU_ANNOT },	/* its span on the device's timeline */
};

enum host_cat hostcat_of(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (name_matches(NAME_IS, table[i].cat, s, n))
			return table[i].hc;
	return HC_NONE;
}
