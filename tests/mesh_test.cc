// MJCF meshes (host/io/mesh.c, mesh_hull.c, mjcf_mesh.c): the three file formats read alike,
// mass properties against closed forms, MuJoCo's legacy inertia said where it is not the
// solid's, and every bad mesh refused naming its file and line. MuJoCo's own masses for the
// same files are tests/mjcf_mujoco_check.py's (tests/mjcf/meshes.xml).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <tumble/mjcf.h>

#include "cli_runner.h"
#include "engine/stage_collide.h"
#include "math/collide.h"
#include "test_util.h"
#include "math/tb_math.h"

namespace {

const std::string kMeshes = std::string(TUMBLE_TEST_FILES) + "/mjcf/meshes";

// a file of one free body whose mass is the visual mesh's: asset is the <mesh> element
std::string OneMesh(const std::string& asset, const std::string& geom = "") {
  return "<mujoco><compiler meshdir='" + kMeshes + "'/><asset>\n" + asset +
         "\n</asset><worldbody><body name='b'><freejoint/><geom type='mesh' mesh='m' "
         "contype='0' conaffinity='0' " +
         geom + "/></body></worldbody></mujoco>";
}

struct Loaded {
  tbModel* m;
  explicit Loaded(const std::string& xml) : m(tb_loadMJCF(xml.c_str())) {}
  ~Loaded() { tb_freeModel(m); }
};

// the body's world inertia tensor
void WorldInertia(const tbBodyDef& b, double I[9]) {
  double R[9];
  tbu_quat2Mat(R, b.quat);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      I[3 * i + j] = 0.0;
      for (int k = 0; k < 3; k++) I[3 * i + j] += R[3 * i + k] * b.inertia[k] * R[3 * j + k];
    }
  }
}

void ExpectSameBody(const tbModel* a, const tbModel* b, double rel) {
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const tbBodyDef &x = a->bdef[a->nbody - 1], &y = b->bdef[b->nbody - 1];
  EXPECT_NEAR(x.mass, y.mass, rel * y.mass);
  double Ix[9], Iy[9];
  WorldInertia(x, Ix);
  WorldInertia(y, Iy);
  for (int k = 0; k < 3; k++) EXPECT_NEAR(x.pos[k], y.pos[k], 1e-15) << "com " << k;
  double scale = std::fabs(Iy[0]) + std::fabs(Iy[4]) + std::fabs(Iy[8]);
  for (int k = 0; k < 9; k++) EXPECT_NEAR(Ix[k], Iy[k], rel * scale) << "inertia " << k;
}

// bug caught: a reader that drops, repeats or turns over triangles (binary and ASCII STL are
// different parsers in assimp; the wedge's corners are single-precision numbers either way, so
// the two files are one mesh to the bit)
TEST(MeshTest, BinaryAndAsciiStlReadToTheSameBody) {
  Loaded bin(OneMesh("<mesh name='m' file='wedge.stl'/>"));
  Loaded asc(OneMesh("<mesh name='m' file='wedge-ascii.stl'/>"));
  ASSERT_NE(bin.m, nullptr) << tb_lastError();
  ASSERT_NE(asc.m, nullptr) << tb_lastError();
  ExpectSameBody(bin.m, asc.m, 0.0);
}

