/* outdir.c - a run owns its output directory and never damages the result
 * already there (docs/outputs.md, "Staging").
 *
 * Lock: <out>/.emsolve.lock holds the pid and its start time (clock ticks
 * since boot, /proc/<pid>/stat field 22); a second run into the directory is
 * refused while that process lives.  A lock whose pid is gone, or names
 * another process now (the pid reused: another start time), is stale.
 *
 * Staging: every output of the run, its journal and adaptive samples
 * included, is written into <out>/.emsolve.partial/.  Only when the result
 * is complete are its files renamed into <out> (the journal last), and the
 * case's outputs of the earlier result that the new one does not have
 * removed; until then the earlier result keeps every byte, whatever stops
 * the run (an error, a refusal, a signal, a full disk, a --resume with
 * nothing to do).  A stopped run leaves the partial folder when it holds
 * finished frequencies (or adaptive solves): --resume goes on from it; a
 * run without --resume discards it.  The commit is a few renames with
 * SIGINT / SIGTERM blocked; a crash inside it leaves the journal in the
 * partial folder, and --resume completes the move.
 *
 * Signals: SIGINT / SIGTERM only set a flag (nothing else is safe in a
 * handler).  The solver, the factorization, the eigen solver and the VTK
 * writer poll it through their options (em_cancel) and stop within one
 * iteration / supernode / 256 tets; the pipeline looks at it between
 * stages.  A second signal kills at once. */
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app_run.h"

#define LOCK_NAME ".emsolve.lock"

/* ---------------------------------------------------------------- signals */

_Static_assert(sizeof(sig_atomic_t) == sizeof(int), "em_cancel is an int");

/* The one piece of process-wide state: a signal handler can reach nothing
 * else.  0, or the number of the signal received. */
static em_cancel signal_ = 0;

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
  signal(SIGXFSZ, SIG_IGN); /* a file-size limit: the write fails (EFBIG), as on a full disk */
}

int em_app_signal(void) {
  return (int)signal_;
}

const em_cancel *em_app_cancel(void) {
  return &signal_;
}

static const char *signal_name(int s) {
  return s == SIGINT ? "SIGINT" : s == SIGTERM ? "SIGTERM" : "a signal";
}

em_err em_app_check_signal(void) {
  int s = (int)signal_;
  EM_CHECK(!s, EM_ERR_CANCELLED, "interrupted by %s", signal_name(s));
  return EM_OK;
}

void em_app_signals_block(int block) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* -------------------------------------------------------------- processes */

/* Process pid's state letter (/proc/<pid>/stat field 3) and its start in
 * clock ticks since boot (field 22), after the command in parentheses;
 * 0 when unknown. */
static int proc_stat(long pid, char *state, unsigned long long *start) {
  char path[64], buf[2048];
  *state = 0;
  *start = 0;
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *p = strrchr(buf, ')');
  /* fields 4 (ppid) .. 21 (itrealvalue) skipped between them */
  return p && sscanf(p + 1,
                     " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
                     "%*s %llu",
                     state, start) == 2;
}

static unsigned long long start_ticks(long pid) {
  char state;
  unsigned long long t;
  return proc_stat(pid, &state, &t) ? t : 0;
}

/* 1 when no process has this pid (kill(pid, 0) fails with ESRCH), or it
 * is a zombie: killed and not yet reaped (its parent, e.g. mpirun, killed
 * too), it writes nothing more. */
static int pid_gone(long pid) {
  if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) return 1;
  char state;
  unsigned long long t;
  return proc_stat(pid, &state, &t) && (state == 'Z' || state == 'X');
}

/* Seconds since the epoch when the machine booted (/proc/stat btime), 0
 * when unknown. */
static long long boot_time(void) {
  FILE *f = fopen("/proc/stat", "r");
  if (!f) return 0;
  char line[256];
  long long b = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "btime %lld", &b) == 1) break;
  fclose(f);
  return b;
}

/* 1 when the process that wrote a file at mtime is not running: its pid is
 * gone, or belongs to a process started after the file was written. */
