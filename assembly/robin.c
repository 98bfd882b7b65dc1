/* robin.c - Robin boundaries (ports, ABC, surface impedances, lumped
 * elements):
 *   A += gamma oint (n x w_i).(n x w_j),   b[:, rhs] += oint g . (n x w_i) x n
 * (with a direction d: gamma oint (w_i . d)(w_j . d), the g term alike)
 * over the triangles of a surface group, with (n x u).(n x v) = u_t . v_t
 * (u_t = u - (u.n) n).  The trace is taken from one adjacent tet; only the
 * functions of the face's three edges and of the face itself have a
 * tangential trace there.  g is paired with the tangential trace of w, the
 * only part that is single-valued across the face (a tangential g gives the
 * same as g . w).  Curved faces (Mesh/geometry_order 2) are integrated on
 * their own map (em_tet_face_at).  Triangles are processed in order on one thread so the
 * matrix stays exactly symmetric. */
#include <math.h>
#include <string.h>

#include "assembly_impl.h"
#include "quadrature_impl.h"

/* Name of a Robin boundary for messages. */
static const char *robin_name(const em_mesh *m, const em_robin *r) {
  return r->group >= 0 ? m->group[r->group].name : "outer boundary";
}

/* One face f (triangle k of a group, or a listed face) of Robin boundary r,
 * by a triangle rule on the face's own map: a curved face (second-order
 * mesh) has its own point, normal and area element at each point
 * (em_tet_face_at) and the highest stored rule. */
static em_err robin_face(const em_mesh *m, const em_dofmap *d, const em_pattern *pat,
                         const em_robin *r, int32_t f, em_system *sys) {
  int32_t k = f, t = m->face_tet[2 * (size_t)f];
  int lf = em_tet_local_face(m, t, f);
  EM_CHECK(lf >= 0, EM_ERR_INTERNAL, "face %d not found in its tet %d", f, t);
  em_tet_geom g;
  em_tet_geom_make(m, t, &g);
  int32_t code[EM_NB_MAX];
  int p = em_dofmap_tet(d, m, t, code), nb = em_basis_count(p); /* the element's order */
  const em_basis_fn *tab = em_basis_table(p);
  int fn[3 * EM_MAX_ORDER + 6], nt = 0;
  for (int i = 0; i < nb; i++)
    if (code[i] != EM_DOF_NONE &&
        ((tab[i].kind == EM_ENT_FACE && tab[i].entity == lf) ||
         (tab[i].kind == EM_ENT_EDGE && EM_TET_EDGE[tab[i].entity][0] != lf &&
          EM_TET_EDGE[tab[i].entity][1] != lf)))
      fn[nt++] = i;
  int rows = 0; /* a part's assembly: only faces with one of its rows */
  for (int i = 0; i < nt; i++) rows += code[fn[i]] >= 0 && em_pattern_row(pat, code[fn[i]]) >= 0;
  if (!rows) return EM_OK;
  int deg = g.curved ? EM_QUAD_MAX_DEGREE : r->g ? 2 * p + 2 : 2 * p;
  em_quad q;
  EM_TRY(em_quad_tri(deg > EM_QUAD_MAX_DEGREE ? EM_QUAD_MAX_DEGREE : deg, &q));
  double M[(3 * EM_MAX_ORDER + 6) * (3 * EM_MAX_ORDER + 6)] = {0}, w[EM_NB_MAX][3];
  for (int kq = 0; kq < q.n; kq++) {
    double lam[4], x[3], grad[4][3], da, n[3];
    em_tet_face_at(&g, lf, q.lam + 3 * kq, lam, x, grad, &da, n, NULL);
    EM_CHECK(da > 0, EM_ERR_INPUT, "Robin boundary '%s': face %d is degenerate", robin_name(m, r),
             k);
    em_basis_eval(p, lam, (const double(*)[3])grad, w, NULL);
    double wt[3 * EM_MAX_ORDER + 6][3];
    for (int i = 0; i < nt; i++) {
      double un = w[fn[i]][0] * n[0] + w[fn[i]][1] * n[1] + w[fn[i]][2] * n[2];
      for (int c = 0; c < 3; c++) wt[i][c] = w[fn[i]][c] - un * n[c];
      if (r->dir) { /* a sheet along dir: only the trace's component along it */
        double ud = wt[i][0] * r->dir[0] + wt[i][1] * r->dir[1] + wt[i][2] * r->dir[2];
        for (int c = 0; c < 3; c++) wt[i][c] = ud * r->dir[c];
      }
    }
    double wq = q.w[kq] * da;
    for (int i = 0; i < nt; i++)
      for (int j = i; j < nt; j++)
        M[i * nt + j] += wq * (wt[i][0] * wt[j][0] + wt[i][1] * wt[j][1] + wt[i][2] * wt[j][2]);
    if (r->g) {
      em_cplx gv[3];
      EM_TRY(r->g(r->g_ctx, x, gv));
      for (int c = 0; c < 3; c++)
        EM_CHECK(isfinite(creal(gv[c])) && isfinite(cimag(gv[c])), EM_ERR_INPUT,
                 "Robin boundary '%s': source g is not finite at (%g, %g, %g)", robin_name(m, r),
                 x[0], x[1], x[2]);
      em_cplx *b = sys->b + (size_t)r->rhs * sys->n_row;
      for (int i = 0; i < nt; i++) {
        int32_t row = code[fn[i]] >= 0 ? em_pattern_row(pat, code[fn[i]]) : -1;
        if (row >= 0) b[row] += wq * (gv[0] * wt[i][0] + gv[1] * wt[i][1] + gv[2] * wt[i][2]);
      }
    }
  }
  for (int i = 0; i < nt; i++) {
    int32_t ci = code[fn[i]];
    if (ci < 0 || em_pattern_row(pat, ci) < 0) continue;
    int32_t ent = em_pattern_entity(pat, m, t, tab + fn[i]);
    for (int j = 0; j < nt; j++) {
      int32_t cj = code[fn[j]];
      em_cplx a = r->gamma * (i <= j ? M[i * nt + j] : M[j * nt + i]);
      if (cj >= 0) {
        EM_TRY(em_pattern_add(pat, sys->A, ent, ci, cj, a));
      } else {
        for (int c = 0; c < sys->n_rhs; c++)
          sys->b[(size_t)c * sys->n_row + em_pattern_row(pat, ci)] -= a * sys->fixed[-cj - 1];
      }
    }
  }
  return EM_OK;
}

em_err em_robin_add(const em_mesh *m, const em_dofmap *d, const em_problem *prob,
                    const em_pattern *pat, em_system *sys) {
  for (int k = 0; k < prob->n_robin; k++) {
    const em_robin *r = prob->robin + k;
    EM_CHECK(isfinite(creal(r->gamma)) && isfinite(cimag(r->gamma)), EM_ERR_INPUT,
             "Robin boundary '%s': gamma is not finite", robin_name(m, r));
    if (r->group < 0) {
      for (int32_t i = 0; i < r->n_faces; i++) {
        EM_CHECK(r->faces[i] >= 0 && r->faces[i] < m->n_face, EM_ERR_ARG,
                 "Robin boundary: face %d outside 0..%d", r->faces[i], m->n_face - 1);
        EM_TRY(robin_face(m, d, pat, r, r->faces[i], sys));
      }
      continue;
    }
    for (int32_t tri = 0; tri < m->n_tri; tri++)
      if (m->tri_group[tri] == r->group) EM_TRY(robin_face(m, d, pat, r, m->tri_face[tri], sys));
  }
  return EM_OK;
}
