/*
 * device: which trace events are device work, per vendor and version.
 *
 * One table (device.c) says, for every vendor and profiler version we read,
 * which events are device kernels, memory copies and sets, collectives,
 * device-side waits and host runtime calls: by cat (compared without case,
 * as Kineto 2021 capitalised them), by process name where a producer writes
 * no cat (torch_npu), and by name patterns inside a rule.  Every rule names
 * its source.  The functions here only read the table; callers cache their
 * answers per interned string, so nothing is matched per event.
 */
#ifndef VT_DEVICE_H
#define VT_DEVICE_H

#include <stddef.h>

enum dev_kind {
	DK_NONE,		/* not device work: left to the other analyses */
	DK_KERNEL,		/* a kernel or compute task on the device */
	DK_MEMCPY,		/* a copy run by the device */
	DK_MEMSET,
	DK_COMM_TASK,		/* data moved inside a collective (HCCL's SDMA and Plane tasks) */
	DK_WAIT,		/* a device-side wait or event record: no work, not busy */
	DK_RUNTIME,		/* a host call into the vendor runtime or driver */
	DK_SYNC,		/* a runtime call that blocks the host until the device is done */
};

struct dev_rule {
	const char *vendor;	/* "nvidia", "amd", "ascend", "mtia", "intel" */
	const char *source;	/* the recogniser, as report.json's device.source says it */
	const char *key;	/* the cat, or the process name */
	int by_process;		/* 1: key is a process name (events without cat) */
	enum dev_kind kind;	/* before the rule's name patterns refine it */
};

/* The rule for events of cat s[0..n) (any case), or -1. */
int device_cat_rule(const char *s, size_t n);

/* The rule for events without cat in the process named s[0..n), or -1. */
int device_process_rule(const char *s, size_t n);

/* Rule number r (from the two lookups above). */
const struct dev_rule *device_rule(int r);

/* What an event of rule r named s[0..n) is: the rule's kind refined by name. */
enum dev_kind device_kind(int r, const char *s, size_t n);

/*
 * 1 when a device event named s[0..n) is a collective operator that holds
 * the collective's own device tasks (torch_npu's hcom_* on the HCCL track),
 * so that its waiting can be told from its transfer; else 0.
 */
int device_collective_op(const char *s, size_t n);

/* "amd" for a HIP runtime call name, "nvidia" for a CUDA one, else NULL (static). */
const char *device_runtime_vendor(const char *s, size_t n);

#endif
