/* XCS runtime: SPMD functions over MPI. A communicator for compiled SPMD code whose devices
 * are the processes of an MPI communicator (rank r is device r of the grid, row-major). Built
 * with mpicc into shared libraries made by `xcs-translate --emit=shared-lib --mpi` (whose
 * header repeats this declaration) and into the libxcs_mpi.so that `xcs-run --mpi` loads.
 * See docs/c-abi.md ("SPMD functions"). */
#ifndef XCS_MPI_H
#define XCS_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "xcs_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The communicator of this process in a grid of `grid_rank` axes of sizes `grid_shape` whose
 * devices are the processes of `comm` (its size must be the number of devices; MPI must be
 * initialized). Collective over `comm`. NULL on error, with the message in err (err_len bytes).
 * Give it to xcs_set_comm; free it with xcs_comm_free before MPI_Finalize. */
xcs_comm *xcs_comm_mpi(MPI_Comm comm, int32_t grid_rank, const int64_t *grid_shape, char *err, int32_t err_len);

#ifdef __cplusplus
}
#endif
#endif
