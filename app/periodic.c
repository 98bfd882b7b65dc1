/* periodic.c - periodic cells in the pipeline (model/periodic.c holds the
 * physics): the pairs found and the mesh renumbered after meshing, the
 * DOFs tied and the Floquet wavevector set after the DOF map.  A plane
 * wave sets k_t itself (its k); ports take the scan direction
 * Periodic/theta, phi in free space. */
#include <math.h>

#include "app_run.h"

em_err em_app_periodic_mesh(em_run *r) {
  EM_TRY(em_periodic_create(r->m.cs, r->m.mesh, &r->m.periodic));
  if (!r->m.periodic) return EM_OK;
  EM_CHECK(!r->m.cfg.eigen, EM_ERR_INPUT,
           "Boundary/*/periodic: Solver/problem eigen does not support periodic pairs");
  em_mesh *pm = NULL;
  EM_TRY(em_periodic_mesh(r->m.periodic, r->m.mesh, &pm));
  em_mesh_destroy(&r->m.mesh);
  r->m.mesh = pm;
  em_log_info(r->log, "periodic: %d pair(s), the mesh renumbered for them",
              em_periodic_pairs(r->m.periodic));
  return EM_OK;
}

em_err em_app_periodic_dofs(em_run *r) {
  em_periodic *p = r->m.periodic;
  if (!p) return EM_OK;
  EM_CHECK(r->m.cfg.solve.ksp.method != EM_KSP_COCG && r->m.cfg.solve.ksp.method != EM_KSP_COCR,
           EM_ERR_INPUT,
           "Boundary/*/periodic: the Floquet system is not complex symmetric; Solver/method %s "
           "needs one (use bicgstab or gmres)",
           em_ksp_method_name(r->m.cfg.solve.ksp.method));
  EM_TRY(em_periodic_dofs(p, r->m.mesh, r->m.dofs));
  double kd[3], th, ph;
  if (r->m.ff.planewave) { /* the incident wave's k / k0 */
    em_cplx eps = 1, mu = 1;
    for (int g = 0; g < r->m.mesh->n_group; g++)
      if (r->m.mesh->group[g].dim == 3 && r->m.setup.medium[g].is_pml)
        eps = r->m.setup.medium[g].eps_r, mu = r->m.setup.medium[g].mu_r;
    double n = sqrt(creal(eps * mu));
    th = r->m.ff.pw_theta, ph = r->m.ff.pw_phi;
    for (int c = 0; c < 3; c++) kd[c] = 0;
    kd[0] = n * sin(th) * cos(ph), kd[1] = n * sin(th) * sin(ph), kd[2] = n * cos(th);
  } else {
    EM_TRY(em_case_number(r->m.cs, "Periodic/theta", &th));
    EM_TRY(em_case_number(r->m.cs, "Periodic/phi", &ph));
    EM_CHECK(isfinite(th) && isfinite(ph), EM_ERR_INPUT, "Periodic/theta, phi must be finite");
    th *= M_PI / 180, ph *= M_PI / 180;
    kd[0] = sin(th) * cos(ph), kd[1] = sin(th) * sin(ph), kd[2] = cos(th);
  }
  em_periodic_set_k(p, kd);
  em_log_info(r->log, "periodic: %d unknowns tied to %d, k_t / k0 = (%.6g, %.6g, %.6g)",
              r->m.dofs->n_dof, em_periodic_n_red(p), kd[0], kd[1], kd[2]);
  return EM_OK;
}
