/* main.c - emsolve: parse the command line, run, report errors. */
#include <stdio.h>

#include "app_impl.h"
#include "psweep.h"

int main(int argc, char **argv) {
  em_app_args a;
  int help = 0, version = 0;
  em_err err = em_app_parse_args(argc, argv, &a, &help, &version);
  if (!err && a.psweep.n) err = em_app_psweep_check(&a.psweep);
  if (err) {
    fprintf(stderr, "error: %s\n(emsolve --help shows the usage)\n", em_error_message());
    em_app_args_free(&a);
    return EM_EXIT_USAGE;
  }
  if (help || version) {
    if (version)
      printf("emsolve %s (%s)\n", EM_VERSION, em_cuda_built() ? "CUDA backends built" : "CPU only");
    if (help) em_app_usage(stdout);
    em_app_args_free(&a);
    return 0;
  }
  em_log log;
  em_log_init(&log, stderr, a.log_level);
  em_app_signals_install(); /* SIGINT / SIGTERM: a flag the run polls (app/outdir.c) */
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
    if (a.log_level >= EM_LOG_VERBOSE)
      em_error_print(stderr);
    else
      fprintf(stderr, "error: %s\n", em_error_message());
    if (em_app_signal()) return 128 + em_app_signal();
    if (ps.usage) {
      fprintf(stderr, "(emsolve --help shows the usage)\n");
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
