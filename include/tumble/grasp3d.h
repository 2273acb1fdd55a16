// The 3D parallel-jaw grasp study of `tumble grasp3d` (issue 6): a two-finger gripper descends
// over an object lying on a table, closes with a bounded force, lifts 5 cm and holds for 1 s;
// success is the object still between the fingers. One scene per (offset cell, trial), with the
// object's pose, friction and mass drawn per trial.
#ifndef TUMBLE_GRASP3D_H_
#define TUMBLE_GRASP3D_H_

#include "sweep.h"
#include "tumble.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tbtGrasp3dObject {
  TB_G3_BOX = 0,      // size: x, y, z extents
  TB_G3_CAPSULE = 1,  // size: diameter, overall length (lying along y, across the jaws)
  TB_G3_SPHERE = 2,   // size: diameter
} tbtGrasp3dObject;

// the smallest object size (m): a millimetre, half the default position noise (2 mm) and
// 80 times the pads' 12 um deflection under the grip; a smaller one (1e-320 m) left the object
// an inertia of 0
#define TB_G3_MIN_SIZE 1e-3

struct tbGrasp3dInfo;

// the most candidate grasps of one study (tbGrasp3dDef.cand)
#define TB_G3_MAXCAND 1000000

// the most actuators a user's gripper may have (tbGrasp3dDef.gripper)
#define TB_G3_MAXACT 8

typedef struct tbGrasp3dDef {
  // the user's own gripper and part, MJCF files (tb_composeMJCF), or both NULL: the built-in
  // two-box gripper closing on `object`. The gripper's file holds one top body, which the study
  // moves (its free joint read past), its fingers on actuated joints; the part's file holds one
  // free body. The study: the gripper's site `tcp` starts above the part with the fingers open
  // (its z axis pointing down, its x axis along the map's x), descends to grasp_height, the
  // controls ramp from open to closed over close_time, it lifts by `lift` and holds for `hold`,
  // then pushes the part with `disturb` newtons along +x, -x, +y, -y, +z, -z in turn; held: the
  // part lifted and never displaced from the gripper by more than `slip` under the pushes
  const char* gripper;
  const char* part;
  const char* tcp;      // the gripper's <site> at the grasp's centre (NULL: "tcp")
  double grasp_height;  // m, the site's height over the table when closed; < 0: the part's
                        // centre of mass, raised until the open gripper clears the table by 1 mm
  int nctrl;            // 0: each actuator opens at its ctrlrange's low end and closes at its
                        // high end; else ctrl_open and ctrl_close hold one value per actuator
  double ctrl_open[TB_G3_MAXACT];  // in the files' actuator order
  double ctrl_close[TB_G3_MAXACT];
  double close_time;  // s, the controls' ramp from open to closed (> 0)
  double disturb;     // N, each push on the held part; <= 0: the part's mean weight
  double slip;        // m, the displacement under the pushes past which the part counts dropped
  // the user's model and its info (tb_loadGrasp3d, which reads MJCF: tumble_io), for the sweep
  const tbModel* user_model;
  const struct tbGrasp3dInfo* user_info;
  int object;               // tbtGrasp3dObject
  double size[3];           // m, see tbtGrasp3dObject; each in [TB_G3_MIN_SIZE, 0.2]
  double mass_lo, mass_hi;  // kg, object mass drawn uniformly (TB_MIN_MASS <= lo <= hi <= 1e3);
                            // a user's part: both 0 keeps the file's mass
  double mu_lo, mu_hi;      // object friction drawn uniformly (0 <= lo <= hi); every contact of
                            // the object (table, fingers) uses it
  double pos_noise;         // m, object x and y drawn uniformly in +-pos_noise (>= 0)
  double yaw_noise;         // rad, object yaw drawn uniformly in +-yaw_noise (>= 0)
  double force;             // N, grip force of each finger (its servo's bound, > 0)
  double close_speed;       // m/s, jaw closing speed of each finger (> 0)
  double lift;              // m, lift height (0.05)
  double hold;              // s, hold time after the lift (1.0)
  double dt;                // s, time step (> 0)
  int solver;               // tbtSolver of each step (auto)
  int max_iter;             // the solver's iterations per step (>= 1)
  double tol;               // relative residual at which a step's solve stops (> 0)
  tbSweepGrid grid;         // gripper offsets from the object's nominal position
  // candidate grasps instead of the grid (how grasp data sets label grasps): ncand top-down
  // poses of the grasp's centre over the object, (x, y, yaw) each (m, m, rad) in the object's
  // frame at its nominal pose (its centre, its own orientation turned about z), the study's
  // cells in their order; each trial's noise adds to its candidate's pose. 0: the grid
  int ncand;
  const double* cand;  // (ncand x 3)
  int trials;          // trials per cell (>= 1)
  uint64_t seed;       // draws: tbu_uniform01(seed, tb_sweepKey(cell, trial), TB_G3_DRAW_*)
  int progress;        // 1: a progress bar on stderr
  int device;          // tbtDevice of its batches (TB_DEVICE_AUTO: the GPU when usable)
  int precision;       // tbtPrecision; both the process's defaults when made
  // a resumed study: scenes [0, begin) are not run (the caller counts them); after each chunk,
  // chunk_done(chunk_ctx, first, n, outcome) when not NULL, outcome[i] of scene first + i the
  // TB_G3_* bits below (a journal)
  long begin;
  long end;  // > 0: scenes [begin, end) alone (a piece of the study); 0: to the study's end
  void (*chunk_done)(void* ctx, long first, int n, const unsigned char* outcome);
  void* chunk_ctx;
} tbGrasp3dDef;

