/*
 * hostcat: which Kineto cats are host-side spans the analyses read (the
 * table in hostcat.c): CPU operators, Python frames and modules, user
 * annotations and their copies on the GPU timeline.  device.h is the
 * table of the device's events and runtime calls; gpu_collect() asks both
 * once per cat and batch and writes each event's class (gpu.h).
 */
#ifndef VT_HOSTCAT_H
#define VT_HOSTCAT_H

#include <stddef.h>

enum host_cat { HC_NONE, HC_CPU_OP, HC_FRAME, HC_ANNOT, HC_GPU_ANNOT };

/* The host category of events of cat s[0..n) (exact spelling), HC_NONE if none. */
enum host_cat hostcat_of(const char *s, size_t n);

#endif
