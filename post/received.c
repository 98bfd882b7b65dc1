/* received.c - a plane wave on a case with ports: the ports are matched
 * loads (model/fsys.c, em_port_robin_load) and each takes the part of the
 * total field E_s + E_inc that reaches it: a wave port the outgoing modal
 * amplitude b = oint E . e / oint e . e of its unit-power mode (P = |b|^2),
 * a lumped load the voltage V = -(1/w) oint E . v (P = |V|^2 / 2R).  The
 * incident part is measured on the port's own triangles
 * (em_port_measure_fn). */
#include <math.h>

#include "run_impl.h"

static em_err incident_e(void *ctx, const double x[3], em_cplx E[3]) {
  em_planewave_field(ctx, x, E, NULL);
  return EM_OK;
}

em_err em_post_received(const em_model *m, em_results *res, em_outdir *out, const em_log *log,
                        int fi, double k0, const em_cplx *x, const em_cplx *fixed) {
  const em_ff_config *ff = &m->ff;
  int np = m->setup.n_port;
  em_cplx eps = 1, mu = 1;
  for (int g = 0; g < m->mesh->n_group; g++)
    if (m->mesh->group[g].dim == 3 && m->setup.medium[g].is_pml)
      eps = m->setup.medium[g].eps_r, mu = m->setup.medium[g].mu_r;
  em_planewave pw;
  EM_TRY(em_planewave_make(k0, ff->pw_theta, ff->pw_phi, ff->pw_psi, ff->pw_amp, eps, mu, &pw));
  for (int j = 0; j < np; j++) {
    const em_port *p = &m->setup.port[j];
    em_cplx cs, ci;
    EM_TRY(em_port_measure(p, m->mesh, m->dofs, x, fixed, &cs));
    EM_TRY(em_port_measure_fn(p, m->mesh, m->dofs->order, incident_e, &pw, &ci));
    em_cplx c = cs + ci; /* the total field's mode amplitude / load voltage */
    double R = p->z_ref > 0 ? p->z_ref : 50;
    res->rx[(size_t)fi * np + j] = c;
    res->rx_power[(size_t)fi * np + j] =
        p->type == EM_PORT_LUMPED ? creal(c * conj(c)) / (2 * R) : creal(c * conj(c));
    em_log_info(log, "%s receives %.6g W (%s %.6g%+.6gj)", p->name,
                res->rx_power[(size_t)fi * np + j],
                p->type == EM_PORT_LUMPED ? "load voltage, V" : "outgoing mode, sqrt(W)", creal(c),
                cimag(c));
  }
  char path[1400];
  EM_TRY(em_outdir_path(out, "received.csv", path, sizeof path));
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 0));
  fprintf(o.f, "# what the port loads receive from the plane wave (%g V/m)\n", ff->pw_amp);
  fprintf(o.f, "f_Hz,port,re,im,P_W\n");
  for (int i = 0; i <= fi; i++)
    for (int j = 0; j < np; j++)
      fprintf(o.f, "%.17g,%s,%.17g,%.17g,%.17g\n", res->freq[i], m->setup.port[j].name,
              creal(res->rx[(size_t)i * np + j]), cimag(res->rx[(size_t)i * np + j]),
              res->rx_power[(size_t)i * np + j]);
  EM_TRY(em_outfile_commit(&o));
  if (fi == 0) EM_TRY(em_outdir_add(out, "received.csv"));
  return EM_OK;
}
