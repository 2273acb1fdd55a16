// What the MJCF reader's files share: the walk's context, its attribute readers and builders
#ifndef TUMBLE_HOST_MJCF_INTERNAL_H_
#define TUMBLE_HOST_MJCF_INTERNAL_H_

#include <libxml/tree.h>

#include <tumble/mjcf.h>
#include <tumble/tumble.h>

//---- context -----------------------------------------------------------------------------------

enum { TB_MJ_GEOM = 0, TB_MJ_JOINT = 1, TB_MJ_NKIND = 2 };

// a <default> class: its <geom> and <joint> defaults and the class it inherits from
typedef struct tbMjClass {
  const char* name;
  int parent;
  xmlNodePtr elem[TB_MJ_NKIND];
} tbMjClass;

// a named value that may become a parameter, noted during the walk
typedef struct tbMjNamed {
  const char* name;
  int kind;  // TB_MJ_P_*
  int object;
  int count;      // components
  double scale;   // file unit -> tumble unit
  int sub;        // TB_MJ_P_DRIVER: 0 plate, 1 rocking, 2 constvel; TB_MJ_P_RANGE: the tbtJoint;
                  // TB_MJ_P_CTRL: the TB_JNT_* component
  double lo, hi;  // TB_MJ_P_CTRL: the control's range
} tbMjNamed;

// an actuator applied to its joint (tb_mjActuate): the control's parameter
typedef struct tbMjCtrl {
  xmlNodePtr act;  // the actuator, or NULL: the joint has none
  int index;       // among the file's actuators
  int comp;        // TB_JNT_TPOS, TB_JNT_TVEL or TB_JNT_DRIVE
  double scale;    // the component per unit of control
  double lo, hi;   // the control's range (ctrlrange, or +-1e6)
  double value;    // its default: the first key's ctrl, else 0, within the range
} tbMjCtrl;

enum {
  TB_MJ_P_MASS = 0,    // a dynamic body's mass
  TB_MJ_P_POS,         // the position of a free or locked body
  TB_MJ_P_FRICTION,    // a shape's mu
  TB_MJ_P_SIZE,        // a shape's size
  TB_MJ_P_RANGE,       // a limited joint's range
  TB_MJ_P_DRIVER,      // a custom numeric's data into a driver
  TB_MJ_P_FORCE,       // ... into a body's applied wrench
  TB_MJ_P_TRIPOD,      // ... into a support tripod
  TB_MJ_P_GEOM_SOFT,   // ... into a shape's contact stiffness and damping
  TB_MJ_P_JOINT_SOFT,  // ... into a joint's (or equality's) stiffness and damping
  TB_MJ_P_GEOM_REST,   // ... into a shape's Newton restitution
  TB_MJ_P_CTRL,        // an actuator's control into its joint's servo target or drive (sub)
};

// the frame a body is placed in and how it moves: world position, orientation and twist of the
// MJCF body frame (linear velocity of its origin)
typedef struct tbMjFrame {
  double pos[3], quat[4], vel[6];
} tbMjFrame;

typedef struct tbMjMesh tbMjMesh;  // an <asset> <mesh> (mjcf_mesh.c)

// a welded body whose shapes its wrapper body took (tb_mjAdoptWelded): its element, the wrapper
typedef struct tbMjMerged {
  xmlNodePtr node;
  int body;
} tbMjMerged;

// one file's reading: the model being built and what the walk has noted so far
typedef struct tbMj {
  const char* file;  // for messages
  xmlDocPtr doc;
  tbModel* m;
  double angle;  // radians per angle unit of the file
  char seq[4];   // euler sequence
  tbMjClass* cls;
  int ncls;
  int nbody;  // MJCF bodies seen (names unnamed ones)
  double *qpos, *qvel;
  int nqpos, nqvel, iq, iv;  // the key's counts and how many the joints used
  xmlNodePtr key;
  xmlNodePtr option;    // <option>, or NULL (its timestep is checked once the model is compiled)
  xmlNodePtr* numeric;  // <custom><numeric name="tumble_*">
  int* numeric_used;
  int nnumeric;
  tbMjNamed* named;
  int nnamed;
  tbMjFrame* frame;   // each tumble body's MJCF frame (equality anchors are given in it)
  int minimal;        // hinges, slides and balls as minimal joints (tumble_minimal_joints, or none)
  int minimal_asked;  // 1: tumble_minimal_joints says so; 0: the default (where a joint can be)
  char note[512];     // what the file held that tumble read past (tb_mjSubset), or ""
  char meshdir[1024];  // <compiler meshdir> (else assetdir): where mesh files are
  tbMjMesh* mesh;      // the <asset> meshes
  int nmesh;
  char** included;  // the <include>d files' paths (their elements' _private)
  int nincluded;
  xmlNodePtr actuator;  // <actuator>, or NULL
  int* actuator_used;   // (nactuator) 1 once its joint took it
  int nactuator;
  // one part of a composed scene (tb_composeMJCF; 1: the first file, 2: a later one, 0: a model
  // of one file): the file's bodies are the model's from body0 on; its world's own shapes (a
  // floor) are read past and counted (the caller has its table), and the options' parameters
  // are the first file's
  int compose;
  int body0;
  int world_shapes;
  tbMjcfPart* part;    // what the caller asked and what it gets back, or NULL
  int top_bodies;      // the world's children seen
  int param0, param1;  // the file's parameters in the model (tb_mjParams)
  tbMjMerged* merged;  // welded bodies merged into their wrappers
  int nmerged;
} tbMj;

