/* app_run.h - the state of one emsolve run (private to app/). */
#ifndef EM_APP_RUN_H
#define EM_APP_RUN_H

#include "app_ff.h"
#include "app_setup.h"
#include "em_model.h"

/* What one frequency produced. */
typedef struct em_freq_result {
  double f;                                             /* Hz */
  double k0;                                            /* rad/m */
  double t_assembly, t_operator, t_pc, t_solve, t_post; /* seconds */
  em_pc_info pc;
  em_ksp_stats ksp[EM_MAX_PORTS]; /* one solve per excited port */
  int n_solve;
  int converged;  /* every solve converged */
  int resumed;    /* read from the journal of an earlier run (--resume) */
  int from_model; /* adaptive sweep: evaluated from the rational model */
  double pml_wall; /* <|E|^2> at the PML's outer wall / at its interface
                      (first excitation; NaN: no PML), pml_wall.c */
} em_freq_result;

typedef struct em_block_stat {
  int32_t rows, cols;
  int64_t nnz;
  double row_mean;
  int32_t row_max;
  em_spmat_info info; /* format chosen for the block */
} em_block_stat;

typedef struct em_run {
  const em_app_args *args;
  const em_log *log;
  double t_start;
  em_device dev;
  em_case *cs;
  em_run_config cfg;
  em_mesh *mesh;
  em_mesh_stats mstats;
  double t_mesh;
  em_setup setup;
  em_app_ff ff; /* far field, plane wave, plots (app/farfield.c) */
  em_dofmap *dofs;
  char out_dir[1024];
  int made_out_dir; /* 1 when this run created out_dir */
  int n_block;      /* order groups */
  em_block_stat block[EM_MAX_ORDER][EM_MAX_ORDER];
  size_t operator_bytes;
  em_cplx *S;                         /* [n_freq][n_port][n_port] */
  double *zref;                       /* [n_port] */
  em_cplx *zin;                       /* [n_freq][n_port] */
  em_freq_result *fr;                 /* [n_freq] */
  int n_done;                         /* frequencies finished */
  uint64_t journal_key;               /* app/journal.c */
  int n_samples;                      /* adaptive sweep: full solves so far */
  char eta[64];                       /* ", about 3 min left" for the progress line */
  em_freq_result *sample;             /* [max_solves] adaptive sweep: each full solve */
  double sweep_estimate, sweep_check; /* adaptive sweep: final error estimate and check */
  int sweep_converged;
  em_fsys *fsys; /* the problem object: what a sweep keeps across its
                    frequencies (model/fsys.c) */
  int n_files;
  char files[64][256]; /* outputs written, relative to out_dir */
} em_run;

em_err em_run_write_summary(const em_run *r);
/* Solver/problem eigen: modes near Eigen/target (after the setup). */
em_err em_app_eigen(em_run *r);
/* <|E|^2> over the PML tets on the outer wall / over those on the interface
 * with the interior, for solution x: the round-trip reflection estimate of
 * the layer (NaN without a PML). */
double em_run_pml_wall(const em_run *r, const em_cplx *x, const em_cplx *fixed);
em_err em_run_write_line(em_run *r, int fi, const em_cplx *x, const em_cplx *fixed,
                         const char *path);

#endif
