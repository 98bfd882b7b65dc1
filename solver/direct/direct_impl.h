/* direct_impl.h - the sparse LDL^T factorization (private to solver/): the
 * symbolic structure, the numeric factor, the dense kernels of the
 * supernode blocks and the solves.
 *
 * Numbering.  "old" is the operator's numbering; "new" is the fill-reducing
 * ordering followed by a postorder of the elimination tree, perm[old] = new.
 * In the new numbering every supernode is a range of consecutive columns
 * and every subtree of the supernodal tree a range of consecutive
 * supernodes (descendants first).
 *
 * Storage.  Supernode s has k = super[s+1] - super[s] columns and m rows:
 * its k own columns, then the nb = m - k rows below them, ascending
 * (rows[rptr[s] .. rptr[s+1]-1]).  Its block of L is m x k, column-major
 * (leading dimension m) at lval + lptr[s]: the unit lower triangle L11 on
 * top (its strict upper triangle holds zeros, the diagonal is implied 1 and
 * stored as 1), L21 below.  D is a vector in the new numbering. */
#ifndef EM_SOLVER_DIRECT_IMPL_H
#define EM_SOLVER_DIRECT_IMPL_H

#include "backend_impl.h"
#include "em_graph.h"
#include "em_solver.h"

/* ------------------------------------------------------------ symbolic */

/* Wall seconds of the phases of the symbolic factorization. */
typedef struct em_dsym_times {
  double etree;      /* elimination tree */
  double postorder;  /* postorder and the permutations */
  double counts;     /* column counts, nnz(L), nnz(tril A) */
  double supernodes; /* fundamental supernodes and amalgamation */
  double rows;       /* row structure of every supernode */
  double positions;  /* rows' positions in the parent (prel) */
  double stats;      /* storage offsets, front work, stack */
} em_dsym_times;

typedef struct em_dsym {
  int32_t n;        /* order */
  int32_t *perm;    /* perm[old] = new */
  int32_t *iperm;   /* iperm[new] = old */
  int32_t ns;       /* supernodes */
  int32_t *super;   /* ns + 1: supernode s = columns super[s] .. super[s+1]-1 */
  int32_t *sparent; /* ns: parent supernode, -1 for a root */
  int32_t *first;   /* ns: first supernode of the subtree of s (s's range is
                       first[s] .. s) */
  int64_t *rptr;    /* ns + 1: rows of s at rows[rptr[s]] (m_s of them) */
  int32_t *rows;    /* row indices, new numbering, ascending per supernode */
  int32_t *prel;    /* rptr[ns]: for a row below supernode s, its position
                       among the rows of the parent supernode (-1 for the
                       rows of s's own columns) */
  int64_t *lptr;    /* ns + 1: block of s at lval + lptr[s] (m_s k_s entries) */
  double *work;     /* ns: real flops of the front of s */
  double *swork;    /* ns: entries of the block of s (the solves' work) */
  int64_t nnz_a;    /* entries of the lower triangle of P A P^T */
  int64_t nnz_l;    /* exact nonzeros of L, diagonal included */
  double flops;     /* sum of work */
  double solve_flops;
  int64_t cb_peak; /* entries of the largest frontal stack of a sequential
                      postorder traversal (update matrices alive at once) */
  int64_t cb_max;  /* entries of the largest single update matrix */
  int32_t max_front, max_cols;
  em_dsym_times t; /* seconds of each phase of em_dsym_build */
} em_dsym;

/* The symbolic factorization of the graph g of A (symmetric, self loops
 * allowed) under perm_ord (an ordering, perm[old] = new): elimination tree,
 * postorder, column counts, fundamental supernodes, relaxed amalgamation,
 * row structures, work estimates.  S->perm composes perm_ord with the
 * postorder.  On failure S holds nothing. */
em_err em_dsym_build(const em_graph *g, const int32_t *perm_ord, em_dsym *S);
/* The same from the quotient graph q of g's supervariables (NULL, or one
 * whose members perm_ord does not number consecutively: g itself): the
 * tree, counts and row structures of the supervariables, expanded; the
 * same S, bit for bit, as em_dsym_build. */
em_err em_dsym_build_quot(const em_graph *g, const em_graph_quot *q, const int32_t *perm_ord,
                          em_dsym *S);
void em_dsym_free(em_dsym *S);

