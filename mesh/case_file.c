/* case_file.c - the mesh of a case as a file: save the mesh a run used
 * (--save-mesh) and load it back instead of meshing (Mesh/file,
 * --load-mesh), so that a later run solves exactly the same mesh.
 *
 * The file is Gmsh's MSH 4.1 in binary: coordinates are written as the
 * doubles they are (the ASCII writer keeps 16 digits, which moves a vertex
 * by an ulp and the results with it).  Only the elements of physical
 * groups are written (Mesh.SaveAll 0), which is all a run reads.  A loaded
 * mesh goes into a Gmsh model of its own, so the case's geometry and its
 * physical groups stay as parsed and the loaded groups can be checked
 * against them. */
#include <errno.h>
#include <gmshc.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "case_impl.h"

#define LOADED_MODEL "emsolve-loaded-mesh"

/* A name ending in .msh (Gmsh picks the format from the extension). */
static em_err check_msh_name(const char *path, const char *what) {
  const char *base = strrchr(path, '/');
  const char *dot = strrchr(base ? base : path, '.');
  EM_CHECK(dot && !strcasecmp(dot, ".msh"), EM_ERR_INPUT,
           "%s '%s': the mesh file must be a Gmsh .msh file", what, path);
  return EM_OK;
}

/* Set a Gmsh number option and return its old value in *old. */
static void swap_option(const char *name, double value, double *old, int *ierr) {
  if (*ierr) return;
  gmshOptionGetNumber(name, old, ierr);
  if (!*ierr) gmshOptionSetNumber(name, value, ierr);
}

/* Write the current model's mesh to tmp (binary MSH 4.1, physical groups
 * only), the options as they were afterwards. */
static em_err write_msh(em_case *c, const char *tmp, const char *path) {
  int ierr = 0, ierr2 = 0;
  double binary = 0, version = 4.1, save_all = 0;
  size_t mark = c->log_mark;
  swap_option("Mesh.Binary", 1, &binary, &ierr);
  swap_option("Mesh.MshFileVersion", 4.1, &version, &ierr);
  swap_option("Mesh.SaveAll", 0, &save_all, &ierr);
  if (!ierr) gmshWrite(tmp, &ierr);
  em_err err =
      ierr ? EM_GMSH_RAISE(mark, "cannot write the mesh of case '%s' to '%s'", c->path, path)
           : EM_OK;
  gmshOptionSetNumber("Mesh.Binary", binary, &ierr2);
  gmshOptionSetNumber("Mesh.MshFileVersion", version, &ierr2);
  gmshOptionSetNumber("Mesh.SaveAll", save_all, &ierr2);
  return err;
}

