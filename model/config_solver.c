/* config_solver.c - the solver's settings from Solver/ and PMG/: the
 * Krylov method, the preconditioner with its ordering, precision and
 * memory limit, the V-cycle's options, the matrix format and the nine-block
 * mode (em_solve_opts, read once; model/fsys.c takes them whole). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config_impl.h"

em_err em_cfg_read_solver(const em_case *c, em_solve_opts *o) {
  const char *s;
  em_ksp_opts_default(&o->ksp);
  EM_TRY(em_case_string(c, "Solver/method", &s));
  EM_TRY(em_ksp_method_parse(s, &o->ksp.method));
  EM_TRY(em_cfg_number(c, "Solver/tolerance", &o->ksp.tol));
  EM_CHECK(o->ksp.tol > 0 && o->ksp.tol < 1, EM_ERR_INPUT,
           "Solver/tolerance = %g must be in (0, 1)", o->ksp.tol);
  EM_TRY(em_cfg_integer(c, "Solver/max_iterations", 1, 100000000, &o->ksp.max_it));
  EM_TRY(em_cfg_integer(c, "Solver/restart", 1, 10000, &o->ksp.restart));
  EM_TRY(em_cfg_integer(c, "Solver/rhs_block", 0, EM_MAX_PORTS, &o->rhs_block));
  EM_TRY(em_cfg_integer(c, "Solver/overlap", 0, 1, &o->overlap));
  EM_TRY(em_cfg_integer(c, "Solver/ahead_threads", -1, 4096, &o->ahead_threads));
  em_pc_opts_default(&o->pc);
  EM_TRY(em_case_string(c, "Solver/preconditioner", &s));
  o->pc_auto = strcmp(s, "auto") == 0;
  if (o->pc_auto) s = "direct";
  EM_TRY(em_pc_type_parse(s, &o->pc.type));
  EM_TRY(em_case_string(c, "Solver/ordering", &s));
  o->ordering_auto = strcmp(s, "auto") == 0;
  if (o->ordering_auto) s = o->pc.type == EM_PC_DIRECT || o->pc.type == EM_PC_PMG ? "nd" : "rcm";
  EM_TRY(em_ordering_parse(s, &o->pc.ordering));
  static const char *const prec[] = {"double", "single", "mixed"};
  int p;
  EM_TRY(em_cfg_choice(c, "Solver/precision", prec, 3, &p));
  o->pc.prec = p ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
  EM_TRY(em_cfg_number(c, "Solver/pc_shift", &o->pc.shift));
  EM_TRY(em_cfg_number(c, "Solver/memory_limit", &o->pc.mem_limit));
  EM_CHECK(o->pc.mem_limit >= 0, EM_ERR_INPUT, "Solver/memory_limit = %g must be >= 0",
           o->pc.mem_limit);
  o->pc.mem_limit *= 1024.0 * 1024.0 * 1024.0;
  EM_CHECK(o->pc.shift >= 0, EM_ERR_INPUT, "Solver/pc_shift = %g must be >= 0", o->pc.shift);
  em_pmg_opts *g = &o->pc.pmg;
  EM_TRY(em_cfg_integer(c, "PMG/coarse", 1, 2, &g->coarse));
  EM_TRY(em_case_string(c, "PMG/smoother", &s));
  EM_TRY(em_pmg_smoother_parse(s, &g->smoother));
  EM_TRY(em_cfg_integer(c, "PMG/sweeps", 1, 100, &g->sweeps));
  EM_TRY(em_cfg_number(c, "PMG/damping", &g->damping));
  EM_CHECK(g->damping >= 0 && g->damping <= 2, EM_ERR_INPUT, "PMG/damping = %g must be in [0, 2]",
           g->damping);
  static const char *const smooth[] = {"group", "all"};
  EM_TRY(em_cfg_choice(c, "PMG/smooth", smooth, 2, &g->all));
  EM_TRY(em_cfg_number(c, "PMG/shift", &g->shift));
  static const char *const pml_co[] = {"auto", "0", "1", "2", "3"};
  EM_TRY(em_cfg_choice(c, "PMG/pml_coarse", pml_co, 5, &o->pmg_pml_coarse));
  o->pmg_pml_coarse--; /* auto: -1 */
  static const char *const pml_sm[] = {"none", "ilu0", "direct"};
  EM_TRY(em_cfg_choice(c, "PMG/pml_smoother", pml_sm, 3, &o->pmg_pml_block));
  EM_CHECK(g->shift >= 0, EM_ERR_INPUT, "PMG/shift = %g must be >= 0", g->shift);
  EM_TRY(em_case_string(c, "Solver/trsv", &s));
  EM_TRY(em_pc_trsv_parse(s, &o->pc.trsv));
  em_blockop_opts_default(&o->bop);
  /* EMSOLVE_SPMM_IL=1 (A/B runs): the block products from the interleaved
     copy of x; the default gathers from the columns (measured faster) */
  const char *il = getenv("EMSOLVE_SPMM_IL");
  o->bop.interleave = il && !strcmp(il, "1");
  /* EMSOLVE_GSOLVE=variant (A/B runs): the GPU solves' variants by the
     benches' names (em_direct_gsolve_parse), for the direct factor and
     pmg's coarse one */
  const char *gs = getenv("EMSOLVE_GSOLVE");
  if (gs && *gs)
    EM_CHECK(!em_direct_gsolve_parse(gs, &o->pc.gsolve), EM_ERR_INPUT,
             "EMSOLVE_GSOLVE = '%s': not a variant of the GPU solves (em_direct_gsolve_parse)", gs);
  em_format fmt;
  EM_TRY(em_case_string(c, "Solver/format", &s));
  EM_TRY(em_format_parse(s, &fmt));
  for (int i = 0; i < EM_MAX_ORDER; i++)
    for (int j = 0; j < EM_MAX_ORDER; j++) o->bop.format[i][j] = fmt;
  o->bop.whole_format = fmt;
  static const char *const modes[] = {"streams", "sequential", "graph", "one", "rows"};
  static const em_blockop_mode mode_of[] = {EM_BLOCKOP_STREAMS, EM_BLOCKOP_SEQUENTIAL,
                                            EM_BLOCKOP_GRAPH, EM_BLOCKOP_ONE_MATRIX,
                                            EM_BLOCKOP_ROWS};
  int m;
  EM_TRY(em_cfg_choice(c, "Solver/blocks", modes, 5, &m));
  o->bop.mode = mode_of[m];
  static const char *const dist[] = {"off", "on", "auto"};
  EM_TRY(em_cfg_choice(c, "Solver/distributed", dist, 3, &o->distributed));
  return EM_OK;
}
