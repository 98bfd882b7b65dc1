/* The solver's backend table (solver/backend.c) and its one GPU-to-host
 * fallback, on the host: the tables this build has and what they offer;
 * an unknown backend and a CUDA request in a build without CUDA refused
 * with the error the front ends report; em_sv_fallback moving only a
 * device-memory shortage, only where the table names a fallback, with one
 * warning; and the direct factor's fallback driven through a stand-in
 * "device" table whose numeric phase never fits: the factor moves to the
 * host table, solves A x = b there to 1e-12 (the host factor of the same
 * analysis), keeps the host for the next factorization, and a host that
 * could not hold the peak either (host_short) gives EM_ERR_MEMORY naming
 * both.  Usage: test_solver_backend [cpu]. */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "direct_impl.h"
#include "problems.h"
#include "solver_test.h"

static int numeric_calls;

/* A device whose memory never holds the factor. */
static em_err numeric_never_fits(em_direct *F, const em_csr *M, const double *r, double smax,
                                 const em_log *log) {
  (void)F, (void)M, (void)r, (void)smax, (void)log;
  numeric_calls++;
  return EM_RAISE(EM_ERR_GPU_MEMORY, "stand-in device: no room for the factor");
}

static em_sv_backend stand_in(void) {
  em_sv_backend d = em_sv_backend_cpu;
  d.name = "GPU";
  d.where = "gpu";
  d.host = 0;
  d.fallback = &em_sv_backend_cpu;
  d.direct_numeric = numeric_never_fits;
  return d;
}

/* The text written to f so far. */
static void read_log(FILE *f, char *text, size_t size) {
  fflush(f);
  rewind(f);
  size_t got = fread(text, 1, size - 1, f);
  text[got] = '\0';
}

static void test_tables(void) {
  const em_sv_backend *cpu = em_sv_backend_of(EM_BACKEND_CPU), *be = NULL;
  EXPECT(cpu == &em_sv_backend_cpu && cpu->id == EM_BACKEND_CPU && cpu->host && !cpu->fallback,
         "the CPU table: host memory, nowhere to fall back to");
  EXPECT(cpu->trsv == (1u << EM_TRSV_AUTO | 1u << EM_TRSV_LEVELS) && !cpu->ilu0_build_cusparse,
         "the CPU offers the level-scheduled triangular solves only");
  EXPECT(!strcmp(em_sv_backend_name(EM_BACKEND_CPU), "CPU") &&
             !strcmp(em_sv_backend_name(EM_BACKEND_CUDA), "GPU") &&
             !strcmp(em_sv_backend_name((em_backend)7), "unknown"),
         "backend names");
  EXPECT(em_sv_backend_get((em_backend)7, "who", "what", &be) == EM_ERR_ARG &&
             strstr(em_error_message(), "unknown backend 7"),
         "an unknown backend is EM_ERR_ARG: %s", em_error_message());
  em_error_clear();
  const em_sv_backend *cuda = em_sv_backend_of(EM_BACKEND_CUDA);
  em_err e = em_sv_backend_get(EM_BACKEND_CUDA, "em_pc_create", "the CUDA backend", &be);
  if (cuda) {
    EXPECT(!e && be == cuda && !cuda->host && cuda->fallback == cpu && cuda->single_factor,
           "the CUDA table: device memory, falls back to the CPU");
  } else {
    EXPECT(e == EM_ERR_UNSUPPORTED &&
               strstr(em_error_message(),
                      "em_pc_create: the CUDA backend was requested but this build has no CUDA"),
           "CUDA in a build without it: %s", em_error_message());
    em_error_clear();
  }
}

