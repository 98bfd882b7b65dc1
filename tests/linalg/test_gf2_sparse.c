/* Sparse GF(2) rank against topology: the boundary matrices of complexes
 * whose Betti numbers over Z2 are known give rank d1 = V - b0 and rank d2 =
 * E - rank d1 - b1 (and b2 = F - rank d2 for a surface):
 *   - the torus and the Klein bottle as n x m grids of triangles (n = 33:
 *     no multiple of 32): b = (1, 2, 1) over Z2 both (over Q the Klein
 *     bottle has b2 = 0: the twist is seen only mod 2);
 *   - the real projective plane (6 vertices, 10 triangles): b = (1, 1, 1);
 *   - tet meshes of a box, a box with a tunnel (b1 = 1) and with a cavity
 *     (b2 = 1): rank d3 = T, rank d2 = E - V + b0 - b1;
 *   - isolated vertices (empty rows: b0 grows) and empty columns.
 * Each also by the dense elimination (em_gf2_from_sp; argument gpu: on the
 * GPU), which must agree; d1 d2 = 0 checks each construction. */
#include <string.h>

#include "em_linalg.h"
#include "em_test.h"
#include "mesh_chains.h"

static em_backend be = EM_BACKEND_CPU;

/* owns its arrays */
typedef struct {
  em_gf2_sp A;
  int64_t *ptr;
  int32_t *idx;
} sp_own;

static void own_init(sp_own *o, int32_t rows, int32_t cols, int per) {
  o->ptr = calloc((size_t)cols + 1, sizeof *o->ptr);
  o->idx = calloc((size_t)cols * per + 1, sizeof *o->idx);
  for (int32_t c = 0; c <= cols; c++) o->ptr[c] = (int64_t)per * c;
  o->A = (em_gf2_sp){rows, cols, o->ptr, o->idx};
}
static void own_free(sp_own *o) {
  free(o->ptr);
  free(o->idx);
}
static void sort3(int32_t *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      int32_t t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
}

/* rank by the sparse reduction, checked against the dense elimination */
static int32_t rank_of(const em_gf2_sp *A, const char *what) {
  int32_t r = -1, rd = -2;
  int64_t fill = 0;
  REQUIRE_OK(em_gf2_sp_rank(A, 0, &r, &fill));
  if ((int64_t)A->n_rows * A->n_cols <= (int64_t)1 << 26) {
    em_gf2 *D = NULL;
    REQUIRE_OK(em_gf2_from_sp(A, 1, &D)); /* rows = cells: the pivot search runs down them */
    REQUIRE_OK(em_gf2_rank(D, be, &rd));
    em_gf2_destroy(&D);
    EXPECT(rd == r, "%s: sparse rank %d, dense rank %d", what, r, rd);
  }
  return r;
}

/* (d1 d2)_{v f} = sum over the edges of f touching v: even */
static void check_dd(const em_gf2_sp *d1, const em_gf2_sp *d2, const char *what) {
  int32_t *cnt = calloc((size_t)d1->n_rows + 1, sizeof *cnt);
  int bad = 0;
  for (int32_t f = 0; f < d2->n_cols && !bad; f++) {
    for (int64_t k = d2->ptr[f]; k < d2->ptr[f + 1]; k++)
      for (int64_t q = d1->ptr[d2->idx[k]]; q < d1->ptr[d2->idx[k] + 1]; q++) cnt[d1->idx[q]]++;
    for (int64_t k = d2->ptr[f]; k < d2->ptr[f + 1]; k++)
      for (int64_t q = d1->ptr[d2->idx[k]]; q < d1->ptr[d2->idx[k] + 1]; q++) {
        bad |= cnt[d1->idx[q]] & 1;
        cnt[d1->idx[q]] = 0;
      }
  }
  EXPECT(!bad, "%s: d1 d2 != 0", what);
  free(cnt);
}

/* vertex (i, j), i <= n: j periodic; i = n is i = 0, with j -> m - j when
 * twisted */
static int32_t vid(int n, int m, int twist, int i, int j) {
  j %= m;
  if (i == n) {
    i = 0;
    if (twist) j = (m - j) % m;
  }
  return i * m + j;
}
/* the square whose vertical edge joins (i, j) and (i, j + 1) */
static int32_t vedge(int n, int m, int twist, int i, int j) {
  if (i < n) return i * m + j;
  return twist ? (m - j - 1 + m) % m : j; /* i = n: column 0, reversed when twisted */
}

