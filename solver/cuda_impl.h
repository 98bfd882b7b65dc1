/* cuda_impl.h - the CUDA launchers of solver/ (private; the kernels live in
 * *.cu files behind extern "C").
 *
 * Launchers return em_err, like every launcher of every module (the status
 * of the launch through em_cuda_status, so a C caller writes EM_TRY).  Vectors are device pointers;
 * `single` selects cuFloatComplex entries instead of cuDoubleComplex.  Every launch goes to
 * `stream` (NULL: the legacy default stream, which the cuBLAS and cuSPARSE calls of solver/ also
 * use). */
#ifndef EM_SOLVER_CUDA_IMPL_H
#define EM_SOLVER_CUDA_IMPL_H

#include <stdint.h>

#include "em_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------- vec_kernels.cu */

/* threads per block and most blocks of the reduction kernels */
#define EM_SV_RED_THREADS 256
#define EM_SV_RED_BLOCKS 1024

/* x = a */
em_err em_sv_cuda_set(int32_t n, int single, double ar, double ai, void *x);
/* dst[i] = src[perm[i]] (gather) or dst[perm[i]] = src[i], perm on the
 * device, on the legacy default stream */
em_err em_sv_cuda_permute(int32_t n, int single, const int32_t *perm, const void *src, void *dst,
                          int gather);
/* y = a x + b y */
em_err em_sv_cuda_axpby(int32_t n, int single, double ar, double ai, const void *x, double br,
                        double bi, void *y);
/* z = a x + b y + c z */
em_err em_sv_cuda_axpbypcz(int32_t n, int single, const double *abc, const void *x, const void *y,
                           void *z);
/* result[j] (k double2 on the device) = x_j^H y_j or x_j^T y_j, through
 * partial (EM_SV_RED_BLOCKS * k double2 on the device): em_sv_cuda_cdots
 * of one set (the same kernels) */
em_err em_sv_cuda_dots(int32_t n, int single, int k, const void *const *x, const void *const *y,
                       const int *conj, void *partial, void *result);
/* result[j k + i] (m k double2) = dot i of set j (x[j k + i], y[j k + i]),
 * m <= 16 sets, each value bit for bit em_sv_cuda_dots' for that set,
 * through partial (EM_SV_RED_BLOCKS * k * m double2) */
em_err em_sv_cuda_cdots(int32_t n, int single, int m, int k, const void *const *x,
                        const void *const *y, const int *conj, void *partial, void *result);
/* y_j = a_j x_j + b_j y_j, j < m <= 16, ab[4 j ..] = Re a_j, Im a_j, Re b_j,
 * Im b_j: one launch */
em_err em_sv_cuda_caxpby(int32_t n, int single, int m, const double *ab, const void *const *x,
                         void *const *y);
/* z_j = a_j x_j + b_j y_j + c_j z_j, j < m <= 16, abc[6 j ..] = a_j, b_j,
 * c_j (re, im): one launch, each value em_sv_cuda_axpbypcz's */
em_err em_sv_cuda_caxpbypcz(int32_t n, int single, int m, const double *abc, const void *const *x,
                            const void *const *y, void *const *z);
/* dst = src converted between precisions (either may be single) */
em_err em_sv_cuda_convert(int64_t n, const void *src, int src_single, void *dst, int dst_single,
                          void *stream);

/* ---------------------------------------------------- trsv_kernels.cu */

/* y[p] = (PC type) r[iperm[p]]: r in the vector precision, y in the pc's
 * (iperm NULL: identity) */
em_err em_sv_cuda_gather(int32_t n, const int32_t *iperm, const void *r, int r_single, void *y,
                         int y_single, void *stream);
/* z[i] = y[perm[i]] */
em_err em_sv_cuda_scatter(int32_t n, const int32_t *perm, const void *y, int y_single, void *z,
                          int z_single, void *stream);
/* z = d .* r (d in the pc's precision, r and z in the vector precision) */
em_err em_sv_cuda_pointwise(int32_t n, const void *d, int d_single, const void *r, void *z,
                            int v_single, void *stream);

/* One triangular level, rows t = t0..t1-1 of a factor stored row by row:
 * i = rows ? rows[t] : t;  y_i = (y_i - sum_k val[k] y[col[k]]) * dinv_i
 * (dinv NULL: unit diagonal).  T threads per row (2..32).  val and dinv in
 * complex single when `single`, y always complex double. */
em_err em_sv_cuda_trsv_level(int32_t t0, int32_t t1, const int64_t *ptr, const int32_t *col,
                             const void *val, const int32_t *rows, const void *dinv, void *y,
                             int single, int T, void *stream);
/* Several consecutive thin levels in one block of threads, a block barrier
 * between levels: level l is rows lev[l]..lev[l+1]-1, l = l0..l1-1 (lev on
 * the device). */
em_err em_sv_cuda_trsv_thin(int32_t l0, int32_t l1, const int32_t *lev, const int64_t *ptr,
                            const int32_t *col, const void *val, const int32_t *rows,
                            const void *dinv, void *y, int single, int T, void *stream);
/* The whole triangle in one launch: `blocks` resident blocks take chunks of
 * rows in schedule order by an atomic ticket; each row spins on the flags of
 * the rows it reads (flags and *ticket zero on entry).  A wait longer than
 * about a second sets *fail to 1 + the row and lets the solve run out. */
em_err em_sv_cuda_trsv_syncfree(int32_t n, const int64_t *ptr, const int32_t *col, const void *val,
                                const int32_t *rows, const void *dinv, void *y, int single,
                                int *flags, unsigned *ticket, int *fail, int blocks, void *stream);
/* Blocks of the sync-free kernel that fit on the device at once. */
em_err em_sv_cuda_syncfree_blocks(int single, int *blocks);

#ifdef __cplusplus
}
#endif

#endif
