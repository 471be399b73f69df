/*
 * scaling_out: vcompare --scaling's result (lib/stats/scaling.h) as a terminal
 * screen, as markdown for CI, and as JSON: the curve, the three largest
 * losses in words, per-phase speedups and the loss decomposed, with a
 * finding and its usual fix per large part.
 */
#ifndef VT_SCALING_OUT_H
#define VT_SCALING_OUT_H

#include <stdio.h>

#include "buf.h"
#include "log.h"
#include "scaling.h"

/* A part is a finding when it is at least this share of the loss. */
#define SCALING_FINDING_SHARE 0.10

void scaling_table(FILE *f, const struct scaling *sc);
void scaling_markdown(struct buf *out, const struct scaling *sc);

/* "4 ranks gave 1.74x (44 %): ..." for p, plain text (tsafe.h-safe), appended to b. */
void scaling_sentence(struct buf *b, const struct scaling_point *p);

/* What usually fixes each part: a finding's advice. */
extern const char *const scaling_fix[SCALING_NR_PARTS];

/*
 * The page (--html): the curve, a speedup-against-ranks chart with the
 * ideal line and a waterfall of the loss of the largest run (gnuplot,
 * unless charts is 0), the phases, the parts and the findings, into out.
 * Returns 0, or -1 when the charts could not be drawn (*e says why; the
 * page then says so where they would be).
 */
int scaling_html(struct buf *out, const struct scaling *sc, int charts, struct err *e);

/* The JSON document: {"schema": "vtrace.scaling/1", "scaling": {...}} (doc/report.md). */
void scaling_json(struct buf *out, const struct scaling *sc);

#endif
