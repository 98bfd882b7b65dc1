/* em_graph.h - sparse graphs and their orderings, below mesh/ and solver/.
 *
 * The adjacency graph of a symmetric pattern (a mesh's vertex graph, or the
 * graph of A + A^T for a matrix), and the orderings of it that the rest of
 * the code applies: reverse Cuthill-McKee for locality, METIS nested
 * dissection for fill, greedy (block) multicolouring for short level
 * schedules.  Every permutation is perm[old] = new.
 */
#ifndef EM_GRAPH_H
#define EM_GRAPH_H

#include "em_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adjacency lists: the neighbours of vertex i are adj[ptr[i] .. ptr[i+1]-1],
 * sorted; self loops may appear and are ignored by every ordering. */
typedef struct em_graph {
  int32_t n;    /* vertices */
  int64_t *ptr; /* n+1 offsets into adj */
  int32_t *adj; /* neighbours, sorted within each vertex */
  int owned;    /* 1: ptr/adj allocated here; 0: they are A's arrays */
} em_graph;

/* The graph of A + A^T for a square CSR with sorted columns; A's own arrays
 * (no copy) when its pattern is already symmetric. */
em_err em_graph_of(const em_csr *A, em_graph *g);
void em_graph_free(em_graph *g);

typedef enum em_ordering {
  EM_ORDERING_NATURAL = 0,
  EM_ORDERING_RCM,
  EM_ORDERING_ND, /* METIS nested dissection */
  EM_ORDERING_MC, /* greedy multicolouring: few levels, more iterations */
  EM_ORDERING_BMC /* block multicolouring (Iwashita et al. 2012): blocks of
                     `block` neighbours grown breadth-first, blocks coloured */
} em_ordering;

/* "natural", "rcm", "nd", "mc", "bmc". */
const char *em_ordering_name(em_ordering o);
em_err em_ordering_parse(const char *s, em_ordering *o);

/* perm[old] = new for ordering o of g; *colors = colours of MC / BMC (0
 * for the others).  block: the BMC block size (1 for MC). */
em_err em_graph_order(const em_graph *g, em_ordering o, int block, int32_t *perm, int *colors);

/* The orderings one by one, on adjacency lists (ptr, adj) of n vertices. */
em_err em_order_rcm(int32_t n, const int64_t *ptr, const int32_t *adj, int32_t *perm);
em_err em_order_nd(int32_t n, const int64_t *ptr, const int32_t *adj, int32_t *perm);
em_err em_order_color(const em_graph *g, int block, int32_t *perm, int *colors);

/* part[i] in 0..nparts-1 for the n vertices of (ptr, adj) (self loops
 * ignored): METIS k-way, edge cut minimised with the parts' sums of vwgt
 * (NULL: 1 each; weights < 1 count as 1) balanced; the same parts for the
 * same input (fixed seed).  One part: every vertex in part 0. */
em_err em_graph_partition(int32_t n, const int64_t *ptr, const int32_t *adj, const int32_t *vwgt,
                          int nparts, int32_t *part);

/* Supervariables (graph/compress.c): vertices with the same closed
 * neighbourhood adj(i) + {i}, merged.  sv[i] is i's supervariable
 * (numbered by their smallest members, ascending), its members are
 * member[start[s] .. start[s+1]-1] (ascending), wgt[s] their number; g
 * is the quotient graph, without self loops. */
typedef struct em_graph_quot {
  em_graph g;
  int32_t *sv;     /* [n] */
  int32_t *wgt;    /* [g.n] */
  int32_t *start;  /* [g.n + 1] */
  int32_t *member; /* [n] */
} em_graph_quot;

em_err em_graph_compress(const em_graph *g, em_graph_quot *q);
void em_graph_quot_free(em_graph_quot *q);

/* Nested dissection options: on the quotient graph (compress, when it has
 * at most n / min_ratio vertices), METIS' separators per level (seps; 0:
 * its default). */
typedef struct em_nd_opts {
  int compress;     /* 1: order the supervariables (default), 0: the whole graph in one
                       METIS call with its default options (the ordering before) */
  double min_ratio; /* compress only when n >= min_ratio x supervariables (1.2) */
  int seps;         /* METIS_OPTION_NSEPS, 0: METIS' default */
  int tree;         /* 1: the quotient's top separator levels split between
                       threads (graph/nd_tree.c; default), 0: one METIS call */
} em_nd_opts;

typedef struct em_nd_info {
  int32_t n;         /* vertices */
  int32_t n_sv;      /* vertices METIS ordered (supervariables, or n) */
  double t_compress; /* seconds finding the supervariables */
  double t_metis;    /* seconds in METIS and the expansion */
} em_nd_info;

