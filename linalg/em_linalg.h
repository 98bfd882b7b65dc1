/* em_linalg.h - small dense linear algebra that the solver stages use:
 *
 *  - tridiagonal systems, real and complex double, one or a batch:
 *    the Thomas algorithm on the CPU (serial reference; all cores through
 *    the batch or, for one long system, the split method), and the split
 *    (partition) method on the GPU whose inter-block dependencies are
 *    eliminated beforehand, so the reduced system is itself tridiagonal and
 *    solved in parallel by the same method;
 *  - natural cubic splines of complex samples (S-parameters on a fine
 *    frequency grid);
 *  - Gaussian elimination over GF(2), one bit per element in 32-bit words:
 *    rank, row echelon form, solve; CPU reference and GPU.
 *
 * Tridiagonal layout (as cuSPARSE gtsv2StridedBatch, stride n): system k's
 * row i is  dl[k n + i] x[i-1] + d[k n + i] x[i] + du[k n + i] x[i+1] = b[k n + i];
 * dl of the first and du of the last row of each system are ignored.
 * No pivoting: a zero pivot is an EM_ERR_NUMERIC error naming the system and
 * row, never a NaN result (diagonally dominant systems never meet one). */
#ifndef EM_LINALG_H
#define EM_LINALG_H

#include <stdint.h>

#include "em_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- tridiagonal */

/* x = T^-1 b by Thomas, one system, serial (the reference); x may be b. */
em_err em_tridiag_thomas(int64_t n, const double *dl, const double *d, const double *du,
                         const double *b, double *x);
em_err em_tridiag_thomas_z(int64_t n, const em_cplx *dl, const em_cplx *d, const em_cplx *du,
                           const em_cplx *b, em_cplx *x);

/* The same on all OpenMP threads: a batch is spread over threads system by
 * system; one long system (batch 1, n >= 2^15) goes by the split method
 * with one block per thread.  x must not alias the inputs. */
em_err em_tridiag_solve_cpu(int64_t n, int64_t batch, const double *dl, const double *d,
                            const double *du, const double *b, double *x);
em_err em_tridiag_solve_cpu_z(int64_t n, int64_t batch, const em_cplx *dl, const em_cplx *d,
                              const em_cplx *du, const em_cplx *b, em_cplx *x);

/* GPU split method.  A plan holds the workspace of every recursion level
 * for systems of n rows, `batch` at a time, real (is_complex 0) or complex;
 * the block size is chosen so that the blocks of the batch fill the GPU's
 * resident threads.  Pointers to solve are device pointers (x must not
 * alias the inputs); a zero pivot is reported through host-mapped memory,
 * so checking it costs no copy.  Without CUDA or a GPU: EM_ERR_UNSUPPORTED. */
typedef struct em_tridiag_gpu em_tridiag_gpu;
em_err em_tridiag_gpu_create(int64_t n, int64_t batch, int is_complex, em_tridiag_gpu **t);
/* Plan flags.  ORIGINAL: the original split method (Wang 1981), the
 * baseline: one level, each reduced system solved serially by one thread.
 * MAPPED: the first level's workspace in host-mapped (zero-copy) memory and
 * the solve's arrays host arrays (pinned by their owner, or registered for
 * the solve) that the kernels read over the bus: systems larger than the
 * GPU's memory. */
enum { EM_TRIDIAG_ORIGINAL = 1, EM_TRIDIAG_MAPPED = 2 };
em_err em_tridiag_gpu_create_opts(int64_t n, int64_t batch, int is_complex, int flags,
                                  em_tridiag_gpu **t);
em_err em_tridiag_gpu_solve(em_tridiag_gpu *t, const void *dl, const void *d, const void *du,
                            const void *b, void *x);
/* Rows per block of the first level and number of recursion levels. */
void em_tridiag_gpu_shape(const em_tridiag_gpu *t, int64_t *block, int *levels);
void em_tridiag_gpu_destroy(em_tridiag_gpu **t);

/* Host arrays on backend be: CPU (em_tridiag_solve_cpu[_z]) or CUDA (the
 * split method: the system copied to the GPU and x back; through mapped
 * host memory when it does not fit in the GPU's free memory).  A CUDA
 * backend that is not built, finds no GPU or runs out of memory falls back
 * to the CPU; a zero pivot is an error on both.  *used (may be NULL): the
 * path taken, EM_TRIDIAG_PATH_*.  x must not alias the inputs. */
enum { EM_TRIDIAG_PATH_CPU = 0, EM_TRIDIAG_PATH_GPU = 1, EM_TRIDIAG_PATH_MAPPED = 2 };
em_err em_tridiag_solve(em_backend be, int is_complex, int64_t n, int64_t batch, const void *dl,
                        const void *d, const void *du, const void *b, void *x, int *used);
#ifdef EM_HAVE_CUDA
/* The CUDA row of em_tridiag_solve (no fallback); force_mapped 1 takes the
 * mapped path whatever the free memory (tests, benchmark). */
em_err em_tridiag_solve_cuda(int is_complex, int64_t n, int64_t batch, const void *dl,
                             const void *d, const void *du, const void *b, void *x,
                             int force_mapped, int *used);
