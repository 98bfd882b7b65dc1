/* fem_pattern.c - the sparsity pattern of an order-p Nedelec system on a tet
 * mesh (see fem_pattern.h for the DOF layout), with hashed complex symmetric
 * values.  Rows of one entity share one pattern, so the pattern is built per
 * entity (edge, face, cell) and copied to the entity's DOFs. */
#include "fem_pattern.h"

#include <stdlib.h>
#include <string.h>

/* Cumulative DOFs per entity up to order q: edges q, faces q(q-1), cells
 * q(q-1)(q-2)/2; group g holds the slots [cum(g-1), cum(g)). */
static int cum_dofs(int kind, int q) {
  if (q <= 0) return 0;
  if (kind == 0) return q;
  if (kind == 1) return q * (q - 1);
  return q * (q - 1) * (q - 2) / 2;
}

/* Numbering of the DOFs: n_ent[kind] entities, order p. */
typedef struct dof_layout {
  int p;                            /* order */
  int32_t n_ent[3];                 /* edges, faces, cells */
  int32_t offset[EM_MAX_ORDER + 1]; /* group g-1 = DOFs offset[g-1]..offset[g]-1 */
} dof_layout;

static em_err layout_init(const em_mesh *m, int p, dof_layout *L) {
  memset(L, 0, sizeof *L);
  L->p = p;
  L->n_ent[0] = m->n_edge;
  L->n_ent[1] = m->n_face;
  L->n_ent[2] = m->n_tet;
  int64_t off = 0;
  for (int g = 1; g <= p; g++) {
    for (int kind = 0; kind < 3; kind++)
      off += (int64_t)L->n_ent[kind] * (cum_dofs(kind, g) - cum_dofs(kind, g - 1));
    EM_CHECK(off <= INT32_MAX, EM_ERR_ARG, "order-%d pattern of %d tets has %lld DOFs (> 2^31)", p,
             m->n_tet, (long long)off);
    L->offset[g] = (int32_t)off;
  }
  return EM_OK;
}

/* Global DOF of slot `slot` of entity e of a kind: group g of the slot,
 * then edges, faces, cells of that group, slots of one entity together. */
static int32_t dof_of(const dof_layout *L, int kind, int32_t e, int slot) {
  int g = 1;
  while (slot >= cum_dofs(kind, g)) g++;
  int64_t d = L->offset[g - 1];
  for (int k = 0; k < kind; k++) d += (int64_t)L->n_ent[k] * (cum_dofs(k, g) - cum_dofs(k, g - 1));
  int per = cum_dofs(kind, g) - cum_dofs(kind, g - 1);
  return (int32_t)(d + (int64_t)e * per + (slot - cum_dofs(kind, g - 1)));
}

/* DOFs of tet t, local order: edges, faces, cell; returns the count. */
static int tet_dofs(const em_mesh *m, const dof_layout *L, int32_t t, int32_t *d) {
  int n = 0, p = L->p;
  for (int e = 0; e < 6; e++)
    for (int s = 0; s < cum_dofs(0, p); s++) d[n++] = dof_of(L, 0, m->tet_edge[6 * t + e], s);
  for (int f = 0; f < 4; f++)
    for (int s = 0; s < cum_dofs(1, p); s++) d[n++] = dof_of(L, 1, m->tet_face[4 * t + f], s);
  for (int s = 0; s < cum_dofs(2, p); s++) d[n++] = dof_of(L, 2, t, s);
  return n;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Value of the pair (i, j): splitmix64 of (min, max, seed), mapped to
 * [-1, 1) + i [-1, 1); symmetric by construction. */
em_cplx em_fem_pair_value(int32_t i, int32_t j, unsigned seed) {
  uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
  uint64_t z = (lo << 32 | hi) ^ ((uint64_t)seed * 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  double re = (double)(z >> 40) / (double)(1ULL << 23) - 1.0;
  double im = (double)(z & 0xFFFFFF) / (double)(1ULL << 23) - 1.0;
  return re + I * im;
}

/* Tets around every entity of a kind as CSR lists (ptr[n+1], tets[ptr[n]]). */
static em_err entity_tets(const em_mesh *m, int kind, int64_t **ptr_out, int32_t **tets_out) {
  int32_t n = kind == 0 ? m->n_edge : kind == 1 ? m->n_face : m->n_tet;
  int per = kind == 0 ? 6 : kind == 1 ? 4 : 1;
  const int32_t *map = kind == 0 ? m->tet_edge : kind == 1 ? m->tet_face : NULL;
  int64_t *ptr = NULL;
  int32_t *tets = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&ptr, (size_t)n + 1, sizeof *ptr, "entity-to-tet lists"));
  for (int32_t t = 0; t < m->n_tet; t++)
    for (int a = 0; a < per; a++) ptr[(map ? map[per * t + a] : t) + 1]++;
  for (int32_t e = 0; e < n; e++) ptr[e + 1] += ptr[e];
  EM_TRY_GOTO(err, em_calloc(&tets, (size_t)ptr[n], sizeof *tets, "entity-to-tet lists"), done);
  for (int32_t t = 0; t < m->n_tet; t++)
    for (int a = 0; a < per; a++) tets[ptr[map ? map[per * t + a] : t]++] = t;
  for (int32_t e = n; e > 0; e--) ptr[e] = ptr[e - 1];
  ptr[0] = 0;
  *ptr_out = ptr;
  *tets_out = tets;
  return EM_OK;
done:
  em_free(&ptr);
  return err;
}

