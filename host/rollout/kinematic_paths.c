// The kinematic bodies' paths that a rollout's scenes share: consecutive scenes that move them
// alike step along one path worked out once (tb_kinematicPaths, rollout.h).
#include <stdlib.h>
#include <string.h>

#include "engine/stage_step.h"
#include "rollout/rollout.h"

// whether vary entry i is one tb_kinematicAdvance reads: the step h, a kinematic body's driver
// or reference pose
static int tb_kinematicReads(const tbModel* m, int i) {
  if (i == m->vary_adr[TB_F_OPT] + TB_OPT_DT) return 1;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_KINEMATIC) continue;
    const int field[3] = {TB_F_DRIVER, TB_F_BODY_POS, TB_F_BODY_QUAT};
    const int object[3] = {m->body_driver[b], b, b};
    for (int f = 0; f < 3; f++) {
      int i0 = m->vary_adr[field[f]] + object[f] * m->vary_width[field[f]];
      if (i >= i0 && i < i0 + m->vary_width[field[f]]) return 1;
    }
  }
  return 0;
}

// whether parameter p reaches a kinematic body's motion
static int tb_paramMoves(const tbModel* m, int p) {
  const tbParam* prm = &m->param[p];
  for (int t = 0; t < prm->ntarget; t++) {
    if (tb_kinematicReads(m, prm->target[t])) return 1;
  }
  return 0;
}

// whether scene s moves its kinematic bodies as scene r does: the same clock and state, and the
// same values of the parameters that reach them (moves[p]: tb_paramMoves), bitwise
static int tb_kinematicAlike(const tbModel* m, const tbData* d, const char* moves, int r, int s) {
  if (memcmp(&d->time[r], &d->time[s], sizeof(double))) return 0;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_KINEMATIC) continue;
    double a[TB_STATE_WIDTH], c[TB_STATE_WIDTH];
    tb_bodyStateOf(m, d, r, b, a);
    tb_bodyStateOf(m, d, s, b, c);
    if (memcmp(a, c, sizeof(a))) return 0;
  }
  const double* pr = d->param + (size_t)r * m->nparam;
  const double* ps = d->param + (size_t)s * m->nparam;
  for (int p = 0; p < m->nparam; p++) {
    if (moves[p] && memcmp(pr + p, ps + p, sizeof(double))) return 0;
  }
  return 1;
}

// the scenes of a rollout's run of alike scenes: each stepping scene (failed and rested ones do
// not step) in run[s - s0], its run's first stepping scene (-1: it does not step); a run goes on
// while the stepping scenes move as its first does (tb_kinematicAlike). 0, or -1 out of memory
static int tb_kinematicRuns(const tbModel* m, const tbData* d, int s0, int s1, int* run) {
  char* moves = (char*)malloc((size_t)m->nparam + 1);
  if (!moves) return -1;
  for (int p = 0; p < m->nparam; p++) moves[p] = (char)tb_paramMoves(m, p);
  int r = -1;
  for (int s = s0; s < s1; s++) {
    run[s - s0] = -1;
    if (d->status[s] & (TB_SCENE_FAILMASK | TB_SCENE_RESTED)) continue;
    if (r < 0 || !tb_kinematicAlike(m, d, moves, r, s)) r = s;
    run[s - s0] = r;
  }
  free(moves);
  return 0;
}

int tb_kinematicPaths(const tbModel* m, const tbData* d, int s0, int s1, int nstep, int* path,
                      int* head) {
  int ns = s1 - s0, npath = 0;
  for (int i = 0; i < ns; i++) path[i] = -1;
  size_t n = tb_pathValues(m, nstep);
  if (n == 0 || n > TB_PATH_MAX_VALUES || tb_kinematicRuns(m, d, s0, s1, head)) return 0;
  // head holds the runs for now: a run's first scene takes a path when a second scene joins it
  for (int i = 0; i < ns; i++) {
    int r = head[i] - s0;
    if (r < 0 || r == i) continue;
    if (path[r] < 0 && (size_t)(npath + 1) * n <= TB_PATH_MAX_VALUES) path[r] = npath++;
    path[i] = path[r];
  }
  for (int i = ns - 1; i >= 0; i--) {
    if (path[i] >= 0) head[path[i]] = s0 + i;  // its first scene last
  }
  return npath;
}

// the paths of tb_kinematicPaths for scenes [s0, s1) in slot view w, in one buffer (the caller
// frees it): scene s's at[s - s0], or NULL where it works its own out
double* tb_sharedPaths(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbWork* w,
                       const double** at) {
  int ns = s1 - s0;
  int* path = (int*)malloc(sizeof(int) * (size_t)(2 * ns + 1));
  for (int i = 0; i < ns; i++) at[i] = NULL;
  if (!path) return NULL;
  int* head = path + ns;
  int npath = tb_kinematicPaths(m, d, s0, s1, nstep, path, head);
  size_t n = tb_pathValues(m, nstep);
  double* buf = npath ? (double*)malloc(sizeof(double) * n * (size_t)npath) : NULL;
  for (int j = 0; j < npath && buf; j++) tb_kinematicPath(m, d, head[j], w, nstep, buf + n * j);
  for (int i = 0; i < ns && buf; i++) at[i] = path[i] < 0 ? NULL : buf + n * path[i];
  free(path);
  return buf;
}
