// GPU/CPU parity of the kinematic plate pose (kernels/plate_pose.cu against driver_geom.h).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "gpu.h"  // C header with its own extern "C" guards
extern "C" {
#include "tumble/driver_geom.h"
}

namespace {

TEST(GpuTest, PlatePoseParity) {
  if (tb_gpuDeviceCount() == 0) GTEST_SKIP() << "no CUDA device: GPU parity test skipped";

  const int n = 1000;
  const double t = 0.0123;
  const double two_pi = 2.0 * std::acos(-1.0);
  std::mt19937_64 rng(20240611);
  std::uniform_real_distribution<double> amp(-200.0, 200.0), phase(0.0, two_pi),
      omega(100.0, 300.0);
  // prm: (n x 13) = A_1..6, C_1..6, omega
  std::vector<double> prm(13 * n);
  for (int s = 0; s < n; s++) {
    double* p = &prm[13 * s];
    for (int i = 0; i < 6; i++) p[i] = amp(rng);
    for (int i = 0; i < 6; i++) p[6 + i] = phase(rng);
    p[12] = omega(rng);
  }

  std::vector<double> gpos(3 * n, NAN), gvel(6 * n, NAN);
  ASSERT_EQ(tb_gpuPlatePose(n, prm.data(), t, gpos.data(), gvel.data()), 0);

  // Both sides evaluate the same header code in fp64 with FMA contraction disabled
  // (-ffp-contract=off on the host, --fmad=false under nvcc), so every product and sum rounds
  // identically; only sin/cos may differ, by an ulp or two between libm and CUDA's math
  // library. The results therefore agree to round-off, far inside 1e-12 relative.
  const double p0[3] = {0.0, 0.0, 0.0};
  double worst = 0.0;  // largest |gpu - cpu| / (1e-12 + 1e-12 |cpu|)
  int worst_s = -1, worst_k = -1;
  double worst_gpu = 0.0, worst_cpu = 0.0;
  int bad = 0;
  for (int s = 0; s < n; s++) {
    const double* p = &prm[13 * s];
    double cpos[3], cvel[6];
    tbu_plateLinear(p, p + 6, p[12], t, p0, cpos, cvel);
    tbu_plateAngVel(p + 3, p + 9, p[12], t, cvel + 3);
    for (int k = 0; k < 9; k++) {
      double c = k < 3 ? cpos[k] : cvel[k - 3];
      double g = k < 3 ? gpos[3 * s + k] : gvel[6 * s + k - 3];
      double ratio = std::fabs(g - c) / (1e-12 + 1e-12 * std::fabs(c));
      if (!(ratio <= 1.0)) bad++;
      if (!(ratio <= worst)) {  // NaN becomes the worst
        worst = ratio;
        worst_s = s;
        worst_k = k;
        worst_gpu = g;
        worst_cpu = c;
      }
    }
  }
  const char* names[9] = {"x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz"};
  EXPECT_EQ(bad, 0) << bad << " of " << 9 * n << " values differ; worst: scene " << worst_s << " "
                    << (worst_k >= 0 ? names[worst_k] : "?") << " gpu "
                    << testing::PrintToString(worst_gpu) << " cpu "
                    << testing::PrintToString(worst_cpu) << " (|diff| / tol = " << worst << ")";
}

}  // namespace
