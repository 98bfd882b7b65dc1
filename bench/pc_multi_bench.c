/* pc_multi_bench.c - a preconditioner's block apply of N columns
 * (em_pc_apply_multi, what em_ksp_solve_multi calls) against N single
 * applies (em_pc_apply), issue 28: the direct factor's N-column solve,
 * pmg's V-cycle on N columns (residuals from the nine-block operator as
 * emsolve builds it), ILU(0); N = 1, 2, 4, 8, 16, on the CPU and, when one
 * answers, the GPU.  Every block column is checked against its single
 * apply first (CPU: bit for bit; GPU: 1e-12).  Table on stdout (median ms
 * of N singles, of one block apply, per column, and the gain), pc_multi.md
 * and pc_multi.json under --out.
 *
 *   pc_multi_bench [--matrix FILE | --fem-box N --order P] [--pc direct,pmg,ilu0]
 *                  [--device cpu|gpu|both] [--prec double|mixed] [--reps R] [--out DIR]
 *
 * FILE: a system written by emsolve --dump-matrix; without one the SPD FEM
 * box of seed 000 (em_fem_spd_box, order P, default 12 cells of order 2).
 * --prec mixed: the factors (direct, pmg's coarse one) in complex single on
 * the GPU, as Solver/precision mixed.
 *
 *   [--ns 1,4,8] [--variants old,il,own,st,all] [--profile]
 *
 * --ns: the column counts measured (of 1, 2, 4, 8, 16).  --variants: the
 * GPU direct solves' variants (em_direct_gsolve) tried in turn on the same
 * factor (the direct pc's, pmg's coarse one): "old" none, "il" interleaved
 * y, "own" own kernels for the big supernodes' products ("ownb": the
 * backward one only, with several columns), "st" their
 * streams, "inv" their triangles by GEMM with the stored inverse of L11
 * (trinv; built at the variant's first solve, in its warm-up), "t256" the
 * level kernels on 256 threads per block (any multiple of 32), "tlev" on
 * 512 for the levels of few supernodes (level_threads -1), "cst" the
 * wide triangles' columns on streams of their own (col_streams), "inv2"
 * trinv with several columns only, "imax2048" trinv up to 2048 columns
 * (trinv_max), "town" / "town2" the inverse's product by the own kernel
 * (trinv_own), "il2" / "own2" interleave / own kernels with several
 * columns only, "default" a run's (em_direct_opts_default), joined by
 * '+' ("il+own"), "all" il+own+st (the default variants list); the names
 * are em_direct_gsolve_parse's, which EMSOLVE_GSOLVE takes too.
 * --profile: then, for each variant and N, the block applies again with
 * the solves' CUDA-event profile on: where the time of one solve goes
 * (em_direct_gprofile), the schedule's shape, the costliest levels; for pmg
 * (CPU too) also its V-cycle's profile (em_pc_pmg_profile): ms and steps
 * per cycle of each part (zero, the levels' residual products, gathers,
 * smoothers, scatters, the coarse set's product, gather, solve, scatter)
 * and of each level.
 *
 *   [--spmm il,cols]
 *
 * --spmm (GPU, pmg): its residual products through the block operator with
 * x interleaved ("il", an option: em_blockop_opts.interleave) and/or
 * from the k columns ("cols", as before), each a row of its own on the
 * same preconditioner (em_blockop_set_interleave). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef EM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "bench_util.h"
#include "em_formats.h"
#include "em_solver.h"
#include "fem_spd.h"

#define NMAX 16
static const int NS[] = {1, 2, 4, 8, 16};
#define N_NS ((int)(sizeof NS / sizeof NS[0]))

typedef struct row {
  char name[64];
  const char *dev;
  double setup_s;
  double ms_single[N_NS], ms_block[N_NS]; /* median, N columns */
  double ms_first[N_NS];                  /* the block's warm-up apply */
  double diff;                            /* max relative block - single */
} row;

static em_err sync_be(em_backend be) {
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) EM_CUDA(cudaDeviceSynchronize());
#else
  (void)be;
#endif
  return EM_OK;
}

static em_err alloc_be(em_backend be, size_t bytes, const void *h, void **p) {
  (void)be; /* a build without CUDA has only the host */
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) return em_dev_alloc(p, h, bytes, NULL, "bench vectors");
#endif
  EM_TRY(em_calloc(p, bytes, 1, "bench vectors"));
  if (h) memcpy(*p, h, bytes);
  return EM_OK;
}

