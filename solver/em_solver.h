/* em_solver.h - Krylov methods and preconditioners for the complex
 * symmetric (not Hermitian), indefinite FEM systems, on CPU and GPU.
 *
 * The methods are written once against a vector backend (CPU with OpenMP,
 * or cuBLAS on the GPU) and any em_operator from formats/.  Breakdown,
 * stagnation and the iteration limit end a solve with a reason (PETSc KSP
 * style), not an error; errors are for bad arguments, memory, devices.
 */
#ifndef EM_SOLVER_H
#define EM_SOLVER_H

#include "em_core.h"
#include "em_formats.h"
#include "em_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum em_ksp_method {
  EM_KSP_BICGSTAB = 0,
  EM_KSP_COCG,  /* conjugate orthogonal CG: x^T y, complex symmetric A */
  EM_KSP_COCR,  /* conjugate orthogonal conjugate residual */
  EM_KSP_GMRES, /* restarted GMRES(m), right preconditioning */
  EM_KSP_FGMRES /* flexible GMRES(m) */
} em_ksp_method;

typedef enum em_pc_type {
  EM_PC_NONE = 0,
  EM_PC_JACOBI,
  EM_PC_ILU0,
  EM_PC_DIRECT, /* sparse LDL^T (em_direct below): M = A up to perturbed pivots */
  EM_PC_PMG     /* V-cycle over the basis-order groups (em_pmg_opts) */
} em_pc_type;

/* Smoothers of the order-group V-cycle. */
typedef enum em_pmg_smoother {
  EM_PMG_JACOBI = 0, /* damped point Jacobi */
  EM_PMG_BLOCK,      /* damped block Jacobi, one dense block per mesh entity
                        (found as the rows with identical patterns: the DOFs
                        of one edge, face or cell in one group) */
  EM_PMG_ILU0        /* ILU(0) of the smoothed rows' diagonal block */
} em_pmg_smoother;

struct em_direct;
/* A V-cycle's coarse level analysed ahead of its values, on a thread
 * beside the assembly (model/fsys_overlap.c on one rank,
 * model/dfsys_ahead.c on rank 0 of a distributed solve): F =
 * em_pc_direct_analyse of a matrix of the coarse level's pattern with the
 * coarse factor's options (em_pmg_coarse_opts; em_dmat_pmg_coarse_opts),
 * pattern = em_spmat_pattern_hash of that matrix.  The V-cycle takes F
 * only when its own coarse block has that hash, else drops it and
 * analyses in order: the same factor, bit for bit, either way. */
typedef struct em_coarse_ahead {
  struct em_direct *F;
  uint64_t pattern;
} em_coarse_ahead;

/* The p-multigrid V-cycle (solver/pmg/): the unknowns are numbered by basis
 * order group (offset[]), so the spaces of orders 1..p are nested and
 * restriction / prolongation are sub-vector views.  From the highest group
 * down, each level smooths, then the first `coarse` groups (and the rows
 * marked in coarse_rows) are solved exactly (the sparse direct factor of
 * their block), then the levels smooth
 * again in reverse order: M is complex symmetric (COCG can use it). */
typedef struct em_pmg_opts {
  int nb;                           /* order groups of the matrix */
  int32_t offset[EM_MAX_ORDER + 1]; /* group g = rows offset[g] .. offset[g+1]-1 */
  int coarse;                       /* groups solved exactly: 1 (order 1) or 2 */
  em_pmg_smoother smoother;
  int sweeps;                 /* smoothing steps per level, before and after (>= 1) */
  double damping;             /* omega of the Jacobi smoothers (0: 0.5 / 1 for ILU) */
  int all;                    /* 1: a level smooths every DOF of its space (groups
                                 1..g); 0: only its own group g (the complement) */
  double shift;               /* smoothers built from A + j shift |diag A| */
  const uint8_t *coarse_rows; /* n flags (NULL: none): rows also solved
                                 exactly with the coarse groups, e.g. every
                                 unknown of the PML, whose stretched field
                                 the order-1 space cannot follow */
  const uint8_t *block_rows;  /* n flags (NULL: none): the rows of one more
                                 level, all orders together (e.g. the PML's
                                 unknowns not in the coarse set), visited
                                 first on the way down and last on the way
                                 up, smoothed by omega ILU(0)^-1 of their
                                 diagonal block (block_direct: its exact
                                 factor; omega = damping, else 0.5 / 1); the
                                 order-group levels leave them out */
  int block_direct;           /* the block level's smoother: 0 ILU(0), 1 the
                                 sparse direct factor */
  const em_operator *op;      /* the Krylov operator (this matrix, same numbering,
                                 complex double, the pc's backend), or NULL.
                                 Given, the residuals r - A z of the levels and
                                 of the coarse set come from it (a product of
                                 the rows they span, apply_rows, else a full
                                 one, then a gather) and the V-cycle keeps
                                 no copy of A's rows: about nnz(A) entries less
                                 memory for a few more products per cycle.  It
                                 must outlive the pc and hold the values of the
                                 A given to em_pc_create / em_pc_update by the
                                 first apply (its apply may still be NULL at
                                 create: n and prec are checked then). */
  /* the coarse level's analysis made ahead (Solver/overlap), or NULL:
     called once by the set-up right before the coarse factor (its ctx
     coarse_ahead_ctx); what it puts in *ah (zeroed) is taken when A_CC's
     pattern hash equals ah->pattern, else dropped (a -v line) and A_CC
     analysed in order */
  void (*coarse_ahead)(void *ctx, const em_log *log, em_coarse_ahead *ah);
  void *coarse_ahead_ctx;
} em_pmg_opts;