/* Sorted unique DOFs of the tets around entity e into buf; returns count.
 * buf has room for (tets around e) x (DOFs per tet). */
static int64_t entity_pattern(const em_mesh *m, const dof_layout *L, const int64_t *ptr,
                              const int32_t *tets, int32_t e, int32_t *buf) {
  int64_t n = 0;
  for (int64_t k = ptr[e]; k < ptr[e + 1]; k++) n += tet_dofs(m, L, tets[k], buf + n);
  qsort(buf, (size_t)n, sizeof *buf, cmp_i32);
  int64_t w = 0;
  for (int64_t k = 0; k < n; k++)
    if (w == 0 || buf[w - 1] != buf[k]) buf[w++] = buf[k];
  return w;
}

/* One pass over the entities of every kind: pass 0 stores the row lengths
 * in len[d + 1], pass 1 writes columns and values of every DOF d of the
 * entity.  Returns nonzero when a per-thread buffer could not be allocated. */
static int pattern_pass(const em_mesh *m, const dof_layout *L, int64_t *const eptr[3],
                        int32_t *const etets[3], int64_t most, int nd, unsigned seed, int pass,
                        int64_t *len, em_csr *A) {
  int fail = 0;
#pragma omp parallel
  {
    int32_t *buf = malloc(((size_t)most * (size_t)nd + 1) * sizeof *buf);
    if (!buf) {
#pragma omp atomic write
      fail = 1;
    }
    for (int kind = 0; kind < 3; kind++) {
#pragma omp for schedule(dynamic, 64)
      for (int32_t e = 0; e < L->n_ent[kind]; e++) {
        if (!buf) continue;
        int64_t c = entity_pattern(m, L, eptr[kind], etets[kind], e, buf);
        for (int s = 0; s < cum_dofs(kind, L->p); s++) {
          int32_t d = dof_of(L, kind, e, s);
          if (pass == 0) {
            len[d + 1] = c;
            continue;
          }
          int64_t b = A->rowptr[d];
          for (int64_t k = 0; k < c; k++) {
            A->colind[b + k] = buf[k];
            A->val[b + k] = em_fem_pair_value(d, buf[k], seed);
          }
        }
      }
    }
    free(buf);
  }
  return fail;
}

em_err em_fem_pattern(const em_mesh *m, int order, unsigned seed, em_csr **Aout,
                      em_blockmat **Bout) {
  EM_CHECK(m && (Aout || Bout), EM_ERR_ARG, "em_fem_pattern: no mesh or no output");
  EM_CHECK(order >= 1 && order <= EM_MAX_ORDER, EM_ERR_ARG, "order %d not in 1..%d", order,
           EM_MAX_ORDER);
  if (Aout) *Aout = NULL;
  if (Bout) *Bout = NULL;
  dof_layout L;
  EM_TRY(layout_init(m, order, &L));
  em_err err = EM_OK;
  int64_t *eptr[3] = {NULL, NULL, NULL}, *len = NULL;
  int32_t *etets[3] = {NULL, NULL, NULL};
  em_csr *A = NULL;
  int32_t n = L.offset[order];
  int nd = 6 * cum_dofs(0, order) + 4 * cum_dofs(1, order) + cum_dofs(2, order);
  int64_t most = 0; /* the most tets around one entity */
  for (int kind = 0; kind < 3; kind++) {
    EM_TRY_GOTO(err, entity_tets(m, kind, &eptr[kind], &etets[kind]), done);
    for (int32_t e = 0; e < L.n_ent[kind]; e++)
      if (eptr[kind][e + 1] - eptr[kind][e] > most) most = eptr[kind][e + 1] - eptr[kind][e];
  }
  EM_TRY_GOTO(err, em_calloc(&len, (size_t)n + 1, sizeof *len, "row lengths"), done);
  if (pattern_pass(m, &L, eptr, etets, most, nd, seed, 0, len, NULL)) goto nomem;
  for (int32_t i = 0; i < n; i++) len[i + 1] += len[i];
  EM_TRY_GOTO(err, em_csr_create(n, n, len[n], &A), done);
  memcpy(A->rowptr, len, ((size_t)n + 1) * sizeof *len);
  if (pattern_pass(m, &L, eptr, etets, most, nd, seed, 1, len, A)) goto nomem;
  if (Bout) EM_TRY_GOTO(err, em_blockmat_from_csr(A, order, L.offset, Bout), done);
  if (Aout) {
    *Aout = A;
    A = NULL;
  }
  goto done;
nomem:
  err = EM_RAISE(EM_ERR_MEMORY, "out of memory for the per-thread pattern buffers (%lld ints)",
                 (long long)most * nd);
done:
  em_free(&len);
  em_csr_destroy(&A);
  for (int kind = 0; kind < 3; kind++) {
    em_free(&eptr[kind]);
    em_free(&etets[kind]);
  }
  return err;
}

em_err em_fem_pattern_box(int n, int order, unsigned seed, em_csr **A, em_blockmat **B) {
  em_mesh *m = NULL;
  EM_TRY(em_mesh_box(n, n, n, 1.0, 1.0, 1.0, 0.2, seed, &m));
  em_err err = em_fem_pattern(m, order, seed, A, B);
  em_mesh_destroy(&m);
  if (err) return em_error_trace(err, __FILE__, __LINE__);
  return EM_OK;
}
