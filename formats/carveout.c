/* carveout.c - em_spmat_cuda_carveout: the arguments checked here (so a
 * build without CUDA and the CPU tests see the same refusals), the kernel
 * attribute set by ell_cuda.cu. */
#include "ell_impl.h"

em_err em_spmat_cuda_carveout(em_format f, em_prec p, int T, int percent) {
  EM_CHECK(f == EM_FMT_ELL || f == EM_FMT_ELLR || f == EM_FMT_ELLRT || f == EM_FMT_SELLRT,
           EM_ERR_UNSUPPORTED, "L1 / shared carveout: only the ELL family, not %s",
           em_format_name(f));
  EM_CHECK(p == EM_PREC_DOUBLE || p == EM_PREC_SINGLE, EM_ERR_ARG,
           "L1 / shared carveout: precision %d", (int)p);
  EM_CHECK(T == 1 || T == 2 || T == 4 || T == 8 || T == 16 || T == 32, EM_ERR_ARG,
           "L1 / shared carveout: T = %d is not 1, 2, 4, 8, 16 or 32", T);
  EM_CHECK(f != EM_FMT_ELL || T == 1, EM_ERR_ARG, "L1 / shared carveout: ELL has T = 1, not %d", T);
  EM_CHECK(percent >= -1 && percent <= 100, EM_ERR_ARG,
           "L1 / shared carveout: %d%% is not -1 (the driver's) or 0..100", percent);
#ifdef EM_HAVE_CUDA
  EM_TRY(em_ellx_cuda_carveout(p, T, f != EM_FMT_ELL, percent));
  return EM_OK;
#else
  return EM_RAISE(EM_ERR_UNSUPPORTED, "L1 / shared carveout: this build has no CUDA");
#endif
}
