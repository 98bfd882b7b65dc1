/* ff_common.h - helpers of the far-field and scattering tests: a graded
 * tensor-product box mesh with an interior, a source block and a PML
 * shell (no Gmsh), and a direct solve of an assembled system with the
 * solver's sparse LDL^T plus iterative refinement.  Link em_post. */
#ifndef EM_FF_COMMON_H
#define EM_FF_COMMON_H

#include "em_assembly.h"
#include "em_core.h"
#include "em_mesh.h"

/* Node coordinates of one axis: a central block [-c_lo, c_hi] (c_lo, c_hi
 * > 0, or 0 for a node at the origin), cells growing by `growth` from
 * `h0` up to h_max out to the interior half-width w, then n_pml cells of
 * the PML out to w + t.  Symmetric about 0.  Returns the node count
 * (<= cap) in *n. */
typedef struct ff_axis {
  double h0;     /* size of the cells at the centre (metres) */
  int centre;    /* 1: a cell centred on 0 ([-h0/2, h0/2]); 0: a node at 0 */
  double growth; /* cell size ratio outwards (>= 1) */
  double h_max;  /* largest cell (metres) */
  double w;      /* interior half-width: a node lands on it */
  double t;      /* PML thickness */
  int n_pml;     /* PML cells */
} ff_axis;

int ff_axis_nodes(const ff_axis *a, double *node, int cap);

/* The tensor-product box of the three node lists, six Kuhn tets per cell.
 * Groups: 0 "air" (interior), 1 "src" (cells inside the source box
 * |x| <= src[0], |y| <= src[1], |z| <= src[2]; none when src is NULL),
 * 2 "pml" (outside the interior box |x_d| <= w_d), 3 "nf2ff": the
 * triangles of the closed box |x_d| = surf[d] (none when surf is NULL;
 * its half-widths should be node coordinates). */
em_err ff_box_mesh(int n[3], double *node[3], const double w[3], const double *src,
                   const double *surf, em_mesh **m);

/* x = A^-1 b (column 0 of sys) with em_direct and two steps of iterative
 * refinement; returns the relative residual in *res. */
em_err ff_solve(const em_system *sys, em_cplx *x, double *res, double *seconds);

#endif
