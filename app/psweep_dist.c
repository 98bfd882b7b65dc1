/* psweep_dist.c - a design sweep's points shared among MPI ranks
 * (docs/mpi.md, "Design sweeps").
 *
 * Rank 0 decides which points are left (--resume: those without a matching
 * marker); they are ordered by mesh group (a group's points follow each
 * other, so a rank that takes several of them meshes once) and handed out
 * one at a time to the next rank free (em_dist_queue: a point that takes
 * longer, a larger geometry, leaves its rank fewer).
 * Each rank runs its points as a serial sweep would, into OUT/point_<k>/
 * when it sees OUT (a shared file system), else into a scratch folder of its
 * own whose files it sends to rank 0 when its share is done; rank 0 writes
 * them into OUT/point_<k>/, the marker last.  Rank 0 then collects the
 * tables from the folders exactly as after --jobs (psweep.c). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app_dist.h"

enum { MSG_FILE = 1, MSG_END = 2, NAME_LEN = 256 };

/* One message: this header, then the file's bytes (MSG_FILE). */
typedef struct msg_head {
  int32_t type, point, meshed, pad;
  uint64_t size;
  char name[NAME_LEN]; /* relative to the point's folder */
} msg_head;

/* h = (h ^ byte) * 0x100000001b3 (FNV-1a) */
static uint64_t key_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return h;
}

/* order[0 .. *m): the points left, grouped by mesh key (groups in order of
 * first appearance among all points, points in index order within). */
static em_err share_order(const em_psweep_share *s, const uint8_t *todo, int *order, int *m) {
  uint64_t *h = NULL;
  int *first = NULL;
  em_err err = em_calloc(&h, (size_t)s->n_point, sizeof *h, "mesh keys");
  if (!err) err = em_calloc(&first, (size_t)s->n_point, sizeof *first, "mesh groups");
  char key[2048];
  for (int k = 0; k < s->n_point && !err; k++) {
    s->mesh_key(s->ctx, k, key, sizeof key);
    h[k] = key_hash(key);
    first[k] = k;
    for (int j = 0; j < k; j++)
      if (h[j] == h[k]) {
        first[k] = first[j];
        break;
      }
  }
  *m = 0;
  for (int g = 0; g < s->n_point && !err; g++) /* group g: the points whose first is g */
    for (int k = g; k < s->n_point; k++)
      if (first[k] == g && todo[k]) order[(*m)++] = k;
  em_free(&h);
  em_free(&first);
  return err;
}

/* Whether every rank sees OUT: rank 0 leaves a token file there, the others
 * look for it.  *see: this rank does. */
static em_err probe_out(const em_dist *d, const char *out, int *see) {
  char path[1200] = "";
  if (em_dist_rank(d) == 0) {
    snprintf(path, sizeof path, "%s/.emsolve-share-%ld-%ld", out, (long)getpid(), (long)time(NULL));
    FILE *f = fopen(path, "w");
    EM_CHECK(f, EM_ERR_IO, "cannot write in the sweep's folder %s", out);
    fclose(f);
  }
  EM_TRY(em_dist_bcast(d, path, sizeof path, EM_DIST_BYTE, 0));
  *see = access(path, F_OK) == 0;
  const char *force = getenv("EMSOLVE_DIST_SHIP"); /* tests: as without a shared file system */
  if (force && atoi(force) && em_dist_rank(d) > 0) *see = 0;
  EM_TRY(em_dist_barrier(d));
  if (em_dist_rank(d) == 0) remove(path);
  return EM_OK;
}

/* The scratch folder and what it holds (two levels: point_<k>/plots/). */
static void rm_tree(const char *dir, int depth) {
  DIR *dp = depth < 4 ? opendir(dir) : NULL;
  struct dirent *e;
  while (dp && (e = readdir(dp))) {
    char path[1600];
    struct stat st;
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (!lstat(path, &st) && S_ISDIR(st.st_mode))
      rm_tree(path, depth + 1);
    else
      remove(path);
  }
  if (dp) closedir(dp);
  rmdir(dir);
}

