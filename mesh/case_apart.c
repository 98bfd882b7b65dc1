/* case_apart.c - the surfaces, then the volumes, of a .geo case meshed
 * apart: each entity alone in a process of its own, several at once,
 * reproducibly (issue 24).
 *
 * Gmsh 4.8 meshes the surfaces one after the other and the connected
 * volumes of a model together, on one thread, and its Delaunay refinement
 * slows as the mesh grows (the DRA at 1.36M order-3 unknowns: 78k tets at
 * 53-75k tets/s).  Its parallel paths do not give the same mesh twice: HXT
 * orders the points by their memory address (Gmsh2Hxt's std::set<MVertex
 * *>, fixed in Gmsh 4.12), and surfaces meshed on several threads come out
 * different from run to run.  A surface's triangles depend only on its
 * curves' mesh and a volume's tets only on its surfaces' triangles, so
 * once the curves are meshed (serially, as before) each surface, and then
 * each volume, is meshed alone in a fork()ed copy of the process - the one
 * Gmsh instance copied with it - with the other entities of its dimension
 * hidden (Mesh.MeshOnlyVisible), and the child hands back its new nodes and
 * elements through an unlinked temporary file.  The parent adds them to
 * its own model in the order of the entity tags, with node tags numbered
 * after the ones it has, so the mesh is the same whatever the number of
 * processes (one included) and whichever child ends first; --save-mesh
 * and the second-order nodes work on that model as before.
 *
 * Meshing a volume alone gives another mesh than meshing it with its
 * neighbours (another Delaunay of other points), equally valid and
 * conforming: the shared surfaces keep their triangles.  Should a child
 * change its boundary (a Steiner point on a surface, which its neighbour
 * would not see), fail, or crash, the parent meshes all entities of that
 * dimension together instead, as Mesh/volume_meshing together does: the
 * same inputs fail the same way, so the choice is reproducible too.  A
 * child stopped by SIGINT or SIGTERM (the user's, delivered to the whole
 * process group when emsolve has no handler) ends the meshing with an
 * error instead. */
#include <errno.h>
#include <gmshc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "case_impl.h"

enum { TRI = 2, TET = 4 }; /* Gmsh's 3-node triangle, 4-node tetrahedron */
enum { VOL_OK = 0, VOL_BOUNDARY = 1, VOL_GMSH = 2, VOL_EMPTY = 3 };

/* What a child reports, after this header: size_t node tags[n_node],
 * double xyz[3 n_node], double uv[n_par], size_t element nodes[per n_tet],
 * char messages[n_msg] (per = 3 for triangles, 4 for tets; n_par = 2
 * n_node on a surface: its nodes' parameters, 0 in a volume). */
typedef struct {
  int64_t status, n_node, n_tet, n_msg, n_par;
  double seconds;
} vol_head;

/* One entity's job: its child and, once read, its result. */
typedef struct {
  int dim, tag;
  double work; /* its bounding box's volume (area): the biggest start first */
  pid_t pid;
  FILE *f;
  int state; /* 0 waiting, 1 running, 2 done */
  int wstatus;
  vol_head h;
  size_t *node, *tet;
  double *xyz, *par;
  char *msg;
} vol_job;

/* Nodes Gmsh holds on the entities of dimension < below. */
static size_t boundary_nodes(int below, int *ierr) {
  size_t total = 0;
  for (int dim = 0; dim < below && !*ierr; dim++) {
    size_t *tags = NULL, n = 0, nx = 0, np = 0;
    double *x = NULL, *p = NULL;
    gmshModelMeshGetNodes(&tags, &n, &x, &nx, &p, &np, dim, -1, 0, 0, ierr);
    total += n;
    gmshFree(tags), gmshFree(x), gmshFree(p);
  }
  return total;
}

/* Gmsh's messages since mark, one per line, for the parent's log. */
static char *messages_since(size_t mark) {
  char **log = NULL;
  size_t n = 0, len = 0;
  int ierr = 0;
  gmshLoggerGet(&log, &n, &ierr);
  if (ierr) return NULL;
  for (size_t i = mark; i < n; i++) len += strlen(log[i]) + 1;
  char *out = malloc(len + 1), *p = out;
  for (size_t i = mark; out && i < n; i++) p += sprintf(p, "%s\n", log[i]);
  if (out) *p = '\0';
  for (size_t i = 0; i < n; i++) gmshFree(log[i]);
  gmshFree(log);
  return out;
}

