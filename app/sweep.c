/* sweep.c - the frequency loop: resume from the journal, solve what is
 * left in order, journal each frequency as it completes, stop cleanly on
 * Ctrl-C, one progress line per frequency with the time left. */
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "app_dist.h" /* MPI: the frequencies shared among ranks */
#include "app_sweep.h"

/* SIGINT / SIGTERM: app/outdir.c's flag, polled by the solve itself and
 * looked at after every frequency; the journal stays for --resume, the exit
 * code is 128 + the signal (app/main.c). */

/* Whether frequency fi of this run writes per-frequency output k of
 * list_earlier_outputs (fields, line, far field, pattern, RCS). */
static int writes(const em_model *m, int fi, size_t k) {
  const em_run_config *c = &m->cfg;
  int ff = m->ff.enabled, pw = m->ff.planewave;
  switch (k) {
    case 0:
      return c->fields == 2 || (c->fields == 1 && fi == 0) ||
             (c->fields == 3 && fi == c->n_freq / 2);
    case 1:
      return c->line_points > 0;
    case 2:
    case 3:
    case 4:
      return ff && !pw;
    default:
      return ff && pw;
  }
}

/* The per-frequency outputs of frequency fi, solved before the run was
 * stopped (fields_<f>GHz.vtk, ...), kept in the partial folder (or, those
 * this run writes, moved already by a commit that stopped half way): listed
 * in summary.json as a run that was never stopped lists them, and kept by
 * the commit. */
static void list_earlier_outputs(em_run *r, int fi) {
  em_outdir *out = &r->out;
  static const char *const pat[] = {"fields_%s.vtk",  "line_%s.csv",    "farfield_%s.csv",
                                    "pattern_%s.csv", "pattern_%s.vtk", "rcs_%s.csv",
                                    "rcs_%s.vtk"};
  char tag[32];
  em_post_freq_tag(r->m.cfg.freq[fi], tag, sizeof tag);
  for (size_t k = 0; k < sizeof pat / sizeof pat[0]; k++) {
    char name[64], path[1200];
    struct stat st;
    if (!writes(&r->m, fi, k)) continue;
    snprintf(name, sizeof name, pat[k], tag);
    int here = !em_outdir_path(out, name, path, sizeof path) && stat(path, &st) == 0;
    snprintf(path, sizeof path, "%.1100s/%.63s", r->final_dir, name);
    if (!here && !(r->stage == 2 && stat(path, &st) == 0)) continue;
    em_outdir_add(out, name);
    if (k == 0) snprintf(r->res.fr[fi].fields, sizeof r->res.fr[fi].fields, "%s", name);
  }
  struct stat st;
  char path[1200];
  /* post/ff_frequency.c lists it when it solves the first frequency */
  if (fi == 0 && r->m.ff.enabled && !em_outdir_path(out, "antenna.csv", path, sizeof path) &&
      stat(path, &st) == 0)
    em_outdir_add(out, "antenna.csv");
}

/* Frequency fi complete: journaled (every finished frequency: --resume
 * goes on; app/outdir.c keeps the partial folder and says so). */
static em_err journal_done(em_run *r, uint8_t *done, int fi) {
  done[fi] = 1;
  em_stage_begin(r->log, EM_STAGE_WRITING);
  em_err err = em_journal_write(r, done);
  em_stage_end(r->log, EM_STAGE_WRITING, "journal");
  return err;
}

/* The outputs under way on their thread (sweep_post.c) joined and, when
 * complete, their frequency journaled.  err: the caller's own error (or
 * EM_OK), which wins over the join's (its message kept). */
static em_err post_finish(em_run *r, uint8_t *done, em_sweep_post **h, em_err err) {
  if (!*h) return err;
  char msg[512] = "";
  if (err) snprintf(msg, sizeof msg, "%s", em_error_message());
  int fi = -1;
  em_err perr = em_sweep_post_join(r, h, &fi);
  if (fi >= 0) perr = journal_done(r, done, fi);
  if (!err) return perr;
  if (!perr) return err;
  em_error_clear(); /* the join's trace: the caller's error is the one to say */
  return EM_RAISE(err, "%s", msg);
}

