/* XCS runtime: the communicator of compiled SPMD code (a partitioned program's collectives).
 * A communicator is one device of a grid: its grid shape, its coordinates, and a *transport*
 * (how the members of a group exchange bytes): shared memory between the threads of one
 * process (xcs_collectives.c) or MPI between processes (xcs_mpi.c). The collectives themselves
 * (layouts, reductions in group order) are transport-independent and live in
 * xcs_collectives.c. Documented in docs/shard.md ("The runtime") and docs/c-abi.md. */
#ifndef XCS_COMM_H
#define XCS_COMM_H

#include <stdint.h>

#include "xcs_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest grid rank (number of axes) of a communicator. */
#define XCS_MAX_GRID_RANK 8
/* The size of the error buffers transports write into. */
#define XCS_COMM_ERR_LEN 512

/* How the members of a group exchange bytes. The group of a device along grid `axes` is the
 * devices that differ from it only on those axes; member j of the group is the one whose
 * coordinates on `axes`, linearized row-major in the order given, are j. Every member calls the
 * same function with the same sizes (transports check this and fail on every member if not).
 * Each returns 0, or non-zero with a message in `err` (XCS_COMM_ERR_LEN bytes). */
typedef struct xcs_transport {
    /* recv gets n * bytes: member j's `bytes` bytes at offset j * bytes. */
    int32_t (*all_gather)(xcs_comm *c, const int32_t *axes, int32_t naxes, const void *send, int64_t bytes, void *recv,
                          char *err);
    /* send holds n blocks of `bytes` bytes, block j for member j; recv gets n blocks, block j
     * from member j. */
    int32_t (*all_to_all)(xcs_comm *c, const int32_t *axes, int32_t naxes, const void *send, int64_t bytes, void *recv,
                          char *err);
    /* Every member's buf gets the `bytes` bytes of member `root`'s buf. */
    int32_t (*broadcast)(xcs_comm *c, const int32_t *axes, int32_t naxes, void *buf, int64_t bytes, int64_t root,
                         char *err);
    /* Frees the transport's part of c (not c itself); NULL if nothing to free. */
    void (*destroy)(xcs_comm *c);
} xcs_transport;

struct xcs_comm {
    const xcs_transport *transport;
    void *impl;                          /* the transport's state */
    int32_t rank;                        /* grid rank */
    int64_t shape[XCS_MAX_GRID_RANK];    /* grid sizes */
    int64_t coords[XCS_MAX_GRID_RANK];   /* this device's coordinates */
    int32_t owned;                       /* freed by xcs_comm_free (0: owned by a grid) */
};

/* The number of members of this device's group along `axes`. */
static inline int64_t xcs_comm_group_size(const xcs_comm *c, const int32_t *axes, int32_t naxes) {
    int64_t n = 1;
    for (int32_t i = 0; i < naxes; i++) n *= c->shape[axes[i]];
    return n;
}

/* This device's index in its group along `axes`. */
static inline int64_t xcs_comm_index_in_group(const xcs_comm *c, const int32_t *axes, int32_t naxes) {
    int64_t idx = 0;
    for (int32_t i = 0; i < naxes; i++) idx = idx * c->shape[axes[i]] + c->coords[axes[i]];
    return idx;
}

/* The linear number of this device's group along `axes` among the groups (its coordinates on
 * the other axes, row-major): equal for the members of one group. */
static inline int64_t xcs_comm_group_color(const xcs_comm *c, const int32_t *axes, int32_t naxes) {
    int64_t color = 0;
    for (int32_t a = 0; a < c->rank; a++) {
        int in = 0;
        for (int32_t i = 0; i < naxes; i++) in |= axes[i] == a;
        if (!in) color = color * c->shape[a] + c->coords[a];
    }
    return color;
}

/* A key naming the ordered list `axes` (each below XCS_MAX_GRID_RANK): 4 bits per axis and
 * the count. */
static inline uint64_t xcs_comm_axes_key(const int32_t *axes, int32_t naxes) {
    uint64_t k = (uint64_t)naxes;
    for (int32_t i = 0; i < naxes; i++) k = (k << 4) | (uint64_t)(axes[i] & 0xf);
    return k;
}

#ifdef __cplusplus
}
#endif
#endif