/* The graph the symbolic factorization walks, in the postordered numbering
 * of its vertices (supervariables, or single vertices): vertex k stands for
 * the columns nf[k] .. nf[k+1]-1 of the factor (their weight wk[k]). */
typedef struct em_dsym_quot {
  int32_t nq;          /* vertices */
  const int64_t *qptr; /* adjacency of old vertex u: qadj[qptr[u] .. qptr[u+1]-1] */
  const int32_t *qadj; /* (old vertex numbers; self loops allowed) */
  int32_t *pq;         /* nq: pq[old] = postordered number k */
  int32_t *ipq;        /* nq: ipq[k] = old vertex */
  int32_t *wk;         /* nq: columns of vertex k */
  int32_t *nf;         /* nq + 1: first column of vertex k */
  int32_t *colq;       /* n: the vertex of column j (new numbering) */
} em_dsym_quot;

/* Row structure of every supernode of S (S->rptr known, S->rows allocated)
 * from the graph Q and the supernodal tree, children before parents;
 * checked against the counts S->rptr holds (direct_rows.c). */
em_err em_dsym_rows(const em_dsym_quot *Q, em_dsym *S);
/* S->prel: the position of every row below a supernode among its parent's
 * rows (direct_rows.c). */
em_err em_dsym_positions(em_dsym *S);

/* Elimination tree of P A P^T from the symmetric graph (ptr, adj) of A and
 * perm (old -> new): parent[j] in new numbering, -1 for roots. */
em_err em_dsym_etree(int32_t n, const int64_t *ptr, const int32_t *adj, const int32_t *perm,
                     const int32_t *iperm, int32_t *parent);
/* post[k] = the k-th node of a postorder of the forest parent. */
em_err em_dsym_postorder(int32_t n, const int32_t *parent, int32_t *post);
/* Column counts of L (diagonal included) for a postordered tree (parent[j]
 * > j) by Gilbert, Ng & Peyton's skeleton-leaf method; with vertex weights
 * w (NULL: 1) each row counts w[i] times. */
em_err em_dsym_colcounts(int32_t n, const int64_t *ptr, const int32_t *adj, const int32_t *perm,
                         const int32_t *iperm, const int32_t *parent, const int32_t *w,
                         int64_t *count);

/* ----------------------------------------------------------- schedule */

/* A step of a tree traversal: supernode s. */
typedef void (*em_dtree_fn)(void *ctx, int32_t s);
/* fn(ctx, s) for every supernode, children before parents (up) or parents
 * before children (down), on nt OpenMP threads (direct_sched.c); work[s]
 * weighs the subtrees for the split into tasks. */
em_err em_dtree_up(const em_dsym *S, const double *work, int nt, em_dtree_fn fn, void *ctx);
em_err em_dtree_down(const em_dsym *S, const double *work, int nt, em_dtree_fn fn, void *ctx);

/* ------------------------------------------------------------ kernels */

/* Which dense kernels the numeric phase and the solves use. */
typedef enum em_dk_kind {
  EM_DK_GENERIC = 0, /* portable C (2-wide vectors) */
  EM_DK_AVX2,        /* x86-64 AVX2 + FMA */
  EM_DK_AVX512,      /* x86-64 AVX-512F */
  EM_DK_BLAS         /* zgemm_ / ztrsm_ */
} em_dk_kind;

/* Tiles of the block updates: TB x TB entries of C, inner dimension in
 * chunks of KC. */
#define EM_DK_TB 192
#define EM_DK_KC 256
/* Widest block of the triangular solves (em_dk_trsm). */
#define EM_DK_IB 16
/* Doubles of the per-thread workspace of em_dk_update. */
#define EM_DK_WS ((size_t)2 * EM_DK_KC * (2 * EM_DK_TB + 64))

/* The best own kernel this CPU runs. */
em_dk_kind em_dk_best(void);
/* 1 when kind can run here (built in, CPU supports it). */
int em_dk_available(em_dk_kind kind);
const char *em_dk_name(em_dk_kind kind);

/* One tile: C -= A diag(d) B^T, C M x N (ldc), A M x K (lda), B N x K
 * (ldb), d K entries or NULL (identity), all column-major complex.  When
 * off >= 0 only entries with i + off >= j are needed (a tile on the
 * diagonal of a lower-triangular update): parts wholly above are skipped,
 * entries above may be written.  M, N <= EM_DK_TB.  ws: EM_DK_WS doubles
 * of this thread. */
