/* direct_kernel_tmpl.h - one instruction set's tile update
 *
 *     C -= A diag(d) B^T        (complex, column-major, d optional)
 *
 * included by direct_kernels.c once per instruction set with
 *   DK_FN    the function's name
 *   DK_ATTR  its attributes (the target instruction set)
 *   DK_VW    doubles per vector register
 *   DK_MV    vectors per micro-tile column: MR = DK_MV * DK_VW rows
 *   DK_NR    columns of a micro-tile
 *
 * Packing (Goto & van de Geijn 2008) with split complex parts: A's rows in
 * panels of MR, per k the MR real parts then the MR imaginary parts (of
 * a_ik d_k); B's rows (C's columns) in panels of NR, the same way.  The
 * micro-kernel holds an MR x NR tile of C in registers as separate real
 * and imaginary vectors, so a complex multiply-add is 4 vector FMAs with a
 * broadcast B entry and no shuffles.  Vectors are GCC vector extensions:
 * the instruction set comes from DK_ATTR, no intrinsics. */

#define DK_MR (DK_MV * DK_VW)
#define DK_CAT_(a, b) a##b
#define DK_CAT(a, b) DK_CAT_(a, b)
#define DK_V DK_CAT(DK_FN, _vec)
#define DK_MICRO DK_CAT(DK_FN, _micro)
#define DK_PACK DK_CAT(DK_FN, _pack)
#define DK_TRSM DK_CAT(DK_FN, _trsm)
#define DK_PANELS DK_CAT(DK_FN, _panels)
#define DK_PACKED DK_CAT(DK_FN, _packed)

typedef double DK_V __attribute__((vector_size(DK_VW * sizeof(double))));

/* C[0..mr, 0..nr) -= sum_k a_k b_k^T over K packed steps */
DK_ATTR static void DK_MICRO(int64_t K, const double *ap, const double *bp, em_cplx *C, int64_t ldc,
                             int64_t mr, int64_t nr) {
  DK_V cr[DK_MV][DK_NR], ci[DK_MV][DK_NR];
  for (int v = 0; v < DK_MV; v++)
    for (int j = 0; j < DK_NR; j++) {
      cr[v][j] = (DK_V){0};
      ci[v][j] = (DK_V){0};
    }
  for (int64_t k = 0; k < K; k++) {
    DK_V ar[DK_MV], ai[DK_MV];
    for (int v = 0; v < DK_MV; v++) {
      __builtin_memcpy(&ar[v], ap + v * DK_VW, sizeof ar[v]);
      __builtin_memcpy(&ai[v], ap + DK_MR + v * DK_VW, sizeof ai[v]);
    }
    for (int j = 0; j < DK_NR; j++) {
      double br = bp[j], bi = bp[DK_NR + j];
      for (int v = 0; v < DK_MV; v++) { /* (ar + j ai)(br + j bi) */
        cr[v][j] += ar[v] * br;
        cr[v][j] -= ai[v] * bi;
        ci[v][j] += ar[v] * bi;
        ci[v][j] += ai[v] * br;
      }
    }
    ap += 2 * DK_MR;
    bp += 2 * DK_NR;
  }
  double *c = (double *)C; /* a complex is two doubles (C11 6.2.5) */
  for (int64_t j = 0; j < nr; j++) {
    double tr[DK_MR], ti[DK_MR];
    for (int v = 0; v < DK_MV; v++) {
      __builtin_memcpy(tr + v * DK_VW, &cr[v][j], sizeof cr[v][j]);
      __builtin_memcpy(ti + v * DK_VW, &ci[v][j], sizeof ci[v][j]);
    }
    double *cj = c + 2 * j * ldc;
    for (int64_t i = 0; i < mr; i++) {
      cj[2 * i] -= tr[i];
      cj[2 * i + 1] -= ti[i];
    }
  }
}

/* Pack rows r0..r0+rows-1 (rows <= w) of X (ld ldx), columns k0..k0+kc-1,
 * into panel p of width w: per k, w real parts then w imaginary parts of
 * x_rk d_k (zeros past `rows`). */
