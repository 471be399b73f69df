/*
 * rule: what lies between the findings engine (suggest.c) and its rules
 * (rules_*.c): what a rule is, what its evaluator finds on a rank, and the
 * words and tests the rules share.  Private to lib/stats.
 *
 * A rule is one const struct rule, defined beside its evaluator and its
 * message in the rules file of its theme and listed once in rule_table[]
 * (rule.c), whose order breaks ties between findings.  Its evidence is its
 * own struct in union evidence below: what its evaluator sets and all its
 * message reads.  How rules bear on each other is said in their entries
 * (incomplete, yields_to), never by the engine testing rule ids.
 */
#ifndef VT_RULE_H
#define VT_RULE_H

#include <stddef.h>
#include <stdint.h>

#include "metric.h"
#include "report.h"
#include "suggest.h"
#include "workload.h"

/* Kernel and graph-replay counts, for the advice on CUDA graphs. */
struct graph_ev {
	double kernels, graph_kernels;	/* kernels, and those launched by graph replays */
};

/*
 * What a rule found on one rank, one struct per rule (times in ns, shares
 * as fractions): its evaluator fills its own, and its message reads only that.
 */
struct low_util_ev {
	double idle_ns, active_span_ns;	/* GPU idle time and active span */
	double wait_ns;			/* waiting in collectives for others; 0: unknown */
	struct graph_ev graphs;
};

struct launch_ev {
	double idle_share;		/* GPU idle / active span */
	struct graph_ev graphs;
};

struct window_ev {
	enum idle_cause cause;		/* the one-time cause with the most idle time */
	const char *host;		/* its longest named gap's host activity, or NULL */
	int steps_window;		/* the analysed window is steps, not the whole trace */
};

struct idle_ev {
	enum idle_cause cause;
	double idle_share;		/* the cause's idle time / the analysed window */
	int steps_window;		/* the window is the steady steps, not the whole trace */
	const char *host;		/* the host in its longest gap (borrowed), or NULL */
	struct graph_ev graphs;
};

struct comm_ev {
	double comm_ns, overlap;	/* communication (transfer) time, its share overlapped */
	int wait_left_out;		/* matched: the waiting for others left out */
};

struct comm_wait_ev {
	double wait_ns;			/* time inside collectives not moving data */
	double transfer_ns;		/* ... and moving it */
	double peer_ns, idle_ns;	/* within wait_ns: for peers, idle; NaN unknown */
};

struct straggler_ev {
	double excess;			/* value / median - 1 */
	double last_share;		/* share of collectives it reached last */
	const char *delays;		/* by wait: where most waiting is (borrowed) */
	const char *waiters;		/* by wait: the waiting ranks (arena) */
	double wait_share;		/* ... their share of communication waiting */
	int64_t worst;			/* ... the one that waits longest (-1: none) */
	double worst_wait;		/* ... its wait inside collectives */
	double steps;			/* the straggler's steps (0: none), for a wait per step */
};

struct phase_ev {
	const char *phase;		/* the phase's name (borrowed) */
	double phase_ns, phase_calls;	/* its time and count */
};

struct attention_ev {
	double kernel_ns;		/* attention kernel time */
};

struct steps_ev {
	const char *pattern;		/* the steps' pattern (borrowed) */
	double step_median_ns;
};

struct memcpy_ev {
	double memory_ns;		/* memcpy/memset time */
};

struct sync_ev {
	double sync_ns;			/* time in synchronising calls */
	const char *top;		/* the largest of them (borrowed or static) */
};

struct memory_ev {
	int64_t device;			/* the fullest device */
	double capacity;		/* its memory, bytes */
	double alloc_share;		/* peak allocated (in tensors) over capacity */
	/*
	 * Reserved up front: early in the device's memory timeline the
	 * allocator already held most of its peak while tensors used little
	 * of it (an engine reserving its KV cache, a memory pool); the
	 * moment's reserved and allocated bytes.
	 */
	int up_front;
	double early_reserved, early_allocated;
};

struct first_step_ev {
	double first_step_ns, others_median_ns;
	int cut_off;			/* the last step, cut off by the end, left out */
};

struct fps_ev {
	double fps, target_fps;
	const char *phase;		/* the phase with the largest share (borrowed), or NULL */
	double phase_share;
	const char *category;		/* the kernel category with the most time, or NULL */
	double category_share;		/* its share of kernel time */
};

struct roof_ev {
	const char *family;		/* "gemm", "attention", "conv" (static) */
	double family_share;		/* the family's share of kernel time */
	double family_ns;		/* and its time */
	const char *top;		/* its operator with the most time (borrowed) */
	double top_roof_share;		/* the share of its roofline that one reaches */
};

union evidence {
	struct low_util_ev low_util;
	struct launch_ev launch;
	struct window_ev window;
	struct idle_ev idle;
	struct comm_ev comm;
	struct comm_wait_ev comm_wait;
	struct straggler_ev straggler;
	struct phase_ev phase;		/* vae-decode-dominant, text-encoding-dominant */
	struct attention_ev attention;
	struct steps_ev steps;
	struct memcpy_ev memcpy;
	struct sync_ev sync;
	struct memory_ev memory;
	struct first_step_ev first_step;
	struct fps_ev fps;
	struct roof_ev roof;
};

