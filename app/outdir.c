/* outdir.c - a run owns its output directory: a lock file refuses a second
 * run into it, the earlier outputs of the same case go before the first new
 * one is written (no stale fields_*.vtk beside new results), and a run that
 * fails or is interrupted removes what it wrote (--dump-matrix included).
 *
 * SIGINT / SIGTERM only set a flag (nothing else is safe in a handler); the
 * pipeline looks at it between stages and unwinds as from an error, so the
 * files are removed by the same path.  A second signal kills at once. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_run.h"

#define LOCK_NAME ".emsolve.lock"

/* The one piece of process-wide state: a signal handler can reach nothing
 * else.  0, or the number of the signal received. */
static volatile sig_atomic_t signal_ = 0;

static void on_signal(int sig) {
  signal_ = sig;
}

void em_app_signals_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = (int)SA_RESETHAND; /* the second signal takes the default action */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int em_app_signal(void) {
  return (int)signal_;
}

em_err em_app_check_signal(void) {
  int s = (int)signal_;
  EM_CHECK(!s, EM_ERR_INPUT, "interrupted by %s: stopping, removing this run's outputs",
           s == SIGINT    ? "SIGINT"
           : s == SIGTERM ? "SIGTERM"
                          : "a signal");
  return EM_OK;
}

/* The outputs a run of case `name` writes (docs/outputs.md). */
static int is_output(const char *f, const char *name) {
  static const char *const pat[] = {
      "fields_*.vtk", "line_*.csv", "farfield_*.csv", "pattern_*.csv", "pattern_*.vtk",
      "rcs_*.csv",    "rcs_*.vtk",  "antenna.csv",    "ports.csv",     "summary.json", "adapt.csv"};
  for (size_t k = 0; k < sizeof pat / sizeof pat[0]; k++)
    if (!fnmatch(pat[k], f, 0)) return 1;
  size_t n = strlen(name);
  /* <case>.s<N>p */
  if (!strncmp(f, name, n) && f[n] == '.' && f[n + 1] == 's') {
    const char *p = f + n + 2;
    while (*p >= '0' && *p <= '9') p++;
    return p > f + n + 2 && !strcmp(p, "p");
  }
  return 0;
}

static void remove_outputs(const char *dir, const char *name, const em_log *log) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  int n = 0;
  char path[1400];
  while ((e = readdir(d))) {
    if (!is_output(e->d_name, name)) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    n += unlink(path) == 0;
  }
  closedir(d);
  if (n) em_log_verbose(log, "removed %d outputs of an earlier run from %s", n, dir);
}

/* O_EXCL lock holding the pid; a lock whose process is gone is stale. */
static em_err lock(em_run *r) {
  char path[1100];
  snprintf(path, sizeof path, "%s/%s", r->out_dir, LOCK_NAME);
  for (int attempt = 0; attempt < 2; attempt++) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
      char buf[32];
      int k = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
      ssize_t w = write(fd, buf, (size_t)k);
      close(fd);
      EM_CHECK(w == k, EM_ERR_IO, "cannot write the lock file %s", path);
      r->locked = 1;
      return EM_OK;
    }
    EM_CHECK(errno == EEXIST, EM_ERR_IO, "cannot create the lock file %s: %s", path,
             strerror(errno));
    long pid = 0;
    FILE *f = fopen(path, "r");
    if (f) {
      if (fscanf(f, "%ld", &pid) != 1) pid = 0;
      fclose(f);
    }
    int alive = pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
    EM_CHECK(!alive, EM_ERR_INPUT,
             "output directory %s is in use by another emsolve run (pid %ld, lock file %s): "
             "wait for it, or give this run its own --out DIR",
             r->out_dir, pid, path);
    em_log_verbose(r->log, "removing the stale lock %s (pid %ld is gone)", path, pid);
    unlink(path);
  }
  return EM_RAISE(EM_ERR_IO, "cannot take the lock file %s", path);
}

em_err em_app_outdir_open(em_run *r) {
  const em_app_args *a = r->args;
  if (a->out_dir)
    snprintf(r->out_dir, sizeof r->out_dir, "%s", a->out_dir);
  else
    snprintf(r->out_dir, sizeof r->out_dir, "out/%s", em_case_name(r->cs));
  struct stat st;
  r->made_out_dir = stat(r->out_dir, &st) != 0;
  EM_TRY(em_mkdir_p(r->out_dir));
  EM_TRY(lock(r));
  return EM_OK;
}

void em_app_outdir_clear(em_run *r) {
  remove_outputs(r->out_dir, em_case_name(r->cs), r->log);
}

void em_app_outdir_close(em_run *r, em_err err) {
  char path[1400];
  if (err) {
    for (int i = 0; i < r->n_files; i++) {
      snprintf(path, sizeof path, "%s/%s", r->out_dir, r->files[i]);
      unlink(path);
    }
    if (r->dumped) unlink(r->args->dump_matrix);
    if (r->n_files || r->dumped)
      em_log_info(r->log, "the run failed: removed the %d files it wrote", r->n_files + r->dumped);
  }
  if (r->locked) {
    snprintf(path, sizeof path, "%s/%s", r->out_dir, LOCK_NAME);
    unlink(path);
    r->locked = 0;
  }
  /* a failed run leaves no empty output directory behind */
  if (err && r->made_out_dir) rmdir(r->out_dir);
}