// closed forms: a box of half-sizes a, b, c given by its eight corners alone (the mesh is their
// convex hull, qhull's) has the primitive box's mass 8 abc rho and inertia m (b^2 + c^2) / 3 ...;
// a scale of (2, 1, 0.5) on a cube gives the same box. Corners of 0.01, 0.02, 0.03 m are not
// binary fractions: single precision moves them by 2^-24 relative, so the masses agree to
// 3 x 2^-24 = 1.8e-7 relative, the inertias to 5 x 2^-24 = 3e-7
TEST(MeshTest, ABoxByItsCornersHasTheBoxsMassAndInertia) {
  const double a = 0.01, b = 0.02, c = 0.03;
  char corners[400];
  snprintf(corners, sizeof(corners),
           "%g %g %g  %g %g %g  %g %g %g  %g %g %g  %g %g %g  %g %g %g  %g %g %g  %g %g %g", -a, -b,
           -c, a, -b, -c, a, b, -c, -a, b, -c, -a, -b, c, a, -b, c, a, b, c, -a, b, c);
  Loaded mesh(OneMesh(std::string("<mesh name='m' vertex='") + corners + "'/>",
                      "pos='0.1 0.2 0.3' euler='10 20 30' density='800'"));
  Loaded box(
      "<mujoco><worldbody><body name='b'><freejoint/><geom type='box' size='0.01 0.02 0.03' "
      "pos='0.1 0.2 0.3' euler='10 20 30' density='800'/></body></worldbody></mujoco>");
  ASSERT_NE(mesh.m, nullptr) << tb_lastError();
  ExpectSameBody(mesh.m, box.m, 3e-7);
  EXPECT_NEAR(mesh.m->bdef[mesh.m->nbody - 1].mass, 8 * a * b * c * 800,
              1.8e-7 * 8 * a * b * c * 800);
  Loaded scaled(
      OneMesh("<mesh name='m' scale='2 1 0.5' vertex='-0.005 -0.02 -0.06  0.005 -0.02 -0.06  "
              "0.005 0.02 -0.06  -0.005 0.02 -0.06  -0.005 -0.02 0.06  0.005 -0.02 0.06  "
              "0.005 0.02 0.06  -0.005 0.02 0.06'/>",
              "pos='0.1 0.2 0.3' euler='10 20 30' density='800'"));
  ExpectSameBody(scaled.m, box.m, 3e-7);
}

// closed form: a tetrahedron's volume is |det(v1 - v0, v2 - v0, v3 - v0)| / 6 and its centroid
// the corners' mean; mass= sets the density through that volume. tetra.stl's corners
// (0.01, 0, 0) (0.11, 0, 0) (0.01, 0.08, 0) (0.01, 0, 0.06): volume 8e-5 m^3
TEST(MeshTest, ATetrahedronHasItsVolumeAndCentroid) {
  Loaded t(OneMesh("<mesh name='m' file='tetra.stl'/>"));
  ASSERT_NE(t.m, nullptr) << tb_lastError();
  const tbBodyDef& b = t.m->bdef[t.m->nbody - 1];
  EXPECT_NEAR(b.mass, 1000 * 0.1 * 0.08 * 0.06 / 6, 3 * 6e-8 * b.mass);
  const double mean[3] = {0.035, 0.02, 0.015};
  for (int k = 0; k < 3; k++) EXPECT_NEAR(b.pos[k], mean[k], 1e-8) << k;
  Loaded given(OneMesh("<mesh name='m' file='tetra.stl'/>", "mass='2'"));
  EXPECT_DOUBLE_EQ(given.m->bdef[given.m->nbody - 1].mass, 2.0);
}

// MuJoCo's default (legacy) inertia counts every pyramid's volume positive: on the L-shaped
// prism that is 13% over the solid. tumble gives MuJoCo's number, as the file asks, and says so
TEST(MeshTest, LegacyInertiaOfANonConvexMeshIsMuJoCosAndSaid) {
  std::string legacy = OneMesh("<mesh name='m' file='lprism.msh'/>"),
              exact = OneMesh("<mesh name='m' file='lprism.msh' inertia='exact'/>");
  char note[512];
  tbModel* m = tb_loadMJCFNoting(legacy.c_str(), note, sizeof(note));
  ASSERT_NE(m, nullptr) << tb_lastError();
  Loaded e(exact);
  ASSERT_NE(e.m, nullptr) << tb_lastError();
  // the L: 0.04 x 0.01 and 0.01 x 0.02 rectangles, 0.02 deep
  EXPECT_NEAR(e.m->bdef[e.m->nbody - 1].mass, 1000 * (0.04 * 0.01 + 0.01 * 0.02) * 0.02,
              1e-7 * 0.012);
  EXPECT_GT(m->bdef[m->nbody - 1].mass, 1.1 * e.m->bdef[e.m->nbody - 1].mass);
  EXPECT_NE(std::string(note).find("mesh 'm': MuJoCo's legacy inertia (its default) makes its "
                                   "volume 13.2% over the solid's"),
            std::string::npos)
      << note;
  tb_freeModel(m);
  m = tb_loadMJCFNoting(exact.c_str(), note, sizeof(note));
  EXPECT_STREQ(note, "");
  tb_freeModel(m);
}

