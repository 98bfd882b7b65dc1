/* outdir.h - output directories and signals (app/outdir.c): the lock of a
 * directory, the temporaries that killed runs left in it, and the flag that
 * SIGINT / SIGTERM set, which the long loops poll (em_cancel). */
#ifndef EM_APP_OUTDIR_H
#define EM_APP_OUTDIR_H

#include "em_core.h"

/* The folder of an unfinished result inside an output directory: a run
 * writes there and moves its files out only when the result is complete
 * (docs/outputs.md, "Staging"). */
#define EM_PARTIAL_DIR ".emsolve.partial"

/* <dir>/.emsolve.lock ("pid starttime"): EM_ERR_INPUT naming the holder
 * while the run that wrote it lives; a lock of a process that is gone, or
 * of a pid that now names another process (another start time), is stale
 * and taken over. */
em_err em_app_dir_lock(const char *dir, const em_log *log);
void em_app_dir_unlock(const char *dir);
/* Remove the "<output>.tmp.<pid>" files of dir whose process is gone (or is
 * another process now): what a killed run was writing. */
void em_app_dir_clean_temps(const char *dir, const em_log *log);

/* SIGINT / SIGTERM set the flag (a second one kills at once); SIGXFSZ is
 * ignored, so that a file-size limit fails the write (a full disk) rather
 * than killing the process. */
void em_app_signals_install(void);
/* The signal received (0: none); main exits with 128 + it. */
int em_app_signal(void);
/* The flag as a cancel request for the solver, writers, eigen solver. */
const em_cancel *em_app_cancel(void);
/* EM_ERR_CANCELLED naming the signal, when one came; EM_OK otherwise. */
em_err em_app_check_signal(void);
/* Block (1) or unblock (0) SIGINT / SIGTERM: around a commit, which must not
 * stop half way. */
void em_app_signals_block(int block);

#endif
