/* bench_matrix.h - the matrix of a benchmark's --matrix FILE: a Matrix
 * Market coordinate file (core/mtx.c, recognised by its banner) or a system
 * written by `emsolve --dump-matrix` (core/matfile.c). */
#ifndef EM_BENCH_MATRIX_H
#define EM_BENCH_MATRIX_H

#include "em_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *A = the whole matrix; *B (optional) = its order blocks for a system file,
 * NULL for a Matrix Market file (no order groups); *n_rhs / *rhs (optional)
 * the right-hand sides of a system file (0 / NULL for Matrix Market). */
em_err bench_load_matrix(const char *path, em_csr **A, em_blockmat **B, int *n_rhs, em_cplx **rhs);

#ifdef __cplusplus
}
#endif
#endif
