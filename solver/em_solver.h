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

typedef enum em_pc_type { EM_PC_NONE = 0, EM_PC_JACOBI, EM_PC_ILU0 } em_pc_type;

/* Ordering applied (symmetrically) before an ILU factorization. */
typedef enum em_pc_ordering {
  EM_ORDERING_NATURAL = 0,
  EM_ORDERING_RCM,
  EM_ORDERING_ND, /* METIS nested dissection */
  EM_ORDERING_MC, /* greedy multicolouring: few levels, more iterations */
  EM_ORDERING_BMC /* block multicolouring (Iwashita et al. 2012): blocks of
                     em_pc_opts.block_size neighbours, blocks coloured */
} em_pc_ordering;

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

/* "bicgstab", "cocg", "cocr", "gmres", "fgmres" / "none", "jacobi", "ilu0" /
 * "natural", "rcm", "nd" / "converged", "max-iterations", ... */
const char *em_ksp_method_name(em_ksp_method m);
const char *em_pc_type_name(em_pc_type p);
const char *em_pc_ordering_name(em_pc_ordering o);
const char *em_ksp_reason_name(em_ksp_reason r);
const char *em_pc_trsv_name(em_pc_trsv t); /* "auto", "levels", "syncfree", "cusparse" */
em_err em_ksp_method_parse(const char *s, em_ksp_method *m);
em_err em_pc_type_parse(const char *s, em_pc_type *p);
em_err em_pc_ordering_parse(const char *s, em_pc_ordering *o); /* also "mc", "bmc" */
em_err em_pc_trsv_parse(const char *s, em_pc_trsv *t);

/* ------------------------------------------------------- preconditioners */

typedef struct em_pc_opts {
  em_pc_type type;
  em_pc_ordering ordering;
  em_backend backend;
  em_prec prec;    /* factor storage precision (our triangular solves compute
                      in double on the rounded factors; cuSPARSE's in prec) */
  em_pc_trsv trsv; /* GPU triangular solve (ILU); AUTO = 0 */
  int block_size;  /* BMC block size; 0 = 16 */
  double shift;    /* ILU(0) of A + j shift |diag(A)| instead of A: damps the
                      tiny pivots of indefinite systems (0: plain ILU(0);
                      0.05 is a good first try when ILU(0) stagnates) */
} em_pc_opts;

/* NONE, NATURAL, CPU, DOUBLE, AUTO, 0, 0. */
void em_pc_opts_default(em_pc_opts *o);

typedef struct em_pc em_pc;

typedef struct em_pc_info {
  em_pc_type type;
  em_pc_ordering ordering;
  em_prec prec;
  double t_setup;   /* seconds, factorization + analysis + upload */
  size_t bytes;     /* memory of the factors / diagonal */
  int levels_lower; /* level-schedule depth of the L solve (ILU) */
  int levels_upper; /* of the U solve */
  int colors;       /* colours of the MC / BMC ordering (0 otherwise) */
  double shift;     /* the diagonal shift the ILU factors carry */
  const char *impl; /* "identity", "jacobi", "cpu-levels", "cuda-levels",
                       "cuda-syncfree", "cusparse-spsv" */
} em_pc_info;

/* Build from the host CSR of the operator's matrix (same numbering). */
em_err em_pc_create(const em_csr *A, const em_pc_opts *o, const em_log *log, em_pc **pc);
/* z = M^-1 r, vectors in the pc's backend memory, in complex double (the
 * pc converts internally when its own precision differs).  r and z may not
 * alias. */
em_err em_pc_apply(em_pc *pc, const void *r, void *z);
/* The same for vectors in precision vec_prec (em_ksp_solve uses this with
 * the operator's precision). */
em_err em_pc_apply_prec(em_pc *pc, em_prec vec_prec, const void *r, void *z);
void em_pc_get_info(const em_pc *pc, em_pc_info *info);
void em_pc_destroy(em_pc **pc);

/* -------------------------------------------------------------- Krylov */

typedef struct em_ksp_opts {
  em_ksp_method method;
  double tol;    /* relative residual target (default 1e-8) */
  int max_it;    /* default 1000 */
  int restart;   /* GMRES(m) restart length (default 50) */
  int log_every; /* print the residual every n iterations (0: never) */
  const em_log *log;
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

/* ------------------------------------------- the solver's own CSR operator */

/* A CSR operator independent of formats/ (the baseline of the tests and the
 * benchmark): OpenMP CSR SpMV on the CPU (rows split by nonzeros), cuSPARSE
 * SpMV on the GPU (32-bit indices: nnz < 2^31).  It keeps its own copy of
 * the matrix in `prec`. */
typedef struct em_csrop em_csrop;

em_err em_csrop_create(const em_csr *A, em_backend backend, em_prec prec, em_csrop **op);
/* The em_operator view (valid while the em_csrop lives). */
void em_csrop_operator(em_csrop *c, em_operator *op);
size_t em_csrop_bytes(const em_csrop *c);
void em_csrop_destroy(em_csrop **c);

#ifdef __cplusplus
}
#endif
#endif /* EM_SOLVER_H */
