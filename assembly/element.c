/* element.c - element matrices of the curl-curl operator:
 *   S_ij = int curl w_i . nu curl w_j,   T_ij = int w_i . eps w_j
 * by plain quadrature (the public reference, any material) and by
 * precomputed reference tensors (the assembly's fast path for a material
 * constant over the tet; see em_element_ref in assembly_impl.h). */
#include <math.h>
#include <string.h>

#include "assembly_impl.h"
#include "quadrature_impl.h"

em_err em_material_check(const em_material *mat, int32_t t) {
  for (int d = 0; d < 3; d++)
    EM_CHECK(isfinite(creal(mat->eps[d])) && isfinite(cimag(mat->eps[d])) &&
                 isfinite(creal(mat->nu[d])) && isfinite(cimag(mat->nu[d])),
             EM_ERR_INPUT, "material of tet %d is not finite (eps[%d] = %g%+gj, nu[%d] = %g%+gj)",
             t, d, creal(mat->eps[d]), cimag(mat->eps[d]), d, creal(mat->nu[d]), cimag(mat->nu[d]));
  return EM_OK;
}

/* Quadrature degrees: S needs 2p-2 and T 2p for a constant material; a
 * material varying inside the tet (graded PML) gets two more. */
static int deg_s(int p, int vary) {
  return 2 * p - 2 + (vary ? 2 : 0);
}
static int deg_t(int p, int vary) {
  return 2 * p + (vary ? 2 : 0);
}

/* A curved tet's integrands are rational: w_i . w_j |det J| =
 * (adj J^T g^_i).(adj J^T g^_j) / |det J| with adj J of degree 2 and
 * det J of degree 3 in the reference coordinates, so no rule is exact.
 * Curved tets are few (those touching a curved surface): they get the
 * highest stored rule, degree 8.  On a tet bent by up to 8 % of an edge
 * (2-4 times what a mesh of a curved wall has) that is within 2e-7 of a
 * 16^3-point product rule at every order (tests/assembly/test_curved.c). */
static int deg_curved(int deg) {
  (void)deg;
  return EM_QUAD_MAX_DEGREE;
}

/* Points per block of the quadrature sums, and the padded row length. */
#define EL_QB 32
#define EL_LD 48 /* >= EM_NB_MAX, a multiple of 8 */

/* mr[i][j] += sum_k b[k][i] wr[k] b[k][j] and mi likewise with wi, on the
 * 4 x 8 tiles on or above the diagonal (b: K rows of EL_LD, zero beyond
 * n; mr, mi: EL_LD x EL_LD).  The tile's sums stay in eight vectors of 8
 * over k (GCC vector extensions: one AVX-512 register each, two AVX2 or
 * four SSE2 ones). */
typedef double el_v8 __attribute__((vector_size(64)));
#define EL_LD8(v, p) memcpy(&(v), (p), sizeof(el_v8))
#define EL_ST8(p, v) memcpy((p), &(v), sizeof(el_v8))

__attribute__((always_inline)) static inline void el_syrk_body(int n, int K, const double *b,
                                                               const double *wr, const double *wi,
                                                               double *mr, double *mi) {
  for (int i0 = 0; i0 < n; i0 += 4)
    for (int j0 = i0 & ~7; j0 < n; j0 += 8) {
      el_v8 r0, r1, r2, r3, m0, m1, m2, m3;
      EL_LD8(r0, mr + (i0 + 0) * EL_LD + j0);
      EL_LD8(r1, mr + (i0 + 1) * EL_LD + j0);
      EL_LD8(r2, mr + (i0 + 2) * EL_LD + j0);
      EL_LD8(r3, mr + (i0 + 3) * EL_LD + j0);
      EL_LD8(m0, mi + (i0 + 0) * EL_LD + j0);
      EL_LD8(m1, mi + (i0 + 1) * EL_LD + j0);
      EL_LD8(m2, mi + (i0 + 2) * EL_LD + j0);
      EL_LD8(m3, mi + (i0 + 3) * EL_LD + j0);
      for (int k = 0; k < K; k++) {
        const double *bk = b + (size_t)k * EL_LD;
        el_v8 bj;
        EL_LD8(bj, bk + j0);
        double x0 = bk[i0], x1 = bk[i0 + 1], x2 = bk[i0 + 2], x3 = bk[i0 + 3];
        el_v8 br = bj * wr[k], bi = bj * wi[k];
        r0 += x0 * br;
        r1 += x1 * br;
        r2 += x2 * br;
        r3 += x3 * br;
        m0 += x0 * bi;
        m1 += x1 * bi;
        m2 += x2 * bi;
        m3 += x3 * bi;
      }
      EL_ST8(mr + (i0 + 0) * EL_LD + j0, r0);
      EL_ST8(mr + (i0 + 1) * EL_LD + j0, r1);
      EL_ST8(mr + (i0 + 2) * EL_LD + j0, r2);
      EL_ST8(mr + (i0 + 3) * EL_LD + j0, r3);
      EL_ST8(mi + (i0 + 0) * EL_LD + j0, m0);
      EL_ST8(mi + (i0 + 1) * EL_LD + j0, m1);
      EL_ST8(mi + (i0 + 2) * EL_LD + j0, m2);
      EL_ST8(mi + (i0 + 3) * EL_LD + j0, m3);
    }
}

