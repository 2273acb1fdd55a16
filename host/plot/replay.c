// Replays: frames of one recorded scene drawn with cairo (plot.c's arrows and text) and encoded
// with video.c.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "math/implicit_geom.h"

#include "plot/plot.h"
#include "plot/replay.h"
#include "plot/video.h"

enum {
  TB_REPLAY_MAXFRAME = 36000,  // 20 minutes at 30 fps
  TB_REPLAY_HEADER = 60,       // px above the scene for the title and caption
  TB_REPLAY_FOOTER = 34,       // px below it for the time and the scale bar
  TB_CORE_MAX = 16,            // core points of one shape (TB_MAXVERT2D, a box's 8 corners)
};

tbReplayOpt tb_defaultReplayOpt(int view) {
  tbReplayOpt o;
  memset(&o, 0, sizeof(o));
  o.view = view;
  o.speed = 1.0;
  o.fps = 30;
  o.width = 960;
  o.height = 720;
  return o;
}

// the world coordinate drawn up the image
static int tb_upAxis(int view) {
  return view == TB_VIEW_TOP ? 1 : 2;
}

void tb_viewPixel(const tbSceneView* v, const double p[3], double pix[2]) {
  pix[0] = v->px + (p[0] - v->cx) * v->scale;
  pix[1] = v->py - (p[tb_upAxis(v->view)] - v->cy) * v->scale;
}

//---- shapes ------------------------------------------------------------------------------------

// a smooth shape's core (an ellipsoid's, a superellipsoid's, a cylinder's, a cut sphere's or
// disc's, cut by its half-spaces): its support points along the axes and the diagonals, in its
// frame (a sharp hull of 14 of its points)
static int tb_smoothCore(const tbModel* m, const double* sz, int g, double local[][3]) {
  tbGeomPose gp;
  tbg_framePose(&gp, m->geom_type[g], sz, m->vary0[tb_varyIndex(m, TB_F_GEOM_IMPLICIT, g, 2)],
                m->geom_vert + 2 * m->geom_vertadr[g]);
  gp.nclip = m->geom_nclip[g];
  gp.clip = m->geom_clip + TB_MAXCLIP * 4 * g;
  int n = 0;
  for (int k = 0; k < 27; k++) {
    double dir[3] = {k % 3 - 1.0, k / 3 % 3 - 1.0, k / 9 - 1.0};
    int zeros = (dir[0] == 0.0) + (dir[1] == 0.0) + (dir[2] == 0.0);
    if (zeros == 1 || zeros == 3) continue;  // the axes (two zeros) and the 8 diagonals
    tbu_normalize3(dir);
    tbg_implicitSupport(&gp, dir, 0.0, local[n++]);
  }
  return n;
}

// a shape as its core (points, world) inflated by a radius: a sphere's centre, a capsule's
// segment ends, a box's corners, a prism's core polygon; returns the point count (0: a plane)
static int tb_shapeCore(const tbModel* m, const double* size, const tbReplayFrame* f, int g,
                        double pt[TB_CORE_MAX][3], double* radius) {
  int b = m->geom_body[g], type = m->geom_type[g];
  const double* sz = size + 3 * g;
  double gpos[3], gquat[4], off[3];
  tbu_rotVec(off, f->quat + 4 * b, m->geom_pos + 3 * g);
  tbu_add3(gpos, f->pos + 3 * b, off);
  tbu_quatMul(gquat, f->quat + 4 * b, m->geom_quat + 4 * g);
  double local[TB_CORE_MAX][3];
  int n = 0;
  int cut = (type == TB_GEOM_SPHERE || type == TB_GEOM_PRISM) && m->geom_nclip[g] > 0;
  int smooth = type == TB_GEOM_ELLIPSOID || type == TB_GEOM_SUPERELLIPSOID ||
               type == TB_GEOM_CYLINDER || cut;
  int sharp = type == TB_GEOM_BOX || smooth;
  *radius = sharp ? 0.0 : sz[0];
  if (smooth) {
    n = tb_smoothCore(m, sz, g, local);
  } else if (type == TB_GEOM_SPHERE) {
    local[n][0] = local[n][1] = local[n][2] = 0.0;
    n = 1;
  } else if (type == TB_GEOM_CAPSULE) {
    for (int k = 0; k < 2; k++, n++) {
      local[n][0] = local[n][1] = 0.0;
      local[n][2] = k ? sz[1] : -sz[1];
    }
  } else if (type == TB_GEOM_BOX) {
    for (; n < 8; n++) {
      for (int i = 0; i < 3; i++) local[n][i] = (n >> i & 1) ? sz[i] : -sz[i];
    }
  } else if (type == TB_GEOM_PRISM) {
    const double* v = m->geom_vert + 2 * m->geom_vertadr[g];
    for (; n < m->geom_nvert[g] && n < TB_CORE_MAX; n++) {
      local[n][0] = v[2 * n];
      local[n][1] = v[2 * n + 1];
      local[n][2] = 0.0;
    }
  }
  for (int k = 0; k < n; k++) {
    tbu_rotVec(pt[k], gquat, local[k]);
    tbu_add3(pt[k], pt[k], gpos);
  }
  return n;
}

