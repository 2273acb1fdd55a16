// tumble: batched rigid-body scenes with frictional contact.
//
// A tbModel is what every scene of a batch shares (bodies, shapes, joints, kinematic drivers,
// named parameters, solver options); it is built with tb_add*, frozen by tb_compileModel and
// const afterwards. A tbData holds N scenes, scene as the outer index: the (nscene x nparam)
// table of parameter values, the state and the per-scene status. The step of one scene is a
// pure function of the model, its parameter row and its state, so a batch runs in any order,
// on any number of threads, in any split, with bitwise-identical results.
#ifndef TUMBLE_TUMBLE_H_
#define TUMBLE_TUMBLE_H_

#include <stdint.h>
#include <stdio.h>

#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

// the shape types (tbGeomDef.type)
enum {
  TB_GEOM_SPHERE = 0,
  TB_GEOM_CAPSULE = 1,
  TB_GEOM_BOX = 2,
  TB_GEOM_PLANE = 3,
  TB_GEOM_PRISM = 4,  // planar scenes: a rounded convex polygon in the xy plane, extruded along z
  TB_GEOM_ELLIPSOID = 5,       // semi-axes size[0..2] along the local axes: geometrically implicit
                               // contact only (option implicit)
  TB_GEOM_SUPERELLIPSOID = 6,  // sum_k |y_k / size[k]|^e <= 1, e the geom's exponent (>= 2):
                               // option implicit only
  TB_GEOM_CYLINDER = 7,        // radius size[0], half-height size[1] along local z: option
                               // implicit only (its side and two caps, an intersection)
  TB_GEOM_MESH = 8,            // a convex polyhedron (tbGeomDef.hull): an MJCF mesh's convex hull
  TB_NGEOMTYPE = 9
};

// most half-spaces that cut one shape of the implicit step (a cylinder's caps besides)
#define TB_MAXCLIP 6
#define TB_MAXVERT2D 16     // most core vertices of one 2D shape (tbGeomDef.nvert)
#define TB_MAXHULLVERT 256  // most vertices of one convex polyhedron (tbHullDef.nvert)
#define TB_MAXFACEVERT 64   // most corners of one of its faces

// a convex polyhedron in its geom's frame: corners, faces and edges (MJCF meshes' hulls, which
// the loader computes)
typedef struct tbHullDef {
  int nvert;              // 4 .. TB_MAXHULLVERT
  const double* vert;     // (nvert x 3) m
  int nface;              // >= 4
  const double* plane;    // (nface x 4): the face's outward unit normal n and d (m): n . y = d
  const int* face_nvert;  // (nface) its corners, 3 .. TB_MAXFACEVERT
  const int* face_vert;   // (sum of face_nvert) each face's corners in turn, counter-clockwise
                          // seen from outside
  int nedge;              // nvert + nface - 2 (Euler)
  const int* edge;        // (nedge x 4): its corners v0, v1 and the faces either side of it
} tbHullDef;

//---- status ------------------------------------------------------------------------------------

typedef enum tbtStatus {
  TB_OK = 0,
  TB_ERR_ARG = 2,      // bad input: the message names the field and the value
  TB_ERR_MEMORY = 3,   // allocation failed
  TB_ERR_STATE = 4,    // API misuse (model not compiled, ...)
  TB_INTERRUPTED = 5,  // a job stopped after a chunk on Ctrl-C (tb_catchInterrupt, sweep.h)
} tbtStatus;

// last error message of the calling thread (empty when the last call succeeded)
const char* tb_lastError(void);

//---- model -------------------------------------------------------------------------------------
//
// Planar "2.5D" scenes (thesis §3.3): bodies that lock TB_LOCK_PLANAR move in (x, y, yaw), their
// shapes are TB_GEOM_PRISM (extruded rounded convex polygons: disc, stadium, polygon; a body with
// several is a compound), and a support tripod (tb_addSupport) gives them friction against the
// surface they rest on, with the support normal forces known from statics (thesis Eq. 3.24).

typedef enum tbtBody {
  TB_BODY_STATIC = 0,     // fixed in the world, no unknowns
  TB_BODY_DYNAMIC = 1,    // mass, inertia, forces
  TB_BODY_KINEMATIC = 2,  // pose a prescribed function of time (a driver), no unknowns
} tbtBody;

// bits of tbBodyDef.lock: the world-frame DoFs a body may not use (a planar xy body locks
// TB_LOCK_Z | TB_LOCK_RX | TB_LOCK_RY)
enum {
  TB_LOCK_X = 1,
  TB_LOCK_Y = 2,
  TB_LOCK_Z = 4,
  TB_LOCK_RX = 8,
  TB_LOCK_RY = 16,
  TB_LOCK_RZ = 32,
  TB_LOCK_PLANAR = 4 | 8 | 16,
};

typedef struct tbBodyDef {
  const char* name;   // unique, for outputs and parameter targets
  int type;           // tbtBody
  double mass;        // kg, > 0 for dynamic bodies
  double inertia[3];  // kg m^2, principal moments in the body frame (> 0 for dynamic bodies)
  double pos[3];      // m, initial world position of the center of mass
  double quat[4];     // initial world orientation (w, x, y, z); normalized on add
  double vel[6];      // initial twist [v (m/s); w (rad/s)], world frame
  double force[6];    // constant applied wrench [f (N); torque (N m)], world frame
  int lock;           // TB_LOCK_* bits
} tbBodyDef;
tbBodyDef tb_defaultBodyDef(void);

