/*
 * outfile: write an output file whole or not at all.
 *
 * The bytes go to a fresh "PATH.tmp.XXXXXX" beside PATH, created with
 * O_EXCL and O_NOFOLLOW (as mkstemp does), written, checked and renamed
 * over PATH.  So a full disk or a crash never leaves a half-written report,
 * two writers of one PATH each leave a whole file (the last rename wins),
 * and a link planted at the temporary name is never followed; SIGINT,
 * SIGTERM and SIGHUP remove the temporary (sigclean.h).  A link at PATH itself is replaced, not
 * written through.  "-" writes to standard output, and an existing path
 * that is no regular file (/dev/null, a FIFO) is written directly, never
 * renamed over.
 */
#ifndef VT_OUTFILE_H
#define VT_OUTFILE_H

#include <stddef.h>

#include "log.h"

/*
 * Remember path (a file this run reads) as an input: outfile_write() and
 * outfile_open_tmp() refuse to replace it, whatever name it goes by (the
 * same device and inode).  Call before writing, from one thread.
 */
void outfile_input(const char *path);

/* Returns 0, or -1 with *e filled ("cannot write 'PATH': No space left..."). */
int outfile_write(const char *path, const void *data, size_t len, struct err *e);

/*
 * The same for name inside the directory open as dfd, which messages call
 * shown (the directory's path, then name): a directory opened once with
 * O_NOFOLLOW stays the one written, whatever is renamed or linked meanwhile.
 */
int outfile_write_at(int dfd, const char *shown, const char *name, const void *data,
		     size_t len, struct err *e);

/*
 * Create the unique temporary for path: returns its descriptor and sets
 * *tmp to its name and *guard to its sigclean.h handle (a kill removes the
 * file), or -1 with *e filled.  The name fits wherever path does: when
 * path's last part is too long for the suffix, it is cut.  End it with
 * outfile_end_tmp().
 */
int outfile_open_tmp(const char *path, char **tmp, int *guard, struct err *e);

/*
 * Rename the temporary to path (NULL: remove it), forget its guard and free
 * tmp.  Returns 0, or -1 with errno (the temporary is then removed).
 */
int outfile_end_tmp(char *tmp, int guard, const char *path);

#endif