static double tb_cross2(const double o[2], const double a[2], const double b[2]) {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

static int tb_byX(const void* a, const void* b) {
  const double *p = (const double*)a, *q = (const double*)b;
  return p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : (p[1] > q[1]) - (p[1] < q[1]);
}

// convex hull of n pixel points (Andrew's monotone chain) into hull; returns its size
static int tb_hull2(double p[TB_CORE_MAX][2], int n, double hull[2 * TB_CORE_MAX][2]) {
  if (n < 3) {
    memcpy(hull, p, sizeof(double) * 2 * (size_t)n);
    return n;
  }
  qsort(p, (size_t)n, sizeof(p[0]), tb_byX);
  int k = 0;
  for (int i = 0; i < n; i++) {
    while (k >= 2 && tb_cross2(hull[k - 2], hull[k - 1], p[i]) <= 0.0) k--;
    memcpy(hull[k++], p[i], sizeof(p[0]));
  }
  for (int i = n - 2, lo = k + 1; i >= 0; i--) {
    while (k >= lo && tb_cross2(hull[k - 2], hull[k - 1], p[i]) <= 0.0) k--;
    memcpy(hull[k++], p[i], sizeof(p[0]));
  }
  return k - 1;
}

// a plane seen edge-on in the view: its trace as a line, the solid side shaded; a plane facing
// the viewer (a floor seen from above) is the background and not drawn
static void tb_drawPlane(cairo_t* cr, const tbModel* m, const tbSceneView* v,
                         const tbReplayFrame* f, int g, double reach) {
  double gquat[4], n[3], p0[3], off[3];
  const double ez[3] = {0, 0, 1};
  int b = m->geom_body[g], up = tb_upAxis(v->view);
  tbu_quatMul(gquat, f->quat + 4 * b, m->geom_quat + 4 * g);
  tbu_rotVec(n, gquat, ez);
  tbu_rotVec(off, f->quat + 4 * b, m->geom_pos + 3 * g);
  tbu_add3(p0, f->pos + 3 * b, off);
  double n1 = n[0], n2 = n[up], len = sqrt(n1 * n1 + n2 * n2);
  if (len < 0.5) return;
  n1 /= len;
  n2 /= len;
  double c[4][3] = {{0}}, pix[4][2];
  for (int k = 0; k < 4; k++) {
    double along = k == 0 || k == 3 ? -reach : reach, in = k >= 2 ? -reach : 0.0;
    c[k][0] = p0[0] + along * n2 + in * n1;
    c[k][up] = p0[up] - along * n1 + in * n2;
    tb_viewPixel(v, c[k], pix[k]);
  }
  cairo_move_to(cr, pix[0][0], pix[0][1]);
  for (int k = 1; k < 4; k++) cairo_line_to(cr, pix[k][0], pix[k][1]);
  cairo_close_path(cr);
  cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
  cairo_fill(cr);
  cairo_move_to(cr, pix[0][0], pix[0][1]);
  cairo_line_to(cr, pix[1][0], pix[1][1]);
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  cairo_set_line_width(cr, 1.5);
  cairo_stroke(cr);
}

static void tb_bodyColor(const tbModel* m, int b, double rgb[3]) {
  static const double dyn[5][3] = {{0.93, 0.55, 0.16},
                                   {0.22, 0.53, 0.78},
                                   {0.56, 0.38, 0.72},
                                   {0.30, 0.66, 0.36},
                                   {0.82, 0.32, 0.36}};
  static const double kin[3] = {0.56, 0.61, 0.69}, fixed[3] = {0.80, 0.80, 0.80};
  int t = m->body_type[b];
  memcpy(rgb,
         t == TB_BODY_DYNAMIC     ? dyn[b % 5]
         : t == TB_BODY_KINEMATIC ? kin
                                  : fixed,
         sizeof(double) * 3);
}

// a shape: the hull of its projected core inflated by its radius (a stroke with round joins);
// pass 0 draws its outline one pixel wider, pass 1 its fill, so that a body's shapes merge
static void tb_drawShape(cairo_t* cr, const tbModel* m, const double* size, const tbSceneView* v,
                         const tbReplayFrame* f, int g, int pass) {
  double pt[TB_CORE_MAX][3], r, pix[TB_CORE_MAX][2], hull[2 * TB_CORE_MAX][2], rgb[3];
  int n = tb_shapeCore(m, size, f, g, pt, &r);
  for (int k = 0; k < n; k++) tb_viewPixel(v, pt[k], pix[k]);
  n = tb_hull2(pix, n, hull);
  double rpx = r * v->scale;
  if (n < 3 && rpx < 3.0) rpx = 3.0;  // a point particle or a thin rod stays visible
  cairo_move_to(cr, hull[0][0], hull[0][1]);
  for (int k = 1; k < n; k++) cairo_line_to(cr, hull[k][0], hull[k][1]);
  cairo_close_path(cr);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  if (pass == 0) {
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    cairo_set_line_width(cr, 2.0 * rpx + 2.0);
    cairo_stroke(cr);
    return;
  }
  tb_bodyColor(m, m->geom_body[g], rgb);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  if (rpx > 0.0) {
    cairo_set_line_width(cr, 2.0 * rpx);
    cairo_stroke_preserve(cr);
  }
  cairo_fill(cr);
}

// the force of contact c on its dynamic body (on body[0] when both are), in the view plane
static void tb_viewForce(const tbModel* m, const tbContactForce* c, int up, double f[2]) {
  int a = c->body[0], b = c->body[1];
  int flip = !(a >= 0 && m->body_type[a] == TB_BODY_DYNAMIC) && b >= 0 &&
             m->body_type[b] == TB_BODY_DYNAMIC;
  f[0] = flip ? -c->force[0] : c->force[0];
  f[1] = flip ? -c->force[up] : c->force[up];
}

// the resultant of contacts [i, n) of f between the bodies of contact i, whose first contact is
// i, at its point of application (the contacts' points weighted by the magnitude of their
// forces), in the view plane; 0 when contact i's pair was taken by an earlier one
static int tb_pairForce(const tbModel* m, const tbReplayFrame* f, int i, int up, double p[3],
                        double force[2]) {
  const int* pair = f->con[i].body;
  for (int k = 0; k < i; k++) {
    if (f->con[k].body[0] == pair[0] && f->con[k].body[1] == pair[1]) return 0;
  }
  double wsum = 0.0, psum[3] = {0, 0, 0};
  force[0] = force[1] = 0.0;
  for (int k = i; k < f->ncon; k++) {
    if (f->con[k].body[0] != pair[0] || f->con[k].body[1] != pair[1]) continue;
    double fk[2];
    tb_viewForce(m, &f->con[k], up, fk);
    double w = tbu_norm3(f->con[k].force);
    force[0] += fk[0];
    force[1] += fk[1];
    wsum += w;
    tbu_addscl3(psum, psum, f->con[k].pos, w);
  }
  if (wsum > 0.0) {
    tbu_scl3(p, psum, 1.0 / wsum);
  } else {
    tbu_copy3(p, f->con[i].pos);
  }
  return 1;
}

void tb_drawFrame(cairo_t* cr, const tbModel* m, const double* size, const tbSceneView* v,
                  const tbReplayFrame* f, double newton) {
  double reach = 4.0 * (v->px > v->py ? v->px : v->py) / v->scale;
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_type[g] == TB_GEOM_PLANE) tb_drawPlane(cr, m, v, f, g, reach);
  }
  const int order[3] = {TB_BODY_STATIC, TB_BODY_KINEMATIC, TB_BODY_DYNAMIC};
  for (int k = 0; k < 3; k++) {
    for (int pass = 0; pass < 2; pass++) {
      for (int g = 0; g < m->ngeom; g++) {
        if (m->geom_type[g] != TB_GEOM_PLANE && m->body_type[m->geom_body[g]] == order[k])
          tb_drawShape(cr, m, size, v, f, g, pass);
      }
    }
  }
  // a dot at every contact that pushes, an arrow for each touching pair of bodies: the split of
  // a pair's force among redundant contacts (a box's corners) is not unique, the sum is
  cairo_set_source_rgb(cr, 0.75, 0.05, 0.05);
  cairo_set_line_width(cr, 2.0);
  int up = tb_upAxis(v->view);
  for (int i = 0; i < f->ncon; i++) {
    double p[3], pix[2], force[2];
    if (tbu_norm3(f->con[i].force) > 0.0) {
      tb_viewPixel(v, f->con[i].pos, pix);
      cairo_arc(cr, pix[0], pix[1], 3.0, 0.0, 2.0 * M_PI);
      cairo_fill(cr);
    }
    if (!tb_pairForce(m, f, i, up, p, force)) continue;
    tb_viewPixel(v, p, pix);
    tb_plotArrow(cr, pix[0], pix[1], pix[0] + force[0] * newton, pix[1] - force[1] * newton, 10.0);
  }
}

