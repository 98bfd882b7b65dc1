/* config_array.c - the typed view of the array outputs (Array/ *,
 * docs/farfield.md "Arrays"): the weights of the array excitation, given
 * as "amp@deg, ..." or from a scan direction, and the scan step of the
 * active reflection table; read after the far field's settings (the
 * outputs need the far field and two or more wave ports).  What they give
 * is post/'s (post/array.c, post/ff_array.c). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config_impl.h"

em_err em_array_parse_weights(const char *s, int n, em_cplx *a) {
  EM_CHECK(s && a && n >= 1, EM_ERR_ARG, "array weights: NULL argument or %d ports", n);
  const char *p = s;
  int k = 0;
  double total = 0;
  for (;;) {
    while (isspace((unsigned char)*p)) p++;
    if (!*p) break;
    EM_CHECK(k < n, EM_ERR_INPUT,
             "Array/weights \"%s\": more than %d weights (the case has %d ports)", s, n, n);
    char *end;
    double amp = strtod(p, &end), ph = 0;
    EM_CHECK(end != p && isfinite(amp) && amp >= 0, EM_ERR_INPUT,
             "Array/weights \"%s\": weight %d is not an amplitude >= 0 (write amp or amp@deg, "
             "comma-separated)",
             s, k + 1);
    p = end;
    while (isspace((unsigned char)*p)) p++;
    if (*p == '@') {
      p++;
      ph = strtod(p, &end);
      EM_CHECK(end != p && isfinite(ph), EM_ERR_INPUT,
               "Array/weights \"%s\": the phase of weight %d is not a number of degrees", s, k + 1);
      p = end;
      while (isspace((unsigned char)*p)) p++;
    }
    EM_CHECK(*p == ',' || !*p, EM_ERR_INPUT,
             "Array/weights \"%s\": unexpected '%c' after weight %d (write amp or amp@deg, "
             "comma-separated)",
             s, *p, k + 1);
    /* exact for the phases of whole right angles (1@90 is j, 1@180 is -1) */
    double r = fmod(ph, 360.0);
    if (r < 0) r += 360;
    em_cplx u = r == 0     ? 1
                : r == 90  ? I
                : r == 180 ? -1
                : r == 270 ? -I
                           : cexp(I * ph * M_PI / 180);
    a[k++] = amp * u;
    total += amp * amp;
    if (*p == ',') p++;
  }
  EM_CHECK(k == n, EM_ERR_INPUT, "Array/weights \"%s\": %d weights for %d ports", s, k, n);
  EM_CHECK(total > 0, EM_ERR_INPUT, "Array/weights \"%s\": every amplitude is zero", s);
  return EM_OK;
}

em_err em_array_config_read(const em_case *c, int ff_enabled, int planewave, const em_setup *s,
                            em_array_config *A) {
  int np = s->n_port, wave = 1;
  const char *w;
  double th, ph;
  memset(A, 0, sizeof *A);
  EM_TRY(em_case_string(c, "Array/weights", &w));
  EM_TRY(em_case_number(c, "Array/scan_theta", &th));
  EM_TRY(em_case_number(c, "Array/scan_phi", &ph));
  EM_TRY(em_case_number(c, "Array/scan_step", &A->scan_step));
  EM_CHECK(isfinite(th) && th >= 0 && th <= 180 && isfinite(ph), EM_ERR_INPUT,
           "Array/scan_theta = %g, Array/scan_phi = %g deg: theta in 0..180, phi finite", th, ph);
  double ns = 90 / A->scan_step;
  EM_CHECK(isfinite(ns) && A->scan_step > 0 && fabs(ns - round(ns)) < 1e-9 * ns, EM_ERR_INPUT,
           "Array/scan_step = %g deg must divide 90 (e.g. 1, 2, 5)", A->scan_step);
  for (int p = 0; p < np; p++) wave &= s->port[p].type != EM_PORT_LUMPED;
  int given = w[strspn(w, " \t")] != '\0';
  if (given) {
    EM_CHECK(np >= 2 && wave, EM_ERR_INPUT,
             "Array/weights \"%s\": the array outputs need two or more wave ports (coax or "
             "waveguide); case %s has %d port(s)%s",
             w, em_case_path(c), np, np >= 2 ? ", some of them lumped" : "");
    EM_TRY(em_array_parse_weights(w, np, A->w));
  }
  snprintf(A->weights, sizeof A->weights, "%s", w);
  A->scan = !given;
  A->scan_theta = th * M_PI / 180;
  A->scan_phi = ph * M_PI / 180;
  A->enabled = ff_enabled && !planewave && np >= 2 && wave;
  A->lumped = ff_enabled && np >= 2 && !wave;
  return EM_OK;
}
