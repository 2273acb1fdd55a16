// Designing plate motions (thesis ch. 6): the trajectory objective over a batch of plate-particle
// scenes, and `tumble plate optimize` (Nelder-Mead and CMA-ES from host/optimize.c).
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cairo.h>

#include <tumble/optimize.h>
#include <tumble/plate.h>
#include <tumble/tb_math.h>

#include "cli.h"
#include "plot.h"
#include "engine.h"

#define TB_AMP_BOUND 500.0
#define TB_PHASE_BOUND (4.0 * TB_PI)

static const char* const tb_pname[12] = {"A1", "A2", "A3", "A4", "A5", "A6",
                                         "C1", "C2", "C3", "C4", "C5", "C6"};

// wrap a phase into [-pi, pi) (the motion is 2 pi periodic in every C_i)
static double tb_wrapPhase(double c) {
  return c - 2.0 * TB_PI * floor((c + TB_PI) / (2.0 * TB_PI));
}

tbPlateObjOpt tb_defaultPlateObjOpt(int target, double* x0) {
  tbPlateObjOpt o;
  memset(&o, 0, sizeof(o));
  o.target = target;
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
  switch (ob->o.target) {
    case TB_PLATE_TARGET_CIRCLE:
      v[0] = -0.15 * y;
      v[1] = 0.15 * x;
      return;
    case TB_PLATE_TARGET_SADDLE:
      v[0] = -0.2 * x;
      v[1] = 0.2 * y;
      return;
    default: {
      int best = 0;
      double bd = INFINITY;
      for (int i = 0; i < ob->o.npoint; i++) {
        double dx = ob->point[4 * i] - x, dy = ob->point[4 * i + 1] - y, d2 = dx * dx + dy * dy;
        if (d2 < bd) {
          bd = d2;
          best = i;
        }
      }
      v[0] = ob->point[4 * best + 2];
      v[1] = ob->point[4 * best + 3];
    }
  }
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
  tbData* d = tb_newData(m, ns);
  double* cost = (double*)malloc(sizeof(double) * (size_t)ns);
  int rc = 0, work_fail = 0;
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
#pragma omp parallel
  {
    tbWork* w = tb_newWork(m);
    if (!w) {
#pragma omp atomic write
      work_fail = 1;
    }
#pragma omp for schedule(dynamic, 1)
    for (int s = 0; s < ns; s++) {
      if (!w) continue;
      const double* pos = d->body_pos + ((size_t)s * m->nbody + ob->part) * 3;
      const double* want = ob->want + 2 * (size_t)(s % K) * J;
      double c = 0.0, ax = 0.0, ay = 0.0;
      int j = 1;
      if (W == S) {
        ax = pos[0];
        ay = pos[1];
      }
      for (long k = 1; j <= J; k++) {
        tb_stepScene(m, d, s, w);
        if (d->status[s] & TB_SCENE_FAILMASK) {
          c = INFINITY;
          break;
        }
        if (k == (long)j * S) {
          double v[2], vs[2];
          v[0] = (pos[0] - ax) / win;
          v[1] = (pos[1] - ay) / win;
          tb_targetVel(ob, pos[0], pos[1], vs);
          c += hypot(pos[0] - want[2 * (j - 1)], pos[1] - want[2 * (j - 1) + 1]) +
               hypot(v[0] - vs[0], v[1] - vs[1]);
          j++;
        }
        if (j <= J && k == (long)j * S - W) {
          ax = pos[0];
          ay = pos[1];
        }
      }
      cost[s] = isfinite(c) ? c : INFINITY;
    }
    tb_freeWork(w);
  }
  if (work_fail) {
    tb_setError("out of memory for the step scratch");
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

//---- `tumble plate optimize` -------------------------------------------------------------------

typedef struct tbOptRun {
  const char* name;  // "nelder-mead" or "cmaes"
  tbPlateObj* ob;
  tbOptimTrace* hist;
  int nhist, cap, oom;
  double last_print;
  int tty;
  double x[12];
  tbOptimResult res;
  double best;  // min(res.f, the start's value)
  int rc;
} tbOptRun;

static int tb_runObjective(void* ctx, int n, const double* x, double* f) {
  return tb_plateObjective(((tbOptRun*)ctx)->ob, n, x, f);
}

static void tb_runProgress(void* ctx, int iter, int evals, double best, double seconds) {
  tbOptRun* r = (tbOptRun*)ctx;
  if (r->nhist == r->cap && !r->oom) {
    int cap = r->cap ? 2 * r->cap : 256;
    tbOptimTrace* h = (tbOptimTrace*)realloc(r->hist, sizeof(tbOptimTrace) * (size_t)cap);
    if (h) {
      r->hist = h;
      r->cap = cap;
    } else {
      r->oom = 1;
    }
  }
  if (r->nhist < r->cap) {
    tbOptimTrace t = {iter, evals, best, seconds};
    r->hist[r->nhist++] = t;
  }
  if (seconds - r->last_print >= (r->tty ? 0.5 : 5.0) || iter == 0) {
    r->last_print = seconds;
    fprintf(stderr,
            "%stumble: plate optimize: %s: iteration %d, %d evaluations, best %.6g (%.4g cm)"
            ", %.3g evaluations/s, %.1f s%s",
            r->tty ? "\r" : "", r->name, iter, evals, best, 100.0 * best,
            seconds > 0 ? evals / seconds : 0.0, seconds, r->tty ? "   " : "\n");
    fflush(stderr);
  }
}

static const char* tb_stopName(int reason) {
  switch (reason) {
    case TB_OPTIM_CONVERGED:
      return "converged";
    case TB_OPTIM_MAXEVALS:
      return "evaluations";
    case TB_OPTIM_TIME:
      return "time";
    case TB_OPTIM_ABORTED:
      return "aborted";
    case TB_OPTIM_MAXITER:
      return "iterations";
    case TB_OPTIM_STALLED:
      return "stalled";
    default:
      return "error";
  }
}

// objective (cm units, log scale) against wall time, one line per run
static int tb_plotHistory(const char* path, const char* title, const tbOptRun* run, int nrun) {
  const int width = 900, height = 600;
  double left = 90, right = 30, top = 50, bottom = 70;
  double pw = width - left - right, ph = height - top - bottom;
  double tmax = 0.0, flo = INFINITY, fhi = -INFINITY;
  for (int r = 0; r < nrun; r++) {
    for (int i = 0; i < run[r].nhist; i++) {
      double f = 100.0 * run[r].hist[i].best;
      if (!(f > 0.0) || !isfinite(f)) continue;
      tmax = fmax(tmax, run[r].hist[i].seconds);
      flo = fmin(flo, f);
      fhi = fmax(fhi, f);
    }
  }
  if (!(tmax > 0.0)) tmax = 1.0;
  if (!isfinite(flo)) flo = fhi = 1.0;
  double l0 = floor(log10(flo)), l1 = ceil(log10(fhi));
  if (l1 <= l0) l1 = l0 + 1.0;
  cairo_surface_t* sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_t* cr = cairo_create(sf);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
#define TB_HX(t) (left + (t) / tmax * pw)
#define TB_HY(f) (top + (l1 - log10(f)) / (l1 - l0) * ph)
  char buf[64];
  cairo_set_font_size(cr, 12);
  cairo_set_line_width(cr, 1);
  for (double e = l0; e <= l1 + 1e-9; e += 1.0) {
    double y = TB_HY(pow(10.0, e));
    cairo_set_source_rgba(cr, 0, 0, 0, 0.1);
    cairo_move_to(cr, left, y);
    cairo_line_to(cr, left + pw, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    snprintf(buf, sizeof(buf), "%g", pow(10.0, e));
    tb_plotText(cr, left - 8, y, 1.0, 0.5, buf);
  }
  double step = tb_plotNiceStep(tmax, 8);
  for (double t = 0.0; t <= tmax * (1 + 1e-9); t += step) {
    double x = TB_HX(t);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.1);
    cairo_move_to(cr, x, top);
    cairo_line_to(cr, x, top + ph);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    snprintf(buf, sizeof(buf), "%g", t);
    tb_plotText(cr, x, top + ph + 8, 0.5, 0.0, buf);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1.5);
  cairo_rectangle(cr, left, top, pw, ph);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 14);
  tb_plotText(cr, left + 0.5 * pw, height - 20, 0.5, 1.0, "wall time (s)");
  cairo_save(cr);
  cairo_translate(cr, 30, top + 0.5 * ph);
  cairo_rotate(cr, -TB_PI / 2);
  tb_plotText(cr, 0, 0, 0.5, 0.5, "best objective (cm units: 100 x the SI value)");
  cairo_restore(cr);
  cairo_set_font_size(cr, 16);
  cairo_move_to(cr, left, 0.6 * top);
  cairo_show_text(cr, title);
  static const double col[2][3] = {{0.12, 0.47, 0.71}, {0.85, 0.37, 0.0}};
  cairo_save(cr);
  cairo_rectangle(cr, left, top, pw, ph);
  cairo_clip(cr);
  cairo_set_line_width(cr, 2.0);
  for (int r = 0; r < nrun; r++) {
    cairo_set_source_rgb(cr, col[r % 2][0], col[r % 2][1], col[r % 2][2]);
    int started = 0;
    double prev = 0.0;
    for (int i = 0; i < run[r].nhist; i++) {
      double f = 100.0 * run[r].hist[i].best;
      if (!(f > 0.0) || !isfinite(f)) continue;
      double x = TB_HX(run[r].hist[i].seconds), y = TB_HY(f);
      if (!started) {
        cairo_move_to(cr, x, y);
        started = 1;
      } else {
        cairo_line_to(cr, x, prev);  // the best so far is a staircase
        cairo_line_to(cr, x, y);
      }
      prev = y;
    }
    cairo_stroke(cr);
  }
  cairo_restore(cr);
  cairo_set_font_size(cr, 13);
  for (int r = 0; r < nrun; r++) {
    double y = top + 20 + 20 * r, x = left + pw - 220;
    cairo_set_source_rgb(cr, col[r % 2][0], col[r % 2][1], col[r % 2][2]);
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x + 30, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    snprintf(buf, sizeof(buf), "%s: %.4g (cm units)", run[r].name, 100.0 * run[r].best);
    cairo_move_to(cr, x + 38, y + 4);
    cairo_show_text(cr, buf);
  }
#undef TB_HX
#undef TB_HY
  return tb_plotFinishPng(cr, sf, path);
}

// a table target: rows x,y,vx,vy (m, m/s); blank lines and '#' comments skipped, a first line
// that is not four numbers is a header. 0, 1 when the file cannot be opened, 2 after an error
static int tb_readTable(const char* path, double** out, int* npoint) {
  FILE* f = fopen(path, "r");
  if (!f) return 1;
  char line[1024];
  int n = 0, cap = 0, lineno = 0, first = 1;
  double* p = NULL;
  while (fgets(line, sizeof(line), f)) {
    lineno++;
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
      return tb_cliError("--target %s:%d: expected x,y,vx,vy (m, m/s)", path, lineno);
    }
    first = 0;
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      double* q = (double*)realloc(p, sizeof(double) * 4 * (size_t)cap);
      if (!q) {
        fclose(f);
        free(p);
        return tb_cliError("--target %s: out of memory", path);
      }
      p = q;
    }
    memcpy(p + 4 * (size_t)n, v, sizeof(v));
    n++;
  }
  fclose(f);
  if (n == 0) {
    free(p);
    return tb_cliError("--target %s: no x,y,vx,vy rows", path);
  }
  *out = p;
  *npoint = n;
  return 0;
}

