// PNG plots with cairo: the quiver plot of a plate velocity field.
#ifndef TUMBLE_HOST_PLOT_H_
#define TUMBLE_HOST_PLOT_H_

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tbQuiver {
  const char* title;
  double extent;  // m: the plate square [-extent, extent]^2 is drawn, axes labelled in cm
  double pad;     // m: the view reaches extent + pad (arrows near the border stay visible)
  int n;
  const double* x;  // (n) m, arrow centres
  const double* y;
  const double* u;  // (n) m/s; NaN: nothing drawn
  const double* v;
  double arrow;      // m: drawn length of the fastest arrow
  const int* mark;   // (n) or NULL: nonzero marks start i with a ring at (mx, my)
  const double* mx;  // (n) m
  const double* my;
  const char* mark_label;  // legend text for the ring
} tbQuiver;

typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;
// a tick step of 1, 2 or 5 times a power of ten giving about `want` ticks over `range`
double tb_plotNiceStep(double range, int want);
// the ticks of an axis over [lo, hi]: whole multiples of tb_plotNiceStep(hi - lo, want), at most
// max of them (0 where the range is empty or not finite); returns their count
#define TB_PLOT_MAXTICK 64
int tb_plotTicks(double lo, double hi, int want, double* tick, int max);
// write the drawing into f as a PNG (an output file of outfile.h, which the caller commits with
// the run's other files) and release cr and sf; 0, or -1 when cairo could not write it
int tb_plotFinishPng(cairo_t* cr, cairo_surface_t* sf, FILE* f);
// text whose anchor (ax, ay) in [0, 1]^2 of its extents sits at (x, y)
void tb_plotText(cairo_t* cr, double x, double y, double ax, double ay, const char* s);
// a filled-head arrow from (x0, y0) to (x1, y1), head length `head` (px); a dot when shorter
// than half a pixel
void tb_plotArrow(cairo_t* cr, double x0, double y0, double x1, double y1, double head);

// write a width x height PNG into f; 0, or -1 when cairo could not write it
int tb_plotQuiver(FILE* f, const tbQuiver* q, int width, int height);

#include <tumble/sweep.h>

// heat map of a sweep over an offset grid (grasp success probability), the part drawn to scale
typedef struct tbHeatmap {
  const char* title;
  const tbSweepGrid* grid;  // cells drawn as squares at their offsets, axes in mm
  const double* value;      // (ncell) in [0, 1], NaN = no valid trial (hatched/grey)
  const char* value_label;  // colour bar label, e.g. "success probability"
  int npoly;                // outlines drawn to scale over the map (the part), closed polylines
  const int* poly_n;        // (npoly) vertex counts
  const double* poly_xy;    // (sum poly_n x 2) m, in the offset plane's coordinates
  double view_x, view_y;    // m: half-widths of the view (>= the grid's half extents; 0 = fit
                            // grid and outlines)
} tbHeatmap;

// write a width x height PNG; 0, or -1 if not written
int tb_plotHeatmap(FILE* f, const tbHeatmap* h, int width, int height);
// the success-probability heat map (900 x 760) of a sweep's tally with the part's outlines;
// 0, -1 if not written, or -2 out of memory
int tb_plotSweep(FILE* f, const char* title, const tbSweepGrid* grid, const tbSweepTally* t,
                 int npoly, const int* poly_n, const double* poly_xy);

#include <tumble/estimate.h>

// tb_plotPosterior's PNG, written into f (an output file the caller commits)
int tb_plotPosteriorTo(FILE* f, const tbModel* m, const tbPFOpt* opt, const tbObs* obs,
                       const tbPFResult* res, const double* truth);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_PLOT_H_
