/*
 * gentrace: a deterministic generator of Kineto-style Chrome trace JSON shaped
 * like a multi-GPU video diffusion run, and of the ground truth that an
 * analyzer should find in it.
 *
 *   gentrace [--ranks N] [--size BYTES|--steps S] [--blocks K] [--seed X]
 *            [--generations G] [--loop steps-outer|blocks-outer]
 *            [--jitter F] [--slow-phase NAME=FACTOR] [--straggler R=FACTOR]
 *            [--frames F] [--warmup FACTOR] [--no-wait] [--clock-shift R=SECONDS]
 *            [--split-denoising]
 *            [--plant KIND@STEP=MS]... [--shapes] [--level L] [--plain]
 *            [--truth PATH] -o PREFIX
 *
 * writes PREFIX-rank{R}.trace.json.gz (or .json with --plain) per rank and
 * PREFIX-truth.json (or --truth PATH).  --help explains the options.
 *
 * Invariants that make the truth exact:
 * - Every time is an int64 count of nanoseconds and is printed as decimal
 *   microseconds with exactly three fractional digits, so ts * 1000 read back
 *   as a decimal is the same integer.
 * - Every factor (jitter, slow phases, stragglers) is an integer in parts per
 *   million and applied with integer arithmetic: no floating point touches a
 *   time, so the output is byte-identical on every machine for one seed.
 * - The truth is counted from the records as they are written, not from the
 *   plan, so what the file says and what the truth says cannot drift apart.
 *
 * Shape of one rank: a CPU thread runs the three fastvideo regions (pre
 * denoising with the text encoder, denoising with one ProfilerStep#N and one
 * denoise_step_N per step and block_K spans inside, post denoising with
 * vae_decode_chunk_J), each op a cpu_op (often an outer and an inner one) that
 * calls the CUDA runtime, which launches a kernel, memcpy or memset on one of
 * three streams (7 compute, 13 NCCL, 21 copies).  The CPU runs ahead of the
 * GPU and waits for it once per step, at a blocking device-to-host copy.
 * With more than one rank every block does an all-gather that overlaps
 * compute and two all-to-alls that the compute stream waits for; at those
 * all-to-alls the faster ranks wait for the slowest one, so a straggler shows
 * up as the rank that spends the least time in communication.
 *
 * Output order follows Kineto: within a unit of work (the pre-denoising part,
 * one denoising step, the post-denoising part) CPU events come first in start
 * order, then GPU events in launch order.  The three region spans, which
 * outlast a unit, are written when they end, and the metadata at the very end.
 *
 * --plant puts a host stall at the start of a step: a DataLoader fetch, CPU
 * preprocessing, a handle creation, an allocation, a graph instantiation, a
 * compilation or a gloo collective of MS milliseconds, or MS synchronising
 * .item() calls.  The device idles meanwhile; the truth lists each gap it
 * opens (from the device's last end to its next start, as the generator
 * scheduled them) with the cause doc/idle.md gives it.
 *
 * Memory: one output buffer of SINK_BUF bytes and the records of one unit;
 * the only thing that grows with the trace is the list of GPU intervals the
 * truth needs for its busy-time unions (16 bytes per GPU event).
 */
/* strdup() is POSIX; the Makefile's _GNU_SOURCE covers it too. */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#define PROG "gentrace"
#define PPM 1000000LL
#define MAX_RANKS 1024
#define NR_GPUS 8		/* GPUs listed in deviceProperties; rank r uses r % 8 */
#define TE_LAYERS 4		/* text encoder layers */
#define SINK_BUF (4u << 20)
#define SINK_SLACK (64u << 10)	/* more than any one event can write between checks */

#define T0_NS 1700000123456789LL	/* profiler start of rank 0, ns */
#define BASE_TIME_NS "1700000000000000000"
#define CPU_PID_BASE 31337

enum { S_COMPUTE = 7, S_COMM = 13, S_COPY = 21 };
#define NR_STREAMS 3

static int stream_slot(int stream)
{
	return stream == S_COMPUTE ? 0 : stream == S_COMM ? 1 : 2;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

/* ---- number formatting: the hot loop never calls printf ---- */

static char digit_pairs[200];

static void fmt_init(void)
{
	for (int i = 0; i < 100; i++) {
		digit_pairs[2 * i] = (char)('0' + i / 10);
		digit_pairs[2 * i + 1] = (char)('0' + i % 10);
	}
}

static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	char *q = tmp + sizeof(tmp);

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		q -= 2;
		memcpy(q, digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, digit_pairs + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	memcpy(p, q, (size_t)(tmp + sizeof(tmp) - q));
	return p + (tmp + sizeof(tmp) - q);
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* ns as microseconds with exactly three decimals, as Kineto prints them. */
static char *put_us(char *p, int64_t ns)
{
	unsigned frac = (unsigned)(ns % 1000);

	p = put_u64(p, (uint64_t)(ns / 1000));
	*p++ = '.';
	*p++ = (char)('0' + frac / 100);
	memcpy(p, digit_pairs + 2 * (frac % 100), 2);
	return p + 2;
}

/* num / den with six decimals; bytes per ns is GB/s exactly. */
static char *put_ratio6(char *p, int64_t num, int64_t den)
{
	char frac[6];
	int64_t rem;

	if (den <= 0)
		den = 1;
	p = put_u64(p, (uint64_t)(num / den));
	rem = num % den;
	*p++ = '.';
	for (int i = 0; i < 6; i++) {
		rem *= 10;
		frac[i] = (char)('0' + rem / den);
		rem %= den;
	}
	memcpy(p, frac, 6);
	return p + 6;
}

#define PUT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static char *put_mem(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* ---- deterministic random numbers: splitmix64, the same on every machine ---- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t rng_range(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

/* d * ppm / 1e6 without overflow for any time this program makes. */
static int64_t scale(int64_t d, int64_t ppm)
{
	return d / PPM * ppm + d % PPM * ppm / PPM;
}

/* ---- output: text is built in one buffer and deflated or written in big pieces ---- */

struct sink {
	FILE *f;
	char *tmp_path, *path;
	int gz;
	z_stream z;
	unsigned char *zout;
	char *buf;
	size_t len;
	uint64_t flushed;	/* text bytes handed on so far */
	uint64_t file_bytes;	/* bytes written to the file */
};

static void sink_write(struct sink *s, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, s->f) != n)
		die("cannot write '%s': %s", s->tmp_path, strerror(errno));
	s->file_bytes += n;
}

static void sink_flush(struct sink *s, int finish)
{
	if (!s->gz) {
		sink_write(s, s->buf, s->len);
	} else {
		int rc;

		s->z.next_in = (unsigned char *)s->buf;
		s->z.avail_in = (uInt)s->len;
		do {
			s->z.next_out = s->zout;
			s->z.avail_out = SINK_BUF;
			rc = deflate(&s->z, finish ? Z_FINISH : Z_NO_FLUSH);
			if (rc == Z_STREAM_ERROR)
				die("deflate failed for '%s'", s->tmp_path);
			sink_write(s, s->zout, SINK_BUF - s->z.avail_out);
		} while (s->z.avail_out == 0 || (finish && rc != Z_STREAM_END));
	}
	s->flushed += s->len;
	s->len = 0;
}

