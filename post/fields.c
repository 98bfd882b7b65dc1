/* fields.c - the fields of a frequency for ParaView and scripts: E with H
 * and the Poynting vector (fields_<f>.vtk), the surface current on metal
 * (surface_<f>.vtk) and E, H, S on a plane (plane_<f>.csv / .vtk).
 *   H = j nu curl E / (k0 Z0)   (curl E = -j w mu0 mu_r H, w mu0 = k0 Z0;
 *                                nu the medium's, the PML's stretched tensor
 *                                there),
 *   J_s = sum over the meshed sides of a metal face of n x H, n the unit
 *         normal from the metal into that side (a sheet inside the volume
 *         carries the jump of n x H: both sides).
 * A plane-wave run's fields are the scattered ones (docs/farfield.md); its
 * J_s adds the incident H, so that it is the current that flows on the
 * metal. */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "run_impl.h"

typedef struct {
  const em_mesh *m;
  const em_dofmap *d;
  const em_cplx *x, *fixed;
  double k0;
  em_media media;
  const em_planewave *pw; /* NULL: no incident field to add to J_s */
  const uint8_t *role;
  const int32_t *face; /* metal faces (surface_<f>.vtk) */
} fctx;

static em_err sample_e(void *ctx, int32_t t, const double lam[4], em_cplx E[3]) {
  const fctx *f = ctx;
  em_field_eval(f->m, f->d, f->x, f->fixed, t, lam, E, NULL);
  return EM_OK;
}

/* H at lam of tet t; the mapped point in y (may be NULL) */
static em_err h_at(const fctx *f, int32_t t, const double lam[4], em_cplx H[3], double *y) {
  em_tet_geom g;
  double x[3], grad[4][3], dv;
  em_tet_geom_make(f->m, t, &g);
  em_tet_geom_at(&g, lam, x, grad, &dv);
  if (y) memcpy(y, x, sizeof x);
  em_material mat;
  EM_TRY(em_media_material((void *)&f->media, t, x, &mat));
  em_cplx E[3], C[3];
  em_field_eval(f->m, f->d, f->x, f->fixed, t, lam, E, C);
  for (int c = 0; c < 3; c++) H[c] = I * mat.nu[c] * C[c] / (f->k0 * EM_Z0);
  return EM_OK;
}

static em_err sample_h(void *ctx, int32_t t, const double lam[4], em_cplx H[3]) {
  return h_at(ctx, t, lam, H, NULL);
}

/* E and H at n points lam[4 k ..] of tet t (H NULL: E alone): sample_e's
 * and h_at's values, E and curl E from one evaluation per point and the
 * tet's geometry made once (VTK_BLOCK points at a time). */
#define VTK_BLOCK 32
static em_err sample_tet(void *ctx, int32_t t, int n, const double *lam, em_cplx *E, em_cplx *H) {
  const fctx *f = ctx;
  if (!H) {
    em_field_eval_tet(f->m, f->d, f->x, f->fixed, t, n, lam, E, NULL);
    return EM_OK;
  }
  em_tet_geom g;
  em_tet_geom_make(f->m, t, &g);
  for (int k0 = 0; k0 < n; k0 += VTK_BLOCK) {
    int nb = n - k0 < VTK_BLOCK ? n - k0 : VTK_BLOCK;
    em_cplx C[3 * VTK_BLOCK];
    em_field_eval_tet(f->m, f->d, f->x, f->fixed, t, nb, lam + 4 * (size_t)k0, E + 3 * (size_t)k0,
                      C);
    for (int k = 0; k < nb; k++) {
      double x[3], grad[4][3], dv;
      em_tet_geom_at(&g, lam + 4 * (size_t)(k0 + k), x, grad, &dv);
      em_material mat;
      EM_TRY(em_media_material((void *)&f->media, t, x, &mat));
      em_cplx *h = H + 3 * (size_t)(k0 + k);
      for (int c = 0; c < 3; c++) h[c] = I * mat.nu[c] * C[3 * k + c] / (f->k0 * EM_Z0);
    }
  }
  return EM_OK;
}

