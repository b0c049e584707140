/* XCS runtime: what code compiled by XCS calls at run time. Buffers (counted, 64-byte aligned),
 * run-time errors (a thread-local message and the failing op's site number), a small thread
 * pool for parallel loops, argument checking and result descriptors of the C ABI, and the few
 * conversions that are simpler in C than in IR. It is linked into every shared library
 * xcs-translate makes and into the JIT's process (lowering/build.rs). See docs/lowering.md. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "xcs_runtime.h"

#define API __attribute__((visibility("default")))
#define RT __attribute__((visibility("hidden")))

/* ------------------------------------------------------------------ buffers */

static atomic_llong live_allocs;
static atomic_llong total_allocs;

/* Freed buffers of at least BIG bytes are kept (up to CACHE_N of them, CACHE_MAX bytes in all)
 * and handed out again for a request of about their size: repeated calls reuse memory that is
 * already mapped (a fresh 64 MiB buffer costs milliseconds of page faults and zeroing). "About":
 * at most an eighth more than asked, plus the slack of the 2 MiB alignment (malloc_usable_size
 * of a 2 MiB aligned 4 MiB buffer is 6 MiB: without the slack, no buffer under 16 MiB was ever
 * reused, and a 1024x1024 f32 matmul paid 0.3 ms a call for a fresh result). */
#define BIG ((size_t)4 << 20)
#define ALIGN_SLACK (((size_t)2 << 20) + ((size_t)64 << 10))
#define CACHE_N 8
#define CACHE_MAX ((size_t)1 << 30)
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct { void *p; size_t n; } cache[CACHE_N];
static size_t cache_bytes;
/* 0: every big buffer is fresh from the allocator (xcs-run --bench-buffers=fresh measures that). */
static atomic_int cache_on = 1;

API void xcs_set_buffer_reuse(int32_t on) {
    atomic_store(&cache_on, on != 0);
    if (on) return;
    pthread_mutex_lock(&cache_mu);
    for (int i = 0; i < CACHE_N; i++) {
        free(cache[i].p);
        cache[i].p = NULL;
    }
    cache_bytes = 0;
    pthread_mutex_unlock(&cache_mu);
}

static void *cache_take(size_t n) {
    void *p = NULL;
    pthread_mutex_lock(&cache_mu);
    for (int i = 0; i < CACHE_N; i++) {
        if (cache[i].p && cache[i].n >= n && cache[i].n - n <= n / 8 + ALIGN_SLACK) {
            p = cache[i].p;
            cache_bytes -= cache[i].n;
            cache[i].p = NULL;
            break;
        }
    }
    pthread_mutex_unlock(&cache_mu);
    return p;
}

/* Keeps big buffer p (usable size n) for reuse; 0 when the cache is full. */
static int cache_put(void *p, size_t n) {
    int kept = 0;
    pthread_mutex_lock(&cache_mu);
    if (cache_bytes + n <= CACHE_MAX) {
        for (int i = 0; i < CACHE_N; i++) {
            if (!cache[i].p) {
                cache[i].p = p;
                cache[i].n = n;
                cache_bytes += n;
                kept = 1;
                break;
            }
        }
    }
    pthread_mutex_unlock(&cache_mu);
    return kept;
}

/* `n` bytes placed from `huge_from` bytes on 2 MiB aligned and backed by transparent huge pages
 * where the kernel allows (madvise mode; the whole 2 MiB pages of `n`), below it 64-byte
 * aligned. Neither cached nor counted; freed with free(). The matmul's packing scratch is placed
 * this way from 1 MiB on (xcs_matmul.c, scratch). */
