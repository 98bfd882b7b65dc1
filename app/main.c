/* main.c - emsolve: parse the command line, run, report errors.  Under an
 * MPI launcher every rank runs this; rank 0 speaks for the run (its exit
 * code is every rank's, app/rank.c). */
#include <stdio.h>

#include "app_dist.h"
#include "psweep.h"

/* The command on this rank; *failed: an error stopped this rank's work
 * (the others may be waiting for it: main stops them). */
static int emsolve(int argc, char **argv, const em_dist *dist, int *failed) {
  int root = em_dist_rank(dist) == 0;
  em_app_args a;
  int help = 0, version = 0;
  em_err err = em_app_parse_args(argc, argv, &a, &help, &version);
  if (!err && a.psweep.n) err = em_app_psweep_check(&a.psweep);
  if (err) { /* every rank parsed the same line: rank 0 says it */
    if (root) fprintf(stderr, "error: %s\n(emsolve --help shows the usage)\n", em_error_message());
    em_app_args_free(&a);
    return EM_EXIT_USAGE;
  }
  a.dist = dist;
  if (help || version) {
    if (version && root)
      printf("emsolve %s (%s, %s)\n", EM_VERSION,
             em_cuda_built() ? "CUDA backends built" : "CPU only",
             em_dist_mpi_built() ? "MPI built" : "without MPI");
    if (help && root) em_app_usage(stdout);
    em_app_args_free(&a);
    return 0;
  }
  em_log log;
  em_log_init(&log, stderr, a.log_level);
  em_app_signals_install();    /* SIGINT / SIGTERM: a flag the run polls (app/outdir.c) */
  em_app_rank_setup(&a, &log); /* one rank: nothing */
  if (!root && (a.plot_dir || a.list_params)) { /* rank 0 alone */
    em_app_args_free(&a);
    return 0;
  }
  int flagged = 0;
  em_psweep_outcome ps = {0};
  /* a design sweep: --sweep, its options, or a Loop the case declares */
  if (a.psweep.n || a.psweep.zip || a.psweep.dry_run || a.psweep.jobs ||
      (!a.plot_dir && !a.list_params && em_app_psweep_declared(a.case_path)))
    err = em_app_psweep(&a, &a.psweep, &log, &ps);
  if (!err && !ps.was_sweep)
    err = a.plot_dir ? em_app_plot(a.plot_dir, &log) : em_app_run(&a, &log, &flagged);
  em_app_args_free(&a);
  if (err) {
    /* the trace (file:line of each frame) is for a developer: -v */
    if (a.log_level >= EM_LOG_VERBOSE) {
      if (log.tag[0]) fprintf(stderr, "%s\n", log.tag);
      em_error_print(stderr);
    } else {
      fprintf(stderr, "error: %s%s\n", log.tag, em_error_message());
    }
    *failed = 1;
    if (em_app_signal()) return 128 + em_app_signal();
    if (ps.usage) {
      if (root) fprintf(stderr, "(emsolve --help shows the usage)\n");
      return EM_EXIT_USAGE;
    }
    return EM_EXIT_ERROR;
  }
  /* a design sweep: 4 when points failed (their number on stdout and in
     sweep_summary.csv), 3 when some are flagged */
  if (ps.was_sweep)
    return ps.n_failed ? EM_EXIT_POINTS : ps.n_flagged ? EM_EXIT_FLAGGED : EM_EXIT_OK;
  return flagged ? EM_EXIT_FLAGGED : EM_EXIT_OK;
}

int main(int argc, char **argv) {
  em_dist *dist = NULL; /* MPI under mpirun / srun, else one serial rank */
  if (em_dist_init(&argc, &argv, 1, &dist)) {
    fprintf(stderr, "error: %s\n", em_error_message());
    return EM_EXIT_ERROR;
  }
  int failed = 0, code = emsolve(argc, argv, dist, &failed);
  /* the other ranks may wait for this one's results: stop them all */
  if (failed && em_dist_size(dist) > 1) em_dist_abort(dist, code);
  code = em_app_rank_finish(dist, code);
  em_dist_finalize(&dist);
  return code;
}
