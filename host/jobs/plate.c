// Vibrating-plate velocity fields: named plate motions and the per-start field evaluation.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/plate.h>
#include <tumble/sweep.h>

#include "math/tb_math.h"

#include "engine/engine.h"
#include "engine/stage_probe.h"
#include "rollout/rollout.h"

#define TB_W66 (66.0 * TB_PI)

// thesis §5.3 / §6.1 (numbers as printed; units as in tumble/plate.h)
static const tbPlateMotion tb_motions[] = {
    {"centrifuge",
     "thesis §5.3: alpha_x = 100 sin(66 pi t + pi/2), alpha_y = 100 sin(66 pi t + pi); the "
     "translational part is not given (zero here)",
     TB_DRIVER_PLATE,
     {0, 0, 0, 100.0, 100.0, 0},
     {0, 0, 0, 0.5 * TB_PI, TB_PI, 0},
     TB_W66,
     0,
     0,
     0},
    {"circle-vose",
     "Vose's circle: alpha_z = 100 sin(66 pi t), p_z'' = 8 sin(66 pi t + 3 pi/2)",
     TB_DRIVER_PLATE,
     {0, 0, 8.0, 0, 0, 100.0},
     {0, 0, 1.5 * TB_PI, 0, 0, 0},
     TB_W66,
     0,
     0,
     0},
    {"circle-learned",
     "thesis Eq. 6.8-6.9 (case b): alpha_z = 40.8332 sin(66 pi t), p_z'' = 15.3654 sin(66 pi t + "
     "6.5374)",
     TB_DRIVER_PLATE,
     {0, 0, 15.3654, 0, 0, 40.8332},
     {0, 0, 6.5374, 0, 0, 0},
     TB_W66,
     0,
     0,
     0},
    // thesis §6.1.2 in its text's parameter order (A_1..3 translational, A_4..6 angular):
    // Eq. 6.10-6.15 swap the two, which gives a uniform drift (~0.3 m/s everywhere) and no
    // saddle, while this order gives v ~ (-0.13 x, 0.12 y), the target's signs
    {"saddle-learned",
     "thesis §6.1.2 text order: p_x'' = 3.88479 sin(66 pi t - 1.08465), p_y'' = -4.31188 "
     "sin(66 pi t - 2.0938), alpha_x = 155.816 sin(66 pi t + 0.430032), alpha_y = 204.171 "
     "sin(66 pi t + 5.77261) (Eq. 6.10-6.15 print them swapped)",
     TB_DRIVER_PLATE,
     {3.88479, -4.31188, 0, 155.816, 204.171, 0},
     {-1.08465, -2.0938, 0, 0.430032, 5.77261, 0},
     TB_W66,
     0,
     0,
     0},
    {"rocking",
     "thesis Eq. 5.9: 2D rocking plate about y, alpha = 180 rad/s^2, T = 0.03 s, axis 5 cm below",
     TB_DRIVER_ROCKING,
     {0},
     {0},
     0,
     180.0,
     0.03,
     0.05},
};

#define TB_NMOTION ((int)(sizeof(tb_motions) / sizeof(tb_motions[0])))

int tb_plateMotionCount(void) {
  return TB_NMOTION;
}

const tbPlateMotion* tb_plateMotion(int i) {
  return i >= 0 && i < TB_NMOTION ? &tb_motions[i] : NULL;
}

int tb_findPlateMotion(const char* name) {
  for (int i = 0; i < TB_NMOTION; i++) {
    if (!strcmp(tb_motions[i].name, name)) return i;
  }
  return -1;
}

double tb_plateMotionPeriod(const tbPlateMotion* mo) {
  return mo->driver == TB_DRIVER_ROCKING ? mo->period : 2.0 * TB_PI / mo->omega;
}

tbFieldOpt tb_defaultFieldOpt(void) {
  tbFieldOpt o;
  memset(&o, 0, sizeof(o));
  o.nx = o.ny = 8;
  o.device = tb_getDevice();
  o.precision = tb_getPrecision();
  o.extent = 0.05;
  o.seconds = 2.0;
  o.dt = 1e-4;
  o.mu = 0.5;
  o.transient = -1.0;
  return o;
}

