/* assemble.c - the global system over the unknowns:
 *   A = S - k0^2 T (+ Robin terms),  b = int f . w - A_uf E_fixed (+ Robin g)
 * Symbolic pattern from entity adjacency (pattern.c), then a numeric pass
 * over the tets colour by colour (colour.c), threads sharing a colour.
 * A part's assembler (a distributed solve's rank) makes the rows of its
 * unknowns only, from the tets that hold one, in the same colour order. */
#include <math.h>
#include <string.h>

#include "assembly_impl.h"
#include "quadrature_impl.h"

void em_system_destroy(em_system **sys) {
  if (!*sys) return;
  em_blockmat_destroy(&(*sys)->A);
  em_free(&(*sys)->b);
  em_free(&(*sys)->row);
  em_free(&(*sys)->fixed);
  em_free(sys);
}

static em_err check_problem(const em_mesh *m, const em_dofmap *d, const em_problem *prob) {
  EM_CHECK(m && d && prob, EM_ERR_ARG, "assemble: NULL mesh, dofmap or problem");
  EM_CHECK(prob->material, EM_ERR_ARG, "problem without a material function");
  EM_CHECK(isfinite(prob->k0) && prob->k0 >= 0, EM_ERR_INPUT, "wavenumber k0 = %g is not >= 0",
           prob->k0);
  EM_CHECK(prob->n_rhs >= 1, EM_ERR_ARG, "n_rhs = %d: need at least one right-hand side column",
           prob->n_rhs);
  EM_CHECK(prob->n_robin >= 0 && (prob->n_robin == 0 || prob->robin), EM_ERR_ARG,
           "n_robin = %d without a robin array", prob->n_robin);
  for (int k = 0; k < prob->n_robin; k++) {
    const em_robin *r = prob->robin + k;
    EM_CHECK((r->group == -1 && (r->n_faces == 0 || r->faces)) ||
                 (r->group >= 0 && r->group < m->n_group && m->group[r->group].dim == 2),
             EM_ERR_INPUT, "Robin boundary %d: group %d is not a surface group of the mesh", k,
             r->group);
    EM_CHECK(!r->g || (r->rhs >= 0 && r->rhs < prob->n_rhs), EM_ERR_INPUT,
             "Robin boundary %d ('%s'): right-hand side column %d outside 0..%d", k,
             m->group[r->group].name, r->rhs, prob->n_rhs - 1);
  }
  return EM_OK;
}

/* Per-thread work arrays of one tet. */
typedef struct tet_work {
  em_cplx *A;     /* packed upper triangle of S - k0^2 T */
  em_cplx *S, *T; /* full element matrices (varying material only) */
} tet_work;

/* Element matrix of tet t at its element order (ref: that order's
 * reference tensors) into w->A (packed). */
static em_err element(const em_mesh *m, const em_problem *prob, const em_element_ref *ref,
                      int32_t t, tet_work *w) {
  em_tet_geom g;
  em_tet_geom_make(m, t, &g);
  EM_CHECK(g.vol > 0, EM_ERR_INPUT, "tet %d is degenerate (zero volume)", t);
  int n = ref->n;
  if ((prob->tet_vary && prob->tet_vary[t]) || g.curved) { /* by quadrature */
    EM_TRY(em_element_matrices(ref->p, &g, prob->material, prob->material_ctx, t, 1, w->S, w->T));
    double k2 = prob->k0 * prob->k0;
    int64_t q = 0;
    for (int i = 0; i < n; i++)
      for (int j = i; j < n; j++) w->A[q++] = w->S[i * n + j] - k2 * w->T[i * n + j];
    return EM_OK;
  }
  double xc[3] = {0, 0, 0};
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) xc[d] += 0.25 * g.x[a][d];
  em_material mat;
  EM_TRY(prob->material(prob->material_ctx, t, xc, &mat));
  EM_TRY(em_material_check(&mat, t));
  em_element_ref_apply(ref, &g, &mat, prob->k0, w->A);
  return EM_OK;
}