// The ranges of a body's values, whichever way they come (a def to tb_addBody, a parameter's
// value, a model file): coordinates within +-TB_MAX_POS m, velocities within +-TB_MAX_SPEED m/s
// and rad/s (the built-in scenes' x0 and vx0), masses in [TB_MIN_MASS, TB_MAX_MASS] kg. The
// mass range is nine decades either side of 1 kg (a microgram to a million tonnes), the lower
// end the mirror of the upper, so that 1/m, which the Delassus matrix and every velocity update
// take, spans no more than m does; a subnormal mass (1e-320 kg) would make 1/m inf.
#define TB_MAX_POS 1e6
#define TB_MAX_SPEED 1e6
#define TB_MIN_MASS 1e-9
#define TB_MAX_MASS 1e9
// the longest time step (s) a parameter dt takes; the shortest is the scene's (tb_minStep)
#define TB_MAX_DT 1.0

typedef struct tbGeomDef {
  int body;            // owning body index
  int type;            // TB_GEOM_* above
  double size[3];      // (m) sphere: radius (0 = point particle); capsule: radius, half-length
                       // along local z; box: half-extents; ellipsoid, superellipsoid: semi-axes;
                       // cylinder: radius, half-height; plane: unused
  double pos[3];       // m, offset in the body frame
  double quat[4];      // orientation in the body frame
  double mu;           // friction coefficient >= 0; a contact uses the larger of its two shapes'
  double restitution;  // Newton coefficient in [0, 1]; a contact uses the larger of the two
  double stiffness;    // N/m and N s/m: a compliant contact (Drumwright, lambda_n = -K phi -
  double damping;      // B phidot, implicit in phi); both 0: rigid. A contact of two compliant
                       // shapes takes the softer's (the smaller h K + B)
  int contype;         // collision bits: a and b may touch iff (a.contype & b.conaffinity) or
  int conaffinity;     // (b.contype & a.conaffinity) is nonzero (both 1 by default)
  int nvert;           // TB_GEOM_PRISM: core vertices, 1 (disc) .. TB_MAXVERT2D
  const double* vert;  // TB_GEOM_PRISM: (nvert x 2) m, core vertices in the geom frame's xy
                       // plane, counter-clockwise (copied by tb_addGeom)
  // geometrically implicit contact (option implicit) only:
  double torsion;   // m, >= 0: e_r of the elliptic friction law, the torsional friction's lever
                    // (spin friction up to mu e_r lambda_n); a contact uses the larger of the two
  double core;      // m, > 0: a compliant shape's (stiffness > 0) largest normal deflection, where
                    // its rigid core is reached (thesis §3.5.2); INFINITY: no core
  double exponent;  // TB_GEOM_SUPERELLIPSOID: e in [2, 64] (2: the ellipsoid; a box as it grows)
  int nclip;        // the shape cut by nclip half-spaces n . y <= d of the geom frame (thesis
  double clip[TB_MAXCLIP][4];  // Eq. 3.84-3.87: an intersection of convex functions): n (made
                               // unit), d (m); option implicit only
  const tbHullDef* hull;       // TB_GEOM_MESH: its polyhedron (copied by tb_addGeom)
} tbGeomDef;
tbGeomDef tb_defaultGeomDef(void);

typedef enum tbtJoint {
  TB_JOINT_REVOLUTE = 0,   // 1 rotational DoF about axis
  TB_JOINT_PRISMATIC = 1,  // 1 translational DoF along axis
  TB_JOINT_SPHERICAL = 2,  // 3 rotational DoFs
  TB_JOINT_FIXED = 3,      // none
} tbtJoint;

typedef struct tbJointDef {
  int type;              // tbtJoint
  int body_a;            // body index (dynamic)
  int body_b;            // body index, or -1 for the world
  double anchor[3];      // m, world position of the joint at the initial pose
  double axis[3];        // world direction of the joint axis at the initial pose
  int limited;           // 1: lo <= coordinate <= hi as unilateral rows; spherical: lo = 0 and
                         // the angle of body_a's rotation from the initial pose at most hi (a
                         // cone, MuJoCo's ball range)
  double lo, hi;         // rad (revolute, spherical) or m (prismatic); 0 at the initial pose
  int servo;             // 1: a servo row on the joint coordinate
  double kp;             // N/m or N m/rad, servo position gain (>= 0)
  double kd;             // N s/m or N m s/rad, servo velocity gain (>= 0, kp + kd > 0)
  double target_pos;     // servo target coordinate
  double target_vel;     // servo target rate
  double fmax;           // N or N m, servo force bound (> 0; use INFINITY for none)
  double drive;          // N, constant force pushing body_a along +axis relative to body_b
  double stiffness;      // N/m and N s/m on the positional rows, N m/rad and N m s/rad on the
  double damping;        // rotational ones: the joint's constraint rows compliant (Drumwright:
                         // lambda = -K phi - B phidot); both 0: rigid
  int minimal;           // 1: a revolute, prismatic or spherical joint in minimal (joint)
                         // coordinates: body_a is a child of body_b (-1: the world, or a static or
                         // dynamic body added before it) whose pose is its parent's moved by the
                         // joint's coordinates; no constraint rows, the coordinates unknowns of the
                         // step (Mylapilli & Jain). A spherical one holds a unit quaternion (the
                         // rotation from the initial relative orientation) and the child's angular
                         // velocity relative to its parent in the child's frame (as MuJoCo's ball)
  double q0, qd0;        // minimal revolute, prismatic joints: initial coordinate and rate (0: the
                         // bodies' initial pose). A minimal spherical joint starts at body_a's
                         // orientation and angular velocity parameters relative to body_b's
  double coord_damping;  // N m s/rad or N s/m, >= 0: viscous torque -c qdot on the coordinate,
                         // implicit in the step
  double armature;       // kg m^2 or kg, >= 0, minimal joints only: a rotor's inertia on each of
                         // the joint's coordinates (MuJoCo's armature: added to the mass
                         // matrix's diagonal)
} tbJointDef;
tbJointDef tb_defaultJointDef(void);

