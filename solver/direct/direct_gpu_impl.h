/* direct_gpu_impl.h - the sparse LDL^T on the GPU (private to
 * solver/direct): the factor in device memory, the level schedule of the
 * supernodal tree, and the launchers of direct_gpu_kernels.cu.
 *
 * Numbering and storage are those of direct_impl.h: supernode s owns the
 * columns super[s] .. super[s+1]-1 of the new numbering, its block of L is
 * m x k column-major at lval + lptr[s].  The factor lives on the device
 * (complex double, or complex single for the mixed-precision option); D,
 * the permutation and the equilibration too, so a solve never leaves the
 * device.
 *
 * Schedule.  The level of a supernode is its height in the supernodal tree
 * (leaves 0): every child is on a lower level than its parent, so the
 * fronts of one level are independent.  Fronts with m <= EM_DG_SMALL are
 * factored by one thread block each, a launch per level; bigger ones
 * through cuBLAS (ZTRSM, ZGEMM, ZSYRKX) and own kernels, spread over
 * streams.  Update matrices live in stream-ordered device allocations
 * (cudaMallocAsync) from their front's level until their parent has
 * added them. */
#ifndef EM_SOLVER_DIRECT_GPU_IMPL_H
#define EM_SOLVER_DIRECT_GPU_IMPL_H

#include "direct_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fronts of at most this order are factored by one thread block each
 * (em_direct_opts.gpu_small: the default; the kernel's pivots are held in
 * shared memory for up to EM_DIRECT_GPU_SMALL_MAX).  384, not 256: on an
 * H200 the 1M DRA's numeric factorization (complex double, direct_bench,
 * median of 3) took 1.69 s at 256, 1.54 at 384, 1.51 at 512, 1.69 at 768:
 * the fronts of order 257-512 sit in levels of 1000-1500 of them, where
 * the cuBLAS path spends its time issuing calls front by front; 384 for
 * the smaller memory held (a level's small update matrices wait for the
 * last parent of the level). */
#define EM_DG_SMALL 384
/* Big fronts: blocks of NB pivot columns (the inner dimension of the
 * trailing ZGEMM), factored in panels of PB. */
#define EM_DG_NB 512
#define EM_DG_PB 32
/* Supernodes of the solves with at least this many columns go through
 * cuBLAS (ZTRSM / ZGEMM), the others through the per-level kernels. */
#define EM_DG_SOLVE_BIG 192
/* Streams of the big fronts. */
#define EM_DG_STREAMS 8
/* Streams per slot for the wide triangles' columns (em_direct_gsolve.col_streams). */
#define EM_DG_COLS 4

/* The symbolic structure on the device (read by the kernels). */
typedef struct em_dg_sym {
  const int32_t *super; /* ns + 1 */
  const int32_t *first; /* ns */
  const int64_t *rptr;  /* ns + 1 */
  const int32_t *rows;  /* rptr[ns] */
  const int32_t *prel;  /* rptr[ns] */
  const int64_t *lptr;  /* ns + 1 */
} em_dg_sym;

/* Pivot statistics the kernels update on the device. */
typedef struct em_dg_piv {
  unsigned long long perturbed; /* pivots replaced */
  long long bad;                /* smallest column (new numbering) with an
                                   unusable pivot, or LLONG_MAX */
  int bad_zero;                 /* 1: that pivot was zero with tau = 0 */
} em_dg_piv;

/* ---------------------------------------------- direct_gpu_kernels.cu */
/* Launchers return em_err (the launch status through em_cuda_status).  `single`:
 * the factor (L, D, update matrices) is complex single, else double.  Every
 * launch goes to `stream`. */

/* L[dest[q]] = v[q] for q < n (v complex double, converted). */
em_err em_dg_scatter(int64_t n, const int64_t *dest, const void *v, void *L, int single,
                     void *stream);
/* The fronts sn[0..count) (all with m <= EM_DIRECT_GPU_SMALL_MAX), one thread block
 * each: add the children's update matrices cb[c], factor the k pivot
 * columns (static perturbation at tau), form the front's own update matrix
 * in cb[s] (zeroed here). */
