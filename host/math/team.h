// A team of threads that steps one scene together: a warp on the GPU (the large scenes'
// kernel), one thread on the CPU (tb_solo), and in the tests an OpenMP team standing in for a
// warp. Work a team splits is bitwise the work of one thread: every element is computed by one
// member with the serial code, and every member computes the same scalars, so all take the same
// branches.
#ifndef TUMBLE_TEAM_H_
#define TUMBLE_TEAM_H_

#include "math/tb_math.h"

typedef struct tbTeam {
  int lane;  // this member, 0 the lead
  int size;  // members
} tbTeam;

TB_HD tbTeam tb_solo(void) {
  tbTeam t = {0, 1};
  return t;
}

// every member's writes before it are seen by every member after it
TB_HD void tb_teamSync(tbTeam t) {
#if defined(__CUDA_ARCH__)
  if (t.size > 1) __syncwarp();
#elif defined(_OPENMP)
  if (t.size > 1) {
    _Pragma("omp barrier")
  }
#else
  (void)t;
#endif
}

// 1 when v is nonzero on every member
TB_HD int tb_teamAll(tbTeam t, int v) {
#if defined(__CUDA_ARCH__)
  return t.size > 1 ? __all_sync(0xffffffffu, v) : v;
#elif defined(_OPENMP)
  if (t.size == 1) return v;
  static int all;  // the host team's vote, read between barriers
  tb_teamSync(t);
  if (t.lane == 0) all = 1;
  tb_teamSync(t);
  if (!v) {
    _Pragma("omp atomic write") all = 0;
  }
  tb_teamSync(t);
  int r = all;
  tb_teamSync(t);
  return r;
#else
  (void)t;
  return v;
#endif
}

// the lead's v on every member (for what the lead alone computed)
TB_HD double tb_teamShare(tbTeam t, double v) {
#if defined(__CUDA_ARCH__)
  return t.size > 1 ? __shfl_sync(0xffffffffu, v, 0) : v;
#elif defined(_OPENMP)
  if (t.size == 1) return v;
  static double lead;  // the host team's value, read between barriers
  tb_teamSync(t);
  if (t.lane == 0) lead = v;
  tb_teamSync(t);
  double r = lead;
  tb_teamSync(t);
  return r;
#else
  (void)t;
  return v;
#endif
}

TB_HD int tb_teamShareInt(tbTeam t, int v) {
  return (int)tb_teamShare(t, (double)v);  // exact: every int is a double
}

// dst[0..n) = src[0..n), the entries split over the team, seen by every member afterwards
TB_HD void tb_teamCopy(tbTeam t, double* dst, const double* src, int n) {
  tb_teamSync(t);  // every member has read dst and src as they were
#if !defined(__CUDA_ARCH__)
  // the host library's copy: a third of the loop's instructions on the pendulum's 15 x 15
  // factor (not in a kernel, where memcpy of unknown alignment may go byte by byte)
  if (t.size == 1) {
    memcpy(dst, src, sizeof(double) * (size_t)n);
    return;
  }
#endif
  for (int i = t.lane; i < n; i += t.size) dst[i] = src[i];
  tb_teamSync(t);
}

// x[0..n) = 0, the entries split over the team, seen by every member afterwards
TB_HD void tb_teamZero(tbTeam t, double* x, int n) {
  tb_teamSync(t);
  for (int i = t.lane; i < n; i += t.size) x[i] = 0.0;
  tb_teamSync(t);
}

#endif  // TUMBLE_TEAM_H_