// A box given as a mesh collides as the primitive box: on a plane and stacked on a box, the four
// pairings (box on box, mesh on box, box on mesh, mesh on mesh) end 0.8 s after a flat drop where
// the primitives end, within 1e-9 m and 1e-9 of the quaternion. Half-sizes that are binary
// fractions make the single-precision corners the primitive's to the bit; the rest is the
// contacts' order (qhull's corners against the box's), which the solver's 1e-8 tolerance turns
// into the 1e-11 seen. Bug caught: a hull-hull manifold of one point (the box rocks), a wrong
// reference face or clipping side, a turned-over face normal.
std::string Stack(const char* low, const char* top) {
  auto geom = [](const char* kind) {
    return std::string(kind) == "box" ? std::string("type='box' size='0.0625 0.046875 0.03125'")
                                      : std::string("type='mesh' mesh='bx'");
  };
  return std::string(
             "<mujoco><option timestep='0.001' cone='elliptic' solver='Newton'/><asset><mesh "
             "name='bx' vertex='-0.0625 -0.046875 -0.03125  0.0625 -0.046875 -0.03125  0.0625 "
             "0.046875 -0.03125  -0.0625 0.046875 -0.03125  -0.0625 -0.046875 0.03125  0.0625 "
             "-0.046875 0.03125  0.0625 0.046875 0.03125  -0.0625 0.046875 0.03125'/></asset>"
             "<worldbody><geom type='plane' friction='0.5'/><body name='low' "
             "pos='0 0 0.03125'><freejoint/><geom ") +
         geom(low) +
         " friction='0.5'/></body><body name='top' pos='0.01 0.005 0.1' euler='0 0 20'>"
         "<freejoint/><geom " +
         geom(top) + " friction='0.5'/></body></worldbody></mujoco>";
}

TEST(MeshTest, ABoxMeshCollidesAsTheBoxOnAPlaneAndOnABox) {
  Scene ref(tb_loadMJCF(Stack("box", "box").c_str()), 1);
  ref.reset();
  ref.run(800);
  for (auto [low, top] : {std::pair{"mesh", "box"}, {"box", "mesh"}, {"mesh", "mesh"}}) {
    Scene sc(tb_loadMJCF(Stack(low, top).c_str()), 1);
    ASSERT_NE(sc.m, nullptr) << tb_lastError();
    sc.reset();
    sc.run(800);
    EXPECT_EQ(sc.d->status[0] & TB_SCENE_FAILMASK, 0);
    for (int b = 1; b < 3; b++) {  // (body 0: the world's floor)
      for (int k = 0; k < 3; k++) EXPECT_NEAR(sc.pos(b)[k], ref.pos(b)[k], 1e-9) << low << top;
      for (int k = 0; k < 4; k++) EXPECT_NEAR(sc.quat(b)[k], ref.quat(b)[k], 1e-9) << low << top;
    }
    EXPECT_NEAR(sc.pos(sc.body("top"))[2], 0.09375, 1e-6) << "the top box rests on the low one";
  }
}

// statics: a regular tetrahedron resting on a face on the floor holds three contacts (the face's
// corners: a flat face is not one point that lets it rock) whose normal impulses are m g h / 3
// each, its centre of mass over the face's centroid. Edge 0.1 m: the face's circumradius
// 0.1 / sqrt 3, the height 0.1 sqrt(2/3)
TEST(MeshTest, ATetrahedronRestsOnAFaceWithAThirdOfItsWeightOnEachCorner) {
  const double a = 0.1, R = a / std::sqrt(3.0), H = a * std::sqrt(2.0 / 3.0);
  char v[300];
  snprintf(v, sizeof(v), "%.17g 0 0  %.17g %.17g 0  %.17g %.17g 0  0 0 %.17g", R, -R / 2,
           R * std::sqrt(3.0) / 2, -R / 2, -R * std::sqrt(3.0) / 2, H);
  std::string xml = std::string(
                        "<mujoco><option timestep='0.001' cone='elliptic' solver='Newton'/>"
                        "<asset><mesh name='t' vertex='") +
                    v +
                    "'/></asset><worldbody><geom type='plane'/><body pos='0 0 0.001'>"
                    "<freejoint/><geom type='mesh' mesh='t'/></body></worldbody></mujoco>";
  Scene sc(tb_loadMJCF(xml.c_str()), 1);
  ASSERT_NE(sc.m, nullptr) << tb_lastError();
  sc.reset();
  sc.run(500);
  ASSERT_EQ(sc.d->ncon[0], 3);
  double mgh = sc.m->bdef[1].mass * 9.81 * 0.001, sum = 0.0;  // (body 0: the floor)
  int normals = 0;
  for (int i = 0; i < sc.d->nwarm[0]; i++) {
    if ((sc.d->warm_key[i] - 1) % 4) continue;  // tangent rows (tb_contactKey)
    EXPECT_NEAR(sc.d->warm[i], mgh / 3, 1e-6 * mgh) << "contact " << normals;
    sum += sc.d->warm[i];
    normals++;
  }
  EXPECT_EQ(normals, 3);
  EXPECT_NEAR(sum, mgh, 1e-9 * mgh);
  EXPECT_NEAR(sc.pos(1)[2], H / 4, 1e-6) << "the centroid a quarter of the height up";
}