static int finite3(const em_cplx v[3]) {
  return isfinite(creal(v[0]) + cimag(v[0]) + creal(v[1]) + cimag(v[1]) + creal(v[2]) +
                  cimag(v[2]));
}

/* int f . w_i + int h . curl w_i over tet t into column 0 (degree 2p+2,
 * capped by the table, p the element's order), the pattern's rows; f from
 * source and tet_source, h from tet_source. */
static em_err source(const em_mesh *m, const em_pattern *pat, const em_problem *prob, int p,
                     int32_t t, const int32_t *code, em_cplx *b) {
  int n = em_basis_count(p);
  int deg = 2 * p + 2 > EM_QUAD_MAX_DEGREE ? EM_QUAD_MAX_DEGREE : 2 * p + 2;
  em_quad q;
  EM_TRY(em_quad_tet(deg, &q));
  em_tet_geom g;
  em_tet_geom_make(m, t, &g);
  double w[EM_NB_MAX][3], c[EM_NB_MAX][3];
  for (int k = 0; k < q.n; k++) {
    const double *lam = q.lam + 4 * k;
    double x[3], grad[4][3], dv; /* a folded curved tet fails in element() first */
    em_tet_geom_at(&g, lam, x, grad, &dv);
    em_cplx f[3] = {0, 0, 0}, h[3] = {0, 0, 0};
    if (prob->source) EM_TRY(prob->source(prob->source_ctx, x, f));
    if (prob->tet_source) {
      em_cplx ft[3] = {0, 0, 0};
      EM_TRY(prob->tet_source(prob->tet_source_ctx, t, x, ft, h));
      for (int d = 0; d < 3; d++) f[d] += ft[d];
    }
    EM_CHECK(finite3(f) && finite3(h), EM_ERR_INPUT,
             "volume source is not finite at (%g, %g, %g) in tet %d", x[0], x[1], x[2], t);
    em_basis_eval(p, lam, (const double(*)[3])grad, w, prob->tet_source ? c : NULL);
    double wq = q.w[k] * dv;
    for (int i = 0; i < n; i++) {
      int32_t row = code[i] >= 0 ? em_pattern_row(pat, code[i]) : -1;
      if (row < 0) continue;
      em_cplx v = f[0] * w[i][0] + f[1] * w[i][1] + f[2] * w[i][2];
      if (prob->tet_source) v += h[0] * c[i][0] + h[1] * c[i][1] + h[2] * c[i][2];
      b[row] += wq * v;
    }
  }
  return EM_OK;
}

/* Scatter the packed element matrix (of the tet's element order): row x
 * unknown into A, row x fixed into every right-hand side column as
 * -A_uf E_f (the rows: the pattern's); absent functions are skipped. */
static void scatter(const em_mesh *m, const em_dofmap *d, const em_pattern *pat, int32_t t,
                    const em_cplx *Ae, const int32_t *code, const em_cplx *fixed, int n_rhs,
                    em_blockmat *A, em_cplx *b) {
  int p = d->order, n = em_basis_count(d->elem_order[t]);
  em_tet_slots sl;
  em_tet_slots_make(m, d, pat, t, code, &sl);
  const int32_t *ent = sl.ent, *le = sl.le;
  const int *grp = sl.grp;
  int32_t(*pos)[EM_NB_MAX] = sl.pos;
  for (int i = 0; i < n; i++) {
    if (code[i] < 0) continue;
    int32_t row = em_pattern_row(pat, code[i]);
    if (row < 0) continue; /* another part's */
    int gi = grp[i];
    const int32_t *gs = pat->gstart + 3 * (size_t)ent[le[i]];
    int64_t rbase[3];
    for (int gj = 0; gj < p; gj++)
      rbase[gj] = A->blk[gi][gj]->rowptr[row - pat->row_off[gi]] - gs[gj];
    for (int j = 0; j < n; j++) {
      const em_cplx a = i <= j ? Ae[(int64_t)i * n - (int64_t)i * (i - 1) / 2 + (j - i)]
                               : Ae[(int64_t)j * n - (int64_t)j * (j - 1) / 2 + (i - j)];
      if (code[j] >= 0) {
        A->blk[gi][grp[j]]->val[rbase[grp[j]] + pos[le[i]][j]] += a;
      } else if (fixed && code[j] != EM_DOF_NONE) {
        em_cplx v = a * fixed[-code[j] - 1];
        for (int c = 0; c < n_rhs; c++) b[(size_t)c * pat->n_row + row] -= v;
      }
    }
  }
}

