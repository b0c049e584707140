/* XCS runtime: the collectives of compiled SPMD programs (the `shard` dialect's all_gather,
 * all_reduce, reduce_scatter, all_to_all, all_slice, broadcast and device queries) and the
 * shared-memory transport (devices as threads of one process). Generated code calls
 * xcs_rt_<collective> with a constant description of the op (xcs_coll_site) and contiguous
 * buffers; the collective runs on the calling thread's communicator (xcs_set_comm) through its
 * transport (xcs_comm.h), which only moves bytes. Layouts and reductions are done here, the
 * same way for every transport: reductions convert to f64 (floats) or i64 (integers), combine
 * in group order and round once, as the interpreter does (interp/devices.rs), so results are
 * the interpreter's bit for bit on every transport and identical on every member. See
 * docs/shard.md ("The runtime"). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xcs_comm.h"

#define API __attribute__((visibility("default")))
#define RT __attribute__((visibility("hidden")))

/* From xcs_runtime.c. */
RT void *xcs_rt_alloc(int64_t bytes);
RT void xcs_rt_free(void *p);
RT int32_t xcs_rt_fail(int32_t site, const char *msg);
RT uint16_t xcs_rt_f64_to_bf16(double x);

#define ERR_LEN XCS_COMM_ERR_LEN
/* The largest tensor rank all_to_all takes. */
#define MAX_TENSOR_RANK 64

/* ------------------------------------------------------------------ the calling thread's communicator */

static __thread xcs_comm *tl_comm;

API xcs_comm *xcs_set_comm(xcs_comm *c) {
    xcs_comm *old = tl_comm;
    tl_comm = c;
    return old;
}

API xcs_comm *xcs_get_comm(void) { return tl_comm; }

API void xcs_comm_free(xcs_comm *c) {
    if (!c || !c->owned) return;
    if (tl_comm == c) tl_comm = NULL;
    if (c->transport && c->transport->destroy) c->transport->destroy(c);
    free(c);
}

/* Every member gives `bytes` bytes; recv gets all of them in group order (n * bytes). For
 * drivers that exchange their own data (the interpreter's MPI communicator). */
RT int32_t xcs_comm_exchange(xcs_comm *c, const int32_t *axes, int32_t naxes, const void *send, int64_t bytes,
                              void *recv, char *err) {
    if (xcs_comm_group_size(c, axes, naxes) == 1) {
        if (bytes > 0) memcpy(recv, send, (size_t)bytes);
        return 0;
    }
    return c->transport->all_gather(c, axes, naxes, send, bytes, recv, err);
}

/* ------------------------------------------------------------------ element types and lanes */

static int64_t esize(int32_t d) {
    switch (d) {
    case XCS_F16: case XCS_BF16: case XCS_I16: return 2;
    case XCS_F32: case XCS_I32: return 4;
    case XCS_F64: case XCS_I64: return 8;
    default: return 1;
    }
}

static int is_float(int32_t d) { return d == XCS_F16 || d == XCS_BF16 || d == XCS_F32 || d == XCS_F64; }

static const char *dtype_text(int32_t d) {
    static const char *names[] = {"?", "f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64"};
    return (d >= 1 && d <= 9) ? names[d] : "?";
}

static double f16_to_f64(uint16_t h) {
    int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0) v = (double)m / 16777216.0; /* m * 2^-24 */
    else if (e == 31) v = m ? __builtin_nan("") : __builtin_inf();
    else v = __builtin_ldexp((double)(m | 0x400), e - 25);
    return sign ? -v : v;
}

/* f64 -> f16 bits, rounded once to nearest even (as the interpreter's f16_from_f64). */
static uint16_t f64_to_f16(double x) {
    uint64_t b;
    memcpy(&b, &x, 8);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
    uint64_t a = b & 0x7fffffffffffffffULL;
    if (a > 0x7ff0000000000000ULL) return sign | 0x7e00;
    if (a == 0x7ff0000000000000ULL) return sign | 0x7c00;
    int e = (int)(a >> 52);
    if (e == 0) return sign;
    uint64_t m = (a & 0xfffffffffffffULL) | (1ULL << 52);
    int fe = e - 1023 + 15;
    int shift = fe >= 1 ? 42 : 42 + (1 - fe);
    if (shift >= 54) return sign;
    uint64_t q = m >> shift, rem = m & ((1ULL << shift) - 1), half = 1ULL << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    if (fe < 1) return sign | (uint16_t)q; /* a subnormal (q = 2^10 is the smallest normal) */
    if (q == (1ULL << 11)) {
        q >>= 1;
        fe++;
    }
    if (fe >= 31) return sign | 0x7c00;
    return sign | (uint16_t)(((uint32_t)fe << 10) | (uint32_t)(q & 0x3ff));
}

