/* eigen_pair.c - the pencil of Solver/problem eigen (docs/eigen.md): the
 * curl-curl weak form split as (S - k0^2 T) e = 0,
 *
 *   S = int nu curl e . curl w + ABC + surface impedances, lumped sheets
 *       (+ matched ports),                                 T = int eps e . w,
 *
 * assembled apart with one pattern: k0 = 0 gives S; k0 = 1 with nu = 0
 * gives -T.  The terms of the driven problem that depend on the frequency
 * (the PML stretch, the ABC's gamma, a matched port's Robin term) are
 * frozen at the target k_t, so the problem stays linear in lambda = k0^2. */
#include <math.h>

#include "em_model.h"

/* The material with nu = 0: assembled at k0 = 1 it gives -T. */
static em_err mass_only(void *ctx, int32_t t, const double x[3], em_material *mat) {
  EM_TRY(em_media_material(ctx, t, x, mat));
  for (int d = 0; d < 3; d++) mat->nu[d] = 0;
  return EM_OK;
}

em_err em_setup_eigen_pair(const em_mesh *m, const em_dofmap *d, em_setup *s, int matched,
                           double kt, const em_log *log, em_csr **S, em_csr **T) {
  em_err err = EM_OK;
  em_robin rb[16];
  int n_rb = 0, n_abc = 0; /* the first n_abc terms own their face lists */
  uint8_t *vary = NULL;
  em_system *sys = NULL;
  em_assembler *as = NULL;
  em_media media = {m, s->medium, s->has_pml ? &s->pml : NULL, kt};
  if (s->has_pml) {
    EM_TRY_GOTO(err, em_calloc(&vary, (size_t)m->n_tet, 1, "PML tets"), done);
    for (int32_t t = 0; t < m->n_tet; t++) vary[t] = (uint8_t)s->medium[m->tet_group[t]].is_pml;
  }
  /* the ABC terms of model/fsys.c: gamma = j k_t sqrt(eps mu) / mu per medium */
  EM_TRY_GOTO(err, em_abc_robins(m, s->medium, s->abc_face, s->n_abc, kt, rb, 16, &n_abc), done);
  n_rb = n_abc;
  /* surface impedances and lumped sheets: their Z at k_t */
  int n_sf = 0;
  EM_TRY_GOTO(err, em_setup_surface_robins(s, kt, rb + n_rb, 16 - n_rb, &n_sf), done);
  n_rb += n_sf;
  if (matched) /* Eigen/ports matched: the port's Robin term, no excitation */
    for (int i = 0; i < s->n_port; i++) {
      if (n_rb >= 16) {
        err = EM_RAISE(EM_ERR_INPUT, "eigen: more than 16 ports and ABC media to match");
        goto done;
      }
      EM_TRY_GOTO(err, em_port_set_frequency(&s->port[i], kt), done);
      em_port_robin(&s->port[i], 0, 0, &rb[n_rb++]);
    }
  em_problem prob = {.k0 = 0,
                     .material = em_media_material,
                     .material_ctx = &media,
                     .tet_vary = vary,
                     .n_robin = n_rb,
                     .robin = rb,
                     .n_rhs = 1};
  /* one pattern and colouring for both (they depend on the mesh only), no
     frequency-independent cache (the two passes share no material) */
  EM_TRY_GOTO(err, em_assembler_create(m, d, &as), done);
  em_assembler_no_cache(as);
  EM_TRY_GOTO(err, em_assemble_with(as, &prob, log, &sys), done);
  EM_TRY_GOTO(err, em_blockmat_to_csr(sys->A, S), done);
  em_system_destroy(&sys);
  prob.k0 = 1;
  prob.material = mass_only;
  prob.n_robin = 0;
  prob.robin = NULL;
  /* the same pattern and blocks: their detail was logged with S's */
  em_log quiet = log ? *log : (em_log){0};
  quiet.level = log && log->level >= EM_LOG_VERBOSE ? EM_LOG_VERBOSE : EM_LOG_QUIET;
  EM_TRY_GOTO(err, em_assemble_with(as, &prob, log ? &quiet : NULL, &sys), done);
  EM_TRY_GOTO(err, em_blockmat_to_csr(sys->A, T), done);
  for (int64_t k = 0; k < (*T)->nnz; k++) (*T)->val[k] = -(*T)->val[k];
done:
  em_abc_free(rb, n_abc);
  em_system_destroy(&sys);
  em_assembler_destroy(&as);
  em_free(&vary);
  return err;
}
