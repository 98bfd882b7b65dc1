/* case_params.c - the parameter table of a case: the case file's ONELAB
 * parameters, the command-line overrides and emsolve's own specs (with
 * defaults), and the lookups on it. */
#include <gmshc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "case_impl.h"

#define LIST_MAX 640 /* characters of "known: ..." in an error message */

static const char *const SRC_CASE = "case file";
static const char *const SRC_CLI = "command line";
static const char *const SRC_DEFAULT = "default";

static int param_cmp(const void *a, const void *b) {
  return strcmp(((const em_param *)a)->name, ((const em_param *)b)->name);
}

static int str_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void em_param_free_array(em_param **p, int *n) {
  for (int i = 0; *p && i < *n; i++) {
    em_free(&(*p)[i].name);
    em_free(&(*p)[i].string);
    em_free(&(*p)[i].help);
    em_free(&(*p)[i].choices);
  }
  em_free(p);
  *n = 0;
}

/* Glob on one path element at a time: '*' matches any run of characters
 * except '/', everything else matches itself. */
int em_param_match(const char *pattern, const char *name) {
  if (*pattern == '\0') return *name == '\0';
  if (*pattern == '*') {
    for (const char *s = name;; s++) {
      if (em_param_match(pattern + 1, s)) return 1;
      if (*s == '\0' || *s == '/') return 0;
    }
  }
  return *pattern == *name && em_param_match(pattern + 1, name + 1);
}

/* The spec of a name: an exact name first, else the first wildcard match. */
static const em_param_spec *spec_find(const em_case *c, const char *name) {
  for (int i = 0; i < c->n_spec; i++)
    if (!strcmp(c->spec[i].name, name)) return &c->spec[i];
  for (int i = 0; i < c->n_spec; i++)
    if (strchr(c->spec[i].name, '*') && em_param_match(c->spec[i].name, name)) return &c->spec[i];
  return NULL;
}

const em_param_spec *em_case_spec_of(const em_case *c, const char *name) {
  return c && name ? spec_find(c, name) : NULL;
}

static const em_param *find_in(const em_param *p, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(p[i].name, name)) return &p[i];
  return NULL;
}

static const char *type_name(int is_string) {
  return is_string ? "string" : "number";
}

/* Gmsh's own parameters live under "Gmsh/" and "ONELAB/". */
static int is_gmsh_name(const char *name) {
  return !strncmp(name, "Gmsh/", 5) || !strncmp(name, "ONELAB/", 7);
}

/* One ONELAB parameter: its type is whichever of the number and string
 * tables holds the name (a name in both is ambiguous); the first value. */
static em_err read_one(const em_case *c, const char *name, em_param *p) {
  em_err err = EM_OK;
  double *num = NULL;
  char **str = NULL;
  size_t n_num = 0, n_str = 0;
  int ierr = 0;
  gmshOnelabGetNumber(name, &num, &n_num, &ierr);
  if (!ierr) gmshOnelabGetString(name, &str, &n_str, &ierr);
  if (ierr) {
    err = EM_GMSH_RAISE(c->log_mark, "case file '%s': cannot read parameter '%s'", c->path, name);
    goto done;
  }
  if (n_num && n_str) {
    err = EM_RAISE(EM_ERR_INPUT,
                   "case file '%s' defines parameter '%s' both as a number and "
                   "as a string",
                   c->path, name);
    goto done;
  }
  p->is_string = n_str > 0;
  p->number = n_num ? num[0] : 0;
  p->source = SRC_CASE;
  EM_TRY_GOTO(err, em_strdup(&p->name, name), done);
  if (n_str) EM_TRY_GOTO(err, em_strdup(&p->string, str[0]), done);
done:
  gmshFree(num);
  for (size_t i = 0; i < n_str; i++) gmshFree(str[i]);
  gmshFree(str);
  return err;
}

em_err em_param_read_onelab(const em_case *c, em_param **out, int *n_out) {
  em_err err = EM_OK;
  char **names = NULL;
  size_t n = 0;
  int ierr = 0, np = 0;
  em_param *p = NULL;
  *out = NULL;
  *n_out = 0;
  gmshOnelabGetNames(&names, &n, "", &ierr);
  if (ierr)
    return EM_GMSH_RAISE(c->log_mark, "case file '%s': cannot list its parameters", c->path);
  /* a name defined both as a number and as a string comes twice */
  qsort(names, n, sizeof *names, str_cmp);
  EM_TRY_GOTO(err, em_calloc(&p, n, sizeof *p, "case parameters"), done);
  for (size_t i = 0; i < n; i++) {
    if (is_gmsh_name(names[i]) || (i > 0 && !strcmp(names[i], names[i - 1]))) continue;
    EM_TRY_GOTO(err, read_one(c, names[i], &p[np]), done);
    np++;
  }
  *out = p;
  *n_out = np;
  p = NULL;
done:
  em_param_free_array(&p, &np);
  for (size_t i = 0; i < n; i++) gmshFree(names[i]);
  gmshFree(names);
  return err;
}

