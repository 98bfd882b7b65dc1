/* sweep.c - the frequency loop: resume from the journal, solve what is
 * left in order, journal each frequency as it completes, stop cleanly on
 * Ctrl-C, one progress line per frequency with the time left. */
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "app_sweep.h"
#include "em_model.h"

/* SIGINT / SIGTERM: app/outdir.c's flag (em_app_signal), read between
 * frequencies; the journal stays for --resume, the exit code is 128 + the
 * signal (app/main.c). */
#define g_interrupted (em_app_signal() != 0)

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
  if (r->args->resume) {
    EM_TRY(em_journal_read(r, done, &n_resumed));
    em_log_info(r->log, "resume: %d of %d frequencies done in %s/%s", n_resumed, nf, r->out_dir,
                EM_JOURNAL_NAME);
    for (int i = 0; i < nf; i++)
      if (done[i]) list_earlier_outputs(r, i);
  }
  double t_solved = 0;
  int n_solved = 0, left = nf - n_resumed;
  r->t_sweep = em_wtime(); /* the progress line's elapsed time and estimate (app/face.c) */
  for (int i = 0; i < nf; i++) {
    if (done[i]) continue;
    /* the first frequency shows its stages; the others one line each */
    em_log_verbose(r->log, "frequency %d/%d: %.6g GHz", i + 1, nf, r->cfg.freq[i] * 1e-9);
    double t0 = em_wtime();
    r->eta[0] = '\0';
    if (n_solved && left > 1) { /* the mean of those solved (the first carries the analysis) */
      char t[32];
      fmt_time(t_solved / n_solved * (left - 1), t, sizeof t);
      snprintf(r->eta, sizeof r->eta, ", about %s left", t);
    }
    EM_TRY(em_run_solve_frequency(r, i));
    t_solved += em_wtime() - t0;
    n_solved++;
    left--;
    done[i] = 1;
    em_stage_begin(r->log, EM_STAGE_WRITING);
    em_err err = em_journal_write(r, done);
    em_stage_end(r->log, EM_STAGE_WRITING, "journal");
    EM_TRY(err);
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

/* ------------------------------------------------------- adaptive sweep */

static em_err sample_solve(void *ctx, double f, em_cplx *u, em_cplx *y) {
  em_run *r = ctx;
  int k = r->n_samples, np = r->setup.n_port, found = 0;
  int64_t nu = (int64_t)r->dofs->n_dof * np, ny = (int64_t)np * np;
  EM_CHECK(k < r->cfg.sweep_max_solves, EM_ERR_INTERNAL, "adaptive sweep: too many solves");
  if (r->args->resume) EM_TRY(em_journal_sample_load(r, k, f, u, nu, y, ny, &found));
  if (found) {
    em_log_info(r->log, "adaptive sweep: solve %d at %.6g GHz read from sweep.sample%d.bin", k + 1,
                f * 1e-9, k);
    r->n_samples++;
  } else {
    em_log_verbose(r->log, "adaptive sweep: full solve %d at %.6g GHz", k + 1, f * 1e-9);
    EM_TRY(em_run_solve_sample(r, f, &r->sample[k], u, y));
    EM_TRY(em_journal_sample_save(r, k, u, nu, y, ny));
  }
  if (!r->sample[k].converged) r->sweep_converged = 0;
  EM_CHECK(!g_interrupted, EM_ERR_INPUT,
           "interrupted after %d full solves of the adaptive sweep; they are kept in %s/"
           "sweep.sample<k>.bin: run the same command with --resume to go on",
           r->n_samples, r->out_dir);
  return EM_OK;
}

/* S from what the ports measured, at f (the port constants follow f) */
static em_err sample_output(void *ctx, double f, const em_cplx *y, em_cplx *s) {
  em_run *r = ctx;
  int np = r->setup.n_port;
  double zref[EM_MAX_PORTS];
  em_cplx zin[EM_MAX_PORTS];
  for (int p = 0; p < np; p++)
    EM_TRY(em_port_set_frequency(&r->setup.port[p], 2 * M_PI * f / EM_C0));
  return em_port_sparams(np, r->setup.port, y, s, zref, zin);
}

/* Whether frequency fi writes anything that needs the field itself. */
static int needs_field(const em_run *r, int fi) {
  const em_run_config *c = &r->cfg;
  return r->ff.enabled || c->line_points > 0 || c->fields == 2 || (c->fields == 1 && fi == 0) ||
         (c->fields == 3 && fi == c->n_freq / 2);
}

/* The model at the run's frequencies: S and Zin from the measurements'
 * barycentric sum, the fields (where asked) from the snapshots'. */
static em_err evaluate(em_run *r, const em_mri *m) {
  int np = r->setup.n_port, nf = r->cfg.n_freq;
  int64_t nu = (int64_t)r->dofs->n_dof * np;
  em_cplx y[EM_MAX_PORTS * EM_MAX_PORTS], *x = NULL;
  em_err err = EM_OK;
  for (int i = 0; i < nf && !err; i++) {
    em_freq_result *fr = &r->fr[i];
    fr->f = r->cfg.freq[i];
    fr->k0 = 2 * M_PI * fr->f / EM_C0;
    fr->from_model = 1;
    fr->converged = r->sweep_converged;
    if (needs_field(r, i)) {
      if (!x) EM_TRY(em_calloc(&x, (size_t)nu, sizeof *x, "fields from the model"));
      em_mri_eval_snapshot(m, fr->f, x);
      err = em_run_post_frequency(r, i, x, NULL);
      continue;
    }
    em_mri_eval(m, fr->f, y);
    for (int p = 0; p < np && !err; p++) err = em_port_set_frequency(&r->setup.port[p], fr->k0);
    if (!err)
      err = em_port_sparams(np, r->setup.port, y, r->S + (size_t)i * np * np, r->zref,
                            r->zin + (size_t)i * np);
    if (!err) { /* each row keeps its own port references (ports.csv, Touchstone) */
      memcpy(r->zport + (size_t)i * np, r->zref, (size_t)np * sizeof *r->zref);
      em_app_flag_frequency(r, i);
    }
  }
  em_free(&x);
  return err;
}

static em_err adaptive(em_run *r) {
  const em_run_config *c = &r->cfg;
  int np = r->setup.n_port;
  EM_CHECK(np > 0, EM_ERR_INPUT,
           "Solver/sweep adaptive models the port responses: the case has no port (a plane wave "
           "drives it); use Solver/sweep uniform");
  const char *ffc = NULL;
  if (r->ff.enabled && !em_case_string(r->cs, "Farfield/compute", &ffc) && !strcmp(ffc, "auto")) {
    /* an NF2FF transform per model frequency costs more than the sweep */
    r->ff.enabled = 0;
    em_log_info(r->log,
                "adaptive sweep: no far field at the %d model frequencies with "
                "Farfield/compute auto (set it on to have them)",
                c->n_freq);
  }
  em_error_clear();
  EM_TRY(em_calloc(&r->sample, (size_t)c->sweep_max_solves, sizeof *r->sample, "samples"));
  r->sweep_converged = 1;
  em_adaptive a = {.f0 = c->freq[0],
                   .f1 = c->freq[c->n_freq - 1],
                   .tol = c->sweep_tol,
                   .max_solves = c->sweep_max_solves,
                   .n_test = c->n_freq > 201 ? c->n_freq : 201,
                   .n_u = (int64_t)r->dofs->n_dof * np,
                   .n_y = np * np,
                   .n_s = np * np,
                   .solve = sample_solve,
                   .output = sample_output,
                   .ctx = r,
                   .log = r->log};
  em_mri *m = NULL;
  em_adaptive_result res;
  double t0 = em_wtime();
  EM_TRY(em_adaptive_run(&a, &m, &res));
  r->sweep_estimate = res.estimate;
  r->sweep_check = res.check;
  int ok = res.converged;
  if (!ok) r->sweep_converged = 0;
  if (ok)
    em_log_info(r->log,
                "adaptive sweep: %d full solves in %.1f s; the models of the last two sample sets "
                "agree to %.2e on S, the last solve was predicted to %.2e (tolerance %.0e)",
                res.n_solves, em_wtime() - t0, res.estimate, res.check, c->sweep_tol);
  else
    em_log_warn(r->log,
                "adaptive sweep: not converged after %d full solves (Solver/sweep_max_solves): "
                "error estimate %.2e, last check %.2e, tolerance %.0e; the results are marked "
                "not converged",
                res.n_solves, res.estimate, res.check, c->sweep_tol);
  em_err err = evaluate(r, m);
  em_mri_destroy(&m);
  if (!err) r->n_done = c->n_freq;
  if (!err) em_journal_samples_remove(r);
  return err;
}

static em_err uniform(em_run *r) {
  uint8_t *done = NULL;
  EM_TRY(em_calloc(&done, (size_t)r->cfg.n_freq, 1, "frequencies done"));
  em_err err = sweep(r, done);
  int n = 0;
  for (int i = 0; i < r->cfg.n_freq; i++) n += done[i];
  r->n_done = n;
  em_free(&done);
  return err;
}

em_err em_sweep_run(em_run *r) {
  EM_TRY(em_journal_key(r, &r->journal_key));
  /* Ctrl-C finishes the solve under way (the handler of app/outdir.c sets
     a flag; a second signal kills at once) */
  return r->cfg.sweep_adaptive ? adaptive(r) : uniform(r);
}
