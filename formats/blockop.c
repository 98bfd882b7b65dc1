/* blockop.c - the nine-block operator: one spmat per stored block (format
 * and T per block, AUTO from each block's own row lengths), the chains of
 * the block rows, the CPU apply, and the em_operator wrapper.  Scheduling on
 * the GPU is in blockop_cuda.c; the reasons are in blockop_impl.h. */
#include <string.h>

#include "blockop_impl.h"

/* CPU, complex double, STREAMS, every format automatic, k-vector
 * products from an interleaved x where the blocks' kernels take one. */
void em_blockop_opts_default(em_blockop_opts *o) {
  memset(o, 0, sizeof *o);
  o->backend = EM_BACKEND_CPU;
  o->prec = EM_PREC_DOUBLE;
  o->mode = EM_BLOCKOP_STREAMS;
  for (int i = 0; i < EM_MAX_ORDER; i++)
    for (int j = 0; j < EM_MAX_ORDER; j++) o->format[i][j] = EM_FMT_AUTO;
  o->whole_format = EM_FMT_AUTO;
  o->interleave = 0; /* measured slower on an H200: formats.md, "Interleaved x" */
}

/* The block matrix is whole: 1..3 groups, rising offsets from 0, every block
 * present with its groups' sizes and a valid CSR structure. */
static em_err blockop_check(const em_blockmat *B) {
  EM_CHECK(B, EM_ERR_ARG, "block operator: NULL block matrix");
  EM_CHECK(B->nb >= 1 && B->nb <= EM_MAX_ORDER, EM_ERR_ARG,
           "block operator: %d order groups, not 1..%d", B->nb, EM_MAX_ORDER);
  EM_CHECK(B->offset[0] == 0, EM_ERR_ARG, "block operator: group offsets start at %d, not 0",
           B->offset[0]);
  for (int i = 0; i < B->nb; i++)
    EM_CHECK(B->offset[i + 1] >= B->offset[i], EM_ERR_ARG,
             "block operator: group %d has negative size (offsets %d, %d)", i + 1, B->offset[i],
             B->offset[i + 1]);
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) {
      const em_csr *A = B->blk[i][j];
      int32_t r = B->offset[i + 1] - B->offset[i], c = B->offset[j + 1] - B->offset[j];
      EM_CHECK(A, EM_ERR_ARG, "block operator: block A_%d%d is missing", i + 1, j + 1);
      EM_CHECK(A->n_rows == r && A->n_cols == c, EM_ERR_ARG,
               "block operator: block A_%d%d is %d x %d but its groups are %d x %d", i + 1, j + 1,
               A->n_rows, A->n_cols, r, c);
      char name[32];
      snprintf(name, sizeof name, "block A_%d%d", i + 1, j + 1);
      EM_TRY(em_csr_check(A, name));
    }
  return EM_OK;
}

/* Options of one block's spmat. */
static void blockop_spmat_opts(const em_blockop_opts *o, int i, int j, em_spmat_opts *so) {
  em_spmat_opts_default(so);
  so->backend = o->backend;
  so->prec = o->prec;
  so->format = o->format[i][j];
  so->threads_per_row = o->threads_per_row[i][j];
}

/* Block row i as one CSR [A_i1 ... A_inb] over all columns:
 * R(r, offset_j + c) = A_ij(r, c); columns stay sorted (groups rise). */
em_err em_blockop_row_csr(const em_blockmat *B, int i, em_csr **out) {
  int32_t rows = B->offset[i + 1] - B->offset[i];
  int64_t nnz = 0;
  for (int j = 0; j < B->nb; j++) nnz += B->blk[i][j]->nnz;
  EM_TRY(em_csr_create(rows, B->offset[B->nb], nnz, out));
  em_csr *R = *out;
  int64_t k = 0;
  R->rowptr[0] = 0;
  for (int32_t r = 0; r < rows; r++) {
    for (int j = 0; j < B->nb; j++) {
      const em_csr *A = B->blk[i][j];
      for (int64_t q = A->rowptr[r]; q < A->rowptr[r + 1]; q++, k++) {
        R->colind[k] = A->colind[q] + B->offset[j];
        R->val[k] = A->val[q];
      }
    }
    R->rowptr[r + 1] = k;
  }
  return EM_OK;
}

/* On only without ONE_MATRIX and where every stored block has interleaved
 * kernels; off keeps the copy made (freed with the operator). */
int em_blockop_set_interleave(em_blockop *op, int on) {
  if (!op) return 0;
  op->opts.interleave = on;
  op->il = on && !op->whole;
  for (int i = 0; i < op->nb; i++)
    for (int j = 0; j < op->nb; j++)
      if (op->blk[i][j] && !em_spmat_has_spmm_il(op->blk[i][j])) op->il = 0;
  return op->il;
}