// a capsule lying on a mesh box's top face rests on its two ends' contacts, its axis a radius
// above the face: a segment point inside the segment adds none where the distance is flat
TEST(MeshTest, ACapsuleLiesOnAMeshFaceOnItsTwoEnds) {
  std::string xml =
      "<mujoco><option timestep='0.001' cone='elliptic' solver='Newton'/><asset><mesh name='bx' "
      "vertex='-0.0625 -0.0625 -0.0625  0.0625 -0.0625 -0.0625  0.0625 0.0625 -0.0625  -0.0625 "
      "0.0625 -0.0625  -0.0625 -0.0625 0.0625  0.0625 -0.0625 0.0625  0.0625 0.0625 0.0625  "
      "-0.0625 0.0625 0.0625'/></asset><worldbody><geom type='mesh' mesh='bx'/><body "
      "pos='0 0 0.1'><freejoint/><geom type='capsule' fromto='-0.04 0 0 0.04 0 0' size='0.02'/>"
      "</body></worldbody></mujoco>";
  Scene sc(tb_loadMJCF(xml.c_str()), 1);
  ASSERT_NE(sc.m, nullptr) << tb_lastError();
  sc.reset();
  sc.run(600);
  EXPECT_EQ(sc.d->ncon[0], 2);
  EXPECT_NEAR(sc.pos(1)[2], 0.0625 + 0.02, 1e-7);  // (body 0: the world's mesh)
}