#define EL_SYRK_ARGS \
  int n, int K, const double *b, const double *wr, const double *wi, double *mr, double *mi
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f,avx2,fma"))) static void el_syrk_avx512(EL_SYRK_ARGS) {
  el_syrk_body(n, K, b, wr, wi, mr, mi);
}
__attribute__((target("avx2,fma"))) static void el_syrk_avx2(EL_SYRK_ARGS) {
  el_syrk_body(n, K, b, wr, wi, mr, mi);
}
#endif
static void el_syrk_generic(EL_SYRK_ARGS) {
  el_syrk_body(n, K, b, wr, wi, mr, mi);
}

typedef void (*el_syrk_fn)(EL_SYRK_ARGS);

/* The widest variant the CPU runs. */
static el_syrk_fn el_syrk_pick(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return el_syrk_avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return el_syrk_avx2;
#endif
  return el_syrk_generic;
}

/* S = sum_q w_q sum_d nu_d(x_q) c_i,d c_j,d and T likewise with eps and the
 * values: per block of points the rows b[(q, d)][i] = v_i,d(x_q) with the
 * weights w_q coef_d(x_q) (real and imaginary parts apart), accumulated by
 * el_syrk. */
em_err em_element_matrices(int p, const em_tet_geom *g, em_material_fn matfn, void *ctx, int32_t t,
                           int vary, em_cplx *S, em_cplx *T) {
  EM_CHECK(p >= 1 && p <= EM_MAX_ORDER, EM_ERR_ARG, "element order %d not in 1..%d", p,
           EM_MAX_ORDER);
  EM_CHECK(g && matfn && S && T, EM_ERR_ARG, "element matrices of tet %d: NULL argument", t);
  EM_CHECK(g->vol > 0 && isfinite(g->vol), EM_ERR_INPUT, "tet %d is degenerate (volume %g)", t,
           g->vol);
  int n = em_basis_count(p);
  em_quad qs, qt;
  int ds = deg_s(p, vary), dt = deg_t(p, vary);
  if (g->curved) ds = deg_curved(ds), dt = deg_curved(dt);
  EM_TRY(em_quad_tet(ds, &qs));
  EM_TRY(em_quad_tet(dt, &qt));
  em_material mat;
  if (!vary) {
    double xc[3] = {0, 0, 0};
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) xc[d] += 0.25 * g->x[a][d];
    EM_TRY(matfn(ctx, t, xc, &mat));
    EM_TRY(em_material_check(&mat, t));
  }
  el_syrk_fn syrk = el_syrk_pick();
  double w[EM_NB_MAX][3], c[EM_NB_MAX][3];
  double mr[EL_LD * EL_LD], mi[EL_LD * EL_LD];
  double b[3 * EL_QB * EL_LD], wr[3 * EL_QB], wi[3 * EL_QB];
  memset(b, 0, sizeof b);                /* the padding columns stay zero */
  for (int pass = 0; pass < 2; pass++) { /* 0: S, 1: T */
    const em_quad *q = pass ? &qt : &qs;
    em_cplx *M = pass ? T : S;
    memset(mr, 0, sizeof mr);
    memset(mi, 0, sizeof mi);
    for (int k0 = 0; k0 < q->n; k0 += EL_QB) {
      int nk = q->n - k0 < EL_QB ? q->n - k0 : EL_QB;
      for (int kk = 0; kk < nk; kk++) {
        const double *lam = q->lam + 4 * (k0 + kk);
        /* curved: the point's own gradients (covariant Piola; curl of
           u grad lam_j is grad u x grad lam_j as lam_j is a function on the
           element) and volume element; straight: the tet's constants */
        double x[3], grad[4][3], dv;
        EM_CHECK(!em_tet_geom_at(g, lam, x, grad, &dv), EM_ERR_INPUT,
                 "curved tet %d folds: its map's Jacobian changes sign near (%g, %g, %g) m "
                 "(refine the mesh near that curved surface, or Mesh/geometry_order 1)",
                 t, x[0], x[1], x[2]);
        if (vary) {
          EM_TRY(matfn(ctx, t, x, &mat));
          EM_TRY(em_material_check(&mat, t));
        }
        em_basis_eval(p, lam, (const double(*)[3])grad, w, pass ? NULL : c);
        double(*v)[3] = pass ? w : c;
        const em_cplx *coef = pass ? mat.eps : mat.nu;
        double wq = q->w[k0 + kk] * dv;
        for (int d = 0; d < 3; d++) {
          int r = 3 * kk + d;
          wr[r] = wq * creal(coef[d]);
          wi[r] = wq * cimag(coef[d]);
          for (int j = 0; j < n; j++) b[r * EL_LD + j] = v[j][d];
        }
      }
      syrk(n, 3 * nk, b, wr, wi, mr, mi);
    }
    for (int i = 0; i < n; i++)
      for (int j = i; j < n; j++)
        M[i * n + j] = M[j * n + i] = CMPLX(mr[i * EL_LD + j], mi[i * EL_LD + j]);
  }
  return EM_OK;
}

