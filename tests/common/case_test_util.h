/* case_test_util.h - helpers shared by the case tests: data paths and
 * failures whose message must name the culprit. */
#ifndef CASE_TEST_UTIL_H
#define CASE_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "em_mesh.h"
#include "em_test.h"

/* tests/data/<name> from the source tree (ctest sets EM_SOURCE_DIR). */
static inline const char *data_path(const char *name) {
  static char buf[4096];
  const char *root = getenv("EM_SOURCE_DIR");
  snprintf(buf, sizeof buf, "%s/tests/data/%s", root ? root : ".", name);
  return buf;
}

/* A call that must fail with `code`, its message holding s1 and s2 (NULL:
 * not checked).  The message is printed so that a reader sees it. */
#define EXPECT_FAIL(expr, code, s1, s2) expect_fail_((expr), (code), (s1), (s2), #expr, __LINE__)

static inline void expect_fail_(em_err got, em_err want, const char *s1, const char *s2,
                                const char *what, int line) {
  const char *msg = em_error_message();
  if (got != want) {
    fprintf(stderr, "%s:%d: FAIL: %s returned %s, expected %s (%s)\n", __FILE__, line, what,
            em_err_name(got), em_err_name(want), msg);
    em_test_failures_++;
  } else {
    fprintf(stderr, "  expected failure: %s\n", msg);
  }
  const char *s[2] = {s1, s2};
  for (int i = 0; i < 2; i++)
    if (s[i] && !strstr(msg, s[i])) {
      fprintf(stderr, "%s:%d: FAIL: message of %s lacks '%s': %s\n", __FILE__, line, what, s[i],
              msg);
      em_test_failures_++;
    }
  em_error_clear();
}

/* Sum of |tet volumes| of the tets in volume group g (all when g < 0). */
static inline double group_volume(const em_mesh *m, int g) {
  double v = 0;
  for (int32_t t = 0; t < m->n_tet; t++)
    if (g < 0 || m->tet_group[t] == g) v += fabs(em_tet_volume(m, t));
  return v;
}

#endif
