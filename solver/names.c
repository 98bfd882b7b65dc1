/* names.c - names, parsers and defaults of the solver options: the words the
 * app accepts for -setstring Solver/method|preconditioner|ordering. */
#include <string.h>

#include "em_solver.h"

static const char *const METHODS[] = {"bicgstab", "cocg", "cocr", "gmres", "fgmres"};
static const char *const PCS[] = {"none", "jacobi", "ilu0", "direct"};
static const char *const ORDERINGS[] = {"natural", "rcm", "nd", "mc", "bmc"};
static const char *const REASONS[] = {"converged", "max-iterations", "breakdown", "stagnated",
                                      "diverged"};
static const char *const TRSVS[] = {"auto", "levels", "syncfree", "cusparse"};

#define COUNT(a) ((int)(sizeof(a) / sizeof(a[0])))

/* names[i] for a valid index, "?" otherwise */
static const char *name_of(const char *const *names, int count, int i) {
  return i >= 0 && i < count ? names[i] : "?";
}

/* index of s in names, or -1 */
static int index_of(const char *const *names, int count, const char *s) {
  for (int i = 0; s && i < count; i++)
    if (!strcmp(s, names[i])) return i;
  return -1;
}

/* "a, b, c" into buf, for the message that lists the known words */
static const char *known(const char *const *names, int count, char *buf, size_t n) {
  buf[0] = 0;
  for (int i = 0; i < count; i++) {
    strncat(buf, names[i], n - strlen(buf) - 1);
    if (i + 1 < count) strncat(buf, ", ", n - strlen(buf) - 1);
  }
  return buf;
}

const char *em_ksp_method_name(em_ksp_method m) {
  return name_of(METHODS, COUNT(METHODS), m);
}
const char *em_pc_type_name(em_pc_type p) {
  return name_of(PCS, COUNT(PCS), p);
}
const char *em_pc_ordering_name(em_pc_ordering o) {
  return name_of(ORDERINGS, COUNT(ORDERINGS), o);
}
const char *em_ksp_reason_name(em_ksp_reason r) {
  return name_of(REASONS, COUNT(REASONS), r);
}
const char *em_pc_trsv_name(em_pc_trsv t) {
  return name_of(TRSVS, COUNT(TRSVS), t);
}

em_err em_ksp_method_parse(const char *s, em_ksp_method *m) {
  char buf[128];
  int i = index_of(METHODS, COUNT(METHODS), s);
  EM_CHECK(i >= 0, EM_ERR_INPUT, "unknown Solver/method '%s' (known: %s)", s ? s : "(null)",
           known(METHODS, COUNT(METHODS), buf, sizeof buf));
  *m = (em_ksp_method)i;
  return EM_OK;
}

em_err em_pc_type_parse(const char *s, em_pc_type *p) {
  char buf[128];
  int i = index_of(PCS, COUNT(PCS), s);
  EM_CHECK(i >= 0, EM_ERR_INPUT, "unknown Solver/preconditioner '%s' (known: %s)", s ? s : "(null)",
           known(PCS, COUNT(PCS), buf, sizeof buf));
  *p = (em_pc_type)i;
  return EM_OK;
}

em_err em_pc_ordering_parse(const char *s, em_pc_ordering *o) {
  char buf[128];
  int i = index_of(ORDERINGS, COUNT(ORDERINGS), s);
  EM_CHECK(i >= 0, EM_ERR_INPUT, "unknown Solver/ordering '%s' (known: %s)", s ? s : "(null)",
           known(ORDERINGS, COUNT(ORDERINGS), buf, sizeof buf));
  *o = (em_pc_ordering)i;
  return EM_OK;
}

em_err em_pc_trsv_parse(const char *s, em_pc_trsv *t) {
  char buf[128];
  int i = index_of(TRSVS, COUNT(TRSVS), s);
  EM_CHECK(i >= 0, EM_ERR_INPUT, "unknown triangular solve '%s' (known: %s)", s ? s : "(null)",
           known(TRSVS, COUNT(TRSVS), buf, sizeof buf));
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
}