/* One tet: element matrix, scatter, source. */
static em_err do_tet(const em_mesh *m, const em_dofmap *d, const em_problem *prob,
                     em_element_ref *const *ref, const em_pattern *pat, int32_t t, tet_work *w,
                     em_system *sys) {
  int32_t code[EM_NB_MAX];
  int q = em_dofmap_tet(d, m, t, code);
  EM_TRY(element(m, prob, ref[q], t, w));
  scatter(m, d, pat, t, w->A, code, sys->fixed, sys->n_rhs, sys->A, sys->b);
  if (prob->source || prob->tet_source) EM_TRY(source(m, pat, prob, q, t, code, sys->b));
  return EM_OK;
}

static void log_blocks(const em_log *log, const em_blockmat *A) {
  for (int i = 0; i < A->nb; i++)
    for (int j = 0; j < A->nb; j++) {
      const em_csr *B = A->blk[i][j];
      int64_t mx = 0;
      for (int32_t r = 0; r < B->n_rows; r++)
        if (B->rowptr[r + 1] - B->rowptr[r] > mx) mx = B->rowptr[r + 1] - B->rowptr[r];
      em_log_info(log, "  block A%d%d: %d x %d, nnz %lld, row length mean %.1f max %lld", i + 1,
                  j + 1, B->n_rows, B->n_cols, (long long)B->nnz,
                  B->n_rows ? (double)B->nnz / B->n_rows : 0.0, (long long)mx);
    }
}

/* What the numeric pass needs besides the problem: the pattern, the
 * colouring and the reference element depend on the mesh and the DOF map
 * only, so a sweep builds them once. */
struct em_assembler {
  const em_mesh *m;
  const em_dofmap *d;
  em_pattern *pat;
  em_element_ref *ref[EM_MAX_ORDER + 1]; /* per element order 1..p */
  int32_t *cptr, *ctet;
  int n_colour;
  double t_symbolic;
  /* the frequency-independent part (kcache.c): built on the first pass and
     checked on every later one, so that a pass's values do not depend on
     the passes before it (a resumed sweep writes the same bits) */
  int no_cache;     /* em_assemble's one pass, or building it failed
                       (memory): plain passes */
  em_kcache *kc;    /* NULL: none yet */
  uint8_t *evicted; /* [n_tet] tets whose material changed between passes */
  uint8_t *changed; /* [n_tet] scratch of em_kcache_check */
};

/* The whole (owner NULL) or a part: its pattern, and the colouring of the
 * whole mesh cut to the part's tets (each entry then sums its tets in the
 * whole assembly's order: the part's rows are the whole's, bit for bit). */
