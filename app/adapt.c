/* adapt.c - adaptive refinement before the sweep (Solver/adapt 1,
 * docs/adapt.md): solve at Adapt/frequency, estimate the error per tet
 * (model/estimate.c), mark the tets that carry Adapt/fraction of the
 * estimated error (Doerfler), refine them, and repeat until the
 * S-parameters move by less than Adapt/delta_s between passes; the sweep
 * then runs on the last mesh.  h refinement meshes the case again through
 * Gmsh with a size field that halves the local size over the marked tets
 * (em_case_remesh): the new mesh follows the CAD geometry.  p refinement
 * raises the basis order of the marked tets by one (order per element,
 * em_dofmap_build_orders); hp raises marked tets below the highest order
 * and splits (h) the marked ones already at it. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_adapt.h"
#include "app_sweep.h"

/* A split tet's vertices ask for half their size (about 8x the tets
 * there); a pass's predicted unknowns grow by 2x at least and 3.5x at
 * most (model/refine_mark.c): enough change for the change of S to mean
 * something, not so much that the last pass overshoots by far. */
#define ADAPT_SHRINK 0.5
#define ADAPT_GROW_MIN 2.0
#define ADAPT_GROW_MAX 3.5

typedef struct adapt_cfg {
  int max_passes;
  double delta_s;  /* on max |S_ij(k) - S_ij(k-1)| */
  double fraction; /* Doerfler's theta */
  double freq;     /* Hz */
  int kind;        /* em_refine_kind */
} adapt_cfg;

/* One row of the convergence table. */
typedef struct adapt_row {
  int32_t tets, unknowns;
  double err; /* eta / ||E_h|| (energy norm), relative */
  double ds;  /* max |S_ij - S_ij(previous pass)|, NaN at the first */
  em_cplx s11, zin;
  double t, t_est; /* seconds: the pass, its estimate */
} adapt_row;

int em_app_adapt_on(const em_run *r) {
  double v = 0;
  if (em_case_number(r->m.cs, "Solver/adapt", &v)) em_error_clear();
  return v == 1;
}

static em_err read_cfg(const em_run *r, adapt_cfg *a) {
  const em_case *c = r->m.cs;
  const em_run_config *cfg = &r->m.cfg;
  double on, mp;
  EM_TRY(em_case_number(c, "Solver/adapt", &on));
  EM_CHECK(on == 0 || on == 1, EM_ERR_INPUT, "Solver/adapt = %g: use 0 or 1", on);
  EM_TRY(em_case_number(c, "Adapt/max_passes", &mp));
  EM_CHECK(mp == floor(mp) && mp >= 1 && mp <= 50, EM_ERR_INPUT,
           "Adapt/max_passes = %g must be an integer in 1..50", mp);
  a->max_passes = (int)mp;
  EM_TRY(em_case_number(c, "Adapt/delta_s", &a->delta_s));
  EM_CHECK(a->delta_s > 0 && a->delta_s < 2, EM_ERR_INPUT,
           "Adapt/delta_s = %g must be in (0, 2): it bounds max |S_ij(k) - S_ij(k-1)|", a->delta_s);
  EM_TRY(em_case_number(c, "Adapt/fraction", &a->fraction));
  EM_CHECK(a->fraction > 0 && a->fraction <= 1, EM_ERR_INPUT,
           "Adapt/fraction = %g must be in (0, 1]: the share of the estimated error refined per "
           "pass",
           a->fraction);
  EM_TRY(em_case_number(c, "Adapt/frequency", &a->freq));
  EM_CHECK(a->freq >= 0 && isfinite(a->freq), EM_ERR_INPUT,
           "Adapt/frequency = %g Hz must be >= 0 (0: the middle of the sweep)", a->freq);
  if (a->freq == 0) a->freq = 0.5 * (cfg->freq[0] + cfg->freq[cfg->n_freq - 1]);
  const char *kind;
  static const char *const kinds[] = {"h", "p", "hp"};
  EM_TRY(em_case_string(c, "Adapt/kind", &kind));
  EM_TRY(em_name_parse(kinds, 3, kind, "Adapt/kind", &a->kind));
  EM_CHECK(!cfg->eigen, EM_ERR_INPUT,
           "Solver/adapt 1 is for driven runs, not Solver/problem eigen");
  EM_CHECK(!cfg->mesh_file || a->kind == EM_REFINE_P, EM_ERR_INPUT,
           "Solver/adapt 1 with Mesh/file %s: Adapt/kind %s meshes the case's geometry again; "
           "a loaded mesh has none (Adapt/kind p works on it)",
           cfg->mesh_file, kind);
  return EM_OK;
}

