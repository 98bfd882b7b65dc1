/* out_path.c - where a run's writers put their files: the one place that
 * joins the output directory and a file's name (a staged run redirects it
 * here), and the list of what this run wrote. */
#include <stdio.h>

#include "em_post.h"

em_err em_outdir_path(const em_outdir *o, const char *name, char *path, size_t n) {
  int k = snprintf(path, n, "%s/%s", o->dir, name);
  EM_CHECK(k > 0 && (size_t)k < n, EM_ERR_INPUT, "output path %s/%s is too long", o->dir, name);
  return EM_OK;
}

em_err em_outdir_add(em_outdir *o, const char *name) {
  if (o->n_files == EM_OUTDIR_MAX_FILES) { /* listed no more, still written (issue 32) */
    o->n_unlisted++;
    return EM_OK;
  }
  snprintf(o->files[o->n_files++], sizeof o->files[0], "%.255s", name);
  return EM_OK;
}

void em_post_freq_tag(double f, char *buf, size_t n) {
  snprintf(buf, n, "%.9gGHz", f * 1e-9);
}
