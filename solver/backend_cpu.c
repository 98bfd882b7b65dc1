/* backend_cpu.c - the CPU backend of solver/: host arrays, OpenMP loops,
 * the factor of the direct solver in host memory. */
#include <string.h>

#include "direct_impl.h"
#include "ilu_impl.h"
#include "pmg_impl.h"
#include "vec_impl.h"

/* dst = src in host memory (the three copies are one memcpy) */
static em_err cpu_copy(void *dst, const void *src, size_t bytes) {
  if (bytes) memcpy(dst, src, bytes);
  return EM_OK;
}

const em_sv_backend em_sv_backend_cpu = {
    .id = EM_BACKEND_CPU,
    .name = "CPU",
    .where = "cpu",
    .host = 1,
    .fallback = NULL,
    .trsv = 1u << EM_TRSV_AUTO | 1u << EM_TRSV_LEVELS,
    .single_factor = 0,
    .copy = cpu_copy,
    .download = cpu_copy,
    .upload = cpu_copy,
    .vec_init = em_vec_cpu_init,
    .jacobi_build = em_pc_jacobi_build_cpu,
    .ilu0_build = em_pc_ilu0_build_cpu,
    .ilu0_build_cusparse = NULL,
    .direct_pc_use = em_pc_direct_use_cpu,
    .pmg = &em_pmg_vops_cpu,
    .pmg_impl = "pmg-cpu",
    .direct_numeric = em_direct_numeric_cpu,
    .direct_solve = em_direct_solve_cpu,
    .direct_free = NULL,
    .direct_device_need = NULL,
};
