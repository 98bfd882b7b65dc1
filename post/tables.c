/* tables.c - the port tables of a sweep: the Touchstone file, its
 * interpolated twin, ports.csv; and what they say beyond the numbers: which
 * frequencies are flagged (a solve that did not converge, a reflection
 * above 1 at a passive structure).
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

/* The S of the Touchstone files and their references: with
 * Output/touchstone_z0 = R > 0 every row renormalised to R at every port;
 * with 0 (the default) S as solved, on each port's own impedance at each
 * frequency (generalised S: a matched waveguide reads its own match), the
 * references of the first frequency in the header (z0) and each row's in
 * zrow.  *S and *zrow are the caller's to free. */
static em_err touchstone_data(const em_model *m, const em_results *r, em_cplx **S, double *z0,
                              double **zrow) {
  int np = r->n_port, nf = r->n_freq;
  double R = m->cfg.touchstone_z0, Rn[EM_MAX_PORTS];
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
static void touchstone_comment(const em_model *m, const em_results *r, char *comment, size_t cap) {
  int np = r->n_port, nf = r->n_freq;
  double R = m->cfg.touchstone_z0;
  size_t len = 0;
  len += (size_t)snprintf(comment + len, cap - len, "emsolve %s, case %s, order %d\n", EM_VERSION,
                          em_case_path(m->cs), m->cfg.order);
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
        (size_t)snprintf(comment + len, cap - len, " %s %.6g", m->setup.port[p].name, r->zport[p]);
    if (nf > 1 && len < cap)
      len += (size_t)snprintf(comment + len, cap - len, " .. %.6g",
                              r->zport[(size_t)(nf - 1) * np + p]);
  }
  if (nf > 1 && len < cap)
    len += (size_t)snprintf(comment + len, cap - len, " (%.6g .. %.6g GHz)", r->freq[0] * 1e-9,
                            r->freq[nf - 1] * 1e-9);
  for (int k = 0; k < nf && len < cap - 160; k++) {
    int g = r->flag[k];
    if (!g) continue;
    len += (size_t)snprintf(comment + len, cap - len, "\nFLAGGED %.9g Hz:%s%s", r->freq[k],
                            g & EM_PORTS_FLAG_NOT_CONVERGED ? " not converged" : "",
                            g & EM_PORTS_FLAG_ACTIVE ? " |S| > 1 at a passive port" : "");
  }
}

/* The Touchstone file at path and, interp_path not NULL, its splined twin
 * (the same references). */
static em_err write_touchstone(const em_model *m, const em_results *r, const char *path,
                               const char *interp_path) {
  int np = r->n_port, nf = r->n_freq;
  double z0[EM_MAX_PORTS];
  em_cplx *S = NULL;
  double *zrow = NULL;
  char *comment = NULL;
  size_t cap = 2048 + (size_t)nf * 160 + (size_t)np * 64;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, touchstone_data(m, r, &S, z0, &zrow), done);
  EM_TRY_GOTO(err, em_calloc(&comment, cap, 1, "Touchstone comment"), done);
  touchstone_comment(m, r, comment, cap);
  EM_TRY_GOTO(err, em_touchstone_write_ref(path, np, nf, r->freq, S, z0, zrow, comment), done);
  if (interp_path) { /* splined between the solved frequencies, the same references */
    size_t len = strlen(comment);
    snprintf(comment + len, cap - len, "\ninterpolated%s",
             zrow ? "; the references are the first frequency's" : "");
    err = em_touchstone_write_interp(interp_path, np, nf, r->freq, S, z0, comment,
                                     m->cfg.interp_points, m->dev.backend);
  }
done:
  em_free(&S);
  em_free(&zrow);
  em_free(&comment);
  return err;
}

/* <case>.s<N>p, <case>_interp.s<N>p (Output/interp_points), ports.csv. */
em_err em_post_tables(const em_model *m, const em_results *r, em_outdir *out) {
  int np = r->n_port, nf = r->n_freq;
  if (!np || m->ff.planewave) return EM_OK; /* a plane wave drove the structure */
  char name[300], path[1400], iname[300], ipath[1400];
  int interp = m->cfg.interp_points > 0 && nf >= 2; /* splined between the solved frequencies */
  snprintf(name, sizeof name, "%s.s%dp", em_case_name(m->cs), np);
  snprintf(iname, sizeof iname, "%s_interp.s%dp", em_case_name(m->cs), np);
  /* Excitation/ports of a subset: S's columns of the driven ports only,
     in ports.csv; no Touchstone file (it holds the whole matrix: the log
     said so at the set-up, model/excite.c) */
  uint32_t ex = em_post_excited(m);
  if (ex == em_excite_all(np)) {
    EM_TRY(em_outdir_path(out, name, path, sizeof path));
    EM_TRY(em_outdir_path(out, iname, ipath, sizeof ipath));
    EM_TRY(write_touchstone(m, r, path, interp ? ipath : NULL));
    EM_TRY(em_outdir_add(out, name));
    if (interp) EM_TRY(em_outdir_add(out, iname));
  }
  EM_TRY(em_outdir_path(out, "ports.csv", path, sizeof path));
  EM_TRY(em_ports_csv_write_cols(path, np, ex, nf, r->freq, r->S, r->zport, r->flag));
  EM_TRY(em_outdir_add(out, "ports.csv"));
  return EM_OK;
}
