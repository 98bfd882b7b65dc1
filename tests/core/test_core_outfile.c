/* Outputs appear under their final name only once complete. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "em_test.h"

static int exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

int main(void) {
  char dir[] = "/tmp/em_outfile_XXXXXX";
  REQUIRE_OK(mkdtemp(dir) ? EM_OK : EM_ERR_IO);
  char sub[256], path[300];
  snprintf(sub, sizeof sub, "%s/a/b", dir);
  EXPECT_OK(em_mkdir_p(sub));
  snprintf(path, sizeof path, "%s/out.txt", sub);
  em_outfile o;
  REQUIRE_OK(em_outfile_open(&o, path, 0));
  fprintf(o.f, "hello\n");
  EXPECT(!exists(path), "final name exists before commit");
  EXPECT_OK(em_outfile_commit(&o));
  EXPECT(exists(path), "final name missing after commit");
  /* an aborted write leaves neither the final nor the temporary file */
  char path2[300];
  snprintf(path2, sizeof path2, "%s/aborted.txt", sub);
  REQUIRE_OK(em_outfile_open(&o, path2, 1));
  char tmp[512];
  snprintf(tmp, sizeof tmp, "%s", o.tmp_path);
  fprintf(o.f, "half");
  em_outfile_abort(&o);
  EXPECT(!exists(path2) && !exists(tmp), "aborted output left a file");
  /* an unwritable place is an error naming the path */
  EXPECT_ERR(em_outfile_open(&o, "/nonexistent-dir/x.vtk", 0), EM_ERR_IO);
  remove(path);
  return TEST_RESULT();
}
