/*
 * test_dirwalk: the walk over a temporary tree under $TMPDIR (or /tmp): the
 * files a filter takes, in byte order depth first, dot files passed over,
 * links followed (to files and to directories), a link loop and a dangling
 * link warned about, the depth limit, appending to a list that holds paths
 * already, and the errors at the root.  An unreadable subdirectory is
 * warned about and passed over; as root, which reads every directory, the
 * walk enters it instead, and that is what is checked then.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "dirwalk.h"

static char root[4096];
static char warned[16][512];
static int nr_warned;

static void note(const char *path, const char *what)
{
	if (nr_warned < 16)
		snprintf(warned[nr_warned], sizeof(warned[0]), "%s: %s",
			 path + strlen(root) + 1, what);
	nr_warned++;
}

static int is_json(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && !strcmp(name + n - 5, ".json")) ||
	       (n > 8 && !strcmp(name + n - 8, ".json.gz"));
}

static const char *at(const char *rel)
{
	static char path[8192];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return path;
}

static void make_dir(const char *rel)
{
	if (mkdir(at(rel), 0755))
		CHECK_MSG(0, "mkdir %s: %s", rel, strerror(errno));
}

static void make_file(const char *rel)
{
	FILE *f = fopen(at(rel), "w");

	if (!CHECK_MSG(f != NULL, "create %s: %s", rel, strerror(errno)))
		return;
	fputs("{}\n", f);
	fclose(f);
}

static void make_link(const char *target, const char *rel)
{
	if (symlink(target, at(rel)))
		CHECK_MSG(0, "symlink %s: %s", rel, strerror(errno));
}

/* l's paths from first on, relative to root, are want[] in order. */
static void check_paths(const struct pathlist *l, size_t first, const char *const *want,
			size_t n)
{
	CHECK_EQ_INT(l->n - first, n);
	for (size_t i = 0; i < n && first + i < l->n; i++)
		CHECKF(!strcmp(l->paths[first + i], at(want[i])), "path %zu: got %s, want %s", i,
		       l->paths[first + i], want[i]);
}

static void check_warned(int i, const char *want)
{
	CHECKF(i < nr_warned && i < 16 && !strcmp(warned[i], want),
	       "warning %d: got '%s', want '%s'",
	       i, i < nr_warned && i < 16 ? warned[i] : "(none)", want);
}

static void make_tree(void)
{
	make_file("b.json");
	make_file("a.json.gz");
	make_file("c.txt");
	make_file(".hidden.json");
	make_link("nowhere.json", "dangling.json");
	make_link("b.json", "link.json");
	make_dir("rank_1");
	make_dir("rank_10");
	make_dir("rank_2");
	make_file("rank_1/x.json");
	make_file("rank_10/x.json");
	make_file("rank_2/x.json");
	make_file("rank_2/x.txt");
	make_link("rank_2", "dirlink");		/* not a loop: walked twice */
	make_dir("notafile.json");
	make_file("notafile.json/z.json");
	make_dir("sub");
	make_dir("sub/deep");
	make_file("sub/deep/y.json");
	make_link("..", "sub/deep/loop");	/* back to sub: on the chain */
	make_dir("sub/.dot");
	make_file("sub/.dot/hidden.json");
	make_dir("sub/shut");
	make_file("sub/shut/s.json");
}

static void test_own_files(void)
{
	static const struct dirwalk w = { .want = is_json, .warn = note };
	static const char *const want[] = { "a.json.gz", "b.json", "link.json" };
	struct pathlist l;
	struct err err;

	pathlist_init(&l);
	nr_warned = 0;
	CHECK_EQ_INT(dirwalk(&l, root, &w, &err), 3);
	check_paths(&l, 0, want, 3);
	CHECK_EQ_INT(nr_warned, 1);
	check_warned(0, "dangling.json: cannot open: No such file or directory");
	pathlist_release(&l);
	CHECK(l.n == 0 && l.paths == NULL);
}

