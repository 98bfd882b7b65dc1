/* sweep_dist.c - one case's frequencies shared among MPI ranks (docs/mpi.md,
 * "One case on several ranks").
 *
 * Every rank opens and meshes the case itself (Gmsh meshes alike from the
 * same input; a fingerprint of the mesh and the unknowns travels with every
 * result and rank 0 refuses one of another mesh) and builds the same
 * problem.  Uniform sweep: rank 0 says which frequencies are left (its
 * journal, --resume), the j-th of them goes to rank j mod P' (P' = the
 * ranks that have one); a rank > 0 (a "peer") sends each frequency's record
 * - the journal's bytes of S, Zin, the references, the solver statistics and
 * the antenna figures, then its em_freq_result - as it completes, and at the end the files it wrote
 * for its frequencies (fields, line, far field); rank 0 journals each record
 * as it arrives and writes the run's files from them: byte for byte those
 * of a serial run.  Adaptive sweep: peers 1 and 2 solve the second and
 * third initial samples (f_stop, the middle) while rank 0 solves the first;
 * the greedy then goes on on rank 0, which takes their snapshots as its
 * own (and keeps them as sample files, for --resume). */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_adapt.h"
#include "app_dist.h"
#include "app_sweep.h"

enum { MSG_RECORD = 1, MSG_FILE = 2, MSG_SAMPLE = 3, MSG_DONE = 4 };

/* One message: this header, then its payload (a record, a file's bytes, a
 * sample's result, snapshot and measurements). */
typedef struct msg_head {
  int32_t type, index; /* frequency or sample index */
  uint64_t mesh;       /* the sender's mesh fingerprint */
  double f;            /* Hz */
  char name[64];       /* MSG_FILE: the file's name in the run's folder;
                          MSG_RECORD: the preconditioner's implementation */
} msg_head;

int em_sweep_dist_on(const em_run *r) {
  return em_dist_size(r->args->dist) > 1 && !r->dsolve;
}

/* Solver/distributed (docs/mpi.md): on shares every solve among the ranks,
 * off the frequencies, auto the solves when a uniform sweep has fewer
 * frequencies than ranks (the frequencies would leave ranks idle).  An
 * eigen run stays rank 0's. */
static int distributed(const em_run *r) {
  const em_run_config *c = &r->m.cfg;
  int P = em_dist_size(r->args->dist), mode = c->solve.distributed;
  if (P <= 1 || c->eigen || mode == 0) return 0;
  return mode == 1 || (!c->sweep_adaptive && c->n_freq < P);
}

/* The ranks with a part: an eigen run has one, and so has adaptive
 * refinement (Solver/adapt: its passes and the sweep on the mesh they
 * make, which the other ranks could only repeat); an adaptive sweep three
 * initial samples; a uniform sweep its frequencies. */
static int participants(const em_run *r) {
  int P = em_dist_size(r->args->dist);
  int want = r->m.cfg.eigen || em_app_adapt_on(r) ? 1
             : r->m.cfg.sweep_adaptive            ? 3
                                                  : r->m.cfg.n_freq;
  return P < want ? P : want;
}

void em_sweep_dist_role(em_run *r, int *idle) {
  *idle = 0;
  r->peer = 0;
  r->dsolve = distributed(r);
  if (r->dsolve) {
    if (em_dist_rank(r->args->dist) == 0)
      em_log_info(r->log,
                  "%d ranks: every solve shared among them (Solver/distributed %s): the unknowns "
                  "split by METIS parts of the mesh",
                  em_dist_size(r->args->dist), r->m.cfg.solve.distributed == 1 ? "on" : "auto");
    return;
  }
  if (!em_sweep_dist_on(r)) return;
  int rank = em_dist_rank(r->args->dist), n = participants(r);
  if (rank == 0) {
    em_log_info(r->log, "%d ranks: %s", em_dist_size(r->args->dist),
                r->m.cfg.eigen            ? "an eigen run is rank 0's alone"
                : em_app_adapt_on(r)      ? "adaptive refinement (Solver/adapt) is rank 0's alone"
                : r->m.cfg.sweep_adaptive ? "ranks 0-2 solve the adaptive sweep's initial samples, "
                                            "rank 0 the rest"
                                          : "the frequencies shared among them");
    return;
  }
  if (rank < n) {
    r->peer = 1;
    return;
  }
  *idle = 1;
  em_log_info(r->log, "nothing to do in this run (%d ranks have a part)", n);
}

