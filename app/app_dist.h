/* app_dist.h - emsolve on several MPI ranks (private to app/; MPI itself
 * is behind dist/em_dist.h).  docs/mpi.md tells the user's side.
 *
 *  - rank.c: each rank's place for the run: its log tag, its device (a rank
 *    beyond the node's GPUs computes on the host), its host threads; the
 *    exit code every rank returns (rank 0's).
 *  - psweep_dist.c: a design sweep's points shared among the ranks.
 *  - sweep_dist.c: one geometry's frequencies (uniform sweep) or initial
 *    samples (adaptive sweep) shared among the ranks, rank 0 collecting.
 *  - dist_mesh.c: a distributed solve's mesh, made by rank 0 and sent. */
#ifndef EM_APP_DIST_H
#define EM_APP_DIST_H

#include "app_run.h"

/* Message tags of the app (em_dist point to point). */
enum {
  EM_TAG_EXIT = 1,  /* rank 0 -> all: the exit code */
  EM_TAG_SWEEP = 2, /* design sweep: files and the end of a rank's share */
  EM_TAG_RUN = 3,   /* one run: frequency records, samples, files, errors */
  EM_TAG_TODO = 4,  /* one run: rank 0 -> peers, the frequencies left */
  EM_TAG_MESH = 5   /* a distributed solve: rank 0 -> all, its mesh */
};

/* ------------------------------------------------------------ rank.c */

/* After em_dist_init and the arguments: the log tag "[rank r] ", the device
 * of a rank without a GPU ("cpu"), the OpenMP threads of a rank (its node's
 * cores split among its ranks unless OMP_NUM_THREADS says), stdout of ranks
 * > 0 silenced (rank 0 speaks for the run); one log line per rank.  Nothing
 * on one rank. */
void em_app_rank_setup(em_app_args *a, em_log *log);
/* The end of main on every rank: rank 0 sends its exit code, the others
 * wait for it (idle) and return it, so mpirun exits with rank 0's code. */
int em_app_rank_finish(const em_dist *d, int code);
/* "[rank r, point k] " into log->tag (k < 0: "[rank r] "); one rank: "". */
void em_app_rank_tag(const em_dist *d, int point, em_log *log);

/* ------------------------------------------------------ dist_files.c */

/* A file to rank 0 as one message: head (head_bytes), then the file's
 * bytes; waits asleep until rank 0 has it. */
em_err em_app_send_file(const em_dist *d, const void *head, size_t head_bytes, const char *path,
                        int tag);
/* Rank 0: n bytes into path (temporary name + rename). */
em_err em_app_write_file(const char *path, const void *bytes, size_t n);
/* The next message with tag from any rank (mode: look, or wait asleep):
 * *buf (to free) of *n bytes from *from; *from = -1 when none (look). */
em_err em_app_recv_any(const em_dist *d, int tag, em_dist_wait_mode mode, char **buf, size_t *n,
                       int *from);

/* ------------------------------------------------------- dist_mesh.c */

/* A distributed solve (Solver/distributed): rank 0 sends its mesh to every
 * other rank (after meshing), each of them receives it (instead of
 * meshing: r->m.mesh, its statistics). */
em_err em_app_mesh_send(em_run *r);
em_err em_app_mesh_recv(em_run *r);

/* ----------------------------------------------------- psweep_dist.c */

/* A design sweep as the sharing sees it (callbacks into psweep.c). */
typedef struct em_psweep_share {
  int n_point;
  const char *out; /* the sweep's folder */
  void *ctx;
  /* points of one key share a mesh */
  void (*mesh_key)(void *ctx, int k, char *key, size_t cap);
  /* rank 0, with --resume: point k is complete in out/ */
  int (*complete)(void *ctx, int k);
  /* run point k into root/point_<k>/ (root: out, or this rank's scratch
     folder when it cannot see out/); *meshed: it meshed */
  em_err (*run)(void *ctx, int k, const char *root, const em_log *log, int *meshed);
} em_psweep_share;

/* Every rank runs points not complete, each handed to the next rank free
 * (em_dist_queue, in mesh-group order); a rank that cannot see
 * out/ (no shared file system) runs into a scratch folder and sends the
 * files to rank 0, which writes them into out/point_<k>/ (the marker
 * last).  On return every point is complete or failed in out/ (rank 0);
 * *n_meshed: the meshings of all ranks (rank 0). */
em_err em_psweep_share_run(const em_dist *d, const em_psweep_share *s, int resume,
                           const em_log *log, int *n_meshed);

/* ------------------------------------------------------ sweep_dist.c */

/* Whether this run shares its frequencies among ranks (a single run, not a
 * design sweep's point, on more than one rank). */
int em_sweep_dist_on(const em_run *r);
/* After the configuration: r->peer (a rank > 0 that computes for rank 0
 * and writes nothing of its own) or *idle (a rank with nothing to do in
 * this run: an eigen run, ranks beyond the frequencies or the three
 * initial adaptive samples). */
void em_sweep_dist_role(em_run *r, int *idle);
/* A peer's outputs go to a scratch folder of its own (r->out_dir), removed
 * by _close; no lock on the run's folder. */
em_err em_sweep_dist_open(em_run *r);
void em_sweep_dist_close(em_run *r, em_err err);
/* The uniform sweep on every rank: rank 0 journals and keeps what every
 * rank solved; done[] as em_sweep_run's loop. */
em_err em_sweep_dist_uniform(em_run *r, uint8_t *done);
/* The adaptive sweep's initial samples (f_start, f_stop, their middle):
 * peer p < 3 solves sample p and sends it (em_sweep_dist_sample_peer);
 * rank 0 takes it for sample k (*found) instead of solving. */
em_err em_sweep_dist_sample_peer(em_run *r);
em_err em_sweep_dist_sample_take(em_run *r, int k, double f, em_cplx *u, em_cplx *y, int *found);
/* Rank 0, after the greedy: receive the samples it did not take (read
 * from their files on --resume), so that no peer waits forever. */
em_err em_sweep_dist_sample_drain(em_run *r);

#endif
