/* vec_impl.h - the vector backend the Krylov methods are written against
 * (private to solver/).
 *
 * An em_vec fixes the backend (CPU: host arrays, OpenMP; CUDA: device
 * arrays, cuBLAS plus a few fused kernels), the precision of the vectors
 * (complex double or single) and their length n.  Scalars always pass as
 * complex double on the host; a reduction returns to the host only when the
 * algorithm needs its value (one synchronisation per call, however many dot
 * products it fuses).  Blocks of k vectors (GMRES bases) are stored column
 * after column with leading dimension n. */
#ifndef EM_SOLVER_VEC_IMPL_H
#define EM_SOLVER_VEC_IMPL_H

#include "em_solver.h"

/* most dot products one em_vec_dots call fuses */
#define EM_VEC_MAX_DOTS 4
/* most column sets of one cdots / caxpby call of a backend (the helpers
 * em_vec_cdots / em_vec_caxpby cut longer lists into such calls) */
#define EM_VEC_MAX_COLS 16

typedef struct em_vec em_vec;

typedef struct em_vec_ops {
  /* *x = `count` zeroed vectors, contiguous (column j at em_vec_col(v, *x, j)) */
  em_err (*alloc)(em_vec *v, int count, void **x);
  void (*free)(em_vec *v, void **x);
  /* x = h (host complex double, converted to v's precision) */
  em_err (*upload)(em_vec *v, const em_cplx *h, void *x);
  /* h = x */
  em_err (*download)(em_vec *v, const void *x, em_cplx *h);
  /* x = a */
  em_err (*set)(em_vec *v, em_cplx a, void *x);
  /* y = x */
  em_err (*copy)(em_vec *v, const void *x, void *y);
  /* x = a x */
  em_err (*scale)(em_vec *v, em_cplx a, void *x);
  /* y = a x + b y */
  em_err (*axpby)(em_vec *v, em_cplx a, const void *x, em_cplx b, void *y);
  /* z = a x + b y + c z */
  em_err (*axpbypcz)(em_vec *v, em_cplx a, const void *x, em_cplx b, const void *y, em_cplx c,
                     void *z);
  /* out[i] = x[i]^H y[i] (conj[i] != 0) or x[i]^T y[i], i < k <= EM_VEC_MAX_DOTS,
   * in one pass and one synchronisation */
  em_err (*dots)(em_vec *v, int k, const void *const *x, const void *const *y, const int *conj,
                 em_cplx *out);
  /* h[0..k) = V^H w, V the first k columns of a block (k <= max_k) */
  em_err (*mdot)(em_vec *v, int k, const void *V, const void *w, em_cplx *h);
  /* w = alpha V h + beta w (k <= max_k) */
  em_err (*gemv)(em_vec *v, int k, em_cplx alpha, const void *V, const em_cplx *h, em_cplx beta,
                 void *w);
  /* wait until every queued operation has finished (no-op on the CPU) */
  em_err (*sync)(em_vec *v);
  /* free v->data */
  void (*destroy)(em_vec *v);
  /* The lockstep methods' columns (issue 28): the same k fused dot products
   * of m column sets (k <= EM_VEC_MAX_DOTS, m <= EM_VEC_MAX_COLS),
   * out[j k + i] = x[j k + i]^H y[j k + i] (conj[i]) or ^T, each value bit
   * for bit what dots gives for set j, in one pass and one
   * synchronisation; NULL: em_vec_cdots calls dots per set */
  em_err (*cdots)(em_vec *v, int m, int k, const void *const *x, const void *const *y,
                  const int *conj, em_cplx *out);
  /* y_j = a_j x_j + b_j y_j, j < m <= EM_VEC_MAX_COLS, the y_j distinct, in
   * one launch; NULL: em_vec_caxpby calls axpby per pair */
  em_err (*caxpby)(em_vec *v, int m, const em_cplx *a, const void *const *x, const em_cplx *b,
                   void *const *y);
  /* z_j = a_j x_j + b_j y_j + c_j z_j, j < m <= EM_VEC_MAX_COLS, the z_j
   * distinct, in one launch, each value axpbypcz's; NULL:
   * em_vec_caxpbypcz calls axpbypcz per triple */
  em_err (*caxpbypcz)(em_vec *v, int m, const em_cplx *a, const void *const *x, const em_cplx *b,
                      const void *const *y, const em_cplx *c, void *const *z);
  /* A column in the caller's numbering to and from the operator's (perm:
   * host, length n, a permutation): x[perm[i]] = h[i] (upload_perm), h[i] =
   * x[perm[i]] (download_perm), the permutation applied where x lives (on
   * the GPU: no host pass over a permuted copy); NULL: the Krylov driver
   * permutes a host copy (ksp.c) */
  em_err (*upload_perm)(em_vec *v, const em_cplx *h, const int32_t *perm, void *x);
  em_err (*download_perm)(em_vec *v, const void *x, const int32_t *perm, em_cplx *h);
} em_vec_ops;