/* J_s at barycentric lam3 of metal face k (on the face's vertices) */
static em_err sample_js(void *ctx, int32_t k, const double lam3[3], double x[3], em_cplx J[3]) {
  const fctx *f = ctx;
  const em_mesh *m = f->m;
  int32_t fc = f->face[k];
  const int32_t *fv = m->face + 3 * (size_t)fc;
  J[0] = J[1] = J[2] = 0;
  int placed = 0;
  for (int side = 0; side < 2; side++) {
    int32_t t = m->face_tet[2 * (size_t)fc + side];
    if (t < 0 || f->media.medium[m->tet_group[t]].is_pml) continue;
    double lam[4] = {0, 0, 0, 0}, c[3] = {0, 0, 0}, n[3], e1[3], e2[3], y[3];
    int opp = 0;
    for (int b = 0; b < 4; b++) {
      int32_t v = m->tet[4 * (size_t)t + b], on = 0;
      for (int a = 0; a < 3; a++)
        if (v == fv[a]) lam[b] = lam3[a], on = 1;
      if (!on) opp = b;
      for (int d = 0; d < 3; d++) c[d] += 0.25 * m->xyz[3 * (size_t)v + d];
    }
    (void)opp;
    const double *p0 = m->xyz + 3 * (size_t)fv[0];
    for (int d = 0; d < 3; d++) {
      e1[d] = m->xyz[3 * (size_t)fv[1] + d] - p0[d];
      e2[d] = m->xyz[3 * (size_t)fv[2] + d] - p0[d];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), s = 0;
    for (int d = 0; d < 3; d++) s += n[d] * (c[d] - p0[d]);
    for (int d = 0; d < 3; d++) n[d] *= (s > 0 ? 1 : -1) / nn; /* into the tet */
    em_cplx H[3];
    EM_TRY(h_at(f, t, lam, H, y));
    if (f->pw) { /* the incident wave's H = j curl E_inc / (k0 Z0 mu_b) */
      em_cplx Ei[3], Ci[3];
      em_planewave_field(f->pw, y, Ei, Ci);
      for (int d = 0; d < 3; d++) H[d] += I * Ci[d] / (f->k0 * EM_Z0 * f->pw->mu_b);
    }
    J[0] += n[1] * H[2] - n[2] * H[1];
    J[1] += n[2] * H[0] - n[0] * H[2];
    J[2] += n[0] * H[1] - n[1] * H[0];
    if (!placed) memcpy(x, y, sizeof y), placed = 1;
  }
  return EM_OK;
}

/* The metal faces: PEC or impedance roles with a meshed non-PML side. */
static em_err metal_faces(const em_model *md, int32_t **face, int32_t **tag, int32_t *n) {
  const em_mesh *m = md->mesh;
  const em_setup *s = &md->setup;
  *n = 0;
  for (int pass = 0; pass < 2; pass++) {
    int32_t k = 0;
    for (int32_t f = 0; f < m->n_face; f++) {
      if (s->face_role[f] != EM_FACE_PEC && s->face_role[f] != EM_FACE_IMPEDANCE) continue;
      int32_t a = m->face_tet[2 * (size_t)f], b = m->face_tet[2 * (size_t)f + 1];
      int in_a = !s->medium[m->tet_group[a]].is_pml,
          in_b = b >= 0 && !s->medium[m->tet_group[b]].is_pml;
      if (!in_a && !in_b) continue;
      if (pass) {
        (*face)[k] = f;
        (*tag)[k] = s->face_role[f] == EM_FACE_IMPEDANCE ? 1 : 0;
      }
      k++;
    }
    if (!pass) {
      *n = k;
      EM_TRY(em_calloc(face, (size_t)k + 1, sizeof **face, "metal faces"));
      EM_TRY(em_calloc(tag, (size_t)k + 1, sizeof **tag, "metal faces"));
    }
  }
  return EM_OK;
}

/* The fields file's error indicator, when the writer needs it: the
 * estimate thread joined (or the estimate made here), then the caller's
 * threads back to the team the estimate had shared (fields_est.c). */
typedef struct late {
  const em_model *md;
  const em_log *log;
  double f;
  const em_cplx *x, *fixed;
  em_post_est **est;
  int threads; /* the caller's team once the estimate is done */
  double *eta; /* what it gave */
} late;

static const double *late_eta(void *ctx) {
  late *l = ctx;
  em_stage_begin(l->log, EM_STAGE_POST); /* the estimate is post-processing, not writing */
  if (!l->md->mesh->edge_mid)
    l->eta = em_post_est_take(l->est, l->md, l->log, l->f, l->x, l->fixed);
  em_stage_end(l->log, EM_STAGE_POST, "error estimate");
#ifdef _OPENMP
  omp_set_num_threads(l->threads);
#endif
  return l->eta;
}

/* The path of output name, recorded as written. */
static em_err out_file(em_outdir *out, const char *name, char *path, size_t n) {
  EM_TRY(em_outdir_path(out, name, path, n));
  return em_outdir_add(out, name);
}