static void sink_open(struct sink *s, const char *path, int gz, int level)
{
	memset(s, 0, sizeof(*s));
	s->path = strdup(path);
	s->tmp_path = xrealloc(NULL, strlen(path) + 5);
	sprintf(s->tmp_path, "%s.tmp", path);
	s->f = fopen(s->tmp_path, "wb");
	if (!s->f)
		die("cannot write '%s': %s", s->tmp_path, strerror(errno));
	s->buf = xrealloc(NULL, SINK_BUF);
	s->gz = gz;
	if (gz) {
		s->zout = xrealloc(NULL, SINK_BUF);
		/* windowBits 15 + 16: a gzip wrapper, as gzip(1) writes it. */
		if (deflateInit2(&s->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			die("deflateInit2 failed");
	}
}

static void sink_close(struct sink *s)
{
	sink_flush(s, 1);
	if (s->gz)
		deflateEnd(&s->z);
	if (fflush(s->f) || ferror(s->f) || fclose(s->f))
		die("cannot write '%s': %s", s->tmp_path, strerror(errno));
	if (rename(s->tmp_path, s->path))
		die("cannot rename '%s' to '%s': %s", s->tmp_path, s->path, strerror(errno));
	free(s->buf);
	free(s->zout);
	free(s->tmp_path);
	free(s->path);
}

/* A cursor with room for one event. */
static char *sink_room(struct sink *s)
{
	if (s->len > SINK_BUF - SINK_SLACK)
		sink_flush(s, 0);
	return s->buf + s->len;
}

static void sink_done(struct sink *s, char *p)
{
	s->len = (size_t)(p - s->buf);
}

static uint64_t sink_text_bytes(const struct sink *s)
{
	return s->flushed + s->len;
}

/* ---- templates: kernels and the CPU ops that launch them ---- */

enum kcat { KC_COMM, KC_ATTENTION, KC_GEMM, KC_CONV, KC_NORM, KC_ELEMENTWISE, KC_REDUCE,
	    KC_OTHER, KC_NR };

static const char *const kcat_names[KC_NR] = {
	"comm", "attention", "gemm", "conv", "norm", "elementwise", "reduce", "other",
};

struct kern {
	const char *name;
	int64_t base_ns;
	int regs, smem, grid[3], block[3];
	const char *blocks_per_sm, *warps_per_sm;
	int occupancy;
};

/* What kern_init() derives from each template. */
struct kern_info {
	size_t name_len;
	char args[400];		/* the fixed tail of "args" */
	size_t args_len;
	enum kcat cat;
};

static const struct kern kernels[] = {
#define K_LN 0
	{ "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, "
	  "float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, "
	  "float*, float*, c10::BFloat16*)",
	  180000, 40, 0, { 4096, 1, 1 }, { 256, 1, 1 }, "31.030303", "248.242424", 92 },
#define K_QKV 1
	{ "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_"
	  "execute_segment_k_off_kernel__5x_cublas",
	  1400000, 168, 213248, { 132, 1, 1 }, { 384, 1, 1 }, "1.000000", "12.000000", 18 },
#define K_OUT 2
	{ "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
	  "execute_segment_k_off_kernel__5x_cublas",
	  480000, 168, 164864, { 132, 1, 1 }, { 256, 1, 1 }, "1.000000", "8.000000", 12 },
#define K_FF 3
	{ "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_warpgroupsize2x1x1_"
	  "execute_segment_k_off_kernel__5x_cublas",
	  1900000, 168, 213248, { 132, 1, 1 }, { 384, 1, 1 }, "1.000000", "12.000000", 18 },
#define K_SMALL_GEMM 4
	{ "void cutlass::"
	  "Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>"
	  "(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8::Params)",
	  40000, 122, 81920, { 48, 1, 1 }, { 128, 1, 1 }, "0.363636", "1.454545", 3 },
#define K_FLASH 5
	{ "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
	  "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, "
	  "false, false, false, false, true, true, false, false>(Flash_fwd_params)",
	  5200000, 255, 49152, { 32, 1, 24 }, { 128, 1, 1 }, "5.818182", "23.272728", 12 },
#define K_FMHA 6
	{ "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel"
	  "<cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
	  260000, 128, 34816, { 8, 64, 1 }, { 32, 4, 1 }, "3.878788", "15.515152", 24 },
#define K_ADD 7
	{ "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add"
	  "<c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add"
	  "<c10::BFloat16>, at::detail::Array<char*, 3>)",
	  110000, 26, 0, { 12288, 1, 1 }, { 128, 1, 1 }, "93.090912", "372.363647", 88 },
#define K_GELU 8
	{ "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl"
	  "(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
	  "{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, "
	  "2> >"
	  "(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
	  "{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::"
	  "{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2>)",
	  320000, 30, 0, { 49152, 1, 1 }, { 128, 1, 1 }, "372.363647", "1489.454590", 91 },
#define K_MUL 9
	{ "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, "
	  "float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array"
	  "<char*, 3> >(int, at::native::BinaryFunctor<float, float, float, "
	  "at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3>)",
	  15000, 24, 0, { 1890, 1, 1 }, { 128, 1, 1 }, "14.318182", "57.272728", 81 },
#define K_SILU 10
	{ "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
	  "silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#4}::"
	  "operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> >(int, "
	  "at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::"
	  "operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, "
	  "at::detail::Array<char*, 2>)",
	  12000, 28, 0, { 6, 1, 1 }, { 128, 1, 1 }, "0.045455", "0.181818", 1 },
#define K_CAT 11
	{ "void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<at::"
	  "native::"
	  "(anonymous namespace)::OpaqueType<2u>, unsigned int, 4, 128, 1>(at::native::(anonymous "
	  "namespace)::OpaqueType<2u>*, at::native::(anonymous namespace)::"
	  "CatArrInputTensorMetadata"
	  "<at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 128, 1>, at::native::"
	  "(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
	  90000, 32, 0, { 6144, 2, 1 }, { 512, 1, 1 }, "93.090912", "1489.454590", 85 },
#define K_MEAN 12
	{ "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps"
	  "<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, "
	  "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
	  30000, 32, 16, { 1, 16, 1 }, { 32, 16, 1 }, "0.121212", "1.939394", 3 },
#define K_RANDN 13
	{ "void at::native::(anonymous namespace)::"
	  "distribution_elementwise_grid_stride_kernel<float, "
	  "4, at::native::templates::cuda::normal_and_transform<float, float, at::"
	  "CUDAGeneratorImpl*, "
	  "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase "
	  "const&, "
	  "double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::"
	  "{lambda()#2}::"
	  "operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, "
	  "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase "
	  "const&, "
	  "double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::"
	  "{lambda()#2}::"
	  "operator()() const::{lambda(float)#1})::{lambda(curandStatePhilox4_32_10*)#2}>(long, "
	  "at::PhiloxCudaState, at::native::templates::cuda::normal_and_transform<float, float, "
	  "at::CUDAGeneratorImpl*>)",
	  45000, 40, 0, { 528, 1, 1 }, { 256, 1, 1 }, "4.000000", "32.000000", 45 },
#define K_GN 14
	{ "void at::native::(anonymous namespace)::group_norm_nhwc_fwd_kernel<c10::BFloat16, "
	  "float, "
	  "512>(c10::BFloat16 const*, float const*, float const*, c10::BFloat16*, int, int, int, "
	  "float)",
	  350000, 48, 8192, { 32, 8, 1 }, { 512, 1, 1 }, "1.939394", "31.030303", 48 },
#define K_CONV 15
	{ "void cudnn::cnn::conv3d_fprop_implicit_precomp_kernel<__nv_bfloat16, float, 128, 5, 5, "
	  "3, "
	  "3, 3, 1, true>(int, int, int, __nv_bfloat16 const*, int, __nv_bfloat16*, __nv_bfloat16 "
	  "const*, cudnn::cnn::kernel_conv_params, unsigned long long, int, float, float, int, "
	  "__nv_bfloat16 const*, __nv_bfloat16 const*)",
	  2600000, 128, 65536, { 3600, 1, 2 }, { 128, 1, 1 }, "54.545456", "218.181824", 38 },
#define K_UPS 16
	{ "void at::native::(anonymous namespace)::upsample_nearest3d_out_frame<c10::BFloat16, "
	  "float>"
	  "(c10::BFloat16 const*, c10::BFloat16*, unsigned long, unsigned long, unsigned long, "
	  "unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, float, "
	  "float, "
	  "float)",
	  400000, 38, 0, { 65535, 1, 1 }, { 512, 1, 1 }, "496.477264", "7943.636230", 96 },
#define K_ALLGATHER 17
	{ "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
	  700000, 96, 4864, { 8, 1, 1 }, { 512, 1, 1 }, "0.060606", "0.969697", 2 },
#define K_ALLTOALL 18
	{ "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
	  420000, 96, 4864, { 16, 1, 1 }, { 640, 1, 1 }, "0.121212", "2.424242", 4 },
};
#define NR_KERNELS ((int)(sizeof(kernels) / sizeof(kernels[0])))

static struct kern_info kinfo[NR_KERNELS];

/* The category rules of DESIGN.md (Kernels), first match wins. */
static enum kcat classify(const char *name)
{
	static const char *const rules[][8] = {
		[KC_COMM] = { "nccl", "rccl", "all_reduce", "allgather", "reduce_scatter",
			      "sendrecv", "alltoall", NULL },
		[KC_ATTENTION] = { "flash", "fmha", "attention", "sdpa", NULL },
		[KC_GEMM] = { "gemm", "gemv", "matmul", "cutlass", "cublas", "wgmma", "sm90_xmma",
			      NULL },
		[KC_CONV] = { "conv", NULL },
		[KC_NORM] = { "layer_norm", "rms_norm", "group_norm", NULL },
		/* analyzer/kcat.c: PyTorch's cat copy is element-wise data movement */
		[KC_ELEMENTWISE] = { "elementwise", "catarraybatchedcopy", NULL },
		[KC_REDUCE] = { "reduce", NULL },
	};
	char low[2048];
	size_t i;

	for (i = 0; name[i] && i < sizeof(low) - 1; i++)
		low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
	low[i] = 0;
	for (int c = 0; c < KC_OTHER; c++)
		for (int r = 0; rules[c][r]; r++)
			if (strstr(low, rules[c][r]))
				return (enum kcat)c;
	return KC_OTHER;
}

static void kern_init(void)
{
	for (int i = 0; i < NR_KERNELS; i++) {
		const struct kern *k = &kernels[i];
		struct kern_info *ki = &kinfo[i];
		int n;

		ki->name_len = strlen(k->name);
		ki->cat = classify(k->name);
		n = snprintf(ki->args, sizeof(ki->args),
			     "\"registers per thread\": %d,\n      \"shared memory\": %d,\n"
			     "      \"blocks per SM\": %s,\n      \"warps per SM\": %s,\n"
			     "      \"grid\": [%d, %d, %d],\n      \"block\": [%d, %d, %d],\n"
			     "      \"est. achieved occupancy %%\": %d",
			     k->regs, k->smem, k->blocks_per_sm, k->warps_per_sm, k->grid[0],
			     k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2],
			     k->occupancy);
		if (n < 0 || (size_t)n >= sizeof(ki->args))
			die("kernel template %d: args too long", i);
		ki->args_len = (size_t)n;
	}
}

/* What an op puts on the GPU. */
enum launch_kind { L_KERNEL, L_MEMCPY, L_MEMSET };

enum op_flags {
	OP_SYNC = 1,		/* the runtime call blocks until the copy is done */
	OP_COMM = 2,		/* record_param_comms args */
	OP_WAIT = 4,		/* collective the compute stream waits for */
};

struct op {
	const char *outer, *inner;	/* cpu_op names; inner may be NULL */
	const char *dims, *types;	/* "Input Dims" and "Input type" JSON */
	enum launch_kind launch;
	int kernel;			/* K_* for L_KERNEL */
	int stream;
	int flags;
	const char *copy_name;		/* memcpy/memset */
	int64_t bytes;			/* memcpy/memset; comm: elements per rank */
	const char *coll;		/* "Collective name" */
	/* --shapes: the inner operator's own args, where they differ (NULL: dims, types) */
	const char *inner_dims, *inner_types;
	const char *conc;		/* the inner operator's "Concrete Inputs"; NULL none */
};

#define ADDMM_TYPES \
	"[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]"
#define ADDMM_CONC "[\"\", \"\", \"\", \"1\", \"1\"]"

#define BF16_3 "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]"

enum {
	OP_LN, OP_QKV, OP_ROPE, OP_SDPA, OP_PROJ, OP_ADD, OP_FF1, OP_GELU, OP_FF2,
	OP_ALLGATHER, OP_ALLTOALL, OP_TIMESTEP_H2D, OP_TEMB, OP_SILU, OP_MUL, OP_MEAN,
	OP_ZERO, OP_ITEM, OP_TOKENS_H2D, OP_TE_LN, OP_TE_QKV, OP_TE_ATTN, OP_TE_FF1,
	OP_TE_FF2, OP_RANDN, OP_GN, OP_CONV, OP_UPS, OP_FRAMES_D2H, OP_CUDNN_CONV, OP_CONV_BIAS,
	NR_OPS
};

static const struct op ops[NR_OPS] = {
	[OP_LN] = { "aten::layer_norm", "aten::native_layer_norm",
		    "[[1, 16384, 3072], [], [3072], [3072], [], []]",
		    "[\"c10::BFloat16\", \"\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", "
		    "\"Scalar\"]", L_KERNEL, K_LN, S_COMPUTE, 0, NULL, 0, NULL, NULL, NULL, NULL },
	[OP_QKV] = { "aten::linear", "aten::addmm", "[[1, 16384, 3072], [9216, 3072], [9216]]",
		     BF16_3, L_KERNEL, K_QKV, S_COMPUTE, 0, NULL, 0, NULL,
		  "[[9216], [16384, 3072], [3072, 9216], [], []]", ADDMM_TYPES, ADDMM_CONC },
	[OP_ROPE] = { "aten::cat", NULL, "[[], []]", "[\"TensorList\", \"Scalar\"]", L_KERNEL,
		      K_CAT, S_COMPUTE, 0, NULL, 0, NULL, NULL, NULL, NULL },
	[OP_SDPA] = { "aten::scaled_dot_product_attention",
		      "aten::_scaled_dot_product_flash_attention",
		      "[[1, 24, 16384, 128], [1, 24, 16384, 128], [1, 24, 16384, 128], "
		      "[], [], [], []]",
		      "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", "
		      "\"Scalar\", \"Scalar\", \"\"]",
		      L_KERNEL, K_FLASH, S_COMPUTE, 0, NULL, 0, NULL, NULL,
		      "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", "
		      "\"Scalar\", \"Scalar\", \"Scalar\"]",
		      "[\"\", \"\", \"\", \"0.\", \"False\", \"False\", \"\"]" },
	[OP_PROJ] = { "aten::linear", "aten::addmm", "[[1, 16384, 3072], [3072, 3072], [3072]]",
		      BF16_3, L_KERNEL, K_OUT, S_COMPUTE, 0, NULL, 0, NULL,
		  "[[3072], [16384, 3072], [3072, 3072], [], []]", ADDMM_TYPES, ADDMM_CONC },
	[OP_ADD] = { "aten::add", NULL, "[[1, 16384, 3072], [1, 16384, 3072], []]",
		     "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]", L_KERNEL, K_ADD,
		     S_COMPUTE, 0, NULL, 0, NULL, NULL, NULL, NULL },
	[OP_FF1] = { "aten::linear", "aten::addmm", "[[1, 16384, 3072], [12288, 3072], [12288]]",
		     BF16_3, L_KERNEL, K_FF, S_COMPUTE, 0, NULL, 0, NULL,
		  "[[12288], [16384, 3072], [3072, 12288], [], []]", ADDMM_TYPES, ADDMM_CONC },
	[OP_GELU] = { "aten::gelu", NULL, "[[1, 16384, 12288], []]", "[\"c10::BFloat16\", \"\"]",
		      L_KERNEL, K_GELU, S_COMPUTE, 0, NULL, 0, NULL, NULL, NULL, NULL },
	[OP_FF2] = { "aten::linear", "aten::addmm", "[[1, 16384, 12288], [3072, 12288], [3072]]",
		     BF16_3, L_KERNEL, K_FF, S_COMPUTE, 0, NULL, 0, NULL,
		  "[[3072], [16384, 12288], [12288, 3072], [], []]", ADDMM_TYPES, ADDMM_CONC },
	[OP_ALLGATHER] = { "c10d::_allgather_base_", "record_param_comms",
			   "[[3072, 3072], [], [], []]",
			   "[\"c10::BFloat16\", \"TensorList\", \"Scalar\", \"Scalar\"]", L_KERNEL,
			   K_ALLGATHER, S_COMM, OP_COMM, NULL, 4718592, "_allgather_base",
			   NULL, NULL, NULL },
	[OP_ALLTOALL] = { "c10d::alltoall_base_", "record_param_comms",
			  "[[1, 4096, 3072], [1, 4096, 3072], [], [], []]",
			  "[\"c10::BFloat16\", \"c10::BFloat16\", \"GenericList\", "
			  "\"GenericList\", "
			  "\"Scalar\"]", L_KERNEL, K_ALLTOALL, S_COMM, OP_COMM | OP_WAIT, NULL,
			  12582912, "all_to_all", NULL, NULL, NULL },
	[OP_TIMESTEP_H2D] = { "aten::to", "aten::copy_", "[[1], [], [], [], []]",
			      "[\"long int\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
			      L_MEMCPY, 0, S_COMPUTE, 0, "Memcpy HtoD (Pageable -> Device)", 8,
			      NULL, NULL, NULL, NULL },
	[OP_TEMB] = { "aten::linear", "aten::addmm", "[[1, 256], [3072, 256], [3072]]", BF16_3,
		      L_KERNEL, K_SMALL_GEMM, S_COMPUTE, 0, NULL, 0, NULL,
		      "[[3072], [1, 256], [256, 3072], [], []]", ADDMM_TYPES, ADDMM_CONC },
	[OP_SILU] = { "aten::silu", NULL, "[[1, 3072]]", "[\"c10::BFloat16\"]", L_KERNEL, K_SILU,
		      S_COMPUTE, 0, NULL, 0, NULL, NULL, NULL, NULL },
	[OP_MUL] = { "aten::mul", NULL, "[[1, 16, 21, 90, 160], []]", "[\"float\", \"Scalar\"]",
		     L_KERNEL, K_MUL, S_COMPUTE, 0, NULL, 0, NULL, NULL, NULL, NULL },
	[OP_MEAN] = { "aten::mean", NULL, "[[1, 16, 21, 90, 160], [], [], []]",
		      "[\"float\", \"\", \"Scalar\", \"\"]", L_KERNEL, K_MEAN, S_COMPUTE, 0, NULL,
		      0, NULL, NULL, NULL, NULL },
	[OP_ZERO] = { "aten::zero_", "aten::fill_", "[[1, 16, 21, 90, 160]]", "[\"float\"]",
		      L_MEMSET, 0, S_COPY, 0, "Memset (Device)", 19353600, NULL, NULL, NULL, NULL },
	[OP_ITEM] = { "aten::item", "aten::_local_scalar_dense", "[[]]", "[\"float\"]", L_MEMCPY,
		      0, S_COMPUTE, OP_SYNC, "Memcpy DtoH (Device -> Pageable)", 4,
		      NULL, NULL, NULL, NULL },
	[OP_TOKENS_H2D] = { "aten::to", "aten::copy_", "[[1, 512], [], [], [], []]",
			    "[\"long int\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
			    L_MEMCPY, 0, S_COPY, 0, "Memcpy HtoD (Pageable -> Device)", 4096,
			    NULL, NULL, NULL, NULL },
	[OP_TE_LN] = { "aten::layer_norm", "aten::native_layer_norm",
		       "[[1, 512, 4096], [], [4096], [4096], [], []]",
		       "[\"c10::BFloat16\", \"\", \"c10::BFloat16\", \"c10::BFloat16\", "
		       "\"Scalar\", \"Scalar\"]", L_KERNEL, K_LN, S_COMPUTE, 0, NULL, 0, NULL,
		       NULL, NULL, NULL },
	[OP_TE_QKV] = { "aten::linear", "aten::addmm", "[[1, 512, 4096], [12288, 4096], [12288]]",
			BF16_3, L_KERNEL, K_OUT, S_COMPUTE, 0, NULL, 0, NULL,
		  "[[12288], [512, 4096], [4096, 12288], [], []]", ADDMM_TYPES, ADDMM_CONC },
	[OP_TE_ATTN] = { "aten::scaled_dot_product_attention",
			 "aten::_scaled_dot_product_efficient_attention",
			 "[[1, 64, 512, 64], [1, 64, 512, 64], [1, 64, 512, 64], "
			 "[1, 64, 512, 512], "
			 "[], [], []]",
			 "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
			 "\"c10::BFloat16\", \"Scalar\", \"Scalar\", \"\"]", L_KERNEL, K_FMHA,
			 S_COMPUTE, 0, NULL, 0, NULL,
			 "[[1, 64, 512, 64], [1, 64, 512, 64], [1, 64, 512, 64], "
			 "[1, 64, 512, 512], [], [], [], []]",
			 "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
			 "\"c10::BFloat16\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]",
			 "[\"\", \"\", \"\", \"\", \"False\", \"0.\", \"False\", \"\"]" },
	[OP_TE_FF1] = { "aten::linear", "aten::addmm", "[[1, 512, 4096], [10240, 4096], [10240]]",
			BF16_3, L_KERNEL, K_OUT, S_COMPUTE, 0, NULL, 0, NULL,
		  "[[10240], [512, 4096], [4096, 10240], [], []]", ADDMM_TYPES, ADDMM_CONC },
	[OP_TE_FF2] = { "aten::linear", "aten::addmm", "[[1, 512, 10240], [4096, 10240], [4096]]",
			BF16_3, L_KERNEL, K_OUT, S_COMPUTE, 0, NULL, 0, NULL,
		  "[[4096], [512, 10240], [10240, 4096], [], []]", ADDMM_TYPES, ADDMM_CONC },
	[OP_RANDN] = { "aten::randn", "aten::normal_", "[[], [], [], [], []]",
		       "[\"\", \"Scalar\", \"\", \"\", \"Scalar\"]", L_KERNEL, K_RANDN, S_COMPUTE,
		       0, NULL, 0, NULL, NULL, NULL, NULL },
	[OP_GN] = { "aten::group_norm", "aten::native_group_norm",
		    "[[1, 512, 4, 90, 160], [], [512], [512], [], []]",
		    "[\"c10::BFloat16\", \"Scalar\", \"c10::BFloat16\", \"c10::BFloat16\", "
		    "\"Scalar\", \"Scalar\"]", L_KERNEL, K_GN, S_COMPUTE, 0, NULL, 0, NULL,
		    NULL, NULL, NULL },
	/*
	 * --shapes: as PyTorch runs it, conv3d -> convolution(input, weight,
	 * bias, stride, padding, dilation, transposed, output_padding, groups),
	 * whose children launch: cudnn_convolution the cuDNN kernel, add_ the
	 * bias (a modelled operator under the convolution).
	 */
	[OP_CONV] = { "aten::conv3d", "aten::cudnn_convolution",
		      "[[1, 512, 6, 90, 160], [512, 512, 3, 3, 3], [512], [], [], [], []]",
		      "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"\", "
		      "\"Scalar\"]", L_KERNEL, K_CONV, S_COMPUTE, 0, NULL, 0, NULL,
		      "[[1, 512, 6, 90, 160], [512, 512, 3, 3, 3], [512], [], [], [], [], [], []]",
		      "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", "
		      "\"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"]",
		      "[\"\", \"\", \"\", \"[1, 1, 1]\", \"[1, 1, 1]\", \"[1, 1, 1]\", \"False\", "
		      "\"[0, 0, 0]\", \"1\"]" },
	[OP_UPS] = { "aten::upsample_nearest3d", NULL, "[[1, 512, 4, 90, 160], [], []]",
		     "[\"c10::BFloat16\", \"\", \"\"]", L_KERNEL, K_UPS, S_COMPUTE, 0, NULL, 0,
		     NULL, NULL, NULL, NULL },
	[OP_FRAMES_D2H] = { "aten::to", "aten::copy_", "[[1, 3, 81, 720, 1280], [], [], [], []]",
			    "[\"c10::BFloat16\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
			    L_MEMCPY, 0, S_COPY, OP_SYNC, "Memcpy DtoH (Device -> Pageable)",
			    447897600, NULL, NULL, NULL, NULL },
	/* OP_CONV's children under --shapes: cudnn_convolution(input, weight, ...) */
	[OP_CUDNN_CONV] = { "aten::cudnn_convolution", NULL,
			    "[[1, 512, 6, 90, 160], [512, 512, 3, 3, 3], [], [], [], [], [], [], "
			    "[]]",
			    "[\"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", "
			    "\"ScalarList\", \"ScalarList\", \"Scalar\", \"Scalar\", \"Scalar\", "
			    "\"Scalar\"]", L_KERNEL, K_CONV, S_COMPUTE, 0, NULL, 0, NULL,
			    NULL, NULL, NULL },
	[OP_CONV_BIAS] = { "aten::add_", NULL, "[[1, 512, 6, 90, 160], [1, 512, 1, 1, 1], []]",
			   "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]", L_KERNEL, K_ADD,
			   S_COMPUTE, 0, NULL, 0, NULL, NULL, NULL, NULL },
};