void em_dk_tile(em_dk_kind kind, int64_t M, int64_t N, int64_t K, const em_cplx *A, int64_t lda,
                const em_cplx *d, const em_cplx *B, int64_t ldb, em_cplx *C, int64_t ldc,
                int64_t off, double *ws);
/* Rows of R (rows x b, ld ld) := R L11^-T D^-1 for the unit lower b x b
 * triangle L11 (ld ld), b <= EM_DK_IB; BLAS: ztrsm and a scaling. */
void em_dk_trsm(em_dk_kind kind, int64_t rows, int64_t b, const em_cplx *L11, int64_t ld,
                const em_cplx *d, em_cplx *R);
/* Own kernels of each instruction set (direct_kernel_tmpl.h). */
void em_dk_tile_generic(int64_t M, int64_t N, int64_t K, const em_cplx *A, int64_t lda,
                        const em_cplx *d, const em_cplx *B, int64_t ldb, em_cplx *C, int64_t ldc,
                        int64_t off, double *ws);
#if defined(__x86_64__) && defined(__GNUC__)
void em_dk_tile_avx2(int64_t M, int64_t N, int64_t K, const em_cplx *A, int64_t lda,
                     const em_cplx *d, const em_cplx *B, int64_t ldb, em_cplx *C, int64_t ldc,
                     int64_t off, double *ws);
void em_dk_tile_avx512(int64_t M, int64_t N, int64_t K, const em_cplx *A, int64_t lda,
                       const em_cplx *d, const em_cplx *B, int64_t ldb, em_cplx *C, int64_t ldc,
                       int64_t off, double *ws);
void em_dk_tile_avx2_trsm(int64_t rows, int64_t b, const em_cplx *L11, int64_t ld, const em_cplx *d,
                          em_cplx *R);
void em_dk_tile_avx512_trsm(int64_t rows, int64_t b, const em_cplx *L11, int64_t ld,
                            const em_cplx *d, em_cplx *R);
void em_dk_tile_avx2_panels(int a, int64_t rows, const em_cplx *X, int64_t ldx, const em_cplx *d,
                            int64_t k0, int64_t kc, int64_t p0, int64_t p1, double *P);
void em_dk_tile_avx2_packed(int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t kc,
                            const double *Ap, const double *Bp, em_cplx *C, int64_t ldc, int lower);
void em_dk_tile_avx512_panels(int a, int64_t rows, const em_cplx *X, int64_t ldx, const em_cplx *d,
                              int64_t k0, int64_t kc, int64_t p0, int64_t p1, double *P);
void em_dk_tile_avx512_packed(int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t kc,
                              const double *Ap, const double *Bp, em_cplx *C, int64_t ldc,
                              int lower);
#endif

/* The dense steps of the supernodal solves on R right-hand sides (own
 * kernels of each instruction set, direct_solve_kernels.c).  Every entry
 * is computed alike whatever R and the tile it falls in: column r of a
 * block solve is the one-column solve of column r bit for bit.
 *   gemm_n:  T (M x R, ld ldt) -= A (M x K) C (K x R), C negated when neg
 *   gemm_t:  X (K x R) -= A^T B, A M x K, B M x R (plain transpose)
 *   trsm_n:  X (k x R) = L^-1 X,  trsm_t:  X = L^-T X, L unit lower k x k
 * (its upper triangle and diagonal are not read). */
void em_ds_gemm_n(em_dk_kind kind, int64_t M, int R, int64_t K, const em_cplx *A, int64_t lda,
                  const em_cplx *C, int64_t ldc, int neg, em_cplx *T, int64_t ldt);
void em_ds_gemm_t(em_dk_kind kind, int64_t M, int64_t K, int R, const em_cplx *A, int64_t lda,
                  const em_cplx *B, int64_t ldb, em_cplx *X, int64_t ldx);
void em_ds_trsm_n(em_dk_kind kind, int64_t k, int R, const em_cplx *L, int64_t ldl, em_cplx *X,
                  int64_t ldx);
void em_ds_trsm_t(em_dk_kind kind, int64_t k, int R, const em_cplx *L, int64_t ldl, em_cplx *X,
                  int64_t ldx);
/* The kernels the solves of a factor with kernels `kind` run: BLAS and
 * kinds this CPU lacks map to an own kind it has. */
