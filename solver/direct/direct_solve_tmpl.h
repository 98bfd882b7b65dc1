/* direct_solve_tmpl.h - one instruction set's dense steps of the
 * supernodal solves on R right-hand sides (direct_solve_kernels.c):
 *
 *   gemm_n   T -= A C              (C possibly negated)
 *   gemm_t   X -= A^T B            (plain transpose)
 *   trsm_n   X = L^-1 X            (L unit lower, k x k)
 *   trsm_t   X = L^-T X
 *
 * included once per instruction set with
 *   DS_FN    prefix of the function names
 *   DS_ATTR  attributes (the target instruction set)
 *   DS_VW    doubles per vector register (a vector holds DS_VW / 2 complex
 *            entries, real and imaginary parts interleaved as stored)
 *   DS_JB    columns of A per tile of gemm_t
 *   DS_NR    right-hand sides per tile
 *
 * Vectors run down the rows of L (contiguous in a supernode's block), so
 * one right-hand side gets the full vector width.  An entry of the result
 * sees the same operations in the same order whatever R is and whichever
 * tile it falls in (the tiles only choose which entries share a pass over
 * L), and this file is compiled without floating-point contraction: a
 * column of a block solve is the one-column solve bit for bit.
 *
 * gemm_n: for each j, t_i -= a_ij c_j as (re, im) -= (ar cr - ai ci,
 * ai cr + ar ci), computed on a vector (ar, ai, ..) as a * cr + swap(a) *
 * (-ci, ci, ..): the same products and sums as the scalar form.
 * gemm_t: x_j -= sum_i a_ij b_i with the sums sum ar br, sum ai bi (a * b)
 * and sum ar bi, sum ai br (a * swap(b)) kept per lane over the rows and
 * reduced lane by lane at the end, then the remaining rows one by one. */

#define DS_CAT_(a, b) a##b
#define DS_CAT(a, b) DS_CAT_(a, b)
#define DS_V DS_CAT(DS_FN, _vec)
#define DS_H (DS_VW / 2)
#define DS_GEMM_N DS_CAT(DS_FN, _gemm_n)
#define DS_GEMM_T DS_CAT(DS_FN, _gemm_t)
#define DS_TRSM_N DS_CAT(DS_FN, _trsm_n)
#define DS_TRSM_T DS_CAT(DS_FN, _trsm_t)
#define DS_LOAD DS_CAT(DS_FN, _load)
#define DS_STORE DS_CAT(DS_FN, _store)
#define DS_SWAP DS_CAT(DS_FN, _swap)
#define DS_BCAST DS_CAT(DS_FN, _bcast)
#define DS_MASK DS_CAT(DS_FN, _mask)
#define DS_NTILE DS_CAT(DS_FN, _ntile)
#define DS_TTILE DS_CAT(DS_FN, _ttile)

typedef double DS_V __attribute__((vector_size(DS_VW * sizeof(double))));
typedef long long DS_MASK __attribute__((vector_size(DS_VW * sizeof(long long))));

