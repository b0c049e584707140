/* STREAM-style triad bandwidth: a[i] = b[i] + s*c[i] over double arrays of N elements
 * (argv[1], default 80M: 3 x 640 MB, well beyond the last-level cache), OpenMP over
 * OMP_NUM_THREADS threads, static schedule, first-touch initialisation by the same threads.
 * Bytes per iteration are counted as STREAM counts them: 3 x 8 (two reads, one write; the
 * write-allocate read of `a` is not counted). Best of NTIMES (argv[2], default 10) runs.
 * The arrays are 2 MiB aligned and advised onto transparent huge pages, as numpy's large arrays
 * and XCS's buffers are (on 4 KiB pages the hardware prefetchers stop at every page boundary:
 * here triad 22.4 GB/s at 1 thread on 4 KiB pages, while an f32 add over huge pages ran 133%
 * of that in numpy).
 * Build: cc -O3 -march=native -fopenmp stream.c -o stream
 * Output (one line, parsed by bench_native.py):
 *   stream: threads=T n=N best_s=... triad_GBps=... copy_GBps=...
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

/* n doubles, 2 MiB aligned, on transparent huge pages where the kernel allows. */
static double *huge_array(long n) {
    size_t huge = (size_t)2 << 20, bytes = ((size_t)n * sizeof(double) + huge - 1) / huge * huge;
    double *p = aligned_alloc(huge, bytes);
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 80L * 1000 * 1000;
    int ntimes = argc > 2 ? atoi(argv[2]) : 10;
    if (n < 1000 || ntimes < 1) {
        fprintf(stderr, "usage: stream [N >= 1000] [NTIMES >= 1]\n");
        return 2;
    }
    double *a = huge_array(n), *b = huge_array(n), *c = huge_array(n);
    if (!a || !b || !c) {
        fprintf(stderr, "stream: cannot allocate 3 x %ld doubles\n", n);
        return 1;
    }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.5;
    }
    const double s = 3.0;
    double best_triad = 1e30, best_copy = 1e30;
    for (int k = 0; k < ntimes; k++) {
        double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i];
        double t1 = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
        double t2 = omp_get_wtime();
        if (t1 - t0 < best_copy) best_copy = t1 - t0;
        if (t2 - t1 < best_triad) best_triad = t2 - t1;
    }
    /* check the result so the loops cannot be dropped */
    double sum = 0;
    for (long i = 0; i < n; i += n / 7) sum += a[i];
    if (sum <= 0) {
        fprintf(stderr, "stream: wrong result\n");
        return 1;
    }
    printf("stream: threads=%d n=%ld best_s=%.6f triad_GBps=%.3f copy_GBps=%.3f\n",
           omp_get_max_threads(), n, best_triad, 3.0 * 8.0 * (double)n / best_triad / 1e9,
           2.0 * 8.0 * (double)n / best_copy / 1e9);
    free(a);
    free(b);
    free(c);
    return 0;
}
