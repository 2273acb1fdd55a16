// fp32 rollouts (TB_FP32): the batch's scenes converted into the fp32 twin of the step
// (scripts/f32twin.py: namespace tbf32, generated from the same source at build time), rolled
// out there on the CPU (OpenMP over scenes, a scratch slot per thread, as rollout_here.c does) or
// on the GPU (the twin of kernels/rollout.cu), and converted back. The batch, its records and the
// probes' outputs stay fp64 for every caller; a rollout runs in pieces of at most
// TB_FP32_PIECE scenes, so that the fp32 copies stay small beside the batch. Scenes are
// independent, so the result is bitwise the same for any piece size, thread count or chunking.
#include <omp.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "rollout/cpu_schedule.h"
#include "engine/engine.h"
#include "util/error.h"
#include "f32/tbf32.h"
#include "gpu/gpu.h"
#include "engine/stage_probe.h"
#include "rollout/rollout.h"

namespace {

namespace f = tbf32;

const int TB_FP32_PIECE = 1 << 16;

// v in single precision: beyond float's range (a parameter's 1e300 bound) its infinity, which
// the cast itself would leave undefined
float toFloat(double v) {
  if (v > FLT_MAX) return INFINITY;
  if (v < -FLT_MAX) return -INFINITY;
  return (float)v;
}

// element conversions between the two precisions' arrays (the same layout otherwise)
void conv(float* d, const double* s, size_t n) {
  for (size_t i = 0; i < n; i++) d[i] = toFloat(s[i]);
}
void conv(double* d, const float* s, size_t n) {
  for (size_t i = 0; i < n; i++) d[i] = s[i];
}
template <class T>
void conv(T* d, const T* s, size_t n) {
  if (n) memcpy(d, s, sizeof(T) * n);
}
void conv(f::tbParam* d, const tbParam* s, size_t n) {
  static_assert(sizeof(tbParam) == 3248, "tbParam changed: convert its new fields here");
  for (size_t k = 0; k < n; k++) {
    memcpy(d[k].name, s[k].name, sizeof(s[k].name));
    memcpy(d[k].unit, s[k].unit, sizeof(s[k].unit));
    memcpy(d[k].doc, s[k].doc, sizeof(s[k].doc));
    d[k].value = toFloat(s[k].value);
    d[k].lo = toFloat(s[k].lo);
    d[k].hi = toFloat(s[k].hi);
    d[k].lo_open = s[k].lo_open;
    d[k].ntarget = s[k].ntarget;
    memcpy(d[k].target, s[k].target, sizeof(s[k].target));
    conv(d[k].scale, s[k].scale, TB_MAXTARGET);
  }
}
void conv(f::tbObsCoord* d, const tbObsCoord* s, size_t n) {
  for (size_t k = 0; k < n; k++) {
    memcpy(d[k].name, s[k].name, sizeof(s[k].name));
    d[k].body = s[k].body;
    d[k].comp = s[k].comp;
  }
}
template <class D, class S>
void convField(D* d, const S* s, size_t n) {
  static_assert(sizeof(tbFieldPoint) == 80, "tbFieldPoint changed: convert its new fields here");
  for (size_t k = 0; k < n; k++) {
    d[k].x0 = s[k].x0;
    d[k].y0 = s[k].y0;
    d[k].mean_x = s[k].mean_x;
    d[k].mean_y = s[k].mean_y;
    d[k].vx = s[k].vx;
    d[k].vy = s[k].vy;
    d[k].speed = s[k].speed;
    d[k].stick = s[k].stick;
    d[k].separated = s[k].separated;
    d[k].status = s[k].status;
  }
}

f::tbOption convOption(const tbOption& o) {
  static_assert(sizeof(tbOption) == 152, "tbOption changed: convert its new fields here");
  f::tbOption r;
  r.timestep = toFloat(o.timestep);
  conv(r.gravity, o.gravity, 3);
  r.cone = o.cone;
  r.facets = o.facets;
  r.facet_angle = toFloat(o.facet_angle);
  r.facet_align = o.facet_align;
  r.frame_angle = toFloat(o.frame_angle);
  r.margin = toFloat(o.margin);
  r.restitution_vmin = toFloat(o.restitution_vmin);
  r.solver = o.solver;
  r.max_iter = o.max_iter;
  r.tol = toFloat(std::max(o.tol, TB_FP32_MIN_TOL));
  r.sor = toFloat(o.sor);
  r.warmstart = o.warmstart;
  r.maxcon = o.maxcon;
  r.quasistatic = o.quasistatic;
  r.corners = o.corners;
  r.implicit = o.implicit;
  r.delassus = o.delassus;
  r.rest_speed = toFloat(o.rest_speed);
  r.rest_time = toFloat(o.rest_time);
  r.soft = toFloat(o.soft);
  return r;
}

// the fp32 model of m, its arrays in buf
f::tbModel convModel(const tbModel* m, std::vector<char>* buf) {
  static_assert(sizeof(tbModel) == 888, "tbModel changed: convert its new fields here");
  f::tbModel fm;
  memset(&fm, 0, sizeof(fm));
  fm.nbody = m->nbody;
  fm.ngeom = m->ngeom;
  fm.njnt = m->njnt;
  fm.ndriver = m->ndriver;
  fm.nparam = m->nparam;
  fm.nsupport = m->nsupport;
  fm.nsched = m->nsched;
  fm.nvert = m->nvert;
  fm.nhull = m->nhull;
  fm.nhullvert = m->nhullvert;
  fm.nhullface = m->nhullface;
  fm.nhullfacevert = m->nhullfacevert;
  fm.nhulledge = m->nhulledge;
  fm.nvary = m->nvary;
  fm.npair = m->npair;
  fm.maxcon = m->maxcon;
  fm.maxrow = m->maxrow;
  fm.maxeq = m->maxeq;
  fm.nv = m->nv;
  fm.nq = m->nq;
  fm.nqd = m->nqd;
  fm.ndof = m->ndof;
  fm.opt = convOption(m->opt);
  memcpy(fm.vary_adr, m->vary_adr, sizeof(m->vary_adr));
  memcpy(fm.vary_width, m->vary_width, sizeof(m->vary_width));
  fm.compiled = m->compiled;
  size_t total = 0;
#define TB_X(type, name, count) total += (sizeof(*fm.name) * (size_t)(count) + 15) & ~(size_t)15;
  TB_MODEL_ARRAYS(TB_X)
#undef TB_X
  buf->assign(total + 16, 0);
  char* at = (char*)(((uintptr_t)buf->data() + 15) & ~(uintptr_t)15);
#define TB_X(type, name, count)            \
  fm.name = (decltype(fm.name))at;         \
  conv(fm.name, m->name, (size_t)(count)); \
  at += (sizeof(*fm.name) * (size_t)(count) + 15) & ~(size_t)15;
  TB_MODEL_ARRAYS(TB_X)
#undef TB_X
  return fm;
}

// an fp32 batch of n scenes of model fm, scene-major
struct Batch32 {
  f::tbData data;
  Batch32(const f::tbModel* fm, int n) {
    f::tbData* d = &data;  // the counts of TB_DATA_ARRAYS
    memset(d, 0, sizeof(*d));
    d->nscene = n;
    d->nbody = fm->nbody;
    d->nparam = fm->nparam;
    d->maxrow = fm->maxrow;
    d->nq = fm->nq;
    d->nqd = fm->nqd;
#define TB_X(type, name, count) \
  d->name = (decltype(d->name))calloc((size_t)n * (size_t)(count) + 1, sizeof(*d->name));
    TB_DATA_ARRAYS_F32(TB_X)
#undef TB_X
  }
  ~Batch32() {
#define TB_X(type, name, count) free(data.name);
    TB_DATA_ARRAYS_F32(TB_X)
#undef TB_X
  }
  bool ok() const {
    bool all = true;
#define TB_X(type, name, count) all = all && data.name;
    TB_DATA_ARRAYS_F32(TB_X)
#undef TB_X
    return all;
  }
};

// scene s of a into scene t of b, converting each element (both scene-major)
template <class A, class B>
void sceneConvert(const A* a, int s, B* b, int t) {
  const A* d = a;  // the counts of TB_DATA_ARRAYS
#define TB_X(type, name, count)                                                      \
  conv(b->name + (size_t)t * (size_t)(count), a->name + (size_t)s * (size_t)(count), \
       (size_t)(count));
  TB_DATA_ARRAYS(TB_X)
#undef TB_X
}

// the fp32 scratch of the CPU path: a slot per thread, in blocks of whole pages as
// tb_newThreadScratch lays them
struct Scratch32 {
  f::tbScratch slots;
  Scratch32(const f::tbModel* m, int nslot) {
    memset(&slots, 0, sizeof(slots));
    slots.nslot = nslot;
    f::tb_solverScratchSize(m, &slots.nsolver_d, &slots.nsolver_i);
    slots.block_bytes = f::tb_blockBytes(m, &slots);
    slots.block = (char*)aligned_alloc(TB_PAGE_BYTES_F32, (size_t)nslot * slots.block_bytes);
  }
  ~Scratch32() { free(slots.block); }
  bool ok() const { return slots.block != nullptr; }
};

// a probe's fp32 twin over scenes [s0, s0 + n): its inputs converted, its outputs here
struct Probe32 {
  f::tbProbe p;
  std::vector<f::tbObsCoord> coord;
  std::vector<float> want, point, obs, cost;
  std::vector<f::tbFieldPoint> field;