em_err em_sweep_dist_open(em_run *r) {
  const char *tmp = getenv("TMPDIR");
  snprintf(r->out.dir, sizeof r->out.dir, "%s/emsolve-rank%d-XXXXXX", tmp && *tmp ? tmp : "/tmp",
           em_dist_rank(r->args->dist));
  EM_CHECK(mkdtemp(r->out.dir), EM_ERR_IO, "cannot make a scratch folder %s", r->out.dir);
  r->made_out_dir = 1;
  return EM_OK;
}

void em_sweep_dist_close(em_run *r, em_err err) {
  (void)err;
  DIR *dp = r->made_out_dir ? opendir(r->out.dir) : NULL;
  struct dirent *e;
  while (dp && (e = readdir(dp))) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", r->out.dir, e->d_name);
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) remove(path);
  }
  if (dp) closedir(dp);
  if (r->made_out_dir) rmdir(r->out.dir);
}

/* FNV-1a over the mesh and the unknowns: equal on ranks that meshed alike */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}

static uint64_t mesh_print(const em_run *r) {
  const em_mesh *m = r->m.mesh;
  uint64_t h = 0xcbf29ce484222325ULL;
  int64_t n[3] = {m->n_vert, m->n_tet, r->m.dofs->n_dof};
  h = fnv(h, n, sizeof n);
  h = fnv(h, m->xyz, sizeof *m->xyz * 3 * (size_t)m->n_vert);
  return fnv(h, m->tet, sizeof *m->tet * 4 * (size_t)m->n_tet);
}

static em_err check_mesh(const em_run *r, const msg_head *h, int from, uint64_t mine) {
  EM_CHECK(h->mesh == mine, EM_ERR_INTERNAL,
           "rank %d meshed case %s otherwise than rank 0 (mesh fingerprints %016llx and "
           "%016llx): its results are not this run's",
           from, em_case_path(r->m.cs), (unsigned long long)h->mesh, (unsigned long long)mine);
  return EM_OK;
}

/* ------------------------------------------------------ uniform sweep */

/* The rank of the j-th frequency left */
static int owner(int j, int n_part) {
  return j % n_part;
}

/* Rank 0: one message from a peer.  A record becomes frequency i's
 * results, journaled at once; a file goes into the run's folder. */
static em_err take(em_run *r, uint8_t *done, const char *buf, size_t n, int from, uint64_t mine,
                   const char *impl0, int *n_done_peers) {
  msg_head h;
  EM_CHECK(n >= sizeof h, EM_ERR_INTERNAL, "a short message from rank %d", from);
  memcpy(&h, buf, sizeof h);
  if (h.type == MSG_DONE) {
    (*n_done_peers)++;
    return EM_OK;
  }
  EM_TRY(check_mesh(r, &h, from, mine));
  if (h.type == MSG_FILE) {
    char path[1200];
    EM_CHECK(!strchr(h.name, '/') && h.name[0] != '.', EM_ERR_INTERNAL, "file name %s", h.name);
    snprintf(path, sizeof path, "%s/%s", r->out.dir, h.name);
    EM_TRY(em_app_write_file(path, buf + sizeof h, n - sizeof h));
    for (int i = 0; i < r->out.n_files; i++)
      if (!strcmp(r->out.files[i], h.name)) return EM_OK;
    return em_outdir_add(&r->out, h.name);
  }
  int i = h.index;
  size_t rec = em_journal_record(r, i, NULL);
  EM_CHECK(h.type == MSG_RECORD && i >= 0 && i < r->m.cfg.n_freq && h.f == r->m.cfg.freq[i] &&
               n - sizeof h == rec + sizeof(em_freq_result),
           EM_ERR_INTERNAL, "a malformed message from rank %d", from);
  em_journal_record_load(r, i, (const unsigned char *)buf + sizeof h);
  /* the rest of what the frequency gave (preconditioner, fields file, PML
     estimate): the summary's, as if solved here */
  memcpy(&r->res.fr[i], buf + sizeof h + rec, sizeof(em_freq_result));
  /* its one pointer, a name of the solver library: rank 0's own copy */
  r->res.fr[i].pc.impl = impl0 && !strcmp(impl0, h.name) ? impl0 : NULL;
  em_post_flag(&r->res, r->log, i);
  done[i] = 1;
  em_log_verbose(r->log, "frequency %d/%d (%.6g GHz) from rank %d", i + 1, r->m.cfg.n_freq,
                 h.f * 1e-9, from);
  return em_journal_write(r, done);
}

