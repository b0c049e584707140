/* Exhaustive accuracy check of XCS's f32 sin, cos and erf kernels (issue 16: within 2 ulp of a
 * float64 reference for |x| <= 10^4; the inline sin/cos path serves |x| < 2^17 and libm the
 * lanes beyond, the check covers both): every f32 in [-2^22, 2^22], through the compiled
 * library's C ABI (`xcs-translate math.mlir --emit=shared-lib`), against libm's double sin,
 * cos and erf. The error of a result g for the reference w is |g - w| / ulp(w), ulp(w) the
 * spacing of f32 at w's magnitude (subnormal spacing below FLT_MIN), as in the lowering tests.
 * Prints the worst error per function and its argument; exits 1 if any exceeds 2 ulp, or if a
 * zero reference does not give a zero of the same sign. Build and run: `make check-math-ulp`. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "math_kernels.h"

typedef int32_t (*kernel_fn)(const xcs_tensor *, xcs_tensor *);

static double ulp_error(float got, double want) {
    if (isnan(want)) return isnan(got) ? 0.0 : INFINITY;
    if (isinf(want)) return (double)got == want ? 0.0 : INFINITY;
    float w = (float)fabs(want);
    int exp = w == 0.0f ? -126 : ilogbf(w);
    if (exp < -126) exp = -126;
    return fabs((double)got - want) / ldexp(1.0, exp - 23);
}

int main(void) {
    const struct { const char *name; kernel_fn fn; double (*ref)(double); } fns[] = {
        {"sin", xcs_sin, sin}, {"cos", xcs_cos, cos}, {"erf", xcs_erf, erf}};
    const uint32_t limit = 0x4A800000u; /* 2^22 as f32 bits */
    const int64_t chunk = 1 << 24;
    float *xs = malloc(chunk * sizeof(float));
    int failed = 0;
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        double worst = 0.0;
        float worst_x = 0.0f;
        uint64_t checked = 0;
        for (uint32_t sign = 0; sign < 2; sign++) {
            for (uint64_t start = 0; start <= limit; start += chunk) {
                int64_t n = (int64_t)(limit + 1 - start) < chunk ? (int64_t)(limit + 1 - start) : chunk;
                for (int64_t i = 0; i < n; i++) {
                    uint32_t bits = (uint32_t)(start + i) | (sign << 31);
                    memcpy(&xs[i], &bits, 4);
                }
                int64_t shape[1] = {n};
                xcs_tensor in = {xs, 1, shape, NULL, XCS_F32}, out;
                if (fns[f].fn(&in, &out) != 0) {
                    fprintf(stderr, "xcs_%s failed: %s\n", fns[f].name, xcs_last_error());
                    return 1;
                }
                const float *ys = out.data;
                for (int64_t i = 0; i < n; i++) {
                    double want = fns[f].ref((double)xs[i]);
                    double e = ulp_error(ys[i], want);
                    if (want == 0.0 && (ys[i] != 0.0f || !signbit(ys[i]) != !signbit(want))) e = INFINITY;
                    if (e > worst) { worst = e; worst_x = xs[i]; }
                }
                checked += (uint64_t)n;
                xcs_tensor_release(&out);
            }
        }
        printf("%s: %llu arguments, worst %.3f ulp at %.9g\n", fns[f].name, (unsigned long long)checked, worst,
               (double)worst_x);
        if (!(worst <= 2.0)) failed = 1;
    }
    xcs_shutdown();
    free(xs);
    return failed;
}
