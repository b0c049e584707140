/* XCS runtime: the MPI transport of compiled SPMD programs (see xcs_comm.h): the devices of a
 * grid are the processes of an MPI communicator; a group along grid axes is a communicator
 * split from it by the coordinates on the other axes (made on first use, so every process
 * must run the same collectives in the same order, as MPI requires anyway), and the
 * transport's all_gather, all_to_all and broadcast are MPI_Allgather, MPI_Alltoall and
 * MPI_Bcast on bytes. Reductions are not MPI's: the runtime combines in group order
 * (xcs_collectives.c), so every process gets the interpreter's result bit for bit.
 * Also the few MPI calls `xcs-run --mpi` makes (xcs_mpi_*), loaded from libxcs_mpi.so so that
 * xcs-run itself needs no MPI library. Compiled with mpicc's flags. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xcs_comm.h"
#include "xcs_mpi.h"

#define API __attribute__((visibility("default")))
#define ERR_LEN XCS_COMM_ERR_LEN

typedef struct {
    uint64_t key;
    MPI_Comm comm;
} mpi_group;

typedef struct {
    MPI_Comm world;
    int64_t ngroups, cap;
    mpi_group *groups;
} mpi_impl;

/* err <- "what: MPI's message"; returns 1. */
static int32_t mpi_failed(int code, const char *what, char *err) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "MPI error %d", code);
    snprintf(err, ERR_LEN, "%s failed: %s", what, text);
    return 1;
}

/* The communicator of this process's group along `axes`. */
static int32_t group_comm(xcs_comm *c, const int32_t *axes, int32_t naxes, MPI_Comm *out, char *err) {
    mpi_impl *m = c->impl;
    uint64_t key = xcs_comm_axes_key(axes, naxes);
    for (int64_t i = 0; i < m->ngroups; i++)
        if (m->groups[i].key == key) {
            *out = m->groups[i].comm;
            return 0;
        }
    if (m->ngroups == m->cap) {
        int64_t cap = m->cap ? 2 * m->cap : 8;
        mpi_group *g = realloc(m->groups, (size_t)cap * sizeof *g);
        if (!g) {
            snprintf(err, ERR_LEN, "out of memory");
            return 1;
        }
        m->groups = g;
        m->cap = cap;
    }
    int color = (int)xcs_comm_group_color(c, axes, naxes), index = (int)xcs_comm_index_in_group(c, axes, naxes);
    MPI_Comm g;
    int rc = MPI_Comm_split(m->world, color, index, &g);
    if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Comm_split", err);
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    m->groups[m->ngroups].key = key;
    m->groups[m->ngroups].comm = g;
    m->ngroups++;
    *out = g;
    return 0;
}

/* The group communicator, after checking that every member gives `bytes` bytes. */
static int32_t prepare(xcs_comm *c, const int32_t *axes, int32_t naxes, int64_t bytes, MPI_Comm *g, char *err) {
    if (group_comm(c, axes, naxes, g, err)) return 1;
    int64_t mine[2] = {bytes, -bytes}, most[2];
    int rc = MPI_Allreduce(mine, most, 2, MPI_INT64_T, MPI_MAX, *g);
    if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Allreduce", err);
    if (most[0] != bytes || -most[1] != bytes) {
        snprintf(err, ERR_LEN, "the devices of a group hold data of different sizes (%lld to %lld bytes)",
                 (long long)-most[1], (long long)most[0]);
        return 1;
    }
    if (bytes > INT_MAX) {
        snprintf(err, ERR_LEN, "a collective of more than 2 GiB per device is not supported over MPI");
        return 1;
    }
    return 0;
}

static int32_t mpi_all_gather(xcs_comm *c, const int32_t *axes, int32_t naxes, const void *send, int64_t bytes, void *recv,
                              char *err) {
    MPI_Comm g;
    if (prepare(c, axes, naxes, bytes, &g, err)) return 1;
    int rc = MPI_Allgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, g);
    return rc == MPI_SUCCESS ? 0 : mpi_failed(rc, "MPI_Allgather", err);
}

static int32_t mpi_all_to_all(xcs_comm *c, const int32_t *axes, int32_t naxes, const void *send, int64_t bytes, void *recv,
                              char *err) {
    MPI_Comm g;
    if (prepare(c, axes, naxes, bytes, &g, err)) return 1;
    int rc = MPI_Alltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, g);
    return rc == MPI_SUCCESS ? 0 : mpi_failed(rc, "MPI_Alltoall", err);
}

static int32_t mpi_broadcast(xcs_comm *c, const int32_t *axes, int32_t naxes, void *buf, int64_t bytes, int64_t root,
                             char *err) {
    MPI_Comm g;
    if (prepare(c, axes, naxes, bytes, &g, err)) return 1;
    int rc = MPI_Bcast(buf, (int)bytes, MPI_BYTE, (int)root, g);
    return rc == MPI_SUCCESS ? 0 : mpi_failed(rc, "MPI_Bcast", err);
}

static void mpi_destroy(xcs_comm *c) {
    mpi_impl *m = c->impl;
    int finalized = 0;
    MPI_Finalized(&finalized);
    for (int64_t i = 0; i < m->ngroups && !finalized; i++) MPI_Comm_free(&m->groups[i].comm);
    if (!finalized) MPI_Comm_free(&m->world);
    free(m->groups);
    free(m);
}

static const xcs_transport mpi_transport = {mpi_all_gather, mpi_all_to_all, mpi_broadcast, mpi_destroy};

