// Drumwright's compliant constraints (issue 18, seed drumwright-stable-constraint-solver, notes
// seed-prox-drumwright.md §3): a joint's or a contact's stiffness K and damping B enter the
// impulse rows as CFM and ERP (tb_softRow). Checks: the row form is the paper's closed form
// (D 59-62) on random data; a compliant joint is implicit Euler on the mass-spring-damper (Sec.
// 3, Fig. 3: stable at any h, with its artificial dissipation); the stiff pendulum of Sec. 4.4
// stays stable and its deviation scales with h^2; redundant joints share the load; a compliant
// contact sinks by weight over stiffness; bad values are named.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "math/dense.h"
#include "math/tb_math.h"

#include "cli_runner.h"
#include "engine/stage_rows.h"
#include "test_util.h"

namespace {

// the reference's arithmetic: lambda1 = -K (phi0 + h phidot1) - B phidot1 cancels phi0 against
// h phidot1 to within lambda1 / K, nine digits at K = 1e12, beyond long double's
typedef __float128 Quad;

Quad qabs(Quad q) {
  return q < 0 ? -q : q;
}

// x = A^-1 b in quad precision (Gaussian elimination with partial pivoting): the reference
std::vector<Quad> solveQuad(int n, std::vector<Quad> A, std::vector<Quad> b) {
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++) {
      if (qabs(A[r * n + c]) > qabs(A[p * n + c])) p = r;
    }
    for (int k = 0; k < n; k++) std::swap(A[c * n + k], A[p * n + k]);
    std::swap(b[c], b[p]);
    for (int r = c + 1; r < n; r++) {
      Quad f = A[r * n + c] / A[c * n + c];
      for (int k = c; k < n; k++) A[r * n + k] -= f * A[c * n + k];
      b[r] -= f * b[c];
    }
  }
  for (int r = n - 1; r >= 0; r--) {
    for (int k = r + 1; k < n; k++) b[r] -= A[r * n + k] * b[k];
    b[r] /= A[r * n + r];
  }
  return b;
}

// D 59-62 (linear constraints: G constant, the M^ Gdot v term zero), evaluated in quad precision,
// against the rows tumble solves, (W + diag cfm) x = -(phidot_free + bias) with tb_softRow's cfm
// and bias, lambda = x / h, in double: random SPD W (eigenvalues at least 0.5, as a Delassus
// matrix of independent rows), K, B, h, phi0, phidot0 and G M^-1 f; agreement to 1e-12
TEST(ComplianceTest, RowFormIsDrumwrightsClosedForm) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0), pos(0.1, 2.0);
  for (int trial = 0; trial < 200; trial++) {
    const int n = 1 + trial % 5;
    std::vector<double> R(n * n), W(n * n), K(n), B(n), phi(n), phid(n), gf(n);
    for (auto& r : R) r = u(rng);
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        W[i * n + j] = 0.5 * (i == j);
        for (int k = 0; k < n; k++) W[i * n + j] += R[i * n + k] * R[j * n + k];
      }
      // stiffness from 4 to 1e12, damping to 1e6, and now and then a pure spring or damper
      K[i] = trial % 7 == 0 ? 0.0 : std::pow(10.0, 6.0 * pos(rng));
      B[i] = trial % 5 == 0 && K[i] > 0.0 ? 0.0 : std::pow(10.0, 3.0 * pos(rng));
      phi[i] = 1e-3 * u(rng);
      phid[i] = u(rng);
      gf[i] = u(rng);  // G M^-1 f
    }
    double h = std::pow(10.0, -1.0 - 3.0 * pos(rng) / 2.0);
    // Drumwright: phidot1 = Y (phidot0 - h W K phi0 + h G M^-1 f), Y = (I + W (h^2 K + h B))^-1,
    // phi1 = phi0 + h phidot1, lambda1 = -K phi1 - B phidot1
    std::vector<Quad> Yi(n * n), rhs(n);
    const Quad hq = h;
    for (int i = 0; i < n; i++) {
      rhs[i] = phid[i] + hq * gf[i];
      for (int j = 0; j < n; j++) {
        Yi[i * n + j] = (i == j) + (Quad)W[i * n + j] * (hq * hq * K[j] + hq * B[j]);
        rhs[i] -= hq * W[i * n + j] * K[j] * phi[j];
      }
    }
    std::vector<Quad> phid1 = solveQuad(n, Yi, rhs);
    // tumble's rows
    std::vector<double> A(W), x(n);
    std::vector<int> piv(n);
    for (int i = 0; i < n; i++) {
      tbRowJ row = {};
      row.bias = phi[i] / h;
      tb_softRow(&row, h, K[i], B[i]);
      A[i * n + i] += row.cfm;
      x[i] = -(phid[i] + h * gf[i] + row.bias);
    }
    ASSERT_EQ(tbu_lu(n, A.data(), piv.data()), 0);
    tbu_luSolve(n, A.data(), piv.data(), x.data());
    // norm-wise: a row's error carries the rounding of the others' larger impulses
    double err = 0.0, size = 0.0;
    for (int i = 0; i < n; i++) {
      double lam = (double)(-K[i] * (phi[i] + hq * phid1[i]) - B[i] * phid1[i]);
      err = std::max(err, std::fabs(x[i] / h - lam));
      size = std::max(size, std::fabs(lam));
    }
    EXPECT_LE(err / size, 1e-12) << "trial " << trial;
  }
}

