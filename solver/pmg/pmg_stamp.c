/* pmg_stamp.c - where a V-cycle spends its time, without waiting on its
 * steps: a time stamp on the pc's queue after each step (a CUDA event on
 * the legacy default stream; on the CPU, whose steps are synchronous, the
 * wall clock), read when the cycle ends.
 *
 * Why: timing each step by the host clock needs a synchronisation after
 * it; the V-cycle has about 4 (2 levels x 2 sweeps x 2 + 1) x 2 of them, and
 * each drains the GPU before the next launch can be queued (the launch
 * latency exposed, ~10-20 us each).  The stamps cost a record each and
 * one wait per cycle, which the Krylov method makes after the apply anyway.
 *
 * Interval i (stamp i-1 .. i) belongs to part st_part[i]; pc->info keeps
 * its three timers (t_residual: products and gathers; t_smooth: smoother
 * and scatter of the levels; t_coarse: coarse solve and scatter), p->prof
 * the parts and the levels. */
#include <string.h>

#include "pmg_impl.h"

static const char *const PART[EM_PMG_PARTS] = {"zero",          "product",      "gather",
                                               "smoother",      "scatter",      "coarse product",
                                               "coarse gather", "coarse solve", "coarse scatter"};

const char *em_pmg_part_name(em_pmg_part part) {
  return part >= 0 && part < EM_PMG_PARTS ? PART[part] : "?";
}

int em_pmg_stamps_per_cycle(int nlev, int sweeps) {
  return 5 + 8 * nlev * sweeps;
}

/* The stamp list sized for a whole cycle, so its one wait is at the end
 * (a list that filled mid-cycle was read there: a host wait that stalls
 * the queue, as with 3 levels of 3 sweeps and the former 64). */
static em_err stamp_list(em_pmg *p) {
  if (p->st) return EM_OK;
  int cap = em_pmg_stamps_per_cycle(p->nlev, p->o.sweeps);
  EM_TRY(em_calloc(&p->st, (size_t)cap, sizeof *p->st, "pmg time stamps"));
  EM_TRY(em_calloc(&p->st_part, (size_t)cap, sizeof *p->st_part, "pmg time stamps"));
  EM_TRY(em_calloc(&p->st_lev, (size_t)cap, sizeof *p->st_lev, "pmg time stamps"));
  p->st_cap = cap;
  return EM_OK;
}

em_err em_pmg_stamp_begin(em_pmg *p) {
  EM_TRY(stamp_list(p));
  p->nst = 0;
  EM_TRY(p->v->stamp(&p->st[0]));
  p->st_part[0] = -1;
  p->st_lev[0] = -1;
  p->nst = 1;
  return EM_OK;
}

/* Read the intervals 1 .. nst-1 into the timers; the last stamp becomes
 * the first of the list. */
static em_err harvest(em_pc *pc, em_pmg *p) {
  double sum = 0;
  for (int i = 1; i < p->nst; i++) {
    double ms = 0;
    EM_TRY(p->v->stamp_ms(p->st[i - 1], p->st[i], &ms));
    int q = p->st_part[i], l = p->st_lev[i];
    sum += ms;
    p->prof.ms[q] += ms;
    p->prof.steps[q]++;
    if (l >= 0 && l <= EM_MAX_ORDER) p->prof.level_ms[l] += ms;
    double s = ms * 1e-3;
    if (q == EM_PMG_PRODUCT || q == EM_PMG_GATHER || q == EM_PMG_CPRODUCT || q == EM_PMG_CGATHER)
      pc->info.t_residual += s;
    else if (q == EM_PMG_SMOOTH || q == EM_PMG_SCATTER)
      pc->info.t_smooth += s;
    else if (q == EM_PMG_CSOLVE || q == EM_PMG_CSCATTER)
      pc->info.t_coarse += s;
  }
  p->prof.total_ms += sum;
  p->prof.waits++;
  void *last = p->st[p->nst - 1];
  p->st[p->nst - 1] = p->st[0];
  p->st[0] = last;
  p->st_part[0] = p->st_lev[0] = -1;
  p->nst = 1;
  return EM_OK;
}

em_err em_pmg_stamp(em_pc *pc, em_pmg *p, em_pmg_part part, int lev) {
  if (p->nst == p->st_cap) EM_TRY(harvest(pc, p));
  EM_TRY(p->v->stamp(&p->st[p->nst]));
  p->st_part[p->nst] = part;
  p->st_lev[p->nst] = lev;
  p->nst++;
  return EM_OK;
}

em_err em_pmg_stamp_end(em_pc *pc, em_pmg *p, int k) {
  EM_TRY(harvest(pc, p));
  p->nst = 0;
  p->prof.cycles++;
  p->prof.columns += k;
  return EM_OK;
}

void em_pmg_stamp_free(em_pmg *p) {
  for (int i = 0; p->st && i < p->st_cap; i++)
    if (p->st[i]) p->v->stamp_free(&p->st[i]);
  em_free(&p->st);
  em_free(&p->st_part);
  em_free(&p->st_lev);
  p->st_cap = 0;
}

em_err em_pc_pmg_profile(const em_pc *pc, em_pmg_profile *prof) {
  EM_CHECK(pc && prof && pc->opts.type == EM_PC_PMG && pc->data, EM_ERR_ARG,
           "em_pc_pmg_profile: not a pmg preconditioner");
  const em_pmg *p = pc->data;
  *prof = p->prof;
  prof->nlev = p->nlev;
  for (int l = 0; l < p->nlev; l++) prof->level_rows[l] = p->lev[l].L.n;
  return EM_OK;
}

void em_pc_pmg_profile_reset(em_pc *pc) {
  if (!pc || pc->opts.type != EM_PC_PMG || !pc->data) return;
  em_pmg *p = pc->data;
  memset(&p->prof, 0, sizeof p->prof);
}