// one <geom>, read before its body is added (its mass places the body's frame)
typedef struct tbMjShape {
  xmlNodePtr node;
  int type;                // TB_GEOM_*; cylinders are discs (prisms) on a tripod body, and
                           // cylinders with option implicit
  int box_prism;           // a box on a tripod body: a rectangle prism
  double size[3];          // tumble's
  double pos[3], quat[4];  // in the MJCF body frame
  double mass, inertia[3];
  double mu;
  int contype, conaffinity;
  int visual;         // touches nothing and is no shape of tumble's: its mass alone
  int mesh;           // type="mesh": its <asset> mesh (tb_mjMeshMass sets the mass), or -1
  double density;     // kg/m^3
  double mass_given;  // kg, its mass=, or -1
} tbMjShape;

//---- attributes, messages, classes (mjcf_attr.c) -----------------------------------------------

// the file element n came from: an <include>d file's path (node _private), else the model's
const char* tb_mjFileOf(const tbMj* c, xmlNodePtr n);
// an attribute's text ("" when it has none)
const char* tb_mjValue(xmlAttrPtr a);
// an error at element n, with the file and line (a custom numeric by its name); the error code
int tb_mjFail(const tbMj* c, xmlNodePtr n, const char* fmt, ...);
// the engine's last error, after a prefix
int tb_mjPrefix(const char* file, const char* what);
// 1 when n is an element of that name
int tb_mjIs(xmlNodePtr n, const char* name);
// attribute name of n, else of its class chain's defaults (*where holds it); NULL: not given
const char* tb_mjAttr(const tbMj* c, xmlNodePtr n, int cls, const char* name, xmlNodePtr* where);
// between lo and hi numbers of attribute name into v; the count (0: not given), or -1 (error set)
int tb_mjNums(const tbMj* c, xmlNodePtr n, int cls, const char* name, double* v, int lo, int hi);
// attribute name as tb_mjAttr finds it, else dflt
const char* tb_mjStr(const tbMj* c, xmlNodePtr n, int cls, const char* name, const char* dflt);
// index of attribute name's value in the NULL-terminated words, or -1 with the error set
int tb_mjWord(const tbMj* c, xmlNodePtr n, int cls, const char* name, const char* dflt,
              const char* const* words);
// n's name attribute, or NULL
const char* tb_mjName(xmlNodePtr n);
// index of <default> class name, or -1 with the error set
int tb_mjFindClass(const tbMj* c, xmlNodePtr n, const char* name);
// the class an element uses: its own class=, else the body's childclass
int tb_mjClassOf(const tbMj* c, xmlNodePtr n, int childclass);
// a <default> and the classes nested in it into c->cls (parent -1: the top one, 'main')
int tb_mjDefault(tbMj* c, xmlNodePtr n, int parent);

//---- the subset (mjcf_subset.c) ----------------------------------------------------------------

// the whole document against the subset's table, before anything is built: 0 with c->note
// saying what was read past, or 2 with an error listing every element, attribute and value
// outside it (each kind at its first line, with its count)
int tb_mjSubset(tbMj* c, xmlNodePtr root);
// the values tumble takes for <geom type> and <joint type>, in the orders the readers use
extern const char* const tb_mjGeomTypes[];
extern const char* const tb_mjJointTypes[];

//---- orientations, shapes and mass (mjcf_geom.c) -----------------------------------------------

// the orientation attributes of n (at most one of them) into q; identity when none
int tb_mjOrient(const tbMj* c, xmlNodePtr n, int cls, double q[4]);
// one <geom> into s, read before its body is added (tripod: its body stands on a support tripod)
int tb_mjShape(const tbMj* c, xmlNodePtr n, int childclass, int tripod, tbMjShape* s);
// mass, center of mass and principal frame of a moving body: its <inertial>, else its ns shapes
int tb_mjMass(const tbMj* c, xmlNodePtr body, xmlNodePtr inertial, const tbMjShape* s, int ns,
              double* mass, double com[3], double I[3], double qi[4]);

