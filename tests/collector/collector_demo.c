/*
 * collector_demo: a small video-generation-like run recorded with the C API,
 * for the CLI tests: text encoding, denoising steps over blocks, VAE decode,
 * frame and block counts, a counter, and region names that need escaping
 * wherever they land (quotes, control characters, invalid UTF-8, "</").
 * Step and block names are formatted into one reused buffer, as programs do.
 *
 * usage: collector_demo DIR NAME [--kill]
 * With --kill it flushes, opens one more region and dies of SIGKILL.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vtrace.h"

#define STEPS 4
#define BLOCKS 3
#define FRAMES 16

static void work_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	static const char *const odd[] = {
		"quote\" back\\slash", "tab\tnew\nline", "ctl\x01\x1f", "bad utf8 \xff\xfe\xc3",
		"utf8 \xc3\xa9\xe2\x9c\x93", "</script>",
	};
	char name[64];

	if (argc < 3) {
		fprintf(stderr, "usage: collector_demo DIR NAME [--kill]\n");
		return 2;
	}
	if (vt_init(argv[1], argv[2], -1))
		return 1;
	vt_region_begin("generate");
	vt_region_begin("text_encode");
	work_ms(2);
	vt_region_end();
	vt_region_begin("denoise");
	for (int s = 0; s < STEPS; s++) {
		snprintf(name, sizeof(name), "denoise_step_%d", s);
		vt_region_begin(name);
		for (int b = 0; b < BLOCKS; b++) {
			snprintf(name, sizeof(name), "block_%d", b);
			vt_region_begin(name);
			work_ms(1);
			vt_region_end();
			vt_blocks(1);
		}
		vt_counter("queue_depth", STEPS - s);
		vt_region_end();
	}
	vt_region_end();
	vt_region_begin("vae_decode");
	work_ms(3);
	vt_frames(FRAMES);
	vt_region_end();
	vt_region_end();
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		vt_region_begin(odd[i]);
		vt_region_end();
	}
	vt_instant("done");
	if (argc > 3 && !strcmp(argv[3], "--kill")) {
		vt_flush();
		vt_region_begin("unfinished");
		kill(getpid(), SIGKILL);
	}
	vt_shutdown();
	return 0;
}