/* Ordering applied (symmetrically) before a factorization (graph/). */
typedef em_ordering em_pc_ordering;

/* How the ILU(0) triangular solves run on the GPU (docs/solvers.md).  The
 * CPU always runs its OpenMP level-scheduled solve. */
typedef enum em_pc_trsv {
  EM_TRSV_AUTO = 0, /* the default: LEVELS on the GPU */
  EM_TRSV_LEVELS,   /* own kernels, one per level (thin levels merged into
                       one-block kernels), replayed as a CUDA graph */
  EM_TRSV_SYNCFREE, /* own single-kernel solve: rows taken by atomic
                       ticket in level order, each waits on its
                       dependencies' completion flags */
  EM_TRSV_CUSPARSE  /* cusparseXcsrilu02 factorization + cusparseSpSV */
} em_pc_trsv;

typedef enum em_ksp_reason {
  EM_KSP_CONVERGED = 0, /* recursive residual <= tol * ||b|| */
  EM_KSP_MAX_ITER,      /* iteration limit reached */
  EM_KSP_BREAKDOWN,     /* a denominator vanished (rho, omega, x^T x ...) */
  EM_KSP_STAGNATED,     /* no progress over a window of iterations */
  EM_KSP_DIVERGED       /* residual grew past 1e10 ||b||, or NaN */
} em_ksp_reason;

/* "bicgstab", "cocg", "cocr", "gmres", "fgmres" / "none", "jacobi", "ilu0", "direct" /
 * "converged", "max-iterations", ... (orderings: em_ordering_name) */
const char *em_ksp_method_name(em_ksp_method m);
const char *em_pc_type_name(em_pc_type p);
const char *em_ksp_reason_name(em_ksp_reason r);
const char *em_pc_trsv_name(em_pc_trsv t);           /* "auto", "levels", "syncfree", "cusparse" */
const char *em_pmg_smoother_name(em_pmg_smoother s); /* "jacobi", "block", "ilu0" */
em_err em_pmg_smoother_parse(const char *s, em_pmg_smoother *m);
em_err em_ksp_method_parse(const char *s, em_ksp_method *m);
em_err em_pc_type_parse(const char *s, em_pc_type *p);
em_err em_pc_trsv_parse(const char *s, em_pc_trsv *t);

/* How the GPU's triangular solves run (issue 28): each variant a switch,
 * so one factor can compare them (bench/pc_multi_bench --variants).  The
 * solve goes level by level over the supernodal tree: supernodes of fewer
 * than 192 columns by one kernel launch per level, the wider ("big") ones
 * each by a few launches.  Every variant gives the same solution up to
 * rounding. */
typedef struct em_direct_gsolve {
  int interleave;    /* 1: the n x nrhs block of the solve row-major inside it
                        (a row's nrhs values contiguous: the gathers, scatters
                        and atomics of a row touch one run of 16 nrhs bytes);
                        0: column-major; 2: with several columns only (on an
                        H200 it doubled a one-column solve, 27.6 -> 56.5 ms,
                        and took four columns from 2.20x to 1.15x of one) */
  int big_own;       /* 1: the big supernodes' products y(below) -= L21 x and
                        u = L21^T y(below) by own kernels that read L21 once
                        for all columns, the gather / scatter fused in, in
                        double; 0: cuBLAS GEMM (in the factor's precision)
                        between a gather and a scatter kernel; 2 (default):
                        with several columns only; 3: the backward product
                        u = L21^T y(below) only, with several columns only
                        (cuBLAS's k x nb by nb x nrhs GEMM runs few tiles
                        for a few columns: bwd-prod 1.8 -> 4.6 ms for 4
                        columns on the DRA's order-3 factor, where the own
                        kernel splits the nb rows over blocks) */
  int streams;       /* 1: the big supernodes of one level on the factor's
                        other streams, beside the level kernel; 0: one after
                        another on the solve's stream */
  int profile;       /* 1: CUDA events around every launch of a solve, summed
                        by part (em_direct_gprofile); costs host time per
                        launch, so for measurements only */
  int trinv;         /* 1: the wide supernodes' triangles by a product with
                        their inverse (GEMM: y_s = L11^-1 y_s, read once for
                        all columns) instead of TRSM; the inverses are built
                        on the device after each factorization with this set,
                        or at the first solve that asks (one more k x k block
                        per wide supernode, in the factor's precision; a
                        complex single factor's computed in double and
                        rounded once); 0: TRSM (the 1M DRA's inverses took
                        0.36 s and 5.3 GiB for ~2 ms a solve); 2 (default):
                        with several columns only, built in the set-up when
                        em_direct_opts.block_columns > 1, else at the first
                        such solve, and only where a tenth of the device's
                        memory stays free beside them (else TRSM) */
  int level_threads; /* threads per block of the level kernels (one block
                        per small supernode; each step of its triangle is
                        a barrier): -1 (default) by the level: 512 where
                        it has fewer supernodes than twice the SMs (the
                        top of the tree, where one block's latency is the
                        level's time), else 128; -2 graded (1024 below
                        the SMs, 512 below twice, 256 below 8 times, else
                        128); 0: 128; a multiple of 32 up to 1024 (fewer
                        where the kernel's registers allow fewer) */
  int trinv_max;     /* trinv only for the wide supernodes of at most this
                        many columns (0, default: all): an inverse costs k^3 to
                        build and k^2 to keep, so the few widest ones at
                        the top of the tree hold most of both, while the
                        many narrower ones hold most of the solves' TRSM
                        steps */
  int col_streams;   /* 1: with several columns, the wide triangles (TRSM)
                        one column each on streams of their own, side by
                        side (cuBLAS's TRSM of a few columns steps through
                        the triangle's blocks as for one, with a few
                        tiles: its time grows with the columns); 0
                        (default): one TRSM of all columns.  Measured
                        slower on an H200: four columns of the DRA's
                        order-3 factor 20.2 -> 30.0 ms, the 2 x 2 array's
                        direct block 110 -> 169 ms per iteration (the
                        one-column TRSMs side by side contend) */
  int trinv_own;     /* with trinv and big_own in effect: the triangle's
                        product with its stored inverse by an own kernel,
                        in double straight from y (no complex single copy
                        of y_s, no GEMM in single) and over the lower
                        triangle only (half the inverse's bytes); 2
                        (default): with several columns only; 0: the GEMM
                        (the 2 x 2 array's block, H200: the residuals
                        after BiCGSTAB's half-step 3e-10 .. 2e-9 by the own
                        kernel, as one column's by TRSM, against 1e-9 ..
                        1e-8 by the GEMM in single, where one column in
                        three runs went on for another half-iteration) */
} em_direct_gsolve;

