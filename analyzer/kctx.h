/*
 * kctx: kernel categories from what launched them.
 *
 * A kernel names its launch by args.correlation; the launch sits on a CPU
 * thread inside the operators (cpu_op spans) and the Python frames,
 * modules and annotations that called it.  The category of a kernel comes
 * from the outermost of those operators that opcat.h knows (any attention
 * operator among them wins), made attention inside an attention block
 * (modcat.h) for a matrix product or softmax; where no operator is known,
 * from its name (kcat.h), and always so for collectives.  A kernel row is
 * one name: it gets the category, with its source ("op", "module" or
 * "name"), that holds most of that name's time.
 *
 * Each kernel at its launch (thread and time, with its name and time) is
 * launch.h's placement, which joins the kernels with their calls once for
 * every analysis; kctx_collect() keeps, per batch, only the operators with
 * a category and the attention blocks, and kctx_finish() sorts them and
 * sweeps them with the placed kernels, thread by thread, n log n.
 */
#ifndef VT_KCTX_H
#define VT_KCTX_H

#include <stdint.h>

#include "buf.h"
#include "event.h"
#include "launch.h"
#include "name_memo.h"
#include "names.h"
#include "report.h"
#include "strtab.h"

/* Spans in file order: operators with a category, or attention blocks. */
struct kx_spans {
	struct kx_span *v;	/* see kctx.c */
	size_t n, alloc;
};

struct kctx {
	struct kx_spans ops;	/* operators with a category */
	struct kx_spans blocks;	/* attention blocks */
	struct names *names;	/* the rank's, shared */
	struct name_memo *kcats;	/* kcat_of() by kernel name, shared (analyze.h) */
	struct name_memo op_cat, attention;	/* opcat_of(), modcat_is_attention() */
	uint32_t seq;		/* file order of the spans */
};

/*
 * names: the rank's (names.h), which must outlive k; kctx_collect() adds to
 * it.  kcats: the file's kcat_of() by kernel name, which kctx_finish() asks.
 */
void kctx_init(struct kctx *k, struct names *names, struct name_memo *kcats);
void kctx_release(struct kctx *k);

/*
 * Keep what batch b holds for the categories; cls is classify.h's class of each
 * event, tracks launch.h's shared table of threads.  -1 when out of memory.
 */
int kctx_collect(struct kctx *k, const struct event_batch *b, const unsigned char *cls,
		 struct strtab *tracks);

/*
 * Set the category and category_source of rk's kernel rows (gpu_finish()
 * filled them by name) from the kernels placed at their launches in pl
 * (read only).  Releases what was collected.  -1 when out of memory.
 */
int kctx_finish(struct kctx *k, const struct placement *pl, struct report_rank *rk);

#endif
