/* adapt_orders.c - the basis orders of a p- or hp-adapted mesh beside it:
 * --save-mesh FILE.msh writes FILE.msh.orders, and Mesh/orders FILE (with
 * Mesh/file FILE.msh) gives a later run the same unknowns (docs/adapt.md).
 *
 * The file: a line "emsolve orders 1 N" (format version 1, N tets), then N
 * lines with the order (1..3) of each tet in the mesh's order, which
 * em_case_load_mesh reproduces (the same em_mesh bit for bit). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "app_adapt.h"

em_err em_app_orders_save(const em_run *r, const char *mesh_path) {
  char path[4200];
  int k = snprintf(path, sizeof path, "%s.orders", mesh_path);
  EM_CHECK(k > 0 && (size_t)k < sizeof path, EM_ERR_INPUT, "file name '%s.orders' is too long",
           mesh_path);
  em_outfile o = {0};
  EM_TRY(em_outfile_open(&o, path, 0));
  fprintf(o.f, "emsolve orders 1 %d\n", r->m.mesh->n_tet);
  for (int32_t t = 0; t < r->m.mesh->n_tet; t++) fprintf(o.f, "%d\n", r->m.dofs->tet_order[t]);
  EM_TRY(em_outfile_commit(&o));
  em_log_info(r->log, "element orders written to %s (Mesh/orders, with Mesh/file %s)", path,
              mesh_path);
  return EM_OK;
}

/* The orders of path for mesh m into order[n_tet]. */
static em_err read_orders(const char *path, const em_mesh *m, int8_t *order) {
  FILE *f = fopen(path, "r");
  EM_CHECK(f, EM_ERR_IO, "Mesh/orders '%s': %s", path, strerror(errno));
  int version = 0, n = -1;
  em_err err = EM_OK;
  if (fscanf(f, "emsolve orders %d %d", &version, &n) != 2 || version != 1) {
    err = EM_RAISE(EM_ERR_INPUT, "Mesh/orders '%s' is not an orders file of emsolve (version 1)",
                   path);
    goto done;
  }
  if (n != m->n_tet) {
    err = EM_RAISE(EM_ERR_INPUT,
                   "Mesh/orders '%s' has the orders of %d tets, the mesh has %d (the orders of "
                   "another mesh?)",
                   path, n, m->n_tet);
    goto done;
  }
  for (int32_t t = 0; t < n; t++) {
    int q = 0;
    if (fscanf(f, "%d", &q) != 1 || q < 1 || q > EM_MAX_ORDER) {
      err = EM_RAISE(EM_ERR_INPUT, "Mesh/orders '%s': tet %d has no order in 1..%d (truncated?)",
                     path, t, EM_MAX_ORDER);
      goto done;
    }
    order[t] = (int8_t)q;
  }
  int extra = 0;
  if (fscanf(f, "%d", &extra) == 1)
    err = EM_RAISE(EM_ERR_INPUT, "Mesh/orders '%s' has more than %d orders", path, n);
done:
  fclose(f);
  return err;
}

em_err em_app_orders_load(em_run *r) {
  const char *path = NULL;
  EM_TRY(em_case_string(r->m.cs, "Mesh/orders", &path));
  if (!*path) return EM_OK;
  int8_t *order = NULL;
  em_dofmap *d = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&order, (size_t)r->m.mesh->n_tet + 1, 1, "element orders"));
  EM_TRY_GOTO(err, read_orders(path, r->m.mesh, order), done);
  EM_TRY_GOTO(err, em_dofmap_build_orders(r->m.mesh, order, r->m.setup.face_fixed, &d), done);
  em_dofmap_destroy(&r->m.dofs);
  r->m.dofs = d;
  em_log_info(r->log, "element orders from %s (Mesh/orders)", path);
done:
  em_free(&order);
  return err;
}
