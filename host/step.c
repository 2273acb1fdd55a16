// The CPU launcher of the step: the batch's scratch, and the one rollout (OpenMP over scenes,
// each thread stepping in its own slot) that hands batches to the GPU path when it is selected.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/reader.h>

#include "cpu_schedule.h"
#include "engine.h"
#include "gpu.h"
#include "solver.h"
#include "stage_step.h"

tbScratch* tb_newScratch(const tbModel* m, int nslot) {
  tbScratch* sc = (tbScratch*)calloc(1, sizeof(tbScratch));
  if (!sc) return NULL;
  sc->nslot = nslot;
  tb_solverScratchSize(m, &sc->nsolver_d, &sc->nsolver_i);
  int ok = 1;
  // slots on cache-line boundaries (tb_slotBytes)
#define TB_X(type, name, count)                                                                    \
  sc->name =                                                                                       \
      (type*)aligned_alloc(64, (size_t)nslot * tb_slotBytes(sizeof(type) * (size_t)(count)) + 64); \
  ok &= sc->name != NULL;
  TB_WORK_ARRAYS(TB_X)
#undef TB_X
  if (!ok) {
    tb_freeScratch(sc);
    return NULL;
  }
  return sc;
}

tbScratch* tb_newThreadScratch(const tbModel* m, int nthread) {
  tbScratch* sc = (tbScratch*)calloc(1, sizeof(tbScratch));
  if (!sc) return NULL;
  sc->nslot = nthread;
  tb_solverScratchSize(m, &sc->nsolver_d, &sc->nsolver_i);
  sc->block_bytes = tb_blockBytes(m, sc);
  sc->block = (char*)aligned_alloc(TB_PAGE_BYTES, (size_t)nthread * sc->block_bytes);
  if (!sc->block) {
    free(sc);
    return NULL;
  }
  return sc;
}

void tb_freeScratch(tbScratch* sc) {
  if (!sc) return;
#define TB_X(type, name, count) free(sc->name);
  TB_WORK_ARRAYS(TB_X)
#undef TB_X
  free(sc->block);
  free(sc);
}

tbWork* tb_newWork(const tbModel* m) {
  tbScratch sizes;
  memset(&sizes, 0, sizeof(sizes));
  tb_solverScratchSize(m, &sizes.nsolver_d, &sizes.nsolver_i);
  tbWork* w = (tbWork*)calloc(1, sizeof(tbWork));
  char* buf = w ? (char*)aligned_alloc(16, tb_workBytes(m, &sizes)) : NULL;
  if (!buf) {
    free(w);
    return NULL;
  }
  tb_workCarve(m, &sizes, buf, w);
  w->own = buf;
  return w;
}

void tb_freeWork(tbWork* w) {
  if (!w) return;
  free(w->own);
  free(w);
}

//---- device ------------------------------------------------------------------------------------

// what was asked for, and where rollouts go (auto resolved once, not at every rollout)
static int tb_device = TB_DEVICE_CPU, tb_resolved = TB_DEVICE_CPU;

int tb_setDevice(int device) {
  if (device != TB_DEVICE_CPU && device != TB_DEVICE_GPU && device != TB_DEVICE_AUTO) {
    return tb_setError("device %d: expected TB_DEVICE_CPU, TB_DEVICE_GPU or TB_DEVICE_AUTO",
                       device);
  }
  if (device == TB_DEVICE_GPU && tb_gpuDeviceCount() == 0) {
#ifdef TUMBLE_HAVE_CUDA
    return tb_setError("device gpu: no usable CUDA device");
#else
    return tb_setError("device gpu: this build has no CUDA (nvcc was not found at configure)");
#endif
  }
  tb_device = device;
  tb_resolved = device != TB_DEVICE_AUTO  ? device
                : tb_gpuDeviceCount() > 0 ? TB_DEVICE_GPU
                                          : TB_DEVICE_CPU;
  return TB_OK;
}

int tb_getDevice(void) {
  return tb_device;
}

int tb_rolloutDevice(void) {
  return tb_resolved;
}

