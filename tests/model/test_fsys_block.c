/* Both ports of a two-port solved as one block (em_solve_opts.rhs_block 0:
 * em_ksp_solve_multi with multi-vector products and block preconditioner
 * applies) against the two solved one after another (rhs_block 1), on a
 * parallel-plate line between two lumped ports: PEC plates at z = 0, h,
 * PMC side walls, lumped ports (E along z) across x = 0 and x = L, each
 * referenced to the line's impedance eta h / (w sqrt(eps_r)) (Pozar 2.3).
 *   - the S-matrices of the block and of the separate solves agree to
 *     1e-10 (issue 28's acceptance), with the direct factor (BiCGSTAB) and
 *     with pmg (BiCGSTAB and COCG), in the stream and sequential operator;
 *   - the line is matched and reciprocal: |S11|, |S22| small, S12 = S21 to
 *     1e-8, and S21 = exp(-j k L) (k = k0 sqrt(eps_r), the TEM wave) to the
 *     discretisation (order 2: 2e-3);
 *   - each port's solve converged, the block's iterations are the separate
 *     ones' (the same arithmetic column by column).
 * Argument gpu: the same on the GPU (exit 77: none answers). */
#include <complex.h>
#include <string.h>

#include "em_model.h"
#include "em_post.h"
#include "em_test.h"

#define ETA0 376.730313668

static em_backend backend = EM_BACKEND_CPU;
static const double L = 0.06, W = 0.02, H = 0.01;

typedef struct {
  em_mesh *m;
  em_dofmap *d;
  em_medium med[7];
  em_port port[2];
} line2;

static void make_line(line2 *l, int order, em_cplx eps_r) {
  memset(l, 0, sizeof *l);
  REQUIRE_OK(em_mesh_box(12, 2, 2, L, W, H, 0.1, 7, &l->m));
  em_mesh *m = l->m;
  for (int g = 0; g < 7; g++) l->med[g] = (em_medium){eps_r, 1, 0};
  uint8_t *fixed = calloc((size_t)m->n_face, 1);
  int zmin = em_mesh_group_find(m, "zmin", 2), zmax = em_mesh_group_find(m, "zmax", 2);
  for (int32_t k = 0; k < m->n_tri; k++)
    if (m->tri_group[k] == zmin || m->tri_group[k] == zmax) fixed[m->tri_face[k]] = 1;
  REQUIRE_OK(em_dofmap_build(m, order, fixed, &l->d));
  free(fixed);
  double dir[3] = {0, 0, 1};
  const char *side[2] = {"xmin", "xmax"};
  for (int p = 0; p < 2; p++) {
    REQUIRE_OK(em_port_setup(m, em_mesh_group_find(m, side[p], 2), EM_PORT_LUMPED, l->med, dir,
                             &l->port[p]));
    l->port[p].z_ref = ETA0 * H / W / creal(csqrt(eps_r));
    l->port[p].number = p + 1;
    snprintf(l->port[p].name, sizeof l->port[p].name, "port%d", p + 1);
  }
}

/* The 2 x 2 S-matrix at f: rhs_block 0 (a block) or 1 (one by one). */
static void solve_s(line2 *l, em_pc_type pc, em_ksp_method meth, em_blockop_mode mode, int block,
                    double f, em_cplx S[4], em_fsys_stats *st) {
  em_setup setup = {.medium = l->med, .port = l->port, .n_port = 2};
  em_solve_opts o = {.rhs_block = block};
  em_blockop_opts_default(&o.bop);
  o.bop.mode = mode;
  em_pc_opts_default(&o.pc);
  o.pc.type = pc;
  o.pc.ordering = EM_ORDERING_ND;
  o.pc.pmg.coarse = 1;
  o.pc.pmg.smoother = EM_PMG_BLOCK;
  o.pc.pmg.sweeps = 2;
  em_ksp_opts_default(&o.ksp);
  o.ksp.method = meth;
  o.ksp.tol = 1e-12;
  em_fsys_desc d = {.mesh = l->m, .dofs = l->d, .setup = &setup, .solve = &o, .backend = backend};
  em_fsys *s = NULL;
  em_system *sys = NULL;
  em_cplx *x = NULL, meas[4], zin[2];
  double zref[2];
  REQUIRE_OK(em_fsys_create(&d, &s));
  REQUIRE_OK(em_fsys_solve(s, f, NULL, st, &sys, &x));
  int32_t n = l->d->n_dof;
  for (int e = 0; e < 2; e++)
    for (int j = 0; j < 2; j++)
      REQUIRE_OK(em_port_measure(&l->port[j], l->m, l->d, x + (size_t)e * n, sys->fixed,
                                 &meas[e * 2 + j]));
  REQUIRE_OK(em_port_sparams(2, l->port, meas, S, zref, zin));
  em_system_destroy(&sys);
  free(x);
  em_fsys_destroy(&s);
}

