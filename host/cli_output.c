// The command line's output files: written under a temporary name opened before the computation
// (so that a path that cannot be written fails at once) and renamed into place only when whole,
// so that a failed or interrupted run leaves what was there before; and the per-scene summary
// rows (parameter values, status, failing step, iterations, residuals) every per-scene output has.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int tb_outOpen(tbOutFile* o, const char* what, const char* path) {
  memset(o, 0, sizeof(*o));
  size_t n = strlen(path);
  if (!n || path[n - 1] == '/') return tb_cliError("%s %s: a file name is needed", what, path);
  if (snprintf(o->path, sizeof(o->path), "%s", path) >= (int)sizeof(o->path) ||
      snprintf(o->tmp, sizeof(o->tmp), "%s.part", path) >= (int)sizeof(o->tmp)) {
    return tb_cliError("%s: path longer than %d characters", what, (int)sizeof(o->path) - 6);
  }
  o->f = fopen(o->tmp, "w");
  if (!o->f) return tb_cliError("%s %s: cannot write: %s", what, path, strerror(errno));
  return 0;
}

int tb_outCommit(tbOutFile* o, const char* what) {
  if (!o->f) return 0;
  int bad = ferror(o->f) | fclose(o->f);
  o->f = NULL;
  if (bad || rename(o->tmp, o->path)) {
    remove(o->tmp);
    return tb_cliError("%s %s: write failed", what, o->path);
  }
  return 0;
}

void tb_outAbort(tbOutFile* o) {
  if (!o->f) return;
  fclose(o->f);
  o->f = NULL;
  remove(o->tmp);
}

void tb_statusText(int status, char* buf, size_t n) {
  static const struct {
    int bit;
    const char* name;
  } bits[] = {{TB_SCENE_NAN_FAIL, "diverged"},
              {TB_SCENE_OVERFLOW_FAIL, "contact-overflow"},
              {TB_SCENE_SOLVER_FAIL, "solver-inapplicable"},
              {TB_SCENE_UNCONVERGED, "unconverged"}};
  size_t len = 0;
  buf[0] = 0;
  for (size_t k = 0; k < sizeof(bits) / sizeof(bits[0]); k++) {
    if (!(status & bits[k].bit)) continue;
    len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? "+" : "", bits[k].name);
  }
  if (!len) snprintf(buf, n, "ok");
}

void tb_sceneSummaryHeader(FILE* f, const tbModel* m) {
  fputs("scene", f);
  for (int p = 0; p < m->nparam; p++) fprintf(f, ",%s", m->param[p].name);
  fputs(
      ",done,status,status_text,fail_step,steps,contacts,iterations,max_iterations,"
      "last_residual,max_residual\n",
      f);
}

void tb_sceneSummaryRow(FILE* f, const tbModel* m, const tbData* d, int s, long scene, int done) {
  char text[96];
  tb_statusText(d->status[s], text, sizeof(text));
  fprintf(f, "%ld", scene);
  for (int p = 0; p < m->nparam; p++) fprintf(f, ",%.17g", d->param[(size_t)s * m->nparam + p]);
  fprintf(f, ",%d,%d,%s,%d,%lld,%d,%lld,%d,%.6g,%.6g\n", done, d->status[s],
          done ? text : "not-run", d->fail_step[s], (long long)d->nstep[s], d->ncon[s],
          (long long)d->iter_sum[s], d->iter_max[s], d->resid_last[s], d->resid_max[s]);
}
