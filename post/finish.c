/* finish.c - the outputs at the end of a sweep, in the order a reader
 * meets them: the port tables (Touchstone, ports.csv), summary.json (which
 * lists itself among the outputs), then the results on stdout, not only in
 * files. */
#include <math.h>
#include <string.h>

#include "run_impl.h"

/* S11 and Zin per frequency, each row's flags; beside S11 on the port's
 * own impedance, S11 on the Touchstone file's reference (every port
 * renormalised to it, as the file has it), so the two tables agree. */
static void print_ports(const em_model *m, const em_results *r, FILE *f) {
  int np = r->n_port, nf = r->n_freq;
  if (!np) return;
  double R = m->cfg.touchstone_z0, Rn[EM_MAX_PORTS];
  for (int p = 0; p < np; p++) Rn[p] = R;
  fprintf(f,
          "# %s: S11 and input impedance; S11 on the port's own impedance (%s %.6g ohm at the "
          "last frequency) and, as in the Touchstone file, on %g ohm\n",
          em_case_name(m->cs), m->setup.port[0].name, r->zref[0], R);
  fprintf(f, "# f_GHz        |S11|_dB   phase_deg   Re_Zin      Im_Zin      |S11|_dB@%gohm\n", R);
  for (int i = 0; i < nf; i++) {
    em_cplx s11 = r->S[(size_t)i * np * np], z = r->zin[(size_t)i * np];
    em_cplx S[EM_MAX_PORTS * EM_MAX_PORTS];
    memcpy(S, r->S + (size_t)i * np * np, (size_t)np * np * sizeof *S);
    char ts[32] = "-";
    if (em_port_renormalise(np, S, r->zport + (size_t)i * np, Rn) == EM_OK)
      snprintf(ts, sizeof ts, "%.4f", 20 * log10(cabs(S[0])));
    else
      em_error_clear();
    fprintf(f, "%-14.9g %-10.4f %-11.3f %-11.4f %-11.4f %-10s%s%s\n", r->freq[i] * 1e-9,
            20 * log10(cabs(s11)), carg(s11) * 180 / M_PI, creal(z), cimag(z), ts,
            r->fr[i].converged ? "" : "  (not converged)",
            r->flag[i] & EM_PORTS_FLAG_ACTIVE ? "  (|S| > 1)" : "");
  }
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
