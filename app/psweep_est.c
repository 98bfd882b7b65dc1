/* psweep_est.c - what `--sweep ... --dry-run` prints per point: the mesh
 * (meshed for real: a .geo point re-meshes only when its geometry or mesh
 * values change), the unknowns (the DOF map on it), and the host memory and
 * time of its solves from a model of the sparse direct factor.
 *
 * The model (docs/sweeps.md, "--dry-run"): on 3-D meshes ordered by nested
 * dissection the factor holds ~n^1.45 entries and costs ~n^2 flops.  Its
 * constants come from the order-2 DRA at 3 elements per wavelength (61,494
 * unknowns: factor 237.9 MB, 24.0 GFlop in 3.44 s, assembly and operator
 * 1.43 s, peak 603 MB on 2 shared host cores, --device cpu); the order-1
 * default mesh (19,137 unknowns: 43.9 MB, 2.30 GFlop) fits the exponents
 * to 1 % / 3 %.  Times on another machine scale with its speed. */
#include <math.h>
#include <string.h>

#include "psweep.h"
#include "app_run.h"

#define N_REF 61494.0       /* unknowns of the calibration run */
#define FACTOR_REF 2.379e8  /* bytes of its factor */
#define FLOP_REF 2.400e10   /* flops of its factorization */
#define FLOP_RATE 7.0e9     /* flop/s of the factorization there */
#define ASM_PER_DOF 2.33e-5 /* s per unknown: assembly + operator */
#define MEM_FACTOR 2.3      /* peak / factor bytes */
#define MEM_BASE 7e7        /* bytes besides (the program, Gmsh) */
#define ADAPTIVE_SOLVES 9   /* full solves of a typical adaptive sweep */

/* Memory (bytes) and time (s) of one point of n unknowns with n_solve full
 * solves, from the model above. */
static void model(double n, int n_solve, double *bytes, double *t_solve) {
  double x = n / N_REF;
  *bytes = MEM_FACTOR * FACTOR_REF * pow(x, 1.45) + MEM_BASE;
  *t_solve = n_solve * (ASM_PER_DOF * n + FLOP_REF * x * x / FLOP_RATE);
}

em_err em_psweep_estimate(const em_app_args *pa, const em_log *log, em_psweep_est *e) {
  em_run r;
  memset(&r, 0, sizeof r);
  memset(e, 0, sizeof *e);
  em_model *m = &r.m;
  r.args = pa;
  r.log = log;
  r.detail = *log;
  r.detail.level = EM_LOG_QUIET;
  int n_spec;
  const em_param_spec *spec = em_params_specs(&n_spec);
  em_err err = EM_OK;
  EM_TRY_GOTO(err,
              em_case_open(pa->case_path, pa->n_over, pa->over, n_spec, spec, &r.detail, &m->cs),
              done);
  EM_TRY_GOTO(err, em_run_config_read(m->cs, &m->cfg), done);
  EM_TRY_GOTO(err, em_run_config_check(m->cs, &m->cfg), done);
  EM_TRY_GOTO(err, em_app_validate_size(&r), done);
  const em_run_config *cfg = &m->cfg;
  em_mesh_opts mo = em_run_config_mesh_opts(cfg, m->cs);
  double t0 = em_wtime();
  EM_TRY_GOTO(err, em_app_mesh(&r, &mo), done);
  e->t_mesh = em_wtime() - t0;
  e->mesh_reused = pa->mesh_cache && pa->mesh_cache->reused;
  em_setup_opts so = em_run_config_setup_opts(cfg);
  EM_TRY_GOTO(err, em_setup_build(m->cs, m->mesh, &so, &r.detail, &m->setup), done);
  EM_TRY_GOTO(err, em_setup_dofmap(&m->setup, m->mesh, &m->dofs), done);
  e->tets = m->mesh->n_tet;
  e->unknowns = m->dofs->n_dof;
  e->order = m->dofs->order;
  int32_t nc = 0; /* what pmg would factor: the order-1 space and the PML's share */
  EM_TRY_GOTO(err,
              em_setup_coarse_count(&m->setup, m->mesh, m->dofs, cfg->solve.pc.pmg.coarse,
                                    cfg->solve.pmg_pml_coarse, &nc),
              done);
  e->coarse = nc;
  e->n_solve =
      cfg->eigen ? 1
      : cfg->sweep_adaptive
          ? (cfg->sweep_max_solves < ADAPTIVE_SOLVES ? cfg->sweep_max_solves : ADAPTIVE_SOLVES)
          : cfg->n_freq;
  model(e->unknowns, e->n_solve, &e->bytes, &e->t_solve);
done:
  em_model_free(m);
  return err;
}
