// MJCF model files (MuJoCo's XML): the subset tumble simulates, read with libxml2 into a compiled
// tbModel. docs/mjcf.md lists the elements and attributes; anything else is an error naming the
// file, line, element and attribute (every one in the file at once), never skipped.
//
// Mapping to tumble's maximal coordinates:
//   - a body with a free joint is a dynamic body; with one hinge, slide or ball joint a dynamic
//     body jointed (revolute, prismatic, spherical) to its parent; with none it is welded: to the
//     world a static body, to a moving body a fixed joint; mocap="true" is a kinematic body
//   - a child of the world whose joints are slides along world axes and at most one hinge or ball
//     through its center of mass is a body with the other DoFs locked (the planar idiom: slide x,
//     slide y, hinge z); a box on a body locked to the plane is a prism (the 2.5D model)
//   - tumble's body frame is the principal frame at the center of mass, from <inertial> or from
//     the geoms (density 1000 or their mass, MuJoCo's formulas)
//   - <custom><numeric name="tumble_KIND_BODY" data="..."/> gives what MJCF cannot spell:
//     plate (A1..A6 C1..C6 omega), rocking (alpha T d) and constvel (vx vy vz wx wy wz) drivers of
//     a mocap body, force (fx fy fz tx ty tz, world) on a body, tripod (mu x1 y1 x2 y2 x3 y3) for a
//     planar body
//   - the first <key> of <keyframe> is the initial state (qpos and qvel of free and locked bodies)
//
// Parameters: every value below becomes a parameter, named after its element:
//   opt.timestep, opt.gravity_x/_y/_z; BODY.mass (inertia scales with it) for dynamic bodies;
//   BODY.pos_x/_y/_z for bodies on a free joint; GEOM.friction; GEOM.size_0/_1/_2 where its body's
//   mass is given by <inertial> (else the size would change the mass too); JOINT.range_0/_1 of a
//   limited hinge or slide; tumble_KIND_BODY.data_K of the custom numerics.
#ifndef TUMBLE_MJCF_H_
#define TUMBLE_MJCF_H_

#include <tumble/tumble.h>

#ifdef __cplusplus
extern "C" {
#endif

// a compiled model from src: a file path, or the XML itself when src begins with '<' (after
// blanks). NULL with tb_lastError() saying where the file goes outside the subset.
tbModel* tb_loadMJCF(const char* src);
// the same; note (cap bytes, may be NULL) gets one line of what the file held that tumble read
// past: looks and sensors (<site>, <camera>, <light>, <sensor>, textures, materials) and MuJoCo's
// soft-contact values on geoms (solref, solimp, solmix, margin, gap: tumble's contacts are hard),
// each with its count; "" when nothing. Callers show it (stderr, the run's JSON)
tbModel* tb_loadMJCFNoting(const char* src, char* note, size_t cap);

#define TB_MJCF_MAXACT 8

// an actuator whose control the caller sets (tbMjcfPart.controls): its joint's value
// (TB_F_JOINT, joint, comp) is scale times the control, within [lo, hi] (ctrlrange, else +-1e6)
typedef struct tbMjcfActuator {
  char name[TB_NAMELEN];  // its name=, or "actuator K" (K from 1, the file's order)
  int joint;
  int comp;  // TB_JNT_TPOS (position), TB_JNT_TVEL (velocity) or TB_JNT_DRIVE (motor)
  double scale, lo, hi;
} tbMjcfActuator;

// One file of a scene composed of several (a gripper and the part it grasps, tb_composeMJCF)
typedef struct tbMjcfPart {
  const char* src;     // a path, or the XML
  int kinematic_root;  // 1: the file holds one top body, which the caller moves: it becomes a
                       // kinematic body (with a still driver the caller replaces, as those of the
                       // bodies welded to it) and its free joint, if it has one, is read past;
                       // any other joint of it is refused
  const char* site;    // a <site> name (NULL: none) whose frame the reader reports; only its own
                       // pos= and orientation attributes are read (not a class's)
  int controls;        // 1: the actuators' controls are the caller's (a schedule): no ACT.ctrl
                       // parameters, each actuator in actuator[] (at most TB_MJCF_MAXACT)
  // set by the reader
  int body0, nbody;    // the bodies the file added: body0 .. body0 + nbody - 1
  int geom0, ngeom;    // its shapes
  int jnt0, njnt;      // its joints (equalities included)
  int site_found;      // 1: the site was there
  double site_pos[3];  // its world frame at the file's pose (the first key's)
  double site_quat[4];
  int world_shapes;  // the world's own shapes it read past (a composed scene has none)
  int nactuator;     // controls: its actuators, in the file's order
  tbMjcfActuator actuator[TB_MJCF_MAXACT];
} tbMjcfPart;

// Called with the composed model before it is compiled: add the caller's bodies, drivers,
// schedules and parameters; TB_OK, or an error code with the error set
typedef int (*tbMjcfBuild)(tbModel* m, tbMjcfPart* parts, int nparts, void* ctx);

// a compiled model of nparts MJCF files read in turn into one model, each as tb_loadMJCF reads a
// file but for: every file's world shapes are read past (counted in its part), bodies must have
// names unique across the files, a file's excludes and equalities name its own bodies, and the
// options' parameters (opt.*) are the first file's. build (may be NULL) completes the model.
// note as tb_loadMJCFNoting's, each file's line prefixed with its name. NULL with the error set
tbModel* tb_composeMJCF(tbMjcfPart* parts, int nparts, tbMjcfBuild build, void* ctx, char* note,
                        size_t cap);

// the grasp study's model (grasp3d.h): on the user's gripper and part files where def->gripper
// is set (tb_composeMJCF with the study's table, path, controls and pushes), else the built-in
// one (tb_buildGrasp3d); note (cap bytes, may be NULL) as tb_composeMJCF's. NULL with the error
// set
struct tbGrasp3dDef;
struct tbGrasp3dInfo;
tbModel* tb_loadGrasp3d(const struct tbGrasp3dDef* def, struct tbGrasp3dInfo* info, char* note,
                        size_t cap);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_MJCF_H_