//---- frames ------------------------------------------------------------------------------------

static void tb_freeFrames(tbReplayFrame* fr, int n) {
  for (int i = 0; i < n && fr; i++) {
    free(fr[i].pos);
    free(fr[i].quat);
    free(fr[i].con);
  }
  free(fr);
}

// e's scene at record r of rec: d's parameters and reset state, the recorded bodies, no warm
// start
static int tb_frameScene(const tbModel* m, const tbData* d, const tbRecord* rec, int r, tbData* e) {
  tb_copyScene(m, d, 0, e, 0);
  if (tb_resetData(m, e) != TB_OK) return TB_ERR_ARG;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] == TB_BODY_STATIC) continue;
    const double* x = rec->state + ((size_t)r * m->nbody + b) * 13;
    memcpy(e->body_pos + 3 * b, x, sizeof(double) * 3);
    memcpy(e->body_quat + 4 * b, x + 3, sizeof(double) * 4);
    memcpy(e->body_vel + 6 * b, x + 7, sizeof(double) * 6);
  }
  e->time[0] = rec->time[r];
  e->nstep[0] = rec->step[r];
  return TB_OK;
}

// a frame every speed / fps simulated seconds up to the last good state: the records taken
static int tb_frameRecords(const tbData* d, const tbRecord* rec, const tbReplayOpt* o, int* idx) {
  double dt = o->speed / o->fps, next = -INFINITY;
  int64_t last = tb_lastGoodStep(d, 0);
  int n = 0;
  for (int r = 0; r < rec->nrecord && rec->step[r] <= last; r++) {
    if (rec->time[r] < next) continue;
    if (n == TB_REPLAY_MAXFRAME) return -1;
    if (idx) idx[n] = r;
    n++;
    next = (floor(rec->time[r] / dt + 1e-9) + 1.0) * dt;
  }
  return n;
}