/* Reads element i of `dtype` as a lane: f64 for floats, i64 (sign-extended; i1 as 0/1) else. */
static void to_lanes(const void *src, int32_t dtype, int64_t n, void *lanes) {
    double *f = lanes;
    int64_t *v = lanes;
    for (int64_t i = 0; i < n; i++) {
        switch (dtype) {
        case XCS_F16: f[i] = f16_to_f64(((const uint16_t *)src)[i]); break;
        case XCS_BF16: {
            uint32_t bits = (uint32_t)((const uint16_t *)src)[i] << 16;
            float x;
            memcpy(&x, &bits, 4);
            f[i] = x;
            break;
        }
        case XCS_F32: f[i] = ((const float *)src)[i]; break;
        case XCS_F64: f[i] = ((const double *)src)[i]; break;
        case XCS_I1: v[i] = ((const uint8_t *)src)[i] != 0; break;
        case XCS_I8: v[i] = ((const int8_t *)src)[i]; break;
        case XCS_I16: v[i] = ((const int16_t *)src)[i]; break;
        case XCS_I32: v[i] = ((const int32_t *)src)[i]; break;
        default: v[i] = ((const int64_t *)src)[i]; break;
        }
    }
}

/* Writes lanes back as `dtype`, rounded once (floats) or wrapped (integers; i1 is `!= 0`). */
static void from_lanes(const void *lanes, int32_t dtype, int64_t n, void *dst) {
    const double *f = lanes;
    const int64_t *v = lanes;
    for (int64_t i = 0; i < n; i++) {
        switch (dtype) {
        case XCS_F16: ((uint16_t *)dst)[i] = f64_to_f16(f[i]); break;
        case XCS_BF16: ((uint16_t *)dst)[i] = xcs_rt_f64_to_bf16(f[i]); break;
        case XCS_F32: ((float *)dst)[i] = (float)f[i]; break;
        case XCS_F64: ((double *)dst)[i] = f[i]; break;
        case XCS_I1: ((uint8_t *)dst)[i] = v[i] != 0; break;
        case XCS_I8: ((int8_t *)dst)[i] = (int8_t)v[i]; break;
        case XCS_I16: ((int16_t *)dst)[i] = (int16_t)v[i]; break;
        case XCS_I32: ((int32_t *)dst)[i] = (int32_t)v[i]; break;
        default: ((int64_t *)dst)[i] = v[i]; break;
        }
    }
}

/* The reductions (codes of the generated calls; MLIR's shard::ReductionKind but `generic`). */
enum { RED_SUM, RED_MAX, RED_MIN, RED_PRODUCT, RED_AVERAGE, RED_AND, RED_OR, RED_XOR };

/* IEEE 754-2019 maximum / minimum: NaN propagates, -0.0 below +0.0. */
static double fmaximum(double a, double b) {
    if (a != a || b != b) return __builtin_nan("");
    if (a == b) return __builtin_signbit(a) ? b : a;
    return a > b ? a : b;
}
static double fminimum(double a, double b) {
    if (a != a || b != b) return __builtin_nan("");
    if (a == b) return __builtin_signbit(a) ? a : b;
    return a < b ? a : b;
}

/* Combines n blocks of `len` lanes (block j at lanes + j * len) into the first block, in
 * group order (a = f(a, b_j) for j = 1..n-1), then divides by n for an average. */
static void combine(void *lanes, int64_t n, int64_t len, int kind, int floats) {
    if (floats) {
        double *x = lanes;
        for (int64_t i = 0; i < len; i++) {
            double a = x[i];
            for (int64_t j = 1; j < n; j++) {
                double b = x[j * len + i];
                switch (kind) {
                case RED_MAX: a = fmaximum(a, b); break;
                case RED_MIN: a = fminimum(a, b); break;
                case RED_PRODUCT: a = a * b; break;
                default: a = a + b; break;
                }
            }
            x[i] = kind == RED_AVERAGE ? a / (double)n : a;
        }
        return;
    }
    uint64_t *x = lanes;
    for (int64_t i = 0; i < len; i++) {
        uint64_t a = x[i];
        for (int64_t j = 1; j < n; j++) {
            uint64_t b = x[j * len + i];
            switch (kind) {
            case RED_MAX: a = (int64_t)a > (int64_t)b ? a : b; break;
            case RED_MIN: a = (int64_t)a < (int64_t)b ? a : b; break;
            case RED_PRODUCT: a = a * b; break;
            case RED_AND: a &= b; break;
            case RED_OR: a |= b; break;
            case RED_XOR: a ^= b; break;
            default: a = a + b; break;
            }
        }
        x[i] = kind == RED_AVERAGE ? (uint64_t)((int64_t)a / n) : a;
    }
}

