/* CSR scalar and CSR vector (every T) against the reference on the awkward
 * random matrices and the FEM patterns, double and single, y = Ax and
 * y += Ax, memory checked.  Argument: cpu (default) or gpu (77: no GPU). */
#include "spmat_check.h"

int main(int argc, char **argv) {
  em_backend b = test_backend(argc, argv);
  tcase c[32];
  int n = suite_build(c, 1);
  for (int i = 0; i < n; i++) {
    check_both(c[i].A, b, EM_FMT_CSR, 0, 0, c[i].name);
    for (int T = 1; T <= 32; T *= 2) check_both(c[i].A, b, EM_FMT_CSR_VECTOR, T, 0, c[i].name);
    check_both(c[i].A, b, EM_FMT_CSR_VECTOR, 0, 0, c[i].name); /* T from the rule */
  }
  suite_free(c, n);
  return TEST_RESULT();
}
