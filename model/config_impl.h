/* config_impl.h - what the readers of the typed view share (private to
 * model/): a parameter read as a finite number, an integer in a range, or
 * one of a list of words; each error names the parameter. */
#ifndef EM_CONFIG_IMPL_H
#define EM_CONFIG_IMPL_H

#include "em_model.h"

em_err em_cfg_number(const em_case *c, const char *name, double *v);
em_err em_cfg_integer(const em_case *c, const char *name, int lo, int hi, int *v);
em_err em_cfg_choice(const em_case *c, const char *name, const char *const *opts, int n, int *v);
/* Solver/ and PMG/ (config_solver.c) */
em_err em_cfg_read_solver(const em_case *c, em_solve_opts *o);

#endif