/* n x m grid of squares, two triangles each; twist: the Klein bottle
 * ((n, j) is (0, m - j)) instead of the torus.  b = (1, 2, 1) over Z2. */
static void check_grid_surface(int n, int m, int twist) {
  const char *what = twist ? "Klein bottle" : "torus";
  const int32_t V = n * m, E = 3 * V, F = 2 * V;
  sp_own d1, d2;
  own_init(&d1, V, E, 2);
  own_init(&d2, E, F, 3);
#define VID(i, j) vid(n, m, twist, (i), (j))
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) { /* edges of square (i, j): h, v, d = 3 s, 3 s + 1, 3 s + 2 */
      const int32_t s = i * m + j, ends[3][2] = {{VID(i, j), VID(i + 1, j)},
                                                 {VID(i, j), VID(i, j + 1)},
                                                 {VID(i, j), VID(i + 1, j + 1)}};
      for (int e = 0; e < 3; e++) {
        d1.idx[2 * (3 * s + e)] = ends[e][0];
        d1.idx[2 * (3 * s + e) + 1] = ends[e][1];
        sort3(d1.idx + 2 * (3 * s + e), 2);
      }
      /* t1 = h(i, j), v(i + 1, j), d(i, j); t2 = v(i, j), h(i, j + 1), d(i, j) */
      int32_t *t1 = d2.idx + 3 * (2 * s), *t2 = d2.idx + 3 * (2 * s + 1);
      t1[0] = 3 * s;
      t1[1] = 3 * vedge(n, m, twist, i + 1, j) + 1;
      t1[2] = 3 * s + 2;
      t2[0] = 3 * s + 1;
      t2[1] = 3 * (i * m + (j + 1) % m);
      t2[2] = 3 * s + 2;
      sort3(t1, 3);
      sort3(t2, 3);
    }
#undef VID
  check_dd(&d1.A, &d2.A, what);
  int32_t r1 = rank_of(&d1.A, what), r2 = rank_of(&d2.A, what);
  EXPECT(V - r1 == 1 && E - r1 - r2 == 2 && F - r2 == 1,
         "%s %d x %d: b = (%d, %d, %d), not (1, 2, 1)", what, n, m, V - r1, E - r1 - r2, F - r2);
  own_free(&d1);
  own_free(&d2);
}

/* The 6-vertex real projective plane: b = (1, 1, 1) over Z2. */
static void check_rp2(void) {
  const int tri[10][3] = {{1, 2, 3}, {1, 3, 4}, {1, 4, 5}, {1, 5, 6}, {1, 6, 2},
                          {2, 3, 5}, {3, 4, 6}, {4, 5, 2}, {5, 6, 3}, {6, 2, 4}};
  int32_t eid[7][7];
  sp_own d1, d2;
  own_init(&d1, 6, 15, 2);
  own_init(&d2, 15, 10, 3);
  int32_t E = 0;
  for (int a = 1; a <= 6; a++)
    for (int b = a + 1; b <= 6; b++) {
      eid[a][b] = E;
      d1.idx[2 * E] = a - 1;
      d1.idx[2 * E + 1] = b - 1;
      E++;
    }
  for (int t = 0; t < 10; t++) {
    int v[3] = {tri[t][0], tri[t][1], tri[t][2]};
    for (int k = 0; k < 3; k++) {
      int a = v[k], b = v[(k + 1) % 3];
      d2.idx[3 * t + k] = a < b ? eid[a][b] : eid[b][a];
    }
    sort3(d2.idx + 3 * t, 3);
  }
  check_dd(&d1.A, &d2.A, "RP2");
  int32_t r1 = rank_of(&d1.A, "RP2 d1"), r2 = rank_of(&d2.A, "RP2 d2");
  EXPECT(r1 == 5 && r2 == 9, "RP2: ranks %d, %d (b = (%d, %d, %d), not (1, 1, 1))", r1, r2, 6 - r1,
         15 - r1 - r2, 10 - r2);
  own_free(&d1);
  own_free(&d2);
}

/* Tet meshes of a box nx x ny x nz; hole 1: the cells of a column through
 * the middle removed (a tunnel, b1 = 1); hole 2: the middle cell removed
 * (a cavity, b2 = 1).  Ranks: d1 = V - 1, d2 = E - V + 1 - b1, d3 = T. */
