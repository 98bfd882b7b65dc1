/* ports_print.c - the port results on stdout: with one port a line per
 * frequency (|S11| dB, phase, Zin); with several the whole S-matrix, a line
 * per port and frequency: the port's Zin and its row S_i1 .. S_iN as
 * |S_ij| dB / phase deg (row i: the wave leaving port i). */
#include <math.h>
#include <string.h>

#include "em_post.h"

static const char *flags_of(int g) {
  if ((g & EM_PORTS_FLAG_NOT_CONVERGED) && (g & EM_PORTS_FLAG_ACTIVE))
    return "  (not converged) (|S| > 1)";
  if (g & EM_PORTS_FLAG_NOT_CONVERGED) return "  (not converged)";
  if (g & EM_PORTS_FLAG_ACTIVE) return "  (|S| > 1)";
  return "";
}

void em_ports_print(FILE *f, const em_ports_table *t) {
  int np = t->n_ports;
  if (np < 1) return;
  const double *zl = t->zref + (size_t)(t->n_freq - 1) * np; /* the last frequency's */
  fprintf(f, "# %s: %s, S referenced to each port's own impedance (", t->name,
          np == 1 ? "S11 and input impedance" : "S-matrix and input impedances");
  for (int p = 0; p < np; p++) fprintf(f, "%s%s %.6g", p ? ", " : "", t->port_name[p], zl[p]);
  fprintf(f, " ohm at the last frequency; the Touchstone file: ");
  if (t->touchstone_z0 > 0)
    fprintf(f, "%g ohm)\n", t->touchstone_z0);
  else
    fprintf(f, "the same)\n");
  if (np == 1) { /* beside S11, the Touchstone file's |S11| (its reference), so the two agree */
    fprintf(f,
            "# f_GHz        |S11|_dB   phase_deg   Re_Zin      Im_Zin      |S11|_dB_touchstone\n");
    for (int k = 0; k < t->n_freq; k++) {
      em_cplx s11 = t->S[k], z = t->zin[k], sr = s11;
      char ts[32] = "-";
      if (t->touchstone_z0 <= 0 ||
          em_port_renormalise(1, &sr, t->zref + k, &t->touchstone_z0) == EM_OK)
        snprintf(ts, sizeof ts, "%.4f", 20 * log10(cabs(sr)));
      else
        em_error_clear(); /* 1 - S singular: no finite value on the other reference */
      fprintf(f, "%-14.9g %-10.4f %-11.3f %-11.4f %-11.4f %-10s%s\n", t->freq[k] * 1e-9,
              20 * log10(cabs(s11)), carg(s11) * 180 / M_PI, creal(z), cimag(z), ts,
              flags_of(t->flag[k]));
    }
    return;
  }
  uint32_t ex = t->excited ? t->excited : (np >= 32 ? 0xffffffffu : (1u << np) - 1);
  fprintf(f,
          "# |S_ij| dB / phase deg; row i: the wave leaving port i, column j: the port driven\n");
  if (ex != (np >= 32 ? 0xffffffffu : (1u << np) - 1)) {
    fprintf(f, "# ports driven (Excitation/ports):");
    for (int j = 0; j < np; j++)
      if (ex >> j & 1u) fprintf(f, " %s", t->port_name[j]);
    fprintf(f, "; the other columns and their Zin were not solved\n");
  }
  fprintf(f, "# f_GHz        port Re_Zin      Im_Zin     ");
  for (int j = 0; j < np; j++) {
    if (!(ex >> j & 1u)) continue;
    char h[16];
    snprintf(h, sizeof h, np < 10 ? "S_i%d" : "S_i,%d", j + 1);
    fprintf(f, " %-18s", h);
  }
  fputc('\n', f);
  for (int k = 0; k < t->n_freq; k++) {
    const em_cplx *Sk = t->S + (size_t)k * np * np;
    for (int i = 0; i < np; i++) {
      em_cplx z = t->zin[(size_t)k * np + i];
      if (i == 0)
        fprintf(f, "%-14.9g", t->freq[k] * 1e-9);
      else
        fprintf(f, "%-14s", "");
      if (ex >> i & 1u)
        fprintf(f, " %-4d %-11.4f %-11.4f", i + 1, creal(z), cimag(z));
      else
        fprintf(f, " %-4d %-11s %-11s", i + 1, "-", "-");
      for (int j = 0; j < np; j++) {
        if (!(ex >> j & 1u)) continue;
        em_cplx s = Sk[i * np + j];
        fprintf(f, " %8.3f /%7.2f ", 20 * log10(cabs(s)), carg(s) * 180 / M_PI);
      }
      fprintf(f, "%s\n", i == 0 ? flags_of(t->flag[k]) : "");
    }
  }
}