// Mason's three-point support tripod of a planar body on a horizontal surface (thesis §3.3): the
// normal forces are the static share of the weight, lambda_k = m |g_z| w_k with w the barycentric
// coordinates of the center of mass in the triangle (Eq. 3.24), and each point's friction lies in
// the disc of radius mu lambda_k (exact cone) or the n_d-gon inscribed in it (pyramid), in the
// same step problem as the in-plane contacts (Eq. 3.25-3.27).
typedef struct tbSupportDef {
  int body;            // dynamic body locking TB_LOCK_PLANAR
  double point[3][2];  // m, support points in the body frame's xy plane; the triangle must
                       // contain the center of mass (the body frame's origin) strictly inside
  double mu;           // support friction coefficient, finite and >= 0
} tbSupportDef;
tbSupportDef tb_defaultSupportDef(void);

typedef enum tbtDriver {
  TB_DRIVER_PLATE = 0,      // thesis §5.3: accelerations A_i sin(omega t + C_i)
  TB_DRIVER_CONSTVEL = 1,   // constant linear and angular velocity
  TB_DRIVER_KEYFRAMES = 2,  // piecewise-linear pose keyframes
  TB_DRIVER_ROCKING = 3,    // thesis Eq. 5.9: 2D rocking about y, amp[0..2] = alpha, T, d
} tbtDriver;

#define TB_MAXKEY 32
typedef struct tbDriverDef {
  int body;                       // kinematic body it moves
  int type;                       // tbtDriver
  double amp[6];                  // plate: A_1..A_6, translational (m/s^2) then angular (rad/s^2)
                                  // rocking: alpha (rad/s^2), T (s, > 0), d (m) in amp[0..2]
  double phase[6];                // plate: C_1..C_6 (rad)
  double omega;                   // plate: angular frequency (rad/s), thesis default 66 pi
  double vel[6];                  // constvel: [v; w] world; plate: [v] a drift added (m/s)
  int nkey;                       // keyframes: count (>= 1)
  double key_t[TB_MAXKEY];        // s, strictly increasing
  double key_pos[TB_MAXKEY][3];   // m
  double key_quat[TB_MAXKEY][4];  // orientation
} tbDriverDef;
tbDriverDef tb_defaultDriverDef(void);

// A schedule: one of a scene's values as a function of time, piecewise linear through its keys
// (t_i, v_i) and held at the first and the last value outside them, the same in every scene. A
// step from t to t + h takes the value at t + h (as it poses kinematic bodies there). What a
// schedule may drive: a joint's servo target, rate, gains, force bound and drive (TB_F_JOINT,
// TB_JNT_KP .. TB_JNT_DRIVE: an actuator's control over time) and a body's applied wrench
// (TB_F_BODY_FORCE, 0-5: a disturbance). A parameter on the same value is refused at compile
// (the schedule sets it every step), as are schedules with the option rest_speed
typedef struct tbScheduleDef {
  int field;                // TB_F_JOINT or TB_F_BODY_FORCE
  int object;               // the joint or body
  int comp;                 // TB_JNT_KP .. TB_JNT_DRIVE, or 0-5 (force, then torque; world)
  int nkey;                 // 1 .. TB_MAXKEY
  double key_t[TB_MAXKEY];  // s, strictly increasing
  double key_v[TB_MAXKEY];  // the value at each, finite
} tbScheduleDef;
tbScheduleDef tb_defaultScheduleDef(void);

typedef enum tbtCone {
  TB_CONE_EXACT = 0,    // quadratic Coulomb cone, the NCP of thesis Eq. 2.77 (default)
  TB_CONE_PYRAMID = 1,  // n_d-facet pyramid, the mixed LCP of thesis Eq. 2.78
} tbtCone;

// how the step holds its Delassus matrix A = J M^-1 J^T + cfm
typedef enum tbtDelassus {
  // PGS on many rows (TB_STEP_BODY_ROWS and more, no joints, maximal coordinates) holds none:
  // it sweeps the blocks in body space (host/engine/stage_bodies.h); every other step stores A
  TB_DELASSUS_AUTO = 0,
  TB_DELASSUS_DENSE = 1,  // A stored whatever the solver (comparisons)
} tbtDelassus;