em_err em_dg_small_fronts(em_dg_sym S, const int32_t *sn, int32_t count, void *lval, void *d,
                          void *const *cb, double tau, em_dg_piv *piv, int single, void *stream);
/* Front s (big): cb_s (nb x nb, zeroed by the caller) and the pivot
 * columns of L get the children's update matrices added (atomics: the
 * children run in parallel). */
em_err em_dg_extend_add(em_dg_sym S, int32_t s, void *lval, void *const *cb, int single,
                        void *stream);
/* Unblocked LDL^T of the b x b diagonal block P (ld ld) of a panel whose
 * first column is column c0 of the new numbering: d[0..b) the pivots. */
em_err em_dg_diag_ldlt(void *P, int64_t ld, int b, void *d, int64_t c0, double tau, em_dg_piv *piv,
                       int single, void *stream);
/* W = X (M x b, ld ldw), X = X D^-1 (X M x b, ld ldx). */
em_err em_dg_scale_cols(int64_t M, int b, void *X, int64_t ldx, const void *d, void *W, int64_t ldw,
                        int single, void *stream);
/* W = L21 D: W (nb x k, ld nb) from L21 (nb x k, ld m). */
em_err em_dg_make_w(int64_t nb, int64_t k, const void *L21, int64_t m, const void *d, void *W,
                    int single, void *stream);
/* The unit triangle of L11 (k x k, ld m): zeros above, ones on the
 * diagonal. */
em_err em_dg_clean_l11(int64_t k, int64_t m, void *L, int single, void *stream);

/* Solves: y complex double, n x nrhs in the new numbering, entry (i, c)
 * at y[i rs + c cs]: column-major (rs 1, cs ld) or interleaved (rs nrhs,
 * cs 1; em_direct_gsolve.interleave). */
typedef struct em_dg_yl {
  int64_t rs, cs;
} em_dg_yl;
/* y[perm[i]] = r[i] b[i] (b in the vector precision, b_single). */
em_err em_dg_permute_in(int32_t n, int nrhs, const int32_t *perm, const double *r, const void *b,
                        int64_t ldb, int b_single, void *y, em_dg_yl l, void *stream);
/* x[i] = r[i] y[perm[i]] (x in the vector precision). */
em_err em_dg_permute_out(int32_t n, int nrhs, const int32_t *perm, const double *r, const void *y,
                         em_dg_yl l, void *x, int64_t ldx, int x_single, void *stream);
/* The most threads per block the level kernels' registers allow, in the
 * factor's precision: lim[0..2] forward, lim[3..5] backward, each for 1, 4
 * and 8 columns per pass (INT_MAX where the query fails).  Queried once
 * per factor (em_dgpu.lev_lim), not at every launch. */
void em_dg_level_limits(int single, int lim[6]);
/* Forward sweep of the small supernodes sn[0..count) of one level: x_s =
 * L11^-1 y_s, then y(rows below) -= L21 x_s (atomics); a block of
 * `threads` per supernode (above 256 no more than lim, the forward half
 * of em_dg_level_limits, allows). */
em_err em_dg_fwd_level(em_dg_sym S, const int32_t *sn, int32_t count, const void *lval, int nrhs,
                       void *y, em_dg_yl l, int single, int threads, const int *lim, void *stream);
/* y = D^-1 y. */
em_err em_dg_diag_solve(int32_t n, int nrhs, const void *d, void *y, em_dg_yl l, int single,
                        void *stream);
/* Backward sweep of the small supernodes of one level: y_s = L11^-T (y_s -
 * L21^T y(rows below)); lim the backward half of em_dg_level_limits. */
em_err em_dg_bwd_level(em_dg_sym S, const int32_t *sn, int32_t count, const void *lval, int nrhs,
                       void *y, em_dg_yl l, int single, int threads, const int *lim, void *stream);
