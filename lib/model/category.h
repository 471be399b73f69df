/*
 * category: the one vocabulary of what work is, for kernels (kcat.c by
 * name, opcat.c and modcat.c by what launched them, kctx.c deciding), for
 * the operators the performance model knows (perf_model.c's families) and
 * for the report's families (report_perf.c).  Every table holds these
 * enums and compares them; the words are written only by the names table
 * in category.c, and read back (from a report) only through it.
 */
#ifndef VT_CATEGORY_H
#define VT_CATEGORY_H

/*
 * CAT_COMM to CAT_OTHER are the kernel categories, in the order kctx.c
 * breaks ties; CAT_SOFTMAX a family of operators (attention inside an
 * attention block, else a reduction).  CAT_NONE: no category known.
 */
enum category {
	CAT_NONE,
	CAT_COMM, CAT_ATTENTION, CAT_NORM, CAT_CONV, CAT_GEMM, CAT_REDUCE, CAT_ELEMENTWISE,
	CAT_OTHER,
	CAT_SOFTMAX,
	NR_CATEGORIES
};

/* The kernel category of c (CAT_SOFTMAX's is CAT_REDUCE; CAT_NONE's CAT_NONE). */
enum category category_kernel(enum category c);

/* The report's word for c as a kernel category: "gemm", ... ("" for CAT_NONE; static). */
const char *category_name(enum category c);

/* The report's word for c as a family of modelled operators ("reduction"); NULL: none. */
const char *category_family(enum category c);

/* The kernel category whose report word is s (NUL-terminated), CAT_NONE for no such word. */
enum category category_of(const char *s);

/* The category whose family word is s (NUL-terminated), CAT_NONE for no such word. */
enum category category_of_family(const char *s);

#endif
