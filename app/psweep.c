/* psweep.c - design sweeps: --sweep NAME=LIST [--sweep ...] [--zip].
 *
 * Each point is the ordinary run (em_app_run) with the swept values as
 * extra -setnumber / -setstring overrides (given after the user's, so they
 * win) and its outputs in OUT/point_<k>/.  Its port table (ports.csv) is
 * read back and collected into OUT/sweep.csv, its resonances (resonance.c)
 * into OUT/sweep_summary.csv; both are written to a temporary name and
 * renamed.  A point is complete when OUT/point_<k>/point.done, written last
 * (temporary + rename), holds the point's key ("NAME=VALUE" lines):
 * --resume skips such points.  A failing point (bad geometry, mesh failure)
 * is logged with its message, recorded in the summary, and the sweep goes on. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "app_dist.h" /* MPI ranks sharing the points */
#include "app_impl.h" /* em_app_plot */
#include "psweep.h"

enum { MAX_AXES = EM_PSWEEP_MAX_AXES, MAX_VALUES = 1000, MAX_RES = 8, KEY_LEN = 2048 };

typedef struct axis {
  char name[256];
  int is_string, n;
  double v[MAX_VALUES];
  char *s[MAX_VALUES]; /* pointers into text (strings) */
  char text[4096];     /* the list, split in place */
} axis;

typedef struct psweep {
  int n_axis, n_point;
  axis *ax;
  char out[1024];
  int changes_mesh[MAX_AXES]; /* the axis may change the mesh (mesh_axis) */
  int n_size;                 /* material values the shared meshes are sized with */
  em_param_override size_over[MAX_AXES];
  em_psweep_case pc; /* the points' frequency sweep, the units (psweep_loop.c) */
  int n_def;         /* the points' default overrides (Solver/sweep adaptive, n_freq) */
  em_param_override def[2];
  int quiet; /* -q: no point's tables on stdout */
} psweep;

/* Whether a parameter may change the mesh: geometry, Mesh/ and the band
 * (which sets the mesh frequency) do, and so does any name emsolve does not
 * know (the case may build its geometry from it); materials, ports, solver
 * and output settings do not (a material's eps_r, mu_r and tan_delta size
 * the elements: those are taken at the sweep's largest, size_over). */
static int mesh_axis(const char *name) {
  static const char *const keep[] = {"Materials/",     "Ports/",         "Output/",     "Farfield/",
                                     "Eigen/",         "PMG/",           "Excitation/", "PML/order",
                                     "PML/reflection", "PML/basis_order"};
  for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
    if (!strncmp(name, keep[i], strlen(keep[i]))) return 0;
  if (!strncmp(name, "Solver/", 7))
    return !strcmp(name, "Solver/f_start") || !strcmp(name, "Solver/f_stop") ||
           !strcmp(name, "Solver/frequency");
  return 1;
}

/* A material value that sizes the elements (the local wavelength). */
static int sizes_mesh(const char *name) {
  if (strncmp(name, "Materials/", 10)) return 0;
  const char *last = strrchr(name, '/');
  return !strcmp(last, "/eps_r") || !strcmp(last, "/mu_r") || !strcmp(last, "/tan_delta");
}

/* Items of text before `item` (its 0-based index). */
static int count_items(const char *text, const char *item) {
  int n = 0;
  for (const char *c = text; c < item; c++) n += *c == ',';
  return n;
}

/* "a,b,c" (numbers, or strings when one item is not a number) or
 * "start:step:stop" (numbers; stop included within step/1e6). */
static em_err parse_axis(const char *spec, axis *x) {
  const char *eq = strchr(spec, '=');
  EM_CHECK(eq && eq > spec && eq[1], EM_ERR_INPUT,
           "--sweep '%s': expected NAME=a,b,c or NAME=start:step:stop", spec);
  EM_CHECK((size_t)(eq - spec) < sizeof x->name && strlen(eq + 1) < sizeof x->text, EM_ERR_INPUT,
           "--sweep '%s': too long", spec);
  memcpy(x->name, spec, (size_t)(eq - spec));
  x->name[eq - spec] = '\0';
  snprintf(x->text, sizeof x->text, "%s", eq + 1);
  if (strchr(x->text, ':')) {
    double r[3];
    char *p = x->text, *end;
    for (int k = 0; k < 3; k++) {
      errno = 0;
      r[k] = strtod(p, &end);
      EM_CHECK(end != p && errno == 0 && (k < 2 ? *end == ':' : *end == '\0'), EM_ERR_INPUT,
               "--sweep %s: '%s' is not start:step:stop", x->name, eq + 1);
      p = end + 1;
    }
    EM_CHECK(r[1] != 0 && (r[2] - r[0]) / r[1] >= 0, EM_ERR_INPUT,
             "--sweep %s: step %g does not lead from %g to %g", x->name, r[1], r[0], r[2]);
    double cnt = floor((r[2] - r[0]) / r[1] + 1e-6) + 1;
    EM_CHECK(cnt <= MAX_VALUES, EM_ERR_INPUT, "--sweep %s: %.0f values (at most %d)", x->name, cnt,
             MAX_VALUES);
    x->n = (int)cnt;
    /* start + k step, not repeated addition, rounded to 12 digits so that
       7:0.1:8 gives 7.2 (the double nearest "7.2"), not 7.2000000000000002 */
    for (int k = 0; k < x->n; k++) {
      char b[64];
      snprintf(b, sizeof b, "%.12g", r[0] + k * r[1]);
      x->v[k] = strtod(b, NULL);
    }
    return EM_OK;
  }
  /* an empty item ("20,,30", "20,30,") is a typing slip, not a value */
  for (const char *c = x->text, *item = x->text;; c++)
    if (*c == ',' || *c == '\0') {
      const char *b = item;
      while (b < c && (*b == ' ' || *b == '\t')) b++;
      EM_CHECK(b < c, EM_ERR_INPUT, "--sweep %s=%s: item %d of the list is empty", x->name, eq + 1,
               1 + count_items(x->text, item));
      if (!*c) break;
      item = c + 1;
    }
  x->n = 0;
  for (char *tok = strtok(x->text, ","); tok; tok = strtok(NULL, ",")) {
    EM_CHECK(x->n < MAX_VALUES, EM_ERR_INPUT, "--sweep %s: more than %d values", x->name,
             MAX_VALUES);
    x->s[x->n++] = tok;
  }
  EM_CHECK(x->n > 0, EM_ERR_INPUT, "--sweep %s: empty list", x->name);
  for (int k = 0; k < x->n; k++) {
    char *end;
    errno = 0;
    x->v[k] = strtod(x->s[k], &end);
    if (end == x->s[k] || *end != '\0' || errno) x->is_string = 1;
  }
  return EM_OK;
}