em_dk_kind em_ds_kind(em_dk_kind kind);
/* Columns of the panels of em_ds_trsm_n / _t (solved entry by entry). */
#define EM_DS_PANEL 16

/* Context of the dense work of one factorization or solve. */
typedef struct em_dk_ctx {
  em_dk_kind kind; /* kernels */
  double **ws;     /* per-thread workspaces (EM_DK_WS doubles), by
                      omp_get_thread_num() */
  int parallel;    /* 1: inside a parallel region, big updates become tasks */
  int shared;      /* shared packing of updates: 0 auto (big ones), 1 always,
                      -1 never (tests compare the paths) */
} em_dk_ctx;

/* C -= A diag(d) B^T over a whole region (M x N), split into tiles; lower:
 * only the lower trapezoid i >= j is needed (M >= N).  Big regions become
 * OpenMP tasks (taskloop) when ctx->parallel; very big ones with the own
 * kernels pack their panels once for all tiles.  The result is the same
 * bit for bit whichever way it runs. */
void em_dk_update(const em_dk_ctx *ctx, int64_t M, int64_t N, int64_t K, const em_cplx *A,
                  int64_t lda, const em_cplx *d, const em_cplx *B, int64_t ldb, em_cplx *C,
                  int64_t ldc, int lower);

/* Result of a front's partial factorization. */
typedef struct em_dk_piv {
  double tau;        /* |d| below tau is replaced by tau d/|d| */
  int64_t perturbed; /* count of replaced pivots (added to) */
  int64_t bad;       /* -1, or the column (in the front) of an unusable pivot */
  int bad_zero;      /* 1: it is zero (tau = 0), 0: not finite */
} em_dk_piv;

/* Partial LDL^T of a front: L (m x k, ld m) holds the assembled k pivot
 * columns on entry and [L11; L21] on exit (strict upper triangle of L11
 * zeroed, diagonal 1), d the k pivots; cb (nb x nb, ld nb, nb = m - k, lower
 * triangle) gets -L21 D L21^T added. */
void em_dk_front(const em_dk_ctx *ctx, int64_t m, int64_t k, em_cplx *L, em_cplx *d, em_cplx *cb,
                 em_dk_piv *piv);

/* ------------------------------------------------------------ factor */

struct em_direct {
  em_direct_opts opts;
  em_direct_info info;
  em_dsym S;
  em_dk_kind kind;     /* dense kernels */
  double t_factor;     /* em_wtime when the factorization began (progress lines) */
  int threads;         /* OpenMP threads of the numeric phase and solves */
  em_cplx *lval;       /* supernode blocks (S.lptr[ns] entries) */
  em_cplx *d;          /* n pivots, new numbering */
  double *scale;       /* n: the equilibration r, new numbering: the factor is
                          of diag(r) P A P^T diag(r) */
  double *scale_old;   /* the same in the old numbering */
  int32_t *mirror;     /* per entry of A (mirror_nnz of them) the offset of its
                          transpose in the other row (-1: none, or the diagonal),
                          made by the first symmetry test, kept for the next
                          (refactorizations: a sweep's); NULL: none */
  int64_t mirror_nnz;  /* its entries */
  int factored;        /* 1 after a successful numeric factorization */
  struct em_dgpu *gpu; /* the factor on the GPU (opts.backend CUDA), else
                          NULL; lval and d then stay NULL on the host */
  int host_short;      /* the host could not hold the CPU factorization's
                          peak (MemAvailable): with CUDA only the GPU may
                          factor, the host fallback is an EM_ERR_MEMORY */
  /* where the factor lives: opts.backend's table, or its fallback (the
     host) once the factor did not fit there (em_sv_fallback) */
  const em_sv_backend *be;
};

/* The value checks and the symmetry test of A (direct.c): ||A||_max, max
 * |a_ij - a_ji|, whether the pattern is symmetric, their seconds;
 * EM_ERR_NUMERIC for a non-finite entry or an empty row or column.  Fills
 * or reads F's mirror map (nothing else of F is written). */
typedef struct em_direct_chk {
  double anorm, asym;
  int psym;
  double t_values, t_sym;
} em_direct_chk;
em_err em_direct_checks(em_direct *F, const em_csr *A, em_direct_chk *c);
/* em_direct_checks on a host thread of its own (direct_beside.c) while
 * this one factors on a device: 0 and *b when it started, else 1 (the
 * caller checks in order).  EMSOLVE_CHECKS_BESIDE=0: never; 1: beside a
 * host factorization too (the tests of the logic without a GPU).  join: waits, the results
 * in *c, the thread's error (its message logged at verbose; the caller
 * raises it again in order). */
