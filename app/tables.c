/* tables.c - what the port tables say beyond the numbers: which
 * frequencies are flagged (a solve that did not converge, a reflection
 * above 1 at a passive structure), and the Touchstone file on one
 * reference impedance for every row.
 *
 * Touchstone v1 has one reference R on its option line.  The S of a run is
 * referenced to each port's own impedance at each frequency (a waveguide's
 * changes with frequency), so the file gets S renormalised to R =
 * Output/touchstone_z0 (50 ohm by default) at every row; the ports' own
 * impedances are in ports.csv (Zref<i>_ohm) and summary.json. */
#include <math.h>
#include <string.h>

#include "app_run.h"

/* |S_pp| > 1 + this: more power reflected than sent (rounding allowed) */
#define ACTIVE_TOL 1e-9

void em_app_flag_frequency(em_run *r, int fi) {
  int np = r->setup.n_port, g = 0;
  if (!r->fr[fi].converged) g |= EM_PORTS_FLAG_NOT_CONVERGED;
  for (int p = 0; p < np; p++) {
    double a = cabs(r->S[(size_t)fi * np * np + p * np + p]);
    if (a > 1 + ACTIVE_TOL) {
      g |= EM_PORTS_FLAG_ACTIVE;
      em_log_warn(r->log,
                  "f = %.6g GHz: |S%d%d| = %.6f > 1 although the structure is passive: the "
                  "result is wrong (mesh too coarse near the port, or not converged)",
                  r->cfg.freq[fi] * 1e-9, p + 1, p + 1, a);
    }
  }
  r->flag[fi] = g;
  r->flagged |= g != 0;
}

em_err em_app_write_touchstone(em_run *r, const char *path) {
  int np = r->setup.n_port, nf = r->cfg.n_freq;
  double R = r->cfg.touchstone_z0, Rn[EM_MAX_PORTS];
  em_cplx *S = NULL;
  char *comment = NULL;
  size_t cap = 1024 + (size_t)nf * 160, len = 0;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&S, (size_t)nf * np * np, sizeof *S, "Touchstone S"));
  EM_TRY_GOTO(err, em_calloc(&comment, cap, 1, "Touchstone comment"), done);
  memcpy(S, r->S, (size_t)nf * np * np * sizeof *S);
  for (int p = 0; p < np; p++) Rn[p] = R;
  for (int k = 0; k < nf; k++)
    EM_TRY_GOTO(
        err, em_port_renormalise(np, S + (size_t)k * np * np, r->zport + (size_t)k * np, Rn), done);
  len += (size_t)snprintf(comment + len, cap - len,
                          "emsolve %s, case %s, order %d\nS renormalised to %g ohm at every port "
                          "and frequency; port impedances (ohm):",
                          EM_VERSION, em_case_path(r->cs), r->cfg.order, R);
  for (int p = 0; p < np; p++)
    len +=
        (size_t)snprintf(comment + len, cap - len, " %s %.6g", r->setup.port[p].name, r->zport[p]);
  if (nf > 1)
    len += (size_t)snprintf(comment + len, cap - len, " at %.6g GHz .. %.6g at %.6g GHz",
                            r->cfg.freq[0] * 1e-9, r->zport[(size_t)(nf - 1) * np],
                            r->cfg.freq[nf - 1] * 1e-9);
  for (int k = 0; k < nf; k++) {
    int g = r->flag[k];
    if (!g) continue;
    len += (size_t)snprintf(comment + len, cap - len, "\nFLAGGED %.9g Hz:%s%s", r->cfg.freq[k],
                            g & EM_PORTS_FLAG_NOT_CONVERGED ? " not converged" : "",
                            g & EM_PORTS_FLAG_ACTIVE ? " |S| > 1 at a passive port" : "");
    if (len >= cap - 160) break;
  }
  err = em_touchstone_write(path, np, nf, r->cfg.freq, S, R, comment);
done:
  em_free(&S);
  em_free(&comment);
  return err;
}
