// The command line's output files: written under a temporary name opened before the computation
// (so that a path that cannot be written fails at once) and renamed into place only when whole,
// so that a failed or interrupted run leaves what was there before.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

int tb_newRecord(tbRecord* rec, const tbModel* m, int nscene, int nstep, int every) {
  memset(rec, 0, sizeof(*rec));
  rec->every = every;
  rec->nrecord = tb_recordCount(nstep, every);
  size_t nslot = (size_t)nscene * rec->nrecord;
  rec->state = (double*)malloc(sizeof(double) * nslot * m->nbody * 13);
  rec->time = (double*)malloc(sizeof(double) * nslot);
  rec->step = (int*)malloc(sizeof(int) * rec->nrecord);
  if (rec->state && rec->time && rec->step) return 0;
  tb_freeRecord(rec);
  return tb_cliError("--out: not enough memory to record %zu states", nslot);
}

void tb_freeRecord(tbRecord* rec) {
  free(rec->state);
  free(rec->time);
  free(rec->step);
  memset(rec, 0, sizeof(*rec));
}