em_err em_app_adapt_check(const em_run *r) {
  adapt_cfg a;
  const char *orders;
  EM_TRY(em_case_string(r->m.cs, "Mesh/orders", &orders));
  EM_CHECK(!*orders || r->m.cfg.mesh_file, EM_ERR_INPUT,
           "Mesh/orders %s needs the mesh they belong to: set Mesh/file (or --load-mesh)", orders);
  EM_CHECK(!*orders || !em_app_adapt_on(r), EM_ERR_INPUT,
           "Mesh/orders %s with Solver/adapt 1: the passes start from the case's orders", orders);
  if (!em_app_adapt_on(r)) {
    double on; /* a value other than 0 or 1 is named */
    EM_TRY(em_case_number(r->m.cs, "Solver/adapt", &on));
    EM_CHECK(on == 0, EM_ERR_INPUT, "Solver/adapt = %g: use 0 or 1", on);
    return EM_OK;
  }
  return read_cfg(r, &a);
}

/* The size at each vertex: the mean length of its edges (the mesh's own
 * local size, before the first refinement). */
static em_err edge_sizes(const em_mesh *m, double *vs) {
  int32_t *cnt = NULL;
  EM_TRY(em_calloc(&cnt, (size_t)m->n_vert, sizeof *cnt, "vertex edge counts"));
  for (int32_t v = 0; v < m->n_vert; v++) vs[v] = 0;
  for (int32_t e = 0; e < m->n_edge; e++) {
    const int32_t *v = m->edge + 2 * (size_t)e;
    double s = 0;
    for (int k = 0; k < 3; k++) {
      double d = m->xyz[3 * (size_t)v[0] + k] - m->xyz[3 * (size_t)v[1] + k];
      s += d * d;
    }
    for (int a = 0; a < 2; a++) vs[v[a]] += sqrt(s), cnt[v[a]]++;
  }
  for (int32_t v = 0; v < m->n_vert; v++) vs[v] = cnt[v] ? vs[v] / cnt[v] : 1;
  em_free(&cnt);
  return EM_OK;
}

/* new_vs[v] = the size field (vs over old's tets) at new's vertex v: the
 * sizes carry from mesh to mesh, so unmarked regions keep theirs. */
static em_err carry_sizes(const em_mesh *old, const double *vs, const em_mesh *m, double *new_vs) {
  em_locator *L = NULL;
  EM_TRY(em_locator_create(old, &L));
  for (int32_t v = 0; v < m->n_vert; v++) {
    int32_t t;
    double lam[4], h = 0;
    em_locator_find(L, m->xyz + 3 * (size_t)v, &t, lam);
    for (int a = 0; a < 4; a++) h += lam[a] * vs[old->tet[4 * (size_t)t + a]];
    new_vs[v] = h;
  }
  em_locator_destroy(&L);
  return EM_OK;
}

/* The orders of the old mesh at the new mesh's tets: the old tet holding
 * each new centroid, never below the new tet's region order. */