/* The stored blocks of each row, diagonal first, then cyclically. */
static void blockop_chains(em_blockop *op) {
  for (int i = 0; i < op->nb; i++) {
    op->n_in_row[i] = 0;
    for (int s = 0; s < op->nb; s++) {
      int j = (i + s) % op->nb;
      if (op->blk[i][j]) op->order[i][op->n_in_row[i]++] = j;
    }
  }
}

/* Where the blocks come from: the nine blocks (B), or one CSR with the
 * groups' offsets (A: a block is copied out only while its spmat is made,
 * so the host never holds a second copy of the matrix). */
em_err em_blockop_src_block(const em_blockop_src *s, int i, int j, const em_csr **M, em_csr **tmp) {
  *tmp = NULL;
  if (s->B) {
    *M = s->B->blk[i][j];
    return EM_OK;
  }
  EM_TRY(em_csr_block(s->A, s->offset[i], s->offset[i + 1], s->offset[j], s->offset[j + 1], tmp));
  *M = *tmp;
  return EM_OK;
}

em_err em_blockop_src_row(const em_blockop_src *s, int i, em_csr **row) {
  if (s->B) return em_blockop_row_csr(s->B, i, row);
  return em_csr_block(s->A, s->offset[i], s->offset[i + 1], 0, s->A->n_cols, row);
}

em_err em_blockop_src_whole(const em_blockop_src *s, const em_csr **M, em_csr **tmp) {
  *tmp = NULL;
  if (s->B) {
    EM_TRY(em_blockmat_to_csr(s->B, tmp));
    *M = *tmp;
  } else {
    *M = s->A;
  }
  return EM_OK;
}

/* One spmat per block with entries (or one for the whole matrix), the
 * chains, and on CUDA the streams and events. */
static em_err blockop_build(const em_blockop_src *src, const em_blockop_opts *o, em_blockop **out) {
  const em_fmt_backend *be = em_fmt_backend_of(o->backend);
  EM_CHECK(be, EM_ERR_UNSUPPORTED,
           "em_blockop_create: the CUDA backend was requested but this build has no CUDA");
  em_err err = EM_OK;
  em_blockop *op = NULL;
  em_csr *tmp = NULL;
  EM_TRY(em_calloc(&op, 1, sizeof *op, "block operator"));
  op->opts = *o;
  op->ops = be->blockop;
  op->nb = src->nb;
  memcpy(op->offset, src->offset, ((size_t)src->nb + 1) * sizeof *op->offset);
  op->elem = em_prec_size(o->prec);
  if (o->mode == EM_BLOCKOP_ONE_MATRIX) {
    em_spmat_opts so;
    em_spmat_opts_default(&so);
    so.backend = o->backend;
    so.prec = o->prec;
    so.format = o->whole_format;
    const em_csr *whole = NULL;
    EM_TRY_GOTO(err, em_blockop_src_whole(src, &whole, &tmp), done);
    EM_TRY_GOTO(err, em_spmat_create(whole, &so, &op->whole), done);
  } else if (o->mode == EM_BLOCKOP_ROWS) {
    /* block row i is stored as "block (i, 0)" with all columns: x is read
       from offset 0, y written at offset i, as em_blockop_block_spmv does */
    for (int i = 0; i < src->nb; i++) {
      em_csr *row = NULL;
      EM_TRY_GOTO(err, em_blockop_src_row(src, i, &row), done);
      em_spmat_opts so;
      blockop_spmat_opts(o, i, 0, &so);
      if (row->nnz > 0) err = em_spmat_create(row, &so, &op->blk[i][0]);
      em_csr_destroy(&row);
      if (err) goto done;
    }
  } else {
    for (int i = 0; i < src->nb; i++)
      for (int j = 0; j < src->nb; j++) {
        const em_csr *M = NULL;
        EM_TRY_GOTO(err, em_blockop_src_block(src, i, j, &M, &tmp), done);
        if (M->nnz > 0) {
          em_spmat_opts so;
          blockop_spmat_opts(o, i, j, &so);
          err = em_spmat_create(M, &so, &op->blk[i][j]);
        }
        em_csr_destroy(&tmp);
        if (err) goto done;
      }
  }
  blockop_chains(op);
  em_blockop_set_interleave(op, o->interleave);
  if (op->ops->init) EM_TRY_GOTO(err, op->ops->init(op), done);
  *out = op;
  op = NULL;
done:
  em_csr_destroy(&tmp);
  em_blockop_destroy(&op);
  return err;
}

