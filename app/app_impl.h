/* app_impl.h - the emsolve command: its arguments, the design sweep's
 * options, the pipeline's entry and the exit codes. */
#ifndef EM_APP_IMPL_H
#define EM_APP_IMPL_H

#include "em_assembly.h"
#include "em_core.h"
#include "em_dist.h"
#include "em_formats.h"
#include "em_mesh.h"
#include "em_model.h"
#include "em_post.h"
#include "em_solver.h"
#include "outdir.h" /* locks, staging, signals */

/* Design sweep options: --sweep / --zip / --resume / --dry-run (psweep.c). */
typedef struct em_psweep_args {
  int n;                /* number of --sweep options */
  const char **specs;   /* "NAME=a,b,c" or "NAME=start:step:stop" */
  int zip;              /* pair the lists instead of the Cartesian product */
  int resume;           /* skip points whose folder holds a matching marker */
  int dry_run;          /* list the points with their mesh, unknowns, memory, time */
  int jobs;             /* --jobs N: points at once on the host (0: not given) */
  int worker, worker_n; /* --sweep-worker w/J: one of J processes of --jobs (internal) */
} em_psweep_args;

/* A design sweep's mesh kept from one point for the next (psweep.c): a
 * point whose mesh-affecting values (key) and geometry (hash) are the
 * cached ones takes a copy instead of meshing.  The mesh is sized with the
 * sweep's largest material values (size_over), so that it is the same
 * whichever point of the group meshes first. */
typedef struct em_mesh_cache {
  char key[2048]; /* the point's mesh-affecting values */
  int n_size;     /* material values that size the mesh */
  const em_param_override *size_over;
  em_mesh *mesh;               /* the cached mesh, NULL: none yet */
  char mesh_key[2048];         /* its key */
  uint64_t mesh_hash;          /* its geometry (em_case_geometry_hash) */
  double mesh_freq, epw, unit; /* its sizing */
  int pml_elements, pml_elements_only;
  int n_meshed;      /* meshings done (the log says each) */
  int reused;        /* the last point took the cached mesh */
  const em_case *cs; /* the case being meshed (index_of) */
} em_mesh_cache;

/* What the command line asked for. */
typedef struct em_app_args {
  const char *case_path;   /* the .geo or .msh file */
  const char *out_dir;     /* --out DIR, NULL: out/<case> */
  const char *device;      /* --device auto|cpu|gpu */
  const char *dump_matrix; /* --dump-matrix FILE, NULL: none */
  const char *save_mesh;   /* --save-mesh FILE.msh: the mesh used, NULL: none */
  const char *plot_dir;    /* --plot DIR: plot an output directory, no case */
  int list_params;         /* --list-params */
  int resume;              /* --resume: skip the frequencies journaled in the output */
  int force;               /* --force: an absurd mesh estimate is a warning */
  int log_level;           /* --quiet / --verbose */
  int n_over;
  em_param_override *over;   /* -setnumber / -setstring, in order */
  em_psweep_args psweep;     /* --sweep ...: a design sweep (psweep.c) */
  em_mesh_cache *mesh_cache; /* a design sweep's point: reuse its mesh (NULL: mesh) */
  int no_tables;             /* a design sweep's point under -q: no tables on stdout */
  int argc;                  /* the command line, for --jobs's worker processes */
  char **argv;
  const em_dist *dist; /* the MPI ranks sharing the work (NULL, 1 rank: none; app/rank.c) */
} em_app_args;

/* Parse argv; on a usage error the message names the bad argument. */
em_err em_app_parse_args(int argc, char **argv, em_app_args *a, int *want_help, int *want_version);
void em_app_args_free(em_app_args *a);
void em_app_usage(FILE *f);

/* The pipeline: mesh, assemble, solve, write.  *flagged = 1 when the
 * results are written but some frequency did not converge or has a
 * reflection above 1 (main exits with EM_EXIT_FLAGGED). */
em_err em_app_run(const em_app_args *a, const em_log *log, int *flagged);

/* Run scripts/emplot.py on dir (PNG and SVG in dir/plots), plot.c. */
em_err em_app_plot(const char *dir, const em_log *log);

/* Exit codes of emsolve (README.md, emsolve --help); 128 + n: stopped by
 * signal n (130 SIGINT, 143 SIGTERM). */
#define EM_EXIT_OK 0      /* results written, every frequency converged */
#define EM_EXIT_ERROR 1   /* an error: no new result (an earlier one untouched) */
#define EM_EXIT_USAGE 2   /* a bad command line (a --sweep list included) */
#define EM_EXIT_FLAGGED 3 /* results written, flagged: not converged or |S_pp| > 1 */
#define EM_EXIT_POINTS 4  /* a design sweep finished, some of its points failed */

#endif
