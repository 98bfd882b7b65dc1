/* psweep.h - design sweeps (--sweep NAME=LIST): many geometries and
 * materials in one command; one subfolder per point, sweep.csv and
 * sweep_summary.csv collected (psweep.c). */
#ifndef EM_APP_PSWEEP_H
#define EM_APP_PSWEEP_H

#include "app_impl.h"

/* Run the sweep; *n_failed = points that failed (each recorded with its
 * message in sweep_summary.csv).  An error return is a usage or I/O error
 * of the sweep itself, not of a point. */
em_err em_app_psweep(const em_app_args *a, const em_psweep_args *ps, const em_log *log,
                     int *n_failed);

/* Usage check of the --sweep lists alone (a malformed one exits 2). */
em_err em_app_psweep_check(const em_psweep_args *ps);

#endif
