/*
 * kcat: the category of a kernel from its name, read from a table.
 *
 * Categories: comm, attention, norm, conv, gemm, reduce, elementwise, other.
 * The table in kcat.c is ordered, first match wins, and matching ignores
 * case.  testdata/kernel-categories.tsv holds real kernel names from the
 * shared traces with the category each must get; test_kcat reads it.
 */
#ifndef VT_KCAT_H
#define VT_KCAT_H

#include <stddef.h>

#include "category.h"

/* The category of the kernel named s[0..n): CAT_COMM to CAT_OTHER. */
enum category kcat_of(const char *s, size_t n);

/*
 * kcat_of() as a name_memo asks it (analyze.c's kernel_cats: the table
 * matches many patterns, so each kernel name of a file is asked once).
 */
unsigned kcat_answer(const char *s, size_t n);

#endif