/* Index of axis j at point k: Cartesian product, the first axis slowest;
 * with zip every axis moves together. */
static int axis_index(const psweep *p, int zip, int k, int j) {
  if (zip) return k;
  int stride = 1;
  for (int m = p->n_axis - 1; m > j; m--) stride *= p->ax[m].n;
  return (k / stride) % p->ax[j].n;
}

static void value_text(const axis *x, int i, char *buf, size_t n) {
  if (x->is_string)
    snprintf(buf, n, "%s", x->s[i]);
  else /* the shortest form that reads back exactly */
    for (int prec = 15; prec <= 17; prec++) {
      snprintf(buf, n, "%.*g", prec, x->v[i]);
      if (strtod(buf, NULL) == x->v[i]) break;
    }
}

/* "NAME=VALUE\n" per axis: the completion marker's content. */
static void point_key(const psweep *p, int zip, int k, char *key) {
  size_t len = 0;
  key[0] = '\0';
  for (int j = 0; j < p->n_axis; j++) {
    char v[300];
    value_text(&p->ax[j], axis_index(p, zip, k, j), v, sizeof v);
    len += (size_t)snprintf(key + len, KEY_LEN - len, "%s=%s\n", p->ax[j].name, v);
    if (len >= KEY_LEN) len = KEY_LEN - 1;
  }
}

/* The point's values of the axes that may change the mesh: points of equal
 * mesh keys share one mesh (meshreuse.c). */
static void mesh_key(const psweep *p, int zip, int k, char *key, size_t cap) {
  size_t len = 0;
  key[0] = '\0';
  for (int j = 0; j < p->n_axis && len < cap; j++) {
    if (!p->changes_mesh[j]) continue;
    char v[300];
    value_text(&p->ax[j], axis_index(p, zip, k, j), v, sizeof v);
    len += (size_t)snprintf(key + len, cap - len, "%s=%s\n", p->ax[j].name, v);
  }
}

/* The marker: the key, then the command line's own overrides ("-setnumber
 * NAME VALUE" lines) and the sizing values of its mesh, so a point done
 * with other settings is not reused. */
static void marker_text(const em_app_args *a, const psweep *p, int zip, int k, char *buf) {
  point_key(p, zip, k, buf);
  size_t len = strlen(buf);
  for (int i = 0; i < a->n_over && len < KEY_LEN - 1; i++) {
    const em_param_override *o = &a->over[i];
    if (o->is_string)
      len += (size_t)snprintf(buf + len, KEY_LEN - len, "-setstring %s %s\n", o->name, o->string);
    else
      len +=
          (size_t)snprintf(buf + len, KEY_LEN - len, "-setnumber %s %.17g\n", o->name, o->number);
  }
  for (int i = 0; i < p->n_def && len < KEY_LEN - 1; i++) /* the points' own sweep */
    len += (size_t)snprintf(buf + len, KEY_LEN - len, "design sweep default %s %s%.17g\n",
                            p->def[i].name, p->def[i].is_string ? p->def[i].string : "",
                            p->def[i].is_string ? 0.0 : p->def[i].number);
  /* the material values its mesh was sized with (the sweep's largest): a
     sweep resumed with another list re-runs the point on the new mesh */
  for (int i = 0; i < p->n_size && len < KEY_LEN - 1; i++)
    len += (size_t)snprintf(buf + len, KEY_LEN - len, "mesh sized with %s %.17g\n",
                            p->size_over[i].name, p->size_over[i].number);
}

static int marker_matches(const char *dir, const char *key) {
  char path[1200], buf[KEY_LEN];
  snprintf(path, sizeof path, "%s/point.done", dir);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return strcmp(buf, key) == 0;
}

static em_err write_text(const char *path, const char *text) {
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 0));
  fputs(text, o.f);
  return em_outfile_commit(&o);
}

/* One point's port-1 sweep, read back from its ports.csv. */
typedef struct curve {
  int n;
  double *f, *sdb, *sdeg, *zr, *zi;
  int flagged; /* a row's flag is not "ok" (not converged, |S| > 1) */
} curve;

static void curve_free(curve *c) {
  em_free(&c->f);
  em_free(&c->sdb);
  em_free(&c->sdeg);
  em_free(&c->zr);
  em_free(&c->zi);
  c->n = 0;
}

