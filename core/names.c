/* names.c - words for enumerations: the one parser behind every option that
 * takes a name (Solver/method, Solver/format, Output/vtk ...). */
#include <string.h>

#include "em_core.h"

const char *em_name_of(const char *const *names, int count, int i) {
  return i >= 0 && i < count ? names[i] : "?";
}

int em_name_index(const char *const *names, int count, const char *s) {
  for (int i = 0; s && i < count; i++)
    if (!strcmp(s, names[i])) return i;
  return -1;
}

void em_name_list(const char *const *names, int count, char *buf, size_t n) {
  if (!n) return;
  buf[0] = 0;
  for (int i = 0; i < count; i++) {
    strncat(buf, names[i], n - strlen(buf) - 1);
    if (i + 1 < count) strncat(buf, ", ", n - strlen(buf) - 1);
  }
}

em_err em_name_parse(const char *const *names, int count, const char *s, const char *what,
                     int *index) {
  int i = em_name_index(names, count, s);
  if (i < 0) {
    char buf[512];
    em_name_list(names, count, buf, sizeof buf);
    return EM_RAISE(EM_ERR_INPUT, "unknown %s '%s' (known: %s)", what, s ? s : "(null)", buf);
  }
  *index = i;
  return EM_OK;
}
