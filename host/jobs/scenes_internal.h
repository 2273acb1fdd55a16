// The built-in scenes' internals, shared by host/jobs/scenes*.c: the building blocks (scenes.c)
// and each scene's builder, which tb_buildScene calls (scenes_dynamic.c, scenes_variants.c).
#ifndef TUMBLE_HOST_SCENES_INTERNAL_H_
#define TUMBLE_HOST_SCENES_INTERNAL_H_

#include <tumble/scenes.h>

//---- building blocks (scenes.c) ----------------------------------------------------------------

// a parameter with one target; returns its index (or -1, the error set)
int tb_param1(tbModel* m, const char* name, const char* unit, const char* doc, double lo, double hi,
              int lo_open, int field, int obj, int comp);
// the model options every scene exposes: dt and gravity
void tb_optionParams(tbModel* m);
// body bd carrying a half-space (its local z <= 0); returns the body
int tb_planeOf(tbModel* m, const tbBodyDef* bd, double mu);
// a body at the origin carrying a half-space (its local z <= 0); returns the body
int tb_planeBody(tbModel* m, const char* name, int type, double mu);
// a static half-space z <= 0 named "ground"; returns its body
int tb_ground(tbModel* m, double mu);
// a box body of half sizes half at pos (quat NULL: unturned) with its inertia; returns the body
int tb_box(tbModel* m, const char* name, double mass, const double half[3], const double pos[3],
           const double quat[4], double mu);
// PREFIXstiffness and PREFIXdamping of every object of field: Drumwright's compliance
void tb_complianceParams(tbModel* m, const char* prefix, const char* what, int field, int count,
                         int stiff, int damp);
// parameters every scene with friction shares: mu, stiffness and damping (all shapes), dt, gravity
void tb_commonParams(tbModel* m, const char* mu_doc);
// "mass" (p < 0: a new one) scales body b's mass and inertia together; returns the parameter
int tb_massParam(tbModel* m, int p, int b);
// body b's mass, initial position and initial velocity as parameters
void tb_bodyParams(tbModel* m, int b);
// a planar 10 x 6 cm, 0.5 kg box on a support tripod starting at twist vel; returns its body
int tb_tripodBox(tbModel* m, const char* name, const double vel[6], double mu);
// a static or kinematic half-space across axis a with its solid side past c0; returns its body
int tb_wall(tbModel* m, const char* name, int type, int a, double c0, int side, double mu);

//---- the dynamic step's scenes (scenes_dynamic.c) ----------------------------------------------

// thesis §7.6.1.1: the falling particle
void tb_sceneFallingParticle(tbModel* m);
// thesis §7.6.1.2: independent falling particles with random starts
void tb_sceneFallingParticles(tbModel* m, const tbBuild* bo);
// thesis §7.6.2: the tripod box sliding across a table
void tb_sceneTripodBlock(tbModel* m);
// a sphere sliding on the ground
void tb_sceneSlidingSphere(tbModel* m);
// a box on an incline turned by the build's angle and yaw
void tb_sceneInclineBlock(tbModel* m, const tbBuild* bo);
// a chain of capsule links on revolute or ball joints
void tb_scenePendulum(tbModel* m, const tbBuild* bo);
// Mylapilli & Jain §3.2: a chain of spheres swinging into a wall
void tb_sceneChainWall(tbModel* m, const tbBuild* bo);
// three boxes stacked on the ground
void tb_sceneBoxStack(tbModel* m);
// thesis §5.3: a particle on the plate driven by driver
void tb_scenePlateParticle(tbModel* m, int driver);
// a block on the plate driven by driver
void tb_scenePlateBlock(tbModel* m, int driver);
// side^3 spheres piled in a box of four walls
void tb_sceneSpherePile(tbModel* m, const tbBuild* b);

//---- the step's variants' scenes (scenes_variants.c) -------------------------------------------

// thesis §3.4.6: a particle between a wall and a moving fence, quasistatic
void tb_sceneQsFence(tbModel* m);
// a pusher tip pushing the tripod box, quasistatic
void tb_sceneQsPush(tbModel* m);
// thesis Fig. 3.1: a block sliding over a hole with a corner
void tb_sceneCornerHole(tbModel* m, const tbBuild* bo);
// thesis Fig. 4.8: a gripper finger sliding over a 12-gon part's corner
void tb_sceneCornerFinger(tbModel* m, const tbBuild* bo);
// thesis §3.5.3.1: the unit disc rolling on a half-plane
void tb_sceneImplicitDisc(tbModel* m, const tbBuild* bo);
// thesis §3.5.3.2: a unit sphere pushed against two fixed spheres
void tb_sceneImplicitSpheres(tbModel* m, const tbBuild* bo);
// thesis §3.5.3.3: the unit disc dropped onto a compliant half-plane
void tb_sceneImplicitCompliant(tbModel* m);
// thesis §3.5.1.3: a tilted coin above a plane
void tb_sceneImplicitCoin(tbModel* m, const tbBuild* bo);

#endif  // TUMBLE_HOST_SCENES_INTERNAL_H_
