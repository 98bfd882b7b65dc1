/* fsys_impl.h - the frequency system's state (private to model/): fsys.c
 * (one rank) and dfsys.c (the distributed solve, issue 27). */
#ifndef EM_MODEL_FSYS_IMPL_H
#define EM_MODEL_FSYS_IMPL_H

#include "em_dist.h"
#include "em_model.h"

#define FSYS_MAX_ROBIN 48

/* One frequency's problem (fsys_next.c): the Robin terms, the media and
 * the em_problem pointing at them (and, for an assembly ahead of its
 * frequency, the copies of the ports it sets, the setup's left alone). */
typedef struct fsys_prob {
  em_port port[EM_MAX_PORTS];
  em_robin rb[FSYS_MAX_ROBIN];
  em_media media;
  em_problem prob;
} fsys_prob;
typedef struct em_fsys_next em_fsys_next; /* fsys_next.c */

struct em_fsys {
  em_fsys_desc d;
  double next_f;                /* the frequency the caller says comes next (0: none) */
  int pinned;                   /* Acsr's values page-locked: 1, refused: -1, 0 not tried */
  em_fsys_next *next;           /* its assembly, under way or done (NULL: none) */
  uint8_t *vary;                /* [n_tet] PML tets: the material varies inside */
  em_assembler *asm_;           /* pattern, colouring, reference element: once
                                   (distributed: this rank's rows, em_fsys_dpart) */
  em_robin abc[FSYS_MAX_ROBIN]; /* ABC terms at k0 = 1 (gamma scales with k0) */
  int n_abc_terms;
  int32_t *perm;      /* operator row order (the pattern's), once */
  uint8_t *pml_rows;  /* pmg coarse set (operator numbering), once */
  uint8_t *pml_block; /* pmg block level: the PML's unknowns, once */
  em_pc *pc;          /* ordering and analysis once, refactored per frequency */
  /* the system in the operator's row order, as one CSR: the
     preconditioner's matrix and the source of the operator's blocks; made
     at the first frequency from the assembled blocks (consumed block by
     block), its values refilled at each later one */
  em_csr *Acsr;
  int nb;                                        /* order groups of the operator */
  int32_t offset[EM_MAX_ORDER + 1];              /* their offsets */
  em_fsys_block blk[EM_MAX_ORDER][EM_MAX_ORDER]; /* the blocks' sizes */
  em_blockop *op;
  em_operator opA; /* op as the Krylov operator; pmg's residuals use it */
  int64_t *src;    /* Acsr->val[q] = value src[q] of the assembled block of
                      entry q's row and column groups, or NULL (host memory
                      short: the later fills permute again) */
  uint64_t apat[EM_MAX_ORDER][EM_MAX_ORDER]; /* pattern hashes of the assembled
                                                blocks, checked at every refill */
  /* a distributed solve (dfsys.c; d.dist of more than one rank) */
  int32_t *owner;              /* [n_dof] the rank owning each unknown (em_dpart_build) */
  em_dmat *dm;                 /* this rank's rows, made per frequency */
  em_operator opD;             /* the rank's local part: pmg's residuals */
  int32_t *brow;               /* [the operator's n_own] the assembled row of each local unknown */
  struct em_fsys_ahead *ahead; /* the direct factor's analysis under way on a thread of its
                                  own (fsys_overlap.c), the first frequency only */
  struct em_fsys_opb *opb;     /* the first operator under way beside the GPU factorization
                                  (fsys_opbeside.c) */
  struct em_dfsys_ahead *dahead; /* rank 0: the distributed coarse level's analysis under
                                    way on a thread of its own (dfsys_ahead.c) */
  struct em_dfsys_opb *dopb;     /* the rank's local formats under way beside the V-cycle's
                                    set-up (dfsys_opbeside.c) */
};

/* 1 when nnz entries of `bytes` each take at most a quarter of the host's
 * available memory (or it is not known): the budget of what a frequency
 * system keeps or makes beside the run's own arrays (the value map, an
 * assembly ahead, the pattern's copies of the overlapped analysis). */
int em_fsys_fits_host(double nnz, double bytes);
/* fsys_next.c: fp = the problem at k0 (fp zeroed by the caller, not
 * moved after): the ports set to k0 and their Robin terms, the ABC's, the
 * surfaces', the media, prepare and port_source applied; copies: the
 * ports copied into fp first (the setup's untouched). */
em_err em_fsys_problem(em_fsys *s, double k0, int copies, fsys_prob *fp);
/* Start the assembly at s->next_f on its own thread when the caller named
 * one and it may run (one rank, no Floquet cell, memory to spare); a
 * failure to start leaves it to the next solve. */
