/* sweep.c - the frequency loop: resume from the journal, solve what is
 * left in order, journal each frequency as it completes, stop cleanly on
 * Ctrl-C, one progress line per frequency with the time left. */
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "app_sweep.h"

/* The one flag a signal handler may set (C11 7.14.1.1): the only mutable
 * file-scope state of the program, read between frequencies. */
static volatile sig_atomic_t g_interrupted;

static void on_sigint(int sig) {
  (void)sig;
  g_interrupted = 1;
}

/* "1 h 02 min", "3 min 20 s", "12 s" */
static void fmt_time(double s, char *buf, size_t n) {
  long t = (long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, n, "%ld h %02ld min", t / 3600, t % 3600 / 60);
  else if (t >= 60)
    snprintf(buf, n, "%ld min %02ld s", t / 60, t % 60);
  else
    snprintf(buf, n, "%ld s", t);
}

/* Outputs of a frequency solved by an earlier run (fields_<i>.vtk, ...)
 * stay listed in summary.json when they are still there. */
static void list_earlier_outputs(em_run *r, int fi) {
  static const char *const pat[] = {"fields_%d.vtk",  "line_%d.csv",    "farfield_%d.csv",
                                    "pattern_%d.csv", "pattern_%d.vtk", "rcs_%d.csv",
                                    "rcs_%d.vtk"};
  for (size_t k = 0; k < sizeof pat / sizeof pat[0]; k++) {
    char name[64], path[1200];
    struct stat st;
    snprintf(name, sizeof name, pat[k], fi);
    snprintf(path, sizeof path, "%s/%s", r->out_dir, name);
    if (stat(path, &st) == 0 && r->n_files < 64)
      snprintf(r->files[r->n_files++], sizeof r->files[0], "%s", name);
  }
  struct stat st;
  char path[1200];
  snprintf(path, sizeof path, "%s/antenna.csv", r->out_dir);
  /* app/farfield.c lists it when it solves the first frequency */
  if (fi == 0 && r->ff.enabled && stat(path, &st) == 0 && r->n_files < 64)
    snprintf(r->files[r->n_files++], sizeof r->files[0], "antenna.csv");
}

static em_err sweep(em_run *r, uint8_t *done) {
  int nf = r->cfg.n_freq, n_resumed = 0;
  EM_TRY(em_journal_key(r, &r->journal_key));
  if (r->args->resume) {
    EM_TRY(em_journal_read(r, done, &n_resumed));
    em_log_info(r->log, "resume: %d of %d frequencies done in %s/%s", n_resumed, nf, r->out_dir,
                EM_JOURNAL_NAME);
    for (int i = 0; i < nf; i++)
      if (done[i]) list_earlier_outputs(r, i);
  }
  double t_solved = 0;
  int n_solved = 0, left = nf - n_resumed;
  for (int i = 0; i < nf; i++) {
    if (done[i]) continue;
    char eta[64] = "";
    if (n_solved) {
      char t[32];
      fmt_time(t_solved / n_solved * left, t, sizeof t);
      snprintf(eta, sizeof eta, ", about %s left", t);
    }
    em_log_info(r->log, "frequency %d/%d: %.6g GHz%s", i + 1, nf, r->cfg.freq[i] * 1e-9, eta);
    double t0 = em_wtime();
    EM_TRY(em_run_solve_frequency(r, i));
    t_solved += em_wtime() - t0;
    n_solved++;
    left--;
    done[i] = 1;
    EM_TRY(em_journal_write(r, done));
    if (g_interrupted && left > 0) {
      /* the journal holds every finished frequency: --resume goes on */
      return EM_RAISE(EM_ERR_INPUT,
                      "interrupted after %d of %d frequencies; they are journaled in %s/%s: run "
                      "the same command with --resume to finish",
                      nf - left, nf, r->out_dir, EM_JOURNAL_NAME);
    }
  }
  return EM_OK;
}

em_err em_sweep_run(em_run *r) {
  uint8_t *done = NULL;
  EM_TRY(em_calloc(&done, (size_t)r->cfg.n_freq, 1, "frequencies done"));
  /* Ctrl-C finishes the frequency under way; a second one kills at once */
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  g_interrupted = 0;
  sigaction(SIGINT, &sa, &old);
  em_err err = sweep(r, done);
  sigaction(SIGINT, &old, NULL);
  int n = 0;
  for (int i = 0; i < r->cfg.n_freq; i++) n += done[i];
  r->n_done = n;
  em_free(&done);
  return err;
}