static em_err carry_orders(const em_mesh *old, const int8_t *order, const em_mesh *m,
                           const em_setup *s, int8_t *new_order) {
  em_locator *L = NULL;
  EM_TRY(em_locator_create(old, &L));
  for (int32_t t = 0; t < m->n_tet; t++) {
    double c[3] = {0}, lam[4];
    int32_t o;
    for (int a = 0; a < 4; a++)
      for (int k = 0; k < 3; k++) c[k] += 0.25 * m->xyz[3 * (size_t)m->tet[4 * (size_t)t + a] + k];
    em_locator_find(L, c, &o, lam);
    int q = s->order[m->tet_group[t]];
    new_order[t] = (int8_t)(order[o] > q ? order[o] : q);
  }
  em_locator_destroy(&L);
  return EM_OK;
}

/* The case meshed again with each vertex's size times vshrink; on success
 * r->m.mesh and r->m.setup are the new mesh's, *vs the size field on it and
 * *order (when there is one) the orders carried over to it.  On failure r
 * is as it was. */
static em_err refine_h(em_run *r, const double *vshrink, double **vs, int8_t **order) {
  const em_mesh *old = r->m.mesh;
  double *want = NULL, *next = NULL;
  int8_t *next_order = NULL;
  em_mesh *m = NULL;
  em_setup s;
  em_err err = EM_OK;
  memset(&s, 0, sizeof s);
  EM_TRY_GOTO(err, em_calloc(&want, (size_t)old->n_vert, sizeof *want, "refined sizes"), done);
  for (int32_t v = 0; v < old->n_vert; v++) want[v] = (*vs)[v] * vshrink[v];
  em_mesh_opts mo = em_run_config_mesh_opts(&r->m.cfg, r->m.cs);
  em_stage_begin(r->log, EM_STAGE_MESH);
  err = em_case_remesh(r->m.cs, &mo, old, want, &r->detail, &m);
  em_stage_end(r->log, EM_STAGE_MESH, "adapt: meshed again");
  EM_TRY_GOTO(err, err, done);
  EM_TRY_GOTO(err, em_calloc(&next, (size_t)m->n_vert, sizeof *next, "refined sizes"), done);
  EM_TRY_GOTO(err, carry_sizes(old, want, m, next), done);
  em_setup_opts so = em_run_config_setup_opts(&r->m.cfg);
  em_stage_begin(r->log, EM_STAGE_SETUP);
  err = em_setup_build(r->m.cs, m, &so, &r->detail, &s);
  em_stage_end(r->log, EM_STAGE_SETUP, NULL);
  EM_TRY_GOTO(err, err, done);
  if (*order) {
    EM_TRY_GOTO(err, em_calloc(&next_order, (size_t)m->n_tet, 1, "element orders"), done);
    EM_TRY_GOTO(err, carry_orders(old, *order, m, &s, next_order), done);
    em_free(order);
    *order = next_order;
    next_order = NULL;
  }
  em_free(vs);
  *vs = next;
  next = NULL;
  em_setup_free(&r->m.setup);
  r->m.setup = s;
  memset(&s, 0, sizeof s);
  em_mesh_destroy(&r->m.mesh);
  r->m.mesh = m;
  m = NULL;
done:
  em_setup_free(&s);
  em_mesh_destroy(&m);
  em_free(&want);
  em_free(&next);
  em_free(&next_order);
  return err;
}

/* One step of refinement (model/refine_mark.c): the raised orders in
 * *order, the case meshed again where tets are split.  *changed = 0 when
 * nothing could be refined (p with every marked tet at the highest order). */
