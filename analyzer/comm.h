/*
 * comm: the collective instances of one rank, for matching across ranks.
 *
 * comm_collect() keeps a compact record of every collective as batches
 * arrive: GPU kernels the kernel table counts as communication (NCCL, RCCL,
 * and whatever else kcat_of() calls "comm"), the collective operators of
 * devices whose events carry no cat (HCCL's hcom_*, with their size from
 * args count and data_type), CPU collective
 * spans (gloo:*, for CPU-only runs), and the args of the CPU ops that
 * describe a collective ("Collective name", "Process Group Name", message
 * sizes), found by "External id".  comm_finish() turns them into the rank's
 * comm series (struct report_comm_series).  Memory grows with the number of
 * collectives, never with the text.
 */
#ifndef VT_COMM_H
#define VT_COMM_H

#include "buf.h"
#include "event.h"
#include "interval.h"
#include "report.h"
#include "name_memo.h"
#include "names.h"
#include "strtab.h"

/*
 * Collective records (see comm.c), in file order, 24 bytes each: what few
 * have, a duration past 2^31 ns or bytes of their own (HCCL's operators),
 * is kept beside them.
 */
struct comm_recs {
	struct comm_rec *v;
	size_t n, alloc;
	int64_t *long_dur;		/* durations comm_rec.dur cannot hold */
	size_t nr_long_dur, long_dur_alloc;
	struct comm_bytes *bytes;	/* by record index, ascending */
	size_t nr_bytes, bytes_alloc;
};

struct comm {
	struct names *names;	/* the rank's, shared: names, collective names, groups, dtypes */
	struct comm_recs kernels;	/* GPU collective kernels, file order */
	struct comm_recs spans;		/* CPU collective spans, file order */
	struct comm_meta *meta;		/* ops that describe a collective, see comm.c */
	size_t nr_meta, meta_alloc;
	struct name_memo *kcats;	/* kcat_of() by kernel name, shared (analyze.h) */
};

/*
 * names: the rank's (names.h), which must outlive c; comm_collect() adds to
 * it, and asks kcats (the file's kcat_of() by kernel name) of each kernel.
 */
void comm_init(struct comm *c, struct names *names, struct name_memo *kcats);
void comm_release(struct comm *c);

/*
 * Keep the collectives of batch b; cls and sub: classify.h's class of each
 * event, which tells the kernels, and subclass, which tells the CPU spans
 * that are a collective (CF_COLL_SPAN).  -1 when out of memory.
 */
int comm_collect(struct comm *c, const struct event_batch *b, const unsigned char *cls,
		 const unsigned char *sub);

/*
 * Fill rk->comm and rk->nr_comm (strings and arrays in arena a): the GPU
 * kernels when the trace has any, else the CPU spans; ends count from
 * rk->start_ns, which must be set.  tasks (disjoint, in order: struct
 * gpu's comm_tasks) give each device collective its
 * transfer time where the device records its collectives' tasks; sync and
 * covered (NULL where the operators were not split, gpu.h) its
 * synchronisation and, by what they leave, its idle time.  Frees
 * the records it used.  -1 when out of memory.
 */
int comm_finish(struct comm *c, const struct interval_set *tasks,
		const struct interval_set *sync, const struct interval_set *covered,
		struct arena *a, struct report_rank *rk);

#endif
