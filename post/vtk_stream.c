/* vtk_stream.c - numbers into a legacy VTK file, ASCII or big-endian binary.
 *
 * Legacy VTK BINARY data is big-endian on every host.  Bytes are stored by
 * shifts, most significant first, which is right on either endianness and
 * compiles to a byte swap + store on x86.  Records go through a buffer of
 * our own and leave in large fwrite calls. */
#include "post_impl.h"

#include <errno.h>
#include <string.h>

#define STREAM_BUF (1u << 20)

em_err em_vtk_stream_init(em_vtk_stream *s, FILE *f, int binary, int single) {
  memset(s, 0, sizeof *s);
  EM_CHECK(f, EM_ERR_ARG, "VTK stream without a file");
  s->f = f;
  s->binary = binary != 0;
  s->single = single != 0;
  s->cap = STREAM_BUF;
  EM_TRY(em_calloc(&s->buf, s->cap, 1, "VTK write buffer"));
  return EM_OK;
}

void em_vtk_stream_free(em_vtk_stream *s) {
  em_free(&s->buf);
  s->n = s->cap = 0;
}

/* Hand the buffer to stdio; a short write marks the stream failed. */
static void fail(em_vtk_stream *s) {
  if (!s->failed) s->failed = errno ? errno : -1;
}

static void drain(em_vtk_stream *s) {
  errno = 0;
  if (s->n && !s->failed && fwrite(s->buf, 1, s->n, s->f) != s->n) fail(s);
  s->n = 0;
}

static unsigned char *room(em_vtk_stream *s, size_t need) {
  if (s->cap - s->n < need) drain(s);
  return s->buf + s->n;
}

void em_vtk_stream_text(em_vtk_stream *s, const char *text) {
  size_t len = strlen(text);
  if (len > s->cap / 2) { /* a long title: straight through */
    drain(s);
    errno = 0;
    if (!s->failed && fwrite(text, 1, len, s->f) != len) fail(s);
    return;
  }
  memcpy(room(s, len), text, len);
  s->n += len;
}

static void put_be32(unsigned char *p, uint32_t u) {
  p[0] = (unsigned char)(u >> 24);
  p[1] = (unsigned char)(u >> 16);
  p[2] = (unsigned char)(u >> 8);
  p[3] = (unsigned char)u;
}

static void put_be64(unsigned char *p, uint64_t u) {
  put_be32(p, (uint32_t)(u >> 32));
  put_be32(p + 4, (uint32_t)u);
}

/* %.17g (double) and %.9g (float) read back to the same binary value. */
size_t em_vtk_encode_reals(const em_vtk_stream *s, const double *v, int n, unsigned char *out) {
  unsigned char *p = out;
  if (s->binary) {
    for (int i = 0; i < n; i++) {
      if (s->single) {
        float x = (float)v[i];
        uint32_t u;
        memcpy(&u, &x, 4);
        put_be32(p, u);
        p += 4;
      } else {
        uint64_t u;
        memcpy(&u, &v[i], 8);
        put_be64(p, u);
        p += 8;
      }
    }
    return (size_t)(p - out);
  }
  char *c = (char *)p;
  for (int i = 0; i < n; i++) {
    int w =
        s->single ? snprintf(c, 32, "%.9g", (double)(float)v[i]) : snprintf(c, 32, "%.17g", v[i]);
    c += w;
    *c++ = i + 1 < n ? ' ' : '\n';
  }
  return (size_t)((unsigned char *)c - out);
}

size_t em_vtk_encode_ints(const em_vtk_stream *s, const int32_t *v, int n, unsigned char *out) {
  unsigned char *p = out;
  if (s->binary) {
    for (int i = 0; i < n; i++, p += 4) put_be32(p, (uint32_t)v[i]);
    return (size_t)(p - out);
  }
  char *c = (char *)p;
  for (int i = 0; i < n; i++) {
    c += snprintf(c, 16, "%d", (int)v[i]);
    *c++ = i + 1 < n ? ' ' : '\n';
  }
  return (size_t)((unsigned char *)c - out);
}

void em_vtk_stream_reals(em_vtk_stream *s, const double *v, int n) {
  unsigned char *p = room(s, EM_VTK_RECORD);
  s->n += em_vtk_encode_reals(s, v, n, p);
}

void em_vtk_stream_ints(em_vtk_stream *s, const int32_t *v, int n) {
  unsigned char *p = room(s, EM_VTK_RECORD);
  s->n += em_vtk_encode_ints(s, v, n, p);
}

void em_vtk_stream_bytes(em_vtk_stream *s, const unsigned char *b, size_t len) {
  if (len > s->cap / 2) { /* a large block: straight through */
    drain(s);
    errno = 0;
    if (!s->failed && len && fwrite(b, 1, len, s->f) != len) fail(s);
    return;
  }
  memcpy(room(s, len), b, len);
  s->n += len;
}

void em_vtk_stream_end_array(em_vtk_stream *s) {
  if (s->binary) em_vtk_stream_text(s, "\n");
}

em_err em_vtk_stream_flush(em_vtk_stream *s, const char *path) {
  drain(s);
  errno = 0;
  if (!s->failed && fflush(s->f) != 0) fail(s);
  if (!s->failed && ferror(s->f)) s->failed = -1;
  if (s->failed)
    return EM_RAISE(EM_ERR_IO, "error writing %s: %s", path,
                    s->failed > 0 ? strerror(s->failed) : "I/O error");
  return EM_OK;
}
