/* touchstone_interp.c - S-parameters between the solved frequencies: each
 * S_ij (complex) through a natural cubic spline (linalg/: the curves of
 * all entries one batched tridiagonal solve, on the GPU when the run is) on n_points equally spaced
 * frequencies from the first to the last solved one, written as Touchstone with a comment that says
 * the values are interpolated.  A smooth plot of a coarse sweep; the resonance must still be
 * resolved by the solved points. */
#include "em_linalg.h"
#include "em_post.h"
#include "post_impl.h"

#include <stdio.h>

em_err em_touchstone_write_interp(const char *path, int n_ports, int n_freq, const double *freq,
                                  const em_cplx *S, const double *z0, const char *comment,
                                  int n_points, em_backend be) {
  EM_TRY(em_post_check_sweep(path, n_ports, n_freq, freq, S));
  EM_CHECK(n_freq >= 2 && n_points >= 2, EM_ERR_ARG,
           "%s: interpolation needs 2 solved frequencies and 2 points (%d, %d)", path, n_freq,
           n_points);
  const size_t nn = (size_t)n_ports * n_ports;
  double *f = NULL;
  em_cplx *y = NULL, *Si = NULL, *col = NULL;
  em_err err = em_calloc(&f, (size_t)n_points, sizeof *f, "interpolation frequencies");
  if (!err) err = em_calloc(&y, (size_t)n_freq * nn, sizeof *y, "S samples");
  if (!err) err = em_calloc(&col, (size_t)n_points * nn, sizeof *col, "interpolated S");
  if (!err) err = em_calloc(&Si, (size_t)n_points * nn, sizeof *Si, "interpolated S");
  for (int i = 0; !err && i < n_points; i++) /* f_i = f_0 + (f_last - f_0) i / (n - 1) */
    f[i] = i == n_points - 1
               ? freq[n_freq - 1]
               : freq[0] + (freq[n_freq - 1] - freq[0]) * ((double)i / (n_points - 1));
  for (size_t ij = 0; !err && ij < nn; ij++) /* curve ij: S_ij over the frequencies */
    for (int k = 0; k < n_freq; k++) y[ij * n_freq + k] = S[(size_t)k * nn + ij];
  if (!err) err = em_spline_eval_batch_z(be, n_freq, (int)nn, freq, y, n_points, f, col, NULL);
  for (size_t ij = 0; !err && ij < nn; ij++)
    for (int i = 0; i < n_points; i++) Si[(size_t)i * nn + ij] = col[ij * n_points + i];
  char note[1024];
  snprintf(note, sizeof note,
           "%s%sS interpolated by natural cubic splines through the %d solved frequencies "
           "(%d points)",
           comment ? comment : "", comment ? "\n" : "", n_freq, n_points);
  if (!err) err = em_touchstone_write_ref(path, n_ports, n_points, f, Si, z0, NULL, note);
  em_free(&f);
  em_free(&y);
  em_free(&col);
  em_free(&Si);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
