/* stage.c - the run's wall time by stage, exclusive (em_core.h): a stack
 * of open stages; the clock runs for the innermost one only, so a nested
 * stage (the ordering inside the preconditioner's set-up) is not counted
 * twice and the table adds up to the wall time. */
#include "em_core.h"

#include <stdarg.h>
#include <string.h>

static const char *const NAMES[EM_STAGE_COUNT] = {
    "other",    "parse",   "mesh",     "setup", "dofmap", "assembly", "operator", "ordering",
    "symbolic", "numeric", "pc_setup", "solve", "post",   "farfield", "writing"};

const char *em_stage_name(em_stage st) {
  return st >= 0 && st < EM_STAGE_COUNT ? NAMES[st] : "?";
}

void em_stages_init(em_stages *s, const em_log *out) {
  memset(s, 0, sizeof *s);
  if (out) s->out = *out;
  s->out.stages = NULL;
  if (!out) s->out.stream = NULL;
  s->mark = s->t_start = em_wtime();
  s->depth = 1;
  s->stack[0] = EM_STAGE_OTHER;
  s->begin[0] = s->t_start;
}

double em_stages_now(const em_stages *s, double t[EM_STAGE_COUNT]) {
  double now = em_wtime(), sum = 0;
  for (int i = 0; i < EM_STAGE_COUNT; i++) t[i] = s->t[i];
  if (s->depth > 1) t[s->stack[s->depth - 1]] += now - s->mark; /* the innermost, running */
  for (int i = 1; i < EM_STAGE_COUNT; i++) sum += t[i];
  double total = now - s->t_start, busy = sum - s->overlapped; /* the wall time claimed */
  t[EM_STAGE_OTHER] = total - busy > 0 ? total - busy : 0;
  return total;
}

/* the time since the mark to the innermost open stage */
static void charge(em_stages *s, double now) {
  s->t[s->stack[s->depth - 1]] += now - s->mark;
  s->mark = now;
}

void em_stages_init_background(em_stages *bg, const em_stages *parent) {
  em_stages_init(bg, parent ? &parent->out : NULL);
  if (!parent) bg->out.stream = NULL;
  bg->background = 1;
}

void em_stages_join(const em_log *log, const em_stages *bg, double t_wait) {
  if (!log || !log->stages || !bg) return;
  em_stages *s = log->stages;
  double now = em_wtime(), wait = now - t_wait, sum = 0;
  charge(s, now); /* the wait went to the stage open here: it was idle */
  em_stage open = s->stack[s->depth - 1];
  if (wait < 0) wait = 0;
  if (wait > s->t[open]) wait = s->t[open];
  s->t[open] -= wait;
  for (int i = 1; i < EM_STAGE_COUNT; i++) {
    s->t[i] += bg->t[i];
    s->calls[i] += bg->calls[i];
    sum += bg->t[i];
  }
  /* bg's stages ran beside this thread except while it waited */
  s->overlapped += sum - wait > 0 ? sum - wait : 0;
}

void em_stage_begin(const em_log *log, em_stage st) {
  if (!log || !log->stages || st <= EM_STAGE_OTHER || st >= EM_STAGE_COUNT) return;
  em_stages *s = log->stages;
  double now = em_wtime();
  charge(s, now);
  s->calls[st]++;
  if (s->depth == EM_STAGE_DEPTH) return; /* too deep: charged to the parent */
  s->stack[s->depth] = st;
  s->begin[s->depth++] = now;
}

double em_stage_end(const em_log *log, em_stage st, const char *fmt, ...) {
  if (!log || !log->stages || st <= EM_STAGE_OTHER || st >= EM_STAGE_COUNT) return 0;
  em_stages *s = log->stages;
  int d = s->depth - 1;
  while (d > 0 && s->stack[d] != st) d--;
  if (d == 0) return 0; /* not open (begun too deep, or never) */
  double now = em_wtime();
  charge(s, now);
  double dt = now - s->begin[d];
  s->depth = d; /* closes what an error path left open inside it */
  const em_log *out = &s->out;
  int level = dt > EM_STAGE_LOG_S ? EM_LOG_INFO : dt > 0.05 ? EM_LOG_VERBOSE : EM_LOG_VERBOSE + 1;
  if (!out->stream || out->level < level) return dt;
  char detail[512] = "";
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    detail[0] = ',';
    detail[1] = ' ';
    vsnprintf(detail + 2, sizeof detail - 2, fmt, ap);
    va_end(ap);
  }
  em_log_info(out, "%s: %.2f s%s%s", NAMES[st], dt, detail, s->background ? " (overlapped)" : "");
  return dt;
}
