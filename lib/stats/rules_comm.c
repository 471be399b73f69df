/*
 * rules_comm: the rules of communication (rule.h): collectives that take
 * much of the device's time and overlap little, and waiting inside them
 * for peers outside the analysis.
 */
#include "rule.h"

#include <math.h>
#include <stdio.h>

#include "vendor_words.h"

/*
 * comm-heavy-low-overlap: comm over t[0] of busy time, less than t[1] of it
 * overlapped.  Where collectives matched, the transfer over busy time less
 * waiting: the waiting is the straggler rule's.  At stake: the transfer
 * time not overlapped with compute.
 */
static int eval_comm(const struct report_rank *r, const double *t, struct arena *a,
		     struct finding *f)
{
	struct comm_ev *e = &f->e.comm;
	const struct report_gpu *g = &r->gpu;
	int wait = rule_has_gpu_wait(g);
	int64_t comm = wait ? g->comm_transfer_ns : g->comm_ns;
	int64_t busy = wait ? g->busy_ns - g->comm_wait_ns : g->busy_ns;
	double share;

	(void)a;
	if (!r->analysed || g->busy_ns <= 0 || g->comm_ns <= 0 ||
	    !isfinite(g->comm_compute_overlap))
		return NO_INPUTS;
	share = busy > 0 ? (double)comm / (double)busy : 0;
	if (!(share > t[0] && g->comm_compute_overlap < t[1]))
		return QUIET;
	f->value = share;
	f->threshold = t[0];
	f->impact_ns = (double)comm * (1 - g->comm_compute_overlap);
	f->basis = "communication (transfer) time not overlapped with compute";
	e->overlap = g->comm_compute_overlap;
	e->comm_ns = (double)comm;
	e->wait_left_out = wait;
	return FIRES;
}

static void msg_comm(struct text *t, const struct finding *f)
{
	const struct comm_ev *e = &f->e.comm;
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], b[METRIC_FMT_MAX];
	const char *how;

	snprintf(t->m, sizeof(t->m),
		 "%s: %s takes %s of %s busy time and only %s of it overlaps compute.", t->where,
		 e->wait_left_out ? "data transfer in collectives" : "communication",
		 FMT(v, f->value, UNIT_RATIO), rule_device(f), FMT(b, e->overlap, UNIT_RATIO));
	switch (f->wl) {
	case WL_DIFFUSION:
		how = " (async all-gather and reduce-scatter, the sequence-parallel all-to-all "
		      "overlapped with attention)";
		break;
	case WL_TRAINING:
		how = " (DDP/FSDP bucketing and prefetch, gradient all-reduce overlapped with "
		      "backward)";
		break;
	default:
		how = "";
	}
	snprintf(t->d, sizeof(t->d),
		 "%s of transfer%s. Overlap collectives with compute%s, and check the "
		 "interconnect (%s bandwidth, %s topology).",
		 FMT(a, e->comm_ns, UNIT_NS),
		 e->wait_left_out ? ", waiting for other ranks left out" : "", how,
		 vendor_words(f->vendor)->interconnect, vendor_words(f->vendor)->collectives);
}

/*
 * comm-wait: the rank's own device tasks (gpu.h: HCCL's Notify Wait beside
 * its copies) show it waiting inside collectives for more than t[0] of its
 * communication time and t[1] of its span, and no rank it was matched with
 * explains it (a matched rank's waiting is the straggler rule's): the
 * peers it waits for are not in the analysis; or where idle inside the
 * operators outweighs the waiting for peers, matched or not.  At stake:
 * the wait.
 */
static int eval_comm_wait(const struct report_rank *r, const double *t, struct arena *a,
			  struct finding *f)
{
	struct comm_wait_ev *e = &f->e.comm_wait;
	const struct report_gpu *g = &r->gpu;
	double share;
	int idle;

	(void)a;
	if (!r->analysed || !g->has_wait || !g->wait_from_tasks || g->comm_ns <= 0 ||
	    r->span_ns <= 0)
		return NO_INPUTS;
	share = (double)g->comm_wait_ns / (double)g->comm_ns;
	/* idle inside the operators is no late peer's: the straggler rule does not see it */
	idle = g->comm_idle_ns != INT64_MIN && g->comm_idle_ns > report_peer_wait_ns(g);
	if ((r->has_clock && !idle) || !(share > t[0]) ||
	    !((double)g->comm_wait_ns > t[1] * (double)r->span_ns))
		return QUIET;
	f->value = share;
	f->threshold = t[0];
	f->impact_ns = (double)g->comm_wait_ns;
	f->basis = "time inside collectives not moving data";
	if (idle) {	/* the straggler rule has the waiting for peers */
		f->impact_ns = (double)g->comm_idle_ns;
		f->basis = "idle inside collectives, neither moving data nor waiting for a peer";
	}
	e->wait_ns = (double)g->comm_wait_ns;
	e->transfer_ns = (double)g->comm_transfer_ns;
	e->peer_ns = g->comm_idle_ns != INT64_MIN ? (double)report_peer_wait_ns(g) : NAN;
	e->idle_ns = g->comm_idle_ns != INT64_MIN ? (double)g->comm_idle_ns : NAN;
	return FIRES;
}

