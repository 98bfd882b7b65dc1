/* test_dist.c - em_dist.h on P ranks (argv[1] = the P expected): run plainly
 * it tests the serial implementation (1 rank), under mpirun the MPI one.
 * Every result has a closed form in the rank numbers; the halo exchange is
 * checked by a distributed 1-D stencil product against the serial product
 * of the whole vector (they must agree to the last bit: the same sums). */
#include <stdint.h>
#include <time.h>

#include "em_dist.h"
#include "em_test.h"

static void place(const em_dist *d, int want) {
  const em_dist_place *p = em_dist_where(d);
  EXPECT(em_dist_size(d) == want, "%d ranks, expected %d (%s)", em_dist_size(d), want, p->impl);
  EXPECT(p->rank >= 0 && p->rank < p->size, "rank %d of %d", p->rank, p->size);
  EXPECT(p->local_rank >= 0 && p->local_rank < p->local_size && p->local_size <= p->size,
         "local rank %d of %d", p->local_rank, p->local_size);
  EXPECT(want == 1 || strncmp(p->impl, "MPI", 3) == 0, "implementation '%s'", p->impl);
  EXPECT(want == 1 || em_dist_mpi_built(), "%d ranks in a build without MPI", want);
  /* the serial path never counts GPUs nor binds one */
  EXPECT(want > 1 || (p->n_gpu == -1 && !p->bound), "serial: %d GPUs counted", p->n_gpu);
}

/* sum, max and min of rank-dependent values in every type that reduces */
static void reductions(const em_dist *d) {
  int r = em_dist_rank(d), P = em_dist_size(d);
  int vi[3] = {r + 1, r + 1, r + 1};
  EXPECT_OK(em_dist_allreduce(d, vi, 1, EM_DIST_INT, EM_DIST_SUM));
  EXPECT_OK(em_dist_allreduce(d, vi + 1, 1, EM_DIST_INT, EM_DIST_MAX));
  EXPECT_OK(em_dist_allreduce(d, vi + 2, 1, EM_DIST_INT, EM_DIST_MIN));
  EXPECT(vi[0] == P * (P + 1) / 2 && vi[1] == P && vi[2] == 1, "int sum/max/min %d %d %d", vi[0],
         vi[1], vi[2]);
  int64_t big = ((int64_t)1 << 40) * (r + 1);
  EXPECT_OK(em_dist_allreduce(d, &big, 1, EM_DIST_INT64, EM_DIST_SUM));
  EXPECT(big == ((int64_t)1 << 40) * P * (P + 1) / 2, "int64 sum %lld", (long long)big);
  double x[1000];
  for (int i = 0; i < 1000; i++) x[i] = 0.5 * (r + 1) + i; /* exact in binary */
  EXPECT_OK(em_dist_allreduce(d, x, 1000, EM_DIST_DOUBLE, EM_DIST_SUM));
  int bad = 0;
  for (int i = 0; i < 1000; i++) bad += x[i] != 0.25 * P * (P + 1) + (double)i * P;
  EXPECT(!bad, "double sums: %d of 1000 wrong", bad);
  em_cplx z = (r + 1) + I * (2.0 * r);
  EXPECT_OK(em_dist_allreduce(d, &z, 1, EM_DIST_CPLX, EM_DIST_SUM));
  EXPECT(creal(z) == P * (P + 1) / 2 && cimag(z) == (double)P * (P - 1), "complex sum %g%+gj",
         creal(z), cimag(z));
  float f = (float)r;
  EXPECT_OK(em_dist_allreduce(d, &f, 1, EM_DIST_FLOAT, EM_DIST_MAX));
  EXPECT(f == (float)(P - 1), "float max %g", f);
  EXPECT_ERR(em_dist_allreduce(d, &z, 1, EM_DIST_CPLX, EM_DIST_MAX), EM_ERR_ARG);
  EXPECT_ERR(em_dist_allreduce(d, vi, 1, EM_DIST_BYTE, EM_DIST_SUM), EM_ERR_ARG);
}