/* Rank 0: what has arrived (look), or until every peer is done (idle). */
static em_err drain(em_run *r, uint8_t *done, uint64_t mine, const char *impl0, int *n_done_peers,
                    int n_peer, int wait) {
  for (;;) {
    if (wait && *n_done_peers == n_peer) return EM_OK;
    char *buf = NULL;
    size_t n = 0;
    int from = -1;
    EM_TRY(em_app_recv_any(r->args->dist, EM_TAG_RUN, wait ? EM_DIST_IDLE : EM_DIST_LOOK, &buf, &n,
                           &from));
    if (from < 0) return EM_OK;
    em_err err = take(r, done, buf, n, from, mine, impl0, n_done_peers);
    em_free(&buf);
    EM_TRY(err);
  }
}

/* A peer's message to rank 0, sent without waiting: the buffer is kept in
 * q[] with its request until the end (they are few and small). */
typedef struct outbox {
  int n;
  char **buf;
  em_dist_req **req;
} outbox;

static em_err post(const em_dist *d, outbox *o, msg_head *h, const void *body, size_t n) {
  char *b = NULL;
  EM_TRY(em_calloc(&b, sizeof *h + n, 1, "a message to rank 0"));
  memcpy(b, h, sizeof *h);
  if (n) memcpy(b + sizeof *h, body, n);
  o->buf[o->n] = b;
  return em_dist_isend(d, b, sizeof *h + n, 0, EM_TAG_RUN, &o->req[o->n++]);
}

static em_err outbox_close(const em_dist *d, outbox *o) {
  em_err err = EM_OK;
  for (int i = 0; i < o->n; i++) {
    em_err e = em_dist_wait(d, &o->req[i], EM_DIST_IDLE);
    if (!err) err = e;
    em_free(&o->buf[i]);
  }
  em_free(&o->buf);
  em_free(&o->req);
  return err;
}

/* A peer's part: its frequencies, each record sent as it completes; then
 * the files it wrote (antenna.csv is rank 0's, from the records). */
static em_err peer_uniform(em_run *r, int n_part) {
  const em_dist *d = r->args->dist;
  int nf = r->m.cfg.n_freq, me = em_dist_rank(d), from;
  uint8_t *done = NULL; /* rank 0's: the frequencies solved already */
  unsigned char *rec = NULL;
  outbox o = {0};
  em_err err = em_calloc(&done, (size_t)nf, 1, "frequencies done");
  if (!err) err = em_dist_probe(d, 0, EM_TAG_TODO, EM_DIST_IDLE, &from, NULL);
  if (!err) err = em_dist_recv(d, done, (size_t)nf, 0, EM_TAG_TODO, NULL, NULL);
  if (!err)
    err = em_calloc(&rec, em_journal_record(r, 0, NULL) + sizeof(em_freq_result), 1,
                    "a frequency's record");
  if (!err) err = em_calloc(&o.buf, (size_t)nf + 65, sizeof *o.buf, "messages");
  if (!err) err = em_calloc(&o.req, (size_t)nf + 65, sizeof *o.req, "messages");
  uint64_t mine = 0;
  r->t_sweep = em_wtime(); /* the progress line's estimate */
  for (int i = 0, j = 0; i < nf && !err && !em_app_signal(); i++) {
    if (done[i] || owner(j++, n_part) != me) continue;
    err = em_run_solve_frequency(r, i);
    if (err) break;
    if (!mine) mine = mesh_print(r);
    msg_head h = {MSG_RECORD, i, mine, r->m.cfg.freq[i], ""};
    snprintf(h.name, sizeof h.name, "%s", r->res.fr[i].pc.impl ? r->res.fr[i].pc.impl : "");
    size_t n = em_journal_record(r, i, rec); /* then the whole result */
    memcpy(rec + n, &r->res.fr[i], sizeof(em_freq_result));
    err = post(d, &o, &h, rec, n + sizeof(em_freq_result));
    for (int k = 0; k < o.n && !err; k++) { /* progress while computing */
      int ok = 0;
      err = em_dist_test(d, &o.req[k], &ok);
    }
  }
  for (int k = 0; k < r->out.n_files && !err; k++) {
    if (!strcmp(r->out.files[k], "antenna.csv")) continue;
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", r->out.dir, r->out.files[k]);
    msg_head h = {MSG_FILE, -1, mine, 0, ""};
    snprintf(h.name, sizeof h.name, "%.63s", r->out.files[k]);
    err = em_app_send_file(d, &h, sizeof h, path, EM_TAG_RUN);
  }
  msg_head end = {MSG_DONE, -1, mine, 0, ""};
  if (!err) err = post(d, &o, &end, NULL, 0); /* also after Ctrl-C: rank 0 waits for it */
  em_err e = outbox_close(d, &o);
  em_free(&done);
  em_free(&rec);
  return err ? err : e;
}