static void test_fallback(void) {
  em_sv_backend dev = stand_in();
  FILE *lf = tmpfile();
  if (!lf) {
    perror("tmpfile");
    exit(1);
  }
  em_log log;
  em_log_init(&log, lf, EM_LOG_INFO);
  char text[2048];
  /* no error: nothing moves */
  const em_sv_backend *be = &dev;
  EXPECT(em_sv_fallback(&be, EM_OK, &log, "x") == EM_OK && be == &dev, "EM_OK stays");
  /* another error stays the caller's */
  em_err e = EM_RAISE(EM_ERR_NUMERIC, "a zero pivot");
  EXPECT(em_sv_fallback(&be, e, &log, "x") == EM_ERR_NUMERIC && be == &dev &&
             strstr(em_error_message(), "a zero pivot"),
         "EM_ERR_NUMERIC is returned, nothing moves");
  em_error_clear();
  /* the host has nowhere to fall back to */
  be = &em_sv_backend_cpu;
  e = EM_RAISE(EM_ERR_GPU_MEMORY, "no room");
  EXPECT(em_sv_fallback(&be, e, &log, "x") == EM_ERR_GPU_MEMORY && be == &em_sv_backend_cpu,
         "the CPU table does not fall back");
  em_error_clear();
  read_log(lf, text, sizeof text);
  EXPECT(text[0] == '\0', "nothing logged so far: '%s'", text);
  /* the device's shortage moves to its fallback with one warning */
  be = &dev;
  e = EM_RAISE(EM_ERR_GPU_MEMORY, "GPU out of memory allocating 64 bytes for a test");
  EXPECT(em_sv_fallback(&be, e, &log, "doing it on the host (%d threads) instead", 3) == EM_OK &&
             be == &em_sv_backend_cpu,
         "EM_ERR_GPU_MEMORY moves to the fallback");
  EXPECT(em_error_message()[0] == '\0', "the shortage is no longer an error: '%s'",
         em_error_message());
  read_log(lf, text, sizeof text);
  EXPECT(strstr(text,
                "GPU out of memory allocating 64 bytes for a test: doing it on the host (3 "
                "threads) instead") &&
             strchr(text, '\n') == strrchr(text, '\n'),
         "one warning line naming the shortage and the move: '%s'", text);
  fclose(lf);
}

/* em_direct_factor through the stand-in device: falls back, solves. */
static void test_direct_fallback(void) {
  em_csr *A = NULL;
  REQUIRE_OK(prob_laplace3d(6, 5, 4, 0.5 + 0.25 * I, &A));
  int32_t n = A->n_rows;
  em_cplx *xt = calloc((size_t)n, sizeof *xt), *b = calloc((size_t)n, sizeof *b);
  em_cplx *x = calloc((size_t)n, sizeof *x);
  prob_rhs(A, xt, b);
  em_direct_opts o;
  em_direct_opts_default(&o);
  em_sv_backend dev = stand_in();
  FILE *lf = tmpfile();
  if (!lf) {
    perror("tmpfile");
    exit(1);
  }
  em_log log;
  em_log_init(&log, lf, EM_LOG_INFO);
  char text[8192];

  em_direct *F = NULL;
  REQUIRE_OK(em_direct_analyse(A, &o, &log, &F));
  F->be = &dev; /* as if the analysis had been for the device */
  numeric_calls = 0;
  EXPECT_OK(em_direct_factor(F, A, &log));
  em_direct_info in;
  em_direct_get_info(F, &in);
  EXPECT(numeric_calls == 1 && F->be == &em_sv_backend_cpu && !strcmp(in.where, "cpu"),
         "the factor moved to the host after one try on the device (%d, where %s)", numeric_calls,
         in.where);
  read_log(lf, text, sizeof text);
  EXPECT(strstr(text, "stand-in device: no room for the factor: factoring on the host"),
         "the warning names the shortage and the move");
  EXPECT_OK(em_direct_solve(F, 1, b, n, x, n));
  double err = test_rel_err(x, xt, n);
  EXPECT(err < 1e-12, "the fallen-back factor solves A x = b: error %.2e", err);
  /* the next factorization stays on the host, without another try */
  EXPECT_OK(em_direct_factor(F, A, &log));
  EXPECT(numeric_calls == 1 && F->be == &em_sv_backend_cpu, "refactored on the host");
  em_direct_destroy(&F);

  /* the host could not hold the peak either: both named, nothing moves */
  REQUIRE_OK(em_direct_analyse(A, &o, &log, &F));
  F->be = &dev;
  F->host_short = 1;
  em_err e = em_direct_factor(F, A, &log);
  EXPECT(e == EM_ERR_MEMORY && strstr(em_error_message(), "fits neither the GPU") &&
             strstr(em_error_message(), "stand-in device: no room") && F->be == &dev,
         "no room on the device nor the host: %s", em_error_message());
  em_error_clear();
  em_direct_destroy(&F);
  fclose(lf);
  free(xt), free(b), free(x);
  em_csr_destroy(&A);
}

int main(int argc, char **argv) {
  (void)argc, (void)argv;
  test_tables();
  test_fallback();
  test_direct_fallback();
  return TEST_RESULT();
}