static em_err refine(em_run *r, const adapt_cfg *a, const double *eta2, double **vs, int8_t **order,
                     int *changed) {
  em_refine_opts ro = {a->kind, a->fraction, ADAPT_SHRINK, ADAPT_GROW_MIN, ADAPT_GROW_MAX};
  em_refine_stats st;
  double *vshrink = NULL;
  int8_t *next = NULL;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&vshrink, (size_t)r->m.mesh->n_vert, sizeof *vshrink, "sizes"), done);
  if (*order) EM_TRY_GOTO(err, em_calloc(&next, (size_t)r->m.mesh->n_tet, 1, "orders"), done);
  EM_TRY_GOTO(err, em_refine_mark(r->m.mesh, eta2, &ro, *order, next, vshrink, &st), done);
  em_log_verbose(r->log,
                 "adapt: %d tets one order higher, %d split (%.0f %% of the estimated error), "
                 "unknowns x %.2f predicted",
                 st.n_p, st.n_h, 100 * st.share, st.growth);
  *changed = st.n_p + st.n_h > 0;
  if (*order) {
    em_free(order);
    *order = next;
    next = NULL;
  }
  if (st.n_h) EM_TRY_GOTO(err, refine_h(r, vshrink, vs, order), done);
done:
  em_free(&vshrink);
  em_free(&next);
  return err;
}

/* The unknowns of the current mesh (the region orders, or order[] of p
 * and hp) and a fresh problem object. */
static em_err pass_setup(em_run *r, double f, const int8_t *order) {
  em_fsys_destroy(&r->m.fsys);
  em_dofmap_destroy(&r->m.dofs);
  EM_TRY(em_setup_check_band(&r->m.setup, &f, 1));
  em_stage_begin(r->log, EM_STAGE_DOFMAP);
  em_err err = order ? em_dofmap_build_orders(r->m.mesh, order, r->m.setup.face_fixed, &r->m.dofs)
                     : em_setup_dofmap(&r->m.setup, r->m.mesh, &r->m.dofs);
  em_stage_end(r->log, EM_STAGE_DOFMAP, NULL);
  EM_TRY(err);
  EM_CHECK(r->m.dofs->n_dof > 0, EM_ERR_INPUT, "case %s has no unknowns (everything is PEC?)",
           em_case_path(r->m.cs));
  return EM_OK;
}

/* One pass: solve at f, S and Zin, the indicator eta2 [n_tet]. */
static em_err pass_solve(em_run *r, double f, em_cplx *S, adapt_row *row, double *eta2) {
  int np = r->m.setup.n_port;
  int32_t n = r->m.dofs->n_dof;
  em_cplx *u = NULL, *y = NULL, zin[EM_MAX_PORTS];
  double zref[EM_MAX_PORTS];
  em_freq_result fr;
  em_err err = EM_OK;
  memset(&fr, 0, sizeof fr);
  EM_TRY_GOTO(err, em_calloc(&u, (size_t)n * np, sizeof *u, "adapt solutions"), done);
  EM_TRY_GOTO(err, em_calloc(&y, (size_t)np * np, sizeof *y, "adapt measurements"), done);
  EM_TRY_GOTO(err, em_run_solve_sample(r, f, &fr, u, y), done);
  if (!fr.converged) em_log_warn(r->log, "adapt: the solve at %.6g GHz did not converge", f * 1e-9);
  EM_TRY_GOTO(err, em_port_sparams(np, r->m.setup.port, y, S, zref, zin), done);
  em_estimate_info info;
  em_stage_begin(r->log, EM_STAGE_POST);
  err =
      em_setup_estimate(r->m.mesh, r->m.dofs, &r->m.setup, f, NULL, NULL, u, np, NULL, eta2, &info);
  em_stage_end(r->log, EM_STAGE_POST, "adapt: error estimate");
  EM_TRY_GOTO(err, err, done);
  row->tets = r->m.mesh->n_tet;
  row->unknowns = n;
  row->err = info.energy > 0 ? info.eta / info.energy : info.eta;
  row->s11 = S[0];
  row->zin = zin[0];
  row->t_est = info.t;
  em_log_verbose(r->log, "adapt: estimate %.3g s (solve %.3g s)", info.t,
                 fr.t_assembly + fr.t_operator + fr.t_pc + fr.t_solve);
done:
  em_free(&u);
  em_free(&y);
  return err;
}

