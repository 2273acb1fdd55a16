// PNG plots with cairo: the quiver plot of a plate velocity field and the heat map of a sweep.
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include <cairo.h>

#include "plot/plot.h"

// viridis, sampled at 0, 0.25, 0.5, 0.75, 1
static void tb_colormap(double s, double rgb[3]) {
  static const double c[5][3] = {{0.267, 0.005, 0.329},
                                 {0.230, 0.322, 0.546},
                                 {0.128, 0.567, 0.551},
                                 {0.369, 0.789, 0.383},
                                 {0.993, 0.906, 0.144}};
  if (!(s >= 0.0)) s = 0.0;
  if (s > 1.0) s = 1.0;
  double f = s * 4.0;
  int i = (int)f;
  if (i > 3) i = 3;
  f -= i;
  for (int k = 0; k < 3; k++) rgb[k] = c[i][k] + f * (c[i + 1][k] - c[i][k]);
}

// a tick step of 1, 2 or 5 times a power of ten giving about `want` ticks over `range`
double tb_plotNiceStep(double range, int want) {
  double raw = range / want, p = pow(10.0, floor(log10(raw)));
  double m = raw / p;
  return (m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0) * p;
}

int tb_plotTicks(double lo, double hi, int want, double* tick, int max) {
  double step = tb_plotNiceStep(hi - lo, want);
  int n = 0;
  if (!(step > 0.0) || !isfinite(step)) return 0;
  // whole multiples of the step, counted: a step below one ulp of lo (a range that collapsed to
  // one value) leaves t + step == t, and a loop on t would never end
  for (double k = ceil(lo / step); n < max && k * step <= hi + 1e-9 * step; k += 1.0) {
    double t = k * step;
    if (n > 0 && !(t > tick[n - 1])) break;
    tick[n++] = fabs(t) < 1e-9 * step ? 0.0 : t;
  }
  return n;
}

void tb_plotText(cairo_t* cr, double x, double y, double ax, double ay, const char* s) {
  cairo_text_extents_t te;
  cairo_text_extents(cr, s, &te);
  cairo_move_to(cr, x - ax * te.width - te.x_bearing, y - ay * te.height - te.y_bearing);
  cairo_show_text(cr, s);
}

