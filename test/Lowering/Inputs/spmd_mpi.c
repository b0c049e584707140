/* An MPI program calling a partitioned (SPMD) function of a shared library made by
 * `xcs-translate --emit=shared-lib --mpi` from shard-partition's output for
 * test/Run/Inputs/spmd_mlp.mlir (run by test/Lowering/spmd-mpi.test): each of 4 ranks is one device of @megatron's 2x2 grid. A rank
 * makes its communicator with xcs_comm_mpi, sets it for its thread, passes its slices of the
 * full inputs (a strided view for the column block of w1) and gets its block of y; rank 0
 * gathers the blocks and compares y with the single-device function @full, called without a
 * communicator. Build: mpicc spmd_mpi.c -I. -L. -lspmd; run: mpirun -np 4 ./spmd_mpi. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmd.h"

static int rank;

/* A failed call: its message, then stop every rank (the others may wait in a collective). */
static void fail(const char *what) {
    fprintf(stderr, "rank %d: %s: %s\n", rank, what, xcs_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) fprintf(stderr, "run with mpirun -np 4\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    static float x[8 * 16], w1[16 * 8], w2[8 * 4];
    for (int i = 0; i < 8 * 16; i++) x[i] = sinf(0.37f * (float)i);
    for (int i = 0; i < 16 * 8; i++) w1[i] = cosf(0.11f * (float)i) * 0.5f;
    for (int i = 0; i < 8 * 4; i++) w2[i] = (float)(i % 7) * 0.25f - 0.75f;

    int64_t grid[2] = {2, 2};
    char err[256];
    xcs_comm *comm = xcs_comm_mpi(MPI_COMM_WORLD, 2, grid, err, (int32_t)sizeof err);
    if (!comm) {
        fprintf(stderr, "xcs_comm_mpi: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int dp = rank / 2, tp = rank % 2; /* this rank's device coordinates */
    /* x: rows along dp; w1: columns along tp (a strided view, strides in elements); w2: rows along tp */
    int64_t xs[2] = {4, 16}, w1s[2] = {16, 4}, w1st[2] = {8, 1}, w2s[2] = {4, 4};
    xcs_tensor tx = {x + dp * 4 * 16, 2, xs, NULL, XCS_F32};
    xcs_tensor tw1 = {w1 + tp * 4, 2, w1s, w1st, XCS_F32};
    xcs_tensor tw2 = {w2 + tp * 4 * 4, 2, w2s, NULL, XCS_F32};
    xcs_tensor y;
    xcs_set_comm(comm);
    if (xcs_megatron(&tx, &tw1, &tw2, &y) != 0) fail("megatron");
    static float blocks[4][16]; /* each rank's 4x4 rows of y (replicated along tp) */
    MPI_Gather(y.data, 16, MPI_FLOAT, blocks, 16, MPI_FLOAT, 0, MPI_COMM_WORLD);
    xcs_tensor_release(&y);

    /* a wrong size is an error on every rank before any collective: no hang */
    xs[0] = 3;
    if (xcs_megatron(&tx, &tw1, &tw2, &y) == 0) {
        fprintf(stderr, "rank %d: a wrong size was accepted\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) printf("wrong size: %s\n", xcs_last_error());
    xcs_set_comm(NULL);

    if (rank == 0) {
        int64_t fx[2] = {8, 16}, fw1[2] = {16, 8}, fw2[2] = {8, 4};
        xcs_tensor ax = {x, 2, fx, NULL, XCS_F32}, aw1 = {w1, 2, fw1, NULL, XCS_F32}, aw2 = {w2, 2, fw2, NULL, XCS_F32}, full;
        if (xcs_full(&ax, &aw1, &aw2, &full) != 0) fail("full");
        const float *f = full.data;
        double worst = 0;
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 4; j++) {
                double d = fabs((double)f[i * 4 + j] - (double)blocks[(i / 4) * 2][(i % 4) * 4 + j]);
                if (d > worst) worst = d;
            }
        int replicas = memcmp(blocks[0], blocks[1], sizeof blocks[0]) == 0 && memcmp(blocks[2], blocks[3], sizeof blocks[2]) == 0;
        printf("megatron on 4 ranks: y[0][0] = %.4f, max error %s, replicas %s\n", (double)blocks[0][0],
               worst <= 1e-5 ? "<= 1e-5" : "too large", replicas ? "agree" : "differ");
        xcs_tensor_release(&full);
    }
    xcs_comm_free(comm);
    long long live = (long long)xcs_live_allocations(), most = 0;
    MPI_Reduce(&live, &most, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("live allocations: %lld\nALL OK\n", most);
    xcs_shutdown();
    MPI_Finalize();
    return 0;
}
