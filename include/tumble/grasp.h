// Monte Carlo grasp-probability sweeps on the planar 2.5D model: the Brost-Christiansen study
// (thesis §1, §3.5.3.4, §4.3.3).
//
// A parallel-jaw gripper closes on a part that rests on a support tripod. Each finger is a
// planar box on a prismatic joint along x with a force-limited velocity servo: it closes at the
// trial's speed until the part pushes back with more than the gripper force (force control).
// The fingertip is the finger's inner top corner; the fingertip midpoint starts at the cell's
// offset from the part's centre, the fingertips open_width apart.
//
// Part "gear": the disc of radius 20.75 mm with six teeth at the thesis's angles. The thesis's
// teeth are super-ellipses |x/2.3|^4 + |y/1.1|^4 = 1 (mm); here each is a rounded rectangle
// (core half-sides 1.43 x 0.23 mm, radius 0.87 mm: Hausdorff distance 0.057 mm to the
// super-ellipse, tb_graspToothError), turned so that its 2.3 mm semi-axis is radial (the thesis
// omits the teeth's frames "for brevity"; radial teeth are the lock piece's). Success is the
// study's goal: both fingertips on the outer edges of the outermost teeth, within tol.
// Part "disc": a plain disc of radius 20.75 mm; success is a grasp: both fingers within tol of
// the disc and its centre between them.
//
// Per trial (pure functions of (seed, cell, trial), tb_sweepKey): the support and gripper
// friction coefficients, uniform in their ranges; each tripod point displaced uniformly within
// tripod_jitter of its nominal place; the closing speed, uniform within speed_jitter of the
// condition's speed.
#ifndef TUMBLE_GRASP_H_
#define TUMBLE_GRASP_H_

#include <stdint.h>

#include "sweep.h"
#include "tumble.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tbtPart { TB_PART_GEAR = 0, TB_PART_DISC = 1 } tbtPart;

// friction ranges of the study: low (0, 0.33], medium (0.33, 0.66], high (0.66, 0.99]
typedef enum tbtMuRange { TB_MU_LOW = 0, TB_MU_MEDIUM = 1, TB_MU_HIGH = 2, TB_NMURANGE } tbtMuRange;
const char* tb_muRangeName(int r);
int tb_findMuRange(const char* name);
// the range's (lo, hi]
void tb_muRange(int r, double lohi[2]);

typedef struct tbGraspDef {
  int part;              // tbtPart
  double part_mass;      // kg (0.02: an aluminium lock piece 41.5 mm across, 5 mm thick)
  double radius;         // m, disc radius (20.75e-3)
  double mu_surface[2];  // support friction, uniform in (lo, hi]
  double mu_gripper[2];  // gripper friction, uniform in (lo, hi]
  double speed;          // m/s, each finger's nominal closing speed ("normal" 0.02)
  double speed_jitter;   // relative spread of the speed, uniform in speed (1 +- jitter) (0.1)
  double force;          // N, gripper force: each finger's servo force bound (5)
  double open_width;     // m, initial fingertip separation (0.05)
  double finger_width;   // m, finger size along x (0.01)
  double finger_length;  // m, finger size along y, below the fingertip (0.04)
  double finger_mass;    // kg (0.05)
  double tripod_radius;  // m, nominal support points on this circle at 90, 210, 330 deg (0.012)
  double tripod_jitter;  // m, each point displaced uniformly within this disc (0.004)
  double settle;         // s simulated after the slowest closing time (0.3)
  double rest_speed;     // m/s: a trial whose every point has moved slower than this for
                         // rest_time ends there, its state held (1e-5; 0: every step computed)
  double rest_time;      // s (0.05)
  double tol;            // m, success tolerance (0.5e-3)
  double dt;             // s, time step (1e-3)
  int cone;              // tbtCone
  int facets;            // pyramid facets
  int solver;            // tbtSolver (auto: PGS with a Newton polish)
  int max_iter;          // solver iterations per step (200)
  double solver_tol;     // relative residual (1e-6: a jammed grasp's redundant contacts make
                         // tighter tolerances cost thousands of sweeps for sub-nm changes)
  double sor;            // PGS over-relaxation (1: 1.3 halves the sweeps but left a step of
                         // some impacts at a relative residual of 0.3)
  int device;            // tbtDevice of its batches (TB_DEVICE_AUTO: the GPU when usable)
  int precision;         // tbtPrecision; both the process's defaults when made
} tbGraspDef;
tbGraspDef tb_defaultGraspDef(void);
// TB_OK, or TB_ERR_ARG naming the bad field
int tb_checkGraspDef(const tbGraspDef* g);