typedef struct tbOption {
  double timestep;     // s, > 0
  double gravity[3];   // m/s^2
  int cone;            // tbtCone
  int facets;          // n_d, pyramid facets (>= 3; 2 is used where the tangent plane is a line)
  double facet_angle;  // rad, rotation of the first facet direction from the first tangent
  int facet_align;     // 1: align one facet against the tangential velocity each step
  double frame_angle;  // rad, rotation of every contact's tangent frame about its normal
  double margin;       // m, contacts with gap < margin enter the step's problem (thesis §4.2.1)
  double restitution_vmin;  // m/s, Newton restitution only for approach speeds above this
  int solver;               // tbtSolver
  int max_iter;             // solver iteration cap
  double tol;               // relative natural-map residual at which the solver stops
  double sor;               // over-relaxation factor in (0, 2)
  int warmstart;            // 1: start from the previous step's impulses
  int maxcon;               // contact capacity per scene; 0: the bound implied by the shapes
  // 1: the quasistatic step of thesis §3.4 (Trinkle, Berard & Pang): no inertia, each step the
  // displacement that balances the applied forces against the contacts (Model-DQC with the
  // exact cone, Model-DLC with the pyramid), in proximal rounds each solved by `solver` (auto
  // converges on the built-in quasistatic scenes, PGS alone may stall)
  int quasistatic;
  // 1: non-convex corners of sharp planar polygons (thesis §3.2): where a vertex meets another
  // polygon's vertex, the two edges there keep it out as a disjunction (psi_1 >= 0 or
  // psi_2 >= 0), not as two half-planes whose fictitious extensions catch what slides past
  int corners;
  // 1: geometrically implicit contact (thesis §3.5, Chakraborty, Berard, Akella & Trinkle): the
  // shapes' closest points are unknowns of the step, solved with the velocities as one mixed
  // NCP (Eq. 3.82-3.83, 3.92-3.93) so that contact holds at the end of the step on the exact
  // shapes, with elliptic friction and torsion (tbGeomDef torsion) and compliant shapes with a
  // rigid core (tbGeomDef stiffness, damping, core). Shapes: sphere, ellipsoid, superellipsoid,
  // cylinder, plane and, in planar scenes, the disc (a prism of one core vertex), each cut by
  // half-spaces if wanted (tbGeomDef clip); see stage_implicit.h
  int implicit;
  int delassus;  // tbtDelassus
  // a scene at rest stops computing steps: once every point of its shapes has moved slower than
  // rest_speed (m/s) for rest_time (s), its state is held through the rollout's remaining steps
  // (its time runs on, records and probes see the held state, nstep counts the steps computed)
  // and its status carries TB_SCENE_RESTED. 0: every step is computed. Only for models that
  // nothing moves but their own state (no kinematic body): the step is then a function of the
  // state alone, and a state at rest stays there up to that speed
  double rest_speed;
  double rest_time;
  // >= 0, dimensionless: regularized contacts. Each contact row (normal and tangents) reads
  // u_i + soft a_ii (x_i - x_last,i) for u_i, a_ii = J_i M^-1 J_i^T its own Delassus diagonal and
  // x_last its impulse in the last step (0 for a new contact): a proximal point step across time
  // steps. A + soft diag(A) is positive definite where A is only semidefinite (more contact rows
  // than the bodies' DoFs: a pile), so the step's problem has one answer, which the solvers
  // reach; where x moves (an impact) a contact yields by soft a_ii (x - x_last) per unit time, as
  // MuJoCo's regularization R_i = soft a_ii does all the time, and at rest, where x = x_last, the
  // answer is the rigid one: nothing sinks or creeps (a plain soft a_ii x_i would sink a body by
  // soft a_nn x_n h a step and creep a sticking one at soft a_tt x_t: the pile at soft = 1e-2 kept
  // moving at 5e-4 m/s after 6 s). 0: rigid (the default; sphere-pile 1e-2, plate-block 1e-3).
  // The default of the per-scene value (TB_OPT_SOFT: the scenes' and MJCF models' parameter
  // "soft" / "opt.soft"). Not with the quasistatic or the geometrically implicit step
  double soft;
} tbOption;
tbOption tb_defaultOption(void);

// fields of the per-scene "vary" vector that parameters may target
typedef enum tbtField {
  TB_F_BODY_MASS = 0,  // (nbody x 1)
  TB_F_BODY_INERTIA,   // (nbody x 3)
  TB_F_BODY_POS,       // (nbody x 3) initial position
  TB_F_BODY_QUAT,      // (nbody x 4) initial orientation
  TB_F_BODY_VEL,       // (nbody x 6) initial twist
  TB_F_BODY_FORCE,     // (nbody x 6) applied wrench
  TB_F_GEOM_MU,        // (ngeom x 1)
  TB_F_GEOM_REST,      // (ngeom x 1)
  TB_F_GEOM_SIZE,      // (ngeom x 3)
  TB_F_DRIVER,         // (ndriver x TB_DRV_NPRM)
  TB_F_JOINT,          // (njnt x TB_JNT_NPRM)
  TB_F_OPT,            // (TB_OPT_NPRM)
  TB_F_SUPPORT,        // (nsupport x TB_SUP_NPRM)
  TB_F_GEOM_SOFT,      // (ngeom x 2) contact stiffness, damping
  TB_F_GEOM_IMPLICIT,  // (ngeom x 3) torsion e_r, core deflection, exponent (option implicit)
  TB_NFIELD
} tbtField;

// layout of one driver's parameters; a rocking driver keeps alpha, T and d in TB_DRV_AMP + 0, 1, 2
// (TB_DRV_ROCK_*)
enum { TB_DRV_ROCK_ALPHA = 0, TB_DRV_ROCK_T = 1, TB_DRV_ROCK_D = 2 };
enum { TB_DRV_AMP = 0, TB_DRV_PHASE = 6, TB_DRV_OMEGA = 12, TB_DRV_VEL = 13, TB_DRV_NPRM = 19 };
// layout of one joint's parameters
enum {
  TB_JNT_LO = 0,
  TB_JNT_HI,
  TB_JNT_KP,
  TB_JNT_KD,
  TB_JNT_TPOS,
  TB_JNT_TVEL,
  TB_JNT_FMAX,
  TB_JNT_DRIVE,
  TB_JNT_STIFF,
  TB_JNT_DAMP,
  TB_JNT_Q0,  // minimal joints' initial coordinate and rate
  TB_JNT_QD0,
  TB_JNT_CDAMP,        // the coordinate's viscous damping
  TB_JNT_ANCHOR = 13,  // 6 entries: the anchor in body_a's frame, then in body_b's (world for -1);
                       // a tree's link lengths (a minimal child's start pose follows from them)
  TB_JNT_ARMATURE = 19,  // a minimal joint's rotor inertia on each coordinate
  TB_JNT_NPRM = 20
};
// layout of the option parameters
enum {
  TB_OPT_DT = 0,
  TB_OPT_GRAVITY = 1,  // 3 entries
  TB_OPT_FRAME_ANGLE = 4,
  TB_OPT_FACET_ANGLE = 5,
  TB_OPT_SOFT = 6,
  TB_OPT_NPRM = 7
};

// layout of one support tripod's parameters: mu, then x, y of the three points
enum { TB_SUP_MU = 0, TB_SUP_POINT = 1, TB_SUP_NPRM = 7 };

#define TB_NAMELEN 48
#define TB_MAXTARGET 256