static em_err send_file(const em_dist *d, int k, const char *dir, const char *rel) {
  char path[1600];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  struct stat st;
  EM_CHECK(stat(path, &st) == 0, EM_ERR_IO, "cannot read %s", path);
  msg_head h = {MSG_FILE, k, 0, 0, (uint64_t)st.st_size, ""};
  snprintf(h.name, sizeof h.name, "%.255s", rel);
  return em_app_send_file(d, &h, sizeof h, path, EM_TAG_SWEEP);
}

/* Every file under dir (one level of subfolders: plots/), the point's
 * marker (point.done / point.failed) last. */
static em_err send_tree(const em_dist *d, int k, const char *dir, const char *sub, int markers) {
  char path[1400];
  snprintf(path, sizeof path, "%s%s%s", dir, sub[0] ? "/" : "", sub);
  DIR *dp = opendir(path);
  if (!dp) return EM_OK; /* a point that failed before making its folder */
  em_err err = EM_OK;
  struct dirent *e;
  while (!err && (e = readdir(dp))) {
    char rel[NAME_LEN + 8], full[1700];
    if (e->d_name[0] == '.') continue; /* ., .., the lock, temporary files */
    snprintf(rel, sizeof rel, "%s%s%.*s", sub, sub[0] ? "/" : "", NAME_LEN - 2, e->d_name);
    snprintf(full, sizeof full, "%s/%s", dir, rel);
    struct stat st;
    if (stat(full, &st)) continue;
    int marker =
        !sub[0] && (!strcmp(e->d_name, "point.done") || !strcmp(e->d_name, "point.failed"));
    if (S_ISDIR(st.st_mode) && !sub[0] && !markers)
      err = send_tree(d, k, dir, e->d_name, 0);
    else if (S_ISREG(st.st_mode) && marker == markers && strlen(rel) < NAME_LEN)
      err = send_file(d, k, dir, rel);
  }
  closedir(dp);
  return err;
}

/* Rank 0: a file of point k from another rank into OUT/point_<k>/; the
 * first one of a point clears the point's old marker. */