static em_err read_ports_csv(const char *dir, curve *c) {
  char path[1200], line[8192];
  snprintf(path, sizeof path, "%s/ports.csv", dir);
  FILE *f = fopen(path, "r");
  EM_CHECK(f, EM_ERR_IO, "%s: %s", path, strerror(errno));
  int col[5] = {-1, -1, -1, -1, -1}, cap = 0, col_flag = -1;
  static const char *want[5] = {"f_Hz", "S11_dB", "S11_deg", "Zin1_re_ohm", "Zin1_im_ohm"};
  em_err err = EM_OK;
  memset(c, 0, sizeof *c);
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    line[strcspn(line, "\r\n")] = '\0';
    if (col[0] < 0) { /* the header */
      int k = 0;
      for (char *t = strtok(line, ","); t; t = strtok(NULL, ","), k++) {
        for (int w = 0; w < 5; w++)
          if (!strcmp(t, want[w])) col[w] = k;
        if (!strcmp(t, "flag")) col_flag = k;
      }
      if (col[0] < 0 || col[1] < 0 || col[2] < 0 || col[3] < 0 || col[4] < 0) {
        err = EM_RAISE(EM_ERR_IO,
                       "%s: no port-1 columns (f_Hz, S11_dB, S11_deg, Zin1_re_ohm, Zin1_im_ohm)",
                       path);
        break;
      }
      continue;
    }
    if (c->n == cap) {
      cap = cap ? 2 * cap : 64;
      double **arr[5] = {&c->f, &c->sdb, &c->sdeg, &c->zr, &c->zi};
      for (int w = 0; w < 5 && !err; w++)
        err = em_realloc(arr[w], (size_t)cap, sizeof(double), "sweep curve");
      if (err) break;
    }
    double *dst[5] = {c->f, c->sdb, c->sdeg, c->zr, c->zi};
    int k = 0;
    for (char *t = strtok(line, ","); t; t = strtok(NULL, ","), k++) {
      for (int w = 0; w < 5; w++)
        if (k == col[w]) dst[w][c->n] = strtod(t, NULL);
      if (k == col_flag && strcmp(t, "ok")) c->flagged = 1;
    }
    c->n++;
  }
  fclose(f);
  if (err) curve_free(c);
  return err;
}

static em_cplx s11_of(const curve *c, int i) {
  double m = pow(10, c->sdb[i] / 20), ph = c->sdeg[i] * M_PI / 180;
  return m * cos(ph) + I * m * sin(ph);
}

/* The per-point outcome kept for the summary. */
typedef struct point_res {
  int done, failed, skipped; /* done: run (or skipped) in this invocation */
  int flagged;               /* its results are flagged (ports.csv's flag column) */
  char msg[512];             /* why it failed, or a warning on its figures */
  int nz, ns;
  em_resonance zp[MAX_RES], sm[MAX_RES];
  double ant[4]; /* at the first resonance: D, G, realized G (dBi), efficiency; NaN: none */
} point_res;

static void analyse(const curve *c, point_res *r) {
  em_cplx s[4096];
  if (c->n > 4096 || c->n < 3) return;
  for (int i = 0; i < c->n; i++) s[i] = s11_of(c, i);
  /* z0 from the first row: z0 = Zin (1 - S) / (1 + S) */
  em_cplx z = (c->zr[0] + I * c->zi[0]) * (1 - s[0]) / (1 + s[0]);
  double z0 = cabs(z) > 0 && isfinite(cabs(z)) ? cabs(z) : 50;
  em_res_find(c->n, c->f, s, z0, MAX_RES, r->zp, &r->nz, r->sm, &r->ns);
}

static void put_values(FILE *f, const psweep *p, int zip, int k) {
  for (int j = 0; j < p->n_axis; j++) {
    char v[300];
    value_text(&p->ax[j], axis_index(p, zip, k, j), v, sizeof v);
    fprintf(f, ",%s", v);
  }
}

static void header(FILE *f, const psweep *p) {
  fputs("point", f);
  for (int j = 0; j < p->n_axis; j++) fprintf(f, ",%s", p->ax[j].name);
}

static em_err write_sweep_csv(const psweep *p, int zip, const curve *cv, const point_res *pr) {
  char path[1200];
  snprintf(path, sizeof path, "%s/sweep.csv", p->out);
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 0));
  FILE *f = o.f;
  fputs(
      "# emsolve design sweep: one row per point and frequency; swept values in the units "
      "below; f in Hz, S11 in dB and degrees, Zin in ohm (port 1)\n",
      f);
  fputs("# units:", f); /* NAME UNIT; ... (1: none) */
  for (int j = 0; j < p->n_axis; j++) {
    const char *u = "";
    for (int i = 0; i < p->pc.n_unit; i++)
      if (!strcmp(p->pc.unit_name[i], p->ax[j].name)) u = p->pc.unit[i];
    fprintf(f, "%s %s %s", j ? ";" : "", p->ax[j].name, u[0] ? u : "1");
  }
  fputc('\n', f);
  header(f, p);
  fputs(",f_Hz,S11_dB,S11_deg,Zin_re_ohm,Zin_im_ohm\n", f);
  for (int k = 0; k < p->n_point; k++) {
    if (pr[k].failed) continue;
    for (int i = 0; i < cv[k].n; i++) {
      fprintf(f, "%d", k);
      put_values(f, p, zip, k);
      fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g\n", cv[k].f[i], cv[k].sdb[i], cv[k].sdeg[i],
              cv[k].zr[i], cv[k].zi[i]);
    }
  }
  return em_outfile_commit(&o);
}

/* ",\"message\"\n": in quotes, its quotes doubled (RFC 4180); "" none. */
static void put_message(FILE *f, const char *msg) {
  fputc(',', f);
  if (msg[0]) {
    fputc('"', f);
    for (const char *c = msg; *c; c++) {
      if (*c == '"') fputc('"', f);
      fputc(*c == '\n' ? ' ' : *c, f);
    }
    fputc('"', f);
  }
  fputc('\n', f);
}