  Probe32(const tbProbe* q, int s0, int n) {
    static_assert(sizeof(tbProbe) == 136, "tbProbe changed: convert its new fields here");
    memset(&p, 0, sizeof(p));
    p.kind = q->kind;
    p.scene0 = q->scene0 + s0;
    p.nrow = q->nrow;
    p.ncol = q->ncol;
    p.plate = q->plate;
    p.part = q->part;
    p.geom = q->geom;
    p.box = q->box;
    p.k0 = q->k0;
    p.k1 = q->k1;
    p.span = toFloat(q->span);
    p.nstart = q->nstart;
    p.nwin = q->nwin;
    p.S = q->S;
    p.W = q->W;
    p.win = toFloat(q->win);
    p.target = q->target;
    p.npoint = q->npoint;
    if (q->kind == TB_PROBE_OBS) {
      p.step = q->step;
      coord.resize(q->ncol);
      conv(coord.data(), q->coord, coord.size());
      p.coord = coord.data();
      obs.resize((size_t)n * q->nrow * q->ncol);
      conv(obs.data(), q->obs + (size_t)s0 * q->nrow * q->ncol, obs.size());
      p.obs = obs.data();
    } else if (q->kind == TB_PROBE_FIELD) {
      field.resize(n);
      convField(field.data(), q->field + s0, field.size());
      p.field = field.data();
    } else {
      want.resize(2 * (size_t)q->nstart * q->nwin);
      conv(want.data(), q->want, want.size());
      point.resize(4 * (size_t)q->npoint);
      if (q->npoint > 0) conv(point.data(), q->point, point.size());
      p.want = want.data();
      p.point = point.data();
      cost.resize(n);
      conv(cost.data(), q->cost + s0, cost.size());
      p.cost = cost.data();
    }
  }

