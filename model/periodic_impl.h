/* periodic_impl.h - the state of the periodic pairs (model/periodic.c,
 * periodic_solve.c). */
#ifndef EM_PERIODIC_IMPL_H
#define EM_PERIODIC_IMPL_H

#include "em_model.h"

#define MAX_PAIR 3

struct em_periodic {
  int n_pair;
  int master[MAX_PAIR], slave[MAX_PAIR]; /* surface groups */
  double d[MAX_PAIR][3];                 /* translation master -> slave (m) */
  double kdir[3];                        /* k_t = k0 kdir */
  int32_t n_vert;
  int32_t *vimg[MAX_PAIR]; /* [n_vert] per pair: the master image of a vertex of
                              the slave side, -1 */
  int32_t n_full, n_red;
  int32_t *red;  /* [n_full] reduced index of each unknown */
  int8_t *shift; /* [3 n_full] lattice multiples of d[0..2] from the root */
  em_direct *F;  /* the factor of P^T A P (periodic_solve.c), kept across
                    frequencies: its analysis is reused */
};

/* p_k = exp(-j k_t . s_k) of unknown k at k0 */
em_cplx em_periodic_phase(const em_periodic *p, double k0, int32_t k);

#endif
