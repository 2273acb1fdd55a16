// Small-vector math shared by the CPU path and the CUDA kernels.
//
// Conventions (Berard thesis §2.1): quaternions are scalar-first (w, x, y, z), unit length,
// rotating body-frame vectors into the world frame; twists are [v; w] with the linear part
// first, both in the world frame. The thesis's skew operator (Eq. 2.14) has the opposite sign
// of the usual cross-product matrix; we use the ordinary cross product everywhere.
#ifndef TUMBLE_TB_MATH_H_
#define TUMBLE_TB_MATH_H_

#include <assert.h>
#include <math.h>

// TB_HD: small shared functions, inlined on the device. TB_HDN: the large ones (solvers, the
// LCP form) and the stages a step or a solve calls once from several places (auto's tb_stage,
// twelve calls; the step's preparation, problem, retry and finish), kept as one device function
// each so that a kernel that reaches many of them stays within a reasonable size and compile
// time: inlined, tb_solveQuiet was 145,000 PTX lines and ptxas took 1,717 s and 8.6 GB for the
// fp64 kernels; with those nine stages apart, 655 s and 3.6 GB (SASS 31.7 MB to 19.5 MB). TB_HDI:
// the innermost loops' helpers, inlined on the host too (GCC's heuristics otherwise call them out
// of line once their callers grow: a step then spends a fifth more instructions in its short dot
// products)
#ifdef __CUDACC__
#define TB_HD __host__ __device__ __forceinline__
#define TB_HDN __host__ __device__ inline __noinline__
#define TB_HDI TB_HD
#else
#define TB_HD static inline
#define TB_HDN static inline
#define TB_HDI static inline __attribute__((always_inline))
#endif

// TB_ASSERT: a programmer's error, checked at the step's stage boundaries in debug builds (a
// Release build defines NDEBUG: none is compiled there); never for bad input or a scene's state,
// which go to the error message or the scene's status
#define TB_ASSERT(cond) assert(cond)

#define TB_PI 3.14159265358979323846

TB_HD double tbu_clamp(double x, double lo, double hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

TB_HD void tbu_zero3(double r[3]) {
  r[0] = r[1] = r[2] = 0.0;
}

TB_HD void tbu_copy3(double r[3], const double a[3]) {
  r[0] = a[0];
  r[1] = a[1];
  r[2] = a[2];
}

// sum of a[k] b[k] over k in [k0, k1), in four running sums (a fixed order, the same on every
// backend) that the compiler can keep in vector registers where one sum would serialize
TB_HDI double tbu_dotRange(const double* a, const double* b, int k0, int k1) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int k = k0, k4 = k0 + ((k1 - k0) & ~3);
  for (; k < k4; k += 4) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
  }
  // the tail in s0 unrolled: as a loop it took 1.3% more of the pendulum's step (a 15-row
  // Cholesky of short sums), in the same order
  if (k < k1) s0 += a[k] * b[k];
  if (k + 1 < k1) s0 += a[k + 1] * b[k + 1];
  if (k + 2 < k1) s0 += a[k + 2] * b[k + 2];
  return (s0 + s1) + (s2 + s3);
}

TB_HD double tbu_dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

TB_HD double tbu_norm3(const double a[3]) {
  return sqrt(tbu_dot3(a, a));
}

TB_HD void tbu_add3(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] + b[0];
  r[1] = a[1] + b[1];
  r[2] = a[2] + b[2];
}

TB_HD void tbu_sub3(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] - b[0];
  r[1] = a[1] - b[1];
  r[2] = a[2] - b[2];
}

TB_HD void tbu_scl3(double r[3], const double a[3], double s) {
  r[0] = a[0] * s;
  r[1] = a[1] * s;
  r[2] = a[2] * s;
}

// r = a + s*b
TB_HD void tbu_addscl3(double r[3], const double a[3], const double b[3], double s) {
  r[0] = a[0] + s * b[0];
  r[1] = a[1] + s * b[1];
  r[2] = a[2] + s * b[2];
}

TB_HD void tbu_cross3(double r[3], const double a[3], const double b[3]) {
  double x = a[1] * b[2] - a[2] * b[1];
  double y = a[2] * b[0] - a[0] * b[2];
  double z = a[0] * b[1] - a[1] * b[0];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}

