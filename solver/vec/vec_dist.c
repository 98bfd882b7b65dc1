/* vec_dist.c - vectors of a distributed operator (issue 27): each rank
 * holds the entries of the rows it owns, so every reduction is the local
 * one summed over the ranks (em_dist_allreduce, one call per fused set of
 * dot products: the methods' synchronisations stay as many as on one rank).
 * The other operations are the backend's own, entry by entry. */
#include "em_dist.h"
#include "vec_impl.h"

/* out[i] = sum over the ranks of the local x[i]^H y[i] (or x^T y) */
static em_err dist_dots(em_vec *v, int k, const void *const *x, const void *const *y,
                        const int *conj, em_cplx *out) {
  EM_TRY(v->local->dots(v, k, x, y, conj, out));
  return em_dist_allreduce(v->dist, out, (size_t)k, EM_DIST_CPLX, EM_DIST_SUM);
}

/* h = V^H w summed over the ranks */
static em_err dist_mdot(em_vec *v, int k, const void *V, const void *w, em_cplx *h) {
  EM_TRY(v->local->mdot(v, k, V, w, h));
  return em_dist_allreduce(v->dist, h, (size_t)k, EM_DIST_CPLX, EM_DIST_SUM);
}

/* the m sets' local sums, then one sum over the ranks for all of them */
static em_err dist_cdots(em_vec *v, int m, int k, const void *const *x, const void *const *y,
                         const int *conj, em_cplx *out) {
  if (v->local->cdots)
    EM_TRY(v->local->cdots(v, m, k, x, y, conj, out));
  else
    for (int j = 0; j < m; j++) {
      size_t p = (size_t)j * (size_t)k;
      EM_TRY(v->local->dots(v, k, x + p, y + p, conj, out + p));
    }
  return em_dist_allreduce(v->dist, out, (size_t)m * (size_t)k, EM_DIST_CPLX, EM_DIST_SUM);
}

em_err em_vec_distribute(em_vec *v, const struct em_dist *d) {
  if (!d) return EM_OK;
  v->dist = d;
  v->local = v->ops;
  v->dist_ops = *v->ops;
  v->dist_ops.dots = dist_dots;
  v->dist_ops.mdot = dist_mdot;
  v->dist_ops.cdots = dist_cdots;
  v->ops = &v->dist_ops;
  return EM_OK;
}
