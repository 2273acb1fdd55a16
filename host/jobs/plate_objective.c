// Designing plate motions (thesis ch. 6): the trajectory objective over a batch of plate-particle
// scenes. `tumble plate optimize` (host/cli/cli_plate_optimize.c) minimizes it with Nelder-Mead and
// CMA-ES from host/jobs/optimize.c.
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <tumble/plate.h>

#include "math/tb_math.h"

#include "engine/engine.h"
#include "engine/stage_probe.h"
#include "rollout/rollout.h"

const char* const tb_pname[12] = {"A1", "A2", "A3", "A4", "A5", "A6",
                                  "C1", "C2", "C3", "C4", "C5", "C6"};

// wrap a phase into [-pi, pi) (the motion is 2 pi periodic in every C_i)
static double tb_wrapPhase(double c) {
  return c - 2.0 * TB_PI * floor((c + TB_PI) / (2.0 * TB_PI));
}

tbPlateObjOpt tb_defaultPlateObjOpt(int target, double* x0) {
  tbPlateObjOpt o;
  memset(&o, 0, sizeof(o));
  o.target = target;
  o.device = tb_getDevice();
  o.precision = tb_getPrecision();
  o.nstart = 4;
  o.horizon = 6.0;
  o.sample = 0.25;
  o.dt = 5e-4;
  o.mu = 0.5;
  o.omega = 66.0 * TB_PI;
  double start[12] = {0};
  if (target == TB_PLATE_TARGET_SADDLE) {
    // thesis §6.1.2: A = [8, 0.5, -5, -1.5, 0, 0], C = [150, 1.5, 80, 5.5, 0, 0], taken in the
    // engine's order (A1..A3 translational, A4..A6 angular); the phases are wrapped
    const double a[6] = {8.0, 0.5, -5.0, -1.5, 0.0, 0.0}, c[6] = {150.0, 1.5, 80.0, 5.5, 0.0, 0.0};
    for (int i = 0; i < 6; i++) {
      start[i] = a[i];
      start[6 + i] = tb_wrapPhase(c[i]);
    }
    o.dim = 12;
    for (int i = 0; i < 12; i++) o.index[i] = i;
  } else {
    // Vose's circle: A3 = 8, C3 = 3 pi / 2, A6 = 100
    start[2] = 8.0;
    start[8] = 1.5 * TB_PI;
    start[5] = 100.0;
    if (target == TB_PLATE_TARGET_CIRCLE) {
      o.dim = 3;
      o.index[0] = 5;  // A6
      o.index[1] = 2;  // A3
      o.index[2] = 8;  // C3
    } else {
      o.dim = 12;
      for (int i = 0; i < 12; i++) o.index[i] = i;
    }
  }
  memcpy(o.base, start, sizeof(start));
  if (x0) {
    for (int j = 0; j < o.dim; j++) x0[j] = start[o.index[j]];
  }
  return o;
}

// the i-th point (from 1) of the Halton sequence in base b
static double tb_halton(int i, int b) {
  double f = 1.0, r = 0.0;
  while (i > 0) {
    f /= b;
    r += f * (i % b);
    i /= b;
  }
  return r;
}

void tb_plateSearchBox(const tbPlateObjOpt* o, const double* x0, double* lo, double* hi,
                       double* step) {
  for (int j = 0; j < o->dim; j++) {
    int c = o->index[j];
    int phase = c >= 6, angular = c >= 3 && c < 6;
    lo[j] = phase ? -4.0 * TB_PI : -500.0;
    hi[j] = -lo[j];
    step[j] = phase ? 0.5 : fmax(0.1 * fabs(x0[j]), angular ? 10.0 : 1.0);
  }
}

