/* tables.c - what the port tables say beyond the numbers: which
 * frequencies are flagged (a solve that did not converge, a reflection
 * above 1 at a passive structure), and the Touchstone file on one
 * reference impedance for every row.
 *
 * The S of a run is referenced to each port's own impedance at each
 * frequency (a waveguide's changes with frequency): the Touchstone file
 * holds it so by default (generalised S; the references in [Reference] of
 * Touchstone 2.0 when they differ between ports, and in a comment line
 * after each row whose references are not the first frequency's), or
 * renormalised to one R = Output/touchstone_z0 at every port and row.  The
 * ports' own impedances are in ports.csv (Zref<i>_ohm) and summary.json. */
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

/* The S of the Touchstone files and their references: with
 * Output/touchstone_z0 = R > 0 every row renormalised to R at every port;
 * with 0 (the default) S as solved, on each port's own impedance at each
 * frequency (generalised S: a matched waveguide reads its own match), the
 * references of the first frequency in the header (z0) and each row's in
 * zrow.  *S and *zrow are the caller's to free. */
static em_err touchstone_data(const em_run *r, em_cplx **S, double *z0, double **zrow) {
  int np = r->setup.n_port, nf = r->cfg.n_freq;
  double R = r->cfg.touchstone_z0, Rn[EM_MAX_PORTS];
  *zrow = NULL;
  EM_TRY(em_calloc(S, (size_t)nf * np * np, sizeof **S, "Touchstone S"));
  memcpy(*S, r->S, (size_t)nf * np * np * sizeof **S);
  if (R > 0) {
    for (int p = 0; p < np; p++) Rn[p] = z0[p] = R;
    for (int k = 0; k < nf; k++)
      EM_TRY(em_port_renormalise(np, *S + (size_t)k * np * np, r->zport + (size_t)k * np, Rn));
    return EM_OK;
  }
  EM_TRY(em_calloc(zrow, (size_t)nf * np, sizeof **zrow, "Touchstone references"));
  memcpy(*zrow, r->zport, (size_t)nf * np * sizeof **zrow);
  memcpy(z0, r->zport, (size_t)np * sizeof *z0);
  return EM_OK;
}

/* The comment of the Touchstone file: the case, what S is referenced to,
 * the ports' impedances over the sweep, the flagged frequencies. */
static void touchstone_comment(const em_run *r, char *comment, size_t cap) {
  int np = r->setup.n_port, nf = r->cfg.n_freq;
  double R = r->cfg.touchstone_z0;
  size_t len = 0;
  len += (size_t)snprintf(comment + len, cap - len, "emsolve %s, case %s, order %d\n", EM_VERSION,
                          em_case_path(r->cs), r->cfg.order);
  if (R > 0)
    len += (size_t)snprintf(comment + len, cap - len,
                            "S renormalised to %g ohm at every port and frequency "
                            "(Output/touchstone_z0); port impedances (ohm):",
                            R);
  else
    len += (size_t)snprintf(comment + len, cap - len,
                            "S on each port's own impedance at each frequency (generalised S; "
                            "Output/touchstone_z0 renormalises); port impedances (ohm):");
  for (int p = 0; p < np && len < cap; p++) {
    len +=
        (size_t)snprintf(comment + len, cap - len, " %s %.6g", r->setup.port[p].name, r->zport[p]);
    if (nf > 1 && len < cap)
      len += (size_t)snprintf(comment + len, cap - len, " .. %.6g",
                              r->zport[(size_t)(nf - 1) * np + p]);
  }
  if (nf > 1 && len < cap)
    len += (size_t)snprintf(comment + len, cap - len, " (%.6g .. %.6g GHz)", r->cfg.freq[0] * 1e-9,
                            r->cfg.freq[nf - 1] * 1e-9);
  for (int k = 0; k < nf && len < cap - 160; k++) {
    int g = r->flag[k];
    if (!g) continue;
    len += (size_t)snprintf(comment + len, cap - len, "\nFLAGGED %.9g Hz:%s%s", r->cfg.freq[k],
                            g & EM_PORTS_FLAG_NOT_CONVERGED ? " not converged" : "",
                            g & EM_PORTS_FLAG_ACTIVE ? " |S| > 1 at a passive port" : "");
  }
}

em_err em_app_write_touchstone(em_run *r, const char *path, const char *interp_path) {
  int np = r->setup.n_port, nf = r->cfg.n_freq;
  double z0[EM_MAX_PORTS];
  em_cplx *S = NULL;
  double *zrow = NULL;
  char *comment = NULL;
  size_t cap = 2048 + (size_t)nf * 160 + (size_t)np * 64;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, touchstone_data(r, &S, z0, &zrow), done);
  EM_TRY_GOTO(err, em_calloc(&comment, cap, 1, "Touchstone comment"), done);
  touchstone_comment(r, comment, cap);
  EM_TRY_GOTO(err, em_touchstone_write_ref(path, np, nf, r->cfg.freq, S, z0, zrow, comment), done);
  if (interp_path) { /* splined between the solved frequencies, the same references */
    size_t len = strlen(comment);
    snprintf(comment + len, cap - len, "\ninterpolated%s",
             zrow ? "; the references are the first frequency's" : "");
    err = em_touchstone_write_interp(interp_path, np, nf, r->cfg.freq, S, z0, comment,
                                     r->cfg.interp_points);
  }
done:
  em_free(&S);
  em_free(&zrow);
  em_free(&comment);
  return err;
}
