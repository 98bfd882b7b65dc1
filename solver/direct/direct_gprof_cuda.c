/* direct_gprof_cuda.c - the opt-in profile of the GPU solves
 * (em_direct_gsolve.profile, em_direct_gprofile): a solve records a CUDA
 * event before and after each launch (kernel or cuBLAS call) on the
 * launch's stream; once the solve's stream is synchronised the pairs'
 * elapsed times are summed by part, and by level for the level kernels.
 * The events come from a pool that grows to the largest solve and is
 * reused.  total_ms runs from the solve's first event to its last: beside
 * the parts it holds the gaps between launches (host and launch latency). */
#include <stdlib.h>
#include <string.h>

#include "direct_gpu_state.h"

typedef struct dgp_rec {
  int part, level;
  int e0, e1; /* events in the pool */
} dgp_rec;

struct em_dgp {
  cudaEvent_t *ev;
  int nev, cap_ev; /* used by this solve, created */
  dgp_rec *rec;
  int nrec, cap_rec;
  int pending; /* the event before the current launch */
  int e_start, e_end, nrhs;
  em_direct_gprofile acc;
  double *lev_ms; /* 2 per level: forward, backward level kernel */
  int nlev;
};

static em_err next_event(struct em_dgp *p, cudaStream_t st, int *e) {
  if (p->nev == p->cap_ev) {
    int cap = p->cap_ev ? 2 * p->cap_ev : 256;
    cudaEvent_t *ev = realloc(p->ev, sizeof *ev * (size_t)cap);
    EM_CHECK(ev, EM_ERR_MEMORY, "solve profile: no memory for %d events", cap);
    p->ev = ev;
    for (; p->cap_ev < cap; p->cap_ev++) EM_CUDA(cudaEventCreate(&p->ev[p->cap_ev]));
  }
  *e = p->nev++;
  EM_CUDA(cudaEventRecord(p->ev[*e], st));
  return EM_OK;
}

em_err em_dgp_begin(em_dgpu *g, cudaStream_t st, int nrhs) {
  if (!g->prof) {
    EM_TRY(em_calloc(&g->prof, 1, sizeof *g->prof, "solve profile"));
    g->prof->nlev = g->nlev;
    EM_TRY(em_calloc(&g->prof->lev_ms, 2 * (size_t)g->nlev + 2, sizeof(double), "solve profile"));
  }
  struct em_dgp *p = g->prof;
  p->nev = p->nrec = 0;
  p->nrhs = nrhs;
  p->e_end = -1;
  return next_event(p, st, &p->e_start);
}

em_err em_dgp_mark(em_dgpu *g, cudaStream_t st, int part, int level, int end) {
  struct em_dgp *p = g->prof;
  if (!p) return EM_OK;
  if (!end) return next_event(p, st, &p->pending);
  if (p->nrec == p->cap_rec) {
    int cap = p->cap_rec ? 2 * p->cap_rec : 256;
    dgp_rec *r = realloc(p->rec, sizeof *r * (size_t)cap);
    EM_CHECK(r, EM_ERR_MEMORY, "solve profile: no memory for %d records", cap);
    p->rec = r;
    p->cap_rec = cap;
  }
  dgp_rec *r = &p->rec[p->nrec++];
  r->part = part;
  r->level = level;
  r->e0 = p->pending;
  return next_event(p, st, &r->e1);
}

em_err em_dgp_end(em_dgpu *g, cudaStream_t st) {
  return g->prof ? next_event(g->prof, st, &g->prof->e_end) : EM_OK;
}

em_err em_dgp_collect(em_dgpu *g) {
  struct em_dgp *p = g->prof;
  if (!p || p->e_end < 0) return EM_OK;
  EM_CUDA(cudaEventSynchronize(p->ev[p->e_end]));
  float ms = 0;
  EM_CUDA(cudaEventElapsedTime(&ms, p->ev[p->e_start], p->ev[p->e_end]));
  p->acc.total_ms += ms;
  p->acc.solves++;
  p->acc.columns += p->nrhs;
  for (int q = 0; q < p->nrec; q++) {
    const dgp_rec *r = &p->rec[q];
    EM_CUDA(cudaEventSynchronize(p->ev[r->e1]));
    EM_CUDA(cudaEventElapsedTime(&ms, p->ev[r->e0], p->ev[r->e1]));
    p->acc.ms[r->part] += ms;
    p->acc.launches[r->part]++;
    if (r->level >= 0 && r->level < p->nlev &&
        (r->part == EM_DGP_FWD_LEVEL || r->part == EM_DGP_BWD_LEVEL))
      p->lev_ms[2 * r->level + (r->part == EM_DGP_BWD_LEVEL)] += ms;
  }
  p->e_end = -1;
  return EM_OK;
}

