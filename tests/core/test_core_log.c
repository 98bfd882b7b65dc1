/* test_core_log.c - em_log's lines: each one whole (the prefix, the rank
 * tag, the message and the newline written by one fwrite, so MPI ranks
 * sharing stderr do not cut each other's lines), a message longer than the
 * stack buffer whole too, the levels respected. */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "em_core.h"
#include "em_test.h"

int main(void) {
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  if (!f) {
    fprintf(stderr, "open_memstream failed\n");
    return 1;
  }
  em_log log;
  em_log_init(&log, f, EM_LOG_INFO);
  snprintf(log.tag, sizeof log.tag, "[rank 1] ");
  em_log_info(&log, "short %d", 42);
  em_log_verbose(&log, "not at INFO");
  char *big = malloc(5001);
  memset(big, 'x', 5000);
  big[5000] = '\0';
  em_log_warn(&log, "long %s end", big);
  fclose(f);
  /* two lines, each "[    t s] [rank 1] ..." */
  char *nl = strchr(buf, '\n');
  EXPECT(nl && strstr(buf, "] [rank 1] short 42\n") == nl - strlen("] [rank 1] short 42"),
         "first line: %.60s", buf);
  const char *second = nl ? nl + 1 : "";
  const char *w = strstr(second, "] [rank 1] warning: long x");
  EXPECT(w && second[0] == '[', "second line's prefix: %.60s", second);
  const char *end = w ? strstr(w, "x end\n") : NULL;
  EXPECT(end && end[6] == '\0', "the long line whole, ended once");
  size_t xs = 0;
  for (const char *p = second; *p; p++) xs += *p == 'x';
  EXPECT(xs == 5000, "the long message's 5000 characters: %zu", xs);
  EXPECT(!strstr(buf, "not at INFO"), "a verbose line at INFO level");
  free(big);
  free(buf);
  return TEST_RESULT();
}
