// Replays: one recorded scene drawn frame by frame with cairo (every shape of the model, the
// contact points and the forces there, the time) and encoded as an MP4 (video.h).
#ifndef TUMBLE_HOST_REPLAY_H_
#define TUMBLE_HOST_REPLAY_H_

#include <tumble/tumble.h>

#include "engine/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  TB_VIEW_TOP = 0,   // looking down: world x to the right, y up
  TB_VIEW_SIDE = 1,  // looking along +y: world x to the right, z up
};

typedef struct tbReplayOpt {
  int view;             // TB_VIEW_*
  double speed;         // simulated seconds per second of video (< 1: slow motion)
  int fps;              // frames per second of video
  int width, height;    // pixels, even
  const char* title;    // first line over the scene
  const char* caption;  // second line (the scene's draws, its outcome), or NULL
} tbReplayOpt;
// 960 x 720 at 30 fps, real time
tbReplayOpt tb_defaultReplayOpt(int view);

// the view's map from the world to pixels: the world point (cx, cy) of the view plane at pixel
// (px, py), scale pixels per m, the view plane's second axis up the image
typedef struct tbSceneView {
  int view;
  double cx, cy, px, py, scale;
} tbSceneView;
void tb_viewPixel(const tbSceneView* v, const double p[3], double pix[2]);

// one frame: every body's pose, and the contacts of the step from it
typedef struct tbReplayFrame {
  double time;
  int64_t step;
  double* pos;   // (nbody x 3)
  double* quat;  // (nbody x 4)
  int ncon;
  tbContactForce* con;
} tbReplayFrame;

typedef struct _cairo cairo_t;
// draw frame f of model m (shape sizes from `size`, ngeom x 3) into cr through view v; forces
// drawn at `newton` pixels per N
void tb_drawFrame(cairo_t* cr, const tbModel* m, const double* size, const tbSceneView* v,
                  const tbReplayFrame* f, double newton);

// the MP4 of the one-scene batch d's run recorded in rec (from tb_rollout on d from its reset
// state; every = 1 for every step): a frame each o->speed / o->fps simulated seconds up to the
// scene's last good state, each with the contacts and forces of the step from that state. The
// trajectory is rec's; the contacts come from a CPU step from each frame's state without a warm
// start, so they are the step's solution to the solver's tolerance. TB_OK or an error.
int tb_writeReplay(FILE* f, const tbModel* m, const tbData* d, const tbRecord* rec,
                   const tbReplayOpt* o);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_REPLAY_H_
