/* case_open.c - open a case: check the file, start Gmsh, parse the file
 * with the command-line overrides applied as ONELAB values, read its
 * parameters and check that every volume has exactly one material.
 *
 * Why two parses when there are overrides: ONELAB keeps numbers and strings
 * apart, and a value of the wrong type set before parsing is silently mixed
 * into the case (a string DefineConstant takes a number, or the override is
 * ignored), so the types are learnt from a clean parse first.  Overrides of
 * names only the specs know never touch Gmsh, so they need no second parse. */
#include <errno.h>
#include <gmshc.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "case_impl.h"

/* Gmsh is one global instance per process; this flag says it is taken.  It
 * mirrors Gmsh's own global state, which is why it is global too. */
static atomic_int gmsh_taken_ = 0;

/* A case that calls Exit makes Gmsh call exit() in the middle of the parse,
 * which would end emsolve with status 0 and no word.  While a file is
 * parsed this names it, and an atexit handler turns such an exit into an
 * error (status 1).  Process-wide like the exit it catches. */
static const char *volatile parsing_ = NULL;
static atomic_int exit_hook_ = 0;

static void exit_during_parse(void) {
  const char *path = parsing_;
  if (!path) return;
  fprintf(stderr,
          "error: case file '%s' called Exit while being parsed (Gmsh ends the process): remove "
          "the Exit from the case\n",
          path);
  fflush(stderr);
  _exit(1);
}

/* A regular, readable file named *.geo or *.msh. */
static em_err check_file(const char *path, int *is_msh) {
  struct stat st;
  EM_CHECK(stat(path, &st) == 0, EM_ERR_IO, "case file '%s': %s", path, strerror(errno));
  EM_CHECK(S_ISREG(st.st_mode), EM_ERR_IO, "case file '%s' is not a regular file", path);
  FILE *f = fopen(path, "rb");
  EM_CHECK(f, EM_ERR_IO, "case file '%s' cannot be read: %s", path, strerror(errno));
  fclose(f);
  const char *base = strrchr(path, '/');
  const char *dot = strrchr(base ? base : path, '.');
  int geo = dot && !strcasecmp(dot, ".geo"), msh = dot && !strcasecmp(dot, ".msh");
  EM_CHECK(geo || msh, EM_ERR_INPUT,
           "case file '%s' has an unknown extension '%s' (a case is a Gmsh .geo or .msh file)",
           path, dot ? dot : "");
  *is_msh = msh;
  return EM_OK;
}

/* "dir/dra.geo" -> "dra" */
static em_err base_name(const char *path, char **name) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  EM_TRY(em_strdup(name, base));
  char *dot = strrchr(*name, '.');
  if (dot && dot != *name) *dot = '\0';
  return EM_OK;
}

em_err em_case_group_name(const em_case *c, int dim, int tag, char **out) {
  char *name = NULL;
  int ierr = 0;
  gmshModelGetPhysicalName(dim, tag, &name, &ierr);
  if (ierr) {
    gmshFree(name);
    return EM_GMSH_RAISE(c->log_mark, "cannot read the name of physical group %d (dimension %d)",
                         tag, dim);
  }
  em_err err = EM_OK;
  if (name && name[0]) {
    err = em_strdup(out, name);
  } else {
    char buf[32];
    snprintf(buf, sizeof buf, "%s%d", dim == 3 ? "volume" : "surface", tag);
    err = em_strdup(out, buf);
  }
  gmshFree(name);
  EM_TRY(err);
  return EM_OK;
}

/* Initialise Gmsh quietly (its messages kept for our errors and forwarded
 * to our log, em_gmsh_forward_warnings), and an empty ONELAB database: the database
 * outlives gmshFinalize, so a previous case's values would leak in. */
static em_err gmsh_start(em_case *c, const em_log *log) {
  int ierr = 0;
  if (c->omp_threads == 0) c->omp_threads = omp_get_max_threads();
  gmshInitialize(0, NULL, 0, &ierr);
  EM_CHECK(!ierr, EM_ERR_GMSH, "cannot initialise Gmsh for case '%s'", c->path);
  c->gmsh_up = 1;
  /* never Gmsh's own terminal output: it goes to stdout, into the results;
     its messages reach our log (stderr) through its logger */
  (void)log;
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  /* Gmsh 4.8 runs on one thread: its parallel loops log through a shared
   * vector (a double free under ASan) and crashed in 2 of 30 meshing runs of
   * tests/mesh/test_case_threads with more.  The option sets the
   * process-wide OpenMP count, so every entry point here leaves Gmsh with one
   * thread and gives ours back before returning (em_case_restore_threads). */
  if (!ierr) gmshOptionSetNumber("General.NumThreads", 1, &ierr);
  if (!ierr) gmshLoggerStart(&ierr);
  if (!ierr) gmshOnelabClear("", &ierr);
  EM_CHECK(!ierr, EM_ERR_GMSH, "cannot set up Gmsh for case '%s'", c->path);
  c->log_mark = 0;
  return EM_OK;
}