// a bob of mass `mass` at the origin on `njoint` spherical joints to the world at its center,
// each with stiffness K and damping B, no gravity: along each axis m x'' + n B x' + n K x = 0
tbModel* bobModel(double mass, double K, double B, double h, int njoint = 1, double gz = 0.0) {
  tbModel* m = tb_newModel();
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "bob";
  bd.mass = mass;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.1 * mass;
  int b = tb_addBody(m, &bd);
  for (int j = 0; j < njoint; j++) {
    tbJointDef jd = tb_defaultJointDef();
    jd.type = TB_JOINT_SPHERICAL;
    jd.body_a = b;
    jd.stiffness = K;
    jd.damping = B;
    tb_addJoint(m, &jd);
  }
  int p = tb_addParam(m, "vx0", "m/s", "initial velocity", -1e6, 1e6, 0);
  tb_paramTarget(m, p, TB_F_BODY_VEL, b, 0);
  m->opt.timestep = h;
  m->opt.gravity[2] = gz;
  if (tb_compileModel(m) != TB_OK) {
    tb_freeModel(m);
    return nullptr;
  }
  return m;
}

// Sec. 3, Fig. 3 (k = 1e6, m = 1, b = 0, h = 1e-5 and 1e-2) and beyond: each step of the
// compliant joint is implicit Euler, x1 = x0 + h v1, v1 (m + h^2 k + h b) = m v0 - h k x0, to
// 1e-11 of the state's size (v^2 + k x^2)^1/2 before the step (seen 1.2e-12 at k = 1e12, where
// both sides round m v0 - h k x0's cancellation). Without damping the energy
// E = m v^2 + k x^2 falls by exactly 1 / (1 + h^2 k / m) a step (the paper's artificial
// dissipation): stable at any h, where explicit and symplectic Euler blow up at h = 1e-2, k = 1e12
struct Msd {
  double k, b, h;
  int nstep;
};