void tb_plateTargetStarts(const tbPlateObjOpt* o, double* start) {
  int K = o->nstart;
  double lo[2] = {-0.05, -0.05}, hi[2] = {0.05, 0.05};
  if (o->target == TB_PLATE_TARGET_TABLE && o->npoint > 0) {
    lo[0] = hi[0] = o->point[0];
    lo[1] = hi[1] = o->point[1];
    for (int i = 1; i < o->npoint; i++) {
      for (int c = 0; c < 2; c++) {
        lo[c] = fmin(lo[c], o->point[4 * i + c]);
        hi[c] = fmax(hi[c], o->point[4 * i + c]);
      }
    }
  }
  for (int k = 0; k < K; k++) {
    if (o->target == TB_PLATE_TARGET_CIRCLE) {
      double r = K > 1 ? 0.04 + 0.04 * k / (K - 1) : 0.06, a = 2.0 * TB_PI * k / K;
      start[2 * k] = r * cos(a);
      start[2 * k + 1] = r * sin(a);
    } else {
      start[2 * k] = lo[0] + (hi[0] - lo[0]) * tb_halton(k + 1, 2);
      start[2 * k + 1] = lo[1] + (hi[1] - lo[1]) * tb_halton(k + 1, 3);
    }
  }
}

struct tbPlateObj {
  tbPlateObjOpt o;
  double* point;  // table copy
  double* start;  // (K x 2)
  double* want;   // (K x J x 2) target positions at the samples
  int J;          // samples per start
  long S, W;      // steps per sample, steps of the velocity window
  tbModel* m;
  int plate, part;
  int ip[12], ix0, iy0, imu, idt, iomega;
};

const tbPlateObjOpt* tb_plateObjOpt(const tbPlateObj* ob) {
  return &ob->o;
}

static void tb_targetVel(const tbPlateObj* ob, double x, double y, double v[2]) {
  tb_plateTargetVel(ob->o.target, ob->o.npoint, ob->point, x, y, v);
}

// p*(t) from p(0) = (x, y): exact for the circle and the saddle, RK4 (h <= 0.01 s) for a table
static void tb_targetPos(const tbPlateObj* ob, double x, double y, double t, double p[2]) {
  if (ob->o.target == TB_PLATE_TARGET_CIRCLE) {
    double c = cos(0.15 * t), s = sin(0.15 * t);
    p[0] = c * x - s * y;
    p[1] = s * x + c * y;
    return;
  }
  if (ob->o.target == TB_PLATE_TARGET_SADDLE) {
    p[0] = x * exp(-0.2 * t);
    p[1] = y * exp(0.2 * t);
    return;
  }
  int n = (int)ceil(t / 0.01 - 1e-9);
  double h = n > 0 ? t / n : 0.0;
  for (int i = 0; i < n; i++) {
    double k1[2], k2[2], k3[2], k4[2];
    tb_targetVel(ob, x, y, k1);
    tb_targetVel(ob, x + 0.5 * h * k1[0], y + 0.5 * h * k1[1], k2);
    tb_targetVel(ob, x + 0.5 * h * k2[0], y + 0.5 * h * k2[1], k3);
    tb_targetVel(ob, x + h * k3[0], y + h * k3[1], k4);
    x += h / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]);
    y += h / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]);
  }
  p[0] = x;
  p[1] = y;
}

void tb_freePlateObj(tbPlateObj* ob) {
  if (!ob) return;
  tb_freeModel(ob->m);
  free(ob->point);
  free(ob->start);
  free(ob->want);
  free(ob);
}

static int tb_checkObjOpt(const tbPlateObjOpt* o) {
  if (o->target < 0 || o->target > TB_PLATE_TARGET_TABLE)
    return tb_setError("target %d: unknown", o->target);
  if (o->target == TB_PLATE_TARGET_TABLE && (o->npoint < 1 || !o->point))
    return tb_setError("target table: needs at least one row");
  if (o->nstart < 1) return tb_setError("starts %d: must be >= 1", o->nstart);
  if (!(o->dt > 0.0 && o->dt <= 1.0)) return tb_setError("dt %g: must be in (0, 1]", o->dt);
  if (!(o->sample >= o->dt && isfinite(o->sample)))
    return tb_setError("sample %g: must be finite and >= dt %g", o->sample, o->dt);
  if (!(o->horizon >= o->sample && isfinite(o->horizon)))
    return tb_setError("horizon %g: must be finite and >= the sample interval %g", o->horizon,
                       o->sample);
  if (o->horizon / o->dt > 2e9) return tb_setError("horizon / dt = %g: too many steps", o->horizon);
  if (!(o->mu >= 0.0 && o->mu <= 1e3)) return tb_setError("mu %g: must be in [0, 1000]", o->mu);
  if (!(o->omega > 0.0 && isfinite(o->omega)))
    return tb_setError("omega %g: must be > 0", o->omega);
  if (o->dim < 1 || o->dim > 12) return tb_setError("dim %d: must be in 1..12", o->dim);
  for (int j = 0; j < o->dim; j++) {
    if (o->index[j] < 0 || o->index[j] > 11)
      return tb_setError("index[%d] = %d: must be in 0..11", j, o->index[j]);
  }
  return TB_OK;
}

