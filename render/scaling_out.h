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
#include "scaling.h"

/* A part is a finding when it is at least this share of the loss. */
#define SCALING_FINDING_SHARE 0.10

void scaling_table(FILE *f, const struct scaling *sc);
void scaling_markdown(struct buf *out, const struct scaling *sc);

/* The JSON document: {"schema": "vtrace.scaling/1", "scaling": {...}} (doc/report.md). */
void scaling_json(struct buf *out, const struct scaling *sc);

#endif
