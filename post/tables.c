/* tables.c - the port tables of a sweep: the Touchstone file on one
 * reference impedance for every row, its interpolated twin, ports.csv; and
 * what they say beyond the numbers: which frequencies are flagged (a solve
 * that did not converge, a reflection above 1 at a passive structure).
 *
 * Touchstone v1 has one reference R on its option line.  The S of a run is
 * referenced to each port's own impedance at each frequency (a waveguide's
 * changes with frequency), so the file gets S renormalised to R =
 * Output/touchstone_z0 (50 ohm by default) at every row; the ports' own
 * impedances are in ports.csv (Zref<i>_ohm) and summary.json. */
#include <math.h>
#include <string.h>

#include "em_post.h"

/* |S_pp| > 1 + this: more power reflected than sent (rounding allowed) */
#define ACTIVE_TOL 1e-9

/* The flags of frequency fi, each warned about. */
void em_post_flag(em_results *r, const em_log *log, int fi) {
  int np = r->n_port, g = 0;
  if (!r->fr[fi].converged) g |= EM_PORTS_FLAG_NOT_CONVERGED;
  for (int p = 0; p < np; p++) {
    double a = cabs(r->S[(size_t)fi * np * np + p * np + p]);
    if (a > 1 + ACTIVE_TOL) {
      g |= EM_PORTS_FLAG_ACTIVE;
      em_log_warn(log,
                  "f = %.6g GHz: |S%d%d| = %.6f > 1 although the structure is passive: the "
                  "result is wrong (mesh too coarse near the port, or not converged)",
                  r->freq[fi] * 1e-9, p + 1, p + 1, a);
    }
  }
  r->flag[fi] = g;
  r->flagged |= g != 0;
}

static em_err write_touchstone(const em_model *m, const em_results *r, const char *path) {
  int np = r->n_port, nf = r->n_freq;
  double R = m->cfg.touchstone_z0, Rn[EM_MAX_PORTS];
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
                          EM_VERSION, em_case_path(m->cs), m->cfg.order, R);
  for (int p = 0; p < np; p++)
    len +=
        (size_t)snprintf(comment + len, cap - len, " %s %.6g", m->setup.port[p].name, r->zport[p]);
  if (nf > 1)
    len += (size_t)snprintf(comment + len, cap - len, " at %.6g GHz .. %.6g at %.6g GHz",
                            r->freq[0] * 1e-9, r->zport[(size_t)(nf - 1) * np],
                            r->freq[nf - 1] * 1e-9);
  for (int k = 0; k < nf; k++) {
    int g = r->flag[k];
    if (!g) continue;
    len += (size_t)snprintf(comment + len, cap - len, "\nFLAGGED %.9g Hz:%s%s", r->freq[k],
                            g & EM_PORTS_FLAG_NOT_CONVERGED ? " not converged" : "",
                            g & EM_PORTS_FLAG_ACTIVE ? " |S| > 1 at a passive port" : "");
    if (len >= cap - 160) break;
  }
  err = em_touchstone_write(path, np, nf, r->freq, S, R, comment);
done:
  em_free(&S);
  em_free(&comment);
  return err;
}

/* <case>.s<N>p, <case>_interp.s<N>p (Output/interp_points), ports.csv. */
em_err em_post_tables(const em_model *m, const em_results *r, em_outdir *out) {
  int np = r->n_port, nf = r->n_freq;
  if (!np || m->ff.planewave) return EM_OK; /* a plane wave drove the structure */
  char name[300], path[1400];
  snprintf(name, sizeof name, "%s.s%dp", em_case_name(m->cs), np);
  EM_TRY(em_outdir_path(out, name, path, sizeof path));
  EM_TRY(write_touchstone(m, r, path));
  EM_TRY(em_outdir_add(out, name));
  if (m->cfg.interp_points > 0 && nf >= 2) { /* splined between the solved frequencies */
    char comment[512]; /* S as solved: each port's own impedance (Touchstone v1 states one) */
    snprintf(comment, sizeof comment, "emsolve %s, case %s, order %d, interpolated", EM_VERSION,
             em_case_path(m->cs), m->cfg.order);
    snprintf(name, sizeof name, "%s_interp.s%dp", em_case_name(m->cs), np);
    EM_TRY(em_outdir_path(out, name, path, sizeof path));
    EM_TRY(em_touchstone_write_interp(path, np, nf, r->freq, r->S, r->zref[0], comment,
                                      m->cfg.interp_points));
    EM_TRY(em_outdir_add(out, name));
  }
  EM_TRY(em_outdir_path(out, "ports.csv", path, sizeof path));
  EM_TRY(em_ports_csv_write_sweep(path, np, nf, r->freq, r->S, r->zport, r->flag));
  EM_TRY(em_outdir_add(out, "ports.csv"));
  return EM_OK;
}