// the colour map as a framed vertical strip, 1 at the top
static void tb_colorbarStrip(cairo_t* cr, double bx, double by, double bw, double bh) {
  for (int k = 0; k < (int)bh; k++) {
    double rgb[3];
    tb_colormap(1.0 - k / bh, rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_rectangle(cr, bx, by + k, bw, 1.2);
    cairo_fill(cr);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, bx, by, bw, bh);
  cairo_stroke(cr);
}

// the x label under and the y label (turned) left of the plot area (left, top, W x H)
static void tb_axisLabels(cairo_t* cr, double left, double top, double W, double H,
                          const char* xlabel, const char* ylabel) {
  cairo_set_font_size(cr, 14);
  tb_plotText(cr, left + 0.5 * W, top + H + 32, 0.5, 0.0, xlabel);
  cairo_save(cr);
  cairo_translate(cr, left - 50, top + 0.5 * H);
  cairo_rotate(cr, -M_PI / 2);
  tb_plotText(cr, 0, 0, 0.5, 0.5, ylabel);
  cairo_restore(cr);
}

static cairo_status_t tb_pngWrite(void* f, const unsigned char* data, unsigned int n) {
  return fwrite(data, 1, n, (FILE*)f) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int tb_plotFinishPng(cairo_t* cr, cairo_surface_t* sf, FILE* f) {
  cairo_destroy(cr);
  cairo_surface_flush(sf);
  cairo_status_t st = cairo_surface_write_to_png_stream(sf, tb_pngWrite, f);
  cairo_surface_destroy(sf);
  return st == CAIRO_STATUS_SUCCESS ? 0 : -1;
}

void tb_plotArrow(cairo_t* cr, double x0, double y0, double x1, double y1, double head) {
  double dx = x1 - x0, dy = y1 - y0, L = sqrt(dx * dx + dy * dy);
  if (!(L > 0.5)) {
    cairo_arc(cr, x0 + 0.5 * dx, y0 + 0.5 * dy, 1.5, 0, 2 * M_PI);
    cairo_fill(cr);
    return;
  }
  double ux = dx / L, uy = dy / L, hl = head < 0.4 * L ? head : 0.4 * L, hw = 0.5 * hl;
  cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1 - ux * hl, y1 - uy * hl);
  cairo_stroke(cr);
  cairo_move_to(cr, x1, y1);
  cairo_line_to(cr, x1 - ux * hl - uy * hw, y1 - uy * hl + ux * hw);
  cairo_line_to(cr, x1 - ux * hl + uy * hw, y1 - uy * hl - ux * hw);
  cairo_close_path(cr);
  cairo_fill(cr);
}

int tb_plotQuiver(FILE* f, const tbQuiver* q, int width, int height) {
  cairo_surface_t* sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_t* cr = cairo_create(sf);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

  double left = 80, top = 50, bottom = 70, right = 150;
  double S = fmin(width - left - right, height - top - bottom);
  double E = q->extent + q->pad;
#define TB_PX(x) (left + ((x) + E) / (2.0 * E) * S)
#define TB_PY(y) (top + (E - (y)) / (2.0 * E) * S)

  // speeds and the arrow scale
  double vmax = 0.0;
  for (int i = 0; i < q->n; i++) {
    double s = sqrt(q->u[i] * q->u[i] + q->v[i] * q->v[i]);
    if (s > vmax) vmax = s;
  }
  double scale = vmax > 0.0 ? q->arrow / vmax : 0.0;  // m per m/s

  // frame, plate square, grid ticks in cm
  cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
  cairo_rectangle(cr, left, top, S, S);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, 0.88, 0.9, 0.95);
  cairo_rectangle(cr, TB_PX(-q->extent), TB_PY(q->extent), TB_PX(q->extent) - TB_PX(-q->extent),
                  TB_PY(-q->extent) - TB_PY(q->extent));
  cairo_fill(cr);
  cairo_set_font_size(cr, 12);
  double Ecm = E * 100.0, tick[TB_PLOT_MAXTICK];
  char buf[64];
  int nt = tb_plotTicks(-Ecm, Ecm, 8, tick, TB_PLOT_MAXTICK);
  for (int i = 0; i < nt; i++) {
    double t = tick[i];
    double x = TB_PX(t / 100.0), y = TB_PY(t / 100.0);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.08);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, x, top);
    cairo_line_to(cr, x, top + S);
    cairo_move_to(cr, left, y);
    cairo_line_to(cr, left + S, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, x, top + S);
    cairo_line_to(cr, x, top + S + 5);
    cairo_move_to(cr, left - 5, y);
    cairo_line_to(cr, left, y);
    cairo_stroke(cr);
    snprintf(buf, sizeof(buf), "%g", fabs(t) < 1e-9 ? 0.0 : t);
    tb_plotText(cr, x, top + S + 8, 0.5, 0.0, buf);
    tb_plotText(cr, left - 8, y, 1.0, 0.5, buf);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1.5);
  cairo_rectangle(cr, left, top, S, S);
  cairo_stroke(cr);
  cairo_set_line_width(cr, 1.0);
  cairo_set_source_rgb(cr, 0.3, 0.35, 0.5);
  cairo_rectangle(cr, TB_PX(-q->extent), TB_PY(q->extent), TB_PX(q->extent) - TB_PX(-q->extent),
                  TB_PY(-q->extent) - TB_PY(q->extent));
  cairo_stroke(cr);
  cairo_set_source_rgb(cr, 0, 0, 0);
  tb_axisLabels(cr, left, top, S, S, "x (cm)", "y (cm)");
  cairo_set_font_size(cr, 16);
  tb_plotText(cr, left + 0.5 * S, 0.5 * top, 0.5, 0.5, q->title ? q->title : "");

  // markers and arrows, clipped to the frame
  cairo_save(cr);
  cairo_rectangle(cr, left, top, S, S);
  cairo_clip(cr);
  if (q->mark) {
    cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
    cairo_set_line_width(cr, 1.5);
    for (int i = 0; i < q->n; i++) {
      if (!q->mark[i]) continue;
      cairo_new_sub_path(cr);
      cairo_arc(cr, TB_PX(q->mx[i]), TB_PY(q->my[i]), 5, 0, 2 * M_PI);
      cairo_stroke(cr);
    }
  }
  cairo_set_line_width(cr, 2.0);
  for (int i = 0; i < q->n; i++) {
    double s = sqrt(q->u[i] * q->u[i] + q->v[i] * q->v[i]);
    if (!isfinite(s) || !isfinite(q->x[i]) || !isfinite(q->y[i])) continue;
    double rgb[3];
    tb_colormap(vmax > 0 ? s / vmax : 0.0, rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    double hx = 0.5 * scale * q->u[i], hy = 0.5 * scale * q->v[i];
    tb_plotArrow(cr, TB_PX(q->x[i] - hx), TB_PY(q->y[i] - hy), TB_PX(q->x[i] + hx),
                 TB_PY(q->y[i] + hy), 9.0);
  }
  cairo_restore(cr);

  // colour bar: speed in cm/s
  double bx = left + S + 30, bw = 18, bh = S * 0.8, by = top + 0.1 * S;
  tb_colorbarStrip(cr, bx, by, bw, bh);
  cairo_set_font_size(cr, 12);
  double vcm = vmax * 100.0;
  if (vcm > 0) {
    nt = tb_plotTicks(0.0, vcm, 5, tick, TB_PLOT_MAXTICK);
    for (int i = 0; i < nt; i++) {
      double t = tick[i];
      double y = by + bh * (1.0 - t / vcm);
      cairo_move_to(cr, bx + bw, y);
      cairo_line_to(cr, bx + bw + 4, y);
      cairo_stroke(cr);
      snprintf(buf, sizeof(buf), "%g", t);
      tb_plotText(cr, bx + bw + 7, y, 0.0, 0.5, buf);
    }
  }
  tb_plotText(cr, bx, by - 12, 0.0, 0.5, "speed (cm/s)");
  if (q->mark && q->mark_label) {
    double ly = by + bh + 25;
    cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
    cairo_set_line_width(cr, 1.5);
    cairo_new_sub_path(cr);
    cairo_arc(cr, bx + 5, ly, 5, 0, 2 * M_PI);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    tb_plotText(cr, bx + 16, ly, 0.0, 0.5, q->mark_label);
  }
#undef TB_PX
#undef TB_PY

  return tb_plotFinishPng(cr, sf, f);
}

