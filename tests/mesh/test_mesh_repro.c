/* The same case meshed twice gives the same mesh (issue 24): the DRA (four
 * volumes, its surfaces and volumes meshed apart in child processes,
 * case_apart.c) in two fresh processes of this program (their own
 * address-space layout: Gmsh 4.8's HXT fails this, ordering points by
 * address) on 1 and 3 threads, and here on 2, must agree bit for bit in the
 * vertex coordinates, the tets and their groups.  Against Gmsh meshing it
 * all in one call (Mesh/volume_meshing together, the former mesher) the
 * apart mesh must fill the same volume per group (the curved walls'
 * triangulations differ: 2e-7 apart measured, 1e-5 allowed), be as good
 * (worst tet quality) and about as fine (tets within 5 %). */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "em_mesh.h"
#include "em_test.h"

#define CASE "cases/dra.geo"

extern char **environ;

static double index_of(void *ctx, const char *name) {
  char key[128];
  double eps = 1;
  snprintf(key, sizeof key, "Materials/%s/eps_r", name);
  if (em_case_number(ctx, key, &eps)) em_error_clear();
  return sqrt(fabs(eps));
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static uint64_t mesh_hash(const em_mesh *m) {
  uint64_t h = 14695981039346656037ull;
  h = fnv(h, m->xyz, 3 * (size_t)m->n_vert * sizeof *m->xyz);
  h = fnv(h, m->tet, 4 * (size_t)m->n_tet * sizeof *m->tet);
  return fnv(h, m->tet_group, (size_t)m->n_tet * sizeof *m->tet_group);
}

/* The DRA at 3 elements per wavelength at 7.5 GHz (~21k tets, 0.5 s). */
static em_err mesh_dra(int threads, int together, em_mesh **m) {
  em_case *c = NULL;
  omp_set_num_threads(threads);
  EM_TRY(em_case_open(CASE, 0, NULL, 0, NULL, NULL, &c));
  em_mesh_opts o = {.unit = 1e-3,
                    .freq_max = 7.5e9,
                    .elements_per_wavelength = 3,
                    .index_of = index_of,
                    .index_ctx = c,
                    .reorder = 1,
                    .pml_elements = 3,
                    .apart = together ? -1 : 1};
  em_err err = em_case_mesh(c, &o, NULL, m);
  em_case_close(&c);
  return err;
}

/* Child mode: mesh on `threads` threads and print the hash. */
static int child(int threads) {
  em_mesh *m = NULL;
  if (mesh_dra(threads, 0, &m)) {
    em_error_print(stderr);
    return 1;
  }
  printf("%016llx %d\n", (unsigned long long)mesh_hash(m), m->n_tet);
  em_mesh_destroy(&m);
  return 0;
}

/* Run this program as a child on `threads` threads; its hash line. */
static int spawn_hash(const char *self, int threads, char *line, size_t cap) {
  int fd[2];
  if (pipe(fd)) return 1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  char arg[16];
  snprintf(arg, sizeof arg, "%d", threads);
  char *argv[] = {(char *)self, "--child", arg, NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, self, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  if (rc) {
    close(fd[0]);
    return 1;
  }
  FILE *f = fdopen(fd[0], "r");
  line[0] = '\0';
  if (f) {
    if (!fgets(line, (int)cap, f)) line[0] = '\0';
    fclose(f);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return !(WIFEXITED(st) && WEXITSTATUS(st) == 0) || !line[0];
}

/* Per volume group: the summed tet volume; and the worst quality. */
static void group_volumes(const em_mesh *m, double *vol, double *q_min) {
  for (int g = 0; g < m->n_group; g++) vol[g] = 0;
  *q_min = 1;
  for (int32_t t = 0; t < m->n_tet; t++) {
    vol[m->tet_group[t]] += fabs(em_tet_volume(m, t)); /* signed: ids ascending */
    double q = em_tet_quality(m, t);
    if (q < *q_min) *q_min = q;
  }
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--child")) return child(atoi(argv[2]));
  char a[64], b[64], here[64];
  EXPECT(!spawn_hash("/proc/self/exe", 1, a, sizeof a), "the child on 1 thread failed");
  EXPECT(!spawn_hash("/proc/self/exe", 3, b, sizeof b), "the child on 3 threads failed");
  em_mesh *apart = NULL, *together = NULL;
  REQUIRE_OK(mesh_dra(2, 0, &apart));
  snprintf(here, sizeof here, "%016llx %d\n", (unsigned long long)mesh_hash(apart), apart->n_tet);
  EXPECT(!strcmp(a, b), "1 and 3 threads: %s vs %s", a, b);
  EXPECT(!strcmp(a, here), "a fresh process and this one: %s vs %s", a, here);
  REQUIRE_OK(mesh_dra(2, 1, &together));
  EXPECT(apart->n_group == together->n_group, "%d vs %d groups", apart->n_group, together->n_group);
  double va[16], vt[16], qa, qt;
  if (apart->n_group > 16 || together->n_group != apart->n_group) return TEST_RESULT() | 1;
  group_volumes(apart, va, &qa);
  group_volumes(together, vt, &qt);
  for (int g = 0; g < apart->n_group; g++) /* both tile the same CAD volume */
    EXPECT(fabs(va[g] - vt[g]) <= 1e-5 * vt[g], "group %s: volume %.12g apart, %.12g together",
           apart->group[g].name, va[g], vt[g]);
  EXPECT(qa >= 0.9 * qt, "worst quality %.3f apart, %.3f together", qa, qt);
  EXPECT(abs(apart->n_tet - together->n_tet) < together->n_tet / 20, "%d vs %d tets", apart->n_tet,
         together->n_tet);
  printf("apart %s together %d tets, worst quality %.3f / %.3f\n", here, together->n_tet, qa, qt);
  em_mesh_destroy(&apart);
  em_mesh_destroy(&together);
  return TEST_RESULT();
}
