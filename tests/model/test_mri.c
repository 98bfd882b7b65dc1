/* Minimal rational interpolation and the greedy adaptive sweep against
 * functions known in closed form: a rational function with three complex
 * poles near the band (what a lossy resonator's fields are), which MRI
 * must reproduce to rounding once it has one sample more than poles, and a
 * non-rational one (an exponential phase, as the PML's stretch and a
 * waveguide's propagation add) which the greedy must resolve to its
 * tolerance.  Bad input is an error. */
#include <complex.h>
#include <string.h>

#include "em_model.h"
#include "em_test.h"

#define NU 600
#define NY 2
#define NP 3

typedef struct {
  em_cplx v[NP + 1][NU]; /* pole residues, and the exponential's vector */
  em_cplx pole[NP];
  double expo; /* 0: rational only */
  int solves;
} fn;

static const double F0 = 4e9, F1 = 8e9;

static double tscale(double f) {
  return (f - 0.5 * (F0 + F1)) / (0.5 * (F1 - F0));
}

/* u_i(t) = sum_k v_k,i / (t - p_k) + v_P,i e^{j a t x_i}, x_i in [0, 1]: a
 * wave whose phase runs with frequency and position (the snapshots span
 * many dimensions, as a FEM field's do) */
static void truth(const fn *g, double f, em_cplx *u) {
  double t = tscale(f);
  for (int i = 0; i < NU; i++) {
    em_cplx s = 0;
    for (int k = 0; k < NP; k++) s += g->v[k][i] / (t - g->pole[k]);
    u[i] = s + (g->expo ? g->v[NP][i] * cexp(I * g->expo * t * i / (NU - 1)) : 0);
  }
}

/* y: two linear functionals of u (a port's mode projection, say) */
static void measure(const em_cplx *u, em_cplx *y) {
  y[0] = y[1] = 0;
  for (int i = 0; i < NU; i++) y[0] += u[i] / NU, y[1] += (i % 3 == 0 ? 1.0 : -0.5) * u[i] / NU;
}

static em_err solve(void *ctx, double f, em_cplx *u, em_cplx *y) {
  fn *g = ctx;
  g->solves++;
  truth(g, f, u);
  measure(u, y);
  return EM_OK;
}

/* s = (y - 1) / (y + 1): nonlinear in y, as S is in what ports measure */
static em_err output(void *ctx, double f, const em_cplx *y, em_cplx *s) {
  (void)ctx, (void)f;
  for (int i = 0; i < NY; i++) s[i] = (y[i] - 1) / (y[i] + 1);
  return EM_OK;
}

static void make(fn *g, double expo) {
  memset(g, 0, sizeof *g);
  unsigned long long st = 12345;
  for (int k = 0; k <= NP; k++)
    for (int i = 0; i < NU; i++)
      g->v[k][i] = em_test_rand(&st) - 0.5 + I * (em_test_rand(&st) - 0.5);
  g->pole[0] = 0.31 + 0.05 * I;
  g->pole[1] = -0.47 + 0.12 * I;
  g->pole[2] = 0.83 + 0.03 * I;
  g->expo = expo;
}

/* max over a fine grid of |s~ - s| */
static double true_error(const fn *g, const em_mri *m) {
  em_cplx u[NU], y[NY], ym[NY], s[NY], sm[NY];
  double e = 0;
  for (int i = 0; i <= 400; i++) {
    double f = F0 + (F1 - F0) * i / 400;
    truth(g, f, u);
    measure(u, y);
    em_mri_eval(m, f, ym);
    output(NULL, f, y, s);
    output(NULL, f, ym, sm);
    for (int j = 0; j < NY; j++) e = fmax(e, cabs(s[j] - sm[j]));
  }
  return e;
}