struct em_vec {
  em_backend backend;    /* where the vectors live */
  em_prec prec;          /* precision of their entries */
  int32_t n;             /* length */
  size_t elsize;         /* bytes of one entry: 16 or 8 */
  int max_k;             /* widest block mdot/gemv accept */
  const em_vec_ops *ops; /* the backend's implementation */
  void *data;            /* the backend's state (cuBLAS handle, scratch) */
  /* a distributed operator's vectors (vec_dist.c): the rank's entries, the
     reductions summed over the ranks of dist; NULL: whole vectors */
  const struct em_dist *dist;
  const em_vec_ops *local; /* the backend's table under dist_ops */
  em_vec_ops dist_ops;     /* ops points here when dist is set */
};

/* A backend for vectors of length n; max_k bounds the GMRES blocks. */
em_err em_vec_create(em_backend backend, em_prec prec, int32_t n, int max_k, em_vec **v);
void em_vec_destroy(em_vec **v);
/* Make v's reductions (dots, mdot, em_vec_norm) sums over the ranks of d
 * (NULL: nothing changes): for the vectors of em_operator.dist. */
em_err em_vec_distribute(em_vec *v, const struct em_dist *d);

/* Backend constructors (vec_cpu.c, vec_cuda.c): fill v->ops and v->data. */
em_err em_vec_cpu_init(em_vec *v);
em_err em_vec_cuda_init(em_vec *v);

/* Column j of a block allocated by ops->alloc. */
static inline void *em_vec_col(const em_vec *v, void *X, int j) {
  return (char *)X + (size_t)j * (size_t)v->n * v->elsize;
}

/* y += a x */
static inline em_err em_vec_axpy(em_vec *v, em_cplx a, const void *x, void *y) {
  return v->ops->axpby(v, a, x, 1.0, y);
}

/* *d = x^H y (conj) or x^T y */
static inline em_err em_vec_dot(em_vec *v, int conj, const void *x, const void *y, em_cplx *d) {
  const void *xs[1] = {x}, *ys[1] = {y};
  int cs[1] = {conj};
  return v->ops->dots(v, 1, xs, ys, cs, d);
}

/* ||x||_2 */
em_err em_vec_norm(em_vec *v, const void *x, double *nrm);

/* ops->cdots on any m (groups of EM_VEC_MAX_COLS), or dots per set; the
 * synchronisations: one per group. */
em_err em_vec_cdots(em_vec *v, int m, int k, const void *const *x, const void *const *y,
                    const int *conj, em_cplx *out);
/* ops->caxpby on any m (groups of EM_VEC_MAX_COLS), or axpby per pair. */
em_err em_vec_caxpby(em_vec *v, int m, const em_cplx *a, const void *const *x, const em_cplx *b,
                     void *const *y);
/* ops->caxpbypcz on any m (groups of EM_VEC_MAX_COLS), or axpbypcz per
 * triple. */
em_err em_vec_caxpbypcz(em_vec *v, int m, const em_cplx *a, const void *const *x, const em_cplx *b,
                        const void *const *y, const em_cplx *c, void *const *z);
/* nrm[j] = ||x_j||_2 for m vectors: em_vec_norm's value, one cdots. */
em_err em_vec_cnorms(em_vec *v, int m, const void *const *x, double *nrm);

#endif