static em_err write_summary_csv(const psweep *p, int zip, const point_res *pr) {
  char path[1200];
  snprintf(path, sizeof path, "%s/sweep_summary.csv", p->out);
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 0));
  FILE *f = o.f;
  fputs(
      "# emsolve design sweep summary: f_res = first Re Zin peak (parabola through 3 "
      "samples), Q from Zin at f_res (admittance form, parallel resonance), "
      "f_s11min = first |S11| minimum, -10 dB band around f_s11min (linear in dB), "
      "D, G, realized G (dBi) and radiation efficiency at f_res (antenna.csv), "
      "all_* = every resonance in the band (;-separated); frequencies in Hz\n",
      f);
  header(f, p);
  fputs(
      ",status,f_res_Hz,ReZin_peak_ohm,Q,f_s11min_Hz,s11min_dB,bw10_lo_Hz,bw10_hi_Hz,"
      "bw10_frac,directivity_dBi,gain_dBi,realized_gain_dBi,efficiency,all_ReZin_peaks_Hz,"
      "all_s11_minima_Hz,message\n",
      f);
  for (int k = 0; k < p->n_point; k++) {
    const point_res *r = &pr[k];
    fprintf(f, "%d", k);
    put_values(f, p, zip, k);
    if (!r->done) { /* not reached yet: the table of a sweep under way */
      fputs(",pending,,,,,,,,,,,,,,,\n", f);
      continue;
    }
    if (r->failed) {
      fputs(",failed,,,,,,,,,,,,,,", f); /* 14 empty columns, then the message */
      put_message(f, r->msg);
      continue;
    }
    fputs(r->flagged ? ",flagged" : ",ok", f);
    if (r->nz)
      fprintf(f, ",%.10g,%.8g,%.6g", r->zp[0].f0, r->zp[0].peak, r->zp[0].q);
    else
      fputs(",,,", f);
    if (r->ns) {
      const em_resonance *s = &r->sm[0];
      fprintf(f, ",%.10g,%.6g", s->f0, s->peak);
      if (s->f_hi > s->f_lo)
        fprintf(f, ",%.10g,%.10g,%.6g", s->f_lo, s->f_hi, (s->f_hi - s->f_lo) / s->f0);
      else
        fputs(",,,", f);
    } else {
      fputs(",,,,,", f);
    }
    for (int i = 0; i < 4; i++)
      if (isfinite(r->ant[i]))
        fprintf(f, ",%.6g", r->ant[i]);
      else
        fputc(',', f);
    fputc(',', f);
    for (int i = 0; i < r->nz; i++) fprintf(f, "%s%.10g", i ? ";" : "", r->zp[i].f0);
    fputc(',', f);
    for (int i = 0; i < r->ns; i++) fprintf(f, "%s%.10g", i ? ";" : "", r->sm[i].f0);
    put_message(f, r->msg);
  }
  return em_outfile_commit(&o);
}

/* The arguments of point k: the user's, its values appended as overrides
 * (pa->over to be freed), the mesh cache given its mesh key. */
static em_err point_args(const em_app_args *a, const psweep *p, int zip, int k, em_mesh_cache *mc,
                         em_app_args *pa) {
  *pa = *a;
  pa->psweep = (em_psweep_args){0};
  pa->over = NULL;
  pa->n_over = 0;
  /* the command line's own, the points' default frequency sweep (its
     n_freq raises a smaller one of the command line: the model costs the
     same), then the point's values: the last of a name wins */
  int nd = p->n_def, no = a->n_over;
  EM_TRY(em_realloc(&pa->over, (size_t)nd + (size_t)no + (size_t)p->n_axis, sizeof *pa->over,
                    "sweep overrides"));
  if (no) memcpy(pa->over, a->over, (size_t)no * sizeof *pa->over);
  for (int i = 0; i < nd; i++) pa->over[no + i] = p->def[i];
  for (int j = 0; j < p->n_axis; j++) {
    const axis *x = &p->ax[j];
    int i = axis_index(p, zip, k, j);
    pa->over[nd + no + j] = (em_param_override){x->name, x->is_string, x->is_string ? 0 : x->v[i],
                                                x->is_string ? x->s[i] : NULL};
  }
  pa->n_over = nd + a->n_over + p->n_axis;
  pa->no_tables = p->quiet; /* -q: the sweep's summary only */
  pa->mesh_cache = mc;
  pa->dist = NULL; /* a point runs on one rank */
  if (mc) {
    mesh_key(p, zip, k, mc->key, sizeof mc->key);
    mc->n_size = p->n_size;
    mc->size_over = p->size_over;
    mc->reused = 0;
  }
  return EM_OK;
}

