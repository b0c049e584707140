/* Peak single-precision FMA rate: each OpenMP thread runs CHAINS independent FMA dependency
 * chains on the widest vectors the compiler targets (AVX-512 when __AVX512F__ is defined,
 * else AVX2+FMA), enough chains to cover FMA latency x FMA ports. FLOPs = 2 per lane per FMA.
 * Best of 5 runs. Build: cc -O3 -march=native -fopenmp peak_fma.c -o peak_fma
 * Output (one line, parsed by bench_native.py):
 *   peak_fma: threads=T isa=avx512|avx2 best_s=... gflops=...
 */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__AVX512F__)
#define ISA "avx512"
#define LANES 16
#define CHAINS 24
typedef __m512 vec;
#define VSET(x) _mm512_set1_ps(x)
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VADD(a, b) _mm512_add_ps(a, b)
static float vsum(vec v) { return _mm512_reduce_add_ps(v); }
#elif defined(__AVX2__) && defined(__FMA__)
#define ISA "avx2"
#define LANES 8
#define CHAINS 12
typedef __m256 vec;
#define VSET(x) _mm256_set1_ps(x)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VADD(a, b) _mm256_add_ps(a, b)
static float vsum(vec v) {
    float t[8];
    _mm256_storeu_ps(t, v);
    return t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7];
}
#else
#error "peak_fma.c needs AVX2+FMA or AVX-512 (compile with -march=native on such a CPU)"
#endif

/* One thread's work: iters x CHAINS FMAs; returns a value depending on every chain. */
static float run(long iters, float seed) {
    vec acc[CHAINS];
    for (int k = 0; k < CHAINS; k++) acc[k] = VSET(seed + 0.001f * k);
    const vec m = VSET(0.999999f), a = VSET(1e-7f);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 32
        for (int k = 0; k < CHAINS; k++) acc[k] = VFMA(acc[k], m, a);
    }
    vec s = acc[0];
    for (int k = 1; k < CHAINS; k++) s = VADD(s, acc[k]);
    return vsum(s);
}

int main(int argc, char **argv) {
    long iters = argc > 1 ? atol(argv[1]) : 20L * 1000 * 1000;
    if (iters < 1000) {
        fprintf(stderr, "usage: peak_fma [ITERS >= 1000]\n");
        return 2;
    }
    int threads = omp_get_max_threads();
    double best = 1e30;
    float sink = 0;
    for (int r = 0; r < 5; r++) {
        double t0 = omp_get_wtime();
#pragma omp parallel reduction(+ : sink)
        sink += run(iters, 1.0f + omp_get_thread_num());
        double t = omp_get_wtime() - t0;
        if (t < best) best = t;
    }
    double flops = 2.0 * LANES * CHAINS * (double)iters * threads;
    printf("peak_fma: threads=%d isa=%s best_s=%.6f gflops=%.3f sink=%g\n", threads, ISA, best,
           flops / best / 1e9, (double)sink);
    return 0;
}
