/*
 * sampler: see sampler.h.  Files under /proc are read with open/read into a
 * stack buffer: no stdio, no allocation, so sampling costs the host process
 * nothing but the system calls.  NVML functions are looked up by name; the
 * _v2 entry points are the ones every driver since 2012 exports.
 */
#include "sampler.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* NVML's own structs, as nvml.h declares them. */
struct nvml_memory {
	unsigned long long total, free, used;
};

struct nvml_utilization {
	unsigned int gpu, memory;
};

#define NVML_TEMPERATURE_GPU 0

static int64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The start of a small /proc file, NUL-terminated.  Length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The number after "key:" in /proc/meminfo text, in bytes, or -1. */
static int64_t meminfo_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	if (!p)
		return -1;
	return strtoll(p + strlen(key), NULL, 10) * 1024;
}

static void *sym(void *dl, const char *name)
{
	return dl ? dlsym(dl, name) : NULL;
}

static void nvml_open(struct sampler *s)
{
	int (*init)(void), (*count)(unsigned *), (*handle)(unsigned, void **);
	unsigned n = 0;

	s->nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	init = (int (*)(void))sym(s->nvml, "nvmlInit_v2");
	count = (int (*)(unsigned *))sym(s->nvml, "nvmlDeviceGetCount_v2");
	handle = (int (*)(unsigned, void **))sym(s->nvml, "nvmlDeviceGetHandleByIndex_v2");
	s->shutdown = (int (*)(void))sym(s->nvml, "nvmlShutdown");
	s->get_memory = (int (*)(void *, void *))sym(s->nvml, "nvmlDeviceGetMemoryInfo");
	s->get_util = (int (*)(void *, void *))sym(s->nvml, "nvmlDeviceGetUtilizationRates");
	s->get_temp = (int (*)(void *, int, unsigned *))sym(s->nvml, "nvmlDeviceGetTemperature");
	s->get_power = (int (*)(void *, unsigned *))sym(s->nvml, "nvmlDeviceGetPowerUsage");
	if (!init || !count || !handle || !s->shutdown || init() != 0)
		goto none;
	if (count(&n) != 0)
		n = 0;
	for (unsigned i = 0; i < n && s->nr_gpus < SAMPLER_MAX_GPUS; i++)
		if (handle(i, &s->dev[s->nr_gpus]) == 0)
			s->nr_gpus++;
	if (s->nr_gpus)
		return;
	s->shutdown();
none:
	if (s->nvml)
		dlclose(s->nvml);
	s->nvml = NULL;
	s->nr_gpus = 0;
}

void sampler_open(struct sampler *s)
{
	memset(s, 0, sizeof(*s));
	s->page_size = sysconf(_SC_PAGESIZE);
	s->last_cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	s->last_wall_ns = clock_ns(CLOCK_MONOTONIC);
	nvml_open(s);
}

static void read_gpu(struct sampler *s, unsigned i, struct sampler_gpu *gp)
{
	struct nvml_memory mem;
	struct nvml_utilization util;
	unsigned u;

	gp->mem_used = gp->mem_total = gp->util_pct = gp->temp_c = gp->power_mw = -1;
	if (s->get_memory && s->get_memory(s->dev[i], &mem) == 0) {
		gp->mem_used = mem.used;
		gp->mem_total = mem.total;
	}
	if (s->get_util && s->get_util(s->dev[i], &util) == 0)
		gp->util_pct = util.gpu;
	if (s->get_temp && s->get_temp(s->dev[i], NVML_TEMPERATURE_GPU, &u) == 0)
		gp->temp_c = u;
	if (s->get_power && s->get_power(s->dev[i], &u) == 0)
		gp->power_mw = u;
}

void sampler_read(struct sampler *s, struct sampler_values *v)
{
	char text[4096];
	int64_t cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID), wall = clock_ns(CLOCK_MONOTONIC);
	long long size, resident;

	v->cpu_pct = -1;
	if (cpu >= 0 && s->last_cpu_ns >= 0 && wall > s->last_wall_ns)
		v->cpu_pct = (cpu - s->last_cpu_ns) * 100 / (wall - s->last_wall_ns);
	s->last_cpu_ns = cpu;
	s->last_wall_ns = wall;
	v->rss_bytes = -1;
	if (read_small("/proc/self/statm", text, sizeof(text)) > 0 &&
	    sscanf(text, "%lld %lld", &size, &resident) == 2)
		v->rss_bytes = resident * s->page_size;
	v->mem_avail_bytes = v->mem_total_bytes = -1;
	if (read_small("/proc/meminfo", text, sizeof(text)) > 0) {
		v->mem_total_bytes = meminfo_field(text, "MemTotal:");
		v->mem_avail_bytes = meminfo_field(text, "MemAvailable:");
	}
	v->nr_gpus = s->nr_gpus;
	for (unsigned i = 0; i < s->nr_gpus; i++)
		read_gpu(s, i, &v->gpu[i]);
}

void sampler_close(struct sampler *s)
{
	if (s->nvml) {
		s->shutdown();
		dlclose(s->nvml);
	}
	s->nvml = NULL;
	s->nr_gpus = 0;
}
