/* blockop_values.c - a sweep's new values into the nine-block operator
 * (em_blockop_refill_values): the operator's CSR A keeps its pattern from
 * frequency to frequency, only the values change, so the place of every
 * entry of A in the stored spmats' value arrays is found once and kept.
 *
 * The map: each stored spmat (a block, a block row or the whole, by mode)
 * holds the entries of A in a rectangle of rows and columns, in A's order
 * row by row; its k-th entry goes to slot slot[k] of its layout (the map
 * em_fmt_slot_map makes from a CPU twin, the one em_spmat_refill uses),
 * so entry q of A goes to code[q] = (segment << shift) | offset, the
 * segments being the stored spmats' value arrays numbered in turn.  A
 * refill is then one parallel pass over A's values (CPU), or one chunked
 * upload of them and a scatter kernel (CUDA): no block copied out of A,
 * no per-block pattern hash, no per-block slot map upload (what the
 * block-by-block em_blockop_refill does at every call).  Every value lands where a
 * fresh build from A would put it (the twin's slots), converted as the
 * build converts it, so the operator applies bit for bit as a fresh one. */
#include <stdio.h>
#include <string.h>

#include "blockop_impl.h"

/* EM_CHECK that leaves through a label with err set. */
#define VMAP_CHECK(err, cond, code, label, ...) \
  do {                                          \
    if (!(cond)) {                              \
      (err) = EM_RAISE(code, __VA_ARGS__);      \
      goto label;                               \
    }                                           \
  } while (0)

/* One stored spmat and the rectangle of A it holds. */
typedef struct vrect {
  em_spmat *M; /* NULL: an empty block (its rectangle must stay empty) */
  int32_t r0, r1, c0, c1;
  char name[32];
} vrect;

/* The stored spmats of op in its mode, with their rectangles of A. */
static int vmap_rects(const em_blockop *op, vrect *rc) {
  const int32_t *o = op->offset, n = o[op->nb];
  int k = 0;
  if (op->whole) {
    rc[k] = (vrect){op->whole, 0, n, 0, n, "the whole matrix"};
    return 1;
  }
  for (int i = 0; i < op->nb; i++) {
    if (op->opts.mode == EM_BLOCKOP_ROWS) {
      rc[k] = (vrect){op->blk[i][0], o[i], o[i + 1], 0, n, ""};
      snprintf(rc[k++].name, sizeof rc->name, "block row %d", i + 1);
      continue;
    }
    for (int j = 0; j < op->nb; j++) {
      rc[k] = (vrect){op->blk[i][j], o[i], o[i + 1], o[j], o[j + 1], ""};
      snprintf(rc[k++].name, sizeof rc->name, "block A_%d%d", i + 1, j + 1);
    }
  }
  return k;
}

void em_blockop_vmap_free(em_blockop *op) {
  em_blockop_vmap *vm = op->vmap;
  if (!vm) return;
  em_free(&vm->code);
#ifdef EM_HAVE_CUDA
  em_dev_free(&vm->dcode);
  em_blockop_values_cuda_free(vm);
#endif
  em_free(&op->vmap);
}

/* The codes of rectangle r's entries (B: A's rectangle as its own CSR,
 * slot its slot map or NULL for the identity, segments base and base + 1). */
static void vmap_codes(const em_csr *A, const vrect *r, const em_csr *B, const int64_t *slot,
                       int64_t len0, int base, int shift, int64_t *code) {
  int32_t m = r->r1 - r->r0;
#pragma omp parallel for schedule(static) if (m > 20000)
  for (int32_t i = 0; i < m; i++) {
    int64_t k = B->rowptr[i];
    for (int64_t q = A->rowptr[r->r0 + i]; q < A->rowptr[r->r0 + i + 1]; q++) {
      if (A->colind[q] < r->c0 || A->colind[q] >= r->c1) continue;
      int64_t s = slot ? slot[k] : k;
      k++;
      code[q] = s < len0 ? (int64_t)base << shift | s : (int64_t)(base + 1) << shift | (s - len0);
    }
  }
}

/* The codes of rectangle r (its entries' segments base and base + 1, the
 * first len0 long), its pattern checked against its spmat's. */
