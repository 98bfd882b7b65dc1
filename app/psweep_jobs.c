/* psweep_jobs.c - --jobs N: a design sweep's points in N worker processes
 * (docs/sweeps.md, "--jobs N"). */
#include <errno.h>
#include <omp.h>
#include <spawn.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>

#include "psweep.h"

extern char **environ;

/* Start J copies of this command, each with --sweep-worker w/J and
 * OMP_NUM_THREADS = threads / J, and wait for them: each runs its points
 * into their folders; the tables are made here from the folders after. */
em_err em_psweep_run_workers(const em_app_args *a, int jobs, const em_log *log) {
  int threads = omp_get_max_threads();
  int per = threads / jobs > 0 ? threads / jobs : 1;
  pid_t pid[64];
  int n = 0;
  em_err err = EM_OK;
  char omp[64];
  snprintf(omp, sizeof omp, "OMP_NUM_THREADS=%d", per);
  /* environment: ours with OMP_NUM_THREADS replaced */
  int ne = 0;
  while (environ[ne]) ne++;
  char **env = NULL, **argv = NULL;
  EM_TRY_GOTO(err, em_calloc(&env, (size_t)ne + 2, sizeof *env, "worker environment"), done);
  EM_TRY_GOTO(err, em_calloc(&argv, (size_t)a->argc + 3, sizeof *argv, "worker arguments"), done);
  int m = 0;
  for (int i = 0; i < ne; i++)
    if (strncmp(environ[i], "OMP_NUM_THREADS=", 16)) env[m++] = environ[i];
  env[m++] = omp;
  char wspec[64][32];
  em_log_info(log, "--jobs %d: %d processes of %d threads", jobs, jobs, per);
  fflush(stdout);
  fflush(stderr);
  for (int w = 0; w < jobs && w < 64; w++) {
    for (int i = 0; i < a->argc; i++) argv[i] = a->argv[i];
    snprintf(wspec[w], sizeof wspec[w], "%d/%d", w, jobs);
    argv[a->argc] = "--sweep-worker";
    argv[a->argc + 1] = wspec[w];
    argv[a->argc + 2] = NULL;
    int rc = posix_spawn(&pid[n], "/proc/self/exe", NULL, NULL, argv, env);
    if (rc) {
      err = EM_RAISE(EM_ERR_IO, "--jobs: cannot start worker %d: %s", w, strerror(rc));
      break;
    }
    n++;
  }
  int forwarded = 0;
  for (int i = 0; i < n; i++) {
    int st = 0;
    for (;;) {
      if (em_app_signal() && !forwarded) { /* a SIGTERM to us alone: the workers stop too */
        for (int j = 0; j < n; j++) kill(pid[j], em_app_signal());
        forwarded = 1;
      }
      if (waitpid(pid[i], &st, 0) >= 0 || errno != EINTR) break;
    }
    if (em_app_signal()) continue; /* the sweep reports the signal */
    if (!err && !(WIFEXITED(st) && WEXITSTATUS(st) < 100))
      err = EM_RAISE(EM_ERR_IO, "--jobs: worker %d stopped (%s %d)", i,
                     WIFSIGNALED(st) ? "signal" : "exit status",
                     WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
  }
done:
  em_free(&env);
  em_free(&argv);
  return err;
}
