/* mesh_bench.c - the mesh stage of a case alone: time, size, quality and
 * fingerprints of the mesh, so that mesher settings can be compared and a
 * mesh checked to come out the same from run to run (issue 24, item 4).
 *
 *   mesh_bench CASE.geo [-setnumber NAME V]... [-gmsh OPTION V]... [-f HZ]
 *              [-epw N] [-threads T] [-together|-auto] [-hxt] [-only TAG]
 *              [-repeat R] [-v]
 *
 * -setnumber overrides a case parameter (as emsolve's), -gmsh sets a Gmsh
 * option after the case is parsed (Mesh.Algorithm 5, ...), -f and -epw the
 * wavelength sizing (default 5.8 GHz, 13.3: the 1M-unknown order-3 DRA),
 * -threads the OpenMP count (the processes meshing volumes apart),
 * -together / -auto / -hxt Mesh/volume_meshing together / auto (default
 * apart) / Mesh/algorithm3d hxt,
 * -only TAG hides every other volume (Mesh.MeshOnlyVisible: one volume's
 * cost).  The refractive index of each volume group is
 * sqrt(Materials/<group>/eps_r).  Prints one line per repeat: wall and
 * process CPU seconds (children not counted), tets, vertices, edges,
 * faces, the order-3 unknowns before the PEC ones are removed (3 E + 6 F +
 * 3 T), quality min / mean, an FNV-1a hash of the vertex coordinates'
 * bits, the tets and their groups, the same independent of the numbering
 * (vertices sorted by coordinates, tets sorted), and one of the nodes Gmsh
 * holds on curves and surfaces (whether the surface meshes agree); with -v
 * Gmsh's messages and the tets per volume group. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gmshc.h>

#include "em_mesh.h"

#define MAX_OPT 32

/* sqrt(Materials/<name>/eps_r) of the case, 1 when it has none. */
static double index_of(void *ctx, const char *name) {
  char key[256];
  double eps = 1;
  snprintf(key, sizeof key, "Materials/%s/eps_r", name);
  if (em_case_number(ctx, key, &eps) != EM_OK) return 1;
  return sqrt(fabs(eps));
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static const double *sort_xyz_; /* qsort has no context: the coordinates */

static int vert_cmp(const void *a, const void *b) {
  const double *x = sort_xyz_ + 3 * (size_t) * (const int32_t *)a,
               *y = sort_xyz_ + 3 * (size_t) * (const int32_t *)b;
  for (int d = 0; d < 3; d++)
    if (x[d] != y[d]) return x[d] < y[d] ? -1 : 1;
  return 0;
}

static int tet_cmp(const void *a, const void *b) {
  return memcmp(a, b, 5 * sizeof(int32_t));
}

static int int_cmp(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The same mesh whatever its numbering: vertices sorted by coordinates, each
 * tet's (sorted) new vertex ids and group, tets sorted. */
static uint64_t shape_hash(const em_mesh *m) {
  size_t nv = (size_t)m->n_vert, nt = (size_t)m->n_tet;
  int32_t *perm = malloc(nv * sizeof *perm), *inv = malloc(nv * sizeof *inv),
          *t5 = malloc(5 * nt * sizeof *t5);
  double *x = malloc(3 * nv * sizeof *x);
  if (!perm || !inv || !t5 || !x) abort();
  for (size_t i = 0; i < nv; i++) perm[i] = (int32_t)i;
  sort_xyz_ = m->xyz;
  qsort(perm, nv, sizeof *perm, vert_cmp);
  for (size_t i = 0; i < nv; i++) {
    inv[perm[i]] = (int32_t)i;
    memcpy(x + 3 * i, m->xyz + 3 * (size_t)perm[i], 3 * sizeof *x);
  }
  for (size_t t = 0; t < nt; t++) {
    for (int k = 0; k < 4; k++) t5[5 * t + k] = inv[m->tet[4 * t + k]];
    qsort(t5 + 5 * t, 4, sizeof *t5, int_cmp);
    t5[5 * t + 4] = m->tet_group[t];
  }
  qsort(t5, nt, 5 * sizeof *t5, tet_cmp);
  uint64_t h = 14695981039346656037ull;
  h = fnv(h, x, 3 * nv * sizeof *x);
  h = fnv(h, t5, 5 * nt * sizeof *t5);
  free(perm), free(inv), free(t5), free(x);
  return h;
}

static int xyz_cmp(const void *a, const void *b) {
  const double *x = a, *y = b;
  for (int d = 0; d < 3; d++)
    if (x[d] != y[d]) return x[d] < y[d] ? -1 : 1;
  return 0;
}

/* The nodes Gmsh holds on curves and surfaces (dimension <= 2), by
 * coordinates: whether the surface meshes agree. */
static uint64_t surface_hash(void) {
  uint64_t h = 14695981039346656037ull;
  for (int dim = 0; dim <= 2; dim++) {
    size_t *tags = NULL, n = 0, nx = 0, np = 0;
    double *x = NULL, *p = NULL;
    int ierr = 0;
    gmshModelMeshGetNodes(&tags, &n, &x, &nx, &p, &np, dim, -1, 0, 0, &ierr);
    if (!ierr && nx == 3 * n) {
      qsort(x, n, 3 * sizeof *x, xyz_cmp);
      h = fnv(h, x, nx * sizeof *x);
    }
    gmshFree(tags), gmshFree(x), gmshFree(p);
  }
  return h;
}

/* The mesh as the solver sees it: coordinates, tets, groups. */
static uint64_t mesh_hash(const em_mesh *m) {
  uint64_t h = 14695981039346656037ull;
  h = fnv(h, m->xyz, 3 * (size_t)m->n_vert * sizeof *m->xyz);
  h = fnv(h, m->tet, 4 * (size_t)m->n_tet * sizeof *m->tet);
  h = fnv(h, m->tet_group, (size_t)m->n_tet * sizeof *m->tet_group);
  return h;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  em_param_override over[MAX_OPT];
  const char *gname[MAX_OPT];
  double gval[MAX_OPT];
  int n_over = 0, n_g = 0, repeat = 1, verbose = 0, threads = 1, hxt = 0, only = 0, together = 0,
      apart = 1;
  double freq = 5.8e9, epw = 13.3;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-setnumber") && i + 2 < argc && n_over < MAX_OPT) {
      over[n_over++] = (em_param_override){.name = argv[i + 1], .number = atof(argv[i + 2])};
      i += 2;
    } else if (!strcmp(a, "-gmsh") && i + 2 < argc && n_g < MAX_OPT) {
      gname[n_g] = argv[i + 1], gval[n_g++] = atof(argv[i + 2]);
      i += 2;
    } else if (!strcmp(a, "-f") && i + 1 < argc) {
      freq = atof(argv[++i]);
    } else if (!strcmp(a, "-epw") && i + 1 < argc) {
      epw = atof(argv[++i]);
    } else if (!strcmp(a, "-threads") && i + 1 < argc) {
      threads = atoi(argv[++i]);
    } else if (!strcmp(a, "-repeat") && i + 1 < argc) {
      repeat = atoi(argv[++i]);
    } else if (!strcmp(a, "-only") && i + 1 < argc) {
      only = atoi(argv[++i]);
    } else if (!strcmp(a, "-together")) {
      together = 1;
    } else if (!strcmp(a, "-auto")) {
      apart = 0;
    } else if (!strcmp(a, "-hxt")) {
      hxt = 1;
    } else if (!strcmp(a, "-v")) {
      verbose = 1;
    } else if (a[0] != '-' && !path) {
      path = a;
    } else {
      fprintf(stderr, "mesh_bench: unknown or incomplete argument '%s'\n", a);
      return 2;
    }
  }
  if (!path) {
    fprintf(stderr,
            "usage: mesh_bench CASE.geo [-setnumber NAME V]... [-gmsh OPTION V]... "
            "[-f HZ] [-epw N] [-threads T] [-repeat R] [-v]\n");
    return 2;
  }
  omp_set_num_threads(threads);
  em_log log;
  em_log_init(&log, stderr, verbose ? EM_LOG_VERBOSE : EM_LOG_QUIET);
  em_case *c = NULL;
  if (em_case_open(path, n_over, over, 0, NULL, &log, &c)) {
    fprintf(stderr, "mesh_bench: %s\n", em_error_message());
    return 1;
  }
  for (int k = 0; k < n_g; k++) {
    int ierr = 0;
    gmshOptionSetNumber(gname[k], gval[k], &ierr);
    if (ierr) {
      fprintf(stderr, "mesh_bench: Gmsh option %s = %g refused\n", gname[k], gval[k]);
      em_case_close(&c);
      return 1;
    }
  }
  if (only) {
    int *dt = NULL, ierr = 0;
    size_t n = 0;
    gmshModelGetEntities(&dt, &n, 3, &ierr);
    for (size_t k = 0; k < n; k += 2)
      if (dt[k + 1] != only) gmshModelSetVisibility(dt + k, 2, 0, 0, &ierr);
    gmshFree(dt);
    gmshOptionSetNumber("Mesh.MeshOnlyVisible", 1, &ierr);
  }
  double unit = 1e-3;
  em_case_number(c, "Geometry/unit", &unit);
  em_mesh_opts o = {.unit = unit,
                    .freq_max = freq,
                    .elements_per_wavelength = epw,
                    .index_of = index_of,
                    .index_ctx = c,
                    .reorder = 1,
                    .pml_elements = 3,
                    .hxt = hxt,
                    .apart = together ? -1 : apart};
  double pe = 0;
  if (em_case_number(c, "PML/elements", &pe) == EM_OK) o.pml_elements = (int)pe;
  printf("%-7s %7s %8s %8s %8s %8s %9s %6s %6s %-16s %-16s %s\n", "seconds", "cpu_s", "tets",
         "verts", "edges", "faces", "3E+6F+3T", "q_min", "q_mean", "hash", "shape_hash",
         "surface_hash");
  int rc = 0;
  for (int r = 0; r < repeat && !rc; r++) {
    em_mesh *m = NULL;
    double t0 = em_wtime(), c0 = (double)clock() / CLOCKS_PER_SEC;
    if (em_case_mesh(c, &o, &log, &m)) {
      fprintf(stderr, "mesh_bench: %s\n", em_error_message());
      rc = 1;
      break;
    }
    double t = em_wtime() - t0, ct = (double)clock() / CLOCKS_PER_SEC - c0;
    em_mesh_stats s;
    em_mesh_stats_compute(m, &s);
    long long unk = 3LL * s.n_edge + 6LL * s.n_face + 3LL * s.n_tet;
    printf("%7.3f %7.3f %8d %8d %8d %8d %9lld %6.3f %6.3f %016llx %016llx %016llx\n", t, ct,
           s.n_tet, s.n_vert, s.n_edge, s.n_face, unk, s.q_min, s.q_mean,
           (unsigned long long)mesh_hash(m), (unsigned long long)shape_hash(m),
           (unsigned long long)surface_hash());
    if (verbose)
      for (int g = 0; g < m->n_group; g++) {
        int32_t k = 0;
        for (int32_t t = 0; t < m->n_tet; t++) k += m->tet_group[t] == g;
        if (k) printf("  group %-8s %8d tets\n", m->group[g].name, k);
      }
    fflush(stdout);
    em_mesh_destroy(&m);
  }
  em_case_close(&c);
  return rc;
}
