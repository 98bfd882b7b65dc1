/* levels.c - level schedules of triangular solves and the segments that
 * run them.  The level of a row is 1 + the highest level among the rows it
 * reads (0 for none); rows of one level are independent. */
#include "ilu_impl.h"

em_err em_levels_segments(const em_levels *lv, int32_t thin_max, em_seg **seg, int *n_seg) {
  *seg = NULL;
  *n_seg = 0;
  EM_TRY(em_calloc(seg, (size_t)lv->n_levels + 1, sizeof **seg, "level segments"));
  int ns = 0;
  for (int32_t l = 0; l < lv->n_levels; l++) {
    int thin = lv->ptr[l + 1] - lv->ptr[l] <= thin_max;
    if (thin && ns > 0 && (*seg)[ns - 1].thin) { /* extend the run of thin levels */
      (*seg)[ns - 1].l1 = l + 1;
      continue;
    }
    (*seg)[ns].l0 = l;
    (*seg)[ns].l1 = l + 1;
    (*seg)[ns].thin = thin;
    ns++;
  }
  *n_seg = ns;
  return EM_OK;
}

void em_levels_free(em_levels *lv) {
  em_free(&lv->ptr);
  lv->n_levels = 0;
}
