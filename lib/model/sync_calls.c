/*
 * sync_calls: see sync_calls.h.  Sources: the CUDA runtime and driver API
 * (cudaDeviceSynchronize, cuCtxSynchronize, the synchronous cudaMemcpy),
 * HIP's, AscendCL's (written "AscendCL@aclrtSynchronizeStream" by
 * torch_npu); PyTorch's aten::item, which calls
 * aten::_local_scalar_dense, which copies to the host and waits.
 */
#include "sync_calls.h"

#include "namematch.h"

/* namematch.h's whole name and start, and a synchronising call: start and "Synchronize". */
enum match { EXACT, PREFIX, SYNC_CALL };

static const struct {
	enum match how;
	const char *pat;
	enum sync_call kind;
} rows[] = {
	{ SYNC_CALL, "cu", SYNC_RUNTIME },	/* cudaDeviceSynchronize, cuCtxSynchronize, ... */
	{ SYNC_CALL, "hip", SYNC_RUNTIME },	/* hipDeviceSynchronize, hipStreamSynchronize */
	{ EXACT, "cudaMemcpy", SYNC_RUNTIME },	/* synchronous copies: blocking by the API */
	{ EXACT, "cudaMemcpy2D", SYNC_RUNTIME },
	{ EXACT, "cudaMemcpy3D", SYNC_RUNTIME },
	{ EXACT, "cuMemcpyDtoH_v2", SYNC_RUNTIME },
	{ EXACT, "cuMemcpyHtoD_v2", SYNC_RUNTIME },
	{ EXACT, "hipMemcpy", SYNC_RUNTIME },
	{ EXACT, "hipMemcpy2D", SYNC_RUNTIME },
	{ EXACT, "hipMemcpyDtoH", SYNC_RUNTIME },
	{ EXACT, "hipMemcpyHtoD", SYNC_RUNTIME },
	{ PREFIX, "AscendCL@aclrtSynchronize", SYNC_RUNTIME },
	{ EXACT, "AscendCL@aclrtMemcpy", SYNC_RUNTIME },	/* synchronous copy */
	{ EXACT, "aten::item", SYNC_OP },
	{ EXACT, "aten::_local_scalar_dense", SYNC_OP },
};

enum sync_call sync_call_of(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int hit = 0;

		switch (rows[i].how) {
		case EXACT:
			hit = name_matches(NAME_IS, rows[i].pat, s, n);
			break;
		case PREFIX:
			hit = name_matches(NAME_STARTS, rows[i].pat, s, n);
			break;
		case SYNC_CALL:
			hit = name_matches(NAME_STARTS, rows[i].pat, s, n) &&
			      name_matches(NAME_ENDS, "Synchronize", s, n);
			break;
		}
		if (hit)
			return rows[i].kind;
	}
	return SYNC_NONE;
}
