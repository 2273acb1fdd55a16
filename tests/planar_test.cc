// host/engine/planar.c: the 2.5D model's support tripods (thesis §3.3, Eq. 3.24-3.27) and prisms.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <tumble/tumble.h>

#include "engine/engine.h"

namespace {

const double kG = 9.81;

// a planar body of mass m on an equilateral tripod of radius rho (points at 90, 210, 330 deg),
// optionally with a prism disc of radius 0.05 so that it can be pushed
struct Tripod {
  tbModel* m = nullptr;
  tbData* d = nullptr;
  Tripod(double mass, double izz, double rho, double mu, int cone = TB_CONE_EXACT, int facets = 8,
         int nscene = 1, int solver = TB_SOLVER_PGS) {
    m = tb_newModel();
    m->opt.timestep = 1e-3;
    m->opt.solver = solver;
    m->opt.cone = cone;
    m->opt.facets = facets;
    m->opt.max_iter = 500;
    m->opt.tol = 1e-12;
    tbBodyDef bd = tb_defaultBodyDef();
    bd.name = "block";
    bd.mass = mass;
    bd.inertia[0] = bd.inertia[1] = 1.0;
    bd.inertia[2] = izz;
    bd.lock = TB_LOCK_PLANAR;
    int b = tb_addBody(m, &bd);
    tbSupportDef sd = tb_defaultSupportDef();
    sd.body = b;
    sd.mu = mu;
    for (int k = 0; k < 3; k++) {
      double a = M_PI / 2 + 2 * M_PI * k / 3;
      sd.point[k][0] = rho * cos(a);
      sd.point[k][1] = rho * sin(a);
    }
    EXPECT_EQ(tb_addSupport(m, &sd), 0) << tb_lastError();
    int p = tb_addParam(m, "vx", "m/s", "", -10, 10, 0);
    tb_paramTarget(m, p, TB_F_BODY_VEL, b, 0);
    p = tb_addParam(m, "vy", "m/s", "", -10, 10, 0);
    tb_paramTarget(m, p, TB_F_BODY_VEL, b, 1);
    p = tb_addParam(m, "wz", "rad/s", "", -100, 100, 0);
    tb_paramTarget(m, p, TB_F_BODY_VEL, b, 5);
    p = tb_addParam(m, "fx", "N", "", -100, 100, 0);
    tb_paramTarget(m, p, TB_F_BODY_FORCE, b, 0);
    p = tb_addParam(m, "x1", "m", "", -1, 1, 0);
    tb_paramTarget(m, p, TB_F_SUPPORT, 0, TB_SUP_POINT);
    EXPECT_EQ(tb_compileModel(m), TB_OK) << tb_lastError();
    d = tb_newData(m, nscene);
    tb_defaultParams(m, d);
  }
  ~Tripod() {
    tb_freeData(d);
    tb_freeModel(m);
  }
  void set(const char* name, double v) {
    for (int s = 0; s < d->nscene; s++) d->param[s * m->nparam + tb_findParam(m, name)] = v;
  }
  void run(int n) {
    ASSERT_EQ(tb_resetData(m, d), TB_OK) << tb_lastError();
    ASSERT_EQ(tb_rollout(m, d, 0, d->nscene, n, nullptr), TB_OK);
    ASSERT_EQ(d->status[0] & TB_SCENE_FAILMASK, 0);
  }
  const double* vel() const { return d->body_vel; }
};

}  // namespace

