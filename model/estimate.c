/* estimate.c - a residual error indicator per tet for the driven problem
 * of em_problem (em_model.h, docs/adapt.md).
 *
 * In strong form the problem is curl H = D with the flux and the source
 *   H = nu curl E - h,   D = f + k0^2 eps E
 * (curl(nu curl E) - k0^2 eps E = f + curl h; h is em_problem's weak source
 * term), n x H + gamma n x (n x E) = -g on Robin faces and n x E fixed on
 * PEC faces.  The residual estimator of Beck, Hiptmair, Hoppe and Wohlmuth
 * (M2AN 34 (2000) 159-182) for curl(alpha curl u) + beta u = f, with
 * beta = -k0^2 eps here (the indefinite time-harmonic case, as in Monk,
 * J. Comput. Appl. Math. 100 (1998) 173-190), reads per tet T
 *
 *   eta_T^2 = h_T^2 / a_T ||D - curl H||_T^2 + h_T^2 / b_T ||div D||_T^2
 *           + sum_F w_F h_F (1 / a_F ||R_F||_F^2 + 1 / b_F ||[n . D]||_F^2)
 *
 * a_T = max |nu_d|, b_T = k0^2 max |eps_d| at the centroid (a_F, b_F the
 * mean of the face's tets), h the longest edge, w_F = 1/2 on interior
 * faces (each neighbour gets half) and 1 on the boundary, and the
 * tangential face residual
 *   R_F = sum_sides n_s x H_s + gamma n x (n x E) + g_t
 * (n_s the outward normal of each side: the jump of n x H on interior
 * faces, the Robin residual on port / ABC faces, n x H on natural ones);
 * [n . D] only on interior faces; PEC faces carry nothing.  Units: each term
 * is in those of the energy norm squared sum_T a_T ||curl E||^2 +
 * b_T ||E||^2, which info->energy reports for E_h itself.
 *
 * Derivatives: on a straight tet E_h is a polynomial of degree p; its
 * monomial form (estimate_poly.c) gives curl curl E_h and div E_h exactly.
 * A curved tet (Mesh/geometry_order 2) is read as the straight tet of its
 * vertices with the same coefficients: an indicator that marks, not a
 * bound (the map's own error is not in it; where it bends most, the
 * misfit of the straight reading adds to the residual, which marks the
 * curved walls' tets, where the geometry's error lives too).
 * The material where it varies in the tet (PML) and the sources are
 * differentiated by central differences of step 1e-3 h_T. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "estimate_impl.h"

typedef struct est_ctx {
  const em_mesh *m;
  const em_dofmap *d;
  const em_problem *prob;
  const uint8_t *face_fixed;
  const em_cplx *x, *fixed;
  int column;
  int src;                       /* the volume sources apply to this column */
  est_fit fit[EM_MAX_ORDER + 1]; /* by element order (order per element: 1..d->order) */
  em_quad qe[EM_MAX_ORDER + 1];  /* element rules, degree 2p ... */
  em_quad qv[EM_MAX_ORDER + 1];  /* ... 2p + 2 where the material varies or a source acts */
  em_quad qf[EM_MAX_ORDER + 1];  /* face rules, degree 2p of the higher side */
  double (*be[EM_MAX_ORDER + 1])[EST_NM][EST_NT]; /* the monomials' terms at qe's points */
  double (*bv[EM_MAX_ORDER + 1])[EST_NM][EST_NT]; /* ... at qv's (est_poly_terms) */
  int16_t *face_rb; /* [n_face] 1 + index of the face's Robin term, 0: none */
  double *a, *b;    /* [n_tet] a_T, b_T */
  double *el;       /* [n_tet] the element terms */
  double *en;       /* [n_tet] the energy norm squared of E_h */
  double *fc;       /* [n_face] w_F-less face terms */
} est_ctx;

static em_cplx coef(const est_ctx *c, int32_t code) {
  return code >= 0 ? c->x[code] : c->fixed && code != EM_DOF_NONE ? c->fixed[-code - 1] : 0;
}

static double longest_edge(const double (*X)[3], int n) {
  double h = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += (X[i][k] - X[j][k]) * (X[i][k] - X[j][k]);
      h = fmax(h, sqrt(s));
    }
  return h;
}

