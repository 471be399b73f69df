/*
 * sampler: process, system and GPU metrics for the collector's background
 * thread.  CPU and memory come from the kernel (/proc and the process CPU
 * clock); GPUs from NVML, loaded with dlopen("libnvidia-ml.so.1") when it is
 * there.  Without NVML, or when it fails to start, there are simply no GPUs:
 * the sampler never reports an error.  Not thread-safe: one thread owns it.
 * Values it could not read are -1.
 */
#ifndef VT_SAMPLER_H
#define VT_SAMPLER_H

#include <stdint.h>

#define SAMPLER_MAX_GPUS 16

struct sampler_gpu {
	int64_t mem_used, mem_total;	/* bytes */
	int64_t util_pct;		/* 0..100 */
	int64_t temp_c;
	int64_t power_mw;
};

struct sampler_values {
	int64_t cpu_pct;		/* process CPU since the last read; 100 = one core */
	int64_t rss_bytes;
	int64_t mem_avail_bytes, mem_total_bytes;	/* the whole machine */
	unsigned nr_gpus;
	struct sampler_gpu gpu[SAMPLER_MAX_GPUS];
};

struct sampler {
	void *nvml;			/* dlopen handle, NULL without NVML */
	unsigned nr_gpus;
	void *dev[SAMPLER_MAX_GPUS];	/* nvmlDevice_t */
	int64_t last_cpu_ns, last_wall_ns;
	long page_size;
	int (*get_memory)(void *dev, void *mem);
	int (*get_util)(void *dev, void *util);
	int (*get_temp)(void *dev, int sensor, unsigned *temp);
	int (*get_power)(void *dev, unsigned *mw);
	int (*shutdown)(void);
};

/* Set up s (loading NVML when present).  Never fails. */
void sampler_open(struct sampler *s);

/* Read every metric into *v. */
void sampler_read(struct sampler *s, struct sampler_values *v);

/* Shut NVML down and unload it.  s may be opened again. */
void sampler_close(struct sampler *s);

#endif
