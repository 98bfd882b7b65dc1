/* tridiag_tmpl.h - the CPU tridiagonal kernels for one scalar type, included
 * by tridiag.c with TD_T and TD_FN(name) defined.  Each returns the row of
 * a zero pivot, or -1. */

/* Thomas: c'_i = du_i / (d_i - dl_i c'_{i-1}),
 *         y_i = (b_i - dl_i y_{i-1}) / (d_i - dl_i c'_{i-1}),
 *         x_i = y_i - c'_i x_{i+1}.   cw holds c' (n entries); x may be b. */
static int64_t TD_FN(thomas)(int64_t n, const TD_T *dl, const TD_T *d, const TD_T *du,
                             const TD_T *b, TD_T *x, TD_T *cw) {
  TD_T cprev = 0, yprev = 0;
  for (int64_t i = 0; i < n; i++) {
    TD_T l = i > 0 ? dl[i] : 0;
    TD_T den = d[i] - l * cprev;
    if (den == 0) return i;
    cprev = cw[i] = i + 1 < n ? du[i] / den : 0;
    yprev = x[i] = (b[i] - l * yprev) / den;
  }
  for (int64_t i = n - 2; i >= 0; i--) x[i] -= cw[i] * x[i + 1];
  return -1;
}

/* Split method, one block of rows s..e (e > s) of a system of n rows.  The
 * downward sweep removes dl and leaves a spike f on x_{s-1}; the upward
 * sweep (rows e-2 .. s) removes du and leaves a spike g on x_e, so that
 *   row i < e:  f_i x_{s-1} + bb_i x_i + g_i x_e    = dd_i
 *   row e:      f_e x_{s-1} + bb_e x_e + du_e x_{e+1} = dd_e. */
static int64_t TD_FN(split_sweep)(int64_t s, int64_t e, const TD_T *dl, const TD_T *d,
                                  const TD_T *du, const TD_T *b, TD_T *f, TD_T *bb, TD_T *g,
                                  TD_T *dd) {
  f[s] = s > 0 ? dl[s] : 0;
  bb[s] = d[s];
  dd[s] = b[s];
  for (int64_t i = s + 1; i <= e; i++) { /* r = dl_i / bb_{i-1} */
    if (bb[i - 1] == 0) return i - 1;
    TD_T r = dl[i] / bb[i - 1];
    f[i] = -r * f[i - 1];
    bb[i] = d[i] - r * du[i - 1];
    dd[i] = b[i] - r * dd[i - 1];
  }
  g[e - 1] = du[e - 1];
  for (int64_t i = e - 2; i >= s; i--) { /* r = du_i / bb_{i+1} */
    TD_T r = du[i] / bb[i + 1];
    f[i] -= r * f[i + 1];
    g[i] = -r * g[i + 1];
    dd[i] -= r * dd[i + 1];
  }
  return -1;
}

/* Reduced row of block k in x_{e_k}: row e_k with x_{s'} (s' the next
 * block's first row) substituted from row s', r = du_e / bb_s':
 *   A = f_e,  B = bb_e - r f_s',  C = -r g_s',  D = dd_e - r dd_s'. */
static int64_t TD_FN(split_reduce)(int64_t e, int64_t s1, int last, const TD_T *du, const TD_T *f,
                                   const TD_T *bb, const TD_T *g, const TD_T *dd, TD_T *A, TD_T *B,
                                   TD_T *C, TD_T *D) {
  *A = f[e];
  if (last) {
    *B = bb[e];
    *C = 0;
    *D = dd[e];
    return -1;
  }
  if (bb[s1] == 0) return s1;
  TD_T r = du[e] / bb[s1];
  *B = bb[e] - r * f[s1];
  *C = -r * g[s1];
  *D = dd[e] - r * dd[s1];
  return -1;
}

/* x_i = (dd_i - f_i x_{s-1} - g_i x_e) / bb_i for rows s..e-1. */
static void TD_FN(split_back)(int64_t s, int64_t e, TD_T xl, const TD_T *f, const TD_T *bb,
                              const TD_T *g, const TD_T *dd, TD_T *x) {
  for (int64_t i = s; i < e; i++) x[i] = (dd[i] - f[i] * xl - g[i] * x[e]) / bb[i];
}

/* One long system on all threads: a block of rows per thread, the reduced
 * system (one row per block) by Thomas.  w: 4 n + 6 p scalars. */
static int64_t TD_FN(split)(int64_t n, int p, const TD_T *dl, const TD_T *d, const TD_T *du,
                            const TD_T *b, TD_T *x, TD_T *w) {
  TD_T *f = w, *bb = w + n, *g = w + 2 * n, *dd = w + 3 * n, *R = w + 4 * n;
  int64_t m = n / p, bad = -1;
#pragma omp parallel for schedule(static) reduction(max : bad)
  for (int k = 0; k < p; k++) {
    int64_t s = k * m, e = k == p - 1 ? n - 1 : s + m - 1;
    int64_t z = TD_FN(split_sweep)(s, e, dl, d, du, b, f, bb, g, dd);
    if (z > bad) bad = z;
  }
  if (bad >= 0) return bad;
  for (int k = 0; k < p; k++) {
    int64_t e = k == p - 1 ? n - 1 : (k + 1) * m - 1;
    int64_t z = TD_FN(split_reduce)(e, e + 1, k == p - 1, du, f, bb, g, dd, R + k, R + p + k,
                                    R + 2 * p + k, R + 3 * p + k);
    if (z >= 0) return z;
  }
  TD_T *X = R + 4 * p;
  int64_t z = TD_FN(thomas)(p, R, R + p, R + 2 * p, R + 3 * p, X, X + p);
  if (z >= 0) return (z + 1) * m - 1;
#pragma omp parallel for schedule(static)
  for (int k = 0; k < p; k++) {
    int64_t s = k * m, e = k == p - 1 ? n - 1 : s + m - 1;
    x[e] = X[k];
    TD_FN(split_back)(s, e, k > 0 ? X[k - 1] : 0, f, bb, g, dd, x);
  }
  return -1;
}