/* a = max |nu_d|, b = k0^2 max |eps_d| */
static void weights(const em_material *mt, double k0, double *a, double *b) {
  *a = 0, *b = 0;
  for (int k = 0; k < 3; k++) *a = fmax(*a, cabs(mt->nu[k])), *b = fmax(*b, cabs(mt->eps[k]));
  *b *= k0 * k0;
}

/* f and h at x of tet t (zero unless the column has the volume sources) */
static em_err sources(const est_ctx *c, int32_t t, const double x[3], em_cplx f[3], em_cplx h[3]) {
  const em_problem *p = c->prob;
  for (int k = 0; k < 3; k++) f[k] = h[k] = 0;
  if (!c->src) return EM_OK;
  if (p->source) EM_TRY(p->source(p->source_ctx, x, f));
  if (p->tet_source) {
    em_cplx f2[3] = {0}, h2[3] = {0};
    EM_TRY(p->tet_source(p->tet_source_ctx, t, x, f2, h2));
    for (int k = 0; k < 3; k++) f[k] += f2[k], h[k] += h2[k];
  }
  return EM_OK;
}

/* Material and sources at x with their x-derivatives dm[l] (d/dx_l of eps
 * and nu), df[k][l], dh[k][l]: central differences of step dl where they
 * vary, zero where they do not. */
typedef struct point_data {
  em_material mt, dm[3];
  em_cplx f[3], h[3], df[3][3], dh[3][3];
} point_data;

static em_err point_at(const est_ctx *c, int32_t t, const double x[3], int vary,
                       const em_material *m0, double dl, point_data *q) {
  const em_problem *p = c->prob;
  memset(q, 0, sizeof *q);
  q->mt = *m0;
  if (vary) EM_TRY(p->material(p->material_ctx, t, x, &q->mt));
  EM_TRY(sources(c, t, x, q->f, q->h));
  if (!vary && !c->src) return EM_OK;
  for (int l = 0; l < 3; l++) {
    double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
    xp[l] += dl, xm[l] -= dl;
    /* a PML tet outside axis l's layers: (m(xp) - m(xm)) / 2 dl is 0 */
    if (vary && !(p->material_flat && p->material_flat(p->material_ctx, t, x, l, dl))) {
      em_material mp, mm;
      EM_TRY(p->material(p->material_ctx, t, xp, &mp));
      EM_TRY(p->material(p->material_ctx, t, xm, &mm));
      for (int k = 0; k < 3; k++) {
        q->dm[l].eps[k] = (mp.eps[k] - mm.eps[k]) / (2 * dl);
        q->dm[l].nu[k] = (mp.nu[k] - mm.nu[k]) / (2 * dl);
      }
    }
    if (c->src) {
      em_cplx fp[3], hp[3], fm[3], hm[3];
      EM_TRY(sources(c, t, xp, fp, hp));
      EM_TRY(sources(c, t, xm, fm, hm));
      for (int k = 0; k < 3; k++)
        q->df[k][l] = (fp[k] - fm[k]) / (2 * dl), q->dh[k][l] = (hp[k] - hm[k]) / (2 * dl);
    }
  }
  return EM_OK;
}

/* The fitted field of tet t (estimate_impl.h) from its coefficients. */
static int fit_tet(const est_ctx *c, int32_t t, const em_tet_geom *g, est_poly *P) {
  int32_t code[EST_NB];
  double w[EST_NB][3];
  int p = em_dofmap_tet(c->d, c->m, t, code), nb = em_basis_count(p);
  const est_fit *F = &c->fit[p];
  em_cplx a[EST_NB], Ev[EST_NM][3];
  for (int i = 0; i < nb; i++) a[i] = coef(c, code[i]);
  for (int i = 0; i < F->n; i++) {
    em_basis_eval(p, F->lam[i], (const double(*)[3])g->grad, w, NULL);
    for (int k = 0; k < 3; k++) {
      em_cplx s = 0;
      for (int j = 0; j < nb; j++) s += a[j] * w[j][k];
      Ev[i][k] = s;
    }
  }
  P->F = F;
  for (int k = 0; k < 3; k++)
    for (int m = 0; m < F->n; m++) {
      em_cplx s = 0;
      for (int i = 0; i < F->n; i++) s += F->vinv[m][i] * Ev[i][k];
      P->c[k][m] = s;
    }
  for (int a2 = 0; a2 < 3; a2++)
    for (int j = 0; j < 3; j++) P->g[a2][j] = g->grad[a2 + 1][j];
  return p;
}

