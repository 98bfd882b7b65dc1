/* adapt.c - adaptive refinement before the sweep (Solver/adapt 1,
 * docs/adapt.md): solve at Adapt/frequency, estimate the error per tet
 * (model/estimate.c), mark the tets that carry Adapt/fraction of the
 * estimated error (Doerfler), refine them, and repeat until the
 * S-parameters move by less than Adapt/delta_s between passes; the sweep
 * then runs on the last mesh.  h refinement meshes the case again through
 * Gmsh with a size field that halves the local size over the marked tets
 * (em_case_remesh): the new mesh follows the CAD geometry. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_adapt.h"
#include "app_sweep.h"

/* A marked tet's vertices ask for this fraction of their size: about 8x
 * the tets where marked, so that a pass grows the mesh by ~1.5-3x at the
 * default fraction. */
#define ADAPT_SIZE_FACTOR 0.5

typedef enum { ADAPT_H = 0, ADAPT_P, ADAPT_HP } adapt_kind;

typedef struct adapt_cfg {
  int max_passes;
  double delta_s;  /* on max |S_ij(k) - S_ij(k-1)| */
  double fraction; /* Doerfler's theta */
  double freq;     /* Hz */
  int kind;        /* adapt_kind */
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
  if (em_case_number(r->cs, "Solver/adapt", &v)) em_error_clear();
  return v == 1;
}

static em_err read_cfg(const em_run *r, adapt_cfg *a) {
  const em_case *c = r->cs;
  const em_run_config *cfg = &r->cfg;
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
  EM_CHECK(a->kind == ADAPT_H, EM_ERR_UNSUPPORTED,
           "Adapt/kind %s: p-refinement needs an order per element, which this build does not "
           "have yet; use Adapt/kind h",
           kind);
  EM_CHECK(!cfg->eigen, EM_ERR_INPUT,
           "Solver/adapt 1 is for driven runs, not Solver/problem eigen");
  EM_CHECK(!cfg->mesh_file, EM_ERR_INPUT,
           "Solver/adapt 1 with Mesh/file %s: h-refinement meshes the case's geometry again; "
           "a loaded mesh has none",
           cfg->mesh_file);
  EM_CHECK(cfg->geometry_order != 2, EM_ERR_INPUT,
           "Solver/adapt 1 takes straight tets (Mesh/geometry_order 1)");
  return EM_OK;
}

em_err em_app_adapt_check(const em_run *r) {
  adapt_cfg a;
  if (!em_app_adapt_on(r)) {
    double on; /* a value other than 0 or 1 is named */
    EM_TRY(em_case_number(r->cs, "Solver/adapt", &on));
    EM_CHECK(on == 0, EM_ERR_INPUT, "Solver/adapt = %g: use 0 or 1", on);
    return EM_OK;
  }
  return read_cfg(r, &a);
}

/* (value, index) pairs, largest value first */
typedef struct {
  double v;
  int32_t i;
} vi_pair;

static int by_value_desc(const void *a, const void *b) {
  double x = ((const vi_pair *)a)->v, y = ((const vi_pair *)b)->v;
  return (x < y) - (x > y);
}

/* Doerfler marking: the fewest tets, largest eta_T^2 first, whose sum
 * reaches fraction * sum_T eta_T^2. */
