/* XCS runtime: the precompiled f32 matmul that compiled code calls for an f32 `tensor.matmul`
 * (and for a `tensor.fused` matmul whose elementwise epilogue the JIT emits as a small callback).
 * Shape-generic: any M, N, K, element strides of A and B, broadcast batch dims, C contiguous.
 * Blocked over N (NC), K (KC) and M (MCT row tiles), A and B packed, a register-tiled
 * microkernel per instruction set (xcs_matmul_isa.h: AVX-512, AVX2+FMA, SSE2) chosen once from
 * the CPU's features; split between threads of the runtime's pool (xcs_rt_parallel_for); the
 * epilogue runs on each output tile right after its last K block, while it is in L1. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RT __attribute__((visibility("hidden")))

typedef int32_t (*xcs_body)(void *ctx, int64_t lo, int64_t hi);
int32_t xcs_rt_parallel_for(xcs_body fn, void *ctx, int64_t n, int64_t min_chunk);
int32_t xcs_rt_fail(int32_t site, const char *msg);
int32_t xcs_get_num_threads(void);
void *xcs_rt_place_from(size_t n, size_t huge_from);

/* The epilogue of a fused matmul: called once per finished output tile (batch index, first row
 * and column, valid rows and columns; C's row pitch is N); non-zero stops the matmul (the
 * callback has recorded the error). */
typedef int32_t (*xcs_mm_epilogue)(void *ctx, int64_t batch, int64_t row0, int64_t col0, int64_t rows,
                                   int64_t cols);

typedef void (*mm_kernel_fn)(int64_t kc, const float *ap, const float *bp, float *c, int64_t ldc, int first);

/* One instruction set's microkernels (MR rows, and 8 rows) and packing routines. */
typedef struct mm_isa {
    const char *name;
    int64_t mr, nr;
    mm_kernel_fn kernel_mr, kernel_8;
    void (*pack_a)(const float *a, int64_t sam, int64_t sak, int64_t m, int64_t row0, int64_t pc, int64_t kc,
                   int64_t mr, float *dst);
    void (*pack_b)(const float *b, int64_t sbk, int64_t sbn, int64_t n, int64_t pc, int64_t kc, int64_t jc,
                   int64_t nc, float *dst, int streaming);
} mm_isa;

/* Blocking: at most KC rows of B per packed panel (KC_SMALL_M when M <= MC_ROWS), at most NC
 * columns per column block (NC_SMALL_M when M <= MC_ROWS), MC_ROWS rows of A per packed block; a
 * thread's column block has at least MIN_NCB_TILES column tiles. Deep K blocks load and store
 * each C tile once per KC multiply-adds (1024^3 at 1 thread: 19.5-19.8 ms with KC 1024, 20.4 with
 * 512, 21.2-21.6 with 256; 2048x1024x1024 39.4 ms instead of 42.7). */
#ifndef KC
#define KC 1024
#endif
#ifndef NC
#define NC 1024
#endif
/* MC_ROWS: 72, 96, 120 and 144 rows give the same 1024^3 at 2 threads (9.75-9.93 ms, medians
 * of 12 calls, alternating processes). */
#ifndef MC_ROWS
#define MC_ROWS 96
#endif
/* When M fits one block of rows: each packed B panel then serves few row tiles, reading B from
 * memory dominates, and the panel being used and the next one being prefetched fit L2 together
 * (64x1024x4096: 6.2 ms instead of 6.85 at 1 thread with 256 columns, and 6.3 instead of 7.3
 * with 256 rows of K rather than 1024; with larger M the wider blocks are faster: 1024^3 21.5 ms
 * instead of 22.9). Once A is packed whole (`whole_a`), 512 rows of 128 columns are 1.5-2% faster
 * than 256 of 256 on 64x1024x4096 and 96x1024x4096 at 1 and 2 threads (same-process A/B, medians
 * of 31 calls; 1024 x 64 or 128, 512 x 64 or 256, 128 x 256 or 512 and 64 x 1024 no faster). */
#define KC_SMALL_M 512
#define NC_SMALL_M 128
/* Rows of B packed per visit of a column tile when the panel's rows are not adjacent in memory
 * (xcs_matmul_isa.h, mm_pack_b). */