static void msg_comm_wait(struct text *t, const struct finding *f)
{
	const struct comm_wait_ev *e = &f->e.comm_wait;
	char v[METRIC_FMT_MAX], w[METRIC_FMT_MAX], x[METRIC_FMT_MAX];
	const char *coll = vendor_words(f->vendor)->collectives;
	char s[METRIC_FMT_MAX];

	/*
	 * Idle inside the operators is no peer's doing: where it outweighs the
	 * waiting for peers, say so, and do not send the reader after a late rank.
	 */
	if (isfinite(e->idle_ns) && isfinite(e->peer_ns) && e->idle_ns > e->peer_ns) {
		snprintf(t->m, sizeof(t->m),
			 "%s sit%s idle %s inside %s%scollectives, neither moving data nor "
			 "waiting for a peer (%s of %s communication time); %s waits for "
			 "%s peers and %s moves data.",
			 t->where, t->plural ? "" : "s", FMT(w, e->idle_ns, UNIT_NS),
			 coll ? coll : "", coll ? " " : "", FMT(v, e->idle_ns / e->wait_ns *
			 f->value, UNIT_RATIO), t->plural ? "their" : "its",
			 FMT(s, e->peer_ns, UNIT_NS), t->plural ? "their" : "its",
			 FMT(x, e->transfer_ns, UNIT_NS));
		snprintf(t->d, sizeof(t->d),
			 "The peers were on time: the operator was open on the device before "
			 "there was anything to send. It waits for the work queued ahead of it "
			 "(the kernels that produce its input, an event from another stream) or "
			 "for the host to issue that work. Look at what runs on the device and "
			 "the host just before each long collective; a rank that is late for its "
			 "peers shows as synchronisation, not idle time.");
		return;
	}
	snprintf(t->m, sizeof(t->m),
		 "%s wait%s %s inside %s%scollectives for %s peers (%s of %s communication "
		 "time); only %s of it moves data.",
		 t->where, t->plural ? "" : "s", FMT(w, e->wait_ns, UNIT_NS),
		 coll ? coll : "", coll ? " " : "",
		 t->plural ? "their" : "its", FMT(v, f->value, UNIT_RATIO),
		 t->plural ? "their" : "its", FMT(x, e->transfer_ns, UNIT_NS));
	snprintf(t->d, sizeof(t->d),
		 "The waiting is for the other ranks of each collective to arrive, not the "
		 "interconnect. Analyse every rank's trace together (vanalyze DIR) to name the "
		 "rank the others wait for, then look at that rank's host: synchronising calls, "
		 "CPU-bound steps, data loading, and its share of the work.");
}

const struct rule rule_comm = {
	.id = "comm-heavy-low-overlap",
	.metric = MK_GPU_COMM_SHARE,
	.sev = SEV_HIGH,
	.thr = { { "comm_share", 0.2, "fraction",
		   "communication is above this share of GPU busy time (where collectives "
		   "matched, the transfer over busy time less waiting: waiting is the stragglers' "
		   "doing) ..." },
		 { "comm_overlap", 0.5, "fraction",
		   "... and less than this share of it overlaps compute" } },
	.eval = eval_comm,
	.message = msg_comm,
};

const struct rule rule_comm_wait = {
	.id = "comm-wait",
	.metric = "gpu.comm_wait_share",
	.sev = SEV_HIGH,
	.thr = { { "comm_wait_share", 0.5, "fraction",
		   "where the device records its collectives' own tasks (HCCL), the time inside "
		   "collectives not moving data is above this share of communication time ..." },
		 { "comm_wait_span", 0.05, "fraction",
		   "... and above this share of the span, on a rank matched with no other "
		   "(or, matched, where idle inside the operators outweighs the waiting for "
		   "peers)" } },
	.eval = eval_comm_wait,
	.message = msg_comm_wait,
};
