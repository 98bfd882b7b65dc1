/* app_run.h - the state of one emsolve run (private to app/). */
#ifndef EM_APP_RUN_H
#define EM_APP_RUN_H

#include "app_fields.h"
#include "app_ff.h"
#include "em_model.h"

/* What one frequency produced. */
typedef struct em_freq_result {
  double f;                                             /* Hz */
  double k0;                                            /* rad/m */
  double t_assembly, t_operator, t_pc, t_solve, t_post; /* seconds */
  em_pc_info pc;
  em_ksp_stats ksp[EM_MAX_PORTS]; /* one solve per excited port */
  int n_solve;
  int converged;   /* every solve converged */
  int resumed;     /* read from the journal of an earlier run (--resume) */
  int from_model;  /* adaptive sweep: evaluated from the rational model */
  double pml_wall; /* <|E|^2> at the PML's outer wall / at its interface
                      (first excitation; NaN: no PML), model/pml_wall.c */
  char fields[64]; /* the fields file of this frequency, "" when none */
  double p_metal;  /* W dissipated by the surface impedances (first
                      excitation; NaN: none) */
  double p_lumped; /* W dissipated by the lumped R, L, C sheets */
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
  em_log detail; /* the stages' own progress: shown with -v only */
  double t_start;
  double t_sweep; /* when the first frequency started (the ETA's origin) */
  em_device dev;
  em_case *cs;
  em_run_config cfg;
  em_mesh *mesh;
  em_mesh_stats mstats;
  double t_mesh;
  em_setup setup;
  em_app_ff ff;          /* far field, plane wave, plots (app/farfield.c) */
  em_app_fields fo;      /* H, J_s, plane output beside E (app/fields.c) */
  em_periodic *periodic; /* Floquet pairs (model/periodic.c), NULL: none */
  em_dofmap *dofs;
  char out_dir[1024];
  int made_out_dir; /* 1 when this run created out_dir */
  int locked;       /* 1 while this run holds out_dir's lock file */
  int dumped;       /* 1 when this run wrote --dump-matrix's file */
  int n_block;      /* order groups */
  em_block_stat block[EM_MAX_ORDER][EM_MAX_ORDER];
  size_t operator_bytes;
  em_cplx *S;                         /* [n_freq][n_port][n_port] */
  double *zref;                       /* [n_port]: the last frequency's (summary) */
  double *zport;                      /* [n_freq][n_port]: each frequency's reference of S */
  int *flag;                          /* [n_freq]: EM_PORTS_FLAG_* (not converged, |S_pp| > 1) */
  int flagged;                        /* some frequency is flagged: exit code 3 */
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
/* periodic.c: Floquet pairs found and the mesh renumbered for them (after
 * meshing); the slave DOFs tied and the Floquet wavevector set (after the
 * DOF map). */
em_err em_app_periodic_mesh(em_run *r);
em_err em_app_periodic_dofs(em_run *r);
/* Solver/problem eigen: modes near Eigen/target (after the setup). */
em_err em_app_eigen(em_run *r);

/* validate.c: before meshing (geometry numbers, frequency range, the mesh
 * the sizes imply against the memory: an error unless --force), and after
 * the setup, before the first solve (PML, the line probe inside the mesh). */
em_err em_app_validate_case(em_run *r);
em_err em_app_validate_mesh(em_run *r);

/* outdir.c: out_dir created and locked (open, before meshing), cleared of
 * the case's earlier outputs (clear, before the first solve); on close the lock released and, when
 * err, every file this run wrote removed.  Signals: SIGINT / SIGTERM set a flag that
 * em_app_check_signal turns into an error between stages. */
em_err em_app_outdir_open(em_run *r);
void em_app_outdir_clear(em_run *r); /* before the first output is written */
void em_app_outdir_close(em_run *r, em_err err);
void em_app_signals_install(void);
em_err em_app_check_signal(void);
/* "5.75GHz": a frequency in output file names */
void em_app_freq_tag(double f, char *buf, size_t n);

/* face.c: the default progress lines (a stage, a frequency with the time
 * left) */
void em_app_log_mesh(const em_run *r);

/* meshreuse.c: r->mesh from the case, or a copy of a design sweep's cached
 * mesh when the point changes no mesh-affecting value (args->mesh_cache). */
em_err em_app_mesh(em_run *r, em_mesh_opts *mo);
/* The mesh and set-up options of the run's configuration: one place for
 * the run and a design sweep's estimate, so that both mesh alike (run.c). */
em_mesh_opts em_run_mesh_opts(const em_run *r);
em_setup_opts em_run_setup_opts(const em_run_config *cfg);
void em_app_log_frequency(em_run *r, int fi);

/* tables.c: the flags of frequency fi (not converged, a reflection above
 * 1), warned about; the Touchstone file with S renormalised to one
 * reference (Output/touchstone_z0), the flags as comment lines. */
void em_app_flag_frequency(em_run *r, int fi);
em_err em_app_write_touchstone(em_run *r, const char *path);
em_err em_run_write_line(em_run *r, int fi, const em_cplx *x, const em_cplx *fixed,
                         const char *path);

#endif