typedef struct tbOptArgs {
  const char* target;
  int target_kind;
  int nm, cma;  // which optimizers
  const char* optimizer;
  int starts;
  double budget;
  long evals;
  double dt, horizon, mu;
  const char* out;
  double* table;
  int npoint;
} tbOptArgs;

static int tb_parseOptimize(int argc, char** argv, tbOptArgs* a) {
  memset(a, 0, sizeof(*a));
  a->optimizer = "nelder-mead";
  a->nm = 1;
  a->starts = 4;
  a->budget = 60.0;
  a->evals = 100000;
  a->dt = 5e-4;
  a->horizon = 6.0;
  a->mu = 0.5;
  a->out = "plate-optimize";
  for (int i = 0; i < argc; i++) {
    const char* arg = argv[i];
    const char* val = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = 0;
    if (!val) return tb_cliError("%s needs a value", arg);
    i++;
    if (!strcmp(arg, "--target")) {
      a->target = val;
    } else if (!strcmp(arg, "--optimizer")) {
      if (!strcmp(val, "nelder-mead")) {
        a->nm = 1;
        a->cma = 0;
      } else if (!strcmp(val, "cmaes")) {
        a->nm = 0;
        a->cma = 1;
      } else if (!strcmp(val, "both")) {
        a->nm = a->cma = 1;
      } else {
        return tb_cliError("--optimizer %s: expected nelder-mead, cmaes or both", val);
      }
      a->optimizer = val;
    } else if (!strcmp(arg, "--starts")) {
      long k;
      rc = tb_parseInt(arg, val, 1, 4096, &k);
      a->starts = (int)k;
    } else if (!strcmp(arg, "--budget")) {
      rc = tb_parseNumber(arg, val, &a->budget);
      if (!rc && !(a->budget > 0.0 && a->budget <= 1e6))
        return tb_cliError("--budget %s: must be in (0, 1e6] (s)", val);
    } else if (!strcmp(arg, "--evals")) {
      rc = tb_parseInt(arg, val, 1, 100000000, &a->evals);
    } else if (!strcmp(arg, "--dt")) {
      rc = tb_parseNumber(arg, val, &a->dt);
      if (!rc && !(a->dt > 0.0 && a->dt <= 0.25))
        return tb_cliError("--dt %s: must be in (0, 0.25] (s)", val);
    } else if (!strcmp(arg, "--horizon")) {
      rc = tb_parseNumber(arg, val, &a->horizon);
      if (!rc && !(a->horizon >= 0.25 && a->horizon <= 1e4))
        return tb_cliError("--horizon %s: must be in [0.25, 1e4] (s, one sample every 0.25 s)",
                           val);
    } else if (!strcmp(arg, "--mu")) {
      rc = tb_parseNumber(arg, val, &a->mu);
      if (!rc && !(a->mu >= 0.0 && a->mu <= 1e3))
        return tb_cliError("--mu %s: must be in [0, 1000]", val);
    } else {
      rc = tb_parseBatchOption("plate optimize", arg, val, &a->out);
      if (rc < 0) return tb_cliError("unknown option '%s'", arg);
    }
    if (rc) return rc;
  }
  if (!a->target) return tb_cliError("--target: required (circle, saddle or a CSV file)");
  if (!strcmp(a->target, "circle")) {
    a->target_kind = TB_PLATE_TARGET_CIRCLE;
  } else if (!strcmp(a->target, "saddle")) {
    a->target_kind = TB_PLATE_TARGET_SADDLE;
  } else {
    a->target_kind = TB_PLATE_TARGET_TABLE;
    int rc = tb_readTable(a->target, &a->table, &a->npoint);
    if (rc == 1) {
      return tb_cliError("--target %s: unknown target (circle, saddle, or a readable CSV file)",
                         a->target);
    }
    if (rc) return rc;
  }
  return 0;
}