static void test_interpolation(void) {
  static fn g;
  make(&g, 0);
  em_mri *m = NULL;
  REQUIRE_OK(em_mri_create(NU, NY, 8, 0.5 * (F0 + F1), 0.5 * (F1 - F0), &m));
  em_cplx u[NU], y[NY], ym[NY];
  double fs[5] = {F0, F1, 6e9, 5e9, 7.3e9};
  for (int k = 0; k < 5; k++) {
    truth(&g, fs[k], u);
    measure(u, y);
    EXPECT_OK(em_mri_add(m, fs[k], u, y));
    for (int j = 0; j <= k; j++) { /* interpolates every sample */
      truth(&g, fs[j], u);
      measure(u, y);
      em_mri_eval(m, fs[j], ym);
      EXPECT(cabs(ym[0] - y[0]) <= 1e-13 * cabs(y[0]), "sample %d of %d: %g", j, k + 1,
             cabs(ym[0] - y[0]));
    }
  }
  /* three poles: 4 samples make the type [2/3]; 5 reproduce it to rounding */
  double e = true_error(&g, m);
  printf("rational, 5 samples: max |s~ - s| = %.3e\n", e);
  EXPECT(e < 1e-10, "3 poles, 5 samples: error %.3e", e);
  /* the snapshot itself, from Q R c */
  em_cplx us[NU];
  truth(&g, 5.55e9, u);
  em_mri_eval_snapshot(m, 5.55e9, us);
  double d = 0, n = 0;
  for (int i = 0; i < NU; i++)
    d += cabs(us[i] - u[i]) * cabs(us[i] - u[i]), n += cabs(u[i]) * cabs(u[i]);
  EXPECT(sqrt(d / n) < 1e-10, "snapshot from the model: relative error %.3e", sqrt(d / n));
  EXPECT_ERR(em_mri_add(m, fs[2], u, y), EM_ERR_ARG); /* the same frequency twice */
  em_mri_destroy(&m);
}

static void test_adaptive(double expo, double tol, int max_expected) {
  static fn g;
  make(&g, expo);
  em_adaptive a = {.f0 = F0,
                   .f1 = F1,
                   .tol = tol,
                   .max_solves = 30,
                   .n_test = 201,
                   .n_u = NU,
                   .n_y = NY,
                   .n_s = NY,
                   .solve = solve,
                   .output = output,
                   .ctx = &g};
  em_mri *m = NULL;
  em_adaptive_result res;
  EXPECT_OK(em_adaptive_run(&a, &m, &res));
  if (!m) return;
  double e = true_error(&g, m);
  printf("exp %.1f, tol %.0e: %d solves, estimate %.2e, check %.2e, true error %.2e\n", expo, tol,
         res.n_solves, res.estimate, res.check, e);
  EXPECT(res.converged, "converged");
  EXPECT(res.n_solves == g.solves, "solves counted %d / %d", res.n_solves, g.solves);
  EXPECT(res.n_solves <= max_expected, "%d solves (at most %d expected)", res.n_solves,
         max_expected);
  EXPECT(e <= tol, "true error %.3e above tol %.0e", e, tol);
  em_mri_destroy(&m);
}

int main(void) {
  test_interpolation();
  test_adaptive(0, 1e-3, 6);
  test_adaptive(0, 1e-8, 6);
  test_adaptive(6, 1e-3, 12);
  test_adaptive(6, 1e-6, 15);
  /* bad input */
  fn g;
  em_adaptive a = {.f0 = F1,
                   .f1 = F0,
                   .tol = 1e-3,
                   .max_solves = 10,
                   .n_test = 11,
                   .n_u = NU,
                   .n_y = NY,
                   .n_s = NY,
                   .solve = solve,
                   .output = output,
                   .ctx = &g};
  em_mri *m = NULL;
  em_adaptive_result res;
  EXPECT_ERR(em_adaptive_run(&a, &m, &res), EM_ERR_INPUT);
  a.f0 = F0, a.f1 = F1, a.tol = 0;
  EXPECT_ERR(em_adaptive_run(&a, &m, &res), EM_ERR_INPUT);
  EXPECT(!m, "no model on error");
  return TEST_RESULT();
}
