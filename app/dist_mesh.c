/* dist_mesh.c - a distributed solve's mesh, made once (docs/mpi.md, "One
 * case over several ranks"): rank 0 meshes the case (or reads Mesh/file)
 * and sends the mesh to the other ranks as one message (em_mesh_pack);
 * they run no Gmsh meshing of their own, which would cost each of them
 * rank 0's meshing time and memory. */
#include "app_dist.h"

em_err em_app_mesh_send(em_run *r) {
  const em_dist *d = r->args->dist;
  void *buf = NULL;
  size_t n = 0;
  double t0 = em_wtime();
  EM_TRY(em_mesh_pack(r->m.mesh, &buf, &n));
  em_err err = EM_OK;
  for (int k = 1; k < em_dist_size(d) && !err; k++) err = em_dist_send(d, buf, n, k, EM_TAG_MESH);
  em_free(&buf);
  EM_TRY(err);
  em_log_verbose(r->log, "mesh sent to the other %d ranks (%.1f MB, %.2f s)", em_dist_size(d) - 1,
                 n / 1e6, em_wtime() - t0);
  return EM_OK;
}

em_err em_app_mesh_recv(em_run *r) {
  const em_dist *d = r->args->dist;
  double t0 = em_wtime();
  char *buf = NULL;
  size_t n = 0;
  int from = 0;
  em_stage_begin(r->log, EM_STAGE_MESH);
  em_err err = em_app_recv_any(d, EM_TAG_MESH, EM_DIST_IDLE, &buf, &n, &from);
  if (!err && from != 0) err = EM_RAISE(EM_ERR_INTERNAL, "a mesh from rank %d, not rank 0", from);
  if (!err) err = em_mesh_unpack(buf, n, &r->m.mesh);
  em_free(&buf);
  em_stage_end(r->log, EM_STAGE_MESH, "received from rank 0");
  EM_TRY(err);
  em_mesh_stats_compute(r->m.mesh, &r->m.mstats);
  r->m.t_mesh = em_wtime() - t0;
  em_log_info(r->log, "mesh: %d tets from rank 0 (%.1f MB; not meshed on this rank)",
              r->m.mesh->n_tet, n / 1e6);
  return EM_OK;
}
