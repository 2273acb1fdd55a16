// Internal interfaces of the CPU path: the stages of one step and the scratch they share.
#ifndef TUMBLE_HOST_ENGINE_H_
#define TUMBLE_HOST_ENGINE_H_

#include <tumble/collide_geom.h>
#include <tumble/problem.h>
#include <tumble/tumble.h>

#ifdef __cplusplus
extern "C" {
#endif

// set the calling thread's error message (printf-style); returns TB_ERR_ARG for chaining
int tb_setError(const char* fmt, ...);
void tb_clearError(void);

// constraint rows carry up to two bodies; each row's Jacobian is 6 entries per body
// row kinds decide which velocities enter b: position-level rows see kinematic bodies at
// t + h through their pose (thesis §5.1.2), velocity-level rows through their velocity
enum { TB_ROW_POSITION = 0, TB_ROW_VELOCITY = 1 };

typedef struct tbRowJ {
  int body[2];     // body indices, -1 for the world
  double J[2][6];  // [linear; angular] per body
  int kind;        // TB_ROW_*
  double bias;     // added to b: Phi/h stabilization, servo targets, restitution
  double cfm;      // added to the diagonal of A (servo compliance)
} tbRowJ;

struct tbWork {
  int nbody, maxcon, maxrow;
  double* vary;  // (nvary) this scene's parameter values
  // pose at which the step's geometry is evaluated: dynamic and static bodies at t,
  // kinematic bodies at t + h
  double* xpos;   // (nbody x 3)
  double* xquat;  // (nbody x 4)
  double* xvel;   // (nbody x 6) kinematic bodies' velocity at t + h, others at t
  double* minv;   // (nbody x 12) inverse mass (3, 0 on locked DoFs), inverse inertia (9)
  double* vfree;  // (nbody x 6) velocity after forces, before impulses
  // shapes at the work pose, and the radius of a sphere about each shape's origin that holds it
  tbGeomPose* gpose;  // (ngeom)
  double* greach;     // (ngeom) INFINITY for planes
  // contacts
  int ncon;
  tbContactPoint* con;  // (maxcon)
  int* con_pair;        // (maxcon)
  // rows
  int nrow, nblock;
  tbRowJ* row;                        // (maxrow)
  double* row_MJ;                     // (maxrow x 2 x 6) M^-1 J^T per body side
  int* row_key;                       // (maxrow) identity across steps for warm start
  double *A, *b, *lo, *hi, *x;        // (maxrow^2), (maxrow) x 4
  int *blk_type, *blk_adr, *blk_dim;  // (maxrow)
  double *blk_mu, *blk_angle;         // (maxrow)
  tbSolverWork* solver_work;          // for the model's solver, sized by its capacities
};

// kinematic.c: poses of kinematic bodies
void tb_kinematicInit(const tbModel* m, const double* vary, int b, double pos[3], double quat[4],
                      double vel[6]);
void tb_kinematicAdvance(const tbModel* m, const double* vary, int b, double t, double h,
                         double pos[3], double quat[4], double vel[6]);

// collide.c: every contact of the scene at the work pose; returns 0, or -1 on overflow
int tb_collide(const tbModel* m, tbWork* w);

// constraint.c: rows and the Delassus problem of the step
void tb_massInverse(const tbModel* m, tbWork* w);
void tb_freeVelocity(const tbModel* m, const tbData* d, int s, tbWork* w);
int tb_makeRows(const tbModel* m, const tbData* d, int s, tbWork* w);
void tb_assemble(const tbModel* m, tbWork* w);
tbProblem tb_problemOf(const tbModel* m, const tbWork* w);
// post-step velocity: vfree <- vfree + M^-1 J^T x
void tb_applyImpulse(const tbModel* m, tbWork* w);

// planar.c: prisms and support tripods of the 2.5D model
// a prism definition's vertices, radius and orientation; 0, or an error naming geom g
int tb_checkPrismDef(const tbModel* m, const tbGeomDef* def, int g);
// pack prism vertices and support bodies into the compiled arrays
int tb_compilePlanar(tbModel* m);
// the supports' default values in the vary vector
void tb_supportVary(const tbModel* m, double* vary0);
// support normal forces (N) of tripod s from one scene's values (thesis Eq. 3.24); 0, or an
// error naming the support and the field (gravity, mu, points around the center of mass)
int tb_supportLoads(const tbModel* m, const double* vary, int s, double lambda[3]);
// every support of one scene's values; TB_OK, or TB_ERR_ARG naming the first bad one
int tb_checkSupports(const tbModel* m, const double* vary);

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

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_ENGINE_H_