static void test_recurse(void)
{
	static const struct dirwalk w = { .want = is_json, .recurse = 1, .warn = note };
	static const char *const want[] = {
		"a.json.gz", "b.json", "dirlink/x.json", "link.json", "notafile.json/z.json",
		"rank_1/x.json", "rank_10/x.json", "rank_2/x.json", "sub/deep/y.json",
		"sub/shut/s.json",
	};
	size_t n = sizeof(want) / sizeof(want[0]);
	int shut = geteuid() != 0;
	struct pathlist l;
	struct err err;

	pathlist_init(&l);
	CHECK(pathlist_add(&l, "given.json") == 0);
	nr_warned = 0;
	CHECK(chmod(at("sub/shut"), 0) == 0);
	CHECK_EQ_INT(dirwalk(&l, root, &w, &err), (long)n - shut);
	CHECK(chmod(at("sub/shut"), 0755) == 0);
	CHECK(!strcmp(l.paths[0], "given.json"));
	check_paths(&l, 1, want, n - shut);
	CHECK_EQ_INT(nr_warned, 2 + shut);
	check_warned(0, "dangling.json: cannot open: No such file or directory");
	check_warned(1, "sub/deep/loop: a link back to a directory above it; not entered");
	if (shut)
		check_warned(2, "sub/shut: cannot open directory: Permission denied");
	pathlist_release(&l);
}

/*
 * dir is at depth 1, so the walk enters DIRWALK_MAX_DEPTH - 1 levels below
 * it: a file at the last of them is listed, the next level is not entered.
 */
static void test_depth(void)
{
	static const struct dirwalk w = { .want = is_json, .recurse = 1, .warn = note };
	char rel[8 + 2 * DIRWALK_MAX_DEPTH + 32] = "deep";
	struct pathlist l;
	struct err err;

	make_dir(rel);
	for (int level = 1; level <= DIRWALK_MAX_DEPTH; level++) {
		strcat(rel, "/d");
		make_dir(rel);
		if (level == DIRWALK_MAX_DEPTH - 1) {
			strcat(rel, "/last.json");
			make_file(rel);
			rel[strlen(rel) - strlen("/last.json")] = '\0';
		}
	}
	strcat(rel, "/too_deep.json");
	make_file(rel);
	pathlist_init(&l);
	nr_warned = 0;
	CHECK_EQ_INT(dirwalk(&l, at("deep"), &w, &err), 1);
	CHECK(l.n == 1 && strstr(l.paths[0], "/last.json"));
	CHECK_EQ_INT(nr_warned, 1);
	CHECKF(nr_warned == 1 && strstr(warned[0], ": deeper than 64 directories; not entered"),
	       "%s", warned[0]);
	pathlist_release(&l);
}

static void test_root_errors(void)
{
	static const struct dirwalk w = { .want = is_json, .recurse = 1, .warn = note };
	struct pathlist l;
	struct err err;

	pathlist_init(&l);
	CHECK(pathlist_add(&l, "kept.json") == 0);
	CHECK_EQ_INT(dirwalk(&l, at("missing"), &w, &err), -1);
	CHECKF(!strcmp(err.msg, "cannot open: No such file or directory"), "%s", err.msg);
	CHECK_EQ_INT(dirwalk(&l, at("b.json"), &w, &err), -1);
	CHECKF(!strcmp(err.msg, "not a directory"), "%s", err.msg);
	CHECK(l.n == 1 && !strcmp(l.paths[0], "kept.json"));
	make_dir("empty");
	CHECK_EQ_INT(dirwalk(&l, at("empty"), &w, &err), 0);
	CHECK_EQ_INT(l.n, 1);
	pathlist_release(&l);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/test_dirwalk.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		printf("test_dirwalk: mkdtemp %s: %s\n", root, strerror(errno));
		return 1;
	}
	make_tree();
	test_own_files();
	test_recurse();
	test_depth();
	test_root_errors();
	if (nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		CHECK_MSG(0, "cannot remove %s", root);
	return check_done("test_dirwalk");
}
