/* app_impl.h - the emsolve command: arguments, parameters, the pipeline. */
#ifndef EM_APP_IMPL_H
#define EM_APP_IMPL_H

#include "em_assembly.h"
#include "em_core.h"
#include "em_formats.h"
#include "em_mesh.h"
#include "em_post.h"
#include "em_solver.h"

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
  int argc;                  /* the command line, for --jobs's worker processes */
  char **argv;
} em_app_args;

/* Parse argv; on a usage error the message names the bad argument. */
em_err em_app_parse_args(int argc, char **argv, em_app_args *a, int *want_help, int *want_version);
void em_app_args_free(em_app_args *a);
void em_app_usage(FILE *f);

/* The parameters emsolve knows (for the case layer and --list-params). */
const em_param_spec *em_app_specs(int *n);

/* Settings read once from the case. */
typedef struct em_run_config {
  double unit; /* metres per model unit */
  int n_freq;
  double *freq;               /* Hz */
  int order;                  /* 1..3 */
  int geometry_order;         /* Mesh/geometry_order: 1 straight, 2 curved tets */
  double epw;                 /* elements per wavelength used */
  double mesh_freq;           /* Hz: the wavelength that sizes the mesh */
  const char *mesh_freq_from; /* which parameter gave it (log, summary.json) */
  char *mesh_file;            /* Mesh/file: the .msh solved on instead of meshing (NULL: mesh) */
  int sweep_adaptive;         /* Solver/sweep adaptive */
  double sweep_tol;           /* Solver/sweep_tol, on S */
  int sweep_max_solves;       /* Solver/sweep_max_solves */
  em_ksp_opts ksp;
  em_pc_opts pc;
  int pc_auto;        /* Solver/preconditioner auto: direct, ilu0 when it does not fit */
  int ordering_auto;  /* Solver/ordering auto: nd for direct, rcm for ilu0 */
  int pmg_pml_coarse; /* PMG/pml_coarse: the PML unknowns of orders 1..N in the
                         coarse solve (-1: auto, the PML's own order) */
  int pmg_pml_block;  /* PMG/pml_smoother: 0 none, 1 ilu0, 2 direct (a block level) */
  em_blockop_opts bop;
  int outer_abc;         /* exterior faces: 0 PEC, 1 first-order ABC */
  int pml_order;         /* grading exponent m */
  double pml_reflection; /* normal-incidence reflection target */
  int pml_elements;      /* elements across the thinnest PML layer (0: from the wavelength) */
  int pml_basis_order;   /* PML/basis_order: the PML's basis order (0: Solver/order) */
  int pml_elements_only; /* PML/elements_only: the layer sized by PML/elements alone */
  int fields;            /* 0 none, 1 first frequency, 2 all, 3 middle (n_freq / 2) */
  int vtk_binary;
  int subdiv;
  double touchstone_z0; /* ohm: the one reference of the Touchstone file */
  int line_points;      /* E along a line: points (0: none) */
  int interp_points;    /* S splined onto this many frequencies (0: none) */
  double line[6];       /* from xyz, to xyz (metres) */
  int eigen;            /* Solver/problem: 0 driven, 1 eigen (app/eigen.c) */
  double eig_target;    /* Eigen/target, Hz */
  int eig_n;            /* Eigen/n */
  double eig_tol;       /* Eigen/tolerance */
  int eig_ncv;          /* Eigen/subspace (0: automatic) */
  int eig_restarts;     /* Eigen/max_restarts */
  int eig_ports;        /* Eigen/ports: 0 open (PMC), 1 short (PEC), 2 matched */
} em_run_config;

em_err em_run_config_read(const em_case *c, em_run_config *cfg);
void em_run_config_free(em_run_config *cfg);

/* --list-params */
void em_app_list_params(const em_case *c, FILE *f);

/* The pipeline: mesh, assemble, solve, write.  *flagged = 1 when the
 * results are written but some frequency did not converge or has a
 * reflection above 1 (main exits with EM_EXIT_FLAGGED). */
em_err em_app_run(const em_app_args *a, const em_log *log, int *flagged);

/* The SIGINT / SIGTERM a run received (app/outdir.c), 0: none; main exits
 * with 128 + it. */
int em_app_signal(void);

/* Exit codes of emsolve (docs/usage.md) */
#define EM_EXIT_OK 0      /* results written, every frequency converged */
#define EM_EXIT_ERROR 1   /* an error: nothing (or no new result) written */
#define EM_EXIT_USAGE 2   /* a bad command line */
#define EM_EXIT_FLAGGED 3 /* results written, flagged: not converged or |S_pp| > 1 */

#endif