typedef struct tbParam {
  char name[TB_NAMELEN];  // as typed on the command line
  char unit[16];
  char doc[80];
  double value;   // default
  double lo, hi;  // admissible closed range (NaN is never admissible)
  int lo_open;    // 1: the lower bound itself is excluded (mass > 0, dt > 0)
  int ntarget;
  int target[TB_MAXTARGET];    // indices into the vary vector
  double scale[TB_MAXTARGET];  // each target is set to scale * value (mass -> inertia, ...)
} tbParam;

typedef char tbName[TB_NAMELEN];

// The compiled model's arrays, declared once: (type, name, count) with the counts in the model's
// own sizes. The table gives the struct its fields and drives freeing and the device upload (one
// buffer). Shapes:
//   body_type, body_lock, body_name, body_driver (driver index or -1)   (nbody)
//   geom_type, geom_body (ngeom); geom_pos (ngeom x 3), geom_quat (ngeom x 4) in the body frame;
//   geom_nvert, geom_vertadr (ngeom): prism core vertices in geom_vert (nvert x 2, geom frame);
//   geom_vreach (ngeom): distance of a prism's farthest core vertex from its origin
//   geom_nclip (ngeom), geom_clip (ngeom x TB_MAXCLIP x 4): the half-spaces n . y <= d (geom
//   frame) cutting a shape of the implicit step
//   geom_hull (ngeom): a mesh's polyhedron, -1 for other shapes; hull_vertadr, hull_nvert,
//   hull_faceadr, hull_nface, hull_edgeadr, hull_nedge (nhull) its parts in hull_vert
//   (nhullvert x 3, geom frame), hull_plane (nhullface x 4: n, d), hull_facevertadr and
//   hull_facenvert (nhullface) each face's corners in hull_facevert (nhullfacevert: corner
//   indices within the hull), hull_edge (nhulledge x 4: v0, v1, the faces either side) as in
//   tbHullDef
//   jnt_type, jnt_limited, jnt_servo (njnt); jnt_body (njnt x 2: a, b, -1 world); jnt_axis
//   (njnt x 2 x 3) in each body's frame (world for -1), the anchors being per-scene
//   (TB_JNT_ANCHOR); jnt_qrel (njnt x 4) the initial relative orientation conj(qb) qa
//   drv_type, drv_body, drv_nkey (ndriver); drv_key (ndriver x TB_MAXKEY x 8): t, pos[3], quat[4]
//   sup_body (nsupport); sch_target (nsched) each schedule's vary index, sch_nkey (nsched) and
//   sch_key (nsched x TB_MAXKEY x 2: t, value) its keys; pair_geom (npair x 2), pair_maxcon (npair)
//   minimal coordinates (model.c, stage_tree.h): body_parent, body_pjnt (nbody) the parent body
//   and joint of a tree body (-1: a root, its 6 world DoFs less its locks its own), body_dofadr,
//   body_dofnum (nbody) its generalized velocities; dof_body, dof_axis (ndof) each one's body and
//   world axis (0-5: a root's v_x .. w_z, 6: the joint coordinate, 7-9: a spherical joint's
//   rate about its child's x, y, z axis); jnt_qadr, jnt_qdadr (njnt) a minimal joint's first
//   coordinate in the scene's jnt_q and first rate in jnt_qd, -1 for the others
//   vary0 (nvary) default values of the per-scene vector; param (nparam)
#define TB_MODEL_ARRAYS(X)                       \
  X(int, body_type, m->nbody)                    \
  X(int, body_lock, m->nbody)                    \
  X(tbName, body_name, m->nbody)                 \
  X(int, body_driver, m->nbody)                  \
  X(int, geom_type, m->ngeom)                    \
  X(int, geom_body, m->ngeom)                    \
  X(double, geom_pos, m->ngeom * 3)              \
  X(double, geom_quat, m->ngeom * 4)             \
  X(int, geom_nvert, m->ngeom)                   \
  X(int, geom_vertadr, m->ngeom)                 \
  X(double, geom_vert, m->nvert * 2)             \
  X(double, geom_vreach, m->ngeom)               \
  X(int, geom_nclip, m->ngeom)                   \
  X(double, geom_clip, m->ngeom* TB_MAXCLIP * 4) \
  X(int, geom_hull, m->ngeom)                    \
  X(int, hull_vertadr, m->nhull)                 \
  X(int, hull_nvert, m->nhull)                   \
  X(int, hull_faceadr, m->nhull)                 \
  X(int, hull_nface, m->nhull)                   \
  X(int, hull_edgeadr, m->nhull)                 \
  X(int, hull_nedge, m->nhull)                   \
  X(double, hull_vert, m->nhullvert * 3)         \
  X(double, hull_plane, m->nhullface * 4)        \
  X(int, hull_facevertadr, m->nhullface)         \
  X(int, hull_facenvert, m->nhullface)           \
  X(int, hull_facevert, m->nhullfacevert)        \
  X(int, hull_edge, m->nhulledge * 4)            \
  X(int, jnt_type, m->njnt)                      \
  X(int, jnt_body, m->njnt * 2)                  \
  X(double, jnt_axis, m->njnt * 6)               \
  X(double, jnt_qrel, m->njnt * 4)               \
  X(int, jnt_limited, m->njnt)                   \
  X(int, jnt_servo, m->njnt)                     \
  X(int, drv_type, m->ndriver)                   \
  X(int, drv_body, m->ndriver)                   \
  X(int, drv_nkey, m->ndriver)                   \
  X(double, drv_key, m->ndriver* TB_MAXKEY * 8)  \
  X(int, sup_body, m->nsupport)                  \
  X(int, sch_target, m->nsched)                  \
  X(int, sch_nkey, m->nsched)                    \
  X(double, sch_key, m->nsched* TB_MAXKEY * 2)   \
  X(int, pair_geom, m->npair * 2)                \
  X(int, pair_maxcon, m->npair)                  \
  X(int, body_parent, m->nbody)                  \
  X(int, body_pjnt, m->nbody)                    \
  X(int, body_dofadr, m->nbody)                  \
  X(int, body_dofnum, m->nbody)                  \
  X(int, dof_body, m->ndof)                      \
  X(int, dof_axis, m->ndof)                      \
  X(int, jnt_qadr, m->njnt)                      \
  X(int, jnt_qdadr, m->njnt)                     \
  X(double, vary0, m->nvary)                     \
  X(tbParam, param, m->nparam)