// the model: bodies part, left, right; parameters offset_x, offset_y (fingertip midpoint from
// the part centre, m, each in [-TB_GRASP_MAX_OFFSET, TB_GRASP_MAX_OFFSET]), surface_mu,
// gripper_mu, speed (m/s), sup_x1, sup_y1, .. sup_y3 (m)
#define TB_GRASP_MAX_OFFSET 1.0
tbModel* tb_buildGraspModel(const tbGraspDef* g);
// steps of one trial: the slowest closing time plus settle
int tb_graspSteps(const tbGraspDef* g);
// the parameter row (m->nparam values) of trial `trial` of a cell at `offset`
void tb_graspDraw(const tbModel* m, const tbGraspDef* g, uint64_t seed, int cell, int trial,
                  const double offset[2], double* row);
// 1 if scene s meets the goal, else 0
int tb_graspSuccess(const tbModel* m, const tbGraspDef* g, const tbData* d, int s);
// the parameter row of trial `trial` of cell `cell` of a study over grid (tb_graspDraw at the
// cell's offset): what tb_graspSweep runs, for a replay of one trial
void tb_graspDrawTrial(const tbModel* m, const tbGraspDef* g, const tbSweepGrid* grid,
                       uint64_t seed, int cell, int trial, double* row);
// the per-trial CSV (tb_graspSweep's log): the scene summary's columns (tb_sceneSummaryRow, scene
// id = cell x trials + trial), then cell, trial, success and the part's final x, y (m) and yaw
// (rad); the row of scene i of d, whose outcome is success
void tb_graspTrialHeader(FILE* f, const tbModel* m);
void tb_graspTrialRow(FILE* f, const tbModel* m, const tbData* d, int i, long id, int trials,
                      int success);

// outline of the part for the heat map: up to maxpoly closed polylines (poly_n vertices each,
// xy in m) with at most maxxy points in all; returns the number of polylines
int tb_graspOutline(const tbGraspDef* g, int maxpoly, int* poly_n, double* xy, int maxxy);
// Hausdorff distance (m) between the thesis's super-ellipse tooth and our rounded rectangle
double tb_graspToothError(void);

// one condition of a study over a grid: every (cell, trial) scene run in chunks of `chunk`
// scenes, tallied into t (t->ncell = cells of grid); progress may be NULL; log, when not NULL,
// gets the per-trial CSV (tb_graspTrialHeader, a tb_graspTrialRow per trial)
typedef struct tbGraspRun {
  long trials;         // scenes run
  long failed;         // scenes that failed numerically
  long unconverged;    // scenes with a step whose solver stopped above its tolerance (a warning)
  double resid_max;    // the largest final solver residual of any step of any scene
  double seconds;      // wall time
  double scene_steps;  // steps computed (a trial at rest holds its last ones: not counted)
  tbFailTally fails;   // failed trials the command line names (ids: cell x trials + trial)
} tbGraspRun;
int tb_graspSweep(const tbGraspDef* g, const tbSweepGrid* grid, int trials, uint64_t seed,
                  int chunk, tbProgress* progress, FILE* log, tbSweepTally* t, tbGraspRun* run);
// the same over the study's scenes [begin, end) only (id = cell x trials + trial), adding to t;
// log gets their rows without the header: a study run in pieces (a resumed one) is bitwise the
// study run whole
int tb_graspSweepRange(const tbGraspDef* g, const tbSweepGrid* grid, int trials, uint64_t seed,
                       long begin, long end, int chunk, tbProgress* progress, FILE* log,
                       tbSweepTally* t, tbGraspRun* run);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_GRASP_H_