tbPlateObj* tb_newPlateObj(const tbPlateObjOpt* o) {
  tb_clearError();
  if (tb_checkObjOpt(o) != TB_OK) return NULL;
  tbPlateObj* ob = (tbPlateObj*)calloc(1, sizeof(tbPlateObj));
  if (!ob) {
    tb_setError("out of memory");
    return NULL;
  }
  ob->o = *o;
  int K = o->nstart;
  ob->J = (int)floor(o->horizon / o->sample + 1e-9);
  ob->S = lround(o->sample / o->dt);
  if (ob->S < 1) ob->S = 1;
  // the velocity window: the whole plate periods that fit in a sample interval, on the step grid
  double P = 2.0 * TB_PI / o->omega;
  int periods = (int)floor(o->sample / P + 1e-9);
  ob->W = periods >= 1 ? lround(periods * P / o->dt) : ob->S;
  if (ob->W < 1) ob->W = 1;
  if (ob->W > ob->S) ob->W = ob->S;
  ob->start = (double*)malloc(sizeof(double) * 2 * (size_t)K);
  ob->want = (double*)malloc(sizeof(double) * 2 * (size_t)K * (size_t)ob->J);
  if (o->target == TB_PLATE_TARGET_TABLE) {
    ob->point = (double*)malloc(sizeof(double) * 4 * (size_t)o->npoint);
    if (ob->point) memcpy(ob->point, o->point, sizeof(double) * 4 * (size_t)o->npoint);
    ob->o.point = ob->point;
  } else {
    ob->o.point = NULL;
    ob->o.npoint = 0;
  }
  if (!ob->start || !ob->want || (o->target == TB_PLATE_TARGET_TABLE && !ob->point)) {
    tb_freePlateObj(ob);
    tb_setError("out of memory");
    return NULL;
  }
  tb_plateTargetStarts(&ob->o, ob->start);
  for (int k = 0; k < K; k++) {
    for (int j = 0; j < ob->J; j++) {
      double t = (double)(j + 1) * ob->S * o->dt;
      tb_targetPos(ob, ob->start[2 * k], ob->start[2 * k + 1], t,
                   ob->want + 2 * ((size_t)k * ob->J + j));
    }
  }
  tbBuild b = tb_defaultBuild(tb_findScene("plate-particle"));
  ob->m = tb_buildPlateScene(0, TB_DRIVER_PLATE, &b);
  if (!ob->m) {
    tb_freePlateObj(ob);
    return NULL;
  }
  for (int i = 0; i < 12; i++) ob->ip[i] = tb_findParam(ob->m, tb_pname[i]);
  ob->ix0 = tb_findParam(ob->m, "x0");
  ob->iy0 = tb_findParam(ob->m, "y0");
  ob->imu = tb_findParam(ob->m, "mu");
  ob->idt = tb_findParam(ob->m, "dt");
  ob->iomega = tb_findParam(ob->m, "omega");
  ob->plate = tb_findBody(ob->m, "plate");
  ob->part = tb_findBody(ob->m, "particle");
  return ob;
}

void tb_plateObjParams(const tbPlateObj* ob, const double* x, double* p12) {
  memcpy(p12, ob->o.base, sizeof(double) * 12);
  for (int j = 0; j < ob->o.dim; j++) p12[ob->o.index[j]] = x[j];
}