// Eq. 3.24 solved as printed (Cramer on the 3x3 system) against the barycentric form
TEST(PlanarTest, SupportLoadsSolveEquation324) {
  tbModel* m = tb_newModel();
  tbBodyDef bd = tb_defaultBodyDef();
  bd.mass = 2.5;
  bd.lock = TB_LOCK_PLANAR;
  tb_addBody(m, &bd);
  tbSupportDef sd = tb_defaultSupportDef();
  sd.body = 0;
  const double pts[3][2] = {{0.1, 0.01}, {-0.05, 0.08}, {-0.02, -0.1}};
  memcpy(sd.point, pts, sizeof(pts));
  ASSERT_EQ(tb_addSupport(m, &sd), 0) << tb_lastError();
  ASSERT_EQ(tb_compileModel(m), TB_OK) << tb_lastError();
  double lambda[3];
  ASSERT_EQ(tb_supportLoads(m, m->vary0, 0, lambda), 0);
  // [1 1 1; y1 y2 y3; -x1 -x2 -x3] lambda = [m g; 0; 0]
  double A[3][3] = {
      {1, 1, 1}, {pts[0][1], pts[1][1], pts[2][1]}, {-pts[0][0], -pts[1][0], -pts[2][0]}};
  double rhs[3] = {2.5 * kG, 0, 0};
  auto det = [](double M[3][3]) {
    return M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
           M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
           M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
  };
  double D = det(A);
  for (int k = 0; k < 3; k++) {
    double Ak[3][3];
    memcpy(Ak, A, sizeof(A));
    for (int r = 0; r < 3; r++) Ak[r][k] = rhs[r];
    EXPECT_NEAR(lambda[k], det(Ak) / D, 1e-12) << k;
    EXPECT_GT(lambda[k], 0.0);
  }
  EXPECT_NEAR(lambda[0] + lambda[1] + lambda[2], 2.5 * kG, 1e-12);
  tb_freeModel(m);
}

// sliding on the tripod: the friction impulse is the full mu h lambda every step, so the speed
// falls by mu g h per step exactly, then the block sticks
TEST(PlanarTest, SlidingBlockDeceleratesAtMuG) {
  for (int cone : {TB_CONE_EXACT, TB_CONE_PYRAMID}) {
    Tripod t(0.7, 0.01, 0.05, 0.3, cone, 4);
    t.set("vx", 1.0);
    t.run(200);
    EXPECT_NEAR(t.vel()[0], 1.0 - 0.3 * kG * 0.2, 1e-9) << cone;
    EXPECT_NEAR(t.vel()[1], 0.0, 1e-12);
    EXPECT_NEAR(t.vel()[5], 0.0, 1e-9);
    t.run(400);  // stops at v0 / (mu g) = 0.34 s
    EXPECT_NEAR(t.vel()[0], 0.0, 1e-9) << cone;
  }
}

// the support contacts are ordinary contact blocks (a virtual normal row): every solver that
// applies to the cone reproduces the slide, the pyramid's through the LCP form included. The
// solvers that apply are docs/solvers.md's for each cone: a solver refusing the tripod's problem
// (skipped below) would otherwise pass unseen
TEST(PlanarTest, EverySolverSlidesTheTripodBlock) {
  for (int cone : {TB_CONE_EXACT, TB_CONE_PYRAMID}) {
    std::string applied;
    for (int solver = 0; solver < TB_NSOLVER; solver++) {
      Tripod t(0.7, 0.01, 0.05, 0.3, cone, 4, 1, solver);
      t.set("vx", 1.0);
      ASSERT_EQ(tb_resetData(t.m, t.d), TB_OK);
      ASSERT_EQ(tb_rollout(t.m, t.d, 0, 1, 100, nullptr), TB_OK);
      if (t.d->status[0] & TB_SCENE_SOLVER_FAIL) continue;  // the solver does not apply
      applied += std::string(applied.empty() ? "" : " ") + tb_solverName(solver);
      EXPECT_EQ(t.d->status[0] & TB_SCENE_FAILMASK, 0) << tb_solverName(solver);
      EXPECT_NEAR(t.vel()[0], 1.0 - 0.3 * kG * 0.1, 1e-6)
          << tb_solverName(solver) << " cone " << cone;
    }
    EXPECT_EQ(applied, cone == TB_CONE_EXACT
                           ? "pgs prox-gs prox-jacobi mncp-rlm mncp-plm ncp-dogleg auto soc-fb-plm"
                           : "pgs prox-gs prox-jacobi mlcp-fb-rlm mlcp-fb-plm lemke auto");
  }
}

// the 4-facet pyramid at 45 degrees to the slip: its support in that direction is
// mu lambda cos(pi/4), so the deceleration is mu g cos(pi/4) (thesis §2.4.2's anisotropy)
TEST(PlanarTest, PyramidDeceleratesLessAcrossItsFacets) {
  Tripod t(1.0, 0.01, 0.05, 0.4, TB_CONE_PYRAMID, 4);
  t.set("vx", M_SQRT1_2);
  t.set("vy", M_SQRT1_2);
  t.run(100);
  double v = hypot(t.vel()[0], t.vel()[1]);
  EXPECT_NEAR(v, 1.0 - 0.4 * kG * M_SQRT1_2 * 0.1, 1e-6);
}

