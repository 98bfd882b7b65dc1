/* region_order.c - the basis order of each region (docs/physics.md, "Order
 * per region"): Materials/<volume>/order, else PML/basis_order for a pml*
 * volume, else Solver/order; the DOF map of those orders and the log's
 * account of the unknowns per region and order.
 *
 * The DOF map itself works per tet (em_dofmap_build_orders): a region's
 * order is handed down as the order of each of its tets, so that a later
 * p-refinement sets orders tet by tet through the same map. */
#include <string.h>

#include "em_model.h"

/* s begins with p. */
static int starts_with(const char *s, const char *p) {
  return !strncmp(s, p, strlen(p));
}

/* PML/basis_order -1 (auto): Solver/order 3 -> 2 in the PML, 1 and 2 kept.
 * Opt-in, not the default: on the same mesh the order-2 layer reflects more
 * than the order-3 one (WR-90 at 10 GHz: -59 against -88 dB) and the Mie
 * sphere's RCS error grows 0.12 -> 0.98 % (docs/physics.md, "Order per
 * region"); the DRA's S11 moves by <= 0.02 dB. */
static int pml_auto(int solver_order) {
  return solver_order == 3 ? 2 : solver_order;
}

em_err em_setup_order_of(const em_case *c, const char *name, const em_setup_opts *o, int *order) {
  int pml = o->pml_basis_order;
  EM_CHECK(
      pml >= -1 && pml <= EM_MAX_ORDER, EM_ERR_INPUT,
      "PML/basis_order = %d must be 0 (Solver/order), -1 (auto: 2 at Solver/order 3) or 1 .. %d",
      pml, EM_MAX_ORDER);
  if (pml < 0) pml = pml_auto(o->basis_order);
  char p[256];
  int k = snprintf(p, sizeof p, "Materials/%s/order", name);
  EM_CHECK(k > 0 && (size_t)k < sizeof p, EM_ERR_INPUT, "group name '%s' is too long", name);
  double v = 0;
  if (em_case_param_find(c, p)) EM_TRY(em_case_number(c, p, &v));
  EM_CHECK(v == (int)v && v >= 0 && v <= EM_MAX_ORDER, EM_ERR_INPUT,
           "%s = %g must be 0 (the default order) or an integer 1 .. %d", p, v, EM_MAX_ORDER);
  int q = (int)v;
  if (!q && starts_with(name, "pml")) q = pml;
  *order = q ? q : o->basis_order;
  return EM_OK;
}

em_err em_setup_orders(const em_case *c, const em_mesh *m, const em_setup_opts *o, em_setup *s) {
  EM_TRY(em_calloc(&s->order, (size_t)m->n_group + 1, 1, "region orders"));
  for (int g = 0; g < m->n_group; g++) {
    if (m->group[g].dim != 3) continue;
    int q;
    EM_TRY(em_setup_order_of(c, m->group[g].name, o, &q));
    s->order[g] = (int8_t)q;
  }
  return EM_OK;
}

/* Unknowns of pmg's exact coarse level: groups 1 .. coarse and the PML
 * unknowns of the groups above up to pml_coarse (fsys.c marks the same
 * rows). */
em_err em_setup_coarse_count(const em_setup *s, const em_mesh *m, const em_dofmap *d, int coarse,
                             int pml_coarse, int32_t *n) {
  coarse = coarse < 1 ? 1 : coarse > d->order ? d->order : coarse;
  *n = d->offset[coarse];
  if (pml_coarse < 0) /* auto: the PML's own order */
    for (int g = 0; g < m->n_group; g++)
      if (s->medium[g].is_pml && s->order[g] > pml_coarse) pml_coarse = s->order[g];
  if (!s->has_pml || pml_coarse <= coarse) return EM_OK;
  uint8_t *seen = NULL;
  int32_t code[64];
  EM_TRY(em_calloc(&seen, (size_t)d->n_dof + 1, 1, "coarse count"));
  for (int32_t t = 0; t < m->n_tet; t++) {
    if (!s->medium[m->tet_group[t]].is_pml) continue;
    int q = em_basis_count(em_dofmap_tet(d, m, t, code));
    for (int i = 0; i < q; i++) {
      int32_t c = code[i];
      if (c < d->offset[coarse] || seen[c]) continue; /* absent, fixed, coarse */
      int g = coarse + 1;
      while (g < d->order && c >= d->offset[g]) g++;
      if (g <= pml_coarse) seen[c] = 1, (*n)++;
    }
  }
  em_free(&seen);
  return EM_OK;
}

em_err em_setup_dofmap(const em_setup *s, const em_mesh *m, em_dofmap **d) {
  EM_CHECK(s->order, EM_ERR_ARG, "setup without region orders");
  int8_t *to = NULL;
  EM_TRY(em_calloc(&to, (size_t)m->n_tet + 1, 1, "tet orders"));
  em_err err = EM_OK;
  for (int32_t t = 0; t < m->n_tet; t++) {
    int q = s->order[m->tet_group[t]];
    if (q < 1 || q > EM_MAX_ORDER) {
      err = EM_RAISE(EM_ERR_INPUT, "volume '%s' has no basis order (Solver/order not given)",
                     m->group[m->tet_group[t]].name);
      goto done;
    }
    to[t] = (int8_t)q;
  }
  err = em_dofmap_build_orders(m, to, s->face_fixed, d);
done:
  em_free(&to);
  return err;
}

em_err em_setup_log_orders(const em_setup *s, const em_mesh *m, const em_dofmap *d,
                           const em_log *log) {
  if (d->uniform) return EM_OK; /* one order: the run's line says it */
  int32_t *cnt = NULL;
  EM_TRY(em_calloc(&cnt, (size_t)m->n_group * EM_MAX_ORDER + 1, sizeof *cnt, "region counts"));
  em_err err = em_dofmap_region_counts(d, m, cnt);
  for (int g = 0; !err && g < m->n_group; g++) {
    if (m->group[g].dim != 3) continue;
    const int32_t *c = cnt + (size_t)g * EM_MAX_ORDER;
    em_log_info(log, "  region %s: order %d, %d unknowns (%d / %d / %d of orders 1 / 2 / 3)",
                m->group[g].name, s->order[g], c[0] + c[1] + c[2], c[0], c[1], c[2]);
  }
  em_free(&cnt);
  return err;
}
