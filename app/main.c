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
  int flagged = 0, n_failed = 0, sweep = 0;
  /* a design sweep: --sweep, its options, or a Loop the case declares */
  if (a.psweep.n || a.psweep.zip || a.psweep.dry_run || a.psweep.jobs ||
      (!a.plot_dir && !a.list_params && em_app_psweep_declared(a.case_path)))
    err = em_app_psweep(&a, &a.psweep, &log, &n_failed, &sweep);
  if (!err && !sweep)
    err = a.plot_dir ? em_app_plot(a.plot_dir, &log) : em_app_run(&a, &log, &flagged);
  em_app_args_free(&a);
  if (err) {
    /* the trace (file:line of each frame) is for a developer: -v */
    if (a.log_level >= EM_LOG_VERBOSE)
      em_error_print(stderr);
    else
      fprintf(stderr, "error: %s\n", em_error_message());
    return em_app_signal() ? 128 + em_app_signal() : EM_EXIT_ERROR;
  }
  /* a design sweep's exit code is the number of failed points (at most 100) */
  if (sweep) return n_failed < 100 ? n_failed : 100;
  return flagged ? EM_EXIT_FLAGGED : EM_EXIT_OK;
}
