/* Touchstone and ports.csv writers: bad input is an error naming the
 * culprit and leaves no file.  Good files are checked by check_tables.py. */
#include <dirent.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "em_post.h"
#include "em_test.h"

static char dir[] = "/tmp/em_post_tables_XXXXXX";

static int count_files(void) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* Both writers must fail with code and a message containing what. */
static void expect_both(const char *path, int np, int nf, const double *f, const em_cplx *S,
                        double z0, const double *z0s, em_err code, const char *what, int line) {
  em_err e = em_touchstone_write(path, np, nf, f, S, z0, NULL);
  if (e != code || !strstr(em_error_message(), what)) {
    fprintf(stderr, "line %d: touchstone gave %s '%s', expected %s about '%s'\n", line,
            em_err_name(e), em_error_message(), em_err_name(code), what);
    em_test_failures_++;
  }
  em_error_clear();
  e = em_ports_csv_write(path, np, nf, f, S, z0s);
  if (e != code || !strstr(em_error_message(), what)) {
    fprintf(stderr, "line %d: csv gave %s '%s', expected %s about '%s'\n", line, em_err_name(e),
            em_error_message(), em_err_name(code), what);
    em_test_failures_++;
  }
  em_error_clear();
  EXPECT(count_files() == 0, "line %d: a refused table left a file", line);
}

int main(void) {
  REQUIRE_OK(mkdtemp(dir) ? EM_OK : EM_ERR_IO);
  char path[512];
  snprintf(path, sizeof path, "%s/t.s2p", dir);
  double f[3] = {1e9, 2e9, 3e9}, z0[2] = {50, 50};
  em_cplx S[12];
  for (int k = 0; k < 12; k++) S[k] = 0.1 * k - 0.05 * I;

  expect_both(NULL, 2, 3, f, S, 50, z0, EM_ERR_ARG, "path", __LINE__);
  expect_both(path, 0, 3, f, S, 50, z0, EM_ERR_ARG, "0 ports", __LINE__);
  expect_both(path, 2, 0, f, S, 50, z0, EM_ERR_ARG, "0 frequencies", __LINE__);
  expect_both(path, 2, 3, NULL, S, 50, z0, EM_ERR_ARG, "NULL frequencies", __LINE__);
  expect_both(path, 2, 3, f, NULL, 50, z0, EM_ERR_ARG, "NULL S", __LINE__);
  f[1] = 1e9;
  expect_both(path, 2, 3, f, S, 50, z0, EM_ERR_ARG, "frequency 1", __LINE__);
  f[1] = NAN;
  expect_both(path, 2, 3, f, S, 50, z0, EM_ERR_ARG, "frequency 1", __LINE__);
  f[1] = 2e9;
  f[0] = -1;
  expect_both(path, 2, 3, f, S, 50, z0, EM_ERR_ARG, "frequency 0", __LINE__);
  f[0] = 1e9;
  S[2 * 4 + 1] = NAN; /* S12 at the third frequency */
  expect_both(path, 2, 3, f, S, 50, z0, EM_ERR_NUMERIC, "S12 at 3000000000 Hz", __LINE__);
  S[2 * 4 + 1] = INFINITY * I;
  expect_both(path, 2, 3, f, S, 50, z0, EM_ERR_NUMERIC, "S12", __LINE__);
  S[2 * 4 + 1] = 0;

  /* reference impedances */
  EXPECT_ERR(em_touchstone_write(path, 2, 3, f, S, 0, NULL), EM_ERR_ARG);
  EXPECT_ERR(em_touchstone_write(path, 2, 3, f, S, NAN, NULL), EM_ERR_ARG);
  EXPECT_ERR(em_ports_csv_write(path, 2, 3, f, S, NULL), EM_ERR_ARG);
  z0[1] = -50;
  em_err e = em_ports_csv_write(path, 2, 3, f, S, z0);
  EXPECT(e == EM_ERR_ARG && strstr(em_error_message(), "port 2"), "z0: %s", em_error_message());
  em_error_clear();
  z0[1] = 50;
  EXPECT(count_files() == 0, "refused tables left a file");

  /* unwritable place */
  const char *bad = "/nonexistent-emsolve-dir/t.s2p";
  e = em_touchstone_write(bad, 2, 3, f, S, 50, "x");
  EXPECT(e == EM_ERR_IO && strstr(em_error_message(), bad), "unwritable: %s", em_error_message());
  em_error_clear();
  e = em_ports_csv_write(bad, 2, 3, f, S, z0);
  EXPECT(e == EM_ERR_IO && strstr(em_error_message(), bad), "unwritable: %s", em_error_message());
  em_error_clear();

  /* a sweep on per-frequency references: Zin of each row from its own z0
     (S 0.5 on 100 then 400 ohm: 300 and 1200 ohm), the flag column */
  {
    char cpath[600], text[1024];
    snprintf(cpath, sizeof cpath, "%s/sweep.csv", dir);
    em_cplx s1[2] = {0.5, 0.5};
    double zs[2] = {100, 400};
    int flag[2] = {0, EM_PORTS_FLAG_NOT_CONVERGED | EM_PORTS_FLAG_ACTIVE};
    EXPECT_OK(em_ports_csv_write_sweep(cpath, 1, 2, f, s1, zs, flag));
    FILE *fp = fopen(cpath, "r");
    size_t n = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
    if (fp) fclose(fp);
    text[n] = '\0';
    EXPECT(strstr(text, "f_Hz,S11_dB,S11_deg,Zin1_re_ohm,Zin1_im_ohm,Zref1_ohm,flag\n"),
           "sweep header: %s", text);
    EXPECT(strstr(text, ",300,0,100,ok\n") && strstr(text, ",1200,0,400,not_converged;S_gt_1\n"),
           "sweep rows: %s", text);
    remove(cpath);
  }
  /* renormalisation: a matched 100-ohm port seen from 50 ohm reflects 1/3;
     R -> Rn -> R gives S back */
  {
    em_cplx a = 0;
    double r100 = 100, r50 = 50;
    EXPECT_OK(em_port_renormalise(1, &a, &r100, &r50));
    EXPECT(cabs(a - 1.0 / 3.0) < 1e-15, "S' = %g%+gj, expected 1/3", creal(a), cimag(a));
    em_cplx S2[4] = {0.1 + 0.2 * I, 0.7 - 0.1 * I, 0.7 - 0.1 * I, -0.3 + 0.05 * I}, B[4];
    memcpy(B, S2, sizeof B);
    double R[2] = {548.1, 52.3}, Rn[2] = {50, 50};
    EXPECT_OK(em_port_renormalise(2, B, R, Rn));
    EXPECT_OK(em_port_renormalise(2, B, Rn, R));
    double d = 0;
    for (int k = 0; k < 4; k++) d = fmax(d, cabs(B[k] - S2[k]));
    EXPECT(d < 1e-14, "renormalisation round trip differs by %.1e", d);
    EXPECT_ERR(em_port_renormalise(1, &a, &r100, &(double){0}), EM_ERR_ARG);
  }

  /* 1x1 at one frequency is fine; good files appear under their names only */
  EXPECT_OK(em_touchstone_write(path, 1, 1, f, S, 50, NULL));
  EXPECT_OK(em_ports_csv_write(path, 2, 3, f, S, z0));
  EXPECT(count_files() == 1, "%d files after two writes to one name", count_files());
  remove(path);
  rmdir(dir);
  return TEST_RESULT();
}