/* ------------------------------------------------------------------ layouts */

/* A contiguous tensor split at dim `axis`: outer (dims before), size (the dim), inner (after). */
typedef struct { int64_t outer, size, inner; } split3;

static split3 split_at(const int64_t *dims, int32_t rank, int64_t axis) {
    split3 s = {1, 1, 1};
    for (int32_t d = 0; d < rank; d++) {
        if (d < axis) s.outer *= dims[d];
        else if (d == axis) s.size = dims[d];
        else s.inner *= dims[d];
    }
    return s;
}

/* Block `j` of n equal blocks along the split dim of `src` (element size es) to dst. */
static void copy_block(const char *src, split3 s, int64_t n, int64_t j, int64_t es, char *dst) {
    int64_t len = s.size / n, run = len * s.inner * es;
    for (int64_t o = 0; o < s.outer; o++) memcpy(dst + o * run, src + (o * s.size + j * len) * s.inner * es, (size_t)run);
}

/* All n blocks: dst holds block j contiguously at j * (numel / n) elements. */
static void pack_blocks(const char *src, split3 s, int64_t n, int64_t es, char *dst) {
    int64_t block = s.outer * (s.size / n) * s.inner * es;
    for (int64_t j = 0; j < n; j++) copy_block(src, s, n, j, es, dst + j * block);
}

/* The inverse: n contiguous blocks (block j at src + j * block bytes, each outer x len x inner)
 * joined along the split dim into dst (outer x n*len x inner). */
static void join_blocks(const char *src, int64_t block, int64_t n, int64_t outer, int64_t len, int64_t inner,
                        int64_t es, char *dst) {
    int64_t run = len * inner * es;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < n; j++) memcpy(dst + (o * n + j) * run, src + j * block + o * run, (size_t)run);
}

static int64_t numel(const int64_t *dims, int32_t rank) {
    int64_t n = 1;
    for (int32_t d = 0; d < rank; d++) n *= dims[d];
    return n;
}

/* ------------------------------------------------------------------ the op and its device */

/* What generated code knows of a collective or device query (a constant of the module). */
typedef struct xcs_coll_site {
    int32_t site;              /* the op's run-time error site */
    int32_t grid_rank;
    int32_t naxes;             /* the op's grid axes (a query's: the axes it asks about) */
    int32_t pad;
    const char *prefix;        /* "'shard.all_gather' op " (with file:line:col: in libraries) */
    const char *grid_name;
    const int64_t *grid_shape; /* -1 for `?` */
    const int32_t *axes;
} xcs_coll_site;

