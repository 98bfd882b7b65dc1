/* psweep_figures.c - what a design sweep's summary says about a point
 * beyond its resonances (docs/sweeps.md): the antenna figures at the
 * resonance from the point's antenna.csv, and whether its frequency grid
 * could resolve the resonance at all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psweep.h"

/* The antenna figures of a point at f (its antenna.csv): between the two
 * rows around f (linear in f; dBi as written), or the one row within
 * `near` Hz of f (an adaptive sweep has its far field at the model
 * frequency nearest the resonance). */
void em_psweep_antenna_at(const char *dir, double f, double near, double out[4]) {
  static const char *want[5] = {"f_Hz", "directivity_dBi", "gain_dBi", "realized_gain_dBi",
                                "efficiency"};
  char path[1200], line[8192];
  int col[5] = {-1, -1, -1, -1, -1}, have = 0;
  double prev[5] = {0}, cur[5] = {0};
  for (int k = 0; k < 4; k++) out[k] = NAN;
  snprintf(path, sizeof path, "%s/antenna.csv", dir);
  FILE *fh = fopen(path, "r");
  if (!fh) return;
  while (fgets(line, sizeof line, fh)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    line[strcspn(line, "\r\n")] = '\0';
    int k = 0;
    if (col[0] < 0) {
      for (char *t = strtok(line, ","); t; t = strtok(NULL, ","), k++)
        for (int w = 0; w < 5; w++)
          if (!strcmp(t, want[w])) col[w] = k;
      if (col[0] < 0 || col[1] < 0 || col[2] < 0 || col[3] < 0 || col[4] < 0) break;
      continue;
    }
    for (char *t = strtok(line, ","); t; t = strtok(NULL, ","), k++)
      for (int w = 0; w < 5; w++)
        if (k == col[w]) cur[w] = strtod(t, NULL);
    if (fabs(cur[0] - f) <= near) /* the row at f */
      for (int w = 0; w < 4; w++) out[w] = cur[w + 1];
    if (have && prev[0] <= f && f <= cur[0] && cur[0] > prev[0]) { /* between two rows */
      double u = (f - prev[0]) / (cur[0] - prev[0]);
      for (int w = 0; w < 4; w++) out[w] = prev[w + 1] + u * (cur[w + 1] - prev[w + 1]);
    }
    memcpy(prev, cur, sizeof prev);
    have = 1;
  }
  fclose(fh);
}

/* A resonance the sampling cannot resolve: its half-power width f0 / Q
 * spans fewer than 3 steps (docs/sweeps.md, "How resonances are found"),
 * or is wider than twice the band (a Q that three samples made up: 5
 * frequencies over the DRA's band gave Q 0.038 for 7.6). */
int em_psweep_too_coarse(int n, double f_first, double f_last, double f0, double q, char *msg,
                         size_t cap) {
  if (n < 2) return 0;
  double band = f_last - f_first, step = band / (n - 1);
  double w = q > 0 ? f0 / q : INFINITY;
  if (w >= 3 * step && w <= 2 * band) return 0;
  int need = w <= 2 * band ? (int)ceil(3 * band / w) + 1 : EM_PSWEEP_DENSE;
  snprintf(msg, cap,
           "coarse sampling: the Re Zin peak at %.6g GHz with Q %.3g (half-power width %.3g GHz) "
           "against frequency steps of %.3g GHz: f_res, Q and the -10 dB band are not "
           "reliable; leave Solver/sweep unset (the design sweep's adaptive default) or use "
           "Solver/sweep adaptive, or Solver/n_freq %d or more",
           f0 * 1e-9, q, w * 1e-9, step * 1e-9, need);
  return 1;
}
