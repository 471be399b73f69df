/*
 * fake_nvml: a stand-in libnvidia-ml.so.1 with two GPUs and fixed readings,
 * built by collector.mk for test_collector_nvml.  Only the entry points the
 * collector's sampler looks up, with NVML's signatures; 0 is NVML_SUCCESS.
 */
#include <stddef.h>

struct fake_memory {
	unsigned long long total, free, used;
};

struct fake_utilization {
	unsigned int gpu, memory;
};

struct fake_device {
	unsigned index;
};

static struct fake_device devices[2] = { { 0 }, { 1 } };
static int initialized;

int nvmlInit_v2(void)
{
	initialized = 1;
	return 0;
}

int nvmlShutdown(void)
{
	initialized = 0;
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned *count)
{
	if (!initialized)
		return 1;
	*count = 2;
	return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, struct fake_device **dev)
{
	if (!initialized || index >= 2)
		return 2;
	*dev = &devices[index];
	return 0;
}

/* GPU i: (i + 1) GiB used of 80 GiB, 40 + i % busy, 60 + i C, 300 + i W. */
int nvmlDeviceGetMemoryInfo(struct fake_device *dev, struct fake_memory *mem)
{
	mem->total = 80ull << 30;
	mem->used = (unsigned long long)(dev->index + 1) << 30;
	mem->free = mem->total - mem->used;
	return 0;
}

int nvmlDeviceGetUtilizationRates(struct fake_device *dev, struct fake_utilization *util)
{
	util->gpu = 40 + dev->index;
	util->memory = 10;
	return 0;
}

int nvmlDeviceGetTemperature(struct fake_device *dev, int sensor, unsigned *temp)
{
	if (sensor != 0)
		return 2;
	*temp = 60 + dev->index;
	return 0;
}

int nvmlDeviceGetPowerUsage(struct fake_device *dev, unsigned *mw)
{
	*mw = 300000 + 1000 * dev->index;
	return 0;
}
