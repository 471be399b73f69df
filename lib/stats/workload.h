/*
 * workload: what kind of run a report is, from evidence in its ranks, so
 * that findings give advice that fits (suggest.c).  The kinds:
 *
 *   training     backward or optimizer work: autograd's evaluate_function
 *                and *Backward* operators, Optimizer.step spans
 *   diffusion    a diffusion or video pipeline: phases named like denoising,
 *                VAE, UNet or diffusion, or denoising steps
 *   llm-serving  LLM inference serving (prefill/decode): sglang or vLLM
 *                operators and spans (step[DECODE ...], prefill, extend,
 *                execute_..._generation_, graph capture of a decode batch)
 *   other        none of these
 *
 * They are tried in that order and the first with evidence wins: a
 * serving trace's "decode" phase is LLM decode, never a VAE's, because
 * "decode" alone is no diffusion evidence.
 */
#ifndef VT_WORKLOAD_H
#define VT_WORKLOAD_H

#include <stddef.h>

#include "report.h"

enum workload_kind { WL_OTHER, WL_TRAINING, WL_DIFFUSION, WL_LLM };

/* "training", "diffusion", "llm-serving", "other" (static). */
const char *workload_name(enum workload_kind k);

/*
 * The kind of rep's run, and in reason[0..n) why (ASCII, names from the
 * trace shortened): "operator 'autograd::engine::evaluate_function:
 * AddmmBackward0' on rank 0".  Incomplete ranks count too: what they hold
 * is still evidence.
 */
enum workload_kind workload_of(const struct report *rep, char *reason, size_t n);

/* 1 when hay (NULL: none) contains needle, ASCII case-insensitive; suggest.c's too. */
int workload_text_has(const char *hay, const char *needle);

#endif
