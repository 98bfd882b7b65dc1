/* mem.c - host allocation that fails with a message naming what it was for. */
#include "em_core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* Large blocks in transparent huge pages where the kernel offers them on
 * request (THP "madvise", the usual default): calloc maps a block this
 * large fresh and untouched, and its first touch then faults 2 MiB at a
 * time instead of 4 KiB.  The assembled matrix, its permuted copy and the
 * operator's formats are GBs touched once by many threads: at 4 KiB a
 * page their faults serialise on the process's memory map (a 64-core
 * host's assembly of 4.9M unknowns runs at a third of the 2-core rate per
 * core).  Only the 2 MiB-aligned interior is advised; the call's failure
 * is harmless (the block keeps small pages).  EMSOLVE_HUGEPAGES=0 leaves
 * every block at small pages (the A/B measurement). */
#define EM_HUGE_MIN ((size_t)32 << 20)
static void advise_huge(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < EM_HUGE_MIN) return;
  const char *e = getenv("EMSOLVE_HUGEPAGES");
  if (e && e[0] == '0') return;
  const uintptr_t H = (uintptr_t)2 << 20;
  uintptr_t a = ((uintptr_t)p + H - 1) & ~(H - 1), b = ((uintptr_t)p + bytes) & ~(H - 1);
  if (b > a) (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}

em_err em_calloc(void *pptr, size_t n, size_t size, const char *what) {
  void **p = (void **)pptr;
  *p = NULL;
  if (size && n > SIZE_MAX / size)
    return EM_RAISE(EM_ERR_MEMORY, "size overflow allocating %zu x %zu bytes for %s", n, size,
                    what);
  /* calloc(0) may return NULL; ask for one byte so success is unambiguous. */
  *p = calloc(n ? n : 1, size ? size : 1);
  if (!*p)
    return EM_RAISE(EM_ERR_MEMORY, "out of host memory allocating %zu bytes for %s", n * size,
                    what);
  advise_huge(*p, n * size);
  return EM_OK;
}

em_err em_realloc(void *pptr, size_t n, size_t size, const char *what) {
  void **p = (void **)pptr;
  if (size && n > SIZE_MAX / size)
    return EM_RAISE(EM_ERR_MEMORY, "size overflow allocating %zu x %zu bytes for %s", n, size,
                    what);
  size_t bytes = n * size;
  void *q = realloc(*p, bytes ? bytes : 1);
  if (!q)
    return EM_RAISE(EM_ERR_MEMORY, "out of host memory resizing %s to %zu bytes", what, n * size);
  *p = q;
  advise_huge(q, bytes); /* a grown block's pages yet to be touched */
  return EM_OK;
}

void em_free(void *pptr) {
  void **p = (void **)pptr;
  free(*p);
  *p = NULL;
}

em_err em_strdup(char **out, const char *s) {
  size_t n = strlen(s) + 1;
  EM_TRY(em_calloc(out, n, 1, "string"));
  memcpy(*out, s, n);
  return EM_OK;
}

size_t em_prec_size(em_prec p) {
  return p == EM_PREC_SINGLE ? 8 : 16;
}

/* MemAvailable counts the page cache the kernel can drop: what a new
 * allocation can take without swapping (Linux >= 3.14). */
double em_host_mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  double kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  fclose(f);
  return kb * 1024;
}