DS_ATTR static inline DS_V DS_LOAD(const em_cplx *p) {
  DS_V v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

DS_ATTR static inline void DS_STORE(em_cplx *p, DS_V v) {
  __builtin_memcpy(p, &v, sizeof v);
}

/* every lane x */
DS_ATTR static inline DS_V DS_BCAST(double x) {
  DS_V v;
  for (int q = 0; q < DS_VW; q++) v[q] = x;
  return v;
}

/* (re, im) pairs exchanged */
DS_ATTR static inline DS_V DS_SWAP(DS_V v) {
#if DS_VW == 2
  return EM_DS_SHUFFLE(v, DS_MASK, 1, 0);
#elif DS_VW == 4
  return EM_DS_SHUFFLE(v, DS_MASK, 1, 0, 3, 2);
#else
  return EM_DS_SHUFFLE(v, DS_MASK, 1, 0, 3, 2, 5, 4, 7, 6);
#endif
}

/* gemm_n on rows [i, i + mv H) (whole vectors) and the nr <= DS_NR
 * right-hand sides at C, T */
DS_ATTR static void DS_NTILE(int mv, int nr, int64_t K, const em_cplx *A, int64_t lda,
                             const em_cplx *C, int64_t ldc, double s, em_cplx *T, int64_t ldt) {
  DS_V acc[2][DS_NR], sg;
  for (int q = 0; q < DS_VW; q++) sg[q] = q % 2 ? 1.0 : -1.0;
  for (int v = 0; v < mv; v++)
    for (int c = 0; c < nr; c++) acc[v][c] = DS_LOAD(T + c * ldt + v * DS_H);
  for (int64_t j = 0; j < K; j++) {
    DS_V a[2], as[2];
    for (int v = 0; v < mv; v++) {
      a[v] = DS_LOAD(A + j * lda + v * DS_H);
      as[v] = DS_SWAP(a[v]);
    }
    for (int c = 0; c < nr; c++) {
      const double *x = (const double *)(C + j + c * ldc);
      DS_V br = DS_BCAST(s * x[0]), bi = DS_BCAST(s * x[1]) * sg;
      for (int v = 0; v < mv; v++) acc[v][c] -= a[v] * br + as[v] * bi;
    }
  }
  for (int v = 0; v < mv; v++)
    for (int c = 0; c < nr; c++) DS_STORE(T + c * ldt + v * DS_H, acc[v][c]);
}

/* T (M x R, ld ldt) -= A (M x K, ld lda) C (K x R, ld ldc), C negated when
 * neg */
DS_ATTR void DS_GEMM_N(int64_t M, int R, int64_t K, const em_cplx *A, int64_t lda, const em_cplx *C,
                       int64_t ldc, int neg, em_cplx *T, int64_t ldt) {
  double s = neg ? -1.0 : 1.0;
  int64_t i = 0;
  for (; i + 2 * DS_H <= M; i += 2 * DS_H)
    for (int r = 0; r < R; r += DS_NR)
      DS_NTILE(2, R - r < DS_NR ? R - r : DS_NR, K, A + i, lda, C + r * ldc, ldc, s,
               T + i + r * ldt, ldt);
  for (; i + DS_H <= M; i += DS_H)
    for (int r = 0; r < R; r += DS_NR)
      DS_NTILE(1, R - r < DS_NR ? R - r : DS_NR, K, A + i, lda, C + r * ldc, ldc, s,
               T + i + r * ldt, ldt);
  for (; i < M; i++) /* the last rows one by one, the same products */
    for (int r = 0; r < R; r++) {
      double *t = (double *)(T + i + r * ldt), tr = t[0], ti = t[1];
      for (int64_t j = 0; j < K; j++) {
        const double *a = (const double *)(A + i + j * lda), *x = (const double *)(C + j + r * ldc);
        double cr = s * x[0], ci = s * x[1];
        tr -= a[0] * cr + a[1] * (ci * -1.0);
        ti -= a[1] * cr + a[0] * ci;
      }
      t[0] = tr;
      t[1] = ti;
    }
}

/* gemm_t on columns [j, j + jb) of A (jb <= DS_JB) and nr <= DS_NR
 * right-hand sides */
DS_ATTR static void DS_TTILE(int jb, int nr, int64_t M, const em_cplx *A, int64_t lda,
                             const em_cplx *B, int64_t ldb, em_cplx *X, int64_t ldx) {
  DS_V p[DS_JB][DS_NR], q[DS_JB][DS_NR];
  for (int u = 0; u < jb; u++)
    for (int c = 0; c < nr; c++) p[u][c] = q[u][c] = (DS_V){0};
  int64_t i = 0;
  for (; i + DS_H <= M; i += DS_H) {
    DS_V b[DS_NR], bs[DS_NR];
    for (int c = 0; c < nr; c++) {
      b[c] = DS_LOAD(B + i + c * ldb);
      bs[c] = DS_SWAP(b[c]);
    }
    for (int u = 0; u < jb; u++) {
      DS_V a = DS_LOAD(A + i + u * lda);
      for (int c = 0; c < nr; c++) {
        p[u][c] += a * b[c];  /* ar br, ai bi */
        q[u][c] += a * bs[c]; /* ar bi, ai br */
      }
    }
  }
  for (int u = 0; u < jb; u++)
    for (int c = 0; c < nr; c++) {
      double sr = 0, si = 0;
      for (int l = 0; l < DS_H; l++) {
        sr += p[u][c][2 * l] - p[u][c][2 * l + 1];
        si += q[u][c][2 * l] + q[u][c][2 * l + 1];
      }
      for (int64_t t = i; t < M; t++) {
        const double *a = (const double *)(A + t + u * lda), *x = (const double *)(B + t + c * ldb);
        sr += a[0] * x[0] - a[1] * x[1];
        si += a[0] * x[1] + a[1] * x[0];
      }
      double *y = (double *)(X + u + c * ldx);
      y[0] -= sr;
      y[1] -= si;
    }
}

/* X (K x R, ld ldx) -= A^T B: A M x K (ld lda), B M x R (ld ldb) */
DS_ATTR void DS_GEMM_T(int64_t M, int64_t K, int R, const em_cplx *A, int64_t lda, const em_cplx *B,
                       int64_t ldb, em_cplx *X, int64_t ldx) {
  for (int64_t j = 0; j < K; j += DS_JB)
    for (int r = 0; r < R; r += DS_NR)
      DS_TTILE(K - j < DS_JB ? (int)(K - j) : DS_JB, R - r < DS_NR ? R - r : DS_NR, M, A + j * lda,
               lda, B + r * ldb, ldb, X + j + r * ldx, ldx);
}

/* X (k x R) = L^-1 X, L unit lower (ld ldl): panels of EM_DS_PANEL columns,
 * each solved entry by entry, the rows below it by gemm_n */
DS_ATTR void DS_TRSM_N(int64_t k, int R, const em_cplx *L, int64_t ldl, em_cplx *X, int64_t ldx) {
  for (int64_t j0 = 0; j0 < k; j0 += EM_DS_PANEL) {
    int64_t j1 = k - j0 < EM_DS_PANEL ? k : j0 + EM_DS_PANEL;
    for (int r = 0; r < R; r++) {
      double *x = (double *)(X + r * ldx);
      for (int64_t j = j0; j < j1; j++) {
        double cr = x[2 * j], ci = x[2 * j + 1];
        const double *a = (const double *)(L + j * ldl);
        for (int64_t i = j + 1; i < j1; i++) {
          x[2 * i] -= a[2 * i] * cr + a[2 * i + 1] * (ci * -1.0);
          x[2 * i + 1] -= a[2 * i + 1] * cr + a[2 * i] * ci;
        }
      }
    }
    DS_GEMM_N(k - j1, R, j1 - j0, L + j1 + j0 * ldl, ldl, X + j0, ldx, 0, X + j1, ldx);
  }
}

/* X (k x R) = L^-T X: panels from the last, each first updated with the
 * finished rows below it by gemm_t, then solved entry by entry */
DS_ATTR void DS_TRSM_T(int64_t k, int R, const em_cplx *L, int64_t ldl, em_cplx *X, int64_t ldx) {
  for (int64_t j1 = k; j1 > 0;) {
    int64_t j0 = (j1 - 1) / EM_DS_PANEL * EM_DS_PANEL;
    DS_GEMM_T(k - j1, j1 - j0, R, L + j1 + j0 * ldl, ldl, X + j1, ldx, X + j0, ldx);
    for (int r = 0; r < R; r++) {
      double *x = (double *)(X + r * ldx);
      for (int64_t j = j1 - 1; j >= j0; j--) {
        const double *a = (const double *)(L + j * ldl);
        double sr = 0, si = 0;
        for (int64_t i = j + 1; i < j1; i++) {
          sr += a[2 * i] * x[2 * i] - a[2 * i + 1] * x[2 * i + 1];
          si += a[2 * i] * x[2 * i + 1] + a[2 * i + 1] * x[2 * i];
        }
        x[2 * j] -= sr;
        x[2 * j + 1] -= si;
      }
    }
    j1 = j0;
  }
}

#undef DS_FN
#undef DS_ATTR
#undef DS_VW
#undef DS_JB
#undef DS_NR
#undef DS_V
#undef DS_H
#undef DS_GEMM_N
#undef DS_GEMM_T
#undef DS_TRSM_N
#undef DS_TRSM_T
#undef DS_LOAD
#undef DS_STORE
#undef DS_SWAP
#undef DS_BCAST
#undef DS_MASK
#undef DS_NTILE
#undef DS_TTILE
