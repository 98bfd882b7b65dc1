/* psweep.h - design sweeps (--sweep NAME=LIST): many geometries and
 * materials in one command; one subfolder per point, sweep.csv and
 * sweep_summary.csv collected (psweep.c). */
#ifndef EM_APP_PSWEEP_H
#define EM_APP_PSWEEP_H

#include "app_impl.h"

enum { EM_PSWEEP_MAX_AXES = 8 }; /* swept parameters at most */

/* What a design sweep did (main's exit code). */
typedef struct em_psweep_outcome {
  int was_sweep; /* 0: "Loop" in the text but no loop declared: run the case plainly */
  int usage;     /* the error is a usage error (a --sweep name or list): exit 2 */
  int n_failed;  /* points that failed (each recorded with its message in
                    sweep_summary.csv): exit 4 */
  int n_flagged; /* points whose results are flagged (not converged, |S| > 1): exit 3 */
} em_psweep_outcome;

/* Run the sweep (the --sweep axes and the loops the case declares), its
 * output folder locked.  An error return is a usage error (o->usage), an
 * I/O error of the sweep itself or a signal (EM_ERR_CANCELLED: the points
 * done are complete, --resume goes on), not a failed point. */
em_err em_app_psweep(const em_app_args *a, const em_psweep_args *ps, const em_log *log,
                     em_psweep_outcome *o);

/* Whether the case file's text may declare a loop (ONELAB's Loop attribute
 * on a DefineConstant): then the run goes through em_app_psweep, which
 * confirms it (*was_sweep = 0: no loop after all, run the case plainly). */
int em_app_psweep_declared(const char *path);

/* What a design sweep learns from its case once (psweep_loop.c). */
enum { EM_PSWEEP_DENSE = 201 }; /* frequencies of a point's default adaptive sweep, at least */
typedef struct em_psweep_case {
  int plots;    /* the case's or command line's Output/plots */
  int adaptive; /* Solver/sweep is not set and the run is a driven band with ports:
                   each point runs the adaptive sweep on n_freq frequencies */
  int n_freq;   /* the points' n_freq: the case's, at least EM_PSWEEP_DENSE */
  int raise_n;  /* 1: n_freq overrides the case's (smaller) Solver/n_freq */
  int n_unit;   /* the units of the swept parameters (em_params_unit) */
  char unit_name[2 * EM_PSWEEP_MAX_AXES][256];
  char unit[2 * EM_PSWEEP_MAX_AXES][32];
} em_psweep_case;

/* The sweeps the case declares (psweep_loop.c): each number parameter with
 * a Loop attribute (ONELAB's level 1, 2, 3: outer to inner) over its
 * Choices, else Min:Step:Max, as "NAME=LIST" in spec[] (*n of them), in
 * level order; one given by -setnumber or --sweep is not taken from the
 * case; a Loop without values is EM_ERR_INPUT naming it.  *pc: what else
 * the sweep takes from the case (plots, the points' frequency sweep, the
 * swept parameters' units).  The --sweep names are checked against the case
 * first: an unknown one ("did you mean"), a group the case lacks, a word for
 * a number, a geometry swept over a loaded mesh are usage errors (*usage = 1). */
em_err em_psweep_declared_axes(const em_app_args *a, const em_psweep_args *ps, const em_log *log,
                               char (*spec)[4096], int *n, em_psweep_case *pc, int *usage);

/* --jobs (psweep_jobs.c): start `jobs` copies of the command with
 * --sweep-worker w/jobs and OMP_NUM_THREADS = threads / jobs, and wait. */
em_err em_psweep_run_workers(const em_app_args *a, int jobs, const em_log *log);

/* One point of --dry-run (psweep_est.c). */
typedef struct em_psweep_est {
  int tets, unknowns, order, n_solve; /* n_solve: full solves of its sweep */
  int coarse;                         /* unknowns of pmg's exact coarse level */
  int mesh_reused;                    /* the previous point's mesh served */
  double t_mesh;                      /* s, measured */
  double bytes, t_solve;              /* host memory and solve time, modelled */
} em_psweep_est;

/* Open, mesh (or reuse, pa->mesh_cache) and number the unknowns of the
 * point whose overrides pa holds, and model its memory and time. */
em_err em_psweep_estimate(const em_app_args *pa, const em_log *log, em_psweep_est *e);

/* psweep_figures.c: a point's D, G, realized G (dBi) and radiation
 * efficiency at f from its antenna.csv in dir: linear between the two rows
 * around f, or the one row within `near` Hz of f (an adaptive sweep's);
 * NaN where none. */
void em_psweep_antenna_at(const char *dir, double f, double near, double out[4]);
/* 1 and the advice in msg when a grid of n frequencies f_first .. f_last
 * cannot resolve a resonance at f0 of quality q (its width f0 / q under 3
 * steps or over twice the band). */
int em_psweep_too_coarse(int n, double f_first, double f_last, double f0, double q, char *msg,
                         size_t cap);

/* Usage check of the --sweep lists alone (a malformed one exits 2). */
em_err em_app_psweep_check(const em_psweep_args *ps);

#endif
