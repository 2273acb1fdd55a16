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

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_MJCF_H_