/* ------------------------------------------------------- preconditioners */

typedef struct em_pc_opts {
  em_pc_type type;
  em_pc_ordering ordering;
  em_backend backend;
  em_prec prec;            /* factor storage precision (our triangular solves compute
                              in double on the rounded factors; cuSPARSE's in prec) */
  em_pc_trsv trsv;         /* GPU triangular solve (ILU); AUTO = 0 */
  int block_size;          /* BMC block size; 0 = 16 */
  double shift;            /* ILU(0) of A + j shift |diag(A)| instead of A: damps the
                              tiny pivots of indefinite systems (0: plain ILU(0);
                              0.05 is a good first try when ILU(0) stagnates).
                              EM_PC_DIRECT factors A + j shift |diag(A)| too. */
  double mem_limit;        /* EM_PC_DIRECT: bytes its factorization may use; 0 = the
                              host's MemAvailable (EM_ERR_MEMORY beyond) */
  em_pmg_opts pmg;         /* EM_PC_PMG (its coarse factor takes prec from here;
                              mem_limit does not bound it) */
  const em_cancel *cancel; /* EM_PC_DIRECT, PMG's coarse factor: polled by the
                              factorization (em_direct_opts.cancel) */
  int pattern_symmetric;   /* EM_PC_DIRECT: the caller's word that A's pattern is
                              symmetric (em_direct_opts.pattern_symmetric) */
  int block_columns;       /* EM_PC_DIRECT, PMG's coarse factor: the columns the
                              applies will take at once when the caller knows
                              (a block of excitations; em_direct_opts.
                              block_columns); 0 or 1: one */
  em_direct_gsolve gsolve; /* EM_PC_DIRECT, PMG's coarse factor: the GPU solves'
                              variants (default: em_direct_opts_default's) */
} em_pc_opts;

/* NONE, NATURAL, CPU, DOUBLE, AUTO, 0, 0. */
void em_pc_opts_default(em_pc_opts *o);

typedef struct em_pc em_pc;

typedef struct em_pc_info {
  em_pc_type type;
  em_pc_ordering ordering;
  em_prec prec;
  double t_setup;      /* seconds, factorization + analysis + upload */
  size_t bytes;        /* memory of the factors / diagonal */
  int levels_lower;    /* level-schedule depth of the L solve (ILU) */
  int levels_upper;    /* of the U solve */
  int colors;          /* colours of the MC / BMC ordering (0 otherwise) */
  double shift;        /* the diagonal shift the ILU factors carry */
  const char *impl;    /* "identity", "jacobi", "cpu-levels", "cuda-levels",
                          "cuda-syncfree", "cusparse-spsv", "direct-ldlt" */
  int64_t factor_nnz;  /* direct: entries of L stored (with the zeros of
                          amalgamated supernodes); 0 for the others */
  double factor_flops; /* direct: real floating-point operations of the
                          numeric factorization (complex multiply-add = 8) */
  int64_t perturbed;   /* direct: pivots replaced by the static perturbation */
  int updates;         /* em_pc_update calls since em_pc_create */
  int32_t block_n;     /* pmg: rows of its block level (0: none) */
  /* pmg: the coarse problem and where an apply spends its time (seconds
     summed over the applies since the last em_pc_create / update) */
  int32_t coarse_n;    /* unknowns solved exactly */
  size_t coarse_bytes; /* memory of the coarse factor */
  int64_t applies;     /* applications */
  double t_smooth;     /* smoother updates */
  double t_coarse;     /* coarse solves */
  double t_residual;   /* residual SpMVs of the levels */
  /* pmg: its memory by component (bytes, in the pc's memory; coarse_bytes
     above is the coarse factorization's estimated peak: factor, update
     matrices, workspace and the staging kept for refactoring) */
  size_t rows_bytes;          /* the levels' and the coarse set's rows of A (0
                                 with opts.pmg.op: the operator's are used) */
  size_t smoother_bytes;      /* block inverses or ILU(0) factors */
  size_t index_bytes;         /* the level and coarse row lists */
  size_t work_bytes;          /* the cycle's three work vectors */
  size_t coarse_factor_bytes; /* L and D values of the coarse factor (what
                                 stays of coarse_bytes after factoring, with
                                 the symbolic arrays and the refactor map) */
} em_pc_info;

