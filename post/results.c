/* results.c - the results of a sweep (em_results): S, Zin and the
 * references per frequency, the flags, what each solve did, the far-field
 * figures; made once the ports are known, before the first frequency. */
#include <math.h>

#include "em_post.h"

em_err em_results_alloc(em_results *r, const em_run_config *cfg, int n_port) {
  int np = n_port, nf = cfg->n_freq;
  r->n_freq = nf;
  r->n_port = np;
  r->freq = cfg->freq;
  EM_TRY(em_calloc(&r->S, (size_t)nf * np * np, sizeof *r->S, "S-parameters"));
  EM_TRY(em_calloc(&r->zin, (size_t)nf * np, sizeof *r->zin, "input impedances"));
  EM_TRY(em_calloc(&r->zref, (size_t)np, sizeof *r->zref, "reference impedances"));
  EM_TRY(em_calloc(&r->zport, (size_t)nf * np, sizeof *r->zport, "reference impedances"));
  EM_TRY(em_calloc(&r->flag, (size_t)nf, sizeof *r->flag, "frequency flags"));
  EM_TRY(em_calloc(&r->fr, (size_t)nf, sizeof *r->fr, "frequency results"));
  EM_TRY(em_calloc(&r->ant, (size_t)nf, sizeof *r->ant, "antenna figures"));
  EM_TRY(em_calloc(&r->rcs_back, (size_t)nf, sizeof *r->rcs_back, "RCS"));
  EM_TRY(em_calloc(&r->rcs_fwd, (size_t)nf, sizeof *r->rcs_fwd, "RCS"));
  for (int i = 0; i < nf; i++) r->rcs_back[i] = r->rcs_fwd[i] = NAN;
  EM_TRY(em_calloc(&r->arr_ant, (size_t)nf, sizeof *r->arr_ant, "array figures"));
  EM_TRY(em_calloc(&r->arr_a, (size_t)nf * np, sizeof *r->arr_a, "array weights"));
  EM_TRY(em_calloc(&r->rx, (size_t)nf * np + 1, sizeof *r->rx, "received"));
  EM_TRY(em_calloc(&r->rx_power, (size_t)nf * np + 1, sizeof *r->rx_power, "received"));
  for (int i = 0; i < nf; i++) r->fr[i].p_metal = r->fr[i].p_lumped = NAN; /* none yet */
  return EM_OK;
}

void em_results_free(em_results *r) {
  em_free(&r->S);
  em_free(&r->zin);
  em_free(&r->zref);
  em_free(&r->zport);
  em_free(&r->flag);
  em_free(&r->fr);
  em_free(&r->ant);
  em_free(&r->rcs_back);
  em_free(&r->rcs_fwd);
  em_free(&r->arr_ant);
  em_free(&r->arr_a);
  em_free(&r->rx);
  em_free(&r->rx_power);
  em_free(&r->sample);
}