/* Hide every surface (not its curves).  Gmsh counts a surface meshed only
 * when its own mesher made it (GFace::meshStatistics), not when its
 * triangles were added (gmshModelMeshAddElementsByType), so with
 * Mesh.MeshOnlyVisible the volume mesher then leaves hidden surfaces as
 * they are instead of meshing them again; it still reads their triangles. */
static void hide_surfaces(int *ierr) {
  int *dt = NULL;
  size_t n = 0;
  gmshModelGetEntities(&dt, &n, 2, ierr);
  for (size_t k = 0; !*ierr && k + 1 < n; k += 2) gmshModelSetVisibility(dt + k, 2, 0, 0, ierr);
  gmshFree(dt);
}

/* In the child: mesh entity (dim, tag) alone and write the result to f. */
static int child_mesh(int dim, int tag, size_t mark, FILE *f) {
  vol_head h = {0};
  int ierr = 0, *dt = NULL, type = dim == 2 ? TRI : TET, per = dim == 2 ? 3 : 4;
  size_t n_dt = 0, *node = NULL, n_node = 0, n_xyz = 0, n_par = 0, *et = NULL, n_et = 0, *tn = NULL,
         n_tn = 0;
  double *xyz = NULL, *par = NULL, t0 = em_wtime();
  size_t before = boundary_nodes(dim, &ierr);
  gmshModelGetEntities(&dt, &n_dt, dim, &ierr);
  for (size_t k = 0; !ierr && k + 1 < n_dt; k += 2)
    if (dt[k + 1] != tag) gmshModelSetVisibility(dt + k, 2, 0, 0, &ierr);
  gmshFree(dt);
  if (!ierr && dim == 3) hide_surfaces(&ierr);
  if (!ierr) gmshOptionSetNumber("Mesh.MeshOnlyVisible", 1, &ierr);
  /* Gmsh renumbers all nodes after meshing: the boundary's tags must stay
     the parent's */
  if (!ierr) gmshOptionSetNumber("Mesh.Renumber", 0, &ierr);
  if (!ierr) gmshModelMeshGenerate(dim, &ierr);
  if (ierr) {
    h.status = VOL_GMSH;
  } else if (boundary_nodes(dim, &ierr) != before || ierr) {
    h.status = ierr ? VOL_GMSH : VOL_BOUNDARY;
  } else {
    gmshModelMeshGetNodes(&node, &n_node, &xyz, &n_xyz, &par, &n_par, dim, tag, 0, dim == 2, &ierr);
    if (!ierr) gmshModelMeshGetElementsByType(type, &et, &n_et, &tn, &n_tn, tag, 0, 1, &ierr);
    h.status = ierr ? VOL_GMSH
               : n_et == 0 || n_xyz != 3 * n_node || n_tn != (size_t)per * n_et ||
                       (dim == 2 && n_par != 2 * n_node)
                   ? VOL_EMPTY
                   : VOL_OK;
  }
  char *msg = messages_since(mark);
  if (h.status == VOL_OK)
    h.n_node = (int64_t)n_node, h.n_tet = (int64_t)n_et, h.n_par = dim == 2 ? (int64_t)n_par : 0;
  h.n_msg = msg ? (int64_t)strlen(msg) : 0;
  h.seconds = em_wtime() - t0;
  int ok = fwrite(&h, sizeof h, 1, f) == 1;
  if (ok && h.status == VOL_OK) {
    ok = fwrite(node, sizeof *node, n_node, f) == n_node &&
         fwrite(xyz, sizeof *xyz, 3 * n_node, f) == 3 * n_node &&
         fwrite(par, sizeof *par, (size_t)h.n_par, f) == (size_t)h.n_par &&
         fwrite(tn, sizeof *tn, (size_t)per * n_et, f) == (size_t)per * n_et;
  }
  if (ok && h.n_msg) ok = fwrite(msg, 1, (size_t)h.n_msg, f) == (size_t)h.n_msg;
  ok = ok && fflush(f) == 0;
  return ok ? 0 : 1;
}

/* Start entity j's child; its result goes to an unlinked temporary file.
 * 0, or errno when there is no file or no process (the caller then meshes
 * in this process). */
static int start_child(vol_job *j, size_t mark) {
  j->f = tmpfile();
  if (!j->f) return errno ? errno : EIO;
  fflush(NULL); /* nothing buffered twice */
  j->pid = fork();
  if (j->pid < 0) return errno ? errno : EAGAIN;
  if (j->pid == 0) _exit(child_mesh(j->dim, j->tag, mark, j->f)); /* no atexit handlers */
  j->state = 1;
  return 0;
}

