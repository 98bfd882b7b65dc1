/* Case parameters: ONELAB values read from a .geo; overrides of numbers and
 * strings, also on the geometry (the meshed volume follows an overridden box
 * side, compared with the analytic volume); unknown names list the known
 * ones; type mismatches and read-only parameters fail naming the parameter;
 * spec defaults and wildcard lookups; the source of every value; no value
 * leaking from one open into the next; Gmsh's warnings in our log. */
#include "case_test_util.h"

static const em_param_spec SPECS[] = {
    {"Solver/frequency", 0, 1e9, NULL, 1, "frequency, Hz", "Hz", 0},
    {"Materials/*/eps_r", 0, 1.0, NULL, 1, "relative permittivity", NULL, 3},
    {"Materials/*/mu_r", 0, 1.0, NULL, 1, "relative permeability", NULL, 3},
    {"Ports/*/type", 1, 0, "coax", 1, "coax | lumped | waveguide", NULL, 2},
    {"Solver/method", 1, 0, "bicgstab", 1, "Krylov method", NULL, 0},
    {"Solver/order", 0, 0, NULL, 0, "basis order (no default)", NULL, 0},
    {"Geometry/unit", 0, 1e-3, NULL, 1, "metres per model unit", "m", 0},
};
#define NSPEC ((int)(sizeof SPECS / sizeof SPECS[0]))

static double num(const em_case *c, const char *name) {
  double v = NAN;
  EXPECT_OK(em_case_number(c, name, &v));
  return v;
}

static const char *str(const em_case *c, const char *name) {
  const char *s = "";
  EXPECT_OK(em_case_string(c, name, &s));
  return s ? s : "(null)";
}

static void expect_source(const em_case *c, const char *name, const char *source) {
  const em_param *p = em_case_param_find(c, name);
  EXPECT(p && !strcmp(p->source, source), "%s: source %s, expected %s", name,
         p ? p->source : "(absent)", source);
}

/* Sum of tet volumes of the case meshed with its own sizes, model units. */
static double meshed_volume(em_case *c) {
  em_mesh_opts o = {.unit = 1, .reorder = 1};
  em_mesh *m = NULL;
  double v = NAN;
  EXPECT_OK(em_case_mesh(c, &o, NULL, &m));
  if (m) v = group_volume(m, -1);
  em_mesh_destroy(&m);
  return v;
}

static void plain_open(const char *path) {
  em_case *c = NULL;
  FILE *lf = tmpfile();
  em_log log;
  em_log_init(&log, lf, EM_LOG_INFO);
  REQUIRE_OK(em_case_open(path, 0, NULL, NSPEC, SPECS, &log, &c));
  char text[2048] = "";
  rewind(lf);
  text[fread(text, 1, sizeof text - 1, lf)] = '\0';
  fclose(lf);
  EXPECT(strstr(text, "warning: gmsh: a warning from the case, side 2") &&
             strstr(text, "case case_params: parsed"),
         "log:\n%s", text);
  EXPECT(!strcmp(em_case_name(c), "case_params"), "name %s", em_case_name(c));
  EXPECT(!strcmp(em_case_path(c), path), "path %s", em_case_path(c));
  EXPECT(num(c, "Geometry/lx") == 2 && num(c, "Geometry/ly") == 1 && num(c, "Geometry/lz") == 0.5,
         "box sides");
  EXPECT(num(c, "Materials/diel/eps_r") == 4.5, "eps_r");
  EXPECT(num(c, "Mesh/size") == 0.5, "a default that follows lx");
  EXPECT(num(c, "Geometry/fixed") == 7, "read-only value");
  EXPECT(!strcmp(str(c, "Ports/port1/type"), "lumped"), "string parameter");
  expect_source(c, "Geometry/lx", "case file");
  expect_source(c, "Ports/port1/type", "case file");
  /* spec defaults the case does not define; wildcards only on lookup */
  EXPECT(num(c, "Solver/frequency") == 1e9, "spec default");
  expect_source(c, "Solver/frequency", "default");
  EXPECT(!strcmp(str(c, "Solver/method"), "bicgstab"), "string spec default");
  expect_source(c, "Solver/method", "default");
  EXPECT(num(c, "Materials/air/eps_r") == 1.0, "wildcard default");
  EXPECT(em_case_param_find(c, "Materials/air/eps_r") == NULL, "wildcard listed");
  EXPECT(em_case_param_find(c, "Materials/*/eps_r") == NULL, "wildcard spec listed as such");
  EXPECT(!strcmp(str(c, "Ports/port2/type"), "coax"), "string wildcard default");
  /* 6 case parameters + Mesh/size, 3 plain specs with defaults */
  EXPECT(em_case_param_count(c) == 10, "%d parameters", em_case_param_count(c));
  for (int i = 0; i < em_case_param_count(c); i++) {
    const em_param *p = em_case_param_at(c, i);
    EXPECT(strncmp(p->name, "Gmsh/", 5) && strncmp(p->name, "ONELAB/", 7), "Gmsh's %s listed",
           p->name);
    if (i) EXPECT(strcmp(em_case_param_at(c, i - 1)->name, p->name) < 0, "table not sorted");
  }
  EXPECT(em_case_param_at(c, -1) == NULL && em_case_param_at(c, 10) == NULL, "out of range");
  double v;
  const char *s;
  EXPECT_FAIL(em_case_number(c, "Materials/a/b/eps_r", &v), EM_ERR_INPUT, "Materials/a/b/eps_r",
              "case_params.geo");
  EXPECT_FAIL(em_case_number(c, "Solver/order", &v), EM_ERR_INPUT, "Solver/order",
              "case_params.geo");
  EXPECT_FAIL(em_case_number(c, "Ports/port1/type", &v), EM_ERR_INPUT, "Ports/port1/type",
              "case_params.geo");
  EXPECT_FAIL(em_case_string(c, "Geometry/lx", &s), EM_ERR_INPUT, "Geometry/lx", "number");
  EXPECT_FAIL(em_case_string(c, "Solver/frequency", &s), EM_ERR_INPUT, "Solver/frequency", NULL);
  EXPECT_NEAR(meshed_volume(c), 2.0 * 1.0 * 0.5, 1e-12);
  em_case_close(&c);
  EXPECT(c == NULL, "close nulls");
}

