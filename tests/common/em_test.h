/* em_test.h - the small assertion kit of the ctest programs.
 *
 * A test program counts failed expectations and exits 1 if any failed, 0 if
 * none, 77 when it skips (no GPU, no LAPACK ...).  Every expectation prints
 * file:line, the expression and a formatted reason on failure. */
#ifndef EM_TEST_H
#define EM_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "em_core.h"

#define EM_TEST_SKIP 77

static int em_test_failures_ = 0;

#define EXPECT(cond, ...)                                               \
  do {                                                                  \
    if (!(cond)) {                                                      \
      fprintf(stderr, "%s:%d: FAIL (%s): ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                     \
      fputc('\n', stderr);                                              \
      em_test_failures_++;                                              \
    }                                                                   \
  } while (0)

/* An emsolve call that must succeed; prints the error trace otherwise. */
#define EXPECT_OK(expr)                                                           \
  do {                                                                            \
    em_err e_ = (expr);                                                           \
    if (e_) {                                                                     \
      fprintf(stderr, "%s:%d: FAIL: %s returned %s\n", __FILE__, __LINE__, #expr, \
              em_err_name(e_));                                                   \
      em_error_print(stderr);                                                     \
      em_error_clear();                                                           \
      em_test_failures_++;                                                        \
    }                                                                             \
  } while (0)

/* A call that must fail with a given code. */
#define EXPECT_ERR(expr, code)                                                                 \
  do {                                                                                         \
    em_err e_ = (expr);                                                                        \
    if (e_ != (code)) {                                                                        \
      fprintf(stderr, "%s:%d: FAIL: %s returned %s, expected %s\n", __FILE__, __LINE__, #expr, \
              em_err_name(e_), em_err_name(code));                                             \
      em_test_failures_++;                                                                     \
    }                                                                                          \
    em_error_clear();                                                                          \
  } while (0)

/* |a - b| <= tol * max(1, |b|)  (relative, absolute near zero). */
#define EXPECT_NEAR(a, b, tol)                                                             \
  do {                                                                                     \
    double a_ = (a), b_ = (b), t_ = (tol);                                                 \
    double s_ = fabs(b_) > 1 ? fabs(b_) : 1;                                               \
    if (!(fabs(a_ - b_) <= t_ * s_)) {                                                     \
      fprintf(stderr, "%s:%d: FAIL: %s = %.12g, expected %s = %.12g (tol %g)\n", __FILE__, \
              __LINE__, #a, a_, #b, b_, t_);                                               \
      em_test_failures_++;                                                                 \
    }                                                                                      \
  } while (0)

/* Abort the program at once (setup failed, nothing else is meaningful). */
#define REQUIRE_OK(expr)                                                           \
  do {                                                                             \
    em_err e_ = (expr);                                                            \
    if (e_) {                                                                      \
      fprintf(stderr, "%s:%d: FATAL: %s returned %s\n", __FILE__, __LINE__, #expr, \
              em_err_name(e_));                                                    \
      em_error_print(stderr);                                                      \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

#define TEST_RESULT() (em_test_failures_ ? 1 : 0)

/* The backend named by argv[1]: "cpu" (or nothing) or "gpu".  For gpu the
 * program exits 77 (skipped), saying why, where the build has no CUDA or
 * no GPU answers, so that a gpu test on a machine without one skips. */
static inline em_backend test_backend(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "gpu")) return EM_BACKEND_CPU;
  em_device dev;
  if (em_device_open("gpu", NULL, &dev)) {
    fprintf(stderr, "skipped: %s\n", em_error_message());
    em_error_clear();
    exit(EM_TEST_SKIP);
  }
  printf("GPU: %s\n", dev.name);
  return EM_BACKEND_CUDA;
}

/* Deterministic pseudo-random numbers for test inputs (xorshift64*). */
static inline double em_test_rand(unsigned long long *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
