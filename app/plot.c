/* plot.c - `emsolve --plot OUTDIR` and Output/plots: run scripts/emplot.py
 * (Debian's python3 with matplotlib) on an output directory.  The script
 * and the interpreter are found at build time (EM_PLOT_SCRIPT, EM_PYTHON);
 * the environment variables EMSOLVE_PLOT_SCRIPT and EMSOLVE_PYTHON
 * override them (an installed emsolve, another python). */
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "app_run.h"

#ifndef EM_PLOT_SCRIPT
#define EM_PLOT_SCRIPT "scripts/emplot.py"
#endif
#ifndef EM_PYTHON
#define EM_PYTHON "python3"
#endif

extern char **environ;

em_err em_app_plot(const char *dir, const em_log *log) {
  struct stat st;
  EM_CHECK(dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode), EM_ERR_INPUT,
           "--plot %s: not a directory (give an emsolve output directory)", dir ? dir : "(null)");
  const char *script = getenv("EMSOLVE_PLOT_SCRIPT"), *py = getenv("EMSOLVE_PYTHON");
  if (!script || !*script) script = EM_PLOT_SCRIPT;
  if (!py || !*py) py = EM_PYTHON;
  EM_CHECK(stat(script, &st) == 0, EM_ERR_IO,
           "the plot script %s is missing (set EMSOLVE_PLOT_SCRIPT to scripts/emplot.py)", script);
  em_log_info(log, "plots: %s %s %s", py, script, dir);
  char *argv[] = {(char *)py, (char *)script, (char *)dir, NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, py, NULL, NULL, argv, environ);
  EM_CHECK(rc == 0, EM_ERR_IO, "cannot run %s: %s (Debian: apt-get install python3)", py,
           strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    EM_CHECK(errno == EINTR, EM_ERR_IO, "waiting for %s: %s", py, strerror(errno));
  EM_CHECK(WIFEXITED(status), EM_ERR_IO, "%s %s stopped by signal %d", py, script,
           WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  int code = WEXITSTATUS(status);
  EM_CHECK(code != 3, EM_ERR_UNSUPPORTED,
           "plots need matplotlib: apt-get install python3-matplotlib (scripts/install-deps.sh)");
  EM_CHECK(code != 2, EM_ERR_INPUT,
           "--plot %s: nothing to plot there (no ports.csv, "
           "antenna.csv, pattern_*.csv or rcs_*.csv)",
           dir);
  EM_CHECK(code == 0, EM_ERR_IO, "%s %s %s failed (exit status %d; its message is above)", py,
           script, dir, code);
  return EM_OK;
}