static void check_box(int nx, int ny, int nz, int hole) {
  em_mesh *box = NULL, *m = NULL;
  REQUIRE_OK(em_mesh_box(nx, ny, nz, nx, ny, nz, 0, 1, &box));
  int32_t *tet = calloc(4 * (size_t)box->n_tet, sizeof *tet),
          *grp = calloc((size_t)box->n_tet, sizeof *grp), nt = 0;
  for (int32_t t = 0; t < box->n_tet; t++) {
    double c[3] = {0, 0, 0};
    for (int k = 0; k < 4; k++)
      for (int d = 0; d < 3; d++) c[d] += box->xyz[3 * box->tet[4 * t + k] + d] / 4;
    const int inx = (int)c[0] == nx / 2, iny = (int)c[1] == ny / 2, inz = (int)c[2] == nz / 2;
    if ((hole == 1 && inx && iny) || (hole == 2 && inx && iny && inz)) continue;
    memcpy(tet + 4 * nt, box->tet + 4 * t, 4 * sizeof *tet);
    nt++;
  }
  em_group g = {.name = "box", .tag = 1, .dim = 3};
  REQUIRE_OK(em_mesh_from_tets(box->n_vert, box->xyz, nt, tet, grp, 0, NULL, NULL, 1, &g, 0, &m));
  em_gf2_sp d[4];
  for (int k = 1; k <= 3; k++) REQUIRE_OK(em_mesh_chain(m, k, &d[k]));
  check_dd(&d[1], &d[2], "box d1 d2");
  check_dd(&d[2], &d[3], "box d2 d3");
  const int b1 = hole == 1, b2 = hole == 2;
  int32_t r1 = rank_of(&d[1], "box d1"), r2 = rank_of(&d[2], "box d2"),
          r3 = rank_of(&d[3], "box d3");
  EXPECT(r1 == m->n_vert - 1 && r2 == m->n_edge - r1 - b1 && r3 == m->n_tet &&
             m->n_face - r2 - r3 == b2,
         "box %dx%dx%d hole %d: ranks %d %d %d, b = (%d, %d, %d)", nx, ny, nz, hole, r1, r2, r3,
         m->n_vert - r1, m->n_edge - r1 - r2, m->n_face - r2 - r3);
  for (int k = 1; k <= 3; k++) em_mesh_chain_free(&d[k]);
  em_mesh_destroy(&m);
  em_mesh_destroy(&box);
  free(tet);
  free(grp);
}

/* Empty rows (isolated vertices: b0 counts them) and empty columns; the
 * fill bound; bad input named. */
static void check_awkward(void) {
  /* a path 0-1-2 plus isolated vertices 3..69 (70 rows, not a multiple of
     32 or 64), then three empty columns */
  int64_t ptr[6] = {0, 2, 4, 4, 4, 4};
  int32_t idx[4] = {0, 1, 1, 2};
  em_gf2_sp A = {70, 5, ptr, idx};
  int32_t r = -1;
  REQUIRE_OK(em_gf2_sp_rank(&A, 0, &r, NULL));
  EXPECT(r == 2 && 70 - r == 68, "path plus isolated vertices: rank %d", r);
  EXPECT(rank_of(&A, "awkward") == 2, "dense and sparse");
  em_gf2_sp Z = {0, 0, ptr, idx};
  REQUIRE_OK(em_gf2_sp_rank(&Z, 0, &r, NULL));
  EXPECT(r == 0, "empty matrix: rank %d", r);
  EXPECT_ERR(em_gf2_sp_rank(&A, 3, &r, NULL), EM_ERR_MEMORY);
  int32_t bad[4] = {1, 0, 1, 2};
  em_gf2_sp B = {70, 5, ptr, bad};
  EXPECT_ERR(em_gf2_sp_rank(&B, 0, &r, NULL), EM_ERR_ARG);
  int32_t out[4] = {0, 70, 1, 2};
  em_gf2_sp C = {70, 5, ptr, out};
  EXPECT_ERR(em_gf2_sp_rank(&C, 0, &r, NULL), EM_ERR_ARG);
}

int main(int argc, char **argv) {
  be = test_backend(argc, argv);
  check_awkward();
  check_grid_surface(33, 5, 0);
  check_grid_surface(33, 5, 1);
  check_grid_surface(4, 65, 1);
  check_rp2();
  check_box(7, 5, 3, 0);
  check_box(5, 5, 6, 1);
  check_box(5, 5, 5, 2);
  return TEST_RESULT();
}
