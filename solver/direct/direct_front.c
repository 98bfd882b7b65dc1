/* direct_front.c - partial LDL^T of one frontal matrix (complex symmetric,
 * no pivoting, static perturbation of tiny pivots):
 *
 *     [F11 F21^T]   [L11  0] [D 0] [L11^T L21^T]
 *     [F21 F22  ] = [L21  I] [0 U] [ 0     I   ],   U = F22 - L21 D L21^T
 *
 * right-looking over panels of PB pivot columns, each factored by blocks
 * of IB columns (unblocked LDL^T of the block's diagonal, its rows below
 * by a triangular solve, update of the rest of the panel); the pivot
 * columns right of a panel are updated once per panel (inner dimension
 * PB), the update matrix U once at the end with the whole L21 (the longest
 * inner dimension for the kernels).  The triangular solves, the only
 * non-GEMM work of any size, cost IB/2 per entry of L. */
#include <complex.h>
#include <math.h>

#include "direct_impl.h"

#define PB 96       /* panel width */
#define IB EM_DK_IB /* block width inside a panel */
#define RB 512      /* rows per task of a block's triangular solve */

/* Pivot d after the static perturbation: |d| < tau becomes tau d / |d|
 * (tau for d = 0).  Returns 0 when d is unusable: not finite, or zero with
 * tau = 0 (then piv->bad_zero = 1). */
static int pivot(em_cplx *d, em_dk_piv *piv) {
  double a = cabs(*d);
  if (!isfinite(creal(*d)) || !isfinite(cimag(*d))) return 0;
  if (a >= piv->tau && a > 0) return 1;
  if (piv->tau == 0) {
    piv->bad_zero = 1;
    return 0;
  }
  *d = a > 0 ? *d * (piv->tau / a) : piv->tau;
  piv->perturbed++;
  return 1;
}

/* Unblocked right-looking LDL^T of the b x b block P (ld ld), lower
 * triangle: for each j, d_j = p_jj, l_rj = p_rj / d_j, and
 * p_rc -= l_rj d_j l_cj for j < c <= r.  Returns the first unusable pivot
 * or -1. */
static int64_t diag_ldlt(em_cplx *P, int64_t ld, int64_t b, em_cplx *d, em_dk_piv *piv) {
  for (int64_t j = 0; j < b; j++) {
    em_cplx dj = P[j + j * ld];
    if (!pivot(&dj, piv)) return j;
    d[j] = dj;
    em_cplx inv = 1 / dj;
    em_cplx *pj = P + j * ld;
    for (int64_t r = j + 1; r < b; r++) pj[r] *= inv;
    for (int64_t c = j + 1; c < b; c++) {
      em_cplx coef = pj[c] * dj, *pc = P + c * ld;
      for (int64_t r = c; r < b; r++) pc[r] -= pj[r] * coef;
    }
  }
  return -1;
}

/* All M rows below a block, in pieces of RB rows (tasks when big). */
static void panel_solve(const em_dk_ctx *ctx, int64_t M, int64_t b, const em_cplx *L11, int64_t ld,
                        const em_cplx *d, em_cplx *R) {
  int64_t nblk = (M + RB - 1) / RB;
  if (ctx->parallel && nblk > 1 && (double)M * b * b > 4e5) { /* ~0.1 ms */
#pragma omp taskloop grainsize(1) default(shared)
    for (size_t tt = 0; tt < (size_t)nblk; tt++) { /* unsigned: clang's taskloop */
      int64_t t = (int64_t)tt, r0 = t * RB, rows = M - r0 < RB ? M - r0 : RB;
      em_dk_trsm(ctx->kind, rows, b, L11, ld, d, R + r0);
    }
  } else {
    em_dk_trsm(ctx->kind, M, b, L11, ld, d, R);
  }
}

/* Panel of b columns at P (ld ld) with Mt rows from its diagonal down:
 * blocks of IB columns, each updating the rest of the panel.  Returns the
 * first unusable pivot (column in the panel) or -1. */
static int64_t panel_factor(const em_dk_ctx *ctx, em_cplx *P, int64_t ld, int64_t Mt, int64_t b,
                            em_cplx *d, em_dk_piv *piv) {
  for (int64_t q = 0; q < b; q += IB) {
    int64_t ib = b - q < IB ? b - q : IB, M = Mt - q - ib, N = b - q - ib;
    em_cplx *Q = P + q + q * ld; /* the block's diagonal */
    int64_t bad = diag_ldlt(Q, ld, ib, d + q, piv);
    if (bad >= 0) return q + bad;
    panel_solve(ctx, M, ib, Q, ld, d + q, Q + ib);
    /* rest of the panel: P(q+ib.., q+ib..b) -= L_q D_q L_q(top)^T */
    em_dk_update(ctx, M, N, ib, Q + ib, ld, d + q, Q + ib, ld, Q + ib + ib * ld, ld, 1);
  }
  return -1;
}

void em_dk_front(const em_dk_ctx *ctx, int64_t m, int64_t k, em_cplx *L, em_cplx *d, em_cplx *cb,
                 em_dk_piv *piv) {
  int64_t nb = m - k;
  piv->bad = -1;
  piv->bad_zero = 0;
  for (int64_t j0 = 0; j0 < k; j0 += PB) {
    int64_t b = k - j0 < PB ? k - j0 : PB, M = m - j0 - b, N = k - j0 - b;
    em_cplx *P = L + j0 + j0 * m; /* the panel's diagonal block */
    int64_t bad = panel_factor(ctx, P, m, m - j0, b, d + j0, piv);
    if (bad >= 0) {
      piv->bad = j0 + bad;
      return;
    }
    /* pivot columns right of the panel: F(j0+b.., j0+b..k) -= L_p D_p L_p(top)^T */
    em_dk_update(ctx, M, N, b, P + b, m, d + j0, P + b, m, P + b + b * m, m, 1);
  }
  if (nb > 0) em_dk_update(ctx, nb, nb, k, L + k, m, d, L + k, m, cb, nb, 1);
  for (int64_t j = 0; j < k; j++) { /* clean unit triangle */
    for (int64_t i = 0; i < j; i++) L[i + j * m] = 0;
    L[j + j * m] = 1;
  }
}