TEST(ComplianceTest, CompliantJointIsImplicitEulerOnTheSpring) {
  const Msd cases[] = {{1e6, 0.0, 1e-5, 2000}, {1e6, 0.0, 1e-2, 50},  {1e6, 2e5, 1e-5, 2000},
                       {1e7, 1.0, 1e-3, 100},  {1e12, 0.0, 1e-2, 20}, {1e6, 10.0, 1e-5, 2000}};
  for (const Msd& c : cases) {
    std::string what =
        "k " + std::to_string(c.k) + " b " + std::to_string(c.b) + " h " + std::to_string(c.h);
    Scene sc(bobModel(1.0, c.k, c.b, c.h), 1);
    sc.set("vx0", 1.0);
    sc.reset();
    double d = 1.0 + c.h * c.h * c.k + c.h * c.b, worst = 0.0, energy_worst = 0.0;
    for (int n = 1; n <= c.nstep; n++) {
      double x0 = sc.pos(0)[0], v0 = sc.vel(0)[0], e0 = v0 * v0 + c.k * x0 * x0;
      double v = (v0 - c.h * c.k * x0) / d, x = x0 + c.h * v;
      sc.run(1);
      double xs = sc.pos(0)[0], vs = sc.vel(0)[0];
      double err = std::max(std::fabs(vs - v), std::sqrt(c.k) * std::fabs(xs - x));
      worst = std::max(worst, err / std::sqrt(e0));
      if (c.b == 0.0) {
        double e = vs * vs + c.k * xs * xs;
        energy_worst = std::max(energy_worst, std::fabs(e - e0 / d) / e0);
      }
    }
    EXPECT_LT(worst, 1e-11) << what;
    EXPECT_LT(energy_worst, 1e-12) << what;
    EXPECT_GT(sc.pos(0)[0] * sc.pos(0)[0] + sc.vel(0)[0] * sc.vel(0)[0], 0.0) << what;
    EXPECT_EQ(sc.d->status[0] & TB_SCENE_FAILMASK, 0) << what;
  }
}

// spectral radius of the 2x2 iteration matrix [[a, b], [c, d]]
double spectralRadius(double a, double b, double c, double d) {
  double tr = a + d, det = a * d - b * c, disc = tr * tr - 4.0 * det;
  if (disc < 0.0) return std::sqrt(det);
  return std::max(std::fabs(tr + std::sqrt(disc)), std::fabs(tr - std::sqrt(disc))) / 2.0;
}

// Sec. 3's three integrators of m x'' + b x' + k x = 0 at the settings of Figs. 1-3 (m = 1):
// explicit Euler (D 7-10) and symplectic Euler (D 11-12) stable or not as the paper says (the
// notes' spectral radii), and the compliant joint, implicit Euler (D 13-14), stable at every one
// of them: its state (v^2 + k x^2)^1/2 shrinks, and without damping by exactly the implicit
// radius (1 + h^2 k)^-1/2 a step
TEST(ComplianceTest, MassSpringDamperStabilityOfFigures1To3) {
  struct Fig {
    double h, k, b, explicit_rho, symplectic_rho;
  };
  const Fig figs[] = {
      {1e-5, 1e6, 1.0, 1.000045, -1}, {1e-5, 1e6, 10.0, 1.0, -1},       // Fig. 1: unstable, "more"
      {1e-5, 1e6, 2e5, 0.99995, -1},  {1e-5, 1e6, 2.1e5, 1.09995, -1},  // stable, unstable
      {1e-3, 1e6, 1.0, -1, 0.9995},   {1e-3, 1e7, 1.0, -1, 7.864},      // Fig. 2
      {1e-5, 1e6, 0.0, -1, -1},       {1e-2, 1e6, 0.0, -1, -1}};        // Fig. 3
  for (const Fig& f : figs) {
    std::string what =
        "h " + std::to_string(f.h) + " k " + std::to_string(f.k) + " b " + std::to_string(f.b);
    if (f.explicit_rho > 0) {
      double rho = spectralRadius(1.0, f.h, -f.h * f.k, 1.0 - f.h * f.b);
      EXPECT_NEAR(rho, f.explicit_rho, 1e-5) << what;
    }
    if (f.symplectic_rho > 0) {
      double d = 1.0 + f.h * f.b;
      double rho = spectralRadius(1.0 - f.h * f.h * f.k / d, f.h / d, -f.h * f.k / d, 1.0 / d);
      EXPECT_NEAR(rho, f.symplectic_rho, 1e-3) << what;
    }
    Scene sc(bobModel(1.0, f.k, f.b, f.h), 1);
    sc.set("vx0", 1.0);
    sc.reset();
    // enough steps to see the radius, few enough that the state stays in double's range
    const int n = f.h < 1e-4 ? 2000 : 20;
    sc.run(n);
    double x = sc.pos(0)[0], v = sc.vel(0)[0], size = std::sqrt(v * v + f.k * x * x);
    EXPECT_LT(size, 1.0) << what;
    if (f.b == 0.0) {
      double rho = std::pow(size, 1.0 / n), want = 1.0 / std::sqrt(1.0 + f.h * f.h * f.k);
      EXPECT_NEAR(rho, want, 1e-12 * want) << what;
    }
  }
}