API xcs_comm *xcs_comm_mpi(MPI_Comm comm, int32_t grid_rank, const int64_t *grid_shape, char *err, int32_t err_len) {
    char msg[ERR_LEN] = "";
    int size = 0, rank = 0;
    int64_t ndev = 1;
    for (int32_t a = 0; a < grid_rank; a++) ndev *= grid_shape[a] > 0 ? grid_shape[a] : 0;
    if (grid_rank < 0 || grid_rank > XCS_MAX_GRID_RANK) {
        snprintf(msg, sizeof msg, "a grid of rank %d is not supported (at most %d axes)", grid_rank, XCS_MAX_GRID_RANK);
    } else if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) {
        snprintf(msg, sizeof msg, "the MPI communicator is not valid (is MPI initialized?)");
    } else if (ndev != size) {
        snprintf(msg, sizeof msg, "the grid has %lld devices but the MPI communicator has %d processes", (long long)ndev,
                 size);
    }
    xcs_comm *c = msg[0] ? NULL : calloc(1, sizeof *c);
    mpi_impl *m = c ? calloc(1, sizeof *m) : NULL;
    if (!msg[0] && (!c || !m)) snprintf(msg, sizeof msg, "out of memory");
    if (!msg[0] && MPI_Comm_dup(comm, &m->world) != MPI_SUCCESS) snprintf(msg, sizeof msg, "MPI_Comm_dup failed");
    if (msg[0]) {
        free(c);
        free(m);
        if (err && err_len > 0) snprintf(err, (size_t)err_len, "%s", msg);
        return NULL;
    }
    MPI_Comm_set_errhandler(m->world, MPI_ERRORS_RETURN);
    c->transport = &mpi_transport;
    c->impl = m;
    c->rank = grid_rank;
    c->owned = 1;
    int64_t rest = rank;
    for (int32_t a = grid_rank - 1; a >= 0; a--) {
        c->shape[a] = grid_shape[a];
        c->coords[a] = rest % grid_shape[a];
        rest /= grid_shape[a];
    }
    return c;
}

/* ------------------------------------------------------------------ what xcs-run --mpi calls */

/* Initializes MPI (unless it is) and gives this process's rank and the number of processes. */
API int32_t xcs_mpi_init(int32_t *rank, int32_t *size, char *err, int32_t err_len) {
    int done = 0, provided = 0, r = 0, n = 0;
    MPI_Initialized(&done);
    if (!done && MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
        snprintf(err, (size_t)err_len, "MPI_Init_thread failed");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    *rank = r;
    *size = n;
    return 0;
}

/* xcs_comm_mpi over MPI_COMM_WORLD. */
API xcs_comm *xcs_mpi_world_comm(int32_t grid_rank, const int64_t *grid_shape, char *err, int32_t err_len) {
    return xcs_comm_mpi(MPI_COMM_WORLD, grid_rank, grid_shape, err, err_len);
}

/* Gathers `bytes` bytes of every process to rank 0: there *recv (free with xcs_mpi_free) holds
 * them in rank order and sizes[r] the count of rank r (sizes has one entry per process). */
API int32_t xcs_mpi_gather(const void *send, int64_t bytes, void **recv, int64_t *sizes, char *err, int32_t err_len) {
    int rank = 0, n = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    *recv = NULL;
    if (bytes > INT_MAX) {
        snprintf(err, (size_t)err_len, "a result of more than 2 GiB per process cannot be gathered over MPI");
        return 1;
    }
    int mine = (int)bytes, *counts = calloc((size_t)n, sizeof(int)), *displs = calloc((size_t)n, sizeof(int));
    char *buf = NULL;
    int rc = (counts && displs) ? MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD) : MPI_ERR_NO_MEM;
    long long total = 0;
    for (int r = 0; rank == 0 && rc == MPI_SUCCESS && r < n; r++) {
        displs[r] = (int)total;
        total += counts[r];
        sizes[r] = counts[r];
    }
    if (rc == MPI_SUCCESS && total > INT_MAX) rc = MPI_ERR_COUNT;
    if (rc == MPI_SUCCESS && rank == 0 && !(buf = malloc((size_t)total + 1))) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) rc = MPI_Gatherv(send, mine, MPI_BYTE, buf, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(counts);
    free(displs);
    if (rc != MPI_SUCCESS) {
        char e[ERR_LEN];
        mpi_failed(rc, "gathering the results", e);
        snprintf(err, (size_t)err_len, "%s", e);
        free(buf);
        return 1;
    }
    *recv = buf;
    return 0;
}

API void xcs_mpi_free(void *p) { free(p); }

/* Stops every process of the job (a failed process must not leave the others waiting). */
API void xcs_mpi_abort(int32_t code) { MPI_Abort(MPI_COMM_WORLD, code); }

API int32_t xcs_mpi_finalize(void) {
    int done = 0;
    MPI_Finalized(&done);
    return done ? 0 : (MPI_Finalize() == MPI_SUCCESS ? 0 : 1);
}

/* The lowest rank whose `failed` is non-zero, or the number of processes if none failed
 * (collective: every process learns whether all are ready, without anyone waiting forever). */
API int32_t xcs_mpi_first_failure(int32_t failed) {
    int rank = 0, size = 0, mine, lowest = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mine = failed ? rank : size;
    if (MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) return 0;
    return lowest;
}

/* The largest `x` of all processes. */
API double xcs_mpi_max(double x) {
    double most = x;
    MPI_Allreduce(&x, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return most;
}

API void xcs_mpi_barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }
