/* gf2_sparse_bench.c - issue 31, seed 003: GF(2) elimination on sparse
 * inputs, the boundary matrices of tet meshes of a box (em_mesh_box, n^3
 * cells of 6 tets), whose ranks are known from the topology of a ball:
 * rank d1 = V - 1, rank d2 = E - V + 1, rank d3 = T.
 *
 *   --mesh n (default 56: 1 053 696 tets): d1, d2, d3 ranked by the sparse
 *     column reduction (linalg/gf2_sparse.c, one core), time and fill;
 *   --study k[,k...] (default 8,10): the seed's thread-count / pivot-search
 *     study on d2 of the k^3 box stored dense (faces x edges bits, density
 *     3 / E < 1/1000) and on a dense random matrix of the same shape
 *     (density 1/2, the first k only): the CPU elimination (linalg/gf2.c) on 1, 2, 4, ...
 *     OpenMP threads; the GPU elimination with a pivot search of 1 thread
 *     (serial: rows read one after the other) and of 32 .. 1024 threads
 *     (parallel), and 64 / 256 / 1024 threads per elimination block.
 *
 * Every rank is checked against the topology (the random matrix: against
 * the CPU's), every GPU echelon form against the CPU's bit for bit; exit 1
 * on a difference.  Times: wall clock (CPU), CUDA events of the elimination
 * (GPU, the copies excluded); medians of 3 (study; the GPU's serial pivot
 * search one run), one run (mesh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_util.h"
#include "em_linalg.h"
#include "em_mesh.h"
#include "mesh_chains.h"

#define EMCK(call)            \
  do {                        \
    if (call) {               \
      em_error_print(stderr); \
      exit(2);                \
    }                         \
  } while (0)

static int failed = 0;

static void expect_rank(const char *what, int64_t got, int64_t want) {
  if (got != want) {
    fprintf(stderr, "WRONG RANK: %s: %lld, the topology says %lld\n", what, (long long)got,
            (long long)want);
    failed = 1;
  }
}

static void mesh_table(int n) {
  em_mesh *m = NULL;
  double t0 = em_wtime();
  EMCK(em_mesh_box(n, n, n, 1, 1, 1, 0, 1, &m));
  printf("\n## Boundary matrices of the %d^3 x 6 box: V %d, E %d, F %d, T %d (mesh %.1f s)\n\n", n,
         m->n_vert, m->n_edge, m->n_face, m->n_tet, em_wtime() - t0);
  printf(
      "| matrix | rows x columns | ones | density | rank | topology's rank | fill (ones "
      "kept) | sparse reduction s |\n|---|---|---|---|---|---|---|---|\n");
  const int64_t want[4] = {0, m->n_vert - 1, (int64_t)m->n_edge - m->n_vert + 1, m->n_tet};
  for (int k = 1; k <= 3; k++) {
    em_gf2_sp d;
    EMCK(em_mesh_chain(m, k, &d));
    int32_t r = 0;
    int64_t fill = 0;
    t0 = em_wtime();
    EMCK(em_gf2_sp_rank(&d, 0, &r, &fill));
    const double t = em_wtime() - t0;
    char what[16];
    snprintf(what, sizeof what, "d%d", k);
    expect_rank(what, r, want[k]);
    const int64_t ones = d.ptr[d.n_cols];
    printf("| d%d | %d x %d | %lld | %.2g | %d | %lld | %lld | %.3f |\n", k, d.n_rows, d.n_cols,
           (long long)ones, (double)ones / ((double)d.n_rows * d.n_cols), r, (long long)want[k],
           (long long)fill, t);
    fflush(stdout);
    em_mesh_chain_free(&d);
  }
  em_mesh_destroy(&m);
}

static double median3(double *v) {
  return bench_median(v, 3);
}

/* CPU echelon (plain) of A on nt threads: median wall s, rank, the form */
static double cpu_run(const em_gf2 *A, int nt, int32_t *rank, em_gf2 **form) {
  double t[3];
#ifdef _OPENMP
  omp_set_num_threads(nt);
#else
  (void)nt;
#endif
  for (int r = 0; r < 3; r++) {
    em_gf2 *B = NULL;
    EMCK(em_gf2_copy(A, &B));
    double t0 = em_wtime();
    EMCK(em_gf2_echelon(B, 0, EM_BACKEND_CPU, rank, NULL));
    t[r] = em_wtime() - t0;
    if (form && r == 0)
      *form = B;
    else
      em_gf2_destroy(&B);
  }
  return median3(t);
}

#ifdef EM_HAVE_CUDA
/* GPU echelon: median device ms; the form checked against the CPU's */
static double gpu_run(const em_gf2 *A, int search, int elim, const em_gf2 *ref, int32_t want) {
  double t[3];
  const int reps = search == 1 ? 1 : 3; /* the serial search takes seconds: one run */
  for (int r = 0; r < reps; r++) {
    em_gf2 *B = NULL;
    int32_t rank = 0;
    EMCK(em_gf2_copy(A, &B));
    EMCK(em_gf2_echelon_cuda_opts(B, 0, &rank, NULL, &t[r], search, elim));
    if (rank != want || memcmp(B->w, ref->w, (size_t)B->n_rows * B->words * sizeof *B->w)) {
      fprintf(stderr, "WRONG: GPU (search %d, elim %d) rank %d or form differs from the CPU's\n",
              search, elim, rank);
      failed = 1;
    }
    em_gf2_destroy(&B);
  }
  return reps == 1 ? t[0] : median3(t);
}
#endif

