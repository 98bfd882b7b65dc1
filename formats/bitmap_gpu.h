/* bitmap_gpu.h - the bitmap extras on the GPU (bitmap_ops_cuda.cu,
 * bitmap_lu_cuda.cu): random access, the sum and the product of
 * em_bitmap_get / _add / _mul and the LU of em_bitmap_lu, computed on the
 * GPU from CPU bitmap matrices and returned as CPU bitmap matrices, so that
 * each result compares with the CPU version directly.  ms (may be NULL):
 * the device time of the kernels, the copies excluded.  Private to
 * formats/, its tests and bench/. */
#ifndef EM_BITMAP_GPU_H
#define EM_BITMAP_GPU_H

#include "bitmap_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* LU = L + U - I, A = L U without pivoting (L unit lower, U upper) of a
 * square complex double CPU bitmap, the fill found while factoring
 * (bitmap_lu.c, the CPU reference of the bitmap LU).  A zero pivot is
 * EM_ERR_NUMERIC naming the row. */
em_err em_bitmap_lu(const em_spmat *A, em_spmat **LU);

#ifdef EM_HAVE_CUDA
/* a[q] = M(i[q], j[q]) for q < n, one thread per query: binary search of
 * the word j / 64 in row i, then popcounts of the earlier words and of the
 * word's bits below j % 64 (zero when the bit is clear). */
em_err em_bitmap_get_cuda(const em_spmat *M, int64_t n, const int32_t *i, const int32_t *j,
                          em_cplx *a, double *ms);
/* C = A + B and C = A B, same rules as the CPU (an exact zero from
 * cancellation stays stored; the product's pattern is the OR of B's rows
 * over the stored a_ik). */
em_err em_bitmap_add_cuda(const em_spmat *A, const em_spmat *B, em_spmat **C, double *ms);
em_err em_bitmap_mul_cuda(const em_spmat *A, const em_spmat *B, em_spmat **C, double *ms);
/* em_bitmap_lu on the GPU (bitmap_lu_cuda.cu): the same fill pattern bit
 * for bit, the same update order (values differ from the CPU's by the
 * GPU's fused multiply-adds), the same zero-pivot error naming the first
 * row.  Rows by warps, each waiting on the rows it needs; a symbolic pass
 * (pattern) then a numeric one.  ms: both passes, the copies of A in and
 * of LU out excluded. */
em_err em_bitmap_lu_cuda(const em_spmat *A, em_spmat **LU, double *ms);
/* out[0..n] = exclusive prefix sums of the device array in[0..n] (cub;
 * in[n] = 0 makes out[n] the total); bitmap_ops_cuda.cu. */
em_err em_bitmap_scan_cuda(const int64_t *in, int64_t *out, int64_t n);
#endif

#ifdef __cplusplus
}
#endif
#endif