  // the outputs back into q's arrays
  void store(const tbProbe* q, int s0) const {
    if (q->kind == TB_PROBE_OBS) {
      conv(q->obs + (size_t)s0 * q->nrow * q->ncol, obs.data(), obs.size());
    } else if (q->kind == TB_PROBE_FIELD) {
      convField(q->field + s0, field.data(), field.size());
    } else {
      conv(q->cost + s0, cost.data(), cost.size());
    }
  }
};

// scenes [0, n) of the fp32 batch on the CPU, a slot per thread, reading the kinematic paths
// they share (tb_kinematicPaths: scene s's path[s], path j's first scene head[j]) as rollout_here.c
// does
int rolloutCpu(const f::tbModel* fm, f::tbData* fd, int nstep, f::tbRecord* rec,
               const f::tbProbe* probe, const int* path, const int* head, int npath) {
  Scratch32 scratch(fm, omp_get_max_threads());
  if (!scratch.ok()) return tb_setError("rollout: out of memory for the fp32 scratch");
  const f::tbScratch* sc = &scratch.slots;
  size_t n = f::tb_pathValues(fm, nstep);
  std::vector<float> paths(n * npath);
  f::tbWork lead;
  f::tb_workSlot(fm, sc, 0, &lead);
  for (int j = 0; j < npath; j++) {
    f::tb_kinematicPath(fm, fd, head[j], &lead, nstep, paths.data() + n * j);
  }
  int chunk = tb_sceneChunk(fd->nscene, omp_get_max_threads());
#pragma omp parallel
  {
    f::tbWork w;
    f::tb_workSlot(fm, sc, omp_get_thread_num(), &w);
#pragma omp for schedule(dynamic, chunk)
    for (int s = 0; s < fd->nscene; s++) {
      w.kin_path = path[s] < 0 ? NULL : paths.data() + n * path[s];
      f::tb_rolloutScene(f::tb_solo(), fm, fd, s, nstep, rec, probe, &w);
      tb_countScenes(1);
    }
  }
  return TB_OK;
}

}  // namespace

