// Vibrating-plate velocity fields (thesis §5.2-5.3, §6.1; Vose, Umbanhowar and Lynch): named
// plate motions and the asymptotic velocity field a motion produces on parts placed on a grid.
//
// Units. The engine is SI. The thesis writes plate accelerations without units and positions in
// cm; following the notes' [Inference] (case (a) of the learned circle drives A_3 to 9.81585,
// i.e. g), the named motions keep the thesis' numbers as accelerations in m/s^2 (translational)
// and rad/s^2 (angular), and every position here is in m (the command line takes cm).
#ifndef TUMBLE_PLATE_H_
#define TUMBLE_PLATE_H_

#include "scenes.h"
#include "tumble.h"

#ifdef __cplusplus
extern "C" {
#endif

// a plate motion: the sinusoidal plate of thesis §5.3 (accelerations A_i sin(omega t + C_i),
// translational i = 1..3 in m/s^2, then angular i = 4..6 in rad/s^2) or the rocking plate of
// Eq. 5.9 (bang-bang angular acceleration +-alpha about y, period T, axis d below the plate)
typedef struct tbPlateMotion {
  const char* name;
  const char* doc;
  int driver;               // TB_DRIVER_PLATE or TB_DRIVER_ROCKING
  double amp[6], phase[6];  // plate: A_1..A_6, C_1..C_6 (rad)
  double omega;             // plate: rad/s (66 pi: 33 Hz)
  double alpha, period, d;  // rocking: rad/s^2, s, m
} tbPlateMotion;

// named motions: centrifuge, circle-vose, circle-learned, saddle-learned, rocking
int tb_plateMotionCount(void);
const tbPlateMotion* tb_plateMotion(int i);
int tb_findPlateMotion(const char* name);
// s: 2 pi / omega, or T for the rocking plate
double tb_plateMotionPeriod(const tbPlateMotion* mo);

// plate-particle (box 0) or plate-block (box 1) with the plate moved by `driver`
// (TB_DRIVER_PLATE: parameters A1..A6, C1..C6, omega; TB_DRIVER_ROCKING: alpha, T, d);
// defined in host/jobs/scenes.c
tbModel* tb_buildPlateScene(int box, int driver, const tbBuild* b);

// put body `part` of scene s on the surface of body `plate` at its current x, y (its center
// half_z above it), moving with the plate's material point there, so that a run's transient is
// the field's and not a drop's; a block (half_z > 0) also takes the plate's orientation
void tb_placeOnPlate(const tbModel* m, tbData* d, int s, int plate, int part, double half_z);

#define TB_FIELD_MAXSET 32
// a start sticks when its part sticks at least this fraction of the averaging window
#define TB_FIELD_STICK_MARK 0.01
// TB_FIELD_STICK_SPEED, TB_FIELD_GAP_TOL: tumble.h

typedef struct tbFieldResult tbFieldResult;  // below
typedef struct tbFieldOpt {
  int nx, ny;        // grid of starts (>= 1 each), evenly spaced over [-extent, extent]^2
  double extent;     // m, half-width of the plate square (> 0)
  double seconds;    // s, simulated time per start (> 0)
  double dt;         // s, time step (default 1e-4)
  double mu;         // friction coefficient (default 0.5: the thesis does not state it)
  int box;           // 0: particle, 1: block (20 x 20 x 10 mm, 10 g)
  double transient;  // s skipped before averaging; < 0: half the run (the default)
  // explicit starts (x, y pairs, m) instead of the grid, when nstart > 0
  int nstart;
  const double* start;
  // extra parameter values for every scene, applied last (mass, A1, d, ...)
  int nset;
  const char* set_name[TB_FIELD_MAXSET];
  double set_value[TB_FIELD_MAXSET];
  int progress;   // 1: a progress bar on stderr (tb_progressStartOn)
  int device;     // tbtDevice of its batches (TB_DEVICE_AUTO: the GPU when usable)
  int precision;  // tbtPrecision; both the process's defaults when made
  // a resumed field: starts [0, begin) are not run (the caller has their points); after each
  // chunk of starts [s0, s1) is done, chunk_done(chunk_ctx, r, s0, s1) when not NULL (a journal)
  int begin;
  void (*chunk_done)(void* ctx, const tbFieldResult* r, int s0, int s1);
  void* chunk_ctx;
} tbFieldOpt;
tbFieldOpt tb_defaultFieldOpt(void);

// tbFieldPoint, one start's averages: tumble.h

struct tbFieldResult {
  int n;             // starts
  int done;          // starts run: n, or fewer after Ctrl-C (the first done, in order)
  tbFieldPoint* pt;  // (n), grid order: x fastest
  long nstep;        // steps per start
  int periods;       // whole plate periods averaged (0: the run was shorter than one)
  double window;     // s, averaging window
  double wall;       // s, wall-clock time of the batch
  int failed;        // starts whose scene failed (NaN, overflow, solver)
};

// simulate every start and fill r (free with tb_freeFieldResult); TB_OK, TB_INTERRUPTED after
// Ctrl-C (tb_catchInterrupt: r holds the starts done), or an error with tb_lastError() naming
// the bad field or parameter
int tb_plateField(const tbPlateMotion* mo, const tbFieldOpt* o, tbFieldResult* r);
// the part's shape in the plate scenes (shape 0 is the plate's plane)
#define TB_FIELD_PART_GEOM 1
// start i of a field alone: the model and a one-scene batch with the part on the plate, and the
// steps of the run, exactly what tb_plateField runs for it (a replay); TB_OK or an error
int tb_plateFieldStart(const tbPlateMotion* mo, const tbFieldOpt* o, int i, tbModel** m, tbData** d,
                       long* nstep);
void tb_freeFieldResult(tbFieldResult* r);

//---- designing plate motions (thesis ch. 6): the trajectory objective -------------------------

// the target fields TB_PLATE_TARGET_*: tumble.h

typedef struct tbPlateObjOpt {
  int target;           // TB_PLATE_TARGET_*
  int npoint;           // table: rows (>= 1)
  const double* point;  // table: (npoint x 4) x, y, vx, vy in m and m/s (copied)
  int nstart;           // K starts per candidate (>= 1); see tb_plateTargetStarts
  double horizon;       // s, simulated time per start (default 6)
  double sample;        // s, sampling interval (default 0.25)
  double dt;            // s, time step (default 5e-4, the thesis' h for the search)
  double mu;            // friction coefficient (default 0.5)
  double omega;         // rad/s, plate frequency (default 66 pi)
  int dim;              // searched parameters (1..12)
  int index[12];        // each searched parameter: 0..5 = A1..A6, 6..11 = C1..C6
  double base[12];      // A1..A6, C1..C6 for the parameters not searched
  int device;           // tbtDevice of its batches (TB_DEVICE_AUTO: the GPU when usable)
  int precision;        // tbtPrecision; both the process's defaults when made
} tbPlateObjOpt;

// defaults for a target: the thesis' search space and start (circle: A6, A3, C3 from (100, 8,
// 3 pi / 2); saddle: all 12 from A = (8, 0.5, -5, -1.5, 0, 0), C = (150, 1.5, 80, 5.5, 0, 0) read
// with the engine's order, phases wrapped into [-pi, pi); table: all 12 from Vose's circle);
// x0 (12 entries) receives the start of the searched parameters
tbPlateObjOpt tb_defaultPlateObjOpt(int target, double* x0);

// the K starts of a target (m, (K x 2)): circle: radii 4..8 cm evenly, angles 2 pi k / K;
// saddle: Halton (2, 3) points in [-5, 5]^2 cm; table: Halton points in the rows' bounding box
void tb_plateTargetStarts(const tbPlateObjOpt* o, double* start);

// the box the optimizers search and their initial steps, for the searched parameters of o from
// x0: amplitudes within +-500 (m/s^2 or rad/s^2), phases within +-4 pi; steps 0.5 rad for
// phases, else a tenth of the start (at least 1, or 10 for an angular amplitude)
void tb_plateSearchBox(const tbPlateObjOpt* o, const double* x0, double* lo, double* hi,
                       double* step);

typedef struct tbPlateObj tbPlateObj;
// NULL with tb_lastError() naming the bad field
tbPlateObj* tb_newPlateObj(const tbPlateObjOpt* o);
void tb_freePlateObj(tbPlateObj* ob);
const tbPlateObjOpt* tb_plateObjOpt(const tbPlateObj* ob);
// the plate-particle model's names of the 12 plate parameters, in the order of p12 below
extern const char* const tb_pname[12];
// the 12 plate parameters (A1..A6, C1..C6) of candidate x (dim)
void tb_plateObjParams(const tbPlateObj* ob, const double* x, double* p12);
// a tbObjective (ctx: the tbPlateObj): one batch of n x K plate-particle scenes; f[i] (m units)
// = sum over starts and samples t = sample, 2 sample, ... <= horizon of |p(t) - p*(t)| +
// |v(t) - v*(p(t))|, v(t) the mean velocity over the whole plate periods in the last sample
// window, p*(t) the target field integrated from the start; +inf when a scene fails.
// Returns 0, or non-zero (out of memory, with tb_lastError())
int tb_plateObjective(void* ob, int n, const double* x, double* f);

// a table target from a file: rows x,y,vx,vy (m, m/s); blank lines and '#' comments skipped, a
// first line that is not four numbers is a header. TB_OK with *out (npoint x 4, malloc'd), -1
// when the file cannot be opened, or an error naming the file and line
int tb_readPlateTable(const char* path, double** out, int* npoint);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_PLATE_H_
