/*
 * classify: see classify.h.  Sources: libkineto's ActivityType names
 * (cpu_op, python_function, user_annotation, gpu_user_annotation) and
 * PyTorch 1.8/1.9's "Operator" for cpu_op; ProcessGroupGloo's and
 * ProcessGroupNCCL's record_function names (gloo:all_reduce,
 * nccl:all_reduce), c10d's operators and record_param_comms; HTA's MTIA
 * samples (hccl:* annotations); torch_npu's trace_view.json (AscendCL@
 * calls in the CANN process, without cat).
 */
#include "classify.h"

#include "namematch.h"

static const struct {
	const char *cat;
	enum ev_class c;
} host_cats[] = {
	{ "cpu_op", EVC_CPU_OP },
	{ "Operator", EVC_CPU_OP },		/* Kineto 2021 */
	{ "python_function", EVC_FRAME },	/* with_stack / with_modules: nn.Module: X_0 */
	{ "user_annotation", EVC_ANNOT },	/* record_function */
	{ "gpu_user_annotation", EVC_GPU_ANNOT },	/* its span on the device's timeline */
};

enum ev_class classify_host_cat(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(host_cats) / sizeof(host_cats[0]); i++)
		if (name_matches(NAME_IS, host_cats[i].cat, s, n))
			return host_cats[i].c;
	return EVC_NONE;
}

/*
 * The host spans of collectives, one list, first match wins: each row's
 * flags say which analysis counts it.  gloo's spans and c10d's waits and
 * barriers hold the host until the peers arrive; c10d's other operators
 * (allreduce_, broadcast_) only queue the collective.  record_param_comms
 * carries no namespace, so in a trace without cat it reads as a user's
 * name, as it always has.
 */
static const struct host_row {
	enum name_how how;
	const char *pat;
	unsigned flags;
} host_rows[] = {
	{ NAME_STARTS, "hccl:", CF_HOST_COLL },		/* [MTIA] */
	{ NAME_STARTS, "gloo:", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT },
	{ NAME_STARTS, "nccl:", CF_CPU_COMM | CF_NOT_ANNOT },
	{ NAME_STARTS, "c10d::wait", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT },
	{ NAME_STARTS, "c10d::barrier", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT },
	{ NAME_STARTS, "c10d::monitored_barrier", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT },
	{ NAME_STARTS, "c10d::", CF_CPU_COMM | CF_NOT_ANNOT },
	{ NAME_IS, "record_param_comms", CF_CPU_COMM },
};

#define NR_HOST_ROWS (sizeof(host_rows) / sizeof(host_rows[0]))

/* [NPU] torch_npu's runtime calls: no cat, named so in the CANN process. */
#define NOCAT_CALL "AscendCL@"

enum ev_sub classify_name(const char *s, size_t n)
{
	for (size_t i = 0; i < NR_HOST_ROWS; i++)
		if (name_matches(host_rows[i].how, host_rows[i].pat, s, n))
			return (enum ev_sub)(EVS_ROW + i);
	if (!name_matches(NAME_STARTS, NOCAT_CALL, s, n))
		return EVS_NONE;
	if (device_kind(device_process_rule("CANN", 4), s, n) == DK_SYNC)
		return EVS_NOCAT_SYNC;
	return EVS_NOCAT_CALL;
}

unsigned classify_flags(enum ev_sub sub)
{
	return sub >= EVS_ROW && sub < EVS_ROW + NR_HOST_ROWS ? host_rows[sub - EVS_ROW].flags : 0;
}
