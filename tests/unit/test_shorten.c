/*
 * test_shorten: unit tests for render/shorten.c, long names cut in the
 * middle for the terminal and the HTML page.
 *
 * shorten.h: a name that fits is unchanged; one that does not is at most
 * cols code points, keeps its start and its end, cuts only on code point
 * boundaries, and drops a C++ "void " and parameter list first; in a set,
 * names that would read the same keep the part where they differ.
 */
#include "shorten.h"

#include "check.h"

/* Whether s is valid UTF-8 (every lead byte followed by its continuations). */
static int utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 :
			(*p & 0xf8) == 0xf0 ? 3 : -1;

		if (n < 0)
			return 0;
		p++;
		while (n--)
			if ((*p++ & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

static void fits(void)
{
	char out[SHORTEN_CAP(20)];

	CHECK_EQ_STR(shorten(out, "aten::mm", 20), "aten::mm");
	CHECK_EQ_STR(shorten(out, "", 20), "");
	CHECK_EQ_STR(shorten(out, "exactly twenty cols!", 20), "exactly twenty cols!");
	CHECK_EQ_INT(shorten_cols("\xc2\xb5s \xe2\x80\xa6"), 4);
}

static void cut_in_the_middle(void)
{
	char out[SHORTEN_CAP(40)];
	const char *k = "void at::native::vectorized_elementwise_kernel<4, at::native::"
			"CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, "
			"at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)";
	const char *plain = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

	const char *g = "void some::lib::generic_kernel<4, some::lib::Op<float>, "
			"some::detail::Array<char*, 3> >(int, some::lib::Op<float>, "
			"some::detail::Array<char*, 3>)";

	/* ATen's templated kernel: the family's start and the functor */
	shorten(out, k, 40);
	CHECKF(shorten_cols(out) <= 40, "%s", out);
	CHECKF(!strcmp(out, "vectorized_elemen\xe2\x80\xa6" "CUDAFunctor_add<float>"), "%s", out);
	shorten(out, k, 20);
	CHECKF(!strcmp(out, "\xe2\x80\xa6" "CUDAFunctor_add<float>") || shorten_cols(out) <= 20,
	       "%s", out);
	/* a C++ name of no known form: no "void ", its start and its end, no parameters */
	shorten(out, g, 40);
	CHECKF(shorten_cols(out) <= 40, "%s", out);
	CHECKF(!strncmp(out, "some::lib::generic", 18), "%s", out);
	CHECKF(strstr(out, "char*, 3> >(\xe2\x80\xa6)"), "%s", out);
	/* a collective: its name and its data type */
	shorten(out, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, "
		"ncclWork*)", 29);
	CHECKF(!strcmp(out, "ncclKernel_SendRecv\xe2\x80\xa6" "int8_t"), "%s", out);
	shorten(out, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, "
		"ncclWork*)", 29);
	CHECKF(!strcmp(out, "ncclKernel_AllReduce\xe2\x80\xa6" "float"), "%s", out);
	shorten(out, plain, 40);
	CHECK_EQ_INT(shorten_cols(out), 40);
	CHECKF(!strncmp(out, "abcdefghijklmnopqrstuvwxyz", 26), "%s", out);
	CHECKF(strstr(out, "\xe2\x80\xa6") && !strcmp(out + strlen(out) - 13, "NOPQRSTUVWXYZ"),
	       "%s", out);
	/* multi-byte characters are never split, whatever the width */
	for (size_t cols = 8; cols < 40; cols++) {
		const char *u = "\xc3\xa9t\xc3\xa9_\xe2\x82\xac_\xf0\x9f\x8e\xac_\xc3\xa9t\xc3\xa9_"
				"\xe2\x82\xac_\xf0\x9f\x8e\xac_\xc3\xa9t\xc3\xa9_"
				"\xe2\x82\xac_end(int)";

		shorten(out, u, cols);
		CHECKF(utf8_ok(out) && shorten_cols(out) <= cols, "%zu: %s", cols, out);
	}
}

static void set_apart(void)
{
	/* they differ only in the middle: the plain cut reads the same */
	const char *names[] = {
		"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
		"execute_segment_k_off_kernel__5x_cublas",
		"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_warpgroupsize1x1x1_"
		"execute_segment_k_off_kernel__5x_cublas",
		"short",
	};
	size_t stride = SHORTEN_CAP(30);
	char out[3 * SHORTEN_CAP(30)], a[SHORTEN_CAP(30)], b[SHORTEN_CAP(30)];

	CHECK_EQ_STR(shorten(a, names[0], 30), shorten(b, names[1], 30));
	shorten_set(out, stride, names, 3, 30);
	CHECKF(strcmp(out, out + stride) != 0, "%s | %s", out, out + stride);
	CHECKF(strstr(out, "size128") || strstr(out + stride, "size256"), "%s | %s", out,
	       out + stride);
	CHECK(shorten_cols(out) <= 30 && shorten_cols(out + stride) <= 30);
	CHECK_EQ_STR(out + 2 * stride, "short");

	/* overloads that differ in their parameters only keep them */
	names[0] = "void at::native::some_rather_long_kernel_name<float>(float*, long, long, long)";
	names[1] = "void at::native::some_rather_long_kernel_name<float>(double*, long, long, "
		   "long)";
	shorten_set(out, stride, names, 2, 30);
	CHECKF(strcmp(out, out + stride) != 0, "%s | %s", out, out + stride);
	CHECK(shorten_cols(out) <= 30 && shorten_cols(out + stride) <= 30);
}

int main(void)
{
	fits();
	cut_in_the_middle();
	set_apart();
	return check_done("test_shorten");
}