static em_err vmap_rect(const em_csr *A, const vrect *r, int base, int shift, int64_t len0,
                        int64_t *code) {
  em_err err = EM_OK;
  em_csr *B = NULL;
  int64_t *slot = NULL;
  EM_TRY(em_csr_block(A, r->r0, r->r1, r->c0, r->c1, &B));
  if (!r->M) {
    VMAP_CHECK(err, B->nnz == 0, EM_ERR_ARG, done,
               "em_blockop_refill_values: %s was empty when the operator was built and now "
               "has %lld entries; a new pattern needs a new operator",
               r->name, (long long)B->nnz);
    goto done;
  }
  const em_spmat_info *in = &r->M->info;
  VMAP_CHECK(err,
             B->n_rows == in->n_rows && B->n_cols == in->n_cols && B->nnz == in->nnz &&
                 em_spmat_pattern_hash(B) == r->M->pattern,
             EM_ERR_ARG, done,
             "em_blockop_refill_values: %s is %d x %d with %lld entries in another pattern "
             "than the %d x %d with %lld the operator was built from; a new pattern needs a "
             "new operator",
             r->name, B->n_rows, B->n_cols, (long long)B->nnz, in->n_rows, in->n_cols,
             (long long)in->nnz);
  EM_TRY_GOTO(err, em_fmt_slot_map(r->M, B, &slot), done);
  vmap_codes(A, r, B, slot, len0, base, shift, code);
done:
  em_free(&slot);
  em_csr_destroy(&B);
  return err;
}

/* The map of op for A (its pattern checked rectangle by rectangle against
 * the spmats'); on CUDA the codes moved to the GPU.  The rectangles go
 * several at once (issue 24: each twin's build is mostly serial; the
 * default order-3 DRA sweep's first refill took 1.4 s on 16 cores one
 * after another); an error is the first rectangle's in turn, as when they
 * went in turn, raised again here with its message. */
static em_err vmap_build(em_blockop *op, const em_csr *A) {
  vrect rc[EM_MAX_ORDER * EM_MAX_ORDER];
  int nr = vmap_rects(op, rc);
  em_err err = EM_OK;
  em_blockop_vmap *vm = NULL;
  int64_t maxlen = 0, len0[EM_MAX_ORDER * EM_MAX_ORDER] = {0};
  int base[EM_MAX_ORDER * EM_MAX_ORDER] = {0};
  em_err rerr[EM_MAX_ORDER * EM_MAX_ORDER] = {EM_OK};
  char rmsg[EM_MAX_ORDER * EM_MAX_ORDER][320];
  EM_TRY(em_calloc(&vm, 1, sizeof *vm, "operator value map"));
  for (int k = 0; k < nr; k++) {
    if (!rc[k].M) continue;
    void **arr[2];
    int64_t len[2] = {0, 0};
    int ns = em_fmt_value_arrays(rc[k].M, arr, len);
    for (int s = 0; s < ns; s++) maxlen = len[s] > maxlen ? len[s] : maxlen;
    for (int s = 0; s < ns; s++) vm->seg[vm->nseg + s] = *arr[s];
    base[k] = vm->nseg;
    len0[k] = len[0];
    vm->nseg += 2; /* a second segment's number is reserved either way */
  }
  /* 27: a segment's number (< EM_VMAP_MAX_SEG <= 32) in the top 5 bits of a uint32 */
  _Static_assert(EM_VMAP_MAX_SEG <= 32, "segment numbers above 27 bits of a uint32");
  vm->shift = maxlen < ((int64_t)1 << 27) ? 27 : 40;
  vm->nnz = A->nnz;
  EM_TRY_GOTO(err, em_calloc(&vm->code, (size_t)A->nnz + 1, sizeof *vm->code, "operator value map"),
              fail);
  memset(vm->code, 0xff, (size_t)A->nnz * sizeof *vm->code);
  int ord[EM_MAX_ORDER * EM_MAX_ORDER]; /* the largest first */
  for (int k = 0; k < nr; k++) {
    int64_t z = rc[k].M ? rc[k].M->info.nnz : 0;
    int t = k;
    while (t > 0 && (rc[ord[t - 1]].M ? rc[ord[t - 1]].M->info.nnz : 0) < z)
      ord[t] = ord[t - 1], t--;
    ord[t] = k;
  }
#pragma omp parallel for schedule(dynamic, 1) if (A->nnz > 20000)
  for (int t = 0; t < nr; t++) {
    int k = ord[t];
    rerr[k] = vmap_rect(A, &rc[k], base[k], vm->shift, len0[k], vm->code);
    if (rerr[k]) { /* this thread's trace: raised again below */
      snprintf(rmsg[k], sizeof rmsg[k], "%s", em_error_message());
      em_error_clear();
    }
  }
  for (int k = 0; k < nr; k++)
    if (rerr[k]) {
      err = EM_RAISE(rerr[k], "%s", rmsg[k]);
      goto fail;
    }
  int64_t first = A->nnz; /* the first entry without a slot */
#pragma omp parallel for schedule(static) reduction(min : first) if (A->nnz > 100000)
  for (int64_t q = 0; q < A->nnz; q++)
    if (vm->code[q] < 0 && q < first) first = q;
  VMAP_CHECK(err, first == A->nnz, EM_ERR_INTERNAL, fail,
             "em_blockop_refill_values: entry %lld of the matrix has no slot", (long long)first);
  vm->pattern = em_spmat_pattern_hash(A);
  if (!em_fmt_backend_of(op->opts.backend)->host) {
#ifdef EM_HAVE_CUDA
    uint32_t *c32 = NULL;
    if (vm->shift == 27) { /* 4 bytes per entry on the GPU, unsigned: the 18
                              segments' numbers need 5 bits above the 27 */
      EM_TRY_GOTO(err, em_calloc(&c32, (size_t)A->nnz + 1, sizeof *c32, "operator value map"),
                  fail);
#pragma omp parallel for schedule(static) if (A->nnz > 100000)
      for (int64_t q = 0; q < A->nnz; q++) c32[q] = (uint32_t)vm->code[q];
    }
    size_t bytes = (size_t)A->nnz * (c32 ? sizeof *c32 : sizeof *vm->code);
    err = em_dev_alloc(&vm->dcode, c32 ? (void *)c32 : (void *)vm->code, bytes, NULL,
                       "operator value map");
    em_free(&c32);
    if (err) goto fail;
    em_free(&vm->code);
#endif
  }
  op->vmap = vm;
  return EM_OK;
fail:
  op->vmap = vm;
  em_blockop_vmap_free(op);
  return err;
}

