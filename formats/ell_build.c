/* ell_build.c - the builder of ELL, ELLR, ELLR-T and sliced ELLR-T: one
 * host layout (ell_layout.c), handed over to the backend array by array. */
#include "ell_impl.h"

void em_ellx_destroy(em_spmat *M) {
  em_ellx *E = (em_ellx *)M->data;
  if (!E) return;
  M->be->release(&E->slice_ptr);
  M->be->release(&E->rowlen);
  M->be->release(&E->col);
  M->be->release(&E->val);
  em_free(&M->data);
}

/* E = the host layout h with its arrays moved to M's backend (a NULL array
 * stays NULL: it means "one slice" or "no row lengths"); h is freed. */
static em_err ellx_place(em_spmat *M, em_ellx *h, em_cplx **val, em_ellx *E) {
  em_err err = EM_OK;
  if (h->slice_ptr)
    EM_TRY_GOTO(err,
                em_fmt_place(M, &h->slice_ptr, ((size_t)h->n_slices + 1) * sizeof *h->slice_ptr,
                             &E->slice_ptr, "slice offsets"),
                done);
  if (h->rowlen)
    EM_TRY_GOTO(err,
                em_fmt_place(M, &h->rowlen, (size_t)h->n_rows * sizeof *h->rowlen, &E->rowlen,
                             "row lengths"),
                done);
  EM_TRY_GOTO(err,
              em_fmt_place(M, &h->col, (size_t)h->stored * sizeof *h->col, &E->col, "column slots"),
              done);
  EM_TRY_GOTO(err, em_fmt_place_vals(M, val, (size_t)h->stored, &E->val, "value slots"), done);
done:
  em_ellx_free_host(h);
  em_free(val);
  return err;
}

em_err em_fmt_ellx_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  EM_CHECK(A->rowptr && (A->nnz == 0 || (A->colind && A->val)), EM_ERR_ARG,
           "%s build: matrix %d x %d without its arrays", em_format_name(o->format), A->n_rows,
           A->n_cols);
  EM_CHECK(o->slice_rows >= 0, EM_ERR_ARG, "sliced ELLR-T: slice_rows %d < 0", o->slice_rows);
  em_format kind = o->format;
  int T = 1, S = 0;
  if (kind == EM_FMT_ELLRT || kind == EM_FMT_SELLRT)
    T = o->threads_per_row ? o->threads_per_row : em_fmt_choose_threads(A, kind, o->backend);
  if (kind == EM_FMT_SELLRT) S = o->slice_rows ? o->slice_rows : EM_SELLRT_DEFAULT_S;
  em_ellx *E = NULL, h;
  em_cplx *val = NULL;
  EM_TRY(em_calloc(&E, 1, sizeof *E, "ELL-family format"));
  M->data = E;
  EM_TRY(em_ellx_layout(A, kind, T, S, &h, &val));
  M->info.stored = h.stored;
  M->info.bytes = em_ellx_bytes(&h, o->prec);
  M->info.threads_per_row = (kind == EM_FMT_ELLRT || kind == EM_FMT_SELLRT) ? T : 0;
  M->info.slice_rows = kind == EM_FMT_SELLRT ? S : 0;
  *E = h; /* the scalars; the arrays follow one by one */
  E->slice_ptr = NULL;
  E->rowlen = NULL;
  E->col = NULL;
  E->val = NULL;
  EM_TRY(ellx_place(M, &h, &val, E));
  return EM_OK;
}