int tb_plateObjective(void* ctx, int n, const double* x, double* f) {
  tbPlateObj* ob = (tbPlateObj*)ctx;
  const tbModel* m = ob->m;
  int K = ob->o.nstart, ns = n * K, J = ob->J;
  long S = ob->S, W = ob->W;
  double win = (double)W * ob->o.dt;
  if (n <= 0) return 0;
  tbData* d = tb_newDataOn(m, ns, ob->o.device, ob->o.precision);
  double* cost = (double*)malloc(sizeof(double) * (size_t)ns);
  int rc = 0;
  if (!d || !cost) {
    tb_setError("out of memory for %d scenes", ns);
    rc = 1;
    goto done;
  }
  tb_defaultParams(m, d);
  for (int i = 0; i < n; i++) {
    double p12[12];
    tb_plateObjParams(ob, x + (size_t)i * ob->o.dim, p12);
    for (int k = 0; k < K; k++) {
      double* row = d->param + (size_t)(i * K + k) * m->nparam;
      for (int c = 0; c < 12; c++) row[ob->ip[c]] = p12[c];
      row[ob->iomega] = ob->o.omega;
      row[ob->imu] = ob->o.mu;
      row[ob->idt] = ob->o.dt;
      row[ob->ix0] = ob->start[2 * k];
      row[ob->iy0] = ob->start[2 * k + 1];
    }
  }
  if (tb_checkParams(m, d) != TB_OK || tb_resetData(m, d) != TB_OK) {
    rc = 1;
    goto done;
  }
  for (int s = 0; s < ns; s++) tb_placeOnPlate(m, d, s, ob->plate, ob->part, 0.0);
  tbProbe probe;
  memset(&probe, 0, sizeof(probe));
  probe.kind = TB_PROBE_COST;
  probe.part = ob->part;
  probe.nstart = K;
  probe.nwin = J;
  probe.S = (int)S;
  probe.W = (int)W;
  probe.win = win;
  probe.want = ob->want;
  probe.target = ob->o.target;
  probe.npoint = ob->o.npoint;
  probe.point = ob->point;
  probe.cost = cost;
  if (tb_rolloutProbe(m, d, 0, ns, J * (int)S, NULL, &probe) != TB_OK) {
    rc = 1;
    goto done;
  }
  for (int i = 0; i < n; i++) {
    double sum = 0.0;
    for (int k = 0; k < K; k++) sum += cost[i * K + k];
    f[i] = sum;
  }
done:
  tb_freeData(d);
  free(cost);
  return rc;
}

int tb_readPlateTable(const char* path, double** out, int* npoint) {
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  char line[1024];
  int n = 0, cap = 0, lineno = 0, first = 1;
  double* p = NULL;
  while (fgets(line, sizeof(line), f)) {
    lineno++;
    size_t len = strlen(line);
    if (len == 0 || (len == sizeof(line) - 1 && line[len - 1] != '\n' && !feof(f))) {
      // a NUL byte, or a line longer than any table's (/dev/zero was read forever)
      fclose(f);
      free(p);
      return tb_setError("%s:%d: not a text table (a NUL byte or a line over %zu bytes)", path,
                         lineno, sizeof(line) - 2);
    }
    char* s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '#' || *s == '\n' || *s == '\r' || !*s) continue;
    double v[4];
    char* e = s;
    int ok = 1;
    for (int c = 0; c < 4 && ok; c++) {
      char* q;
      v[c] = strtod(e, &q);
      if (q == e || !isfinite(v[c])) ok = 0;
      e = q;
      while (*e == ' ' || *e == '\t') e++;
      if (c < 3) {
        if (*e == ',') {
          e++;
        } else {
          ok = 0;
        }
      }
    }
    while (*e == ' ' || *e == '\t' || *e == '\r' || *e == '\n') e++;
    if (*e) ok = 0;
    if (!ok) {
      if (first) {
        first = 0;
        continue;
      }
      fclose(f);
      free(p);
      return tb_setError("%s:%d: expected x,y,vx,vy (m, m/s)", path, lineno);
    }
    first = 0;
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      double* q = (double*)realloc(p, sizeof(double) * 4 * (size_t)cap);
      if (!q) {
        fclose(f);
        free(p);
        tb_setError("%s: out of memory", path);
        return TB_ERR_MEMORY;
      }
      p = q;
    }
    memcpy(p + 4 * (size_t)n, v, sizeof(v));
    n++;
  }
  fclose(f);
  if (n == 0) {
    free(p);
    return tb_setError("%s: no x,y,vx,vy rows", path);
  }
  *out = p;
  *npoint = n;
  return TB_OK;
}
