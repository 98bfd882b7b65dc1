/* eigen.c - Solver/problem eigen: the resonant modes of the case nearest
 * Eigen/target (docs/eigen.md).  The stages: the port planes as
 * Eigen/ports asks, the DOF map, the device, the
 * pencil (S, T) frozen at the target (model/eigen_pair.c), shift-and-invert
 * Krylov-Schur (eigen/), the report of the modes (post/modes.c). */
#include <math.h>
#include <string.h>

#include "app_run.h"

em_err em_app_eigen(em_run *r) {
  em_model *m = &r->m;
  const em_run_config *cfg = &m->cfg;
  em_setup *s = &m->setup;
  EM_CHECK(s->n_port <= 15, EM_ERR_INPUT, "eigen: %d ports, at most 15", s->n_port);
  if (cfg->eig_ports == 1) em_setup_short_ports(m->mesh, s); /* short: the port planes become PEC */
  em_stage_begin(r->log, EM_STAGE_DOFMAP);
  EM_TRY(em_setup_dofmap(s, m->mesh, &m->dofs)); /* order per region */
  em_stage_end(r->log, EM_STAGE_DOFMAP, NULL);
  em_log_info(r->log, "eigen: order %d%s, %d unknowns, %d modes near %.6g GHz", m->dofs->order,
              m->dofs->uniform ? "" : " (highest; order per region)", m->dofs->n_dof, cfg->eig_n,
              cfg->eig_target * 1e-9);
  EM_TRY(em_setup_log_orders(s, m->mesh, m->dofs, r->log));
  EM_CHECK(m->dofs->n_dof > 1, EM_ERR_INPUT, "case %s has no unknowns (everything is PEC?)",
           em_case_path(m->cs));
  EM_TRY(em_device_open(r->args->device, r->log, &m->dev));

  double kt = 2 * M_PI * cfg->eig_target / EM_C0;
  em_csr *S = NULL, *T = NULL;
  em_eigen_result er;
  memset(&er, 0, sizeof er);
  em_err err = EM_OK;
  em_stage_begin(r->log, EM_STAGE_ASSEMBLY);
  err = em_setup_eigen_pair(m->mesh, m->dofs, s, cfg->eig_ports == 2, kt, r->log, &S, &T);
  em_stage_end(r->log, EM_STAGE_ASSEMBLY, "S and T");
  EM_TRY_GOTO(err, err, done);
  em_eigen_opts eo;
  em_eigen_opts_default(&eo);
  eo.nev = cfg->eig_n;
  eo.ncv = cfg->eig_ncv;
  eo.tol = cfg->eig_tol;
  eo.max_restarts = cfg->eig_restarts;
  eo.sigma = kt * kt;
  eo.log = r->log;
  eo.cancel = eo.direct.cancel = em_app_cancel(); /* a signal stops the restarts, the factor */
  eo.direct.backend = m->dev.backend;
  eo.direct.mem_limit = cfg->solve.pc.mem_limit;
  double t0 = em_wtime();
  em_stage_begin(r->log, EM_STAGE_SOLVE);
  err = em_eigen_solve(S, T, &eo, &er);
  em_stage_end(r->log, EM_STAGE_SOLVE, "shift-and-invert Krylov-Schur");
  EM_TRY_GOTO(err, err, done);
  em_log_info(r->log,
              "eigen: %d modes in %.2f s (%d restarts, %lld solves, factor %.2f s on the %s)", er.n,
              em_wtime() - t0, er.restarts, (long long)er.n_op, er.t_factor, er.direct.where);
  em_stage_begin(r->log, EM_STAGE_WRITING);
  err = em_post_modes(m, &er, &r->out, stdout);
  em_stage_end(r->log, EM_STAGE_WRITING, "modes");
  EM_TRY_GOTO(err, err, done);
  /* modes that did not converge are written, flagged: exit 3, as a driven
     frequency that did not converge (issue 32) */
  if (!er.converged) {
    r->res.flagged = 1;
    em_log_warn(r->log,
                "eigen: not every mode converged ('unconverged' in modes.csv): more "
                "Eigen/max_restarts or Eigen/subspace, or a target nearer the modes");
  }
done:
  em_eigen_result_free(&er);
  em_csr_destroy(&S);
  em_csr_destroy(&T);
  return err;
}