// the bob's joint anchor, the link's top end, in the world
void linkTop(const Scene& sc, int b, double L, double out[3]) {
  const double top[3] = {0.0, 0.0, 0.5 * L};
  double r[3];
  tbu_rotVec(r, sc.quat(b), top);
  for (int k = 0; k < 3; k++) out[k] = sc.pos(b)[k] + r[k];
}

// Sec. 4.4: a pendulum released horizontal from rest with k = 1e15, b = 1 on its joint, 1 s:
// stable at h = 0.1, and its largest deviation from the pivot scales as h^2 (seen: 0.060,
// 7.3e-4, 7.4e-6, 7.4e-8 for h = 0.1 to 1e-4; the notes' re-implementation with a point-like
// bob: 5.8e-2, then g h^2 / 2, 4.9e-4 at h = 1e-2)
TEST(ComplianceTest, StiffPendulumIsStableAndDeviatesAsHSquared) {
  const double hs[4] = {1e-1, 1e-2, 1e-3, 1e-4};
  double dev[4];
  for (int i = 0; i < 4; i++) {
    int scene = tb_findScene("pendulum");
    tbBuild bo = tb_defaultBuild(scene);
    bo.opt[0] = 1;         // links
    bo.opt[2] = M_PI / 2;  // horizontal
    tbModel* m = tb_buildScene(scene, &bo);
    ASSERT_NE(m, nullptr) << tb_lastError();
    Scene sc(m, 1);
    sc.set("dt", hs[i]);
    sc.set("joint_stiffness", 1e15);
    sc.set("joint_damping", 1.0);
    sc.reset();
    const double pivot[3] = {0.0, 0.0, 2.0};
    int b = sc.body("link0");
    int nstep = (int)std::lround(1.0 / hs[i]);
    dev[i] = 0.0;
    double vmax = 0.0;
    for (int n = 0; n < nstep; n++) {
      sc.run(1);
      double top[3];
      linkTop(sc, b, 1.0, top);
      double off[3];
      tbu_sub3(off, top, pivot);
      dev[i] = std::max(dev[i], tbu_norm3(off));
      vmax = std::max(vmax, std::sqrt(tbu_dot3(sc.vel(b), sc.vel(b))));
    }
    EXPECT_EQ(sc.d->status[0] & TB_SCENE_FAILMASK, 0) << hs[i];
    // a bounded swing: the center of a 1 m rod falling 0.5 m moves at most sqrt(2 g 0.5)
    // (rod inertia slows it further); energy is not created
    EXPECT_LT(vmax, 3.2) << "h " << hs[i];
  }
  EXPECT_LT(dev[0], 0.2);
  for (int i = 1; i < 3; i++) {
    double ratio = dev[i] / dev[i + 1];
    EXPECT_GT(ratio, 80.0) << "h " << hs[i] << " dev " << dev[i] << " then " << dev[i + 1];
    EXPECT_LT(ratio, 125.0) << "h " << hs[i] << " dev " << dev[i] << " then " << dev[i + 1];
  }
  EXPECT_LT(dev[3], 1e-6);
}

