// Command line: the replay of one scene, shared by grasp, grasp3d, plate field and simulate:
// STEM.csv (every body's state at every step) and STEM.mp4 (replay.h).
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int tb_parseReplayOption(const char* arg, const char* val, tbReplayOpt* o) {
  if (!strcmp(arg, "--replay-speed")) {
    if (tb_parseNumber(arg, val, &o->speed)) return 2;
    return o->speed > 0.0 && o->speed <= 1e6 ? 0
                                             : tb_cliError("%s %s: must be in (0, 1e6]", arg, val);
  }
  if (!strcmp(arg, "--view")) {
    if (!strcmp(val, "top")) {
      o->view = TB_VIEW_TOP;
    } else if (!strcmp(val, "side")) {
      o->view = TB_VIEW_SIDE;
    } else {
      return tb_cliError("--view %s: expected top or side", val);
    }
    return 0;
  }
  return -1;
}

int tb_replayRun(tbCliReplay* r, const char* stem, const tbModel* m, tbData* d, int nstep,
                 tbReplayOpt* o) {
  memset(r, 0, sizeof(*r));
  if (o->view < 0) o->view = tb_replayViewOf(m);
  if (o->view == TB_VIEW_SIDE && tb_replayViewOf(m) == TB_VIEW_TOP)
    return tb_cliError("--view side: a planar (2.5D) scene is drawn from the top");
  char path[4200];
  snprintf(path, sizeof(path), "%s.csv", stem);
  int rc = tb_cliOutOpen(&r->csv, "--out", path);
  snprintf(path, sizeof(path), "%s.mp4", stem);
  if (!rc) rc = tb_cliOutOpen(&r->video, "--out", path);
  if (!rc) rc = tb_newRecord(&r->rec, m, 1, nstep, 1);
  if (!rc && tb_rollout(m, d, 0, 1, nstep, &r->rec))
    rc = tb_cliError("--replay: %s", tb_lastError());
  return rc;
}

int tb_replayWrite(tbCliReplay* r, const tbModel* m, const tbData* d, tbReplayOpt* o,
                   const char* title, const char* caption) {
  o->title = title;
  o->caption = caption;
  tb_writeTrajectories(r->csv.f, m, &r->rec, d, 1);
  if (tb_writeReplay(r->video.f, m, d, &r->rec, o))
    return tb_cliError("--replay %s: %s", r->video.path, tb_lastError());
  return 0;
}

int tb_replayCommit(tbCliReplay* r, tbOutFile* also) {
  tbOutFile* files[3] = {&r->csv, &r->video, also};
  return tb_cliOutCommitAll("--out", files, also ? 3 : 2);
}

void tb_replayEnd(tbCliReplay* r) {
  tb_outAbort(&r->csv);
  tb_outAbort(&r->video);
  tb_freeRecord(&r->rec);
}

int tb_replayViewOf(const tbModel* m) {
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_type[g] == TB_GEOM_PRISM) return TB_VIEW_TOP;
  }
  return TB_VIEW_SIDE;
}

void tb_paramCaption(const tbModel* m, const tbData* d, char* buf, size_t n) {
  size_t len = 0;
  buf[0] = 0;
  for (int p = 0; p < m->nparam && len + 4 < n; p++) {
    int k = snprintf(buf + len, n - len, "%s%s %.4g%s%s", p ? ", " : "", m->param[p].name,
                     d->param[p], m->param[p].unit[0] ? " " : "", m->param[p].unit);
    if (k < 0 || len + (size_t)k >= n - 4) {
      snprintf(buf + len, n - len, ", ...");
      break;
    }
    len += (size_t)k;
  }
}

int tb_parseCellTrial(const char* what, const char* val, int* cell, int* trial) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%s", val);
  char* comma = strchr(buf, ',');
  if (!comma) return tb_cliError("%s %s: expected CELL,TRIAL", what, val);
  *comma = 0;
  long c, t;
  char name[80];
  snprintf(name, sizeof(name), "%s CELL", what);
  if (tb_parseInt(name, buf, 0, 1 << 24, &c)) return 2;
  snprintf(name, sizeof(name), "%s TRIAL", what);
  if (tb_parseInt(name, comma + 1, 0, 1 << 24, &t)) return 2;
  *cell = (int)c;
  *trial = (int)t;
  return 0;
}