static void gmsh_stop(em_case *c) {
  int ierr = 0;
  if (!c->gmsh_up) return;
  gmshLoggerStop(&ierr);
  gmshFinalize(&ierr);
  c->gmsh_up = 0;
  em_case_restore_threads(c);
}

void em_case_restore_threads(const em_case *c) {
  if (c->omp_threads > 0) omp_set_num_threads(c->omp_threads);
}

/* A fresh Gmsh, the given ONELAB values, then the file. */
static em_err parse(em_case *c, int n_set, const em_param_override *set, const em_log *log) {
  int ierr = 0;
  EM_TRY(gmsh_start(c, log));
  for (int i = 0; i < n_set && !ierr; i++) {
    if (set[i].is_string) {
      char *s = (char *)set[i].string; /* Gmsh copies it; the API is not const */
      gmshOnelabSetString(set[i].name, &s, 1, &ierr);
    } else {
      double v = set[i].number;
      gmshOnelabSetNumber(set[i].name, &v, 1, &ierr);
    }
    if (ierr)
      return EM_GMSH_RAISE(c->log_mark, "case '%s': cannot set parameter '%s'", c->path,
                           set[i].name);
  }
  int expected = 0;
  if (atomic_compare_exchange_strong(&exit_hook_, &expected, 1)) atexit(exit_during_parse);
  parsing_ = c->path;
  gmshOpen(c->path, &ierr);
  parsing_ = NULL;
  if (ierr)
    return EM_GMSH_RAISE(c->log_mark, "case file '%s' %s", c->path,
                         c->is_msh ? "cannot be read"
                         : n_set   ? "does not parse with the command-line values"
                                   : "does not parse");
  em_gmsh_forward_warnings(log, &c->log_mark);
  return EM_OK;
}

/* No two groups of one dimension share a name (lookups go by name). */
static em_err check_group_names(const em_case *c, const int *dt, size_t n) {
  em_err err = EM_OK;
  char **names = NULL;
  size_t k = 0;
  EM_TRY(em_calloc(&names, n / 2, sizeof *names, "group names"));
  for (k = 0; k < n / 2; k++) {
    EM_TRY_GOTO(err, em_case_group_name(c, dt[2 * k], dt[2 * k + 1], &names[k]), done);
    for (size_t j = 0; j < k; j++)
      if (dt[2 * j] == dt[2 * k] && !strcmp(names[j], names[k])) {
        err = EM_RAISE(EM_ERR_INPUT, "case '%s': physical groups %d and %d are both called '%s'",
                       c->path, dt[2 * j + 1], dt[2 * k + 1], names[k]);
        k++;
        goto done;
      }
  }
done:
  for (size_t j = 0; j < k; j++) em_free(&names[j]);
  em_free(&names);
  return err;
}

/* A physical group the case declares but whose entities do not exist
 * (Physical Volume("dra") = {99} without a volume 99): Gmsh keeps its name
 * and drops the group, and the run would solve without that material.  The
 * names are probed by tag up to 256 past the largest group's (Gmsh numbers
 * groups upwards); a .msh is taken as it is. */
static em_err check_empty_groups(const em_case *c, const int *dt, size_t n) {
  if (c->is_msh) return EM_OK;
  static const char *const kind[] = {"Point", "Curve", "Surface", "Volume"};
  int top = 0;
  for (size_t k = 0; k < n; k += 2) top = dt[k + 1] > top ? dt[k + 1] : top;
  for (int dim = 0; dim <= 3; dim++)
    for (int tag = 1; tag <= top + 256; tag++) {
      int listed = 0, ierr = 0;
      for (size_t k = 0; k < n && !listed; k += 2) listed = dt[k] == dim && dt[k + 1] == tag;
      if (listed) continue;
      char *name = NULL;
      gmshModelGetPhysicalName(dim, tag, &name, &ierr);
      int named = !ierr && name && name[0];
      char buf[128];
      if (named) snprintf(buf, sizeof buf, "%s", name);
      gmshFree(name);
      EM_CHECK(!named, EM_ERR_INPUT,
               "case '%s': Physical %s(\"%s\") (group %d) holds no %s of the model: the "
               "entities it lists do not exist, and the run would go on without it; fix its "
               "list",
               c->path, kind[dim], buf, tag,
               dim == 3   ? "volume"
               : dim == 2 ? "surface"
                          : "entity");
    }
  return EM_OK;
}