static void broadcast_gather(const em_dist *d) {
  int r = em_dist_rank(d), P = em_dist_size(d), root = P - 1;
  char msg[64] = "";
  if (r == root) snprintf(msg, sizeof msg, "from rank %d", root);
  EXPECT_OK(em_dist_bcast(d, msg, sizeof msg, EM_DIST_BYTE, root));
  char want[64];
  snprintf(want, sizeof want, "from rank %d", root);
  EXPECT(!strcmp(msg, want), "bcast gave '%s'", msg);
  EXPECT_ERR(em_dist_bcast(d, msg, 1, EM_DIST_BYTE, P), EM_ERR_ARG);
  double mine[3] = {r, 10.0 * r, -r}, *all = calloc((size_t)3 * P, sizeof *all);
  double *every = calloc((size_t)3 * P, sizeof *every);
  EXPECT_OK(em_dist_gather(d, mine, 3, EM_DIST_DOUBLE, all, 0));
  EXPECT_OK(em_dist_allgather(d, mine, 3, EM_DIST_DOUBLE, every));
  int bad = 0;
  for (int k = 0; k < P; k++) {
    if (r == 0) bad += all[3 * k] != k || all[3 * k + 1] != 10.0 * k || all[3 * k + 2] != -k;
    bad += every[3 * k] != k || every[3 * k + 1] != 10.0 * k || every[3 * k + 2] != -k;
  }
  EXPECT(!bad, "gather / allgather: %d wrong", bad);
  free(all);
  free(every);
  /* variable parts: rank k gives k + 1 values k, k + 0.5, ... */
  double part[64];
  for (int i = 0; i <= r; i++) part[i] = r + 0.5 * i;
  void *got = NULL;
  int64_t *cnt = calloc((size_t)P, sizeof *cnt);
  EXPECT_OK(em_dist_gatherv(d, part, (size_t)r + 1, EM_DIST_DOUBLE, &got, cnt, 0));
  EXPECT((r == 0) == (got != NULL), "gatherv: the result on rank 0 alone");
  bad = 0;
  for (int k = 0, o = 0; r == 0 && k < P; o += k + 1, k++) {
    bad += cnt[k] != k + 1;
    for (int i = 0; i <= k; i++) bad += ((double *)got)[o + i] != k + 0.5 * i;
  }
  EXPECT(!bad, "gatherv: %d wrong", bad);
  em_free(&got);
  free(cnt);
  EXPECT_OK(em_dist_barrier(d));
}

/* A ring: rank r sends (r+1) mod P a message of 100000 (r+1) + 1 bytes
 * (beyond the eager limits: the rendezvous path); a receive too small is
 * refused and leaves the message waiting. */
static void ring(const em_dist *d) {
  int r = em_dist_rank(d), P = em_dist_size(d);
  EXPECT_ERR(em_dist_send(d, "x", 1, r, 1), EM_ERR_ARG); /* never to itself */
  EXPECT_ERR(em_dist_send(d, "x", 1, P, 1), EM_ERR_ARG);
  if (P == 1) {
    int from = 0;
    EXPECT_ERR(em_dist_probe(d, EM_DIST_ANY, 1, EM_DIST_LOOK, &from, NULL), EM_ERR_ARG);
    return;
  }
  size_t n = 100000 * (size_t)(r + 1) + 1;
  unsigned char *out = malloc(n), *in = malloc(100000 * (size_t)P + 1);
  for (size_t i = 0; i < n; i++) out[i] = (unsigned char)(i * 7 + r);
  em_dist_req *req = NULL;
  EXPECT_OK(em_dist_isend(d, out, n, (r + 1) % P, 5, &req));
  int prev = (r + P - 1) % P, from = -1;
  size_t want = 100000 * (size_t)(prev + 1) + 1, got = 0;
  EXPECT_OK(em_dist_probe(d, EM_DIST_ANY, 5, r % 2 ? EM_DIST_BLOCK : EM_DIST_IDLE, &from, &got));
  EXPECT(from == prev && got == want, "probe: %zu bytes from %d, expected %zu from %d", got, from,
         want, prev);
  EXPECT_ERR(em_dist_recv(d, in, want - 1, EM_DIST_ANY, 5, NULL, NULL), EM_ERR_MPI);
  EXPECT_OK(em_dist_recv(d, in, 100000 * (size_t)P + 1, EM_DIST_ANY, 5, &from, &got));
  int bad = 0;
  for (size_t i = 0; i < got; i++) bad += in[i] != (unsigned char)(i * 7 + prev);
  EXPECT(from == prev && got == want && !bad, "ring: %zu bytes from %d, %d wrong", got, from, bad);
  EXPECT_OK(em_dist_wait(d, &req, r % 2 ? EM_DIST_IDLE : EM_DIST_BLOCK));
  EXPECT(req == NULL, "a completed request is cleared");
  EXPECT_OK(em_dist_probe(d, EM_DIST_ANY, 5, EM_DIST_LOOK, &from, &got));
  EXPECT(from == -1, "nothing left to receive (%d)", from);
  free(out);
  free(in);
  EXPECT_OK(em_dist_barrier(d));
}

/* y = L x for the 1-D Laplacian stencil (x[i-1] - 2 x[i] + x[i+1], zero
 * outside) on N values split in P contiguous parts: each rank needs one
 * ghost from each side, exchanged by em_dist_halo_*; the local product
 * runs between start and finish.  Serial reference: the whole vector. */
static double xval(int i) {
  return sin(0.37 * i) + 0.001 * i * i;
}

