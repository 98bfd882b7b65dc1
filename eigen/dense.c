/* dense.c - the small projected eigenproblem of Krylov-Schur through LAPACK:
 * complex Schur form (zgees), its reordering (ztrsen) and the eigenvectors
 * of the triangular factor (ztrevc).  Without LAPACK the functions return
 * EM_ERR_UNSUPPORTED. */
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "eigen_impl.h"

#ifdef EM_HAVE_LAPACK
/* Fortran LAPACK; character arguments of length 1 (the hidden lengths
 * are passed, as gfortran expects). */
extern void zgees_(const char *jobvs, const char *sort, void *select, const int *n, em_cplx *a,
                   const int *lda, int *sdim, em_cplx *w, em_cplx *vs, const int *ldvs,
                   em_cplx *work, const int *lwork, double *rwork, int *bwork, int *info, size_t,
                   size_t);
extern void ztrsen_(const char *job, const char *compq, const int *select, const int *n, em_cplx *t,
                    const int *ldt, em_cplx *q, const int *ldq, em_cplx *w, int *m, double *s,
                    double *sep, em_cplx *work, const int *lwork, int *info, size_t, size_t);
extern void ztrevc_(const char *side, const char *howmny, const int *select, const int *n,
                    em_cplx *t, const int *ldt, em_cplx *vl, const int *ldvl, em_cplx *vr,
                    const int *ldvr, const int *mm, int *m, em_cplx *work, double *rwork, int *info,
                    size_t, size_t);

int em_eigen_built(void) {
  return 1;
}

/* B = Z R Z^H, R upper triangular (Schur). */
em_err em_eigen_schur(int m, em_cplx *B, em_cplx *Z, em_cplx *w) {
  int sdim = 0, info = 0, lwork = 4 * m;
  em_cplx *work = NULL;
  double *rwork = NULL;
  em_err err = em_calloc(&work, (size_t)lwork, sizeof *work, "Schur work");
  if (!err) err = em_calloc(&rwork, (size_t)m, sizeof *rwork, "Schur work");
  if (!err) {
    zgees_("V", "N", NULL, &m, B, &m, &sdim, w, Z, &m, work, &lwork, rwork, NULL, &info, 1, 1);
    if (info)
      err = em_error_raise(EM_ERR_NUMERIC, __FILE__, __LINE__,
                           "eigen: zgees of the %d x %d projected matrix failed (info %d)", m, m,
                           info);
  }
  em_free(&work);
  em_free(&rwork);
  return err;
}

em_err em_eigen_schur_reorder(int m, const int *keep, em_cplx *R, em_cplx *Z, em_cplx *w) {
  int msel = 0, info = 0, lwork = m * m > 1 ? m * m : 1;
  double s, sep;
  em_cplx *work = NULL;
  EM_TRY(em_calloc(&work, (size_t)lwork, sizeof *work, "Schur reorder work"));
  ztrsen_("N", "V", keep, &m, R, &m, Z, &m, w, &msel, &s, &sep, work, &lwork, &info, 1, 1);
  em_free(&work);
  EM_CHECK(info == 0, EM_ERR_NUMERIC, "eigen: ztrsen failed (info %d)", info);
  return EM_OK;
}

em_err em_eigen_trivec(int m, const em_cplx *R, const em_cplx *Z, em_cplx *X) {
  int info = 0, mout = 0;
  em_cplx *work = NULL, *Rc = NULL;
  double *rwork = NULL;
  em_err err = em_calloc(&work, (size_t)2 * m, sizeof *work, "eigenvector work");
  if (!err) err = em_calloc(&rwork, (size_t)m, sizeof *rwork, "eigenvector work");
  if (!err) err = em_calloc(&Rc, (size_t)m * m, sizeof *Rc, "eigenvector work");
  if (!err) {
    memcpy(Rc, R, (size_t)m * m * sizeof *Rc);
    memcpy(X, Z, (size_t)m * m * sizeof *X);
    ztrevc_("R", "B", NULL, &m, Rc, &m, NULL, &m, X, &m, &m, &mout, work, rwork, &info, 1, 1);
    if (info)
      err = em_error_raise(EM_ERR_NUMERIC, __FILE__, __LINE__, "eigen: ztrevc failed (info %d)",
                           info);
  }
  for (int j = 0; !err && j < m; j++) { /* unit 2-norm columns */
    double s = 0;
    for (int i = 0; i < m; i++) s += creal(X[(size_t)j * m + i] * conj(X[(size_t)j * m + i]));
    s = s > 0 ? 1 / sqrt(s) : 1;
    for (int i = 0; i < m; i++) X[(size_t)j * m + i] *= s;
  }
  em_free(&work);
  em_free(&rwork);
  em_free(&Rc);
  return err;
}

#else /* no LAPACK */

int em_eigen_built(void) {
  return 0;
}
#define NO_LAPACK                 \
  EM_CHECK(0, EM_ERR_UNSUPPORTED, \
           "eigen: this build has no LAPACK (the projected problem needs it)")
em_err em_eigen_schur(int m, em_cplx *B, em_cplx *Z, em_cplx *w) {
  (void)m, (void)B, (void)Z, (void)w;
  NO_LAPACK;
  return EM_OK;
}
em_err em_eigen_schur_reorder(int m, const int *keep, em_cplx *R, em_cplx *Z, em_cplx *w) {
  (void)m, (void)keep, (void)R, (void)Z, (void)w;
  NO_LAPACK;
  return EM_OK;
}
em_err em_eigen_trivec(int m, const em_cplx *R, const em_cplx *Z, em_cplx *X) {
  (void)m, (void)R, (void)Z, (void)X;
  NO_LAPACK;
  return EM_OK;
}
#endif