/* The element terms of tet t: r = D - curl H and div D at the rule's
 * points, with curl E = (J21 - J12, J02 - J20, J10 - J01) and
 * d_l (nu_k c_k) = (d_l nu_k) c_k + nu_k d_l c_k. */
static em_err element(est_ctx *c, int32_t t) {
  const em_problem *p = c->prob;
  em_tet_geom g;
  em_tet_geom_make(c->m, t, &g); /* its vertices' straight tet, curved or not */
  est_poly P;
  int pt = fit_tet(c, t, &g, &P);
  double xc[3] = {0}, h = longest_edge((const double(*)[3])g.x, 4), dl = 1e-3 * h,
         k2 = p->k0 * p->k0;
  for (int a = 0; a < 4; a++)
    for (int k = 0; k < 3; k++) xc[k] += 0.25 * g.x[a][k];
  em_material m0;
  EM_TRY(p->material(p->material_ctx, t, xc, &m0));
  weights(&m0, p->k0, &c->a[t], &c->b[t]);
  int vary = p->tet_vary && p->tet_vary[t];
  const em_quad *q = vary || c->src ? &c->qv[pt] : &c->qe[pt];
  double(*bt)[EST_NM][EST_NT] = vary || c->src ? c->bv[pt] : c->be[pt];
  double er = 0, ed = 0, en = 0;
  for (int i = 0; i < q->n; i++) {
    const double *lam = q->lam + 4 * i;
    double x[3] = {0};
    for (int a = 0; a < 4; a++)
      for (int k = 0; k < 3; k++) x[k] += lam[a] * g.x[a][k];
    em_cplx E[3], J[3][3], Hs[3][3][3];
    est_poly_eval_terms(&P, (const double(*)[EST_NT])bt[i], E, J, Hs);
    point_data pd;
    EM_TRY(point_at(c, t, x, vary, &m0, dl, &pd));
    const em_material *mt = &pd.mt;
    em_cplx cu[3] = {J[2][1] - J[1][2], J[0][2] - J[2][0], J[1][0] - J[0][1]}, dH[3][3];
    for (int l = 0; l < 3; l++) {
      em_cplx dc[3] = {Hs[2][1][l] - Hs[1][2][l], Hs[0][2][l] - Hs[2][0][l],
                       Hs[1][0][l] - Hs[0][1][l]};
      for (int k = 0; k < 3; k++)
        dH[k][l] = pd.dm[l].nu[k] * cu[k] + mt->nu[k] * dc[k] - pd.dh[k][l];
    }
    em_cplx curlH[3] = {dH[2][1] - dH[1][2], dH[0][2] - dH[2][0], dH[1][0] - dH[0][1]};
    em_cplx divD = 0;
    double r2 = 0, c2 = 0, e2 = 0;
    for (int k = 0; k < 3; k++) {
      em_cplx D = pd.f[k] + k2 * mt->eps[k] * E[k];
      divD += pd.df[k][k] + k2 * (pd.dm[k].eps[k] * E[k] + mt->eps[k] * J[k][k]);
      double r = cabs(D - curlH[k]);
      r2 += r * r;
      c2 += creal(cu[k] * conj(cu[k]));
      e2 += creal(E[k] * conj(E[k]));
    }
    double wq = q->w[i] * g.vol;
    er += wq * r2;
    ed += wq * creal(divD * conj(divD));
    en += wq * (c->a[t] * c2 + c->b[t] * e2);
  }
  c->el[t] = h * h * (er / c->a[t] + (c->b[t] > 0 ? ed / c->b[t] : 0));
  c->en[t] = en;
  return EM_OK;
}

/* One side of a face: tet t, its local vertex of each face vertex (the
 * opposite one is 4), the sign s that makes s n point out of t. */
typedef struct face_side {
  int32_t t;
  int p;      /* its element order */
  int loc[4]; /* face vertex index (0..2) of local vertex a, -1: opposite */
  double s;
  em_tet_geom g;
  em_material m0;
  em_cplx a[EST_NB];
} face_side;

