/* validate.c - before meshing, the mesh the parameters imply against this
 * machine: an absurd estimate (a frequency typed in GHz as Hz, a density
 * far too high) is an error unless --force.  A mistake found here costs
 * seconds; found after the solve it costs the run.  The parameters' own
 * checks are model/config_check.c's. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "app_run.h"

#define TET_MAX 2e8 /* tetrahedra beyond which no single machine assembles */

/* Physical memory in bytes (0 when unknown). */
static double host_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
}

/* Unknowns per tet: ~1.2 edges (order 1), + 2 faces x 2 + edges (order 2),
 * ... from the counts of a Delaunay mesh: E ~ 1.2 T, F ~ 2 T. */
static double dofs_per_tet(int order) {
  return order == 1 ? 1.2 : order == 2 ? 2 * 1.2 + 2 * 2 : 3 * 1.2 + 6 * 2 + 3;
}

em_err em_app_validate_size(const em_run *r) {
  const em_run_config *cfg = &r->m.cfg;
  if (cfg->mesh_file) return EM_OK; /* no mesh to estimate: it is read as it is */
  double tets = 0, h = 0;
  em_mesh_opts mo = em_run_config_mesh_opts(cfg, r->m.cs); /* the options the run meshes with */
  if (!(mo.freq_max > 0)) mo.freq_max = cfg->freq[cfg->n_freq - 1];
  EM_TRY(em_case_estimate(r->m.cs, &mo, &tets, &h));
  if (tets <= 0) return EM_OK;
  /* a direct factor of a 3-D mesh grows faster than the unknowns; count
     ~2 KB per unknown for the matrix, vectors and an iterative solve */
  double n = tets * dofs_per_tet(cfg->order), bytes = n * 2048, mem = host_memory();
  em_log_verbose(r->log, "mesh estimate: ~%.3g tets (h %.3g mm), ~%.3g unknowns, ~%.3g GiB", tets,
                 h * 1e3, n, bytes / (1 << 30));
  if (tets > TET_MAX || (mem > 0 && bytes > mem)) {
    char msg[512];
    snprintf(msg, sizeof msg,
             "the mesh implied is absurd: about %.3g tetrahedra (h = %.3g mm at %.6g GHz, "
             "Mesh/elements_per_wavelength %g, order %d), ~%.3g GiB against %.3g GiB of memory",
             tets, h * 1e3, mo.freq_max * 1e-9, cfg->epw, cfg->order, bytes / (1 << 30),
             mem / (1 << 30));
    if (!r->args->force)
      return EM_RAISE(EM_ERR_INPUT,
                      "%s; check the frequency (Hz) and the mesh density, or run "
                      "with --force",
                      msg);
    em_log_warn(r->log, "%s; going on (--force)", msg);
  }
  return EM_OK;
}
