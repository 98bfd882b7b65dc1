/* eigen.c - Solver/problem eigen: the resonant modes of the case nearest
 * Eigen/target.  The curl-curl weak form splits as
 *
 *   (S - k0^2 T) e = 0,   S = int nu curl e . curl w + ABC,  T = int eps e . w,
 *
 * S and T assembled separately with the same pattern (the assembly with
 * k0 = 0 gives S; with k0 = 1 and nu = 0 it gives -T).  Three terms of the
 * driven problem depend on the frequency and are frozen at the target k_t
 * so the problem stays linear in lambda = k0^2 (docs/eigen.md):
 *   - the PML stretch s = 1 - j sigma(xi) / k_t  (exact absorption at k_t;
 *     near it the layer absorbs as well, only its depth in wavelengths
 *     changes),
 *   - the first-order ABC j k_t sqrt(eps mu) / mu,
 *   - ports (Eigen/ports): open, the natural condition n x curl E = 0 (PMC)
 *     on the port plane, so the modes are the poles of the input impedance
 *     Zin seen there (default); short (PEC), the poles of the admittance;
 *     matched, the port's own Robin term at k_t (the mode loaded by the
 *     feed's reference impedance).
 * Per mode: f = c sqrt(lambda) / 2 pi, Q = Re f / (2 Im f), the residual,
 * the electric energy int Re(eps_r) |E|^2 per volume group and in the PML;
 * modes.csv, a table on stdout, mode_<i>.vtk. */
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "app_run.h"
#include "em_eigen.h"

/* The material with nu = 0: assembled at k0 = 1 it gives -T. */
static em_err mass_only(void *ctx, int32_t t, const double x[3], em_material *mat) {
  EM_TRY(em_media_material(ctx, t, x, mat));
  for (int d = 0; d < 3; d++) mat->nu[d] = 0;
  return EM_OK;
}

/* S (k0 = 0 with the ABC) and T (k0 = 1, nu = 0, sign flipped) as CSR in
 * the dofmap's numbering. */
static em_err assemble_pair(em_run *r, double kt, em_csr **S, em_csr **T) {
  em_err err = EM_OK;
  em_setup *s = &r->setup;
  em_robin rb[16];
  int n_rb = 0, n_abc = 0; /* the first n_abc terms own their face lists */
  uint8_t *vary = NULL;
  em_system *sys = NULL;
  em_media media = {r->mesh, s->medium, s->has_pml ? &s->pml : NULL, kt};
  if (s->has_pml) {
    EM_TRY_GOTO(err, em_calloc(&vary, (size_t)r->mesh->n_tet, 1, "PML tets"), done);
    for (int32_t t = 0; t < r->mesh->n_tet; t++)
      vary[t] = (uint8_t)s->medium[r->mesh->tet_group[t]].is_pml;
  }
  /* the ABC terms of model/fsys.c: gamma = j k_t sqrt(eps mu) / mu per medium */
  EM_TRY_GOTO(err, em_abc_robins(r->mesh, s->medium, s->abc_face, s->n_abc, kt, rb, 16, &n_abc),
              done);
  n_rb = n_abc;
  if (r->cfg.eig_ports == 2) /* matched: the port's Robin term, no excitation */
    for (int i = 0; i < s->n_port; i++) {
      if (n_rb >= 16) {
        err = EM_RAISE(EM_ERR_INPUT, "eigen: more than 16 ports and ABC media to match");
        goto done;
      }
      EM_TRY_GOTO(err, em_port_set_frequency(&s->port[i], kt), done);
      em_port_robin(&s->port[i], 0, 0, &rb[n_rb++]);
    }
  em_problem prob = {.k0 = 0,
                     .order = r->dofs->order,
                     .material = em_media_material,
                     .material_ctx = &media,
                     .tet_vary = vary,
                     .n_robin = n_rb,
                     .robin = rb,
                     .n_rhs = 1};
  EM_TRY_GOTO(err, em_assemble(r->mesh, r->dofs, &prob, r->log, &sys), done);
  EM_TRY_GOTO(err, em_blockmat_to_csr(sys->A, S), done);
  em_system_destroy(&sys);
  prob.k0 = 1;
  prob.material = mass_only;
  prob.n_robin = 0;
  prob.robin = NULL;
  EM_TRY_GOTO(err, em_assemble(r->mesh, r->dofs, &prob, r->log, &sys), done);
  EM_TRY_GOTO(err, em_blockmat_to_csr(sys->A, T), done);
  for (int64_t k = 0; k < (*T)->nnz; k++) (*T)->val[k] = -(*T)->val[k];
done:
  em_abc_free(rb, n_abc);
  em_system_destroy(&sys);
  em_free(&vary);
  return err;
}

