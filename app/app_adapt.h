/* app_adapt.h - adaptive mesh refinement before the sweep (Solver/adapt,
 * app/adapt.c, docs/adapt.md); private to app/. */
#ifndef EM_APP_ADAPT_H
#define EM_APP_ADAPT_H

#include "app_run.h"

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