/* The products of a big supernode (k columns from c0, nb rows below,
 * L21 nb x k with ld m in the factor's precision), L21 read once per 8
 * columns, sums in double, atomics into y: forward y(below) -= L21
 * y(c0..c0+k), backward y(c0..c0+k) -= L21^T y(below). */
em_err em_dg_big_prod(int forward, int64_t k, int64_t nb, const void *L21, int64_t m,
                      const int32_t *below, int64_t c0, int nrhs, void *y, em_dg_yl l, int single,
                      void *stream);
/* The triangle of a big supernode (k columns from c0) by its stored inverse
 * Li (k x k, ld k, unit lower with zeros above, in the factor's
 * precision), in double from y, the lower triangle only: w = Li y_s
 * (forward) or Li^T y_s (backward); w is k x nrhs in layout wl (rs 1, cs
 * k; or rs nrhs, cs 1), zeroed here. */
em_err em_dg_tri_prod(int forward, int64_t k, const void *Li, int64_t c0, int nrhs, const void *y,
                      em_dg_yl l, void *w, em_dg_yl wl, int single, void *stream);
/* t (nb x nrhs in layout tl, complex single when t_single) = y(rows, :)
 * (gather) or y(rows, :) -= t (scatter, atomics). */
em_err em_dg_gather(int64_t nb, int nrhs, const int32_t *rows, const void *y, em_dg_yl l, void *t,
                    em_dg_yl tl, int t_single, void *stream);
em_err em_dg_scatter_sub(int64_t nb, int nrhs, const int32_t *rows, const void *t, em_dg_yl tl,
                         int t_single, void *y, em_dg_yl l, void *stream);
/* dst (rows x cols, ld ldd) = src (ld lds), each in double or single. */
em_err em_dg_copy2d(int64_t rows, int cols, const void *src, int64_t lds, int src_single, void *dst,
                    int64_t ldd, int dst_single, void *stream);
/* Convert between the factor precision and double: dst (n) = src. */
em_err em_dg_convert(int64_t n, const void *src, int src_single, void *dst, int dst_single,
                     void *stream);

/* ----------------------------------------------- direct_gpu_cuda.c */

/* The device state of a factor (F->gpu). */
typedef struct em_dgpu em_dgpu;

/* Estimated device bytes of the factorization of F in precision prec:
 * factor, symbolic arrays, the peak of update matrices alive under the
 * level schedule, workspaces, the values of A. */
double em_dgpu_estimate(const em_direct *F, em_prec prec, int64_t nnz_a);
/* Numeric factorization of the symmetrised, shifted values M (old
 * numbering) with the equilibration r (old numbering, smax its max |s_ij|)
 * on the device; builds F->gpu on the first call.  EM_ERR_GPU_MEMORY when
 * it does not fit (nothing is left allocated then). */
em_err em_direct_numeric_cuda(em_direct *F, const em_csr *M, const double *r, double smax,
                              const em_log *log);
/* x = A^-1 b on the device for nrhs columns (b, x device arrays in the
 * vector precision; x may be b). */
em_err em_direct_solve_cuda(const em_direct *F, int nrhs, const void *b, int64_t ldb, void *x,
                            int64_t ldx, int v_single);
/* The same for host arrays in complex double (through device copies). */
em_err em_direct_solve_gpu_host(const em_direct *F, int nrhs, const em_cplx *b, int64_t ldb,
                                em_cplx *x, int64_t ldx);
/* The solves' profile (em_direct_gprofile_get / reset; direct_gprof_cuda.c). */
void em_dgpu_profile_get(const em_direct *F, em_direct_gprofile *p);
void em_dgpu_profile_reset(em_dgpu *g);
/* The factor in complex double, new numbering, in new host arrays *lval
 * (lptr[ns] entries) and *d (n): tests compare them with the CPU factor. */
em_err em_direct_download(const em_direct *F, em_cplx **lval, em_cplx **d);
void em_dgpu_destroy(em_dgpu **g);

#ifdef __cplusplus
}
#endif
#endif