static int32_t fail(const xcs_coll_site *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int32_t fail(const xcs_coll_site *s, const char *fmt, ...) {
    char msg[ERR_LEN], full[ERR_LEN + 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "%s%s", s->prefix, msg);
    return xcs_rt_fail(s->site, full);
}

/* "2x4" (with ? for dynamic sizes) of `n` sizes, or of the sizes of `axes` of `shape`. */
static void sizes_text(char *out, size_t cap, const int64_t *shape, const int32_t *axes, int32_t n) {
    size_t k = 0;
    out[0] = 0;
    for (int32_t i = 0; i < n && k < cap; i++) {
        int64_t v = shape[axes ? axes[i] : i];
        k += (size_t)snprintf(out + k, cap - k, "%s", i ? "x" : "");
        if (k < cap) k += (size_t)(v < 0 ? snprintf(out + k, cap - k, "?") : snprintf(out + k, cap - k, "%lld", (long long)v));
    }
}

/* The device a collective runs on: the thread's communicator (checked against the op's grid),
 * or, without one, a lone device at coordinates 0 when the op's group is that device alone. */
static int32_t device_of(const xcs_coll_site *s, xcs_comm **out, xcs_comm *alone) {
    xcs_comm *c = tl_comm;
    if (c) {
        int same = c->rank == s->grid_rank;
        for (int32_t a = 0; same && a < s->grid_rank; a++) same = s->grid_shape[a] < 0 || s->grid_shape[a] == c->shape[a];
        if (!same) {
            char dev[128], grid[128];
            sizes_text(dev, sizeof dev, c->shape, NULL, c->rank);
            sizes_text(grid, sizeof grid, s->grid_shape, NULL, s->grid_rank);
            return fail(s, "runs on a device grid of shape %s, but @%s has shape %s", dev, s->grid_name, grid);
        }
        *out = c;
        return 0;
    }
    int lone = 1;
    for (int32_t i = 0; i < s->naxes; i++) lone &= s->grid_shape[s->axes[i]] == 1;
    if (!lone) {
        char list[128] = "", sizes[128];
        size_t k = 0;
        for (int32_t i = 0; i < s->naxes && k < sizeof list; i++)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%d", i ? ", " : "", s->axes[i]);
        sizes_text(sizes, sizeof sizes, s->grid_shape, s->axes, s->naxes);
        return fail(s,
                    "needs a device grid: its group along grid axes [%s] of @%s has %s devices, and the program runs "
                    "on one (run it on every device of the grid, e.g. with run_spmd or xcs-run --devices)",
                    list, s->grid_name, sizes);
    }
    memset(alone, 0, sizeof *alone);
    alone->rank = s->grid_rank;
    for (int32_t a = 0; a < s->grid_rank; a++) alone->shape[a] = s->grid_shape[a] < 0 ? 1 : s->grid_shape[a];
    *out = alone;
    return 0;
}

/* "dim 1 of a tensor<4x6xf32> does not split into 4 equal blocks" (the interpreter's words). */
static int32_t check_blocks(const xcs_coll_site *s, const int64_t *dims, int32_t rank, int32_t dtype, int64_t axis,
                            int64_t n) {
    if (axis < 0 || axis >= rank) return fail(s, "axis %lld is out of range for a rank-%d tensor", (long long)axis, rank);
    if (dims[axis] % n == 0) return 0;
    char shape[256];
    size_t k = 0;
    shape[0] = 0;
    for (int32_t d = 0; d < rank && k < sizeof shape; d++) k += (size_t)snprintf(shape + k, sizeof shape - k, "%lldx", (long long)dims[d]);
    return fail(s, "dim %lld of a tensor<%s%s> does not split into %lld equal blocks", (long long)axis, shape,
                dtype_text(dtype), (long long)n);
}

static int32_t out_of_memory(const xcs_coll_site *s) { return fail(s, "out of memory"); }

/* A transport's error, located at the op. */
static int32_t transport_failed(const xcs_coll_site *s, const char *err) { return fail(s, "%s", err); }

/* ------------------------------------------------------------------ the collectives */

/* The arguments every collective gets: the op, its contiguous input (sizes `dims`, `rank`
 * dims, element type `dtype`) and its output buffer (allocated by the caller with the result's
 * sizes). */
#define COLL_ARGS const xcs_coll_site *s, const void *in, const int64_t *dims, int32_t rank, int32_t dtype

/* shard.all_gather: the group's tensors joined along dim `axis`. */
RT int32_t xcs_rt_all_gather(COLL_ARGS, int64_t axis, void *out) {
    xcs_comm alone, *c;
    if (device_of(s, &c, &alone)) return 1;
    int64_t n = xcs_comm_group_size(c, s->axes, s->naxes), es = esize(dtype), bytes = numel(dims, rank) * es;
    if (n == 1) {
        if (bytes) memcpy(out, in, (size_t)bytes);
        return 0;
    }
    split3 p = split_at(dims, rank, axis);
    char *recv = p.outer == 1 ? out : xcs_rt_alloc(n * bytes), err[ERR_LEN];
    if (!recv) return out_of_memory(s);
    int32_t st = c->transport->all_gather(c, s->axes, s->naxes, in, bytes, recv, err);
    if (st == 0 && recv != (char *)out) join_blocks(recv, bytes, n, p.outer, p.size, p.inner, es, out);
    if (recv != (char *)out) xcs_rt_free(recv);
    return st ? transport_failed(s, err) : 0;
}

/* shard.all_slice: this device's block along dim `axis`; no communication. */
RT int32_t xcs_rt_all_slice(COLL_ARGS, int64_t axis, void *out) {
    xcs_comm alone, *c;
    if (device_of(s, &c, &alone)) return 1;
    int64_t n = xcs_comm_group_size(c, s->axes, s->naxes);
    if (check_blocks(s, dims, rank, dtype, axis, n)) return 1;
    copy_block(in, split_at(dims, rank, axis), n, xcs_comm_index_in_group(c, s->axes, s->naxes), esize(dtype), out);
    return 0;
}

/* shard.all_to_all: block j along `split` to member j; what arrives joined along `concat`. */
RT int32_t xcs_rt_all_to_all(COLL_ARGS, int64_t split, int64_t concat, void *out) {
    xcs_comm alone, *c;
    if (device_of(s, &c, &alone)) return 1;
    int64_t n = xcs_comm_group_size(c, s->axes, s->naxes), es = esize(dtype), bytes = numel(dims, rank) * es;
    if (check_blocks(s, dims, rank, dtype, split, n)) return 1;
    if (concat < 0 || concat >= rank || rank > MAX_TENSOR_RANK)
        return fail(s, "axis %lld is out of range for a rank-%d tensor", (long long)concat, rank);
    if (n == 1) {
        if (bytes) memcpy(out, in, (size_t)bytes);
        return 0;
    }
    char *packed = xcs_rt_alloc(bytes), *recv = xcs_rt_alloc(bytes), err[ERR_LEN];
    int32_t st = 0;
    if (!packed || !recv) {
        st = out_of_memory(s);
    } else {
        pack_blocks(in, split_at(dims, rank, split), n, es, packed);
        if (c->transport->all_to_all(c, s->axes, s->naxes, packed, bytes / n, recv, err)) {
            st = transport_failed(s, err);
        } else {
            int64_t block[MAX_TENSOR_RANK];
            for (int32_t d = 0; d < rank; d++) block[d] = d == split ? dims[d] / n : dims[d];
            split3 q = split_at(block, rank, concat);
            join_blocks(recv, bytes / n, n, q.outer, q.size, q.inner, es, out);
        }
    }
    xcs_rt_free(packed);
    xcs_rt_free(recv);
    return st;
}

/* Checks a reduction's kind against the element type (the interpreter's message). */
static int32_t check_kind(const xcs_coll_site *s, int32_t dtype, int32_t kind) {
    static const char *names[] = {"Sum", "Max", "Min", "Product", "Average", "BitwiseAnd", "BitwiseOr", "BitwiseXor"};
    if (kind < RED_SUM || kind > RED_XOR) return fail(s, "has an unknown reduction");
    if (is_float(dtype) && kind >= RED_AND) return fail(s, "a %s reduction needs integer elements", names[kind]);
    return 0;
}

/* Reduces this device's `count` lanes with its group's and leaves the reduced lanes of block
 * `me` (n blocks of `len` lanes, zero-padded to n * len) in `mine`: each member sends block j
 * to member j, which combines what it gets in group order (a reduce-scatter, the bandwidth of
 * MPI_Reduce_scatter_block, exact and identical on every member). */
static int32_t reduce_blocks(const xcs_coll_site *s, xcs_comm *c, int64_t n, char *lanes, int64_t len, int kind,
                             int floats, char *mine) {
    char err[ERR_LEN];
    if (c->transport->all_to_all(c, s->axes, s->naxes, lanes, len * 8, mine, err)) return transport_failed(s, err);
    combine(mine, n, len, kind, floats);
    return 0;
}

/* shard.all_reduce: the group's tensors combined elementwise with `kind`; every member gets
 * the result (a reduce-scatter of blocks, then an all-gather of the reduced blocks). */
RT int32_t xcs_rt_all_reduce(COLL_ARGS, int32_t kind, void *out) {
    xcs_comm alone, *c;
    if (device_of(s, &c, &alone) || check_kind(s, dtype, kind)) return 1;
    int64_t n = xcs_comm_group_size(c, s->axes, s->naxes), count = numel(dims, rank);
    if (n == 1) {
        if (count) memcpy(out, in, (size_t)(count * esize(dtype)));
        return 0;
    }
    int64_t len = (count + n - 1) / n;
    char *lanes = xcs_rt_alloc(n * len * 8), *mine = xcs_rt_alloc(n * len * 8), err[ERR_LEN];
    int32_t st = 0;
    if (!lanes || !mine) {
        st = out_of_memory(s);
    } else {
        memset(lanes, 0, (size_t)(n * len * 8));
        to_lanes(in, dtype, count, lanes);
        st = reduce_blocks(s, c, n, lanes, len, kind, is_float(dtype), mine);
        if (st == 0 && c->transport->all_gather(c, s->axes, s->naxes, mine, len * 8, lanes, err)) st = transport_failed(s, err);
        if (st == 0) from_lanes(lanes, dtype, count, out);
    }
    xcs_rt_free(lanes);
    xcs_rt_free(mine);
    return st;
}

/* shard.reduce_scatter: the group's tensors combined, this member keeps its block along `axis`. */
RT int32_t xcs_rt_reduce_scatter(COLL_ARGS, int32_t kind, int64_t axis, void *out) {
    xcs_comm alone, *c;
    if (device_of(s, &c, &alone) || check_kind(s, dtype, kind)) return 1;
    int64_t n = xcs_comm_group_size(c, s->axes, s->naxes), count = numel(dims, rank);
    if (check_blocks(s, dims, rank, dtype, axis, n)) return 1;
    if (n == 1) {
        if (count) memcpy(out, in, (size_t)(count * esize(dtype)));
        return 0;
    }
    char *lanes = xcs_rt_alloc(count * 8), *packed = xcs_rt_alloc(count * 8);
    int32_t st = 0;
    if (!lanes || !packed) {
        st = out_of_memory(s);
    } else {
        to_lanes(in, dtype, count, lanes);
        pack_blocks(lanes, split_at(dims, rank, axis), n, 8, packed);
        st = reduce_blocks(s, c, n, packed, count / n, kind, is_float(dtype), lanes);
        if (st == 0) from_lanes(lanes, dtype, count / n, out);
    }
    xcs_rt_free(lanes);
    xcs_rt_free(packed);
    return st;
}

/* shard.broadcast: the tensor of the member at in-group coordinates `root` (one per axis). */
RT int32_t xcs_rt_broadcast(COLL_ARGS, const int64_t *root, void *out) {
    xcs_comm alone, *c;
    if (device_of(s, &c, &alone)) return 1;
    int64_t index = 0, bytes = numel(dims, rank) * esize(dtype);
    for (int32_t i = 0; i < s->naxes; i++) {
        int64_t size = c->shape[s->axes[i]];
        if (root[i] < 0) return fail(s, "has an invalid root coordinate");
        if (root[i] >= size)
            return fail(s, "root coordinate %lld is out of range for grid axis %d of size %lld", (long long)root[i],
                        s->axes[i], (long long)size);
        index = index * size + root[i];
    }
    if (bytes) memcpy(out, in, (size_t)bytes);
    if (xcs_comm_group_size(c, s->axes, s->naxes) == 1) return 0;
    char err[ERR_LEN];
    if (c->transport->broadcast(c, s->axes, s->naxes, out, bytes, index, err)) return transport_failed(s, err);
    return 0;
}

/* shard.process_multi_index / process_linear_index: the device's coordinates (all of them; a
 * lone device's are 0 when the queried axes have size 1). */
RT int32_t xcs_rt_process_coords(const xcs_coll_site *s, int64_t *coords) {
    xcs_comm alone, *c;
    if (device_of(s, &c, &alone)) return 1;
    for (int32_t a = 0; a < s->grid_rank; a++) coords[a] = c->coords[a];
    return 0;
}

/* ------------------------------------------------------------------ shared memory: devices as threads */

/* One collective in progress: every member publishes a pointer to its data, and reads what it
 * needs straight from the others' buffers once all have arrived; nobody leaves before every
 * member has finished reading (the buffers may be reused right after). Keyed by the group
 * (its axes and color) and how many collectives the group has done before. */
typedef struct shm_rv {
    struct shm_rv *next;
    uint64_t axes_key, seq;
    int64_t color, size, arrived, left, gone;
    int complete;
    const void **ptrs;
    int64_t *bytes;
} shm_rv;

/* A device's collective counts, per group (its axes). */
typedef struct {
    xcs_shm_grid *grid;
    int64_t nkeys, cap;
    uint64_t *keys, *counts;
} shm_dev;

struct xcs_shm_grid {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t ndev, waiting, finished;
    shm_rv *rvs;
    int poisoned;
    char why[ERR_LEN];
    xcs_comm *comms;
    shm_dev *devs;
};

static void shm_poison(xcs_shm_grid *g, const char *why) {
    if (!g->poisoned) {
        g->poisoned = 1;
        snprintf(g->why, sizeof g->why, "%s", why);
    }
    pthread_cond_broadcast(&g->cv);
}

/* Every device still running waits in a collective that cannot complete. */
static void shm_check_deadlock(xcs_shm_grid *g) {
    if (g->waiting > 0 && g->waiting + g->finished == g->ndev && !g->poisoned) {
        char why[ERR_LEN];
        snprintf(why, sizeof why,
                 "deadlock: %lld device(s) wait in collectives that can never complete (a member of their group "
                 "finished, or the devices do not run the same collectives in the same order)",
                 (long long)g->waiting);
        shm_poison(g, why);
    }
}

static uint64_t shm_next_seq(shm_dev *d, uint64_t key) {
    for (int64_t i = 0; i < d->nkeys; i++)
        if (d->keys[i] == key) return d->counts[i]++;
    if (d->nkeys == d->cap) {
        int64_t cap = d->cap ? 2 * d->cap : 8;
        uint64_t *k = realloc(d->keys, (size_t)cap * 8), *c = k ? realloc(d->counts, (size_t)cap * 8) : NULL;
        if (k) d->keys = k;
        if (!c) return UINT64_MAX;
        d->counts = c;
        d->cap = cap;
    }
    d->keys[d->nkeys] = key;
    d->counts[d->nkeys] = 1;
    d->nkeys++;
    return 0;
}

static shm_rv *shm_find(xcs_shm_grid *g, uint64_t key, int64_t color, uint64_t seq, int64_t size) {
    for (shm_rv *r = g->rvs; r; r = r->next)
        if (r->axes_key == key && r->color == color && r->seq == seq) return r;
    shm_rv *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->ptrs = calloc((size_t)size, sizeof *r->ptrs);
    r->bytes = calloc((size_t)size, sizeof *r->bytes);
    if (!r->ptrs || !r->bytes) {
        free(r->ptrs);
        free(r->bytes);
        free(r);
        return NULL;
    }
    for (int64_t i = 0; i < size; i++) r->bytes[i] = -1;
    r->axes_key = key;
    r->color = color;
    r->seq = seq;
    r->size = size;
    r->next = g->rvs;
    g->rvs = r;
    return r;
}

static void shm_unlink(xcs_shm_grid *g, shm_rv *r) {
    for (shm_rv **p = &g->rvs; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    free(r->ptrs);
    free(r->bytes);
    free(r);
}

/* Publishes `mine` (`bytes` bytes) in this device's collective along `axes` and waits for the
 * group; on success *out is the completed rendezvous (every member's pointer), to be left with
 * shm_leave after reading. Fails if the grid stops (a device failed, or a deadlock). */
static int32_t shm_arrive(xcs_comm *c, const int32_t *axes, int32_t naxes, const void *mine, int64_t bytes,
                          shm_rv **out, char *err) {
    shm_dev *d = c->impl;
    xcs_shm_grid *g = d->grid;
    int64_t n = xcs_comm_group_size(c, axes, naxes), me = xcs_comm_index_in_group(c, axes, naxes);
    uint64_t key = xcs_comm_axes_key(axes, naxes);
    pthread_mutex_lock(&g->mu);
    uint64_t seq = shm_next_seq(d, key);
    shm_rv *r = seq == UINT64_MAX ? NULL : shm_find(g, key, xcs_comm_group_color(c, axes, naxes), seq, n);
    if (!r) shm_poison(g, "out of memory in a collective");
    else if (r->size != n || r->bytes[me] >= 0) shm_poison(g, "devices disagree on a collective's group");
    if (g->poisoned) {
        snprintf(err, ERR_LEN, "stopped because another device failed: %.440s", g->why);
        pthread_mutex_unlock(&g->mu);
        return 1;
    }
    r->ptrs[me] = mine;
    r->bytes[me] = bytes;
    if (++r->arrived == n) {
        r->complete = 1;
        g->waiting -= n - 1;
        pthread_cond_broadcast(&g->cv);
    } else {
        g->waiting++;
        shm_check_deadlock(g);
        while (!r->complete) {
            if (g->poisoned) {
                g->waiting--;
                snprintf(err, ERR_LEN, "stopped because another device failed: %.440s", g->why);
                pthread_mutex_unlock(&g->mu);
                return 1;
            }
            pthread_cond_wait(&g->cv, &g->mu);
        }
    }
    pthread_mutex_unlock(&g->mu);
    for (int64_t j = 0; j < n; j++)
        if (r->bytes[j] != bytes) {
            snprintf(err, ERR_LEN, "the devices of a group hold data of different sizes (%lld and %lld bytes)",
                     (long long)bytes, (long long)r->bytes[j]);
            *out = r;
            return 2;
        }
    *out = r;
    return 0;
}

/* Waits until every member has read the others' data, then forgets the rendezvous. */
static void shm_leave(xcs_comm *c, shm_rv *r) {
    xcs_shm_grid *g = ((shm_dev *)c->impl)->grid;
    pthread_mutex_lock(&g->mu);
    if (++r->left == r->size) pthread_cond_broadcast(&g->cv);
    while (r->left < r->size) pthread_cond_wait(&g->cv, &g->mu);
    if (++r->gone == r->size) shm_unlink(g, r);
    pthread_mutex_unlock(&g->mu);
}

/* Arrives, runs `body` on success, leaves (after a size mismatch too: every member saw it). */
#define SHM_COLLECTIVE(mine, bytes, body)                                                                              \
    shm_rv *r = NULL;                                                                                                  \
    int32_t st = shm_arrive(c, axes, naxes, mine, bytes, &r, err);                                                     \
    if (st == 1) return 1;                                                                                             \
    if (st == 0) {                                                                                                     \
        int64_t n = r->size, me = xcs_comm_index_in_group(c, axes, naxes);                                             \
        (void)n, (void)me;                                                                                             \
        body;                                                                                                          \
    }                                                                                                                  \
    shm_leave(c, r);                                                                                                   \
    return st;

static int32_t shm_all_gather(xcs_comm *c, const int32_t *axes, int32_t naxes, const void *send, int64_t bytes, void *recv,
                              char *err) {
    SHM_COLLECTIVE(send, bytes, {
        for (int64_t j = 0; j < n; j++)
            if (bytes) memcpy((char *)recv + j * bytes, r->ptrs[j], (size_t)bytes);
    })
}

static int32_t shm_all_to_all(xcs_comm *c, const int32_t *axes, int32_t naxes, const void *send, int64_t bytes, void *recv,
                              char *err) {
    SHM_COLLECTIVE(send, bytes, {
        for (int64_t j = 0; j < n; j++)
            if (bytes) memcpy((char *)recv + j * bytes, (const char *)r->ptrs[j] + me * bytes, (size_t)bytes);
    })
}

static int32_t shm_broadcast(xcs_comm *c, const int32_t *axes, int32_t naxes, void *buf, int64_t bytes, int64_t root,
                             char *err) {
    SHM_COLLECTIVE(buf, bytes, {
        if (me != root && bytes) memcpy(buf, r->ptrs[root], (size_t)bytes);
    })
}

static const xcs_transport shm_transport = {shm_all_gather, shm_all_to_all, shm_broadcast, NULL};

API xcs_shm_grid *xcs_shm_grid_new(int32_t rank, const int64_t *shape) {
    if (rank < 0 || rank > XCS_MAX_GRID_RANK) return NULL;
    int64_t ndev = 1;
    for (int32_t a = 0; a < rank; a++) {
        if (shape[a] < 1) return NULL;
        ndev *= shape[a];
    }
    xcs_shm_grid *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->comms = calloc((size_t)ndev, sizeof *g->comms);
    g->devs = calloc((size_t)ndev, sizeof *g->devs);
    if (!g->comms || !g->devs) {
        free(g->comms);
        free(g->devs);
        free(g);
        return NULL;
    }
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->ndev = ndev;
    for (int64_t d = 0; d < ndev; d++) {
        xcs_comm *c = &g->comms[d];
        c->transport = &shm_transport;
        c->impl = &g->devs[d];
        c->rank = rank;
        g->devs[d].grid = g;
        int64_t rest = d;
        for (int32_t a = rank - 1; a >= 0; a--) {
            c->shape[a] = shape[a];
            c->coords[a] = rest % shape[a];
            rest /= shape[a];
        }
    }
    return g;
}

API xcs_comm *xcs_shm_grid_device(xcs_shm_grid *g, int64_t linear) {
    return (g && linear >= 0 && linear < g->ndev) ? &g->comms[linear] : NULL;
}

API void xcs_shm_grid_done(xcs_shm_grid *g, int64_t linear, int32_t status, const char *why) {
    pthread_mutex_lock(&g->mu);
    if (status != 0) {
        char coords[128] = "", msg[ERR_LEN];
        size_t k = 0;
        const xcs_comm *c = xcs_shm_grid_device(g, linear);
        for (int32_t a = 0; c && a < c->rank && k < sizeof coords; a++)
            k += (size_t)snprintf(coords + k, sizeof coords - k, "%s%lld", a ? ", " : "", (long long)c->coords[a]);
        snprintf(msg, sizeof msg, "device (%s) failed: %s", coords, why ? why : "");
        shm_poison(g, msg);
    }
    g->finished++;
    shm_check_deadlock(g);
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

API void xcs_shm_grid_free(xcs_shm_grid *g) {
    if (!g) return;
    while (g->rvs) shm_unlink(g, g->rvs);
    for (int64_t d = 0; d < g->ndev; d++) {
        free(g->devs[d].keys);
        free(g->devs[d].counts);
    }
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g->comms);
    free(g->devs);
    free(g);
}