typedef struct tbModel {
  // sizes
  int nbody, ngeom, njnt, ndriver, nparam;
  int nsupport;                                               // support tripods
  int nsched;                                                 // schedules (tbScheduleDef)
  int nvert;                                                  // prism core vertices of all shapes
  int nhull, nhullvert, nhullface, nhullfacevert, nhulledge;  // meshes' polyhedra and their parts
  int nvary;                                                  // per-scene parameterizable values
  int npair;                                                  // candidate shape pairs
  int maxcon;                                                 // contact capacity per scene
  int maxrow;                                                 // constraint-row capacity per scene
  int maxeq;  // rows that are equalities (the joints' bilateral rows): the direct solve's size
  int nv;     // velocity DoFs (6 per body, locked ones included)
  int nq;     // minimal joints' coordinates in jnt_q (1 each, 4 for a spherical one)
  int nqd;    // minimal joints' rates in jnt_qd (1 each, 3 for a spherical one)
  int ndof;   // generalized velocities when nq > 0 (roots' unlocked DoFs and the
              // coordinates), else 0: the step is then the maximal-coordinate one

  tbOption opt;

#define TB_X(type, name, count) type* name;
  TB_MODEL_ARRAYS(TB_X)
#undef TB_X

  // where each field starts in the vary vector, and its values per object
  int vary_adr[TB_NFIELD];
  int vary_width[TB_NFIELD];

  // builder bookkeeping (capacities of the definitions below)
  int cap_body, cap_geom, cap_jnt, cap_driver, cap_param, cap_support, cap_exclude, cap_sched;
  int nexclude;
  int* exclude;  // (nexclude x 2) body pairs whose shapes never touch (tb_excludeContact)
  tbBodyDef* bdef;
  tbGeomDef* gdef;
  tbJointDef* jdef;
  tbDriverDef* ddef;
  tbSupportDef* sdef;
  tbScheduleDef* schdef;
  int compiled;
} tbModel;

tbModel* tb_newModel(void);
void tb_freeModel(tbModel* m);
// each returns the new object's index, or -1 with tb_lastError() naming the bad field
int tb_addBody(tbModel* m, const tbBodyDef* def);
int tb_addGeom(tbModel* m, const tbGeomDef* def);
int tb_addJoint(tbModel* m, const tbJointDef* def);
int tb_addDriver(tbModel* m, const tbDriverDef* def);
int tb_addSupport(tbModel* m, const tbSupportDef* def);
int tb_addSchedule(tbModel* m, const tbScheduleDef* def);
// the shapes of bodies a and b never touch (MJCF's <contact><exclude>); TB_OK, or an error
// naming the bad body
int tb_excludeContact(tbModel* m, int a, int b);
// a named parameter overriding one or more vary entries; targets are added with tb_paramTarget
int tb_addParam(tbModel* m, const char* name, const char* unit, const char* doc, double lo,
                double hi, int lo_open);
// make parameter p also set (field, object, component) to scale * value; the default value
// comes from the first target
int tb_paramTarget(tbModel* m, int p, int field, int object, int component);
int tb_paramTargetScaled(tbModel* m, int p, int field, int object, int component, double scale);
// validate and freeze; afterwards the model is const
int tb_compileModel(tbModel* m);
int tb_findParam(const tbModel* m, const char* name);
int tb_findBody(const tbModel* m, const char* name);
// the vary vector index of (field, object, component), or -1 if out of range
int tb_varyIndex(const tbModel* m, int field, int object, int component);

//---- data --------------------------------------------------------------------------------------

// per-scene status bits; the *_FAIL bits stop the scene, the others are warnings
enum {
  TB_SCENE_NAN_FAIL = 1,       // non-finite state: the scene diverged
  TB_SCENE_OVERFLOW_FAIL = 2,  // more contacts than the capacity: stopped, nothing dropped
  TB_SCENE_UNCONVERGED = 4,    // a step's solver stopped above tolerance
  TB_SCENE_SOLVER_FAIL = 8,    // the model's solver does not apply to a step's problem
  TB_SCENE_START_FAIL = 16,    // the start sinks a shape into another (tb_buriedContact)
  TB_SCENE_BALANCE_FAIL = 32,  // a quasistatic step found no equilibrium (stage_quasi.h)
  TB_SCENE_RESTED = 64,        // came to rest (tbOption rest_speed): its last steps held
  TB_SCENE_FAILMASK = 1 | 2 | 8 | 16 | 32,
};