/* Build from the host CSR of the operator's matrix (same numbering). */
em_err em_pc_create(const em_csr *A, const em_pc_opts *o, const em_log *log, em_pc **pc);
struct em_direct;
/* The direct preconditioner's analysis (ordering, symbolic factorization)
 * of A's pattern alone, with the options em_pc_create gives the factor
 * (o->type EM_PC_DIRECT): made ahead, on another thread, while the values
 * are assembled (model/fsys_overlap.c). */
em_err em_pc_direct_analyse(const em_csr *A, const em_pc_opts *o, const em_log *log,
                            struct em_direct **F);
/* em_pc_create with the analysis *F of em_pc_direct_analyse on a matrix of
 * A's pattern (o->type EM_PC_DIRECT; the caller vouches for the pattern):
 * the pc takes it (*F = NULL, on failure too), checks its memory again and
 * factors A; the same preconditioner, bit for bit, as em_pc_create. */
em_err em_pc_create_analysed(const em_csr *A, const em_pc_opts *o, struct em_direct **F,
                             const em_log *log, em_pc **pc);
/* The options the V-cycle (EM_PC_PMG, options o) gives its coarse factor
 * on one rank: direct, nd, o's backend, precision, cancel flag, columns
 * and solve variant (an analysis made ahead takes them from here too). */
void em_pmg_coarse_opts(const em_pc_opts *o, em_pc_opts *co);
/* New values of A with the pattern the pc was built for (a frequency sweep):
 * types that keep an analysis (direct: ordering, symbolic factorization)
 * refactor on it; the others are rebuilt with the same options.  The
 * result equals em_pc_create on the new A.  info.t_setup becomes the
 * time of this update. */
em_err em_pc_update(em_pc *pc, const em_csr *A, const em_log *log);
/* z = M^-1 r, vectors in the pc's backend memory, in complex double (the
 * pc converts internally when its own precision differs).  r and z may not
 * alias. */
em_err em_pc_apply(em_pc *pc, const void *r, void *z);
/* The same for vectors in precision vec_prec (em_ksp_solve uses this with
 * the operator's precision). */
em_err em_pc_apply_prec(em_pc *pc, em_prec vec_prec, const void *r, void *z);
/* z[j] = M^-1 r[j] for k vectors at once where the type has a block form
 * (the direct factor solves the k columns together, reading its factor
 * once; pmg runs one V-cycle over k vectors with multi-vector products and
 * one k-column coarse solve; ILU(0) on the CPU solves them in one pass over
 * its factors), else k applications.  Each column equals
 * em_pc_apply_prec's (bit for bit on the CPU; on the GPU the direct
 * factor's dense kernels may round differently with k columns).  The z[j]
 * are distinct and none is an r. */
em_err em_pc_apply_multi(em_pc *pc, em_prec vec_prec, int k, const void *const *r, void *const *z);
void em_pc_get_info(const em_pc *pc, em_pc_info *info);
/* The sparse direct factor a pc solves with: its own (EM_PC_DIRECT) or
 * pmg's coarse one; NULL for the other types.  For measurements
 * (em_direct_set_gsolve, em_direct_gprofile_get): the pc keeps it. */
struct em_direct *em_pc_direct_factor(em_pc *pc);
void em_pc_destroy(em_pc **pc);

/* Where pmg's V-cycles spend their time (issue 28), from time stamps on the
 * pc's queue between the cycle's steps (CUDA events on the GPU, the wall
 * clock on the CPU): always collected, one wait per cycle. */
typedef enum em_pmg_part {
  EM_PMG_ZERO = 0, /* z = 0 */
  EM_PMG_PRODUCT,  /* a level's residual product: A(L, :) z or the
                      operator's rows spanning L */
  EM_PMG_GATHER,   /* w = r_L - (A z)_L */
  EM_PMG_SMOOTH,   /* u = S_L w: block inverses' product, ILU(0) apply */
  EM_PMG_SCATTER,  /* z_L += u */
  EM_PMG_CPRODUCT, /* the coarse set's residual product */
  EM_PMG_CGATHER,  /* w = r_C - (A z)_C */
  EM_PMG_CSOLVE,   /* the coarse direct solve */
  EM_PMG_CSCATTER, /* z_C += u */
  EM_PMG_PARTS
} em_pmg_part;
typedef struct em_pmg_profile {
  int64_t cycles;              /* V-cycles (a k-column apply of k <= 16 is one) */
  int64_t columns;             /* the columns they carried */
  double total_ms;             /* first to last stamp of each cycle, summed */
  double ms[EM_PMG_PARTS];     /* by part */
  int64_t steps[EM_PMG_PARTS]; /* steps of each part (not kernel launches) */
  int nlev;                    /* smoothed levels, the highest first */
  int32_t level_rows[EM_MAX_ORDER + 1];
  double level_ms[EM_MAX_ORDER + 1]; /* product + gather + smoother + scatter */
  int64_t waits;                     /* host waits on the stamps: one per cycle */
} em_pmg_profile;
const char *em_pmg_part_name(em_pmg_part part); /* "product", "gather", ... */
/* pmg's profile since its creation, update or the last reset; EM_ERR_ARG
 * for another type. */
