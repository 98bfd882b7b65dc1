/* field.c - the discrete field E_h = sum_i c_i w_i inside one tet and its
 * L2 / H(curl)-seminorm distance to a given field. */
#include <math.h>

#include "assembly_impl.h"
#include "quadrature_impl.h"

/* Coefficient of code c: unknown x[c] or fixed value (zero when fixed is
 * NULL, i.e. PEC, or the function is absent). */
static em_cplx coef(const em_cplx *x, const em_cplx *fixed, int32_t c) {
  return c >= 0 ? x[c] : fixed && c != EM_DOF_NONE ? fixed[-c - 1] : 0;
}

/* E_h at lam of a tet of element order p (its codes). */
static void eval_geom(int p, const em_tet_geom *g, const int32_t *code, const em_cplx *x,
                      const em_cplx *fixed, const double lam[4], em_cplx E[3], em_cplx curlE[3]) {
  int n = em_basis_count(p);
  double w[EM_NB_MAX][3], c[EM_NB_MAX][3], x0[3], grad[4][3], dv;
  em_tet_geom_at(g, lam, x0, grad, &dv); /* curved: the point's own gradients */
  em_basis_eval(p, lam, (const double(*)[3])grad, w, curlE ? c : NULL);
  for (int k = 0; k < 3; k++) {
    if (E) E[k] = 0;
    if (curlE) curlE[k] = 0;
  }
  for (int i = 0; i < n; i++) {
    em_cplx a = coef(x, fixed, code[i]);
    for (int k = 0; k < 3; k++) {
      if (E) E[k] += a * w[i][k];
      if (curlE) curlE[k] += a * c[i][k];
    }
  }
}

void em_field_eval(const em_mesh *m, const em_dofmap *d, const em_cplx *x, const em_cplx *fixed,
                   int32_t t, const double lam[4], em_cplx E[3], em_cplx curlE[3]) {
  em_tet_geom g;
  int32_t code[EM_NB_MAX];
  em_tet_geom_make(m, t, &g);
  int p = em_dofmap_tet(d, m, t, code);
  eval_geom(p, &g, code, x, fixed, lam, E, curlE);
}

/* em_field_eval at n points of one tet (lam[4 k ..], E[3 k ..], curlE[3 k ..]),
 * its geometry and codes made once: the same values, point by point. */
void em_field_eval_tet(const em_mesh *m, const em_dofmap *d, const em_cplx *x, const em_cplx *fixed,
                       int32_t t, int n, const double *lam, em_cplx *E, em_cplx *curlE) {
  em_tet_geom g;
  int32_t code[EM_NB_MAX];
  em_tet_geom_make(m, t, &g);
  int p = em_dofmap_tet(d, m, t, code);
  for (int k = 0; k < n; k++)
    eval_geom(p, &g, code, x, fixed, lam + 4 * (size_t)k, E ? E + 3 * (size_t)k : NULL,
              curlE ? curlE + 3 * (size_t)k : NULL);
}

/* sqrt(sum_t int_t |E_h - E_ex|^2) and the same for the curls, degree 2p+2. */
em_err em_field_error(const em_mesh *m, const em_dofmap *d, const em_cplx *x, const em_cplx *fixed,
                      em_vector_fn E_ex, em_vector_fn curl_ex, void *ctx, double *l2_err,
                      double *curl_err) {
  EM_CHECK(m && d && x && E_ex && l2_err, EM_ERR_ARG, "field error: NULL argument");
  EM_CHECK(!curl_ex || curl_err, EM_ERR_ARG, "field error: curl_ex given without curl_err");
  em_quad q;
  EM_TRY(em_quad_tet(2 * d->order + 2, &q));
  double e2 = 0, c2 = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    em_tet_geom g;
    int32_t code[EM_NB_MAX];
    em_tet_geom_make(m, t, &g);
    int p = em_dofmap_tet(d, m, t, code);
    for (int k = 0; k < q.n; k++) {
      const double *lam = q.lam + 4 * k;
      double xp[3], grad[4][3], dv;
      EM_CHECK(!em_tet_geom_at(&g, lam, xp, grad, &dv), EM_ERR_INPUT,
               "field error: curved tet %d folds", t);
      em_cplx E[3], C[3], Ee[3], Ce[3];
      eval_geom(p, &g, code, x, fixed, lam, E, curl_ex ? C : NULL);
      EM_TRY(E_ex(ctx, xp, Ee));
      if (curl_ex) EM_TRY(curl_ex(ctx, xp, Ce));
      double wq = q.w[k] * dv;
      for (int c = 0; c < 3; c++) {
        double de = cabs(E[c] - Ee[c]);
        e2 += wq * de * de;
        if (curl_ex) {
          double dc = cabs(C[c] - Ce[c]);
          c2 += wq * dc * dc;
        }
      }
    }
  }
  EM_CHECK(isfinite(e2) && isfinite(c2), EM_ERR_NUMERIC, "field error is not finite");
  *l2_err = sqrt(e2);
  if (curl_ex) *curl_err = sqrt(c2);
  return EM_OK;
}