extern "C" int tb_rolloutF32(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec,
                             const tbProbe* probe, int gpu) {
  if (m->opt.implicit) {
    // its rows are positions over h: fp32's rounding of a 1 m position is 1e-3 m/s at h = 1e-4
    return tb_setError("option implicit: the implicit step runs in fp64 only (precision fp32)");
  }
  std::vector<char> model_buf;
  f::tbModel fm = convModel(m, &model_buf);
  int rc = TB_OK;
  for (int p0 = s0; p0 < s1 && rc == TB_OK; p0 += TB_FP32_PIECE) {
    int n = std::min(TB_FP32_PIECE, s1 - p0);
    Batch32 b(&fm, n);
    if (!b.ok()) return tb_setError("rollout: out of memory for %d fp32 scenes", n);
    for (int j = 0; j < n; j++) sceneConvert(d, p0 + j, &b.data, j);
    std::vector<int> path(n), head(n);  // (the fp64 values alike, so are their fp32 ones)
    int npath = gpu ? 0 : tb_kinematicPaths(m, d, p0, p0 + n, nstep, path.data(), head.data());
    for (int& h : head) h -= p0;
    f::tbRecord frec;
    std::vector<float> state, time;
    if (rec) {
      frec.every = rec->every;
      frec.nrecord = rec->nrecord;
      frec.step = rec->step;
      state.resize((size_t)n * rec->nrecord * m->nbody * 13);
      time.resize((size_t)n * rec->nrecord);
      frec.state = state.data();
      frec.time = time.data();
    }
    f::tbRecord* r = rec ? &frec : NULL;
    auto run = [&](const f::tbProbe* fp) {
      return gpu ? f::tb_gpuRollout(&fm, &b.data, 0, n, nstep, r, fp)
                 : rolloutCpu(&fm, &b.data, nstep, r, fp, path.data(), head.data(), npath);
    };
    if (probe) {
      Probe32 fp(probe, p0, n);
      rc = run(&fp.p);
      fp.store(probe, p0);
    } else {
      rc = run(NULL);
    }
    if (gpu) tb_countScenes(n);
    for (int j = 0; j < n; j++) sceneConvert(&b.data, j, d, p0 + j);
    if (rec) {
      size_t at = (size_t)p0 * rec->nrecord;
      conv(rec->state + at * m->nbody * 13, state.data(), state.size());
      conv(rec->time + at, time.data(), time.size());
    }
  }
  return rc;
}
