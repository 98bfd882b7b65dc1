/* case_meta.c - what a case declares about its parameters beyond their
 * values (Help, Min, Max, Choices, ReadOnly of the DefineConstant, read
 * from ONELAB's JSON), the checks made with it (declared ranges, group
 * parameters naming existing groups), and "did you mean" suggestions.
 *
 * Gmsh gives every number parameter without a declared range an automatic
 * one for its GUI slider (value / 20 .. 20 value, or value / 5 .. 5 value
 * for integers, in int), so a range equal to that rule applied to the
 * case's own value counts as not declared.  A Loop attribute (ONELAB's
 * loop level) with Step or Choices declares a design sweep (app/psweep.c). */
#include <gmshc.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "case_impl.h"

#define NO_BOUND 1e199 /* ONELAB's "no limit" is +-1e200 */

/* ------------------------------------------------------ JSON fields */

/* The text after "key": in a flat JSON object, or NULL. */
static const char *json_field(const char *js, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(js, pat);
  if (!p) return NULL;
  p += strlen(pat);
  while (*p == ' ') p++;
  return p;
}

/* A JSON string at p (p at the opening quote) into a new string. */
static em_err json_string(const char *p, char **out) {
  *out = NULL;
  if (!p || *p != '"') return EM_OK;
  p++;
  size_t n = 0;
  while (p[n] && p[n] != '"') n += p[n] == '\\' && p[n + 1] ? 2 : 1;
  EM_TRY(em_calloc(out, n + 1, 1, "parameter text"));
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    char ch = p[i];
    if (ch == '\\' && i + 1 < n) {
      ch = p[++i];
      if (ch == 'n' || ch == 't') ch = ' ';
    }
    (*out)[k++] = ch;
  }
  return EM_OK;
}

/* "choices":[ a, b ] -> "a, b" (strings unquoted). */
static em_err json_list(const char *p, char **out) {
  *out = NULL;
  if (!p || *p != '[') return EM_OK;
  const char *end = strchr(p, ']');
  if (!end) return EM_OK;
  size_t n = (size_t)(end - p);
  EM_TRY(em_calloc(out, n + 1, 1, "parameter choices"));
  size_t k = 0;
  int first = 1;
  for (const char *q = p + 1; q < end; q++) {
    if (*q == '"' || *q == ' ') continue;
    if (*q == ',') {
      (*out)[k++] = ',';
      (*out)[k++] = ' ';
      first = 1;
      continue;
    }
    (*out)[k++] = *q;
    first = 0;
  }
  (void)first;
  (*out)[k] = '\0';
  return EM_OK;
}

/* Gmsh's automatic slider range for a value (see the top of the file); C's
 * int conversion of an out-of-range double gives INT_MIN on x86, as Gmsh's
 * own code gets. */
static double as_int(double x) {
  return x >= (double)INT_MIN && x <= (double)INT_MAX ? (double)(int)x : (double)INT_MIN;
}

static int is_auto_range(double v, double mn, double mx) {
  if (v == 0) return mn == 0 && mx == 0; /* the rule gives 0 .. 0 */
  double a, b;
  if (v == floor(v)) {
    a = as_int(fmin(v / 5, 5 * v));
    b = as_int(fmax(v / 5, 5 * v));
  } else {
    a = fmin(v / 20, 20 * v);
    b = fmax(v / 20, 20 * v);
  }
  double tol = 1e-12 * fmax(fabs(a), fabs(b));
  return fabs(mn - a) <= tol && fabs(mx - b) <= tol;
}

em_err em_param_read_meta(const em_case *c, em_param *p) {
  char *js = NULL;
  int ierr = 0;
  gmshOnelabGet(&js, p->name, "json", &ierr);
  if (ierr || !js) {
    gmshFree(js);
    return EM_GMSH_RAISE(c->log_mark, "case file '%s': cannot read the attributes of '%s'", c->path,
                         p->name);
  }
  em_err err = EM_OK;
  EM_TRY_GOTO(err, json_string(json_field(js, "help"), &p->help), done);
  EM_TRY_GOTO(err, json_list(json_field(js, "choices"), &p->choices), done);
  const char *ro = json_field(js, "readOnly");
  p->read_only = ro && !strncmp(ro, "true", 4);
  /* "attributes":{ "Loop":"1" }: ONELAB's loop level (GetDP runs it) */
  const char *lp = json_field(js, "Loop");
  p->loop = lp && *lp == '"' ? atoi(lp + 1) : 0;
  const char *st = json_field(js, "step");
  p->step = st ? strtod(st, NULL) : 0;
  const char *mn = json_field(js, "min"), *mx = json_field(js, "max");
  if (!p->is_string && mn && mx) {
    double a = strtod(mn, NULL), b = strtod(mx, NULL);
    if (!is_auto_range(p->number, a, b)) {
      p->has_min = a > -NO_BOUND;
      p->has_max = b < NO_BOUND;
      p->min = a;
      p->max = b;
    }
  }
done:
  gmshFree(js);
  return err;
}