/*
 * --shapes: an inner operator's own name, where it differs from inner, and
 * the operators it calls, which launch the work in its place.
 */
static const struct {
	const char *inner;
	int nr_kids;
	uint8_t kids[2];
} op_calls[NR_OPS] = {
	[OP_CONV] = { "aten::convolution", 2, { OP_CUDNN_CONV, OP_CONV_BIAS } },
};

/* ---- annotations (phases) ---- */

/*
 * What --plant KIND@STEP=MS puts on the CPU thread before a step's first
 * launch, and the cause doc/idle.md's rules give the device gap it opens.
 * The names are real ones: PyTorch's DataLoader iterator, a CPU operator of
 * torchvision's resize, CUDA runtime calls, Dynamo's dynamo_timed span and
 * ProcessGroupGloo's.  "sync" is not a span: MS .item() calls, each after a
 * small kernel, each draining the queue.
 */
enum plant_kind { P_DATALOADER, P_HOSTPREP, P_INIT, P_MEMORY, P_CAPTURE, P_COMPILE, P_GLOO,
		  P_SYNC, P_NR };

static const struct {
	const char *key;	/* --plant's KIND */
	const char *cause;	/* doc/idle.md's cause of the gap */
	int runtime;		/* a CUDA runtime call; else a CPU operator */
	const char *name;	/* the host span, and the gap's host activity */
} plant_kinds[P_NR] = {
	[P_DATALOADER] = { "dataloader", "data_loading", 0,
			   "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" },
	[P_HOSTPREP] = { "hostprep", "host_compute", 0, "aten::_upsample_bicubic2d_aa" },
	[P_INIT] = { "init", "init", 1, "cudaStreamCreateWithPriority" },
	[P_MEMORY] = { "memory", "memory_mgmt", 1, "cudaMalloc" },
	[P_CAPTURE] = { "capture", "capture", 1, "cudaGraphInstantiateWithFlags" },
	[P_COMPILE] = { "compile", "compile", 0, "entire_frame_compile" },
	[P_GLOO] = { "gloo", "collective_wait", 0, "gloo:all_reduce" },
	[P_SYNC] = { "sync", "sync", 0, "aten::item" },
};

#define MAX_PLANTS 32

struct plant {
	enum plant_kind kind;
	int step;		/* ProfilerStep# number */
	int64_t amount;		/* ns; for P_SYNC, how many .item() calls */
};

enum ann {
	A_PRE, A_DENOISE, A_POST,	/* the top-level fastvideo regions */
	A_TEXT_ENC, A_PSTEP, A_DSTEP, A_BLOCK, A_VAE, A_NR
};

static const char *const ann_names[A_NR] = {
	"fastvideo.region::profiler_region_inference_pre_denoising",
	"fastvideo.region::profiler_region_inference_denoising",
	"fastvideo.region::profiler_region_inference_post_denoising",
	"text_encoder", "ProfilerStep#", "denoise_step_", "block_", "vae_decode_chunk_",
};

/* Names --slow-phase accepts, per annotation. */
static const char *const ann_short[A_NR] = {
	"pre_denoising", "denoising", "post_denoising", "text_encoder", "profiler_step",
	"denoise_step", "block", "vae_decode",
};

static int ann_is_region(int a)
{
	return a <= A_POST;
}

static int ann_numbered(int a)
{
	return a >= A_PSTEP;
}

/* ---- options ---- */

struct opts {
	int ranks;
	uint64_t size;		/* 0: use steps */
	int steps;
	int blocks;
	int frames;
	uint64_t seed;
	int64_t jitter_ppm;
	int64_t warmup_ppm;
	int64_t slow_ppm[A_NR];
	int64_t straggler_ppm[MAX_RANKS];
	int64_t clock_shift_ns[MAX_RANKS];	/* added to every time of the rank */
	int level;
	int plain;
	int shapes;		/* --shapes: inner operators' own shapes and Concrete Inputs */
	int no_wait;		/* ranks do not wait for each other in collectives */
	int split;		/* --split-denoising: denoising compute / ranks */
	int generations;	/* videos per rank, one after the other */
	int blocks_outer;	/* --loop blocks-outer: each block holds its own steps */
	struct plant plants[MAX_PLANTS];
	int nr_plants;
	const char *prefix;
	const char *truth;	/* NULL: PREFIX-truth.json */
	char cmdline[1024];
};

/* ---- records of one unit of work ---- */

enum rec_kind { R_SKIP, R_ANNOT, R_GANNOT, R_OP, R_RUNTIME, R_KERNEL, R_MEMCPY, R_MEMSET,
		R_MEMORY, R_PLANT };

struct rec {
	int64_t ts, dur;
	int64_t ext;		/* External id */
	int64_t corr;		/* correlation */
	int64_t v[4];		/* per kind, see the emitters */
	int32_t idx;		/* annotation number, -1 none */
	uint8_t kind;
	uint8_t sub;		/* annotation kind; op: 1 for the inner op */
	uint8_t op;		/* OP_* */
	uint8_t pad;
};

struct recs {
	struct rec *r;
	size_t n, cap;
};

static size_t recs_push(struct recs *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->r = xrealloc(l->r, l->cap * sizeof(*l->r));
	}
	memset(&l->r[l->n], 0, sizeof(l->r[0]));
	l->r[l->n].idx = -1;
	return l->n++;
}

/* ---- the truth, counted as records are written ---- */

enum ph { PH_X, PH_I, PH_S, PH_F, PH_M, PH_NR };
static const char *const ph_names[PH_NR] = { "X", "i", "s", "f", "M" };

enum cat { C_NONE, C_CPU_OP, C_USER_ANN, C_GPU_USER_ANN, C_RUNTIME, C_KERNEL, C_MEMCPY,
	   C_MEMSET, C_AC2G, C_INSTANT, C_TRACE, C_NR };
static const char *const cat_names[C_NR] = {
	NULL, "cpu_op", "user_annotation", "gpu_user_annotation", "cuda_runtime", "kernel",
	"gpu_memcpy", "gpu_memset", "ac2g", "cpu_instant_event", "Trace",
};

struct phase_sum {
	int64_t count, total_ns;
};

/* Per annotation kind and cat (0 CPU, 1 GPU mirror), indexed by number. */
struct phase_tab {
	struct phase_sum *s;
	size_t n;
};

struct ival {
	int64_t start, end;
};

struct ivals {
	struct ival *v;
	size_t n, cap;
};

/* A device gap a --plant opened: [start, end) on the rank's clock. */
struct planted_gap {
	enum plant_kind kind;
	int step;
	int64_t start, end;
};

struct truth {
	int64_t total, by_ph[PH_NR], by_cat[C_NR];
	int64_t min_ts, max_end;
	int64_t kcount[KC_NR], ktime[KC_NR];
	int64_t copies[2], copy_ns[2];	/* memcpy, memset */
	struct phase_tab phases[A_NR][2];
	int64_t *steps_ns;
	size_t nr_steps;
	int64_t blocks;
	int64_t wall_start, wall_end;
	struct gen_truth *gens;		/* per generation, see gen_truth_* */
	int nr_gens;
	int64_t peak_alloc[2], peak_reserved[2];	/* [0] the GPU, [1] the CPU (-1) */
	struct ivals gpu_iv[3];		/* compute kernels, comm kernels, memcpy/memset */
	struct planted_gap *planted;
	size_t nr_planted;
};

/* One generation's extent and the completion time of each of its blocks. */
struct gen_truth {
	int64_t start, end;
	int64_t *done;			/* done[k]: end of block_k's last span, -1 none */
	int nr_done;
};

/* ---- one rank being generated ---- */

struct open_ann {
	int kind, idx;
	int late;		/* written when it ends (outlasts a unit of work) */
	int64_t ts, ext, ev_idx;
	size_t crec, grec;	/* record slots (not for regions) */
	int64_t gmin, gmax;	/* GPU work launched inside */
};