static int tb_makeFrames(const tbModel* m, const tbData* d, const tbRecord* rec, const int* idx,
                         int n, tbReplayFrame* fr) {
  tbData* e = tb_newData(m, 1);
  tbWork* w = tb_newWork(m);
  tbContactForce* con = (tbContactForce*)malloc(sizeof(tbContactForce) * tb_cap(m->maxrow));
  int rc = e && w && con ? TB_OK : tb_setError("replay: out of memory");
  for (int i = 0; i < n && rc == TB_OK; i++) {
    if ((rc = tb_frameScene(m, d, rec, idx[i], e)) != TB_OK) break;
    fr[i].time = e->time[0];
    fr[i].step = e->nstep[0];
    fr[i].pos = (double*)malloc(sizeof(double) * 3 * tb_cap(m->nbody));
    fr[i].quat = (double*)malloc(sizeof(double) * 4 * tb_cap(m->nbody));
    if (!fr[i].pos || !fr[i].quat) {
      rc = tb_setError("replay: out of memory");
      break;
    }
    memcpy(fr[i].pos, e->body_pos, sizeof(double) * 3 * m->nbody);
    memcpy(fr[i].quat, e->body_quat, sizeof(double) * 4 * m->nbody);
    tb_stepScene(m, e, 0, w);
    fr[i].ncon = tb_stepContacts(m, w, con);
    fr[i].con = (tbContactForce*)malloc(sizeof(tbContactForce) * tb_cap(fr[i].ncon));
    if (!fr[i].con) {
      rc = tb_setError("replay: out of memory");
      break;
    }
    memcpy(fr[i].con, con, sizeof(tbContactForce) * fr[i].ncon);
  }
  free(con);
  tb_freeWork(w);
  tb_freeData(e);
  return rc;
}

