/*
 * vendor_words: the words every message uses for a vendor's hardware,
 * libraries and remedies, one row per vendor, so that advice on an Ascend
 * run names HCCS, HCCL and the NPU graph mode, and a CPU-only run gets no
 * device words at all.
 */
#ifndef VT_VENDOR_WORDS_H
#define VT_VENDOR_WORDS_H

#include "report.h"

struct vendor_words {
	const char *vendor;		/* analyzer/device.c's vendor; NULL: CPU only */
	const char *device;		/* "GPU", "NPU", "device"; NULL: no device */
	const char *graphs;		/* "CUDA graphs"; NULL: none */
	const char *interconnect;	/* "NVLink/InfiniBand" */
	const char *collectives;	/* "NCCL" */
	const char *events;		/* "CUDA events": what a stream waits on */
	const char *alloc_conf;		/* the allocator's setting against fragmentation
					 * ("PYTORCH_CUDA_ALLOC_CONF=..."); NULL: none known */
	const char *fast_attention;	/* the vendor's fastest attention, in advice */
};

/* The words of vendor (a report_device.vendor; NULL: a CPU-only run). */
const struct vendor_words *vendor_words(const char *vendor);

/* The words of the run: its first rank with device work, else CPU only. */
const struct vendor_words *vendor_words_of_run(const struct report *rep);

#endif