static em_err create(const em_mesh *m, const em_dofmap *d, const int32_t *owner, int part,
                     em_assembler **out) {
  EM_CHECK(m && d && out, EM_ERR_ARG, "assembler: NULL mesh, dofmap or output");
  double t0 = em_wtime();
  em_assembler *a = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&a, 1, sizeof *a, "assembler"));
  a->m = m, a->d = d;
  if (owner)
    EM_TRY_GOTO(err, em_pattern_build_part(m, d, owner, part, &a->pat), fail);
  else
    EM_TRY_GOTO(err, em_pattern_build(m, d, &a->pat), fail);
  for (int q = 1; q <= d->order; q++) EM_TRY_GOTO(err, em_element_ref_create(q, &a->ref[q]), fail);
  EM_TRY_GOTO(err, em_tet_colour(m, a->pat, &a->n_colour, &a->cptr, &a->ctet), fail);
  if (owner) em_tet_colour_keep(a->n_colour, a->cptr, a->ctet, a->pat->tet_in);
  a->t_symbolic = em_wtime() - t0;
  *out = a;
  return EM_OK;
fail:
  em_assembler_destroy(&a);
  return err;
}

em_err em_assembler_create(const em_mesh *m, const em_dofmap *d, em_assembler **out) {
  return create(m, d, NULL, 0, out);
}

em_err em_assembler_create_part(const em_mesh *m, const em_dofmap *d, const int32_t *owner,
                                int part, em_assembler **out) {
  EM_CHECK(owner, EM_ERR_ARG, "assembler of a part without the owners");
  return create(m, d, owner, part, out);
}

void em_assembler_no_cache(em_assembler *a) {
  a->no_cache = 1;
}

em_err em_assembler_pattern(const em_assembler *a, em_blockmat **A) {
  EM_CHECK(a && A, EM_ERR_ARG, "assembler pattern: NULL assembler or output");
  return em_pattern_blockmat(a->pat, a->m, a->d, A);
}

void em_assembler_destroy(em_assembler **ap) {
  em_assembler *a = *ap;
  if (!a) return;
  em_pattern_destroy(&a->pat);
  for (int q = 0; q <= EM_MAX_ORDER; q++) em_element_ref_destroy(&a->ref[q]);
  em_free(&a->cptr);
  em_free(&a->ctet);
  em_kcache_destroy(&a->kc);
  em_free(&a->evicted);
  em_free(&a->changed);
  em_free(ap);
}

/* Before a pass: keep the cache valid for prob (tets whose material
 * changed leave it: rebuilt without them), or build it on the first pass.
 * A cache that cannot be built (memory, a bad material: the plain pass
 * reports that) leaves the pass plain. */
static em_err cache_prepare(em_assembler *a, const em_problem *prob, const em_log *log) {
  const em_mesh *m = a->m;
  if (a->no_cache) return EM_OK;
  if (a->kc) {
    int32_t nc = 0;
    EM_TRY(em_kcache_check(a->kc, m, prob, a->changed, &nc));
    if (!nc) return EM_OK;
    for (int32_t t = 0; t < m->n_tet; t++) a->evicted[t] |= a->changed[t];
    em_log_info(log, "assembly: %d tets changed material with the frequency: assembled per pass",
                nc);
    em_kcache_destroy(&a->kc);
  }
  if (!a->evicted) {
    EM_TRY(em_calloc(&a->evicted, (size_t)m->n_tet, 1, "assembly cache"));
    EM_TRY(em_calloc(&a->changed, (size_t)m->n_tet, 1, "assembly cache"));
  }
  double t0 = em_wtime();
  em_err err = em_kcache_build(m, a->d, a->pat, a->ref, a->n_colour, a->cptr, a->ctet, prob,
                               a->evicted, &a->kc);
  if (err) {
    if (err == EM_ERR_MEMORY) {
      em_log_warn(log, "%s; assembly without the frequency-independent cache", em_error_message());
      a->no_cache = 1;
    } else {
      em_log_verbose(log, "assembly: no frequency-independent cache this pass: %s",
                     em_error_message());
    }
    em_error_clear();
    return EM_OK;
  }
  em_log_info(log, "assembly: frequency-independent part of %d of %d tets kept (%.0f MiB, %.2f s)",
              em_kcache_kept(a->kc), a->pat->n_tet_in, em_kcache_mib(a->kc), em_wtime() - t0);
  return EM_OK;
}

