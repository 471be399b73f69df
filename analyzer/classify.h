/*
 * classify: what each event is, decided once, from tables kept here.
 *
 * Two tables say it all.  device.h's (device.c) is the vendors': by cat,
 * or by process name where a producer writes no cat, which events are
 * device work and which host calls into the vendor runtime (and which of
 * those block the host).  This module's (classify.c) is the host's: the
 * cats of CPU operators, Python frames, user annotations and their GPU
 * copies; one list of host names whose rows say which analysis counts
 * them how: the host spans of collectives, the runtime calls that set up
 * the device or manage its memory, those that replay a graph; the runtime
 * calls recognised by name in traces without cat (torch_npu's AscendCL@).
 * Which runtime calls block the host is lib/model/sync_calls.h's list,
 * which device.c reads.
 *
 * gpu_collect() asks both once per cat and name of a batch and writes,
 * per event, a class (enum ev_class) and a subclass (enum ev_sub); the
 * analyses after it read those and never compare a cat, a process name or
 * one of these names themselves.  doc/classification.md says how to add
 * a vendor.
 */
#ifndef VT_CLASSIFY_H
#define VT_CLASSIFY_H

#include <stddef.h>

#include "device.h"
#include "event.h"

/*
 * What an event is: EVC_KERNEL a kernel or compute task, EVC_DEVICE other
 * device work (copies, sets, a collective's transfers), EVC_RUNTIME a call
 * into the vendor runtime, EVC_SYNC one that blocks the host (all by
 * device.h); by the host table EVC_CPU_OP an operator, EVC_FRAME a Python
 * frame or module, EVC_ANNOT a user annotation, EVC_GPU_ANNOT its copy on
 * the device's timeline.
 */
enum ev_class { EVC_NONE, EVC_DEVICE, EVC_KERNEL, EVC_RUNTIME, EVC_SYNC, EVC_CPU_OP, EVC_FRAME,
		EVC_ANNOT, EVC_GPU_ANNOT };

static inline int evc_is_device(unsigned c)
{
	return c == EVC_DEVICE || c == EVC_KERNEL;
}

/* A runtime call, blocking or not. */
static inline int evc_is_call(unsigned c)
{
	return c == EVC_RUNTIME || c == EVC_SYNC;
}

/*
 * The subclass, what the name of a complete span says whatever its class:
 * the row of the host-name table it meets (EVS_ROW, 0: none, else the row
 * + 1), whose flags classify_flags() gives; and, only on events without
 * cat, EVS_NOCAT_CALL or EVS_NOCAT_SYNC for a runtime call (one that
 * blocks the host) of a producer that writes no cat.
 */
#define EVS_ROW 0x3fu
#define EVS_NOCAT_CALL 0x40u
#define EVS_NOCAT_SYNC 0x80u

/*
 * An event's class counting, where it has no cat, the runtime calls its
 * subclass finds (a producer that writes no cat: torch_npu's AscendCL@):
 * those are calls to the analyses that read what the host was doing
 * (idle.h), but none that phases or cpuops counts.
 */
static inline unsigned evc_call_class(unsigned cls, unsigned sub)
{
	if (cls == EVC_NONE && (sub & EVS_NOCAT_SYNC))
		return EVC_SYNC;
	if (cls == EVC_NONE && (sub & EVS_NOCAT_CALL))
		return EVC_RUNTIME;
	return cls;
}

/* A complete span: ph X, with its ts and a dur that is not negative. */
static inline int ev_is_complete(const struct trace_event *ev)
{
	return ev->phase == 'X' && (ev->flags & (EV_TS | EV_DUR)) == (EV_TS | EV_DUR) &&
	       ev->dur_ns >= 0;
}

/* The flags of a host-name row: what it is, for which analysis. */
#define CF_HOST_COLL 1u		/* a collective a vendor records only on the host: comm always */
#define CF_CPU_COMM 2u		/* a collective on a CPU thread: comm in runs without kernels */
#define CF_COLL_WAIT 4u		/* the host waits in it for its peers: idle's collective wait */
#define CF_NOT_ANNOT 8u		/* never a user annotation in a trace without cat (annot.h) */
#define CF_INIT 16u		/* a runtime call that sets up the device, a stream, a library */
#define CF_MEMORY 32u		/* one that allocates or frees memory */
#define CF_GRAPH_LAUNCH 64u	/* one that replays a captured graph: gpu.c's graph launches */
#define CF_COLL_SPAN 128u	/* the collective itself on a CPU thread, not its enqueue: comm's */
/*
 * What runtime calls queue on the device or mark, for the graph replays
 * (replay.c) and idle's device-side waits and captures (idle.c).  The
 * graph replays are three words wide, as each analysis always read them:
 * gpu.c counts the CUDA and HIP replays by their calls' names
 * (CF_GRAPH_LAUNCH), replay.c any call holding GraphLaunch (CF_GRAPH_RUN),
 * idle.c those and AscendCL's model runs (CF_GRAPH_QUEUE).
 */
#define CF_GRAPH_RUN 256u	/* its device work is a graph's: replay.c */
#define CF_GRAPH_QUEUE 512u	/* it queues a graph on the device: idle's wait named after it */
#define CF_EVENT_WAIT 1024u	/* a stream waits on an event: idle's device-side wait */
#define CF_CAPTURE_BEGIN 2048u	/* a graph capture begins (idle's capture region, replay's) */
#define CF_CAPTURE_END 4096u	/* ... ends */
#define CF_LAUNCH_KERNEL 8192u	/* it launches a kernel: replay.c's eager calls */
#define CF_COPY 16384u		/* a copy or a set: replay.c's eager calls */

/* The class of host events of cat s[0..n) (exact spelling): EVC_NONE if the table has none. */
enum ev_class classify_host_cat(const char *s, size_t n);

/*
 * The subclass of a complete span named s[0..n) that has no cat; of one
 * with a cat it is this & EVS_ROW.
 */
unsigned classify_name(const char *s, size_t n);

/* The CF_* flags of subclass sub (0 where it meets no row). */
unsigned classify_flags(unsigned sub);

#endif