static void free_be(em_backend be, void **p) {
  (void)be;
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) {
    em_dev_free(p);
    return;
  }
#endif
  em_free(p);
}

static em_err download(em_backend be, void *h, const void *d, size_t bytes) {
  (void)be;
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) {
    EM_CUDA(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
    return EM_OK;
  }
#endif
  memcpy(h, d, bytes);
  return EM_OK;
}

/* Median ms of N columns (block 0: N applies; 1: one block apply). */
static em_err time_it(em_pc *pc, em_backend be, int32_t n, void *R, void *Z, int N, int block,
                      int reps, double *ms, double *first) {
  size_t col = (size_t)n * sizeof(em_cplx);
  const void *r[NMAX];
  void *z[NMAX];
  for (int j = 0; j < N; j++) r[j] = (char *)R + j * col, z[j] = (char *)Z + j * col;
  double t[64];
  for (int k = -1; k < reps; k++) { /* one warm-up (the block buffers) */
    EM_TRY(sync_be(be));
    double t0 = em_wtime();
    if (block)
      EM_TRY(em_pc_apply_multi(pc, EM_PREC_DOUBLE, N, r, z));
    else
      for (int j = 0; j < N; j++) EM_TRY(em_pc_apply(pc, r[j], z[j]));
    EM_TRY(sync_be(be));
    if (k >= 0) t[k] = (em_wtime() - t0) * 1e3;
    if (k < 0 && first) *first = (em_wtime() - t0) * 1e3; /* e.g. trinv's inverses built */
  }
  *ms = bench_median(t, reps);
  return EM_OK;
}

/* Every N for pc: timings, then the block columns against the singles. */
static em_err measure(em_pc *pc, em_backend be, int32_t n, const em_cplx *xh, int reps,
                      const int *use, row *out) {
  size_t all = (size_t)n * NMAX * sizeof(em_cplx);
  em_err err = EM_OK;
  void *R = NULL, *Z1 = NULL, *Z2 = NULL;
  em_cplx *h1 = NULL, *h2 = NULL;
  EM_TRY_GOTO(err, alloc_be(be, all, xh, &R), done);
  EM_TRY_GOTO(err, alloc_be(be, all, NULL, &Z1), done);
  EM_TRY_GOTO(err, alloc_be(be, all, NULL, &Z2), done);
  for (int k = 0; k < N_NS; k++) {
    if (!use[k]) continue;
    EM_TRY_GOTO(err, time_it(pc, be, n, R, Z1, NS[k], 0, reps, &out->ms_single[k], NULL), done);
    EM_TRY_GOTO(
        err, time_it(pc, be, n, R, Z2, NS[k], 1, reps, &out->ms_block[k], &out->ms_first[k]), done);
  }
  EM_TRY_GOTO(err, em_calloc(&h1, (size_t)n * NMAX + 1, sizeof *h1, "check"), done);
  EM_TRY_GOTO(err, em_calloc(&h2, (size_t)n * NMAX + 1, sizeof *h2, "check"), done);
  EM_TRY_GOTO(err, download(be, h1, Z1, all), done);
  EM_TRY_GOTO(err, download(be, h2, Z2, all), done);
  double e = 0, s = 0;
  int nmax = 0; /* the columns the largest N wrote */
  for (int k = 0; k < N_NS; k++)
    if (use[k]) nmax = NS[k];
  for (size_t q = 0; q < (size_t)n * nmax; q++) {
    e = fmax(e, cabs(h1[q] - h2[q]));
    s = fmax(s, cabs(h1[q]));
  }
  out->diff = s > 0 ? e / s : e;
done:
  em_free(&h1);
  em_free(&h2);
  free_be(be, &R);
  free_be(be, &Z1);
  free_be(be, &Z2);
  return err;
}

static void print_row(const row *r, const int *use) {
  printf("%-34s %-4s %6.2f", r->name, r->dev, r->setup_s);
  for (int k = 0; k < N_NS; k++)
    if (use[k])
      printf(" | N=%d %9.2f %9.2f %8.3f %5.2fx (first %.1f)", NS[k], r->ms_single[k],
             r->ms_block[k], r->ms_block[k] / NS[k], r->ms_single[k] / r->ms_block[k],
             r->ms_first[k]);
  printf(" | %.1e\n", r->diff);
  fflush(stdout);
}

