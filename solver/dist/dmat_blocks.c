/* dmat_blocks.c - a rank's share of the distributed operator straight from
 * its assembled order blocks (issue 27): no intermediate copies of the
 * rows (one CSR of them, its owned part, the unsorted blocks).  Three
 * passes over the assembled entries:
 *
 *   1. count, per local row, the owned entries of each block column and the
 *      ghost ones, marking the ghosts (in parallel);
 *   2. the local blocks' row pointers from the counts, in the given order:
 *      the row lengths em_blockop_plan_perm sorts by (it reads no column
 *      or value), so the permutation is that of the old route (the owned
 *      columns' CSR, its blocks, planned, permuted);
 *   3. every new row filled from its old row (rows in parallel), the local
 *      columns renumbered by the permutation and sorted by the key
 *      (new column << 32 | position) as em_csr_permute sorts, the ghost
 *      columns sorted by insertion as the old split did.
 *
 * The result is the old route's bit for bit (test_dsolve compares them). */
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "dmat_impl.h"

/* the entries' counts (pass 1): cd[i * nb + h] owned in block column h,
 * co[i] ghosts, of local row i; mark[j] = 1 for each ghost j */
static void count_rows(const em_dmat *M, const em_blockmat *A, const int32_t *goff,
                       const int32_t *g2l, int32_t *cd, int32_t *co, uint8_t *mark) {
  int nb = M->nb;
  for (int g = 0; g < nb; g++) {
    int32_t rows = M->offset[g + 1] - M->offset[g], i0 = M->offset[g];
#pragma omp parallel for schedule(dynamic, 4096) if (rows > 20000)
    for (int32_t r = 0; r < rows; r++) {
      int32_t ng = 0;
      for (int h = 0; h < nb; h++) {
        const em_csr *B = A->blk[g][h];
        int32_t nd = 0;
        for (int64_t q = B->rowptr[r]; q < B->rowptr[r + 1]; q++) {
          int32_t j = goff[h] + B->colind[q];
          if (g2l[j] >= 0) {
            nd++;
          } else {
            ng++;
            em_dmat_mark(mark, j);
          }
        }
        cd[(size_t)(i0 + r) * nb + h] = nd;
      }
      co[i0 + r] = ng;
    }
  }
}

/* the local blocks' and O's row pointers, row ni of the new order being
 * old row inv[ni] (inv = NULL: the given order) */
static void set_rowptrs(const em_dmat *M, em_blockmat *D, em_csr *O, const int32_t *cd,
                        const int32_t *co, const int32_t *inv) {
  int nb = M->nb;
  for (int g = 0; g < nb; g++) {
    int32_t i0 = M->offset[g], rows = M->offset[g + 1] - i0;
    for (int h = 0; h < nb; h++) {
      int64_t *rp = D->blk[g][h]->rowptr;
      for (int32_t r = 0; r < rows; r++)
        rp[r + 1] = rp[r] + cd[(size_t)(inv ? inv[i0 + r] : i0 + r) * nb + h];
    }
  }
  if (O)
    for (int32_t i = 0; i < M->n_own; i++) O->rowptr[i + 1] = O->rowptr[i] + co[inv[i]];
}

/* pass 3: new row ni of group g from old row inv[ni]; key: a thread's
 * buffer of the longest row, src the entries' positions in A */
