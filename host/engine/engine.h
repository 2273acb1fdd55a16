// Internal interfaces of the engine: the step scratch every backend shares, the 2.5D model's
// compile helpers and the mixed LCP of a step.
#ifndef TUMBLE_HOST_ENGINE_H_
#define TUMBLE_HOST_ENGINE_H_

#include <string.h>

#include <tumble/problem.h>
#include <tumble/tumble.h>

#include "math/collide.h"
#include "math/implicit_geom.h"

#include "util/error.h"
#include "solver/lcp_form.h"
#include "solver/solver_need.h"

#ifdef __cplusplus
extern "C" {
#endif

// constraint rows carry up to two bodies; each row's Jacobian is 6 entries per body
// row kinds decide which velocities enter b: position-level rows see kinematic bodies at
// t + h through their pose (thesis §5.1.2), velocity-level rows through their velocity
enum { TB_ROW_POSITION = 0, TB_ROW_VELOCITY = 1 };

typedef struct tbRowJ {
  int body[2];     // body indices, -1 for the world
  double J[2][6];  // [linear; angular] per body
  int kind;        // TB_ROW_*
  double bias;     // added to b: Phi/h stabilization, servo targets, restitution
  double rest;     // the part of bias Newton restitution set (<= 0), for tb_plasticRetry
  double cfm;      // added to the diagonal of A (servo compliance)
  double soft;     // contact rows: cfm gains soft J M^-1 J^T of the row itself (TB_OPT_SOFT)
  double prox;     // that share of cfm, set at assembly: it pulls x toward the last step's impulse
} tbRowJ;

// one shape pair of the geometrically implicit step (stage_implicit.h), set up each step: f is
// shape g[0]'s function (body b[0]), g shape g[1]'s (body b[1], the compliant one, or the plane)
typedef struct tbImpPair {
  int g[2], b[2];
  int off, nf, ng;    // its first unknown; f's and g's parts (tbg_parts: 1 but for cut shapes)
  double mu, er;      // friction coefficient and torsional lever e_r (m, 0: no torsion)
  double k, c, core;  // g's stiffness (N/m, 0: rigid), damping (N s/m), core deflection (m)
  double meff, len;   // the pair's reduced mass (kg) and its smaller shape's size (m)
  double zref;        // planar pairs: the plane (z) of their motion; NAN for 3D pairs
  double ref[3];      // the axis its tangent frame turns from: t = ref x n, o = n x t
  double dprev;       // the deflection at the step's start (m)
} tbImpPair;

// The step reads its Delassus matrix over the nonzero runs of its rows (tbRuns: the rows whose
// blocks share a dynamic body with the row's) where it has at least TB_STEP_RUN_ROWS rows and
// the runs hold at most TB_RUN_FILL of its entries: a pile's rows each meet a few neighbours.
// The scratch holds TB_STEP_RUNS_PER_ROW runs a row on average; a step that needs more reads A
// whole.
#define TB_STEP_RUN_ROWS 48
#define TB_STEP_RUNS_PER_ROW 16

// PGS's step holds no Delassus matrix where the model may have TB_STEP_BODY_ROWS rows or more:
// it sweeps the blocks in body space (stage_bodies.h), each row's velocity J_i (v_free + dv)
// from the bodies' impulse velocities dv = M^-1 J^T x, O(1) a row where A costs O(n) a row and
// n^2 words. A PGS slot's A is 41% of it at 48 rows (corner-hole), 80% at 216 (the 8-sphere
// pile), 92% at 729 (the 27-sphere pile: 4.3 MB of 4.6); from 64 rows it is most of the slot.
// Not in minimal coordinates (the tree couples every row of a chain) nor with joints (their
// equalities' direct solve factors A)
#define TB_STEP_BODY_ROWS 64

TB_HD int tb_stepBodySpace(const tbModel* m) {
  return m->opt.delassus == TB_DELASSUS_AUTO && m->opt.solver == TB_SOLVER_PGS && m->nq == 0 &&
         !m->opt.implicit && m->maxeq == 0 && m->maxrow >= TB_STEP_BODY_ROWS;
}

// auto's step starts in body space on the same models (stage_primal.h's Newton where contacts
// are redundant, stage_bodies.h tb_solveBodyCG), and assembles A only where that falls short: not
// where a step's solve is redone from its rows (corner rounds, the quasistatic step's rounds)
TB_HD int tb_stepBodyFirst(const tbModel* m) {
  return m->opt.delassus == TB_DELASSUS_AUTO && m->opt.solver == TB_SOLVER_AUTO && m->nq == 0 &&
         !m->opt.implicit && m->maxeq == 0 && m->maxrow >= TB_STEP_BODY_ROWS && !m->opt.corners &&
         !m->opt.quasistatic;
}

// whether a slot holds the bodies' impulse velocities and A's diagonal blocks
TB_HD int tb_stepHoldsBodies(const tbModel* m) {
  return tb_stepBodySpace(m) || tb_stepBodyFirst(m);
}

// the runs a slot holds: none where the model never has TB_STEP_RUN_ROWS rows, nor in minimal
// coordinates (the tree couples every row of a chain), nor where the step reads no A
TB_HD int tb_stepRunCap(const tbModel* m) {
  int many = m->nq == 0 && m->maxrow >= TB_STEP_RUN_ROWS && !tb_stepBodySpace(m);
  return many ? TB_STEP_RUNS_PER_ROW * m->maxrow : 0;
}

// One slot of step scratch per thread (CPU) or per scene (GPU), every array slot-strided in a
// batch-owned tbScratch: (type, name, count per slot). One table drives the host allocation, the
// device allocation and the slot views, so the two backends cannot disagree on a size.
//   vary     this scene's parameter values
//   xpos, xquat, xvel  the pose the step's geometry uses: dynamic and static bodies at t,
//                      kinematic bodies at t + h (their velocity at t + h)
//   minv     inverse mass (3, 0 on locked DoFs), inverse inertia (9) per body
//   vfree    velocity after forces, before impulses (forces while they are summed)
//   qsf      the quasistatic step's h f_app, force balance and its scale (stage_quasi.h)
//   gpose, greach      shapes at the work pose; radius about each shape's origin that holds it
//   con, con_pair      contacts and their candidate pair
//   con_twin, con_off  a corner pair's other member (-1: an ordinary contact), and 1 when the
//                      contact's rows are left out of the round's problem (stage_corner.h)
//   row .. blk_angle   the rows, M^-1 J^T per row side, warm-start keys and the Delassus problem
//                      (A: none in body space, tb_stepBodySpace)
//   blk_diag, body_dv  body space: each row's entries of A in its block's columns (row i's
//                      A[i][blk_adr .. + dim) at 3 i), and each body's impulse velocity
//                      M^-1 J^T x (6 a body)
//   eq_factor, eq_first  the Cholesky factor of a step whose rows are all equalities, and each
//                      row's first nonzero column (the envelope it skips)
//   dof_S .. tree_F    minimal coordinates (stage_tree.h): the DoFs' motion axes, the
//                      generalized velocity, its free value (then v+), the factor of M + h C,
//                      the rows in joint space and (M + h C)^-1 Jq^T, the bodies' spatial
//                      inertias, velocities, bias accelerations and forces; M's envelope
//                      (each row's first nonzero column) and each row's nonzero DoFs in Jq and
//                      in (M + h C)^-1 Jq^T ([lo, hi) of each: 4 a row)
//   imp_pair, imp, imp_kind  the implicit step's pairs, its unknowns, residuals, difference
//                      Jacobian and normal matrix, and each residual's kind (stage_implicit.h)
//   run_adr, run       the nonzero runs of A's rows (tbRuns, tb_assembleRuns), where the model
//                      can use them (tb_stepRunCap)
//   body_blk_adr, body_blk  each dynamic body's blocks, in order (the runs' index)
//   solver_d, solver_i the model solver's scratch (tb_solverNeed)
//   scene_buf          the arrays of the one-scene batch `scene` (tb_workScene) in which a
//                      rollout keeps its scene: on chip on the GPU, between one load and one store
#define TB_WORK_ARRAYS(X)                                        \
  X(double, vary, m->nvary + 1)                                  \
  X(double, xpos, tb_cap(m->nbody) * 3)                          \
  X(double, xquat, tb_cap(m->nbody) * 4)                         \
  X(double, xvel, tb_cap(m->nbody) * 6)                          \
  X(double, minv, tb_cap(m->nbody) * 12)                         \
  X(double, vfree, tb_cap(m->nbody) * 6)                         \
  X(double, qsf, tb_cap(tb_quasiWords(m)))                       \
  X(tbGeomPose, gpose, tb_cap(m->ngeom))                         \
  X(double, greach, tb_cap(m->ngeom))                            \
  X(tbContactPoint, con, tb_cap(m->maxcon))                      \
  X(int, con_pair, tb_cap(m->maxcon))                            \
  X(int, con_twin, tb_cap(m->maxcon))                            \
  X(int, con_off, tb_cap(m->maxcon))                             \
  X(tbRowJ, row, tb_cap(m->maxrow))                              \
  X(double, row_MJ, tb_cap(m->maxrow) * 12)                      \
  X(int, row_key, tb_cap(m->maxrow))                             \
  X(double, A, tb_delassusWords(m))                              \
  X(double, b, tb_cap(m->maxrow))                                \
  X(double, lo, tb_cap(m->maxrow))                               \
  X(double, hi, tb_cap(m->maxrow))                               \
  X(double, x, tb_cap(m->maxrow))                                \
  X(int, blk_type, tb_cap(m->maxrow))                            \
  X(int, blk_adr, tb_cap(m->maxrow))                             \
  X(int, blk_dim, tb_cap(m->maxrow))                             \
  X(double, blk_mu, tb_cap(m->maxrow))                           \
  X(double, blk_angle, tb_cap(m->maxrow))                        \
  X(double, blk_diag, tb_stepHoldsBodies(m) ? 3 * m->maxrow : 1) \
  X(double, body_dv, tb_stepHoldsBodies(m) ? 6 * m->nbody : 1)   \
  X(double, eq_factor, tb_cap(m->maxeq) * tb_cap(m->maxeq))      \
  X(int, eq_first, tb_cap(m->maxeq))                             \
  X(int, run_adr, tb_stepRunCap(m) ? m->maxrow + 1 : 1)          \
  X(int, run, tb_cap(2 * tb_stepRunCap(m)))                      \
  X(int, body_blk_adr, tb_stepRunCap(m) ? m->nbody + 1 : 1)      \
  X(int, body_blk, tb_cap(tb_stepRunCap(m) ? 2 * m->maxrow : 0)) \
  X(double, dof_S, tb_cap(m->ndof) * 6)                          \
  X(double, tree_nu, tb_cap(m->ndof))                            \
  X(double, qfree, tb_cap(m->ndof))                              \
  X(double, Mq, tb_cap(m->ndof) * tb_cap(m->ndof))               \
  X(double, Jq, tb_cap(m->ndof ? m->maxrow * m->ndof : 0))       \
  X(double, MJq, tb_cap(m->ndof ? m->maxrow * m->ndof : 0))      \
  X(int, dof_first, tb_cap(m->ndof))                             \
  X(int, row_span, tb_cap(m->ndof ? 4 * m->maxrow : 0))          \
  X(double, tree_I, tb_cap(m->nq ? m->nbody : 0) * 13)           \
  X(double, tree_V, tb_cap(m->nq ? m->nbody : 0) * 6)            \
  X(double, tree_A, tb_cap(m->nq ? m->nbody : 0) * 6)            \
  X(double, tree_F, tb_cap(m->nq ? m->nbody : 0) * 6)            \
  X(tbImpPair, imp_pair, tb_cap(m->opt.implicit ? m->npair : 0)) \
  X(double, imp, tb_cap(tb_implicitWords(m)))                    \
  X(int, imp_kind, tb_cap(m->opt.implicit ? m->maxrow : 0))      \
  X(double, solver_d, sc->nsolver_d)                             \
  X(int, solver_i, sc->nsolver_i)                                \
  X(double, scene_buf, tb_sceneWords(m))

// index of element i of scene s in a batch array of count elements per scene, in d's layout
TB_HD size_t tb_sceneAt(const tbData* d, int s, size_t count, size_t i) {
  return d->scene_fast ? i * (size_t)d->nscene + (size_t)s : (size_t)s * count + i;
}

// scene s of a into scene t of b, whatever the layout of each (batches of one model)
TB_HD void tb_sceneCopy(const tbData* a, int s, tbData* b, int t) {
  const tbData* d = a;                     // the counts of TB_DATA_ARRAYS
  if (!a->scene_fast && !b->scene_fast) {  // both scene-major: each array's run is contiguous
#define TB_X(type, name, count)                                                        \
  memcpy(b->name + (size_t)t * (size_t)(count), a->name + (size_t)s * (size_t)(count), \
         sizeof(type) * (size_t)(count));
    TB_DATA_ARRAYS(TB_X)
#undef TB_X
    return;
  }
#define TB_X(type, name, count)                                                                    \
  for (size_t i = 0; i < (size_t)(count); i++) {                                                   \
    b->name[tb_sceneAt(b, t, (size_t)(count), i)] = a->name[tb_sceneAt(a, s, (size_t)(count), i)]; \
  }
  TB_DATA_ARRAYS(TB_X)
#undef TB_X
}

// the one-scene batch of model m, without its arrays
TB_HD tbData tb_oneScene(const tbModel* m) {
  tbData one;
  memset(&one, 0, sizeof(one));
  one.nscene = 1;
  one.nbody = m->nbody;
  one.nparam = m->nparam;
  one.maxrow = m->maxrow;
  one.nq = m->nq;
  one.nqd = m->nqd;
  return one;
}

// bytes of array `count` elements of type in scene_buf: whole words, so every array is aligned
#define TB_SCENE_BYTES(type, count) ((sizeof(type) * (size_t)(count) + 7) & ~(size_t)7)

// words (doubles) of one scene's arrays in scene_buf
TB_HD size_t tb_sceneWords(const tbModel* m) {
  tbData one = tb_oneScene(m);
  const tbData* d = &one;
  size_t bytes = 0;
#define TB_X(type, name, count) bytes += TB_SCENE_BYTES(type, count);
  TB_DATA_ARRAYS(TB_X)
#undef TB_X
  return bytes / sizeof(double);
}

// a capacity of at least one (arrays of zero objects still get a slot)
TB_HD size_t tb_cap(int n) {
  return (size_t)(n > 0 ? n : 1);
}

// A's words in a slot: none but one in body space
TB_HD size_t tb_delassusWords(const tbModel* m) {
  return tb_stepBodySpace(m) ? 1 : tb_cap(m->maxrow) * tb_cap(m->maxrow);
}

// whether geoms g1 and g2 meet with disjunctive corners (option corners, two prisms)
TB_HD int tb_cornerPair(const tbModel* m, int g1, int g2) {
  return m->opt.corners && m->geom_type[g1] == TB_GEOM_PRISM && m->geom_type[g2] == TB_GEOM_PRISM;
}

// the quasistatic step's words in a slot (stage_quasi.h: h f_app, the force balance, its scale)
TB_HD int tb_quasiWords(const tbModel* m) {
  return m->opt.quasistatic ? 18 * m->nbody : 0;
}

// the implicit step's unknowns per shape pair (stage_implicit.h): closest points a1, a2, l1, l2,
// the core's (or rigid) normal impulse, friction t, o, torsion, sigma, the algebraic and the
// Euclidean deflection, the spring's impulse; then a multiplier per part of a cut shape
#define TB_IMP_NZ 16

// pair p's unknowns: TB_IMP_NZ and one per part of its shapes beyond their functions
TB_HD int tb_implicitPairUnknowns(const tbModel* m, int p) {
  int g1 = m->pair_geom[2 * p], g2 = m->pair_geom[2 * p + 1];
  return TB_IMP_NZ + tbg_parts(m->geom_type[g1], m->geom_nclip[g1]) - 1 +
         tbg_parts(m->geom_type[g2], m->geom_nclip[g2]) - 1;
}

// the implicit step's unknowns: 6 velocities per body and each pair's
TB_HD int tb_implicitUnknowns(const tbModel* m) {
  int n = 6 * m->nbody;
  for (int p = 0; p < m->npair; p++) n += tb_implicitPairUnknowns(m, p);
  return n;
}

// the implicit step's words in a slot: 14 vectors of its unknowns, the Jacobian and the normal
// matrix, and per body its end pose and wrench
TB_HD int tb_implicitWords(const tbModel* m) {
  int n = tb_implicitUnknowns(m);
  return m->opt.implicit ? 2 * n * n + 14 * n + 13 * m->nbody : 0;
}

// bytes from one slot of an array to the next in the kernels' layout: whole cache lines, so
// that no two scenes write the same line
TB_HD size_t tb_slotBytes(size_t bytes) {
  return (bytes + 63) & ~(size_t)63;
}

// the batch's scratch: nslot slots of every TB_WORK_ARRAYS array, slot-major (the kernels', a
// slot per scene), or on the CPU a block of whole pages per slot (block; the arrays then NULL)
typedef struct tbScratch {
  int nslot;
  size_t nsolver_d, nsolver_i;  // solver scratch per slot
#define TB_X(type, name, count) type* name;
  TB_WORK_ARRAYS(TB_X)
#undef TB_X
  char* block;         // slot k's arrays at block + k * block_bytes (tb_workCarve), or NULL
  size_t block_bytes;  // a multiple of TB_PAGE_BYTES
} tbScratch;

// bytes between two CPU threads' scratch: the hardware prefetchers fetch ahead within a 4 KB
// page, into lines the other thread is writing when slots share a page. Slots a cache line
// apart cost the 2-thread minimal pendulum half its rate, plate-particle a quarter
#define TB_PAGE_BYTES 4096

// one slot's view of the scratch, and the step's values that do not change within it
struct tbWork {
#define TB_X(type, name, count) type* name;
  TB_WORK_ARRAYS(TB_X)
#undef TB_X
  tbSolverWork solver_work;  // solver_d and solver_i as the solvers take them
  tbData scene;              // one scene, its arrays in scene_buf
  int ncon, nrow, nblock;
  int use_runs;  // 1 when this step's A is read over its nonzero runs (tb_assembleRuns)
  tbRuns runs;   // the view of run_adr and run (A is symmetric: its columns' runs are its rows')
  double h, gravity[3], frame_angle, facet_angle, soft;  // per step, from vary (TB_F_OPT)
  // the kinematic bodies' poses of a rollout's steps when its scenes share them
  // (tb_kinematicPath; NULL: each step works its own out), and the step's entry in it
  const double* kin_path;
  const double* kin_pose;
  char* own;  // tb_newWork's buffer (NULL for views into a batch's scratch or a kernel's)
};

// what a view holds besides its arrays: the solver's scratch as the solvers take it, the view of
// A's runs, no rows yet
TB_HD void tb_workSolver(const tbScratch* sc, tbWork* w) {
  w->solver_work.d = w->solver_d;
  w->solver_work.nd = sc->nsolver_d;
  w->solver_work.i = w->solver_i;
  w->solver_work.ni = sc->nsolver_i;
  w->ncon = w->nrow = w->nblock = 0;
  w->use_runs = 0;
  w->runs.row_adr = w->runs.col_adr = w->run_adr;
  w->runs.row_run = w->runs.col_run = w->run;
  w->runs.row_val = w->runs.col_val = NULL;  // A holds the values
  w->runs.row_off = w->runs.col_off = NULL;
  w->own = NULL;
}

// the one-scene batch of model m whose arrays are laid out in buf (tb_sceneWords(m) words)
TB_HD tbData tb_sceneOver(const tbModel* m, double* buf) {
  tbData one = tb_oneScene(m);
  const tbData* d = &one;
  char* at = (char*)buf;
#define TB_X(type, name, count) \
  one.name = (type*)at;         \
  at += TB_SCENE_BYTES(type, count);
  TB_DATA_ARRAYS(TB_X)
#undef TB_X
  return one;
}

// w->scene: the one-scene batch over w->scene_buf
TB_HD void tb_workScene(const tbModel* m, tbWork* w) {
  w->scene = tb_sceneOver(m, w->scene_buf);
}

// bytes of one slot laid out in one buffer (each array 16-byte aligned); sc gives the solver's
// sizes
TB_HD size_t tb_workBytes(const tbModel* m, const tbScratch* sc) {
  size_t bytes = 0;
#define TB_X(type, name, count) bytes += (sizeof(type) * (size_t)(count) + 15) & ~(size_t)15;
  TB_WORK_ARRAYS(TB_X)
#undef TB_X
  return bytes;
}

// bytes of a CPU slot's block (tbScratch.block_bytes): tb_workBytes in whole pages
TB_HD size_t tb_blockBytes(const tbModel* m, const tbScratch* sc) {
  return (tb_workBytes(m, sc) + TB_PAGE_BYTES - 1) & ~(size_t)(TB_PAGE_BYTES - 1);
}

// the view of one slot laid out in buf (tb_workBytes(m, sc) bytes, 16-byte aligned): the
// kernels' per-thread scratch in local memory, and tb_newWork's
TB_HD void tb_workCarve(const tbModel* m, const tbScratch* sc, char* buf, tbWork* w) {
  size_t off = 0;
#define TB_X(type, name, count) \
  w->name = (type*)(buf + off); \
  off += (sizeof(type) * (size_t)(count) + 15) & ~(size_t)15;
  TB_WORK_ARRAYS(TB_X)
#undef TB_X
  tb_workSolver(sc, w);
  tb_workScene(m, w);
  w->kin_path = w->kin_pose = NULL;
}

// the view of slot `slot` of sc
TB_HD void tb_workSlot(const tbModel* m, const tbScratch* sc, int slot, tbWork* w) {
  size_t k = (size_t)slot;
  if (sc->block) {
    tb_workCarve(m, sc, sc->block + k * sc->block_bytes, w);
    return;
  }
#define TB_X(type, name, count) \
  w->name = (type*)((char*)sc->name + k * tb_slotBytes(sizeof(type) * (size_t)(count)));
  TB_WORK_ARRAYS(TB_X)
#undef TB_X
  tb_workSolver(sc, w);
  tb_workScene(m, w);
  w->kin_path = w->kin_pose = NULL;
}

// the contact blocks a step may hold: the shapes' contacts and the support tripods' points (a
// tripod with a shape contact under the pyramid found the LCP scratch sized without the tripod)
TB_HD int tb_contactCapacity(const tbModel* m) {
  return (int)tb_cap(m->maxcon + 3 * m->nsupport);
}

// model.c: 1 when the n values are all finite
int tb_allFinite(const double* v, int n);
// model.c: a builder array grown to hold n + 1 items; 0, or -1 when out of memory
int tb_grow(void** arr, int* cap, int n, size_t item);
// model.c: 0 while m takes more objects, else -1 with the error set
int tb_checkEditable(const tbModel* m);
// schedule.c: the schedules' vary indices and keys; an error where a parameter or the option
// rest_speed would fight one
int tb_compileSchedules(tbModel* m);
// vary.c: the values of one object of a field (its components), and the objects of a field
int tb_fieldWidth(int field);
int tb_fieldCount(const tbModel* m, int field);

// the values of (field, object) in a vary vector; unchecked, for stages that index valid objects
// (tb_varyIndex is the checked form)
TB_HD const double* tb_varyOf(const tbModel* m, const double* vary, int field, int object) {
  return vary + m->vary_adr[field] + object * m->vary_width[field];
}

// joint j's anchors in a vary vector: in body_a's frame, then in body_b's (world for -1)
TB_HD const double* tb_jointAnchor(const tbModel* m, const double* vary, int j) {
  return tb_varyOf(m, vary, TB_F_JOINT, j) + TB_JNT_ANCHOR;
}

// scratch with nslot slots for model m (host memory) in the kernels' layout, each array's slots
// side by side (the tests' stand-in for the device); NULL when out of memory
tbScratch* tb_newScratch(const tbModel* m, int nslot);
// scratch for nthread CPU threads, a block of whole pages each (tbScratch.block); NULL when out
// of memory
tbScratch* tb_newThreadScratch(const tbModel* m, int nthread);
void tb_freeScratch(tbScratch* sc);

// solver scratch per slot for the model's solver, cone and capacities. With the exact cone a
// step's LCP form (auto's MLCP and Lemke stages) has at most one unknown per row, since a
// frictional contact refuses it (tb_lcpSize): sizing it for the pyramid's facets and slacks made
// a 12-sphere chain's slot 31 MB instead of 3.
TB_HD void tb_solverScratchSize(const tbModel* m, size_t* nd, size_t* ni) {
  int n = (int)tb_cap(m->maxrow), ncontact = tb_contactCapacity(m);
  if (m->opt.cone == TB_CONE_PYRAMID) {
    *nd = tb_solverWorkWords(m->opt.solver, n, ncontact, m->opt.facets, ni);
  } else {
    *nd = tb_solverNeed(m->opt.solver, n, n, ni);
  }
}

// The stages of the step are TB_HD functions over (model, batch data, scene, slot view) in
// stage_*.h, shared with the kernels: stage_kinematic.h, stage_collide.h, stage_rows.h,
// stage_assemble.h, solver_pgs.h and stage_step.h, which composes them.

// a compiled array of n items (zeroed; one at least): 1 when out of memory
#define TB_ALLOC(ptr, n) ((ptr) = calloc((size_t)((n) > 0 ? (n) : 1), sizeof(*(ptr)))) == NULL

// model_hull.c: meshes' convex polyhedra
// a polyhedron's counts, corners, faces and edges (flat faces, convex); 0, or an error naming
// geom g
int tb_checkHullDef(const tbHullDef* h, int g);
// h and its arrays in one allocation (free() frees it), or NULL
tbHullDef* tb_copyHullDef(const tbHullDef* h);
// pack the meshes' polyhedra into the hull_* arrays, and their reach into geom_vreach
int tb_compileHulls(tbModel* m);

// planar.c: prisms and support tripods of the 2.5D model
// a prism definition's vertices, radius and orientation; 0, or an error naming geom g
int tb_checkPrismDef(const tbModel* m, const tbGeomDef* def, int g);
// pack prism vertices and support bodies into the compiled arrays
int tb_compilePlanar(tbModel* m);
// the supports' default values in the vary vector
void tb_supportVary(const tbModel* m, double* vary0);
// support normal forces (N) of tripod s from one scene's values (thesis Eq. 3.24, support.h); 0,
// or an error naming the support and the field (gravity, mu, points around the center of mass)
int tb_supportLoads(const tbModel* m, const double* vary, int s, double lambda[3]);
// every support of one scene's values; TB_OK, or TB_ERR_ARG naming the first bad one
int tb_checkSupports(const tbModel* m, const double* vary);
// a limited joint's bounds: lo <= hi; a spherical joint's are 0 and its cone angle in (0, pi].
// TB_OK, or TB_ERR_ARG naming joint j and the values
int tb_checkJointLimits(int j, int type, double lo, double hi);
// every limited joint's bounds in one scene's values
int tb_checkSceneJointLimits(const tbModel* m, const double* vary);

// model.c: whether the model's options and one scene's values (vary) suit its step: the
// quasistatic step (thesis §3.4) takes no minimal-coordinate joints and no restitution, the
// implicit step (§3.5) no restitution and no compliant cut shapes. TB_OK for the others.
int tb_checkStepValues(const tbModel* m, const double* vary);
// model_compile.c: tb_minStep of one scene's values, and that scene's dt in [it, TB_MAX_DT]
// (TB_OK, or TB_ERR_ARG naming both)
double tb_minStepOf(const tbModel* m, const double* vary);
int tb_checkStepLength(const tbModel* m, const double* vary);

// step.c: what a step's contacts did, for drawing: the world point of each contact block (a
// shape contact's midpoint, a support tripod's point) and the force its impulses put on body
// body[0] from body[1] (-1: the world), N
typedef struct tbContactForce {
  double pos[3];
  double force[3];
  int body[2];
} tbContactForce;
// call right after tb_stepScene with the same work; out has room for w's blocks (m->maxrow);
// returns the number written
int tb_stepContacts(const tbModel* m, const tbWork* w, tbContactForce* out);

// mlcp.c: the mixed LCP of thesis Eq. 2.78 assembled from the step's rows
typedef struct tbMLCP {
  int n;               // total size
  int nfree;           // equality rows: unlocked velocities + bilateral rows
  int nv, nb, nc, nf;  // velocity unknowns, bilateral rows, contacts, friction directions
  double* M;           // (n x n) row-major
  double* q;           // (n)
} tbMLCP;
// call right after tb_stepScene with the same work: its rows, impulses x and v+ (in vfree)
int tb_buildMLCP(const tbModel* m, const tbWork* w, tbMLCP* out);
void tb_freeMLCP(tbMLCP* p);

// data.c: the machine's physical memory in bytes (0 or less when unknown): what an allocation
// beyond it is refused by (the system would grant it and end the process when it is touched)
double tb_machineBytes(void);
// data.c: the settings new batches take (tb_defaultRunSettings), set by the rollout layer's
// setters once they have checked them
void tb_setRunDefaults(const tbRunSettings* r);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_ENGINE_H_