static int writer_gone(long pid, time_t mtime) {
  if (pid == (long)getpid()) return 0;
  if (pid_gone(pid)) return 1;
  unsigned long long t = start_ticks(pid);
  long long b = boot_time(), hz = sysconf(_SC_CLK_TCK);
  if (!t || !b || hz <= 0) return 0;
  return b + (long long)(t / (unsigned long long)hz) > (long long)mtime + 1;
}

/* ----------------------------------------------------------- the lock */

em_err em_app_dir_lock(const char *dir, const em_log *log) {
  char path[1200];
  snprintf(path, sizeof path, "%.1100s/%s", dir, LOCK_NAME);
  for (int attempt = 0; attempt < 2; attempt++) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
      char buf[64];
      int k = snprintf(buf, sizeof buf, "%ld %llu\n", (long)getpid(), start_ticks((long)getpid()));
      ssize_t w = write(fd, buf, (size_t)k);
      close(fd);
      if (w != k) unlink(path);
      EM_CHECK(w == k, EM_ERR_IO, "cannot write the lock file %s", path);
      return EM_OK;
    }
    EM_CHECK(errno == EEXIST, EM_ERR_IO, "cannot create the lock file %s: %s", path,
             strerror(errno));
    long pid = 0;
    unsigned long long st = 0;
    FILE *f = fopen(path, "r");
    if (f) {
      if (fscanf(f, "%ld %llu", &pid, &st) < 1) pid = 0;
      fclose(f);
    }
    /* an older emsolve wrote the pid alone: alive while the pid lives */
    unsigned long long now = pid > 0 ? start_ticks(pid) : 0;
    int alive = !pid_gone(pid) && (st == 0 || now == 0 || now == st);
    EM_CHECK(!alive, EM_ERR_INPUT,
             "output directory %s is in use by another emsolve run (pid %ld, lock file %s): "
             "wait for it, or give this run its own --out DIR",
             dir, pid, path);
    em_log_verbose(log, "removing the stale lock %s (pid %ld %s)", path, pid,
                   pid_gone(pid) ? "is gone" : "is another process now");
    unlink(path);
  }
  return EM_RAISE(EM_ERR_IO, "cannot take the lock file %s", path);
}

void em_app_dir_unlock(const char *dir) {
  char path[1200];
  snprintf(path, sizeof path, "%.1100s/%s", dir, LOCK_NAME);
  unlink(path);
}

/* ------------------------------------------------- what emsolve writes */

/* The outputs of an eigen run (docs/eigen.md). */
static int is_eigen_output(const char *f) {
  return !fnmatch("modes.csv", f, 0) || !fnmatch("mode_*.vtk", f, 0);
}

/* The outputs of a driven run of case `name` (docs/outputs.md); name NULL:
 * of any case (<anything>.sNp). */
static int is_output(const char *f, const char *name) {
  static const char *const pat[] = {
      "fields_*.vtk", "line_*.csv",   "farfield_*.csv", "pattern_*.csv", "pattern_*.vtk",
      "rcs_*.csv",    "rcs_*.vtk",    "antenna.csv",    "ports.csv",     "summary.json",
      "array_*.csv",  "array.csv",    "active.csv",     "surface_*.vtk", "plane_*.csv",
      "plane_*.vtk",  "received.csv", "adapt.csv"};
  for (size_t k = 0; k < sizeof pat / sizeof pat[0]; k++)
    if (!fnmatch(pat[k], f, 0)) return 1;
  /* <case>.s<N>p, <case>_interp.s<N>p */
  const char *dot = strrchr(f, '.');
  if (!dot || dot[1] != 's') return 0;
  const char *p = dot + 2;
  while (*p >= '0' && *p <= '9') p++;
  if (p == dot + 2 || strcmp(p, "p")) return 0;
  if (!name) return 1;
  size_t n = strlen(name), m = (size_t)(dot - f);
  return !strncmp(f, name, n) && (m == n || (m == n + 7 && !strncmp(f + n, "_interp", 7)));
}

/* Files a run or a design sweep writes besides the outputs. */
static int is_bookkeeping(const char *f) {
  static const char *const pat[] = {"sweep.journal", "sweep.sample*.bin", "point.done",
                                    "point.failed",  "sweep.csv",         "sweep_summary.csv"};
  for (size_t k = 0; k < sizeof pat / sizeof pat[0]; k++)
    if (!fnmatch(pat[k], f, 0)) return 1;
  return 0;
}

