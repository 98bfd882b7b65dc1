/* The error trace names the culprit and records the path it travelled. */
#include <string.h>

#include "em_test.h"

static em_err inner(const char *name) {
  EM_CHECK(name[0] != '\0', EM_ERR_INPUT, "parameter name is empty");
  return EM_RAISE(EM_ERR_INPUT, "unknown parameter '%s'", name);
}
static em_err outer(const char *name) {
  EM_TRY(inner(name));
  return EM_OK;
}

int main(void) {
  EXPECT(em_error_code() == EM_OK, "fresh trace not empty");
  em_err e = outer("Solver/frobnicate");
  EXPECT(e == EM_ERR_INPUT, "code %s", em_err_name(e));
  EXPECT(strstr(em_error_message(), "Solver/frobnicate") != NULL, "message '%s'",
         em_error_message());
  char buf[4096] = {0};
  FILE *f = fmemopen(buf, sizeof buf, "w");
  em_error_print(f);
  fclose(f);
  EXPECT(strstr(buf, "test_core_errors.c:") != NULL, "no frame in '%s'", buf);
  /* two frames: where raised and where propagated */
  int frames = 0;
  for (char *p = buf; (p = strstr(p, "  at ")); p++) frames++;
  EXPECT(frames == 2, "%d frames in '%s'", frames, buf);
  em_error_clear();
  EXPECT(em_error_code() == EM_OK && !strcmp(em_error_message(), ""), "clear failed");
  /* allocation failure is an error with a message, not a crash */
  void *p = NULL;
  e = em_calloc(&p, SIZE_MAX / 2, 16, "a huge array");
  EXPECT(e == EM_ERR_MEMORY && p == NULL, "huge allocation: %s", em_err_name(e));
  EXPECT(strstr(em_error_message(), "a huge array") != NULL, "'%s'", em_error_message());
  em_error_clear();
  EXPECT(!strcmp(em_err_name(EM_ERR_GPU_MEMORY), "EM_ERR_GPU_MEMORY"), "name");
  return TEST_RESULT();
}
