/*
 * rank: which rank a trace file belongs to, from its file name.
 *
 * DESIGN.md's order is distributedInfo.rank inside the file, then a token in
 * the name, then the position on the command line; this module is the
 * middle step.  Tokens: rank<N>, rank-<N>, rank_<N>, worker<N>, not preceded
 * by a letter ("prank3" is no rank); the last one in the name wins.
 */
#ifndef VT_RANK_H
#define VT_RANK_H

#include <stdint.h>

/* The rank named in path's base name, or -1. */
int64_t rank_from_name(const char *path);

/* The base name of path: borrowed, points into path. */
const char *rank_basename(const char *path);

#endif
