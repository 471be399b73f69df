/*
 * render: render_outputs(), the dispatch of the shared output options, and
 * render_out(), the whole output directory: report.json, report.html and
 * tables/ with the CSV files.  Each file is written whole
 * or not at all (outfile), so a failure leaves the previous one in place.
 * Writers of one directory take turns (flock on DIR itself, so no lock
 * file is left there), so its files always come from one run: without it,
 * two runs could each rename a file last.
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

/*
 * DIR/report.json (the text json), DIR/report.html and DIR/tables/, under
 * DIR's lock.
 */
static int out_dir(const struct report *r, const char *dir, const struct buf *json,
		   const struct render_opts *o, struct err *err)
{
	struct render_opts ro;
	struct buf path;
	int rc = -1, lock = -1;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return err_set(err, -1, "cannot create directory '%s': %s", dir, strerror(errno));
	buf_init(&path);
	/*
	 * The lock is on the directory itself: a lock file would be left behind
	 * (removing it after use lets a waiting writer lock a name nobody else
	 * will see), and a directory is what every writer of DIR opens alike.
	 */
	lock = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock < 0) {
		err_set(err, -1, "cannot write '%s': %s", dir, strerror(errno));
		goto out;
	}
	while (flock(lock, LOCK_EX)) {
		if (errno == EINTR)
			continue;
		/* a file system without locks (ENOLCK, EOPNOTSUPP): write unserialised */
		if (errno != ENOLCK && errno != EOPNOTSUPP && errno != EINVAL) {
			err_set(err, -1, "cannot lock '%s': %s", dir, strerror(errno));
			goto out;
		}
		break;
	}
	buf_reset(&path);
	buf_printf(&path, "%s/report.json", dir);
	if (!buf_ok(json) || !buf_ok(&path)) {
		err_set(err, -1, "out of memory writing '%s'", dir);
		goto out;
	}
	if (outfile_write(path.data, json->data, json->len, err))
		goto out;
	buf_reset(&path);
	buf_printf(&path, "%s/report.html", dir);
	ro = o ? *o : (struct render_opts){ 0 };
	ro.tables = 1;	/* written next */
	if (!buf_ok(&path) || render_html(r, path.data, &ro, err))
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
	return rc;
}

int render_out(const struct report *r, const char *dir, const struct render_opts *o,
	       struct err *err)
{
	struct buf json;
	int rc;

	buf_init(&json);
	report_to_json(r, &json);
	rc = out_dir(r, dir, &json, o, err);
	buf_release(&json);
	return rc;
}

int render_outputs(const struct report *r, const struct cli *c, size_t json_size)
{
	struct render_opts ro = { .title = c->title, .no_charts = c->no_charts,
				  .quiet = c->quiet };
	struct buf json;
	struct err e;
	int rc = 0;

	buf_init(&json);
	if (c->json || c->out) {
		if (json_size)
			buf_reserve(&json, json_size + json_size / 16);
		report_to_json(r, &json);
	}
	if (c->json) {
		if (!buf_ok(&json)) {
			log_msg("out of memory writing the report");
			rc = -1;
		} else if (outfile_write(c->json, json.data, json.len, &e)) {
			log_error(NULL, &e);
			rc = -1;
		}
	}
	if (c->html && render_html(r, c->html, &ro, &e)) {
		log_error(NULL, &e);
		rc = -1;
	}
	if (c->out && out_dir(r, c->out, &json, &ro, &e)) {
		log_error(NULL, &e);
		rc = -1;
	}
	buf_release(&json);
	return rc;
}