static em_err sweep(em_run *r, uint8_t *done, int n_resumed) {
  int nf = r->m.cfg.n_freq;
  if (em_sweep_dist_on(r)) return em_sweep_dist_uniform(r, done); /* app/sweep_dist.c */
  int left = nf - n_resumed, bg = em_sweep_post_may(r);
  em_sweep_post *post = NULL; /* frequency i - 1's outputs while i solves */
  r->t_sweep = em_wtime();    /* the progress line's elapsed time and estimate (app/face.c) */
  for (int i = 0; i < nf; i++) {
    if (done[i]) continue;
    /* the first frequency shows its stages; the others one line each */
    em_log_verbose(r->log, "frequency %d/%d: %.6g GHz", i + 1, nf, r->m.cfg.freq[i] * 1e-9);
    int j = i + 1; /* the next one this run solves: assembled ahead (app/solve.c) */
    while (j < nf && done[j]) j++;
    r->next_f = j < nf ? r->m.cfg.freq[j] : 0;
    r->last_solve = j >= nf; /* its solver released beside its outputs (app/release.c) */
    em_system *sys = NULL;
    em_cplx *x = NULL;
    em_err err = em_run_solve_only(r, i, &sys, &x);
    /* the previous frequency's outputs, made beside this solve: joined and
       journaled whatever this solve gave */
    err = post_finish(r, done, &post, err);
    if (!err && bg && j < nf) err = em_sweep_post_start(r, i, &sys, &x, &post);
    if (!err && !post) { /* in turn: the last frequency, or no thread */
      err = em_run_post_frequency(r, i, sys, x);
      if (!err) err = journal_done(r, done, i);
    }
    em_system_destroy(&sys);
    em_free(&x);
    if (!err) err = em_app_check_signal(); /* the thread joined first: nothing lost */
    if (err) return post_finish(r, done, &post, err);
    left--;
  }
  return post_finish(r, done, &post, EM_OK);
}

/* ------------------------------------------------------- adaptive sweep */

static em_err sample_solve(void *ctx, double f, em_cplx *u, em_cplx *y) {
  em_run *r = ctx;
  em_results *res = &r->res;
  int k = res->n_samples, np = r->m.setup.n_port, found = 0;
  int ne = em_excite_count(em_post_excited(&r->m)); /* the solutions: Excitation/ports */
  int64_t nu = (int64_t)r->m.dofs->n_dof * ne, ny = (int64_t)np * np;
  EM_CHECK(k < r->m.cfg.sweep_max_solves, EM_ERR_INTERNAL, "adaptive sweep: too many solves");
  if (r->args->resume) EM_TRY(em_journal_sample_load(r, k, f, u, nu, y, ny, &found));
  if (found)
    em_log_info(r->log, "adaptive sweep: solve %d at %.6g GHz read from sweep.sample%d.bin", k + 1,
                f * 1e-9, k);
  else /* MPI: an initial sample another rank solved (app/sweep_dist.c) */
    EM_TRY(em_sweep_dist_sample_take(r, k, f, u, y, &found));
  if (found) {
    res->n_samples++;
  } else {
    em_log_verbose(r->log, "adaptive sweep: full solve %d at %.6g GHz", k + 1, f * 1e-9);
    EM_TRY(em_run_solve_sample(r, f, &res->sample[k], u, y));
    EM_TRY(em_journal_sample_save(r, k, u, nu, y, ny));
  }
  if (!res->sample[k].converged) res->sweep_converged = 0;
  /* the samples stay for --resume (app/outdir.c keeps the partial folder) */
  EM_TRY(em_app_check_signal());
  return EM_OK;
}

/* S from what the ports measured, at f (post/freq.c) */
static em_err sample_output(void *ctx, double f, const em_cplx *y, em_cplx *s) {
  const em_run *r = ctx;
  EM_TRY(em_post_sparams_at(&r->m, f, y, s));
  /* the columns not solved (Excitation/ports) are NaN: 0 for the sweep's
     error estimate, which compares every entry */
  int ns = r->m.setup.n_port * r->m.setup.n_port;
  for (int q = 0; q < ns; q++)
    if (isnan(creal(s[q])) || isnan(cimag(s[q]))) s[q] = 0;
  return EM_OK;
}

/* Whether frequency fi writes anything that needs the field itself. */
static int needs_field(const em_model *m, int fi) {
  const em_run_config *c = &m->cfg;
  return m->ff.enabled || c->line_points > 0 || c->fields == 2 || (c->fields == 1 && fi == 0) ||
         (c->fields == 3 && fi == c->n_freq / 2);
}

