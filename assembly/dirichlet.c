/* dirichlet.c - values of the fixed DOFs.
 *
 * PEC (no data): zero.  Otherwise the interpolant defined by the classical
 * Nedelec moments of the data E_D (Nedelec 1980, first family), edge by
 * edge then face by face:
 *   edge (a,b), t = x_b - x_a, s in [0,1]: the p edge coefficients c solve
 *     int_0^1 (E_D - sum_k c_k w_k).t q ds = 0  for q in P_{p-1}(e);
 *     the edge traces w_k.t span P_{p-1}(e), so this is the 1D L2
 *     projection of E_D.t (the Whitney coefficient is the edge average);
 *   face F: the p(p-1) face coefficients solve
 *     int_F (E_D - E_edges - sum_k c_k w_k) . q = 0  for tangential
 *     q in P_{p-2}(F)^2 (i.e. the moments of (E - E_h) x n),
 *     E_edges being the edge part already fixed.
 * These moments make the interpolant commute with curl (the surface curl of
 * the interpolated trace is the projection of the data's surface curl), so
 * the boundary data keeps the O(h^p) curl rate.  A plain L2 projection of
 * the face trace onto the face functions does not commute: it was tried
 * and cost half an order in the curl error (rates drifting towards
 * p - 1/2 on refinement, see docs/basis.md).  On a curved tet the moments
 * are those of the reference entity: the data's tangential components along
 * the covariant tangents of the map, at the mapped points. */
#include <math.h>
#include <string.h>

#include "assembly_impl.h"
#include "quadrature_impl.h"

/* Gaussian elimination with partial pivoting of the real n x n row-major M
 * (overwritten), b complex (overwritten by the solution). */
