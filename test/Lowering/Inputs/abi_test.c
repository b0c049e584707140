/* Calls the shared library xcs-translate makes of abi.mlir through its generated header and
 * checks the results: dynamic sizes, strided inputs, integer results, scalars as rank-0
 * tensors, run-time errors (integer division by zero, wrong shapes and element types), the
 * thread pool, and that every buffer is given back (xcs_live_allocations; the test also runs
 * under LeakSanitizer). Prints one line per check; exits 1 on the first failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"

static int failures;

#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (!(cond)) {                                    \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);   \
            printf(__VA_ARGS__);                          \
            printf("\n");                                 \
            failures++;                                   \
        }                                                 \
    } while (0)

static xcs_tensor tensor(void *data, int64_t rank, int64_t *shape, int32_t dtype) {
    xcs_tensor t = {data, rank, shape, NULL, dtype};
    return t;
}

static void test_affine(void) {
    float x[5 * 4], w[4 * 3], b[3] = {0.5f, -1.0f, 0.0f};
    for (int i = 0; i < 20; i++) x[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < 12; i++) w[i] = 0.25f * (float)(i - 6);
    int64_t xs[2] = {5, 4}, ws[2] = {4, 3}, bs[1] = {3};
    xcs_tensor tx = tensor(x, 2, xs, XCS_F32), tw = tensor(w, 2, ws, XCS_F32), tb = tensor(b, 1, bs, XCS_F32);
    xcs_tensor y;
    int rc = xcs_affine(&tx, &tw, &tb, &y);
    CHECK(rc == 0, "affine failed: %s", xcs_last_error());
    if (rc) return;
    CHECK(y.rank == 2 && y.shape[0] == 5 && y.shape[1] == 3, "affine result shape");
    CHECK(y.dtype == XCS_F32 && y.strides[0] == 3 && y.strides[1] == 1, "affine result dtype/strides");
    double maxerr = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 3; j++) {
            double s = b[j];
            for (int k = 0; k < 4; k++) s += (double)x[i * 4 + k] * w[k * 3 + j];
            if (s < 0) s = 0;
            double e = fabs(((float *)y.data)[i * 3 + j] - s);
            if (e > maxerr) maxerr = e;
        }
    CHECK(maxerr < 1e-5, "affine max error %g", maxerr);
    printf("affine: y[4] = [%g, %g, %g], max error %g\n", ((float *)y.data)[12], ((float *)y.data)[13],
           ((float *)y.data)[14], maxerr);
    xcs_tensor_release(&y);
    CHECK(y.data == NULL && y.shape == NULL, "release clears the descriptor");

    /* A transposed (strided) x: x^T of a 4x5 buffer. */
    float xt[4 * 5];
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 4; k++) xt[k * 5 + i] = x[i * 4 + k];
    int64_t st[2] = {1, 5};
    xcs_tensor tt = {xt, 2, xs, st, XCS_F32};
    xcs_tensor y2;
    rc = xcs_affine(&tt, &tw, &tb, &y2);
    CHECK(rc == 0, "strided affine failed: %s", xcs_last_error());
    if (rc == 0) {
        xcs_tensor y1;
        xcs_affine(&tx, &tw, &tb, &y1);
        CHECK(memcmp(y1.data, y2.data, sizeof(float) * 15) == 0, "strided input gives the same result");
        printf("affine: strided input ok\n");
        xcs_tensor_release(&y1);
        xcs_tensor_release(&y2);
    }

    /* The packed form. */
    const xcs_tensor *args[3] = {&tx, &tw, &tb};
    xcs_tensor res[1];
    rc = xcs_affine_packed(args, res);
    CHECK(rc == 0 && res[0].shape[0] == 5, "packed call: %s", xcs_last_error());
    if (rc == 0) xcs_tensor_release(&res[0]);

    /* Argument errors. */
    int64_t bad[2] = {5, 5};
    xcs_tensor tbad = tensor(x, 2, bad, XCS_F32);
    rc = xcs_affine(&tbad, &tw, &tb, &y);
    CHECK(rc != 0, "a wrong static size is an error");
    printf("affine: wrong size -> %s\n", xcs_last_error());
    xcs_tensor ti = tensor(x, 2, xs, XCS_I32);
    rc = xcs_affine(&ti, &tw, &tb, &y);
    CHECK(rc != 0, "a wrong element type is an error");
    printf("affine: wrong dtype -> %s\n", xcs_last_error());
}

static void test_idiv(void) {
    int32_t a[4] = {7, -7, 9, -2147483647 - 1}, b[4] = {2, 2, -4, -1};
    int64_t n[1] = {4};
    xcs_tensor ta = tensor(a, 1, n, XCS_I32), tb = tensor(b, 1, n, XCS_I32), q, total;
    int rc = xcs_idiv(&ta, &tb, &q, &total);
    CHECK(rc == 0, "idiv failed: %s", xcs_last_error());
    if (rc) return;
    int32_t *qv = q.data;
    CHECK(qv[0] == 3 && qv[1] == -3 && qv[2] == -2 && qv[3] == -2147483647 - 1, "idiv truncates and wraps");
    CHECK(total.rank == 0 && total.dtype == XCS_I64, "a rank-0 result");
    printf("idiv: q = [%d, %d, %d, %d], total = %lld\n", qv[0], qv[1], qv[2], qv[3],
           (long long)*(int64_t *)total.data);
    xcs_tensor_release(&q);
    xcs_tensor_release(&total);
    b[1] = 0;
    rc = xcs_idiv(&ta, &tb, &q, &total);
    CHECK(rc != 0, "division by zero is an error");
    printf("idiv: by zero -> %s\n", xcs_last_error());
}

static void test_threads(void) {
    int64_t s[2] = {512, 300};
    float *x = malloc(sizeof(float) * 512 * 300);
    for (int i = 0; i < 512 * 300; i++) x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    xcs_tensor tx = tensor(x, 2, s, XCS_F32), y1, r1, y2, r2;
    xcs_set_num_threads(1);
    int rc1 = xcs_big(&tx, &y1, &r1);
    xcs_set_num_threads(2);
    int rc2 = xcs_big(&tx, &y2, &r2);
    CHECK(rc1 == 0 && rc2 == 0, "big failed: %s", xcs_last_error());
    if (rc1 == 0 && rc2 == 0) {
        CHECK(memcmp(y1.data, y2.data, sizeof(float) * 512 * 300) == 0, "1 and 2 threads agree (tanh)");
        CHECK(memcmp(r1.data, r2.data, sizeof(float) * 512) == 0, "1 and 2 threads agree (sum)");
        printf("big: threads=%d, rowsum[0] = %g\n", xcs_get_num_threads(), ((float *)r2.data)[0]);
        xcs_tensor_release(&y1);
        xcs_tensor_release(&r1);
        xcs_tensor_release(&y2);
        xcs_tensor_release(&r2);
    }
    free(x);
}

int main(void) {
    test_affine();
    test_idiv();
    test_threads();
    CHECK(xcs_live_allocations() == 0, "%lld buffers not released", (long long)xcs_live_allocations());
    printf("live allocations: %lld of %lld\n", (long long)xcs_live_allocations(), (long long)xcs_total_allocations());
    xcs_shutdown();
    printf("%s\n", failures ? "FAILED" : "ALL OK");
    return failures ? 1 : 0;
}
