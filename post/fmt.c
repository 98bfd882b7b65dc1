/* fmt.c - text helpers shared by the writers of post/. */
#include "post_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 17 significant digits always identify a double; fewer often do, and the
 * short form is what a person expects to read ("0.1", not
 * "0.10000000000000001"). */
void em_post_fmt_double(char buf[EM_POST_NUM_LEN], double v) {
  if (!isfinite(v)) {
    snprintf(buf, EM_POST_NUM_LEN, "%s", isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
    return;
  }
  for (int prec = 15; prec < 17; prec++) {
    snprintf(buf, EM_POST_NUM_LEN, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
  snprintf(buf, EM_POST_NUM_LEN, "%.17g", v);
}

/* Length of the UTF-8 sequence that starts with byte c (1 for anything that
 * does not start a multi-byte sequence, so bad bytes are copied singly). */
static size_t utf8_len(unsigned char c) {
  if (c >= 0xF0 && c <= 0xF4) return 4;
  if (c >= 0xE0) return c <= 0xEF ? 3 : 1;
  if (c >= 0xC2) return 2;
  return 1;
}

/* One line of text: control characters would end the line (or the header
 * of a file) early, so they become spaces; a cut never lands inside a UTF-8
 * sequence, so the truncated line is still valid text. */
size_t em_post_copy_line(char *dst, size_t cap, const char *src) {
  size_t n = 0;
  if (cap == 0) return 0;
  if (!src) src = "";
  for (size_t i = 0; src[i];) {
    unsigned char c = (unsigned char)src[i];
    size_t k = utf8_len(c);
    for (size_t q = 1; q < k; q++)
      if (((unsigned char)src[i + q] & 0xC0) != 0x80) k = 1; /* broken sequence */
    if (n + k > cap - 1) break;
    if (k == 1) {
      dst[n++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
    } else {
      memcpy(dst + n, src + i, k);
      n += k;
    }
    i += k;
  }
  dst[n] = '\0';
  return n;
}