static int tb_precision = TB_FP64;

int tb_setPrecision(int precision) {
  if (precision != TB_FP64 && precision != TB_FP32) {
    return tb_setError("precision %d: expected TB_FP64 or TB_FP32", precision);
  }
  tb_precision = precision;
  return TB_OK;
}

int tb_getPrecision(void) {
  return tb_precision;
}

// a host batch is scene-major, which is how the stages index it: no one-scene copy per step
void tb_stepScene(const tbModel* m, tbData* d, int s, tbWork* w) {
  tb_step(tb_solo(), m, d, s, w);
}

// step problem p of w as an FC3D file, with A made for it from the step's rows (bitwise the
// step's where it assembled one): in body space the step holds none, and a step whose warm start
// was kept as it stood assembled none (tb_warmKept)
static int tb_writeStepProblem(const char* path, const tbWork* w, tbProblem* p) {
  double* A = (double*)malloc(sizeof(double) * tb_cap(p->n) * tb_cap(p->n));
  if (!A) return TB_ERR_MEMORY;
  tb_delassusRows(tb_solo(), w, A);
  p->A = A;
  int rc = tb_writeFC3D(path, p);
  free(A);
  return rc;
}

int tb_exportProblems(const tbModel* m, tbData* d, int nstep, int every, const char* stem,
                      int* written) {
  *written = 0;
  if (m->opt.quasistatic) {
    // its problems are the proximal rounds' (stage_quasi.h), not one problem of the step
    return tb_setError("a quasistatic step solves several problems, not one");
  }
  if (m->opt.corners) {
    // a step with corner pairs may solve its problem again with other members (stage_corner.h)
    return tb_setError("option corners: a step may solve several problems, not one");
  }
  if (m->opt.implicit) {
    // its step is a nonlinear complementarity problem in the shapes' closest points too
    return tb_setError("option implicit: the step's problem is not a Delassus problem");
  }
  tbWork* w = tb_newWork(m);
  if (!w) return TB_ERR_MEMORY;
  int rc = TB_OK;
  for (int s = 0; s < d->nscene && rc == TB_OK; s++) {
    for (int k = 1; k <= nstep && rc == TB_OK; k++) {
      tb_stepScene(m, d, s, w);
      if (d->status[s] & TB_SCENE_FAILMASK) break;
      if (!tb_isRecordStep(k, nstep, every) || d->ncon[s] == 0) continue;
      char path[4096];
      snprintf(path, sizeof(path), "%s-s%d-k%d.dat", stem, s, k);
      tbProblem p = tb_problemOf(m, w);
      rc = tb_writeStepProblem(path, w, &p);
      *written += rc == TB_OK;
    }
  }
  tb_freeWork(w);
  return rc;
}

// whether the contact block starting at row r is shape contact c's: its normal row is built from
// the contact's bodies and normal (tb_contactRows), which no support row or other contact shares
static int tb_isContactBlock(const tbModel* m, const tbWork* w, int c, const tbRowJ* r) {
  int pair = w->con_pair[c];
  const double* n = w->con[c].normal;
  return r->body[0] == m->geom_body[m->pair_geom[2 * pair]] &&
         r->body[1] == m->geom_body[m->pair_geom[2 * pair + 1]] && r->J[0][0] == n[0] &&
         r->J[0][1] == n[1] && r->J[0][2] == n[2];
}

// world point k (0..2) of the support tripods, in the order tb_supportRows makes their blocks
static void tb_supportPoint(const tbModel* m, const tbWork* w, int k, double p[3]) {
  int sup = k / 3, i = k % 3, b = m->sup_body[sup];
  const double* prm = tb_varyOf(m, w->vary, TB_F_SUPPORT, sup);
  double local[3] = {prm[TB_SUP_POINT + 2 * i], prm[TB_SUP_POINT + 2 * i + 1], 0.0}, r[3];
  tbu_rotVec(r, w->xquat + 4 * b, local);
  tbu_add3(p, w->xpos + 3 * b, r);
}

