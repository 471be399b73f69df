/*
 * evparse: parse a run of trace events (elements of a traceEvents array)
 * into an event batch.
 *
 * The reader cuts the array into chunks at places that look like event
 * boundaries and parses them in parallel, each from an assumed state.  This
 * parser reports exactly where its text ended (between elements in a given
 * state, inside an unfinished element, at the closing ']', or at a syntax
 * error), so the reader can check each assumption against the real end
 * state of the chunk before, and parse again where a guess was wrong.
 */
#ifndef VT_EVPARSE_H
#define VT_EVPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "log.h"

/* Where in the array a text starts or ends. */
enum evparse_state {
	EVP_FIRST,		/* just after '[': an element or ']' */
	EVP_NEXT,		/* after an element: ',' or ']' */
	EVP_VALUE,		/* after ',': an element */
};

enum evparse_end {
	EVP_CLEAN,		/* text ended between tokens, in state ->state */
	EVP_PARTIAL,		/* text ended inside the element at ->pos */
	EVP_ARRAY_END,		/* ']' closed the array; ->pos is just past it */
	EVP_ERROR,		/* syntax error; ->err has message and offset */
};

struct evparse_result {
	enum evparse_end end;
	enum evparse_state state;	/* CLEAN: end state; PARTIAL: state at pos */
	size_t pos;			/* offset in the text, see enum evparse_end */
	int64_t nr_bad_time;		/* events left out: ts, dur or end past sat.h's limit */
	size_t bad_time_pos;		/* offset in the text of the first of them */
	int64_t nr_neg_dur;		/* events with a negative dur, kept without times */
	int64_t first_neg_dur;		/* input offset of the first of them, -1 none */
	int64_t nr_odd;			/* values of a type their field never has, read as absent */
	int64_t first_odd;		/* input offset of the event of the first, -1 none */
	int64_t nr_not_object;		/* elements that are not objects: empty records */
	struct err err;
};

/*
 * Parse text[0..len) starting in state `start` and append its events to *b
 * (b's string table borrows from text, which must outlive b's use).  offset
 * is the input offset of text[0], for messages.  Events of an unfinished
 * element are not appended.  An element that is valid JSON but no object
 * (a number, a list) is appended as an empty record, so that counts of
 * elements stay right, and counted in ->nr_not_object.  Returns 0, or -1 when out of memory
 * (reported as EVP_ERROR as well).
 */
int evparse_run(const char *text, size_t len, int64_t offset, enum evparse_state start,
		struct event_batch *b, struct evparse_result *r);

#endif
