/* psweep_loop.c - design sweeps a case declares the ONELAB way: a
 * DefineConstant with the Loop attribute over its Choices or Min:Step:Max
 * (docs/sweeps.md, "Sweeps the case declares"). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psweep.h"

/* Whether the case file may declare a loop: a word "Loop" that is not a
 * Curve / Surface / Line Loop command.  A cheap look at the text, so that
 * an ordinary run does not parse its case twice; a yes is confirmed by
 * the ONELAB attributes (declared_axes). */
int em_app_psweep_declared(const char *path) {
  size_t len = path ? strlen(path) : 0;
  if (len < 4 || strcmp(path + len - 4, ".geo")) return 0; /* a .msh declares nothing */
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  for (const char *q = strstr(buf, "Loop"); q; q = strstr(q + 4, "Loop")) {
    if (q > buf && (isalnum((unsigned char)q[-1]) || q[-1] == '_')) continue;
    const char *b = q;
    while (b > buf && isspace((unsigned char)b[-1])) b--;
    const char *w = b;
    while (w > buf && isalpha((unsigned char)w[-1])) w--;
    size_t wl = (size_t)(b - w);
    if ((wl == 5 && !strncmp(w, "Curve", 5)) || (wl == 7 && !strncmp(w, "Surface", 7)) ||
        (wl == 4 && !strncmp(w, "Line", 4)))
      continue;
    return 1;
  }
  return 0;
}

/* The --sweep names against the case (open): each one a parameter the case
 * or emsolve knows ("did you mean"), a group parameter of a group it has; a
 * number parameter given only numbers; no geometry swept over a mesh read
 * from a file.  A failure is a usage error: nothing has run. */
static em_err check_names(const em_case *c, const em_psweep_args *ps, const em_log *log) {
  const char *mf = NULL;
  int loaded = !em_case_string(c, "Mesh/file", &mf) && mf && mf[0];
  em_error_clear();
  for (int j = 0; j < ps->n; j++) {
    const char *sp = ps->specs[j], *eq = strchr(sp, '=');
    char name[256];
    if (!eq || (size_t)(eq - sp) >= sizeof name) continue; /* em_app_psweep_check refused it */
    snprintf(name, sizeof name, "%.*s", (int)(eq - sp), sp);
    em_err err = em_case_check_name(c, name, log);
    if (err) {
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", em_error_message());
      em_error_clear();
      return EM_RAISE(EM_ERR_INPUT, "--sweep %s: %s", sp, msg);
    }
    const em_param *p = em_case_param_find(c, name);
    const em_param_spec *s = p ? NULL : em_case_spec_of(c, name);
    int is_string = p ? p->is_string : s && s->is_string;
    EM_CHECK(!loaded || strncmp(name, "Geometry/", 9), EM_ERR_INPUT,
             "--sweep %s: the mesh is read from %s (Mesh/file, --load-mesh), not made from the "
             "geometry: a swept geometry value cannot change it (sweep without --load-mesh)",
             sp, mf);
    if (is_string || strchr(eq + 1, ':')) continue;
    /* a number parameter: every item a number */
    const char *item = eq + 1;
    for (;;) {
      const char *end = strchr(item, ',');
      size_t len = end ? (size_t)(end - item) : strlen(item);
      char buf[256], *stop = NULL;
      snprintf(buf, sizeof buf, "%.*s", (int)(len < 255 ? len : 255), item);
      strtod(buf, &stop);
      EM_CHECK(stop != buf && *stop == '\0', EM_ERR_INPUT,
               "--sweep %s: '%s' is not a number, and %s is a number parameter", sp, buf, name);
      if (!end) break;
      item = end + 1;
    }
  }
  return EM_OK;
}

/* The sweeps a case declares: each number parameter with a Loop attribute
 * (ONELAB's level 1, 2, 3: outer to inner) over its Choices, else
 * Min:Step:Max, as "NAME=LIST" in spec[] (*n of them), in level order.  A
 * parameter given by -setnumber or by --sweep is not taken from the case.
 * *pc: plots, the points' frequency sweep, the swept parameters' units.  The
 * --sweep names are checked against the case (*usage = 1 when one is wrong). */
/* The points' frequency sweep: the adaptive one, on at least
 * EM_PSWEEP_DENSE frequencies, when the case and the command line leave
 * Solver/sweep unset and the run is a driven band with ports.  A design
 * sweep reports each point's resonance, Q and -10 dB band from its curve:
 * on a coarse uniform grid (5 frequencies) the parabola through three
 * samples gives nonsense (Q 0.038 for the DRA's 7.6); the adaptive model
 * costs a few full solves whatever the number of frequencies. */
