/* gmsh_error.c - the Gmsh adapter: Gmsh's ierr plus its logged messages
 * become an em_err EM_ERR_GMSH whose message is Gmsh's own (with the line
 * number for .geo parse errors), and Gmsh's warnings reach our log. */
#include <gmshc.h>
#include <stdarg.h>
#include <string.h>

#include "case_impl.h"

#define MSG_MAX 900 /* the error trace holds 1024 characters */
#define ERRORS_MAX 3

/* Free a string vector returned by Gmsh. */
static void free_strings(char **s, size_t n) {
  for (size_t i = 0; i < n; i++) gmshFree(s[i]);
  gmshFree(s);
}

/* Append src to dst (capacity cap), keeping dst terminated. */
static void append(char *dst, size_t cap, const char *src) {
  size_t len = strlen(dst);
  if (len + 1 < cap) snprintf(dst + len, cap - len, "%s", src);
}

/* Gmsh's errors since mark: the logger's "Error: ..." lines (the first few:
 * later ones are usually consequences), else Gmsh's last error. */
static void gmsh_errors(size_t mark, char *out, size_t cap) {
  char **log = NULL;
  size_t n = 0;
  int ierr = 0, found = 0;
  out[0] = '\0';
  gmshLoggerGet(&log, &n, &ierr);
  if (!ierr) {
    for (size_t i = mark; i < n && found < ERRORS_MAX; i++) {
      if (strncmp(log[i], "Error: ", 7)) continue;
      if (found++) append(out, cap, "; ");
      append(out, cap, log[i] + 7);
    }
    free_strings(log, n);
  }
  if (found) return;
  char *last = NULL;
  ierr = 0;
  gmshLoggerGetLastError(&last, &ierr);
  if (!ierr && last && last[0]) append(out, cap, last);
  gmshFree(last);
  if (!out[0]) append(out, cap, "Gmsh reported an error without a message");
}

em_err em_gmsh_raise(size_t mark, const char *file, int line, const char *fmt, ...) {
  char what[MSG_MAX / 2], why[MSG_MAX / 2];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  gmsh_errors(mark, why, sizeof why);
  return em_error_raise(EM_ERR_GMSH, file, line, "%s: %s", what, why);
}

/* Gmsh never prints to the terminal itself (it would write to stdout,
 * into the results): its messages since *mark reach our log (stderr),
 * warnings always, the rest ("Info: Meshing 3D...") at verbose level. */
void em_gmsh_forward_warnings(const em_log *log, size_t *mark) {
  char **msg = NULL;
  size_t n = 0;
  int ierr = 0;
  gmshLoggerGet(&msg, &n, &ierr);
  if (ierr) return;
  for (size_t i = *mark; i < n && log; i++) {
    if (!strncmp(msg[i], "Warning: ", 9))
      em_log_warn(log, "gmsh: %s", msg[i] + 9);
    else if (strncmp(msg[i], "Error: ", 7)) /* errors come with the em_err */
      em_log_verbose(log, "gmsh: %s", msg[i]);
  }
  *mark = n;
  free_strings(msg, n);
}
