/* pml.c - the Cartesian uniaxial PML: where the layers are, and the complex
 * coordinate stretch inside them (formulas in em_assembly.h). */
#include <math.h>
#include <string.h>

#include "em_assembly.h"

/* Centroid of tet t. */
static void centroid(const em_mesh *m, int32_t t, double c[3]) {
  c[0] = c[1] = c[2] = 0;
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) c[d] += 0.25 * m->xyz[3 * (size_t)m->tet[4 * t + a] + d];
}

/* Every PML group must reach an interior tet through face neighbours that
 * are PML tets: breadth-first search from the interior side. */
static em_err check_touching(const em_mesh *m, const em_medium *med) {
  em_err err = EM_OK;
  uint8_t *reach = NULL;
  int32_t *queue = NULL;
  EM_TRY(em_calloc(&reach, (size_t)m->n_tet, 1, "PML reachability"));
  EM_TRY_GOTO(err, em_calloc(&queue, (size_t)m->n_tet, sizeof *queue, "PML reachability"), done);
  int32_t head = 0, tail = 0;
  for (int32_t t = 0; t < m->n_tet; t++)
    if (!med[m->tet_group[t]].is_pml) {
      reach[t] = 1;
      queue[tail++] = t;
    }
  while (head < tail) {
    int32_t t = queue[head++];
    for (int f = 0; f < 4; f++) {
      int32_t face = m->tet_face[4 * t + f];
      int32_t o = m->face_tet[2 * face] == t ? m->face_tet[2 * face + 1] : m->face_tet[2 * face];
      if (o >= 0 && !reach[o]) {
        reach[o] = 1;
        queue[tail++] = o;
      }
    }
  }
  for (int32_t t = 0; t < m->n_tet; t++)
    if (!reach[t]) {
      err = EM_RAISE(EM_ERR_INPUT,
                     "PML volume '%s' does not touch the interior: a PML must wrap the "
                     "non-PML volumes (share faces with them or with PML that does)",
                     m->group[m->tet_group[t]].name);
      goto done;
    }
done:
  em_free(&reach);
  em_free(&queue);
  return err;
}

em_err em_pml_detect(const em_mesh *m, const em_medium *med, int order, double R0, em_pml *p) {
  memset(p, 0, sizeof *p);
  p->order = order;
  p->R0 = R0;
  double outer[6];
  for (int d = 0; d < 3; d++) {
    p->inner[2 * d] = outer[2 * d] = INFINITY;
    p->inner[2 * d + 1] = outer[2 * d + 1] = -INFINITY;
  }
  int n_interior = 0, n_pml = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    int pml = med[m->tet_group[t]].is_pml;
    n_pml += pml;
    n_interior += !pml;
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) {
        double x = m->xyz[3 * (size_t)m->tet[4 * t + a] + d];
        outer[2 * d] = fmin(outer[2 * d], x);
        outer[2 * d + 1] = fmax(outer[2 * d + 1], x);
        if (!pml) {
          p->inner[2 * d] = fmin(p->inner[2 * d], x);
          p->inner[2 * d + 1] = fmax(p->inner[2 * d + 1], x);
        }
      }
  }
  EM_CHECK(n_interior > 0, EM_ERR_INPUT, "every volume is a PML: there is no interior to solve in");
  if (n_pml == 0) return EM_OK;
  double size = 0;
  for (int d = 0; d < 3; d++) size = fmax(size, outer[2 * d + 1] - outer[2 * d]);
  double tol = 1e-9 * size;
  for (int d = 0; d < 3; d++) {
    double lo = p->inner[2 * d] - outer[2 * d], hi = outer[2 * d + 1] - p->inner[2 * d + 1];
    p->thick[2 * d] = lo > tol ? lo : 0;
    p->thick[2 * d + 1] = hi > tol ? hi : 0;
  }
  for (int32_t t = 0; t < m->n_tet; t++) {
    if (!med[m->tet_group[t]].is_pml) continue;
    double c[3];
    centroid(m, t, c);
    int inside = 1;
    for (int d = 0; d < 3; d++)
      inside &= c[d] > p->inner[2 * d] + tol && c[d] < p->inner[2 * d + 1] - tol;
    EM_CHECK(!inside, EM_ERR_INPUT,
             "PML volume '%s' has a tet inside the interior box [%g, %g] x [%g, %g] x [%g, %g] m: "
             "PML volumes must lie outside the box of the non-PML volumes",
             m->group[m->tet_group[t]].name, p->inner[0], p->inner[1], p->inner[2], p->inner[3],
             p->inner[4], p->inner[5]);
  }
  EM_TRY(check_touching(m, med));
  return EM_OK;
}

/* s_d = 1 - j (sigma0_d / k0) (xi / L)^m with sigma0_d = (m+1) ln(1/R0) / (2 L) */
void em_pml_stretch(const em_pml *p, double k0, const double x[3], em_cplx s[3]) {
  for (int d = 0; d < 3; d++) {
    s[d] = 1;
    double xi = 0, L = 0;
    if (p->thick[2 * d] > 0 && x[d] < p->inner[2 * d]) {
      xi = p->inner[2 * d] - x[d];
      L = p->thick[2 * d];
    } else if (p->thick[2 * d + 1] > 0 && x[d] > p->inner[2 * d + 1]) {
      xi = x[d] - p->inner[2 * d + 1];
      L = p->thick[2 * d + 1];
    }
    if (L <= 0) continue;
    double r = fmin(xi / L, 1.0);
    double sigma0 = (p->order + 1) * log(1 / p->R0) / (2 * L);
    s[d] = 1 - I * (sigma0 / k0) * pow(r, p->order);
  }
}