static void frequency_sweep(em_case *c, em_psweep_case *pc) {
  const em_param *sw = em_case_param_find(c, "Solver/sweep"); /* the command line's too */
  const char *ex = NULL;
  if ((sw && strcmp(sw->source, "default")) || em_case_string(c, "Excitation/type", &ex) || !ex ||
      strcmp(ex, "port")) {
    em_error_clear();
    return;
  }
  em_run_config cfg;
  if (em_run_config_read(c, &cfg) == EM_OK && !cfg.eigen && cfg.n_freq >= 2) {
    pc->adaptive = 1;
    pc->raise_n = cfg.n_freq < EM_PSWEEP_DENSE;
    pc->n_freq = pc->raise_n ? EM_PSWEEP_DENSE : cfg.n_freq;
  }
  em_error_clear();
  em_run_config_free(&cfg);
}

/* The unit of each parameter a --sweep names or the case loops over. */
static void units(em_case *c, const em_psweep_args *ps, char (*spec)[4096], int n,
                  em_psweep_case *pc) {
  for (int j = 0; j < ps->n + n && pc->n_unit < 2 * EM_PSWEEP_MAX_AXES; j++) {
    const char *s = j < ps->n ? ps->specs[j] : spec[j - ps->n], *eq = strchr(s, '=');
    size_t len = eq ? (size_t)(eq - s) : strlen(s);
    if (len >= sizeof pc->unit_name[0]) continue;
    char *name = pc->unit_name[pc->n_unit];
    memcpy(name, s, len);
    name[len] = '\0';
    em_params_unit(c, name, pc->unit[pc->n_unit], sizeof pc->unit[0]);
    pc->n_unit++;
  }
}

em_err em_psweep_declared_axes(const em_app_args *a, const em_psweep_args *ps, const em_log *log,
                               char (*spec)[4096], int *n, em_psweep_case *pc, int *usage) {
  *n = 0;
  *usage = 0;
  memset(pc, 0, sizeof *pc);
  int n_spec;
  const em_param_spec *specs = em_params_specs(&n_spec);
  em_case *c = NULL;
  em_log quiet = *log;
  quiet.level = log->level >= EM_LOG_VERBOSE ? log->level : EM_LOG_QUIET;
  EM_TRY(em_case_open(a->case_path, a->n_over, a->over, n_spec, specs, &quiet, &c));
  double v = 0;
  pc->plots = em_case_number(c, "Output/plots", &v) == EM_OK && v != 0;
  em_error_clear();
  em_err err = check_names(c, ps, &quiet);
  if (err) {
    *usage = 1;
    em_case_close(&c);
    return err;
  }
  frequency_sweep(c, pc);
  for (int level = 1; level <= 3 && !err; level++)
    for (int i = 0; i < em_case_param_count(c) && !err; i++) {
      const em_param *q = em_case_param_at(c, i);
      int given = 0;
      for (int j = 0; j < ps->n; j++)
        given |= !strncmp(ps->specs[j], q->name, strlen(q->name)) &&
                 ps->specs[j][strlen(q->name)] == '=';
      if (q->loop != level || given || strcmp(q->source, "case file")) continue;
      if (q->is_string) {
        err = EM_RAISE(EM_ERR_INPUT,
                       "case '%s' declares Loop on the string parameter '%s': only numbers loop "
                       "(give --sweep %s=a,b,c)",
                       a->case_path, q->name, q->name);
        break;
      }
      if (*n == EM_PSWEEP_MAX_AXES) {
        err = EM_RAISE(EM_ERR_INPUT, "case '%s' declares more than %d loops", a->case_path,
                       EM_PSWEEP_MAX_AXES);
        break;
      }
      char *d = spec[*n];
      if (q->choices) { /* "1, 2, 4" -> "NAME=1,2,4" */
        size_t len = (size_t)snprintf(d, 4096, "%s=", q->name);
        for (const char *t = q->choices; *t && len < 4095; t++)
          if (*t != ' ') d[len++] = *t;
        d[len] = '\0';
      } else if (q->step > 0 && q->has_min && q->has_max) {
        snprintf(d, 4096, "%s=%.17g:%.17g:%.17g", q->name, q->min, q->step, q->max);
      } else {
        err = EM_RAISE(EM_ERR_INPUT,
                       "case '%s' declares Loop on '%s' but no Choices, or not all of Min, Max "
                       "and Step (> 0): the values to loop over are unknown",
                       a->case_path, q->name);
        break;
      }
      em_log_info(log, "case %s declares a sweep (Loop %d): %s", em_case_name(c), level, d);
      (*n)++;
    }
  if (!err) units(c, ps, spec, *n, pc);
  em_case_close(&c);
  return err;
}
