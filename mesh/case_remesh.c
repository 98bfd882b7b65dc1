/* case_remesh.c - mesh a case again with a size field given on an earlier
 * mesh (adaptive h-refinement, docs/adapt.md): Gmsh meshes the CAD model
 * anew, so refined regions follow the true geometry (a curved probe or
 * wall gets more facets), and every size the case sets stays in force. */
#include <gmshc.h>
#include <math.h>
#include <omp.h>

#include "case_impl.h"

/* h(x) = sum_a lam_a size[v_a] in the old tet holding x (the nearest one
 * for a point off the old facets), metres. */
typedef struct size_field {
  const em_mesh *old;
  const double *vsize;
  em_locator *L;
} size_field;

static double field_at(void *ctx, const double x[3]) {
  const size_field *s = ctx;
  int32_t t;
  double lam[4], h = 0;
  em_locator_find(s->L, x, &t, lam);
  if (t < 0) return 0; /* no constraint */
  for (int a = 0; a < 4; a++) h += lam[a] * s->vsize[s->old->tet[4 * (size_t)t + a]];
  return h;
}

em_err em_case_remesh(em_case *c, const em_mesh_opts *opts, const em_mesh *old, const double *vsize,
                      const em_log *log, em_mesh **m) {
  EM_CHECK(m, EM_ERR_ARG, "em_case_remesh without an output");
  *m = NULL;
  EM_CHECK(c && opts && old && vsize, EM_ERR_ARG, "em_case_remesh: NULL argument");
  EM_CHECK(!c->is_msh && !c->mesh_loaded, EM_ERR_INPUT,
           "case '%s': its mesh comes from a .msh file, which has no geometry to mesh again "
           "(adaptive h-refinement needs the .geo)",
           c->path);
  EM_CHECK(opts->unit > 0 && isfinite(opts->unit), EM_ERR_INPUT,
           "case '%s': the unit must be > 0 metres, not %g", c->path, opts->unit);
  for (int32_t v = 0; v < old->n_vert; v++)
    EM_CHECK(vsize[v] > 0 && isfinite(vsize[v]), EM_ERR_ARG,
             "case '%s': refinement size %g m at vertex %d", c->path, vsize[v], v);
  size_field f = {old, vsize, NULL};
  EM_TRY(em_locator_create(old, &f.L));
  double t0 = em_wtime();
  omp_set_num_threads(1); /* Gmsh's loops are not thread-safe (case_open.c) */
  em_log_info(log, "meshing %s again with the refined sizes ...", c->name);
  em_err err = em_case_generate(c, opts, field_at, &f, log);
  if (!err) err = em_case_extract(c, opts, m);
  em_case_restore_threads(c);
  em_locator_destroy(&f.L);
  EM_TRY(err);
  em_mesh_stats s;
  em_mesh_stats_compute(*m, &s);
  em_log_info(log,
              "mesh: %d tets, %d vertices in %.2f s; quality min %.3f mean %.3f; h %.3g .. %.3g mm",
              s.n_tet, s.n_vert, em_wtime() - t0, s.q_min, s.q_mean, s.h_min * 1e3, s.h_max * 1e3);
  return EM_OK;
}
