/* adaptive.c - the greedy adaptive sweep (em_model.h): full solves where
 * two successive rational surrogates disagree most, until they agree to
 * tol everywhere and the surrogate predicted its last solve to tol. */
#include <math.h>
#include <string.h>

#include "em_model.h"

typedef struct {
  em_cplx *u, *y, *ya, *yb, *sa, *sb;
} bufs;

/* max_i |a_i - b_i| */
static double maxdiff(int n, const em_cplx *a, const em_cplx *b) {
  double e = 0;
  for (int i = 0; i < n; i++) e = fmax(e, cabs(a[i] - b[i]));
  return e;
}

static em_err sample(const em_adaptive *a, em_mri *m, double f, bufs *b, em_adaptive_result *res) {
  em_log_info(a->log, "adaptive sweep: solve %d at %.6g GHz (initial)", res->n_solves + 1,
              f * 1e-9);
  EM_TRY(a->solve(a->ctx, f, b->u, b->y));
  EM_TRY(em_mri_add(m, f, b->u, b->y));
  if (res->n_solves < (int)(sizeof res->f / sizeof res->f[0])) res->f[res->n_solves] = f;
  res->n_solves++;
  return EM_OK;
}

/* Over the test frequencies: the largest difference in s between the
 * surrogates of k and k - 1 samples (the error estimate), and where the
 * indicator of the current one is largest (the next sample). */
static em_err estimate(const em_adaptive *a, const em_mri *m, bufs *b, double *f_next,
                       double *e_max) {
  double ind_max = -1;
  *e_max = 0;
  *f_next = a->f0;
  for (int i = 0; i < a->n_test; i++) {
    double f = a->f0 + (a->f1 - a->f0) * i / (a->n_test - 1);
    double ind = em_mri_indicator(m, f);
    if (ind == 0) continue; /* a sample */
    if (ind > ind_max) ind_max = ind, *f_next = f;
    em_mri_eval(m, f, b->ya);
    em_mri_eval_prev(m, f, b->yb);
    EM_TRY(a->output(a->ctx, f, b->ya, b->sa));
    EM_TRY(a->output(a->ctx, f, b->yb, b->sb));
    *e_max = fmax(*e_max, maxdiff(a->n_s, b->sa, b->sb));
  }
  EM_CHECK(ind_max > 0, EM_ERR_INPUT,
           "adaptive sweep: every one of the %d test frequencies is sampled; raise "
           "Solver/n_freq or Solver/sweep_tol",
           a->n_test);
  return EM_OK;
}

static em_err greedy(const em_adaptive *a, em_mri *m, bufs *b, em_adaptive_result *res) {
  double f_init[3] = {a->f0, a->f1, 0.5 * (a->f0 + a->f1)};
  for (int i = 0; i < 3; i++) EM_TRY(sample(a, m, f_init[i], b, res));
  res->check = INFINITY;
  for (;;) {
    double f, e;
    EM_TRY(estimate(a, m, b, &f, &e));
    res->estimate = e;
    if (e < a->tol && res->check < a->tol) {
      res->converged = 1;
      break;
    }
    if (res->n_solves >= a->max_solves) break;
    /* what the surrogate says at f, against the solve there */
    em_mri_eval(m, f, b->ya);
    EM_TRY(a->output(a->ctx, f, b->ya, b->sa));
    EM_TRY(a->solve(a->ctx, f, b->u, b->y));
    EM_TRY(a->output(a->ctx, f, b->y, b->sb));
    res->check = maxdiff(a->n_s, b->sa, b->sb);
    EM_TRY(em_mri_add(m, f, b->u, b->y));
    if (res->n_solves < (int)(sizeof res->f / sizeof res->f[0])) res->f[res->n_solves] = f;
    res->n_solves++;
    em_log_info(a->log,
                "adaptive sweep: solve %d at %.6g GHz (the models of %d and %d solves differ by "
                "up to %.2e in the band); the model predicted it to %.2e",
                res->n_solves, f * 1e-9, res->n_solves - 1, res->n_solves - 2, e, res->check);
  }
  return EM_OK;
}

em_err em_adaptive_run(const em_adaptive *a, em_mri **mp, em_adaptive_result *res) {
  EM_CHECK(a->f1 > a->f0 && a->f0 > 0, EM_ERR_INPUT,
           "adaptive sweep: the band %g .. %g Hz must have f_stop > f_start > 0", a->f0, a->f1);
  EM_CHECK(a->tol > 0 && a->max_solves >= 3 && a->max_solves <= 256 && a->n_test >= 2, EM_ERR_INPUT,
           "adaptive sweep: tolerance %g, %d solves at most (3..256), %d test points", a->tol,
           a->max_solves, a->n_test);
  memset(res, 0, sizeof *res);
  em_mri *m = NULL;
  bufs b = {0};
  em_err err = EM_OK;
  int ny = a->n_y ? a->n_y : 1, ns = a->n_s ? a->n_s : 1;
  EM_TRY_GOTO(err,
              em_mri_create(a->n_u, a->n_y, a->max_solves, 0.5 * (a->f0 + a->f1),
                            0.5 * (a->f1 - a->f0), &m),
              done);
  EM_TRY_GOTO(err, em_calloc(&b.u, (size_t)a->n_u, sizeof *b.u, "snapshot"), done);
  EM_TRY_GOTO(err, em_calloc(&b.y, (size_t)ny * 3, sizeof *b.y, "measurements"), done);
  EM_TRY_GOTO(err, em_calloc(&b.sa, (size_t)ns * 2, sizeof *b.sa, "outputs"), done);
  b.ya = b.y + ny, b.yb = b.y + 2 * ny, b.sb = b.sa + ns;
  EM_TRY_GOTO(err, greedy(a, m, &b, res), done);
  *mp = m;
  m = NULL;
done:
  em_mri_destroy(&m);
  em_free(&b.u);
  em_free(&b.y);
  em_free(&b.sa);
  return err;
}