struct gen {
	const struct opts *o;
	int rank, device;
	int64_t pid;
	uint64_t rng;
	int64_t t0;		/* profiler start */
	int64_t cpu;		/* the CPU thread's clock */
	int64_t stream_free[NR_STREAMS];
	int64_t compute_barrier;	/* compute waits for the last collective */
	int64_t ext, corr, ev_idx, seq;
	int64_t straggler_ppm, max_straggler_ppm;
	int64_t planted_wait_ns;	/* the wait added to this rank's all-to-alls */
	int64_t step_jitter;	/* this step's share of the jitter, ppm offset */
	int64_t warm_ppm;	/* warm-up factor while in step 0 */
	int64_t seg_base_ns;	/* compute since the last all-to-all, unstraggled */
	int64_t mem_alloc, mem_reserved, mem_addr;
	struct open_ann stack[8];
	int depth;
	int gen;		/* the generation being made */
	int gap_open;		/* a plant idled the device: the next launch ends the gap */
	struct planted_gap gap;
	struct recs cpu_recs, gpu_recs;
	struct sink out;
	int64_t nr_written;
	struct truth t;
	uint64_t text_bytes, file_bytes;
};

static void ival_add(struct ivals *l, int64_t start, int64_t end)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n].start = start;
	l->v[l->n].end = end;
	l->n++;
}

static void phase_add(struct truth *t, int kind, int gpu, int idx, int64_t dur)
{
	struct phase_tab *p = &t->phases[kind][gpu];
	size_t i = idx < 0 ? 0 : (size_t)idx;

	if (i >= p->n) {
		size_t n = i + 1 > 2 * p->n ? i + 1 : 2 * p->n;

		p->s = xrealloc(p->s, n * sizeof(*p->s));
		memset(p->s + p->n, 0, (n - p->n) * sizeof(*p->s));
		p->n = n;
	}
	p->s[i].count++;
	p->s[i].total_ns += dur;
}

/* ---- generations in the truth: extents from the regions, block completions ---- */

static struct gen_truth *gen_truth_at(struct truth *t, int gen)
{
	while (t->nr_gens <= gen) {
		struct gen_truth *x;

		t->gens = xrealloc(t->gens, (size_t)(t->nr_gens + 1) * sizeof(*t->gens));
		x = &t->gens[t->nr_gens++];
		x->start = INT64_MAX;
		x->end = INT64_MIN;
		x->done = NULL;
		x->nr_done = 0;
	}
	return &t->gens[gen];
}

static void gen_truth_region(struct truth *t, int gen, int64_t start, int64_t end)
{
	struct gen_truth *x = gen_truth_at(t, gen);

	if (start < x->start)
		x->start = start;
	if (end > x->end)
		x->end = end;
}

/* A block completes when its last span ends, however the loops nest. */
static void gen_truth_block(struct truth *t, int gen, int idx, int64_t end)
{
	struct gen_truth *x = gen_truth_at(t, gen);

	if (idx >= x->nr_done) {
		x->done = xrealloc(x->done, (size_t)(idx + 1) * sizeof(*x->done));
		for (int k = x->nr_done; k <= idx; k++)
			x->done[k] = -1;
		x->nr_done = idx + 1;
	}
	if (end > x->done[idx])
		x->done[idx] = end;
}

static void note(struct gen *g, enum ph ph, enum cat cat, int64_t ts, int64_t dur)
{
	struct truth *t = &g->t;

	t->total++;
	t->by_ph[ph]++;
	t->by_cat[cat]++;
	if (ph == PH_M)
		return;
	if (ts < t->min_ts)
		t->min_ts = ts;
	if (ts + dur > t->max_end)
		t->max_end = ts + dur;
}

/* ---- emitters: one function per kind of record, Kineto's layout ---- */

static char *ev_start(struct gen *g)
{
	char *p = sink_room(&g->out);

	if (g->nr_written++)
		return PUT(p, ",\n  {\n    ");
	return PUT(p, "  {\n    ");
}

static char *put_name(char *p, int kind, int idx)
{
	p = put_mem(p, ann_names[kind], strlen(ann_names[kind]));
	if (idx >= 0)
		p = put_u64(p, (uint64_t)idx);
	return p;
}

static char *put_pid_tid_ts_dur(char *p, int64_t pid, int64_t tid, int64_t ts, int64_t dur)
{
	p = PUT(p, "\", \"pid\": ");
	p = put_i64(p, pid);
	p = PUT(p, ", \"tid\": ");
	p = put_i64(p, tid);
	p = PUT(p, ",\n    \"ts\": ");
	p = put_us(p, ts);
	p = PUT(p, ", \"dur\": ");
	p = put_us(p, dur);
	return PUT(p, ",\n    \"args\": {\n      ");
}

static char *put_flow(char *p, int finish, int64_t id, int64_t pid, int64_t tid, int64_t ts)
{
	p = PUT(p, ",\n  {\n    \"ph\": \"");
	*p++ = finish ? 'f' : 's';
	p = PUT(p, "\", \"id\": ");
	p = put_i64(p, id);
	p = PUT(p, ", \"pid\": ");
	p = put_i64(p, pid);
	p = PUT(p, ", \"tid\": ");
	p = put_i64(p, tid);
	p = PUT(p, ", \"ts\": ");
	p = put_us(p, ts);
	if (finish)
		return PUT(p, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }");
	return PUT(p, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }");
}

