/* backend_impl.h - the backends of solver/ (private): one table per backend
 * listing what differs between the CPU and the GPU, chosen once when a
 * preconditioner, a direct factor or a set of Krylov vectors is created.
 *
 * Like formats/ (em_fmt_backend), a front end checks its arguments and hands
 * the backend's part to the table; it never asks which backend it runs on.
 * backend.c is the one place that knows which backends this build has
 * (em_sv_backend_of); backend_cpu.c and backend_cuda.c are the tables.
 *
 * The GPU-to-host fallback is one mechanism (em_sv_fallback): work that
 * finds no room in a backend's memory moves to the backend's `fallback`
 * (the CPU for the GPU) with one warning line.  What moved keeps the
 * caller's vectors where they were: a preconditioner whose factor went to
 * the host stages r and z through `download` / `upload` (direct_pc.c). */
#ifndef EM_SOLVER_BACKEND_IMPL_H
#define EM_SOLVER_BACKEND_IMPL_H

#include "em_solver.h"

#ifdef __cplusplus
extern "C" {
#endif

struct em_vec;
struct em_pc;
struct em_ilu0;
struct em_direct;
struct pmg_vops;

typedef struct em_sv_backend em_sv_backend;

struct em_sv_backend {
  em_backend id;
  const char *name;  /* "CPU", "GPU" (messages) */
  const char *where; /* "cpu", "gpu" (em_direct_info.where) */
  int host;          /* 1: its arrays are host memory */
  /* where work goes that finds no room in this backend's memory (NULL:
     nowhere; em_sv_fallback) */
  const em_sv_backend *fallback;
  /* the ILU(0) triangular solves offered: bit (1u << em_pc_trsv) */
  unsigned trsv;
  /* 1: factors in complex single (Solver/precision mixed); else double */
  int single_factor;

  /* ---- memory: `bytes` bytes, queued on the legacy default stream that
     the Krylov vectors use (the CPU copies at once) */
  em_err (*copy)(void *dst, const void *src, size_t bytes);   /* dst = src, both here */
  em_err (*download)(void *h, const void *src, size_t bytes); /* host h = src */
  em_err (*upload)(void *dst, const void *h, size_t bytes);   /* dst = host h */
  /* host memory that moves to and from the device often (the halo and
     coarse buffers of a distributed solve) page-locked for faster
     transfers: 1 when done (unpin before freeing it), 0 when not (it
     stays pageable, which still works); NULL: a host backend */
  int (*pin)(void *h, size_t bytes);
  void (*unpin)(void *h);

  /* ---- Krylov vectors: fill v->ops and v->data (vec/) */
  em_err (*vec_init)(struct em_vec *v);

  /* ---- preconditioners: set pc->ops, pc->data, pc->info (pc/, ilu/,
     pmg/); a builder taking F owns it */
  em_err (*jacobi_build)(const em_csr *A, struct em_pc *pc);
  /* F factored and split */
  em_err (*ilu0_build)(struct em_ilu0 *F, struct em_pc *pc);
  /* F analysed, not factored (trsv cusparse: factors there; NULL where not
     offered, `trsv` then excludes it) */
  em_err (*ilu0_build_cusparse)(struct em_ilu0 *F, struct em_pc *pc);
  /* EM_PC_DIRECT whose factor lives on this backend: its apply */
  em_err (*direct_pc_use)(struct em_pc *pc);
  const struct pmg_vops *pmg; /* the V-cycle's vector operations */
  const char *pmg_impl;       /* its em_pc_info.impl */

  /* ---- the sparse direct factor (direct/) */
  /* numeric factorization of the symmetrised values M with the
     equilibration r (old numbering, smax its max |s_ij|); EM_ERR_GPU_MEMORY
     when the factor does not fit (nothing left allocated) */
  em_err (*direct_numeric)(struct em_direct *F, const em_csr *M, const double *r, double smax,
                           const em_log *log);
  /* x = A^-1 b for nrhs host columns in complex double */
  em_err (*direct_solve)(const struct em_direct *F, int nrhs, const em_cplx *b, int64_t ldb,
                         em_cplx *x, int64_t ldx);
  /* free what this backend holds of F (NULL: nothing) */
  void (*direct_free)(struct em_direct *F);
  /* bytes of device memory F's numeric factorization of nnz_a entries will
     take (NULL: a host backend, nothing) */
  double (*direct_device_need)(const struct em_direct *F, int64_t nnz_a);
  /* the profile of F's solves, fill *p / clear it (NULL: no profile) */
  void (*direct_gprofile_get)(const struct em_direct *F, em_direct_gprofile *p);
  void (*direct_gprofile_reset)(struct em_direct *F);
};

extern const em_sv_backend em_sv_backend_cpu;  /* backend_cpu.c */
extern const em_sv_backend em_sv_backend_cuda; /* backend_cuda.c, builds with CUDA */

/* The table of backend b, or NULL when this build does not have it. */
const em_sv_backend *em_sv_backend_of(em_backend b);
/* The same, or the error a front end reports: EM_ERR_ARG for an unknown
 * backend, EM_ERR_UNSUPPORTED naming `what` (e.g. "the CUDA backend") for
 * one this build does not have; `who` starts the message. */
em_err em_sv_backend_get(em_backend b, const char *who, const char *what, const em_sv_backend **be);
/* "CPU", "GPU" or "unknown" for messages. */
const char *em_sv_backend_name(em_backend b);

/* The GPU-to-host fallback, decided here only.  err is the status of work
 * on *be: EM_ERR_GPU_MEMORY where *be has a fallback moves *be there, logs
 * one warning "<the shortage>: <instead>" (instead: a printf format) and
 * returns EM_OK; any other status is returned as it is. */
em_err em_sv_fallback(const em_sv_backend **be, em_err err, const em_log *log, const char *instead,
                      ...) EM_PRINTF(4, 5);

#ifdef __cplusplus
}
#endif
#endif
