/* finish.c - the outputs at the end of a sweep, in the order a reader
 * meets them: the port tables (Touchstone, ports.csv), summary.json (which
 * lists itself among the outputs), then the results on stdout, not only in
 * files. */
#include <math.h>
#include <string.h>

#include "run_impl.h"

/* Every S_ij and each port's Zin per frequency, each row's flags
 * (ports_print.c). */
static void print_ports(const em_model *m, const em_results *r, FILE *f) {
  int np = r->n_port;
  if (!np || m->ff.planewave) return; /* a plane wave's loads: received.csv */
  const char *names[EM_MAX_PORTS];
  for (int p = 0; p < np; p++) names[p] = m->setup.port[p].name;
  em_ports_table t = {em_case_name(m->cs),
                      np,
                      r->n_freq,
                      r->freq,
                      r->S,
                      r->zin,
                      r->zport,
                      names,
                      r->flag,
                      m->cfg.touchstone_z0,
                      em_post_excited(m)};
  em_ports_print(f, &t);
}

em_err em_post_finish(const em_model *m, em_results *res, em_outdir *out, double t_start, FILE *f) {
  EM_TRY(em_post_tables(m, res, out));
  EM_TRY(em_outdir_add(out, "summary.json"));
  EM_TRY(em_post_summary(m, res, out, t_start));
  if (!f) return EM_OK; /* a quiet design sweep's point: the files only */
  print_ports(m, res, f);
  em_post_ff_print(m, res, f);
  return EM_OK;
}