static void tb_jsonNumber(char* buf, size_t len, double v) {
  if (isfinite(v)) {
    snprintf(buf, len, "%.10g", v);
  } else {
    snprintf(buf, len, "null");
  }
}

static int tb_writeHistoryCSV(const char* path, const tbOptRun* r) {
  FILE* f = fopen(path, "w");
  if (!f) return tb_cliError("--out %s: cannot open for writing", path);
  fprintf(f, "iteration,evaluations,seconds,best,best_cm\n");
  for (int i = 0; i < r->nhist; i++) {
    const tbOptimTrace* t = &r->hist[i];
    fprintf(f, "%d,%d,%.6f,%.17g,%.17g\n", t->iter, t->evals, t->seconds, t->best, 100.0 * t->best);
  }
  if (fclose(f) != 0) return tb_cliError("--out %s: write failed", path);
  return 0;
}

int tb_plateOptimizeMain(int argc, char** argv) {
  tbOptArgs a;
  int rc = tb_parseOptimize(argc, argv, &a);
  if (rc) {
    free(a.table);
    return rc;
  }
  double x0[12];
  tbPlateObjOpt oo = tb_defaultPlateObjOpt(a.target_kind, x0);
  oo.nstart = a.starts;
  oo.horizon = a.horizon;
  oo.dt = a.dt;
  oo.mu = a.mu;
  oo.point = a.table;
  oo.npoint = a.npoint;
  tbPlateObj* ob = tb_newPlateObj(&oo);
  free(a.table);
  a.table = NULL;
  if (!ob) return tb_cliError("%s", tb_lastError());
  const tbPlateObjOpt* o = tb_plateObjOpt(ob);
  int dim = o->dim;
  double lo[12], hi[12], step[12], start_f;
  for (int j = 0; j < dim; j++) {
    int c = o->index[j];
    int phase = c >= 6, angular = c >= 3 && c < 6;
    lo[j] = phase ? -TB_PHASE_BOUND : -TB_AMP_BOUND;
    hi[j] = -lo[j];
    step[j] = phase ? 0.5 : fmax(0.1 * fabs(x0[j]), angular ? 10.0 : 1.0);
  }
  tbOptRun run[2];
  int nrun = 0;
  memset(run, 0, sizeof(run));
  if (a.nm) run[nrun++].name = "nelder-mead";
  if (a.cma) run[nrun++].name = "cmaes";
  int tty = isatty(fileno(stderr));
  if (tb_plateObjective(ob, 1, x0, &start_f)) {
    tb_freePlateObj(ob);
    return tb_cliError("%s", tb_lastError());
  }
  fprintf(stderr,
          "tumble: plate optimize: target %s, %d parameters, %d starts, horizon %g s, "
          "h %g s: start objective %.6g (%.4g cm)\n",
          a.target, dim, o->nstart, o->horizon, o->dt, start_f, 100.0 * start_f);
  int ibest = -1;
  for (int r = 0; r < nrun; r++) {
    tbOptRun* R = &run[r];
    R->ob = ob;
    R->tty = tty;
    R->last_print = -1e9;
    tbOptimDef def = tb_defaultOptimDef(dim);
    def.x0 = x0;
    def.step = step;
    def.lo = lo;
    def.hi = hi;
    def.max_evals = (int)a.evals;
    def.max_seconds = a.budget;
    def.progress = tb_runProgress;
    int st = !strcmp(R->name, "cmaes") ? tb_cmaes(&def, tb_runObjective, R, R->x, &R->res)
                                       : tb_nelderMead(&def, tb_runObjective, R, R->x, &R->res);
    if (tty) fputc('\n', stderr);
    if (st < 0 || st == TB_OPTIM_ABORTED) {
      for (int q = 0; q < nrun; q++) free(run[q].hist);
      tb_freePlateObj(ob);
      return tb_cliError(
          "%s: %s", R->name,
          st == TB_OPTIM_ABORTED ? tb_lastError() : "bad definition or out of memory");
    }
    R->best = R->res.f;
    if (!(R->res.f <= start_f)) {  // the start is kept when nothing evaluated beat it
      R->best = start_f;
      memcpy(R->x, x0, sizeof(double) * (size_t)dim);
    }
    fprintf(stderr,
            "tumble: plate optimize: %s: stopped (%s) after %d iterations, %d evaluations, "
            "%.1f s: best %.6g (%.4g cm)\n",
            R->name, tb_stopName(R->res.reason), R->res.iterations, R->res.evaluations,
            R->res.seconds, R->best, 100.0 * R->best);
    if (ibest < 0 || R->best < run[ibest].best) ibest = r;
  }
  const tbOptRun* B = &run[ibest];
  double p12[12];
  tb_plateObjParams(ob, B->x, p12);

  // outputs
  size_t len = strlen(a.out) + 32;
  char* path = (char*)malloc(len);
  char title[160];
  tbFieldResult fr;
  memset(&fr, 0, sizeof(fr));
  if (!path) {
    rc = tb_cliError("out of memory");
    goto done;
  }
  for (int r = 0; r < nrun; r++) {
    snprintf(path, len, "%s-%s.csv", a.out, run[r].name);
    if ((rc = tb_writeHistoryCSV(path, &run[r]))) goto done;
  }
  snprintf(path, len, "%s.png", a.out);
  snprintf(title, sizeof(title), "plate optimize: %s, %d starts, %g s, h %g s", a.target, o->nstart,
           o->horizon, o->dt);
  if (tb_plotHistory(path, title, run, nrun)) {
    rc = tb_cliError("--out %s: cannot write the PNG", path);
    goto done;
  }
  snprintf(path, len, "%s-best.csv", a.out);
  FILE* f = fopen(path, "w");
  if (!f) {
    rc = tb_cliError("--out %s: cannot open for writing", path);
    goto done;
  }
  fprintf(f, "name,value\n");
  for (int c = 0; c < 12; c++) fprintf(f, "%s,%.17g\n", tb_pname[c], p12[c]);
  fprintf(f, "omega,%.17g\nobjective,%.17g\nobjective_cm,%.17g\n", o->omega, B->best,
          100.0 * B->best);
  if (fclose(f) != 0) {
    rc = tb_cliError("--out %s: write failed", path);
    goto done;
  }
  // the field of the best motion
  tbPlateMotion mo;
  memset(&mo, 0, sizeof(mo));
  char mname[64];
  snprintf(mname, sizeof(mname), "optimized (%s)",
           a.target_kind == TB_PLATE_TARGET_TABLE ? "table" : a.target);
  mo.name = mname;
  mo.doc = "";
  mo.driver = TB_DRIVER_PLATE;
  memcpy(mo.amp, p12, sizeof(mo.amp));
  memcpy(mo.phase, p12 + 6, sizeof(mo.phase));
  mo.omega = o->omega;
  tbFieldOpt fo = tb_defaultFieldOpt();
  fo.nx = fo.ny = 9;
  fo.extent = 0.05;
  if (a.target_kind == TB_PLATE_TARGET_CIRCLE) fo.extent = 0.08;
  if (a.target_kind == TB_PLATE_TARGET_TABLE) {
    double e = 0.0;
    for (int i = 0; i < o->npoint; i++) {
      e = fmax(e, fmax(fabs(o->point[4 * i]), fabs(o->point[4 * i + 1])));
    }
    if (e > 0.0) fo.extent = e;
  }
  fo.seconds = o->horizon;
  fo.dt = o->dt;
  fo.mu = o->mu;
  fo.progress = 1;
  if (tb_plateField(&mo, &fo, &fr) != TB_OK) {
    rc = tb_cliError("%s", tb_lastError());
    goto done;
  }
  snprintf(path, len, "%s-field", a.out);
  if ((rc = tb_plateWriteField(path, &mo, 0, &fo, &fr))) goto done;

  // the summary
  {
    char num[4][40];
    tb_jsonNumber(num[0], sizeof(num[0]), B->best);
    tb_jsonNumber(num[1], sizeof(num[1]), 100.0 * B->best);
    tb_jsonNumber(num[2], sizeof(num[2]), start_f);
    tb_jsonNumber(num[3], sizeof(num[3]), 100.0 * start_f);
    int iters = 0, evals = 0;
    double secs = 0.0;
    for (int r = 0; r < nrun; r++) {
      iters += run[r].res.iterations;
      evals += run[r].res.evaluations;
      secs += run[r].res.seconds;
    }
    printf(
        "{\"target\": \"%s\", \"optimizer\": \"%s\", \"best_optimizer\": \"%s\", \"best\": %s, "
        "\"best_cm\": %s, \"start\": %s, \"start_cm\": %s, \"iterations\": %d, "
        "\"evaluations\": %d, \"seconds\": %.3f, \"starts\": %d, \"horizon\": %g, \"dt\": %g, "
        "\"mu\": %g, \"threads\": %d, \"runs\": {",
        a.target, a.optimizer, B->name, num[0], num[1], num[2], num[3], iters, evals, secs,
        o->nstart, o->horizon, o->dt, o->mu, omp_get_max_threads());
    for (int r = 0; r < nrun; r++) {
      tb_jsonNumber(num[0], sizeof(num[0]), run[r].best);
      tb_jsonNumber(num[1], sizeof(num[1]), 100.0 * run[r].best);
      printf(
          "%s\"%s\": {\"best\": %s, \"best_cm\": %s, \"iterations\": %d, \"evaluations\": %d, "
          "\"seconds\": %.3f, \"stop\": \"%s\"}",
          r ? ", " : "", run[r].name, num[0], num[1], run[r].res.iterations, run[r].res.evaluations,
          run[r].res.seconds, tb_stopName(run[r].res.reason));
    }
    printf("}, \"params\": {");
    for (int c = 0; c < 12; c++) printf("%s\"%s\": %.10g", c ? ", " : "", tb_pname[c], p12[c]);
    printf("}, \"prefix\": \"%s\"}\n", a.out);
  }
done:
  tb_freeFieldResult(&fr);
  free(path);
  for (int r = 0; r < nrun; r++) free(run[r].hist);
  tb_freePlateObj(ob);
  return rc;
}
