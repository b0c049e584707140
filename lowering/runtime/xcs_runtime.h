/* XCS runtime: the C ABI of code compiled by XCS (xcs-translate --emit=shared-lib, the JIT).
 * The tensor descriptor, element type codes, errors, thread count and result release.
 * Documented in docs/c-abi.md; every generated header repeats these declarations. */
#ifndef XCS_RUNTIME_H
#define XCS_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef XCS_TENSOR_DEFINED
#define XCS_TENSOR_DEFINED
/* Element type codes (xcs_tensor.dtype). i1 is stored as one byte (0 or 1); bf16 as its 16 bits. */
enum xcs_dtype {
    XCS_F16 = 1, XCS_BF16 = 2, XCS_F32 = 3, XCS_F64 = 4,
    XCS_I1 = 5, XCS_I8 = 6, XCS_I16 = 7, XCS_I32 = 8, XCS_I64 = 9
};

/* A tensor: `rank` sizes in `shape`, element strides (in elements, not bytes) in `strides`
 * (NULL means row-major contiguous). Inputs are read only. Results are filled by the call:
 * `data`, `shape` and `strides` (row-major) are allocated by the library; give them back with
 * xcs_tensor_release. */
typedef struct xcs_tensor {
    void *data;
    int64_t rank;
    int64_t *shape;
    int64_t *strides;
    int32_t dtype;
} xcs_tensor;
#endif

/* The message of the last failed call on this thread ("" if none). */
const char *xcs_last_error(void);
/* Frees the data, shape and strides of a result and clears the descriptor. */
void xcs_tensor_release(xcs_tensor *t);
/* Threads used by large loops (1 = single-threaded). The default is the number of online CPUs,
 * or the XCS_NUM_THREADS environment variable. */
void xcs_set_num_threads(int32_t n);
int32_t xcs_get_num_threads(void);
/* Buffers currently allocated by compiled code (results not yet released included). */
int64_t xcs_live_allocations(void);
/* Buffers allocated so far. */
int64_t xcs_total_allocations(void);
/* Stops the worker threads (they restart on demand); call before exit under leak checkers. */
void xcs_shutdown(void);

#ifdef __cplusplus
}
#endif
#endif