static em_err mark(const double *eta2, int32_t n, double fraction, uint8_t *marked,
                   int32_t *n_marked) {
  vi_pair *p = NULL;
  double total = 0, acc = 0;
  EM_TRY(em_calloc(&p, (size_t)n, sizeof *p, "marking order"));
  for (int32_t t = 0; t < n; t++) p[t].v = eta2[t], p[t].i = t, total += eta2[t], marked[t] = 0;
  qsort(p, (size_t)n, sizeof *p, by_value_desc);
  int32_t k = 0;
  while (k < n && (k == 0 || acc < fraction * total)) marked[p[k].i] = 1, acc += p[k++].v;
  *n_marked = k;
  em_free(&p);
  return EM_OK;
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

/* The case meshed again with the marked tets' vertices at
 * ADAPT_SIZE_FACTOR of their size; *vs becomes the field on the new mesh. */
static em_err refine_h(em_run *r, const uint8_t *marked, double **vs) {
  const em_mesh *old = r->mesh;
  double *want = NULL, *next = NULL;
  uint8_t *hit = NULL;
  em_mesh *m = NULL;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&want, (size_t)old->n_vert, sizeof *want, "refined sizes"), done);
  EM_TRY_GOTO(err, em_calloc(&hit, (size_t)old->n_vert, 1, "refined vertices"), done);
  for (int32_t t = 0; t < old->n_tet; t++)
    if (marked[t])
      for (int a = 0; a < 4; a++) hit[old->tet[4 * (size_t)t + a]] = 1;
  for (int32_t v = 0; v < old->n_vert; v++) want[v] = (*vs)[v] * (hit[v] ? ADAPT_SIZE_FACTOR : 1);
  em_mesh_opts mo = em_run_mesh_opts(r);
  EM_TRY_GOTO(err, em_case_remesh(r->cs, &mo, old, want, &r->detail, &m), done);
  EM_TRY_GOTO(err, em_calloc(&next, (size_t)m->n_vert, sizeof *next, "refined sizes"), done);
  EM_TRY_GOTO(err, carry_sizes(old, want, m, next), done);
  em_free(vs);
  *vs = next;
  next = NULL;
  em_mesh_destroy(&r->mesh);
  r->mesh = m;
  m = NULL;
done:
  em_mesh_destroy(&m);
  em_free(&want);
  em_free(&next);
  em_free(&hit);
  return err;
}

/* The physics, the unknowns and the problem object of the current mesh. */
static em_err pass_setup(em_run *r, int first, double f) {
  em_fsys_destroy(&r->fsys);
  em_dofmap_destroy(&r->dofs);
  if (!first) {
    em_setup_opts so = em_run_setup_opts(&r->cfg);
    em_setup_free(&r->setup);
    EM_TRY(em_setup_build(r->cs, r->mesh, &so, &r->detail, &r->setup));
  }
  EM_TRY(em_setup_check_band(&r->setup, &f, 1));
  EM_TRY(em_dofmap_build(r->mesh, r->cfg.order, r->setup.face_fixed, &r->dofs));
  EM_CHECK(r->dofs->n_dof > 0, EM_ERR_INPUT, "case %s has no unknowns (everything is PEC?)",
           em_case_path(r->cs));
  return EM_OK;
}