void em_nd_opts_default(em_nd_opts *o);
/* perm[old] = new: nested dissection of (n, ptr, adj) with vertex weights
 * w (NULL: 1), seps separators tried per bisection (0: METIS'), its top separator levels (a number
 * that depends on n only) split between OpenMP threads; the same result for any thread count. */
em_err em_nd_tree(int32_t n, const int64_t *ptr, const int32_t *adj, const int32_t *w, int seps,
                  int32_t *perm);
/* em_order_nd with options (NULL: default) and what it did (info may be NULL). */
em_err em_order_nd_ex(int32_t n, const int64_t *ptr, const int32_t *adj, const em_nd_opts *o,
                      int32_t *perm, em_nd_info *info);
/* em_order_nd_ex that hands the quotient graph it ordered to the caller
 * (*keep, to free with em_graph_quot_free; all zero when it ordered the
 * whole graph): each supervariable's members hold consecutive positions of
 * perm, which the symbolic factorization exploits. */
em_err em_order_nd_quot(int32_t n, const int64_t *ptr, const int32_t *adj, const em_nd_opts *o,
                        int32_t *perm, em_nd_info *info, em_graph_quot *keep);

/* ------------------------------------------- bitmap of the seed-004 patent
 *
 * A matrix stored as dense per-row flag words: bit j % 64 of word
 * flag[i words + j / 64] says whether a(i, j) is stored (the bits past
 * n_cols stay zero); rs[i] counts the stored entries of the rows before i.
 * The stored values (optional: a pattern-only matrix has val NULL) are in
 * row order, columns ascending, so a(i, j) is
 *   val[rs[i] + popcount(row i's flags left of j)]
 * (popcount access: no column index is stored).  n_rows n_cols / 8 bytes
 * of flags whatever the density: it pays where the pattern is dense
 * enough (more than one entry in 32 against a 32-bit column index) or
 * short (one word per row), and unions, products and fill are ORs of words.
 * graph/bmp.c, bmp_ops.c, bmp_lu.c; docs/formats.md. */
typedef struct em_bmp {
  int32_t n_rows, n_cols;
  int32_t words;  /* 64-bit flag words per row, ceil(n_cols / 64) */
  uint64_t *flag; /* [n_rows words] */
  int64_t *rs;    /* [n_rows + 1] row starts: stored entries before row i */
  em_cplx *val;   /* [rs[n_rows]] or NULL (pattern only) */
} em_bmp;

/* An empty n_rows x n_cols bitmap (no entry; rs all zero, val NULL). */
em_err em_bmp_create(int32_t n_rows, int32_t n_cols, em_bmp **B);
/* From a CSR (sorted, distinct columns); values copied when with_values. */
em_err em_bmp_from_csr(const em_csr *A, int with_values, em_bmp **B);
/* To a CSR (zero values for a pattern-only bitmap). */
em_err em_bmp_to_csr(const em_bmp *B, em_csr **A);
/* rs from the flags (after the flags changed), and val (zeroed, with_values
 * 1) or none (0). */
em_err em_bmp_finish(em_bmp *B, int with_values);
void em_bmp_destroy(em_bmp **B);
static inline int em_bmp_has(const em_bmp *B, int32_t i, int32_t j) {
  return (int)(B->flag[(int64_t)i * B->words + j / 64] >> (j % 64)) & 1;
}
/* The position of a(i, j) in val (popcount access), -1 when not stored. */
int64_t em_bmp_index(const em_bmp *B, int32_t i, int32_t j);
/* a(i, j): 0 when not stored or pattern only. */
em_cplx em_bmp_get(const em_bmp *B, int32_t i, int32_t j);

/* C = A + beta B (beta 1: the sum, -1: the difference), pattern the union
 * (an entry that cancels stays stored, as zero).  Values when both have. */
em_err em_bmp_add(const em_bmp *A, const em_bmp *B, double beta, em_bmp **C);
/* C = A B; the pattern of row i the OR of the rows k of B with a(i, k)
 * stored.  Pattern only unless both have values. */
em_err em_bmp_mul(const em_bmp *A, const em_bmp *B, em_bmp **C);
/* A = L U without pivoting, L unit lower (below the diagonal) and U (on and
 * above) in one bitmap: the fill of row i is the OR of the U parts of the
 * rows k < i it meets, in ascending k (a fill column met later in the same
 * sweep), then the values by Doolittle's up-looking rows.  A zero or
 * missing pivot is EM_ERR_NUMERIC naming the row. */
em_err em_bmp_lu(const em_bmp *A, em_bmp **LU);

#ifdef __cplusplus
}
#endif
#endif /* EM_GRAPH_H */
