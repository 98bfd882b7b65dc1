/* names.c - names, parsers and defaults of the solver options: the words the
 * app accepts for -setstring Solver/method|preconditioner|trsv. */
#include <string.h>

#include "em_solver.h"

static const char *const METHODS[] = {"bicgstab", "cocg", "cocr", "gmres", "fgmres"};
static const char *const PCS[] = {"none", "jacobi", "ilu0", "direct", "pmg"};
static const char *const SMOOTHERS[] = {"jacobi", "block", "ilu0"};
static const char *const REASONS[] = {"converged", "max-iterations", "breakdown", "stagnated",
                                      "diverged"};
static const char *const TRSVS[] = {"auto", "levels", "syncfree", "cusparse"};

#define COUNT(a) ((int)(sizeof(a) / sizeof(a[0])))

const char *em_ksp_method_name(em_ksp_method m) {
  return em_name_of(METHODS, COUNT(METHODS), m);
}
const char *em_pc_type_name(em_pc_type p) {
  return em_name_of(PCS, COUNT(PCS), p);
}
const char *em_ksp_reason_name(em_ksp_reason r) {
  return em_name_of(REASONS, COUNT(REASONS), r);
}
const char *em_pc_trsv_name(em_pc_trsv t) {
  return em_name_of(TRSVS, COUNT(TRSVS), t);
}

em_err em_ksp_method_parse(const char *s, em_ksp_method *m) {
  int i;
  EM_TRY(em_name_parse(METHODS, COUNT(METHODS), s, "Solver/method", &i));
  *m = (em_ksp_method)i;
  return EM_OK;
}

em_err em_pc_type_parse(const char *s, em_pc_type *p) {
  int i;
  EM_TRY(em_name_parse(PCS, COUNT(PCS), s, "Solver/preconditioner", &i));
  *p = (em_pc_type)i;
  return EM_OK;
}

const char *em_pmg_smoother_name(em_pmg_smoother m) {
  return em_name_of(SMOOTHERS, COUNT(SMOOTHERS), m);
}

em_err em_pmg_smoother_parse(const char *s, em_pmg_smoother *m) {
  int i;
  EM_TRY(em_name_parse(SMOOTHERS, COUNT(SMOOTHERS), s, "PMG/smoother", &i));
  *m = (em_pmg_smoother)i;
  return EM_OK;
}

em_err em_pc_trsv_parse(const char *s, em_pc_trsv *t) {
  int i;
  EM_TRY(em_name_parse(TRSVS, COUNT(TRSVS), s, "triangular solve", &i));
  *t = (em_pc_trsv)i;
  return EM_OK;
}

void em_ksp_opts_default(em_ksp_opts *o) {
  memset(o, 0, sizeof *o);
  o->method = EM_KSP_BICGSTAB;
  o->tol = 1e-8;
  o->max_it = 1000;
  o->restart = 50;
}

void em_pc_opts_default(em_pc_opts *o) {
  memset(o, 0, sizeof *o);
  o->type = EM_PC_NONE;
  o->ordering = EM_ORDERING_NATURAL;
  o->backend = EM_BACKEND_CPU;
  o->prec = EM_PREC_DOUBLE;
  o->trsv = EM_TRSV_AUTO;
  o->pmg.coarse = 1;
  o->pmg.smoother = EM_PMG_BLOCK;
  o->pmg.sweeps = 2;
  em_direct_opts d; /* the direct factor's GPU solve variants */
  em_direct_opts_default(&d);
  o->gsolve = d.gsolve;
}
