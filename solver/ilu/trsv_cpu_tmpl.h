/* trsv_cpu_tmpl.h - the OpenMP level-scheduled triangular solves for one
 * factor precision, included by trsv_cpu.c with SC (entry type), RE (its
 * real type) and FN(name) defined.  Complex products are written out in
 * real arithmetic so the loops stay branch-free.  The _k forms solve kc
 * columns stored row by row (entry (i, j) at y[i kc + j]): each entry of
 * the factor is read once for all of them, and every column sees the
 * operations of the one-column solve in the same order. */

/* y_i -= sum_k L_ik y_k over row i (pc numbering) */
static inline void FN(lower_row)(const em_ilu0 *F, int32_t i, em_cplx *y) {
  const SC *lv = F->lval;
  double sr = creal(y[i]), si = cimag(y[i]);
  for (int64_t k = F->lptr[i]; k < F->lptr[i + 1]; k++) {
    double ar = CRE(lv[k]), ai = CIM(lv[k]);
    em_cplx x = y[F->lcol[k]];
    sr -= ar * creal(x) - ai * cimag(x);
    si -= ar * cimag(x) + ai * creal(x);
  }
  ((double *)&y[i])[0] = sr; /* a complex is two doubles (C11 6.2.5) */
  ((double *)&y[i])[1] = si;
}

/* y_i = (y_i - sum_j U_ij y_j) / U_ii for schedule position t */
static inline void FN(upper_row)(const em_ilu0 *F, int32_t t, em_cplx *y) {
  const SC *uv = F->uval, *dinv = F->dinv;
  int32_t i = F->urow[t];
  double sr = creal(y[i]), si = cimag(y[i]);
  for (int64_t k = F->uptr[t]; k < F->uptr[t + 1]; k++) {
    double ar = CRE(uv[k]), ai = CIM(uv[k]);
    em_cplx x = y[F->ucol[k]];
    sr -= ar * creal(x) - ai * cimag(x);
    si -= ar * cimag(x) + ai * creal(x);
  }
  double dr = CRE(dinv[i]), di = CIM(dinv[i]);
  ((double *)&y[i])[0] = sr * dr - si * di;
  ((double *)&y[i])[1] = sr * di + si * dr;
}

/* lower_row on kc columns */
static inline void FN(lower_row_k)(const em_ilu0 *F, int32_t i, int kc, double *y) {
  const SC *lv = F->lval;
  double s[2 * EM_ILU_COLS];
  for (int j = 0; j < 2 * kc; j++) s[j] = y[2 * (int64_t)i * kc + j];
  for (int64_t k = F->lptr[i]; k < F->lptr[i + 1]; k++) {
    double ar = CRE(lv[k]), ai = CIM(lv[k]);
    const double *x = y + 2 * (int64_t)F->lcol[k] * kc;
    for (int j = 0; j < kc; j++) {
      s[2 * j] -= ar * x[2 * j] - ai * x[2 * j + 1];
      s[2 * j + 1] -= ar * x[2 * j + 1] + ai * x[2 * j];
    }
  }
  for (int j = 0; j < 2 * kc; j++) y[2 * (int64_t)i * kc + j] = s[j];
}

/* upper_row on kc columns */
static inline void FN(upper_row_k)(const em_ilu0 *F, int32_t t, int kc, double *y) {
  const SC *uv = F->uval, *dinv = F->dinv;
  int32_t i = F->urow[t];
  double s[2 * EM_ILU_COLS];
  for (int j = 0; j < 2 * kc; j++) s[j] = y[2 * (int64_t)i * kc + j];
  for (int64_t k = F->uptr[t]; k < F->uptr[t + 1]; k++) {
    double ar = CRE(uv[k]), ai = CIM(uv[k]);
    const double *x = y + 2 * (int64_t)F->ucol[k] * kc;
    for (int j = 0; j < kc; j++) {
      s[2 * j] -= ar * x[2 * j] - ai * x[2 * j + 1];
      s[2 * j + 1] -= ar * x[2 * j + 1] + ai * x[2 * j];
    }
  }
  double dr = CRE(dinv[i]), di = CIM(dinv[i]);
  for (int j = 0; j < kc; j++) {
    y[2 * ((int64_t)i * kc + j)] = s[2 * j] * dr - s[2 * j + 1] * di;
    y[2 * ((int64_t)i * kc + j) + 1] = s[2 * j] * di + s[2 * j + 1] * dr;
  }
}

/* one parallel region; a wide level is split over the team (its implicit
 * barrier orders the levels), a run of thin levels is done by one thread */
static void FN(lower)(const em_ilu0 *F, const em_seg *seg, int ns, em_cplx *y) {
#pragma omp parallel if (F->n > 2048)
  for (int s = 0; s < ns; s++) {
    int32_t r0 = F->lev_l.ptr[seg[s].l0], r1 = F->lev_l.ptr[seg[s].l1];
    if (seg[s].thin) {
#pragma omp single
      for (int32_t i = r0; i < r1; i++) FN(lower_row)(F, i, y);
    } else {
#pragma omp for schedule(static)
      for (int32_t i = r0; i < r1; i++) FN(lower_row)(F, i, y);
    }
  }
}

static void FN(upper)(const em_ilu0 *F, const em_seg *seg, int ns, em_cplx *y) {
#pragma omp parallel if (F->n > 2048)
  for (int s = 0; s < ns; s++) {
    int32_t t0 = F->lev_u.ptr[seg[s].l0], t1 = F->lev_u.ptr[seg[s].l1];
    if (seg[s].thin) {
#pragma omp single
      for (int32_t t = t0; t < t1; t++) FN(upper_row)(F, t, y);
    } else {
#pragma omp for schedule(static)
      for (int32_t t = t0; t < t1; t++) FN(upper_row)(F, t, y);
    }
  }
}

/* lower and upper on kc <= EM_ILU_COLS columns stored row by row */
static void FN(lower_k)(const em_ilu0 *F, const em_seg *seg, int ns, int kc, double *y) {
#pragma omp parallel if (F->n > 2048)
  for (int s = 0; s < ns; s++) {
    int32_t r0 = F->lev_l.ptr[seg[s].l0], r1 = F->lev_l.ptr[seg[s].l1];
    if (seg[s].thin) {
#pragma omp single
      for (int32_t i = r0; i < r1; i++) FN(lower_row_k)(F, i, kc, y);
    } else {
#pragma omp for schedule(static)
      for (int32_t i = r0; i < r1; i++) FN(lower_row_k)(F, i, kc, y);
    }
  }
}

static void FN(upper_k)(const em_ilu0 *F, const em_seg *seg, int ns, int kc, double *y) {
#pragma omp parallel if (F->n > 2048)
  for (int s = 0; s < ns; s++) {
    int32_t t0 = F->lev_u.ptr[seg[s].l0], t1 = F->lev_u.ptr[seg[s].l1];
    if (seg[s].thin) {
#pragma omp single
      for (int32_t t = t0; t < t1; t++) FN(upper_row_k)(F, t, kc, y);
    } else {
#pragma omp for schedule(static)
      for (int32_t t = t0; t < t1; t++) FN(upper_row_k)(F, t, kc, y);
    }
  }
}