/* The model at the run's frequencies: S and Zin from the measurements'
 * barycentric sum, the fields (where asked) from the snapshots'. */
static em_err evaluate(em_run *r, const em_mri *mri) {
  const em_model *m = &r->m;
  em_results *res = &r->res;
  int nf = m->cfg.n_freq;
  int64_t nu = (int64_t)m->dofs->n_dof * em_excite_count(em_post_excited(m));
  em_cplx y[EM_MAX_PORTS * EM_MAX_PORTS], *x = NULL;
  em_err err = EM_OK;
  for (int i = 0; i < nf && !err; i++) {
    em_freq_result *fr = &res->fr[i];
    fr->f = m->cfg.freq[i];
    fr->k0 = 2 * M_PI * fr->f / EM_C0;
    fr->from_model = 1;
    fr->converged = res->sweep_converged;
    if (needs_field(m, i)) {
      if (!x) EM_TRY(em_calloc(&x, (size_t)nu, sizeof *x, "fields from the model"));
      em_mri_eval_snapshot(mri, fr->f, x);
      err = em_post_frequency(m, res, &r->out, r->log, i, x, NULL);
      continue;
    }
    em_mri_eval(mri, fr->f, y);
    err = em_post_ports(m, res, r->log, i, y);
  }
  em_free(&x);
  return err;
}

/* With Farfield/compute auto the adaptive sweep computes the far field at
 * one model frequency: the one nearest the first Re Zin peak of port 1 (or
 * the first port driven; else its first |S11| minimum), from the model's
 * fields; antenna.csv
 * then has that row.  -1: no resonance in the band. */
static int resonance_index(const em_run *r) {
  const em_results *res = &r->res;
  int nf = res->n_freq, np = res->n_port, nz = 0, ns = 0;
  em_cplx *s = NULL;
  if (nf < 3 || em_calloc(&s, (size_t)nf, sizeof *s, "S11")) {
    em_error_clear();
    return -1;
  }
  int p = em_excite_port(em_post_excited(&r->m), 0); /* port 1, or the first driven */
  for (int i = 0; i < nf; i++) s[i] = res->S[(size_t)i * np * np + p * np + p];
  em_resonance zp, sm;
  em_res_find(nf, res->freq, s, res->zport[p], 1, &zp, &nz, &sm, &ns);
  em_free(&s);
  if (!nz && !ns) return -1;
  double f0 = nz ? zp.f0 : sm.f0;
  int best = 0;
  for (int i = 1; i < nf; i++)
    if (fabs(res->freq[i] - f0) < fabs(res->freq[best] - f0)) best = i;
  return best;
}

static em_err farfield_at_resonance(em_run *r, const em_mri *mri) {
  int fi = resonance_index(r);
  if (fi < 0) {
    em_log_info(r->log, "adaptive sweep: no resonance in the band, no far field");
    return EM_OK;
  }
  em_cplx *x = NULL;
  EM_TRY(em_calloc(&x, (size_t)r->m.dofs->n_dof * em_excite_count(em_post_excited(&r->m)),
                   sizeof *x, "fields"));
  em_mri_eval_snapshot(mri, r->res.freq[fi], x);
  r->m.ff.enabled = 1;
  em_err err = em_post_farfield_at(&r->m, &r->res, &r->out, r->log, fi, x, NULL);
  em_free(&x);
  if (!err)
    em_log_info(r->log,
                "adaptive sweep: far field at %.6g GHz only, the resonance (Farfield/compute "
                "on: at every model frequency)",
                r->res.freq[fi] * 1e-9);
  return err;
}

