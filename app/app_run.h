/* app_run.h - the state of one emsolve run (private to app/): what the
 * command asked, the progress, the output directory, and the two halves
 * the stages hand on: the problem of the mesh (em_model, model/: built once)
 * and the results (em_results, post/: filled frequency by frequency). */
#ifndef EM_APP_RUN_H
#define EM_APP_RUN_H

#include "app_impl.h"

typedef struct em_run {
  const em_app_args *args;
  const em_log *log;
  em_log detail;        /* the stages' own progress: shown with -v only */
  double t_start;       /* s, em_wtime */
  double t_sweep;       /* when the first frequency started (the ETA's origin) */
  em_model m;           /* once per mesh: case, parameters, mesh, physics, unknowns, device,
                           problem object */
  em_results res;       /* per frequency: S, Zin, flags, what each solve did */
  em_outdir out;        /* the output directory, the files this run wrote */
  int made_out_dir;     /* 1 when this run created out.dir */
  int locked;           /* 1 while this run holds out.dir's lock file */
  int dumped;           /* 1 when this run wrote --dump-matrix's file */
  uint64_t journal_key; /* app/journal.c */
} em_run;

/* periodic.c: Floquet pairs found and the mesh renumbered for them (after
 * meshing); the far field off for a cell, the slave DOFs tied and the
 * Floquet wavevector set (after the DOF map). */
em_err em_app_periodic_mesh(em_run *r);
em_err em_app_periodic_dofs(em_run *r);

/* Solver/problem eigen: modes near Eigen/target after the setup (eigen.c). */
em_err em_app_eigen(em_run *r);

/* validate.c: before meshing, the mesh the sizes imply against the memory
 * (an error unless --force); the parameters' own checks are model's
 * (em_run_config_check). */
em_err em_app_validate_size(const em_run *r);

/* outdir.c: out.dir created and locked (open, before meshing), cleared of
 * the case's earlier outputs (clear, before the first solve); on close the lock released and, when
 * err, every file this run wrote removed.  Signals: SIGINT / SIGTERM set a flag that
 * em_app_check_signal turns into an error between stages. */
em_err em_app_outdir_open(em_run *r);
void em_app_outdir_clear(em_run *r); /* before the first output is written */
void em_app_outdir_close(em_run *r, em_err err);
void em_app_signals_install(void);
em_err em_app_check_signal(void);

/* face.c: the default progress lines (the mesh, a frequency with the time
 * left) */
void em_app_log_mesh(const em_run *r);
void em_app_log_frequency(const em_run *r, int fi);

/* meshreuse.c: r->m.mesh from the case, or a copy of a design sweep's cached
 * mesh when the point changes no mesh-affecting value (args->mesh_cache). */
em_err em_app_mesh(em_run *r, em_mesh_opts *mo);

#endif