// normalize in place; returns the original length (0 leaves the vector unchanged)
TB_HD double tbu_normalize3(double a[3]) {
  double n = tbu_norm3(a);
  if (n > 0.0) {
    a[0] /= n;
    a[1] /= n;
    a[2] /= n;
  }
  return n;
}

// orthonormal tangents (t, o) with (n, t, o) right-handed; t prefers the plane spanned
// by n and the world z axis complement so that planar (xy) scenes keep t in their plane
TB_HD void tbu_tangents(const double n[3], double t[3], double o[3]) {
  const double z[3] = {0.0, 0.0, 1.0};
  const double x[3] = {1.0, 0.0, 0.0};
  tbu_cross3(t, fabs(n[2]) < 0.9 ? z : x, n);
  tbu_normalize3(t);
  tbu_cross3(o, n, t);
}

//---- quaternions -------------------------------------------------------------------------------

TB_HD void tbu_quatMul(double r[4], const double a[4], const double b[4]) {
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  r[0] = w;
  r[1] = x;
  r[2] = y;
  r[3] = z;
}

TB_HD void tbu_quatConj(double r[4], const double a[4]) {
  r[0] = a[0];
  r[1] = -a[1];
  r[2] = -a[2];
  r[3] = -a[3];
}

TB_HD void tbu_quatNormalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0.0) {
    q[0] /= n;
    q[1] /= n;
    q[2] /= n;
    q[3] /= n;
  } else {
    q[0] = 1.0;
    q[1] = q[2] = q[3] = 0.0;
  }
}

// q made unit where its squared norm leaves the normal doubles (components from about 1e154, or
// all below 1e-154): scaled by its largest component first, so that 1e300 1e300 0 0 is the
// quarter turn it names, not 0 0 0 0 (inf norm) or the identity (zero norm). Bitwise
// tbu_quatNormalize for every other q, the zero q included (the identity); for input values
// (model files, defs), not the step
TB_HD void tbu_quatNormalizeScaled(double q[4]) {
  double s = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  double big = fmax(fmax(fabs(q[0]), fabs(q[1])), fmax(fabs(q[2]), fabs(q[3])));
  if (big > 0.0 && isfinite(big) && !(s >= 2.2250738585072014e-308 && s < INFINITY)) {
    for (int k = 0; k < 4; k++) q[k] /= big;
  }
  tbu_quatNormalize(q);
}

// r = R(q) v
TB_HD void tbu_rotVec(double r[3], const double q[4], const double v[3]) {
  // v + 2 w (u x v) + 2 u x (u x v), u = vector part
  double u[3] = {q[1], q[2], q[3]}, c[3], cc[3];
  tbu_cross3(c, u, v);
  tbu_cross3(cc, u, c);
  r[0] = v[0] + 2.0 * (q[0] * c[0] + cc[0]);
  r[1] = v[1] + 2.0 * (q[0] * c[1] + cc[1]);
  r[2] = v[2] + 2.0 * (q[0] * c[2] + cc[2]);
}

// r = R(q)^T v
TB_HD void tbu_rotVecInv(double r[3], const double q[4], const double v[3]) {
  double qc[4];
  tbu_quatConj(qc, q);
  tbu_rotVec(r, qc, v);
}

// quaternion of a rotation by the rotation vector th (axis * angle)
TB_HD void tbu_quatFromRotVec(double q[4], const double th[3]) {
  double a = tbu_norm3(th);
  double s = a > 1e-8 ? sin(0.5 * a) / a : 0.5 - a * a / 48.0;
  q[0] = cos(0.5 * a);
  q[1] = th[0] * s;
  q[2] = th[1] * s;
  q[3] = th[2] * s;
}

TB_HD void tbu_quatAxisAngle(double q[4], const double axis[3], double angle) {
  double a[3] = {axis[0], axis[1], axis[2]};
  tbu_normalize3(a);
  double s = sin(0.5 * angle);
  q[0] = cos(0.5 * angle);
  q[1] = a[0] * s;
  q[2] = a[1] * s;
  q[3] = a[2] * s;
}