static void overrides(const char *path) {
  em_case *c = NULL;
  const em_param_override over[] = {
      {"Geometry/lx", 0, 5, NULL},          /* replaced by the next one */
      {"Geometry/lx", 0, 3, NULL},          /* a geometry parameter */
      {"Ports/port1/type", 1, 0, "coax"},   /* a string of the case */
      {"Solver/frequency", 0, 2.5e9, NULL}, /* a plain spec */
      {"Materials/diel/mu_r", 0, 10, NULL}, /* a wildcard spec (of a group of the case) */
      {"Solver/method", 1, 0, "gmres"},     /* a string spec */
  };
  REQUIRE_OK(em_case_open(path, 6, over, NSPEC, SPECS, NULL, &c));
  EXPECT(num(c, "Geometry/lx") == 3, "lx = %g", num(c, "Geometry/lx"));
  expect_source(c, "Geometry/lx", "command line");
  EXPECT(num(c, "Mesh/size") == 0.75, "a default that follows lx: %g", num(c, "Mesh/size"));
  expect_source(c, "Mesh/size", "case file");
  EXPECT(!strcmp(str(c, "Ports/port1/type"), "coax"), "string override");
  expect_source(c, "Ports/port1/type", "command line");
  EXPECT(num(c, "Solver/frequency") == 2.5e9, "spec override");
  expect_source(c, "Solver/frequency", "command line");
  EXPECT(num(c, "Materials/diel/mu_r") == 10, "wildcard override");
  expect_source(c, "Materials/diel/mu_r", "command line");
  EXPECT(!strcmp(str(c, "Solver/method"), "gmres"), "string spec override");
  expect_source(c, "Solver/method", "command line");
  EXPECT(num(c, "Materials/diel/eps_r") == 4.5, "untouched");
  EXPECT_NEAR(meshed_volume(c), 3.0 * 1.0 * 0.5, 1e-12);
  em_case_close(&c);

  /* nothing leaks into the next open (ONELAB outlives gmshFinalize) */
  REQUIRE_OK(em_case_open(path, 0, NULL, NSPEC, SPECS, NULL, &c));
  EXPECT(num(c, "Geometry/lx") == 2 && !strcmp(str(c, "Ports/port1/type"), "lumped"),
         "override leaked");
  EXPECT_NEAR(meshed_volume(c), 1.0, 1e-12);
  em_case_close(&c);
}