static em_err side_make(const est_ctx *c, int32_t f, int32_t t, const double n[3],
                        const double X0[3], face_side *sd) {
  const em_mesh *m = c->m;
  sd->t = t;
  em_tet_geom_make(m, t, &sd->g);
  int opp = 0;
  for (int a = 0; a < 4; a++) {
    sd->loc[a] = -1;
    for (int i = 0; i < 3; i++)
      if (m->tet[4 * (size_t)t + a] == m->face[3 * (size_t)f + i]) sd->loc[a] = i;
    if (sd->loc[a] < 0) opp = a;
  }
  double o = 0;
  for (int k = 0; k < 3; k++) o += n[k] * (sd->g.x[opp][k] - X0[k]);
  sd->s = o > 0 ? -1 : 1;
  double xc[3] = {0};
  for (int a = 0; a < 4; a++)
    for (int k = 0; k < 3; k++) xc[k] += 0.25 * sd->g.x[a][k];
  EM_TRY(c->prob->material(c->prob->material_ctx, t, xc, &sd->m0));
  int32_t code[EST_NB];
  sd->p = em_dofmap_tet(c->d, m, t, code);
  for (int i = 0; i < em_basis_count(sd->p); i++) sd->a[i] = coef(c, code[i]);
  return EM_OK;
}

/* H = nu curl E - h and D = f + k0^2 eps E of one side at face point mu. */
static em_err side_eval(const est_ctx *c, const face_side *sd, const double mu[3],
                        const double x[3], em_cplx E[3], em_cplx H[3], em_cplx D[3]) {
  const em_problem *p = c->prob;
  double lam[4], w[EST_NB][3], cw[EST_NB][3];
  for (int a = 0; a < 4; a++) lam[a] = sd->loc[a] >= 0 ? mu[sd->loc[a]] : 0;
  int pp = sd->p, nb = em_basis_count(pp);
  em_basis_eval(pp, lam, (const double(*)[3])sd->g.grad, w, cw);
  em_material mt = sd->m0;
  if (p->tet_vary && p->tet_vary[sd->t]) EM_TRY(p->material(p->material_ctx, sd->t, x, &mt));
  em_cplx f[3], h[3], cu[3] = {0};
  EM_TRY(sources(c, sd->t, x, f, h));
  for (int k = 0; k < 3; k++) E[k] = 0;
  for (int i = 0; i < nb; i++)
    for (int k = 0; k < 3; k++) E[k] += sd->a[i] * w[i][k], cu[k] += sd->a[i] * cw[i][k];
  for (int k = 0; k < 3; k++) {
    H[k] = mt.nu[k] * cu[k] - h[k];
    D[k] = f[k] + p->k0 * p->k0 * mt.eps[k] * E[k];
  }
  return EM_OK;
}

static void cross(const double n[3], const em_cplx v[3], em_cplx out[3]) {
  out[0] = n[1] * v[2] - n[2] * v[1];
  out[1] = n[2] * v[0] - n[0] * v[2];
  out[2] = n[0] * v[1] - n[1] * v[0];
}

