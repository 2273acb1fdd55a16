// PNG of a particle filter's posterior over time, drawn with cairo (like plot.c's quiver plot).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cairo.h>

#include <tumble/estimate.h>

#include "jobs/outfile.h"
#include "plot/plot.h"

typedef struct tbPanel {
  double x, y, w, h;  // pixels
  double t0, t1;      // s
  double v0, v1;      // value range
} tbPanel;

static double tb_px(const tbPanel* p, double t) {
  return p->x + (t - p->t0) / (p->t1 - p->t0) * p->w;
}

static double tb_py(const tbPanel* p, double v) {
  return p->y + (p->v1 - v) / (p->v1 - p->v0) * p->h;
}

// frame, ticks and labels of a panel
static void tb_axes(cairo_t* cr, const tbPanel* p, const char* title, const char* ylabel) {
  char buf[64];
  cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
  cairo_rectangle(cr, p->x, p->y, p->w, p->h);
  cairo_fill(cr);
  cairo_set_font_size(cr, 11);
  double tick[TB_PLOT_MAXTICK];
  int nt = tb_plotTicks(p->t0, p->t1, 8, tick, TB_PLOT_MAXTICK);
  for (int i = 0; i < nt; i++) {
    double t = tick[i];
    double x = tb_px(p, t);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.08);
    cairo_move_to(cr, x, p->y);
    cairo_line_to(cr, x, p->y + p->h);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    snprintf(buf, sizeof(buf), "%g", t);
    tb_plotText(cr, x, p->y + p->h + 5, 0.5, 0.0, buf);
  }
  nt = tb_plotTicks(p->v0, p->v1, 5, tick, TB_PLOT_MAXTICK);
  for (int i = 0; i < nt; i++) {
    double v = tick[i];
    double y = tb_py(p, v);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.08);
    cairo_move_to(cr, p->x, y);
    cairo_line_to(cr, p->x + p->w, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    snprintf(buf, sizeof(buf), "%.6g", v);
    tb_plotText(cr, p->x - 6, y, 1.0, 0.5, buf);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_rectangle(cr, p->x, p->y, p->w, p->h);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 13);
  tb_plotText(cr, p->x + 0.5 * p->w, p->y - 8, 0.5, 1.0, title);
  cairo_save(cr);
  cairo_translate(cr, p->x - 80, p->y + 0.5 * p->h);
  cairo_rotate(cr, -M_PI / 2);
  tb_plotText(cr, 0, 0, 0.5, 0.5, ylabel);
  cairo_restore(cr);
}

// rows [r0, nrow) of parameter k: band, mean, truth
static void tb_posteriorPanel(cairo_t* cr, tbPanel* p, const tbObs* obs, const tbPFResult* res,
                              int k, int r0, double truth, const char* title, const char* name) {
  int P = res->nest, n = res->nrow;
  double lo = INFINITY, hi = -INFINITY;
  for (int r = r0; r < n; r++) {
    lo = fmin(lo, res->q05[(size_t)r * P + k]);
    hi = fmax(hi, res->q95[(size_t)r * P + k]);
  }
  if (isfinite(truth)) {
    lo = fmin(lo, truth);
    hi = fmax(hi, truth);
  }
  // a posterior collapsed to one value (or to a few ulps) still gets a readable range
  double pad = fmax(0.08 * (hi - lo), fmax(1e-12, 1e-6 * fabs(hi)));
  p->v0 = lo - pad;
  p->v1 = hi + pad;
  p->t0 = obs->t[r0];
  p->t1 = obs->t[n - 1] > p->t0 ? obs->t[n - 1] : p->t0 + 1.0;
  tb_axes(cr, p, title, name);
  cairo_save(cr);
  cairo_rectangle(cr, p->x, p->y, p->w, p->h);
  cairo_clip(cr);
  cairo_set_source_rgba(cr, 0.25, 0.45, 0.85, 0.3);
  for (int r = r0; r < n; r++) {
    double x = tb_px(p, obs->t[r]), y = tb_py(p, res->q95[(size_t)r * P + k]);
    if (r == r0) {
      cairo_move_to(cr, x, y);
    } else {
      cairo_line_to(cr, x, y);
    }
  }
  for (int r = n - 1; r >= r0; r--)
    cairo_line_to(cr, tb_px(p, obs->t[r]), tb_py(p, res->q05[(size_t)r * P + k]));
  cairo_close_path(cr);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, 0.1, 0.2, 0.6);
  cairo_set_line_width(cr, 2.0);
  for (int r = r0; r < n; r++) {
    double x = tb_px(p, obs->t[r]), y = tb_py(p, res->mean[(size_t)r * P + k]);
    if (r == r0) {
      cairo_move_to(cr, x, y);
    } else {
      cairo_line_to(cr, x, y);
    }
  }
  cairo_stroke(cr);
  if (isfinite(truth)) {
    const double dash[2] = {8.0, 5.0};
    cairo_set_dash(cr, dash, 2, 0.0);
    cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
    cairo_set_line_width(cr, 1.5);
    cairo_move_to(cr, p->x, tb_py(p, truth));
    cairo_line_to(cr, p->x + p->w, tb_py(p, truth));
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0.0);
  }
  cairo_restore(cr);
  cairo_set_line_width(cr, 1.0);
}

