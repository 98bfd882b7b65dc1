/* dirichlet.c - values of the fixed DOFs.
 *
 * PEC (no data): zero.  Otherwise projection-based interpolation of the
 * tangential data E_D, edge by edge then face by face:
 *   edge (a,b), t = x_b - x_a, s in [0,1]:  find c minimising
 *     int_0^1 |E_D.t - sum_k c_k w_k.t|^2 ds   over the edge's p functions
 *   face F:  find c minimising  int_F |(E_D - E_edges)_t - sum_k c_k w_k,t|^2
 *     over the face's p(p-1) functions, E_edges being the edge part already
 *     fixed and u_t = u - (u.n) n the tangential trace.
 * The Whitney coefficient is the edge average of E_D.t (the higher edge
 * traces have zero mean), so the lowest order matches the classical
 * Nedelec interpolant and the rates stay optimal (Demkowicz's projection-
 * based interpolation with L2 edge/face projections). */
#include <math.h>
#include <string.h>

#include "assembly_impl.h"
#include "quadrature_impl.h"

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

/* The p functions of local edge le of tet t (g its geometry): 1D L2
 * projection of E_D.t, written to fixed[]. */
static em_err project_edge(const em_dofmap *d, const em_problem *prob, const em_tet_geom *g, int le,
                           const int32_t *code, em_cplx *fixed) {
  int p = d->order, nb = em_basis_count(p), fn[EM_MAX_ORDER], nf = 0;
  const em_basis_fn *tab = em_basis_table(p);
  for (int i = 0; i < nb; i++)
    if (tab[i].kind == EM_ENT_EDGE && tab[i].entity == le) fn[nf++] = i;
  int a = EM_TET_EDGE[le][0], b = EM_TET_EDGE[le][1];
  double tv[3], s[EM_MAX_ORDER + 3], ws[EM_MAX_ORDER + 3], M[EM_MAX_ORDER * EM_MAX_ORDER] = {0};
  em_cplx rhs[EM_MAX_ORDER] = {0};
  for (int k = 0; k < 3; k++) tv[k] = g->x[b][k] - g->x[a][k];
  int nq = p + 3;
  em_quad_line(nq, s, ws);
  double w[EM_NB_MAX][3];
  for (int q = 0; q < nq; q++) {
    double lam[4] = {0, 0, 0, 0}, x[3];
    lam[a] = 1 - s[q];
    lam[b] = s[q];
    for (int k = 0; k < 3; k++) x[k] = lam[a] * g->x[a][k] + lam[b] * g->x[b][k];
    em_cplx E[3];
    EM_TRY(eval_data(prob, x, E));
    em_cplx et = E[0] * tv[0] + E[1] * tv[1] + E[2] * tv[2];
    em_basis_eval(p, lam, g->grad, w, NULL);
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

/* Tangential part u - (u.n) n. */
static void tangential(const double n[3], double u[3]) {
  double un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
  for (int k = 0; k < 3; k++) u[k] -= un * n[k];
}

/* The p(p-1) functions of local face lf of tet t: 2D L2 projection of the
 * tangential residual after the (already fixed) edge part. */
static em_err project_face(const em_dofmap *d, const em_problem *prob, const em_tet_geom *g, int lf,
                           const int32_t *code, em_cplx *fixed) {
  int p = d->order, nb = em_basis_count(p), fn[6], nf = 0, fe[3 * EM_MAX_ORDER], ne = 0;
  const em_basis_fn *tab = em_basis_table(p);
  for (int i = 0; i < nb; i++) {
    if (tab[i].kind == EM_ENT_FACE && tab[i].entity == lf) fn[nf++] = i;
    if (tab[i].kind == EM_ENT_EDGE && EM_TET_EDGE[tab[i].entity][0] != lf &&
        EM_TET_EDGE[tab[i].entity][1] != lf)
      fe[ne++] = i;
  }
  const int *fv = EM_TET_FACE[lf];
  double e1[3], e2[3], n[3];
  for (int k = 0; k < 3; k++) {
    e1[k] = g->x[fv[1]][k] - g->x[fv[0]][k];
    e2[k] = g->x[fv[2]][k] - g->x[fv[0]][k];
  }
  n[0] = e1[1] * e2[2] - e1[2] * e2[1];
  n[1] = e1[2] * e2[0] - e1[0] * e2[2];
  n[2] = e1[0] * e2[1] - e1[1] * e2[0];
  double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  EM_CHECK(nn > 0, EM_ERR_INPUT, "Dirichlet face of local index %d is degenerate", lf);
  for (int k = 0; k < 3; k++) n[k] /= nn;
  em_quad q;
  EM_TRY(em_quad_tri(2 * p + 2 > EM_QUAD_MAX_DEGREE ? EM_QUAD_MAX_DEGREE : 2 * p + 2, &q));
  double M[36] = {0}, w[EM_NB_MAX][3];
  em_cplx rhs[6] = {0};
  for (int k = 0; k < q.n; k++) {
    double lam[4] = {0, 0, 0, 0}, x[3] = {0, 0, 0};
    for (int v = 0; v < 3; v++) lam[fv[v]] = q.lam[3 * k + v];
    for (int v = 0; v < 4; v++)
      for (int c = 0; c < 3; c++) x[c] += lam[v] * g->x[v][c];
    em_cplx E[3];
    EM_TRY(eval_data(prob, x, E));
    em_basis_eval(p, lam, g->grad, w, NULL);
    for (int i = 0; i < ne; i++) {
      em_cplx c = fixed[-code[fe[i]] - 1];
      for (int v = 0; v < 3; v++) E[v] -= c * w[fe[i]][v];
    }
    em_cplx En = E[0] * n[0] + E[1] * n[1] + E[2] * n[2];
    for (int v = 0; v < 3; v++) E[v] -= En * n[v];
    double wt[6][3];
    for (int i = 0; i < nf; i++) {
      memcpy(wt[i], w[fn[i]], sizeof wt[i]);
      tangential(n, wt[i]);
    }
    for (int i = 0; i < nf; i++) {
      rhs[i] += q.w[k] * (E[0] * wt[i][0] + E[1] * wt[i][1] + E[2] * wt[i][2]);
      for (int j = 0; j < nf; j++)
        M[i * nf + j] += q.w[k] * (wt[i][0] * wt[j][0] + wt[i][1] * wt[j][1] + wt[i][2] * wt[j][2]);
    }
  }
  EM_TRY(em_small_spd_solve(nf, M, rhs, "Dirichlet face of local index", lf));
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
      int geom = 0;
      for (int k = 0; k < (pass ? 4 : 6); k++) {
        int32_t ent = pass ? m->tet_face[4 * (size_t)t + k] : m->tet_edge[6 * (size_t)t + k];
        int fixed_ent =
            pass ? (nf > 0 && d->face_dof[(size_t)ent * nf] < 0) : d->edge_dof[(size_t)ent * p] < 0;
        uint8_t *mark = done + (pass ? m->n_edge : 0) + ent;
        if (!fixed_ent || *mark) continue;
        if (!geom) {
          em_tet_geom_make(m, t, &g);
          em_dofmap_tet(d, m, t, code);
          geom = 1;
        }
        err = pass ? project_face(d, prob, &g, k, code, fixed)
                   : project_edge(d, prob, &g, k, code, fixed);
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
