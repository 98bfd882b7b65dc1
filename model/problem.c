/* problem.c - what a run builds once per mesh (em_model): the record of
 * the operator's layout after the first solve, and its release. */
#include <string.h>

#include "em_model.h"

/* Block statistics and formats, recorded once (first frequency). */
void em_model_record_blocks(em_model *md, const em_log *log) {
  em_fsys_block blk[EM_MAX_ORDER][EM_MAX_ORDER];
  const em_blockop *op;
  int nb = 0;
  em_fsys_operator(md->fsys, &nb, blk, &op);
  if (!nb || !op) return; /* a periodic cell's own direct solve has no operator */
  em_blockop_mode m = md->cfg.solve.bop.mode;
  md->n_block = nb;
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nb; j++) {
      const em_fsys_block *B = &blk[i][j];
      em_block_stat *s = &md->block[i][j];
      s->rows = B->rows;
      s->cols = B->cols;
      s->nnz = B->nnz;
      s->row_mean = B->rows ? (double)B->nnz / B->rows : 0;
      s->row_max = B->row_max;
      /* ONE_MATRIX stores the whole as (0, 0), ROWS block row i as (i, 0) */
      em_blockop_block_info(op, m == EM_BLOCKOP_ONE_MATRIX ? 0 : i,
                            m == EM_BLOCKOP_ONE_MATRIX || m == EM_BLOCKOP_ROWS ? 0 : j, &s->info);
      em_log_verbose(log, "block A%d%d: %d x %d, nnz %lld, row length mean %.1f max %d, %s", i + 1,
                     j + 1, s->rows, s->cols, (long long)s->nnz, s->row_mean, s->row_max,
                     em_format_name(s->info.format));
    }
  md->operator_bytes = em_blockop_bytes(op);
}

void em_model_free(em_model *m) {
  em_fsys_destroy(&m->fsys);
  em_periodic_destroy(&m->periodic);
  em_dofmap_destroy(&m->dofs);
  em_setup_free(&m->setup);
  em_mesh_destroy(&m->mesh);
  em_run_config_free(&m->cfg);
  em_case_close(&m->cs);
}