/* Run (or skip) point k: its overrides appended to the user's. */
static em_err run_point(const em_app_args *a, const psweep *p, int zip, int resume, int k,
                        const em_log *log, em_mesh_cache *mc, curve *cv, point_res *r) {
  char dir[1100], key[KEY_LEN], mark[KEY_LEN], path[1200];
  snprintf(dir, sizeof dir, "%s/point_%d", p->out, k);
  point_key(p, zip, k, key);
  marker_text(a, p, zip, k, mark);
  if (resume == 2 && !marker_matches(dir, mark)) { /* after --jobs: a worker's failure */
    snprintf(path, sizeof path, "%s/point.failed", dir);
    FILE *f = fopen(path, "r");
    EM_CHECK(f, EM_ERR_IO, "--jobs / MPI: point %d has neither point.done nor point.failed in %s",
             k, dir);
    size_t n = fread(r->msg, 1, sizeof r->msg - 1, f);
    fclose(f);
    r->msg[n] = '\0';
    r->failed = 1;
    return EM_OK;
  }
  if (resume && marker_matches(dir, mark)) {
    em_log_info(log, "sweep point %d/%d: complete in %s, %s", k + 1, p->n_point, dir,
                resume == 2 ? "solved by a --jobs worker or an MPI rank" : "skipped (--resume)");
    r->skipped = 1;
    EM_TRY(read_ports_csv(dir, cv));
    r->flagged = cv->flagged;
    return EM_OK;
  }
  snprintf(path, sizeof path, "%s/point.done", dir);
  remove(path); /* a rerun point is incomplete until it ends */
  em_app_args pa;
  EM_TRY(point_args(a, p, zip, k, mc, &pa));
  pa.out_dir = dir;
  char shown[KEY_LEN];
  snprintf(shown, sizeof shown, "%s", key);
  for (char *c = shown; *c; c++)
    if (*c == '\n') *c = c[1] ? ' ' : '\0';
  em_log_info(log, "sweep point %d/%d: %s", k + 1, p->n_point, shown);
  em_log plog = *log; /* the point's lines tagged: --jobs interleaves them */
  if (!plog.tag[0])   /* (an MPI rank's tag names the point already, app/rank.c) */
    snprintf(plog.tag, sizeof plog.tag, "point_%d: ", k);
  em_err err = em_app_run(&pa, &plog, NULL);
  em_free(&pa.over);
  /* stopped by a signal: not a failed point; without its marker it runs
     again on --resume (its unfinished frequencies kept, app/outdir.c) */
  if (err && em_app_signal()) return err;
  if (!err) err = read_ports_csv(dir, cv);
  if (!err) r->flagged = cv->flagged;
  if (err) {
    r->failed = 1;
    snprintf(r->msg, sizeof r->msg, "%s", em_error_message());
    em_log_warn(log, "sweep point %d/%d (%s) failed: %s", k + 1, p->n_point, shown, r->msg);
    em_error_clear();
    char fpath[1200];
    snprintf(fpath, sizeof fpath, "%s/point.failed", dir);
    if (em_mkdir_p(dir) == EM_OK && write_text(fpath, r->msg) != EM_OK) em_error_clear();
    return EM_OK;
  }
  /* the marker last: a killed point has none and reruns */
  return write_text(path, mark);
}

static const char *case_stem(const char *path, char *buf, size_t n) {
  const char *b = strrchr(path, '/');
  snprintf(buf, n, "%s", b ? b + 1 : path);
  char *dot = strrchr(buf, '.');
  if (dot && dot != buf) *dot = '\0';
  return buf;
}

em_err em_app_psweep_check(const em_psweep_args *ps) {
  EM_CHECK(ps->n <= MAX_AXES, EM_ERR_INPUT, "at most %d --sweep options (%d given)", MAX_AXES,
           ps->n);
  axis *x = NULL;
  EM_TRY(em_calloc(&x, 1, sizeof *x, "sweep axis"));
  em_err err = EM_OK;
  for (int j = 0; j < ps->n && !err; j++) err = parse_axis(ps->specs[j], x);
  em_free(&x);
  return err;
}

/* The axes: the case's declared loops first (one that a --sweep names is
 * not among them: the --sweep replaces it), then the command line's --sweep
 * in order. */
static em_err build_axes(psweep *p, const em_psweep_args *ps, char (*dspec)[4096], int nd) {
  const char *list[2 * MAX_AXES];
  int n = 0;
  for (int j = 0; j < nd; j++) list[n++] = dspec[j];
  for (int j = 0; j < ps->n; j++) list[n++] = ps->specs[j];
  EM_CHECK(n <= MAX_AXES, EM_ERR_INPUT, "at most %d swept parameters (%d given or declared)",
           MAX_AXES, n);
  EM_TRY(em_calloc(&p->ax, (size_t)(n ? n : 1), sizeof *p->ax, "sweep axes"));
  p->n_axis = n;
  p->n_point = 1;
  for (int j = 0; j < n; j++) {
    EM_TRY(parse_axis(list[j], &p->ax[j]));
    for (int m = 0; m < j; m++)
      EM_CHECK(strcmp(p->ax[m].name, p->ax[j].name), EM_ERR_INPUT, "--sweep %s given twice",
               p->ax[j].name);
    EM_CHECK(!ps->zip || j == 0 || p->ax[j].n == p->ax[0].n, EM_ERR_INPUT,
             "--zip: --sweep %s has %d values, %s has %d", p->ax[j].name, p->ax[j].n, p->ax[0].name,
             p->ax[0].n);
    EM_CHECK(ps->zip || p->n_point * (double)p->ax[j].n <= 100000, EM_ERR_INPUT,
             "the sweep has more than 100000 points");
    p->n_point = ps->zip ? p->ax[0].n : p->n_point * p->ax[j].n;
    /* mesh sharing: the largest value of each swept eps_r / mu_r / tan_delta
       sizes the shared meshes; a string material value changes the mesh */
    p->changes_mesh[j] =
        mesh_axis(p->ax[j].name) || (p->ax[j].is_string && sizes_mesh(p->ax[j].name));
    if (sizes_mesh(p->ax[j].name) && !p->ax[j].is_string) {
      double mx = p->ax[j].v[0];
      for (int i = 1; i < p->ax[j].n; i++) mx = fmax(mx, p->ax[j].v[i]);
      p->size_over[p->n_size++] = (em_param_override){p->ax[j].name, 0, mx, NULL};
    }
  }
  return EM_OK;
}

/* --dry-run: per point the mesh, unknowns, memory and time (psweep_est.c),
 * as a table on stdout; a point that cannot be meshed says why. */