DK_ATTR static void DK_PACK(const em_cplx *X, int64_t ldx, const em_cplx *d, int64_t r0,
                            int64_t rows, int64_t k0, int64_t kc, int w, double *p) {
  for (int64_t k = 0; k < kc; k++) {
    const double *x = (const double *)(X + (k0 + k) * ldx + r0);
    double dr = 1, di = 0;
    if (d) {
      dr = creal(d[k0 + k]);
      di = cimag(d[k0 + k]);
    }
    int64_t i = 0;
    if (d)
      for (; i < rows; i++) {
        double xr = x[2 * i], xi = x[2 * i + 1];
        p[i] = xr * dr - xi * di;
        p[w + i] = xr * di + xi * dr;
      }
    else
      for (; i < rows; i++) {
        p[i] = x[2 * i];
        p[w + i] = x[2 * i + 1];
      }
    for (; i < w; i++) p[i] = p[w + i] = 0;
    p += 2 * w;
  }
}

DK_ATTR void DK_FN(int64_t M, int64_t N, int64_t K, const em_cplx *A, int64_t lda, const em_cplx *d,
                   const em_cplx *B, int64_t ldb, em_cplx *C, int64_t ldc, int64_t off,
                   double *ws) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  int64_t mp = (M + DK_MR - 1) / DK_MR, np = (N + DK_NR - 1) / DK_NR;
  double *Ap = ws, *Bp = ws + 2 * (int64_t)EM_DK_KC * mp * DK_MR;
  for (int64_t k0 = 0; k0 < K; k0 += EM_DK_KC) {
    int64_t kc = K - k0 < EM_DK_KC ? K - k0 : EM_DK_KC;
    for (int64_t jp = 0; jp < np; jp++) {
      int64_t j0 = jp * DK_NR;
      DK_PACK(B, ldb, NULL, j0, N - j0 < DK_NR ? N - j0 : DK_NR, k0, kc, DK_NR,
              Bp + 2 * kc * DK_NR * jp);
    }
    for (int64_t ip = 0; ip < mp; ip++) {
      int64_t i0 = ip * DK_MR;
      DK_PACK(A, lda, d, i0, M - i0 < DK_MR ? M - i0 : DK_MR, k0, kc, DK_MR,
              Ap + 2 * kc * DK_MR * ip);
    }
    for (int64_t jp = 0; jp < np; jp++) {
      int64_t j0 = jp * DK_NR, nr = N - j0 < DK_NR ? N - j0 : DK_NR;
      for (int64_t ip = 0; ip < mp; ip++) {
        int64_t i0 = ip * DK_MR, mr = M - i0 < DK_MR ? M - i0 : DK_MR;
        if (off >= 0 && i0 + mr - 1 + off < j0) continue; /* wholly above the diagonal */
        DK_MICRO(kc, Ap + 2 * kc * DK_MR * ip, Bp + 2 * kc * DK_NR * jp, C + i0 + j0 * ldc, ldc, mr,
                 nr);
      }
    }
  }
}

/* Shared packing of a big update (em_dk_update): panels p0..p1-1 of the
 * rows of X (ld ldx, rows rows), columns k0..k0+kc-1, scaled by d (NULL:
 * not), width MR (a = 1: the A operand) or NR (a = 0: B), at P + 2 kc w p. */
DK_ATTR void DK_PANELS(int a, int64_t rows, const em_cplx *X, int64_t ldx, const em_cplx *d,
                       int64_t k0, int64_t kc, int64_t p0, int64_t p1, double *P) {
  int w = a ? DK_MR : DK_NR;
  for (int64_t p = p0; p < p1; p++) {
    int64_t r0 = p * w;
    DK_PACK(X, ldx, d, r0, rows - r0 < w ? rows - r0 : w, k0, kc, w, P + 2 * kc * w * p);
  }
}

/* The micro-tiles of C rows r0..r1-1, columns c0..c1-1 (r0 a multiple of
 * MR, c0 of NR; r1 <= M, c1 <= N) from the shared panels of one chunk of
 * kc; lower: only those with a row at or below the diagonal.  The same
 * operations in the same order as DK_FN. */