static em_err blockop_opts_check(const em_blockop_opts *o) {
  EM_CHECK(o, EM_ERR_ARG, "em_blockop_create: NULL options");
  EM_CHECK(o->mode >= EM_BLOCKOP_STREAMS && o->mode <= EM_BLOCKOP_ROWS, EM_ERR_ARG,
           "em_blockop_create: unknown mode %d", (int)o->mode);
  EM_CHECK(o->prec == EM_PREC_DOUBLE || o->prec == EM_PREC_SINGLE, EM_ERR_ARG,
           "em_blockop_create: unknown precision %d", (int)o->prec);
  return EM_OK;
}

em_err em_blockop_create(const em_blockmat *B, const em_blockop_opts *o, em_blockop **out) {
  EM_CHECK(out, EM_ERR_ARG, "em_blockop_create: NULL output");
  *out = NULL;
  EM_TRY(blockop_opts_check(o));
  EM_TRY(blockop_check(B));
  em_blockop_src src = {.B = B, .nb = B->nb, .offset = B->offset};
  return blockop_build(&src, o, out);
}

/* The groups cover A's square: 1..3 of them, rising offsets from 0 to n. */
em_err em_blockop_csr_check(const em_csr *A, int nb, const int32_t *offset) {
  EM_CHECK(A && offset, EM_ERR_ARG, "block operator: NULL matrix or offsets");
  EM_CHECK(nb >= 1 && nb <= EM_MAX_ORDER, EM_ERR_ARG, "block operator: %d order groups, not 1..%d",
           nb, EM_MAX_ORDER);
  EM_CHECK(A->n_rows == A->n_cols && offset[0] == 0 && offset[nb] == A->n_rows, EM_ERR_ARG,
           "block operator: group offsets 0..%d do not cover the %d x %d matrix", offset[nb],
           A->n_rows, A->n_cols);
  for (int i = 0; i < nb; i++)
    EM_CHECK(offset[i + 1] >= offset[i], EM_ERR_ARG,
             "block operator: group %d has negative size (offsets %d, %d)", i + 1, offset[i],
             offset[i + 1]);
  return em_csr_check(A, "the operator's matrix");
}

em_err em_blockop_create_csr(const em_csr *A, int nb, const int32_t *offset,
                             const em_blockop_opts *o, em_blockop **out) {
  EM_CHECK(out, EM_ERR_ARG, "em_blockop_create_csr: NULL output");
  *out = NULL;
  EM_TRY(blockop_opts_check(o));
  EM_TRY(em_blockop_csr_check(A, nb, offset));
  em_blockop_src src = {.A = A, .nb = nb, .offset = offset};
  return blockop_build(&src, o, out);
}

em_err em_blockop_block_spmv(const em_blockop *op, int i, int j, const void *x, void *y,
                             int accumulate, void *stream) {
  const char *xj = (const char *)x + (size_t)op->offset[j] * op->elem;
  char *yi = (char *)y + (size_t)op->offset[i] * op->elem;
  return em_spmat_spmv(op->blk[i][j], xj, yi, accumulate, stream);
}

em_err em_blockop_block_spmm(const em_blockop *op, int i, int j, int k, const void *const *x,
                             void *const *y, int accumulate, void *stream) {
  return em_blockop_block_spmm_il(op, i, j, k, x, NULL, y, accumulate, stream);
}

/* Block (i, j) reads columns offset[j] .. of x, so rows offset[j] .. of the
 * interleaved block (ROWS: j = 0, the whole). */
em_err em_blockop_block_spmm_il(const em_blockop *op, int i, int j, int k, const void *const *x,
                                const void *xi, void *const *y, int accumulate, void *stream) {
  const void *xj[EM_SPMM_GROUP];
  void *yi[EM_SPMM_GROUP];
  for (int c = 0; c < k; c++) {
    xj[c] = (const char *)x[c] + (size_t)op->offset[j] * op->elem;
    yi[c] = (char *)y[c] + (size_t)op->offset[i] * op->elem;
  }
  /* without xi em_spmat_spmm_il is em_spmat_spmm */
  const char *xij = xi ? (const char *)xi + (size_t)op->offset[j] * (size_t)k * op->elem : NULL;
  return em_spmat_spmm_il(op->blk[i][j], k, xj, xij, yi, accumulate, stream);
}

/* CPU: block rows i0 .. i1-1 of k vectors, the chains of em_blockop_apply
 * (k = 1: its SpMVs) or with multi-vector products. */
