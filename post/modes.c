/* modes.c - the report of an eigen run (docs/eigen.md): per mode f = c
 * sqrt(lambda) / 2 pi, Q = Re f / (2 Im f), the residual, the energy per
 * volume group and in the PML (mode_figures.c), a flag and the dominant
 * dipole; modes.csv, mode_<i>.vtk and the table on stdout, in ascending
 * Re f. */
#include <math.h>
#include <string.h>

#include "run_impl.h"

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

static em_err write_csv(const em_mesh *m, const char *path, int n, const mode_info *mi,
                        const double *frac) {
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

em_err em_post_modes(const em_model *md, em_eigen_result *er, em_outdir *out, FILE *f) {
  em_err err = EM_OK;
  const em_mesh *m = md->mesh;
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
    EM_TRY_GOTO(err, em_mode_energy(m, md->dofs, md->setup.medium, x, wg), done);
    double tot = 0, pml = 0;
    for (int g = 0; g < m->n_group; g++) tot += wg[g];
    for (int g = 0; g < m->n_group; g++) {
      frac[(size_t)i * m->n_group + g] = tot > 0 ? wg[g] / tot : 0;
      if (m->group[g].dim == 3 && md->setup.medium[g].is_pml) pml += wg[g];
    }
    q->pml = tot > 0 ? pml / tot : 0;
    q->flag = flag_of(lam, q->f, q->resid, q->pml);
    EM_TRY_GOTO(err, em_mode_dipole(m, md->dofs, md->setup.medium, x, creal(k0), q->label), done);
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
  EM_TRY_GOTO(err, em_outdir_path(out, "modes.csv", path, sizeof path), done);
  EM_TRY_GOTO(err, write_csv(m, path, n, mi, frac), done);
  for (int i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "mode_%d.vtk", i + 1);
    EM_TRY_GOTO(err, em_outdir_path(out, name, path, sizeof path), done);
    field_ctx fc = {m, md->dofs, er->x + (size_t)mi[i].col * nd};
    char title[128];
    snprintf(title, sizeof title, "%s mode %d, f = %.6g%+.4gj GHz", em_case_name(md->cs), i + 1,
             creal(mi[i].f) * 1e-9, cimag(mi[i].f) * 1e-9);
    em_vtk_opts vo = {.binary = md->cfg.vtk_binary,
                      .subdiv = md->cfg.subdiv,
                      .title = title,
                      .cancel = out->cancel,
                      .order = md->dofs->uniform ? NULL : md->dofs->tet_order};
    EM_TRY_GOTO(err, em_vtk_write(path, m, sample, &fc, &vo), done);
  }
  fprintf(f, "# %s: %d eigenmodes nearest %.6g GHz (order %d, %d unknowns)\n", em_case_name(md->cs),
          n, md->cfg.eig_target * 1e-9, md->dofs->order, nd);
  fprintf(f,
          "# mode  f_re_GHz        f_im_GHz        Q             residual   pml_frac  flag   "
          "dipole\n");
  for (int i = 0; i < n; i++)
    fprintf(f, "%-6d %-15.10g %-15.8g %-13.6g %-10.2e %-9.4f %-6s %s\n", i + 1,
            creal(mi[i].f) * 1e-9, cimag(mi[i].f) * 1e-9, mi[i].q, mi[i].resid, mi[i].pml,
            mi[i].flag, mi[i].label);
  if (!er->converged) fprintf(f, "# not all modes converged (see the log)\n");
done:
  em_free(&mi);
  em_free(&frac);
  em_free(&wg);
  return err;
}