em_err em_pc_pmg_profile(const em_pc *pc, em_pmg_profile *prof);
void em_pc_pmg_profile_reset(em_pc *pc);

/* ------------------------------------------- sparse direct factorization */

/* R P (A + j shift |diag A|) P^T R = L D L^T for a complex symmetric A
 * (plain transpose, no conjugation): P a fill-reducing ordering, R a real
 * positive symmetric equilibration (every entry at most 1 in magnitude);
 * supernodal multifrontal, no pivoting; a pivot with |d| < pivot_eps is
 * replaced by pivot_eps d / |d| and counted (static pivot perturbation: the
 * Krylov method around it corrects the rank-k difference).  docs/solvers.md,
 * "Direct factorization".  A matrix that is not symmetric is replaced by its
 * symmetric part (A + A^T) / 2, with a warning in the log. */
typedef struct em_direct em_direct;

/* Dense kernels of the supernode blocks. */
typedef enum em_direct_kernels {
  EM_DIRECT_AUTO = 0, /* own kernels (measured faster than OpenBLAS here) */
  EM_DIRECT_OWN,      /* own blocked kernels, vectorised for the CPU found */
  EM_DIRECT_BLAS      /* zgemm / ztrsm: EM_ERR_UNSUPPORTED in builds without
                         BLAS (em_direct_blas_built) */
} em_direct_kernels;

typedef struct em_direct_opts {
  em_pc_ordering ordering;   /* fill-reducing ordering: ND (default); natural
                                and RCM for comparison; MC/BMC are accepted
                                but fill badly */
  double pivot_eps;          /* static perturbation threshold, relative to the
                                equilibrated matrix (default 1e-8) */
  double shift;              /* factor A + j shift |diag(A)| (default 0) */
  em_direct_kernels kernels; /* default AUTO */
  int threads;               /* OpenMP threads; 0 = omp_get_max_threads() */
  double mem_limit;          /* bytes the factorization may use; 0 = the
                                host's MemAvailable (/proc/meminfo) */
  em_backend backend;        /* CUDA: numeric factorization and solves on
                                the GPU, the factor in device memory (the
                                host when it does not fit); default CPU */
  em_prec prec;              /* factor precision: SINGLE (CUDA only) factors
                                in complex single for a Krylov method in
                                double to refine ("mixed"); default DOUBLE */
  const em_cancel *cancel;   /* polled before each supernode (GPU: each
                                level): set, the factorization stops with
                                EM_ERR_CANCELLED (NULL: never) */
  em_nd_opts nd;             /* nested dissection: on the supervariables
                                (default) or the whole graph (graph/nd.c) */
  double progress_s;         /* a host factorization logs how far it is every
                                progress_s seconds (em_log_progress; default
                                10; 0: after every front) */
  em_direct_gsolve gsolve;   /* GPU solves (default: interleave 0, big_own 2,
                                streams 1, profile 0, trinv 2, level_threads
                                -1, trinv_max 0, col_streams 0, trinv_own 2) */
  int gpu_small;             /* GPU fronts of order m <= gpu_small factored
                                by one thread block each, a launch per
                                level; bigger ones front by front through
                                cuBLAS on the streams (0: 384; at most
                                EM_DIRECT_GPU_SMALL_MAX) */
  int block_columns;         /* the right-hand sides the solves will take at
                                once, when the caller knows (0 or 1: one): a
                                GPU factor with trinv 2 builds the inverses
                                and the block solve's work space at the end
                                of each factorization, in the set-up, instead
                                of at the first block solve */
  int pattern_symmetric;     /* 1: the caller's word that the pattern is
                                symmetric (an assembler's: entity adjacency):
                                the analysis takes the graph as it is, without
                                its check (a binary search per entry, ~1/3 of
                                the ordering's time); the factorization's own
                                symmetry test then confirms it (EM_ERR_INTERNAL
                                when the word was wrong).  Default 0 */
} em_direct_opts;

/* The largest em_direct_opts.gpu_small. */
#define EM_DIRECT_GPU_SMALL_MAX 1024

/* ND, 1e-8, 0, AUTO, 0, 0, CPU, DOUBLE, 10 s, GPU solves as in gsolve's comment. */
void em_direct_opts_default(em_direct_opts *o);
/* 1 when this build has BLAS (EM_DIRECT_BLAS available). */
int em_direct_blas_built(void);

typedef struct em_direct_info {
  int32_t n;               /* order of A */
  em_pc_ordering ordering; /* the ordering used */
  const char *kernels;     /* "blas", "own-avx512", "own-avx2", "own-generic" */
  int threads;             /* OpenMP threads of the numeric phase */
  int32_t supernodes;      /* after relaxed amalgamation */
  int32_t max_front;       /* largest front order (columns + rows below) */
  int32_t max_cols;        /* widest supernode */
  int64_t nnz_a;           /* entries of the lower triangle of P A P^T */
  int64_t nnz_l;           /* exact nonzeros of L (diagonal included) */
  int64_t nnz_stored;      /* entries stored: supernode blocks, with the
                              zeros of amalgamation and the upper triangles
                              of the diagonal blocks */
  double flops;            /* real flops of the numeric factorization */
  double solve_flops;      /* real flops of one solve with one rhs */
  size_t bytes_factor;     /* L, D and indices */
  size_t bytes_peak;       /* estimated peak of the numeric phase (factor +
                              frontal stack for the thread count) */
  double anorm;            /* ||A||_max */
  int64_t perturbed;       /* pivots perturbed by the last factorization */
  double asymmetry;        /* max |a_ij - a_ji| / ||A||_max of the last A */
  double t_order;          /* seconds: ordering (METIS, RCM ...) */
  int32_t n_sv;            /* vertices ordered: supervariables (ND), else n */
  double t_symbolic;       /* elimination tree, counts, supernodes */
  double t_numeric;        /* last numeric factorization */
  const char *where;       /* "cpu" or "gpu": where the factor lives */
  size_t bytes_gpu;        /* estimated device memory of the GPU factor */
} em_direct_info;

