/* vec_cpu.c - the CPU vector backend: host arrays, OpenMP loops, one source
 * for both precisions (vec_cpu_tmpl.h). */
#include <string.h>

#include "vec_impl.h"

/* below this length a loop is not worth a parallel region */
#define PAR_MIN 8192

#define SC em_cplx
#define FN(name) name##_z
#include "vec_cpu_tmpl.h"
#undef SC
#undef FN
#define SC em_cplxf
#define FN(name) name##_c
#include "vec_cpu_tmpl.h"
#undef SC
#undef FN

static em_err cpu_alloc(em_vec *v, int count, void **x) {
  EM_TRY(em_calloc(x, (size_t)count * (size_t)v->n, v->elsize, "work vectors"));
  return EM_OK;
}

static void cpu_free(em_vec *v, void **x) {
  (void)v;
  em_free(x);
}

static em_err cpu_sync(em_vec *v) {
  (void)v;
  return EM_OK;
}

static void cpu_destroy(em_vec *v) {
  (void)v;
}

static const em_vec_ops CPU_Z = {cpu_alloc, cpu_free, upload_z,      download_z,     set_z,
                                 copy_z,    scale_z,  axpby_z,       axpbypcz_z,     dots_z,
                                 mdot_z,    gemv_z,   cpu_sync,      cpu_destroy,    NULL,
                                 NULL,      NULL,     upload_perm_z, download_perm_z};
static const em_vec_ops CPU_C = {cpu_alloc, cpu_free, upload_c,      download_c,     set_c,
                                 copy_c,    scale_c,  axpby_c,       axpbypcz_c,     dots_c,
                                 mdot_c,    gemv_c,   cpu_sync,      cpu_destroy,    NULL,
                                 NULL,      NULL,     upload_perm_c, download_perm_c};

em_err em_vec_cpu_init(em_vec *v) {
  v->ops = v->prec == EM_PREC_SINGLE ? &CPU_C : &CPU_Z;
  v->data = NULL;
  return EM_OK;
}
