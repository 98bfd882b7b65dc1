/* Assembly at production size (label slow): an order-3 system of about
 * 1M unknowns (box of 21^3 cells, 55566 tets) must assemble in well under a
 * minute on 2 cores; reports the time per phase (in the log), the matrix
 * memory, and the bandwidth / profile of the DOF ordering per block. */
#include <string.h>

#include "em_assembly.h"
#include "em_test.h"

static em_err vacuum(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx;
  (void)t;
  (void)x;
  for (int d = 0; d < 3; d++) {
    m->eps[d] = 2.0 - 0.01 * I;
    m->nu[d] = 1;
  }
  return EM_OK;
}

/* Mean and max |i - j| over the entries of a block, and the profile
 * sum_i (i - min_j) (lower envelope) relative to the rows. */
static void band_stats(const em_csr *B, double *mean_bw, int64_t *max_bw) {
  double s = 0;
  int64_t mx = 0;
  for (int32_t r = 0; r < B->n_rows; r++)
    for (int64_t k = B->rowptr[r]; k < B->rowptr[r + 1]; k++) {
      int64_t d = llabs((long long)B->colind[k] - r);
      s += (double)d;
      if (d > mx) mx = d;
    }
  *mean_bw = B->nnz ? s / (double)B->nnz : 0;
  *max_bw = mx;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 21;
  em_log log;
  em_log_init(&log, stderr, EM_LOG_VERBOSE);
  em_mesh *m = NULL;
  double t0 = em_wtime();
  REQUIRE_OK(em_mesh_box(n, n, n, 1.0, 1.0, 1.0, 0.2, 1, &m));
  double tm = em_wtime() - t0;
  uint8_t *ff = calloc((size_t)m->n_face, 1);
  for (int32_t k = 0; k < m->n_tri; k++) ff[m->tri_face[k]] = 1;
  em_dofmap *d = NULL;
  t0 = em_wtime();
  REQUIRE_OK(em_dofmap_build(m, 3, ff, &d));
  double td = em_wtime() - t0;
  em_problem prob = {.k0 = 10.0, .material = vacuum, .n_rhs = 1};
  em_system *sys = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, &log, &sys));
  int64_t nnz = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) nnz += sys->A->blk[i][j]->nnz;
  for (int i = 0; i < 3; i++) {
    const em_csr *B = sys->A->blk[i][i];
    double mb;
    int64_t xb;
    band_stats(B, &mb, &xb);
    printf("A%d%d: %8d rows, nnz %10lld, |i-j| mean %.0f max %lld\n", i + 1, i + 1, B->n_rows,
           (long long)B->nnz, mb, (long long)xb);
  }
  /* the alternative without interleaving: group 3 numbered edges, then
   * faces, then cells, each in entity order (slots adjacent) */
  {
    int32_t *perm = malloc(((size_t)d->n_dof + 1) * sizeof *perm), o = 0,
            n3 = d->offset[3] - d->offset[2];
    for (int32_t e = 0; e < m->n_edge; e++)
      if (d->edge_dof[3 * e + 2] >= 0) perm[d->edge_dof[3 * e + 2] - d->offset[2]] = o++;
    for (int32_t f = 0; f < m->n_face; f++)
      for (int s = 2; s < 6; s++)
        if (d->face_dof[6 * f + s] >= 0) perm[d->face_dof[6 * f + s] - d->offset[2]] = o++;
    for (int32_t t = 0; t < m->n_tet; t++)
      for (int s = 0; s < 3; s++) perm[d->cell_dof[3 * t + s] - d->offset[2]] = o++;
    EXPECT(o == n3, "alternative ordering covers %d of %d", o, n3);
    em_csr *P = NULL;
    REQUIRE_OK(em_csr_permute(sys->A->blk[2][2], perm, perm, &P));
    double mb;
    int64_t xb;
    band_stats(P, &mb, &xb);
    printf("A33 numbered edges, faces, cells instead: |i-j| mean %.0f max %lld\n", mb,
           (long long)xb);
    em_csr_destroy(&P);
    free(perm);
  }
  double mem = (double)nnz * (16 + 4) / 1e6;
  printf(
      "mesh %d tets (%.2f s), dofmap %.3f s, %d unknowns, nnz %lld (%.0f MB values+columns), "
      "assembly %.2f s\n",
      m->n_tet, tm, td, d->n_dof, (long long)nnz, mem, sys->t_assembly);
  EXPECT(sys->t_assembly < 60, "assembly took %.1f s", sys->t_assembly);
  em_system_destroy(&sys);
  em_dofmap_destroy(&d);
  free(ff);
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