/* path written through tmp = "<path>.<pid>.tmp.msh", renamed when whole. */
em_err em_case_save_mesh(em_case *c, const char *path, const em_log *log) {
  EM_CHECK(c && path, EM_ERR_ARG, "em_case_save_mesh without a case or a path");
  EM_TRY(check_msh_name(path, "--save-mesh"));
  char tmp[4096];
  int k = snprintf(tmp, sizeof tmp, "%s.%ld.tmp.msh", path, (long)getpid());
  EM_CHECK(k > 0 && (size_t)k < sizeof tmp, EM_ERR_INPUT, "mesh file name '%s' is too long", path);
  omp_set_num_threads(1); /* Gmsh's loops are not thread-safe (case_open.c) */
  em_err err = write_msh(c, tmp, path);
  em_case_restore_threads(c);
  struct stat st;
  if (!err && stat(tmp, &st) != 0) /* Gmsh logs an unwritable folder without failing */
    err = EM_RAISE(EM_ERR_IO, "cannot write the mesh file '%s': %s", path, strerror(errno));
  if (!err && rename(tmp, path) != 0)
    err = EM_RAISE(EM_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
  if (err) {
    unlink(tmp);
    return err;
  }
  em_gmsh_forward_warnings(log, &c->log_mark);
  em_log_info(log, "mesh written to %s", path);
  return EM_OK;
}

/* The physical groups of the current model as (dim, tag) pairs and names. */
typedef struct {
  int n;
  int *dim;
  char **name;
} group_list;

/* Free the names and the list, leaving it empty. */
static void group_list_free(group_list *g) {
  for (int i = 0; i < g->n; i++) em_free(&g->name[i]);
  em_free(&g->name);
  em_free(&g->dim);
  g->n = 0;
}

/* Volumes and surfaces only: curves and points are no solver groups. */
static em_err group_list_read(const em_case *c, group_list *g) {
  int *dt = NULL, ierr = 0;
  size_t n_dt = 0;
  em_err err = EM_OK;
  memset(g, 0, sizeof *g);
  gmshModelGetPhysicalGroups(&dt, &n_dt, -1, &ierr);
  if (ierr)
    return EM_GMSH_RAISE(c->log_mark, "case '%s': cannot list its physical groups", c->path);
  EM_TRY_GOTO(err, em_calloc(&g->dim, n_dt / 2 + 1, sizeof *g->dim, "group list"), done);
  EM_TRY_GOTO(err, em_calloc(&g->name, n_dt / 2 + 1, sizeof *g->name, "group list"), done);
  for (size_t k = 0; k < n_dt; k += 2) {
    if (dt[k] < 2) continue;
    EM_TRY_GOTO(err, em_case_group_name(c, dt[k], dt[k + 1], &g->name[g->n]), done);
    g->dim[g->n++] = dt[k];
  }
done:
  gmshFree(dt);
  if (err) group_list_free(g);
  return err;
}

/* Whether the list holds group `name` of dimension dim. */
static int group_list_has(const group_list *g, int dim, const char *name) {
  for (int i = 0; i < g->n; i++)
    if (g->dim[i] == dim && !strcmp(g->name[i], name)) return 1;
  return 0;
}

/* Every volume and surface group of the case in the loaded mesh, and no
 * other: a mesh of another case is refused, naming the group. */
static em_err check_groups(const em_case *c, const group_list *want, const group_list *got,
                           const char *path) {
  for (int dim = 3; dim >= 2; dim--) { /* volumes first: the likelier culprit */
    for (int i = 0; i < want->n; i++)
      EM_CHECK(want->dim[i] != dim || group_list_has(got, dim, want->name[i]), EM_ERR_INPUT,
               "mesh file '%s' lacks the %s group '%s' of case '%s' (a mesh of another case?)",
               path, dim == 3 ? "volume" : "surface", want->name[i], c->path);
    for (int i = 0; i < got->n; i++)
      EM_CHECK(got->dim[i] != dim || group_list_has(want, dim, got->name[i]), EM_ERR_INPUT,
               "mesh file '%s' has a %s group '%s' that case '%s' does not define (a mesh of "
               "another case?)",
               path, dim == 3 ? "volume" : "surface", got->name[i], c->path);
  }
  return EM_OK;
}

/* Merge path into a new current model, check its groups, extract. */
static em_err load(em_case *c, const char *path, const em_mesh_opts *opts, em_mesh **m) {
  group_list want = {0}, got = {0};
  int ierr = 0;
  em_err err = EM_OK;
  EM_TRY(group_list_read(c, &want));
  size_t mark = c->log_mark;
  gmshModelAdd(LOADED_MODEL, &ierr);
  if (!ierr) gmshMerge(path, &ierr);
  if (ierr) {
    err = EM_GMSH_RAISE(mark, "mesh file '%s' cannot be read", path);
    goto done;
  }
  EM_TRY_GOTO(err, group_list_read(c, &got), done);
  EM_TRY_GOTO(err, check_groups(c, &want, &got, path), done);
  err = em_case_extract(c, opts, m);
  if (err) { /* the extraction names the case: say which file it read */
    char msg[768];
    snprintf(msg, sizeof msg, "%s", em_error_message());
    err = EM_RAISE(err, "mesh file '%s': %s", path, msg);
  }
done:
  group_list_free(&want);
  group_list_free(&got);
  return err;
}

/* Checks the file before Gmsh sees it (a missing file would be a Gmsh
 * message without the errno), then load() with Gmsh on one thread. */
em_err em_case_load_mesh(em_case *c, const char *path, const em_mesh_opts *opts, const em_log *log,
                         em_mesh **m) {
  EM_CHECK(m, EM_ERR_ARG, "em_case_load_mesh without an output");
  *m = NULL;
  EM_CHECK(c && path && opts, EM_ERR_ARG, "em_case_load_mesh without a case, a path or options");
  EM_CHECK(!c->mesh_loaded, EM_ERR_ARG, "case '%s': a mesh is already loaded", c->path);
  EM_CHECK(opts->unit > 0 && isfinite(opts->unit), EM_ERR_INPUT,
           "case '%s': the unit must be > 0 metres, not %g", c->path, opts->unit);
  EM_TRY(check_msh_name(path, "Mesh/file"));
  struct stat st;
  EM_CHECK(stat(path, &st) == 0, EM_ERR_IO, "mesh file '%s': %s", path, strerror(errno));
  EM_CHECK(S_ISREG(st.st_mode), EM_ERR_IO, "mesh file '%s' is not a regular file", path);
  FILE *f = fopen(path, "rb");
  EM_CHECK(f, EM_ERR_IO, "mesh file '%s' cannot be read: %s", path, strerror(errno));
  fclose(f);
  double t0 = em_wtime();
  omp_set_num_threads(1); /* Gmsh's loops are not thread-safe (case_open.c) */
  em_log_info(log, "reading the mesh of %s from %s ...", c->name, path);
  c->mesh_loaded = 1; /* the loaded model stays current: --save-mesh writes it */
  em_err err = load(c, path, opts, m);
  em_case_restore_threads(c);
  if (err) em_mesh_destroy(m);
  em_gmsh_forward_warnings(log, &c->log_mark);
  EM_TRY(err);
  em_mesh_stats s;
  em_mesh_stats_compute(*m, &s);
  em_log_info(log,
              "mesh: %d tets, %d vertices, %d edges, %d faces from %s in %.2f s; quality min %.3f "
              "mean %.3f; h %.3g .. %.3g mm",
              s.n_tet, s.n_vert, s.n_edge, s.n_face, path, em_wtime() - t0, s.q_min, s.q_mean,
              s.h_min * 1e3, s.h_max * 1e3);
  return EM_OK;
}
