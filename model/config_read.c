/* config_read.c - one parameter read for the typed view: a finite number,
 * an integer in a range, or one of a list of words; each error names the
 * parameter (and, for a word, the choices). */
#include <math.h>

#include "config_impl.h"

em_err em_cfg_number(const em_case *c, const char *name, double *v) {
  EM_TRY(em_case_number(c, name, v));
  EM_CHECK(isfinite(*v), EM_ERR_INPUT, "parameter %s is not a finite number", name);
  return EM_OK;
}

em_err em_cfg_integer(const em_case *c, const char *name, int lo, int hi, int *v) {
  double d;
  EM_TRY(em_cfg_number(c, name, &d));
  EM_CHECK(d == floor(d) && d >= lo && d <= hi, EM_ERR_INPUT,
           "parameter %s = %g must be an integer in %d..%d", name, d, lo, hi);
  *v = (int)d;
  return EM_OK;
}

em_err em_cfg_choice(const em_case *c, const char *name, const char *const *opts, int n, int *v) {
  const char *s;
  EM_TRY(em_case_string(c, name, &s));
  EM_TRY(em_name_parse(opts, n, s, name, v));
  return EM_OK;
}
