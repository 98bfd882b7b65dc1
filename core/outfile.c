/* outfile.c - outputs written under a temporary name and renamed when whole. */
#include "em_core.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

em_err em_outfile_open(em_outfile *o, const char *path, int binary) {
  memset(o, 0, sizeof *o);
  size_t n = strlen(path) + 32;
  EM_TRY(em_strdup(&o->path, path));
  if (em_calloc(&o->tmp_path, n, 1, "temporary file name")) {
    em_free(&o->path);
    return em_error_trace(EM_ERR_MEMORY, __FILE__, __LINE__);
  }
  snprintf(o->tmp_path, n, "%s.tmp.%ld", path, (long)getpid());
  o->f = fopen(o->tmp_path, binary ? "wb" : "w");
  if (!o->f) {
    em_err e = EM_RAISE(EM_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    em_free(&o->path);
    em_free(&o->tmp_path);
    return e;
  }
  return EM_OK;
}

em_err em_outfile_commit(em_outfile *o) {
  EM_CHECK(o->f, EM_ERR_ARG, "output file %s is not open", o->path ? o->path : "?");
  int bad = ferror(o->f);
  bad |= fclose(o->f) != 0;
  o->f = NULL;
  if (bad) {
    em_err e = EM_RAISE(EM_ERR_IO, "error writing %s (disk full?)", o->path);
    em_outfile_abort(o);
    return e;
  }
  if (rename(o->tmp_path, o->path) != 0) {
    em_err e =
        EM_RAISE(EM_ERR_IO, "cannot rename %s to %s: %s", o->tmp_path, o->path, strerror(errno));
    em_outfile_abort(o);
    return e;
  }
  em_free(&o->path);
  em_free(&o->tmp_path);
  return EM_OK;
}

void em_outfile_abort(em_outfile *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (o->tmp_path) remove(o->tmp_path);
  em_free(&o->path);
  em_free(&o->tmp_path);
}

em_err em_mkdir_p(const char *path) {
  char buf[4096];
  size_t n = strlen(path);
  EM_CHECK(n > 0 && n < sizeof buf, EM_ERR_ARG, "bad directory name '%s'", path);
  memcpy(buf, path, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (buf[i] == '/' || buf[i] == '\0') {
      char c = buf[i];
      buf[i] = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return EM_RAISE(EM_ERR_IO, "cannot create directory %s: %s", buf, strerror(errno));
      buf[i] = c;
    }
  }
  struct stat st;
  EM_CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode), EM_ERR_IO,
           "%s exists and is not a directory", path);
  return EM_OK;
}