static void fill_row(const em_dmat *M, const em_blockmat *A, const int32_t *goff,
                     const int32_t *g2l, const int32_t *gidx, const int32_t *perm,
                     const int32_t *inv, em_blockmat *D, em_csr *O, int g, int32_t ni,
                     uint64_t *key, int64_t *src) {
  int nb = M->nb;
  int32_t i0 = M->offset[g], r = inv[ni] - i0;
  int64_t po = O ? O->rowptr[ni] : 0, o0 = po;
  for (int h = 0; h < nb; h++) {
    const em_csr *B = A->blk[g][h];
    em_csr *C = D->blk[g][h];
    int64_t n = 0;
    for (int64_t q = B->rowptr[r]; q < B->rowptr[r + 1]; q++) {
      int32_t j = goff[h] + B->colind[q], l = g2l[j];
      if (l >= 0) {
        key[n] = (uint64_t)(perm[l] - M->offset[h]) << 32 | (uint64_t)n;
        src[n++] = q;
      } else {
        O->colind[po] = gidx[j];
        O->val[po++] = B->val[q];
      }
    }
    int sorted = 1;
    for (int64_t k = 1; k < n && sorted; k++) sorted = key[k - 1] < key[k];
    if (!sorted) em_sort_u64(key, n);
    int64_t p = C->rowptr[ni - i0];
    for (int64_t k = 0; k < n; k++) {
      C->colind[p + k] = (int32_t)(key[k] >> 32);
      C->val[p + k] = B->val[src[key[k] & 0xffffffffu]];
    }
  }
  if (O) em_dmat_sort_row(O->colind, O->val, o0, po); /* as the old split */
}

/* pass 3 over all rows, each thread with its own key buffers */
static em_err fill_rows(const em_dmat *M, const em_blockmat *A, const int32_t *goff,
                        const int32_t *g2l, const int32_t *gidx, const int32_t *perm,
                        const int32_t *inv, const int32_t *cd, em_blockmat *D, em_csr *O) {
  int nt = 1;
#ifdef _OPENMP
  nt = omp_get_max_threads();
#endif
  int64_t longest = 0;
  for (int64_t k = 0; k < (int64_t)M->n_own * M->nb; k++)
    if (cd[k] > longest) longest = cd[k];
  uint64_t *key = NULL;
  int64_t *src = NULL;
  size_t per = (size_t)longest + 1;
  EM_TRY(em_calloc(&key, (size_t)nt * per, sizeof *key, "row sort keys"));
  em_err err = em_calloc(&src, (size_t)nt * per, sizeof *src, "row sort sources");
  if (err) {
    em_free(&key);
    return err;
  }
  for (int g = 0; g < M->nb; g++) {
    int32_t i0 = M->offset[g], i1 = M->offset[g + 1];
#pragma omp parallel if (i1 - i0 > 20000)
    {
      int t = 0;
#ifdef _OPENMP
      t = omp_get_thread_num();
#endif
#pragma omp for schedule(dynamic, 1024)
      for (int32_t ni = i0; ni < i1; ni++)
        fill_row(M, A, goff, g2l, gidx, perm, inv, D, O, g, ni, key + (size_t)t * per,
                 src + (size_t)t * per);
    }
  }
  em_free(&key);
  em_free(&src);
  return EM_OK;
}

/* D's blocks (row pointers in the given order, columns and values to
 * come) and O */
static em_err make_shells(const em_dmat *M, const int32_t *cd, const int32_t *co,
                          em_blockmat **Dout, em_csr **O) {
  int nb = M->nb;
  em_blockmat *D = NULL;
  EM_TRY(em_calloc(&D, 1, sizeof *D, "local part"));
  D->nb = nb;
  memcpy(D->offset, M->offset, sizeof D->offset);
  em_err err = EM_OK;
  for (int g = 0; g < nb; g++)
    for (int h = 0; h < nb; h++) {
      int64_t nnz = 0;
      for (int32_t i = M->offset[g]; i < M->offset[g + 1]; i++) nnz += cd[(size_t)i * nb + h];
      EM_TRY_GOTO(err,
                  em_csr_create(M->offset[g + 1] - M->offset[g], M->offset[h + 1] - M->offset[h],
                                nnz, &D->blk[g][h]),
                  fail);
    }
  int64_t no = 0;
  for (int32_t i = 0; i < M->n_own; i++) no += co[i];
  EM_TRY_GOTO(err, em_csr_create(M->n_own, M->n_ghost, no, O), fail);
  set_rowptrs(M, D, NULL, cd, co, NULL);
  *Dout = D;
  return EM_OK;
fail:
  em_blockmat_destroy(&D);
  return err;
}

