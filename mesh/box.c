/* box.c - a structured tet mesh of a box, for tests that must not depend on
 * Gmsh: each cell is cut into the six Kuhn tets around its main diagonal,
 * which gives a conforming mesh; interior vertices may be jittered. */
#include "em_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The six Kuhn tets of a unit cube, corners numbered bit-wise (x + 2y + 4z):
 * the path 0 -> e_a -> e_a + e_b -> 7 for each permutation (a, b, c). */
static const int KUHN[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7},
                               {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};

static double rnd(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 9007199254740992.0;
}

em_err em_mesh_box(int nx, int ny, int nz, double lx, double ly, double lz, double jitter,
                   unsigned seed, em_mesh **out) {
  EM_CHECK(nx > 0 && ny > 0 && nz > 0 && lx > 0 && ly > 0 && lz > 0, EM_ERR_ARG,
           "bad box %dx%dx%d of %gx%gx%g", nx, ny, nz, lx, ly, lz);
  EM_CHECK(jitter >= 0 && jitter <= 0.3, EM_ERR_ARG, "jitter %g outside 0..0.3", jitter);
  em_err err = EM_OK;
  int32_t nv = (nx + 1) * (ny + 1) * (nz + 1), nt = 6 * nx * ny * nz;
  double *xyz = NULL;
  int32_t *tet = NULL, *tg = NULL, *tri = NULL, *trig = NULL;
  em_mesh *m = NULL;
  EM_TRY(em_calloc(&xyz, 3 * (size_t)nv, sizeof *xyz, "box vertices"));
  EM_TRY_GOTO(err, em_calloc(&tet, 4 * (size_t)nt, sizeof *tet, "box tets"), done);
  EM_TRY_GOTO(err, em_calloc(&tg, (size_t)nt, sizeof *tg, "box tets"), done);
  unsigned long long s = 0x9E3779B97F4A7C15ULL ^ seed;
  double h[3] = {lx / nx, ly / ny, lz / nz};
  int n[3] = {nx, ny, nz};
#define VID(i, j, k) ((i) + (nx + 1) * ((j) + (ny + 1) * (k)))
  for (int k = 0; k <= nz; k++)
    for (int j = 0; j <= ny; j++)
      for (int i = 0; i <= nx; i++) {
        int idx[3] = {i, j, k};
        double *p = xyz + 3 * (size_t)VID(i, j, k);
        for (int d = 0; d < 3; d++) {
          p[d] = idx[d] * h[d];
          int interior =
              idx[0] > 0 && idx[0] < nx && idx[1] > 0 && idx[1] < ny && idx[2] > 0 && idx[2] < nz;
          if (interior && jitter > 0) p[d] += jitter * h[d] * (2 * rnd(&s) - 1);
          (void)n;
        }
      }
  int32_t t = 0;
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++)
        for (int q = 0; q < 6; q++, t++)
          for (int a = 0; a < 4; a++) {
            int c = KUHN[q][a];
            tet[4 * t + a] = VID(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1));
          }
#undef VID
  em_group groups[7] = {{"box", 1, 3},  {"xmin", 2, 2}, {"xmax", 3, 2}, {"ymin", 4, 2},
                        {"ymax", 5, 2}, {"zmin", 6, 2}, {"zmax", 7, 2}};
  /* first pass without triangles to find the boundary faces */
  EM_TRY_GOTO(err, em_mesh_from_tets(nv, xyz, nt, tet, tg, 0, NULL, NULL, 7, groups, 1, &m), done);
  int32_t nb = 0;
  for (int32_t f = 0; f < m->n_face; f++) nb += m->face_tet[2 * f + 1] < 0;
  EM_TRY_GOTO(err, em_calloc(&tri, 3 * (size_t)nb, sizeof *tri, "box boundary"), done);
  EM_TRY_GOTO(err, em_calloc(&trig, (size_t)nb, sizeof *trig, "box boundary"), done);
  double L[3] = {lx, ly, lz};
  int32_t b = 0;
  for (int32_t f = 0; f < m->n_face; f++) {
    if (m->face_tet[2 * f + 1] >= 0) continue;
    const int32_t *v = m->face + 3 * (size_t)f;
    int side = -1;
    for (int d = 0; d < 3 && side < 0; d++) {
      int lo = 1, hi = 1;
      for (int a = 0; a < 3; a++) {
        double c = m->xyz[3 * (size_t)v[a] + d];
        lo &= fabs(c) < 1e-12 * L[d];
        hi &= fabs(c - L[d]) < 1e-12 * L[d];
      }
      if (lo) side = 2 * d;
      if (hi) side = 2 * d + 1;
    }
    if (side < 0) {
      err = EM_RAISE(EM_ERR_INTERNAL, "box boundary face %d on no side", f);
      goto done;
    }
    memcpy(tri + 3 * (size_t)b, v, 3 * sizeof *v);
    trig[b++] = 1 + side;
  }
  /* the mesh is already in RCM numbering: attach triangles in place */
  m->n_tri = 0;
  em_free(&m->tri);
  em_free(&m->tri_face);
  em_free(&m->tri_group);
  EM_TRY_GOTO(err, em_calloc(&m->tri, 3 * (size_t)nb, sizeof *m->tri, "box boundary"), done);
  EM_TRY_GOTO(err, em_calloc(&m->tri_face, (size_t)nb, sizeof *m->tri_face, "box boundary"), done);
  EM_TRY_GOTO(err, em_calloc(&m->tri_group, (size_t)nb, sizeof *m->tri_group, "box boundary"),
              done);
  {
    int32_t fb = 0;
    for (int32_t f = 0; f < m->n_face; f++) {
      if (m->face_tet[2 * f + 1] >= 0) continue;
      memcpy(m->tri + 3 * (size_t)fb, tri + 3 * (size_t)fb, 3 * sizeof *tri);
      m->tri_face[fb] = f;
      m->tri_group[fb] = trig[fb];
      fb++;
    }
    m->n_tri = fb;
  }
  *out = m;
  m = NULL;
done:
  em_mesh_destroy(&m);
  em_free(&xyz);
  em_free(&tet);
  em_free(&tg);
  em_free(&tri);
  em_free(&trig);
  return err;
}
