// The command line's output files (outfile.h with its error messages) and trajectory records.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "engine/engine.h"
#include "util/csv.h"
#include "util/file.h"

int tb_cliOutOpen(tbOutFile* o, const char* what, const char* path) {
  return tb_outOpen(o, path) == TB_OK ? 0 : tb_cliError("%s %s", what, tb_lastError());
}

int tb_cliOutCheck(const char* what, const char* path) {
  return tb_fileCheckRegular(path) == TB_OK ? 0 : tb_cliError("%s %s", what, tb_lastError());
}

int tb_cliPlotFailed(const tbOutFile* o) {
  int e = errno;  // the failed write's, when cairo has not touched errno since
  if (o->f && ferror(o->f))
    return tb_cliError("--out %s: write failed: %s", o->path, e ? strerror(e) : "an I/O error");
  return tb_cliError("--out %s: cairo could not draw the plot", o->path);
}

int tb_cliOutCommit(tbOutFile* o, const char* what) {
  return tb_cliOutCommitAll(what, &o, 1);
}

int tb_cliOutCommitAll(const char* what, tbOutFile* const* o, int n) {
  return tb_outCommitAll(o, n) == TB_OK ? 0 : tb_cliError("%s %s", what, tb_lastError());
}

int tb_newRecord(tbRecord* rec, const tbModel* m, int nscene, int nstep, int every) {
  memset(rec, 0, sizeof(*rec));
  rec->every = every;
  rec->nrecord = tb_recordCount(nstep, every);
  size_t nslot = (size_t)nscene * rec->nrecord;
  double bytes = (double)nslot * ((double)m->nbody * 13 + 1) * sizeof(double);
  double have = tb_machineBytes();
  if (have > 0 && bytes > have)
    return tb_cliError(
        "--out: %zu records of %d bodies are %.3g GB, more than this machine's "
        "%.3g GB of memory; record less often (--every) or fewer scenes",
        nslot, m->nbody, bytes / 1e9, have / 1e9);
  rec->state = (double*)malloc(sizeof(double) * nslot * m->nbody * 13);
  rec->time = (double*)malloc(sizeof(double) * nslot);
  rec->step = (int*)malloc(sizeof(int) * rec->nrecord);
  if (rec->state && rec->time && rec->step) {
    tb_recordSteps(nstep, rec);  // scenes restored by --resume are written without a rollout
    return 0;
  }
  tb_freeRecord(rec);
  return tb_cliError("--out: not enough memory to record %zu states", nslot);
}

void tb_freeRecord(tbRecord* rec) {
  free(rec->state);
  free(rec->time);
  free(rec->step);
  memset(rec, 0, sizeof(*rec));
}

void tb_writeTrajectories(FILE* f, const tbModel* m, const tbRecord* rec, const tbData* d,
                          int ndone) {
  fprintf(f, "scene,step,t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n");
  for (int s = 0; s < ndone; s++) {
    int64_t last = tb_lastGoodStep(d, s);
    for (int r = 0; r < rec->nrecord && rec->step[r] <= last; r++) {
      size_t slot = (size_t)s * rec->nrecord + r;
      for (int b = 0; b < m->nbody; b++) {
        if (m->body_type[b] == TB_BODY_STATIC) continue;
        const double* x = rec->state + (slot * m->nbody + b) * 13;
        fprintf(f, "%d,%d,%.17g,", s, rec->step[r], rec->time[slot]);
        tb_csvField(f, m->body_name[b]);
        for (int k = 0; k < 13; k++) fprintf(f, ",%.17g", x[k]);
        fputc('\n', f);
      }
    }
  }
}