static void emit_annot(struct gen *g, const struct rec *r, int gpu)
{
	char *p = ev_start(g);

	if (gpu)
		p = PUT(p, "\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"");
	else
		p = PUT(p, "\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"");
	p = put_name(p, r->sub, r->idx);
	p = put_pid_tid_ts_dur(p, gpu ? g->device : g->pid, gpu ? S_COMPUTE : g->pid, r->ts,
			       r->dur);
	p = PUT(p, "\"External id\": ");
	p = put_i64(p, r->ext);
	if (!gpu) {
		p = PUT(p, ",\"Ev Idx\": ");
		p = put_i64(p, r->v[0]);
	}
	p = PUT(p, "\n    }\n  }");
	sink_done(&g->out, p);

	note(g, PH_X, gpu ? C_GPU_USER_ANN : C_USER_ANN, r->ts, r->dur);
	phase_add(&g->t, r->sub, gpu, r->idx, r->dur);
	if (!gpu && r->sub == A_PSTEP) {
		g->t.steps_ns = xrealloc(g->t.steps_ns, (g->t.nr_steps + 1) * sizeof(int64_t));
		g->t.steps_ns[g->t.nr_steps++] = r->dur;
	}
	if (!gpu && r->sub == A_BLOCK) {
		g->t.blocks++;
		gen_truth_block(&g->t, g->gen, r->idx, r->ts + r->dur);
	}
	if (!gpu && ann_is_region(r->sub)) {
		if (r->ts < g->t.wall_start)
			g->t.wall_start = r->ts;
		if (r->ts + r->dur > g->t.wall_end)
			g->t.wall_end = r->ts + r->dur;
		gen_truth_region(&g->t, g->gen, r->ts, r->ts + r->dur);
	}
}

static void emit_op(struct gen *g, const struct rec *r)
{
	const struct op *op = &ops[r->op];
	int own = r->sub && g->o->shapes;	/* the inner operator's own args */
	const char *name = !r->sub ? op->outer
			   : own && op_calls[r->op].inner ? op_calls[r->op].inner : op->inner;
	const char *dims = own && op->inner_dims ? op->inner_dims : op->dims;
	const char *types = own && op->inner_types ? op->inner_types : op->types;
	char *p = ev_start(g);

	p = PUT(p, "\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"");
	p = put_mem(p, name, strlen(name));
	p = put_pid_tid_ts_dur(p, g->pid, g->pid, r->ts, r->dur);
	p = PUT(p, "\"External id\": ");
	p = put_i64(p, r->ext);
	p = PUT(p, ",\"Ev Idx\": ");
	p = put_i64(p, r->v[0]);
	p = PUT(p, ", \"Input Dims\": ");
	p = put_mem(p, dims, strlen(dims));
	p = PUT(p, ", \"Input type\": ");
	p = put_mem(p, types, strlen(types));
	if (own && op->conc) {
		p = PUT(p, ", \"Concrete Inputs\": ");
		p = put_mem(p, op->conc, strlen(op->conc));
	}
	if (r->sub && (op->flags & OP_COMM)) {
		p = PUT(p, ", \"Collective name\": \"");
		p = put_mem(p, op->coll, strlen(op->coll));
		p = PUT(p, "\", \"dtype\": \"BFloat16\", \"In msg nelems\": ");
		p = put_i64(p, op->bytes);
		p = PUT(p, ", \"Out msg nelems\": ");
		p = put_i64(p, op->bytes * (op->flags & OP_WAIT ? 1 : g->o->ranks));
		p = PUT(p, ", \"Group size\": ");
		p = put_i64(p, g->o->ranks);
		p = PUT(p, ", \"Process Group Name\": \"0\", \"Process Group Description\": "
			   "\"default_pg\"");
	}
	if (!r->sub) {
		p = PUT(p, ", \"Sequence number\": ");
		p = put_i64(p, r->v[1]);
	}
	p = PUT(p, "\n    }\n  }");
	sink_done(&g->out, p);
	note(g, PH_X, C_CPU_OP, r->ts, r->dur);
}

static void emit_runtime(struct gen *g, const struct rec *r)
{
	const struct op *op = &ops[r->op];
	char *p = ev_start(g);

	p = PUT(p, "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"");
	if (op->launch == L_KERNEL)
		p = PUT(p, "cudaLaunchKernel");
	else if (op->launch == L_MEMCPY)
		p = PUT(p, "cudaMemcpyAsync");
	else
		p = PUT(p, "cudaMemsetAsync");
	p = put_pid_tid_ts_dur(p, g->pid, g->pid, r->ts, r->dur);
	p = PUT(p, "\"External id\": ");
	p = put_i64(p, r->ext);
	p = PUT(p, ",\n      \"cbid\": ");
	p = put_i64(p, op->launch == L_KERNEL ? 211 : op->launch == L_MEMCPY ? 41 : 51);
	p = PUT(p, ", \"correlation\": ");
	p = put_i64(p, r->corr);
	p = PUT(p, "\n    }\n  }");
	p = put_flow(p, 0, r->corr, g->pid, g->pid, r->ts);
	sink_done(&g->out, p);
	note(g, PH_X, C_RUNTIME, r->ts, r->dur);
	note(g, PH_S, C_AC2G, r->ts, 0);
}

/* A --plant span: v[0] its kind; a runtime call carries a correlation that launches nothing. */
static void emit_plant(struct gen *g, const struct rec *r)
{
	int rt = plant_kinds[r->v[0]].runtime;
	const char *name = plant_kinds[r->v[0]].name;
	char *p = ev_start(g);

	if (rt)
		p = PUT(p, "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"");
	else
		p = PUT(p, "\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"");
	p = put_mem(p, name, strlen(name));
	p = put_pid_tid_ts_dur(p, g->pid, g->pid, r->ts, r->dur);
	p = PUT(p, "\"External id\": ");
	p = put_i64(p, r->ext);
	if (rt) {
		p = PUT(p, ", \"correlation\": ");
		p = put_i64(p, r->corr);
	} else {
		p = PUT(p, ",\"Ev Idx\": ");
		p = put_i64(p, r->v[1]);
	}
	p = PUT(p, "\n    }\n  }");
	sink_done(&g->out, p);
	note(g, PH_X, rt ? C_RUNTIME : C_CPU_OP, r->ts, r->dur);
}

static void emit_gpu(struct gen *g, const struct rec *r)
{
	const struct op *op = &ops[r->op];
	char *p = ev_start(g);
	int stream = op->stream;

	if (r->kind == R_KERNEL) {
		p = PUT(p, "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"");
		p = put_mem(p, kernels[op->kernel].name, kinfo[op->kernel].name_len);
	} else {
		if (r->kind == R_MEMCPY)
			p = PUT(p, "\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"");
		else
			p = PUT(p, "\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"");
		p = put_mem(p, op->copy_name, strlen(op->copy_name));
	}
	p = put_pid_tid_ts_dur(p, g->device, stream, r->ts, r->dur);
	p = PUT(p, "\"External id\": ");
	p = put_i64(p, r->ext);
	if (r->kind == R_KERNEL)
		p = PUT(p, ",\n      \"queued\": 0, \"device\": ");
	else
		p = PUT(p, ",\n      \"device\": ");
	p = put_i64(p, g->device);
	p = PUT(p, ", \"context\": 1,\n      \"stream\": ");
	p = put_i64(p, stream);
	p = PUT(p, ", \"correlation\": ");
	p = put_i64(p, r->corr);
	p = PUT(p, ",\n      ");
	if (r->kind == R_KERNEL) {
		p = put_mem(p, kinfo[op->kernel].args, kinfo[op->kernel].args_len);
	} else {
		p = PUT(p, "\"bytes\": ");
		p = put_i64(p, op->bytes);
		p = PUT(p, ", \"memory bandwidth (GB/s)\": ");
		p = put_ratio6(p, op->bytes, r->dur);
	}
	p = PUT(p, "\n    }\n  }");
	p = put_flow(p, 1, r->corr, g->device, stream, r->ts);
	sink_done(&g->out, p);

	if (r->kind == R_KERNEL) {
		enum kcat c = kinfo[op->kernel].cat;

		note(g, PH_X, C_KERNEL, r->ts, r->dur);
		g->t.kcount[c]++;
		g->t.ktime[c] += r->dur;
		ival_add(&g->t.gpu_iv[c == KC_COMM], r->ts, r->ts + r->dur);
	} else {
		int set = r->kind == R_MEMSET;

		note(g, PH_X, set ? C_MEMSET : C_MEMCPY, r->ts, r->dur);
		g->t.copies[set]++;
		g->t.copy_ns[set] += r->dur;
		ival_add(&g->t.gpu_iv[2], r->ts, r->ts + r->dur);
	}
	note(g, PH_F, C_AC2G, r->ts, 0);
}

/* v: reserved, allocated, bytes, addr; idx: device id; sub: device type. */
static void emit_memory(struct gen *g, const struct rec *r)
{
	char *p = ev_start(g);
	int cpu = r->idx < 0;

	p = PUT(p, "\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", "
		   "\"name\": \"[memory]\", \"pid\": ");
	p = put_i64(p, g->pid);
	p = PUT(p, ", \"tid\": ");
	p = put_i64(p, g->pid);
	p = PUT(p, ",\n    \"ts\": ");
	p = put_us(p, r->ts);
	p = PUT(p, ",\n    \"args\": {\n      \"Total Reserved\": ");
	p = put_i64(p, r->v[0]);
	p = PUT(p, ", \"Total Allocated\": ");
	p = put_i64(p, r->v[1]);
	p = PUT(p, ", \"Bytes\": ");
	p = put_i64(p, r->v[2]);
	p = PUT(p, ", \"Addr\": ");
	p = put_i64(p, r->v[3]);
	p = PUT(p, ", \"Device Id\": ");
	p = put_i64(p, r->idx);
	p = PUT(p, ", \"Device Type\": ");
	p = put_i64(p, r->sub);
	p = PUT(p, "\n    }\n  }");
	sink_done(&g->out, p);
	note(g, PH_I, C_INSTANT, r->ts, 0);
	if (r->v[1] > g->t.peak_alloc[cpu])
		g->t.peak_alloc[cpu] = r->v[1];
	if (r->v[0] > g->t.peak_reserved[cpu])
		g->t.peak_reserved[cpu] = r->v[0];
}

static void emit_rec(struct gen *g, const struct rec *r)
{
	switch (r->kind) {
	case R_SKIP:
		break;
	case R_ANNOT:
		emit_annot(g, r, 0);
		break;
	case R_GANNOT:
		emit_annot(g, r, 1);
		break;
	case R_OP:
		emit_op(g, r);
		break;
	case R_RUNTIME:
		emit_runtime(g, r);
		break;
	case R_KERNEL:
	case R_MEMCPY:
	case R_MEMSET:
		emit_gpu(g, r);
		break;
	case R_MEMORY:
		emit_memory(g, r);
		break;
	case R_PLANT:
		emit_plant(g, r);
		break;
	}
}

/* Write what one unit of work recorded: CPU events, then GPU events. */
static void unit_flush(struct gen *g)
{
	for (size_t i = 0; i < g->cpu_recs.n; i++)
		emit_rec(g, &g->cpu_recs.r[i]);
	for (size_t i = 0; i < g->gpu_recs.n; i++)
		emit_rec(g, &g->gpu_recs.r[i]);
	g->cpu_recs.n = 0;
	g->gpu_recs.n = 0;
}

/* ---- simulation ---- */

static int64_t cpu_us(struct gen *g, int lo, int hi)
{
	return rng_range(&g->rng, (int64_t)lo * 1000, (int64_t)hi * 1000);
}

/* Slow-phase factors of every annotation open now, and the warm-up step. */
static int64_t phase_scaled(const struct gen *g, int64_t d)
{
	for (int i = 0; i < g->depth; i++)
		if (g->o->slow_ppm[g->stack[i].kind] != PPM)
			d = scale(d, g->o->slow_ppm[g->stack[i].kind]);
	if (g->warm_ppm != PPM)
		d = scale(d, g->warm_ppm);
	return d;
}

/* Half of --jitter per step, half per event, so steps vary as well as kernels. */
static int64_t jittered(struct gen *g, int64_t d)
{
	int64_t u = rng_range(&g->rng, -PPM, PPM);
	int64_t ppm = PPM + g->step_jitter + g->o->jitter_ppm / 2 * u / PPM;

	return scale(d, ppm);
}

static void new_step_jitter(struct gen *g)
{
	int64_t u = rng_range(&g->rng, -PPM, PPM);

	g->step_jitter = g->o->jitter_ppm / 2 * u / PPM;
}

static void ann_open(struct gen *g, int kind, int idx)
{
	struct open_ann *a;

	if (g->depth == (int)(sizeof(g->stack) / sizeof(g->stack[0])))
		die("annotations nested too deep");
	a = &g->stack[g->depth++];
	a->kind = kind;
	a->idx = idx;
	a->late = ann_is_region(kind) || (kind == A_BLOCK && g->o->blocks_outer);
	a->ts = g->cpu;
	a->ext = ++g->ext;
	a->ev_idx = g->ev_idx++;
	a->gmin = INT64_MAX;
	a->gmax = INT64_MIN;
	if (!a->late) {
		struct rec *r;

		a->crec = recs_push(&g->cpu_recs);
		r = &g->cpu_recs.r[a->crec];
		r->kind = R_ANNOT;
		r->sub = (uint8_t)kind;
		r->idx = idx;
		/* ProfilerStep gets no GPU mirror, so "steps" means one thing. */
		if (kind != A_PSTEP) {
			a->grec = recs_push(&g->gpu_recs);
			g->gpu_recs.r[a->grec].kind = R_SKIP;
		}
	}
	g->cpu += cpu_us(g, 2, 6);
}

static void ann_close(struct gen *g)
{
	struct open_ann *a = &g->stack[--g->depth];
	struct rec r;

	g->cpu += cpu_us(g, 1, 4);
	memset(&r, 0, sizeof(r));
	r.kind = R_ANNOT;
	r.sub = (uint8_t)a->kind;
	r.idx = ann_numbered(a->kind) ? a->idx : -1;
	r.ts = a->ts;
	r.dur = g->cpu - a->ts;
	r.ext = a->ext;
	r.v[0] = a->ev_idx;
	if (a->late) {
		/* Regions outlast a unit: written when they end. */
		unit_flush(g);
		emit_rec(g, &r);
		if (a->gmin != INT64_MAX) {
			r.kind = R_GANNOT;
			r.ts = a->gmin;
			r.dur = a->gmax - a->gmin;
			emit_rec(g, &r);
		}
		return;
	}
	g->cpu_recs.r[a->crec] = r;
	if (a->kind != A_PSTEP && a->gmin != INT64_MAX) {
		r.kind = R_GANNOT;
		r.ts = a->gmin;
		r.dur = a->gmax - a->gmin;
		g->gpu_recs.r[a->grec] = r;
	}
}

static void mem_event(struct gen *g, int64_t bytes, int device)
{
	size_t i = recs_push(&g->cpu_recs);
	struct rec *r = &g->cpu_recs.r[i];

	r->kind = R_MEMORY;
	r->ts = g->cpu;
	if (device < 0) {
		/* A small host allocation: the CPU shows up as device -1, type 0. */
		r->v[0] = 0;
		r->v[1] = bytes > 0 ? bytes : 0;
		r->v[3] = 94571113025536LL + (g->mem_addr & 0xffff) * 64;
		r->idx = -1;
		r->sub = 0;
	} else {
		g->mem_alloc += bytes;
		/* The caching allocator grows its reserve in big steps and never shrinks it. */
		while (g->mem_reserved < g->mem_alloc)
			g->mem_reserved += 1LL << 30;
		r->v[0] = g->mem_reserved;
		r->v[1] = g->mem_alloc;
		r->v[3] = 139637976727552LL + (g->mem_addr % 4096) * (2LL << 20);
		r->idx = device;
		r->sub = 1;
	}
	r->v[2] = bytes;
	g->mem_addr++;
	g->cpu += cpu_us(g, 1, 2);
}

/* One op: cpu_op(s), a runtime call, and the kernel/copy it puts on a stream. */
static int in_denoising(const struct gen *g)
{
	for (int i = 0; i < g->depth; i++)
		if (g->stack[i].kind == A_DENOISE)
			return 1;
	return 0;
}

static void launch(struct gen *g, int opi)
{
	const struct op *op = &ops[opi];
	int slot = stream_slot(op->stream);
	size_t outer, inner = 0, rt, gi;
	int64_t ext, start, dur, base;
	struct rec *r;

	outer = recs_push(&g->cpu_recs);
	r = &g->cpu_recs.r[outer];
	r->kind = R_OP;
	r->op = (uint8_t)opi;
	r->ts = g->cpu;
	r->ext = ext = ++g->ext;
	r->v[0] = g->ev_idx++;
	r->v[1] = g->seq++;
	g->cpu += cpu_us(g, 3, 9);
	if (op->inner) {
		inner = recs_push(&g->cpu_recs);
		r = &g->cpu_recs.r[inner];
		r->kind = R_OP;
		r->sub = 1;
		r->op = (uint8_t)opi;
		r->ts = g->cpu;
		r->ext = ext = ++g->ext;
		r->v[0] = g->ev_idx++;
		g->cpu += cpu_us(g, 2, 6);
	}
	if (g->o->shapes && op_calls[opi].nr_kids) {
		/* the children launch; the inner and outer spans close around them */
		for (int k = 0; k < op_calls[opi].nr_kids; k++)
			launch(g, op_calls[opi].kids[k]);
		g->cpu_recs.r[inner].dur = g->cpu - g->cpu_recs.r[inner].ts;
		g->cpu += cpu_us(g, 1, 3);
		g->cpu_recs.r[outer].dur = g->cpu - g->cpu_recs.r[outer].ts;
		g->cpu += cpu_us(g, 2, 12);
		return;
	}

	rt = recs_push(&g->cpu_recs);
	r = &g->cpu_recs.r[rt];
	r->kind = R_RUNTIME;
	r->op = (uint8_t)opi;
	r->ts = g->cpu;
	r->ext = ext;
	r->corr = ++g->corr;
	r->dur = cpu_us(g, 4, 9);

	/* The GPU side: after the launch latency, when the stream is free. */
	start = g->cpu + cpu_us(g, 3, 7);
	if (start < g->stream_free[slot])
		start = g->stream_free[slot];
	if (op->stream == S_COMPUTE && start < g->compute_barrier)
		start = g->compute_barrier;
	if (op->flags & OP_WAIT && start < g->stream_free[0])
		start = g->stream_free[0];
	/* A blocking copy of results waits for the work on every stream. */
	for (int i = 0; i < NR_STREAMS && (op->flags & OP_SYNC); i++)
		if (start < g->stream_free[i])
			start = g->stream_free[i];
	if (op->launch == L_KERNEL) {
		base = phase_scaled(g, kernels[op->kernel].base_ns);
		/* sequence parallelism: each rank computes its share of the tokens */
		if (g->o->split && kinfo[op->kernel].cat != KC_COMM && in_denoising(g))
			base /= g->o->ranks;
		dur = base;
		if (kinfo[op->kernel].cat != KC_COMM) {
			g->seg_base_ns += base;
			dur = scale(dur, g->straggler_ppm);
		}
		dur = jittered(g, dur);
		if ((op->flags & OP_WAIT) && !g->o->no_wait) {
			/*
			 * Everyone leaves a collective together: the faster ranks wait
			 * here for the compute the slowest rank still has to finish.
			 */
			int64_t wait = scale(g->seg_base_ns,
					     g->max_straggler_ppm - g->straggler_ppm);

			dur += wait;
			g->planted_wait_ns += wait;
			g->seg_base_ns = 0;
		}
	} else {
		/* Copies at ~25 GB/s plus a fixed cost; memsets four times as fast. */
		dur = 1500 + op->bytes / (op->launch == L_MEMCPY ? 25 : 100);
		dur = jittered(g, dur);
	}
	if (dur < 1000)
		dur = 1000;
	if (g->gap_open) {
		g->gap.end = start;
		g->t.planted = xrealloc(g->t.planted, (g->t.nr_planted + 1) * sizeof(g->gap));
		g->t.planted[g->t.nr_planted++] = g->gap;
		g->gap_open = 0;
	}
	g->stream_free[slot] = start + dur;
	if (op->flags & OP_WAIT)
		g->compute_barrier = start + dur;

	gi = recs_push(&g->gpu_recs);
	r = &g->gpu_recs.r[gi];
	r->kind = op->launch == L_KERNEL ? R_KERNEL : op->launch == L_MEMCPY ? R_MEMCPY : R_MEMSET;
	r->op = (uint8_t)opi;
	r->ts = start;
	r->dur = dur;
	r->ext = ext;
	r->corr = g->corr;
	for (int i = 0; i < g->depth; i++) {
		struct open_ann *a = &g->stack[i];

		if (start < a->gmin)
			a->gmin = start;
		if (start + dur > a->gmax)
			a->gmax = start + dur;
	}

	r = &g->cpu_recs.r[rt];
	if (op->flags & OP_SYNC && r->ts + r->dur < start + dur + 2000)
		r->dur = start + dur + 2000 - r->ts;
	g->cpu = r->ts + r->dur;
	if (op->inner) {
		g->cpu += cpu_us(g, 1, 3);
		g->cpu_recs.r[inner].dur = g->cpu - g->cpu_recs.r[inner].ts;
	}
	g->cpu += cpu_us(g, 1, 3);
	g->cpu_recs.r[outer].dur = g->cpu - g->cpu_recs.r[outer].ts;
	g->cpu += cpu_us(g, 2, 12);	/* Python between ops */
}

/* The device is idle from the end of its last item until the next launch runs. */
static void gap_begin(struct gen *g, enum plant_kind kind, int step)
{
	int64_t end = 0;

	for (int i = 0; i < NR_STREAMS; i++)
		if (g->stream_free[i] > end)
			end = g->stream_free[i];
	g->gap = (struct planted_gap){ kind, step, end, 0 };
	g->gap_open = 1;
}

/* The --plant stalls of ProfilerStep#step, each before the next launch. */
static void plant(struct gen *g, int step)
{
	for (int i = 0; i < g->o->nr_plants; i++) {
		const struct plant *pl = &g->o->plants[i];
		struct rec *r;

		if (pl->step != step)
			continue;
		if (pl->kind == P_SYNC) {
			/* each gap ends where the next launch runs (launch() records it) */
			for (int64_t k = 0; k < pl->amount; k++) {
				launch(g, OP_MEAN);
				launch(g, OP_ITEM);	/* blocks until every stream is done */
				gap_begin(g, P_SYNC, step);
			}
			continue;
		}
		if (g->gap_open)	/* a kernel between two stalls: a gap each */
			launch(g, OP_MEAN);
		gap_begin(g, pl->kind, step);
		r = &g->cpu_recs.r[recs_push(&g->cpu_recs)];
		r->kind = R_PLANT;
		r->ts = g->cpu;
		r->dur = pl->amount;
		r->ext = ++g->ext;
		r->v[0] = pl->kind;
		r->v[1] = g->ev_idx++;
		if (plant_kinds[pl->kind].runtime)
			r->corr = ++g->corr;
		g->cpu += pl->amount + cpu_us(g, 2, 12);
	}
}

static void gen_pre(struct gen *g)
{
	ann_open(g, A_PRE, -1);
	mem_event(g, 512, -1);
	launch(g, OP_TOKENS_H2D);
	ann_open(g, A_TEXT_ENC, -1);
	for (int l = 0; l < TE_LAYERS; l++) {
		launch(g, OP_TE_LN);
		launch(g, OP_TE_QKV);
		launch(g, OP_TE_ATTN);
		launch(g, OP_TE_FF2);
		launch(g, OP_ADD);
		launch(g, OP_TE_LN);
		launch(g, OP_TE_FF1);
		launch(g, OP_GELU);
		launch(g, OP_TE_FF2);
		launch(g, OP_ADD);
	}
	ann_close(g);
	mem_event(g, 38707200, g->device);
	launch(g, OP_RANDN);
	launch(g, OP_ITEM);
	mem_event(g, -512, -1);
	ann_close(g);
}

/* The work of one transformer block within one denoising step. */
static void block_body(struct gen *g)
{
	int world = g->o->ranks > 1;

	if (world)
		launch(g, OP_ALLGATHER);
	launch(g, OP_LN);
	mem_event(g, 75497472, g->device);
	launch(g, OP_QKV);
	if (world)
		launch(g, OP_ALLTOALL);
	launch(g, OP_ROPE);
	mem_event(g, 25165824, g->device);
	launch(g, OP_SDPA);
	if (world)
		launch(g, OP_ALLTOALL);
	launch(g, OP_PROJ);
	launch(g, OP_ADD);
	launch(g, OP_LN);
	mem_event(g, 100663296, g->device);
	launch(g, OP_FF1);
	launch(g, OP_GELU);
	launch(g, OP_FF2);
	mem_event(g, -100663296 - 25165824 - 75497472, g->device);
	launch(g, OP_ADD);
}

/* ProfilerStep#pstep and denoise_step_dstep open, the timestep embedding. */
static void step_begin(struct gen *g, int pstep, int dstep)
{
	new_step_jitter(g);
	g->warm_ppm = pstep == 0 ? g->o->warmup_ppm : PPM;
	ann_open(g, A_PSTEP, pstep);
	ann_open(g, A_DSTEP, dstep);
	mem_event(g, 64, -1);
	plant(g, pstep);
	launch(g, OP_TIMESTEP_H2D);
	launch(g, OP_TEMB);
	launch(g, OP_SILU);
}

/* The scheduler update and the sync that ends a step, then its events. */
static void step_end(struct gen *g)
{
	launch(g, OP_LN);
	launch(g, OP_PROJ);
	launch(g, OP_MUL);
	launch(g, OP_ADD);
	launch(g, OP_MEAN);
	launch(g, OP_ZERO);
	launch(g, OP_ITEM);
	mem_event(g, -64, -1);
	ann_close(g);
	ann_close(g);
	g->warm_ppm = PPM;
	unit_flush(g);
}

/* --loop steps-outer (sequence parallelism): each step sweeps every block. */
static void gen_step(struct gen *g, int pstep, int dstep)
{
	step_begin(g, pstep, dstep);
	for (int k = 0; k < g->o->blocks; k++) {
		ann_open(g, A_BLOCK, k);
		block_body(g);
		ann_close(g);
	}
	step_end(g);
}

/*
 * --loop blocks-outer (streaming, Self-Forcing): block k is denoised by its
 * own steps, then the next block starts.  *pstep numbers ProfilerStep#.
 */
static void gen_block_steps(struct gen *g, int *pstep, int k)
{
	ann_open(g, A_BLOCK, k);
	for (int i = 0; i < g->o->steps; i++) {
		step_begin(g, (*pstep)++, i);
		block_body(g);
		step_end(g);
	}
	ann_close(g);
}

static void gen_post(struct gen *g)
{
	int chunks = (g->o->frames - 1) / 16 + 1;

	ann_open(g, A_POST, -1);
	for (int j = 0; j < chunks; j++) {
		ann_open(g, A_VAE, j);
		mem_event(g, 471859200, g->device);
		for (int l = 0; l < 2; l++) {
			launch(g, OP_GN);
			launch(g, OP_SILU);
			launch(g, OP_CONV);
		}
		launch(g, OP_UPS);
		launch(g, OP_CONV);
		mem_event(g, -471859200, g->device);
		ann_close(g);
	}
	launch(g, OP_FRAMES_D2H);
	ann_close(g);
}

/* Metadata and the profiler's own events, which Kineto writes last. */
static void gen_meta(struct gen *g)
{
	char *p;
	int64_t t0 = g->t0, end = g->t.max_end + 20000;
	static const int streams[NR_STREAMS] = { S_COMPUTE, S_COMM, S_COPY };

	p = ev_start(g);
	p = PUT(p, "\"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
	p = put_us(p, t0);
	p = PUT(p, ", \"dur\": ");
	p = put_us(p, end - t0);
	p = PUT(p, ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n"
		   "    \"name\": \"PyTorch Profiler (0)\",\n    \"args\": {\n"
		   "      \"Op count\": 0\n    }\n  }");
	sink_done(&g->out, p);
	note(g, PH_X, C_TRACE, t0, end - t0);

	for (int gpu = 0; gpu < 2; gpu++) {
		int64_t pid = gpu ? g->device : g->pid;

		p = ev_start(g);
		p = PUT(p, "\"name\": \"process_name\", \"ph\": \"M\", \"ts\": ");
		p = put_us(p, t0);
		p = PUT(p, ", \"pid\": ");
		p = put_i64(p, pid);
		p = PUT(p, ", \"tid\": 0,\n    \"args\": {\n"
			   "      \"name\": \"python3\"\n    }\n  }");
		sink_done(&g->out, p);
		note(g, PH_M, C_NONE, t0, 0);

		p = ev_start(g);
		p = PUT(p, "\"name\": \"process_labels\", \"ph\": \"M\", \"ts\": ");
		p = put_us(p, t0);
		p = PUT(p, ", \"pid\": ");
		p = put_i64(p, pid);
		p = PUT(p, ", \"tid\": 0,\n    \"args\": {\n      \"labels\": \"");
		if (gpu) {
			p = PUT(p, "GPU ");
			p = put_i64(p, g->device);
		} else {
			p = PUT(p, "CPU");
		}
		p = PUT(p, "\"\n    }\n  }");
		sink_done(&g->out, p);
		note(g, PH_M, C_NONE, t0, 0);

		for (int s = 0; s < (gpu ? NR_STREAMS : 1); s++) {
			int64_t tid = gpu ? streams[s] : g->pid;

			p = ev_start(g);
			p = PUT(p, "\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": ");
			p = put_us(p, t0);
			p = PUT(p, ", \"pid\": ");
			p = put_i64(p, pid);
			p = PUT(p, ", \"tid\": ");
			p = put_i64(p, tid);
			p = PUT(p, ",\n    \"args\": {\n      \"name\": \"");
			if (gpu) {
				p = PUT(p, "stream ");
				p = put_i64(p, tid);
				p = PUT(p, " ");
			} else {
				p = PUT(p, "thread ");
				p = put_i64(p, tid);
				p = PUT(p, " (python3)");
			}
			p = PUT(p, "\"\n    }\n  }");
			sink_done(&g->out, p);
			note(g, PH_M, C_NONE, t0, 0);
		}
	}

	p = ev_start(g);
	p = PUT(p, "\"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": ");
	p = put_us(p, t0);
	p = PUT(p, ",\n    \"pid\": \"Spans\", \"tid\": 0,\n    \"args\": {\n"
		   "      \"sort_index\": 536870912\n    }\n  }");
	sink_done(&g->out, p);
	note(g, PH_M, C_NONE, t0, 0);

	/* Two instants without "cat"; one with string pid/tid, one with empty ones. */
	p = ev_start(g);
	p = PUT(p, "\"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
		   "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
	p = put_us(p, t0);
	p = PUT(p, "\n  }");
	sink_done(&g->out, p);
	note(g, PH_I, C_NONE, t0, 0);

	p = ev_start(g);
	p = PUT(p, "\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
		   "    \"pid\": \"\", \"tid\": \"\", \"ts\": ");
	p = put_us(p, end);
	p = PUT(p, "\n  }");
	sink_done(&g->out, p);
	note(g, PH_I, C_NONE, end, 0);
}

static void gen_header(struct gen *g)
{
	char *p = sink_room(&g->out);

	p = PUT(p, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
	for (int i = 0; i < NR_GPUS; i++) {
		p = PUT(p, "    {\n      \"id\": ");
		p = put_i64(p, i);
		p = PUT(p, ", \"name\": \"NVIDIA H100 80GB HBM3\", "
			   "\"totalGlobalMem\": 85029158912,\n"
			   "      \"computeMajor\": 9, \"computeMinor\": 0,\n"
			   "      \"maxThreadsPerBlock\": 1024, "
			   "\"maxThreadsPerMultiprocessor\": 2048,\n"
			   "      \"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, "
			   "\"warpSize\": 32,\n"
			   "      \"sharedMemPerBlock\": 49152, "
			   "\"sharedMemPerMultiprocessor\": 233472,\n"
			   "      \"numSms\": 132, \"sharedMemPerBlockOptin\": 232448\n    }");
		p = i + 1 < NR_GPUS ? PUT(p, ",\n") : PUT(p, "\n");
	}
	p = PUT(p, "  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
	p = put_i64(p, g->rank);
	p = PUT(p, ", \"world_size\": ");
	p = put_i64(p, g->o->ranks);
	p = PUT(p, ", \"pg_count\": 1, \"nccl_version\": \"2.21.5\"},\n"
		   "  \"record_shapes\": 1,\n  \"profile_memory\": 1,\n  \"traceEvents\": [\n");
	sink_done(&g->out, p);
}

static void gen_footer(struct gen *g, const char *trace_name)
{
	char *p = sink_room(&g->out);

	p = PUT(p, "\n  ],\n  \"traceName\": \"");
	p = put_mem(p, trace_name, strlen(trace_name));
	p = PUT(p, "\",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": " BASE_TIME_NS
		   "\n}\n");
	sink_done(&g->out, p);
}

static void truth_init(struct truth *t)
{
	memset(t, 0, sizeof(*t));
	t->min_ts = INT64_MAX;
	t->max_end = INT64_MIN;
	t->wall_start = INT64_MAX;
	t->wall_end = INT64_MIN;
}

/*
 * Generate one rank into path.  min_steps: steps to make at least (the step
 * count of rank 0 in --size mode, so ranks agree); returns the steps made.
 */
static int gen_rank(struct gen *g, const struct opts *o, int rank, const char *path,
		    const char *trace_name, int min_steps)
{
	int steps = 0;
	int64_t maxs = PPM;

	memset(g, 0, sizeof(*g));
	g->o = o;
	g->rank = rank;
	g->device = rank % NR_GPUS;
	g->pid = CPU_PID_BASE + rank * 17;
	g->rng = o->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)rank * 0xd1b54a32d192ed03ULL + 1;
	rng_next(&g->rng);
	g->t0 = T0_NS + rng_range(&g->rng, 0, 2000000) + rank * 1000 + o->clock_shift_ns[rank];
	g->cpu = g->t0 + 150000;
	for (int i = 0; i < NR_STREAMS; i++)
		g->stream_free[i] = g->cpu;
	g->straggler_ppm = o->straggler_ppm[rank];
	for (int r = 0; r < o->ranks; r++)
		if (o->straggler_ppm[r] > maxs)
			maxs = o->straggler_ppm[r];
	g->max_straggler_ppm = maxs;
	g->warm_ppm = PPM;
	g->corr = 1000 + rank;
	g->mem_alloc = 30064771072LL;	/* 28 GiB of weights before the window */
	g->mem_reserved = 32212254720LL;
	truth_init(&g->t);

	sink_open(&g->out, path, !o->plain, o->level);
	gen_header(g);
	new_step_jitter(g);
	for (g->gen = 0; g->gen < o->generations; g->gen++) {
		gen_pre(g);
		ann_open(g, A_DENOISE, -1);
		if (o->blocks_outer) {
			for (int k = 0; k < o->blocks; k++)
				gen_block_steps(g, &steps, k);
		} else {
			for (int dstep = 0;; dstep++) {
				if (o->size) {
					if (steps >= min_steps &&
					    sink_text_bytes(&g->out) >= o->size)
						break;
				} else if (dstep >= o->steps) {
					break;
				}
				gen_step(g, steps++, dstep);
			}
		}
		ann_close(g);
		gen_post(g);
		unit_flush(g);
	}
	gen_meta(g);
	gen_footer(g, trace_name);
	g->text_bytes = sink_text_bytes(&g->out);
	sink_close(&g->out);
	g->file_bytes = g->out.file_bytes;
	free(g->cpu_recs.r);
	free(g->gpu_recs.r);
	return steps;
}

/* ---- truth output ---- */

static int ival_cmp(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Total length of the union of the intervals in the given classes. */
static int64_t union_ns(struct truth *t, int mask)
{
	struct ivals all = { 0 };
	int64_t sum = 0, cs = 0, ce = INT64_MIN;

	for (int c = 0; c < 3; c++)
		if (mask & (1 << c))
			for (size_t i = 0; i < t->gpu_iv[c].n; i++)
				ival_add(&all, t->gpu_iv[c].v[i].start, t->gpu_iv[c].v[i].end);
	if (all.n > 1)	/* qsort(NULL, 0) is undefined: one rank has no comm kernels */
		qsort(all.v, all.n, sizeof(*all.v), ival_cmp);
	for (size_t i = 0; i < all.n; i++) {
		if (all.v[i].start > ce) {
			if (ce != INT64_MIN)
				sum += ce - cs;
			cs = all.v[i].start;
			ce = all.v[i].end;
		} else if (all.v[i].end > ce) {
			ce = all.v[i].end;
		}
	}
	if (ce != INT64_MIN)
		sum += ce - cs;
	free(all.v);
	return sum;
}

static void gpu_bounds(struct truth *t, int64_t *first, int64_t *last)
{
	*first = INT64_MAX;
	*last = INT64_MIN;
	for (int c = 0; c < 3; c++)
		for (size_t i = 0; i < t->gpu_iv[c].n; i++) {
			if (t->gpu_iv[c].v[i].start < *first)
				*first = t->gpu_iv[c].v[i].start;
			if (t->gpu_iv[c].v[i].end > *last)
				*last = t->gpu_iv[c].v[i].end;
		}
}

static void put_ppm(FILE *f, int64_t ppm)
{
	fprintf(f, "%lld.%06lld", (long long)(ppm / PPM), (long long)(ppm % PPM));
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Lower median, nearest-rank p90 and max of v[0..n) (sorted here), or null. */
static void put_cadence(FILE *f, int64_t *v, size_t n)
{
	if (!n) {
		fprintf(f, "null");
		return;
	}
	qsort(v, n, sizeof(*v), i64_cmp);
	fprintf(f, "{\"median_ns\": %lld, \"p90_ns\": %lld, \"max_ns\": %lld}",
		(long long)v[(n - 1) / 2], (long long)v[(9 * n + 9) / 10 - 1], (long long)v[n - 1]);
}

/*
 * generations and throughput: per generation its extent (the regions),
 * frames, the completion time of each block (its last span's end) and the
 * cadence between consecutive completions; for the run the sums, the lower
 * median of the first blocks and the cadence pooled over generations.
 */
static void write_gen_truth(FILE *f, struct gen *g)
{
	struct truth *t = &g->t;
	int64_t *gaps = NULL, *firsts = xrealloc(NULL, (size_t)(t->nr_gens + 1) * sizeof(int64_t));
	size_t nr_gaps = 0, nr_firsts = 0;
	int64_t blocks = 0;

	fprintf(f, "      \"generations\": [");
	for (int v = 0; v < t->nr_gens; v++) {
		struct gen_truth *x = &t->gens[v];
		int64_t *done = xrealloc(NULL, (size_t)(x->nr_done + 1) * sizeof(int64_t));
		size_t n = 0;

		for (int k = 0; k < x->nr_done; k++)
			if (x->done[k] >= 0)
				done[n++] = x->done[k];
		qsort(done, n, sizeof(*done), i64_cmp);
		blocks += (int64_t)n;
		fprintf(f, "%s\n        {\"start_ns\": %lld, \"wall_ns\": %lld, \"frames\": %d, "
			   "\"blocks\": %zu,\n         \"block_completions_ns\": [", v ? "," : "",
			(long long)(x->start - t->min_ts), (long long)(x->end - x->start),
			g->o->frames, n);
		for (size_t k = 0; k < n; k++)
			fprintf(f, "%s%lld", k ? ", " : "", (long long)(done[k] - x->start));
		fprintf(f, "],\n         \"first_block_ns\": ");
		if (n) {
			fprintf(f, "%lld", (long long)(done[0] - x->start));
			firsts[nr_firsts++] = done[0] - x->start;
		} else {
			fprintf(f, "null");
		}
		gaps = xrealloc(gaps, (nr_gaps + n + 1) * sizeof(*gaps));
		for (size_t k = 1; k < n; k++)
			gaps[nr_gaps + k - 1] = done[k] - done[k - 1];
		fprintf(f, ", \"cadence\": ");
		put_cadence(f, gaps + nr_gaps, n ? n - 1 : 0);
		nr_gaps += n ? n - 1 : 0;
		fprintf(f, "}");
		free(done);
	}
	fprintf(f, "\n      ],\n");
	qsort(firsts, nr_firsts, sizeof(*firsts), i64_cmp);
	fprintf(f, "      \"throughput\": {\"frames\": %lld, \"blocks\": %lld, "
		   "\"block_spans\": %lld, \"wall_ns\": %lld,\n        \"first_block_ns\": ",
		(long long)g->o->frames * t->nr_gens, (long long)blocks, (long long)t->blocks,
		(long long)(t->wall_end - t->wall_start));
	if (nr_firsts)
		fprintf(f, "%lld", (long long)firsts[(nr_firsts - 1) / 2]);
	else
		fprintf(f, "null");
	fprintf(f, ", \"cadence\": ");
	put_cadence(f, gaps, nr_gaps);
	fprintf(f, "},\n");
	free(gaps);
	free(firsts);
}

static void write_rank_truth(FILE *f, struct gen *g, const char *file, int last)
{
	struct truth *t = &g->t;
	int64_t busy = union_ns(t, 7), comm = union_ns(t, 2), compute = union_ns(t, 1);
	int64_t memory = union_ns(t, 4), cc = union_ns(t, 3);
	int64_t first, lastg, nr_kernels = 0, ktime = 0;
	int sep;

	gpu_bounds(t, &first, &lastg);
	for (int c = 0; c < KC_NR; c++) {
		nr_kernels += t->kcount[c];
		ktime += t->ktime[c];
	}
	fprintf(f, "    {\n      \"rank\": %d, \"file\": \"%s\", \"device\": %d,\n", g->rank, file,
		g->device);
	/* file_bytes on a line of its own: it alone may vary with the zlib version. */
	fprintf(f, "      \"file_bytes\": %llu,\n", (unsigned long long)g->file_bytes);
	fprintf(f, "      \"text_bytes\": %llu, \"straggler_factor\": ",
		(unsigned long long)g->text_bytes);
	put_ppm(f, g->straggler_ppm);
	if (g->o->split)	/* the planted figures vcompare --scaling is checked against */
		fprintf(f, ", \"planted_wait_ns\": %lld", (long long)g->planted_wait_ns);
	fprintf(f, ",\n      \"events\": {\"total\": %lld, \"by_ph\": {", (long long)t->total);
	sep = 0;
	for (int i = 0; i < PH_NR; i++)
		if (t->by_ph[i]) {
			fprintf(f, "%s\"%s\": %lld", sep++ ? ", " : "", ph_names[i],
				(long long)t->by_ph[i]);
		}
	fprintf(f, "}, \"by_cat\": {");
	sep = 0;
	for (int i = 1; i < C_NR; i++)
		if (t->by_cat[i]) {
			fprintf(f, "%s\"%s\": %lld", sep++ ? ", " : "", cat_names[i],
				(long long)t->by_cat[i]);
		}
	fprintf(f, "}, \"no_cat\": %lld},\n", (long long)t->by_cat[C_NONE]);
	fprintf(f, "      \"first_ts_ns\": %lld, \"last_end_ns\": %lld, \"span_ns\": %lld,\n",
		(long long)t->min_ts, (long long)t->max_end, (long long)(t->max_end - t->min_ts));

	fprintf(f, "      \"gpu\": {\"kernels\": %lld, \"kernel_time_ns\": %lld, "
		   "\"busy_ns\": %lld, \"active_span_ns\": %lld,\n",
		(long long)nr_kernels, (long long)ktime, (long long)busy,
		(long long)(lastg - first));
	fprintf(f, "        \"comm_ns\": %lld, \"compute_ns\": %lld, \"memory_ns\": %lld, "
		   "\"comm_compute_overlap_ns\": %lld,\n",
		(long long)comm, (long long)compute, (long long)memory,
		(long long)(comm + compute - cc));
	fprintf(f, "        \"memcpy\": {\"count\": %lld, \"total_ns\": %lld}, "
		   "\"memset\": {\"count\": %lld, \"total_ns\": %lld},\n",
		(long long)t->copies[0], (long long)t->copy_ns[0], (long long)t->copies[1],
		(long long)t->copy_ns[1]);
	fprintf(f, "        \"by_category\": {");
	sep = 0;
	for (int c = 0; c < KC_NR; c++)
		if (t->kcount[c]) {
			fprintf(f, "%s\n          \"%s\": {\"count\": %lld, \"total_ns\": %lld}",
				sep++ ? "," : "", kcat_names[c], (long long)t->kcount[c],
				(long long)t->ktime[c]);
		}
	fprintf(f, "\n        }\n      },\n");

	fprintf(f, "      \"phases\": [");
	sep = 0;
	for (int a = 0; a < A_NR; a++)
		for (int gpu = 0; gpu < 2; gpu++) {
			struct phase_tab *p = &t->phases[a][gpu];

			for (size_t i = 0; i < p->n; i++) {
				if (!p->s[i].count)
					continue;
				fprintf(f, "%s\n        {\"name\": \"%s", sep++ ? "," : "",
					ann_names[a]);
				if (ann_numbered(a))
					fprintf(f, "%zu", i);
				fprintf(f, "\", \"cat\": \"%s\", \"count\": %lld, "
					   "\"total_ns\": %lld}",
					gpu ? "gpu_user_annotation" : "user_annotation",
					(long long)p->s[i].count, (long long)p->s[i].total_ns);
			}
		}
	fprintf(f, "\n      ],\n");

	fprintf(f, "      \"steps\": {\"pattern\": \"ProfilerStep#*\", \"count\": %zu, "
		   "\"durations_ns\": [", t->nr_steps);
	for (size_t i = 0; i < t->nr_steps; i++)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)t->steps_ns[i]);
	fprintf(f, "]},\n");
	write_gen_truth(f, g);
	fprintf(f, "      \"planted\": [");
	for (size_t i = 0; i < t->nr_planted; i++) {
		const struct planted_gap *x = &t->planted[i];

		fprintf(f, "%s\n        {\"kind\": \"%s\", \"cause\": \"%s\", \"host\": \"%s\", "
			   "\"step\": %d, \"start_ns\": %lld, \"dur_ns\": %lld}",
			i ? "," : "", plant_kinds[x->kind].key, plant_kinds[x->kind].cause,
			plant_kinds[x->kind].name, x->step, (long long)(x->start - t->min_ts),
			(long long)(x->end - x->start));
	}
	fprintf(f, "%s],\n", t->nr_planted ? "\n      " : "");
	fprintf(f, "      \"memory\": [{\"device\": -1, \"peak_allocated\": %lld, "
		   "\"peak_reserved\": %lld}, {\"device\": %d, \"peak_allocated\": %lld, "
		   "\"peak_reserved\": %lld}]\n",
		(long long)t->peak_alloc[1], (long long)t->peak_reserved[1], g->device,
		(long long)t->peak_alloc[0], (long long)t->peak_reserved[0]);
	fprintf(f, "    }%s\n", last ? "" : ",");
}

static void truth_release(struct truth *t)
{
	for (int v = 0; v < t->nr_gens; v++)
		free(t->gens[v].done);
	free(t->gens);
	for (int a = 0; a < A_NR; a++)
		for (int gpu = 0; gpu < 2; gpu++)
			free(t->phases[a][gpu].s);
	for (int c = 0; c < 3; c++)
		free(t->gpu_iv[c].v);
	free(t->steps_ns);
	free(t->planted);
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gentrace [options] -o PREFIX\n"
		"\n"
		"Write PREFIX-rank{R}.trace.json.gz for each rank and PREFIX-truth.json.\n"
		"\n"
		"  --ranks N              ranks (files) to write, 1..%d (default 1)\n"
		"  --size BYTES           make denoising steps until each rank has at least\n"
		"                         BYTES of JSON text (suffix K, M, G: powers of 1024)\n"
		"  --steps S              exactly S denoising steps (default 4)\n"
		"  --blocks K             transformer blocks per step (default 40)\n"
		"  --frames F             frames of one generation (one video) (default 81)\n"
		"  --generations G        videos per rank, one after the other (default 1)\n"
		"  --loop ORDER           steps-outer: each step sweeps every block (default);\n"
		"                         blocks-outer: each block has its own steps\n"
		"  --seed X               random seed (default 1)\n"
		"  --jitter F             +-F relative jitter of kernel and step times (default "
		"0.05)\n"
		"  --slow-phase NAME=F    stretch GPU work in a phase: pre_denoising, denoising,\n"
		"                         post_denoising, text_encoder, denoise_step, block,\n"
		"                         vae_decode (repeatable)\n"
		"  --straggler R=F        rank R computes F times slower (repeatable); the\n"
		"                         others wait for it in the all-to-alls\n"
		"  --no-wait              ranks never wait for each other: a straggler's\n"
		"                         steps are simply longer\n"
		"  --split-denoising      sequence parallelism: each rank computes 1/N of the\n"
		"                         denoising phase's kernels; the text encoder and the\n"
		"                         VAE decode stay whole on every rank (serial work);\n"
		"                         the truth gets each rank's planted_wait_ns\n"
		"  --clock-shift R=S      rank R's clock reads S whole seconds late, as on\n"
		"                         another host (repeatable)\n"
		"  --warmup F             the first step's GPU work takes F times longer (default "
		"1)\n"
		"  --plant KIND@STEP=MS   before ProfilerStep#STEP's first launch, stall the\n"
		"                         host MS milliseconds in: dataloader, hostprep, init,\n"
		"                         memory, capture, compile, gloo; or sync@STEP=N: N\n"
		"                         .item() calls (repeatable; the truth lists the gaps)\n"
		"  --shapes               inner operators get their own Input Dims and Concrete\n"
		"                         Inputs (addmm, SDPA, convolution), so that their FLOPs\n"
		"                         are known (doc/perf-model.md), and a convolution's\n"
		"                         children launch its kernels, as PyTorch's do; without,\n"
		"                         they repeat the outer operator's\n"
		"  --level L              gzip level 0..9 (default 1)\n"
		"  --plain                write .json instead of .json.gz\n"
		"  --truth PATH           write the truth there (default PREFIX-truth.json)\n"
		"  -o PREFIX              output prefix\n",
		MAX_RANKS);
}

static void usage_error(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry 'gentrace --help'\n");
	exit(2);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int parse_size(const char *s, uint64_t *v)
{
	char *end;
	uint64_t mul = 1;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	default: break;
	}
	if (*end || *v > (1ULL << 50) / mul)
		return -1;
	*v *= mul;
	return 0;
}

/* A decimal like 1.15 into parts per million, exactly; at most six decimals. */
static int parse_ppm(const char *s, int64_t *ppm)
{
	int64_t whole = 0, frac = 0, scale_f = PPM;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		whole = whole * 10 + (*s - '0');
		if (whole > 1000)
			return -1;
	}
	if (*s == '.') {
		s++;
		for (; *s >= '0' && *s <= '9'; s++) {
			if (scale_f == 1)
				return -1;
			scale_f /= 10;
			frac += (*s - '0') * scale_f;
		}
	}
	if (*s)
		return -1;
	*ppm = whole * PPM + frac;
	return 0;
}

static const char *need_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		usage_error("option '%s' needs an argument", argv[*i]);
	return argv[++*i];
}

/* --plant KIND@STEP=MS, or sync@STEP=N. */
static void parse_plant(struct opts *o, const char *v)
{
	const char *at = strchr(v, '@'), *eq = at ? strchr(at, '=') : NULL;
	struct plant *pl = &o->plants[o->nr_plants];
	char step[16];
	uint64_t u;
	int k;

	if (!eq || eq - at - 1 >= (long)sizeof(step))
		usage_error("bad --plant '%s' (KIND@STEP=MS)", v);
	for (k = 0; k < P_NR; k++)
		if (strlen(plant_kinds[k].key) == (size_t)(at - v) &&
		    !strncmp(v, plant_kinds[k].key, (size_t)(at - v)))
			break;
	if (k == P_NR)
		usage_error("unknown --plant kind in '%s'", v);
	if (o->nr_plants == MAX_PLANTS)
		usage_error("more than %d --plant", MAX_PLANTS);
	memcpy(step, at + 1, (size_t)(eq - at - 1));
	step[eq - at - 1] = 0;
	if (parse_u64(step, &u) || u > 1000000)
		usage_error("bad step in --plant '%s'", v);
	pl->kind = (enum plant_kind)k;
	pl->step = (int)u;
	if (k == P_SYNC) {
		if (parse_u64(eq + 1, &u) || u < 1 || u > 100000)
			usage_error("bad count in --plant '%s' (sync@STEP=1..100000)", v);
		pl->amount = (int64_t)u;
	} else if (parse_ppm(eq + 1, &pl->amount) || pl->amount < 1000) {
		/* milliseconds read as parts per million of a millisecond: ns */
		usage_error("bad milliseconds in --plant '%s' (0.001..1000)", v);
	}
	o->nr_plants++;
}

static void parse_args(int argc, char **argv, struct opts *o, int *have_steps)
{
	int straggler_rank[MAX_RANKS];
	int64_t straggler_f[MAX_RANKS];
	int nr_stragglers = 0;
	size_t cl = 0;

	memset(o, 0, sizeof(*o));
	o->ranks = 1;
	o->steps = 4;
	o->blocks = 40;
	o->frames = 81;
	o->generations = 1;
	o->seed = 1;
	o->jitter_ppm = 50000;
	o->warmup_ppm = PPM;
	o->level = 1;
	for (int a = 0; a < A_NR; a++)
		o->slow_ppm[a] = PPM;
	*have_steps = 0;

	/* The command line goes into the truth file, minus the output paths. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--truth")) {
			i++;
			continue;
		}
		if (cl + strlen(argv[i]) + 2 < sizeof(o->cmdline))
			cl += (size_t)sprintf(o->cmdline + cl, "%s%s", cl ? " " : "", argv[i]);
	}

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		uint64_t u;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "-o")) {
			o->prefix = need_arg(argc, argv, &i);
		} else if (!strcmp(a, "--truth")) {
			o->truth = need_arg(argc, argv, &i);
		} else if (!strcmp(a, "--ranks")) {
			v = need_arg(argc, argv, &i);
			if (parse_u64(v, &u) || u < 1 || u > MAX_RANKS)
				usage_error("bad --ranks '%s'", v);
			o->ranks = (int)u;
		} else if (!strcmp(a, "--size")) {
			v = need_arg(argc, argv, &i);
			if (parse_size(v, &o->size) || !o->size)
				usage_error("bad --size '%s'", v);
		} else if (!strcmp(a, "--shapes")) {
			o->shapes = 1;
		} else if (!strcmp(a, "--steps")) {
			v = need_arg(argc, argv, &i);
			if (parse_u64(v, &u) || u > 1000000)
				usage_error("bad --steps '%s'", v);
			o->steps = (int)u;
			*have_steps = 1;
		} else if (!strcmp(a, "--blocks")) {
			v = need_arg(argc, argv, &i);
			if (parse_u64(v, &u) || u > 10000)
				usage_error("bad --blocks '%s'", v);
			o->blocks = (int)u;
		} else if (!strcmp(a, "--frames")) {
			v = need_arg(argc, argv, &i);
			if (parse_u64(v, &u) || u < 1 || u > 100000)
				usage_error("bad --frames '%s'", v);
			o->frames = (int)u;
		} else if (!strcmp(a, "--generations")) {
			v = need_arg(argc, argv, &i);
			if (parse_u64(v, &u) || u < 1 || u > 10000)
				usage_error("bad --generations '%s'", v);
			o->generations = (int)u;
		} else if (!strcmp(a, "--loop")) {
			v = need_arg(argc, argv, &i);
			if (!strcmp(v, "steps-outer"))
				o->blocks_outer = 0;
			else if (!strcmp(v, "blocks-outer"))
				o->blocks_outer = 1;
			else
				usage_error("bad --loop '%s' (steps-outer or blocks-outer)", v);
		} else if (!strcmp(a, "--seed")) {
			v = need_arg(argc, argv, &i);
			if (parse_u64(v, &o->seed))
				usage_error("bad --seed '%s'", v);
		} else if (!strcmp(a, "--jitter")) {
			v = need_arg(argc, argv, &i);
			if (parse_ppm(v, &o->jitter_ppm) || o->jitter_ppm > 900000)
				usage_error("bad --jitter '%s' (0 to 0.9)", v);
		} else if (!strcmp(a, "--warmup")) {
			v = need_arg(argc, argv, &i);
			if (parse_ppm(v, &o->warmup_ppm) || o->warmup_ppm < 10000)
				usage_error("bad --warmup '%s'", v);
		} else if (!strcmp(a, "--level")) {
			v = need_arg(argc, argv, &i);
			if (parse_u64(v, &u) || u > 9)
				usage_error("bad --level '%s' (0 to 9)", v);
			o->level = (int)u;
		} else if (!strcmp(a, "--plain")) {
			o->plain = 1;
		} else if (!strcmp(a, "--split-denoising")) {
			o->split = 1;
		} else if (!strcmp(a, "--no-wait")) {
			o->no_wait = 1;
		} else if (!strcmp(a, "--slow-phase")) {
			const char *eq;
			int k;
			int64_t f;

			v = need_arg(argc, argv, &i);
			eq = strchr(v, '=');
			if (!eq || parse_ppm(eq + 1, &f) || f < 10000)
				usage_error("bad --slow-phase '%s' (NAME=FACTOR)", v);
			for (k = 0; k < A_NR; k++)
				if (strlen(ann_short[k]) == (size_t)(eq - v) &&
				    !strncmp(ann_short[k], v, (size_t)(eq - v)))
					break;
			if (k == A_NR)
				usage_error("unknown phase in --slow-phase '%s'", v);
			o->slow_ppm[k] = f;
		} else if (!strcmp(a, "--clock-shift")) {
			const char *eq;
			char num[16];
			uint64_t sec;

			v = need_arg(argc, argv, &i);
			eq = strchr(v, '=');
			if (!eq || eq - v >= (long)sizeof(num) || parse_u64(eq + 1, &sec) ||
			    sec > 86400)
				usage_error("bad --clock-shift '%s' (RANK=SECONDS, to a day)", v);
			memcpy(num, v, (size_t)(eq - v));
			num[eq - v] = 0;
			if (parse_u64(num, &u) || u >= MAX_RANKS)
				usage_error("bad rank in --clock-shift '%s'", v);
			o->clock_shift_ns[u] = (int64_t)sec * 1000000000LL;
		} else if (!strcmp(a, "--plant")) {
			parse_plant(o, need_arg(argc, argv, &i));
		} else if (!strcmp(a, "--straggler")) {
			const char *eq;
			char num[16];
			int64_t f;

			v = need_arg(argc, argv, &i);
			eq = strchr(v, '=');
			if (!eq || eq - v >= (long)sizeof(num) || parse_ppm(eq + 1, &f) ||
			    f < 10000)
				usage_error("bad --straggler '%s' (RANK=FACTOR)", v);
			memcpy(num, v, (size_t)(eq - v));
			num[eq - v] = 0;
			if (parse_u64(num, &u) || u >= MAX_RANKS || nr_stragglers == MAX_RANKS)
				usage_error("bad rank in --straggler '%s'", v);
			straggler_rank[nr_stragglers] = (int)u;
			straggler_f[nr_stragglers++] = f;
		} else {
			usage_error("unknown option '%s'", a);
		}
	}
	if (!o->prefix)
		usage_error("%s", "missing -o PREFIX");
	if (o->size && *have_steps)
		usage_error("%s", "--size and --steps exclude each other");
	if (o->size && (o->generations > 1 || o->blocks_outer))
		usage_error("%s", "--size makes one generation, steps outer");
	for (int r = 0; r < MAX_RANKS; r++)
		o->straggler_ppm[r] = PPM;
	for (int s = 0; s < nr_stragglers; s++) {
		if (straggler_rank[s] >= o->ranks) {
			char msg[64];

			snprintf(msg, sizeof(msg), "%d", straggler_rank[s]);
			usage_error("--straggler rank %s is not below --ranks", msg);
		}
		o->straggler_ppm[straggler_rank[s]] = straggler_f[s];
	}
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int main(int argc, char **argv)
{
	struct opts *o = xrealloc(NULL, sizeof(*o));
	struct gen *g = xrealloc(NULL, sizeof(*g));
	int have_steps, steps0 = 0;
	size_t plen;
	char *path, *truth_tmp, *truth_path;
	FILE *tf;

	fmt_init();
	kern_init();
	parse_args(argc, argv, o, &have_steps);

	plen = strlen(o->prefix) + (o->truth ? strlen(o->truth) : 0) + 64;
	path = xrealloc(NULL, plen);
	truth_tmp = xrealloc(NULL, plen);
	truth_path = xrealloc(NULL, plen);
	if (o->truth)
		snprintf(truth_path, plen, "%s", o->truth);
	else
		snprintf(truth_path, plen, "%s-truth.json", o->prefix);
	snprintf(truth_tmp, plen, "%s.tmp", truth_path);
	tf = fopen(truth_tmp, "w");
	if (!tf)
		die("cannot write '%s': %s", truth_tmp, strerror(errno));

	fprintf(tf, "{\n  \"generator\": \"gentrace\",\n  \"args\": \"");
	for (const char *c = o->cmdline; *c; c++)
		fputc(*c == '"' || *c == '\\' ? '_' : *c, tf);
	fprintf(tf, "\",\n  \"seed\": %llu, \"world_size\": %d, \"blocks_per_step\": %d, "
		    "\"jitter\": ", (unsigned long long)o->seed, o->ranks, o->blocks);
	put_ppm(tf, o->jitter_ppm);
	fprintf(tf, ",\n  \"base_time_ns\": " BASE_TIME_NS ",\n"
		    "  \"time_unit\": \"ns, absolute trace time (ts * 1000)\",\n  \"ranks\": [\n");

	for (int r = 0; r < o->ranks; r++) {
		char trace_name[256];
		int steps;

		snprintf(path, plen, "%s-rank%d.trace.json%s", o->prefix, r, o->plain ? "" : ".gz");
		snprintf(trace_name, sizeof(trace_name), "%s-rank%d.trace.json",
			 base_name(o->prefix), r);
		steps = gen_rank(g, o, r, path, trace_name, steps0);
		if (r == 0)
			steps0 = steps;
		write_rank_truth(tf, g, base_name(path), r + 1 == o->ranks);
		truth_release(&g->t);
	}
	fprintf(tf, "  ]\n}\n");
	if (fflush(tf) || ferror(tf) || fclose(tf))
		die("cannot write '%s': %s", truth_tmp, strerror(errno));
	if (rename(truth_tmp, truth_path))
		die("cannot rename '%s' to '%s': %s", truth_tmp, truth_path, strerror(errno));
	free(path);
	free(truth_tmp);
	free(truth_path);
	free(g);
	free(o);
	return 0;
}