// spinning in place: each point carries m g / 3 at radius rho, so the friction torque is
// mu m g rho and the spin falls at mu m g rho / I while the centre stays put
TEST(PlanarTest, SpinningBlockDeceleratesByTripodTorque) {
  double mass = 0.5, izz = 2e-3, rho = 0.04, mu = 0.25;
  Tripod t(mass, izz, rho, mu);
  t.set("wz", 5.0);
  t.run(100);
  EXPECT_NEAR(t.vel()[5], 5.0 - mu * mass * kG * rho / izz * 0.1, 1e-8);
  EXPECT_NEAR(t.d->body_pos[0], 0.0, 1e-12);
  EXPECT_NEAR(t.d->body_pos[1], 0.0, 1e-12);
}

// a push below mu m g sticks; above it the block accelerates at (F - mu m g) / m
TEST(PlanarTest, PushSticksBelowFrictionLimitAndSlidesAbove) {
  double mass = 1.0, mu = 0.5;
  Tripod below(mass, 0.01, 0.05, mu);
  below.set("fx", 0.9 * mu * mass * kG);
  below.run(300);
  EXPECT_NEAR(below.vel()[0], 0.0, 1e-10);
  Tripod above(mass, 0.01, 0.05, mu);
  above.set("fx", 1.5 * mu * mass * kG);
  above.run(300);
  EXPECT_NEAR(above.vel()[0], 0.5 * mu * kG * 0.3, 1e-8);
}

// an off-centre tripod carries unequal loads, but Eq. 3.24's moment rows (sum lambda_k x_k =
// sum lambda_k y_k = 0) put the centre of friction at the centre of mass: a slide in any
// direction decelerates at mu g and never turns the block
TEST(PlanarTest, UnequalLoadsStillSlideWithoutTurning) {
  Tripod t(1.0, 0.01, 0.05, 0.5);
  t.set("x1", 0.02);
  t.set("vx", 0.5);
  t.set("vy", 0.2);
  t.run(50);
  double v0 = hypot(0.5, 0.2), v = hypot(t.vel()[0], t.vel()[1]);
  EXPECT_NEAR(v, v0 - 0.5 * kG * 0.05, 1e-9);
  EXPECT_NEAR(t.vel()[1] / t.vel()[0], 0.4, 1e-9);
  EXPECT_NEAR(t.vel()[5], 0.0, 1e-12);
}

TEST(PlanarTest, SupportBadInputNamesTheField) {
  tbModel* m = tb_newModel();
  tbBodyDef bd = tb_defaultBodyDef();
  int free3d = tb_addBody(m, &bd);
  bd.name = "planar";
  bd.lock = TB_LOCK_PLANAR;
  int planar = tb_addBody(m, &bd);
  tbSupportDef sd = tb_defaultSupportDef();
  sd.body = free3d;
  const double pts[3][2] = {{0, 0.1}, {-0.1, -0.05}, {0.1, -0.05}};
  memcpy(sd.point, pts, sizeof(pts));
  EXPECT_EQ(tb_addSupport(m, &sd), -1);
  EXPECT_NE(std::string(tb_lastError()).find("TB_LOCK_PLANAR"), std::string::npos);
  sd.body = planar;
  sd.point[0][1] = -0.2;  // the centre of mass is no longer inside
  EXPECT_EQ(tb_addSupport(m, &sd), -1);
  EXPECT_NE(std::string(tb_lastError()).find("surround"), std::string::npos);
  sd.point[0][1] = 0.1;
  sd.mu = NAN;
  EXPECT_EQ(tb_addSupport(m, &sd), -1);
  EXPECT_NE(std::string(tb_lastError()).find("mu"), std::string::npos);
  sd.mu = 0.3;
  EXPECT_EQ(tb_addSupport(m, &sd), 0);
  m->opt.gravity[2] = 0.0;  // nothing presses the tripod down
  EXPECT_EQ(tb_compileModel(m), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("gravity"), std::string::npos);
  tb_freeModel(m);
}