// The batch's per-scene arrays, declared once: (type, name, count per scene). The table gives
// tbData its fields and drives allocation, freeing, scene copies and the device transfers. The
// scene is the outer index of each array in a host batch and the inner one (scene_fast) in the
// GPU's chunks, where neighbouring threads then read neighbouring words. Each line's comment
// gives its shape in a host batch and its unit.
#define TB_DATA_ARRAYS(X)                                                                       \
  X(double, param, d->nparam)        /* (nscene x nparam) parameter values, their own units */  \
  X(double, time, 1)                 /* (nscene) s, simulated time */                           \
  X(int64_t, nstep, 1)               /* (nscene) steps taken */                                 \
  X(double, body_pos, d->nbody * 3)  /* (nscene x nbody x 3) m, center of mass, world */        \
  X(double, body_quat, d->nbody * 4) /* (nscene x nbody x 4) orientation (w, x, y, z), world */ \
  X(double, body_vel, d->nbody * 6)  /* (nscene x nbody x 6) m/s, rad/s: [v; w], world */       \
  X(double, warm, d->maxrow)         /* (nscene x maxrow) N s, the last step's impulses */      \
  X(int, warm_key, d->maxrow)        /* (nscene x maxrow) the row key of each warm impulse */   \
  X(int, nwarm, 1)                   /* (nscene) warm impulses kept */                          \
  X(int, status, 1)                  /* (nscene) TB_SCENE_* bits */                             \
  X(int, ncon, 1)                    /* (nscene) contacts in the last step */                   \
  X(int, iter_last, 1)               /* (nscene) solver iterations in the last step */          \
  X(int, iter_max, 1)                /* (nscene) the most solver iterations of any step */      \
  X(int64_t, iter_sum, 1)            /* (nscene) solver iterations over all steps */            \
  X(double, resid_last, 1)           /* (nscene) the solver's residual in the last step */      \
  X(double, resid_max, 1)            /* (nscene) the largest residual of any step */            \
  X(int, fail_step, 1)               /* (nscene) 0-based step that failed, -1: none */          \
  X(double, jnt_q, d->nq)            /* (nscene x nq) minimal joints' coordinates (rad, m) */   \
  X(double, jnt_qd, d->nqd)          /* (nscene x nqd) their rates (rad/s, m/s); the bodies' */ \
                                     /* pose and twist follow from jnt_q and jnt_qd */

// How tb_rollout runs a batch: each batch's own (tbData.run), so that two batches of one process
// may differ. tb_newData copies the process's defaults into it (tb_defaultRunSettings: what
// tb_setDevice, tb_setPrecision and tb_setShare set, as omp_set_num_threads sets OpenMP's), and
// the caller may change a batch's before a rollout; the rollout checks it (TB_DEVICE_GPU without
// a usable GPU is an error there).
typedef struct tbRunSettings {
  int device;                   // tbtDevice (TB_DEVICE_AUTO: the GPU when one is usable)
  int precision;                // tbtPrecision
  const struct tbShare* share;  // the processes that share its rollouts (NULL: this one alone)
} tbRunSettings;
// the process's defaults, which new batches take
tbRunSettings tb_defaultRunSettings(void);

typedef struct tbData {
  int nscene;
  int nbody, nparam, maxrow, nq, nqd;
  int scene_fast;  // element i of scene s of an array at [i nscene + s], else at [s count + i]
#define TB_X(type, name, count) type* name;
  TB_DATA_ARRAYS(TB_X)
#undef TB_X
  struct tbScratch* scratch;  // the step scratch of the CPU path, a slot per thread (rollout)
  tbRunSettings run;          // where and how its rollouts run
} tbData;

tbData* tb_newData(const tbModel* m, int nscene);
// the same, its rollouts on device (tbtDevice) at precision (tbtPrecision): a job's batches,
// which its definition's device and precision choose
tbData* tb_newDataOn(const tbModel* m, int nscene, int device, int precision);
void tb_freeData(tbData* d);
// fill every scene's parameter row with the model defaults
void tb_defaultParams(const tbModel* m, tbData* d);
// check every value of the parameter table against its range, and each scene's time step
// against tb_minStep; the error names scene, parameter and value
int tb_checkParams(const tbModel* m, const tbData* d);
// The shortest time step (s) scene `scene` of d (d NULL: the model's own values) can take. A body
// that gravity accelerates from rest must move in one step (h v = g h^2) by more than the
// rounding of its coordinates (eps L, L the scene's length scale): h >= sqrt(eps L / g). Below
// that a step moves nothing (x + h v == x) while the rows' 1/h terms (gap / h, the joints' error
// / h) grow without bound (1e-300 s: NaN residuals). g is the scene's gravity, at least 1 g
// (9.80665 m/s^2, the reference acceleration of a scene with less gravity or none); L the largest
// |coordinate| of a body and size of a shape other than a plane, at least 1 mm. At L = 1 m that
// is 4.8e-9 s, at 1 mm 1.5e-10 s, at TB_MAX_POS 4.8e-6 s. NaN when out of memory.
double tb_minStep(const tbModel* m, const tbData* d, int scene);
// initial state of every scene from its parameters (bodies at their initial pose, time 0)
int tb_resetData(const tbModel* m, tbData* d);

// the steps scene s of d took up to its last good state: all of them, or those before its
// failing step
int64_t tb_lastGoodStep(const tbData* d, int s);

// copy scene s of a into scene t of b (both of model m): parameters, state, warm start, status
// and solver statistics (a and b distinct batches)
void tb_copyScene(const tbModel* m, const tbData* a, int s, tbData* b, int t);

// per-scene values of every parameterizable field: the model defaults overridden by the
// scene's parameter row (out has m->nvary entries)
void tb_sceneVary(const tbModel* m, const tbData* d, int scene, double* out);

//---- stepping ----------------------------------------------------------------------------------

typedef struct tbWork tbWork;  // one scratch slot for a scene's step (host/engine/engine.h)
tbWork* tb_newWork(const tbModel* m);
void tb_freeWork(tbWork* w);

// advance scene s by one step (thesis Eq. 2.77/2.78), using w as scratch
void tb_stepScene(const tbModel* m, tbData* d, int s, tbWork* w);

// what a rollout records: the state of every non-static body every `every` steps (0: only the
// first and last step); rec has room for (nscene x nrecord x nbody x 13) doubles
typedef struct tbRecord {
  int every;
  int nrecord;    // records per scene
  double* state;  // (nscene x nrecord x nbody x 13): pos[3], quat[4], vel[6]
  double* time;   // (nscene x nrecord)
  int* step;      // (nrecord)
} tbRecord;
int tb_recordCount(int nstep, int every);
// rec->step: the steps of nstep a rollout records (tb_rollout fills it too)
void tb_recordSteps(int nstep, tbRecord* rec);