/* Rank 0's part of the uniform sweep, the peers' records taken between its
 * own frequencies and after them. */
em_err em_sweep_dist_uniform(em_run *r, uint8_t *done) {
  const em_dist *d = r->args->dist;
  int nf = r->m.cfg.n_freq, n_part = participants(r);
  if (r->peer) return peer_uniform(r, n_part);
  for (int p = 1; p < n_part; p++) /* the frequencies left (--resume) */
    EM_TRY(em_dist_send(d, done, (size_t)nf, p, EM_TAG_TODO));
  int n_left = 0, peers_done = 0;
  for (int i = 0; i < nf; i++) n_left += !done[i];
  em_log_info(r->log, "%d frequencies to solve on %d ranks", n_left, n_part);
  r->t_sweep = em_wtime();
  uint64_t mine = mesh_print(r);
  const char *impl0 = NULL; /* the preconditioner's name, from a frequency of rank 0 */
  em_err err = EM_OK;
  for (int i = 0, j = 0; i < nf && !err && !em_app_signal(); i++) {
    if (done[i] || owner(j++, n_part) != 0) continue;
    err = em_run_solve_frequency(r, i);
    if (!err) done[i] = 1, impl0 = r->res.fr[i].pc.impl, err = em_journal_write(r, done);
    if (!err) err = drain(r, done, mine, impl0, &peers_done, n_part - 1, 0);
  }
  if (!err) err = drain(r, done, mine, impl0, &peers_done, n_part - 1, 1); /* the rest, asleep */
  EM_TRY(err);
  int n = 0;
  for (int i = 0; i < nf; i++) n += done[i];
  if (r->m.ff.enabled && !r->m.ff.planewave && n == nf) { /* every row, now that all are here */
    char path[1200];
    snprintf(path, sizeof path, "%s/antenna.csv", r->out.dir);
    EM_TRY(em_antenna_csv_write(path, nf, r->m.cfg.freq, r->res.ant));
  }
  if (n < nf && em_app_signal()) EM_TRY(em_app_check_signal()); /* EM_ERR_CANCELLED */
  EM_CHECK(n == nf, EM_ERR_INTERNAL,
           "interrupted after %d of %d frequencies; they are journaled in %s/%s: run the same "
           "command with --resume to finish",
           n, nf, r->out.dir, EM_JOURNAL_NAME);
  return EM_OK;
}

/* ----------------------------------------------------- adaptive sweep */

/* The initial samples of em_adaptive_run (model/adaptive.c): f_start,
 * f_stop, their middle - the same expressions, so the same doubles. */
static double initial_f(const em_run *r, int k) {
  double f0 = r->m.cfg.freq[0], f1 = r->m.cfg.freq[r->m.cfg.n_freq - 1];
  return k == 0 ? f0 : k == 1 ? f1 : 0.5 * (f0 + f1);
}

em_err em_sweep_dist_sample_peer(em_run *r) {
  const em_dist *d = r->args->dist;
  int k = em_dist_rank(d), np = r->m.setup.n_port;
  int ne = em_excite_count(em_post_excited(&r->m)); /* the solutions: Excitation/ports */
  int64_t nu = (int64_t)r->m.dofs->n_dof * ne, ny = (int64_t)np * np;
  double f = initial_f(r, k);
  size_t body = sizeof(em_freq_result) + sizeof(em_cplx) * (size_t)(nu + ny);
  char *buf = NULL;
  EM_TRY(em_calloc(&buf, sizeof(msg_head) + body, 1, "a sample for rank 0"));
  EM_TRY(em_calloc(&r->res.sample, (size_t)r->m.cfg.sweep_max_solves, sizeof *r->res.sample,
                   "samples"));
  em_cplx *u = (em_cplx *)(buf + sizeof(msg_head) + sizeof(em_freq_result)), *y = u + nu;
  em_log_info(r->log, "adaptive sweep: initial solve %d at %.6g GHz for rank 0", k + 1, f * 1e-9);
  r->res.n_samples = k; /* its index in rank 0's sweep (the first solve's log) */
  em_err err = em_run_solve_sample(r, f, &r->res.sample[k], u, y);
  if (!err) {
    msg_head h = {MSG_SAMPLE, k, mesh_print(r), f, ""};
    const char *impl = r->res.sample[k].pc.impl;
    snprintf(h.name, sizeof h.name, "%s", impl ? impl : "");
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, &r->res.sample[k], sizeof(em_freq_result));
    em_dist_req *q = NULL; /* rank 0 takes it after its own first solve */
    err = em_dist_isend(d, buf, sizeof h + body, 0, EM_TAG_RUN, &q);
    if (!err) err = em_dist_wait(d, &q, EM_DIST_IDLE);
  }
  em_free(&buf);
  return err;
}

