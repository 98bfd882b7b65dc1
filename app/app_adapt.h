/* app_adapt.h - adaptive mesh refinement before the sweep (Solver/adapt,
 * app/adapt.c, docs/adapt.md); private to app/. */
#ifndef EM_APP_ADAPT_H
#define EM_APP_ADAPT_H

#include "app_run.h"

/* Its parameters, listed in params.c's table (NUM / STR are params.c's). */
#define EM_APP_ADAPT_SPECS                                                                        \
  NUM("Solver/adapt", 0, NULL,                                                                    \
      "adaptive refinement before the sweep: 1 solves at Adapt/frequency, estimates the error "   \
      "per element and refines until S settles (docs/adapt.md); 0 off"),                          \
      NUM("Adapt/max_passes", 10, NULL, "adaptive refinement: solves at most (1..50)"),           \
      NUM("Adapt/delta_s", 0.02, NULL,                                                            \
          "adaptive refinement: converged when max |S_ij(pass k) - S_ij(pass k-1)| < delta_s"),   \
      NUM("Adapt/fraction", 0.5, NULL,                                                            \
          "adaptive refinement: share of the estimated error (sum of eta_T^2) refined per pass, " \
          "Doerfler marking (0 < fraction <= 1)"),                                                \
      NUM("Adapt/frequency", 0, "Hz",                                                             \
          "adaptive refinement: the frequency the passes solve at (0: the middle of the sweep)"), \
      STR("Adapt/kind", "h",                                                                      \
          "adaptive refinement: h (smaller elements: the case meshed again with a size field), "  \
          "p (marked elements one order higher) or hp"),                                          \
      STR("Mesh/orders", "",                                                                      \
          "a file of basis orders per tet (--save-mesh of a p or hp adaptive run writes "         \
          "<mesh>.orders beside the mesh): with Mesh/file, that run's unknowns (\"\": the "       \
          "case's orders)")

/* Solver/adapt is on in the case (read before meshing: --save-mesh then
 * writes the adapted mesh only). */
int em_app_adapt_on(const em_run *r);
/* The Adapt/ * parameters checked before meshing (a bad one costs seconds). */
em_err em_app_adapt_check(const em_run *r);
/* With Solver/adapt 1: the passes on r->mesh and r->setup, which they
 * replace by the adapted ones with their DOF map and problem object (the
 * run's checks, device and output directory done on the first mesh, right
 * before the sweep); adapt.csv and the table in the log; --save-mesh
 * writes the last mesh.  A no-op otherwise. */
em_err em_app_adapt(em_run *r);

/* adapt_orders.c: the last pass's orders beside --save-mesh's file
 * (FILE.msh.orders), and Mesh/orders read back into r->dofs (after the
 * DOF map of the region orders is built; nothing when it is ""). */
em_err em_app_orders_save(const em_run *r, const char *mesh_path);
em_err em_app_orders_load(em_run *r);

#endif