DK_ATTR void DK_PACKED(int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t kc, const double *Ap,
                       const double *Bp, em_cplx *C, int64_t ldc, int lower) {
  for (int64_t j0 = c0; j0 < c1; j0 += DK_NR) {
    int64_t nr = c1 - j0 < DK_NR ? c1 - j0 : DK_NR;
    for (int64_t i0 = r0; i0 < r1; i0 += DK_MR) {
      int64_t mr = r1 - i0 < DK_MR ? r1 - i0 : DK_MR;
      if (lower && i0 + mr - 1 < j0) continue; /* wholly above the diagonal */
      DK_MICRO(kc, Ap + 2 * kc * i0, Bp + 2 * kc * j0, C + i0 + j0 * ldc, ldc, mr, nr);
    }
  }
}

/* Rows of R (rows x b, ld ld) := R L11^-T D^-1 for the unit lower b x b
 * triangle L11 (ld ld), b <= EM_DK_IB: column j of the result is
 * (r_j - sum_{i<j} x_i (L11_ji d_i)) / d_j with x_i the finished columns.
 * Blocks of MR rows are held in split form (vectors of real and imaginary
 * parts) while their b columns are solved. */
DK_ATTR void DK_TRSM(int64_t rows, int64_t b, const em_cplx *L11, int64_t ld, const em_cplx *d,
                     em_cplx *R) {
  double cre[EM_DK_IB][EM_DK_IB], cim[EM_DK_IB][EM_DK_IB], ire[EM_DK_IB], iim[EM_DK_IB];
  for (int64_t j = 0; j < b; j++) {
    em_cplx inv = 1 / d[j];
    ire[j] = creal(inv);
    iim[j] = cimag(inv);
    for (int64_t i = 0; i < j; i++) {
      em_cplx c = L11[j + i * ld] * d[i];
      cre[j][i] = creal(c);
      cim[j][i] = cimag(c);
    }
  }
  DK_V xr[EM_DK_IB][DK_MV], xi[EM_DK_IB][DK_MV];
  for (int64_t r0 = 0; r0 < rows; r0 += DK_MR) {
    int64_t mr = rows - r0 < DK_MR ? rows - r0 : DK_MR;
    for (int64_t j = 0; j < b; j++) {
      double *x = (double *)(R + r0 + j * ld), tr[DK_MR], ti[DK_MR];
      for (int64_t i = 0; i < DK_MR; i++) {
        tr[i] = i < mr ? x[2 * i] : 0;
        ti[i] = i < mr ? x[2 * i + 1] : 0;
      }
      DK_V ar[DK_MV], ai[DK_MV];
      for (int v = 0; v < DK_MV; v++) {
        __builtin_memcpy(&ar[v], tr + v * DK_VW, sizeof ar[v]);
        __builtin_memcpy(&ai[v], ti + v * DK_VW, sizeof ai[v]);
      }
      for (int64_t i = 0; i < j; i++) {
        double c_r = cre[j][i], c_i = cim[j][i];
        for (int v = 0; v < DK_MV; v++) { /* a -= x_i c */
          ar[v] -= xr[i][v] * c_r;
          ar[v] += xi[i][v] * c_i;
          ai[v] -= xr[i][v] * c_i;
          ai[v] -= xi[i][v] * c_r;
        }
      }
      for (int v = 0; v < DK_MV; v++) { /* x_j = a / d_j */
        xr[j][v] = ar[v] * ire[j] - ai[v] * iim[j];
        xi[j][v] = ar[v] * iim[j] + ai[v] * ire[j];
        __builtin_memcpy(tr + v * DK_VW, &xr[j][v], sizeof xr[j][v]);
        __builtin_memcpy(ti + v * DK_VW, &xi[j][v], sizeof xi[j][v]);
      }
      for (int64_t i = 0; i < mr; i++) {
        x[2 * i] = tr[i];
        x[2 * i + 1] = ti[i];
      }
    }
  }
}

#undef DK_MR
#undef DK_TRSM
#undef DK_PANELS
#undef DK_PACKED
#undef DK_V
#undef DK_MICRO
#undef DK_PACK
#undef DK_FN
#undef DK_ATTR
#undef DK_VW
#undef DK_MV
#undef DK_NR