// principal moments ev and axes (the columns of V, right-handed) of a symmetric 3 x 3 A
void tb_mjEigen(const double A[9], double ev[3], double V[9]);
// the rotation taking the axes to the columns of R (row-major, orthonormal, right-handed)
void tb_mjMatQuat(double q[4], const double R[9]);

//---- meshes (mjcf_mesh.c) ----------------------------------------------------------------------

// <asset>'s <mesh> elements into c->mesh, each read and checked
int tb_mjAssets(tbMj* c, xmlNodePtr asset);
void tb_mjFreeMeshes(tbMj* c);
// the index of the mesh geom n names (mesh=, or its class's), or -1 with the error set
int tb_mjFindMesh(const tbMj* c, xmlNodePtr n, int cls);
// a mesh shape's mass, centroid and principal frame (its pos and quat, MJCF body frame)
void tb_mjMeshMass(const tbMj* c, tbMjShape* s);
// a colliding mesh shape's convex polyhedron in its frame (made once per mesh), or NULL with the
// error set
const tbHullDef* tb_mjMeshHull(const tbMj* c, const tbMjShape* s);
// a mesh whose legacy inertia is not its solid's (not convex) said in c->note
void tb_mjMeshNote(tbMj* c);

//---- actuators (mjcf_actuator.c) --------------------------------------------------------------

// <actuator>, before the body tree: its elements are applied as their joints are added
int tb_mjActuators(tbMj* c, xmlNodePtr n);
// 1 when an actuator names joint element joint (it is then a joint, never a lock)
int tb_mjActuated(const tbMj* c, xmlNodePtr joint);
// the actuator on joint (MJCF type, the key's coordinate q0) applied to jd as a servo or drive;
// ctrl says the parameter (ctrl->act NULL: none); 0, or 2 after an error
int tb_mjActuate(tbMj* c, xmlNodePtr joint, int type, double q0, tbJointDef* jd, tbMjCtrl* ctrl);
// every actuator found its joint; 0, or 2 after an error naming it
int tb_mjActuatorsUsed(tbMj* c);

//---- the body tree (mjcf_body.c) ---------------------------------------------------------------

// <worldbody>: its own geoms on a static body "world", then its bodies
int tb_mjWorld(tbMj* c, xmlNodePtr n);
// the body of this file named name, or -1 (a composed scene's other files' bodies are not its;
// a welded body merged into its wrapper finds the wrapper)
int tb_mjFindBody(const tbMj* c, const char* name);

//---- equalities (mjcf_equality.c) --------------------------------------------------------------

// <equality>: each <connect> and <weld> as a joint
int tb_mjEquality(tbMj* c, xmlNodePtr n);

//---- custom numerics and parameters (mjcf_custom.c) --------------------------------------------

// note a named value that may become a parameter (tbMjNamed)
int tb_mjNote(tbMj* c, const char* name, int kind, int object, int count, double scale, int sub);
// the custom numeric tumble_KIND_BODY for a body (marked used), or NULL
xmlNodePtr tb_mjNumeric(tbMj* c, const char* kind, const char* body);
// the data of numeric n: exactly count numbers; 0, or 2 after an error
int tb_mjData(tbMj* c, xmlNodePtr n, double* v, int count);
// the one number of tumble_KIND_NAME into *v when there is one (*at: it, else NULL); 0, or 2
int tb_mjScalar(tbMj* c, const char* kind, const char* name, double* v, xmlNodePtr* at);
// tumble_compliance_NAME's stiffness and damping into *K, *B when there is one (*at: it); 0, or 2
int tb_mjCompliance(tbMj* c, const char* name, double* K, double* B, xmlNodePtr* at);
// the model-wide custom numerics (tumble_minimal_joints, tumble_option_*); 0, or 2
int tb_mjModelNumerics(tbMj* c);
// <custom>: its <numeric name="tumble_*"> elements into c->numeric
int tb_mjCustom(tbMj* c, xmlNodePtr n);
// the model's parameters: the options', then each named value's
int tb_mjParams(tbMj* c);
// the compiled model's values as --param would take them: every parameter's value (the file's)
// in its range, and the time step at least tb_minStep (a composed scene's: its caller's); 0, or 2
// after an error naming the file's element or parameter
int tb_mjCheckValues(tbMj* c);

#endif  // TUMBLE_HOST_MJCF_INTERNAL_H_
