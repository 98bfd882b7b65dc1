/* dasm_bench.c - issue 27: each rank of a distributed solve assembles its
 * own rows (em_assembler_create_part) instead of the whole matrix.  On the
 * n^3 x 6 jittered box at order p (PEC walls, a lossy dielectric), the
 * whole assembly (one assembler: pattern, colouring, the first pass that
 * builds the frequency-independent cache, a second pass that uses it)
 * against each part's, for P = 2, 4, 8 METIS parts (em_dpart_build, the
 * solver's parts), one after another on the same threads:
 *
 *   - time of the whole and of each part (set-up, first pass, second
 *     pass): the slowest part is what P ranks wait for, whole / slowest
 *     the assembly's speed-up on P ranks, sum of parts / whole the cost of
 *     the overlap (the tets around a part's border are computed by both);
 *   - the rows, tets and matrix entries of each part against the whole's
 *     (the assembled matrix, its cache and the operator's copies scale
 *     with the entries).
 *
 *     build/bench/dasm_bench [--box n] [--order p] [--parts 2,4,8]
 *
 * Medians of 3 runs, wall clock and the process's CPU time (the work, which
 * other processes on a shared machine do not move; with one thread the
 * two agree on a quiet machine), OpenMP threads as set. */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_util.h"
#include "em_model.h"

#define REPS 3
#define EMCK(call)            \
  do {                        \
    if (call) {               \
      em_error_print(stderr); \
      exit(2);                \
    }                         \
  } while (0)

static em_err lossy(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx, (void)t, (void)x;
  for (int k = 0; k < 3; k++) m->eps[k] = 2.0 - 0.2 * I, m->nu[k] = 1;
  return EM_OK;
}

typedef struct timing {
  double setup, pass1, pass2, total, cpu;
  int32_t rows, tets;
  int64_t nnz;
} timing;

static double cpu_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* one assembler (owner NULL: the whole) through two passes, median of REPS */
static timing assemble(const em_mesh *m, const em_dofmap *d, const int32_t *owner, int part) {
  double s[REPS], a[REPS], b[REPS], c[REPS];
  timing t = {0};
  for (int r = 0; r < REPS; r++) {
    em_assembler *as = NULL;
    em_system *sys = NULL;
    double c0 = cpu_time(), t0 = em_wtime();
    if (owner)
      EMCK(em_assembler_create_part(m, d, owner, part, &as));
    else
      EMCK(em_assembler_create(m, d, &as));
    double t1 = em_wtime();
    em_problem prob = {.k0 = 3.0, .material = lossy, .n_rhs = 1};
    EMCK(em_assemble_with(as, &prob, NULL, &sys));
    double t2 = em_wtime();
    t.rows = sys->n_row;
    t.nnz = 0;
    for (int g = 0; g < sys->A->nb; g++)
      for (int h = 0; h < sys->A->nb; h++) t.nnz += sys->A->blk[g][h]->nnz;
    em_system_destroy(&sys);
    prob.k0 = 4.0;
    EMCK(em_assemble_with(as, &prob, NULL, &sys));
    double t3 = em_wtime(), c3 = cpu_time();
    em_system_destroy(&sys);
    em_assembler_destroy(&as);
    s[r] = t1 - t0, a[r] = t2 - t1, b[r] = t3 - t2, c[r] = c3 - c0;
  }
  t.setup = bench_median(s, REPS), t.pass1 = bench_median(a, REPS), t.pass2 = bench_median(b, REPS);
  t.total = t.setup + t.pass1 + t.pass2;
  t.cpu = bench_median(c, REPS);
  return t;
}

int main(int argc, char **argv) {
  int n = 14, p = 3, parts[8] = {2, 4, 8}, np = 3;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--box") && i + 1 < argc)
      n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--order") && i + 1 < argc)
      p = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--parts") && i + 1 < argc) {
      np = 0;
      for (char *s = strtok(argv[++i], ","); s && np < 8; s = strtok(NULL, ","))
        parts[np++] = atoi(s);
    } else {
      fprintf(stderr, "usage: %s [--box n] [--order p] [--parts 2,4,8]\n", argv[0]);
      return 2;
    }
  }
  em_mesh *m = NULL;
  em_dofmap *d = NULL;
  EMCK(em_mesh_box(n, n, n, 1, 1, 1, 0.2, 1, &m));
  uint8_t *ff = calloc((size_t)m->n_face, 1);
  for (int32_t f = 0; f < m->n_face; f++) ff[f] = m->face_tet[2 * f + 1] < 0;
  EMCK(em_dofmap_build(m, p, ff, &d));
  free(ff);
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  printf("# %d^3 x 6 box, order %d: %d tets, %d unknowns; %d threads; medians of %d\n", n, p,
         m->n_tet, d->n_dof, threads, REPS);
  timing w = assemble(m, d, NULL, 0);
  printf("%-6s %5s %9s %8s %11s %8s %8s %8s %8s %8s %9s\n", "parts", "part", "rows", "tets", "nnz",
         "setup_s", "pass1_s", "pass2_s", "total_s", "cpu_s", "nnz/whole");
  printf("%-6s %5s %9d %8d %11lld %8.3f %8.3f %8.3f %8.3f %8.3f %9.3f\n", "whole", "-", w.rows,
         m->n_tet, (long long)w.nnz, w.setup, w.pass1, w.pass2, w.total, w.cpu, 1.0);
  int32_t *tp = calloc((size_t)m->n_tet, sizeof *tp),
          *owner = calloc((size_t)d->n_dof, sizeof *owner);
  int32_t code[64];
  for (int k = 0; k < np; k++) {
    int P = parts[k];
    EMCK(em_dpart_build(m, d, P, tp, owner));
    double slow = 0, sum = 0, cslow = 0, csum = 0;
    int64_t most = 0;
    for (int q = 0; q < P; q++) {
      timing t = assemble(m, d, owner, q);
      t.tets = 0;
      for (int32_t e = 0; e < m->n_tet; e++) { /* the tets holding one of its unknowns */
        em_dofmap_tet(d, m, e, code);
        int in = 0;
        for (int i = 0; i < em_basis_count(d->order) && !in; i++)
          in = code[i] >= 0 && owner[code[i]] == q;
        t.tets += in;
      }
      if (t.total > slow) slow = t.total;
      if (t.cpu > cslow) cslow = t.cpu;
      if (t.nnz > most) most = t.nnz;
      sum += t.total, csum += t.cpu;
      printf("%-6d %5d %9d %8d %11lld %8.3f %8.3f %8.3f %8.3f %8.3f %9.3f\n", P, q, t.rows, t.tets,
             (long long)t.nnz, t.setup, t.pass1, t.pass2, t.total, t.cpu, (double)t.nnz / w.nnz);
    }
    printf(
        "# %d parts: the slowest part %.2fx faster than the whole, wall (CPU %.2fx; ideal %dx); "
        "the parts together %.2f x the whole's time (CPU %.2f); the largest part %.3f of the "
        "whole's entries\n",
        P, w.total / slow, w.cpu / cslow, P, sum / w.total, csum / w.cpu, (double)most / w.nnz);
  }
  free(tp);
  free(owner);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
  return 0;
}