/* "<file>.tmp.<pid>" (em_outfile's temporary name): *pid and 1. */
static int temp_of(const char *f, long *pid) {
  const char *t = strstr(f, ".tmp.");
  if (!t) return 0;
  const char *d = t + 5;
  char *end = NULL;
  *pid = strtol(d, &end, 10);
  return end != d && *end == '\0';
}

void em_app_dir_clean_temps(const char *dir, const em_log *log) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char path[1400], base[300];
  int n = 0;
  while ((e = readdir(d))) {
    long pid = 0;
    if (!temp_of(e->d_name, &pid) || strlen(e->d_name) >= sizeof base) continue;
    snprintf(base, sizeof base, "%.*s", (int)(strstr(e->d_name, ".tmp.") - e->d_name), e->d_name);
    if (!is_output(base, NULL) && !is_eigen_output(base) && !is_bookkeeping(base))
      continue; /* not ours */
    struct stat st;
    snprintf(path, sizeof path, "%.1100s/%.255s", dir, e->d_name);
    if (stat(path, &st) || !S_ISREG(st.st_mode) || !writer_gone(pid, st.st_mtime)) continue;
    n += unlink(path) == 0;
  }
  closedir(d);
  if (n) em_log_info(log, "removed %d temporary files of killed runs from %s", n, dir);
}

/* --------------------------------------------------------------- staging */

/* dir's files and its subfolders' files removed, then dir (two levels: the
 * partial folder holds files and plots/). */
static void remove_tree(const char *dir, int depth) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char path[1400];
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(path, sizeof path, "%.1100s/%.255s", dir, e->d_name);
    struct stat st;
    if (lstat(path, &st)) continue;
    if (S_ISDIR(st.st_mode)) {
      if (depth > 0) remove_tree(path, depth - 1);
    } else {
      unlink(path);
    }
  }
  closedir(d);
  rmdir(dir);
}

/* Frequencies journaled in dir (freq lines of its journal), and whether it
 * holds adaptive samples: what a --resume can take up. */
static int resumable(const char *dir, int *n_freq) {
  char path[1400], line[64];
  *n_freq = 0;
  snprintf(path, sizeof path, "%.1100s/sweep.journal", dir);
  FILE *f = fopen(path, "r");
  if (f) {
    int c, at_start = 1, k = 0;
    /* count lines starting "freq " without holding whole (long) lines */
    while ((c = fgetc(f)) != EOF) {
      if (at_start) k = 0;
      if (k < 5) line[k] = (char)c;
      k++;
      if (k == 5 && !strncmp(line, "freq ", 5)) (*n_freq)++;
      at_start = c == '\n';
    }
    fclose(f);
  }
  int samples = 0;
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)))
      if (!fnmatch("sweep.sample*.bin", e->d_name, 0)) samples++;
    closedir(d);
  }
  return *n_freq > 0 || samples > 0;
}

static int dir_empty(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 1;
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n == 0;
}

em_err em_app_outdir_open(em_run *r) {
  const em_app_args *a = r->args;
  if (a->out_dir)
    snprintf(r->final_dir, sizeof r->final_dir, "%s", a->out_dir);
  else
    snprintf(r->final_dir, sizeof r->final_dir, "out/%s", em_case_name(r->m.cs));
  snprintf(r->out.dir, sizeof r->out.dir, "%s", r->final_dir);
  r->out.cancel = em_app_cancel(); /* the writers stop on a signal too */
  struct stat st;
  r->made_out_dir = stat(r->final_dir, &st) != 0;
  EM_TRY(em_mkdir_p(r->final_dir));
  EM_TRY(em_app_dir_lock(r->final_dir, r->log));
  r->locked = 1;
  em_app_dir_clean_temps(r->final_dir, r->log);
  return EM_OK;
}