// a sphere resting on a mesh box's top face sits its radius above it; one dropped beside the
// face's edge touches the edge at the closest point (the normal from the edge to the centre)
TEST(MeshTest, ASphereRestsOnAMeshFaceAndTouchesItsEdge) {
  std::string xml =
      "<mujoco><option timestep='0.001' cone='elliptic' solver='Newton' gravity='0 0 -9.81'/>"
      "<asset><mesh name='bx' vertex='-0.0625 -0.0625 -0.0625  0.0625 -0.0625 -0.0625  0.0625 "
      "0.0625 -0.0625  -0.0625 0.0625 -0.0625  -0.0625 -0.0625 0.0625  0.0625 -0.0625 0.0625  "
      "0.0625 0.0625 0.0625  -0.0625 0.0625 0.0625'/></asset><worldbody><geom type='mesh' "
      "mesh='bx'/><body pos='0.01 0.02 0.2'><freejoint/><geom size='0.03'/></body></worldbody>"
      "</mujoco>";
  Scene sc(tb_loadMJCF(xml.c_str()), 1);
  ASSERT_NE(sc.m, nullptr) << tb_lastError();
  sc.reset();
  sc.run(600);
  EXPECT_EQ(sc.d->ncon[0], 1);
  EXPECT_NEAR(sc.pos(1)[2], 0.0625 + 0.03, 1e-7);  // (body 0: the world's mesh)
  EXPECT_NEAR(sc.pos(1)[0], 0.01, 1e-9);
  tbGeomPose box, ball;
  std::memset(&box, 0, sizeof(box));
  tb_geomPoseAt(sc.m, sc.m->vary0, sc.d->body_pos, sc.d->body_quat, 0, &box);
  ball = box;
  ball.type = TB_GEOM_SPHERE;
  ball.size[0] = 0.03;
  const double at[3] = {0.0625 + 0.02, 0.0, 0.0625 + 0.02};  // beyond the +x, +z edge
  tbu_copy3(ball.pos, at);
  tbContactPoint c[TB_MAXCON_PAIR];
  ASSERT_EQ(tbu_collide(&ball, &box, 0.0, c), 1);
  EXPECT_NEAR(c[0].gap, 0.02 * std::sqrt(2.0) - 0.03, 1e-12);
  EXPECT_NEAR(c[0].normal[0], std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(c[0].normal[2], std::sqrt(0.5), 1e-12);
}

class MeshFiles : public CliFixture {};

// bad meshes are refused, each naming the file's line, the mesh and what is wrong
TEST_F(MeshFiles, BadMeshesAreRefusedNamingTheFileAndLine) {
  auto file = [&](const char* name, const std::string& bytes) {
    std::ofstream(Path(name), std::ios::binary) << bytes;
    return "<mesh name='m' file='" + Path(name) + "'/>";
  };
  ExpectMjcfRefused(OneMesh("<mesh name='m' file='nope.stl'/>"),
                    "<string>:2: <mesh name=\"m\">: " + kMeshes + "/nope.stl:");
  ExpectMjcfRefused(OneMesh(file("a.ply", "ply")), "tumble reads .stl, .obj and .msh meshes");
  ExpectMjcfRefused(OneMesh(file("bad.stl", "solid x\nfacet normal 0 0 1\nendsolid\n")),
                    "bad.stl: ");
  // an MSH header asking for two million vertices: refused before anything is allocated
  int32_t big[4] = {2000000, 0, 0, 1};
  ExpectMjcfRefused(OneMesh(file("big.msh", std::string(reinterpret_cast<char*>(big), 16))),
                    "not an MSH file: counts 2000000 vertices (4 to 1000000)");
  int32_t short_[4] = {4, 0, 0, 4};
  ExpectMjcfRefused(OneMesh(file("short.msh", std::string(reinterpret_cast<char*>(short_), 16))),
                    "for 16 bytes");
  const char* tet = "0 0 0  1 0 0  0 1 0  0 0 1";
  ExpectMjcfRefused(
      OneMesh(std::string("<mesh name='m' vertex='") + tet + "' face='0 2 1  0 1 3  0 3 2'/>"),
      "has no triangle on its other side: the surface is open");
  ExpectMjcfRefused(OneMesh(std::string("<mesh name='m' vertex='") + tet +
                            "' face='0 2 1  0 1 3  0 3 2  1 3 2'/>"),
                    "in two triangles turned alike");
  ExpectMjcfRefused(OneMesh(std::string("<mesh name='m' vertex='") + tet +
                            "' face='0 1 2  0 3 1  0 2 3  1 3 2'/>"),
                    "is negative (turned inside out)");
  ExpectMjcfRefused(OneMesh("<mesh name='m' vertex='0 0 0  1 0 0  0 1 0  1 1 0'/>"),
                    "lie in one plane");
  ExpectMjcfRefused(OneMesh(std::string("<mesh name='m' vertex='") + tet + "' face='0 2 9'/>"),
                    "face: 9 is not a vertex index (0 to 3)");
  ExpectMjcfRefused(OneMesh("<mesh name='m' vertex='0 0 0 1'/>"), "vertex: 4 numbers, expected 12");
  ExpectMjcfRefused(OneMesh(std::string("<mesh name='m' vertex='") + tet + "' scale='1 0 1'/>"),
                    "scale 1 0 1: each nonzero");
  ExpectMjcfRefused(
      "<mujoco><asset><mesh name='m' vertex='0 0 0  1 0 0  0 1 0  0 0 1'/></asset>"
      "<worldbody><body><freejoint/>\n<geom type='mesh' mesh='other' contype='0' "
      "conaffinity='0'/></body></worldbody></mujoco>",
      "<string>:2: <geom> mesh=\"other\": no <asset> <mesh> of that name");
  ExpectMjcfRefused(
      "<mujoco><asset><mesh name='m' vertex='0 0 0  1 0 0  0 1 0  0 0 1'/></asset>"
      "<worldbody><body><freejoint/>\n<geom type='box' size='1 1 1' mesh='m'/></body>"
      "</worldbody></mujoco>",
      "<string>:2: <geom> mesh= on a box: tumble fits no primitive to a mesh");
  ExpectMjcfRefused(
      "<mujoco><asset>\n<mesh name='m' file='x.stl' refpos='0 0 1'/></asset></mujoco>",
      "<string>:2: <mesh> attribute 'refpos' is outside");
}

}  // namespace