//---- the view ----------------------------------------------------------------------------------

// the view holding every dynamic body's shapes (every shape's when there are none) in every frame,
// with a margin, in the area below the header
static tbSceneView tb_fitView(const tbModel* m, const double* size, const tbReplayFrame* fr, int n,
                              const tbReplayOpt* o) {
  int any_dynamic = 0, up = tb_upAxis(o->view);
  for (int b = 0; b < m->nbody; b++) any_dynamic |= m->body_type[b] == TB_BODY_DYNAMIC;
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (int i = 0; i < n; i++) {
    for (int g = 0; g < m->ngeom; g++) {
      if (any_dynamic && m->body_type[m->geom_body[g]] != TB_BODY_DYNAMIC) continue;
      double pt[TB_CORE_MAX][3], r;
      int np = tb_shapeCore(m, size, &fr[i], g, pt, &r);
      for (int k = 0; k < np; k++) {
        const double p[2] = {pt[k][0], pt[k][up]};
        for (int a = 0; a < 2; a++) {
          lo[a] = fmin(lo[a], p[a] - r);
          hi[a] = fmax(hi[a], p[a] + r);
        }
      }
    }
  }
  if (!(lo[0] <= hi[0])) lo[0] = lo[1] = hi[0] = hi[1] = 0.0;  // nothing but planes
  double span = fmax(hi[0] - lo[0], hi[1] - lo[1]);
  double W = o->width, H = o->height - TB_REPLAY_HEADER - TB_REPLAY_FOOTER;
  tbSceneView v;
  v.view = o->view;
  v.cx = 0.5 * (lo[0] + hi[0]);
  v.cy = 0.5 * (lo[1] + hi[1]);
  v.px = 0.5 * W;
  v.py = TB_REPLAY_HEADER + 0.5 * H;
  // each axis at least a quarter of the other and 1 cm: a point particle's drift stays in view
  double wx = fmax(hi[0] - lo[0], fmax(0.25 * span, 0.01));
  double wy = fmax(hi[1] - lo[1], fmax(0.25 * span, 0.01));
  v.scale = 0.8 * fmin(W / wx, H / wy);
  return v;
}

// pixels per N: the largest force of a pair of bodies in the replay drawn an eighth of the
// scene's height
static double tb_forceScale(const tbModel* m, const tbReplayFrame* fr, int n, int view,
                            double height, double* peak) {
  *peak = 0.0;
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < fr[i].ncon; k++) {
      double p[3], f[2];
      if (tb_pairForce(m, &fr[i], k, tb_upAxis(view), p, f)) *peak = fmax(*peak, hypot(f[0], f[1]));
    }
  }
  return *peak > 0.0 ? 0.125 * height / *peak : 0.0;
}

// the title, the caption, the time, a scale bar and the force legend around the scene
static void tb_drawLegend(cairo_t* cr, const tbReplayOpt* o, const tbSceneView* v,
                          const tbReplayFrame* f, double newton, double peak) {
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, 18);
  if (o->title) tb_plotText(cr, 14, 10, 0.0, 0.0, o->title);
  cairo_set_font_size(cr, 13);
  if (o->caption) tb_plotText(cr, 14, 36, 0.0, 0.0, o->caption);
  char text[96];
  double base = o->height - 12;
  cairo_set_font_size(cr, 15);
  snprintf(text, sizeof(text), "t = %.4f s   step %lld   %s view", f->time, (long long)f->step,
           o->view == TB_VIEW_TOP ? "top" : "side");
  tb_plotText(cr, 14, base, 0.0, 1.0, text);
  double bar = tb_plotNiceStep(0.25 * o->width / v->scale, 1), x1 = o->width - 14.0;
  double x0 = x1 - bar * v->scale;
  cairo_set_line_width(cr, 3);
  cairo_move_to(cr, x0, base - 4);
  cairo_line_to(cr, x1, base - 4);
  cairo_stroke(cr);
  if (bar < 0.1) {
    snprintf(text, sizeof(text), "%g mm", bar * 1e3);
  } else {
    snprintf(text, sizeof(text), "%g m", bar);
  }
  tb_plotText(cr, 0.5 * (x0 + x1), base - 10, 0.5, 1.0, text);
  if (newton > 0.0) {
    double unit = tb_plotNiceStep(peak, 1);
    if (unit > peak) unit *= 0.5;
    double a1 = x0 - 40, a0 = a1 - unit * newton;
    cairo_set_source_rgb(cr, 0.75, 0.05, 0.05);
    cairo_set_line_width(cr, 1.8);
    tb_plotArrow(cr, a0, base - 4, a1, base - 4, 9.0);
    snprintf(text, sizeof(text), "%g N", unit);
    tb_plotText(cr, a0 - 8, base - 4, 1.0, 0.5, text);
  }
}