/* "a, b, c ..." : the case's names, then the specs' names not among them. */
static void known_names(const em_case *c, const em_param *cp, int n_cp, char *buf, size_t cap) {
  size_t len = 0;
  int first = 1;
  buf[0] = '\0';
  for (int k = 0; k < n_cp + c->n_spec; k++) {
    const char *name = k < n_cp ? cp[k].name : c->spec[k - n_cp].name;
    if (k >= n_cp && find_in(cp, n_cp, name)) continue;
    size_t need = strlen(name) + 2;
    if (len + need + 5 >= cap) {
      snprintf(buf + len, cap - len, " ...");
      return;
    }
    len += (size_t)snprintf(buf + len, cap - len, "%s%s", first ? "" : ", ", name);
    first = 0;
  }
  if (first) snprintf(buf, cap, "none");
}

em_err em_param_check_overrides(const em_case *c, const em_param *cp, int n_cp, int n_over,
                                const em_param_override *over) {
  for (int i = 0; i < n_over; i++) {
    const em_param_override *o = &over[i];
    EM_CHECK(o->name && o->name[0], EM_ERR_ARG, "override %d has no name", i);
    EM_CHECK(!o->is_string || o->string, EM_ERR_ARG, "override '%s' has no string value", o->name);
    const em_param *p = find_in(cp, n_cp, o->name);
    const em_param_spec *s = p ? NULL : spec_find(c, o->name);
    if (!p && !s) {
      char known[LIST_MAX], sug[256];
      known_names(c, cp, n_cp, known, sizeof known);
      const char *best = em_case_suggest(c, o->name, sug, sizeof sug);
      char hint[300] = "";
      if (best) snprintf(hint, sizeof hint, ": did you mean '%s'?", best);
      return EM_RAISE(EM_ERR_INPUT, "unknown parameter '%s' for case '%s'%s (known: %s)", o->name,
                      c->path, hint, known);
    }
    EM_CHECK(o->is_string || isfinite(o->number), EM_ERR_INPUT,
             "parameter '%s' = %g on the command line: not a finite number", o->name, o->number);
    int is_string = p ? p->is_string : s->is_string;
    EM_CHECK(is_string == o->is_string, EM_ERR_INPUT,
             "parameter '%s' of case '%s' is a %s: set it with -set%s, not -set%s", o->name,
             c->path, type_name(is_string), type_name(is_string), type_name(o->is_string));
  }
  return EM_OK;
}

em_err em_param_check_specs(const em_case *c, const em_param *cp, int n_cp) {
  for (int i = 0; i < n_cp; i++) {
    const em_param_spec *s = spec_find(c, cp[i].name);
    EM_CHECK(!s || s->is_string == cp[i].is_string, EM_ERR_INPUT,
             "case file '%s' defines parameter '%s' as a %s, but emsolve expects a %s (spec '%s')",
             c->path, cp[i].name, type_name(cp[i].is_string), type_name(s->is_string), s->name);
  }
  return EM_OK;
}

void em_param_free_specs(em_case *c) {
  for (int i = 0; c->spec && i < c->n_spec; i++) {
    em_free(&c->spec[i].name);
    em_free(&c->spec[i].string);
    em_free(&c->spec[i].help);
    em_free(&c->spec[i].unit);
  }
  em_free(&c->spec);
  c->n_spec = 0;
}

em_err em_param_copy_specs(em_case *c, int n_spec, const em_param_spec *spec) {
  EM_TRY(em_calloc(&c->spec, (size_t)n_spec, sizeof *c->spec, "parameter specs"));
  c->n_spec = n_spec;
  for (int i = 0; i < n_spec; i++) {
    const em_param_spec *s = &spec[i];
    em_param_spec *d = &c->spec[i];
    char *name = NULL, *str = NULL, *help = NULL;
    EM_CHECK(s->name && s->name[0], EM_ERR_ARG, "parameter spec %d has no name", i);
    /* the strings are owned here: build them first, then publish them */
    EM_TRY(em_strdup(&name, s->name));
    d->name = name;
    if (s->string) EM_TRY(em_strdup(&str, s->string));
    d->string = str;
    if (s->help) EM_TRY(em_strdup(&help, s->help));
    d->help = help;
    char *unit = NULL;
    if (s->unit) EM_TRY(em_strdup(&unit, s->unit));
    d->unit = unit;
    d->group_dim = s->group_dim;
    d->is_string = s->is_string;
    d->number = s->number;
    /* a string default that is NULL is no default */
    d->has_default = s->has_default && (!s->is_string || s->string);
  }
  return EM_OK;
}

/* The entry called name in p[0..*n), or a new zeroed one at the end. */
static em_param *slot(em_param *p, int *n, const char *name, int *is_new) {
  for (int i = 0; i < *n; i++)
    if (!strcmp(p[i].name, name)) {
      *is_new = 0;
      return &p[i];
    }
  *is_new = 1;
  return &p[(*n)++];
}

