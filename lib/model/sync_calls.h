/*
 * sync_calls: the one list of the calls that block the host until the
 * device is done: the vendors' runtime and driver calls (device.c marks
 * the runtime calls among them DK_SYNC, idle.c attributes gaps to them)
 * and the PyTorch operators that read a device value on the host (idle.c's
 * sync class, rules_idle.c's host-sync finding).  Here, in lib/model, so
 * that the rules, which read reports and not traces, use the same list.
 */
#ifndef VT_SYNC_CALLS_H
#define VT_SYNC_CALLS_H

#include <stddef.h>

/*
 * SYNC_RUNTIME a call into a vendor runtime or driver that blocks the host
 * (synchronise, a synchronous copy); SYNC_OP a PyTorch operator that does.
 */
enum sync_call { SYNC_NONE, SYNC_RUNTIME, SYNC_OP };

/* What the call or operator named s[0..n) is. */
enum sync_call sync_call_of(const char *s, size_t n);

#endif