#define MM_PACK_ROWS 8
/* A thread's first B panel of a call is packed with streaming (non-temporal) stores when it is
 * larger than this (L2): its buffer was last touched a call ago and is no longer cached, so
 * ordinary stores first read every line of it from memory. A cold 4 MiB panel packs in 0.43-0.57
 * ms, in 0.20-0.23 with streaming stores, which write without reading (the microkernel then reads
 * the panel back while it multiplies); inside 256x4096x1024 at 1 thread the first of its four
 * panels took 0.32-0.36 ms and the others 0.19-0.24, streamed the first takes 0.19-0.22.
 * Same-process A/B, both orders, twice: 1024^3, 256x4096x1024 and 256x1024x4096 0.5-1.2% faster
 * at 1 thread (medians of 61 calls, 12 of 12), 0.6-2.5% at 2 (41 calls, 10 of 12; two 0.2-0.4%
 * slower); smaller shapes unchanged (their panels are under the limit). Later panels go to a
 * buffer still in cache: streaming them too was no faster (256x4096x1024, 256x1024x4096: up to 3%
 * slower at 2 threads, within 2.5% either way at 1). */
#define MM_STREAM_PANEL ((size_t)1 << 20)
#define MIN_NCB_TILES 4
#define MAX_TILE (16 * 64)
/* The row pitch of a packed A tile: KC plus one cache line, so that the tile's rows (4 KB apart
 * otherwise) do not all fall into one set of the 8-way L1 (384x1024x1024 with 12-row tiles: 8.4 ms
 * at a 1024 pitch, 7.8 at 1040). */
#define MM_KC (KC + 16)

/* Streaming (non-temporal) stores of one vector, per instruction set (plain stores where there are
 * none), and the fence that orders them before later loads and stores. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MM_STREAM_FENCE() _mm_sfence()
#else
#define MM_STREAM_FENCE() ((void)0)
#endif

#if defined(__x86_64__) || defined(__i386__)
#define MM_ISA avx512
#define MM_ISA_NAME "avx512"
#define MM_TARGET __attribute__((target("avx512f,avx512vl,avx2,fma")))
#define MM_VL 16
#define MM_NV 2
#define MM_MR 12
#define MM_STREAM_STORE(p, v) _mm512_stream_ps((p), (__m512)(v))
#include "xcs_matmul_isa.h"

#define MM_ISA avx2
#define MM_ISA_NAME "avx2"
#define MM_TARGET __attribute__((target("avx2,fma")))
#define MM_VL 8
#define MM_NV 2
#define MM_MR 6
#define MM_STREAM_STORE(p, v) _mm256_stream_ps((p), (__m256)(v))
#include "xcs_matmul_isa.h"
#endif

#define MM_ISA generic
#define MM_ISA_NAME "generic"
#define MM_TARGET
#define MM_VL 4
#define MM_NV 2
#define MM_MR 4
#if defined(__x86_64__) || defined(__i386__)
#define MM_STREAM_STORE(p, v) _mm_stream_ps((p), (__m128)(v))
#else
#define MM_STREAM_STORE(p, v) (*(vf *)(p) = (v))
#endif
#include "xcs_matmul_isa.h"


/* The instruction set: the best the CPU runs, or XCS_MATMUL_ISA (avx512, avx2, generic) if the
 * CPU runs it (to test every variant on one machine). */
static const mm_isa *mm_isa_select(void) {
    static const mm_isa *chosen;
    const mm_isa *s = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
    if (s) return s;
    s = &mm_isa_generic;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    int avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    const char *want = getenv("XCS_MATMUL_ISA");
    if (want && strcmp(want, "generic") == 0) avx512 = avx2 = 0;
    if (want && strcmp(want, "avx2") == 0) avx512 = 0;
    if (avx512) s = &mm_isa_avx512;
    else if (avx2) s = &mm_isa_avx2;
#endif
    __atomic_store_n(&chosen, s, __ATOMIC_RELEASE);
    return s;
}

/* The instruction set the matmul runs ("avx512", "avx2" or "generic"). */
__attribute__((visibility("default"))) const char *xcs_matmul_isa(void) { return mm_isa_select()->name; }