/* Geometry/<name> names a length that must be > 0 (a thickness, a
 * radius, a size, ...); other geometry numbers (a margin, an offset) must
 * be >= 0 unless the case declares a Min. */
static int is_size(const char *name) {
  static const char *const words[] = {"thickness", "radius", "height", "length",
                                      "width",     "size",   "side",   "diameter"};
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
    if (strstr(name, words[k])) return 1;
  return 0;
}

/* Number v of parameter p (from `src`) inside what its case declares,
 * finite, and for a geometry number of sign: checked before the geometry
 * is built with it, so that a degenerate shape is refused naming the
 * parameter, not by what OpenCASCADE makes of it ("volume 10 is in 2
 * physical volumes"). */
static em_err check_number(const em_case *c, const em_param *p, double v, const char *src) {
  EM_CHECK(isfinite(v), EM_ERR_INPUT, "parameter '%s' of case '%s' is %g (%s), not a number",
           p->name, c->path, v, src);
  if ((p->has_min && v < p->min) || (p->has_max && v > p->max)) {
    char lo[32] = "-inf", hi[32] = "inf";
    if (p->has_min) snprintf(lo, sizeof lo, "%g", p->min);
    if (p->has_max) snprintf(hi, sizeof hi, "%g", p->max);
    return EM_RAISE(EM_ERR_INPUT,
                    "parameter '%s' = %g (%s) is outside the range %s .. %s that case '%s' "
                    "declares for it (its DefineConstant's Min / Max)",
                    p->name, v, src, lo, hi, c->path);
  }
  if (strncmp(p->name, "Geometry/", 9) || !strcmp(p->name, "Geometry/unit") || p->has_min)
    return EM_OK; /* a declared Min governs (an offset that may be negative) */
  int size = is_size(p->name + 9);
  EM_CHECK(v > 0 || (v == 0 && !size), EM_ERR_INPUT,
           "parameter %s = %g (%s): a %s must be %s (case '%s'; declare Min in its "
           "DefineConstant to allow %s)",
           p->name, v, src, size ? "size" : "geometry value", size ? "> 0" : ">= 0", c->path,
           size ? "other values" : "a negative value");
  return EM_OK;
}

em_err em_param_check_value(const em_case *c, const em_param *p) {
  if (p->is_string) return EM_OK;
  return check_number(c, p, p->number, p->source ? p->source : "case file");
}

/* The command line's numbers for the case's parameters, against what the
 * clean parse declares (read here: its model is the current one), before
 * the file is parsed again with them. */
em_err em_param_check_override_values(const em_case *c, const em_param *cp, int n_cp, int n_over,
                                      const em_param_override *over) {
  for (int i = 0; i < n_over; i++) {
    if (over[i].is_string) continue;
    for (int j = 0; j < n_cp; j++) {
      if (strcmp(cp[j].name, over[i].name) || cp[j].is_string) continue;
      em_param q = {0};
      q.name = cp[j].name;
      q.number = cp[j].number; /* the range is told from an automatic one by it */
      em_err err = em_param_read_meta(c, &q);
      em_free(&q.help);
      em_free(&q.choices);
      EM_TRY(err);
      EM_TRY(check_number(c, &q, over[i].number, "command line"));
    }
  }
  return EM_OK;
}

/* ------------------------------------------------------- group names */

/* The physical group names of one dimension, as a list "a, b, c". */
static em_err group_list(const em_case *c, int dim, char *buf, size_t cap, int *found,
                         const char *want) {
  int *dt = NULL, ierr = 0;
  size_t n = 0, len = 0;
  buf[0] = '\0';
  *found = 0;
  gmshModelGetPhysicalGroups(&dt, &n, dim, &ierr);
  if (ierr) return EM_GMSH_RAISE(c->log_mark, "case '%s': cannot list its groups", c->path);
  em_err err = EM_OK;
  for (size_t k = 0; k < n; k += 2) {
    char *name = NULL;
    EM_TRY_GOTO(err, em_case_group_name(c, dim, dt[k + 1], &name), done);
    if (want && !strcmp(name, want)) *found = 1;
    if (len + strlen(name) + 3 < cap)
      len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", name);
    em_free(&name);
  }
done:
  gmshFree(dt);
  return err;
}