em_err em_app_outdir_stage(em_run *r) {
  char p[sizeof r->out.dir];
  int k = snprintf(p, sizeof p, "%.1000s/%s", r->final_dir, EM_PARTIAL_DIR);
  EM_CHECK(k > 0 && (size_t)k < sizeof p, EM_ERR_INPUT, "output path %s is too long", r->final_dir);
  struct stat st;
  int exists = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
  /* an unfinished (driven) run: go on from it; an eigen run has nothing to resume */
  if (exists && r->args->resume && !r->m.cfg.eigen && !dir_empty(p)) {
    em_app_dir_clean_temps(p, r->log);
    r->stage = 2;
    em_log_verbose(r->log, "resume: the unfinished run's files in %s", p);
  } else {
    int n = 0;
    if (exists && resumable(p, &n))
      em_log_warn(r->log,
                  "the unfinished run in %s (%d frequencies journaled) is discarded: without "
                  "--resume a run starts afresh",
                  p, n);
    if (exists) remove_tree(p, 1);
    EM_CHECK(mkdir(p, 0777) == 0, EM_ERR_IO, "cannot create %s: %s", p, strerror(errno));
    r->stage = 1;
  }
  snprintf(r->out.dir, sizeof r->out.dir, "%s", p);
  return EM_OK;
}

/* The names moved from the partial folder, to tell the earlier result's
 * stale outputs from the new ones. */
typedef struct names {
  int n, cap;
  char **v;
} names;

static em_err names_add(names *s, const char *f) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    EM_TRY(em_realloc(&s->v, (size_t)s->cap, sizeof *s->v, "output names"));
  }
  EM_TRY(em_strdup(&s->v[s->n], f));
  s->n++;
  return EM_OK;
}

static int names_has(const names *s, const char *f) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->v[i], f)) return 1;
  return 0;
}

static void names_free(names *s) {
  for (int i = 0; i < s->n; i++) em_free(&s->v[i]);
  em_free(&s->v);
  s->n = s->cap = 0;
}

/* One of the run's outputs (r->out.files): besides the files moved now, those a
 * commit that stopped half way had moved already (a --resume finishing it
 * lists them from the output directory, app/sweep.c). */
static int listed(const em_run *r, const char *f) {
  for (int i = 0; i < r->out.n_files; i++)
    if (!strcmp(r->out.files[i], f)) return 1;
  return 0;
}

static em_err move(const char *from, const char *to, const char *stage) {
  if (rename(from, to) == 0) return EM_OK;
  return EM_RAISE(EM_ERR_IO,
                  "cannot move %s to %s: %s; the complete result is in %s: the same command "
                  "with --resume finishes the move",
                  from, to, strerror(errno), stage);
}

/* plots/ of the partial folder into <final>/plots (file by file: an
 * earlier plots/ may hold other files) */
static em_err move_dir(const char *from, const char *to, const char *stage) {
  EM_TRY(em_mkdir_p(to));
  DIR *d = opendir(from);
  EM_CHECK(d, EM_ERR_IO, "cannot read %s: %s", from, strerror(errno));
  struct dirent *e;
  em_err err = EM_OK;
  char a[1400], b[1400];
  long pid;
  while (!err && (e = readdir(d))) {
    if (e->d_name[0] == '.' || temp_of(e->d_name, &pid)) continue;
    snprintf(a, sizeof a, "%.1100s/%.255s", from, e->d_name);
    snprintf(b, sizeof b, "%.1100s/%.255s", to, e->d_name);
    err = move(a, b, stage);
  }
  closedir(d);
  return err;
}

/* Every file of the partial folder into the output directory (the journal
 * last: until it moves, --resume sees an unfinished run and completes the
 * move), then the earlier result's outputs the new one lacks removed. */
