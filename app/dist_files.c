/* dist_files.c - files that travel from a rank to rank 0 (a rank without
 * the run's folder on its file system): one message, a header the caller
 * defines and the file's bytes; rank 0 writes them through a temporary name
 * and a rename, as every output. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app_dist.h"

em_err em_app_send_file(const em_dist *d, const void *head, size_t head_bytes, const char *path,
                        int tag) {
  FILE *f = fopen(path, "rb");
  EM_CHECK(f, EM_ERR_IO, "cannot read %s to send it to rank 0", path);
  struct stat st;
  char *buf = NULL;
  size_t n = 0;
  em_err err = fstat(fileno(f), &st) ? EM_RAISE(EM_ERR_IO, "cannot stat %s", path) : EM_OK;
  if (!err) n = (size_t)st.st_size;
  if (!err) err = em_calloc(&buf, head_bytes + n + 1, 1, "a file for rank 0");
  if (!err && fread(buf + head_bytes, 1, n, f) != n)
    err = EM_RAISE(EM_ERR_IO, "cannot read %s to send it to rank 0", path);
  fclose(f);
  if (!err) {
    memcpy(buf, head, head_bytes);
    em_dist_req *q = NULL; /* rank 0 may still be computing: wait asleep */
    err = em_dist_isend(d, buf, head_bytes + n, 0, tag, &q);
    if (!err) err = em_dist_wait(d, &q, EM_DIST_IDLE);
  }
  em_free(&buf);
  return err;
}

em_err em_app_write_file(const char *path, const void *bytes, size_t n) {
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 1));
  if (n && fwrite(bytes, 1, n, o.f) != n) {
    em_outfile_abort(&o);
    return EM_RAISE(EM_ERR_IO, "cannot write %s", path);
  }
  return em_outfile_commit(&o);
}

em_err em_app_recv_any(const em_dist *d, int tag, em_dist_wait_mode mode, char **buf, size_t *n,
                       int *from) {
  *buf = NULL;
  *n = 0;
  EM_TRY(em_dist_probe(d, EM_DIST_ANY, tag, mode, from, n));
  if (*from < 0) return EM_OK;
  EM_TRY(em_calloc(buf, *n + 1, 1, "a message"));
  em_err err = em_dist_recv(d, *buf, *n, *from, tag, NULL, NULL);
  if (err) em_free(buf);
  return err;
}
