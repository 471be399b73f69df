/*
 * idle_causes: why a device waits, the one list of causes.
 *
 * Each cause is a row: its enum name, its report key, and (in the comment)
 * what it means.  The report model, the metric catalogue, the analyzer's
 * rules (analyzer/idle.c) and the findings (lib/stats/suggest.c) all expand
 * this list, so a new cause is one row here plus its rule.  doc/idle.md
 * gives the rules in full.
 */
#ifndef VT_IDLE_CAUSES_H
#define VT_IDLE_CAUSES_H

/* X(enum name, report key, finding id): the causes a finding can name ... */
#define IDLE_CAUSES_FOUND(X)                                                                     \
	X(LAUNCH, launch, "idle-launch")	/* launches back to back, drained faster */     \
	X(SYNC, sync, "idle-sync")		/* a synchronising call emptied the queue */    \
	X(DATA_LOADING, data_loading, "idle-data-loading") /* DataLoader frames, operators */ \
	X(HOST_COMPUTE, host_compute, "idle-host-compute") /* host work launching nothing */  \
	X(MEMORY_MGMT, memory_mgmt, "idle-memory-mgmt")	/* allocator calls */                 \
	X(INIT, init, "idle-init")		/* one-time start-up, before the first step */  \
	X(CAPTURE, capture, "idle-capture")	/* graph capture */                             \
	X(COMPILE, compile, "idle-compile")	/* torch.compile, Inductor, Triton */           \
	X(COLLECTIVE_WAIT, collective_wait, "idle-collective-wait") /* a CPU-side collective */ \
	X(DEVICE_WAIT, device_wait, "idle-device-wait") /* queued early, the device held it */

/* ... and all of them */
#define IDLE_CAUSES(X)                                                                           \
	IDLE_CAUSES_FOUND(X)                                                                     \
	X(OTHER, other, NULL)			/* none of these found */

enum idle_cause {
#define IDLE_ENUM(u, l, f) IDLE_##u,
	IDLE_CAUSES(IDLE_ENUM)
#undef IDLE_ENUM
	IDLE_NR_CAUSES
};

/* The report key of each cause ("launch", "data_loading", ...). */
extern const char *const idle_cause_key[IDLE_NR_CAUSES];

#endif
