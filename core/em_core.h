/* em_core.h - the vocabulary every emsolve module shares.
 *
 * Errors with a trace, a progress log, complex scalars, host and device
 * memory, atomic output files, the CSR matrix and the 3x3 block matrix by
 * basis order, the matrix files of --dump-matrix, and the compute device.  Nothing here knows about
 * meshes, physics or formats.
 *
 * This header is also included from CUDA (C++) sources: there the complex
 * types are layout-compatible structs (two doubles / two floats), the same
 * layout as C99 `double complex` and `cuDoubleComplex`.
 */
#ifndef EM_CORE_H
#define EM_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
typedef struct {
  double re, im;
} em_cplx; /* == double complex in C */
typedef struct {
  float re, im;
} em_cplxf; /* == float complex in C */
#else
#include <complex.h>
typedef double complex em_cplx; /* complex double, the default scalar */
typedef float complex em_cplxf; /* complex single, for inner work */
#endif

#if defined(__GNUC__)
#define EM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define EM_PRINTF(f, a)
#endif

#define EM_VERSION "0.1.0"

/* Physical constants (SI, CODATA 2018). */
#define EM_C0 299792458.0        /* speed of light in vacuum, m/s */
#define EM_MU0 1.25663706212e-6  /* vacuum permeability, H/m */
#define EM_EPS0 8.8541878128e-12 /* vacuum permittivity, F/m */
#define EM_Z0 376.730313668      /* impedance of free space, ohm */

/* ------------------------------------------------------------------ errors */

/* Every function that can fail returns em_err; 0 is success.  The code says
 * what kind of failure; the message in the trace names the culprit. */
typedef enum em_err {
  EM_OK = 0,
  EM_ERR_ARG,         /* invalid argument passed by the caller */
  EM_ERR_INPUT,       /* bad user input: case file, parameter, mesh, physics */
  EM_ERR_IO,          /* file missing, unreadable, unwritable, corrupt */
  EM_ERR_MEMORY,      /* host allocation failed */
  EM_ERR_GMSH,        /* Gmsh reported an error */
  EM_ERR_CUDA,        /* CUDA runtime error */
  EM_ERR_CUSPARSE,    /* cuSPARSE status */
  EM_ERR_CUBLAS,      /* cuBLAS status */
  EM_ERR_GPU_MEMORY,  /* GPU out of memory */
  EM_ERR_NUMERIC,     /* singular matrix, zero pivot, NaN/Inf */
  EM_ERR_UNSUPPORTED, /* not built in (e.g. CUDA) or not available here */
  EM_ERR_INTERNAL,    /* a broken invariant: a bug */
  EM_ERR_CANCELLED,   /* stopped on request (a signal, em_cancel) */
  EM_ERR_MPI          /* MPI reported an error (dist/) */
} em_err;

/* Name of a code, e.g. "EM_ERR_INPUT". */
const char *em_err_name(em_err code);

/* Start a new trace with a message naming the culprit; returns code. */
em_err em_error_raise(em_err code, const char *file, int line, const char *fmt, ...)
    EM_PRINTF(4, 5);
/* Append a file:line frame to the current trace; returns code. */
em_err em_error_trace(em_err code, const char *file, int line);
/* Message of the current trace ("" when none). */
const char *em_error_message(void);
/* Code of the current trace (EM_OK when none). */
em_err em_error_code(void);
/* "error: <message>" then one "  at file:line" per frame. */
void em_error_print(FILE *f);
void em_error_clear(void);

/* Raise an error: return EM_RAISE(EM_ERR_INPUT, "no volume in %s", path); */
#define EM_RAISE(code, ...) em_error_raise((code), __FILE__, __LINE__, __VA_ARGS__)
/* Check a condition, raising with a message when it fails. */
#define EM_CHECK(cond, code, ...)                    \
  do {                                               \
    if (!(cond)) return EM_RAISE(code, __VA_ARGS__); \
  } while (0)