void em_element_ref_destroy(em_element_ref **ref) {
  if (!*ref) return;
  em_free(&(*ref)->mass);
  em_free(&(*ref)->stiff);
  em_free(ref);
}

/* Pair r -> (k, l) of reference directions. */
static const int PAIR[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};

/* R_r[ij] = avg over the reference tet of a_i,k a_j,l (+ a_i,l a_j,k for k != l), a = the
 * reference values (or curls): evaluated with the reference gradients
 * g0 = (-1,-1,-1), g_k = e_k, so that w^_i comes out in reference components. */
em_err em_element_ref_create(int p, em_element_ref **out) {
  EM_CHECK(p >= 1 && p <= EM_MAX_ORDER, EM_ERR_ARG, "element order %d not in 1..%d", p,
           EM_MAX_ORDER);
  em_err err = EM_OK;
  em_element_ref *r = NULL;
  EM_TRY(em_calloc(&r, 1, sizeof *r, "reference element"));
  r->p = p;
  r->n = em_basis_count(p);
  r->npack = (int64_t)r->n * (r->n + 1) / 2;
  EM_TRY_GOTO(err, em_calloc(&r->mass, (size_t)r->npack * 6, sizeof(double), "reference mass"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&r->stiff, (size_t)r->npack * 6, sizeof(double), "reference curl"),
              fail);
  static const double gref[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double w[EM_NB_MAX][3], c[EM_NB_MAX][3];
  for (int pass = 0; pass < 2; pass++) {
    em_quad q;
    EM_TRY_GOTO(err, em_quad_tet(pass ? deg_t(p, 0) : deg_s(p, 0), &q), fail);
    double *R = pass ? r->mass : r->stiff;
    for (int k = 0; k < q.n; k++) {
      em_basis_eval(p, q.lam + 4 * k, gref, w, c);
      double(*v)[3] = pass ? w : c;
      int64_t m = 0;
      for (int i = 0; i < r->n; i++)
        for (int j = i; j < r->n; j++, m++)
          for (int s = 0; s < 6; s++) {
            int a = PAIR[s][0], b = PAIR[s][1];
            double x = v[i][a] * v[j][b];
            if (a != b) x += v[i][b] * v[j][a];
            R[6 * m + s] += q.w[k] * x;
          }
    }
  }
  *out = r;
  return EM_OK;
fail:
  em_element_ref_destroy(&r);
  return err;
}

/* A = S - k0^2 T with M_r = vol (g_k . eps g_l) for T and
 * vol (e_k . nu e_l) / D^2 for S, D = 6 vol (the sign of D cancels). */
void em_element_ref_apply(const em_element_ref *ref, const em_tet_geom *g, const em_material *mat,
                          double k0, em_cplx *A) {
  double e[3][3];
  for (int k = 0; k < 3; k++)
    for (int d = 0; d < 3; d++) e[k][d] = g->x[k + 1][d] - g->x[0][d];
  double D2 = 36 * g->vol * g->vol;
  em_cplx ms[6], mt[6];
  for (int s = 0; s < 6; s++) {
    int a = PAIR[s][0], b = PAIR[s][1];
    em_cplx st = 0, tt = 0;
    for (int d = 0; d < 3; d++) {
      st += e[a][d] * mat->nu[d] * e[b][d];
      tt += g->grad[a + 1][d] * mat->eps[d] * g->grad[b + 1][d];
    }
    ms[s] = g->vol * st / D2;
    mt[s] = -k0 * k0 * g->vol * tt;
  }
  /* real and imaginary parts separately: six real dot products per entry */
  double msr[6], msi[6], mtr[6], mti[6];
  for (int s = 0; s < 6; s++) {
    msr[s] = creal(ms[s]);
    msi[s] = cimag(ms[s]);
    mtr[s] = creal(mt[s]);
    mti[s] = cimag(mt[s]);
  }
  const double *RS = ref->stiff, *RT = ref->mass;
  for (int64_t m = 0; m < ref->npack; m++) {
    const double *rs = RS + 6 * m, *rt = RT + 6 * m;
    double re = 0, im = 0;
    for (int s = 0; s < 6; s++) {
      re += msr[s] * rs[s] + mtr[s] * rt[s];
      im += msi[s] * rs[s] + mti[s] * rt[s];
    }
    A[m] = CMPLX(re, im);
  }
}

/* The two parts of em_element_ref_apply kept apart (packed upper
 * triangles): S with M_r = vol (e_k . nu e_l) / D^2 and T with
 * M_r = vol (g_k . eps g_l), so that A = S - k0^2 T for any k0. */
void em_element_ref_split(const em_element_ref *ref, const em_tet_geom *g, const em_material *mat,
                          em_cplx *S, em_cplx *T) {
  double e[3][3];
  for (int k = 0; k < 3; k++)
    for (int d = 0; d < 3; d++) e[k][d] = g->x[k + 1][d] - g->x[0][d];
  double D2 = 36 * g->vol * g->vol;
  double msr[6], msi[6], mtr[6], mti[6];
  for (int s = 0; s < 6; s++) {
    int a = PAIR[s][0], b = PAIR[s][1];
    em_cplx st = 0, tt = 0;
    for (int d = 0; d < 3; d++) {
      st += e[a][d] * mat->nu[d] * e[b][d];
      tt += g->grad[a + 1][d] * mat->eps[d] * g->grad[b + 1][d];
    }
    em_cplx ms = g->vol * st / D2, mt = g->vol * tt;
    msr[s] = creal(ms);
    msi[s] = cimag(ms);
    mtr[s] = creal(mt);
    mti[s] = cimag(mt);
  }
  const double *RS = ref->stiff, *RT = ref->mass;
  for (int64_t m = 0; m < ref->npack; m++) {
    const double *rs = RS + 6 * m, *rt = RT + 6 * m;
    double sr = 0, si = 0, tr = 0, ti = 0;
    for (int s = 0; s < 6; s++) {
      sr += msr[s] * rs[s];
      si += msi[s] * rs[s];
      tr += mtr[s] * rt[s];
      ti += mti[s] * rt[s];
    }
    S[m] = CMPLX(sr, si);
    T[m] = CMPLX(tr, ti);
  }
}
