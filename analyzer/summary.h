/*
 * summary: the terminal summary of a report, one block per rank.
 * Colour only when the stream is a terminal and NO_COLOR is unset.
 */
#ifndef VT_SUMMARY_H
#define VT_SUMMARY_H

#include <stdio.h>

#include "report.h"

/* top: kernel rows shown per rank. */
void summary_print(FILE *f, const struct report *rep, size_t top);

#endif