/* Propagate: return the error of expr, adding this file:line to the trace. */
#define EM_TRY(expr)                                                         \
  do {                                                                       \
    em_err em_try_err_ = (expr);                                             \
    if (em_try_err_) return em_error_trace(em_try_err_, __FILE__, __LINE__); \
  } while (0)
/* Propagate to a cleanup label: err = expr; on failure trace and goto label. */
#define EM_TRY_GOTO(err, expr, label)            \
  do {                                           \
    (err) = (expr);                              \
    if (err) {                                   \
      em_error_trace((err), __FILE__, __LINE__); \
      goto label;                                \
    }                                            \
  } while (0)

/* Adapters: turn a library status into em_err with the library's own name for
 * it (cudaErrorMemoryAllocation -> EM_ERR_GPU_MEMORY).  Status 0 is success.
 * Defined only in builds with CUDA; `what` is the failing call's text. */
em_err em_cuda_status(int status, const char *what, const char *file, int line);
em_err em_cusparse_status(int status, const char *what, const char *file, int line);
em_err em_cublas_status(int status, const char *what, const char *file, int line);
#define EM_CUDA(call) EM_TRY(em_cuda_status((int)(call), #call, __FILE__, __LINE__))
#define EM_CUSPARSE(call) EM_TRY(em_cusparse_status((int)(call), #call, __FILE__, __LINE__))
#define EM_CUBLAS(call) EM_TRY(em_cublas_status((int)(call), #call, __FILE__, __LINE__))
/* The same to a cleanup label (EM_TRY_GOTO). */
#define EM_CUDA_GOTO(err, call, label) \
  EM_TRY_GOTO(err, em_cuda_status((int)(call), #call, __FILE__, __LINE__), label)
#define EM_CUBLAS_GOTO(err, call, label) \
  EM_TRY_GOTO(err, em_cublas_status((int)(call), #call, __FILE__, __LINE__), label)
#define EM_CUSPARSE_GOTO(err, call, label) \
  EM_TRY_GOTO(err, em_cusparse_status((int)(call), #call, __FILE__, __LINE__), label)
/* The status of the kernel launches just queued (a CUDA launcher's last
 * line: every launcher of every module returns em_err). */
#define EM_CUDA_LAUNCHED() EM_CUDA(cudaGetLastError())

/* ------------------------------------------------------------ cancellation */

/* A request to stop long work early, set asynchronously (by a signal
 * handler: app/outdir.c's flag is the one process-wide variable).  The long
 * loops (Krylov iterations, the factorization's supernodes, the writers'
 * cells) poll the pointer their options hold and give up with
 * EM_ERR_CANCELLED; NULL never cancels.  int is sig_atomic_t on every
 * target (glibc, musl). */
typedef volatile int em_cancel;

/* 1 when c is set (and not NULL). */
static inline int em_cancelled(const em_cancel *c) {
  return c && *c;
}

/* --------------------------------------------------------------------- log */

/* Progress and timings go to a log passed explicitly (no global state).
 * A NULL log is silent.  --quiet sets EM_LOG_QUIET: progress disappears,
 * warnings stay; errors are printed by the caller from the trace. */
typedef enum { EM_LOG_QUIET = 0, EM_LOG_INFO = 1, EM_LOG_VERBOSE = 2 } em_log_level;

struct em_stages;

typedef struct em_log {
  FILE *stream;             /* usually stderr */
  int level;                /* em_log_level */
  double t0;                /* wall time at creation: lines carry time since t0 */
  struct em_stages *stages; /* the run's stage table (NULL: stages not timed) */
  int progress;             /* em_log_progress lines show even below EM_LOG_INFO (a
                               stage's detail log whose user asked for the default level) */
  char tag[48];             /* after the time on every line: "[rank 1, point 3] " in an
                               MPI run (app/rank.c), "point_3: " in a design sweep, "" none */
} em_log;

void em_log_init(em_log *log, FILE *stream, int level);
void em_log_info(const em_log *log, const char *fmt, ...) EM_PRINTF(2, 3);
void em_log_verbose(const em_log *log, const char *fmt, ...) EM_PRINTF(2, 3);
void em_log_warn(const em_log *log, const char *fmt, ...) EM_PRINTF(2, 3);
/* A long stage's progress (a factorization taking minutes): shown at
 * EM_LOG_INFO and above, or when log->progress is set. */
void em_log_progress(const em_log *log, const char *fmt, ...) EM_PRINTF(2, 3);

/* Wall-clock seconds from an arbitrary origin (monotonic). */
double em_wtime(void);

/* a[0..n) ascending, in place (core/sort.c). */
void em_sort_u64(uint64_t *a, int64_t n);

/* ------------------------------------------------------------------ stages */

/* The run's wall time by stage (summary.json "stages_s").  Exclusive: a
 * stage begun inside another stops the outer one's clock until it ends,
 * so the stages and "other" add up to the run's wall time.  The table
 * rides on the log (em_log.stages), so any module that is handed a log
 * charges its stage without a new argument; a log without a table (or
 * NULL) times nothing.  Stages run on another thread beside the run's
 * (em_stages_join) count their own durations and the table's
 * "overlapped" says by how much the stages then exceed the wall time.
 * A stage instance longer than EM_STAGE_LOG_S is logged when it ends on
 * the table's own log (the run's, at the default verbosity, whatever the
 * level of the log passed), shorter ones from
 * 0.05 s with --verbose: no stretch of a run over half a second passes
 * without a line that names it and says how long it took. */
typedef enum em_stage {
  EM_STAGE_OTHER = 0, /* what no stage claims (the table's bottom) */
  EM_STAGE_PARSE,     /* the case file and its parameters */
  EM_STAGE_MESH,      /* meshing, or reading Mesh/file; --save-mesh */
  EM_STAGE_SETUP,     /* the case physics on the mesh, checks, topology */
  EM_STAGE_DOFMAP,    /* the DOF map */
  EM_STAGE_ASSEMBLY,  /* pattern, element matrices, global assembly */
  EM_STAGE_OPERATOR,  /* row order, permuted matrix, formats, upload */
  EM_STAGE_ORDERING,  /* fill-reducing ordering */
  EM_STAGE_SYMBOLIC,  /* symbolic analysis of a factorization */
  EM_STAGE_NUMERIC,   /* numeric factorization */
  EM_STAGE_PC,        /* the rest of the preconditioner's set-up */
  EM_STAGE_SOLVE,     /* Krylov solves */
  EM_STAGE_POST,      /* port quantities, fields, PML estimate */
  EM_STAGE_FARFIELD,  /* far field and antenna figures */
  EM_STAGE_WRITING,   /* output files */
  EM_STAGE_COUNT
} em_stage;

#define EM_STAGE_LOG_S 0.5
#define EM_STAGE_DEPTH 16

typedef struct em_stages {
  double t[EM_STAGE_COUNT];       /* exclusive seconds per stage */
  int calls[EM_STAGE_COUNT];      /* instances begun */
  em_log out;                     /* where the stage lines go */
  int depth;                      /* stages open; stack[0] is OTHER */
  em_stage stack[EM_STAGE_DEPTH]; /* open stages, innermost last */
  double begin[EM_STAGE_DEPTH];   /* when each open stage began */
  double mark;                    /* when the innermost resumed */
  double t_start;                 /* em_stages_init */
  double overlapped;              /* seconds of stages that ran beside others (another
                                     thread's table joined by em_stages_join): the stages
                                     and "other" add up to the wall time plus this */
  int background;                 /* a table of another thread: its lines say so */
} em_stages;

/* s timing from now; its lines go to `out` (copied; NULL: none). */
void em_stages_init(em_stages *s, const em_log *out);
/* "parse", "mesh", ..., the summary's keys. */
const char *em_stage_name(em_stage st);
/* t[st] = the seconds of each stage so far, the open ones up to now
 * included; t[EM_STAGE_OTHER] = the rest.  Returns the seconds since
 * em_stages_init. */
double em_stages_now(const em_stages *s, double t[EM_STAGE_COUNT]);
/* A table for stages run on another thread beside the run's (the
 * ordering during the assembly): its lines go to parent's log, marked
 * "(overlapped)"; begin and end its stages through a log that carries it,
 * then em_stages_join it into the parent. */
void em_stages_init_background(em_stages *bg, const em_stages *parent);
/* After the other thread ended (joined): bg's stages added to s's, each
 * with its own duration; the wait for it (since t_wait, em_wtime(), on
 * this thread) taken off the stage open here, since that stage did not
 * work meanwhile; s->overlapped += bg's stages - the wait.  A NULL log or
 * one without a table: nothing. */
void em_stages_join(const em_log *log, const em_stages *bg, double t_wait);
/* Stage st begins inside the current one (log NULL or without a table:
 * nothing happens). */
void em_stage_begin(const em_log *log, em_stage st);
/* Stage st ends (with any stage begun inside it and left open: an error
 * path); its line "st: N.NN s" plus ", " and the detail fmt when given.
 * Returns the instance's seconds (inclusive), 0 when not timed. */
double em_stage_end(const em_log *log, em_stage st, const char *fmt, ...) EM_PRINTF(3, 4);

/* One piece of work on a thread of its own beside the caller (core/beside.c):
 * work(ctx, log) runs with an OpenMP team of `threads` (< 1: the new
 * thread's default) and log the caller's on a background stage table
 * (em_stages_init_background: its lines marked "(overlapped)").  NULL
 * when no thread could start: the caller then works in order.  _join
 * waits, joins the thread's stages into log's table (em_stages_join: the
 * wait taken off the stage open here), sets *waited (NULL: not wanted) to
 * the seconds it waited and returns work's error, raised again here with
 * its message (its trace stayed on the thread), or with msg (cap bytes)
 * that message copied there and nothing raised (a caller that only logs
 * it); *b freed (NULL: EM_OK).
 * _drop waits and drops the stages and the error (error paths). */
typedef struct em_beside em_beside;
typedef em_err (*em_beside_fn)(void *ctx, const em_log *log);
em_beside *em_beside_start(em_beside_fn work, void *ctx, int threads, const em_log *log);
em_err em_beside_join(em_beside **b, const em_log *log, double *waited, char *msg, size_t cap);
void em_beside_drop(em_beside **b);

/* ------------------------------------------------------------------ memory */

/* *pptr = zeroed array of n items of size bytes; `what` names it in the
 * out-of-memory message.  n == 0 gives a valid unique pointer. */
em_err em_calloc(void *pptr, size_t n, size_t size, const char *what);
/* Resize *pptr to n items (new items uninitialised). */
em_err em_realloc(void *pptr, size_t n, size_t size, const char *what);
/* free(*pptr); *pptr = NULL. */
void em_free(void *pptr);
/* Duplicate a string. */
em_err em_strdup(char **out, const char *s);
/* Bytes of host memory available now (Linux: /proc/meminfo MemAvailable);
 * 0 when unknown. */
double em_host_mem_available(void);

/* ----------------------------------------------------------- output files */

/* Outputs are written to "<path>.tmp.<pid>" and renamed over <path> only when
 * complete, so a killed run never leaves a half file that looks whole. */
typedef struct em_outfile {
  FILE *f;        /* write here */
  char *path;     /* final name */
  char *tmp_path; /* temporary name */
} em_outfile;

em_err em_outfile_open(em_outfile *o, const char *path, int binary);
/* Flush, close, check for write errors, rename to the final name. */
em_err em_outfile_commit(em_outfile *o);
/* Close and remove the temporary file (after an error). Safe to repeat. */
void em_outfile_abort(em_outfile *o);
/* mkdir -p. */
em_err em_mkdir_p(const char *path);

/* ------------------------------------------------------------------ names */

/* The words of an enumeration, names[0 .. count-1], indexed by its values. */
/* names[i], or "?" for an index out of range. */
const char *em_name_of(const char *const *names, int count, int i);
/* Index of s among names, or -1. */
int em_name_index(const char *const *names, int count, const char *s);
/* "a, b, c" into buf (truncated to n bytes). */
void em_name_list(const char *const *names, int count, char *buf, size_t n);
/* *index = position of s, or EM_ERR_INPUT "unknown <what> '<s>' (known:
 * a, b, c)". */
em_err em_name_parse(const char *const *names, int count, const char *s, const char *what,
                     int *index);

/* ----------------------------------------------------------------- scalars */

typedef enum { EM_PREC_DOUBLE = 0, EM_PREC_SINGLE = 1 } em_prec;
/* Bytes of one complex scalar of a precision: 16 or 8. */
size_t em_prec_size(em_prec p);

/* ----------------------------------------------------------- device memory */

/* GPU arrays of every module (core/devmem_cuda.c; builds with CUDA only).
 * Errors name `what`: GPU out of memory says which array did not fit. */
/* *d = a device array of `bytes` bytes (a valid pointer even for 0), a copy
 * of h when h is not NULL; *total += bytes when total is not NULL.  On
 * failure *d is NULL and nothing is counted. */
em_err em_dev_alloc(void **d, const void *h, size_t bytes, size_t *total, const char *what);
/* *d = a device array of the n complex double host values h in precision p
 * (converted on the host when p is single); *total as above. */
em_err em_dev_upload_vals(void **d, const em_cplx *h, size_t n, em_prec p, size_t *total,
                          const char *what);
/* cudaFree(*pptr) when not NULL; *pptr = NULL (pptr: address of a pointer). */
void em_dev_free(void *pptr);
/* Page-lock the host array p of `bytes` bytes (cudaHostRegister): uploads
 * from it then go at the link's speed, no staging copy.  1 when done, 0
 * when refused (nothing changes: the array stays pageable).  The owner
 * unpins it (em_host_unpin) before freeing it. */
int em_host_pin(void *p, size_t bytes);
void em_host_unpin(void *p);
/* 1 when the host array p is page-locked (em_host_pin, cudaMallocHost). */
int em_host_pinned(const void *p);

/* ------------------------------------------------------------------- CSR */

/* Compressed sparse rows, complex double, on the host.
 * Column indices are sorted and unique within a row. */
typedef struct em_csr {
  int32_t n_rows;  /* number of rows */
  int32_t n_cols;  /* number of columns */
  int64_t nnz;     /* number of stored entries = rowptr[n_rows] */
  int64_t *rowptr; /* row i holds entries rowptr[i] .. rowptr[i+1]-1 */
  int32_t *colind; /* column of each entry */
  em_cplx *val;    /* value of each entry */
} em_csr;

/* Allocate an n_rows x n_cols matrix with room for nnz entries; rowptr is
 * zeroed, colind/val uninitialised. */
em_err em_csr_create(int32_t n_rows, int32_t n_cols, int64_t nnz, em_csr **A);
void em_csr_destroy(em_csr **A);
em_err em_csr_copy(const em_csr *A, em_csr **B);
/* Check the structure: rowptr monotone, columns in range, sorted, unique. */
em_err em_csr_check(const em_csr *A, const char *name);
/* Build from triplets (i, j, v); duplicates are summed, entries sorted. */
em_err em_csr_from_triplets(int32_t n_rows, int32_t n_cols, int64_t n, const int32_t *ti,
                            const int32_t *tj, const em_cplx *tv, em_csr **A);
/* B = P A Q^T: row i of A becomes row rperm[i] of B, column j becomes
 * column cperm[j] (perm[old] = new).  NULL means identity. */
em_err em_csr_permute(const em_csr *A, const int32_t *rperm, const int32_t *cperm, em_csr **B);
/* The same with map[q] = the index in A of B's entry q (map: B->nnz
 * entries, or NULL): a later matrix of A's pattern is permuted by
 * B->val[q] = A'->val[map[q]].  Rows in parallel. */
em_err em_csr_permute_map(const em_csr *A, const int32_t *rperm, const int32_t *cperm, em_csr **B,
                          int64_t *map);
/* y = alpha A x + beta y: the plain serial reference every kernel is
 * checked against. */
void em_csr_spmv_ref(const em_csr *A, em_cplx alpha, const em_cplx *x, em_cplx beta, em_cplx *y);
/* Bytes of the CSR arrays (values + column indices + row pointers). */
size_t em_csr_bytes(const em_csr *A, em_prec p);

/* ------------------------------------------------------ block matrix */

#define EM_MAX_ORDER 3

/* The system split by basis order: DOFs are numbered group by group (all
 * order-1 DOFs, then order 2, then order 3), and blk[i][j] couples the test
 * functions of group i with the basis functions of group j, in indices local
 * to the groups.  Every block exists (nnz may be 0). */
typedef struct em_blockmat {
  int nb;                           /* number of groups, 1..3 */
  int32_t offset[EM_MAX_ORDER + 1]; /* group g = DOFs offset[g]..offset[g+1]-1 */
  em_csr *blk[EM_MAX_ORDER][EM_MAX_ORDER];
} em_blockmat;

/* Split a square CSR by the group offsets (offset[0] = 0, offset[nb] = n). */
em_err em_blockmat_from_csr(const em_csr *A, int nb, const int32_t *offset, em_blockmat **B);
/* The whole matrix as one CSR. */
em_err em_blockmat_to_csr(const em_blockmat *B, em_csr **A);
/* Apply a symmetric permutation that keeps every DOF in its group:
 * perm[old] = new, with offset[g] <= perm[i] < offset[g+1] for i in group g. */
em_err em_blockmat_permute(const em_blockmat *B, const int32_t *perm, em_blockmat **P);
/* The same with the value maps of em_csr_permute_map: map[i][j] (allocated
 * here, nnz + 1 entries, em_free each) for every block. */
em_err em_blockmat_permute_map(const em_blockmat *B, const int32_t *perm, em_blockmat **P,
                               int64_t *map[EM_MAX_ORDER][EM_MAX_ORDER]);
void em_blockmat_destroy(em_blockmat **B);
/* A = P B P^T as one CSR (perm as em_blockmat_permute), built block by
 * block (core/blockmat_csr.c).  consume: each block of B is freed as soon
 * as it is copied (B's blocks are then NULL: destroy B after), so the host
 * holds one copy of the matrix plus one block, not two copies.  src (or
 * NULL): the gather map A->val[q] = B_ij->val[(*src)[q]] (i, j the groups
 * of entry q's row and column), allocated here (em_free), that makes a
 * later fill a plain gather with sequential writes. */
em_err em_blockmat_permute_csr(em_blockmat *B, const int32_t *perm, int consume, em_csr **A,
                               int64_t **src);
/* A later matrix of the same pattern into A's values: through src when
 * given (the map of em_blockmat_permute_csr), else permuted again. */
em_err em_blockmat_permute_csr_values(em_blockmat *B, const int32_t *perm, int consume, em_csr *A,
                                      const int64_t *src);
/* B = A(r0:r1, c0:c1), columns rebased to c0 (A's columns sorted). */
em_err em_csr_block(const em_csr *A, int32_t r0, int32_t r1, int32_t c0, int32_t c1, em_csr **B);

/* ------------------------------------------------------------ matrix files */

/* The system as written by `emsolve --dump-matrix FILE` (docs/matrix-file.md):
 * the nine blocks, the order group offsets and the right-hand sides.  In
 * core because it reads and writes core types only (em_blockmat, em_cplx)
 * and its users span app/, bench/ and the tests of several modules.
 * Corrupt or truncated files are an EM_ERR_IO naming the file and what is
 * wrong with it. */
em_err em_matfile_write(const char *path, const em_blockmat *B, int n_rhs, const em_cplx *b);
em_err em_matfile_read(const char *path, em_blockmat **B, int *n_rhs, em_cplx **b);

/* ---------------------------------------------------------- Matrix Market */

/* Matrix Market coordinate files (core/mtx.c, docs/matrix-file.md): the
 * exchange format of the SuiteSparse / Harwell-Boeing collections. */
typedef enum { EM_MTX_REAL = 0, EM_MTX_COMPLEX, EM_MTX_INTEGER, EM_MTX_PATTERN } em_mtx_field;
typedef enum {
  EM_MTX_GENERAL = 0,
  EM_MTX_SYMMETRIC, /* lower triangle stored, a_ji = a_ij */
  EM_MTX_SKEW,      /* skew-symmetric: a_ji = -a_ij, no diagonal */
  EM_MTX_HERMITIAN  /* a_ji = conj(a_ij) */
} em_mtx_symmetry;
typedef struct em_mtx_info {
  em_mtx_field field;
  em_mtx_symmetry symmetry;
  int64_t entries; /* entry lines of the file (before mirroring) */
} em_mtx_info;

/* *A = the matrix of a coordinate file (pattern entries are 1, the stored
 * triangle of a symmetric / skew / hermitian file mirrored, duplicates
 * summed); info may be NULL.  Any fault is EM_ERR_IO naming the file, the
 * line and the culprit; *A is NULL then. */
em_err em_mtx_read(const char *path, em_csr **A, em_mtx_info *info);
/* Write A (real when every imaginary part is 0, else complex); symmetric:
 * the lower triangle as a symmetric file (EM_ERR_ARG when a_ij != a_ji).
 * Through em_outfile: the final name appears only when complete. */
em_err em_mtx_write(const char *path, const em_csr *A, int symmetric);
/* 1 when the file at path starts with the Matrix Market banner. */
int em_mtx_is_file(const char *path);

/* ------------------------------------------------------------------ device */

typedef enum { EM_BACKEND_CPU = 0, EM_BACKEND_CUDA = 1 } em_backend;

/* Which device computes: chosen once by the app (--device auto|cpu|gpu). */
typedef struct em_device {
  em_backend backend; /* CPU, or CUDA when a GPU answered */
  int cuda_id;        /* CUDA device ordinal (CUDA only) */
  char name[128];     /* "NVIDIA H100 80GB HBM3" or "CPU (16 threads)" */
  size_t mem_total;   /* device memory, bytes (CUDA only) */
  int sm_count;       /* multiprocessors (CUDA only) */
  int cpu_threads;    /* OpenMP threads available */
} em_device;

/* 1 when this build has CUDA compiled in. */
int em_cuda_built(void);
/* The GPUs the CUDA runtime shows this process (CUDA_VISIBLE_DEVICES
 * applied), asked in a child process so that this one's CUDA is not
 * started: the caller may still narrow CUDA_VISIBLE_DEVICES (dist/ gives
 * each MPI rank its GPU so).  0 without CUDA, a driver or a GPU. */
int em_cuda_count_devices(void);
/* mode "auto": the GPU when one answers, else the CPU with one clear line in
 * the log; "gpu": the GPU or an error naming why not; "cpu": the CPU. */
em_err em_device_open(const char *mode, const em_log *log, em_device *dev);
/* Bytes of the current CUDA device's memory free now (0 without CUDA or
 * when the runtime does not answer). */
size_t em_device_mem_free(void);

#ifdef __cplusplus
}
#endif
#endif /* EM_CORE_H */