/* The child's result, read back from its file. */
static em_err read_result(vol_job *j) {
  vol_head *h = &j->h;
  int per = j->dim == 2 ? 3 : 4;
  rewind(j->f);
  EM_CHECK(fread(h, sizeof *h, 1, j->f) == 1 && h->n_node >= 0 && h->n_tet >= 0 && h->n_msg >= 0 &&
               h->n_par >= 0,
           EM_ERR_IO, "meshing entity (%d, %d) apart: its result is unreadable", j->dim, j->tag);
  size_t nn = (size_t)h->n_node, nt = (size_t)h->n_tet, np = (size_t)h->n_par;
  EM_TRY(em_calloc(&j->node, nn + 1, sizeof *j->node, "entity nodes"));
  EM_TRY(em_calloc(&j->xyz, 3 * nn + 1, sizeof *j->xyz, "entity nodes"));
  EM_TRY(em_calloc(&j->par, np + 1, sizeof *j->par, "entity nodes"));
  EM_TRY(em_calloc(&j->tet, (size_t)per * nt + 1, sizeof *j->tet, "entity elements"));
  EM_TRY(em_calloc(&j->msg, (size_t)h->n_msg + 1, 1, "Gmsh messages"));
  EM_CHECK(fread(j->node, sizeof *j->node, nn, j->f) == nn &&
               fread(j->xyz, sizeof *j->xyz, 3 * nn, j->f) == 3 * nn &&
               fread(j->par, sizeof *j->par, np, j->f) == np &&
               fread(j->tet, sizeof *j->tet, (size_t)per * nt, j->f) == (size_t)per * nt &&
               fread(j->msg, 1, (size_t)h->n_msg, j->f) == (size_t)h->n_msg,
           EM_ERR_IO, "meshing entity (%d, %d) apart: its result is truncated", j->dim, j->tag);
  return EM_OK;
}

/* Wait for the running children; returns when one has ended. */
static void reap_one(vol_job *job, int n) {
  for (;;) {
    for (int i = 0; i < n; i++) {
      if (job[i].state != 1) continue;
      pid_t r = waitpid(job[i].pid, &job[i].wstatus, WNOHANG);
      if (r == job[i].pid || (r < 0 && errno != EINTR)) {
        if (r < 0) job[i].wstatus = -1;
        job[i].state = 2;
        return;
      }
    }
    struct timespec ts = {0, 1000000}; /* 1 ms: the children run for 0.01-10 s */
    nanosleep(&ts, NULL);
  }
}

