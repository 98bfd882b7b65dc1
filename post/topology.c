/* topology.c - Betti numbers of the mesh over Z2: of the meshed volume
 * (vertices, edges, faces, tets) and of each surface group (vertices,
 * edges, triangles).
 *
 * b_k = n_k - rank d_k - rank d_{k+1}, d_k the incidence matrix of k-cells
 * on (k-1)-cells mod 2.  The full matrices of a real mesh are far too large
 * for dense elimination, so the complex is first reduced by coreductions
 * (a cell whose boundary among the cells left is a single cell leaves with
 * it), which keep its homology; what remains (nothing for a ball, a loop of
 * cells for the coax) is ranked by dense GF(2) elimination (linalg/, CPU or
 * GPU).  Elementary collapses alone (from the boundary inwards) were tried
 * first: they stall on the 2-D walls where the fronts meet (21 k faces of
 * the coax line's 50 k were left).  For a region of space Z2 ranks give the real
 * Betti numbers (no torsion): b0 pieces, b1 independent loops (the coax:
 * 1), b2 enclosed cavities (a metal body inside the air box: 1).  The
 * lowest-order curl has a null space of dimension V - b0 + b1 (gradients
 * plus b1 harmonic fields) before boundary conditions. */
#include "em_linalg.h"
#include "em_post.h"

#include <stdio.h>
#include <string.h>

/* a simplicial complex: n[d] cells of dimension d, cell i of dimension
 * d >= 1 bounded by bd[d][(d + 1) i + k], k <= d */
typedef struct {
  int top;
  int32_t n[4];
  const int32_t *bd[4];
} topo_cplx;

/* the core left after the coreductions may not exceed this many cells of one
 * dimension (dense elimination of n x n bits) */
#define TOPO_CORE_MAX 16384

/* face_edge[3 f + k]: the edges of each face, from the tets (face f of a tet
 * is opposite local vertex f: its edges are those not touching f). */
static em_err topo_face_edges(const em_mesh *m, int32_t **fe) {
  EM_TRY(em_calloc(fe, 3 * (size_t)m->n_face + 1, sizeof **fe, "face edges"));
  for (int32_t t = 0; t < m->n_tet; t++)
    for (int f = 0; f < 4; f++) {
      int32_t *e3 = *fe + 3 * (size_t)m->tet_face[4 * t + f];
      int k = 0;
      for (int e = 0; e < 6; e++)
        if (EM_TET_EDGE[e][0] != f && EM_TET_EDGE[e][1] != f) e3[k++] = m->tet_edge[6 * t + e];
    }
  return EM_OK;
}

/* Coreductions (Mrozek and Batko): take a vertex out (it carries b0: one
 * per connected piece), then, breadth first from what was taken out, a
 * cell a whose boundary among the cells left is one cell t leaves with t.
 * Each step keeps the homology of what is left (an S-complex, whose
 * boundary is the full one restricted), and the sweep leaves little more
 * than one cell per generator.  *picked counts the vertices taken out. */