void tb_freeFieldResult(tbFieldResult* r) {
  if (!r) return;
  free(r->pt);
  r->pt = NULL;
  r->n = 0;
}

//---- setup -------------------------------------------------------------------------------------

static int tb_setParam(const tbModel* m, tbData* d, const char* name, double v) {
  int p = tb_findParam(m, name);
  if (p < 0) return tb_setError("plate scene has no parameter '%s'", name);
  for (int s = 0; s < d->nscene; s++) d->param[(size_t)s * m->nparam + p] = v;
  return TB_OK;
}

static int tb_fieldParams(const tbModel* m, tbData* d, const tbPlateMotion* mo, const tbFieldOpt* o,
                          const double* start) {
  tb_defaultParams(m, d);
  int rc = tb_setParam(m, d, "mu", o->mu) | tb_setParam(m, d, "dt", o->dt);
  if (mo->driver == TB_DRIVER_ROCKING) {
    rc |= tb_setParam(m, d, "alpha", mo->alpha) | tb_setParam(m, d, "T", mo->period) |
          tb_setParam(m, d, "d", mo->d);
  } else {
    for (int i = 0; i < 6; i++) {
      char a[8], c[8];
      snprintf(a, sizeof(a), "A%d", i + 1);
      snprintf(c, sizeof(c), "C%d", i + 1);
      rc |= tb_setParam(m, d, a, mo->amp[i]) | tb_setParam(m, d, c, mo->phase[i]);
    }
    rc |= tb_setParam(m, d, "omega", mo->omega);
  }
  if (rc) return TB_ERR_ARG;
  for (int k = 0; k < o->nset; k++) {
    if (tb_setParam(m, d, o->set_name[k], o->set_value[k])) return TB_ERR_ARG;
  }
  int px = tb_findParam(m, "x0"), py = tb_findParam(m, "y0");
  for (int s = 0; s < d->nscene; s++) {
    d->param[(size_t)s * m->nparam + px] = start[2 * s];
    d->param[(size_t)s * m->nparam + py] = start[2 * s + 1];
  }
  return tb_checkParams(m, d);
}

void tb_placeOnPlate(const tbModel* m, tbData* d, int s, int plate, int part, double half_z) {
  const double* ppos = d->body_pos + ((size_t)s * m->nbody + plate) * 3;
  const double* pquat = d->body_quat + ((size_t)s * m->nbody + plate) * 4;
  const double* pvel = d->body_vel + ((size_t)s * m->nbody + plate) * 6;
  double* pos = d->body_pos + ((size_t)s * m->nbody + part) * 3;
  double* quat = d->body_quat + ((size_t)s * m->nbody + part) * 4;
  double* vel = d->body_vel + ((size_t)s * m->nbody + part) * 6;
  double n[3];
  tb_plateNormal(pquat, n);
  double rest = half_z - n[0] * (pos[0] - ppos[0]) - n[1] * (pos[1] - ppos[1]);
  pos[2] = ppos[2] + rest / n[2];
  tbu_pointVel(vel, pvel, ppos, pos);
  if (half_z > 0.0) {
    memcpy(quat, pquat, sizeof(double) * 4);
    memcpy(vel + 3, pvel + 3, sizeof(double) * 3);
  }
}

//---- the field ---------------------------------------------------------------------------------

