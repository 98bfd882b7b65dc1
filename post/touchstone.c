/* touchstone.c - S-parameters as a Touchstone file (".sNp").
 *
 * Option line "# Hz S RI R z0": frequency in Hz, S-parameters as real and
 * imaginary parts, one reference impedance.  Data order (Touchstone 1.1):
 *   N = 1:  f S11
 *   N = 2:  f S11 S21 S12 S22            (the one exception: column-wise)
 *   N >= 3: f then the matrix row by row, each row starting a new line and
 *           at most 4 pairs per line.
 * Touchstone 2.0 (IBIS, 2009) when N > 4 or the ports' references differ:
 * [Version] 2.0 first, after the option line [Number of Ports],
 * [Two-Port Data Order] 21_12 (N = 2: the 1.1 order), [Number of
 * Frequencies], [Reference] (one per port), [Matrix Format] Full, [Network
 * Data]; the rows of the matrix a line each; [End].
 * Numbers in the shortest form that reads back exactly. */
#include "em_post.h"
#include "post_impl.h"

#include <math.h>
#include <string.h>

em_err em_post_check_sweep(const char *path, int n_ports, int n_freq, const double *freq,
                           const em_cplx *S) {
  return em_post_check_sweep_cols(path, n_ports, n_freq, freq, S, 0xffffffffu);
}

em_err em_post_check_sweep_cols(const char *path, int n_ports, int n_freq, const double *freq,
                                const em_cplx *S, uint32_t cols) {
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
        if (!(cols >> jj & 1u)) continue;
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

/* Touchstone 2.0 keywords before the data (its option line already out). */
static void v2_header(FILE *f, int n_ports, int n_freq, const double *z0) {
  char num[EM_POST_NUM_LEN];
  fprintf(f, "[Number of Ports] %d\n", n_ports);
  if (n_ports == 2) fputs("[Two-Port Data Order] 21_12\n", f);
  fprintf(f, "[Number of Frequencies] %d\n", n_freq);
  fputs("[Reference]", f);
  for (int i = 0; i < n_ports; i++) {
    em_post_fmt_double(num, z0[i]);
    fprintf(f, " %s", num);
  }
  fputs("\n[Matrix Format] Full\n[Network Data]\n", f);
}

/* The references of row k when they are not z0: a comment line. */
static void row_refs(FILE *f, int n_ports, const double *z0, const double *zk) {
  int same = 1;
  for (int i = 0; i < n_ports; i++) same &= zk[i] == z0[i];
  if (same) return;
  char num[EM_POST_NUM_LEN];
  fputs("! references of this frequency (ohm):", f);
  for (int i = 0; i < n_ports; i++) {
    em_post_fmt_double(num, zk[i]);
    fprintf(f, " %s", num);
  }
  fputc('\n', f);
}

em_err em_touchstone_write_ref(const char *path, int n_ports, int n_freq, const double *freq,
                               const em_cplx *S, const double *z0, const double *zrow,
                               const char *comment) {
  EM_TRY(em_post_check_sweep(path, n_ports, n_freq, freq, S));
  EM_CHECK(z0, EM_ERR_ARG, "%s: NULL reference impedances", path);
  int v2 = n_ports > 4;
  for (int i = 0; i < n_ports; i++) {
    EM_CHECK(isfinite(z0[i]) && z0[i] > 0, EM_ERR_ARG, "%s: reference impedance %g ohm of port %d",
             path, z0[i], i + 1);
    v2 |= z0[i] != z0[0];
  }
  for (int q = 0; zrow && q < n_freq * n_ports; q++)
    EM_CHECK(isfinite(zrow[q]) && zrow[q] > 0, EM_ERR_ARG,
             "%s: reference impedance %g ohm of port %d at frequency %d", path, zrow[q],
             q % n_ports + 1, q / n_ports + 1);
  em_outfile out;
  EM_TRY(em_outfile_open(&out, path, 0));
  FILE *f = out.f;
  char num[EM_POST_NUM_LEN];
  if (v2) fputs("[Version] 2.0\n", f);
  fprintf(f, "! emsolve %s: %d-port S-parameters, Touchstone %s\n", EM_VERSION, n_ports,
          v2 ? "2.0" : "1.1");
  put_comment(f, comment);
  em_post_fmt_double(num, z0[0]);
  fprintf(f, "# Hz S RI R %s\n", num);
  if (v2) v2_header(f, n_ports, n_freq, z0);
  for (int k = 0; k < n_freq; k++) {
    const em_cplx *Sk = S + (size_t)k * n_ports * n_ports;
    em_post_fmt_double(num, freq[k]);
    fputs(num, f);
    if (n_ports <= 2) { /* column-wise: S11 S21 S12 S22 (2.0: [Two-Port Data Order] 21_12) */
      for (int jj = 0; jj < n_ports; jj++)
        for (int i = 0; i < n_ports; i++) put_pair(f, Sk[i * n_ports + jj]);
      fputc('\n', f);
    } else { /* row by row; 1.1: at most 4 pairs a line, 2.0: a row a line */
      for (int i = 0; i < n_ports; i++)
        for (int jj = 0; jj < n_ports; jj++) {
          if (jj > 0 && jj % 4 == 0 && !v2) fputc('\n', f);
          put_pair(f, Sk[i * n_ports + jj]);
          if (jj == n_ports - 1) fputc('\n', f);
        }
    }
    if (zrow) row_refs(f, n_ports, z0, zrow + (size_t)k * n_ports);
  }
  if (v2) fputs("[End]\n", f);
  EM_TRY(em_outfile_commit(&out));
  return EM_OK;
}

em_err em_touchstone_write(const char *path, int n_ports, int n_freq, const double *freq,
                           const em_cplx *S, double z0, const char *comment) {
  double z[EM_MAX_PORTS];
  EM_CHECK(n_ports >= 1 && n_ports <= EM_MAX_PORTS, EM_ERR_ARG, "%s: %d ports (1..%d)",
           path ? path : "Touchstone", n_ports, EM_MAX_PORTS);
  for (int i = 0; i < n_ports; i++) z[i] = z0;
  return em_touchstone_write_ref(path, n_ports, n_freq, freq, S, z, NULL, comment);
}
