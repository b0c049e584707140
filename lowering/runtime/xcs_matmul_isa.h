/* XCS runtime: the per-ISA part of the f32 matmul (xcs_matmul.c includes this file once per
 * instruction set, with MM_ISA (a name suffix), MM_TARGET (a target attribute), MM_VL (f32 lanes
 * of a vector), MM_NV (vectors per tile row), MM_MR (tile rows), MM_STREAM_STORE (a streaming
 * store of one vector) and MM_KC (the row pitch of a packed A tile) defined): the register-tiled
 * microkernel (MR x NV*VL accumulators of GCC/clang vector extensions, multiply-adds contracted
 * into FMAs) and the two packing routines, compiled for that instruction set. The file undefines
 * those parameters at its end, so the next inclusion defines them afresh. */

#define MM_CAT2(a, b) a##_##b
#define MM_CAT(a, b) MM_CAT2(a, b)
#define MM_FN(x) MM_CAT(x, MM_ISA)
#define MM_NR (MM_VL * MM_NV)

/* acc[r][v] += a[r*MM_KC + p] * b[p*NR + v*VL ..] for p < kc, starting from zero (first) or from the
 * tile of C at `c` (row pitch ldc); the result is stored back to C. `ap` and `bp` are packed
 * (64-byte aligned); C rows need no alignment. */
#define MM_MICROKERNEL(NAME, MR)                                                                    \
    MM_TARGET static void NAME(int64_t kc, const float *restrict ap, const float *restrict bp,      \
                               float *restrict c, int64_t ldc, int first) {                         \
        typedef float vf __attribute__((vector_size(MM_VL * 4)));                                   \
        typedef float vfu __attribute__((vector_size(MM_VL * 4), aligned(4)));                      \
        vf acc[MR][MM_NV];                                                                          \
        /* the tile's lines of C, to be written (first) or read and written: fetched meanwhile */   \
        _Pragma("GCC unroll 16") for (int r = 0; r < MR; r++)                                       \
            _Pragma("GCC unroll 4") for (int v = 0; v < MM_NR; v += 16)                             \
                __builtin_prefetch(c + r * ldc + v, 1, 3);                                          \
        _Pragma("GCC unroll 16") for (int r = 0; r < MR; r++)                                       \
            _Pragma("GCC unroll 4") for (int v = 0; v < MM_NV; v++)                                 \
                acc[r][v] = first ? (vf){0} : *(const vfu *)(c + r * ldc + v * MM_VL);             \
        for (int64_t p = 0; p < kc; p++) {                                                          \
            vf b[MM_NV];                                                                            \
            _Pragma("GCC unroll 4") for (int v = 0; v < MM_NV; v++)                                 \
                b[v] = *(const vf *)(bp + p * MM_NR + v * MM_VL);                                   \
            _Pragma("GCC unroll 16") for (int r = 0; r < MR; r++) {                                 \
                float a = ap[r * MM_KC + p];                                                       \
                _Pragma("GCC unroll 4") for (int v = 0; v < MM_NV; v++) acc[r][v] += a * b[v];     \
            }                                                                                       \
        }                                                                                           \
        _Pragma("GCC unroll 16") for (int r = 0; r < MR; r++)                                       \
            _Pragma("GCC unroll 4") for (int v = 0; v < MM_NV; v++)                                 \
                *(vfu *)(c + r * ldc + v * MM_VL) = acc[r][v];                                      \
    }

MM_MICROKERNEL(MM_FN(mm_kernel_mr), MM_MR)
MM_MICROKERNEL(MM_FN(mm_kernel_8), 8)

/* Packs rows pc..pc+kc of B's columns jc..jc+nc into `dst`: column tile t (NR columns) at
 * dst + t*kc*NR, kc rows of NR, columns at or past n zero; full tiles of contiguous rows
 * (sbn == 1) as whole vectors. When the panel's rows are adjacent in memory (it spans all of a
 * row-major B's columns) row by row: one sequential read the hardware prefetchers stream. Else
 * MM_PACK_ROWS rows at a time, tile by tile, so each tile receives 1 KB of whole lines per visit
 * from 8 concurrent read streams (row by row, every 4 KB piece of a row was a new stream: a cold
 * 1024x1024 panel of a 1024x4096 B packed at 9.7 GB/s, now 23; 2, 4, 16 and 32 rows: 13.7, 19.6,
 * 17.0, 10.0; 256x1024x4096 at 1 thread 3% faster, the other shapes of bench_matmul.py within 1%).
 * `streaming`: full tiles are written with streaming stores (see MM_STREAM_PANEL), then fenced. */
