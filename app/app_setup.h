/* app_setup.h - the meaning of a case's groups (private to app/). */
#ifndef EM_APP_SETUP_H
#define EM_APP_SETUP_H

#include "app_impl.h"

typedef struct em_setup {
  em_medium *medium; /* per mesh group (volumes used) */
  int has_pml;
  em_pml pml;
  int n_port;
  em_port *port;       /* port1 .. portN */
  uint8_t *face_fixed; /* per face: tangential E prescribed (PEC) */
  int32_t n_abc;
  int32_t *abc_face; /* exterior faces with the first-order ABC */
} em_setup;

em_err em_setup_medium_of(const em_case *c, const char *name, int is_pml, em_medium *med);
double em_setup_index_of(void *ctx, const char *group_name);
em_err em_setup_build(const em_case *c, const em_mesh *m, const em_run_config *cfg,
                      const em_log *log, em_setup *s);
void em_setup_free(em_setup *s);

#endif