/* Ordering and symbolic factorization of the pattern of A (square, sorted
 * columns; the pattern is symmetrised).  Checks that the factorization fits
 * in o->mem_limit (or MemAvailable) before anything large is allocated:
 * EM_ERR_MEMORY "direct factorization needs X GiB ...".  An empty row
 * (structurally singular) is EM_ERR_NUMERIC naming it. */
em_err em_direct_analyse(const em_csr *A, const em_direct_opts *o, const em_log *log,
                         em_direct **F);
/* The analysis' memory estimate checked again against what the host has
 * now (an analysis made earlier, on another thread, before the assembly
 * took its memory): EM_ERR_MEMORY as em_direct_analyse gives it. */
em_err em_direct_memory_check(em_direct *F, const em_log *log);
/* Numeric factorization of A, whose pattern must lie within the analysed
 * one (repeatable: frequency sweeps reuse the analysis).  A row or column
 * of zeros is EM_ERR_NUMERIC naming the row, so is a non-finite entry or
 * pivot; tiny pivots are perturbed and counted (info.perturbed). */
em_err em_direct_factor(em_direct *F, const em_csr *A, const em_log *log);
/* x = A^-1 b for nrhs right-hand sides in the operator's numbering: b and
 * x column-major n x nrhs with leading dimensions ldb, ldx >= n; x may be
 * b (in place). */
em_err em_direct_solve(const em_direct *F, int nrhs, const em_cplx *b, int64_t ldb, em_cplx *x,
                       int64_t ldx);
/* Analyse + factor. */
em_err em_direct_create(const em_csr *A, const em_direct_opts *o, const em_log *log, em_direct **F);
void em_direct_get_info(const em_direct *F, em_direct_info *info);
void em_direct_destroy(em_direct **F);
/* Bytes of device memory the numeric factorization of F (analysed) will
 * take for a matrix of nnz_a entries: the estimate it checks against the
 * free memory itself; 0 when F factors on the host. */
double em_direct_device_need(const em_direct *F, int64_t nnz_a);

/* The parts of a GPU solve the profile times (em_direct_gprofile_part). */
typedef enum em_dgp_part {
  EM_DGP_PERMUTE_IN = 0, /* b scaled and permuted into the solve's block */
  EM_DGP_FWD_LEVEL,      /* forward level kernels (small supernodes) */
  EM_DGP_FWD_COPY,       /* big: y_s to and from its single copy */
  EM_DGP_FWD_TRSM,       /* big: L11^-1 (cuBLAS) */
  EM_DGP_FWD_PROD,       /* big: L21 x (GEMM, or the own kernel with its scatter) */
  EM_DGP_FWD_SCATTER,    /* big: y(below) -= t (after a GEMM) */
  EM_DGP_DIAG,           /* D^-1 */
  EM_DGP_BWD_GATHER,     /* big: t = y(below) (before a GEMM) */
  EM_DGP_BWD_PROD,       /* big: L21^T y(below) (GEMM, or the own kernel) */
  EM_DGP_BWD_TRSM,       /* big: L11^-T (cuBLAS) */
  EM_DGP_BWD_COPY,       /* big: y_s to and from its single copy */
  EM_DGP_BWD_LEVEL,      /* backward level kernels */
  EM_DGP_PERMUTE_OUT,    /* x scaled and permuted out */
  EM_DGP_PARTS
} em_dgp_part;

#define EM_DGP_TOP 8
/* Where the GPU solves' time went since the last reset (em_direct_gsolve.
 * profile on): device milliseconds between CUDA events, summed over the
 * solves, and the shape of the schedule. */
typedef struct em_direct_gprofile {
  int64_t solves;                                  /* solves profiled */
  int64_t columns;                                 /* their right-hand sides, summed */
  double total_ms;                                 /* first to last event of each solve */
  double ms[EM_DGP_PARTS];                         /* per part (concurrent parts overlap) */
  int64_t launches[EM_DGP_PARTS];                  /* kernel launches and cuBLAS calls */
  int levels;                                      /* levels of the supernodal tree */
  int level_launches;                              /* levels with small supernodes (one
                                                      kernel each way per column pass) */
  int32_t small, big;                              /* supernodes by the level kernels / big */
  double small_mb, big_mb;                         /* their MB of L (the factor's precision) */
  int nwide;                                       /* the widest big supernodes, widest first */
  int32_t wide_k[EM_DGP_TOP], wide_nb[EM_DGP_TOP]; /* columns, rows below */
  int ntop;                                        /* the costliest levels */
  struct {
    int level, count;      /* level, its small supernodes */
    int32_t kmax, nbmax;   /* their widest, most rows below */
    double fwd_ms, bwd_ms; /* its level kernels, summed over the solves */
  } top[EM_DGP_TOP];
} em_direct_gprofile;