RT void *xcs_rt_place_from(size_t n, size_t huge_from) {
    void *p = NULL;
    int big = n >= huge_from;
    if (posix_memalign(&p, big ? ((size_t)2 << 20) : 64, n) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (big) madvise(p, n & ~(((size_t)2 << 20) - 1), MADV_HUGEPAGE);
#endif
    return p;
}

/* `n` bytes (a multiple of 64) placed as the runtime places its buffers: 64-byte aligned, and
 * from BIG on 2 MiB aligned on transparent huge pages: 512x fewer page faults (as numpy does).
 * The JIT's copies of its arguments are placed the same way (runtime.rs, ArgBytes). */
RT void *xcs_rt_place(size_t n) { return xcs_rt_place_from(n, BIG); }

RT void *xcs_rt_alloc(int64_t bytes) {
    if (bytes < 0) return NULL;
    size_t n = (size_t)bytes;
    n = (n + 63) & ~(size_t)63;
    if (n == 0) n = 64;
    void *p = NULL;
    /* Large buffers: reused from the cache, or fresh (xcs_rt_place). */
    if (n >= BIG && atomic_load(&cache_on) && (p = cache_take(n)) != NULL) {
        atomic_fetch_add(&live_allocs, 1);
        atomic_fetch_add(&total_allocs, 1);
        return p;
    }
    if ((p = xcs_rt_place(n)) == NULL) return NULL;
    atomic_fetch_add(&live_allocs, 1);
    atomic_fetch_add(&total_allocs, 1);
    return p;
}

RT void xcs_rt_free(void *p) {
    if (!p) return;
    atomic_fetch_sub(&live_allocs, 1);
    size_t n = malloc_usable_size(p);
    if (n >= BIG && atomic_load(&cache_on) && cache_put(p, n)) return;
    free(p);
}

API int64_t xcs_live_allocations(void) { return atomic_load(&live_allocs); }
API int64_t xcs_total_allocations(void) { return atomic_load(&total_allocs); }

/* Buffers of functions with several blocks: freed together when the function returns. */
typedef struct { int64_t n, cap; void **p; } xcs_frame;

RT int32_t xcs_rt_frame_push(xcs_frame *f, void *p) {
    if (f->n == f->cap) {
        int64_t cap = f->cap ? f->cap * 2 : 16;
        void **q = realloc(f->p, (size_t)cap * sizeof(void *));
        if (!q) return 1;
        f->p = q;
        f->cap = cap;
    }
    f->p[f->n++] = p;
    return 0;
}

RT void xcs_rt_frame_release(xcs_frame *f) {
    for (int64_t i = 0; i < f->n; i++) xcs_rt_free(f->p[i]);
    free(f->p);
    f->p = NULL;
    f->n = f->cap = 0;
}

/* ------------------------------------------------------------------ errors */

#define ERR_LEN 512
static __thread char err_msg[ERR_LEN];
static __thread int32_t err_site = -1;

static void set_error(int32_t site, const char *msg) {
    err_site = site;
    snprintf(err_msg, ERR_LEN, "%s", msg);
}

/* A run-time error of the op numbered `site`; returns the status code (1). */
RT int32_t xcs_rt_fail(int32_t site, const char *msg) {
    set_error(site, msg);
    return 1;
}

/* Like xcs_rt_fail, with two integers formatted into `fmt` (printf %lld twice). */
RT int32_t xcs_rt_fail2(int32_t site, const char *fmt, int64_t a, int64_t b) {
    char buf[ERR_LEN];
    snprintf(buf, ERR_LEN, fmt, (long long)a, (long long)b);
    set_error(site, buf);
    return 1;
}

API const char *xcs_last_error(void) { return err_msg; }
API int32_t xcs_last_error_site(void) { return err_site; }
API void xcs_clear_error(void) {
    err_msg[0] = 0;
    err_site = -1;
}

/* ------------------------------------------------------------------ call depth */

/* Nested func.calls of compiled code on this thread; deeper than XCS_MAX_CALL_DEPTH is a
 * run-time error (as in the interpreter) instead of a stack overflow or an endless loop (LLVM
 * turns unbounded tail recursion into a loop). */
#define XCS_MAX_CALL_DEPTH 512
static __thread int32_t call_depth;

/* 0 and one level deeper, or 1 (unchanged) when the limit is reached. */
RT int32_t xcs_rt_call_enter(void) {
    if (call_depth >= XCS_MAX_CALL_DEPTH) return 1;
    call_depth++;
    return 0;
}

RT void xcs_rt_call_leave(void) {
    if (call_depth > 0) call_depth--;
}

/* ------------------------------------------------------------------ thread pool */

typedef int32_t (*xcs_body)(void *ctx, int64_t lo, int64_t hi);

#define MAX_WORKERS 255

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t job_mu = PTHREAD_MUTEX_INITIALIZER; /* one job at a time */
static pthread_t workers[MAX_WORKERS];
static unsigned long worker_start_gen[MAX_WORKERS]; /* job generation when each was started */
static int nworkers;           /* started */
static int nthreads_cfg;       /* 0: not chosen yet */
static int shutting_down;

static struct {
    xcs_body fn;
    void *ctx;
    int64_t n, chunk, nchunks;
    atomic_llong next;
    int participants; /* workers taking part (index < participants) */
    atomic_int pending; /* participants not finished */
    unsigned long gen;
    atomic_int status;
    int32_t site;
    char err[ERR_LEN];
} job;

/* The job generation, published (release) after the job is set up, so waiting threads can spin
 * on it without the mutex. */
static atomic_ulong gen_pub;

/* How long a thread spins before sleeping: a worker after its job, waiting for the next one;
 * the caller waiting for the workers to finish. Parallel loops come in bursts (the ops of one
 * function, one call after another), and waking a sleeping thread costs tens of microseconds,
 * as much as a small matmul; OpenMP runtimes and OpenBLAS spin the same way. XCS_SPIN_US
 * overrides it (0: sleep at once). */
static long spin_ns = -1;

static long spin_budget_ns(void) {
    long v = __atomic_load_n(&spin_ns, __ATOMIC_RELAXED);
    if (v < 0) {
        const char *e = getenv("XCS_SPIN_US");
        v = (e && *e) ? atol(e) * 1000 : 200000;
        if (v < 0) v = 0;
        __atomic_store_n(&spin_ns, v, __ATOMIC_RELAXED);
    }
    return v;
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spins until `done(arg)` or the spin budget runs out; returns whether `done` held. */
static int spin_until(int (*done)(const void *), const void *arg) {
    long budget = spin_budget_ns();
    if (budget == 0) return done(arg);
    int64_t end = now_ns() + budget;
    for (unsigned i = 0;; i++) {
        if (done(arg)) return 1;
        cpu_relax();
        if ((i & 63) == 63 && now_ns() > end) return done(arg);
    }
}

static int gen_moved(const void *seen) {
    return atomic_load_explicit(&gen_pub, memory_order_acquire) != *(const unsigned long *)seen;
}

static int all_done(const void *unused) {
    (void)unused;
    return atomic_load_explicit(&job.pending, memory_order_acquire) == 0;
}

static int default_threads(void) {
    const char *e = getenv("XCS_NUM_THREADS");
    if (e && atoi(e) > 0) return atoi(e);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

API int32_t xcs_get_num_threads(void) {
    pthread_mutex_lock(&pool_mu);
    if (nthreads_cfg == 0) nthreads_cfg = default_threads();
    int n = nthreads_cfg;
    pthread_mutex_unlock(&pool_mu);
    return n;
}

API void xcs_set_num_threads(int32_t n) {
    if (n < 1) n = 1;
    if (n > MAX_WORKERS + 1) n = MAX_WORKERS + 1;
    pthread_mutex_lock(&job_mu);
    pthread_mutex_lock(&pool_mu);
    nthreads_cfg = n;
    pthread_mutex_unlock(&pool_mu);
    pthread_mutex_unlock(&job_mu);
}

static void run_chunks(void) {
    for (;;) {
        int64_t c = atomic_fetch_add(&job.next, 1);
        if (c >= job.nchunks) return;
        if (atomic_load(&job.status) != 0) continue;
        int64_t lo = c * job.chunk, hi = lo + job.chunk;
        if (hi > job.n) hi = job.n;
        int32_t st = job.fn(job.ctx, lo, hi);
        if (st != 0) {
            int expected = 0;
            if (atomic_compare_exchange_strong(&job.status, &expected, st)) {
                job.site = err_site;
                snprintf(job.err, ERR_LEN, "%s", err_msg);
            }
        }
    }
}

static void *worker_main(void *arg) {
    int index = (int)(intptr_t)arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool_mu);
    seen = worker_start_gen[index];
    for (;;) {
        while (job.gen == seen && !shutting_down) pthread_cond_wait(&pool_cv, &pool_mu);
        if (shutting_down) break;
        seen = job.gen;
        int part = index < job.participants;
        pthread_mutex_unlock(&pool_mu);
        if (part) {
            run_chunks();
            if (atomic_fetch_sub_explicit(&job.pending, 1, memory_order_acq_rel) == 1) {
                pthread_mutex_lock(&pool_mu);
                pthread_cond_signal(&done_cv);
                pthread_mutex_unlock(&pool_mu);
            }
        }
        /* The next job usually follows at once: spin on the generation before sleeping. */
        spin_until(gen_moved, &seen);
        pthread_mutex_lock(&pool_mu);
    }
    pthread_mutex_unlock(&pool_mu);
    return NULL;
}

/* Runs fn(ctx, lo, hi) over [0, n) split into contiguous chunks of at least `min_chunk`
 * iterations, on the calling thread and the pool's workers. Returns the first non-zero status
 * (its error message becomes this thread's). Runs serially when the pool is busy (another
 * thread's loop) or one thread is configured. */
RT int32_t xcs_rt_parallel_for(xcs_body fn, void *ctx, int64_t n, int64_t min_chunk) {
    if (n <= 0) return 0;
    if (min_chunk < 1) min_chunk = 1;
    int threads = xcs_get_num_threads();
    int64_t nchunks = (n + min_chunk - 1) / min_chunk;
    if (nchunks > threads) nchunks = threads;
    if (nchunks <= 1 || pthread_mutex_trylock(&job_mu) != 0) return fn(ctx, 0, n);
    pthread_mutex_lock(&pool_mu);
    int want = (int)nchunks - 1;
    while (nworkers < want && !shutting_down) {
        worker_start_gen[nworkers] = job.gen; /* it takes part from the next job on */
        if (pthread_create(&workers[nworkers], NULL, worker_main, (void *)(intptr_t)nworkers) != 0) break;
        nworkers++;
    }
    if (want > nworkers) want = nworkers;
    job.fn = fn;
    job.ctx = ctx;
    job.n = n;
    job.nchunks = want + 1;
    job.chunk = (n + job.nchunks - 1) / job.nchunks;
    job.nchunks = (n + job.chunk - 1) / job.chunk;
    atomic_store(&job.next, 0);
    atomic_store(&job.status, 0);
    job.participants = want;
    atomic_store(&job.pending, want);
    job.gen++;
    atomic_store_explicit(&gen_pub, job.gen, memory_order_release);
    pthread_cond_broadcast(&pool_cv);
    pthread_mutex_unlock(&pool_mu);
    run_chunks();
    spin_until(all_done, NULL);
    pthread_mutex_lock(&pool_mu);
    while (atomic_load(&job.pending) > 0) pthread_cond_wait(&done_cv, &pool_mu);
    int32_t st = atomic_load(&job.status);
    if (st != 0) set_error(job.site, job.err);
    pthread_mutex_unlock(&pool_mu);
    pthread_mutex_unlock(&job_mu);
    return st;
}

API void xcs_shutdown(void) {
    pthread_mutex_lock(&job_mu);
    pthread_mutex_lock(&pool_mu);
    shutting_down = 1;
    pthread_cond_broadcast(&pool_cv);
    int n = nworkers;
    pthread_mutex_unlock(&pool_mu);
    for (int i = 0; i < n; i++) pthread_join(workers[i], NULL);
    pthread_mutex_lock(&pool_mu);
    nworkers = 0;
    shutting_down = 0;
    pthread_mutex_unlock(&pool_mu);
    pthread_mutex_unlock(&job_mu);
}

/* ------------------------------------------------------------------ C ABI arguments and results */

static int64_t dtype_size(int32_t d) {
    switch (d) {
    case XCS_F16: case XCS_BF16: case XCS_I16: return 2;
    case XCS_F32: case XCS_I32: return 4;
    case XCS_F64: case XCS_I64: return 8;
    case XCS_I1: case XCS_I8: return 1;
    default: return 0;
    }
}

static const char *dtype_name(int32_t d) {
    static const char *names[] = {"?", "f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64"};
    return (d >= 1 && d <= 9) ? names[d] : "an unknown element type";
}

/* Checks argument #idx against the function type (element type, rank, static sizes, where
 * static_dims[d] >= 0) and gives its data as a contiguous row-major buffer: the caller's, or a
 * copy (in *copy, to be freed with xcs_rt_free) when its strides are not row-major. The sizes
 * go to dims_out. */
RT int32_t xcs_rt_arg(const xcs_tensor *t, int32_t idx, int32_t dtype, int64_t rank, const int64_t *static_dims,
                      void **data_out, int64_t *dims_out, void **copy) {
    char buf[ERR_LEN];
    *copy = NULL;
    if (!t) {
        snprintf(buf, ERR_LEN, "argument #%d is NULL", idx);
        return xcs_rt_fail(-1, buf);
    }
    if (t->dtype != dtype) {
        snprintf(buf, ERR_LEN, "argument #%d has element type %s, but the function takes %s", idx, dtype_name(t->dtype),
                 dtype_name(dtype));
        return xcs_rt_fail(-1, buf);
    }
    if (t->rank != rank) {
        snprintf(buf, ERR_LEN, "argument #%d has rank %lld, but the function takes rank %lld", idx, (long long)t->rank,
                 (long long)rank);
        return xcs_rt_fail(-1, buf);
    }
    int64_t n = 1;
    for (int64_t d = 0; d < rank; d++) {
        int64_t s = t->shape[d];
        if (s < 0 || (static_dims[d] >= 0 && s != static_dims[d])) {
            snprintf(buf, ERR_LEN, "argument #%d has size %lld in dim %lld, but the function takes %lld", idx,
                     (long long)s, (long long)d, (long long)static_dims[d]);
            return xcs_rt_fail(-1, buf);
        }
        dims_out[d] = s;
        n *= s;
    }
    if (n > 0 && !t->data) {
        snprintf(buf, ERR_LEN, "argument #%d has no data", idx);
        return xcs_rt_fail(-1, buf);
    }
    int contiguous = 1;
    if (t->strides && n > 1) {
        int64_t expect = 1;
        for (int64_t d = rank - 1; d >= 0; d--) {
            if (t->shape[d] != 1 && t->strides[d] != expect) contiguous = 0;
            expect *= t->shape[d];
        }
    }
    if (contiguous) {
        *data_out = t->data;
        return 0;
    }
    int64_t es = dtype_size(dtype);
    char *dst = xcs_rt_alloc(n * es);
    if (!dst) return xcs_rt_fail(-1, "out of memory copying a strided argument");
    int64_t idxs[64] = {0};
    if (rank > 64) {
        xcs_rt_free(dst);
        return xcs_rt_fail(-1, "strided arguments of rank above 64 are not supported");
    }
    const char *src = t->data;
    for (int64_t i = 0; i < n; i++) {
        int64_t off = 0;
        for (int64_t d = 0; d < rank; d++) off += idxs[d] * t->strides[d];
        memcpy(dst + i * es, src + off * es, (size_t)es);
        for (int64_t d = rank - 1; d >= 0; d--) {
            if (++idxs[d] < t->shape[d]) break;
            idxs[d] = 0;
        }
    }
    *data_out = dst;
    *copy = dst;
    return 0;
}

/* Fills result descriptor `out` with an owned buffer of `rank` sizes `dims` (row-major). */
RT int32_t xcs_rt_result(xcs_tensor *out, void *data, int64_t rank, const int64_t *dims, int32_t dtype) {
    int64_t *s = malloc(sizeof(int64_t) * (size_t)(2 * rank + 1));
    if (!s) {
        xcs_rt_free(data);
        return xcs_rt_fail(-1, "out of memory");
    }
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; d--) {
        s[d] = dims[d];
        s[rank + d] = stride;
        stride *= dims[d];
    }
    out->data = data;
    out->rank = rank;
    out->shape = s;
    out->strides = s + rank;
    out->dtype = dtype;
    return 0;
}

API void xcs_tensor_release(xcs_tensor *t) {
    if (!t) return;
    xcs_rt_free(t->data);
    free(t->shape);
    t->data = NULL;
    t->shape = NULL;
    t->strides = NULL;
    t->rank = 0;
}

/* ------------------------------------------------------------------ conversions */

/* f32 bits -> bf16 bits, round to nearest even; NaN stays a (quiet) NaN. */
static uint16_t f32_bits_to_bf16(uint32_t b) {
    if ((b & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((b >> 16) | 0x40);
    return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

/* f64 -> bf16 rounded once (round to odd at f32 precision, then to nearest even). */
RT uint16_t xcs_rt_f64_to_bf16(double x) {
    float f = (float)x;
    uint32_t b;
    memcpy(&b, &f, 4);
    if (x == x && (double)f != x) {
        if (__builtin_fabs((double)f) > __builtin_fabs(x)) b -= 1;
        b |= 1u;
    }
    return f32_bits_to_bf16(b);
}

/* i64 -> bf16 rounded once. */
RT uint16_t xcs_rt_i64_to_bf16(int64_t x) {
    uint64_t m = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    int bits = m ? 64 - __builtin_clzll(m) : 0;
    double v;
    if (bits <= 53) {
        v = (double)m;
    } else {
        int shift = bits - 53;
        uint64_t hi = (m >> shift) | ((m & ((1ull << shift) - 1)) != 0);
        v = (double)hi * (double)(1ull << shift);
    }
    return xcs_rt_f64_to_bf16(x < 0 ? -v : v);
}

/* (hi:lo as a signed 128-bit integer) / n, truncated toward zero, as i64 (wrapping). */
RT int64_t xcs_rt_div_i128(int64_t hi, uint64_t lo, int64_t n) {
    __int128 v = ((__int128)hi << 64) | (__int128)lo;
    return (int64_t)(v / n);
}
