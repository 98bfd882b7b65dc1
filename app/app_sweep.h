/* app_sweep.h - the frequency loop of a run: the journal of finished
 * frequencies (resume), Ctrl-C, progress with the time left (private to
 * app/, docs/sweeps.md). */
#ifndef EM_APP_SWEEP_H
#define EM_APP_SWEEP_H

#include "app_run.h"

/* The journal: sweep.journal, one line per finished frequency with its
 * checksum, rewritten whole (temporary name + rename) after each; in the
 * partial folder while the run goes on, beside the result once complete.
 * Its key hashes the emsolve version, the case file's bytes and every
 * parameter; a journal with another key is refused on --resume. */
#define EM_JOURNAL_NAME "sweep.journal"

/* 64-bit FNV-1a key of the run (case bytes, parameters, build). */
em_err em_journal_key(const em_run *r, uint64_t *key);
/* Write the journal of every frequency with done[i] set. */
em_err em_journal_write(const em_run *r, const uint8_t *done);
/* Read the journal into r (S, Zin, Zref, frequency results, far-field
 * figures) and mark done[i]: the unfinished run's taken up (r->stage 2),
 * else the complete result's in the output directory (*complete = 1).  A
 * missing journal is no error (nothing done); one of another key, case or
 * frequency list, torn, or with a record that fails its checksum is
 * EM_ERR_INPUT naming it. */
em_err em_journal_read(em_run *r, uint8_t *done, int *n_done, int *complete);

/* One frequency's record as the journal keeps it (the bytes of S, Zin,
 * the references, the solver statistics, the antenna figures): its size,
 * written to buf unless NULL; _load puts it back into r as a journal's
 * line would (fr->resumed set).  MPI ranks send their frequencies so
 * (app/sweep_dist.c). */
size_t em_journal_record(const em_run *r, int fi, unsigned char *buf);
void em_journal_record_load(em_run *r, int fi, const unsigned char *buf);

/* Adaptive sweep: each full solve k in <out>/sweep.sample<k>.bin (the
 * key, f, the snapshot u and the measurements y); _load sets *found when
 * the file is there, and refuses one of another key or frequency. */
em_err em_journal_sample_save(const em_run *r, int k, const em_cplx *u, int64_t n_u,
                              const em_cplx *y, int64_t n_y);
em_err em_journal_sample_load(em_run *r, int k, double f, em_cplx *u, int64_t n_u, em_cplx *y,
                              int64_t n_y, int *found);
/* After a complete adaptive sweep: the sample files go (they are large). */
void em_journal_samples_remove(const em_run *r);

/* solve.c: solve frequency fi of the run and write what it gives (post/),
 * one progress line. */
em_err em_run_solve_frequency(em_run *r, int fi);
/* The problem object of the run's mesh (made at the first solve; a
 * distributed solve's serving rank makes it before it serves). */
em_err em_app_make_fsys(em_run *r);
/* The solve of frequency fi alone: its system (the fixed values) and
 * solutions to the caller, for em_run_post_frequency or the thread of
 * sweep_post.c. */
em_err em_run_solve_only(em_run *r, int fi, em_system **sys, em_cplx **x);
/* The outputs of frequency fi from what em_run_solve_only gave, and its
 * progress line. */
em_err em_run_post_frequency(em_run *r, int fi, const em_system *sys, const em_cplx *x);

/* sweep_post.c: a uniform sweep's outputs of one frequency on a thread of
 * their own while the next frequency solves (issue 24).  _may: whether
 * this run may (Solver/overlap 1, no plane wave, no Floquet cell, one
 * rank).  _start takes *sys and *x (set to NULL)
 * and starts the thread; *h NULL when no thread could start (the caller
 * then post-processes in turn, *sys and *x still its own).  _join waits,
 * adds the thread's stages to the run's table, logs the frequency's
 * progress line and sets *fi to the frequency whose outputs are complete
 * (-1: none, or an error, raised again on this thread); *h freed. */
typedef struct em_sweep_post em_sweep_post;
int em_sweep_post_may(const em_run *r);
em_err em_sweep_post_start(em_run *r, int fi, em_system **sys, em_cplx **x, em_sweep_post **h);
em_err em_sweep_post_join(em_run *r, em_sweep_post **h, int *fi);

/* A full solve at f for the adaptive sweep: u = the solutions of every
 * excitation [ns][n], y = what the ports measure [np][np]. */
em_err em_run_solve_sample(em_run *r, double f, em_freq_result *fr, em_cplx *u, em_cplx *y);
/* sweep.c: every frequency of the configuration not yet in the journal, in
 * order; journals each as it completes; stops after the current frequency
 * on SIGINT.  Solver/sweep adaptive: the rational model from full solves. */
em_err em_sweep_run(em_run *r);

#endif