// a scene's outcome bits for chunk_done; a failed scene's OVERFLOW and BURIED say why
// (TB_SCENE_OVERFLOW_FAIL, TB_SCENE_START_FAIL), as tbFailTally counts them
enum {
  TB_G3_FAILED = 1,
  TB_G3_HELD = 2,
  TB_G3_UNCONVERGED = 4,
  TB_G3_OVERFLOW = 8,
  TB_G3_BURIED = 16,
  // a user's gripper struck the part while descending (it moved by more than slip before the
  // close): a failed grasp whatever the solver said afterwards (the part pressed between a
  // kinematic palm and the table has no bounded answer)
  TB_G3_STRUCK = 32
};
tbGrasp3dDef tb_defaultGrasp3dDef(void);

// draw indices of one trial
enum { TB_G3_DRAW_X = 0, TB_G3_DRAW_Y, TB_G3_DRAW_YAW, TB_G3_DRAW_MU, TB_G3_DRAW_MASS };

// what the study needs to know about its model: bodies, parameters, timeline, geometry
typedef struct tbGrasp3dInfo {
  int object, finger[2], carrier[2];                // body indices (finger 0 at -x, finger 1 at +x)
  int p_x, p_y, p_qw, p_qz, p_mu, p_mass, p_force;  // parameter indices
  double z_rest;                                    // m, object centre height resting on the table
  double half_x;                  // m, object half extent along the jaw axis (x) at yaw 0
  double finger_half[3];          // m, finger box half extents
  double t_close, t_lift, t_end;  // s: closing starts, lift starts, the end
  long nstep;                     // steps per scene (t_end / dt)
  // a user's gripper and part (tbGrasp3dDef.gripper): the gripper's top body, the part's
  // orientation parameters (w, x, y, z; p_qw and p_qz the first and last), its principal frame's
  // orientation at yaw 0, the steps after which the part's place is checked (the descent done:
  // struck when it moved), taken in the gripper's frame (the lift held) and compared (each
  // push), and its footprint at the nominal pose
  int user;
  int root;
  int p_qx, p_qy;
  double q0[4];
  long step_close;
  long step_held;
  long step_push[6];
  int noutline;
  double outline[64][2];
} tbGrasp3dInfo;

// check def; TB_OK or TB_ERR_ARG with tb_lastError() naming the field and value
int tb_checkGrasp3dDef(const tbGrasp3dDef* def);
// the compiled model of one grasp scene and its info, or NULL with tb_lastError() set
tbModel* tb_buildGrasp3d(const tbGrasp3dDef* def, tbGrasp3dInfo* info);
// the study's cells: its candidates, else its grid's cells
int tb_grasp3dCells(const tbGrasp3dDef* def);
// a trial's draws: the object's place (the cell's offset negated, plus noise; m), yaw (rad),
// friction and mass (kg)
typedef struct tbGrasp3dDraw {
  double x, y, yaw, mu, mass;
} tbGrasp3dDraw;
tbGrasp3dDraw tb_grasp3dDraw(const tbGrasp3dDef* def, int cell, int trial);
// the parameter row of (cell, trial): the gripper offset of the cell and the trial's draws
void tb_grasp3dParams(const tbModel* m, const tbGrasp3dInfo* info, const tbGrasp3dDef* def,
                      int cell, int trial, double* row);
// 1 if scene s of d (run to info->nstep) holds the object between its lifted fingers, else 0
int tb_grasp3dSuccess(const tbModel* m, const tbGrasp3dInfo* info, const tbData* d, int s);
// the object's footprint outline at the nominal pose (m): at most 64 vertices into xy (64 x 2);
// returns the vertex count
int tb_grasp3dOutline(const tbGrasp3dDef* def, double* xy);

typedef struct tbGrasp3dResult {
  tbSweepTally tally;  // per cell
  long nscene;         // cells x trials
  long done;           // scenes finished: nscene, fewer when interrupted (TB_INTERRUPTED)
  long nstep;          // steps per scene
  long unconverged;    // valid scenes with a step whose solver stopped above tolerance
  long struck;         // a user's gripper's trials that struck the part (TB_G3_STRUCK)
  tbFailTally fails;   // failed scenes the command line names (ids: cell x trials + trial)
  double seconds;      // wall time of the rollouts
} tbGrasp3dResult;

// the user's gripper and part (def->gripper): a trial's parameters, and n scenes of d rolled out
// through the study, outcome[i] the TB_G3_HELD or TB_G3_STRUCK bit of scene i (or neither). The
// model: tb_loadGrasp3d (mjcf.h)
void tb_grasp3dUserParams(const tbModel* m, const tbGrasp3dInfo* info, const tbGrasp3dDef* def,
                          int cell, int trial, double* row);
int tb_grasp3dUserRollout(const tbModel* m, const tbGrasp3dInfo* info, tbData* d, int n,
                          const tbGrasp3dDef* def, unsigned char* outcome);

// run the whole study, scenes in chunks (bounded memory, a moving progress bar); the result
// is a pure function of def, whatever the thread count
int tb_grasp3dSweep(const tbGrasp3dDef* def, tbGrasp3dResult* r);
void tb_freeGrasp3dResult(tbGrasp3dResult* r);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_GRASP3D_H_