void em_dgp_destroy(em_dgpu *g) {
  struct em_dgp *p = g->prof;
  if (!p) return;
  for (int i = 0; i < p->cap_ev; i++) cudaEventDestroy(p->ev[i]);
  free(p->ev);
  free(p->rec);
  em_free(&p->lev_ms);
  em_free(&g->prof);
}

void em_dgpu_profile_reset(em_dgpu *g) {
  struct em_dgp *p = g->prof;
  if (!p) return;
  memset(&p->acc, 0, sizeof p->acc);
  memset(p->lev_ms, 0, sizeof(double) * 2 * (size_t)p->nlev);
}

/* The times, and the schedule's shape: levels, the split between level
 * kernels and big supernodes, the widest ones, the costliest levels. */
void em_dgpu_profile_get(const em_direct *F, em_direct_gprofile *out) {
  const em_dgpu *g = F->gpu;
  const em_dsym *S = &F->S;
  if (g->prof) *out = g->prof->acc;
  out->levels = g->nlev;
  for (int32_t l = 0; l < g->nlev; l++) {
    int32_t p0 = g->lev_ptr[l], p1 = g->lev_ptr[l + 1], cs = g->n_solve_small[l];
    out->level_launches += cs > 0;
    for (int32_t q = p0; q < p1; q++) {
      int32_t s = g->solve_small[q];
      int64_t k = S->super[s + 1] - S->super[s], m = S->rptr[s + 1] - S->rptr[s];
      double mb = (double)(k * m) * (double)g->esz / 1e6;
      if (q < p0 + cs) {
        out->small++;
        out->small_mb += mb;
        continue;
      }
      out->big++;
      out->big_mb += mb;
      /* insertion into the widest list */
      int w = out->nwide < EM_DGP_TOP ? out->nwide++ : EM_DGP_TOP - 1;
      if (w == EM_DGP_TOP - 1 && out->nwide == EM_DGP_TOP && k <= out->wide_k[w]) continue;
      while (w > 0 && out->wide_k[w - 1] < k) {
        out->wide_k[w] = out->wide_k[w - 1];
        out->wide_nb[w] = out->wide_nb[w - 1];
        w--;
      }
      out->wide_k[w] = (int32_t)k;
      out->wide_nb[w] = (int32_t)(m - k);
    }
  }
  if (!g->prof) return;
  const double *lm = g->prof->lev_ms;
  for (int32_t l = 0; l < g->nlev; l++) {
    double t = lm[2 * l] + lm[2 * l + 1];
    if (t <= 0) continue;
    int w = out->ntop < EM_DGP_TOP ? out->ntop++ : EM_DGP_TOP - 1;
    if (w == EM_DGP_TOP - 1 && out->ntop == EM_DGP_TOP &&
        t <= out->top[w].fwd_ms + out->top[w].bwd_ms)
      continue;
    while (w > 0 && out->top[w - 1].fwd_ms + out->top[w - 1].bwd_ms < t) {
      out->top[w] = out->top[w - 1];
      w--;
    }
    int32_t p0 = g->lev_ptr[l], cs = g->n_solve_small[l], kmax = 0, nbmax = 0;
    for (int32_t q = p0; q < p0 + cs; q++) {
      int32_t s = g->solve_small[q];
      int32_t k = S->super[s + 1] - S->super[s], nb = (int32_t)(S->rptr[s + 1] - S->rptr[s]) - k;
      if (k > kmax) kmax = k;
      if (nb > nbmax) nbmax = nb;
    }
    out->top[w].level = l;
    out->top[w].count = cs;
    out->top[w].kmax = kmax;
    out->top[w].nbmax = nbmax;
    out->top[w].fwd_ms = lm[2 * l];
    out->top[w].bwd_ms = lm[2 * l + 1];
  }
}
