/* spmat.c - the format-independent front end: check arguments, pick a
 * format and the backend's table, hand over to the format's builder and
 * the (format, backend) ops. */
#include <string.h>

#include "formats_impl.h"

/* "auto" (EM_FMT_AUTO = -1) first, then the formats in enum order */
static const char *const WORDS[EM_FMT_COUNT + 1] = {
    "auto", "csr", "csr-vector", "ell", "ellr", "ellr-t", "sellr-t", "hyb", "hec", "bitmap"};

const char *em_format_name(em_format f) {
  return em_name_of(WORDS, EM_FMT_COUNT + 1, (int)f + 1);
}

em_err em_format_parse(const char *s, em_format *f) {
  int i;
  EM_TRY(em_name_parse(WORDS, EM_FMT_COUNT + 1, s, "matrix format", &i));
  *f = (em_format)(i - 1);
  return EM_OK;
}

void em_spmat_opts_default(em_spmat_opts *o) {
  memset(o, 0, sizeof *o);
  o->format = EM_FMT_AUTO;
  o->backend = EM_BACKEND_CPU;
  o->prec = EM_PREC_DOUBLE;
  o->ell_width = -1;
}

/* The backends of this build: the one place that asks. */
const em_fmt_backend *em_fmt_backend_of(em_backend b) {
  if (b == EM_BACKEND_CPU) return &em_fmt_backend_cpu;
#ifdef EM_HAVE_CUDA
  if (b == EM_BACKEND_CUDA) return &em_fmt_backend_cuda;
#endif
  return NULL;
}

/* The builder of each format (format families share one). */
typedef em_err (*fmt_build)(const em_csr *A, const em_spmat_opts *o, em_spmat *M);
static const fmt_build BUILD[EM_FMT_COUNT] = {
    [EM_FMT_CSR] = em_fmt_csr_build,      [EM_FMT_CSR_VECTOR] = em_fmt_csr_build,
    [EM_FMT_ELL] = em_fmt_ellx_build,     [EM_FMT_ELLR] = em_fmt_ellx_build,
    [EM_FMT_ELLRT] = em_fmt_ellx_build,   [EM_FMT_SELLRT] = em_fmt_ellx_build,
    [EM_FMT_HYB] = em_fmt_hyb_build,      [EM_FMT_HEC] = em_fmt_hyb_build,
    [EM_FMT_BITMAP] = em_fmt_bitmap_build};

em_err em_spmat_create(const em_csr *A, const em_spmat_opts *o, em_spmat **Mout) {
  *Mout = NULL;
  EM_CHECK(A && o, EM_ERR_ARG, "em_spmat_create: NULL matrix or options");
  int T = o->threads_per_row;
  EM_CHECK(T == 0 || T == 1 || T == 2 || T == 4 || T == 8 || T == 16 || T == 32, EM_ERR_ARG,
           "threads per row %d not in 1, 2, 4, 8, 16, 32", T);
  EM_CHECK(o->format >= EM_FMT_AUTO && o->format < EM_FMT_COUNT, EM_ERR_ARG, "unknown format %d",
           (int)o->format);
  const em_fmt_backend *be = em_fmt_backend_of(o->backend);
  EM_CHECK(be, EM_ERR_UNSUPPORTED, "the CUDA backend was requested but this build has no CUDA");
  em_spmat_opts c = *o;
  if (c.format == EM_FMT_AUTO) em_fmt_choose(A, o, &c);
  EM_CHECK(be->ops[c.format] && BUILD[c.format], EM_ERR_UNSUPPORTED, "%s has no kernels on the %s",
           em_format_name(c.format), c.backend == EM_BACKEND_CPU ? "CPU" : "GPU");
  em_spmat *M = NULL;
  EM_TRY(em_calloc(&M, 1, sizeof *M, "sparse matrix"));
  M->info.format = c.format;
  M->info.backend = c.backend;
  M->info.prec = c.prec;
  M->info.n_rows = A->n_rows;
  M->info.n_cols = A->n_cols;
  M->info.nnz = A->nnz;
  M->be = be;
  M->ops = be->ops[c.format];
  em_err err = BUILD[c.format](A, &c, M);
  if (!err && M->ops->setup) err = M->ops->setup(M);
  if (!err) M->pattern = em_spmat_pattern_hash(A); /* what a refill must bring */
  if (err) {
    em_error_trace(err, __FILE__, __LINE__);
    M->ops->destroy(M);
    em_free(&M);
    return err;
  }
  *Mout = M;
  return EM_OK;
}

em_err em_spmat_spmv(const em_spmat *M, const void *x, void *y, int accumulate, void *stream) {
  EM_CHECK(M && (x || M->info.n_cols == 0) && (y || M->info.n_rows == 0), EM_ERR_ARG,
           "em_spmat_spmv: NULL argument");
  return M->ops->spmv(M, x, y, accumulate, stream);
}

void em_spmat_get_info(const em_spmat *M, em_spmat_info *info) {
  *info = M->info;
}

void em_spmat_destroy(em_spmat **M) {
  if (!*M) return;
  em_fmt_refill_free(*M);
  (*M)->ops->destroy(*M);
  em_free(M);
}

static em_err spmat_apply(void *ctx, const void *x, void *y) {
  return em_spmat_spmv((const em_spmat *)ctx, x, y, 0, NULL);
}

static em_err spmat_apply_multi(void *ctx, int k, const void *const *x, void *const *y) {
  return em_spmat_spmm((const em_spmat *)ctx, k, x, y, 0, NULL);
}

em_err em_spmat_operator(em_spmat *M, em_operator *op) {
  EM_CHECK(M->info.n_rows == M->info.n_cols, EM_ERR_ARG,
           "an operator needs a square matrix, not %d x %d", M->info.n_rows, M->info.n_cols);
  op->n = M->info.n_rows;
  op->backend = M->info.backend;
  op->prec = M->info.prec;
  op->ctx = M;
  op->apply = spmat_apply;
  op->apply_multi = spmat_apply_multi;
  op->dist = NULL;
  op->apply_rows = NULL;
  return EM_OK;
}