em_err em_case_check_groups(const em_case *c) {
  EM_CHECK(c && c->gmsh_up, EM_ERR_ARG, "em_case_check_groups: the case is not open");
  int *dt = NULL, ierr = 0;
  size_t n = 0;
  gmshModelGetPhysicalGroups(&dt, &n, -1, &ierr);
  if (ierr)
    return EM_GMSH_RAISE(c->log_mark, "case '%s': cannot list its physical groups", c->path);
  em_err err = check_empty_groups(c, dt, n);
  gmshFree(dt);
  return err;
}

/* Every volume entity in exactly one physical volume (its material). */
static em_err check_volumes(const em_case *c) {
  em_err err = EM_OK;
  int *dt = NULL, *vol = NULL, *phys = NULL, ierr = 0;
  size_t n_dt = 0, n_vol = 0, n_phys = 0;
  size_t mark = c->log_mark;
  gmshModelGetPhysicalGroups(&dt, &n_dt, -1, &ierr);
  if (ierr) return EM_GMSH_RAISE(mark, "case '%s': cannot list its physical groups", c->path);
  int n_phys_vol = 0;
  for (size_t k = 0; k < n_dt; k += 2) n_phys_vol += dt[k] == 3;
  if (!n_phys_vol) {
    err = EM_RAISE(EM_ERR_INPUT,
                   "case %s defines no physical volume; name every volume with Physical "
                   "Volume(\"name\")",
                   c->path);
    goto done;
  }
  EM_TRY_GOTO(err, check_group_names(c, dt, n_dt), done);
  gmshModelGetEntities(&vol, &n_vol, 3, &ierr);
  if (ierr) {
    err = EM_GMSH_RAISE(mark, "case '%s': cannot list its volumes", c->path);
    goto done;
  }
  for (size_t k = 0; k < n_vol; k += 2) {
    int tag = vol[k + 1];
    gmshModelGetPhysicalGroupsForEntity(3, tag, &phys, &n_phys, &ierr);
    if (ierr) {
      err = EM_GMSH_RAISE(mark, "case '%s': cannot read the groups of volume %d", c->path, tag);
      goto done;
    }
    if (n_phys == 0) {
      err = EM_RAISE(EM_ERR_INPUT,
                     "case '%s': volume %d is in no physical group; give it its material with "
                     "Physical Volume(\"name\") = {%d}",
                     c->path, tag, tag);
      goto done;
    }
    if (n_phys > 1) {
      char *a = NULL, *b = NULL;
      err = em_case_group_name(c, 3, phys[0], &a);
      if (!err) err = em_case_group_name(c, 3, phys[1], &b);
      if (!err)
        err = EM_RAISE(EM_ERR_INPUT,
                       "case '%s': volume %d is in %zu physical volumes ('%s' and '%s'); a "
                       "volume has one material",
                       c->path, tag, n_phys, a, b);
      em_free(&a);
      em_free(&b);
      goto done;
    }
    gmshFree(phys);
    phys = NULL;
  }
done:
  gmshFree(dt);
  gmshFree(vol);
  gmshFree(phys);
  return err;
}

/* Parse once; with overrides of case parameters, parse again with them set
 * (see the top of the file).  Leaves the case's parameters in *cp. */