static void halo(const em_dist *d) {
  int r = em_dist_rank(d), P = em_dist_size(d), N = 1001;
  int lo = (int)((int64_t)N * r / P), hi = (int)((int64_t)N * (r + 1) / P), n = hi - lo;
  double *x = calloc((size_t)n + 2, sizeof *x), *y = calloc((size_t)n, sizeof *y);
  for (int i = 0; i < n; i++) x[i + 1] = xval(lo + i);
  /* neighbours: left (r-1) gets my first value, right (r+1) my last; on
     one rank a self exchange of zero values checks the copy path */
  int nb[2], m = 0;
  int64_t so[3] = {0}, ro[3] = {0};
  double sbuf[2], rbuf[2] = {0, 0};
  if (r > 0) nb[m] = r - 1, sbuf[m] = x[1], so[m + 1] = so[m] + 1, ro[m + 1] = ro[m] + 1, m++;
  if (r < P - 1) nb[m] = r + 1, sbuf[m] = x[n], so[m + 1] = so[m] + 1, ro[m + 1] = ro[m] + 1, m++;
  if (P == 1) nb[m] = 0, sbuf[0] = 42, so[1] = 1, ro[1] = 1, m = 1;
  em_dist_halo h = {m, nb, so, ro, 9};
  em_dist_xchg *xg = NULL;
  EXPECT_OK(em_dist_halo_start(d, &h, EM_DIST_DOUBLE, sbuf, rbuf, &xg));
  for (int i = 1; i < n - 1; i++) y[i] = x[i] - 2 * x[i + 1] + x[i + 2]; /* interior first */
  EXPECT_OK(em_dist_halo_finish(d, &xg));
  if (P == 1) {
    EXPECT(rbuf[0] == 42, "self exchange copied %g", rbuf[0]);
    rbuf[0] = 0;
  }
  int k = 0;
  if (r > 0) x[0] = rbuf[k++];
  if (r < P - 1) x[n + 1] = rbuf[k++];
  for (int i = 0; i < n; i += (n > 1 ? n - 1 : 1)) y[i] = x[i] - 2 * x[i + 1] + x[i + 2];
  int bad = 0;
  for (int i = 0; i < n; i++) {
    int g = lo + i;
    double ref = (g > 0 ? xval(g - 1) : 0) - 2 * xval(g) + (g < N - 1 ? xval(g + 1) : 0);
    bad += y[i] != ref;
  }
  EXPECT_OK(em_dist_allreduce(d, &bad, 1, EM_DIST_INT, EM_DIST_SUM));
  EXPECT(!bad, "halo stencil product: %d of %d values differ from the serial product", bad, N);
  int wrong[1] = {P}; /* a neighbour outside the run */
  em_dist_halo hb = {1, wrong, so, ro, 9};
  EXPECT_ERR(em_dist_halo_start(d, &hb, EM_DIST_DOUBLE, sbuf, rbuf, &xg), EM_ERR_ARG);
  free(x);
  free(y);
}

/* The work queue: every item handed out exactly once over all ranks
 * (rank 1 is slow: it should get fewer, not none or twice). */
static void queue(const em_dist *d) {
  int r = em_dist_rank(d), n = 40, mine[41], m = 0, item = 0;
  em_dist_queue *q = NULL;
  EXPECT_OK(em_dist_queue_create(d, n, &q));
  while (q && m <= n) {
    EXPECT_OK(em_dist_queue_next(q, &item));
    if (item < 0) break;
    mine[m++] = item;
    nanosleep(&(struct timespec){0, r == 1 ? 6000000 : 2000000}, NULL); /* the item's work */
  }
  EXPECT_OK(em_dist_queue_destroy(&q));
  void *all = NULL;
  int64_t *cnt = calloc((size_t)em_dist_size(d), sizeof *cnt);
  EXPECT_OK(em_dist_gatherv(d, mine, (size_t)m, EM_DIST_INT, &all, cnt, 0));
  if (r == 0 && all) {
    int seen[40] = {0}, bad = 0, total = 0;
    for (int k = 0; k < em_dist_size(d); k++) total += (int)cnt[k];
    for (int i = 0; i < total; i++) {
      int it = ((int *)all)[i];
      bad += it < 0 || it >= n || seen[it]++;
    }
    EXPECT(total == n && !bad, "queue: %d items handed out (of %d), %d twice or foreign", total, n,
           bad);
    if (em_dist_size(d) > 1)
      printf("queue: rank 0 took %lld of %d, rank 1 (slow) %lld\n", (long long)cnt[0], n,
             (long long)cnt[1]);
  }
  em_free(&all);
  free(cnt);
}

int main(int argc, char **argv) {
  int want = argc > 1 ? atoi(argv[1]) : 1;
  em_dist *d = NULL;
  REQUIRE_OK(em_dist_init(&argc, &argv, 0, &d));
  place(d, want);
  reductions(d);
  broadcast_gather(d);
  ring(d);
  halo(d);
  queue(d);
  /* a NULL communicator is the serial rank 0 of 1 */
  EXPECT(em_dist_rank(NULL) == 0 && em_dist_size(NULL) == 1, "NULL is rank 0 of 1");
  int one = 3;
  EXPECT_OK(em_dist_allreduce(NULL, &one, 1, EM_DIST_INT, EM_DIST_SUM));
  EXPECT(one == 3, "a NULL allreduce is the value itself");
  int rank = em_dist_rank(d), fail = em_test_failures_;
  EXPECT_OK(em_dist_allreduce(d, &fail, 1, EM_DIST_INT, EM_DIST_SUM));
  if (rank == 0)
    printf("test_dist: %d ranks (%s), %d failures\n", em_dist_size(d), em_dist_where(d)->impl,
           fail);
  em_dist_finalize(&d);
  return fail ? 1 : 0;
}