static em_err dry_run(const em_app_args *a, const psweep *p, int zip, const em_log *log) {
  printf("# design sweep of %s: %d points (%s), outputs in %s/point_<k>/\n", a->case_path,
         p->n_point, zip ? "zipped" : "Cartesian product", p->out);
  printf(
      "# tets and unknowns from meshing each point (\"reused\": the previous point's mesh); "
      "coarse: pmg's exact coarse level (PMG/coarse, PMG/pml_coarse); memory and time: host "
      "direct solver model of docs/sweeps.md (2 host cores)\n");
  printf("%-9s %-40s %9s %10s %9s %11s %10s %7s\n", "point", "values", "tets", "unknowns", "coarse",
         "memory_GiB", "time_s", "mesh");
  em_mesh_cache mc;
  memset(&mc, 0, sizeof mc);
  double t_all = 0, mem_max = 0;
  int n_bad = 0;
  for (int k = 0; k < p->n_point; k++) {
    char key[KEY_LEN], name[32];
    point_key(p, zip, k, key);
    for (char *c = key; *c; c++)
      if (*c == '\n') *c = c[1] ? ' ' : '\0';
    em_app_args pa;
    em_psweep_est e;
    em_err err = point_args(a, p, zip, k, &mc, &pa);
    if (!err) err = em_psweep_estimate(&pa, log, &e);
    em_free(&pa.over);
    snprintf(name, sizeof name, "point_%d", k);
    if (err) {
      printf("%-9s %-40s FAILED: %s\n", name, key, em_error_message());
      em_error_clear();
      n_bad++;
      continue;
    }
    double t = e.t_solve + (e.mesh_reused ? 0 : e.t_mesh);
    t_all += t;
    mem_max = fmax(mem_max, e.bytes);
    printf("%-9s %-40s %9d %10d %9d %11.3g %10.3g %7s\n", name, key, e.tets, e.unknowns, e.coarse,
           e.bytes / (1 << 30), t, e.mesh_reused ? "reused" : "new");
  }
  printf(
      "# %d points, %d that cannot be meshed; about %.3g s in all (one after another), "
      "%.3g GiB at most; %d meshings\n",
      p->n_point, n_bad, t_all, mem_max / (1 << 30), mc.n_meshed);
  em_mesh_destroy(&mc.mesh);
  return EM_OK;
}

/* ------------------------------------------------------ --jobs: workers */

/* Worker w of --jobs J runs the points of the mesh groups g with g mod J
 * = w (groups numbered by first appearance): a group stays in one process
 * and shares its mesh.  owner[k] for every point. */
static em_err owners(const psweep *p, int zip, int jobs, int *owner) {
  char *keys = NULL;
  int *first = NULL;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&keys, (size_t)p->n_point, KEY_LEN, "mesh keys"), done);
  EM_TRY_GOTO(err, em_calloc(&first, (size_t)p->n_point, sizeof *first, "mesh groups"), done);
  int n_group = 0;
  for (int k = 0; k < p->n_point; k++) {
    char *key = keys + (size_t)k * KEY_LEN;
    mesh_key(p, zip, k, key, KEY_LEN);
    int g = 0;
    while (g < n_group && strcmp(keys + (size_t)first[g] * KEY_LEN, key)) g++;
    if (g == n_group) first[n_group++] = k;
    owner[k] = g % jobs;
  }
done:
  em_free(&keys);
  em_free(&first);
  return err;
}

/* ------------------------------------------- MPI: the ranks share points */

typedef struct share_ctx {
  const em_app_args *a;
  const psweep *p;
  int zip;
  em_mesh_cache *mc;
} share_ctx;

static void share_key(void *ctx, int k, char *key, size_t cap) {
  const share_ctx *c = ctx;
  mesh_key(c->p, c->zip, k, key, cap);
}

static int share_complete(void *ctx, int k) {
  const share_ctx *c = ctx;
  char dir[1100], mark[KEY_LEN];
  snprintf(dir, sizeof dir, "%s/point_%d", c->p->out, k);
  marker_text(c->a, c->p, c->zip, k, mark);
  return marker_matches(dir, mark);
}

/* Point k into root/point_<k>/ (a rank's scratch folder when it cannot
 * see the sweep's). */
static em_err share_run(void *ctx, int k, const char *root, const em_log *log, int *meshed) {
  share_ctx *c = ctx;
  psweep q = *c->p;
  snprintf(q.out, sizeof q.out, "%s", root);
  curve cv = {0};
  point_res pr = {0};
  int before = c->mc->n_meshed;
  em_err err = run_point(c->a, &q, c->zip, 0, k, log, c->mc, &cv, &pr);
  *meshed = c->mc->n_meshed - before;
  curve_free(&cv);
  return err;
}

/* Whether the points compute on the host: --device cpu, or auto when no
 * GPU answers (asked here, once; the workers then find none either). */
static int host_only(const em_app_args *a, const em_log *log) {
  if (a->device && !strcmp(a->device, "cpu")) return 1;
  if (a->device && strcmp(a->device, "auto")) return 0;
  em_device dev;
  em_log quiet = *log;
  quiet.level = EM_LOG_QUIET;
  if (em_device_open("auto", &quiet, &dev) != EM_OK) {
    em_error_clear();
    return 0;
  }
  if (dev.backend == EM_BACKEND_CPU)
    em_log_info(log, "--jobs: no GPU answers, the points run on the host");
  return dev.backend == EM_BACKEND_CPU;
}

/* ----------------------------------------------------------- the sweep */