/* What is reported per mode. */
typedef struct mode_info {
  em_cplx f;    /* Hz */
  double q;     /* Re f / (2 Im f) */
  double resid; /* relative residual of (S - lambda T) x */
  double pml;   /* fraction of the electric energy in the PML */
  const char *flag;
  char label[8]; /* dominant dipole of the dielectric: "M_y", "P_z", "-" */
  int col;       /* column in the eigen result */
} mode_info;

/* int Re(eps_r) |E|^2 per volume group (the PML's background eps). */
static em_err energy(const em_run *r, const em_cplx *x, double *w_group) {
  const em_mesh *m = r->mesh;
  int p = r->dofs->order;
  em_quad q;
  EM_TRY(em_quad_tet(2 * p, &q));
  for (int g = 0; g < m->n_group; g++) w_group[g] = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    em_tet_geom geo;
    em_tet_geom_make(m, t, &geo);
    double s = 0;
    for (int k = 0; k < q.n; k++) {
      em_cplx E[3];
      double xq[3], grad[4][3], dv; /* a curved tet: its own volume element */
      em_tet_geom_at(&geo, q.lam + 4 * k, xq, grad, &dv);
      em_field_eval(m, r->dofs, x, NULL, t, q.lam + 4 * k, E, NULL);
      s += q.w[k] * dv *
           (creal(E[0] * conj(E[0])) + creal(E[1] * conj(E[1])) + creal(E[2] * conj(E[2])));
    }
    int g = m->tet_group[t];
    w_group[g] += creal(r->setup.medium[g].eps_r) * s;
  }
  return EM_OK;
}

/* A label from symmetry: the polarization current of the dielectrics
 * (Re eps_r != 1, outside the PML), J = j omega eps0 (eps_r - 1) E, as
 * electric and magnetic dipoles about its centroid,
 *   p ~ int (eps_r - 1) E,   m / c ~ (k / 2) int (eps_r - 1) (x - x_c) x E,
 * in units that radiate alike; the largest of the six components names the
 * mode (a cylindrical DRA: HEM11delta is M_x or M_y, TE01delta M_z,
 * TM01delta P_z).  "-" without a dielectric (a hollow cavity). */
static em_err dipole_label(const em_run *r, const em_cplx *x, double k, char *label) {
  const em_mesh *m = r->mesh;
  em_quad q;
  EM_TRY(em_quad_tet(2 * r->dofs->order, &q));
  em_cplx P[3] = {0, 0, 0}, X[3] = {0, 0, 0};
  double C[3] = {0, 0, 0}, W = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    const em_medium *med = &r->setup.medium[m->tet_group[t]];
    double de = creal(med->eps_r) - 1;
    if (med->is_pml || fabs(de) < 1e-12) continue;
    em_tet_geom g;
    em_tet_geom_make(m, t, &g);
    for (int k2 = 0; k2 < q.n; k2++) {
      const double *lam = q.lam + 4 * k2;
      double xq[3], grad[4][3], dv; /* a curved tet: the mapped point */
      em_tet_geom_at(&g, lam, xq, grad, &dv);
      double wq = q.w[k2] * dv * de;
      em_cplx E[3];
      em_field_eval(m, r->dofs, x, NULL, t, lam, E, NULL);
      for (int d = 0; d < 3; d++) {
        int d1 = (d + 1) % 3, d2 = (d + 2) % 3;
        P[d] += wq * E[d];
        X[d] += wq * (xq[d1] * E[d2] - xq[d2] * E[d1]);
        C[d] += wq * xq[d];
      }
      W += wq;
    }
  }
  if (W == 0) {
    snprintf(label, 8, "-");
    return EM_OK;
  }
  double best = -1;
  for (int d = 0; d < 3; d++) {
    int d1 = (d + 1) % 3, d2 = (d + 2) % 3;
    /* about the centroid: m = X - x_c x P */
    em_cplx md = X[d] - (C[d1] / W * P[d2] - C[d2] / W * P[d1]);
    double vp = cabs(P[d]), vm = 0.5 * k * cabs(md);
    if (vp > best) best = vp, snprintf(label, 8, "P_%c", 'x' + d);
    if (vm > best) best = vm, snprintf(label, 8, "M_%c", 'x' + d);
  }
  return EM_OK;
}

typedef struct field_ctx {
  const em_mesh *m;
  const em_dofmap *d;
  const em_cplx *x;
} field_ctx;

static em_err sample(void *ctx, int32_t t, const double lam[4], em_cplx E[3]) {
  const field_ctx *f = ctx;
  em_field_eval(f->m, f->d, f->x, NULL, t, lam, E, NULL);
  return EM_OK;
}