static em_err blockop_rows_cpu(em_blockop *op, int i0, int i1, int k, const void *const *x,
                               void *const *y) {
  for (int i = i0; i < i1; i++) {
    size_t rows = (size_t)(op->offset[i + 1] - op->offset[i]);
    if (rows == 0) continue;
    if (op->n_in_row[i] == 0)
      for (int c = 0; c < k; c++)
        memset((char *)y[c] + (size_t)op->offset[i] * op->elem, 0, rows * op->elem);
    for (int t = 0; t < op->n_in_row[i]; t++) {
      if (k == 1)
        EM_TRY(em_blockop_block_spmv(op, i, op->order[i][t], x[0], y[0], t > 0, NULL));
      else
        EM_TRY(em_blockop_block_spmm(op, i, op->order[i][t], k, x, y, t > 0, NULL));
    }
  }
  return EM_OK;
}

/* CPU, k vectors: the chains of em_blockop_apply with multi-vector products. */
static em_err blockop_apply_multi_cpu(em_blockop *op, int k, const void *const *x, void *const *y) {
  if (op->whole) return em_spmat_spmm(op->whole, k, x, y, 0, NULL);
  return blockop_rows_cpu(op, 0, op->nb, k, x, y);
}

/* CPU: the chains one after another, OpenMP inside each block. */
static em_err blockop_apply_cpu(em_blockop *op, const void *x, void *y) {
  if (op->whole) return em_spmat_spmv(op->whole, x, y, 0, NULL);
  for (int i = 0; i < op->nb; i++) {
    size_t rows = (size_t)(op->offset[i + 1] - op->offset[i]);
    if (rows == 0) continue;
    if (op->n_in_row[i] == 0)
      memset((char *)y + (size_t)op->offset[i] * op->elem, 0, rows * op->elem);
    for (int t = 0; t < op->n_in_row[i]; t++)
      EM_TRY(em_blockop_block_spmv(op, i, op->order[i][t], x, y, t > 0, NULL));
  }
  return EM_OK;
}

/* y = A x: check, then the backend's schedule. */
em_err em_blockop_apply(em_blockop *op, const void *x, void *y) {
  EM_CHECK(op, EM_ERR_ARG, "em_blockop_apply: NULL operator");
  int32_t n = op->offset[op->nb];
  EM_CHECK((x && y) || n == 0, EM_ERR_ARG, "em_blockop_apply: NULL vector");
  if (n == 0) return EM_OK;
  EM_CHECK(x != y, EM_ERR_ARG, "em_blockop_apply: x and y are the same vector");
  return op->ops->apply(op, x, y);
}

/* y[j] = A x[j]: checks, then the backend's schedule per group of
 * EM_SPMM_GROUP vectors. */
em_err em_blockop_apply_multi(em_blockop *op, int k, const void *const *x, void *const *y) {
  EM_CHECK(op && k >= 0 && (k == 0 || (x && y)), EM_ERR_ARG,
           "em_blockop_apply_multi: NULL operator or vector list, or %d vectors", k);
  int32_t n = op->offset[op->nb];
  if (n == 0) return EM_OK;
  for (int j = 0; j < k; j++) {
    EM_CHECK(x[j] && y[j], EM_ERR_ARG, "em_blockop_apply_multi: vector %d is NULL", j);
    for (int i = 0; i < k; i++)
      EM_CHECK(x[i] != y[j] && (i == j || y[i] != y[j]), EM_ERR_ARG,
               "em_blockop_apply_multi: output %d is also vector %d", j, i);
  }
  for (int j = 0; j < k; j += EM_SPMM_GROUP) {
    int g = k - j < EM_SPMM_GROUP ? k - j : EM_SPMM_GROUP;
    EM_TRY(op->ops->apply_multi(op, g, x + j, y + j));
  }
  return EM_OK;
}

const em_blockop_ops em_blockop_ops_cpu = {NULL, blockop_apply_cpu, NULL, blockop_apply_multi_cpu,
                                           blockop_rows_cpu};

/* The block rows covering r0 .. r1-1 (checked like em_blockop_apply_multi),
 * per group of EM_SPMM_GROUP vectors; the whole matrix of ONE_MATRIX: the
 * full product. */
