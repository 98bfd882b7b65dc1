/* face.c - what a run says on stderr by default: one line per stage and
 * one per frequency, with the time spent and an estimate of the time left.
 * The stages' own detail (mesh sizes, assembly, factorization, Krylov
 * iterations) goes to r->detail, shown with -v only. */
#include <math.h>

#include "app_run.h"

/* "42 s", "3.5 min", "2.1 h" */
static void span(double s, char *buf, size_t n) {
  if (s < 10)
    snprintf(buf, n, "%.1f s", s);
  else if (s < 90)
    snprintf(buf, n, "%.0f s", s);
  else if (s < 5400)
    snprintf(buf, n, "%.1f min", s / 60);
  else
    snprintf(buf, n, "%.1f h", s / 3600);
}

void em_app_log_mesh(const em_run *r) {
  const em_mesh_stats *s = &r->m.mstats;
  em_log_info(r->log, "mesh: %d tets, %d vertices, h %.3g .. %.3g mm, quality min %.2f (%.2f s)",
              s->n_tet, s->n_vert, s->h_min * 1e3, s->h_max * 1e3, s->q_min, r->m.t_mesh);
  if (r->m.mesh->edge_mid) {
    int32_t nb;
    double bend;
    em_mesh_bent_edges(r->m.mesh, &nb, &bend);
    em_log_info(r->log,
                "mesh: curved tets (Mesh/geometry_order 2): %d edges bent, mid nodes up to %.3g of "
                "an edge off its chord",
                nb, bend);
  }
}

/* The time left: the frequencies after the first one timed, so that the
 * set-up the first one carries (ordering, symbolic analysis, the problem
 * object) is not counted once per frequency left. */
void em_app_log_frequency(em_run *r, int fi) {
  const em_freq_result *fr = &r->res.fr[fi];
  int np = r->m.setup.n_port, nf = r->m.cfg.n_freq, its = 0;
  for (int e = 0; e < fr->n_solve; e++) its += fr->ksp[e].iterations;
  double now = em_wtime();
  if (++r->n_solved == 1) r->t_first = now;
  char el[32], left[96] = "";
  span(now - r->t_start, el, sizeof el);
  if (fi + 1 < nf && r->n_solved == 1) {
    snprintf(left, sizeof left, " (set-up included); time left after the next frequency");
  } else if (fi + 1 < nf) {
    char t[32], p[32];
    double per = (now - r->t_first) / (r->n_solved - 1);
    span(per * (nf - fi - 1), t, sizeof t);
    span(per, p, sizeof p);
    snprintf(left, sizeof left, ", about %s left (%s per frequency)", t, p);
  }
  char res[160] = "";
  if (np && r->m.ff.planewave) { /* a plane wave into the port loads */
    snprintf(res, sizeof res, "%s receives %.3g W, ", r->m.setup.port[0].name,
             r->res.rx_power[(size_t)fi * np]);
  } else if (np) {
    int p = em_excite_port(em_post_excited(&r->m), 0); /* port 1, or the first driven */
    em_cplx s11 = r->res.S[(size_t)fi * np * np + p * np + p], z = r->res.zin[(size_t)fi * np + p];
    snprintf(res, sizeof res, "S%d%d %.2f dB / %.1f deg, Zin %.2f %+.2fj ohm, ", p + 1, p + 1,
             20 * log10(cabs(s11)), carg(s11) * 180 / M_PI, creal(z), cimag(z));
  }
  em_log_info(r->log, "frequency %d/%d, %.6g GHz: %s%d iterations%s, %.2f s; elapsed %s%s", fi + 1,
              nf, fr->f * 1e-9, res, its, fr->converged ? "" : " (NOT CONVERGED)",
              fr->t_assembly + fr->t_operator + fr->t_pc + fr->t_solve + fr->t_post, el, left);
}