//---- heat map ----------------------------------------------------------------------------------

// spacing of the cell centres along one axis; a single-cell axis borrows the other axis'
// spacing, else its extent, else `fallback`
static double tb_cellSize(int n, double extent, int n2, double extent2, double fallback) {
  if (n > 1) return extent / (n - 1);
  if (n2 > 1) return extent2 / (n2 - 1);
  if (extent > 0.0) return extent;
  return fallback;
}

int tb_plotHeatmap(FILE* f, const tbHeatmap* h, int width, int height) {
  const tbSweepGrid* g = h->grid;
  if (!g || g->nx < 1 || g->ny < 1 || width < 300 || height < 200) return -1;
  int ncell = g->nx * g->ny, nvert = 0;
  for (int i = 0; i < h->npoly; i++) nvert += h->poly_n[i];

  // the view: the grid with half a cell around it and every outline, 5% margin
  double ox = 0.0, oy = 0.0;
  for (int i = 0; i < nvert; i++) {
    ox = fmax(ox, fabs(h->poly_xy[2 * i]));
    oy = fmax(oy, fabs(h->poly_xy[2 * i + 1]));
  }
  double fall = fmax(fmax(ox, oy), 1e-3) * 0.5;
  double cw = tb_cellSize(g->nx, g->extent_x, g->ny, g->extent_y, fall);
  double ch = tb_cellSize(g->ny, g->extent_y, g->nx, g->extent_x, fall);
  // the view stays centred on the origin (the part); a grid centred elsewhere widens it
  double gx = fabs(g->center_x) + 0.5 * (g->extent_x + cw);
  double gy = fabs(g->center_y) + 0.5 * (g->extent_y + ch);
  double Vx = h->view_x > 0.0 ? h->view_x : 1.05 * fmax(gx, ox);
  double Vy = h->view_y > 0.0 ? h->view_y : 1.05 * fmax(gy, oy);

  cairo_surface_t* sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_t* cr = cairo_create(sf);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

  double left = 80, top = 50, bottom = 70, right = 170;
  double s = fmin((width - left - right) / (2.0 * Vx), (height - top - bottom) / (2.0 * Vy));
  double W = 2.0 * Vx * s, H = 2.0 * Vy * s;
#define TB_PX(x) (left + ((x) + Vx) * s)
#define TB_PY(y) (top + (Vy - (y)) * s)

  // background, then the cells (NaN: grey, hatched)
  cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
  cairo_rectangle(cr, left, top, W, H);
  cairo_fill(cr);
  cairo_save(cr);
  cairo_rectangle(cr, left, top, W, H);
  cairo_clip(cr);
  int any_nan = 0;
  for (int c = 0; c < ncell; c++) {
    double xy[2];
    tb_sweepOffset(g, c, xy);
    double x0 = TB_PX(xy[0] - 0.5 * cw), y0 = TB_PY(xy[1] + 0.5 * ch);
    double w = cw * s, hh = ch * s;
    double v = h->value[c];
    if (isnan(v)) {
      any_nan = 1;
      cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
      cairo_rectangle(cr, x0, y0, w + 0.5, hh + 0.5);
      cairo_fill(cr);
      cairo_save(cr);
      cairo_rectangle(cr, x0, y0, w, hh);
      cairo_clip(cr);
      cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
      cairo_set_line_width(cr, 1.0);
      for (double t = -hh; t < w; t += 6.0) {
        cairo_move_to(cr, x0 + t, y0 + hh);
        cairo_line_to(cr, x0 + t + hh, y0);
      }
      cairo_stroke(cr);
      cairo_restore(cr);
      continue;
    }
    double rgb[3];
    tb_colormap(v, rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    // without antialiasing and with half a pixel of overlap, no seams show between cells
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    cairo_rectangle(cr, x0, y0, w + 0.5, hh + 0.5);
    cairo_fill(cr);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
  }
  // the outlines: white under black, visible on every colour
  for (int pass = 0; pass < 2; pass++) {
    cairo_set_source_rgb(cr, pass ? 0.0 : 1.0, pass ? 0.0 : 1.0, pass ? 0.0 : 1.0);
    cairo_set_line_width(cr, pass ? 1.5 : 4.0);
    for (int i = 0, v0 = 0; i < h->npoly; v0 += h->poly_n[i], i++) {
      for (int k = 0; k < h->poly_n[i]; k++) {
        const double* p = h->poly_xy + 2 * (v0 + k);
        if (k) {
          cairo_line_to(cr, TB_PX(p[0]), TB_PY(p[1]));
        } else {
          cairo_move_to(cr, TB_PX(p[0]), TB_PY(p[1]));
        }
      }
      if (h->poly_n[i] > 0) cairo_close_path(cr);
      cairo_stroke(cr);
    }
  }
  cairo_restore(cr);

  // frame, ticks and labels in mm (one step on both axes: the scale is the same)
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1.5);
  cairo_rectangle(cr, left, top, W, H);
  cairo_stroke(cr);
  cairo_set_line_width(cr, 1.0);
  cairo_set_font_size(cr, 12);
  char buf[64];
  double W3 = 1e3 * fmax(Vx, Vy), tick[TB_PLOT_MAXTICK];
  for (int axis = 0; axis < 2; axis++) {
    double V = 1e3 * (axis ? Vy : Vx);
    // the step of the larger axis on both (tb_plotTicks over it, the ticks inside V kept)
    int nt = tb_plotTicks(-W3, W3, 8, tick, TB_PLOT_MAXTICK);
    for (int i = 0; i < nt; i++) {
      double t = tick[i];
      if (fabs(t) > V + 1e-9) continue;
      snprintf(buf, sizeof(buf), "%g", t);
      if (axis == 0) {
        double x = TB_PX(t * 1e-3);
        cairo_move_to(cr, x, top + H);
        cairo_line_to(cr, x, top + H + 5);
        cairo_stroke(cr);
        tb_plotText(cr, x, top + H + 8, 0.5, 0.0, buf);
      } else {
        double y = TB_PY(t * 1e-3);
        cairo_move_to(cr, left - 5, y);
        cairo_line_to(cr, left, y);
        cairo_stroke(cr);
        tb_plotText(cr, left - 8, y, 1.0, 0.5, buf);
      }
    }
  }
  tb_axisLabels(cr, left, top, W, H, "x offset (mm)", "y offset (mm)");
  cairo_set_font_size(cr, 16);
  tb_plotText(cr, 0.5 * width, 0.5 * top, 0.5, 0.5, h->title ? h->title : "");

  // colour bar over [0, 1]
  double bh = fmin(H * 0.8, 400.0), bw = 18, bx = left + W + 30, by = top + 0.5 * (H - bh);
  tb_colorbarStrip(cr, bx, by, bw, bh);
  cairo_set_font_size(cr, 12);
  for (int k = 0; k <= 5; k++) {
    double t = 0.2 * k, y = by + bh * (1.0 - t);
    cairo_move_to(cr, bx + bw, y);
    cairo_line_to(cr, bx + bw + 4, y);
    cairo_stroke(cr);
    snprintf(buf, sizeof(buf), "%.1f", t);
    tb_plotText(cr, bx + bw + 7, y, 0.0, 0.5, buf);
  }
  tb_plotText(cr, bx, by - 14, 0.0, 0.5, h->value_label ? h->value_label : "");
  if (any_nan) {
    double ly = by + bh + 14;
    cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
    cairo_rectangle(cr, bx, ly, bw, 12);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, bx, ly, bw, 12);
    cairo_stroke(cr);
    tb_plotText(cr, bx + bw + 7, ly + 6, 0.0, 0.5, "no valid trial");
  }
#undef TB_PX
#undef TB_PY

  return tb_plotFinishPng(cr, sf, f);
}

int tb_plotSweep(FILE* f, const char* title, const tbSweepGrid* grid, const tbSweepTally* t,
                 int npoly, const int* poly_n, const double* poly_xy) {
  double* p = (double*)malloc(sizeof(double) * grid->nx * grid->ny);
  if (!p) return -2;
  tb_tallyProbability(t, p);
  tbHeatmap h;
  memset(&h, 0, sizeof(h));
  h.title = title;
  h.grid = grid;
  h.value = p;
  h.value_label = "success probability";
  h.npoly = npoly;
  h.poly_n = poly_n;
  h.poly_xy = poly_xy;
  int rc = tb_plotHeatmap(f, &h, 900, 760);
  free(p);
  return rc;
}