/* The calling thread's packing scratch, kept between calls (freed when the thread exits). One
 * of SCRATCH_HUGE bytes or more is rounded up to whole 2 MiB pages and placed on transparent
 * huge pages (xcs_rt_place_from, as the runtime's buffers from 4 MiB on and numpy's arrays): a
 * packed 1024x1024 B panel spans 1024 4 KB pages, and the microkernel reading it and the packed
 * A block missed in the TLB (same-process A/B, medians of 31 calls, 1 thread: 256x4096x1024, 256x1024x4096 and
 * 1024^3 1.4-3% faster, 2 threads 1.3-2.2%; 64x1024x4096 and 256^3, whose scratch is smaller,
 * unchanged). */
#define SCRATCH_HUGE ((size_t)1 << 20)
#define HUGE_PAGE ((size_t)2 << 20)
static __thread float *tl_scratch;
static __thread size_t tl_scratch_floats;
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_key_init(void) { pthread_key_create(&scratch_key, free); }

static float *scratch(size_t floats) {
    if (floats <= tl_scratch_floats) return tl_scratch;
    pthread_once(&scratch_once, scratch_key_init);
    free(tl_scratch);
    size_t bytes = floats * sizeof(float), unit = bytes >= SCRATCH_HUGE ? HUGE_PAGE : 64;
    tl_scratch = xcs_rt_place_from((bytes + unit - 1) & ~(unit - 1), SCRATCH_HUGE);
    tl_scratch_floats = tl_scratch ? floats : 0;
    pthread_setspecific(scratch_key, tl_scratch);
    return tl_scratch;
}

/* A matmul and how it is split: operands, sizes and strides, batch dims (`bdims`: nbd sizes,
 * then A's and B's strides per dim), the epilogue, the microkernel, and the blocking;
 * `whole_a` when a thread's row tiles of A fit one packed block with all of K (M <= MC_ROWS,
 * K <= KC): A is then packed once for all the column blocks and K blocks that use it. */
typedef struct mm_problem {
    const float *a, *b;
    float *c;
    int64_t m, n, k, sam, sak, sbk, sbn;
    int64_t nbd;
    const int64_t *bdims;
    xcs_mm_epilogue epi;
    void *epi_ctx;
    const mm_isa *isa;
    mm_kernel_fn kernel;
    int64_t mr, nr, mct, mt, ncb, njc, kc;
    int whole_a;
    int32_t site;
    const char *oom;
} mm_problem;

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Prefetches (into L2) of the B panel a thread packs next, `per` cache lines before each
 * microkernel call of the current panel, so that reading B from memory overlaps the FMAs
 * instead of stalling the packing: `rows` rows of `lpr` lines, `ld` floats apart; the next is
 * line l of row r (at `row`). Only for panels of at most PREFETCH_PANEL_MAX bytes: a panel
 * that small stays in L2 beside the one in use until it is packed, or, when B's rows are a
 * multiple of 16 KB apart (N = 4096: a 512x128 panel puts 64 lines into each L2 set it uses),
 * moves on to L3 when evicted, still nearer than memory (64x1024x4096, 256x256
 * panels, at 1 thread: 6.1-6.25 ms with the prefetches, 6.6 without); a larger one is evicted
 * before its packing reads it and only takes L2 from the panel in use (256x4096x1024 and
 * 256x1024x4096, 1024x1024 panels at 1 thread: 1.2-1.9% faster without, same-process A/B;
 * prefetcht0 instead of prefetcht1: 2-8% slower on both). */
#define PREFETCH_PANEL_MAX ((size_t)512 << 10)
typedef struct mm_prefetch {
    const float *row;
    int64_t ld, lpr, rows, per, r, l;
} mm_prefetch;

static inline void mm_prefetch_some(mm_prefetch *pf) {
    /* in locals: through `pf` every step would store and reload the position */
    int64_t l = pf->l, r = pf->r, lpr = pf->lpr, rows = pf->rows, ld = pf->ld;
    const float *row = pf->row;
    for (int64_t i = 0; i < pf->per && r < rows; i++) {
        __builtin_prefetch(row + l * 16, 0, 2);
        if (++l == lpr) {
            l = 0;
            r++;
            row += ld;
        }
    }
    pf->l = l;
    pf->r = r;
    pf->row = row;
}

/* Where a K block is, and the prefetches of the next B panel during it. */
typedef struct mm_kblock {
    int64_t pc, kc;
    int first, last;
    mm_prefetch pf;
} mm_kblock;

