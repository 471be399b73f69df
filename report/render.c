/*
 * render: render_out(), the whole output directory: report.json,
 * report.html and tables/ with the CSV files.  Each file is written whole
 * or not at all (outfile), so a failure leaves the previous one in place.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "outfile.h"
#include "render.h"

int render_out(const struct report *r, const char *dir, const struct render_opts *o,
	       struct err *err)
{
	struct buf path, json;
	int rc = -1;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return err_set(err, -1, "cannot create directory '%s': %s", dir, strerror(errno));
	buf_init(&path);
	buf_init(&json);
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
	buf_release(&path);
	buf_release(&json);
	return rc;
}
