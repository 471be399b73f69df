/*
 * html_findings: the lead of the page's findings, the top three one line
 * each (message and time at stake), before html_suggestions() gives every
 * finding whole.  suggest_compute() ordered them by impact.
 */
#include "html.h"

#include <math.h>
#include <stdio.h>

#include "report_fields.h"

#define LEAD 3

void html_findings_lead(struct page *p)
{
	const struct report *r = p->r;
	char key[96];

	if (!r->nr_suggestions)
		return;
	/* context, not a finding: what the advice is worded for, and why */
	buf_adds(p->b, "<p class=\"muted\">The advice is worded for a ");
	html_text(p, r->workload ? r->workload : "unknown");
	buf_adds(p->b, " workload");
	if (r->workload_reason && *r->workload_reason) {
		buf_adds(p->b, ", as the traces show it (");
		html_text(p, r->workload_reason);
		buf_adds(p->b, ")");
	}
	buf_adds(p->b, ".</p>\n<ol class=\"lead\">\n");
	for (size_t i = 0; i < r->nr_suggestions && i < LEAD; i++) {
		const struct report_suggestion *s = &r->suggestions[i];

		buf_adds(p->b, "<li>");
		html_row_key(key, sizeof(key), &suggestion_fields, i,
			     offsetof(struct report_suggestion, impact_ns));
		html_dbl(p, "b", key, NULL, s->impact_ns >= 0 ? (double)s->impact_ns : NAN,
			 UNIT_NS);
		buf_adds(p->b, " ");
		html_text(p, s->message);
		buf_adds(p->b, "</li>\n");
	}
	buf_adds(p->b, "</ol>\n");
	if (r->nr_suggestions > LEAD)
		buf_printf(p->b, "<p class=\"muted\">%zu more below.</p>\n",
			   r->nr_suggestions - LEAD);
}