static int tb_checkFieldOpt(const tbFieldOpt* o) {
  if (o->nstart <= 0 && (o->nx < 1 || o->ny < 1)) {
    return tb_setError("grid %dx%d: must be at least 1x1", o->nx, o->ny);
  }
  if (o->nstart > 0 && !o->start) return tb_setError("start: %d starts but no array", o->nstart);
  if (!(o->extent > 0.0) || !isfinite(o->extent)) {
    return tb_setError("extent %g: must be finite and > 0", o->extent);
  }
  if (!(o->seconds > 0.0) || !isfinite(o->seconds)) {
    return tb_setError("seconds %g: must be finite and > 0", o->seconds);
  }
  if (!(o->dt > 0.0) || !isfinite(o->dt))
    return tb_setError("dt %g: must be finite and > 0", o->dt);
  if (o->seconds / o->dt > 2e9)
    return tb_setError("seconds / dt = %g: too many steps", o->seconds / o->dt);
  if (!(o->mu >= 0.0) || !isfinite(o->mu))
    return tb_setError("mu %g: must be finite and >= 0", o->mu);
  if (!isfinite(o->transient) || o->transient >= o->seconds) {
    return tb_setError("transient %g: must be less than seconds %g", o->transient, o->seconds);
  }
  if (o->nset < 0 || o->nset > TB_FIELD_MAXSET)
    return tb_setError("nset %d: at most %d", o->nset, TB_FIELD_MAXSET);
  return TB_OK;
}

// the starts of a field, (n x 2) m: o's list, or its grid x fastest; NULL when out of memory
static double* tb_fieldStarts(const tbFieldOpt* o, int* n) {
  *n = o->nstart > 0 ? o->nstart : o->nx * o->ny;
  double* start = (double*)malloc(sizeof(double) * 2 * (size_t)*n);
  if (!start) {
    tb_setError("out of memory for %d starts", *n);
    return NULL;
  }
  if (o->nstart > 0) {
    memcpy(start, o->start, sizeof(double) * 2 * (size_t)*n);
    return start;
  }
  for (int j = 0; j < o->ny; j++) {
    for (int i = 0; i < o->nx; i++) {
      double fx = o->nx > 1 ? (double)i / (o->nx - 1) : 0.5;
      double fy = o->ny > 1 ? (double)j / (o->ny - 1) : 0.5;
      start[2 * (j * o->nx + i)] = -o->extent + 2.0 * o->extent * fx;
      start[2 * (j * o->nx + i) + 1] = -o->extent + 2.0 * o->extent * fy;
    }
  }
  return start;
}

// the model and a batch of the n starts, each part on the plate: TB_OK, or an error (*m and *d
// then NULL)
static int tb_fieldBatch(const tbPlateMotion* mo, const tbFieldOpt* o, const double* start, int n,
                         tbModel** pm, tbData** pd) {
  tbBuild b = tb_defaultBuild(tb_findScene(o->box ? "plate-block" : "plate-particle"));
  tbModel* m = tb_buildPlateScene(o->box, mo->driver, &b);
  tbData* d = m ? tb_newDataOn(m, n, o->device, o->precision) : NULL;
  int rc = m && d ? TB_OK : TB_ERR_MEMORY;
  if (rc == TB_OK) rc = tb_fieldParams(m, d, mo, o, start);
  if (rc == TB_OK) rc = tb_resetData(m, d);
  if (rc != TB_OK) {
    tb_freeData(d);
    tb_freeModel(m);
    *pm = NULL;
    *pd = NULL;
    return rc;
  }
  int plate = tb_findBody(m, "plate"), part = tb_findBody(m, o->box ? "block" : "particle");
  double half_z = o->box ? m->gdef[TB_FIELD_PART_GEOM].size[2] : 0.0;
  for (int s = 0; s < n; s++) tb_placeOnPlate(m, d, s, plate, part, half_z);
  *pm = m;
  *pd = d;
  return TB_OK;
}

int tb_plateFieldStart(const tbPlateMotion* mo, const tbFieldOpt* o, int i, tbModel** m, tbData** d,
                       long* nstep) {
  tb_clearError();
  *m = NULL;
  *d = NULL;
  if (tb_checkFieldOpt(o) != TB_OK) return TB_ERR_ARG;
  int n;
  double* start = tb_fieldStarts(o, &n);
  if (!start) return TB_ERR_MEMORY;
  int rc = i >= 0 && i < n ? tb_fieldBatch(mo, o, start + 2 * i, 1, m, d)
                           : tb_setError("start %d: the field has %d starts", i, n);
  free(start);
  *nstep = lround(o->seconds / o->dt);
  return rc;
}

