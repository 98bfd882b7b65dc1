/* refine_mark.c - which tets an adaptive pass refines, and how (em_model.h,
 * docs/adapt.md).
 *
 * Doerfler marking (Doerfler, SIAM J. Numer. Anal. 33, 1996): the tets of
 * largest eta_T^2 first until their sum reaches theta sum_T eta_T^2.  Each
 * marked tet is raised one order (p, and hp below the highest order) or
 * split (h, and hp at the highest order): its four vertices ask for
 * `shrink` of their size.  A pass must change the discretisation enough
 * for the change of S between passes to say something about its error
 * (with tiny steps S moves little however wrong it is), and not so much
 * that one pass jumps far beyond what is needed: the predicted unknowns
 *   U' = sum_T u(p'_T) (mean_a 1 / s_a)^3,  s_a the shrink of T's vertices
 * (u(p) the unknowns per tet at order p of a Delaunay mesh, about 1.2 edges
 * and 2 faces per tet) must reach grow_min U, and marking stops before it
 * passes grow_max U (beyond theta when needed for grow_min; short of theta
 * when grow_max comes first). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "em_model.h"

#define EM_REFINE_NEAR 4096 /* tets around a tet's vertices counted at most */

/* unknowns per tet at order p: 1.2 p + 2 p (p - 1) + p (p - 1) (p - 2) / 2 */
static double per_tet(int p) {
  return 1.2 * p + 2.0 * p * (p - 1) + 0.5 * p * (p - 1) * (p - 2);
}

typedef struct {
  double v;
  int32_t i;
} vi_pair;

static int by_value_desc(const void *a, const void *b) {
  double x = ((const vi_pair *)a)->v, y = ((const vi_pair *)b)->v;
  int32_t i = ((const vi_pair *)a)->i, j = ((const vi_pair *)b)->i;
  return x < y ? 1 : x > y ? -1 : (i > j) - (i < j); /* ties: by index, deterministic */
}

/* vertex -> tets (CSR) */
static em_err vertex_tets(const em_mesh *m, int32_t **ptr, int32_t **list) {
  EM_TRY(em_calloc(ptr, (size_t)m->n_vert + 1, sizeof **ptr, "vertex tets"));
  for (int64_t k = 0; k < 4 * (int64_t)m->n_tet; k++) (*ptr)[m->tet[k] + 1]++;
  for (int32_t v = 0; v < m->n_vert; v++) (*ptr)[v + 1] += (*ptr)[v];
  EM_TRY(em_calloc(list, 4 * (size_t)m->n_tet, sizeof **list, "vertex tets"));
  int32_t *fill = NULL;
  EM_TRY(em_calloc(&fill, (size_t)m->n_vert, sizeof *fill, "vertex tets"));
  for (int32_t t = 0; t < m->n_tet; t++)
    for (int a = 0; a < 4; a++) {
      int32_t v = m->tet[4 * (size_t)t + a];
      (*list)[(*ptr)[v] + fill[v]++] = t;
    }
  em_free(&fill);
  return EM_OK;
}

/* The predicted unknowns of tet t: u(order) (mean_a 1 / s_a)^3 over its
 * vertices' shrink s_a (the size field is linear in the tet). */
static double tet_cost(const em_mesh *m, int32_t t, int p, const double *vshrink) {
  double r = 0;
  for (int a = 0; a < 4; a++) r += 0.25 / vshrink[m->tet[4 * (size_t)t + a]];
  return per_tet(p) * r * r * r;
}