/* A (batch, column block) pair: its batch index, A and B at that batch, C's matrix, and its
 * columns jc..jc+nc. */
typedef struct mm_cblock {
    int64_t bi, jc, nc;
    const float *a, *b;
    float *c;
} mm_cblock;

static mm_cblock mm_cblock_at(const mm_problem *p, int64_t bj) {
    mm_cblock cb = {.bi = bj / p->njc, .jc = (bj % p->njc) * p->ncb};
    cb.nc = min64(p->ncb, p->n - cb.jc);
    int64_t ao = 0, bo = 0, rest = cb.bi;
    for (int64_t d = p->nbd - 1; d >= 0; d--) {
        int64_t size = p->bdims[d], idx = rest % size;
        rest /= size;
        ao += idx * p->bdims[p->nbd + d];
        bo += idx * p->bdims[2 * p->nbd + d];
    }
    cb.a = p->a + ao;
    cb.b = p->b + bo;
    cb.c = p->c + cb.bi * p->m * p->n;
    return cb;
}

/* The prefetches of the panel of rows pc.. of `cb`'s columns of B (none if B's rows are not
 * contiguous or there is no such panel), spread over `calls` microkernel calls. */
static mm_prefetch mm_prefetch_plan(const mm_problem *p, const mm_cblock *cb, int64_t pc, int64_t calls) {
    mm_prefetch pf = {0};
    if (!cb || p->sbn != 1 || pc >= p->k) return pf;
    pf.rows = min64(p->kc, p->k - pc);
    if ((size_t)(pf.rows * cb->nc) * sizeof(float) > PREFETCH_PANEL_MAX) return (mm_prefetch){0};
    pf.row = cb->b + pc * p->sbk + cb->jc;
    pf.ld = p->sbk;
    pf.lpr = ceil_div(cb->nc, 16);
    pf.per = ceil_div(pf.rows * pf.lpr, max64(calls, 1));
    return pf;
}

/* Output tile (row tile ti, column col0..) of `cb` for K block kb: the microkernel on C
 * directly, or (an edge tile) on a zero-padded copy of its valid part; then, after the last K
 * block, the epilogue. */
static int32_t mm_tile(const mm_problem *p, mm_kblock *kb, const mm_cblock *cb, int64_t ti, int64_t col0,
                       const float *at, const float *bt) {
    int64_t mr = p->mr, nr = p->nr, n = p->n;
    int64_t row0 = ti * mr, rows = min64(mr, p->m - row0), cols = min64(nr, n - col0);
    float *cp = cb->c + row0 * n + col0;
    mm_prefetch_some(&kb->pf);
    if (rows == mr && cols == nr) {
        p->kernel(kb->kc, at, bt, cp, n, kb->first);
    } else {
        float tmp[MAX_TILE] __attribute__((aligned(64)));
        if (!kb->first)
            for (int64_t r = 0; r < rows; r++) memcpy(tmp + r * nr, cp + r * n, (size_t)cols * sizeof(float));
        p->kernel(kb->kc, at, bt, tmp, nr, kb->first);
        for (int64_t r = 0; r < rows; r++) memcpy(cp + r * n, tmp + r * nr, (size_t)cols * sizeof(float));
    }
    if (kb->last && p->epi) return p->epi(p->epi_ctx, cb->bi, row0, col0, rows, cols);
    return 0;
}

/* Which row tiles of which batch a thread's packed A holds (with `whole_a`). */
typedef struct mm_packed_a {
    int64_t batch, t0, t1;
} mm_packed_a;

/* A thread's packing buffers in one call: A's row tiles (and which it holds) and a B panel,
 * and whether the B buffer is cold (nothing packed into it yet in this call). */
typedef struct mm_buffers {
    float *pa, *pb;
    mm_packed_a held;
    int pb_cold;
} mm_buffers;

/* With `whole_a`: row tiles t0..t1 of `cb`'s A, all of K, packed into `pa` unless it holds them. */
static void mm_pack_whole_a(const mm_problem *p, float *pa, mm_packed_a *held, const mm_cblock *cb, int64_t t0,
                            int64_t t1) {
    if (held->batch == cb->bi && held->t0 == t0 && held->t1 == t1) return;
    for (int64_t ti = t0; ti < t1; ti++)
        p->isa->pack_a(cb->a, p->sam, p->sak, p->m, ti * p->mr, 0, p->k, p->mr, pa + (ti - t0) * p->mr * MM_KC);
    *held = (mm_packed_a){cb->bi, t0, t1};
}

