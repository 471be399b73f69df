/*
 * annot: which events of a trace without "cat" are user annotations.
 *
 * PyTorch's legacy writer (torch built without Kineto) writes every event
 * as an "X" with no cat, so operators and record_function spans look alike.
 * The names tell them apart: operators carry a C++ namespace
 * ("aten::mm", "c10d::allreduce_", a custom "mylib::op") or are
 * collectives (classify.h: "gloo:", "nccl:"), autograd writes its nodes ("MmBackward0") and a
 * few manual ops ("detach_"), and the profiler a few bookkeeping names.
 * Everything else is a name a user gave to record_function, a phase as a
 * user_annotation is in a Kineto trace.  The table lives in annot.c.
 */
#ifndef VT_ANNOT_H
#define VT_ANNOT_H

#include <stddef.h>

/* The legacy writer's process of device events (kernels, named as such). */
#define ANNOT_DEVICE_PID "CUDA functions"

/*
 * Whether the span name s[0..len) (not NUL-terminated), of an event that
 * has no cat and is not in ANNOT_DEVICE_PID, is a user annotation.  Pure.
 */
int annot_is_user(const char *s, size_t len);

#endif
