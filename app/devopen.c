/* devopen.c - the GPU opened while the case meshes (issue 24): a CUDA
 * context costs ~0.3 s, which a single run paid after the mesh.  Its own
 * thread calls em_device_open (quiet) from the end of the parse; the
 * run's own open (make_problem, the eigen run's) joins it first and then
 * finds the context made, logging the device and any failure exactly as
 * before (the early open's errors are dropped with its thread).  Only
 * with CUDA built and --device gpu or auto, and only when asked
 * (EMSOLVE_DEVICE_EARLY=1): on an H200 host it made Gmsh's 1M-unknown
 * mesh 0.7 s slower (1.99 -> 2.67 s, two runs each; the driver's address
 * space work beside Gmsh's allocations) for the 0.3 s it hid. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "app_sweep.h"

static void *open_main(void *arg) {
  em_run *r = arg;
  em_device dev;
  if (em_device_open(r->args->device, NULL, &dev)) em_error_clear();
  return NULL;
}

void em_app_device_early(em_run *r) {
  const char *early = getenv("EMSOLVE_DEVICE_EARLY");
  if (r->dev_th_on || !em_cuda_built() || !strcmp(r->args->device, "cpu") || !early ||
      strcmp(early, "1"))
    return;
  r->dev_th_on = !pthread_create(&r->dev_th, NULL, open_main, r);
}

void em_app_device_join(em_run *r) {
  if (!r->dev_th_on) return;
  pthread_join(r->dev_th, NULL);
  r->dev_th_on = 0;
}