static void check(int order, em_cplx eps_r, em_pc_type pc, em_ksp_method meth,
                  em_blockop_mode mode) {
  line2 l;
  make_line(&l, order, eps_r);
  double f = 2.2e9, k = 2 * M_PI * f / EM_C0 * creal(csqrt(eps_r));
  em_cplx Sb[4], Ss[4];
  em_fsys_stats sb, ss;
  solve_s(&l, pc, meth, mode, 0, f, Sb, &sb);
  solve_s(&l, pc, meth, mode, 1, f, Ss, &ss);
  double dmax = 0;
  for (int q = 0; q < 4; q++) dmax = fmax(dmax, cabs(Sb[q] - Ss[q]));
  em_cplx want = cexp(-I * k * L);
  printf(
      "order %d, %s, %s, %s: block vs separate %.1e; |S11| %.1e |S22| %.1e, S21 %.5f%+.5fj "
      "(exp(-jkL) %.5f%+.5fj), |S12 - S21| %.1e; iterations %d+%d / %d+%d\n",
      order, em_pc_type_name(pc), em_ksp_method_name(meth),
      mode == EM_BLOCKOP_STREAMS ? "streams" : "sequential", dmax, cabs(Sb[0]), cabs(Sb[3]),
      creal(Sb[2]), cimag(Sb[2]), creal(want), cimag(want), cabs(Sb[1] - Sb[2]),
      sb.ksp[0].iterations, sb.ksp[1].iterations, ss.ksp[0].iterations, ss.ksp[1].iterations);
  EXPECT(dmax <= 1e-10, "block and separate S differ by %.2e", dmax);
  EXPECT(sb.converged && ss.converged && sb.n_solve == 2, "converged");
  if (backend == EM_BACKEND_CPU)
    EXPECT(sb.ksp[0].iterations == ss.ksp[0].iterations &&
               sb.ksp[1].iterations == ss.ksp[1].iterations,
           "iterations: block %d, %d; separate %d, %d", sb.ksp[0].iterations, sb.ksp[1].iterations,
           ss.ksp[0].iterations, ss.ksp[1].iterations);
  EXPECT(cabs(Sb[1] - Sb[2]) <= 1e-8, "reciprocity: |S12 - S21| = %.2e", cabs(Sb[1] - Sb[2]));
  EXPECT(cabs(Sb[0]) < 2e-3 && cabs(Sb[3]) < 2e-3, "matched: |S11| %.2e |S22| %.2e", cabs(Sb[0]),
         cabs(Sb[3]));
  EXPECT(cabs(Sb[2] - want) < 2e-3, "S21 %.6f%+.6fj vs exp(-jkL) %.6f%+.6fj", creal(Sb[2]),
         cimag(Sb[2]), creal(want), cimag(want));
  em_dofmap_destroy(&l.d);
  em_mesh_destroy(&l.m);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "gpu")) {
    em_device dev;
    if (!em_cuda_built() || em_device_open("gpu", NULL, &dev)) {
      fprintf(stderr, "no GPU answers: skipped\n");
      return EM_TEST_SKIP;
    }
    backend = EM_BACKEND_CUDA;
  }
  check(2, 1.0, EM_PC_DIRECT, EM_KSP_BICGSTAB, EM_BLOCKOP_STREAMS);
  check(2, 4.0, EM_PC_PMG, EM_KSP_BICGSTAB, EM_BLOCKOP_STREAMS);
  check(2, 4.0, EM_PC_PMG, EM_KSP_COCG, EM_BLOCKOP_SEQUENTIAL);
  return TEST_RESULT();
}
