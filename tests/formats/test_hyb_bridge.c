/* test_hyb_bridge.c - lets the fmt-hyb tests link on a branch where
 * formats/ does not yet hold the CSR / ELL / ELLR-T / sliced ELLR-T builders
 * and em_fmt_choose (they come with branch fmt-ell; spmat.c calls them).
 * tests/formats/CMakeLists.txt compiles this file only while
 * formats/choose.c is absent, so after the merge the real ones are used and
 * this file is dead; delete it then.
 *
 * Until then: the other builders refuse with EM_ERR_UNSUPPORTED naming the
 * missing branch, and the automatic choice picks HYB (the rule's K), the
 * only thing the tests of this branch rely on for EM_FMT_AUTO. */
#include "formats_impl.h"

static em_err absent(const char *what) {
  return EM_RAISE(EM_ERR_UNSUPPORTED, "format %s comes with branch fmt-ell, not merged here", what);
}

em_err em_fmt_csr_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  (void)A, (void)M;
  return absent(em_format_name(o->format));
}
em_err em_fmt_ell_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  (void)A, (void)M;
  return absent(em_format_name(o->format));
}
em_err em_fmt_ellrt_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  (void)A, (void)M;
  return absent(em_format_name(o->format));
}
em_err em_fmt_sellrt_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  (void)A, (void)M;
  return absent(em_format_name(o->format));
}

void em_fmt_choose(const em_csr *A, const em_spmat_opts *o, em_spmat_opts *chosen) {
  (void)A;
  *chosen = *o;
  chosen->format = EM_FMT_HYB;
  chosen->ell_width = -1;
}
