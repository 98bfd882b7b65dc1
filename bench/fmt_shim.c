/* fmt_shim.c - link-time stand-ins for the formats/ functions of the fmt-hyb
 * branch (HYB/HEC, bitmap, block operator, matrix files), compiled ONLY
 * while this tree lacks their real definitions (bench/CMakeLists.txt looks
 * for them), so that the fmt-ell tests and the bench link before the two
 * branches are merged.  Each one fails with EM_ERR_UNSUPPORTED and a message
 * saying so; callers report that and go on.  Once the real files are in
 * formats/, CMake drops this file and it can be deleted. */
#include <string.h>

#include "em_formats.h"

#define PENDING(what) \
  EM_RAISE(EM_ERR_UNSUPPORTED, "%s is not in this build (fmt-hyb branch not merged)", what)

#ifdef EM_SHIM_HYB
#include "formats_impl.h"
em_err em_fmt_hyb_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  (void)A, (void)o, (void)M;
  return PENDING("HYB/HEC");
}
#endif

#ifdef EM_SHIM_BITMAP
#include "formats_impl.h"
em_err em_fmt_bitmap_build(const em_csr *A, const em_spmat_opts *o, em_spmat *M) {
  (void)A, (void)o, (void)M;
  return PENDING("the bitmap format");
}
#endif

#ifdef EM_SHIM_BLOCKOP
void em_blockop_opts_default(em_blockop_opts *o) {
  memset(o, 0, sizeof *o);
  for (int i = 0; i < EM_MAX_ORDER; i++)
    for (int j = 0; j < EM_MAX_ORDER; j++) o->format[i][j] = EM_FMT_AUTO;
  o->whole_format = EM_FMT_AUTO;
}
em_err em_blockop_create(const em_blockmat *B, const em_blockop_opts *o, em_blockop **op) {
  (void)B, (void)o;
  *op = NULL;
  return PENDING("the block operator");
}
em_err em_blockop_apply(em_blockop *op, const void *x, void *y) {
  (void)op, (void)x, (void)y;
  return PENDING("the block operator");
}
em_err em_blockop_plan_perm(const em_blockmat *B, const em_blockop_opts *o, int32_t *perm) {
  (void)B, (void)o, (void)perm;
  return PENDING("the block operator");
}
size_t em_blockop_bytes(const em_blockop *op) {
  (void)op;
  return 0;
}
void em_blockop_destroy(em_blockop **op) {
  *op = NULL;
}
#endif

#ifdef EM_SHIM_MATFILE
em_err em_matfile_read(const char *path, em_blockmat **B, int *n_rhs, em_cplx **b) {
  (void)B, (void)n_rhs, (void)b;
  return EM_RAISE(EM_ERR_UNSUPPORTED, "cannot read %s: matrix files (fmt-hyb branch) not merged",
                  path);
}
#endif