void em_fsys_next_start(em_fsys *s, const em_log *log);
/* The system assembled ahead at f (NULL: none, or for another frequency,
 * or it failed: the solve assembles itself and reports); *t its wall time. */
em_system *em_fsys_next_take(em_fsys *s, double f, double *t);
/* Wait for a running assembly (its result kept for the next solve). */
void em_fsys_next_wait(em_fsys *s);
/* Wait, and drop what it made. */
void em_fsys_next_free(em_fsys *s);
/* fsys.c: the port (0-based) of right-hand side column col. */
int em_fsys_port(const em_fsys_desc *d, int col);
/* columns e0 .. e0+m-1 short of the tolerance: a warning each, st->converged cleared */
void em_fsys_warn_unconverged(const em_fsys_desc *d, em_ksp_method meth, int e0, int m,
                              const em_log *log, em_fsys_stats *st);
/* dfsys.c: 1 when s solves distributed (more than one rank). */
int em_fsys_distributed(const em_fsys *s);
/* Before the first distributed assembly: the parts, the owners and the
 * assembler of this rank's rows (s->asm_). */
em_err em_fsys_dpart(em_fsys *s, const em_log *log);
/* Collective after each distributed assembly: err, or an error naming the
 * rank whose assembly failed. */
em_err em_fsys_dist_agree(const em_fsys *s, em_err err);
/* rank 0: tell the other ranks to solve at f with it (em_fsys_serve). */
em_err em_fsys_dist_tell(const em_fsys *s, double f);
/* Every excitation of sys (this rank's rows; its matrix is freed once
 * the operator holds it) by the distributed operator and the Krylov
 * method; x [ns][n_dof] filled on rank 0 (the DOF numbering; NULL on
 * the other ranks). */
em_err em_fsys_dsolve(em_fsys *s, em_system *sys, int ns, const em_log *log, em_fsys_stats *st,
                      em_cplx *x);
/* fsys_overlap.c (Solver/overlap): before the first assembly, the direct
 * factor's analysis of the assembler's pattern begins on a thread of its
 * own (nothing when it does not apply: another pc, a periodic solve, a
 * later frequency; a distributed solve: rank 0's coarse analysis instead,
 * em_fsys_dahead_start). */
typedef struct em_fsys_ahead em_fsys_ahead;
em_err em_fsys_ahead_start(em_fsys *s, const em_log *log);
/* At the first set-up (s->perm, s->apat made): the thread joined, its
 * stages in log's table; *F its analysis when it is valid for s, else
 * NULL (then the set-up analyses in order).  A coarse analysis (pmg) is
 * left to em_fsys_ahead_coarse (*F NULL). */
void em_fsys_ahead_take(em_fsys *s, const em_log *log, em_direct **F);
/* The first operator's row order and permuted pattern from the thread
 * (fsys_overlap.c), once it has them: 1 when its pattern hashes equal the
 * assembled blocks' (apat); out->perm and out->P stay the thread's (read
 * only, valid until em_fsys_ahead_take), out->src (maps 1: the value map)
 * becomes the caller's.  0: none (no thread, it failed, another pattern):
 * the caller makes them. */
typedef struct em_fsys_pattern {
  const int32_t *perm;
  const em_csr *P;
  int64_t *src;
} em_fsys_pattern;
int em_fsys_ahead_pattern(em_fsys *s, const uint64_t apat[EM_MAX_ORDER][EM_MAX_ORDER], int maps,
                          const em_log *log, em_fsys_pattern *out);
/* The operator has copied the pattern em_fsys_ahead_pattern gave: freed
 * now when the thread no longer reads it (pmg's coarse analysis). */
void em_fsys_ahead_copied(em_fsys *s);
/* pmg's coarse analysis (em_pmg_opts.coarse_ahead, ctx the em_fsys): the
 * thread joined, its stages in log's table; *ah its analysis of the
 * coarse level and that level's pattern hash when the thread's row order
 * and pattern are the first frequency's, else empty. */
void em_fsys_ahead_coarse(void *ctx, const em_log *log, em_coarse_ahead *ah);
/* After the first assembly: this thread's OpenMP team back to its size
 * (EMSOLVE_OVERLAP_THREADS may have made it smaller beside the analysis). */
