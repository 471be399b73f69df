/*
 * render: render_out(), the whole output directory: report.json,
 * report.html and tables/ with the CSV files.  Each file is written whole
 * or not at all (outfile), so a failure leaves the previous one in place.
 * Writers of one directory take turns (flock on DIR/.vtrace.lock, kept
 * there), so its files always come from one run: without it, two runs
 * could each rename a file last.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "outfile.h"
#include "render.h"

int render_out(const struct report *r, const char *dir, const struct render_opts *o,
	       struct err *err)
{
	struct buf path, json;
	int rc = -1, lock = -1;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return err_set(err, -1, "cannot create directory '%s': %s", dir, strerror(errno));
	buf_init(&path);
	buf_init(&json);
	buf_printf(&path, "%s/.vtrace.lock", dir);
	if (!buf_ok(&path)) {
		err_set(err, -1, "out of memory writing '%s'", dir);
		goto out;
	}
	/* O_NOFOLLOW: a link planted at the name would make us create its target */
	lock = open(path.data, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
	if (lock < 0) {
		err_set(err, -1, "cannot write '%s': %s", path.data, strerror(errno));
		goto out;
	}
	while (flock(lock, LOCK_EX)) {
		if (errno == EINTR)
			continue;
		/* a file system without locks (ENOLCK, EOPNOTSUPP): write unserialised */
		if (errno != ENOLCK && errno != EOPNOTSUPP && errno != EINVAL) {
			err_set(err, -1, "cannot lock '%s': %s", path.data, strerror(errno));
			goto out;
		}
		break;
	}
	buf_reset(&path);
	report_to_json(r, &json);
	buf_printf(&path, "%s/report.json", dir);
	if (!buf_ok(&json) || !buf_ok(&path)) {
		err_set(err, -1, "out of memory writing '%s'", dir);
		goto out;
	}
	if (outfile_write(path.data, json.data, json.len, err))
		goto out;
	buf_reset(&path);
	buf_printf(&path, "%s/report.html", dir);
	if (!buf_ok(&path) || render_html(r, path.data, o, err))
		goto out;
	buf_reset(&path);
	buf_printf(&path, "%s/tables", dir);
	if (!buf_ok(&path) || render_csv(r, path.data, err))
		goto out;
	if (!(o && o->quiet))
		log_msg("wrote %s/report.json, %s/report.html and %s/tables/*.csv", dir, dir, dir);
	rc = 0;
out:
	if (lock >= 0)
		close(lock);	/* and with it the lock */
	buf_release(&path);
	buf_release(&json);
	return rc;
}