static em_err write_file(const char *out, const msg_head *h, const char *bytes, uint8_t *began) {
  char dir[1200], path[1600];
  snprintf(dir, sizeof dir, "%s/point_%d", out, h->point);
  EM_CHECK(!strstr(h->name, "..") && h->name[0] != '/', EM_ERR_INTERNAL, "file name %s", h->name);
  if (!began[h->point]) {
    EM_TRY(em_mkdir_p(dir));
    snprintf(path, sizeof path, "%s/point.done", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/point.failed", dir);
    remove(path);
    began[h->point] = 1;
  }
  snprintf(path, sizeof path, "%s/%s", dir, h->name);
  char *slash = strrchr(path, '/');
  *slash = '\0';
  EM_TRY(em_mkdir_p(path));
  *slash = '/';
  return em_app_write_file(path, bytes, h->size);
}

/* Rank 0: until every other rank said its share is done. */
static em_err collect(const em_dist *d, const em_psweep_share *s, int *n_meshed) {
  uint8_t *began = NULL;
  char *buf = NULL;
  EM_TRY(em_calloc(&began, (size_t)s->n_point, 1, "points received"));
  em_err err = EM_OK;
  for (int ends = 0; ends < em_dist_size(d) - 1 && !err;) {
    int from;
    size_t n;
    err = em_app_recv_any(d, EM_TAG_SWEEP, EM_DIST_IDLE, &buf, &n, &from);
    msg_head h;
    if (!err && n < sizeof h) err = EM_RAISE(EM_ERR_INTERNAL, "a short message from rank %d", from);
    if (!err) memcpy(&h, buf, sizeof h);
    if (!err && h.type == MSG_END) *n_meshed += h.meshed, ends++;
    if (!err && h.type == MSG_FILE) {
      if (h.point < 0 || h.point >= s->n_point || h.size != n - sizeof h)
        err = EM_RAISE(EM_ERR_INTERNAL, "a malformed file message from rank %d", from);
      else
        err = write_file(s->out, &h, buf + sizeof h, began);
    }
    em_free(&buf);
  }
  em_free(&began);
  return err;
}

em_err em_psweep_share_run(const em_dist *d, const em_psweep_share *s, int resume,
                           const em_log *log, int *n_meshed) {
  int P = em_dist_size(d), r = em_dist_rank(d), m = 0, n_mine = 0, see = 1, meshed = 0;
  uint8_t *todo = NULL;
  int *order = NULL, *mine = NULL;
  em_dist_queue *q = NULL;
  char scratch[1100] = "";
  em_err err = EM_OK;
  *n_meshed = 0;
  EM_TRY_GOTO(err, em_calloc(&todo, (size_t)s->n_point, 1, "points left"), done);
  EM_TRY_GOTO(err, em_calloc(&order, (size_t)s->n_point, sizeof *order, "points order"), done);
  EM_TRY_GOTO(err, em_calloc(&mine, (size_t)s->n_point, sizeof *mine, "this rank's points"), done);
  for (int k = 0; k < s->n_point && r == 0; k++) todo[k] = !(resume && s->complete(s->ctx, k));
  EM_TRY_GOTO(err, em_dist_bcast(d, todo, (size_t)s->n_point, EM_DIST_BYTE, 0), done);
  EM_TRY_GOTO(err, share_order(s, todo, order, &m), done);
  EM_TRY_GOTO(err, probe_out(d, s->out, &see), done);
  if (r == 0)
    em_log_info(log,
                "design sweep on %d ranks: %d of %d points to solve, each to the next rank free", P,
                m, s->n_point);
  if (!see) { /* no shared file system: a scratch folder, sent to rank 0 */
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/emsolve-rank%d-XXXXXX", tmp && *tmp ? tmp : "/tmp", r);
    if (!mkdtemp(scratch)) {
      err = EM_RAISE(EM_ERR_IO, "cannot make a scratch folder %s", scratch);
      scratch[0] = '\0';
      goto done;
    }
    em_log_info(log, "%s is not visible here: points run in %s and go to rank 0", s->out, scratch);
  }
  /* the points in group order, each to the next rank that asks (rank 0
     serves from a thread: no other MPI on its main thread meanwhile) */
  EM_TRY_GOTO(err, em_dist_queue_create(d, m, &q), done);
  for (;;) {
    int j = -1, mk = 0;
    EM_TRY_GOTO(err, em_dist_queue_next(q, &j), done);
    if (j < 0) break;
    em_log lg = *log;
    em_app_rank_tag(d, order[j], &lg);
    EM_TRY_GOTO(err, s->run(s->ctx, order[j], see ? s->out : scratch, &lg, &mk), done);
    meshed += mk;
    mine[n_mine++] = order[j];
  }
  EM_TRY_GOTO(err, em_dist_queue_destroy(&q), done);
  char list[256] = "";
  for (int j = 0, len = 0; j < n_mine && len < 200; j++)
    len += snprintf(list + len, sizeof list - (size_t)len, "%s%d", j ? ", " : "", mine[j]);
  em_log_info(log, "solved %d points (%s%s), %d meshings", n_mine, list, n_mine ? "" : "none",
              meshed);
  if (!see) /* every file of each point, then its marker */
    for (int j = 0; j < n_mine && !err; j++) {
      char dir[1200];
      snprintf(dir, sizeof dir, "%s/point_%d", scratch, mine[j]);
      err = send_tree(d, mine[j], dir, "", 0);
      if (!err) err = send_tree(d, mine[j], dir, "", 1);
    }
  if (err) goto done;
  if (r > 0) {
    msg_head h = {MSG_END, -1, meshed, 0, 0, ""};
    em_dist_req *q = NULL; /* rank 0 may still be computing: wait asleep */
    EM_TRY_GOTO(err, em_dist_isend(d, &h, sizeof h, 0, EM_TAG_SWEEP, &q), done);
    EM_TRY_GOTO(err, em_dist_wait(d, &q, EM_DIST_IDLE), done);
  } else {
    *n_meshed = meshed;
    EM_TRY_GOTO(err, collect(d, s, n_meshed), done);
  }
done:
  if (scratch[0]) rm_tree(scratch, 0);
  em_free(&todo);
  em_free(&order);
  em_free(&mine);
  return err; /* a queue left by an error: the run stops every rank (main.c) */
}