/* Rank 0: sample k from peer k, into u, y and r->res.sample[k] (the sample
 * file written, as after a solve); *found = 0 for a sample no peer solves. */
em_err em_sweep_dist_sample_take(em_run *r, int k, double f, em_cplx *u, em_cplx *y, int *found) {
  *found = 0;
  if (!em_sweep_dist_on(r) || k < 1 || k >= participants(r) || f != initial_f(r, k)) return EM_OK;
  const em_dist *d = r->args->dist;
  int np = r->m.setup.n_port, from;
  int ne = em_excite_count(em_post_excited(&r->m)); /* the solutions: Excitation/ports */
  int64_t nu = (int64_t)r->m.dofs->n_dof * ne, ny = (int64_t)np * np;
  size_t n = 0, want = sizeof(msg_head) + sizeof(em_freq_result) + sizeof(em_cplx) * (nu + ny);
  char *buf = NULL;
  EM_TRY(em_dist_probe(d, k, EM_TAG_RUN, EM_DIST_IDLE, &from, &n));
  EM_CHECK(n == want, EM_ERR_INTERNAL, "rank %d sent a sample of %zu bytes (expected %zu)", k, n,
           want);
  EM_TRY(em_calloc(&buf, n, 1, "a sample from a rank"));
  em_err err = em_dist_recv(d, buf, n, k, EM_TAG_RUN, NULL, NULL);
  msg_head h;
  if (!err) memcpy(&h, buf, sizeof h);
  if (!err) err = check_mesh(r, &h, k, mesh_print(r));
  if (!err && (h.type != MSG_SAMPLE || h.index != k || h.f != f))
    err = EM_RAISE(EM_ERR_INTERNAL, "rank %d sent sample %d at %.17g Hz for %d at %.17g Hz", k,
                   h.index, h.f, k, f);
  if (!err) {
    memcpy(&r->res.sample[k], buf + sizeof h, sizeof(em_freq_result));
    const char *impl0 = r->res.sample[0].pc.impl; /* its one pointer: rank 0's own copy */
    r->res.sample[k].pc.impl = impl0 && !strcmp(impl0, h.name) ? impl0 : NULL;
    memcpy(u, buf + sizeof h + sizeof(em_freq_result), sizeof *u * (size_t)nu);
    memcpy(y, buf + sizeof h + sizeof(em_freq_result) + sizeof *u * (size_t)nu,
           sizeof *y * (size_t)ny);
    r->taken |= 1u << k;
    em_log_info(r->log, "adaptive sweep: solve %d at %.6g GHz by rank %d", k + 1, f * 1e-9, k);
    err = em_journal_sample_save(r, k, u, nu, y, ny);
  }
  em_free(&buf);
  if (!err) *found = 1;
  return err;
}

em_err em_sweep_dist_sample_drain(em_run *r) {
  if (!em_sweep_dist_on(r) || r->peer) return EM_OK;
  for (int k = 1; k < participants(r); k++) {
    if (r->taken & (1u << k)) continue;
    char *buf = NULL; /* read from a sample file (--resume): not needed */
    size_t n = 0;
    int from;
    EM_TRY(em_dist_probe(r->args->dist, k, EM_TAG_RUN, EM_DIST_IDLE, &from, &n));
    EM_TRY(em_calloc(&buf, n + 1, 1, "a sample from a rank"));
    em_err err = em_dist_recv(r->args->dist, buf, n, k, EM_TAG_RUN, NULL, NULL);
    em_free(&buf);
    EM_TRY(err);
  }
  return EM_OK;
}