int tb_stepContacts(const tbModel* m, const tbWork* w, tbContactForce* out) {
  int n = 0, c = 0, sup = 0;
  for (int bk = 0; bk < w->nblock; bk++) {
    if (w->blk_type[bk] != TB_BLOCK_CONTACT) continue;
    int adr = w->blk_adr[bk];
    const tbRowJ* r = &w->row[adr];
    tbContactForce* f = &out[n++];
    tbu_zero3(f->force);
    for (int k = 0; k < w->blk_dim[bk]; k++)
      tbu_addscl3(f->force, f->force, r[k].J[0], w->x[adr + k] / w->h);
    f->body[0] = r->body[0];
    f->body[1] = r->body[1];
    while (c < w->ncon && !tb_isContactBlock(m, w, c, r)) c++;  // contacts without a row
    if (c < w->ncon) {
      tbu_copy3(f->pos, w->con[c++].pos);
    } else {
      tb_supportPoint(m, w, sup++, f->pos);
    }
  }
  return n;
}

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

// a slot for every thread of the next parallel region, kept by the batch between rollouts (and
// made anew when the model's solver needs other scratch than the last rollout's)
static int tb_batchScratch(const tbModel* m, tbData* d, int nslot) {
  size_t nd, ni;
  tb_solverScratchSize(m, &nd, &ni);
  tbScratch* sc = d->scratch;
  if (sc && sc->nslot >= nslot && sc->nsolver_d == nd && sc->nsolver_i == ni) return TB_OK;
  tb_freeScratch(sc);
  d->scratch = tb_newThreadScratch(m, nslot);
  return d->scratch ? TB_OK : tb_setError("rollout: out of memory for %d scratch slots", nslot);
}

static long* tb_counter;

void tb_setRolloutCounter(long* counter) {
  tb_counter = counter;
}

// the scenes a rollout finished, for a progress display reading the counter from another thread
void tb_countScenes(long n) {
  if (tb_counter) __atomic_fetch_add(tb_counter, n, __ATOMIC_RELAXED);
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
  return tb_sharing() ? tb_rolloutShared(m, d, s0, s1, nstep, rec, probe)
                      : tb_rolloutHere(m, d, s0, s1, nstep, rec, probe);
}

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
static double* tb_sharedPaths(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbWork* w,
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

int tb_rolloutHere(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec,
                   const tbProbe* probe) {
  if (tb_precision == TB_FP32) {
    return tb_rolloutF32(m, d, s0, s1, nstep, rec, probe, tb_rolloutDevice() == TB_DEVICE_GPU);
  }
  if (tb_rolloutDevice() == TB_DEVICE_GPU) {
    int rc = tb_gpuRollout(m, d, s0, s1, nstep, rec, probe);
    tb_countScenes(s1 - s0);
    return rc;
  }
  int rc = tb_batchScratch(m, d, omp_get_max_threads());
  if (rc != TB_OK) return rc;
  const tbScratch* sc = d->scratch;
  tbWork lead;
  tb_workSlot(m, sc, 0, &lead);
  const double** at = (const double**)malloc(sizeof(double*) * (size_t)(s1 - s0 + 1));
  if (!at) return tb_setError("rollout: out of memory for %d scenes", s1 - s0);
  double* paths = tb_sharedPaths(m, d, s0, s1, nstep, &lead, at);
  int chunk = tb_sceneChunk(s1 - s0, omp_get_max_threads());
#pragma omp parallel
  {
    tbWork w;
    tb_workSlot(m, sc, omp_get_thread_num(), &w);
    // scenes differ in cost (contacts come and go), hence dynamic scheduling; the result of a
    // scene does not depend on which thread (slot) runs it
#pragma omp for schedule(dynamic, chunk)
    for (int s = s0; s < s1; s++) {
      w.kin_path = at[s - s0];
      tb_rolloutScene(tb_solo(), m, d, s, nstep, rec, probe, &w);
      tb_countScenes(1);
    }
  }
  free(paths);
  free(at);
  return TB_OK;
}
