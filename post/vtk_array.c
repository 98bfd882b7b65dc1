/* vtk_array.c - a whole VTK data array encoded by all threads.
 *
 * The records are cut into slabs of one part per thread; in a slab thread k
 * encodes the k-th contiguous part into its own buffer (the same bytes
 * em_vtk_encode_* gives each record), then the parts leave in order.  A
 * part is n / threads records, at most VA_BYTES of output: an array is one
 * or a few slabs, so few parallel regions (each ends in a barrier, which
 * costs a time slice whenever a thread is descheduled on a shared host).
 * The file is the record-by-record stream's, byte for byte, for any number
 * of threads: only who encodes a record changes, never its bytes or place.
 * Small arrays, or a call from inside a parallel region, go through the
 * stream one record at a time. */
#include "post_impl.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define VA_BYTES (8u << 20) /* a thread's part of a slab: at most 8 MB encoded */
#define VA_SERIAL 16384     /* below this many records: one thread */

typedef struct va_job {
  const em_vtk_stream *s;
  int width, ints;
  em_vtk_real_fn real;
  em_vtk_int_fn integer;
  const void *ctx;
} va_job;

/* Records [i0, i1) into out (room (i1 - i0) records); the bytes written. */
static size_t encode(const va_job *j, int64_t i0, int64_t i1, unsigned char *out) {
  size_t n = 0;
  double v[EM_VTK_WIDTH];
  int32_t w[EM_VTK_WIDTH];
  for (int64_t i = i0; i < i1; i++) {
    if (j->ints) {
      j->integer(j->ctx, i, w);
      n += em_vtk_encode_ints(j->s, w, j->width, out + n);
    } else {
      j->real(j->ctx, i, v);
      n += em_vtk_encode_reals(j->s, v, j->width, out + n);
    }
  }
  return n;
}

/* The most bytes one record takes: 8 per number in BINARY, snprintf's 31
 * characters and a separator in ASCII. */
static size_t record_max(const va_job *j) {
  return (size_t)j->width * (j->s->binary ? 8 : 32);
}

static int run(em_vtk_stream *s, int64_t n, const va_job *j, const em_cancel *cancel) {
  int nt = 1;
#ifdef _OPENMP
  if (n >= VA_SERIAL && !omp_in_parallel()) nt = omp_get_max_threads();
#endif
  size_t rmax = record_max(j);
  int64_t part = (n + nt - 1) / nt, most = (int64_t)(VA_BYTES / rmax);
  if (part > most) part = most;
  size_t cap = (size_t)part * rmax + EM_VTK_RECORD;
  unsigned char *buf = NULL;
  size_t *len = NULL;
  if (nt > 1 && (em_calloc(&buf, (size_t)nt * cap, 1, "VTK encoding buffers") ||
                 em_calloc(&len, (size_t)nt, sizeof *len, "VTK encoding buffers"))) {
    em_error_clear(); /* no room for the threads' buffers: one record at a time */
    em_free(&buf);
    nt = 1;
  }
  if (nt == 1) { /* records into a block on the stack, blocks into the stream */
    unsigned char blk[1 << 16];
    size_t used = 0;
    for (int64_t i = 0; i < n; i++) {
      if (i % 32768 == 0 && em_cancelled(cancel)) return 1;
      if (used + EM_VTK_RECORD > sizeof blk) em_vtk_stream_bytes(s, blk, used), used = 0;
      used += encode(j, i, i + 1, blk + used);
    }
    em_vtk_stream_bytes(s, blk, used);
    return 0;
  }
  int stop = 0;
  for (int64_t i0 = 0; i0 < n && !stop; i0 += (int64_t)nt * part) {
    if (em_cancelled(cancel)) {
      stop = 1;
      break;
    }
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int k = 0; k < nt; k++) {
      int64_t a = i0 + (int64_t)k * part, b = a + part;
      if (a > n) a = n;
      if (b > n) b = n;
      len[k] = encode(j, a, b, buf + (size_t)k * cap);
    }
    for (int k = 0; k < nt; k++) em_vtk_stream_bytes(s, buf + (size_t)k * cap, len[k]);
  }
  em_free(&buf);
  em_free(&len);
  return stop;
}

int em_vtk_stream_real_array(em_vtk_stream *s, int64_t n, int width, em_vtk_real_fn get,
                             const void *ctx, const em_cancel *cancel) {
  va_job j = {.s = s, .width = width, .real = get, .ctx = ctx};
  return run(s, n, &j, cancel);
}

int em_vtk_stream_int_array(em_vtk_stream *s, int64_t n, int width, em_vtk_int_fn get,
                            const void *ctx, const em_cancel *cancel) {
  va_job j = {.s = s, .width = width, .ints = 1, .integer = get, .ctx = ctx};
  return run(s, n, &j, cancel);
}