// advance scenes [s0, s1) by nstep steps as d->run says (device, precision, share): OpenMP over
// scenes on the CPU, the fused kernel on the GPU; rec may be NULL. The results are bitwise the
// same for any thread count, batch split and chunking.
int tb_rollout(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec);

// progress of long batches: while counter is set, tb_rollout adds one to *counter (atomically)
// for every scene it finishes (the GPU path: a rollout's scenes when it returns), so that another
// thread may show it; NULL turns it off. The process's, like a log: every batch counts into it.
void tb_setRolloutCounter(long* counter);

//---- scale-out ---------------------------------------------------------------------------------

// Processes that share a study (MPI ranks in the command line; any transport that moves bytes).
// With a share of size > 1 set, each tb_rollout runs on every process of it: each runs its part
// of the scenes (blocks of contiguous scenes, block k to rank k mod size, four per rank) and
// then every part travels to every process, so that each holds the whole batch (state, records,
// probe results) bitwise as one process would have left it. Work around the rollouts is then
// the same on every process, which must make the same calls (the same batches: sizes taken from
// rank 0 where they depend on a process's threads or device); only rank 0 writes files
// (tb_shareRank). A failure on one process fails the rollout on all, with that process's
// message. A batch's share is its run.share; tb_setShare sets the process's (its rank, the
// broadcasts below, and the default new batches take).
typedef struct tbShare {
  int rank, size;
  void* ctx;
  // every process's part into all on every process: part r is bytes[r] bytes at offset
  // bytes[0] + ... + bytes[r - 1], this process's already in place; the sizes are multiples of 8
  void (*allgather)(void* ctx, void* all, const size_t* bytes);
  // rank 0's n bytes into buf on every process
  void (*bcast)(void* ctx, void* buf, size_t n);
} tbShare;
// set (NULL or a size of 1: every rollout runs whole here); the share must outlive its use
void tb_setShare(const tbShare* share);
// this process's rank in the share (0 without one)
int tb_shareRank(void);
// rank 0's value of v on every process (v itself without a share): decisions taken on a clock or
// a signal, which processes would otherwise take at different points
int tb_shareRoot(int v);
// rank 0's malloc'd bytes (NULL: none) on every process; TB_OK, or TB_ERR_MEMORY (*buf NULL)
int tb_shareBytes(char** buf, size_t* n);

//---- device ------------------------------------------------------------------------------------

typedef enum tbtDevice {
  TB_DEVICE_CPU = 0,   // OpenMP over scenes (the default)
  TB_DEVICE_GPU = 1,   // the CUDA path; a model it cannot take is an error
  TB_DEVICE_AUTO = 2,  // the GPU when one is usable, else the CPU
} tbtDevice;

// the device new batches take (tbRunSettings), like OpenMP's thread count. TB_OK, or TB_ERR_ARG
// when TB_DEVICE_GPU has no usable device (built without CUDA, or none seen)
int tb_setDevice(int device);
int tb_getDevice(void);
// the device a rollout of a new batch takes: TB_DEVICE_CPU or TB_DEVICE_GPU
int tb_rolloutDevice(void);

//---- precision ---------------------------------------------------------------------------------

typedef enum tbtPrecision {
  TB_FP64 = 0,  // every stage in double precision (the default)
  TB_FP32 = 1,  // the stages' single-precision twin, generated at build time from the same
                // source (scripts/f32twin.py), on either device: half the memory and traffic of
                // a scene, single-precision arithmetic; the batch stays fp64, converted into and
                // out of fp32 around each rollout
} tbtPrecision;

// the arithmetic of new batches' rollouts (tbRunSettings), like the device. TB_OK, or TB_ERR_ARG
int tb_setPrecision(int precision);
int tb_getPrecision(void);
// fp32 rollouts stop the step solver at no less than this relative residual: below it single
// precision's rounding leaves the natural-map residual noise (the solvers would run to their
// iteration cap on every step)
#define TB_FP32_MIN_TOL 1e-4

//---- what the jobs' rollouts reduce as they go (the probes): the estimate and plate results ---

// one observable coordinate: component comp of a body's 13-entry state (pos[3], quat[4], vel[6]),
// or TB_OBS_YAW: a planar body's turn about z (rad, from its quaternion)
#define TB_OBS_YAW 13
typedef struct tbObsCoord {
  char name[TB_NAMELEN];
  int body;
  int comp;
} tbObsCoord;

// relative tangential speed below which a step counts as sticking (m/s)
#define TB_FIELD_STICK_SPEED 1e-6
// gap after the step above which a step counts as separated (m); in contact the step leaves
// the gap at the solver's tolerance, far below this
#define TB_FIELD_GAP_TOL 1e-9

// one start: averages over whole plate periods after the transient
typedef struct tbFieldPoint {
  double x0, y0;          // m, start
  double mean_x, mean_y;  // m, mean position over the window
  double vx, vy, speed;   // m/s, mean velocity (the per-period mean velocities averaged)
  double stick;           // fraction of the window's steps in contact with zero slip (runs
                          // of >= 2 steps: one zero-slip step is a slip reversal in the step)
  double separated;       // fraction of the window's steps without contact
  int status;             // TB_SCENE_* bits of the scene
} tbFieldPoint;

// desired fields: circle v* = (-0.15 y, 0.15 x), saddle v* = (-0.2 x, 0.2 y) (1/s, any length
// unit), or a table of (x, y, vx, vy) rows (m, m/s) looked up by nearest neighbour
enum { TB_PLATE_TARGET_CIRCLE = 0, TB_PLATE_TARGET_SADDLE = 1, TB_PLATE_TARGET_TABLE = 2 };

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_TUMBLE_H_