int tb_plateField(const tbPlateMotion* mo, const tbFieldOpt* o, tbFieldResult* r) {
  tb_clearError();
  memset(r, 0, sizeof(*r));
  if (tb_checkFieldOpt(o) != TB_OK) return TB_ERR_ARG;
  int n;
  double* start = tb_fieldStarts(o, &n);
  if (!start) return TB_ERR_MEMORY;
  tbModel* m;
  tbData* d;
  int rc = tb_fieldBatch(mo, o, start, n, &m, &d);
  if (rc != TB_OK) goto done;
  int plate = tb_findBody(m, "plate"), part = tb_findBody(m, o->box ? "block" : "particle");

  // the averaging window: whole periods after the transient, on the step grid
  long nstep = lround(o->seconds / o->dt);
  double P = tb_plateMotionPeriod(mo);
  if (!(P >= 2.0 * o->dt) || !isfinite(P)) {
    rc = tb_setError(
        "plate period %g s (T, or 2 pi / omega): must be finite and at least two "
        "steps of dt %g s",
        P, o->dt);
    goto done;
  }
  double transient = o->transient < 0.0 ? 0.5 * o->seconds : o->transient;
  long k0 = lround(transient / o->dt);
  if (k0 >= nstep) k0 = nstep - 1;
  int periods = (int)floor((nstep - k0) * o->dt / P + 1e-9);
  long k1 = periods > 0 ? k0 + lround(periods * P / o->dt) : nstep;
  if (k1 > nstep) k1 = nstep;
  if (k1 <= k0) k1 = k0 + 1;
  r->pt = (tbFieldPoint*)calloc((size_t)n, sizeof(tbFieldPoint));
  if (!r->pt) {
    tb_setError("out of memory for %d starts", n);
    rc = TB_ERR_MEMORY;
    goto done;
  }
  r->n = n;
  r->nstep = nstep;
  r->periods = periods;
  r->window = (k1 - k0) * o->dt;
  tbProbe probe;
  memset(&probe, 0, sizeof(probe));
  probe.kind = TB_PROBE_FIELD;
  probe.plate = plate;
  probe.part = part;
  probe.geom = TB_FIELD_PART_GEOM;
  probe.box = o->box;
  probe.k0 = (int)k0;
  probe.k1 = (int)k1;
  probe.span = (k1 - k0) * o->dt;
  probe.field = r->pt;
  for (int s = 0; s < n; s++) {
    r->pt[s].x0 = start[2 * s];
    r->pt[s].y0 = start[2 * s + 1];
  }
  if (o->begin < 0 || o->begin > n) {
    rc = tb_setError("begin %d: the field has %d starts", o->begin, n);
    goto done;
  }
  // tenths of the batch: Ctrl-C stops after one (tb_interrupted)
  int chunk = n >= 10 ? n / 10 : 1;
  tbProgress prog;
  if (o->progress) {
    tb_progressStartOn(&prog, stderr, n, "plate field", "starts");
    tb_progressUpdate(&prog, o->begin);
  }
  double t0 = omp_get_wtime();
  r->done = o->begin;
  for (int s0 = o->begin; s0 < n && rc == TB_OK; s0 += chunk) {
    int s1 = s0 + chunk < n ? s0 + chunk : n;
    rc = tb_rolloutProbe(m, d, s0, s1, (int)nstep, NULL, &probe);
    if (rc != TB_OK) break;
    r->done = s1;
    if (o->chunk_done) o->chunk_done(o->chunk_ctx, r, s0, s1);
    if (o->progress) tb_progressUpdate(&prog, s1);
    if (s1 < n && tb_interrupted()) rc = TB_INTERRUPTED;
  }
  if (o->progress) tb_progressFinish(&prog);
  r->wall = omp_get_wtime() - t0;
  for (int s = 0; s < r->done; s++) r->failed += (r->pt[s].status & TB_SCENE_FAILMASK) != 0;
done:
  if (rc != TB_OK && rc != TB_INTERRUPTED) tb_freeFieldResult(r);
  tb_freeData(d);
  tb_freeModel(m);
  free(start);
  return rc;
}