static em_err small_lu_solve(int n, double *M, em_cplx *b, const char *what, int32_t id) {
  double scale = 0;
  for (int k = 0; k < n * n; k++) scale = fmax(scale, fabs(M[k]));
  for (int j = 0; j < n; j++) {
    int piv = j;
    for (int i = j + 1; i < n; i++)
      if (fabs(M[i * n + j]) > fabs(M[piv * n + j])) piv = i;
    EM_CHECK(fabs(M[piv * n + j]) > 1e-13 * scale && isfinite(M[piv * n + j]), EM_ERR_NUMERIC,
             "%s %d: interpolation moments are singular (pivot %d = %g; degenerate element?)", what,
             id, j, M[piv * n + j]);
    if (piv != j) {
      for (int k = 0; k < n; k++) {
        double t = M[j * n + k];
        M[j * n + k] = M[piv * n + k];
        M[piv * n + k] = t;
      }
      em_cplx t = b[j];
      b[j] = b[piv];
      b[piv] = t;
    }
    for (int i = j + 1; i < n; i++) {
      double f = M[i * n + j] / M[j * n + j];
      for (int k = j; k < n; k++) M[i * n + k] -= f * M[j * n + k];
      b[i] -= f * b[j];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    em_cplx r = b[i];
    for (int k = i + 1; k < n; k++) r -= M[i * n + k] * b[k];
    b[i] = r / M[i * n + i];
  }
  return EM_OK;
}

/* Cholesky M = L L^T then two triangular solves, b complex. */
em_err em_small_spd_solve(int n, double *M, em_cplx *b, const char *what, int32_t id) {
  for (int j = 0; j < n; j++) {
    double s = M[j * n + j];
    for (int k = 0; k < j; k++) s -= M[j * n + k] * M[j * n + k];
    EM_CHECK(s > 0 && isfinite(s), EM_ERR_NUMERIC,
             "%s %d: projection matrix not positive definite (pivot %d = %g; degenerate element?)",
             what, id, j, s);
    M[j * n + j] = sqrt(s);
    for (int i = j + 1; i < n; i++) {
      double r = M[i * n + j];
      for (int k = 0; k < j; k++) r -= M[i * n + k] * M[j * n + k];
      M[i * n + j] = r / M[j * n + j];
    }
  }
  for (int i = 0; i < n; i++) {
    em_cplx r = b[i];
    for (int k = 0; k < i; k++) r -= M[i * n + k] * b[k];
    b[i] = r / M[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    em_cplx r = b[i];
    for (int k = i + 1; k < n; k++) r -= M[k * n + i] * b[k];
    b[i] = r / M[i * n + i];
  }
  return EM_OK;
}

static em_err eval_data(const em_problem *prob, const double x[3], em_cplx E[3]) {
  EM_TRY(prob->dirichlet(prob->dirichlet_ctx, x, E));
  for (int d = 0; d < 3; d++)
    EM_CHECK(isfinite(creal(E[d])) && isfinite(cimag(E[d])), EM_ERR_INPUT,
             "Dirichlet data is not finite at (%g, %g, %g)", x[0], x[1], x[2]);
  return EM_OK;
}

/* The q functions of local edge le (of order q) of tet t (g its geometry,
 * p its element order, code its codes): 1D L2 projection of E_D.t onto
 * P_{q-1}, written to fixed[]. */
static em_err project_edge(int p, const em_problem *prob, const em_tet_geom *g, int le,
                           const int32_t *code, em_cplx *fixed) {
  int nb = em_basis_count(p), fn[EM_MAX_ORDER], nf = 0;
  const em_basis_fn *tab = em_basis_table(p);
  for (int i = 0; i < nb; i++)
    if (tab[i].kind == EM_ENT_EDGE && tab[i].entity == le && code[i] != EM_DOF_NONE) fn[nf++] = i;
  int a = EM_TET_EDGE[le][0], b = EM_TET_EDGE[le][1];
  double tv[3], s[EM_MAX_ORDER + 3], ws[EM_MAX_ORDER + 3], M[EM_MAX_ORDER * EM_MAX_ORDER] = {0};
  em_cplx rhs[EM_MAX_ORDER] = {0};
  for (int k = 0; k < 3; k++) tv[k] = g->x[b][k] - g->x[a][k];
  int nq = g->curved ? EM_MAX_ORDER + 3 : p + 3; /* s[] holds EM_MAX_ORDER + 3 */
  em_quad_line(nq, s, ws);
  double w[EM_NB_MAX][3];
  for (int q = 0; q < nq; q++) {
    double lam[4] = {0, 0, 0, 0}, x[3], grad[4][3], dv;
    lam[a] = 1 - s[q];
    lam[b] = s[q];
    /* a curved edge: the quadratic curve through x_a, its mid node, x_b;
       t = dx/ds = (4s - 3) x_a + (4s - 1) x_b + (4 - 8s) x_m (the
       covariant tangent: w . t is the reference trace) */
    em_tet_geom_at(g, lam, x, grad, &dv);
    if (g->curved)
      for (int k = 0; k < 3; k++)
        tv[k] = (4 * s[q] - 3) * g->x[a][k] + (4 * s[q] - 1) * g->x[b][k] +
                (4 - 8 * s[q]) * g->xm[le][k];
    em_cplx E[3];
    EM_TRY(eval_data(prob, x, E));
    em_cplx et = E[0] * tv[0] + E[1] * tv[1] + E[2] * tv[2];
    em_basis_eval(p, lam, (const double(*)[3])grad, w, NULL);
    double wt[EM_MAX_ORDER];
    for (int k = 0; k < nf; k++)
      wt[k] = w[fn[k]][0] * tv[0] + w[fn[k]][1] * tv[1] + w[fn[k]][2] * tv[2];
    for (int k = 0; k < nf; k++) {
      rhs[k] += ws[q] * et * wt[k];
      for (int l = 0; l < nf; l++) M[k * nf + l] += ws[q] * wt[k] * wt[l];
    }
  }
  EM_TRY(em_small_spd_solve(nf, M, rhs, "Dirichlet edge of local index", le));
  for (int k = 0; k < nf; k++) fixed[-code[fn[k]] - 1] = rhs[k];
  return EM_OK;
}

/* The q(q-1) functions of local face lf (of order q) of tet t: Nedelec
 * face moments against tangential v in P_{q-2}(F)^2 = {1 (q = 2) or lam_a,
 * lam_b, lam_c (q = 3)} x {t1, t2}, t1 = x_b - x_a, t2 = n x t1, of the data
 * minus the (already fixed) part of the face's edges, whatever their
 * orders. */
static em_err project_face(int p, const em_problem *prob, const em_tet_geom *g, int lf,
                           const int32_t *code, em_cplx *fixed) {
  int nb = em_basis_count(p), fn[6], nf = 0, fe[3 * EM_MAX_ORDER], ne = 0;
  const em_basis_fn *tab = em_basis_table(p);
  for (int i = 0; i < nb; i++) {
    if (code[i] == EM_DOF_NONE) continue;
    if (tab[i].kind == EM_ENT_FACE && tab[i].entity == lf) fn[nf++] = i;
    if (tab[i].kind == EM_ENT_EDGE && EM_TET_EDGE[tab[i].entity][0] != lf &&
        EM_TET_EDGE[tab[i].entity][1] != lf)
      fe[ne++] = i;
  }
  int qf = nf == 2 ? 2 : 3; /* the face's order: 2 or 6 functions */
  const int *fv = EM_TET_FACE[lf];
  double t1[3], e2[3], n[3], t2[3];
  for (int k = 0; k < 3; k++) {
    t1[k] = g->x[fv[1]][k] - g->x[fv[0]][k];
    e2[k] = g->x[fv[2]][k] - g->x[fv[0]][k];
  }
  n[0] = t1[1] * e2[2] - t1[2] * e2[1];
  n[1] = t1[2] * e2[0] - t1[0] * e2[2];
  n[2] = t1[0] * e2[1] - t1[1] * e2[0];
  double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  EM_CHECK(nn > 0, EM_ERR_INPUT, "Dirichlet face of local index %d is degenerate", lf);
  for (int k = 0; k < 3; k++) n[k] /= nn;
  t2[0] = n[1] * t1[2] - n[2] * t1[1];
  t2[1] = n[2] * t1[0] - n[0] * t1[2];
  t2[2] = n[0] * t1[1] - n[1] * t1[0];
  em_quad q;
  int deg = g->curved || 2 * p + 2 > EM_QUAD_MAX_DEGREE ? EM_QUAD_MAX_DEGREE : 2 * p + 2;
  EM_TRY(em_quad_tri(deg, &q));
  double M[36] = {0}, w[EM_NB_MAX][3];
  em_cplx rhs[6] = {0};
  for (int k = 0; k < q.n; k++) {
    double lam[4], x[3], grad[4][3], da, nk[3], tan[2][3];
    /* a curved face: its own point and the covariant tangents dx/ds, dx/dt
       as the tangential test directions (the reference face's moments) */
    em_tet_face_at(g, lf, q.lam + 3 * k, lam, x, grad, &da, nk, tan);
    if (g->curved)
      for (int c = 0; c < 3; c++) t1[c] = tan[0][c], t2[c] = tan[1][c];
    em_cplx E[3];
    EM_TRY(eval_data(prob, x, E));
    em_basis_eval(p, lam, (const double(*)[3])grad, w, NULL);
    for (int i = 0; i < ne; i++) {
      em_cplx c = fixed[-code[fe[i]] - 1];
      for (int v = 0; v < 3; v++) E[v] -= c * w[fe[i]][v];
    }
    /* test vectors: scalar factor (1, or the face barycentrics) x {t1, t2} */
    double qv[6][3];
    int nq = 0;
    for (int s = 0; s < (qf == 2 ? 1 : 3); s++) {
      double f = qf == 2 ? 1.0 : q.lam[3 * k + s];
      for (int c = 0; c < 3; c++) {
        qv[nq][c] = f * t1[c];
        qv[nq + 1][c] = f * t2[c];
      }
      nq += 2;
    }
    for (int m = 0; m < nq; m++) {
      rhs[m] += q.w[k] * (E[0] * qv[m][0] + E[1] * qv[m][1] + E[2] * qv[m][2]);
      for (int j = 0; j < nf; j++)
        M[m * nf + j] +=
            q.w[k] * (qv[m][0] * w[fn[j]][0] + qv[m][1] * w[fn[j]][1] + qv[m][2] * w[fn[j]][2]);
    }
  }
  EM_TRY(small_lu_solve(nf, M, rhs, "Dirichlet face of local index", lf));
  for (int i = 0; i < nf; i++) fixed[-code[fn[i]] - 1] = rhs[i];
  return EM_OK;
}

em_err em_dirichlet_values(const em_mesh *m, const em_dofmap *d, const em_problem *prob,
                           em_cplx *fixed) {
  memset(fixed, 0, (size_t)d->n_fixed * sizeof *fixed);
  if (!prob->dirichlet || d->n_fixed == 0) return EM_OK;
  em_err err = EM_OK;
  uint8_t *done = NULL;
  int p = d->order, nf = p * (p - 1);
  EM_TRY(em_calloc(&done, (size_t)m->n_edge + m->n_face, 1, "Dirichlet marks"));
  /* all edges first: the face projections subtract the edge part */
  for (int pass = 0; pass < 2; pass++)
    for (int32_t t = 0; t < m->n_tet; t++) {
      int32_t code[EM_NB_MAX];
      em_tet_geom g;
      int geom = 0, q = 0;
      for (int k = 0; k < (pass ? 4 : 6); k++) {
        int32_t ent = pass ? m->tet_face[4 * (size_t)t + k] : m->tet_edge[6 * (size_t)t + k];
        int fixed_ent = pass ? (nf > 0 && em_dof_fixed(d->face_dof[(size_t)ent * nf]))
                             : d->edge_dof[(size_t)ent * p] < 0;
        uint8_t *mark = done + (pass ? m->n_edge : 0) + ent;
        if (!fixed_ent || *mark) continue;
        if (!geom) {
          em_tet_geom_make(m, t, &g); /* curved: the projections follow the map */
          q = em_dofmap_tet(d, m, t, code);
          geom = 1;
        }
        err = pass ? project_face(q, prob, &g, k, code, fixed)
                   : project_edge(q, prob, &g, k, code, fixed);
        if (err) { /* name the global entity (the message buffer is reused) */
          char why[512];
          snprintf(why, sizeof why, "%s", em_error_message());
          EM_RAISE(err, "Dirichlet data on %s %d (tet %d): %s", pass ? "face" : "edge", ent, t,
                   why);
          goto done;
        }
        *mark = 1;
      }
    }
done:
  em_free(&done);
  return err;
}