int tb_plotPosteriorTo(FILE* f, const tbModel* m, const tbPFOpt* opt, const tbObs* obs,
                       const tbPFResult* res, const double* truth) {
  int P = res->nest, n = res->nrow, panel_h = 200, gap = 70, top = 60;
  int width = 1100, height = top + P * (panel_h + gap) + 140 + 60;
  cairo_surface_t* sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_t* cr = cairo_create(sf);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_line_width(cr, 1.0);
  char title[160];
  cairo_set_font_size(cr, 15);
  cairo_set_source_rgb(cr, 0, 0, 0);
  snprintf(title, sizeof(title),
           "particle filter: %d particles, %s noise %g; mean (line), 5-95%% band, truth (dashed)",
           opt->nparticle, opt->noise.kind == TB_NOISE_UNIFORM ? "uniform" : "gaussian",
           opt->noise.scale);
  tb_plotText(cr, 0.5 * width, 22, 0.5, 0.5, title);
  int half = n / 2;
  for (int k = 0; k < P; k++) {
    const char* name = m->param[opt->param[k]].name;
    double tr = truth ? truth[k] : NAN;
    double y = top + k * (panel_h + gap);
    tbPanel a = {100, y, 430, panel_h, 0, 1, 0, 1}, b = {640, y, 430, panel_h, 0, 1, 0, 1};
    snprintf(title, sizeof(title), "%s over the whole run", name);
    tb_posteriorPanel(cr, &a, obs, res, k, 0, tr, title, name);
    snprintf(title, sizeof(title), "%s, second half (t >= %.3g s)", name, obs->t[half]);
    tb_posteriorPanel(cr, &b, obs, res, k, half, tr, title, name);
  }
  tbPanel e = {100, top + P * (panel_h + gap), 970, 140, obs->t[0], obs->t[n - 1], 0.0, 1.05};
  if (!(e.t1 > e.t0)) e.t1 = e.t0 + 1.0;
  tb_axes(cr, &e, "ESS / N after each observation (resampled below 0.5)", "ESS / N");
  cairo_set_source_rgb(cr, 0.1, 0.5, 0.2);
  cairo_set_line_width(cr, 1.5);
  for (int r = 0; r < n; r++) {
    double x = tb_px(&e, obs->t[r]), yy = tb_py(&e, res->ess[r] / opt->nparticle);
    if (r == 0) {
      cairo_move_to(cr, x, yy);
    } else {
      cairo_line_to(cr, x, yy);
    }
  }
  cairo_stroke(cr);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, 13);
  tb_plotText(cr, e.x + 0.5 * e.w, e.y + e.h + 24, 0.5, 0.0, "t (s)");
  return tb_plotFinishPng(cr, sf, f);
}

int tb_plotPosterior(const char* path, const tbModel* m, const tbPFOpt* opt, const tbObs* obs,
                     const tbPFResult* res, const double* truth) {
  tbOutFile out;
  if (tb_outOpen(&out, path) != TB_OK) return -1;
  if (tb_plotPosteriorTo(out.f, m, opt, obs, res, truth) != 0) {
    tb_outAbort(&out);
    return -1;
  }
  return tb_outCommit(&out) == TB_OK ? 0 : -1;
}