MM_TARGET static void MM_FN(mm_pack_b)(const float *b, int64_t sbk, int64_t sbn, int64_t n, int64_t pc,
                                       int64_t kc, int64_t jc, int64_t nc, float *restrict dst, int streaming) {
    typedef float vfu __attribute__((vector_size(MM_VL * 4), aligned(4)));
    typedef float vf __attribute__((vector_size(MM_VL * 4)));
    int64_t full = sbn == 1 ? nc / MM_NR : 0, ntn = (nc + MM_NR - 1) / MM_NR;
    int64_t group = sbn == 1 && sbk == nc ? 1 : MM_PACK_ROWS;
    for (int64_t p0 = 0; p0 < kc; p0 += group) {
        int64_t p1 = p0 + group < kc ? p0 + group : kc;
        for (int64_t t = 0; t < full; t++) {
            const float *src = b + (pc + p0) * sbk + jc + t * MM_NR;
            float *d = dst + t * kc * MM_NR + p0 * MM_NR;
            if (streaming)
                for (int64_t p = p0; p < p1; p++, src += sbk, d += MM_NR)
                    _Pragma("GCC unroll 4") for (int v = 0; v < MM_NV; v++)
                        MM_STREAM_STORE(d + v * MM_VL, *(const vfu *)(src + v * MM_VL));
            else
                for (int64_t p = p0; p < p1; p++, src += sbk, d += MM_NR)
                    _Pragma("GCC unroll 4") for (int v = 0; v < MM_NV; v++)
                        *(vf *)(d + v * MM_VL) = *(const vfu *)(src + v * MM_VL);
        }
        for (int64_t t = full; t < ntn; t++) {
            int64_t col0 = jc + t * MM_NR, cols = n - col0 < MM_NR ? n - col0 : MM_NR;
            for (int64_t p = p0; p < p1; p++) {
                const float *s = b + (pc + p) * sbk + col0 * sbn;
                float *d = dst + t * kc * MM_NR + p * MM_NR;
                for (int64_t j = 0; j < cols; j++) d[j] = s[j * sbn];
                for (int64_t j = cols; j < MM_NR; j++) d[j] = 0.0f;
            }
        }
    }
    if (streaming) MM_STREAM_FENCE();
}

/* Packs rows row0..row0+mr of A's columns pc..pc+kc into `dst` (row r at dst + r*MM_KC, so the
 * microkernel's loads are at constant offsets from one pointer; rows at or past m zero): a
 * row-major A's rows are copied whole. */
MM_TARGET static void MM_FN(mm_pack_a)(const float *a, int64_t sam, int64_t sak, int64_t m, int64_t row0,
                                       int64_t pc, int64_t kc, int64_t mr, float *restrict dst) {
    int64_t rows = m - row0 < mr ? m - row0 : mr;
    for (int64_t r = 0; r < rows; r++) {
        const float *src = a + (row0 + r) * sam + pc * sak;
        float *d = dst + r * MM_KC;
        if (sak == 1)
            for (int64_t p = 0; p < kc; p++) d[p] = src[p];
        else
            for (int64_t p = 0; p < kc; p++) d[p] = src[p * sak];
    }
    for (int64_t r = rows; r < mr; r++)
        for (int64_t p = 0; p < kc; p++) dst[r * MM_KC + p] = 0.0f;
}

static const mm_isa MM_FN(mm_isa) = {
    .name = MM_ISA_NAME,
    .mr = MM_MR,
    .nr = MM_NR,
    .kernel_mr = MM_FN(mm_kernel_mr),
    .kernel_8 = MM_FN(mm_kernel_8),
    .pack_a = MM_FN(mm_pack_a),
    .pack_b = MM_FN(mm_pack_b),
};

#undef MM_MICROKERNEL
#undef MM_NR
#undef MM_FN
#undef MM_CAT
#undef MM_CAT2
#undef MM_ISA
#undef MM_ISA_NAME
#undef MM_TARGET
#undef MM_VL
#undef MM_NV
#undef MM_MR
#undef MM_STREAM_STORE
