// The one rollout entry of every job (tb_rollout, tb_rolloutProbe): arguments checked, then
// split over the processes of a share or run on this one.
#include "engine/stage_step.h"
#include "rollout/rollout.h"

//---- rollout -----------------------------------------------------------------------------------

int tb_recordCount(int nstep, int every) {
  if (every <= 0 || every > nstep) return nstep > 0 ? 2 : 1;
  return 1 + nstep / every + (nstep % every ? 1 : 0);
}

void tb_recordSteps(int nstep, tbRecord* rec) {
  for (int k = 0, r = 0; k <= nstep; k++) {
    if (tb_isRecordStep(k, nstep, rec->every)) rec->step[r++] = k;
  }
}

int tb_rollout(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec) {
  return tb_rolloutProbe(m, d, s0, s1, nstep, rec, NULL);
}

int tb_rolloutProbe(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec,
                    const tbProbe* probe) {
  if (s0 < 0 || s1 > d->nscene || s0 > s1 || nstep < 0) {
    return tb_setError("rollout: scenes [%d, %d) of %d and %d steps", s0, s1, d->nscene, nstep);
  }
  if (rec && rec->nrecord != tb_recordCount(nstep, rec->every)) {
    return tb_setError("rollout: %d records for %d steps every %d (expected %d)", rec->nrecord,
                       nstep, rec->every, tb_recordCount(nstep, rec->every));
  }
  if (rec) tb_recordSteps(nstep, rec);
  int shared = d->run.share && d->run.share->size > 1;
  return shared ? tb_rolloutShared(m, d, s0, s1, nstep, rec, probe)
                : tb_rolloutHere(m, d, s0, s1, nstep, rec, probe);
}