static em_err topo_coreduce(const topo_cplx *K, uint8_t *alive[4], int64_t *picked) {
  int64_t off[5] = {0}, total;
  for (int d = 0; d <= 3; d++) off[d + 1] = off[d] + (d <= K->top ? K->n[d] : 0);
  total = off[K->top + 1];
  int32_t *ptr[4] = {0}, *cof[4] = {0};
  int64_t *queue = NULL, head = 0, tail = 0, vnext = 0;
  uint8_t *queued = NULL;
  em_err err = em_calloc(&queue, (size_t)total + 1, sizeof *queue, "coreduction queue");
  if (!err) err = em_calloc(&queued, (size_t)total + 1, 1, "queued cells");
  /* cofaces of the (d-1)-cells, CSR */
  for (int d = 1; d <= K->top && !err; d++) {
    const int nb = d + 1;
    err = em_calloc(&ptr[d - 1], (size_t)K->n[d - 1] + 2, sizeof *ptr[d - 1], "coface pointers");
    if (!err) err = em_calloc(&cof[d - 1], (size_t)nb * K->n[d] + 1, sizeof *cof[d - 1], "cofaces");
    if (err) break;
    int32_t *p = ptr[d - 1];
    for (int64_t c = 0; c < (int64_t)nb * K->n[d]; c++) p[K->bd[d][c] + 2]++;
    for (int32_t i = 0; i < K->n[d - 1]; i++) p[i + 2] += p[i + 1];
    for (int32_t c = 0; c < K->n[d]; c++)
      for (int k = 0; k < nb; k++) cof[d - 1][p[K->bd[d][(size_t)nb * c + k] + 1]++] = c;
  }
  const int64_t cap = total + 1;
#define TOPO_PUSH(dim, i)           \
  do {                              \
    int64_t code_ = off[dim] + (i); \
    if (!queued[code_]) {           \
      queued[code_] = 1;            \
      queue[tail] = code_;          \
      tail = (tail + 1) % cap;      \
    }                               \
  } while (0)
#define TOPO_PUSH_COFACES(dim, i)                                               \
  do {                                                                          \
    if ((dim) < K->top)                                                         \
      for (int32_t q_ = ptr[dim][i]; q_ < ptr[dim][(i) + 1]; q_++)              \
        if (alive[(dim) + 1][cof[dim][q_]]) TOPO_PUSH((dim) + 1, cof[dim][q_]); \
  } while (0)
  while (!err) {
    while (vnext < K->n[0] && !alive[0][vnext]) vnext++;
    if (vnext == K->n[0]) break;
    alive[0][vnext] = 0; /* a new piece: its vertex carries b0 */
    (*picked)++;
    TOPO_PUSH_COFACES(0, vnext);
    while (head != tail) {
      const int64_t code = queue[head];
      head = (head + 1) % cap;
      queued[code] = 0;
      int d = 1;
      while (code >= off[d + 1]) d++;
      const int32_t a = (int32_t)(code - off[d]);
      if (!alive[d][a]) continue;
      int nb_alive = 0;
      int32_t t = -1;
      for (int k = 0; k <= d; k++)
        if (alive[d - 1][K->bd[d][(size_t)(d + 1) * a + k]])
          nb_alive++, t = K->bd[d][(size_t)(d + 1) * a + k];
      if (nb_alive == 0) {
        TOPO_PUSH_COFACES(d, a);
      } else if (nb_alive == 1) { /* coreduction pair (a, t) */
        alive[d][a] = alive[d - 1][t] = 0;
        TOPO_PUSH_COFACES(d - 1, t);
        TOPO_PUSH_COFACES(d, a);
      }
    }
  }
#undef TOPO_PUSH
#undef TOPO_PUSH_COFACES
  for (int d = 0; d < 4; d++) {
    em_free(&ptr[d]);
    em_free(&cof[d]);
  }
  em_free(&queue);
  em_free(&queued);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

/* rank over GF(2) of the incidence of the alive d-cells on the alive
 * (d-1)-cells, dense. */
static em_err topo_core_rank(const topo_cplx *K, uint8_t *alive[4], int d, em_backend be,
                             int64_t *rank) {
  int32_t *id = NULL, nlo = 0, nhi = 0;
  EM_TRY(em_calloc(&id, (size_t)K->n[d - 1] + 1, sizeof *id, "core numbering"));
  for (int32_t i = 0; i < K->n[d - 1]; i++) id[i] = alive[d - 1][i] ? nlo++ : -1;
  for (int32_t c = 0; c < K->n[d]; c++) nhi += alive[d][c];
  em_gf2 *A = NULL;
  em_err err = EM_OK;
  if (nlo > TOPO_CORE_MAX || nhi > TOPO_CORE_MAX)
    err = EM_RAISE(EM_ERR_UNSUPPORTED,
                   "topology: %d %d-cells and %d %d-cells left after the coreductions (at most %d)",
                   nhi, d, nlo, d - 1, TOPO_CORE_MAX);
  if (!err) err = em_gf2_create(nhi, nlo, &A);
  for (int32_t c = 0, r = 0; !err && c < K->n[d]; c++) {
    if (!alive[d][c]) continue;
    for (int k = 0; k <= d; k++) { /* the boundary restricted to the cells left */
      const int32_t j = id[K->bd[d][(size_t)(d + 1) * c + k]];
      if (j >= 0) em_gf2_flip(A, r, j);
    }
    r++;
  }
  int32_t rk = 0;
  if (!err && nhi > 0 && nlo > 0) err = em_gf2_rank(A, be, &rk);
  *rank += rk;
  em_gf2_destroy(&A);
  em_free(&id);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

/* Betti numbers of K: coreduce, rank what is left (primes), then
 * b_k = n'_k - r'_k - r'_{k+1} (+ the vertices taken out, for b0). */
static em_err topo_betti(const topo_cplx *K, em_backend be, em_betti *b) {
  uint8_t *alive[4] = {0};
  int64_t rank[5] = {0};
  em_err err = EM_OK;
  memset(b, 0, sizeof *b);
  for (int d = 0; d <= K->top && !err; d++) {
    err = em_calloc(&alive[d], (size_t)K->n[d] + 1, 1, "alive cells");
    if (!err) memset(alive[d], 1, (size_t)K->n[d]);
  }
  int64_t picked = 0;
  if (!err) err = topo_coreduce(K, alive, &picked);
  for (int d = 0; d <= K->top && !err; d++)
    for (int32_t i = 0; i < K->n[d]; i++) b->core[d] += alive[d][i];
  for (int d = 1; d <= K->top && !err; d++) err = topo_core_rank(K, alive, d, be, &rank[d]);
  for (int d = 0; d <= K->top && !err;
       d++) { /* then the full ranks from n_k = b_k + r_k + r_{k+1} */
    b->cells[d] = K->n[d];
    b->b[d] = (int)(b->core[d] - rank[d] - rank[d + 1] + (d == 0 ? picked : 0));
    b->rank[d] = d == 0 ? 0 : K->n[d - 1] - b->b[d - 1] - b->rank[d - 1];
  }
  for (int d = 0; d <= K->top; d++) em_free(&alive[d]);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

em_err em_post_betti(const em_mesh *m, int group, em_backend be, em_betti *b) {
  EM_CHECK(m && b, EM_ERR_ARG, "topology: NULL mesh or result");
  EM_CHECK(group < m->n_group, EM_ERR_ARG, "topology: group %d of %d", group, m->n_group);
  int32_t *fe = NULL, *lv = NULL, *le = NULL, *lf = NULL, *ebd = NULL, *fbd = NULL;
  EM_TRY(topo_face_edges(m, &fe));
  topo_cplx K = {3, {m->n_vert, m->n_edge, m->n_face, m->n_tet}, {NULL, m->edge, fe, m->tet_face}};
  em_err err = EM_OK;
  if (group >= 0) { /* the group's triangles, their edges and vertices, renumbered */
    err = em_calloc(&lv, (size_t)m->n_vert + 1, sizeof *lv, "surface vertices");
    if (!err) err = em_calloc(&le, (size_t)m->n_edge + 1, sizeof *le, "surface edges");
    if (!err) err = em_calloc(&lf, (size_t)m->n_face + 1, sizeof *lf, "surface faces");
    if (!err) err = em_calloc(&fbd, 3 * (size_t)m->n_tri + 1, sizeof *fbd, "surface face edges");
    if (!err) err = em_calloc(&ebd, 2 * (size_t)m->n_edge + 1, sizeof *ebd, "surface edge ends");
    int32_t nv = 0, ne = 0, nf = 0;
    for (int32_t t = 0; !err && t < m->n_tri; t++) {
      const int32_t f = m->tri_face[t];
      if (m->tri_group[t] != group || lf[f]) continue;
      lf[f] = ++nf;
      for (int k = 0; k < 3; k++) {
        const int32_t e = fe[3 * (size_t)f + k];
        if (!le[e]) {
          le[e] = ++ne;
          for (int a = 0; a < 2; a++) {
            const int32_t v = m->edge[2 * (size_t)e + a];
            if (!lv[v]) lv[v] = ++nv;
            ebd[2 * (size_t)(ne - 1) + a] = lv[v] - 1;
          }
        }
        fbd[3 * (size_t)(nf - 1) + k] = le[e] - 1;
      }
    }
    K = (topo_cplx){2, {nv, ne, nf, 0}, {NULL, ebd, fbd, NULL}};
  }
  if (!err) err = topo_betti(&K, be, b);
  em_free(&fe);
  em_free(&lv);
  em_free(&le);
  em_free(&lf);
  em_free(&ebd);
  em_free(&fbd);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

static const char *topo_port_kind(em_port_type t) {
  return t == EM_PORT_COAX ? "coax" : t == EM_PORT_WAVEGUIDE ? "waveguide" : "lumped";
}

em_err em_post_topology_log(const em_mesh *m, const em_port *ports, int n_port, em_backend be,
                            const em_log *log, em_betti *vol) {
  EM_CHECK(m && vol && (ports || n_port == 0), EM_ERR_ARG, "topology log: NULL argument");
  double t0 = em_wtime();
  em_err err = em_post_betti(m, -1, be, vol);
  if (err == EM_ERR_UNSUPPORTED) { /* a core too large: say so, solve on */
    em_log_warn(log, "%s", em_error_message());
    em_error_clear();
    return EM_OK;
  }
  EM_TRY(err);
  em_log_info(log,
              "topology (Z2 ranks, %s): b0 %d  b1 %d  b2 %d  b3 %d  (left after coreductions: %lld "
              "vertices, %lld edges, %lld faces, %lld tets; %.2f s)",
              be == EM_BACKEND_CUDA ? "GPU" : "CPU", vol->b[0], vol->b[1], vol->b[2], vol->b[3],
              (long long)vol->core[0], (long long)vol->core[1], (long long)vol->core[2],
              (long long)vol->core[3], em_wtime() - t0);
  em_log_info(log, "curl null space (lowest order, before boundary conditions): V - b0 + b1 = %lld",
              (long long)(vol->cells[0] - vol->b[0] + vol->b[1]));
  if (vol->b[0] != 1) em_log_warn(log, "the meshed volume is in %d disconnected pieces", vol->b[0]);
  for (int i = 0; i < n_port; i++) {
    em_betti b;
    err = em_post_betti(m, ports[i].group, be, &b);
    if (err == EM_ERR_UNSUPPORTED) {
      em_log_warn(log, "%s: %s", ports[i].name, em_error_message());
      em_error_clear();
      continue;
    }
    EM_TRY(err);
    /* a coax port is an annulus (its TEM mode is the harmonic field of the
     * one loop); waveguide and lumped ports are simply connected */
    const int want = ports[i].type == EM_PORT_COAX;
    em_log_info(log, "topology: %s (%s) b0 %d  b1 %d", ports[i].name, topo_port_kind(ports[i].type),
                b.b[0], b.b[1]);
    if (b.b[0] != 1 || b.b[1] != want)
      em_log_warn(log,
                  "%s: a %s port should be one piece with %d hole%s, the mesh has b0 %d, b1 %d: "
                  "the port mode assumes that shape",
                  ports[i].name, topo_port_kind(ports[i].type), want, want == 1 ? "" : "s", b.b[0],
                  b.b[1]);
  }
  return EM_OK;
}
