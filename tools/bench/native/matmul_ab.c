/* The f32 matmul library (lowering/runtime/xcs_matmul.c, linked in from source) against OpenBLAS
 * (numpy's, loaded with dlopen) in ONE process: the two calls alternate, so a noisy host slows
 * both alike, and at one thread each call is timed in thread CPU time (a descheduled thread
 * costs nothing). Used by tools/bench/bench_matmul.py, which builds and runs it.
 *
 * The arrays are placed as numpy places its own (the peer's arrays in bench_native.py): 64-byte
 * aligned, and from 4 MiB on advised onto huge pages (numpy's `madvise(MADV_HUGEPAGE)` on large
 * arrays); on 4 KiB pages packing a 16 MiB B walks a page table per row.
 *
 * usage: matmul_ab OPENBLAS_SO BATCH M K N THREADS RUNS
 * prints one line: key=value pairs (the matmul's instruction set, min and median ms of each, the
 * largest |difference|). XCS_MATMUL_ISA=avx2|generic runs a lesser microkernel. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int32_t xcs_rt_matmul_f32(const float *a, const float *b, float *c, int64_t m, int64_t n, int64_t k, int64_t sam,
                          int64_t sak, int64_t sbk, int64_t sbn, int64_t nbd, const int64_t *bdims, void *epi,
                          void *epi_ctx, int64_t min_fmas, int32_t site, const char *oom);
void xcs_set_num_threads(int32_t n);
const char *xcs_matmul_isa(void);

/* cblas_sgemm with 64-bit integers (numpy's scipy-openblas) or 32-bit ones (a system OpenBLAS). */
typedef void (*sgemm64_fn)(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *,
                           int64_t, float, float *, int64_t);
typedef void (*sgemm32_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                           float *, int);

static double now_ms(int cpu) {
    struct timespec t;
    clock_gettime(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* `floats` f32s placed as numpy places an array: 64-byte aligned, huge pages advised from 4 MiB. */
static float *numpy_like_array(int64_t floats) {
    size_t bytes = ((size_t)floats * 4 + 63) & ~(size_t)63;
    float *p = aligned_alloc(64, bytes);
    if (p && bytes >= ((size_t)4 << 20)) {
        uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, hi = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
    return p;
}

static int cmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static void *sym(void *h, const char *const *names, const char **found) {
    for (; *names; names++) {
        void *f = dlsym(h, *names);
        if (f) {
            *found = *names;
            return f;
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 8) {
        fprintf(stderr, "usage: %s OPENBLAS_SO BATCH M K N THREADS RUNS\n", argv[0]);
        return 2;
    }
    int64_t nb = atoll(argv[2]), m = atoll(argv[3]), k = atoll(argv[4]), n = atoll(argv[5]);
    int threads = atoi(argv[6]), runs = atoi(argv[7]);
    if (nb < 1 || m < 1 || k < 1 || n < 1 || threads < 1 || runs < 1 || runs > 1000) {
        fprintf(stderr, "error: sizes, threads and runs must be positive (runs <= 1000)\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "error: %s\n", dlerror());
        return 1;
    }
    static const char *const g64[] = {"scipy_cblas_sgemm64_", "cblas_sgemm64_", NULL};
    static const char *const g32[] = {"cblas_sgemm", NULL};
    static const char *const t64[] = {"scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_", NULL};
    static const char *const t32[] = {"openblas_set_num_threads", NULL};
    const char *name = "", *tname = "";
    sgemm64_fn s64 = (sgemm64_fn)sym(h, g64, &name);
    sgemm32_fn s32 = s64 ? NULL : (sgemm32_fn)sym(h, g32, &name);
    void (*set_threads)(int) = (void (*)(int))sym(h, s64 ? t64 : t32, &tname);
    if (!s64 && !s32) {
        fprintf(stderr, "error: no cblas_sgemm in %s\n", argv[1]);
        return 1;
    }
    if (set_threads) set_threads(threads);
    xcs_set_num_threads(threads);
    float *a = numpy_like_array(nb * m * k), *b = numpy_like_array(nb * k * n);
    float *c = numpy_like_array(nb * m * n), *c2 = numpy_like_array(nb * m * n);
    double *tx = malloc(sizeof(double) * runs), *to = malloc(sizeof(double) * runs);
    if (!a || !b || !c || !c2 || !tx || !to) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    for (int64_t i = 0; i < nb * m * k; i++) a[i] = (float)((i * 7919) % 1000) / 1000.f - 0.5f;
    for (int64_t i = 0; i < nb * k * n; i++) b[i] = (float)((i * 104729) % 1000) / 1000.f - 0.5f;
    int64_t bdims[3] = {nb, m * k, k * n};
    int cpu = threads == 1;
    for (int r = -3; r < runs; r++) {
        double t0 = now_ms(cpu);
        if (xcs_rt_matmul_f32(a, b, c, m, n, k, k, 1, n, 1, nb > 1, bdims, NULL, NULL, threads > 1, 0, "out of memory")) {
            fprintf(stderr, "error: the matmul library failed\n");
            return 1;
        }
        double t1 = now_ms(cpu);
        for (int64_t i = 0; i < nb; i++) {
            if (s64)
                s64(101, 111, 111, m, n, k, 1.f, a + i * m * k, k, b + i * k * n, n, 0.f, c2 + i * m * n, n);
            else
                s32(101, 111, 111, (int)m, (int)n, (int)k, 1.f, a + i * m * k, (int)k, b + i * k * n, (int)n, 0.f,
                    c2 + i * m * n, (int)n);
        }
        double t2 = now_ms(cpu);
        if (r >= 0) {
            tx[r] = t1 - t0;
            to[r] = t2 - t1;
        }
    }
    double maxdiff = 0;
    for (int64_t i = 0; i < nb * m * n; i++) {
        double d = c[i] > c2[i] ? c[i] - c2[i] : c2[i] - c[i];
        if (d > maxdiff) maxdiff = d;
    }
    qsort(tx, runs, sizeof(double), cmp);
    qsort(to, runs, sizeof(double), cmp);
    printf("clock=%s sgemm=%s isa=%s xcs_min=%.4f xcs_med=%.4f xcs_q1=%.4f xcs_q3=%.4f blas_min=%.4f blas_med=%.4f "
           "blas_q1=%.4f blas_q3=%.4f maxdiff=%.3g\n",
           cpu ? "thread-cpu" : "wall", name, xcs_matmul_isa(), tx[0], tx[runs / 2], tx[runs / 4], tx[(3 * runs) / 4], to[0],
           to[runs / 2], to[runs / 4], to[(3 * runs) / 4], maxdiff);
    return 0;
}