/* h_F (||R_F||^2 / a_F + ||[n . D]||^2 / b_F) of face f (estimate.c's head). */
static em_err face(est_ctx *c, int32_t f) {
  const em_mesh *m = c->m;
  const em_problem *p = c->prob;
  c->fc[f] = 0;
  if (c->face_fixed && c->face_fixed[f]) return EM_OK;
  double X[3][3], n[3], nn = 0;
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) X[i][k] = m->xyz[3 * (size_t)m->face[3 * (size_t)f + i] + k];
  double u[3], v[3];
  for (int k = 0; k < 3; k++) u[k] = X[1][k] - X[0][k], v[k] = X[2][k] - X[0][k];
  n[0] = u[1] * v[2] - u[2] * v[1], n[1] = u[2] * v[0] - u[0] * v[2],
  n[2] = u[0] * v[1] - u[1] * v[0];
  for (int k = 0; k < 3; k++) nn += n[k] * n[k];
  double area = 0.5 * sqrt(nn);
  for (int k = 0; k < 3; k++) n[k] /= 2 * area;
  face_side sd[2];
  int ns = m->face_tet[2 * (size_t)f + 1] >= 0 ? 2 : 1;
  for (int s = 0; s < ns; s++)
    EM_TRY(side_make(c, f, m->face_tet[2 * (size_t)f + s], n, X[0], &sd[s]));
  const em_robin *rb = c->face_rb[f] ? &p->robin[c->face_rb[f] - 1] : NULL;
  double aF = 0, bF = 0;
  for (int s = 0; s < ns; s++) aF += c->a[sd[s].t] / ns, bF += c->b[sd[s].t] / ns;
  double rt = 0, rn = 0;
  const em_quad *qf = &c->qf[sd[ns - 1].p > sd[0].p ? sd[ns - 1].p : sd[0].p];
  for (int i = 0; i < qf->n; i++) {
    const double *mu = qf->lam + 3 * i;
    double x[3];
    for (int k = 0; k < 3; k++) x[k] = mu[0] * X[0][k] + mu[1] * X[1][k] + mu[2] * X[2][k];
    em_cplx R[3] = {0}, Dn = 0, E0[3];
    for (int s = 0; s < ns; s++) {
      em_cplx E[3] = {0}, H[3] = {0}, D[3] = {0}, nH[3];
      EM_TRY(side_eval(c, &sd[s], mu, x, E, H, D));
      cross(n, H, nH);
      for (int k = 0; k < 3; k++) R[k] += sd[s].s * nH[k], Dn += sd[s].s * n[k] * D[k];
      if (!s) memcpy(E0, E, sizeof E0);
    }
    if (rb) { /* + gamma n x (n x E) + g_t, n x (n x E) = -E_t */
      em_cplx g[3] = {0}, En = 0, gn = 0;
      if (rb->g && rb->rhs == c->column) EM_TRY(rb->g(rb->g_ctx, x, g));
      for (int k = 0; k < 3; k++) En += n[k] * E0[k], gn += n[k] * g[k];
      for (int k = 0; k < 3; k++) R[k] += rb->gamma * (En * n[k] - E0[k]) + g[k] - gn * n[k];
    }
    double r2 = 0;
    for (int k = 0; k < 3; k++) r2 += creal(R[k] * conj(R[k]));
    rt += qf->w[i] * area * r2;
    rn += qf->w[i] * area * creal(Dn * conj(Dn));
  }
  double hF = longest_edge((const double(*)[3])X, 3);
  c->fc[f] = hF * (rt / aF + (ns == 2 && bF > 0 ? rn / bF : 0));
  return EM_OK;
}

/* face_rb: the Robin term of each face (a group's triangles or a list). */
static em_err robin_faces(est_ctx *c) {
  const em_mesh *m = c->m;
  const em_problem *p = c->prob;
  EM_TRY(em_calloc(&c->face_rb, (size_t)m->n_face + 1, sizeof *c->face_rb, "Robin faces"));
  EM_CHECK(p->n_robin < INT16_MAX, EM_ERR_ARG, "error estimate: %d Robin terms", p->n_robin);
  for (int r = 0; r < p->n_robin; r++) {
    const em_robin *rb = &p->robin[r];
    if (rb->group >= 0) {
      for (int32_t k = 0; k < m->n_tri; k++)
        if (m->tri_group[k] == rb->group) c->face_rb[m->tri_face[k]] = (int16_t)(r + 1);
    } else {
      for (int32_t k = 0; k < rb->n_faces; k++) {
        EM_CHECK(rb->faces[k] >= 0 && rb->faces[k] < m->n_face, EM_ERR_ARG,
                 "error estimate: Robin term %d lists face %d of %d", r, rb->faces[k], m->n_face);
        c->face_rb[rb->faces[k]] = (int16_t)(r + 1);
      }
    }
  }
  return EM_OK;
}

/* fn for i = 0..n-1 on every thread; the error trace is thread-local, so a
 * failing index is redone here for its message (the work is deterministic). */
static em_err each(est_ctx *c, int32_t n, em_err (*fn)(est_ctx *, int32_t)) {
  int32_t bad = -1;
#pragma omp parallel for schedule(dynamic, 64)
  for (int32_t i = 0; i < n; i++) {
    if (fn(c, i)) {
#pragma omp critical(em_estimate_bad)
      if (bad < 0 || i < bad) bad = i;
    }
  }
  if (bad >= 0) {
    em_error_clear();
    EM_TRY(fn(c, bad));
    return EM_RAISE(EM_ERR_INTERNAL, "error estimate: item %d failed in a worker thread", bad);
  }
  return EM_OK;
}