static em_err parse_with_overrides(em_case *c, int n_over, const em_param_override *over,
                                   const em_log *log, em_param **cp, int *n_cp) {
  em_err err = EM_OK;
  em_param_override *set = NULL;
  int n_set = 0;
  double t0 = em_wtime();
  em_param *first = NULL; /* the clean parse's: the case file's own values */
  int n_first = 0;
  EM_TRY(parse(c, 0, NULL, log));
  EM_TRY(em_param_read_onelab(c, cp, n_cp));
  for (int j = 0; j < *n_cp; j++) (*cp)[j].in_file = 1, (*cp)[j].file_number = (*cp)[j].number;
  if (n_over == 0) return EM_OK;
  EM_TRY(em_param_check_overrides(c, *cp, *n_cp, n_over, over));
  EM_TRY(em_param_check_override_values(c, *cp, *n_cp, n_over, over));
  EM_TRY(em_calloc(&set, (size_t)n_over, sizeof *set, "overrides"));
  for (int i = 0; i < n_over; i++)
    for (int j = 0; j < *n_cp; j++)
      if (!strcmp(over[i].name, (*cp)[j].name)) set[n_set++] = over[i];
  if (n_set) {
    em_log_verbose(log, "case %s: parsed in %.2f s; parsing again with %d command-line values",
                   c->name, em_wtime() - t0, n_set);
    first = *cp, n_first = *n_cp;
    *cp = NULL, *n_cp = 0;
    gmsh_stop(c);
    EM_TRY_GOTO(err, parse(c, n_set, set, log), done);
    EM_TRY_GOTO(err, em_param_read_onelab(c, cp, n_cp), done);
    for (int j = 0; j < *n_cp; j++)
      for (int k = 0; k < n_first; k++)
        if (!strcmp((*cp)[j].name, first[k].name)) {
          (*cp)[j].in_file = 1;
          (*cp)[j].file_number = first[k].number;
        }
    EM_TRY_GOTO(err, em_param_check_overrides(c, *cp, *n_cp, n_over, over), done);
    EM_TRY_GOTO(err, em_param_check_applied(c, *cp, *n_cp, n_over, over), done);
  }
done:
  em_param_free_array(&first, &n_first);
  em_free(&set);
  return err;
}

em_err em_case_open(const char *path, int n_over, const em_param_override *over, int n_spec,
                    const em_param_spec *spec, const em_log *log, em_case **out) {
  em_err err = EM_OK;
  em_case *c = NULL;
  em_param *cp = NULL;
  int n_cp = 0;
  EM_CHECK(out, EM_ERR_ARG, "em_case_open without an output");
  *out = NULL;
  EM_CHECK(path && path[0], EM_ERR_ARG, "em_case_open without a file name");
  EM_CHECK(n_over >= 0 && (n_over == 0 || over), EM_ERR_ARG, "case '%s': %d overrides at %p", path,
           n_over, (const void *)over);
  EM_CHECK(n_spec >= 0 && (n_spec == 0 || spec), EM_ERR_ARG, "case '%s': %d specs at %p", path,
           n_spec, (const void *)spec);
  double t0 = em_wtime();
  EM_TRY(em_calloc(&c, 1, sizeof *c, "case"));
  EM_TRY_GOTO(err, em_strdup(&c->path, path), fail);
  EM_TRY_GOTO(err, base_name(path, &c->name), fail);
  EM_TRY_GOTO(err, em_param_copy_specs(c, n_spec, spec), fail);
  EM_TRY_GOTO(err, check_file(path, &c->is_msh), fail);
  int expected = 0;
  if (!atomic_compare_exchange_strong(&gmsh_taken_, &expected, 1)) {
    err = EM_RAISE(EM_ERR_ARG,
                   "cannot open case '%s': another case is open, and Gmsh holds one at a time "
                   "(close it first)",
                   path);
    goto fail;
  }
  c->holds_gmsh = 1;
  EM_TRY_GOTO(err, parse_with_overrides(c, n_over, over, log, &cp, &n_cp), fail);
  EM_TRY_GOTO(err, em_param_check_specs(c, cp, n_cp), fail);
  for (int i = 0; i < n_cp; i++) {
    EM_TRY_GOTO(err, em_param_read_meta(c, &cp[i]), fail);
    EM_TRY_GOTO(err, em_param_check_value(c, &cp[i]), fail);
  }
  EM_TRY_GOTO(err, check_volumes(c), fail);
  EM_TRY_GOTO(err, em_param_build_table(c, &cp, &n_cp, n_over, over), fail);
  for (int i = 0; i < c->n_param; i++)
    EM_TRY_GOTO(
        err,
        em_param_check_group(c, c->param[i].name, !strcmp(c->param[i].source, "command line"), log),
        fail);
  em_log_info(log, "case %s: %s in %.2f s, %d parameters", c->name,
              c->is_msh ? "mesh read" : "parsed", em_wtime() - t0, c->n_param);
  em_case_restore_threads(c);
  *out = c;
  return EM_OK;
fail:
  em_param_free_array(&cp, &n_cp);
  em_case_close(&c);
  return err;
}

void em_case_close(em_case **pc) {
  if (!pc || !*pc) return;
  em_case *c = *pc;
  gmsh_stop(c);
  if (c->holds_gmsh) atomic_store(&gmsh_taken_, 0);
  em_param_free_array(&c->param, &c->n_param);
  em_param_free_specs(c);
  em_free(&c->path);
  em_free(&c->name);
  em_free(pc);
}

const char *em_case_name(const em_case *c) {
  return c ? c->name : NULL;
}

const char *em_case_path(const em_case *c) {
  return c ? c->path : NULL;
}