em_err em_blockop_apply_rows(em_blockop *op, int32_t r0, int32_t r1, int k, const void *const *x,
                             void *const *y) {
  EM_CHECK(op && k >= 1 && x && y, EM_ERR_ARG,
           "em_blockop_apply_rows: NULL operator or vector list, or %d vectors", k);
  int32_t n = op->offset[op->nb];
  EM_CHECK(r0 >= 0 && r0 <= r1 && r1 <= n, EM_ERR_ARG,
           "em_blockop_apply_rows: rows %d .. %d outside 0 .. %d", r0, r1 - 1, n - 1);
  if (r0 == r1) return EM_OK;
  for (int j = 0; j < k; j++) {
    EM_CHECK(x[j] && y[j], EM_ERR_ARG, "em_blockop_apply_rows: vector %d is NULL", j);
    for (int i = 0; i < k; i++)
      EM_CHECK(x[i] != y[j] && (i == j || y[i] != y[j]), EM_ERR_ARG,
               "em_blockop_apply_rows: output %d is also vector %d", j, i);
  }
  if (op->whole)
    return k == 1 ? em_blockop_apply(op, x[0], y[0]) : em_blockop_apply_multi(op, k, x, y);
  int i0 = 0, i1 = op->nb;
  while (op->offset[i0 + 1] <= r0) i0++;
  while (op->offset[i1 - 1] >= r1) i1--;
  for (int j = 0; j < k; j += EM_SPMM_GROUP) {
    int g = k - j < EM_SPMM_GROUP ? k - j : EM_SPMM_GROUP;
    EM_TRY(op->ops->apply_rows(op, i0, i1, g, x + j, y + j));
  }
  return EM_OK;
}

/* Blocks without entries are not stored: their info has the sizes, nnz 0,
 * bytes 0 and format EM_FMT_AUTO ("none").  ONE_MATRIX: (0, 0) is the whole;
 * ROWS: (i, 0) is block row i (all columns). */
void em_blockop_block_info(const em_blockop *op, int i, int j, em_spmat_info *info) {
  memset(info, 0, sizeof *info);
  info->format = EM_FMT_AUTO;
  if (!op || i < 0 || j < 0 || i >= op->nb || j >= op->nb) return;
  info->backend = op->opts.backend;
  info->prec = op->opts.prec;
  if (op->whole) {
    if (i == 0 && j == 0) em_spmat_get_info(op->whole, info);
    return;
  }
  info->n_rows = op->offset[i + 1] - op->offset[i];
  info->n_cols =
      op->opts.mode == EM_BLOCKOP_ROWS ? op->offset[op->nb] : op->offset[j + 1] - op->offset[j];
  if (op->blk[i][j]) em_spmat_get_info(op->blk[i][j], info);
}

/* Bytes of every stored block (or of the whole). */
size_t em_blockop_bytes(const em_blockop *op) {
  if (!op) return 0;
  em_spmat_info info;
  if (op->whole) {
    em_spmat_get_info(op->whole, &info);
    return info.bytes;
  }
  size_t bytes = 0;
  for (int i = 0; i < op->nb; i++)
    for (int j = 0; j < op->nb; j++)
      if (op->blk[i][j]) {
        em_spmat_get_info(op->blk[i][j], &info);
        bytes += info.bytes;
      }
  return bytes;
}

/* Streams and graphs first, then the blocks. */
void em_blockop_destroy(em_blockop **op) {
  if (!*op) return;
  if ((*op)->ops && (*op)->ops->free) (*op)->ops->free(*op);
  em_blockop_vmap_free(*op);
  for (int i = 0; i < EM_MAX_ORDER; i++)
    for (int j = 0; j < EM_MAX_ORDER; j++) em_spmat_destroy(&(*op)->blk[i][j]);
  em_spmat_destroy(&(*op)->whole);
  em_free(op);
}

/* em_operator.apply: ctx is the block operator. */
static em_err blockop_operator_apply(void *ctx, const void *x, void *y) {
  return em_blockop_apply((em_blockop *)ctx, x, y);
}

static em_err blockop_operator_apply_multi(void *ctx, int k, const void *const *x, void *const *y) {
  return em_blockop_apply_multi((em_blockop *)ctx, k, x, y);
}

static em_err blockop_operator_apply_rows(void *ctx, int32_t r0, int32_t r1, int k,
                                          const void *const *x, void *const *y) {
  return em_blockop_apply_rows((em_blockop *)ctx, r0, r1, k, x, y);
}

/* The block operator as an em_operator (it stays owned by the caller). */
em_err em_blockop_operator(em_blockop *B, em_operator *op) {
  EM_CHECK(B && op, EM_ERR_ARG, "em_blockop_operator: NULL argument");
  op->n = B->offset[B->nb];
  op->backend = B->opts.backend;
  op->prec = B->opts.prec;
  op->ctx = B;
  op->apply = blockop_operator_apply;
  op->apply_multi = blockop_operator_apply_multi;
  op->dist = NULL;
  op->apply_rows = blockop_operator_apply_rows;
  return EM_OK;
}
