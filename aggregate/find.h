/*
 * find: the report files under a directory, for vaggregate --reports_dir.
 *
 * Candidates are regular files named *.json or *.json.gz at any depth;
 * names starting with '.' are passed over (editor and tool droppings).
 * Symbolic links are followed, but a directory already being walked (same
 * device and inode) is never entered again, so a link loop ends the
 * descent instead of the program.  The order is deterministic: entries of
 * each directory sorted by bytes, depth first, so rank_10/ comes after
 * rank_1/ and before rank_2/ whatever readdir() returns.
 */
#ifndef VT_AGG_FIND_H
#define VT_AGG_FIND_H

#include <stddef.h>

struct find_list {
	char **paths;			/* malloc'd, each malloc'd; find_list_release() frees */
	size_t n, cap;
};

void find_list_init(struct find_list *l);
void find_list_release(struct find_list *l);

/* Append a copy of path.  Returns 0, or -1 when out of memory. */
int find_list_add(struct find_list *l, const char *path);

/*
 * Append the candidate files under dir to l.  Problems below dir (a
 * subdirectory that cannot be opened, a link loop) are printed as warnings
 * and the walk goes on.  Returns the number of files added, or -1 when dir
 * itself cannot be opened (printed) or memory ran out.
 */
long find_reports(struct find_list *l, const char *dir);

#endif
