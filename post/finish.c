/* finish.c - the outputs at the end of a sweep, in the order a reader
 * meets them: the port tables (Touchstone, ports.csv), summary.json (which
 * lists itself among the outputs), then the results on stdout, not only in
 * files. */
#include <math.h>

#include "run_impl.h"

/* S11 and Zin per frequency, each row's flags. */
static void print_ports(const em_model *m, const em_results *r, FILE *f) {
  int np = r->n_port, nf = r->n_freq;
  if (!np || m->ff.planewave) return; /* a plane wave's loads: received.csv */
  fprintf(f,
          "# %s: S11 and input impedance, S referenced to each port's own impedance (%s %.6g "
          "ohm at the last frequency; the Touchstone file: %g ohm)\n",
          em_case_name(m->cs), m->setup.port[0].name, r->zref[0], m->cfg.touchstone_z0);
  fprintf(f, "# f_GHz        |S11|_dB   phase_deg   Re_Zin      Im_Zin\n");
  for (int i = 0; i < nf; i++) {
    em_cplx s11 = r->S[(size_t)i * np * np], z = r->zin[(size_t)i * np];
    fprintf(f, "%-14.9g %-10.4f %-11.3f %-11.4f %-11.4f%s%s\n", r->freq[i] * 1e-9,
            20 * log10(cabs(s11)), carg(s11) * 180 / M_PI, creal(z), cimag(z),
            r->fr[i].converged ? "" : "  (not converged)",
            r->flag[i] & EM_PORTS_FLAG_ACTIVE ? "  (|S| > 1)" : "");
  }
}

em_err em_post_finish(const em_model *m, em_results *res, em_outdir *out, double t_start, FILE *f) {
  EM_TRY(em_post_tables(m, res, out));
  EM_TRY(em_outdir_add(out, "summary.json"));
  EM_TRY(em_post_summary(m, res, out, t_start));
  print_ports(m, res, f);
  em_post_ff_print(m, res, f);
  return EM_OK;
}