em_err em_param_build_table(em_case *c, em_param **cp, int *n_cp, int n_over,
                            const em_param_override *over) {
  em_err err = EM_OK;
  em_param *t = NULL;
  int n = 0;
  size_t cap = (size_t)*n_cp + (size_t)n_over + (size_t)c->n_spec;
  EM_TRY(em_calloc(&t, cap, sizeof *t, "parameter table"));
  memcpy(t, *cp, (size_t)*n_cp * sizeof *t);
  n = *n_cp;
  em_free(cp); /* the strings now belong to t */
  *n_cp = 0;
  for (int i = 0; i < n_over; i++) {
    int is_new;
    em_param *p = slot(t, &n, over[i].name, &is_new);
    int from_case = !is_new && p->source == SRC_CASE;
    p->source = SRC_CLI;
    if (from_case) continue; /* its value was read back from Gmsh after the override */
    if (is_new) EM_TRY_GOTO(err, em_strdup(&p->name, over[i].name), fail);
    p->is_string = over[i].is_string;
    p->number = over[i].is_string ? 0 : over[i].number;
    em_free(&p->string);
    if (over[i].is_string) EM_TRY_GOTO(err, em_strdup(&p->string, over[i].string), fail);
  }
  for (int i = 0; i < c->n_spec; i++) {
    const em_param_spec *s = &c->spec[i];
    if (!s->has_default || strchr(s->name, '*') || find_in(t, n, s->name)) continue;
    em_param *p = &t[n++];
    p->source = SRC_DEFAULT;
    p->is_string = s->is_string;
    p->number = s->is_string ? 0 : s->number;
    EM_TRY_GOTO(err, em_strdup(&p->name, s->name), fail);
    if (s->is_string) EM_TRY_GOTO(err, em_strdup(&p->string, s->string), fail);
  }
  qsort(t, (size_t)n, sizeof *t, param_cmp);
  c->param = t;
  c->n_param = n;
  return EM_OK;
fail:
  em_param_free_array(&t, &n);
  return err;
}

/* Numbers compare exactly: ONELAB stores the double it was given. */
em_err em_param_check_applied(const em_case *c, const em_param *cp, int n_cp, int n_over,
                              const em_param_override *over) {
  for (int i = 0; i < n_over; i++) {
    const em_param_override *o = &over[i];
    int last = 1; /* only the last override of a name counts */
    for (int j = i + 1; j < n_over; j++) last &= strcmp(over[j].name, o->name) != 0;
    const em_param *p = find_in(cp, n_cp, o->name);
    if (!last || !p) continue;
    int same = o->is_string ? !strcmp(p->string, o->string) : p->number == o->number;
    EM_CHECK(same, EM_ERR_INPUT,
             "parameter '%s' of case '%s' keeps its case-file value (is it ReadOnly?): the "
             "command line cannot change it",
             o->name, c->path);
  }
  return EM_OK;
}

/* ------------------------------------------------------------- lookups */

int em_case_param_count(const em_case *c) {
  return c ? c->n_param : 0;
}

const em_param *em_case_param_at(const em_case *c, int i) {
  return c && i >= 0 && i < c->n_param ? &c->param[i] : NULL;
}

const em_param *em_case_param_find(const em_case *c, const char *name) {
  if (!c || !name) return NULL;
  const em_param key = {.name = (char *)name};
  return bsearch(&key, c->param, (size_t)c->n_param, sizeof *c->param, param_cmp);
}

/* The table entry, else a matching spec's default; type checked. */
static em_err lookup(const em_case *c, const char *name, int is_string, double *num,
                     const char **str) {
  EM_CHECK(c && name, EM_ERR_ARG, "parameter lookup without a case or a name");
  const em_param *p = em_case_param_find(c, name);
  if (p) {
    EM_CHECK(p->is_string == is_string, EM_ERR_INPUT,
             "parameter '%s' of case '%s' is a %s, not a %s", name, c->path,
             type_name(p->is_string), type_name(is_string));
    *num = p->number;
    *str = p->string;
    return EM_OK;
  }
  const em_param_spec *s = spec_find(c, name);
  EM_CHECK(s && s->has_default, EM_ERR_INPUT,
           "parameter '%s' is not set: case '%s' does not define it, no -set%s gave it, and "
           "it has no default",
           name, c->path, type_name(is_string));
  EM_CHECK(s->is_string == is_string, EM_ERR_INPUT, "parameter '%s' (spec '%s') is a %s, not a %s",
           name, s->name, type_name(s->is_string), type_name(is_string));
  *num = s->number;
  *str = s->string;
  return EM_OK;
}

em_err em_case_number(const em_case *c, const char *name, double *v) {
  const char *s = NULL;
  EM_CHECK(v, EM_ERR_ARG, "em_case_number without an output");
  EM_TRY(lookup(c, name, 0, v, &s));
  return EM_OK;
}

em_err em_case_string(const em_case *c, const char *name, const char **s) {
  double v = 0;
  EM_CHECK(s, EM_ERR_ARG, "em_case_string without an output");
  EM_TRY(lookup(c, name, 1, &v, s));
  return EM_OK;
}