static void study(int k, int dense, int max_threads, int have_gpu) {
  em_mesh *m = NULL;
  em_gf2 *A = NULL, *ref = NULL;
  EMCK(em_mesh_box(k, k, k, 1, 1, 1, 0, 1, &m));
  em_gf2_sp d;
  EMCK(em_mesh_chain(m, 2, &d));
  EMCK(em_gf2_from_sp(&d, 1, &A)); /* rows: faces, columns: edges */
  int32_t want = m->n_edge - m->n_vert + 1;
  if (dense) { /* the same shape, random bits: splitmix64 (a linear generator such as
                 xorshift gives rank <= 64 over GF(2)) */
    unsigned long long s = 1;
    for (int64_t q = 0; q < (int64_t)A->n_rows * A->words; q++) {
      unsigned long long z = (s += 0x9E3779B97F4A7C15ULL);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      A->w[q] = (uint32_t)((z ^ (z >> 31)) >> 16);
      if ((q + 1) % A->words == 0 && A->n_cols % 32) A->w[q] &= (1u << (A->n_cols % 32)) - 1;
    }
  }
  int64_t ones = 0;
  for (int64_t q = 0; q < (int64_t)A->n_rows * A->words; q++) ones += __builtin_popcount(A->w[q]);
  printf("\n### %s, %d x %d, density %.2g%s\n\n",
         dense ? "dense random" : "d2 of the box, transposed", A->n_rows, A->n_cols,
         (double)ones / ((double)A->n_rows * A->n_cols), dense ? "" : " (rank E - V + 1)");
  printf("| engine | threads | s | rank |\n|---|---|---|---|\n");
  double t1 = 0;
  for (int nt = 1; nt <= max_threads; nt *= 2) {
    int32_t r = 0;
    em_gf2 *form = NULL;
    double t = cpu_run(A, nt, &r, nt == 1 ? &form : NULL);
    if (nt == 1) {
      t1 = t, ref = form;
      if (dense) want = r;
    }
    expect_rank("CPU", r, want);
    printf("| CPU (linalg/gf2.c) | %d | %.4f (x%.1f of 1 thread) | %d |\n", nt, t, t1 / t, r);
    fflush(stdout);
    if (nt < max_threads && 2 * nt > max_threads) nt = max_threads / 2; /* end on the max */
  }
#ifdef EM_HAVE_CUDA
  if (have_gpu) {
    const int cfg[][2] = {{1, 256}, {32, 256}, {256, 256}, {1024, 256}, {1024, 64}, {1024, 1024}};
    double serial = 0;
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++) {
      double ms = gpu_run(A, cfg[c][0], cfg[c][1], ref, want);
      if (c == 0) serial = ms;
      printf(
          "| GPU, pivot search %s | search %d, elimination %d | %.4f (serial search / this "
          "x%.1f; CPU 1 thread / this x%.1f) | %d |\n",
          cfg[c][0] == 1 ? "serial" : "parallel", cfg[c][0], cfg[c][1], ms * 1e-3, serial / ms,
          t1 / (ms * 1e-3), want);
      fflush(stdout);
    }
  }
#else
  (void)have_gpu;
#endif
  em_gf2_destroy(&A);
  em_gf2_destroy(&ref);
  em_mesh_chain_free(&d);
  em_mesh_destroy(&m);
}

int main(int argc, char **argv) {
  int mesh_n = 56, ks[8] = {8, 10}, nk = 2, do_mesh = 1, do_study = 1;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--mesh") && a + 1 < argc) {
      mesh_n = atoi(argv[++a]);
      do_study = 0;
    } else if (!strcmp(argv[a], "--study") && a + 1 < argc) {
      nk = 0;
      for (char *s = argv[++a], *e; *s && nk < 8; s = *e ? e + 1 : e)
        ks[nk++] = (int)strtol(s, &e, 10);
      do_mesh = 0;
    } else {
      fprintf(stderr, "usage: gf2_sparse_bench [--mesh n] [--study k,k,...]\n");
      return 2;
    }
  }
  if (argc == 1) do_mesh = do_study = 1;
  int max_threads = 1, have_gpu = 0;
#ifdef _OPENMP
  max_threads = omp_get_max_threads();
#endif
#ifdef EM_HAVE_CUDA
  em_device dev;
  have_gpu = em_device_open("gpu", NULL, &dev) == EM_OK;
  if (!have_gpu) em_error_clear();
  printf("# GF(2) on sparse inputs: %s, CPU %d threads\n", have_gpu ? dev.name : "no GPU",
         max_threads);
#else
  printf("# GF(2) on sparse inputs: CPU %d threads (built without CUDA)\n", max_threads);
#endif
  if (do_mesh) mesh_table(mesh_n);
  if (do_study)
    for (int i = 0; i < nk; i++) {
      study(ks[i], 0, max_threads, have_gpu);
      if (i == 0) study(ks[i], 1, max_threads, have_gpu); /* dense: O(n^3 / 32), the first only */
    }
  if (failed) fprintf(stderr, "gf2_sparse_bench: WRONG RESULTS\n");
  return failed;
}