/* One pass: solve at f, S and Zin, the indicator eta2 [n_tet]. */
static em_err pass_solve(em_run *r, double f, em_cplx *S, adapt_row *row, double *eta2) {
  int np = r->setup.n_port;
  int32_t n = r->dofs->n_dof;
  em_cplx *u = NULL, *y = NULL, zin[EM_MAX_PORTS];
  double zref[EM_MAX_PORTS];
  em_freq_result fr;
  em_err err = EM_OK;
  memset(&fr, 0, sizeof fr);
  EM_TRY_GOTO(err, em_calloc(&u, (size_t)n * np, sizeof *u, "adapt solutions"), done);
  EM_TRY_GOTO(err, em_calloc(&y, (size_t)np * np, sizeof *y, "adapt measurements"), done);
  EM_TRY_GOTO(err, em_run_solve_sample(r, f, &fr, u, y), done);
  if (!fr.converged) em_log_warn(r->log, "adapt: the solve at %.6g GHz did not converge", f * 1e-9);
  EM_TRY_GOTO(err, em_port_sparams(np, r->setup.port, y, S, zref, zin), done);
  em_estimate_info info;
  EM_TRY_GOTO(
      err, em_setup_estimate(r->mesh, r->dofs, &r->setup, f, NULL, NULL, u, np, NULL, eta2, &info),
      done);
  row->tets = r->mesh->n_tet;
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

/* adapt.csv: one row per pass (docs/outputs.md). */
static em_err write_csv(em_run *r, const adapt_row *w, int n, double f) {
  char path[1200];
  int k = snprintf(path, sizeof path, "%s/adapt.csv", r->out_dir);
  EM_CHECK(k > 0 && (size_t)k < sizeof path, EM_ERR_INPUT, "output path %s/adapt.csv is too long",
           r->out_dir);
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
  if (r->n_files < 64) snprintf(r->files[r->n_files++], sizeof r->files[0], "adapt.csv");
  return EM_OK;
}

/* max_ij |A_ij - B_ij| */
static double max_diff(const em_cplx *A, const em_cplx *B, int n) {
  double d = 0;
  for (int i = 0; i < n; i++) d = fmax(d, cabs(A[i] - B[i]));
  return d;
}

/* The passes; on return r->mesh and r->setup are the last pass's. */
static em_err passes(em_run *r, const adapt_cfg *a, adapt_row *rows, int *n_rows) {
  int np = r->setup.n_port, converged = 0;
  em_cplx S[EM_MAX_PORTS * EM_MAX_PORTS], prev[EM_MAX_PORTS * EM_MAX_PORTS];
  double *eta2 = NULL, *vs = NULL;
  uint8_t *marked = NULL;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&vs, (size_t)r->mesh->n_vert, sizeof *vs, "vertex sizes"), done);
  EM_TRY_GOTO(err, edge_sizes(r->mesh, vs), done);
  for (int k = 0; k < a->max_passes; k++) {
    double t0 = em_wtime();
    adapt_row *w = &rows[k];
    EM_TRY_GOTO(err, em_app_check_signal(), done);
    EM_TRY_GOTO(err, pass_setup(r, k == 0, a->freq), done);
    em_free(&eta2);
    em_free(&marked);
    EM_TRY_GOTO(err, em_calloc(&eta2, (size_t)r->mesh->n_tet, sizeof *eta2, "indicators"), done);
    EM_TRY_GOTO(err, em_calloc(&marked, (size_t)r->mesh->n_tet, 1, "marked tets"), done);
    EM_TRY_GOTO(err, pass_solve(r, a->freq, S, w, eta2), done);
    w->ds = k ? max_diff(S, prev, np * np) : NAN;
    memcpy(prev, S, sizeof S);
    *n_rows = k + 1;
    converged = k > 0 && w->ds < a->delta_s;
    if (!converged && k + 1 < a->max_passes) {
      int32_t nm = 0;
      EM_TRY_GOTO(err, mark(eta2, r->mesh->n_tet, a->fraction, marked, &nm), done);
      em_log_verbose(r->log, "adapt: %d of %d tets marked (%.0f %% of the estimated error)", nm,
                     r->mesh->n_tet, 100 * a->fraction);
      w->t = em_wtime() - t0; /* the row's time ends with the new mesh */
      EM_TRY_GOTO(err, refine_h(r, marked, &vs), done);
    }
    w->t = em_wtime() - t0;
    log_row(r, k, w);
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
  em_free(&marked);
  return err;
}

em_err em_app_adapt(em_run *r) {
  if (!em_app_adapt_on(r)) return EM_OK;
  adapt_cfg a;
  EM_TRY(read_cfg(r, &a));
  EM_CHECK(r->setup.n_port > 0, EM_ERR_INPUT,
           "Solver/adapt 1: case %s has no port; the passes compare S-parameters",
           em_case_path(r->cs));
  em_log_info(r->log,
              "adapt: %s-refinement at %.6g GHz until max |dS| < %g (at most %d passes, %.0f %% of "
              "the estimated error refined per pass)",
              a.kind == ADAPT_H   ? "h"
              : a.kind == ADAPT_P ? "p"
                                  : "hp",
              a.freq * 1e-9, a.delta_s, a.max_passes, 100 * a.fraction);
  adapt_row *rows = NULL;
  int n = 0;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&rows, (size_t)a.max_passes, sizeof *rows, "adapt table"));
  r->n_samples = 1; /* --dump-matrix: the sweep's first matrix, not a pass's */
  err = passes(r, &a, rows, &n);
  r->n_samples = 0;
  r->n_block = 0; /* the sweep records the final mesh's blocks; it keeps the
                     last pass's DOF map and problem object (its analysis) */
  if (!err && n) err = write_csv(r, rows, n, a.freq);
  em_free(&rows);
  EM_TRY(err);
  em_mesh_stats_compute(r->mesh, &r->mstats);
  if (r->args->save_mesh) EM_TRY(em_case_save_mesh(r->cs, r->args->save_mesh, r->log));
  return EM_OK;
}