/* "permute-in", "fwd-level", ... */
const char *em_direct_gprofile_part(em_dgp_part p);
/* A variant by name: "old" (none), "default" (em_direct_opts_default's),
 * "all" (il+own+st), "auto" (il2+own2+st+inv+tlev), or tokens joined by
 * '+': il, il2 (interleave 1, 2), own, own2, ownb (big_own 1, 2, 3), st
 * (streams), inv, inv2 (trinv 1, 2), imaxN (trinv_max N), town, town2
 * (trinv_own 1, 2), cst, nocst (col_streams), tlev, tgrad, tN
 * (level_threads -1, -2, N).  0 when it
 * parses, 1 (g zeroed) when it does not. */
int em_direct_gsolve_parse(const char *spec, em_direct_gsolve *g);
/* Switch the GPU solves' variants of F (takes effect at the next solve;
 * a host factor ignores them). */
void em_direct_set_gsolve(em_direct *F, const em_direct_gsolve *g);
/* The profile since the last reset (zeros where F has no GPU factor or
 * profile is off); reset clears it. */
void em_direct_gprofile_get(const em_direct *F, em_direct_gprofile *p);
void em_direct_gprofile_reset(em_direct *F);

/* -------------------------------------------------------------- Krylov */

typedef struct em_ksp_opts {
  em_ksp_method method;
  double tol;    /* relative residual target (default 1e-8) */
  int max_it;    /* default 1000 */
  int restart;   /* GMRES(m) restart length (default 50) */
  int log_every; /* print the residual every n iterations (0: never) */
  const em_log *log;
  const em_cancel *cancel; /* polled every iteration: set, the solve stops
                              with EM_ERR_CANCELLED (NULL: never) */
  const int32_t *perm;     /* b, x (B, X) in the caller's numbering: entry i
                              is the operator's entry perm[i] (a permutation
                              of 0 .. n-1, host); applied where the vectors
                              live (on the GPU: by a kernel, no host pass).
                              NULL (default): the operator's numbering.  Not
                              with a distributed operator */
} em_ksp_opts;

void em_ksp_opts_default(em_ksp_opts *o);

typedef struct em_ksp_stats {
  em_ksp_reason reason;
  int iterations;
  double rel_res;       /* last recursive (or GMRES estimate) ||r|| / ||b|| */
  double true_rel_res;  /* ||b - A x|| / ||b|| computed at the end */
  double t_total;       /* seconds in em_ksp_solve */
  double t_spmv;        /* in operator applications */
  double t_pc;          /* in preconditioner applications */
  double t_vec;         /* in vector work (dots, axpys, norms) */
  int64_t n_spmv, n_pc; /* counts */
  size_t vec_bytes;     /* work vectors */
  int restarts;         /* restarts from the true residual: the recursive
                           one said converged, the true one was above tol */
} em_ksp_stats;

/* Solve A x = b.  b and x are host arrays in complex double; x holds the
 * initial guess on entry.  The work happens in A's backend and precision.
 * CONVERGED means the recursive residual reached tol; when the true
 * residual computed at the end is above tol, the method restarts from it
 * (at most 3 times, within max_it) before reporting. */
em_err em_ksp_solve(const em_operator *A, em_pc *pc, const em_cplx *b, em_cplx *x,
                    const em_ksp_opts *o, em_ksp_stats *st);

/* A x_j = b_j for k right-hand sides of one operator and preconditioner,
 * as a block (docs/solvers.md, "Several right-hand sides"): B and X host
 * arrays, column j at B + j ldb and X + j ldx (ldb, ldx >= n; X holds the
 * initial guesses), st[j] the statistics of column j (its time: an equal
 * share of the block's).  BiCGSTAB and COCG run the k solves in lockstep:
 * every operator application of an iteration is one multi-vector product
 * (em_operator.apply_multi) and every preconditioner application one block
 * apply (em_pc_apply_multi), each column keeping its own scalars, stopping
 * test and restarts, so that column j gets em_ksp_solve's iterates (bit for
 * bit on the CPU).  The other methods solve the columns one after another. */
#define EM_KSP_MAX_BLOCK 64
em_err em_ksp_solve_multi(const em_operator *A, em_pc *pc, int k, const em_cplx *B, int64_t ldb,
                          em_cplx *X, int64_t ldx, const em_ksp_opts *o, em_ksp_stats *st);
/* 1 when method m runs a block in lockstep. */
int em_ksp_has_block(em_ksp_method m);

/* ------------------------------------------ the distributed operator
 *
 * One operator over the ranks of an em_dist (issue 27, docs/mpi.md): each
 * rank owns a set of unknowns (owner[]) and holds their rows, split into
 * the local part (owned x owned: the order blocks in the backend's formats,
 * as em_blockop) and the couplings to the ghosts (em_spmat); its apply
 * overlaps the halo exchange with the local product, and its em_operator
 * carries dist, so the Krylov methods above sum their reductions over the
 * ranks.  The local numbering: owned unknowns by order group, rows sorted
 * as the formats want (em_blockop_plan_perm); l2g maps it to the global. */
typedef struct em_dmat em_dmat;