/* Packs K block kb of `cb`'s columns of B into the thread's B buffer (streamed if it is cold
 * and larger than MM_STREAM_PANEL). */
static void mm_pack_panel(const mm_problem *p, mm_buffers *buf, const mm_cblock *cb, const mm_kblock *kb) {
    int streaming = buf->pb_cold && (size_t)(kb->kc * cb->nc) * sizeof(float) > MM_STREAM_PANEL;
    p->isa->pack_b(cb->b, p->sbk, p->sbn, p->n, kb->pc, kb->kc, cb->jc, cb->nc, buf->pb, streaming);
    buf->pb_cold = 0;
}

/* Row tiles t0..t1 of column block `cb` (`next`: the thread's next one, or NULL): per K block,
 * B packed (with the first row block), then per block of MCT row tiles, A packed (unless it is
 * packed whole), then each B column tile against every row tile of the block; meanwhile the
 * next B panel is prefetched. */
static int32_t mm_column_block(const mm_problem *p, mm_buffers *buf, const mm_cblock *cb, const mm_cblock *next,
                               int64_t t0, int64_t t1) {
    int64_t mr = p->mr, nr = p->nr, ntn = ceil_div(cb->nc, nr);
    int64_t npc = max64(1, ceil_div(p->k, p->kc));
    float *pa = buf->pa, *pb = buf->pb;
    if (p->whole_a) mm_pack_whole_a(p, pa, &buf->held, cb, t0, t1);
    for (int64_t pcb = 0; pcb < npc; pcb++) {
        mm_kblock kb = {.pc = pcb * p->kc, .first = pcb == 0, .last = pcb == npc - 1};
        kb.kc = max64(0, min64(p->kc, p->k - kb.pc));
        int64_t calls = ntn * (t1 - t0);
        kb.pf = kb.last ? mm_prefetch_plan(p, next, 0, calls) : mm_prefetch_plan(p, cb, kb.pc + p->kc, calls);
        for (int64_t it0 = t0; it0 < t1; it0 += p->mct) {
            int64_t it1 = min64(it0 + p->mct, t1);
            /* a whole-A tile's K block starts kb.pc columns into its rows */
            int64_t a_col = p->whole_a ? kb.pc : 0;
            for (int64_t ti = it0; ti < it1 && !p->whole_a; ti++)
                p->isa->pack_a(cb->a, p->sam, p->sak, p->m, ti * mr, kb.pc, kb.kc, mr, pa + (ti - it0) * mr * MM_KC);
            if (it0 == t0) mm_pack_panel(p, buf, cb, &kb);
            for (int64_t jt = 0; jt < ntn; jt++) {
                float *bt = pb + jt * kb.kc * nr;
                for (int64_t ti = it0; ti < it1; ti++) {
                    const float *at = pa + (ti - it0) * mr * MM_KC + a_col;
                    int32_t st = mm_tile(p, &kb, cb, ti, cb->jc + jt * nr, at, bt);
                    if (st) return st;
                }
            }
        }
    }
    return 0;
}

/* Units lo..hi of the matmul (unit = batch, column block, row tile; row tiles fastest). */
static int32_t mm_units(void *ctx, int64_t lo, int64_t hi) {
    const mm_problem *p = ctx;
    int64_t kca = min64(max64(p->k, 1), p->kc);
    size_t pa_floats = (size_t)(p->mct * p->mr * MM_KC), pb_floats = (size_t)(kca * ceil_div(p->ncb, p->nr) * p->nr);
    float *pa = scratch(pa_floats + pb_floats + 16);
    if (!pa) return xcs_rt_fail(p->site, p->oom);
    mm_buffers buf = {pa, pa + ((pa_floats + 15) & ~(size_t)15), {-1, -1, -1}, 1};
    int64_t bj_end = ceil_div(hi, p->mt);
    for (int64_t bj = lo / p->mt; bj < bj_end; bj++) {
        int64_t t0 = max64(lo - bj * p->mt, 0), t1 = min64(hi - bj * p->mt, p->mt);
        mm_cblock cb = mm_cblock_at(p, bj), next = bj + 1 < bj_end ? mm_cblock_at(p, bj + 1) : cb;
        int32_t st = mm_column_block(p, &buf, &cb, bj + 1 < bj_end ? &next : NULL, t0, t1);
        if (st) return st;
    }
    return 0;
}