static em_err write_csv(const em_run *r, const char *path, int n, const mode_info *mi,
                        const double *frac) {
  const em_mesh *m = r->mesh;
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 0));
  fprintf(o.f, "mode,f_re_Hz,f_im_Hz,Q,residual,pml_fraction,flag,dipole");
  for (int g = 0; g < m->n_group; g++)
    if (m->group[g].dim == 3) fprintf(o.f, ",energy_%s", m->group[g].name);
  fprintf(o.f, "\n");
  for (int i = 0; i < n; i++) {
    fprintf(o.f, "%d,%.12g,%.12g,%.8g,%.3e,%.6f,%s,%s", i + 1, creal(mi[i].f), cimag(mi[i].f),
            mi[i].q, mi[i].resid, mi[i].pml, mi[i].flag, mi[i].label);
    for (int g = 0; g < m->n_group; g++)
      if (m->group[g].dim == 3) fprintf(o.f, ",%.6f", frac[(size_t)i * m->n_group + g]);
    fprintf(o.f, "\n");
  }
  return em_outfile_commit(&o);
}

/* Flags: "pml" when the PML holds more than half the electric energy (a
 * mode of the layer, not of the structure), "spurious" when lambda is not
 * a physical resonance (Re lambda <= 0: the gradient null space or its
 * pollution; a growing mode, Im f < 0 beyond the residual), "unconverged"
 * when the residual is above 1e-6. */
static const char *flag_of(em_cplx lam, em_cplx f, double resid, double pml) {
  if (resid > 1e-6) return "unconverged";
  if (creal(lam) <= 0 || cimag(f) < -1e-6 * creal(f)) return "spurious";
  if (pml > 0.5) return "pml";
  return "ok";
}

static em_err report_modes(em_run *r, em_eigen_result *er) {
  em_err err = EM_OK;
  const em_mesh *m = r->mesh;
  int n = er->n;
  int32_t nd = er->dim;
  mode_info *mi = NULL;
  double *frac = NULL, *wg = NULL;
  EM_TRY_GOTO(err, em_calloc(&mi, (size_t)n + 1, sizeof *mi, "modes"), done);
  EM_TRY_GOTO(err, em_calloc(&frac, (size_t)(n + 1) * m->n_group, sizeof *frac, "energies"), done);
  EM_TRY_GOTO(err, em_calloc(&wg, (size_t)m->n_group, sizeof *wg, "energies"), done);
  for (int i = 0; i < n; i++) {
    em_cplx *x = er->x + (size_t)i * nd, lam = er->lambda[i];
    /* phase: the largest entry real and positive (the VTK shows Re E) */
    int32_t jm = 0;
    for (int32_t j = 1; j < nd; j++)
      if (cabs(x[j]) > cabs(x[jm])) jm = j;
    em_cplx ph = cabs(x[jm]) > 0 ? conj(x[jm]) / cabs(x[jm]) : 1;
    for (int32_t j = 0; j < nd; j++) x[j] *= ph;
    em_cplx k0 = csqrt(lam);
    mode_info *q = &mi[i];
    q->col = i;
    q->f = k0 * EM_C0 / (2 * M_PI);
    /* a real problem (no loss, no PML, no ABC) gives Im f at rounding
       level, of either sign: Q is infinite there, not 1e28 */
    if (fabs(cimag(q->f)) <= 1e-13 * cabs(q->f)) q->f = creal(q->f);
    q->q = cimag(q->f) != 0 ? creal(q->f) / (2 * cimag(q->f)) : INFINITY;
    q->resid = er->resid[i];
    EM_TRY_GOTO(err, energy(r, x, wg), done);
    double tot = 0, pml = 0;
    for (int g = 0; g < m->n_group; g++) tot += wg[g];
    for (int g = 0; g < m->n_group; g++) {
      frac[(size_t)i * m->n_group + g] = tot > 0 ? wg[g] / tot : 0;
      if (m->group[g].dim == 3 && r->setup.medium[g].is_pml) pml += wg[g];
    }
    q->pml = tot > 0 ? pml / tot : 0;
    q->flag = flag_of(lam, q->f, q->resid, q->pml);
    EM_TRY_GOTO(err, dipole_label(r, x, creal(k0), q->label), done);
  }
  /* ascending Re f (insertion sort; rows of frac move with them) */
  for (int a = 1; a < n; a++)
    for (int b = a; b > 0 && creal(mi[b].f) < creal(mi[b - 1].f); b--) {
      mode_info t = mi[b];
      mi[b] = mi[b - 1];
      mi[b - 1] = t;
      for (int g = 0; g < m->n_group; g++) {
        double u = frac[(size_t)b * m->n_group + g];
        frac[(size_t)b * m->n_group + g] = frac[(size_t)(b - 1) * m->n_group + g];
        frac[(size_t)(b - 1) * m->n_group + g] = u;
      }
    }
  char path[1200];
  snprintf(path, sizeof path, "%s/modes.csv", r->out_dir);
  EM_TRY_GOTO(err, write_csv(r, path, n, mi, frac), done);
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/mode_%d.vtk", r->out_dir, i + 1);
    field_ctx fc = {m, r->dofs, er->x + (size_t)mi[i].col * nd};
    char title[128];
    snprintf(title, sizeof title, "%s mode %d, f = %.6g%+.4gj GHz", em_case_name(r->cs), i + 1,
             creal(mi[i].f) * 1e-9, cimag(mi[i].f) * 1e-9);
    em_vtk_opts vo = {.binary = r->cfg.vtk_binary,
                      .subdiv = r->cfg.subdiv,
                      .title = title,
                      .order = r->dofs->uniform ? NULL : r->dofs->tet_order};
    EM_TRY_GOTO(err, em_vtk_write(path, m, sample, &fc, &vo), done);
  }
  printf("# %s: %d eigenmodes nearest %.6g GHz (order %d, %d unknowns)\n", em_case_name(r->cs), n,
         r->cfg.eig_target * 1e-9, r->dofs->order, nd);
  printf(
      "# mode  f_re_GHz        f_im_GHz        Q             residual   pml_frac  flag   "
      "dipole\n");
  for (int i = 0; i < n; i++)
    printf("%-6d %-15.10g %-15.8g %-13.6g %-10.2e %-9.4f %-6s %s\n", i + 1, creal(mi[i].f) * 1e-9,
           cimag(mi[i].f) * 1e-9, mi[i].q, mi[i].resid, mi[i].pml, mi[i].flag, mi[i].label);
  if (!er->converged) printf("# not all modes converged (see the log)\n");
  printf("# outputs in %s/ (modes.csv, mode_<i>.vtk)\n", r->out_dir);