/*
 * A firing: what the report shows of it, the time at stake and the
 * evidence of its message.  The engine sets wl, span_ns and vendor, and
 * the entry's sev and metric, before the evaluator runs, so the advice fits
 * the run.
 */
struct finding {
	enum report_severity sev;
	const char *metric;		/* static, or in the report's arena */
	double value, threshold;
	double impact_ns;		/* time at stake on this rank; < 0: unknown */
	const char *basis;		/* how impact_ns was estimated (static) */
	double span_ns;			/* the rank's wall time, for the impact's share */
	enum workload_kind wl;
	const char *vendor;		/* the rank's device vendor (static); NULL: unknown
					 * or a CPU-only rank */
	union evidence e;
};

/* The results of a rank's evaluator. */
enum { NO_INPUTS, QUIET, FIRES };

/* A finding's two texts while they are written: the short message and the details. */
struct text {
	char m[512], d[1024];
	const char *where;		/* "All 8 ranks", "Ranks 0-6", "Rank 2" */
	int plural;			/* where names more than one rank */
};

/* The firings of one evaluation of the rules (suggest.c). */
struct hits;

/* One rule. */
struct rule {
	const char *id;
	const char *metric;		/* the evidence (a family's: the evaluator names it) */
	enum report_severity sev;	/* of a firing, unless the evaluator says otherwise */
	int below;			/* fires below its threshold: the lowest is the worst */
	struct suggest_threshold thr[SUGGEST_RULE_THRESHOLDS];
	/*
	 * Rank r against the thresholds t[]: NO_INPUTS when r lacks what the
	 * rule reads, QUIET, or FIRES with *f filled (value, threshold,
	 * evidence; metric and sev where they differ from the entry's); -1
	 * when out of memory.
	 */
	int (*eval)(const struct report_rank *r, const double *t, struct arena *a,
		    struct finding *f);
	/*
	 * A run-wide rule, in place of eval: reads the whole report, after
	 * every rank's rules, and fires with rule_fire(h, ...).  0, or -1 when
	 * out of memory.
	 */
	int (*eval_run)(struct report *rep, const double *t, struct hits *h);
	/* The short message and the details of f into t (t->where names the ranks). */
	void (*message)(struct text *t, const struct finding *f);
	/*
	 * The interactions.  incomplete: eval sees the incomplete ranks, and
	 * no other rule does (their figures cover only what was read).
	 * yields_to: where that rule (one with eval) fires on the same rank,
	 * this one's firing is dropped (the same time seen twice, the other
	 * more specific); judged at the other's default thresholds when
	 * yields_at_default, else at those in force.
	 */
	int incomplete;
	const struct rule *yields_to;
	int yields_at_default;
};

/* The rules, in the order findings of equal impact and severity are given (suggest_nr_rules). */
extern const struct rule *const rule_table[];

/*
 * For a run-wide rule: room for a firing on the complete rank r, with the
 * entry's sev and metric, impact unknown, r's span and no vendor.  NULL
 * when out of memory.
 */
struct finding *rule_fire(struct hits *h, const struct report_rank *r);

extern const struct rule rule_incomplete, rule_low_util, rule_launch, rule_window;
#define RULE_IDLE_DECL(u, l, id) extern const struct rule rule_idle_##l;
IDLE_CAUSES_FOUND(RULE_IDLE_DECL)
#undef RULE_IDLE_DECL
extern const struct rule rule_comm, rule_comm_wait, rule_straggler, rule_vae, rule_text;
extern const struct rule rule_attention, rule_steps, rule_memcpy, rule_sync, rule_memory;
extern const struct rule rule_first_step, rule_roof, rule_fps;

/* The words and tests the rules share (rule.c). */

/* A value in its unit, ASCII, for a message. */
#define FMT(buf, v, unit) metric_fmt(buf, sizeof(buf), v, unit, FMT_ASCII)

/* A printf into an arena, any length; NULL when out of memory. */
const char *rule_fmt(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A name from a trace, quotable in an ASCII message: short, printable, in b[n]. */
const char *rule_plain(char *b, size_t n, const char *s);

/* The rank's device in words: "GPU", "NPU" ("device" where unknown; CPU-only runs have none). */
const char *rule_device(const struct finding *f);

/*
 * The allocator's setting against fragmentation, in the vendor's words:
 * "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True" (static).
 */
const char *rule_alloc_conf(const struct finding *f);

/* What stands for a device's graphs, in the vendor's words. */
const char *rule_graph_words(const char *vendor);

/* The loop a workload repeats, in advice: "the denoising loop". */
const char *rule_loop_words(enum workload_kind wl);

/* r's kernel and graph-replay counts. */
struct graph_ev rule_graphs(const struct report_rank *r);

/* 1 when most of the rank's kernels already run from CUDA/HIP graph replays. */
int rule_graphs_in_use(const struct graph_ev *g);

/*
 * 1 when r's waits inside collectives are known (collectives matched across
 * ranks, GPU kernels): its rules then judge the useful work, not busy time.
 */
int rule_has_gpu_wait(const struct report_gpu *g);

#endif