void em_blockop_values_copy(em_cplx *dst, const em_cplx *src, int64_t n) {
  int64_t nb = (n + 65535) / 65536; /* blocks of 1 MiB */
#pragma omp parallel for schedule(static) if (nb > 4)
  for (int64_t b = 0; b < nb; b++) {
    int64_t k = b * 65536, m = n - k < 65536 ? n - k : 65536;
    memcpy(dst + k, src + k, (size_t)m * sizeof *dst);
  }
}

/* CPU: every value of A to its slot, in the operator's precision. */
static void values_host(const em_blockop_vmap *vm, em_prec p, const em_cplx *v) {
  int64_t mask = ((int64_t)1 << vm->shift) - 1;
  if (p == EM_PREC_DOUBLE) {
#pragma omp parallel for schedule(static) if (vm->nnz > 100000)
    for (int64_t q = 0; q < vm->nnz; q++)
      ((em_cplx *)vm->seg[vm->code[q] >> vm->shift])[vm->code[q] & mask] = v[q];
  } else {
#pragma omp parallel for schedule(static) if (vm->nnz > 100000)
    for (int64_t q = 0; q < vm->nnz; q++)
      ((em_cplxf *)vm->seg[vm->code[q] >> vm->shift])[vm->code[q] & mask] = (em_cplxf)v[q];
  }
}

em_err em_blockop_values_map(em_blockop *op, const em_csr *A) {
  EM_CHECK(op && A && A->rowptr, EM_ERR_ARG, "em_blockop_values_map: NULL argument");
  EM_CHECK(A->n_rows == op->offset[op->nb] && A->n_cols == A->n_rows, EM_ERR_ARG,
           "em_blockop_values_map: a %d x %d matrix, the operator was built for %d rows", A->n_rows,
           A->n_cols, op->offset[op->nb]);
  if (op->vmap) return EM_OK;
  return vmap_build(op, A);
}

em_err em_blockop_refill_values(em_blockop *op, const em_csr *A) {
  EM_CHECK(op && A, EM_ERR_ARG, "em_blockop_refill_values: NULL argument");
  EM_CHECK(A->n_rows == op->offset[op->nb] && A->n_cols == A->n_rows, EM_ERR_ARG,
           "em_blockop_refill_values: a %d x %d matrix, the operator was built for %d rows",
           A->n_rows, A->n_cols, op->offset[op->nb]);
  EM_CHECK(A->rowptr && (A->nnz == 0 || (A->colind && A->val)), EM_ERR_ARG,
           "em_blockop_refill_values: the %d x %d matrix has no arrays", A->n_rows, A->n_cols);
  if (!op->vmap) {
    EM_TRY(vmap_build(op, A));
  } else {
    const em_blockop_vmap *vm = op->vmap;
    EM_CHECK(A->nnz == vm->nnz && em_spmat_pattern_hash(A) == vm->pattern, EM_ERR_ARG,
             "em_blockop_refill_values: the %d x %d matrix has %lld entries in another pattern "
             "than the %lld the operator's values were mapped from; a new pattern needs a new "
             "operator",
             A->n_rows, A->n_cols, (long long)A->nnz, (long long)vm->nnz);
  }
  if (A->nnz == 0) return EM_OK;
  if (em_fmt_backend_of(op->opts.backend)->host) {
    values_host(op->vmap, op->opts.prec, A->val);
    return EM_OK;
  }
#ifdef EM_HAVE_CUDA
  return em_blockop_values_cuda(op->vmap, op->opts.prec, A->val);
#else
  return EM_RAISE(EM_ERR_INTERNAL, "em_blockop_refill_values: a device operator without CUDA");
#endif
}
