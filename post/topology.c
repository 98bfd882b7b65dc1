/* topology.c - Betti numbers of the mesh over Z2: of the meshed volume
 * (vertices, edges, faces, tets) and of each surface group (vertices,
 * edges, triangles).
 *
 * b_k = n_k - rank d_k - rank d_{k+1}, d_k the incidence matrix of k-cells
 * on (k-1)-cells mod 2.  The full matrices of a real mesh are far too large
 * for dense elimination, so the complex is first reduced by elementary
 * collapses (a (k-1)-cell with a single coface k-cell leaves with it), which
 * keep its homotopy type; each collapse adds one to the rank of d_k, and
 * what remains (a point for a ball) is ranked by dense GF(2) elimination
 * (linalg/, CPU or GPU).  For a region of space Z2 ranks give the real
 * Betti numbers (no torsion): b0 pieces, b1 independent loops (the coax:
 * 1), b2 enclosed cavities (a metal body inside the air box: 1).  The
 * lowest-order curl has a null space of dimension V - b0 + b1 (gradients
 * plus b1 harmonic fields) before boundary conditions. */
#include "em_linalg.h"
#include "em_post.h"

#include <string.h>

/* a simplicial complex: n[d] cells of dimension d, cell i of dimension
 * d >= 1 bounded by bd[d][(d + 1) i + k], k <= d */
typedef struct {
  int top;
  int32_t n[4];
  const int32_t *bd[4];
} topo_cplx;

/* the core left after the collapses may not exceed this many cells of one
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

/* Collapse pairs (sigma of dim d-1, tau of dim d), d = top .. 1: sigma has
 * one alive coface tau and tau no alive coface.  alive[d][i] marks what is
 * left; ranks[d] counts the pairs (each one adds 1 to rank d_d). */
static em_err topo_collapse(const topo_cplx *K, uint8_t *alive[4], int64_t ranks[4]) {
  int32_t *cnt[4] = {0}, *ptr = NULL, *adj = NULL, *stack = NULL;
  em_err err = EM_OK;
  for (int d = 0; d <= K->top && !err; d++)
    err = em_calloc(&cnt[d], (size_t)K->n[d] + 1, sizeof *cnt[d], "coface counts");
  for (int d = K->top; d >= 1 && !err; d--) {
    const int nb = d + 1;
    const int32_t nlo = K->n[d - 1], nhi = K->n[d];
    /* cofaces of the (d-1)-cells: CSR, and the counts of alive ones */
    em_free(&ptr);
    em_free(&adj);
    em_free(&stack);
    err = em_calloc(&ptr, (size_t)nlo + 2, sizeof *ptr, "coface pointers");
    if (!err) err = em_calloc(&adj, (size_t)nb * nhi + 1, sizeof *adj, "cofaces");
    if (!err) err = em_calloc(&stack, (size_t)nb * nhi + nlo + 1, sizeof *stack, "collapse stack");
    if (err) break;
    memset(cnt[d - 1], 0, (size_t)nlo * sizeof *cnt[d - 1]);
    for (int32_t c = 0; c < nhi; c++)
      for (int k = 0; k < nb; k++) {
        ptr[K->bd[d][(size_t)nb * c + k] + 2]++;
        if (alive[d][c]) cnt[d - 1][K->bd[d][(size_t)nb * c + k]]++;
      }
    for (int32_t i = 0; i < nlo; i++) ptr[i + 2] += ptr[i + 1];
    for (int32_t c = 0; c < nhi; c++)
      for (int k = 0; k < nb; k++) adj[ptr[K->bd[d][(size_t)nb * c + k] + 1]++] = c;
    int64_t top = 0;
    for (int32_t i = 0; i < nlo; i++)
      if (alive[d - 1][i] && cnt[d - 1][i] == 1) stack[top++] = i;
    while (top > 0) {
      const int32_t s = stack[--top];
      if (!alive[d - 1][s] || cnt[d - 1][s] != 1) continue;
      int32_t tau = -1;
      for (int32_t q = ptr[s]; q < ptr[s + 1] && tau < 0; q++)
        if (alive[d][adj[q]]) tau = adj[q];
      if (tau < 0 || (d < K->top && cnt[d][tau] > 0)) continue; /* tau not maximal */
      alive[d - 1][s] = alive[d][tau] = 0;
      ranks[d]++;
      for (int k = 0; k < nb; k++) {
        const int32_t s2 = K->bd[d][(size_t)nb * tau + k];
        if (--cnt[d - 1][s2] == 1 && alive[d - 1][s2]) stack[top++] = s2;
      }
    }
  }
  for (int d = 0; d <= K->top; d++) em_free(&cnt[d]);
  em_free(&ptr);
  em_free(&adj);
  em_free(&stack);
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
                   "topology: %d %d-cells and %d %d-cells left after the collapses (at most %d)",
                   nhi, d, nlo, d - 1, TOPO_CORE_MAX);
  if (!err) err = em_gf2_create(nhi, nlo, &A);
  for (int32_t c = 0, r = 0; !err && c < K->n[d]; c++) {
    if (!alive[d][c]) continue;
    for (int k = 0; k <= d; k++) em_gf2_flip(A, r, id[K->bd[d][(size_t)(d + 1) * c + k]]);
    r++;
  }
  int32_t rk = 0;
  if (!err && nhi > 0 && nlo > 0) err = em_gf2_rank(A, be, &rk);
  *rank += rk;
  em_gf2_destroy(&A);
  em_free(&id);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

/* Betti numbers of K: collapse, rank the core, b_k = n_k - r_k - r_{k+1}. */
static em_err topo_betti(const topo_cplx *K, em_backend be, em_betti *b) {
  uint8_t *alive[4] = {0};
  int64_t rank[5] = {0};
  em_err err = EM_OK;
  memset(b, 0, sizeof *b);
  for (int d = 0; d <= K->top && !err; d++) {
    err = em_calloc(&alive[d], (size_t)K->n[d] + 1, 1, "alive cells");
    if (!err) memset(alive[d], 1, (size_t)K->n[d]);
  }
  if (!err) err = topo_collapse(K, alive, rank);
  for (int d = 0; d <= K->top && !err; d++)
    for (int32_t i = 0; i < K->n[d]; i++) b->core[d] += alive[d][i];
  for (int d = 1; d <= K->top && !err; d++) err = topo_core_rank(K, alive, d, be, &rank[d]);
  for (int d = 0; d <= K->top && !err; d++) {
    b->cells[d] = K->n[d];
    b->rank[d] = rank[d];
    b->b[d] = (int)(K->n[d] - rank[d] - rank[d + 1]);
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
              "topology (Z2 ranks, %s): b0 %d  b1 %d  b2 %d  b3 %d  (core after collapses: %lld "
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