void em_fsys_ahead_assembled(em_fsys *s);
/* The thread joined and dropped (error paths, em_fsys_destroy). */
void em_fsys_ahead_free(em_fsys *s);
/* fsys_opbeside.c: at the first set-up, F the direct factor's analysis
 * (made ahead; NULL: none) or pmg set (a V-cycle is set up next) and
 * s->Acsr permuted: the operator built from s->Acsr on a
 * thread of its own while the preconditioner factors, when the GPU holds
 * both (nothing happens otherwise). */
typedef struct em_fsys_opb em_fsys_opb;
void em_fsys_opb_start(em_fsys *s, const em_direct *F, int pmg, const em_blockop_opts *bop,
                       const em_log *log);
/* The thread joined, its stage in log's table: the operator it built, or
 * NULL (none started, or it failed: logged; build it in order). */
em_blockop *em_fsys_opb_take(em_fsys *s, const em_log *log);
/* The thread joined and what it made dropped (error paths, destroy). */
void em_fsys_opb_free(em_fsys *s);
/* what the distributed solve holds */
void em_fsys_dfree(em_fsys *s);
/* dfsys.c: the preconditioner's options of a distributed solve whose
 * operator has nb order groups. */
void em_fsys_dpc_opts(const em_fsys *s, int nb, em_pc_opts *pco);
/* dfsys.c: *cg [n_dof] = the distributed V-cycle's coarse set (the first
 * pco->pmg.coarse groups and the PML's unknowns, PMG/pml_coarse). */
em_err em_fsys_dcoarse(em_fsys *s, const em_pc_opts *pco, uint8_t **cg);
/* fsys_coarse.c: the V-cycle's coarse level from the mesh and the DOF
 * map (one definition for the V-cycle on one rank and over the ranks, and
 * for their analyses made ahead).  The order groups whose PML unknowns
 * join the coarse set: PMG/pml_coarse (auto: the PML tets' highest order;
 * 0: none, or no PML). */
int em_fsys_pml_groups(const em_fsys_desc *d);
/* mark[perm ? perm[c] : c] = 1 for each unknown c of a PML tet in the
 * order groups below `below`. */
void em_fsys_pml_mark(const em_fsys_desc *d, int below, const int32_t *perm, uint8_t *mark);
/* *cg [n_dof] = the coarse set in perm's numbering (NULL: the DOFs'): the
 * first `coarse` order groups and the PML's unknowns of em_fsys_pml_groups. */
em_err em_fsys_coarse_set(const em_fsys_desc *d, int coarse, const int32_t *perm, uint8_t **cg);
/* *P (values 0) = the pattern of A_CC, the coarse set cg given in perm's
 * numbering (NULL: the DOFs'), its unknowns numbered in ascending order of
 * that numbering (as the V-cycle takes them out of its matrix). */
em_err em_fsys_coarse_pattern(const em_mesh *m, const em_dofmap *d, const uint8_t *cg,
                              const int32_t *perm, em_csr **P);
/* dfsys_ahead.c (Solver/overlap): rank 0 of a distributed solve by the
 * V-cycle, before each assembly: the coarse level's analysis begins on a
 * thread of its own (nothing elsewhere or when it does not apply). */
typedef struct em_dfsys_ahead em_dfsys_ahead;
em_err em_fsys_dahead_start(em_fsys *s, const em_log *log);
/* At the V-cycle's set-up (nb groups, coarse set cg): the thread joined,
 * its stages in log's table; *ah its analysis when it was made for these,
 * else empty (the set-up then analyses in order). */
void em_fsys_dahead_take(em_fsys *s, int nb, const uint8_t *cg, const em_log *log,
                         em_dmat_coarse_ahead *ah);
/* The thread joined and dropped (error paths, em_fsys_dfree). */
void em_fsys_dahead_free(em_fsys *s);
/* dfsys_opbeside.c: 1 when a distributed solve's local formats may go
 * beside its preconditioner's set-up (pmg: the V-cycle over the ranks,
 * with Solver/overlap 1; EMSOLVE_OPBESIDE is not 0): em_dmat_create then
 * defers them. */
typedef struct em_dfsys_opb em_dfsys_opb;
int em_fsys_dopb_wanted(int pmg);
/* After em_dmat_create deferred them: the formats of s->dm begin on a
 * thread of their own when memory allows, else are built now (their error
 * then returned). */
em_err em_fsys_dopb_start(em_fsys *s, const em_log *log);
/* Before the first product: the thread joined (its stage in log's table),
 * its formats given to s->dm; when it failed (logged) they are built in
 * order.  Nothing when none runs. */
em_err em_fsys_dopb_take(em_fsys *s, const em_log *log);
/* The thread joined and what it made dropped (error paths, before s->dm
 * goes). */
void em_fsys_dopb_free(em_fsys *s);

#endif
