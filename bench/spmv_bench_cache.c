/* spmv_bench_cache.c - seed 002's study (spmv_bench --study cache), in one
 * run beside cuSPARSE CSR and the copy bandwidth:
 *   1. sliced ELLR-T of the whole matrix, rows sorted, T = 1, 2, 4, 8,
 *      each under the L1 / shared carveouts: the driver's choice, 0 % shared
 *      (the most L1), 50 %, 100 % (em_spmat_cuda_carveout);
 *   2. the nine order blocks (block operator, streams) in sliced ELLR-T with
 *      T chosen per block from its row lengths (em_fmt_choose: the paper's
 *      2 / 4 / 8 by row length) against every block with one T, under the
 *      driver's carveout and 0 %.
 * Every variant is checked against the CPU reference before it is timed
 * (bench_run_variant).  The carveout is left at the driver's choice after. */
#include <stdio.h>
#include <string.h>

#include "spmv_bench.h"

static const int cache_pct[] = {-1, 0, 50, 100};

static const char *pct_name(int pct, char *b, size_t n) {
  if (pct < 0)
    snprintf(b, n, "drv");
  else
    snprintf(b, n, "%d%%", pct);
  return b;
}

/* The same carveout on every sliced ELLR-T kernel of a precision. */
static em_err carve_all(em_prec p, int pct) {
  for (int T = 1; T <= 32; T *= 2) EM_TRY(em_spmat_cuda_carveout(EM_FMT_SELLRT, p, T, pct));
  return EM_OK;
}

static void note_error(bench_out *out, const char *name, em_prec p) {
  bench_row *r = bench_add(out, name, p);
  if (r) snprintf(r->note, sizeof r->note, "%s", em_error_message());
  printf("  %-30s error: %s\n", name, em_error_message());
  em_error_clear();
}

/* Part 1: the whole matrix, rows sorted. */
static void whole(bench_ctx *c, bench_out *out, gpu_vecs *v) {
  for (int T = 1; T <= 8; T *= 2) {
    em_spmat_opts o;
    em_spmat_opts_default(&o);
    o.backend = EM_BACKEND_CUDA;
    o.prec = v->p;
    o.format = EM_FMT_SELLRT;
    o.threads_per_row = T;
    em_spmat *M = NULL;
    char name[96], pb[16];
    snprintf(name, sizeof name, "sellr-t T=%d sorted", T);
    if (em_spmat_create(c->As, &o, &M)) {
      note_error(out, name, v->p);
      continue;
    }
    em_spmat_info info;
    em_spmat_get_info(M, &info);
    order_ref ord = {v->x_s, c->y_ref_s, c->scale_s};
    for (size_t k = 0; k < sizeof cache_pct / sizeof *cache_pct; k++) {
      snprintf(name, sizeof name, "sellr-t T=%d sorted L1/sh %s", T,
               pct_name(cache_pct[k], pb, sizeof pb));
      if (em_spmat_cuda_carveout(EM_FMT_SELLRT, v->p, T, cache_pct[k])) {
        note_error(out, name, v->p);
        continue;
      }
      bench_run_variant(c, out, v, name, bench_spmat_run, M, &ord, info.bytes, info.stored, 0);
    }
    if (em_spmat_cuda_carveout(EM_FMT_SELLRT, v->p, T, -1)) em_error_clear();
    em_spmat_destroy(&M);
  }
}

/* Part 2: the nine blocks, T per block (T0 = 0) or one T for all. */
static void blocks(bench_ctx *c, bench_out *out, gpu_vecs *v, int T0) {
  int32_t n = c->A->n_rows;
  em_blockop_opts o;
  em_blockop_opts_default(&o);
  o.backend = EM_BACKEND_CUDA;
  o.prec = v->p;
  o.mode = EM_BLOCKOP_STREAMS;
  for (int i = 0; i < EM_MAX_ORDER; i++)
    for (int j = 0; j < EM_MAX_ORDER; j++) {
      o.format[i][j] = EM_FMT_SELLRT;
      o.threads_per_row[i][j] = T0;
    }
  int32_t *perm = NULL;
  em_blockop *op = NULL;
  void *dx = NULL;
  char name[40], pb[16], Ts[96] = "";
  if (T0)
    snprintf(name, sizeof name, "9 blocks sellr-t T=%d", T0);
  else
    snprintf(name, sizeof name, "9 blocks sellr-t T per block");
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&perm, (size_t)n + 1, sizeof *perm, "block permutation"), done);
  EM_TRY_GOTO(err, em_blockop_plan_perm(c->B, &o, perm), done);
  EM_TRY_GOTO(err, bench_blockop_order(c, perm), done);
  EM_TRY_GOTO(err, em_blockop_create(c->Bp, &o, &op), done);
  EM_TRY_GOTO(err, em_dev_upload_vals(&dx, c->x_b, (size_t)n, v->p, NULL, "x in the block order"),
              done);
  for (int i = 0; i < c->B->nb; i++) { /* the T each block got: "T 1 1 2 / ..." */
    size_t l = strlen(Ts);
    snprintf(Ts + l, sizeof Ts - l, "%s", i ? " /" : "T");
    for (int j = 0; j < c->B->nb; j++) {
      em_spmat_info bi;
      em_blockop_block_info(op, i, j, &bi);
      l = strlen(Ts);
      snprintf(Ts + l, sizeof Ts - l, " %d", bi.nnz ? bi.threads_per_row : 0);
    }
  }
  order_ref ord = {dx, c->y_ref_b, c->scale_b};
  for (int k = 0; k < 2; k++) { /* the driver's carveout and the most L1 */
    char nm[64];
    snprintf(nm, sizeof nm, "%s L1/sh %s", name, pct_name(cache_pct[k], pb, sizeof pb));
    if (carve_all(v->p, cache_pct[k])) {
      note_error(out, nm, v->p);
      continue;
    }
    bench_run_variant(c, out, v, nm, bench_blockop_run, op, &ord, em_blockop_bytes(op), 0, 1);
    if (out->n > 0 && !out->row[out->n - 1].note[0])
      snprintf(out->row[out->n - 1].note, sizeof out->row[out->n - 1].note, "%s", Ts);
  }
  if (carve_all(v->p, -1)) em_error_clear();
done:
  if (err) note_error(out, name, v->p);
  em_blockop_destroy(&op);
  em_dev_free(&dx);
  em_free(&perm);
}

void bench_cache(bench_ctx *c, bench_out *out, gpu_vecs *v) {
  whole(c, out, v);
  if (!c->B) {
    printf("  (no order blocks: the matrix came without groups; block rows skipped)\n");
    return;
  }
  blocks(c, out, v, 0);
  for (int T = 1; T <= 8; T *= 2) blocks(c, out, v, T);
}
