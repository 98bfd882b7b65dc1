/* device.c - choosing the compute device once, with a clear fallback. */
#include "em_core.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef EM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

int em_cuda_built(void) {
#ifdef EM_HAVE_CUDA
  return 1;
#else
  return 0;
#endif
}

int em_cuda_count_devices(void) {
#ifdef EM_HAVE_CUDA
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) { /* the child asks and says the count in its exit status */
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
    _exit(n > 200 ? 200 : n);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return 0;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 0;
#else
  return 0;
#endif
}

static void cpu_device(em_device *dev) {
  memset(dev, 0, sizeof *dev);
  dev->backend = EM_BACKEND_CPU;
#ifdef _OPENMP
  dev->cpu_threads = omp_get_max_threads();
#else
  dev->cpu_threads = 1;
#endif
  snprintf(dev->name, sizeof dev->name, "CPU (%d threads)", dev->cpu_threads);
}

/* Ask the CUDA runtime for device 0; on failure say why in `why`. */
static int try_cuda(em_device *dev, char *why, size_t n) {
#ifdef EM_HAVE_CUDA
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    snprintf(why, n, "no CUDA GPU answered (%s)",
             e != cudaSuccess ? cudaGetErrorName(e) : "0 devices");
    (void)cudaGetLastError();
    return 0;
  }
  struct cudaDeviceProp prop;
  if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess ||
      (e = cudaSetDevice(0)) != cudaSuccess) {
    snprintf(why, n, "CUDA device 0 unusable (%s)", cudaGetErrorName(e));
    return 0;
  }
  dev->backend = EM_BACKEND_CUDA;
  dev->cuda_id = 0;
  snprintf(dev->name, sizeof dev->name, "%.120s", prop.name);
  dev->mem_total = prop.totalGlobalMem;
  dev->sm_count = prop.multiProcessorCount;
  return 1;
#else
  (void)dev;
  snprintf(why, n, "this build has no CUDA");
  return 0;
#endif
}

em_err em_device_open(const char *mode, const em_log *log, em_device *dev) {
  cpu_device(dev);
  if (!strcmp(mode, "cpu")) return EM_OK;
  EM_CHECK(!strcmp(mode, "auto") || !strcmp(mode, "gpu"), EM_ERR_INPUT,
           "unknown --device '%s' (use auto, cpu or gpu)", mode);
  char why[256];
  if (try_cuda(dev, why, sizeof why)) {
    em_log_info(log, "device: %s, %.1f GiB, %d SMs", dev->name, (double)dev->mem_total / (1 << 30),
                dev->sm_count);
    return EM_OK;
  }
  EM_CHECK(strcmp(mode, "gpu") != 0, EM_ERR_UNSUPPORTED, "--device gpu: %s", why);
  em_log_info(log, "device: %s; running on the CPU (%d threads)", why, dev->cpu_threads);
  return EM_OK;
}

size_t em_device_mem_free(void) {
#ifdef EM_HAVE_CUDA
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return free_b;
#else
  return 0;
#endif
}
