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
/* 1 (the default): freed buffers of 4 MiB or more are kept and handed out again, so repeated
 * calls reuse mapped memory; 0: every buffer comes fresh from malloc (and the kept ones are freed). */
void xcs_set_buffer_reuse(int32_t on);
/* The f32 matmul's instruction set: "avx512", "avx2" (with FMA) or "generic" (SSE, no FMA), the
 * best the CPU runs unless XCS_MATMUL_ISA names a lesser one. */
const char *xcs_matmul_isa(void);
/* Stops the worker threads (they restart on demand); call before exit under leak checkers. */
void xcs_shutdown(void);

/* SPMD programs (partitioned by shard-partition) run once per device of a grid; their
 * collectives talk to the other devices through the calling thread's communicator. Without
 * one, a collective whose group is one device is local and a larger group is a run-time error.
 * See docs/c-abi.md ("SPMD functions"). */
typedef struct xcs_comm xcs_comm;
/* Sets the calling thread's communicator (NULL: the program runs alone); returns the old one. */
xcs_comm *xcs_set_comm(xcs_comm *c);
xcs_comm *xcs_get_comm(void);
/* Frees a communicator made by xcs_comm_mpi (devices of a shared-memory grid belong to it). */
void xcs_comm_free(xcs_comm *c);

/* Devices as threads of one process, their collectives over shared memory. Make the grid,
 * start one thread per device; each sets xcs_set_comm(xcs_shm_grid_device(g, d)), calls the
 * function, then xcs_shm_grid_done(g, d, status, xcs_last_error()). A failing device (status != 0)
 * stops the grid: the others' collectives fail instead of waiting for it; devices waiting in
 * collectives that can never complete are detected and fail (nothing hangs). */
typedef struct xcs_shm_grid xcs_shm_grid;
/* A grid of `rank` axes of sizes `shape` (row-major device numbering); NULL if invalid. */
xcs_shm_grid *xcs_shm_grid_new(int32_t rank, const int64_t *shape);
/* The communicator of device `linear` (owned by the grid). */
xcs_comm *xcs_shm_grid_device(xcs_shm_grid *g, int64_t linear);
/* The program of device `linear` returned `status` (non-zero: it failed with message `why`). */
void xcs_shm_grid_done(xcs_shm_grid *g, int64_t linear, int32_t status, const char *why);
/* Frees the grid once every device's thread has finished. */
void xcs_shm_grid_free(xcs_shm_grid *g);

#ifdef __cplusplus
}
#endif
#endif