em_err em_post_fields(const em_model *md, em_freq_result *fr, em_outdir *out, const em_log *log,
                      double f, const em_cplx *x, const em_cplx *fixed, em_post_est **est) {
  const em_run_config *cfg = &md->cfg;
  const em_setup *s = &md->setup;
  double k0 = 2 * M_PI * f / EM_C0;
  char name[64], path[1200], tag[32], title[96];
  em_post_freq_tag(f, tag, sizeof tag);
  snprintf(title, sizeof title, "%s f = %.9g Hz", em_case_name(md->cs), f);
  em_planewave pw;
  fctx fc = {.m = md->mesh,
             .d = md->dofs,
             .x = x,
             .fixed = fixed,
             .k0 = k0,
             .media = {md->mesh, s->medium, s->has_pml ? &s->pml : NULL, k0},
             .role = s->face_role};
  if (md->ff.planewave) { /* the incident wave at this frequency (model/excitation.c's) */
    em_cplx eps = 1, mu = 1;
    for (int g = 0; g < md->mesh->n_group; g++)
      if (md->mesh->group[g].dim == 3 && s->medium[g].is_pml)
        eps = s->medium[g].eps_r, mu = s->medium[g].mu_r;
    EM_TRY(em_planewave_make(k0, md->ff.pw_theta, md->ff.pw_phi, md->ff.pw_psi, md->ff.pw_amp, eps,
                             mu, &pw));
    fc.pw = &pw;
  }
  snprintf(name, sizeof name, "fields_%s.vtk", tag);
  EM_TRY(em_outdir_path(out, name, path, sizeof path));
  em_vtk_opts vo = {.binary = cfg->vtk_binary,
                    .subdiv = cfg->subdiv,
                    .title = title,
                    .cancel = out->cancel,
                    .parallel = 1, /* the samplers only read */
                    .tet = sample_tet,
                    .tet_h = cfg->h_field};
  vo.H = cfg->h_field ? sample_h : NULL;
  vo.order = md->dofs->uniform ? NULL : md->dofs->tet_order; /* order per region */
  /* eta_T (fields_est.c): straight tets; made beside the far field and
     this file's sampling when em_post_frequency started it (taken when the
     writer reaches it: late_eta), else here */
  late lt = {.md = md, .log = log, .f = f, .x = x, .fixed = fixed, .est = est};
#ifdef _OPENMP
  lt.threads = omp_get_max_threads();
  if (est && *est) (void)em_post_est_share(*est, &lt.threads); /* the team before the split */
#endif
  if (est && *est && !em_post_est_done(*est)) { /* still at work: taken when needed */
    vo.error_late = late_eta, vo.error_ctx = &lt;
  } else { /* in order, or made already: taken now, every thread back */
    late_eta(&lt);
    vo.error = lt.eta;
  }
  em_err werr = em_vtk_write(path, md->mesh, sample_e, &fc, &vo);
  /* a writer that stopped before the indicator leaves the thread to
     em_post_frequency's join (its message kept; that file is not written) */
  em_free(&lt.eta);
  vo.error_late = NULL; /* the surface's and the plane's files have none */
  if (werr == EM_ERR_NUMERIC && !fr->converged) { /* a field that is not a number: flagged */
    em_log_warn(log, "f = %.6g GHz: no %s (not converged: %s)", f * 1e-9, name, em_error_message());
    em_error_clear();
    return EM_OK;
  }
  EM_TRY(werr);
  EM_TRY(em_outdir_add(out, name));
  snprintf(fr->fields, sizeof fr->fields, "%s", name);
  if (cfg->surface_current) {
    int32_t n = 0, *face = NULL, *ftag = NULL;
    em_err err = metal_faces(md, &face, &ftag, &n);
    if (!err && n) {
      snprintf(name, sizeof name, "surface_%s.vtk", tag);
      err = out_file(out, name, path, sizeof path);
      fc.face = face;
      if (!err) err = em_vtk_surface_write(path, md->mesh, n, face, ftag, sample_js, &fc, "J", &vo);
    }
    em_free(&face);
    em_free(&ftag);
    EM_TRY(err);
  }
  if (cfg->plane_axis >= 0) {
    int ax = cfg->plane_axis, du = (ax + 1) % 3, dv = (ax + 2) % 3;
    const double *bb = s->has_pml ? s->pml.inner : md->mstats.bbox; /* the interior */
    em_plane p = {.axis = ax, .at = cfg->plane_at};
    p.lo[0] = bb[2 * du], p.hi[0] = bb[2 * du + 1];
    p.lo[1] = bb[2 * dv], p.hi[1] = bb[2 * dv + 1];
    double lu = p.hi[0] - p.lo[0], lv = p.hi[1] - p.lo[1], l = fmax(lu, lv);
    p.n_u = (int)fmax(2, round((cfg->plane_points - 1) * lu / l) + 1);
    p.n_v = (int)fmax(2, round((cfg->plane_points - 1) * lv / l) + 1);
    char pc[1200] = "", pv[1200] = "";
    if (cfg->plane_csv) {
      snprintf(name, sizeof name, "plane_%s.csv", tag);
      EM_TRY(out_file(out, name, pc, sizeof pc));
    }
    if (cfg->plane_vtk) {
      snprintf(name, sizeof name, "plane_%s.vtk", tag);
      EM_TRY(out_file(out, name, pv, sizeof pv));
    }
    EM_TRY(em_plane_write(cfg->plane_csv ? pc : NULL, cfg->plane_vtk ? pv : NULL, md->mesh, &p,
                          sample_e, sample_h, &fc, title));
  }
  return EM_OK;
}