/* the assembled blocks fit this rank's rows and the global groups */
static em_err check_blocks(const em_dmat *M, const em_blockmat *A, const int32_t *goff) {
  EM_CHECK(A->nb == M->nb, EM_ERR_ARG, "em_dmat_create: %d assembled order groups, not %d", A->nb,
           M->nb);
  for (int g = 0; g < M->nb; g++)
    for (int h = 0; h < M->nb; h++) {
      const em_csr *B = A->blk[g][h];
      EM_CHECK(
          B && B->n_rows == M->offset[g + 1] - M->offset[g] && B->n_cols == goff[h + 1] - goff[h],
          EM_ERR_ARG,
          "em_dmat_create: assembled block A_%d%d is not this rank's %d rows x the %d "
          "unknowns of group %d",
          g + 1, h + 1, M->offset[g + 1] - M->offset[g], goff[h + 1] - goff[h], h + 1);
    }
  return EM_OK;
}

em_err em_dmat_split_blocks(em_dmat *M, em_blockmat **Ag, const int32_t *goff, const int32_t *owner,
                            const int32_t *g2l, const em_blockop_opts *bop, em_csr **O,
                            int32_t **send) {
  const em_blockmat *A = *Ag;
  EM_TRY(check_blocks(M, A, goff));
  int32_t *cd = NULL, *co = NULL, *gidx = NULL, *perm = NULL, *inv = NULL, *l2g = NULL;
  uint8_t *mark = NULL;
  em_dmat_ghost *gl = NULL;
  em_blockmat *D = NULL;
  em_err err = EM_OK;
  double t = em_wtime();
  size_t n = (size_t)M->n_own + 1;
  EM_TRY_GOTO(err, em_calloc(&cd, n * (size_t)M->nb, sizeof *cd, "row counts"), done);
  EM_TRY_GOTO(err, em_calloc(&co, n, sizeof *co, "row counts"), done);
  EM_TRY_GOTO(err, em_calloc(&mark, (size_t)M->n_glob + 1, 1, "ghost marks"), done);
  EM_TRY_GOTO(err, em_calloc(&gidx, (size_t)M->n_glob + 1, sizeof *gidx, "ghost map"), done);
  count_rows(M, A, goff, g2l, cd, co, mark);
  EM_TRY_GOTO(err, em_dmat_ghosts(M, mark, owner, gidx, &gl), done);
  em_free(&mark);
  EM_TRY_GOTO(err, em_calloc(&M->ghost_gid, (size_t)M->n_ghost + 1, sizeof *M->ghost_gid, "ghosts"),
              done);
  for (int32_t k = 0; k < M->n_ghost; k++) M->ghost_gid[k] = gl[k].id;
  EM_TRY_GOTO(err, em_dmat_exchange(M, gl, g2l, send), done);
  M->t_build[0] = em_wtime() - t, t = em_wtime();
  EM_TRY_GOTO(err, make_shells(M, cd, co, &D, O), done);
  EM_TRY_GOTO(err, em_calloc(&perm, n, sizeof *perm, "local order"), done);
  EM_TRY_GOTO(err, em_calloc(&inv, n, sizeof *inv, "local order"), done);
  EM_TRY_GOTO(err, em_calloc(&l2g, n, sizeof *l2g, "local unknowns"), done);
  EM_TRY_GOTO(err, em_blockop_plan_perm(D, bop, perm), done);
  for (int32_t i = 0; i < M->n_own; i++) inv[perm[i]] = i;
  set_rowptrs(M, D, *O, cd, co, inv);
  EM_TRY_GOTO(err, fill_rows(M, A, goff, g2l, gidx, perm, inv, cd, D, *O), done);
  em_blockmat_destroy(Ag);
  for (int32_t i = 0; i < M->n_own; i++) l2g[perm[i]] = M->l2g[i];
  for (int32_t k = 0; k < M->n_send; k++) (*send)[k] = perm[(*send)[k]];
  em_free(&M->l2g);
  M->l2g = l2g, l2g = NULL;
  M->D = D, D = NULL;
  M->t_build[1] = em_wtime() - t;
done:
  em_blockmat_destroy(&D);
  em_free(&cd);
  em_free(&co);
  em_free(&mark);
  em_free(&gidx);
  em_free(&gl);
  em_free(&perm);
  em_free(&inv);
  em_free(&l2g);
  return err;
}
