/* case_hash.c - a fingerprint of a case's geometry: what the mesher meshes.
 *
 * A design sweep (app/psweep.c) reuses one point's mesh for the next when
 * only non-geometry parameters (materials, ports, solver settings) change;
 * this hash is its check that the geometry really is the same: a case that
 * used such a parameter in its geometry gets a new mesh, not a wrong one. */
#include <gmshc.h>
#include <string.h>

#include "case_impl.h"

/* FNV-1a over bytes. */
static void mix(uint64_t *h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) {
    *h ^= b[i];
    *h *= 0x100000001b3ULL;
  }
}

/* Every entity of dimension 0..3 with its bounding box, and the physical
 * groups with their entities: equal hashes mean the same model up to the
 * shapes inside equal boxes (curved faces of equal extent), which the
 * entity counts and boxes of their curves and points pin down in practice. */
em_err em_case_geometry_hash(const em_case *c, uint64_t *hash) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int d = 0; d <= 3; d++) {
    int *dt = NULL, ierr = 0;
    size_t n = 0;
    gmshModelGetEntities(&dt, &n, d, &ierr);
    if (ierr) return EM_GMSH_RAISE(c->log_mark, "case '%s': cannot list its entities", c->path);
    for (size_t k = 0; k < n; k += 2) {
      double box[6];
      gmshModelGetBoundingBox(dt[k], dt[k + 1], &box[0], &box[1], &box[2], &box[3], &box[4],
                              &box[5], &ierr);
      mix(&h, &dt[k], 2 * sizeof *dt);
      if (!ierr) mix(&h, box, sizeof box);
    }
    gmshFree(dt);
    int *pg = NULL;
    size_t npg = 0;
    gmshModelGetPhysicalGroups(&pg, &npg, d, &ierr);
    for (size_t k = 0; !ierr && k < npg; k += 2) {
      int *ent = NULL;
      size_t ne = 0;
      gmshModelGetEntitiesForPhysicalGroup(pg[k], pg[k + 1], &ent, &ne, &ierr);
      mix(&h, &pg[k], 2 * sizeof *pg);
      if (!ierr) mix(&h, ent, ne * sizeof *ent);
      gmshFree(ent);
    }
    gmshFree(pg);
  }
  mix(&h, &c->is_msh, sizeof c->is_msh);
  *hash = h;
  return EM_OK;
}
