/* config_ff.c - the typed view of the far field and the excitation
 * (Farfield/ *, Excitation/ *, Output/plots, docs/farfield.md): read once
 * the mesh and the case physics exist, because the surface is a group of
 * the mesh and "auto" asks whether the case has a PML.  The surface itself
 * (closed, in one lossless medium) is checked by post/ff_frequency.c
 * (em_post_ff_check) before any solve. */
#include <math.h>
#include <string.h>

#include "config_impl.h"

/* A grid step in (0, 90] degrees that divides range evenly. */
static em_err check_step(const char *name, double step, double range) {
  double n = range / step;
  EM_CHECK(step > 0 && step <= 90 && fabs(n - round(n)) < 1e-9 * n, EM_ERR_INPUT,
           "%s = %g deg: the step must lie in (0, 90] and divide %g deg evenly (e.g. 1, 2, 5, "
           "10)",
           name, step, range);
  return EM_OK;
}

static em_err read_mirrors(const em_case *c, double unit, em_ff_config *ff) {
  static const char *const kinds[] = {"none", "pec", "pmc"};
  static const char *const names[3] = {"Farfield/mirror_x", "Farfield/mirror_y",
                                       "Farfield/mirror_z"};
  static const char *const at[3] = {"Farfield/mirror_x_at", "Farfield/mirror_y_at",
                                    "Farfield/mirror_z_at"};
  for (int d = 0; d < 3; d++) {
    int k;
    EM_TRY(em_cfg_choice(c, names[d], kinds, 3, &k));
    ff->mirror[d] = (em_mirror)k;
    EM_TRY(em_cfg_number(c, at[d], &ff->mirror_at[d]));
    ff->mirror_at[d] *= unit;
  }
  double g;
  EM_TRY(em_cfg_number(c, "Farfield/infinite_ground", &g));
  EM_CHECK(g == 0 || g == 1, EM_ERR_INPUT, "Farfield/infinite_ground = %g: use 0 or 1", g);
  ff->half_space = g == 1;
  EM_CHECK(!ff->half_space || ff->mirror[2] == EM_MIRROR_PEC, EM_ERR_INPUT,
           "Farfield/infinite_ground 1 needs Farfield/mirror_z pec (the ground's plane)");
  return EM_OK;
}

static em_err read_planewave(const em_case *c, em_ff_config *ff) {
  static const char *const types[] = {"port", "planewave"};
  EM_TRY(em_cfg_choice(c, "Excitation/type", types, 2, &ff->planewave));
  double th, ph, psi;
  EM_TRY(em_cfg_number(c, "Excitation/theta", &th));
  EM_TRY(em_cfg_number(c, "Excitation/phi", &ph));
  EM_TRY(em_cfg_number(c, "Excitation/polarization", &psi));
  EM_TRY(em_cfg_number(c, "Excitation/amplitude", &ff->pw_amp));
  EM_CHECK(ff->pw_amp > 0, EM_ERR_INPUT, "Excitation/amplitude = %g V/m must be > 0", ff->pw_amp);
  ff->pw_theta = th * M_PI / 180;
  ff->pw_phi = ph * M_PI / 180;
  ff->pw_psi = psi * M_PI / 180;
  return EM_OK;
}

em_err em_ff_config_read(const em_case *c, const em_run_config *cfg, const em_mesh *m,
                         const em_setup *s, em_ff_config *ff) {
  memset(ff, 0, sizeof *ff);
  EM_TRY(read_planewave(c, ff));
  static const char *const modes[] = {"auto", "on", "off"};
  int mode;
  EM_TRY(em_cfg_choice(c, "Farfield/compute", modes, 3, &mode));
  ff->compute_auto = mode == 0;
  ff->enabled = mode == 1 || (mode == 0 && (s->has_pml || ff->planewave));
  EM_TRY(em_cfg_number(c, "Farfield/theta_step", &ff->theta_step));
  EM_TRY(em_cfg_number(c, "Farfield/phi_step", &ff->phi_step));
  EM_TRY(check_step("Farfield/theta_step", ff->theta_step, 180));
  EM_TRY(check_step("Farfield/phi_step", ff->phi_step, 360));
  EM_TRY(read_mirrors(c, cfg->unit, ff));
  double plots;
  EM_TRY(em_cfg_number(c, "Output/plots", &plots));
  EM_CHECK(plots == 0 || plots == 1, EM_ERR_INPUT, "Output/plots = %g: use 0 or 1", plots);
  ff->plots = plots == 1;
  const char *surf;
  EM_TRY(em_case_string(c, "Farfield/surface", &surf));
  ff->group = -1;
  if (!strcmp(surf, "auto")) {
    ff->group = em_mesh_group_find(m, "nf2ff", 2);
  } else {
    ff->group = em_mesh_group_find(m, surf, 2);
    EM_CHECK(ff->group >= 0, EM_ERR_INPUT,
             "Farfield/surface = '%s': the case has no surface group of that name", surf);
  }
  static const char *const methods[] = {"surface", "volume"};
  EM_TRY(em_cfg_choice(c, "Farfield/method", methods, 2, &ff->volume));
  if (ff->planewave) { /* ports, if any, are matched loads (the antenna's RCS) */
    EM_CHECK(!s->n_port || !cfg->sweep_adaptive, EM_ERR_INPUT,
             "Excitation/type planewave with ports: Solver/sweep adaptive models S-parameters, "
             "which a plane wave does not give; use Solver/sweep uniform");
    EM_CHECK(s->has_pml, EM_ERR_INPUT,
             "Excitation/type planewave: case %s has no PML; the scattered field needs one "
             "around the scatterer (volumes named pml*)",
             em_case_path(c));
    /* the background: the medium the PML continues */
    const em_medium *bg = NULL;
    for (int g = 0; g < m->n_group; g++)
      if (m->group[g].dim == 3 && s->medium[g].is_pml) {
        EM_CHECK(!bg || (bg->eps_r == s->medium[g].eps_r && bg->mu_r == s->medium[g].mu_r),
                 EM_ERR_INPUT, "Excitation/type planewave: the PML volumes differ in medium");
        bg = &s->medium[g];
      }
    EM_CHECK(cimag(bg->eps_r) == 0 && cimag(bg->mu_r) == 0, EM_ERR_INPUT,
             "Excitation/type planewave: the background (the PML's medium) must be lossless");
  }
  EM_CHECK(!ff->enabled || s->has_pml || ff->group >= 0 || cfg->outer_abc, EM_ERR_INPUT,
           "Farfield/compute on: case %s is closed by PEC (no PML, no Boundary/outer abc) and "
           "has no surface group 'nf2ff': nothing radiates",
           em_case_path(c));
  return em_array_config_read(c, ff->enabled, ff->planewave, s, &ff->arr); /* config_array.c */
}