int32_t em_assembler_cached_tets(const em_assembler *a) {
  return a ? em_kcache_kept(a->kc) : 0;
}

em_err em_assemble(const em_mesh *m, const em_dofmap *d, const em_problem *prob, const em_log *log,
                   em_system **out) {
  EM_CHECK(out, EM_ERR_ARG, "assemble: NULL output");
  *out = NULL;
  EM_TRY(check_problem(m, d, prob));
  em_assembler *a = NULL;
  EM_TRY(em_assembler_create(m, d, &a));
  a->no_cache = 1; /* one pass: nothing to reuse */
  em_err err = em_assemble_with(a, prob, log, out);
  em_assembler_destroy(&a);
  return err;
}

em_err em_assemble_with(em_assembler *a, const em_problem *prob, const em_log *log,
                        em_system **out) {
  EM_CHECK(a && out, EM_ERR_ARG, "assemble: NULL assembler or output");
  *out = NULL;
  const em_mesh *m = a->m;
  const em_dofmap *d = a->d;
  EM_TRY(check_problem(m, d, prob));
  double t0 = em_wtime();
  em_err err = EM_OK;
  em_system *sys = NULL;
  const em_pattern *pat = a->pat;
  em_element_ref *const *refs = a->ref;
  const em_element_ref *ref = refs[d->order]; /* the largest: work sizes */
  const int32_t *cptr = a->cptr, *ctet = a->ctet;
  int n_colour = a->n_colour;
  EM_TRY(em_calloc(&sys, 1, sizeof *sys, "system"));
  sys->n_rhs = prob->n_rhs;
  sys->n_row = pat->n_row;
  if (pat->row_dof) { /* a part's rows */
    EM_TRY_GOTO(err, em_calloc(&sys->row, (size_t)pat->n_row + 1, sizeof *sys->row, "rows"), fail);
    memcpy(sys->row, pat->row_dof, (size_t)pat->n_row * sizeof *sys->row);
  }
  EM_TRY_GOTO(
      err, em_calloc(&sys->b, (size_t)pat->n_row * prob->n_rhs, sizeof *sys->b, "right-hand sides"),
      fail);
  EM_TRY_GOTO(err, em_calloc(&sys->fixed, (size_t)d->n_fixed, sizeof *sys->fixed, "fixed values"),
              fail);
  EM_TRY_GOTO(err, em_dirichlet_values(m, d, prob, sys->fixed), fail);
  EM_TRY_GOTO(err, cache_prepare(a, prob, log), fail);
  const uint8_t *dyn = NULL;
  const int32_t *dptr = NULL, *dtet = NULL;
  if (a->kc) {
    dyn = em_kcache_dynamic(a->kc, &dptr, &dtet);
    EM_TRY_GOTO(err, em_kcache_matrix(a->kc, prob->k0, &sys->A), fail);
    em_kcache_lift(a->kc, prob->k0, sys->fixed, sys->n_rhs, pat->n_row, sys->b);
  } else {
    EM_TRY_GOTO(err, em_pattern_blockmat(pat, m, d, &sys->A), fail);
  }
  /* with the cache: its tets only need their sources, the others all */
  int src = prob->source || prob->tet_source, all = !dyn || src;
  const int32_t *lptr = all ? cptr : dptr, *ltet = all ? ctet : dtet;
  double t1 = em_wtime();
  int n = ref->n;
  int32_t bad = -1;
  int oom = 0;
  for (int c = 0; c < n_colour && bad < 0 && !oom; c++) {
#pragma omp parallel
    {
      tet_work w = {NULL, NULL, NULL};
      int ok = !em_calloc(&w.A, (size_t)ref->npack, sizeof *w.A, "element matrix") &&
               !em_calloc(&w.S, (size_t)n * n, sizeof *w.S, "element matrix") &&
               !em_calloc(&w.T, (size_t)n * n, sizeof *w.T, "element matrix");
      if (!ok) {
#pragma omp atomic write
        oom = 1;
      }
#pragma omp for schedule(dynamic, 64)
      for (int32_t k = lptr[c]; k < lptr[c + 1]; k++) {
        int32_t t = ltet[k];
        em_err e = EM_OK;
        if (!ok) continue;
        if (!dyn || dyn[t]) {
          e = do_tet(m, d, prob, refs, pat, t, &w, sys);
        } else {
          int32_t code[EM_NB_MAX];
          int q = em_dofmap_tet(d, m, t, code);
          e = source(m, pat, prob, q, t, code, sys->b);
        }
        if (e) {
#pragma omp critical(em_assemble_bad)
          if (bad < 0 || t < bad) bad = t;
        }
      }
      em_free(&w.A);
      em_free(&w.S);
      em_free(&w.T);
    }
  }
  if (oom) {
    err = EM_RAISE(EM_ERR_MEMORY, "assembly: out of memory for the per-thread element matrices");
    goto fail;
  }
  if (bad >= 0) {
    /* the error trace is thread-local: redo the failing tet here so the
     * caller sees its message (callbacks are deterministic) */
    tet_work w = {NULL, NULL, NULL};
    EM_TRY_GOTO(err, em_calloc(&w.A, (size_t)ref->npack, sizeof *w.A, "element matrix"), bad_done);
    EM_TRY_GOTO(err, em_calloc(&w.S, (size_t)n * n, sizeof *w.S, "element matrix"), bad_done);
    EM_TRY_GOTO(err, em_calloc(&w.T, (size_t)n * n, sizeof *w.T, "element matrix"), bad_done);
    EM_TRY_GOTO(err, element(m, prob, refs[d->elem_order[bad]], bad, &w), bad_done);
    if (prob->source || prob->tet_source) {
      int32_t code[EM_NB_MAX];
      em_cplx *scratch = NULL;
      int q = em_dofmap_tet(d, m, bad, code);
      EM_TRY_GOTO(err, em_calloc(&scratch, (size_t)pat->n_row + 1, sizeof *scratch, "scratch"),
                  bad_done);
      err = source(m, pat, prob, q, bad, code, scratch);
      em_free(&scratch);
      if (err) goto bad_done;
    }
    err = EM_RAISE(EM_ERR_INTERNAL, "assembly of tet %d failed in a worker thread", bad);
  bad_done:
    em_free(&w.A);
    em_free(&w.S);
    em_free(&w.T);
    goto fail;
  }
  EM_TRY_GOTO(err, em_robin_add(m, d, prob, pat, sys), fail);
  sys->t_assembly = em_wtime() - t0;
  int64_t nnz = 0;
  for (int i = 0; i < d->order; i++)
    for (int j = 0; j < d->order; j++) nnz += sys->A->blk[i][j]->nnz;
  if (pat->row)
    em_log_info(log,
                "assembly: order %d, the rows of %d of %d unknowns (%d fixed) from %d of %d tets, "
                "nnz %lld, %d colours, %.2f s (symbolic %.2f s)",
                d->order, pat->n_row, d->n_dof, d->n_fixed, pat->n_tet_in, m->n_tet, (long long)nnz,
                n_colour, sys->t_assembly, t1 - t0 + a->t_symbolic);
  else
    em_log_info(log,
                "assembly: order %d, %d unknowns (%d fixed), nnz %lld, %d colours, %.2f s "
                "(symbolic %.2f s)",
                d->order, d->n_dof, d->n_fixed, (long long)nnz, n_colour, sys->t_assembly,
                t1 - t0 + a->t_symbolic);
  a->t_symbolic = 0; /* reported once: later passes reuse it */
  log_blocks(log, sys->A);
  *out = sys;
  sys = NULL;
fail:
  em_system_destroy(&sys);
  return err;
}