static void log_row(const em_run *r, int k, const adapt_row *w) {
  char ds[32] = "-";
  if (isfinite(w->ds)) snprintf(ds, sizeof ds, "%.3e", w->ds);
  em_log_info(r->log,
              "adapt pass %d: %d tets, %d unknowns, estimated error %.3e, max |dS| %s, S11 "
              "%.3f dB, Zin %.4f%+.4fj ohm, %.1f s",
              k, w->tets, w->unknowns, w->err, ds, 20 * log10(cabs(w->s11)), creal(w->zin),
              cimag(w->zin), w->t);
}

/* adapt.csv: one row per pass (docs/outputs.md), into the run's output
 * folder (the partial folder until the commit, app/outdir.c). */
static em_err write_csv(em_run *r, const adapt_row *w, int n, double f) {
  char path[1200];
  EM_TRY(em_outdir_path(&r->out, "adapt.csv", path, sizeof path));
  em_outfile o = {0};
  EM_TRY(em_outfile_open(&o, path, 0));
  fprintf(o.f,
          "pass,tets,unknowns,estimated_error,max_delta_s,S11_re,S11_im,Zin_re_ohm,Zin_im_ohm,"
          "f_Hz,time_s,estimate_s\n");
  for (int i = 0; i < n; i++)
    fprintf(o.f, "%d,%d,%d,%.6e,%.6e,%.10g,%.10g,%.10g,%.10g,%.10g,%.3f,%.3f\n", i, w[i].tets,
            w[i].unknowns, w[i].err, isfinite(w[i].ds) ? w[i].ds : 0.0, creal(w[i].s11),
            cimag(w[i].s11), creal(w[i].zin), cimag(w[i].zin), f, w[i].t, w[i].t_est);
  EM_TRY(em_outfile_commit(&o));
  return em_outdir_add(&r->out, "adapt.csv");
}

/* max_ij |A_ij - B_ij| */
static double max_diff(const em_cplx *A, const em_cplx *B, int n) {
  double d = 0;
  for (int i = 0; i < n; i++) d = fmax(d, cabs(A[i] - B[i]));
  return d;
}

/* The passes; on return r->m.mesh and r->m.setup are the last pass's. */
static em_err passes(em_run *r, const adapt_cfg *a, adapt_row *rows, int *n_rows) {
  int np = r->m.setup.n_port, converged = 0;
  em_cplx S[EM_MAX_PORTS * EM_MAX_PORTS], prev[EM_MAX_PORTS * EM_MAX_PORTS];
  double *eta2 = NULL, *vs = NULL;
  int8_t *order = NULL; /* p and hp: the order of each tet */
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&vs, (size_t)r->m.mesh->n_vert, sizeof *vs, "vertex sizes"), done);
  EM_TRY_GOTO(err, edge_sizes(r->m.mesh, vs), done);
  if (a->kind != EM_REFINE_H) {
    EM_TRY_GOTO(err, em_calloc(&order, (size_t)r->m.mesh->n_tet, 1, "element orders"), done);
    for (int32_t t = 0; t < r->m.mesh->n_tet; t++)
      order[t] = r->m.setup.order[r->m.mesh->tet_group[t]];
  }
  for (int k = 0; k < a->max_passes; k++) {
    double t0 = em_wtime();
    adapt_row *w = &rows[k];
    EM_TRY_GOTO(err, em_app_check_signal(), done);
    EM_TRY_GOTO(err, pass_setup(r, a->freq, order), done);
    em_free(&eta2);
    EM_TRY_GOTO(err, em_calloc(&eta2, (size_t)r->m.mesh->n_tet, sizeof *eta2, "indicators"), done);
    EM_TRY_GOTO(err, pass_solve(r, a->freq, S, w, eta2), done);
    w->ds = k ? max_diff(S, prev, np * np) : NAN;
    memcpy(prev, S, sizeof S);
    *n_rows = k + 1;
    converged = k > 0 && w->ds < a->delta_s;
    int changed = 1;
    if (!converged && k + 1 < a->max_passes)
      EM_TRY_GOTO(err, refine(r, a, eta2, &vs, &order, &changed), done);
    w->t = em_wtime() - t0; /* the row's time ends with the refined mesh */
    log_row(r, k, w);
    if (!changed) {
      em_log_warn(r->log,
                  "adapt: every marked tet is at order %d: nothing left to refine (use "
                  "Adapt/kind hp)",
                  EM_MAX_ORDER);
      break; /* the mesh and orders are this pass's: the sweep keeps its unknowns */
    }
    if (converged || k + 1 == a->max_passes) break;
  }
  if (converged)
    em_log_info(r->log, "adapt: converged after %d passes (max |dS| %.3e < %g)", *n_rows,
                rows[*n_rows - 1].ds, a->delta_s);
  else
    em_log_warn(r->log,
                "adapt: not converged after Adapt/max_passes = %d passes (max |dS| %.3e, "
                "Adapt/delta_s %g); the sweep runs on the last mesh",
                a->max_passes, rows[*n_rows - 1].ds, a->delta_s);