static em_err adaptive(em_run *r) {
  const em_run_config *c = &r->m.cfg;
  em_results *res = &r->res;
  int np = r->m.setup.n_port, ff_res = 0;
  EM_CHECK(np > 0, EM_ERR_INPUT,
           "Solver/sweep adaptive models the port responses: the case has no port (a plane wave "
           "drives it); use Solver/sweep uniform");
  if (r->m.ff.enabled && r->m.ff.compute_auto) {
    /* an NF2FF transform per model frequency costs more than the sweep:
       the far field at the resonance only (farfield_at_resonance) */
    r->m.ff.enabled = 0;
    ff_res = 1;
  }
  if (r->peer) return em_sweep_dist_sample_peer(r); /* MPI: one initial sample for rank 0 */
  EM_TRY(em_calloc(&res->sample, (size_t)c->sweep_max_solves, sizeof *res->sample, "samples"));
  res->sweep_converged = 1;
  em_adaptive a = {.f0 = c->freq[0],
                   .f1 = c->freq[c->n_freq - 1],
                   .tol = c->sweep_tol,
                   .max_solves = c->sweep_max_solves,
                   .n_test = c->n_freq > 201 ? c->n_freq : 201,
                   .n_u = (int64_t)r->m.dofs->n_dof * em_excite_count(em_post_excited(&r->m)),
                   .n_y = np * np,
                   .n_s = np * np,
                   .solve = sample_solve,
                   .output = sample_output,
                   .ctx = r,
                   .log = r->log};
  em_mri *mri = NULL;
  em_adaptive_result ar;
  double t0 = em_wtime();
  EM_TRY(em_adaptive_run(&a, &mri, &ar));
  em_err derr = em_sweep_dist_sample_drain(r); /* MPI: samples read from files instead */
  if (derr) {
    em_mri_destroy(&mri);
    return derr;
  }
  res->sweep_estimate = ar.estimate;
  res->sweep_check = ar.check;
  int ok = ar.converged;
  if (!ok) res->sweep_converged = 0;
  if (ok)
    em_log_info(r->log,
                "adaptive sweep: %d full solves in %.1f s; the models of the last two sample sets "
                "agree to %.2e on S, the last solve was predicted to %.2e (tolerance %.0e)",
                ar.n_solves, em_wtime() - t0, ar.estimate, ar.check, c->sweep_tol);
  else
    em_log_warn(r->log,
                "adaptive sweep: not converged after %d full solves (Solver/sweep_max_solves): "
                "error estimate %.2e, last check %.2e, tolerance %.0e; the results are marked "
                "not converged",
                ar.n_solves, ar.estimate, ar.check, c->sweep_tol);
  em_err err = evaluate(r, mri);
  if (!err && ff_res) err = farfield_at_resonance(r, mri);
  em_mri_destroy(&mri);
  if (!err) res->n_done = c->n_freq;
  if (!err) { /* the model's frequencies journaled: a --resume of the result finds it complete */
    uint8_t *all = NULL;
    err = em_calloc(&all, (size_t)c->n_freq, 1, "frequencies done");
    if (!err) memset(all, 1, (size_t)c->n_freq);
    if (!err) err = em_journal_write(r, all);
    em_free(&all);
  }
  if (!err) em_journal_samples_remove(r);
  return err;
}

em_err em_sweep_run(em_run *r) {
  int nf = r->m.cfg.n_freq, n_resumed = 0, complete = 0;
  uint8_t *done = NULL;
  EM_TRY(em_journal_key(r, &r->journal_key));
  EM_TRY(em_calloc(&done, (size_t)nf, 1, "frequencies done"));
  em_err err = EM_OK;
  if (r->args->resume && !r->peer) { /* an MPI peer: rank 0 says what is left */
    EM_TRY_GOTO(err, em_journal_read(r, done, &n_resumed, &complete), done);
    em_log_info(r->log, "resume: %d of %d frequencies done%s", n_resumed, nf,
                complete ? " (the complete result in the output directory)" : "");
    for (int i = 0; i < nf; i++)
      if (done[i]) list_earlier_outputs(r, i);
  }
  if (complete && n_resumed == nf) { /* nothing to do: the result stays as it is */
    r->noop = 1;
    r->res.n_done = nf;
    /* MPI: the peers wait for rank 0's word (nothing left) or send it their samples */
    if (em_sweep_dist_on(r))
      err =
          r->m.cfg.sweep_adaptive ? em_sweep_dist_sample_drain(r) : em_sweep_dist_uniform(r, done);
    goto done;
  }
  if (r->m.cfg.sweep_adaptive && n_resumed < nf) {
    err = adaptive(r); /* the full solves it kept (sweep.sample<k>.bin) are read back */
  } else {
    err = sweep(r, done, n_resumed);
    int n = 0;
    for (int i = 0; i < nf; i++) n += done[i];
    r->res.n_done = n;
  }
done:
  em_free(&done);
  return err;
}