em_err em_app_psweep(const em_app_args *a, const em_psweep_args *ps, const em_log *log,
                     em_psweep_outcome *o) {
  memset(o, 0, sizeof *o);
  o->was_sweep = 1;
  int *n_failed = &o->n_failed, locked = 0;
  EM_CHECK(a->case_path, EM_ERR_INPUT, "--sweep needs a case file");
  EM_CHECK(!a->plot_dir && !a->list_params, EM_ERR_INPUT,
           "--sweep does not combine with --plot or --list-params");
  psweep p = {0};
  em_err err = EM_OK;
  curve *cv = NULL;
  point_res *pr = NULL;
  char(*dspec)[4096] = NULL;
  int nd = 0;
  em_mesh_cache mc;
  memset(&mc, 0, sizeof mc);
  EM_TRY(em_calloc(&dspec, MAX_AXES, sizeof *dspec, "declared sweeps"));
  EM_TRY_GOTO(err, em_psweep_declared_axes(a, ps, log, dspec, &nd, &p.pc, &o->usage), done);
  EM_TRY_GOTO(err, build_axes(&p, ps, dspec, nd), done);
  /* sweep.csv takes port 1's columns from every point's ports.csv: a port
     subset without port 1 is refused here, not after every point solved */
  for (int i = a->n_over - 1; i >= 0 && p.n_axis; i--) {
    if (strcmp(a->over[i].name, "Excitation/ports") || !a->over[i].is_string) continue;
    uint32_t mask = 0;
    EM_TRY_GOTO(err, em_excite_parse(a->over[i].string, -1, &mask), done);
    if (!(mask & 1u)) {
      err = EM_RAISE(EM_ERR_INPUT,
                     "Excitation/ports = \"%s\" with --sweep: a design sweep reads port 1's "
                     "columns (S11, Zin1) of every point; drive port 1 too",
                     a->over[i].string);
      goto done;
    }
    break;
  }
  p.quiet = a->log_level == EM_LOG_QUIET;
  if (p.pc.adaptive && p.n_axis) {
    p.def[p.n_def++] = (em_param_override){"Solver/sweep", 1, 0, "adaptive"};
    if (p.pc.raise_n) p.def[p.n_def++] = (em_param_override){"Solver/n_freq", 0, p.pc.n_freq, NULL};
    if (!ps->worker_n)
      em_log_info(log,
                  "design sweep: each point runs the adaptive frequency sweep on %d frequencies%s "
                  "(Solver/sweep is not set; a few full solves give the resonance, Q and band): "
                  "-setstring Solver/sweep uniform solves each of Solver/n_freq instead",
                  p.pc.n_freq, p.pc.raise_n ? " (Solver/n_freq raised)" : "");
  }
  if (p.n_axis == 0) { /* "Loop" in the text, but no loop declared: a plain run */
    if (ps->zip || ps->dry_run || ps->jobs)
      err = EM_RAISE(EM_ERR_INPUT,
                     "--zip, --dry-run and --jobs act on a design sweep: give --sweep NAME=LIST "
                     "or declare Loop in the case's DefineConstant");
    o->was_sweep = 0;
    goto done;
  }
  if (a->out_dir) {
    snprintf(p.out, sizeof p.out, "%s", a->out_dir);
  } else {
    char stem[512];
    snprintf(p.out, sizeof p.out, "out/%s", case_stem(a->case_path, stem, sizeof stem));
  }
  int n_rank = em_dist_size(a->dist), rank = em_dist_rank(a->dist);
  if (ps->dry_run) { /* rank 0 alone */
    if (rank == 0) err = dry_run(a, &p, ps->zip, log);
    goto done;
  }
  int jobs = ps->jobs > 1 ? ps->jobs : 1;
  if (jobs > 1 && !ps->worker_n && !host_only(a, log)) {
    em_log_warn(log,
                "--jobs %d: points run one after another on the GPU (it solves one point at a "
                "time); --device cpu runs them %d at once on the host",
                jobs, jobs);
    jobs = 1;
  }
  if (jobs > 1 && n_rank > 1) {
    em_log_warn(log, "--jobs %d with %d MPI ranks: the ranks share the points, --jobs is ignored",
                jobs, n_rank);
    jobs = 1;
  }
  EM_TRY_GOTO(err, em_mkdir_p(p.out), done);
  if (ps->worker_n == 0 && rank == 0) { /* the sweep's own folder: one sweep at a time (the
                                          workers and ranks are its) */
    EM_TRY_GOTO(err, em_app_dir_lock(p.out, log), done);
    locked = 1;
    em_app_dir_clean_temps(p.out, log);
  }
  EM_TRY_GOTO(err, em_calloc(&cv, (size_t)p.n_point, sizeof *cv, "sweep curves"), done);
  EM_TRY_GOTO(err, em_calloc(&pr, (size_t)p.n_point, sizeof *pr, "sweep results"), done);
  if (ps->worker_n > 0) { /* one worker of --jobs: its points, no tables */
    int *own = NULL;
    EM_TRY_GOTO(err, em_calloc(&own, (size_t)p.n_point, sizeof *own, "sweep workers"), done);
    err = owners(&p, ps->zip, ps->worker_n, own);
    for (int k = 0; k < p.n_point && !err; k++)
      if (own[k] == ps->worker)
        err = run_point(a, &p, ps->zip, ps->resume, k, log, &mc, &cv[k], &pr[k]);
    em_free(&own);
    for (int k = 0; k < p.n_point; k++) *n_failed += pr[k].failed;
    goto done;
  }
  int collect = jobs > 1, n_meshed = 0;
  if (jobs > 1) err = em_psweep_run_workers(a, jobs, log);
  if (err && !em_app_signal()) goto done;
  err = EM_OK;
  if (n_rank > 1) { /* mpirun: each rank its share (app/psweep_dist.c) */
    share_ctx sc = {a, &p, ps->zip, &mc};
    em_psweep_share sh = {p.n_point, p.out, &sc, share_key, share_complete, share_run};
    err = em_psweep_share_run(a->dist, &sh, ps->resume, log, &n_meshed);
    if (err && !em_app_signal()) goto done;
    err = EM_OK;
    if (rank > 0) goto done; /* rank 0 writes the tables; every rank exits with its code */
    collect = 1;
  }
  int stopped_at = -1;
  for (int k = 0; k < p.n_point; k++) {
    /* a signal stops the sweep between points or inside one (the point then
       has no marker: --resume runs it again); after --jobs or the ranks the
       points completed are collected, the others stay pending */
    if (!collect && em_app_signal()) {
      stopped_at = k;
      break;
    }
    /* after the workers or ranks every point is complete or failed: read back */
    err = run_point(a, &p, ps->zip, collect ? 2 : ps->resume, k, log, &mc, &cv[k], &pr[k]);
    if (err && em_app_signal()) {
      em_error_clear();
      err = EM_OK;
      if (stopped_at < 0) stopped_at = k;
      if (!collect) break;
      continue;
    }
    if (err) goto done;
    pr[k].done = 1;
    for (int i = 0; i < 4; i++) pr[k].ant[i] = NAN;
    if (!pr[k].failed) {
      char dir[1100];
      analyse(&cv[k], &pr[k]);
      snprintf(dir, sizeof dir, "%s/point_%d", p.out, k);
      const curve *c = &cv[k];
      if (pr[k].nz && c->n > 1) {
        em_psweep_antenna_at(dir, pr[k].zp[0].f0, 0.5001 * (c->f[1] - c->f[0]), pr[k].ant);
        if (em_psweep_too_coarse(c->n, c->f[0], c->f[c->n - 1], pr[k].zp[0].f0, pr[k].zp[0].q,
                                 pr[k].msg, sizeof pr[k].msg))
          em_log_warn(log, "sweep point %d/%d: %s", k + 1, p.n_point, pr[k].msg);
      }
    }
    *n_failed += pr[k].failed;
    o->n_flagged += !pr[k].failed && pr[k].flagged;
    /* the collected tables after every point: a killed sweep keeps them */
    EM_TRY_GOTO(err, write_sweep_csv(&p, ps->zip, cv, pr), done);
    EM_TRY_GOTO(err, write_summary_csv(&p, ps->zip, pr), done);
  }
  if (stopped_at >= 0)
    err = EM_RAISE(EM_ERR_CANCELLED,
                   "design sweep interrupted by %s at point %d of %d; the points done are "
                   "complete in %s/point_<k>/: run the same command with --resume to finish",
                   em_app_signal() == SIGINT ? "SIGINT" : "SIGTERM", stopped_at + 1, p.n_point,
                   p.out);
  if (err) { /* stopped by a signal: the tables of the points done, the rest pending */
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", em_error_message());
    if (write_sweep_csv(&p, ps->zip, cv, pr) || write_summary_csv(&p, ps->zip, pr)) {
      em_log_warn(log, "the sweep's tables: %s", em_error_message());
      em_error_clear();
      em_error_raise(EM_ERR_CANCELLED, __FILE__, __LINE__, "%s", msg);
    }
    goto done;
  }
  char meshed[64] = "meshings in the workers' logs";
  if (n_rank > 1)
    snprintf(meshed, sizeof meshed, "%d meshings on %d ranks", n_meshed, n_rank);
  else if (jobs == 1)
    snprintf(meshed, sizeof meshed, "%d meshings", mc.n_meshed);
  printf("# design sweep: %d points, %d failed, %s; %s/sweep.csv, %s/sweep_summary.csv\n",
         p.n_point, *n_failed, meshed, p.out, p.out);
  if (o->n_flagged)
    printf(
        "# %d points flagged (a frequency not converged, or |S| > 1): their status in "
        "sweep_summary.csv\n",
        o->n_flagged);
  for (int k = 0; k < p.n_point; k++) {
    char key[KEY_LEN];
    point_key(&p, ps->zip, k, key);
    for (char *c = key; *c; c++)
      if (*c == '\n') *c = c[1] ? ' ' : '\0';
    if (pr[k].failed)
      printf("point_%d  %s  FAILED: %s\n", k, key, pr[k].msg);
    else if (pr[k].nz && isfinite(pr[k].ant[1]))
      printf("point_%d  %s  f_res %.6g GHz  Q %.4g  G %.2f dBi  eff %.1f %%%s\n", k, key,
             pr[k].zp[0].f0 * 1e-9, pr[k].zp[0].q, pr[k].ant[1], 100 * pr[k].ant[3],
             pr[k].msg[0] ? "  (coarse sampling)" : "");
    else if (pr[k].nz)
      printf("point_%d  %s  f_res %.6g GHz  Q %.4g%s\n", k, key, pr[k].zp[0].f0 * 1e-9,
             pr[k].zp[0].q, pr[k].msg[0] ? "  (coarse sampling)" : "");
    else
      printf("point_%d  %s  no Re Zin peak in the band\n", k, key);
  }
  if (p.pc.plots) EM_TRY_GOTO(err, em_app_plot(p.out, log), done);
done:
  if (locked) em_app_dir_unlock(p.out);
  if (cv)
    for (int k = 0; k < p.n_point; k++) curve_free(&cv[k]);
  em_mesh_destroy(&mc.mesh);
  em_free(&cv);
  em_free(&pr);
  em_free(&p.ax);
  em_free(&dspec);
  return err;
}
