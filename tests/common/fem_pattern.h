/* fem_pattern.h - FEM-pattern test matrices: the sparsity of an order-p
 * hierarchical Nedelec system on a tet mesh, with random complex symmetric
 * values, for format tests and the SpMV benchmark.
 *
 * DOF layout (the one assembly/ uses): edges carry p DOFs, faces p(p-1),
 * cells p(p-1)(p-2)/2.  DOFs are numbered by order group:
 *   group 1: edge slot 0
 *   group 2: edge slot 1, face slots 0..1
 *   group 3: edge slot 2, face slots 2..5, cell slots 0..2
 * and within a group by entity: all edges (slots of one edge together), then
 * all faces, then all cells, each in mesh numbering.  Every DOF is an
 * unknown (no boundary elimination).
 *
 * Pattern: the union over tets of the dense block coupling all DOFs of the
 * tet, so a DOF's row holds every DOF of every tet around its entity
 * (order 3: 45 per tet, rows of ~45..330 entries).
 * Values: a(i,j) = a(j,i) = a hash of (min(i,j), max(i,j), seed) with real
 * and imaginary parts in [-1, 1): deterministic, complex symmetric. */
#ifndef EM_FEM_PATTERN_H
#define EM_FEM_PATTERN_H

#include "em_core.h"
#include "em_mesh.h"

/* The order-p (1..3) matrix of mesh m: *A the whole n x n matrix, *B the
 * same split into the p x p order blocks (B->offset gives the groups).
 * Either output may be NULL when not wanted. */
em_err em_fem_pattern(const em_mesh *m, int order, unsigned seed, em_csr **A, em_blockmat **B);

/* The same on em_mesh_box(n, n, n) of the unit cube with jitter 0.2:
 * about 111 n^3 DOFs at order 3 (n = 21 gives 1.03M rows), 31 n^3 at
 * order 2, 7 n^3 at order 1. */
em_err em_fem_pattern_box(int n, int order, unsigned seed, em_csr **A, em_blockmat **B);

/* The value of entry (i, j) of these matrices: a hash of (min(i, j),
 * max(i, j), seed) in [-1, 1) + i [-1, 1). */
em_cplx em_fem_pair_value(int32_t i, int32_t j, unsigned seed);

#endif