// the path of every moving body's centre up to frame i, under the shapes
static void tb_drawTrails(cairo_t* cr, const tbModel* m, const tbSceneView* v,
                          const tbReplayFrame* fr, int i) {
  cairo_set_line_width(cr, 1.5);
  for (int b = 0; b < m->nbody && i > 0; b++) {
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    double rgb[3], pix[2];
    tb_bodyColor(m, b, rgb);
    cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], 0.6);
    for (int k = 0; k <= i; k++) {
      tb_viewPixel(v, fr[k].pos + 3 * b, pix);
      if (k == 0) {
        cairo_move_to(cr, pix[0], pix[1]);
      } else {
        cairo_line_to(cr, pix[0], pix[1]);
      }
    }
    cairo_stroke(cr);
  }
}

static int tb_encodeFrames(FILE* f, const tbModel* m, const double* size, const tbReplayFrame* fr,
                           int n, const tbReplayOpt* o) {
  tbSceneView v = tb_fitView(m, size, fr, n, o);
  double peak, newton = tb_forceScale(m, fr, n, o->view, 2.0 * (v.py - TB_REPLAY_HEADER), &peak);
  tbVideo* video = tb_videoOpen(f, o->width, o->height, o->fps);
  if (!video) return TB_ERR_ARG;
  cairo_surface_t* sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, o->width, o->height);
  int rc = cairo_surface_status(sf) == CAIRO_STATUS_SUCCESS ? TB_OK
                                                            : tb_setError("replay: out of memory");
  for (int i = 0; i < n && rc == TB_OK; i++) {
    cairo_t* cr = cairo_create(sf);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    tb_drawTrails(cr, m, &v, fr, i);
    tb_drawFrame(cr, m, size, &v, &fr[i], newton);
    tb_drawLegend(cr, o, &v, &fr[i], newton, peak);
    cairo_destroy(cr);
    cairo_surface_flush(sf);
    rc = tb_videoFrame(video, cairo_image_surface_get_data(sf), cairo_image_surface_get_stride(sf));
  }
  cairo_surface_destroy(sf);
  if (rc != TB_OK) {
    tb_videoAbort(video);
    return rc;
  }
  return tb_videoClose(video);
}

int tb_writeReplay(FILE* f, const tbModel* m, const tbData* d, const tbRecord* rec,
                   const tbReplayOpt* o) {
  if (!(o->speed > 0.0) || !isfinite(o->speed))
    return tb_setError("replay speed %g: must be finite and > 0", o->speed);
  int n = tb_frameRecords(d, rec, o, NULL);
  if (n < 0) {
    return tb_setError("replay: more than %d frames at speed %g: raise the speed",
                       TB_REPLAY_MAXFRAME, o->speed);
  }
  int* idx = (int*)malloc(sizeof(int) * tb_cap(n));
  tbReplayFrame* fr = (tbReplayFrame*)calloc(tb_cap(n), sizeof(tbReplayFrame));
  double* vary = (double*)malloc(sizeof(double) * (m->nvary + 1));
  double* size = (double*)malloc(sizeof(double) * 3 * tb_cap(m->ngeom));
  int rc = idx && fr && vary && size ? TB_OK : tb_setError("replay: out of memory");
  if (rc == TB_OK) {
    tb_frameRecords(d, rec, o, idx);
    tb_sceneVary(m, d, 0, vary);
    for (int g = 0; g < m->ngeom; g++)
      memcpy(size + 3 * g, tb_varyOf(m, vary, TB_F_GEOM_SIZE, g), sizeof(double) * 3);
    rc = tb_makeFrames(m, d, rec, idx, n, fr);
  }
  if (rc == TB_OK) rc = tb_encodeFrames(f, m, size, fr, n, o);
  tb_freeFrames(fr, n);
  free(idx);
  free(vary);
  free(size);
  return rc;
}