// rotation vector of a unit quaternion (shortest rotation)
TB_HD void tbu_quatToRotVec(double r[3], const double q[4]) {
  double s = q[0] < 0.0 ? -1.0 : 1.0;
  double v[3] = {s * q[1], s * q[2], s * q[3]};
  double n = tbu_norm3(v);
  double k = n > 1e-12 ? 2.0 * atan2(n, s * q[0]) / n : 2.0;
  tbu_scl3(r, v, k);
}

// world-frame angular velocity integrated over h: q <- exp(h w / 2) q (exact for constant w,
// keeps |q| = 1, first order like the thesis's q + h G(q) w)
TB_HD void tbu_quatIntegrate(double q[4], const double w[3], double h) {
  double th[3] = {w[0] * h, w[1] * h, w[2] * h}, dq[4], r[4];
  tbu_quatFromRotVec(dq, th);
  tbu_quatMul(r, dq, q);
  tbu_quatNormalize(r);
  q[0] = r[0];
  q[1] = r[1];
  q[2] = r[2];
  q[3] = r[3];
}

// qdot = 1/2 (0, w) (x) q for a world-frame angular velocity w
TB_HD void tbu_quatDeriv(double qd[4], const double q[4], const double w[3]) {
  const double wq[4] = {0.0, w[0], w[1], w[2]};
  tbu_quatMul(qd, wq, q);
  qd[0] *= 0.5;
  qd[1] *= 0.5;
  qd[2] *= 0.5;
  qd[3] *= 0.5;
}

// rotation matrix, row-major
TB_HD void tbu_quat2Mat(double R[9], const double q[4]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z);
  R[1] = 2 * (x * y - w * z);
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);
  R[4] = 1 - 2 * (x * x + z * z);
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);
  R[7] = 2 * (y * z + w * x);
  R[8] = 1 - 2 * (x * x + y * y);
}

// Euler angles (roll about x, pitch about y, yaw about z; R = Rz Ry Rx)
TB_HD void tbu_quat2Euler(double e[3], const double q[4]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double sp = 2.0 * (w * y - z * x);
  sp = sp > 1.0 ? 1.0 : (sp < -1.0 ? -1.0 : sp);
  e[0] = atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y));
  e[1] = asin(sp);
  e[2] = atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z));
}

TB_HD void tbu_euler2Quat(double q[4], const double e[3]) {
  double cr = cos(0.5 * e[0]), sr = sin(0.5 * e[0]);
  double cp = cos(0.5 * e[1]), sp = sin(0.5 * e[1]);
  double cy = cos(0.5 * e[2]), sy = sin(0.5 * e[2]);
  q[0] = cr * cp * cy + sr * sp * sy;
  q[1] = sr * cp * cy - cr * sp * sy;
  q[2] = cr * sp * cy + sr * cp * sy;
  q[3] = cr * cp * sy - sr * sp * cy;
}

//---- 3x3 matrices (row-major) ------------------------------------------------------------------

TB_HD void tbu_mulMatVec3(double r[3], const double M[9], const double v[3]) {
  double x = M[0] * v[0] + M[1] * v[1] + M[2] * v[2];
  double y = M[3] * v[0] + M[4] * v[1] + M[5] * v[2];
  double z = M[6] * v[0] + M[7] * v[1] + M[8] * v[2];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}

// world-frame inertia R diag(I) R^T
TB_HD void tbu_inertiaWorld(double Iw[9], const double q[4], const double Idiag[3]) {
  double R[9];
  tbu_quat2Mat(R, q);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      Iw[3 * i + j] = R[3 * i + 0] * Idiag[0] * R[3 * j + 0] +
                      R[3 * i + 1] * Idiag[1] * R[3 * j + 1] +
                      R[3 * i + 2] * Idiag[2] * R[3 * j + 2];
    }
  }
}

// point velocity of a body: v + w x (p - x)
TB_HD void tbu_pointVel(double r[3], const double vel[6], const double com[3], const double p[3]) {
  double d[3], c[3];
  tbu_sub3(d, p, com);
  tbu_cross3(c, vel + 3, d);
  tbu_add3(r, vel, c);
}

#endif  // TUMBLE_TB_MATH_H_