done:
  em_free(&mi);
  em_free(&frac);
  em_free(&wg);
  return err;
}

em_err em_app_eigen(em_run *r) {
  const em_run_config *cfg = &r->cfg;
  const em_mesh *m = r->mesh;
  em_setup *s = &r->setup;
  EM_CHECK(s->n_port <= 15, EM_ERR_INPUT, "eigen: %d ports, at most 15", s->n_port);
  if (cfg->eig_ports == 1) em_setup_short_ports(m, s); /* short: the port planes become PEC */
  EM_TRY(em_setup_dofmap(s, m, &r->dofs));             /* order per region */
  em_log_info(r->log, "eigen: order %d%s, %d unknowns, %d modes near %.6g GHz", r->dofs->order,
              r->dofs->uniform ? "" : " (highest; order per region)", r->dofs->n_dof, cfg->eig_n,
              cfg->eig_target * 1e-9);
  EM_TRY(em_setup_log_orders(s, m, r->dofs, r->log));
  EM_CHECK(r->dofs->n_dof > 1, EM_ERR_INPUT, "case %s has no unknowns (everything is PEC?)",
           em_case_path(r->cs));
  EM_TRY(em_device_open(r->args->device, r->log, &r->dev));
  if (r->args->out_dir)
    snprintf(r->out_dir, sizeof r->out_dir, "%s", r->args->out_dir);
  else
    snprintf(r->out_dir, sizeof r->out_dir, "out/%s", em_case_name(r->cs));
  struct stat st;
  r->made_out_dir = stat(r->out_dir, &st) != 0;
  EM_TRY(em_mkdir_p(r->out_dir));

  double kt = 2 * M_PI * cfg->eig_target / EM_C0;
  em_csr *S = NULL, *T = NULL;
  em_eigen_result er;
  memset(&er, 0, sizeof er);
  em_err err = EM_OK;
  EM_TRY_GOTO(err, assemble_pair(r, kt, &S, &T), done);
  em_eigen_opts eo;
  em_eigen_opts_default(&eo);
  eo.nev = cfg->eig_n;
  eo.ncv = cfg->eig_ncv;
  eo.tol = cfg->eig_tol;
  eo.max_restarts = cfg->eig_restarts;
  eo.sigma = kt * kt;
  eo.log = r->log;
  eo.direct.backend = r->dev.backend;
  eo.direct.mem_limit = cfg->pc.mem_limit;
  double t0 = em_wtime();
  EM_TRY_GOTO(err, em_eigen_solve(S, T, &eo, &er), done);
  em_log_info(r->log,
              "eigen: %d modes in %.2f s (%d restarts, %lld solves, factor %.2f s on the %s)", er.n,
              em_wtime() - t0, er.restarts, (long long)er.n_op, er.t_factor, er.direct.where);
  EM_TRY_GOTO(err, report_modes(r, &er), done);
done:
  em_eigen_result_free(&er);
  em_csr_destroy(&S);
  em_csr_destroy(&T);
  return err;
}
