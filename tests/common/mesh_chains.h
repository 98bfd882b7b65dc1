/* mesh_chains.h - the boundary matrices of a tet mesh over GF(2), as sparse
 * columns (em_gf2_sp): d1 edges -> vertices, d2 faces -> edges, d3 tets ->
 * faces.  For the GF(2) tests and gf2_bench: their ranks are known from the
 * topology (rank d1 = V - b0, rank d2 = E - rank d1 - b1, rank d3 = T). */
#ifndef EM_MESH_CHAINS_H
#define EM_MESH_CHAINS_H

#include "em_linalg.h"
#include "em_mesh.h"

/* d_k of m (k = 1, 2, 3): A->ptr / idx allocated here (free with
 * em_mesh_chain_free). */
em_err em_mesh_chain(const em_mesh *m, int k, em_gf2_sp *A);
void em_mesh_chain_free(em_gf2_sp *A);

#endif
