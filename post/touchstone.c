/* touchstone.c - S-parameters as a Touchstone v1 file (".sNp").
 *
 * Option line "# Hz S RI R z0": frequency in Hz, S-parameters as real and
 * imaginary parts, one reference impedance.  Data order (Touchstone 1.1):
 *   N = 1:  f S11
 *   N = 2:  f S11 S21 S12 S22            (the one exception: column-wise)
 *   N >= 3: f then the matrix row by row, each row starting a new line and
 *           at most 4 pairs per line.
 * Numbers in the shortest form that reads back exactly. */
#include "em_post.h"
#include "post_impl.h"

#include <math.h>
#include <string.h>

em_err em_post_check_sweep(const char *path, int n_ports, int n_freq, const double *freq,
                           const em_cplx *S) {
  EM_CHECK(path && *path, EM_ERR_ARG, "port table path is NULL or empty");
  EM_CHECK(n_ports >= 1, EM_ERR_ARG, "%s: %d ports (need >= 1)", path, n_ports);
  EM_CHECK(n_freq >= 1, EM_ERR_ARG, "%s: %d frequencies (need >= 1)", path, n_freq);
  EM_CHECK(freq && S, EM_ERR_ARG, "%s: NULL %s", path, freq ? "S" : "frequencies");
  for (int k = 0; k < n_freq; k++) {
    EM_CHECK(isfinite(freq[k]) && freq[k] >= 0, EM_ERR_ARG, "%s: frequency %d is %g Hz", path, k,
             freq[k]);
    EM_CHECK(k == 0 || freq[k] > freq[k - 1], EM_ERR_ARG,
             "%s: frequency %d (%.17g Hz) does not increase from %.17g Hz", path, k, freq[k],
             freq[k - 1]);
    for (int i = 0; i < n_ports; i++)
      for (int jj = 0; jj < n_ports; jj++) {
        em_cplx s = S[((size_t)k * n_ports + i) * n_ports + jj];
        EM_CHECK(isfinite(creal(s)) && isfinite(cimag(s)), EM_ERR_NUMERIC,
                 "%s: S%d%d at %.17g Hz is %g%+gj", path, i + 1, jj + 1, freq[k], creal(s),
                 cimag(s));
      }
  }
  return EM_OK;
}

static void put_pair(FILE *f, em_cplx s) {
  char re[EM_POST_NUM_LEN], im[EM_POST_NUM_LEN];
  em_post_fmt_double(re, creal(s));
  em_post_fmt_double(im, cimag(s));
  fprintf(f, " %s %s", re, im);
}

/* "! " before each line of a comment; control characters become spaces. */
static void put_comment(FILE *f, const char *text) {
  char line[512];
  while (text && *text) {
    size_t n = strcspn(text, "\n");
    char piece[512];
    size_t k = n < sizeof piece - 1 ? n : sizeof piece - 1;
    memcpy(piece, text, k);
    piece[k] = '\0';
    em_post_copy_line(line, sizeof line, piece);
    fprintf(f, "! %s\n", line);
    text += n + (text[n] == '\n');
  }
}

em_err em_touchstone_write(const char *path, int n_ports, int n_freq, const double *freq,
                           const em_cplx *S, double z0, const char *comment) {
  EM_TRY(em_post_check_sweep(path, n_ports, n_freq, freq, S));
  EM_CHECK(isfinite(z0) && z0 > 0, EM_ERR_ARG, "%s: reference impedance %g ohm", path, z0);
  em_outfile out;
  EM_TRY(em_outfile_open(&out, path, 0));
  FILE *f = out.f;
  char num[EM_POST_NUM_LEN];
  fprintf(f, "! emsolve %s: %d-port S-parameters, Touchstone 1.1\n", EM_VERSION, n_ports);
  put_comment(f, comment);
  em_post_fmt_double(num, z0);
  fprintf(f, "# Hz S RI R %s\n", num);
  for (int k = 0; k < n_freq; k++) {
    const em_cplx *Sk = S + (size_t)k * n_ports * n_ports;
    em_post_fmt_double(num, freq[k]);
    fputs(num, f);
    if (n_ports <= 2) { /* column-wise: S11 S21 S12 S22 */
      for (int jj = 0; jj < n_ports; jj++)
        for (int i = 0; i < n_ports; i++) put_pair(f, Sk[i * n_ports + jj]);
      fputc('\n', f);
      continue;
    }
    for (int i = 0; i < n_ports; i++)
      for (int jj = 0; jj < n_ports; jj++) {
        if (jj > 0 && jj % 4 == 0) fputc('\n', f);
        put_pair(f, Sk[i * n_ports + jj]);
        if (jj == n_ports - 1) fputc('\n', f);
      }
  }
  EM_TRY(em_outfile_commit(&out));
  return EM_OK;
}
