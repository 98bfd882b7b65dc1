/* direct_beside.c - the factorization's value checks and symmetry test
 * (em_direct_checks) on a thread of their own (core/beside.c) while the
 * device factors (issue 24: ~0.3 s of host work at 1M unknowns ahead of
 * the GPU's fronts).  Its OpenMP team is a quarter of the caller's
 * threads: the upload of the values and the GPU factor's launching
 * threads (one per stream) run on the host beside it.  Its error is kept
 * (the message logged by the join): the caller checks again in order to
 * raise it where the in-order run does. */
#include <stdlib.h>
#include <string.h>

#include "direct_impl.h"

struct em_direct_beside {
  em_beside *bs;
  em_direct *F;
  const em_csr *A;
  em_direct_chk c;
};

static em_err beside_work(void *ctx, const em_log *log) {
  (void)log;
  em_direct_beside *b = ctx;
  return em_direct_checks(b->F, b->A, &b->c);
}

int em_direct_beside_start(em_direct *F, const em_csr *A, em_direct_beside **bp) {
  *bp = NULL;
  const char *env = getenv("EMSOLVE_CHECKS_BESIDE"); /* 0: never, 1: the host's factor too */
  if (env && !strcmp(env, "0")) return 1;
  if (F->be->host && !(env && !strcmp(env, "1"))) return 1;
  em_direct_beside *b = NULL;
  if (em_calloc(&b, 1, sizeof *b, "checks beside the factorization")) {
    em_error_clear();
    return 1;
  }
  b->F = F, b->A = A;
  b->bs = em_beside_start(beside_work, b, F->threads >= 4 ? F->threads / 4 : 1, NULL);
  if (!b->bs) {
    em_free(&b);
    return 1;
  }
  *bp = b;
  return 0;
}

em_err em_direct_beside_join(em_direct_beside **bp, em_direct_chk *c, const em_log *log) {
  em_direct_beside *b = *bp;
  double waited = 0;
  char msg[256] = "";
  em_err err = em_beside_join(&b->bs, NULL, &waited, msg, sizeof msg);
  *c = b->c;
  if (err)
    em_log_verbose(log, "direct: the checks beside the factorization failed: %s", msg);
  else
    em_log_verbose(log,
                   "direct: values checked (%.2f s), symmetric to %.1e (%.2f s) beside the "
                   "factorization (waited %.2f s)",
                   c->t_values, c->anorm > 0 ? c->asym / c->anorm : 0.0, c->t_sym, waited);
  em_free(bp);
  return err;
}