static em_err swap(em_run *r) {
  const char *stage = r->out.dir, *final = r->final_dir, *name = em_case_name(r->m.cs);
  names moved = {0};
  em_err err = EM_OK;
  char a[1400], b[1400];
  long pid;
  DIR *d = opendir(stage);
  EM_CHECK(d, EM_ERR_IO, "cannot read %s: %s", stage, strerror(errno));
  struct dirent *e;
  while (!err && (e = readdir(d))) {
    const char *f = e->d_name;
    if (f[0] == '.' || temp_of(f, &pid) || !strcmp(f, "sweep.journal") ||
        !fnmatch("sweep.sample*.bin", f, 0))
      continue;
    snprintf(a, sizeof a, "%.1100s/%.255s", stage, f);
    snprintf(b, sizeof b, "%.1100s/%.255s", final, f);
    struct stat st;
    if (lstat(a, &st)) continue;
    err = names_add(&moved, f);
    if (!err) err = S_ISDIR(st.st_mode) ? move_dir(a, b, stage) : move(a, b, stage);
  }
  closedir(d);
  int eigen = r->m.cfg.eigen; /* an eigen result replaces the earlier modes, a driven one the
                              earlier driven result: each leaves the other kind alone */
  if (!err) {
    snprintf(a, sizeof a, "%.1100s/sweep.journal", stage);
    snprintf(b, sizeof b, "%.1100s/sweep.journal", final);
    if (access(a, F_OK) == 0)
      err = move(a, b, stage);
    else if (!eigen)
      unlink(b); /* it described the earlier result */
  }
  if (!err && (d = opendir(final))) { /* the earlier result's leftovers */
    int n = 0;
    while ((e = readdir(d))) {
      const char *f = e->d_name;
      int old =
          eigen ? is_eigen_output(f) : is_output(f, name) || !fnmatch("sweep.sample*.bin", f, 0);
      if (old && !names_has(&moved, f) && !listed(r, f)) {
        snprintf(b, sizeof b, "%.1100s/%.255s", final, f);
        n += unlink(b) == 0;
      }
    }
    closedir(d);
    if (n) em_log_verbose(r->log, "removed %d outputs of the earlier result from %s", n, final);
  }
  names_free(&moved);
  if (!err) remove_tree(stage, 1);
  return err;
}

em_err em_app_outdir_commit(em_run *r) {
  EM_CHECK(r->stage, EM_ERR_INTERNAL, "commit without a partial folder");
  EM_TRY(em_app_check_signal()); /* the last moment a signal stops the run */
  em_app_signals_block(1);
  em_err err = swap(r);
  em_app_signals_block(0);
  EM_TRY(err);
  r->stage = 0;
  r->committed = 1;
  snprintf(r->out.dir, sizeof r->out.dir, "%s", r->final_dir);
  return EM_OK;
}

void em_app_outdir_close(em_run *r, em_err err) {
  int n_kept = 0, kept = 0;
  if (r->stage) { /* not committed: the earlier result is as it was */
    kept = resumable(r->out.dir, &n_kept) && !r->noop;
    if (!kept)
      remove_tree(r->out.dir, 1);
    else if (!em_app_signal()) /* (a signal's message says it) */
      em_log_info(r->log,
                  "the unfinished result (%d frequencies journaled) is kept in %s: the same "
                  "command with --resume goes on from it",
                  n_kept, r->out.dir);
  }
  if (err && r->dumped) unlink(r->args->dump_matrix);
  if (err && em_app_signal()) { /* the message a user reads: what stopped, what is kept */
    char msg[1024], cause[1100], where[1400];
    snprintf(msg, sizeof msg, "%s", em_error_message());
    /* the stage it stopped in ("bicgstab: cancelled at iteration 17"), unless
       it was only between stages */
    if (strncmp(msg, "interrupted by", 14))
      snprintf(cause, sizeof cause, " (%s)", msg);
    else
      cause[0] = '\0';
    if (kept && n_kept)
      snprintf(where, sizeof where,
               "; %d %s journaled in %s: run the same command with --resume to finish", n_kept,
               n_kept == 1 ? "frequency is" : "frequencies are", r->out.dir);
    else if (kept)
      snprintf(where, sizeof where,
               "; the adaptive sweep's full solves are kept in %s: run the same command with "
               "--resume to finish",
               r->out.dir);
    else
      where[0] = '\0';
    em_error_clear();
    em_error_raise(EM_ERR_CANCELLED, __FILE__, __LINE__,
                   "interrupted by %s%s%s; the earlier results in %s are untouched",
                   signal_name(em_app_signal()), cause, where,
                   r->final_dir[0] ? r->final_dir : "the output directory");
  }
  if (r->locked) {
    em_app_dir_unlock(r->final_dir);
    r->locked = 0;
  }
  /* a failed run leaves no empty output directory behind */
  if (err && r->made_out_dir) rmdir(r->final_dir);
}