/* C[batch] = A[batch] @ B[batch] (f32; C contiguous, of the batch dims' sizes then M x N), then
 * `epi` on each finished tile. Threads: none when min_fmas <= 0, else the pool's, each with at
 * least min_fmas multiply-adds; when it runs on several threads N is split into a column block
 * per thread (a thread packs only its share of B). Returns 0, or 1 after recording an error
 * (out of memory: `oom` at `site`; or the epilogue's).
 * Each thread packs all of A for its column block: 1024^3 at 2 threads spends per thread
 * 0.20-0.24 ms packing A, 0.27-0.30 packing B and 9.3-9.4 in the microkernel (9.24 at the
 * 116 GFLOP/s per core peak_fma measures), 9.8-10.1 ms in all against 19.1-19.3 at 1 thread.
 * Packing is bound by reading memory (a cold 2 MB panel: 0.3 ms, the same from L3: 0.09), and
 * the two threads read A's rows at about the same time. Tried and measured no faster (same-
 * process A/B, medians of 12 calls, several rounds): A packed once into a buffer both threads
 * share (each packs half the row blocks; the 4.3 MB buffer does not stay in L2: 0.99-1.02x);
 * prefetching A's next row block during the current one (0.99-1.01x); packing the first B panel
 * a column tile at a time with the next tile prefetched (0.93-0.97x on 256x4096x1024 at 1
 * thread: 128-byte pieces of 1024 rows); packing a cold B panel in chunks of 64 or 128 rows of
 * K, each multiplied at once while the next is prefetched (2 threads 0-1% faster, 1 thread
 * 1.5-2.5% slower). */
RT int32_t xcs_rt_matmul_f32(const float *a, const float *b, float *c, int64_t m, int64_t n, int64_t k,
                             int64_t sam, int64_t sak, int64_t sbk, int64_t sbn, int64_t nbd, const int64_t *bdims,
                             xcs_mm_epilogue epi, void *epi_ctx, int64_t min_fmas, int32_t site, const char *oom) {
    int64_t nb = 1;
    for (int64_t d = 0; d < nbd; d++) nb *= bdims[d];
    if (nb <= 0 || m <= 0 || n <= 0) return 0;
    mm_problem p = {a, b, c, m, n, k, sam, sak, sbk, sbn, nbd, bdims, epi, epi_ctx, .site = site, .oom = oom};
    p.isa = mm_isa_select();
    p.mr = p.isa->mr;
    p.nr = p.isa->nr;
    p.kernel = p.isa->kernel_mr;
    /* 12-row tiles of M = 256 compute 8 padding rows in the last one; 8-row tiles waste none. */
    if (p.mr == 12 && m % 12 != 0 && m % 8 == 0) {
        p.mr = 8;
        p.kernel = p.isa->kernel_8;
    }
    p.mct = MC_ROWS / p.mr;
    p.mt = ceil_div(m, p.mr);
    int64_t work = nb * p.mt * p.mr * n * k;
    int threads = min_fmas > 0 ? xcs_get_num_threads() : 1;
    int64_t nc = m <= MC_ROWS ? NC_SMALL_M : NC;
    p.kc = m <= MC_ROWS ? KC_SMALL_M : KC;
    p.ncb = nc;
    if (threads > 1 && work >= 2 * min_fmas) {
        int64_t per = max64(MIN_NCB_TILES, ceil_div(ceil_div(n, p.nr), threads));
        p.ncb = min64(per * p.nr, nc);
    }
    p.njc = ceil_div(n, p.ncb);
    p.whole_a = p.mt <= p.mct && k <= KC;
    int64_t units = nb * p.njc * p.mt;
    if (threads <= 1) return mm_units(&p, 0, units);
    int64_t tile_work = max64(1, k * min64(n, p.ncb) * p.mr);
    return xcs_rt_parallel_for(mm_units, &p, units, max64(1, min_fmas / tile_work));
}