// a body held by two identical joints: rigid, the rows repeat and W is singular (Drumwright:
// "redundant constraints do not pose numerical problems"); compliant, every solver that takes a
// problem of joints alone converges and the bob hangs at m g / (2 K), the springs in parallel
TEST(ComplianceTest, RedundantJointsShareTheLoadWithEverySolver) {
  const double K = 1e5, B = 1e3, mass = 2.0, g = -9.81;
  for (int solver = 0; solver < TB_NSOLVER; solver++) {
    // the NCP solvers take problems with contacts, Lemke a standard LCP: no free rows
    if (solver == TB_SOLVER_MNCP_RLM || solver == TB_SOLVER_MNCP_PLM ||
        solver == TB_SOLVER_NCP_DOGLEG || solver == TB_SOLVER_LEMKE)
      continue;
    tbModel* m = bobModel(mass, K, B, 1e-3, 2, g);
    ASSERT_NE(m, nullptr) << tb_lastError();
    m->opt.solver = solver;
    Scene sc(m, 1);
    sc.reset();
    sc.run(2000);
    EXPECT_EQ(sc.d->status[0] & (TB_SCENE_FAILMASK | TB_SCENE_UNCONVERGED), 0)
        << tb_solverName(solver);
    EXPECT_NEAR(sc.pos(0)[2], mass * g / (2 * K), 1e-6 * mass * std::fabs(g) / K)
        << tb_solverName(solver);
  }
}

// a sphere resting on compliant ground sinks by m g / K (one contact), and a rigid contact
// (K = B = 0) keeps it at the surface
TEST(ComplianceTest, CompliantContactSinksByWeightOverStiffness) {
  Scene sc("sliding-sphere", 2);
  sc.set("vx0", 0.0);
  sc.set("stiffness", 1e5, 0);
  sc.set("damping", 2e3, 0);
  sc.reset();
  sc.run(3000);
  int b = sc.body("sphere");
  double r = sc.pos(b, 1)[2];  // the rigid scene's center height: the radius
  double mass = sc.m->bdef[b].mass;
  EXPECT_NEAR(sc.pos(b, 0)[2] - r, -mass * 9.81 / 1e5, 1e-6 * mass * 9.81 / 1e5);
  for (int s = 0; s < 2; s++) EXPECT_EQ(sc.d->status[s] & TB_SCENE_FAILMASK, 0);
}

TEST(ComplianceTest, NegativeOrNonFiniteComplianceIsNamed) {
  tbModel* m = tb_newModel();
  tbBodyDef bd = tb_defaultBodyDef();
  int b = tb_addBody(m, &bd);
  tbJointDef jd = tb_defaultJointDef();
  jd.type = TB_JOINT_SPHERICAL;
  jd.body_a = b;
  jd.stiffness = -1.0;
  EXPECT_LT(tb_addJoint(m, &jd), 0);
  EXPECT_NE(std::string(tb_lastError()).find("joint 0: stiffness -1"), std::string::npos)
      << tb_lastError();
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.size[0] = 0.1;
  gd.damping = NAN;
  EXPECT_LT(tb_addGeom(m, &gd), 0);
  EXPECT_NE(std::string(tb_lastError()).find("damping nan"), std::string::npos) << tb_lastError();
  tb_freeModel(m);
  Scene sc("box-stack", 1);
  sc.set("stiffness", -5.0);
  EXPECT_EQ(tb_checkParams(sc.m, sc.d), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("stiffness"), std::string::npos) << tb_lastError();
}

class ComplianceCli : public CliFixture {};

TEST_F(ComplianceCli, StiffnessParameterOnTheCommandLine) {
  CliResult r = RunCli(
      {"simulate", "box-stack", "--scenes", "2", "--steps", "20", "--param", "stiffness=-1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("stiffness"), std::string::npos) << r.err;
  r = RunCli({"simulate", "pendulum", "--scenes", "2", "--steps", "20", "--param",
              "joint_stiffness=1e6:1e8", "--param", "joint_damping=10"});
  EXPECT_EQ(r.status, 0) << r.err;
}

}  // namespace
