/* JSON writer: every misuse is EM_ERR_ARG at close naming what went wrong,
 * and leaves no file; I/O errors are EM_ERR_IO naming the path.  The content
 * of a good document is checked by check_json.py through Python's json. */
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "em_post.h"
#include "em_test.h"

static char dir[] = "/tmp/em_post_json_XXXXXX";
static char path[512];

static int count_files(void) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* Close must fail with EM_ERR_ARG, mention `what`, and leave nothing. */
static void expect_misuse(em_json *j, const char *what, int line) {
  em_err e = em_json_close(j);
  if (e != EM_ERR_ARG || !strstr(em_error_message(), what) || !strstr(em_error_message(), path)) {
    fprintf(stderr, "line %d: close gave %s '%s', expected EM_ERR_ARG about '%s'\n", line,
            em_err_name(e), em_error_message(), what);
    em_test_failures_++;
  }
  em_error_clear();
  EXPECT(count_files() == 0, "line %d: a misused writer left a file", line);
  em_json_abort(j); /* harmless after close */
}

int main(void) {
  REQUIRE_OK(mkdtemp(dir) ? EM_OK : EM_ERR_IO);
  snprintf(path, sizeof path, "%s/x.json", dir);
  em_json j;

  REQUIRE_OK(em_json_open(&j, path));
  em_json_end_object(&j);
  expect_misuse(&j, "never begun", __LINE__);

  REQUIRE_OK(em_json_open(&j, path));
  em_json_begin_object(&j, NULL);
  em_json_end_array(&j);
  expect_misuse(&j, "where an object is open", __LINE__);

  REQUIRE_OK(em_json_open(&j, path));
  em_json_begin_array(&j, NULL);
  em_json_int(&j, "k", 1);
  expect_misuse(&j, "key \"k\" inside an array", __LINE__);

  REQUIRE_OK(em_json_open(&j, path));
  em_json_begin_object(&j, NULL);
  em_json_int(&j, NULL, 1);
  expect_misuse(&j, "without a key", __LINE__);

  REQUIRE_OK(em_json_open(&j, path));
  em_json_begin_object(&j, NULL);
  em_json_end_object(&j);
  em_json_begin_object(&j, NULL);
  expect_misuse(&j, "second top-level", __LINE__);

  REQUIRE_OK(em_json_open(&j, path));
  em_json_int(&j, "top", 1);
  expect_misuse(&j, "top-level", __LINE__);

  REQUIRE_OK(em_json_open(&j, path));
  expect_misuse(&j, "no value", __LINE__);

  /* depth 31 is allowed, 32 is not; later calls do nothing */
  REQUIRE_OK(em_json_open(&j, path));
  for (int d = 0; d < EM_JSON_MAX_DEPTH; d++) em_json_begin_array(&j, NULL);
  em_json_begin_array(&j, NULL);
  em_json_end_array(&j);
  expect_misuse(&j, "deeper than 31", __LINE__);
  REQUIRE_OK(em_json_open(&j, path));
  for (int d = 0; d < EM_JSON_MAX_DEPTH; d++) em_json_begin_array(&j, NULL);
  EXPECT_OK(em_json_close(&j));
  EXPECT(count_files() == 1, "a depth-31 document was not written");
  remove(path);

  /* a misuse after many good calls still removes the file */
  REQUIRE_OK(em_json_open(&j, path));
  em_json_begin_object(&j, NULL);
  for (int k = 0; k < 1000; k++) em_json_number(&j, "v", k * 0.5);
  em_json_end_array(&j);
  em_json_number(&j, "after", 1);
  expect_misuse(&j, "where an object is open", __LINE__);

  /* abort mid-document leaves nothing; close after a failed open is an error */
  REQUIRE_OK(em_json_open(&j, path));
  em_json_begin_object(&j, NULL);
  em_json_abort(&j);
  EXPECT(count_files() == 0, "abort left a file");
  EXPECT_ERR(em_json_close(&j), EM_ERR_ARG);
  em_err e = em_json_open(&j, "/nonexistent-emsolve-dir/s.json");
  EXPECT(e == EM_ERR_IO && strstr(em_error_message(), "/nonexistent-emsolve-dir/s.json"),
         "unwritable: %s %s", em_err_name(e), em_error_message());
  em_error_clear();
  em_json_begin_object(&j, NULL); /* no crash on a writer that never opened */
  em_json_string(&j, "a", "b");
  EXPECT_ERR(em_json_close(&j), EM_ERR_ARG);
  EXPECT_ERR(em_json_open(&j, NULL), EM_ERR_ARG);
  EXPECT_ERR(em_json_open(NULL, path), EM_ERR_ARG);

  /* a write error at commit (file size limit standing in for a full disk) */
  struct rlimit old, lim;
  signal(SIGXFSZ, SIG_IGN);
  getrlimit(RLIMIT_FSIZE, &old);
  lim = old;
  lim.rlim_cur = 4096;
  REQUIRE_OK(setrlimit(RLIMIT_FSIZE, &lim) == 0 ? EM_OK : EM_ERR_IO);
  REQUIRE_OK(em_json_open(&j, path));
  em_json_begin_array(&j, NULL);
  for (int k = 0; k < 2000; k++) em_json_number(&j, NULL, k / 3.0);
  e = em_json_close(&j);
  setrlimit(RLIMIT_FSIZE, &old);
  EXPECT(e == EM_ERR_IO && strstr(em_error_message(), path), "full disk: %s %s", em_err_name(e),
         em_error_message());
  em_error_clear();
  EXPECT(count_files() == 0, "a failed write left a file");
  rmdir(dir);
  return TEST_RESULT();
}