// a scene whose parameters move a support point outside is refused at reset, by name
TEST(PlanarTest, SceneTripodCheckedAtReset) {
  Tripod t(1.0, 0.01, 0.05, 0.5, TB_CONE_EXACT, 8, 3);
  t.d->param[1 * t.m->nparam + tb_findParam(t.m, "x1")] = 0.5;
  EXPECT_EQ(tb_resetData(t.m, t.d), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("scene 1"), std::string::npos) << tb_lastError();
  EXPECT_EQ(tb_checkParams(t.m, t.d), TB_ERR_ARG);
}

//---- prisms ------------------------------------------------------------------------------------

namespace {

int AddPlanarDisc(tbModel* m, const char* name, double x, double vx, double radius) {
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = name;
  bd.pos[0] = x;
  bd.vel[0] = vx;
  bd.lock = TB_LOCK_PLANAR;
  int b = tb_addBody(m, &bd);
  static const double centre[2] = {0.0, 0.0};
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.type = TB_GEOM_PRISM;
  gd.nvert = 1;
  gd.vert = centre;
  gd.size[0] = radius;
  gd.mu = 0.0;
  EXPECT_GE(tb_addGeom(m, &gd), 0) << tb_lastError();
  return b;
}

}  // namespace

// two equal frictionless discs, one at rest: a plastic impact shares the momentum and stops
// the approach; nothing interpenetrates beyond the solver tolerance
TEST(PlanarTest, PrismDiscsCollideInThePlane) {
  tbModel* m = tb_newModel();
  m->opt.gravity[2] = 0.0;
  m->opt.tol = 1e-12;
  int a = AddPlanarDisc(m, "a", 0.0, 1.0, 0.05);
  int b = AddPlanarDisc(m, "b", 0.2, 0.0, 0.05);
  ASSERT_EQ(tb_compileModel(m), TB_OK) << tb_lastError();
  tbData* d = tb_newData(m, 1);
  tb_defaultParams(m, d);
  ASSERT_EQ(tb_resetData(m, d), TB_OK);
  ASSERT_EQ(tb_rollout(m, d, 0, 1, 300, nullptr), TB_OK);
  EXPECT_NEAR(d->body_vel[6 * a] + d->body_vel[6 * b], 1.0, 1e-12);  // momentum
  EXPECT_NEAR(d->body_vel[6 * a], d->body_vel[6 * b], 1e-9);         // plastic: no approach
  EXPECT_GT(d->body_pos[3 * b] - d->body_pos[3 * a], 0.1 - 1e-9);
  EXPECT_NEAR(d->body_pos[3 * a + 1], 0.0, 1e-15);  // stays on its line
  tb_freeData(d);
  tb_freeModel(m);
}

TEST(PlanarTest, PrismBadInputNamesTheField) {
  tbModel* m = tb_newModel();
  tbBodyDef bd = tb_defaultBodyDef();
  bd.lock = TB_LOCK_PLANAR;
  int b = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.type = TB_GEOM_PRISM;
  const double cw[8] = {0, 0, 0, 1, 1, 1, 1, 0};  // clockwise
  gd.nvert = 4;
  gd.vert = cw;
  EXPECT_EQ(tb_addGeom(m, &gd), -1);
  EXPECT_NE(std::string(tb_lastError()).find("vertex"), std::string::npos) << tb_lastError();
  gd.nvert = 0;
  EXPECT_EQ(tb_addGeom(m, &gd), -1);
  const double centre[2] = {0, 0};
  gd.nvert = 1;
  gd.vert = centre;
  gd.size[0] = 0.0;  // a disc needs a radius
  EXPECT_EQ(tb_addGeom(m, &gd), -1);
  EXPECT_NE(std::string(tb_lastError()).find("radius"), std::string::npos);
  gd.size[0] = 0.1;
  EXPECT_GE(tb_addGeom(m, &gd), 0);
  // a free 3D body may not carry a prism
  tbBodyDef free3d = tb_defaultBodyDef();
  free3d.name = "free";
  gd.body = tb_addBody(m, &free3d);
  EXPECT_EQ(tb_addGeom(m, &gd), -1);
  EXPECT_NE(std::string(tb_lastError()).find("TB_LOCK_PLANAR"), std::string::npos);
  // a prism and a 3D shape that could touch are refused at compile
  gd.type = TB_GEOM_SPHERE;
  EXPECT_GE(tb_addGeom(m, &gd), 0);
  EXPECT_EQ(tb_compileModel(m), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("prism"), std::string::npos) << tb_lastError();
  tb_freeModel(m);
}