em_err em_refine_mark(const em_mesh *m, const double *eta2, const em_refine_opts *o,
                      const int8_t *order, int8_t *new_order, double *vshrink,
                      em_refine_stats *st) {
  EM_CHECK(m && eta2 && o && vshrink && st, EM_ERR_ARG, "refine mark: NULL argument");
  EM_CHECK(o->kind == EM_REFINE_H || (order && new_order), EM_ERR_ARG,
           "refine mark: p and hp need the orders");
  EM_CHECK(o->fraction > 0 && o->fraction <= 1 && o->shrink > 0 && o->shrink < 1 &&
               o->grow_min >= 1 && o->grow_max >= o->grow_min,
           EM_ERR_ARG, "refine mark: fraction %g, shrink %g, growth %g .. %g", o->fraction,
           o->shrink, o->grow_min, o->grow_max);
  vi_pair *p = NULL;
  int32_t *ptr = NULL, *list = NULL, *stamp = NULL;
  em_err err = EM_OK;
  memset(st, 0, sizeof *st);
  for (int32_t v = 0; v < m->n_vert; v++) vshrink[v] = 1;
  if (order) memcpy(new_order, order, (size_t)m->n_tet);
  EM_TRY_GOTO(err, em_calloc(&p, (size_t)m->n_tet + 1, sizeof *p, "marking order"), done);
  EM_TRY_GOTO(err, vertex_tets(m, &ptr, &list), done);
  EM_TRY_GOTO(err, em_calloc(&stamp, (size_t)m->n_tet + 1, sizeof *stamp, "marking stamps"), done);
  double total = 0, acc = 0, U0 = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    if (!(eta2[t] >= 0 && isfinite(eta2[t]))) {
      err = EM_RAISE(EM_ERR_ARG, "refine mark: eta_T^2 = %g at tet %d", eta2[t], t);
      goto done;
    }
    p[t].v = eta2[t], p[t].i = t, total += eta2[t];
    U0 += per_tet(order ? order[t] : 1);
  }
  qsort(p, (size_t)m->n_tet, sizeof *p, by_value_desc);
  double U = U0;
  for (int32_t k = 0; k < m->n_tet; k++) {
    if (acc >= o->fraction * total && U >= o->grow_min * U0) break;
    int32_t t = p[k].i;
    int q = order ? new_order[t] : 1;
    int raise = o->kind != EM_REFINE_H && q < EM_MAX_ORDER,
        split = !raise && o->kind != EM_REFINE_P;
    if (!raise && !split) continue; /* p: already at the highest order */
    double dU = 0;
    if (raise) dU = tet_cost(m, t, q + 1, vshrink) - tet_cost(m, t, q, vshrink);
    if (split) { /* the tets around its vertices (each once), before and after */
      int32_t near[EM_REFINE_NEAR], n_near = 0;
      for (int a = 0; a < 4; a++) {
        int32_t v = m->tet[4 * (size_t)t + a];
        for (int32_t j = ptr[v]; j < ptr[v + 1]; j++)
          if (stamp[list[j]] != k + 1 && n_near < EM_REFINE_NEAR)
            stamp[list[j]] = k + 1, near[n_near++] = list[j];
      }
      double before = 0, after = 0, keep[4];
      for (int i = 0; i < n_near; i++)
        before += tet_cost(m, near[i], order ? new_order[near[i]] : 1, vshrink);
      for (int a = 0; a < 4; a++) {
        int32_t v = m->tet[4 * (size_t)t + a];
        keep[a] = vshrink[v];
        vshrink[v] = fmin(vshrink[v], o->shrink);
      }
      for (int i = 0; i < n_near; i++)
        after += tet_cost(m, near[i], order ? new_order[near[i]] : 1, vshrink);
      dU = after - before;
      if (st->n_p + st->n_h > 0 && U + dU > o->grow_max * U0)
        for (int a = 0; a < 4; a++) vshrink[m->tet[4 * (size_t)t + a]] = keep[a];
    }
    if (st->n_p + st->n_h > 0 && U + dU > o->grow_max * U0) break;
    if (raise) new_order[t] = (int8_t)(q + 1), st->n_p++;
    if (split) st->n_h++;
    U += dU;
    acc += eta2[t];
  }
  st->share = total > 0 ? acc / total : 0;
  st->growth = U0 > 0 ? U / U0 : 1;
done:
  em_free(&p);
  em_free(&ptr);
  em_free(&list);
  em_free(&stamp);
  return err;
}