#endif

/* ------------------------------------------------------------------ spline */

/* Natural cubic spline through (x[k], y[k]), k < n, x strictly increasing,
 * evaluated at the m points xe (clamped to [x[0], x[n-1]]) into ye.  The
 * second derivatives M_k solve the tridiagonal system
 *   h_{k-1} M_{k-1} + 2 (h_{k-1} + h_k) M_k + h_k M_{k+1}
 *     = 6 ((y_{k+1} - y_k) / h_k - (y_k - y_{k-1}) / h_{k-1}),  M_0 = M_{n-1} = 0.
 * n = 2 is the straight line; n = 1 a constant. */
em_err em_spline_eval_z(int n, const double *x, const em_cplx *y, int m, const double *xe,
                        em_cplx *ye);
/* The same for `batch` curves through the same abscissae at once (curve q's
 * samples y[q n + k], values ye[q m + i]): one batched tridiagonal solve on
 * backend be (em_tridiag_solve: the GPU when the run is on it, else or on
 * failure the CPU); *used the path taken (may be NULL). */
em_err em_spline_eval_batch_z(em_backend be, int n, int batch, const double *x, const em_cplx *y,
                              int m, const double *xe, em_cplx *ye, int *used);

/* -------------------------------------------------------------------- GF(2) */

/* A dense matrix over GF(2): bit j % 32 of word w[i * words + j / 32] is
 * a(i, j); the bits past n_cols in a row's last word stay zero. */
typedef struct em_gf2 {
  int32_t n_rows, n_cols;
  int32_t words; /* 32-bit words per row, ceil(n_cols / 32) */
  uint32_t *w;   /* [n_rows * words] */
} em_gf2;

em_err em_gf2_create(int32_t n_rows, int32_t n_cols, em_gf2 **A);
em_err em_gf2_copy(const em_gf2 *A, em_gf2 **B);
void em_gf2_destroy(em_gf2 **A);
static inline int em_gf2_get(const em_gf2 *A, int32_t i, int32_t j) {
  return (int)(A->w[(int64_t)i * A->words + j / 32] >> (j % 32)) & 1;
}
static inline void em_gf2_flip(em_gf2 *A, int32_t i, int32_t j) {
  A->w[(int64_t)i * A->words + j / 32] ^= 1u << (j % 32);
}

/* Bring A to row echelon form in place (reduced: Gauss-Jordan, every pivot
 * column a unit column); *rank its rank and, when pivcol is not NULL,
 * pivcol[r] the column of row r's pivot (r < rank).  backend CUDA runs the
 * elimination on the GPU (parallel pivot search, a row operation one XOR per
 * word); the result is the same bit for bit. */
em_err em_gf2_echelon(em_gf2 *A, int reduced, em_backend backend, int32_t *rank, int32_t *pivcol);
/* rank of A (A unchanged). */
em_err em_gf2_rank(const em_gf2 *A, em_backend backend, int32_t *rank);
/* A x = b over GF(2), b and x packed bits (n_rows and n_cols bits): *solvable
 * 0 when b is not in the range of A (x then zero), else x is a solution with
 * the free unknowns zero. */
em_err em_gf2_solve(const em_gf2 *A, const uint32_t *b, em_backend backend, uint32_t *x,
                    int *solvable);

#ifdef EM_HAVE_CUDA
/* The GPU elimination behind em_gf2_echelon (device time in *ms when ms is
 * not NULL, the copies excluded). */
em_err em_gf2_echelon_cuda(em_gf2 *A, int reduced, int32_t *rank, int32_t *pivcol, double *ms);
/* The same with the threads of the pivot search (1: serial, up to 1024)
 * and per block of the elimination (a multiple of 32 up to 1024). */
em_err em_gf2_echelon_cuda_opts(em_gf2 *A, int reduced, int32_t *rank, int32_t *pivcol, double *ms,
                                int search_threads, int elim_threads);
#endif

/* Sparse matrices over GF(2) (the boundary matrices of a mesh: 2, 3 or 4
 * ones per column): column j's rows are idx[ptr[j] .. ptr[j+1]-1], sorted
 * and distinct. */
typedef struct em_gf2_sp {
  int32_t n_rows, n_cols;
  const int64_t *ptr; /* [n_cols + 1] */
  const int32_t *idx; /* [ptr[n_cols]] */
} em_gf2_sp;

/* rank of a sparse A by column reduction (the persistence algorithm:
 * column j has the lowest one of no earlier reduced column, else that
 * column is added to it mod 2; the columns that keep a one are the
 * independent ones).  max_fill > 0 bounds the stored ones of the reduced
 * columns (EM_ERR_MEMORY beyond it, naming it); *fill (may be NULL) the
 * ones stored. */
em_err em_gf2_sp_rank(const em_gf2_sp *A, int64_t max_fill, int32_t *rank, int64_t *fill);
/* The dense bit matrix of a sparse one (the dense eliminations' input). */
em_err em_gf2_from_sp(const em_gf2_sp *A, int transpose, em_gf2 **D);

#ifdef __cplusplus
}
#endif
#endif /* EM_LINALG_H */
