/* The sparse-matrix interface (em_spmat), every format on one backend, both
 * precisions: the conformance suite a new format must pass before anything
 * else.  Each format (CSR, CSR-vector, ELL, ELLR, ELLR-T, sliced ELLR-T,
 * HYB, HEC, bitmap, and AUTO's choice) with its parameters at the default
 * and at awkward values is built from the awkward random matrices (0x0,
 * 1x1, empty rows, one huge row, wide, tall, all empty, no columns, dense,
 * sizes not multiples of 16 or 32) and the FEM patterns of orders 1-3, and
 * must give y = A x and y += A x to the plain CPU reference
 * (em_csr_spmv_ref) within 1e-13 (double) / 1e-5 (single) of what the row
 * sum can lose to rounding, write no slot past the last row, and report
 * its sizes, nnz, precision and backend (spmat_check.h).  The format's own
 * layout and memory are checked by its own test (test_ell_formats,
 * test_hyb ...).  Argument: cpu (default) or gpu (exit 77: no GPU). */
#include "spmat_check.h"

int main(int argc, char **argv) {
  em_backend b = test_backend(argc, argv);
  tcase c[32];
  int n = suite_build(c, 1);
  int nf = (int)(sizeof FORMATS / sizeof FORMATS[0]), runs = 0;
  for (int fi = 0; fi < nf; fi++) {
    const fcase *F = &FORMATS[fi];
    for (int pi = 0; pi < 2; pi++)
      for (int i = 0; i < n; i++) {
        em_spmat_opts o;
        em_spmat_opts_default(&o);
        o.backend = b;
        o.format = F->f;
        o.prec = pi ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
        o.threads_per_row = F->T;
        o.slice_rows = F->S;
        o.ell_width = F->K;
        char label[128];
        snprintf(label, sizeof label, "%.63s [%.15s T=%d S=%d K=%d %s]", c[i].name,
                 em_format_name(F->f), F->T, F->S, F->K, pi ? "single" : "double");
        em_spmat_info info = check_format(c[i].A, &o, label, 500u + (unsigned)(31 * fi + pi));
        EXPECT(F->f == EM_FMT_AUTO || info.format == F->f, "%s: built as %s", label,
               em_format_name(info.format));
        runs++;
      }
  }
  printf("%d formats x 2 precisions x %d matrices: %d checks on the %s\n", nf, n, runs,
         b == EM_BACKEND_CPU ? "CPU" : "GPU");
  suite_free(c, n);
  return TEST_RESULT();
}
