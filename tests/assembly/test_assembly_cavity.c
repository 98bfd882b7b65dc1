/* PEC rectangular cavity a x b x d = 22.86 x 10.16 x 25 mm, empty
 * (docs/validation.md R1): the generalised eigenproblem S x = k^2 T x over
 * the unknowns (PEC faces eliminated), solved densely with LAPACK dsygvd on a
 * structured 3 x 2 x 5 mesh at p = 3, gives
 *   f_mnp = c/2 sqrt((m/a)^2 + (n/b)^2 + (p/d)^2):
 *   TE101 = 8.885173 GHz and TE102 = 13.667367 GHz to < 1e-4 relative;
 * the zero cluster (discrete gradients) is separated and has exactly the
 * interior H1 dimension V_i + 2 E_i + F_i, so no spurious non-zero mode sits
 * below TE101.  Also at p = 2 on the same mesh (looser check: within 1e-2,
 * and the p = 3 error must be smaller, the order effect). */
#include <string.h>

#include "em_assembly.h"
#include "em_test.h"

extern void dsygvd_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a,
                    const int *lda, double *b, const int *ldb, double *w, double *work,
                    const int *lwork, int *iwork, const int *liwork, int *info);

static const double A = 22.86e-3, B = 10.16e-3, D = 25e-3;

static em_err vacuum(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx;
  (void)t;
  (void)x;
  for (int d = 0; d < 3; d++) m->eps[d] = m->nu[d] = 1;
  return EM_OK;
}

static double f_mnp(int m, int n, int p) {
  return EM_C0 / 2 * sqrt(pow(m / A, 2) + pow(n / B, 2) + pow(p / D, 2));
}

/* Dense real part of A = S - k0^2 T over the unknowns. */
static double *dense(const em_mesh *m, const em_dofmap *d, double k0) {
  em_problem prob = {.k0 = k0, .material = vacuum, .n_rhs = 1};
  em_system *sys = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, NULL, &sys));
  em_csr *M = NULL;
  REQUIRE_OK(em_blockmat_to_csr(sys->A, &M));
  int n = d->n_dof;
  double *X = calloc((size_t)n * n, sizeof *X);
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = M->rowptr[i]; k < M->rowptr[i + 1]; k++) {
      EXPECT(cimag(M->val[k]) == 0, "vacuum cavity matrix has an imaginary entry");
      X[(size_t)M->colind[k] * n + i] = creal(M->val[k]);
    }
  em_csr_destroy(&M);
  em_system_destroy(&sys);
  return X;
}

/* Relative errors of TE101 and TE102; returns the zero-cluster size. */
static void cavity(int p, double tol, double *err101, double *err102) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(3, 2, 5, A, B, D, 0.0, 1, &m));
  uint8_t *ff = calloc((size_t)m->n_face, 1), *vb = calloc((size_t)m->n_vert, 1),
          *eb = calloc((size_t)m->n_edge, 1);
  int32_t Fi = 0, Ei = 0, Vi = 0;
  for (int32_t f = 0; f < m->n_face; f++) {
    if (m->face_tet[2 * f + 1] >= 0) {
      Fi++;
      continue;
    }
    ff[f] = 1;
    for (int k = 0; k < 3; k++) vb[m->face[3 * f + k]] = 1;
  }
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, p, ff, &d));
  for (int32_t e = 0; e < m->n_edge; e++) Ei += d->edge_dof[e * p] >= 0;
  for (int32_t v = 0; v < m->n_vert; v++) Vi += !vb[v];
  int n = d->n_dof;
  double kr = 2 * M_PI * 10e9 / EM_C0;
  double *S = dense(m, d, 0), *T = dense(m, d, kr);
  for (size_t k = 0; k < (size_t)n * n; k++) T[k] = (S[k] - T[k]) / (kr * kr);
  double *ev = malloc(n * sizeof *ev), wq;
  int one = 1, lwork = -1, liwork = -1, iwq, info;
  dsygvd_(&one, "N", "L", &n, S, &n, T, &n, ev, &wq, &lwork, &iwq, &liwork, &info);
  lwork = (int)wq;
  liwork = iwq;
  double *work = malloc(lwork * sizeof *work);
  int *iwork = malloc(liwork * sizeof *iwork);
  double t0 = em_wtime();
  dsygvd_(&one, "N", "L", &n, S, &n, T, &n, ev, work, &lwork, iwork, &liwork, &info);
  EXPECT(info == 0, "dsygvd info %d", info);
  double k101 = 2 * M_PI * f_mnp(1, 0, 1) / EM_C0;
  int z = 0;
  while (z < n && fabs(ev[z]) < 1e-6 * k101 * k101) z++;
  int want = Vi + (p - 1) * Ei + (p - 1) * (p - 2) / 2 * Fi;
  EXPECT(z == want, "p=%d: zero cluster %d, interior H1 dimension %d", p, z, want);
  EXPECT(z + 1 < n, "p=%d: no non-zero eigenvalues", p);
  double f1 = EM_C0 * sqrt(ev[z]) / (2 * M_PI), f2 = EM_C0 * sqrt(ev[z + 1]) / (2 * M_PI);
  *err101 = fabs(f1 / f_mnp(1, 0, 1) - 1);
  *err102 = fabs(f2 / f_mnp(1, 0, 2) - 1);
  printf(
      "p=%d: %d unknowns (dsygvd %.2f s), zero cluster %d (H1 %d, largest |k^2| %.1e), next "
      "k^2 %.4e\n  TE101 %.6f GHz (ref %.6f, rel err %.2e), TE102 %.6f GHz (ref %.6f, rel err "
      "%.2e)\n",
      p, n, em_wtime() - t0, z, want, z ? fabs(ev[z - 1]) : 0.0, ev[z], f1 * 1e-9,
      f_mnp(1, 0, 1) * 1e-9, *err101, f2 * 1e-9, f_mnp(1, 0, 2) * 1e-9, *err102);
  EXPECT(*err101 < tol, "p=%d: TE101 error %.2e", p, *err101);
  EXPECT(*err102 < tol, "p=%d: TE102 error %.2e", p, *err102);
  free(S);
  free(T);
  free(ev);
  free(work);
  free(iwork);
  free(ff);
  free(vb);
  free(eb);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
}

int main(void) {
  /* the reference code itself, against docs/validation.md */
  EXPECT(fabs(f_mnp(1, 0, 1) * 1e-9 - 8.885173) < 1e-6, "TE101 formula %.7f",
         f_mnp(1, 0, 1) * 1e-9);
  EXPECT(fabs(f_mnp(1, 0, 2) * 1e-9 - 13.667367) < 1e-6, "TE102 formula %.7f",
         f_mnp(1, 0, 2) * 1e-9);
  double e2a, e2b, e3a, e3b;
  cavity(2, 1e-2, &e2a, &e2b);
  cavity(3, 1e-4, &e3a, &e3b);
  EXPECT(e3a < e2a && e3b < e2b, "p=3 is not more accurate than p=2");
  return TEST_RESULT();
}
