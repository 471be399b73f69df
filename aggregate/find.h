/*
 * find: the report files under a directory, for vaggregate --reports_dir.
 *
 * Candidates are regular files named *.json or *.json.gz at any depth,
 * found by dirwalk (its order, and its handling of dot files, links and
 * loops).  A directory reached twice through different links but not
 * through a loop (two links to one node directory) is walked twice; its
 * reports then come back as duplicates, which the merge counts once.
 */
#ifndef VT_AGG_FIND_H
#define VT_AGG_FIND_H

#include "pathlist.h"

/*
 * Append the candidate files under dir to l.  Problems below dir (a
 * subdirectory that cannot be opened, a link loop) are printed as warnings
 * and the walk goes on.  Returns the number of files added, or -1 when dir
 * itself cannot be opened or memory ran out (printed).
 */
long find_reports(struct pathlist *l, const char *dir);

#endif
