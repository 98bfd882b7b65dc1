/* mem.c - host allocation that fails with a message naming what it was for. */
#include "em_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