em_err em_estimate(const em_mesh *m, const em_dofmap *d, const em_problem *prob,
                   const uint8_t *face_fixed, const em_cplx *x, const em_cplx *fixed, int column,
                   double *eta2, em_estimate_info *info) {
  EM_CHECK(m && d && prob && x && eta2 && info, EM_ERR_ARG, "error estimate: NULL argument");
  EM_CHECK(prob->material, EM_ERR_ARG, "error estimate: no material");
  EM_CHECK(column >= 0 && column < (prob->n_rhs > 0 ? prob->n_rhs : 1), EM_ERR_ARG,
           "error estimate: column %d of %d", column, prob->n_rhs);
  double t0 = em_wtime();
  em_err err = EM_OK;
  est_ctx c = {.m = m,
               .d = d,
               .prob = prob,
               .face_fixed = face_fixed,
               .x = x,
               .fixed = fixed,
               .column = column};
  c.src = column == 0 && (prob->source || prob->tet_source);
  for (int p = 1; p <= d->order; p++) {
    EM_TRY(est_fit_init(p, &c.fit[p]));
    EM_TRY(em_quad_tet(2 * p, &c.qe[p]));
    EM_TRY(em_quad_tet(2 * p + 2, &c.qv[p]));
    EM_TRY(em_quad_tri(2 * p, &c.qf[p]));
  }
  for (int p = 1; p <= d->order; p++) { /* the rules' monomial terms, once */
    EM_TRY_GOTO(err, em_calloc(&c.be[p], (size_t)c.qe[p].n, sizeof *c.be[p], "estimate terms"),
                done);
    EM_TRY_GOTO(err, em_calloc(&c.bv[p], (size_t)c.qv[p].n, sizeof *c.bv[p], "estimate terms"),
                done);
    for (int i = 0; i < c.qe[p].n; i++) est_poly_terms(&c.fit[p], c.qe[p].lam + 4 * i, c.be[p][i]);
    for (int i = 0; i < c.qv[p].n; i++) est_poly_terms(&c.fit[p], c.qv[p].lam + 4 * i, c.bv[p][i]);
  }
  EM_TRY_GOTO(err, robin_faces(&c), done);
  EM_TRY_GOTO(err, em_calloc(&c.a, (size_t)m->n_tet + 1, sizeof *c.a, "estimate weights"), done);
  EM_TRY_GOTO(err, em_calloc(&c.b, (size_t)m->n_tet + 1, sizeof *c.b, "estimate weights"), done);
  EM_TRY_GOTO(err, em_calloc(&c.el, (size_t)m->n_tet + 1, sizeof *c.el, "element terms"), done);
  EM_TRY_GOTO(err, em_calloc(&c.en, (size_t)m->n_tet + 1, sizeof *c.en, "energy"), done);
  EM_TRY_GOTO(err, em_calloc(&c.fc, (size_t)m->n_face + 1, sizeof *c.fc, "face terms"), done);
  EM_TRY_GOTO(err, each(&c, m->n_tet, element), done); /* a_T, b_T before the faces */
  EM_TRY_GOTO(err, each(&c, m->n_face, face), done);
  double s = 0, e = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    double v = c.el[t];
    for (int k = 0; k < 4; k++) {
      int32_t f = m->tet_face[4 * (size_t)t + k];
      v += (m->face_tet[2 * (size_t)f + 1] >= 0 ? 0.5 : 1.0) * c.fc[f];
    }
    if (!isfinite(v)) {
      err = EM_RAISE(EM_ERR_NUMERIC, "error estimate: tet %d has a non-finite indicator", t);
      goto done;
    }
    eta2[t] += v;
    s += v;
    e += c.en[t];
  }
  info->eta = sqrt(s);
  info->energy = sqrt(e);
  info->t = em_wtime() - t0;
done:
  for (int p = 0; p <= EM_MAX_ORDER; p++) em_free(&c.be[p]), em_free(&c.bv[p]);
  em_free(&c.face_rb);
  em_free(&c.a);
  em_free(&c.b);
  em_free(&c.el);
  em_free(&c.en);
  em_free(&c.fc);
  return err;
}
