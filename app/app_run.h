/* app_run.h - the state of one emsolve run (private to app/): what the
 * command asked, the progress, the output directory, and the two halves
 * the stages hand on: the problem of the mesh (em_model, model/: built once)
 * and the results (em_results, post/: filled frequency by frequency). */
#ifndef EM_APP_RUN_H
#define EM_APP_RUN_H

#include <pthread.h>

#include "app_impl.h"

typedef struct em_run {
  const em_app_args *args;
  const em_log *log;
  em_log detail;        /* the stages' own progress: shown with -v only */
  double t_start;       /* s, em_wtime */
  em_stages stages;     /* the run's time by stage (core/stage.c) */
  double t_sweep;       /* when the first frequency started */
  double next_f;        /* the sweep's frequency after the one being solved (0: none):
                           assembled beside this one's factorization (app/solve.c) */
  int n_solved;         /* frequencies solved by this run so far (app/face.c) */
  double t_first;       /* when the first of them ended: set-up excluded from the ETA */
  em_model m;           /* once per mesh: case, parameters, mesh, physics, unknowns, device,
                           problem object */
  em_results res;       /* per frequency: S, Zin, flags, what each solve did */
  em_outdir out;        /* where the run writes, the files it wrote: the partial
                           folder from em_app_outdir_stage to the commit, then
                           final_dir (app/outdir.c) */
  char final_dir[1024]; /* the output directory (--out, out/<case>) */
  int made_out_dir;     /* 1 when this run created final_dir */
  int locked;           /* 1 while this run holds final_dir's lock file */
  int stage;            /* 0 none (or committed), 1 a partial folder of its own,
                           2 an unfinished run's taken up (--resume) */
  int committed;        /* the result moved into final_dir */
  int noop;             /* --resume found the result complete: nothing written */
  int dumped;           /* 1 when this run wrote --dump-matrix's file */
  uint64_t journal_key; /* app/journal.c */
  int peer;             /* an MPI rank > 0 solving part of rank 0's run: it
                           writes nothing of its own (app/sweep_dist.c) */
  unsigned taken;       /* rank 0, adaptive sweep: the initial samples a peer sent */
  int dsolve;           /* Solver/distributed: every solve shared by all ranks (rank 0
                           runs the case, the others serve its solves: model/dfsys.c) */
  pthread_t dev_th;     /* the device opened while the case meshes (app/devopen.c) */
  int dev_th_on;        /* 1 until joined */
  int last_solve;       /* the solve under way is the run's last (app/sweep.c) */
  pthread_t rel_th;     /* the problem object released after it (app/release.c) */
  int rel_on;           /* 1 until joined */
  em_fsys *rel_fsys;    /* what that thread releases */
  double t_rel;         /* s, its time */
} em_run;

/* devopen.c: the GPU's context made on a thread of its own while the case
 * meshes (early, after the parse); joined before the run's own
 * em_device_open and at the end of the run (join: idempotent). */
void em_app_device_early(em_run *r);
void em_app_device_join(em_run *r);
/* release.c: after the run's last solve (last_solve set), the problem
 * object of the mesh released on a thread of its own while the
 * post-processing runs; joined at the end of the run (idempotent). */
void em_app_release_start(em_run *r);
void em_app_release_join(em_run *r);

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
/* validate.c: a frequency (or Eigen/target) on the command line more than
 * 100 times from the band the case file sets is a unit slip: an error with
 * the value it probably meant, unless --force; Mesh/ sizing values over a
 * loaded mesh are warned about. */
em_err em_app_validate_band(const em_run *r);

/* outdir.c (docs/outputs.md, "Staging"): the output directory created and
 * locked (open, before meshing); the partial folder the run writes into
 * made, or an unfinished run's taken up with --resume (stage, before the
 * first output); the complete result moved into the output directory
 * (commit); on close the lock released and, unless committed, the partial
 * folder removed, or kept when it holds finished frequencies.  Signals:
 * outdir.h. */
em_err em_app_outdir_open(em_run *r);
em_err em_app_outdir_stage(em_run *r);
em_err em_app_outdir_commit(em_run *r);
void em_app_outdir_close(em_run *r, em_err err);

/* face.c: the default progress lines (the mesh, a frequency with the time
 * left) */
void em_app_log_mesh(const em_run *r);
void em_app_log_frequency(em_run *r, int fi);

/* meshreuse.c: r->m.mesh from the case, or a copy of a design sweep's cached
 * mesh when the point changes no mesh-affecting value (args->mesh_cache). */
em_err em_app_mesh(em_run *r, em_mesh_opts *mo);

#endif
