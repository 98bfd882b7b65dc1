/* case_impl.h - the em_case object and the Gmsh adapter, private to mesh/.
 *
 * Gmsh is one global instance per process: em_case_open initialises it and
 * em_case_close finalises it, so the em_case is a handle on that instance
 * plus the parameter table read from it.  Everything that comes from Gmsh is
 * copied into em_case / em_mesh and freed with gmshFree right away. */
#ifndef EM_CASE_IMPL_H
#define EM_CASE_IMPL_H

#include <stddef.h>

#include "em_mesh.h"

struct em_case {
  char *path;          /* the file as the caller named it */
  char *name;          /* base name without extension: "dra" */
  int is_msh;          /* 1: a .msh read as is; 0: a .geo meshed on demand */
  int n_param;         /* entries in param[] */
  em_param *param;     /* the parameter table, sorted by name */
  int n_spec;          /* entries in spec[] */
  em_param_spec *spec; /* deep copy of the caller's specs (lookup fallback) */
  int holds_gmsh;      /* this case took the one Gmsh instance */
  int gmsh_up;         /* Gmsh is initialised (between start and stop) */
  size_t log_mark;     /* Gmsh logger messages already looked at */
  int omp_threads;     /* OpenMP threads before Gmsh touched them (restored
                          after every Gmsh call: Gmsh sets its own count) */
  int mesh_loaded;     /* a .msh is loaded into a Gmsh model of its own, now
                          the current one (case_file.c) */
};

/* Gmsh sets the process-wide OpenMP thread count (General.NumThreads,
 * default 1) when it starts and meshes; put ours back. */
void em_case_restore_threads(const em_case *c);

/* ------------------------------------------------------- Gmsh adapter */

/* Raise EM_ERR_GMSH with "<fmt ...>: <Gmsh's own error messages logged since
 * message number `mark`>", falling back to gmshLoggerGetLastError.  The mark
 * is the case's log_mark: every Gmsh error fails the call that logged it, so
 * no error older than the mark is pending. */
em_err em_gmsh_raise(size_t mark, const char *file, int line, const char *fmt, ...) EM_PRINTF(4, 5);
#define EM_GMSH_RAISE(mark, ...) em_gmsh_raise((mark), __FILE__, __LINE__, __VA_ARGS__)

/* Pass Gmsh's messages logged since *mark to log: warnings (em_log_warn),
 * the rest at verbose level (Gmsh's own terminal output is off: it would
 * go to stdout); then move *mark past everything logged so far. */
void em_gmsh_forward_warnings(const em_log *log, size_t *mark);

/* ---------------------------------------------------------- parameters */

/* 1 when `name` matches the spec name `pattern`: path elements separated by
 * '/', a '*' matches any run of characters inside one element. */
int em_param_match(const char *pattern, const char *name);

/* The case's own ONELAB parameters in the current Gmsh model, i.e. every
 * name except Gmsh's "Gmsh/..." and "ONELAB/...", with source "case file",
 * sorted by name. */
em_err em_param_read_onelab(const em_case *c, em_param **out, int *n_out);

/* Check overrides against the case's parameters and the specs: every name
 * is one or the other, with the same type. */
em_err em_param_check_overrides(const em_case *c, const em_param *cp, int n_cp, int n_over,
                                const em_param_override *over);

/* Check the case's parameters against the specs of the same name (type). */
em_err em_param_check_specs(const em_case *c, const em_param *cp, int n_cp);

/* Fill c->param: the case's parameters cp (taken over, cp is emptied),
 * marked "command line" where overridden; overrides of spec-only names;
 * defaults of plain (non-wildcard) specs that nothing else set. */
em_err em_param_build_table(em_case *c, em_param **cp, int *n_cp, int n_over,
                            const em_param_override *over);

/* Copy the caller's specs into c->spec (freed by em_param_free_specs). */
em_err em_param_copy_specs(em_case *c, int n_spec, const em_param_spec *spec);
void em_param_free_specs(em_case *c);

/* After parsing with the overrides applied: each override of a case
 * parameter must have taken effect (a ReadOnly parameter ignores it). */
em_err em_param_check_applied(const em_case *c, const em_param *cp, int n_cp, int n_over,
                              const em_param_override *over);

void em_param_free_array(em_param **p, int *n);

/* case_meta.c: the ONELAB attributes (Help, Choices, Min, Max, ReadOnly)
 * of a case parameter into p; a number outside its declared range or not
 * finite; a group parameter naming a group the case lacks (an error when
 * from_cli, else a warning). */
em_err em_param_read_meta(const em_case *c, em_param *p);
em_err em_param_check_value(const em_case *c, const em_param *p);
/* The overrides' numbers of the case's parameters cp (the clean parse,
 * still Gmsh's current model) checked as em_param_check_value does, before
 * the case is parsed again with them. */
em_err em_param_check_override_values(const em_case *c, const em_param *cp, int n_cp, int n_over,
                                      const em_param_override *over);
em_err em_param_check_group(const em_case *c, const char *name, int from_cli, const em_log *log);

/* ---------------------------------------------------------------- mesh */

/* The name of a physical group, or "volume<tag>" / "surface<tag>". */
em_err em_case_group_name(const em_case *c, int dim, int tag, char **out);

/* Mesh sizes from the wavelength: h per physical volume, spread to the
 * boundary and embedded entities, installed as a Gmsh size callback.  The
 * callback state lives in *state until em_case_size_clear. */
typedef struct em_case_size em_case_size;
/* bg: a size field (metres at a point in metres) that wins where smaller,
 * NULL: none (em_case_remesh). */
typedef double (*em_size_fn)(void *ctx, const double x[3]);
em_err em_case_size_install(const em_case *c, const em_mesh_opts *opts, em_size_fn bg, void *bg_ctx,
                            const em_log *log, em_case_size **state);
void em_case_size_clear(em_case_size **state);

/* With the curves meshed: every surface meshed alone in a child process,
 * up to c->omp_threads at once, and added to the model; all together in
 * this process when there is one or a child did not deliver; an error when
 * a child was stopped by a signal (case_apart.c). */
em_err em_case_mesh_surfaces(em_case *c, const em_log *log);
/* The same for the volumes, with the surfaces meshed. */
em_err em_case_mesh_volumes(em_case *c, const em_log *log);
/* Clear the current mesh, install the sizes (with bg, see above), mesh in
 * 3-D (and second order with opts->geometry_order 2). */
em_err em_case_generate(em_case *c, const em_mesh_opts *opts, em_size_fn bg, void *bg_ctx,
                        const em_log *log);

/* Read the current Gmsh mesh: tets of the physical volumes, triangles of the
 * physical surfaces, coordinates times opts->unit; build the topology. */
em_err em_case_extract(const em_case *c, const em_mesh_opts *opts, em_mesh **m);

#endif /* EM_CASE_IMPL_H */