static void write_out(const char *dir, const char *src, int32_t n, const row *rows, int nr,
                      const int *use) {
  char path[1024];
  snprintf(path, sizeof path, "%s/pc_multi.md", dir);
  FILE *f = fopen(path, "w");
  if (f) {
    fprintf(f,
            "# Block preconditioner applies vs N single applies\n\n%s: %d unknowns. Median ms "
            "of N columns: N single applies, one block apply, the block's ms per column, the "
            "gain.\n\n| pc | device | setup s |",
            src, n);
    for (int k = 0; k < N_NS; k++)
      if (use[k]) fprintf(f, " N=%d singles | block | per column | gain |", NS[k]);
    fprintf(f, " block vs singles |\n|---|---|---|");
    for (int k = 0; k < N_NS; k++)
      if (use[k]) fprintf(f, "---|---|---|---|");
    fprintf(f, "---|\n");
    for (int i = 0; i < nr; i++) {
      fprintf(f, "| %s | %s | %.2f |", rows[i].name, rows[i].dev, rows[i].setup_s);
      for (int k = 0; k < N_NS; k++)
        if (use[k])
          fprintf(f, " %.2f | %.2f | %.3f | %.2fx |", rows[i].ms_single[k], rows[i].ms_block[k],
                  rows[i].ms_block[k] / NS[k], rows[i].ms_single[k] / rows[i].ms_block[k]);
      fprintf(f, " %.1e |\n", rows[i].diff);
    }
    fclose(f);
  }
  snprintf(path, sizeof path, "%s/pc_multi.json", dir);
  f = fopen(path, "w");
  if (!f) return;
  fprintf(f, "{\n  \"source\": \"%s\",\n  \"unknowns\": %d,\n  \"results\": [\n", src, n);
  for (int i = 0; i < nr; i++) {
    fprintf(f, "    {\"pc\": \"%s\", \"device\": \"%s\", \"setup_s\": %.6g, \"diff\": %.3g",
            rows[i].name, rows[i].dev, rows[i].setup_s, rows[i].diff);
    for (int k = 0; k < N_NS; k++)
      if (use[k])
        fprintf(f, ", \"N%d\": {\"singles_ms\": %.6g, \"block_ms\": %.6g}", NS[k],
                rows[i].ms_single[k], rows[i].ms_block[k]);
    fprintf(f, "}%s\n", i + 1 < nr ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  fclose(f);
}

/* Where one block apply's direct solves spend their time, per solve: the
 * parts (ms, launches), the gaps, the schedule, the costliest levels. */
static void print_profile(const char *name, int N, const em_direct_gprofile *p) {
  double ns = p->solves > 0 ? (double)p->solves : 1, sum = 0;
  printf(
      "  profile %s, N = %d: %lld solves of %.0f columns, per solve %.3f ms (first to last "
      "event)\n   ",
      name, N, (long long)p->solves, (double)p->columns / ns, p->total_ms / ns);
  for (int q = 0; q < EM_DGP_PARTS; q++) {
    sum += p->ms[q];
    if (p->launches[q])
      printf(" %s %.3f (%.0f)", em_direct_gprofile_part((em_dgp_part)q), p->ms[q] / ns,
             (double)p->launches[q] / ns);
  }
  printf("\n    parts %.3f ms, gaps %.3f ms (total - parts; negative: concurrent parts)\n",
         sum / ns, (p->total_ms - sum) / ns);
  printf(
      "    %d levels (%d with level kernels); %d supernodes by level kernels (%.1f MB of L), "
      "%d big (%.1f MB); widest k x nb:",
      p->levels, p->level_launches, p->small, p->small_mb, p->big, p->big_mb);
  for (int w = 0; w < p->nwide; w++) printf(" %dx%d", p->wide_k[w], p->wide_nb[w]);
  printf(
      "\n    costliest levels (level: small supernodes, max k, max nb: fwd + bwd ms per solve):");
  for (int t = 0; t < p->ntop; t++)
    printf(" %d: %d, %d, %d: %.3f + %.3f;", p->top[t].level, p->top[t].count, p->top[t].kmax,
           p->top[t].nbmax, p->top[t].fwd_ms / ns, p->top[t].bwd_ms / ns);
  printf("\n");
  fflush(stdout);
}

/* The block applies of N columns again with the profile on. */
static em_err profile_block(em_pc *pc, em_direct *F, em_direct_gsolve g, em_backend be, int32_t n,
                            const em_cplx *xh, int N, int reps, const char *name) {
  size_t all = (size_t)n * NMAX * sizeof(em_cplx);
  em_err err = EM_OK;
  void *R = NULL, *Z = NULL;
  double ms = 0;
  EM_TRY_GOTO(err, alloc_be(be, all, xh, &R), done);
  EM_TRY_GOTO(err, alloc_be(be, all, NULL, &Z), done);
  g.profile = 1;
  em_direct_set_gsolve(F, &g);
  em_direct_gprofile_reset(F);
  EM_TRY_GOTO(err, time_it(pc, be, n, R, Z, N, 1, reps, &ms, NULL), done);
  em_direct_gprofile p;
  em_direct_gprofile_get(F, &p);
  print_profile(name, N, &p);
done:
  g.profile = 0;
  em_direct_set_gsolve(F, &g);
  free_be(be, &R);
  free_be(be, &Z);
  return err;
}

/* pmg's V-cycle profile (em_pc_pmg_profile) of the block applies of N
 * columns: per cycle, each part's ms and steps, each level's ms, and the
 * non-coarse rest (the cycle less the coarse solve). */
static em_err profile_pmg(em_pc *pc, em_backend be, int32_t n, const em_cplx *xh, int N, int reps,
                          const char *name) {
  size_t all = (size_t)n * NMAX * sizeof(em_cplx);
  em_err err = EM_OK;
  void *R = NULL, *Z = NULL;
  double ms = 0;
  EM_TRY_GOTO(err, alloc_be(be, all, xh, &R), done);
  EM_TRY_GOTO(err, alloc_be(be, all, NULL, &Z), done);
  em_pc_pmg_profile_reset(pc);
  EM_TRY_GOTO(err, time_it(pc, be, n, R, Z, N, 1, reps, &ms, NULL), done);
  em_pmg_profile p;
  EM_TRY_GOTO(err, em_pc_pmg_profile(pc, &p), done);
  double c = p.cycles > 0 ? (double)p.cycles : 1;
  printf(
      "  pmg profile %s, N = %d: %lld cycles of %.0f columns, per cycle %.3f ms (stamps), "
      "%.3f ms without the coarse solve\n   ",
      name, N, (long long)p.cycles, (double)p.columns / c, p.total_ms / c,
      (p.total_ms - p.ms[EM_PMG_CSOLVE]) / c);
  for (int q = 0; q < EM_PMG_PARTS; q++)
    if (p.steps[q])
      printf(" %s %.3f (%.0f)", em_pmg_part_name((em_pmg_part)q), p.ms[q] / c,
             (double)p.steps[q] / c);
  printf("\n    levels (rows: ms per cycle):");
  for (int l = 0; l < p.nlev; l++) printf(" %d: %.3f", p.level_rows[l], p.level_ms[l] / c);
  printf("\n");
  fflush(stdout);
done:
  free_be(be, &R);
  free_be(be, &Z);
  return err;
}

/* The preconditioner `name` of A (numbering of the operator op) on be. */
static em_err make_pc(const char *name, const em_csr *A, const em_blockmat *B,
                      const em_operator *op, em_backend be, int mixed, em_pc **pc) {
  em_pc_opts po;
  em_pc_opts_default(&po);
  po.backend = be;
  po.prec = mixed && be == EM_BACKEND_CUDA ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
  if (!strcmp(name, "direct")) {
    po.type = EM_PC_DIRECT;
    po.ordering = EM_ORDERING_ND;
  } else if (!strcmp(name, "ilu0")) {
    po.type = EM_PC_ILU0;
    po.ordering = EM_ORDERING_RCM;
    po.prec = EM_PREC_DOUBLE;
  } else if (!strcmp(name, "pmg")) { /* as emsolve: block smoother, 2 sweeps */
    po.type = EM_PC_PMG;
    po.ordering = EM_ORDERING_ND;
    po.pmg.nb = B->nb;
    memcpy(po.pmg.offset, B->offset, sizeof po.pmg.offset);
    po.pmg.coarse = 1;
    po.pmg.smoother = EM_PMG_BLOCK;
    po.pmg.sweeps = 2;
    po.pmg.op = op;
  } else {
    return EM_RAISE(EM_ERR_INPUT, "pc_multi_bench: unknown preconditioner '%s'", name);
  }
  return em_pc_create(A, &po, NULL, pc);
}

int main(int argc, char **argv) {
  const char *file = NULL, *out = NULL, *pcs = "direct,pmg,ilu0", *device = "both";
  const char *ns_list = "1,2,4,8,16", *variants = "all", *spmm = "il";
  int box = 12, order = 2, reps = 5, mixed = 0, profile = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--matrix") && v)
      file = argv[++i];
    else if (!strcmp(a, "--fem-box") && v)
      box = atoi(argv[++i]);
    else if (!strcmp(a, "--order") && v)
      order = atoi(argv[++i]);
    else if (!strcmp(a, "--pc") && v)
      pcs = argv[++i];
    else if (!strcmp(a, "--device") && v)
      device = argv[++i];
    else if (!strcmp(a, "--prec") && v) {
      mixed = !strcmp(v, "mixed");
      i++;
    } else if (!strcmp(a, "--reps") && v)
      reps = atoi(argv[++i]);
    else if (!strcmp(a, "--out") && v)
      out = argv[++i];
    else if (!strcmp(a, "--ns") && v)
      ns_list = argv[++i];
    else if (!strcmp(a, "--variants") && v)
      variants = argv[++i];
    else if (!strcmp(a, "--profile"))
      profile = 1;
    else if (!strcmp(a, "--spmm") && v)
      spmm = argv[++i];
    else {
      fprintf(stderr,
              "usage: pc_multi_bench [--matrix FILE | --fem-box N --order P] [--pc "
              "direct,pmg,ilu0] [--device cpu|gpu|both] [--prec double|mixed] [--reps R (<= "
              "64)] [--out DIR] [--ns 1,4,8] [--variants old,il,own,st,il+own,all] "
              "[--profile] [--spmm il,cols]\n");
      return 2;
    }
  }
  if (reps < 1 || reps > 64) reps = 5;
  int use[N_NS] = {0};
  {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", ns_list);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      int k = 0;
      while (k < N_NS && NS[k] != atoi(t)) k++;
      if (k == N_NS) {
        fprintf(stderr, "pc_multi_bench: --ns %s: N is one of 1, 2, 4, 8, 16\n", t);
        return 2;
      }
      use[k] = 1;
    }
  }
  em_direct_gsolve vars[8];
  char vnames[8][32];
  int nv = 0;
  {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", variants);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t && nv < 8; t = strtok_r(NULL, ",", &save)) {
      if (em_direct_gsolve_parse(t, &vars[nv])) {
        fprintf(stderr,
                "pc_multi_bench: --variants: unknown variant '%s' (old, all, or il, own, "
                "st, inv joined by '+')\n",
                t);
        return 2;
      }
      snprintf(vnames[nv++], sizeof vnames[0], "%s", t);
    }
  }
  int sp_il[2], nsp = 0;
  {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", spmm);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t && nsp < 2; t = strtok_r(NULL, ",", &save)) {
      if (strcmp(t, "il") && strcmp(t, "cols")) {
        fprintf(stderr, "pc_multi_bench: --spmm: '%s' is neither il nor cols\n", t);
        return 2;
      }
      sp_il[nsp++] = !strcmp(t, "il");
    }
    if (!nsp) sp_il[nsp++] = 1;
  }
  em_blockmat *B0 = NULL, *B = NULL;
  em_csr *A = NULL;
  char src[300];
  em_err err;
  if (file) {
    int nr = 0;
    em_cplx *b = NULL;
    snprintf(src, sizeof src, "%s", file);
    err = em_matfile_read(file, &B0, &nr, &b);
    em_free(&b);
  } else {
    snprintf(src, sizeof src, "SPD FEM box %d, order %d", box, order);
    em_csr *As = NULL;
    err = em_fem_spd_box(box, order, 1.0, &As, &B0);
    em_csr_destroy(&As);
  }
  /* the operator's numbering: rows sorted within the groups as emsolve */
  em_blockop_opts bo;
  em_blockop_opts_default(&bo);
  int32_t n = err ? 0 : B0->offset[B0->nb], *perm = calloc((size_t)n + 1, sizeof *perm);
  if (!err) err = em_blockop_plan_perm(B0, &bo, perm);
  if (!err) err = em_blockmat_permute(B0, perm, &B);
  if (!err) err = em_blockmat_to_csr(B, &A);
  if (err) {
    em_error_print(stderr);
    return 1;
  }
  em_cplx *x = calloc((size_t)n * NMAX + 1, sizeof *x);
  unsigned long long s = 88172645463325252ULL;
  for (size_t q = 0; q < (size_t)n * NMAX; q++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x[q] = (double)(s % 2001) / 1000 - 1 + I * ((double)(s / 2001 % 2001) / 1000 - 1);
  }
  printf(
      "%s: %d unknowns, %d order groups; median of %d runs, ms per N columns "
      "(singles, block, block per column, gain)\n",
      src, n, B->nb, reps);
  row rows[64];
  int nr = 0, bad = 0;
  em_backend bes[2] = {EM_BACKEND_CPU, EM_BACKEND_CUDA};
  for (int bi = 0; bi < 2; bi++) {
    em_backend be = bes[bi];
    const char *dn = be == EM_BACKEND_CPU ? "cpu" : "gpu";
    if (strcmp(device, "both") && strcmp(device, dn)) continue;
    if (be == EM_BACKEND_CUDA) {
      em_device dev;
      if (!em_cuda_built() || em_device_open("gpu", NULL, &dev)) {
        printf("(no GPU: the GPU rows are skipped)\n");
        em_error_clear();
        break;
      }
    }
    bo.backend = be;
    em_blockop *bop = NULL;
    em_operator op;
    if (em_blockop_create(B, &bo, &bop) || em_blockop_operator(bop, &op)) {
      em_error_print(stderr);
      return 1;
    }
    char list[256];
    snprintf(list, sizeof list, "%s", pcs);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
      em_pc *pc = NULL;
      double t0 = em_wtime();
      err = make_pc(tok, A, B, &op, be, mixed, &pc);
      double setup = em_wtime() - t0;
      if (err) {
        fprintf(stderr, "%s on the %s: ", tok, dn);
        em_error_print(stderr);
        em_error_clear();
        continue;
      }
      /* the GPU factor's solve variants, each on the same factor */
      em_direct *F = be == EM_BACKEND_CUDA ? em_pc_direct_factor(pc) : NULL;
      em_direct_info fi;
      if (F) em_direct_get_info(F, &fi);
      if (F && (!fi.where || strcmp(fi.where, "gpu"))) F = NULL;
      int ab = be == EM_BACKEND_CUDA && !strcmp(tok, "pmg") ? nsp : 1;
      for (int vs = 0; vs < (F ? nv : 1) * ab && nr < 64; vs++) {
        int v = vs / ab, il = ab > 1 || be == EM_BACKEND_CUDA ? sp_il[vs % ab] : 1;
        em_blockop_set_interleave(bop, il);
        row *r = &rows[nr];
        memset(r, 0, sizeof *r);
        r->dev = dn;
        r->setup_s = setup;
        snprintf(r->name, sizeof r->name, "%s%s%s%s%s%s", tok,
                 mixed && be == EM_BACKEND_CUDA && strcmp(tok, "ilu0") ? " (single factor)" : "",
                 F ? " [" : "", F ? vnames[v] : "", F ? "]" : "",
                 ab > 1 ? (il ? " x il" : " x cols") : "");
        if (F) em_direct_set_gsolve(F, &vars[v]);
        err = measure(pc, be, n, x, reps, use, r);
        if (err) {
          fprintf(stderr, "%s on the %s: ", r->name, dn);
          em_error_print(stderr);
          em_error_clear();
          continue;
        }
        /* the single factor's wide supernodes solve in single arithmetic
           (cuBLAS TRSM), blocked by N: rounding of single, u = 6e-8, as
           test_pc_multi's bound there */
        double tol = mixed && F ? 2e-5 : 1e-12;
        int wrong = be == EM_BACKEND_CPU ? r->diff != 0 : !(r->diff < tol);
        bad |= wrong;
        print_row(r, use);
        if (wrong) printf("  ^ block columns differ from the single applies\n");
        nr++;
        for (int k = 0; F && profile && k < N_NS; k++)
          if (use[k] && (err = profile_block(pc, F, vars[v], be, n, x, NS[k], reps, r->name))) {
            em_error_print(stderr);
            em_error_clear();
          }
        for (int k = 0; profile && !strcmp(tok, "pmg") && k < N_NS; k++)
          if (use[k] && (err = profile_pmg(pc, be, n, x, NS[k], reps, r->name))) {
            em_error_print(stderr);
            em_error_clear();
          }
      }
      em_pc_destroy(&pc);
    }
    em_blockop_destroy(&bop);
  }
  if (out) write_out(out, src, n, rows, nr, use);
  free(x);
  free(perm);
  em_csr_destroy(&A);
  em_blockmat_destroy(&B);
  em_blockmat_destroy(&B0);
  return bad ? 1 : 0;
}
