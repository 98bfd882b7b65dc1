/* backend.c - which backends this build has (the one place in solver/
 * that asks), their names, and the GPU-to-host fallback. */
#include <stdarg.h>
#include <stdio.h>

#include "backend_impl.h"

const em_sv_backend *em_sv_backend_of(em_backend b) {
  if (b == EM_BACKEND_CPU) return &em_sv_backend_cpu;
#ifdef EM_HAVE_CUDA
  if (b == EM_BACKEND_CUDA) return &em_sv_backend_cuda;
#endif
  return NULL;
}

em_err em_sv_backend_get(em_backend b, const char *who, const char *what,
                         const em_sv_backend **be) {
  EM_CHECK(b == EM_BACKEND_CPU || b == EM_BACKEND_CUDA, EM_ERR_ARG, "%s: unknown backend %d", who,
           (int)b);
  *be = em_sv_backend_of(b);
  EM_CHECK(*be, EM_ERR_UNSUPPORTED, "%s: %s was requested but this build has no CUDA", who, what);
  return EM_OK;
}

const char *em_sv_backend_name(em_backend b) {
  return b == EM_BACKEND_CPU ? "CPU" : b == EM_BACKEND_CUDA ? "GPU" : "unknown";
}

/* Only a shortage of device memory moves work, and only where the backend
 * names a fallback: every other failure is the caller's to report. */
em_err em_sv_fallback(const em_sv_backend **be, em_err err, const em_log *log, const char *instead,
                      ...) {
  if (err != EM_ERR_GPU_MEMORY || !(*be)->fallback) return err;
  char what[256];
  va_list ap;
  va_start(ap, instead);
  vsnprintf(what, sizeof what, instead, ap);
  va_end(ap);
  em_log_warn(log, "%s: %s", em_error_message(), what);
  em_error_clear();
  *be = (*be)->fallback;
  return EM_OK;
}
