// PNG plots with cairo: the quiver plot of a plate velocity field.
#ifndef TUMBLE_HOST_PLOT_H_
#define TUMBLE_HOST_PLOT_H_

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

// write a width x height PNG; 0, or -1 when cairo could not write the file
int tb_plotQuiver(const char* path, const tbQuiver* q, int width, int height);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_PLOT_H_
