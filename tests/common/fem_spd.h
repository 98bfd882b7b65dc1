/* fem_spd.h - real symmetric positive definite FEM matrices made by the
 * program's own assembly (assembly/): the order-p Nedelec curl-curl plus
 * mass operator with k0^2 < 0, for the ILU-preconditioned CG / BiCGSTAB
 * study of seed 000 (bench/solve_bench --fem-spd, docs/formats.md). */
#ifndef EM_FEM_SPD_H
#define EM_FEM_SPD_H

#include "em_core.h"

/* A = S + alpha T on em_mesh_box(n, n, n) of the unit cube (jitter 0.2,
 * seed 1), PEC walls (the boundary edges and faces eliminated):
 * S_ij = int curl w_i . curl w_j, T_ij = int w_i . w_j, i.e. the
 * time-harmonic operator curl curl - k0^2 with k0^2 = -alpha < 0.  alpha > 0
 * makes A real symmetric positive definite (S is semi-definite, T
 * definite); the imaginary parts are exactly 0.  Rows by order group (*B,
 * optional, the same split into blocks).  Order 1: about 6 n^3 rows,
 * order 2: about 25 n^3 (n = 12 / 7 give ~10k, n = 32 / 20 ~200k). */
em_err em_fem_spd_box(int n, int order, double alpha, em_csr **A, em_blockmat **B);

#endif