typedef struct em_dmat_desc {
  int32_t n_glob;                   /* unknowns of the whole problem */
  int nb;                           /* order groups */
  int32_t offset[EM_MAX_ORDER + 1]; /* the global groups */
  const int32_t *owner;             /* [n_glob] rank of each unknown */
  const em_csr *R;                  /* the rows of the unknowns this rank owns, in
                                       ascending global order, global columns */
  em_blockmat **A_give;             /* instead of R: the rows as assembled, handed over
                                       and freed (*A_give = NULL) once split: block row
                                       g = this rank's unknowns of group g, ascending;
                                       block column h = global columns offset[h] + col.
                                       The same operator as from R, with fewer copies */
  int defer_op;                     /* 1: the local part's formats left out (info.op NULL,
                                       t_build[2] 0): em_dmat_make_op, em_dmat_set_op */
} em_dmat_desc;

typedef struct em_dmat_info {
  int32_t n_own, n_ghost, n_send; /* owned rows, ghosts, values sent per product */
  int n_neighbour;
  int nb;
  int32_t offset[EM_MAX_ORDER + 1]; /* the local order groups */
  int64_t nnz_local, nnz_ghost;
  const int32_t *l2g;       /* [n_own] global unknown of each local row */
  const int32_t *ghost_gid; /* [n_ghost] global unknown of each ghost */
  const em_blockmat *D;     /* the local part, local numbering (host CSR blocks) */
  const em_csr *Oh;         /* the ghost couplings (host CSR, ghost columns) */
  em_blockop *op;           /* the local part in the backend */
  double t_halo_wait;       /* seconds waited for the halo after the local product */
  int64_t applies;
  double t_build[4]; /* seconds of em_dmat_create: the ghosts and the halo plan, with R
                        also the split into local part and ghost couplings (plan); the
                        local part's blocks in the formats' row order, with A_give also
                        the split (local); the backend's formats (formats); the ghost
                        couplings, gather and buffers (rest) */
} em_dmat_info;

/* Collective.  bop: the local part's formats and backend (complex double). */
em_err em_dmat_create(const struct em_dist *d, const em_dmat_desc *ds, const em_blockop_opts *bop,
                      em_dmat **M);
void em_dmat_destroy(em_dmat **M);
/* With ds->defer_op, the local part's formats built beside other work
 * (model/dfsys_opbeside.c: beside the V-cycle's set-up, which reads the
 * host blocks D and Oh only): em_dmat_make_op reads M's host blocks and
 * options only (no MPI: any thread, while M is only read elsewhere) and
 * makes what em_dmat_create would have, the same call on the same blocks;
 * em_dmat_set_op gives it to M (seconds: its t_build[2]) before the first
 * product, which refuses to run without it. */
em_err em_dmat_make_op(const em_dmat *M, em_blockop **op);
void em_dmat_set_op(em_dmat *M, em_blockop *op, double seconds);
/* The operator of the Krylov methods: n = the owned rows, dist set. */
em_err em_dmat_operator(em_dmat *M, em_operator *op);
void em_dmat_get_info(const em_dmat *M, em_dmat_info *info);
/* xl[k] = xg[l2g[k]]: this rank's entries of a whole vector. */
void em_dmat_take(const em_dmat *M, const em_cplx *xg, em_cplx *xl);
/* Collective: rank 0's xg [n_glob] = every rank's xl in the global
 * numbering (xg is not touched elsewhere). */
em_err em_dmat_gather(const em_dmat *M, const em_cplx *xl, em_cplx *xg);
/* Collective: the order-group V-cycle of o->pmg on M (solver/dist/dpmg.c):
 * each rank smooths its rows of the groups above the coarse ones (ILU(0)
 * of its diagonal block; Jacobi with smoother jacobi), the coarse set
 * (coarse_glob[n_glob] != 0, the same on every rank: the coarse groups and
 * e.g. the PML) gathered to rank 0 and solved by the direct factor of its
 * rows (on rank 0's GPU with the CUDA backend).  M must outlive the pc. */
em_err em_dmat_pmg(em_dmat *M, const em_pc_opts *o, const uint8_t *coarse_glob, const em_log *log,
                   em_pc **pc);
/* The options em_dmat_pmg gives the coarse factor from the V-cycle's o on
 * backend be: direct, nd (unless o names another ordering), complex double
 * on the CPU, o->prec on a GPU, o->cancel. */
void em_dmat_pmg_coarse_opts(const em_pc_opts *o, em_backend be, em_pc_opts *co);
/* Rank 0's analysis of the coarse level made ahead (while the values are
 * assembled, model/dfsys_ahead.c): F = em_pc_direct_analyse of a matrix of
 * A_CC's pattern (the coarse unknowns in ascending global order) with the
 * options of em_dmat_pmg_coarse_opts, pattern = em_spmat_pattern_hash of
 * that matrix. */
typedef em_coarse_ahead em_dmat_coarse_ahead;
/* em_dmat_pmg with that analysis (ah NULL or ignored on ranks > 0): rank 0
 * takes ah->F (ah->F = NULL) when the gathered A_CC has its pattern, else
 * drops it and analyses in order; the same pc, bit for bit, either way. */
em_err em_dmat_pmg_ahead(em_dmat *M, const em_pc_opts *o, const uint8_t *coarse_glob,
                         em_dmat_coarse_ahead *ah, const em_log *log, em_pc **pc);
/* This rank's seconds in its V-cycles so far: t[0] smoothing, t[1] the
 * residual products, t[2] the coarse level's transfers and waiting (the
 * rows to rank 0, the correction back, host copies), t[3] rank 0's coarse
 * solves themselves (0 elsewhere); all 0 for another pc. */
void em_dmat_pmg_times(const em_pc *pc, double t[4]);

#ifdef __cplusplus
}
#endif
#endif /* EM_SOLVER_H */
