/* blockop_refill.c - new values into the nine-block operator: each stored
 * spmat refilled in place (em_spmat_refill), in the layout the mode chose
 * (the blocks, the block rows fused, or the whole).  The CUDA streams,
 * events and captured graphs stay: they hold the same arrays. */
#include "blockop_impl.h"

/* M (NULL: it was empty when built) refilled from A, the block called
 * `name` in messages; an empty block must stay empty. */
static em_err refill_one(em_spmat *M, const em_csr *A, const char *name) {
  if (!M) {
    EM_CHECK(A->nnz == 0, EM_ERR_ARG,
             "em_blockop_refill: %s was empty when the operator was built and now has %lld "
             "entries; a new pattern needs a new operator",
             name, (long long)A->nnz);
    return EM_OK;
  }
  em_err err = em_spmat_refill(M, A);
  if (!err) return EM_OK;
  char msg[400]; /* the message is rewritten below: copy it first */
  snprintf(msg, sizeof msg, "%s", em_error_message());
  return EM_RAISE(err, "em_blockop_refill: %s: %s", name, msg);
}

/* Every stored spmat from the source's blocks, in the mode's layout. */
static em_err refill_src(em_blockop *op, const em_blockop_src *s) {
  em_err err = EM_OK;
  char name[32];
  if (op->whole) {
    const em_csr *whole = NULL;
    em_csr *tmp = NULL;
    EM_TRY(em_blockop_src_whole(s, &whole, &tmp));
    err = refill_one(op->whole, whole, "the whole matrix");
    em_csr_destroy(&tmp);
    return err;
  }
  if (op->opts.mode == EM_BLOCKOP_ROWS) {
    for (int i = 0; i < s->nb && !err; i++) {
      em_csr *row = NULL;
      EM_TRY(em_blockop_src_row(s, i, &row));
      snprintf(name, sizeof name, "block row %d", i + 1);
      err = refill_one(op->blk[i][0], row, name);
      em_csr_destroy(&row);
    }
    return err;
  }
  for (int i = 0; i < s->nb && !err; i++)
    for (int j = 0; j < s->nb && !err; j++) {
      const em_csr *M = NULL;
      em_csr *tmp = NULL;
      EM_TRY(em_blockop_src_block(s, i, j, &M, &tmp));
      snprintf(name, sizeof name, "block A_%d%d", i + 1, j + 1);
      err = refill_one(op->blk[i][j], M, name);
      em_csr_destroy(&tmp);
    }
  return err;
}

em_err em_blockop_refill(em_blockop *op, const em_blockmat *B) {
  EM_CHECK(op && B, EM_ERR_ARG, "em_blockop_refill: NULL argument");
  EM_CHECK(B->nb == op->nb, EM_ERR_ARG,
           "em_blockop_refill: %d order groups, the operator was built for %d", B->nb, op->nb);
  for (int g = 0; g <= op->nb; g++)
    EM_CHECK(B->offset[g] == op->offset[g], EM_ERR_ARG,
             "em_blockop_refill: group offset %d is %d, the operator was built with %d", g,
             B->offset[g], op->offset[g]);
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++)
      EM_CHECK(B->blk[i][j], EM_ERR_ARG, "em_blockop_refill: block A_%d%d is missing", i + 1,
               j + 1);
  em_blockop_src src = {.B = B, .nb = B->nb, .offset = B->offset};
  return refill_src(op, &src);
}
