/* direct_gsolve.c - the GPU solves' variants (em_direct_gsolve) by name:
 * em_direct_gsolve_parse, for the benches' A/B rows and a run's
 * EMSOLVE_GSOLVE (model/config_solver.c), so both name a variant alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "direct_impl.h"

/* em_solver.h lists the names. */
int em_direct_gsolve_parse(const char *v, em_direct_gsolve *g) {
  memset(g, 0, sizeof *g);
  if (!strcmp(v, "old")) return 0;
  if (!strcmp(v, "default")) { /* what a run gets: em_direct_opts_default's */
    em_direct_opts o;
    em_direct_opts_default(&o);
    *g = o.gsolve;
    return 0;
  }
  if (!strcmp(v, "all")) {
    g->interleave = g->big_own = g->streams = 1;
    return 0;
  }
  if (!strcmp(v, "auto")) { /* the default (streams, trinv, tlev); the others with several
                               columns */
    g->interleave = g->big_own = 2;
    g->streams = g->trinv = 1;
    g->level_threads = -1;
    return 0;
  }
  char buf[128];
  if (strlen(v) >= sizeof buf) return 1; /* g is zeroed */
  snprintf(buf, sizeof buf, "%s", v);
  char *save = NULL;
  for (char *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
    if (!strcmp(t, "il"))
      g->interleave = 1;
    else if (!strcmp(t, "own"))
      g->big_own = 1;
    else if (!strcmp(t, "own2")) /* own kernels with several columns only */
      g->big_own = 2;
    else if (!strcmp(t, "il2")) /* interleaved with several columns only */
      g->interleave = 2;
    else if (!strcmp(t, "ownb")) /* the backward product by the own kernel, for blocks */
      g->big_own = 3;
    else if (!strcmp(t, "st"))
      g->streams = 1;
    else if (!strcmp(t, "inv"))
      g->trinv = 1;
    else if (!strcmp(t, "inv2")) /* trinv with several columns only */
      g->trinv = 2;
    else if (!strncmp(t, "imax", 4) && atoi(t + 4) > 0) /* imax2048: trinv_max */
      g->trinv_max = atoi(t + 4);
    else if (!strcmp(t, "town")) /* the inverse's product by the own kernel */
      g->trinv_own = 1;
    else if (!strcmp(t, "town2")) /* the same with several columns only */
      g->trinv_own = 2;
    else if (!strcmp(t, "cst")) /* the wide triangles' columns on streams of their own */
      g->col_streams = 1;
    else if (!strcmp(t, "nocst"))
      g->col_streams = 0;
    else if (!strcmp(t, "tlev")) /* level kernels' threads by the level */
      g->level_threads = -1;
    else if (!strcmp(t, "tgrad")) /* graded: 1024 / 512 / 256 / 128 */
      g->level_threads = -2;
    else if (t[0] == 't' && atoi(t + 1) > 0) /* t256: level kernels on 256 threads */
      g->level_threads = atoi(t + 1);
    else {
      memset(g, 0, sizeof *g);
      return 1;
    }
  }
  return 0;
}
