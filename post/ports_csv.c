/* ports_csv.c - port quantities per frequency as CSV, for plots.
 *
 * Columns: f_Hz, then per port i:
 *   Sii_dB     20 log10 |S_ii|                         ("-inf" when S_ii = 0)
 *   Sii_deg    arg S_ii in degrees, [-180, 180]
 *   Zini_re_ohm  Re Zin, Zin = z0_i (1 + S_ii) / (1 - S_ii)
 *   Zini_im_ohm  Im Zin                                ("inf" both when S_ii = 1)
 *   Zrefi_ohm  z0_i of that row (em_ports_csv_write_sweep only)
 *   Sji_dB     20 log10 |S_ji| for every j != i (transmission i -> j)
 *   Sji_deg    arg S_ji in degrees, right after it
 * em_ports_csv_write_cols writes the groups of the driven ports only (a
 * run of Excitation/ports: S's other columns were not solved).
 * Port numbers are 1-based; with 10 or more ports indices are separated by
 * "_" (S10_2_dB).  Numbers in the shortest form that reads back exactly. */
#include "em_post.h"
#include "post_impl.h"

#include <math.h>
#include <string.h>

static void put_num(FILE *f, double v) {
  char buf[EM_POST_NUM_LEN];
  em_post_fmt_double(buf, v);
  fputc(',', f);
  fputs(buf, f);
}

static void put_name(FILE *f, int n_ports, int i, int jj, const char *unit) {
  if (n_ports >= 10)
    fprintf(f, ",S%d_%d_%s", i + 1, jj + 1, unit);
  else
    fprintf(f, ",S%d%d_%s", i + 1, jj + 1, unit);
}

static void put_header(FILE *f, int n_ports, int sweep, uint32_t cols) {
  fputs("f_Hz", f);
  for (int i = 0; i < n_ports; i++) {
    if (!(cols >> i & 1u)) continue;
    put_name(f, n_ports, i, i, "dB");
    put_name(f, n_ports, i, i, "deg");
    fprintf(f, ",Zin%d_re_ohm,Zin%d_im_ohm", i + 1, i + 1);
    if (sweep) fprintf(f, ",Zref%d_ohm", i + 1);
    for (int jj = 0; jj < n_ports; jj++)
      if (jj != i) {
        put_name(f, n_ports, jj, i, "dB");
        put_name(f, n_ports, jj, i, "deg");
      }
  }
  if (sweep > 1) fputs(",flag", f);
  fputc('\n', f);
}

/* Zin = z0 (1 + S) (1 - conj S) / |1 - S|^2
 *     = z0 (1 - |S|^2 + 2j Im S) / |1 - S|^2;  S = 1 (open) gives inf. */
static void zin(double z0, em_cplx S, double *re, double *im) {
  double dr = 1 - creal(S), di = -cimag(S), d = dr * dr + di * di;
  if (d == 0) {
    *re = *im = INFINITY;
    return;
  }
  *re = z0 * (1 - (creal(S) * creal(S) + cimag(S) * cimag(S))) / d;
  *im = z0 * 2 * cimag(S) / d;
}

/* sweep: 0 one z0 per port; 1 per frequency; 2 per frequency with flags;
 * the column groups of the ports in cols only */
static em_err write_table(const char *path, int n_ports, int n_freq, const double *freq,
                          const em_cplx *S, const double *z0, int sweep, const int *flag,
                          uint32_t cols) {
  EM_TRY(em_post_check_sweep_cols(path, n_ports, n_freq, freq, S, cols));
  EM_CHECK(cols & (n_ports >= 32 ? 0xffffffffu : (1u << n_ports) - 1), EM_ERR_ARG,
           "%s: no port's column", path);
  EM_CHECK(z0, EM_ERR_ARG, "%s: NULL reference impedances", path);
  int nz = sweep ? n_freq * n_ports : n_ports;
  for (int i = 0; i < nz; i++)
    EM_CHECK(isfinite(z0[i]) && z0[i] > 0, EM_ERR_ARG, "%s: port %d reference impedance %g ohm",
             path, i % n_ports + 1, z0[i]);
  em_outfile out;
  EM_TRY(em_outfile_open(&out, path, 0));
  FILE *f = out.f;
  put_header(f, n_ports, sweep, cols);
  for (int k = 0; k < n_freq; k++) {
    const em_cplx *Sk = S + (size_t)k * n_ports * n_ports;
    const double *zk = sweep ? z0 + (size_t)k * n_ports : z0;
    char buf[EM_POST_NUM_LEN];
    em_post_fmt_double(buf, freq[k]);
    fputs(buf, f);
    for (int i = 0; i < n_ports; i++) {
      if (!(cols >> i & 1u)) continue;
      em_cplx s = Sk[i * n_ports + i];
      double re, im;
      zin(zk[i], s, &re, &im);
      put_num(f, 20 * log10(cabs(s)));
      put_num(f, atan2(cimag(s), creal(s)) * (180 / M_PI));
      put_num(f, re);
      put_num(f, im);
      if (sweep) put_num(f, zk[i]);
      for (int jj = 0; jj < n_ports; jj++)
        if (jj != i) {
          em_cplx t = Sk[jj * n_ports + i];
          put_num(f, 20 * log10(cabs(t)));
          put_num(f, atan2(cimag(t), creal(t)) * (180 / M_PI));
        }
    }
    if (sweep > 1) {
      int g = flag[k];
      fprintf(f, ",%s%s%s", g ? "" : "ok", g & EM_PORTS_FLAG_NOT_CONVERGED ? "not_converged" : "",
              g & EM_PORTS_FLAG_ACTIVE ? (g & 1 ? ";S_gt_1" : "S_gt_1") : "");
    }
    fputc('\n', f);
  }
  EM_TRY(em_outfile_commit(&out));
  return EM_OK;
}

em_err em_ports_csv_write(const char *path, int n_ports, int n_freq, const double *freq,
                          const em_cplx *S, const double *z0) {
  return write_table(path, n_ports, n_freq, freq, S, z0, 0, NULL, 0xffffffffu);
}

em_err em_ports_csv_write_sweep(const char *path, int n_ports, int n_freq, const double *freq,
                                const em_cplx *S, const double *z0, const int *flag) {
  return write_table(path, n_ports, n_freq, freq, S, z0, flag ? 2 : 1, flag, 0xffffffffu);
}

em_err em_ports_csv_write_cols(const char *path, int n_ports, uint32_t cols, int n_freq,
                               const double *freq, const em_cplx *S, const double *z0,
                               const int *flag) {
  return write_table(path, n_ports, n_freq, freq, S, z0, flag ? 2 : 1, flag, cols);
}