done:
  em_free(&eta2);
  em_free(&vs);
  em_free(&order);
  return err;
}

em_err em_app_adapt(em_run *r) {
  if (!em_app_adapt_on(r)) return EM_OK;
  adapt_cfg a;
  EM_TRY(read_cfg(r, &a));
  /* a Floquet cell's mesh and DOFs are tied pair by pair (model/periodic.c):
     a pass's new mesh and unknowns would have to be tied again */
  EM_CHECK(!r->m.periodic, EM_ERR_INPUT,
           "Solver/adapt 1: case %s has periodic boundaries (Boundary/*/periodic), which adaptive "
           "refinement does not support",
           em_case_path(r->m.cs));
  EM_CHECK(r->m.setup.n_port > 0, EM_ERR_INPUT,
           "Solver/adapt 1: case %s has no port; the passes compare S-parameters",
           em_case_path(r->m.cs));
  /* the indicator and max |dS| take every port's solution */
  EM_CHECK(r->m.excite == em_excite_all(r->m.setup.n_port), EM_ERR_INPUT,
           "Solver/adapt 1 with Excitation/ports a subset: the passes estimate the error and "
           "compare S with every port driven; leave Excitation/ports all");
  em_log_info(r->log,
              "adapt: %s-refinement at %.6g GHz until max |dS| < %g (at most %d passes, %.0f %% of "
              "the estimated error refined per pass)",
              a.kind == EM_REFINE_H   ? "h"
              : a.kind == EM_REFINE_P ? "p"
                                      : "hp",
              a.freq * 1e-9, a.delta_s, a.max_passes, 100 * a.fraction);
  adapt_row *rows = NULL;
  int n = 0;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&rows, (size_t)a.max_passes, sizeof *rows, "adapt table"));
  r->res.n_samples = 1; /* --dump-matrix: the sweep's first matrix, not a pass's */
  err = passes(r, &a, rows, &n);
  r->res.n_samples = 0;
  r->m.n_block = 0; /* the sweep records the final mesh's blocks; it keeps the
                     last pass's DOF map and problem object (its analysis) */
  if (!err && n) err = write_csv(r, rows, n, a.freq);
  em_free(&rows);
  EM_TRY(err);
  em_mesh_stats_compute(r->m.mesh, &r->m.mstats);
  if (r->args->save_mesh) {
    EM_TRY(em_case_save_mesh(r->m.cs, r->args->save_mesh, r->log));
    if (a.kind != EM_REFINE_H) EM_TRY(em_app_orders_save(r, r->args->save_mesh));
  }
  return EM_OK;
}