typedef struct em_direct_beside em_direct_beside;
int em_direct_beside_start(em_direct *F, const em_csr *A, em_direct_beside **b);
em_err em_direct_beside_join(em_direct_beside **b, em_direct_chk *c, const em_log *log);

/* The host backend's rows (backend_cpu.c): the numeric phase into host
 * arrays (em_direct_numeric), and x = A^-1 b through em_direct_solve_perm. */
em_err em_direct_numeric_cpu(em_direct *F, const em_csr *M, const double *r, double smax,
                             const em_log *log);
em_err em_direct_solve_cpu(const em_direct *F, int nrhs, const em_cplx *b, int64_t ldb, em_cplx *x,
                           int64_t ldx);

/* The numeric phase on the symmetrised values S (same numbering as A,
 * exactly symmetric, pattern within the analysed one; shift applied),
 * scaled as s_ij r_i r_j (r in the old numbering; smax = max |s_ij r_i
 * r_j|).  zeroed: F->lval is all zeros already. */
em_err em_direct_numeric(em_direct *F, const em_csr *S, const double *r, double smax, int zeroed,
                         const em_log *log);

/* In-place solve in the new numbering: y (n x nrhs, ld ldy) = (L D L^T)^-1
 * y.  work: at least nrhs em_direct_solve_work(F) entries.  Fails only for
 * memory (the task schedule). */
em_err em_direct_solve_perm(const em_direct *F, int nrhs, em_cplx *y, int64_t ldy, em_cplx *work);
/* Entries of work em_direct_solve_perm needs per right-hand side. */
int64_t em_direct_solve_work(const em_direct *F);

/* ------------------------------------------------------ preconditioner */

/* The EM_PC_DIRECT state: the factor and the host vectors of an apply. */
typedef struct em_direct_pc {
  em_direct *F;
  em_cplx *y;    /* n: r permuted to the new numbering, then z */
  em_cplx *work; /* em_direct_solve_work(F) */
  void *hr, *hz; /* staged apply: host copies of r and z (n complex doubles) */
  int cap_k;     /* columns the block buffers below hold (0: none yet) */
  em_cplx *ym;   /* n x cap_k: the block of a k-column host apply */
  em_cplx *wm;   /* em_direct_solve_work(F) x cap_k */
  void *dstage;  /* GPU factor: 2 n x cap_k staging of columns that are not
                    one strided block in device memory (direct_cuda.c) */
} em_direct_pc;

/* The pc builder (pc.c dispatches): factor A on the pc's backend (or its
 * fallback), the apply where the factor lives; on the analysis *F0 when
 * given (taken: *F0 = NULL), else its own. */
em_err em_pc_direct_build(const em_csr *A, em_pc *pc, em_direct **F0, const em_log *log);
/* Refactor on the kept analysis: every backend's update. */
em_err em_direct_pc_update(em_pc *pc, const em_csr *A, const em_log *log);
/* Free pc->data (an em_direct_pc) and what it owns: every backend's destroy. */
void em_direct_pc_destroy(em_pc *pc);
/* z = (L D L^T)^-1 r for host vectors of precision vec_prec. */
em_err em_direct_pc_host_apply(em_direct_pc *p, em_prec vec_prec, const void *r, void *z);
/* The same for k host vectors: one solve with k right-hand sides. */
em_err em_direct_pc_host_apply_multi(em_direct_pc *p, em_prec vec_prec, int k, const void *const *r,
                                     void *const *z);
/* The apply of a factor that lives on the pc's backend (the backend
 * tables' direct_pc_use): host solve (direct_pc.c), device solve
 * (direct_cuda.c). */
em_err em_pc_direct_use_cpu(em_pc *pc);
em_err em_pc_direct_use_cuda(em_pc *pc);

/* Bytes available for a factorization: opts->mem_limit, or MemAvailable
 * from /proc/meminfo (0 when unknown). */
double em_direct_mem_available(const em_direct_opts *o);

/* Position of row i in the sorted rows r[0..m), or -1 (direct_numeric.c;
 * the CPU and GPU scatter maps both use it). */
int64_t em_direct_find_row(const int32_t *r, int64_t m, int32_t i);

#endif