static void bad_overrides(const char *path) {
  em_case *c = NULL;
  em_param_override o = {"Geometry/lq", 0, 1, NULL};
  EXPECT_FAIL(em_case_open(path, 1, &o, NSPEC, SPECS, NULL, &c), EM_ERR_INPUT,
              "unknown parameter 'Geometry/lq'", "Geometry/lx");
  EXPECT_FAIL(em_case_open(path, 1, &o, NSPEC, SPECS, NULL, &c), EM_ERR_INPUT, "Solver/frequency",
              "Materials/*/eps_r");
  EXPECT(c == NULL, "no case after a failure");
  em_param_override s = {"Geometry/lx", 1, 0, "3"};
  EXPECT_FAIL(em_case_open(path, 1, &s, NSPEC, SPECS, NULL, &c), EM_ERR_INPUT, "'Geometry/lx'",
              "-setnumber");
  em_param_override n = {"Ports/port1/type", 0, 1, NULL};
  EXPECT_FAIL(em_case_open(path, 1, &n, NSPEC, SPECS, NULL, &c), EM_ERR_INPUT, "'Ports/port1/type'",
              "-setstring");
  em_param_override f = {"Solver/frequency", 1, 0, "1e9"};
  EXPECT_FAIL(em_case_open(path, 1, &f, NSPEC, SPECS, NULL, &c), EM_ERR_INPUT, "'Solver/frequency'",
              "-setnumber");
  em_param_override w = {"Ports/port7/type", 0, 2, NULL};
  EXPECT_FAIL(em_case_open(path, 1, &w, NSPEC, SPECS, NULL, &c), EM_ERR_INPUT, "'Ports/port7/type'",
              "-setstring");
  em_param_override r = {"Geometry/fixed", 0, 8, NULL};
  EXPECT_FAIL(em_case_open(path, 1, &r, NSPEC, SPECS, NULL, &c), EM_ERR_INPUT, "'Geometry/fixed'",
              "ReadOnly");
  em_param_override none = {"Geometry/lx", 1, 0, NULL};
  EXPECT_FAIL(em_case_open(path, 1, &none, NSPEC, SPECS, NULL, &c), EM_ERR_ARG, "Geometry/lx",
              NULL);
  /* a case parameter of another type than emsolve's spec for it */
  const em_param_spec lx_string = {"Geometry/lx", 1, 0, "x", 1, "a string", NULL, 0};
  EXPECT_FAIL(em_case_open(path, 0, NULL, 1, &lx_string, NULL, &c), EM_ERR_INPUT, "'Geometry/lx'",
              "expects a string");
  /* after all these failures the next open works */
  REQUIRE_OK(em_case_open(path, 0, NULL, 0, NULL, NULL, &c));
  EXPECT(em_case_param_count(c) == 7, "%d parameters without specs", em_case_param_count(c));
  double v;
  EXPECT_FAIL(em_case_number(c, "Solver/frequency", &v), EM_ERR_INPUT, "Solver/frequency",
              "case_params.geo");
  em_case_close(&c);
}

/* What the case declares (Help, Min, Max) and the checks made with it and
 * with the specs' group dimensions; "did you mean" for a typo. */
static void meta_checks(const char *path) {
  em_case *c = NULL;
  REQUIRE_OK(em_case_open(path, 0, NULL, NSPEC, SPECS, NULL, &c));
  const em_param *lx = em_case_param_find(c, "Geometry/lx");
  EXPECT(lx && lx->help && !strcmp(lx->help, "box side x"), "Help of Geometry/lx: %s",
         lx && lx->help ? lx->help : "(none)");
  EXPECT(lx && lx->has_min && lx->has_max && lx->min == 0.1 && lx->max == 10,
         "declared range of Geometry/lx");
  const em_param *ly = em_case_param_find(c, "Geometry/ly");
  EXPECT(ly && !ly->has_min && !ly->has_max,
         "Geometry/ly declares no range (Gmsh's slider "
         "range is not a declaration)");
  EXPECT(em_case_spec_of(c, "Materials/diel/eps_r") == NULL ||
             em_case_spec_of(c, "Materials/diel/eps_r")->group_dim == 3,
         "the spec of Materials/diel/eps_r is a volume-group spec");
  char buf[128];
  const char *sug = em_case_suggest(c, "Geometry/lxx", buf, sizeof buf);
  EXPECT(sug && !strcmp(sug, "Geometry/lx"), "suggestion for Geometry/lxx: %s", sug ? sug : "-");
  EXPECT(em_case_suggest(c, "Completely/different", buf, sizeof buf) == NULL,
         "no suggestion for a different word");
  em_case_close(&c);
  em_param_override big = {"Geometry/lx", 0, 20, NULL};
  EXPECT_FAIL(em_case_open(path, 1, &big, NSPEC, SPECS, NULL, &c), EM_ERR_INPUT, "'Geometry/lx'",
              "0.1 .. 10");
  em_param_override nan = {"Geometry/lx", 0, NAN, NULL};
  EXPECT_FAIL(em_case_open(path, 1, &nan, NSPEC, SPECS, NULL, &c), EM_ERR_INPUT, "'Geometry/lx'",
              "not a finite number");
  em_param_override grp = {"Materials/dial/eps_r", 0, 3, NULL};
  EXPECT_FAIL(em_case_open(path, 1, &grp, NSPEC, SPECS, NULL, &c), EM_ERR_INPUT, "group 'dial'",
              "did you mean 'Materials/diel/eps_r'");
  em_param_override port = {"Ports/port7/type", 1, 0, "coax"};
  EXPECT_FAIL(em_case_open(path, 1, &port, NSPEC, SPECS, NULL, &c), EM_ERR_INPUT,
              "surface group 'port7'", "port1");
  em_param_override typo = {"Solver/frequncy", 0, 1e9, NULL};
  EXPECT_FAIL(em_case_open(path, 1, &typo, NSPEC, SPECS, NULL, &c), EM_ERR_INPUT,
              "'Solver/frequncy'", "did you mean 'Solver/frequency'");
  EXPECT(c == NULL, "no case after a failure");
}

int main(void) {
  const char *path = data_path("case_params.geo");
  char p[4096];
  snprintf(p, sizeof p, "%s", path);
  plain_open(p);
  overrides(p);
  bad_overrides(p);
  meta_checks(p);
  return TEST_RESULT();
}