/* "Materials/dra/eps_r" against "Materials/ * /eps_r": the group part. */
static int group_part(const char *pattern, const char *name, char *grp, size_t n) {
  const char *star = strchr(pattern, '*');
  if (!star || !em_param_match(pattern, name)) return 0;
  size_t pre = (size_t)(star - pattern);
  const char *g = name + pre, *e = strchr(g, '/');
  size_t len = e ? (size_t)(e - g) : strlen(g);
  if (len + 1 > n) len = n - 1;
  memcpy(grp, g, len);
  grp[len] = '\0';
  return 1;
}

em_err em_param_check_group(const em_case *c, const char *name, int from_cli, const em_log *log) {
  const em_param_spec *s = em_case_spec_of(c, name);
  char grp[128], groups[512];
  if (!s || !s->group_dim || !group_part(s->name, name, grp, sizeof grp)) return EM_OK;
  int found = 0;
  EM_TRY(group_list(c, s->group_dim, groups, sizeof groups, &found, grp));
  if (found) return EM_OK;
  const char *kind = s->group_dim == 3 ? "volume" : "surface";
  char sug[256];
  const char *best = em_case_suggest(c, name, sug, sizeof sug);
  char hint[320] = "";
  if (best) snprintf(hint, sizeof hint, "; did you mean '%s'?", best);
  if (!from_cli) {
    em_log_warn(log, "case '%s' sets '%s', but has no %s group '%s' (%s groups: %s)%s", c->path,
                name, kind, grp, kind, groups[0] ? groups : "none", hint);
    return EM_OK;
  }
  return EM_RAISE(EM_ERR_INPUT, "parameter '%s': case '%s' has no %s group '%s' (%s groups: %s)%s",
                  name, c->path, kind, grp, kind, groups[0] ? groups : "none", hint);
}

em_err em_case_check_name(const em_case *c, const char *name, const em_log *log) {
  EM_CHECK(c && name && name[0], EM_ERR_ARG, "em_case_check_name: no case or no name");
  const em_param *p = em_case_param_find(c, name);
  const em_param_spec *s = p ? NULL : em_case_spec_of(c, name);
  /* an unknown name: the override check's message, with "did you mean" */
  em_param_override o = {name, p ? p->is_string : s ? s->is_string : 0, 0, ""};
  EM_TRY(em_param_check_overrides(c, c->param, c->n_param, 1, &o));
  return em_param_check_group(c, name, 1, log);
}

/* ------------------------------------------------------- suggestions */

/* Edit distance, letters compared without case. */
static int distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 120 || m > 120) return 1000;
  int row[121];
  for (size_t j = 0; j <= m; j++) row[j] = (int)j;
  for (size_t i = 1; i <= n; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= m; j++) {
      int up = row[j];
      int ca = a[i - 1] | 0x20, cb = b[j - 1] | 0x20;
      int best = diag + (ca != cb);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[m];
}

static void consider(const char *cand, const char *name, int *best, char *buf, size_t n) {
  int d = distance(cand, name);
  if (d > 0 && d < *best) { /* the name itself is no suggestion */
    *best = d;
    snprintf(buf, n, "%s", cand);
  }
}

const char *em_case_suggest(const em_case *c, const char *name, char *buf, size_t n) {
  int best = 1000;
  buf[0] = '\0';
  for (int i = 0; i < c->n_param; i++) consider(c->param[i].name, name, &best, buf, n);
  for (int i = 0; i < c->n_spec; i++) {
    const em_param_spec *s = &c->spec[i];
    const char *star = strchr(s->name, '*');
    if (!star) {
      consider(s->name, name, &best, buf, n);
      continue;
    }
    if (!s->group_dim) continue;
    /* the wildcard spec with each of the case's groups of its dimension */
    int *dt = NULL, ierr = 0;
    size_t nd = 0;
    gmshModelGetPhysicalGroups(&dt, &nd, s->group_dim, &ierr);
    for (size_t k = 0; !ierr && k < nd; k += 2) {
      char *g = NULL, cand[256];
      if (em_case_group_name(c, s->group_dim, dt[k + 1], &g)) {
        em_error_clear();
        continue;
      }
      snprintf(cand, sizeof cand, "%.*s%s%s", (int)(star - s->name), s->name, g, star + 1);
      consider(cand, name, &best, buf, n);
      em_free(&g);
    }
    gmshFree(dt);
  }
  /* close enough to be a typo: a few edits, not a different word */
  int len = (int)strlen(name), lim = len < 12 ? 2 : len / 5;
  if (best > lim) return NULL;
  return buf;
}
