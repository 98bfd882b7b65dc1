/* json.c - a streaming JSON writer (RFC 8259) into an em_outfile.
 *
 * Output is indented two spaces per level, one element per line.  Calls
 * cannot fail one by one (they return nothing, so a summary reads as a list
 * of facts); the first misuse is remembered, later calls do nothing, and
 * em_json_close reports it and removes the file, so a malformed document is
 * never committed. */
#include "em_post.h"
#include "post_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

static void misuse(em_json *j, const char *fmt, ...) EM_PRINTF(2, 3);
static void misuse(em_json *j, const char *fmt, ...) {
  if (j->misuse[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(j->misuse, sizeof j->misuse, fmt, ap);
  va_end(ap);
}

/* Bytes of the valid UTF-8 sequence at p, or 0 if it is not one (RFC 3629:
 * no overlong forms, no surrogates, nothing beyond U+10FFFF). */
static int utf8_valid(const unsigned char *p) {
  unsigned char c = p[0], lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
  int n;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) { /* E0: no overlong; ED: no surrogates */
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) { /* F0: no overlong; F4: <= U+10FFFF */
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (p[1] < lo || p[1] > hi) return 0;
  for (int i = 2; i < n; i++)
    if ((p[i] & 0xC0) != 0x80) return 0;
  return n;
}

/* "..." with ", \, control characters escaped; invalid UTF-8 -> U+FFFD. */
static void put_string(FILE *f, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  fputc('"', f);
  while (*p) {
    int n = utf8_valid(p);
    if (n == 0) {
      fputs("\\ufffd", f);
      p++;
    } else if (n > 1) {
      fwrite(p, 1, (size_t)n, f);
      p += n;
    } else {
      unsigned char c = *p++;
      switch (c) {
        case '"':
          fputs("\\\"", f);
          break;
        case '\\':
          fputs("\\\\", f);
          break;
        case '\b':
          fputs("\\b", f);
          break;
        case '\f':
          fputs("\\f", f);
          break;
        case '\n':
          fputs("\\n", f);
          break;
        case '\r':
          fputs("\\r", f);
          break;
        case '\t':
          fputs("\\t", f);
          break;
        default:
          if (c < 0x20)
            fprintf(f, "\\u%04x", c);
          else
            fputc(c, f);
      }
    }
  }
  fputc('"', f);
}

/* Separator, indentation and key of the next element; 0 when nothing may be
 * written (not open, or after a misuse). */
static int element(em_json *j, const char *key) {
  if (!j || !j->out.f || j->misuse[0]) return 0;
  if (j->depth == 0) {
    if (key) misuse(j, "key \"%.64s\" given for the top-level value", key);
    if (!j->first[0]) misuse(j, "a second top-level value (key \"%.64s\")", key ? key : "");
    j->first[0] = 0;
    return !j->misuse[0];
  }
  if (j->array[j->depth] && key) misuse(j, "key \"%.64s\" inside an array", key);
  if (!j->array[j->depth] && !key) misuse(j, "value without a key inside an object");
  if (j->misuse[0]) return 0;
  fputs(j->first[j->depth] ? "\n" : ",\n", j->out.f);
  j->first[j->depth] = 0;
  fprintf(j->out.f, "%*s", 2 * j->depth, "");
  if (key) {
    put_string(j->out.f, key);
    fputs(": ", j->out.f);
  }
  return 1;
}

static void begin(em_json *j, const char *key, int array) {
  if (!element(j, key)) return;
  if (j->depth == EM_JSON_MAX_DEPTH) {
    misuse(j, "nesting deeper than %d levels (at key \"%.64s\")", EM_JSON_MAX_DEPTH,
           key ? key : "");
    return;
  }
  j->depth++;
  j->first[j->depth] = 1;
  j->array[j->depth] = (char)array;
  fputc(array ? '[' : '{', j->out.f);
}

static void end(em_json *j, int array) {
  if (!j || !j->out.f || j->misuse[0]) return;
  const char *what = array ? "array" : "object";
  if (j->depth == 0) {
    misuse(j, "end of an %s that was never begun", what);
    return;
  }
  if (j->array[j->depth] != array) {
    misuse(j, "end of an %s where an %s is open", what, array ? "object" : "array");
    return;
  }
  if (!j->first[j->depth]) fprintf(j->out.f, "\n%*s", 2 * (j->depth - 1), "");
  fputc(array ? ']' : '}', j->out.f);
  j->depth--;
}

em_err em_json_open(em_json *j, const char *path) {
  EM_CHECK(j, EM_ERR_ARG, "NULL JSON writer");
  memset(j, 0, sizeof *j);
  EM_CHECK(path && *path, EM_ERR_ARG, "JSON output path is NULL or empty");
  EM_TRY(em_outfile_open(&j->out, path, 0));
  j->first[0] = 1;
  return EM_OK;
}

void em_json_begin_object(em_json *j, const char *key) {
  begin(j, key, 0);
}
void em_json_end_object(em_json *j) {
  end(j, 0);
}
void em_json_begin_array(em_json *j, const char *key) {
  begin(j, key, 1);
}
void em_json_end_array(em_json *j) {
  end(j, 1);
}

/* Shortest round-trip digits; ".0" keeps an integral double a float for
 * readers that distinguish (Python's json). */
void em_json_number(em_json *j, const char *key, double v) {
  if (!element(j, key)) return;
  if (!isfinite(v)) {
    fputs("null", j->out.f);
    return;
  }
  char buf[EM_POST_NUM_LEN];
  em_post_fmt_double(buf, v);
  fputs(buf, j->out.f);
  if (strspn(buf, "-0123456789") == strlen(buf)) fputs(".0", j->out.f);
}

void em_json_int(em_json *j, const char *key, int64_t v) {
  if (element(j, key)) fprintf(j->out.f, "%" PRId64, v);
}

void em_json_string(em_json *j, const char *key, const char *s) {
  if (!element(j, key)) return;
  if (s)
    put_string(j->out.f, s);
  else
    fputs("null", j->out.f);
}

void em_json_bool(em_json *j, const char *key, int v) {
  if (element(j, key)) fputs(v ? "true" : "false", j->out.f);
}

em_err em_json_close(em_json *j) {
  EM_CHECK(j, EM_ERR_ARG, "NULL JSON writer");
  EM_CHECK(j->out.f, EM_ERR_ARG, "JSON writer is not open");
  if (!j->misuse[0] && j->first[0]) misuse(j, "no value was written");
  if (j->misuse[0]) {
    em_err e = EM_RAISE(EM_ERR_ARG, "JSON %s: %s; file not written", j->out.path, j->misuse);
    em_outfile_abort(&j->out);
    return e;
  }
  while (j->depth > 0) end(j, j->array[j->depth]);
  fputc('\n', j->out.f);
  EM_TRY(em_outfile_commit(&j->out));
  return EM_OK;
}

void em_json_abort(em_json *j) {
  if (j) em_outfile_abort(&j->out);
}