static int cmp_job(const void *a, const void *b) {
  const vol_job *x = *(vol_job *const *)a, *y = *(vol_job *const *)b;
  if (x->work != y->work) return x->work > y->work ? -1 : 1;
  return (x->tag > y->tag) - (x->tag < y->tag);
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* Entity j's nodes and elements into the parent's model: its new nodes
 * take the tags next, next + 1, ... in the child's order. */
static em_err add_entity(em_case *c, vol_job *j, size_t *next) {
  size_t nn = (size_t)j->h.n_node, per = j->dim == 2 ? 3 : 4, ne = per * (size_t)j->h.n_tet;
  size_t *map = NULL, *tags = NULL;
  em_err err = EM_OK;
  int ierr = 0;
  EM_TRY(em_calloc(&map, 2 * nn + 1, sizeof *map, "node map"));
  EM_TRY_GOTO(err, em_calloc(&tags, nn + 1, sizeof *tags, "node tags"), done);
  for (size_t i = 0; i < nn; i++) {
    tags[i] = *next + i;
    map[2 * i] = j->node[i], map[2 * i + 1] = tags[i];
  }
  qsort(map, nn, 2 * sizeof *map, cmp_size);
  for (size_t k = 0; k < ne; k++) { /* child tag -> ours; a boundary node keeps its tag */
    size_t *f = nn ? bsearch(&j->tet[k], map, nn, 2 * sizeof *map, cmp_size) : NULL;
    if (f) j->tet[k] = f[1];
  }
  gmshModelMeshAddNodes(j->dim, j->tag, tags, nn, j->xyz, 3 * nn, j->par, (size_t)j->h.n_par,
                        &ierr);
  if (!ierr)
    gmshModelMeshAddElementsByType(j->tag, j->dim == 2 ? TRI : TET, NULL, 0, j->tet, ne, &ierr);
  if (ierr)
    err = EM_GMSH_RAISE(c->log_mark, "case '%s': cannot add the mesh of entity (%d, %d)", c->path,
                        j->dim, j->tag);
  *next += nn;
done:
  em_free(&map);
  em_free(&tags);
  return err;
}

/* Why a child did not deliver, or NULL when it did. */
static const char *failure(const vol_job *j) {
  if (j->wstatus == -1) return "lost";
  if (WIFSIGNALED(j->wstatus)) return "crashed";
  if (!WIFEXITED(j->wstatus) || WEXITSTATUS(j->wstatus)) return "could not write its result";
  switch (j->h.status) {
    case VOL_OK:
      return NULL;
    case VOL_BOUNDARY:
      return "changed its boundary (a Steiner point on a surface)";
    case VOL_EMPTY:
      return "made no tetrahedra";
    default:
      return "failed";
  }
}

/* The largest node tag Gmsh holds. */
static size_t max_node_tag(int *ierr) {
  size_t *tags = NULL, n = 0, nx = 0, np = 0, m = 0;
  double *x = NULL, *p = NULL;
  gmshModelMeshGetNodes(&tags, &n, &x, &nx, &p, &np, -1, -1, 0, 0, ierr);
  for (size_t i = 0; i < n; i++)
    if (tags[i] > m) m = tags[i];
  gmshFree(tags), gmshFree(x), gmshFree(p);
  return m;
}

static void forward(const em_log *log, const vol_job *j) {
  char *line = j->msg;
  while (line && *line) {
    char *end = strchr(line, '\n');
    if (end) *end = '\0';
    if (!strncmp(line, "Warning: ", 9))
      em_log_warn(log, "gmsh (%s %d): %s", j->dim == 2 ? "surface" : "volume", j->tag, line + 9);
    else
      em_log_verbose(log, "gmsh (%s %d): %s", j->dim == 2 ? "surface" : "volume", j->tag, line);
    line = end ? end + 1 : NULL;
  }
}

static em_err mesh_apart(em_case *c, int dim, const em_log *log, int *done) {
  em_err err = EM_OK;
  int *dt = NULL, ierr = 0, n = 0, procs = c->omp_threads > 0 ? c->omp_threads : 1;
  size_t n_dt = 0, mark = c->log_mark;
  vol_job *job = NULL, **order = NULL;
  *done = 0;
  const char *what = dim == 2 ? "surface" : "volume";
  gmshModelGetEntities(&dt, &n_dt, dim, &ierr);
  if (ierr) return EM_GMSH_RAISE(mark, "case '%s': cannot list its %ss", c->path, what);
  n = (int)(n_dt / 2);
  if (n < 2) { /* one entity: the same as meshing together */
    gmshFree(dt);
    return EM_OK;
  }
  EM_TRY_GOTO(err, em_calloc(&job, (size_t)n, sizeof *job, "mesh jobs"), done);
  EM_TRY_GOTO(err, em_calloc(&order, (size_t)n, sizeof *order, "mesh jobs"), done);
  for (int i = 0; i < n; i++) {
    double b[6] = {0};
    job[i].dim = dim, job[i].tag = dt[2 * i + 1];
    gmshModelGetBoundingBox(dim, job[i].tag, b, b + 1, b + 2, b + 3, b + 4, b + 5, &ierr);
    double x = b[3] - b[0], y = b[4] - b[1], z = b[5] - b[2];
    job[i].work = ierr ? 0 : dim == 2 ? x * y + y * z + z * x : x * y * z;
    ierr = 0;
    order[i] = &job[i];
  }
  qsort(order, (size_t)n, sizeof *order, cmp_job); /* the largest first: the shortest end */
  {
    size_t log_n = 0;
    char **lg = NULL;
    gmshLoggerGet(&lg, &log_n, &ierr); /* children report Gmsh's messages after this */
    for (size_t i = 0; i < log_n; i++) gmshFree(lg[i]);
    gmshFree(lg);
    if (ierr) log_n = 0, ierr = 0;
    double t0 = em_wtime();
    int started = 0, running = 0, no_start = 0;
    while (started < n || running > 0) {
      while (started < n && running < procs && !no_start) {
        vol_job *j = order[started++];
        no_start = start_child(j, log_n);
        if (no_start)
          em_log_verbose(log, "  no process for %s %d (%s): all %ss meshed together instead", what,
                         j->tag, strerror(no_start), what);
        running += !no_start;
      }
      if (running == 0) break;
      reap_one(job, n);
      running--;
    }
    em_log_verbose(log, "%ss meshed apart in %.2f s, %d at once:", what, em_wtime() - t0, procs);
    if (no_start) goto done; /* the children started are reaped above */
  }
  int fall_back = 0;
  for (int i = 0; i < n; i++) {
    vol_job *j = &job[i];
    if (j->wstatus != -1 && WIFSIGNALED(j->wstatus) &&
        (WTERMSIG(j->wstatus) == SIGINT || WTERMSIG(j->wstatus) == SIGTERM)) {
      err = EM_RAISE(EM_ERR_IO, "case '%s': meshing %s %d was stopped by signal %d", c->path, what,
                     j->tag, WTERMSIG(j->wstatus));
      goto done;
    }
    if (WIFEXITED(j->wstatus) && WEXITSTATUS(j->wstatus) == 0)
      EM_TRY_GOTO(err, read_result(j), done);
    forward(log, j);
    const char *why = failure(j);
    if (why) {
      em_log_verbose(log, "  %s %d %s: all %ss meshed together instead", what, j->tag, why, what);
      fall_back = 1;
    } else {
      em_log_verbose(log, "  %s %d: %lld %s in %.2f s", what, j->tag, (long long)j->h.n_tet,
                     dim == 2 ? "triangles" : "tets", j->h.seconds);
    }
  }
  if (fall_back) goto done;
  size_t next = max_node_tag(&ierr) + 1;
  if (ierr) {
    err = EM_GMSH_RAISE(mark, "case '%s': cannot read its surface mesh", c->path);
    goto done;
  }
  for (int i = 0; i < n; i++) EM_TRY_GOTO(err, add_entity(c, &job[i], &next), done);
  gmshModelMeshRenumberNodes(&ierr); /* dense, in entity order, as after gmshModelMeshGenerate */
  if (!ierr) gmshModelMeshRenumberElements(&ierr);
  if (ierr) {
    err = EM_GMSH_RAISE(mark, "case '%s': cannot renumber its mesh", c->path);
    goto done;
  }
  *done = 1;
done:
  for (int i = 0; job && i < n; i++) {
    if (job[i].f) fclose(job[i].f);
    em_free(&job[i].node);
    em_free(&job[i].xyz);
    em_free(&job[i].par);
    em_free(&job[i].tet);
    em_free(&job[i].msg);
  }
  em_free(&job);
  em_free(&order);
  gmshFree(dt);
  return err;
}

em_err em_case_mesh_surfaces(em_case *c, const em_log *log) {
  int done = 0, ierr = 0;
  EM_TRY(mesh_apart(c, 2, log, &done));
  if (done) return EM_OK;
  gmshModelMeshGenerate(2, &ierr); /* together, in this process */
  if (ierr) return EM_GMSH_RAISE(c->log_mark, "meshing the surfaces of case '%s' failed", c->path);
  return EM_OK;
}

/* All volumes together in this process, its surfaces (added, when they
 * were meshed apart) hidden so that Gmsh keeps them: what the children do
 * for one volume, for all. */
static em_err all_volumes(em_case *c) {
  int *dt = NULL, ierr = 0, *vis = NULL;
  double only = 0;
  size_t n = 0;
  em_err err = EM_OK;
  gmshModelGetEntities(&dt, &n, 2, &ierr);
  if (ierr) return EM_GMSH_RAISE(c->log_mark, "case '%s': cannot list its surfaces", c->path);
  EM_TRY_GOTO(err, em_calloc(&vis, n / 2 + 1, sizeof *vis, "surface visibility"), done);
  for (size_t k = 0; !ierr && k + 1 < n; k += 2)
    gmshModelGetVisibility(2, dt[k + 1], &vis[k / 2], &ierr);
  if (!ierr) gmshOptionGetNumber("Mesh.MeshOnlyVisible", &only, &ierr);
  if (!ierr) hide_surfaces(&ierr);
  if (!ierr) gmshOptionSetNumber("Mesh.MeshOnlyVisible", 1, &ierr);
  if (!ierr) gmshModelMeshGenerate(3, &ierr);
  int e2 = 0; /* as they were, for a later meshing of this case */
  gmshOptionSetNumber("Mesh.MeshOnlyVisible", only, &e2);
  for (size_t k = 0; k + 1 < n; k += 2) gmshModelSetVisibility(dt + k, 2, vis[k / 2], 0, &e2);
  if (ierr || e2) err = EM_GMSH_RAISE(c->log_mark, "meshing case '%s' failed", c->path);
done:
  gmshFree(dt);
  em_free(&vis);
  return err;
}

em_err em_case_mesh_volumes(em_case *c, const em_log *log) {
  int done = 0;
  EM_TRY(mesh_apart(c, 3, log, &done));
  return done ? EM_OK : all_volumes(c);
}
