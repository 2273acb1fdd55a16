// The problem's velocity map and its natural-map residual: one implementation for every solver,
// test and benchmark (Acary, Bremond & Huber 2018, relative to max(||b||, 1e-16)).
#include <math.h>

#include <tumble/cone.h>
#include <tumble/tb_math.h>

#include "engine.h"

void tb_problemVelocity(const tbProblem* p, const double* x, double* u) {
  for (int i = 0; i < p->n; i++) {
    const double* a = p->A + (size_t)i * p->n;
    double s = p->b[i];
    for (int j = 0; j < p->n; j++) s += a[j] * x[j];
    u[i] = s;
  }
}

// squared natural-map residual of block k given x and u = A x + b
static double tb_blockResidual2(const tbProblem* p, int k, const double* x, const double* u) {
  int i = p->blk_adr[k];
  if (p->blk_type[k] == TB_BLOCK_BOX) {
    double r = x[i] - tbu_clamp(x[i] - u[i], p->lo[i], p->hi[i]);
    return r * r;
  }
  int ntan = p->blk_dim[k] - 1;
  double mu = p->blk_mu[k], y[3] = {0.0, 0.0, 0.0}, s = 0.0;
  if (ntan == 0) {
    double rn = x[i] - (x[i] - u[i] > 0.0 ? x[i] - u[i] : 0.0);
    return rn * rn;
  }
  if (p->cone == 0) {
    // FC3D natural map with the De Saxce term: r - P_K(r - (u + (mu |u_t|, 0, 0)))
    double ut = sqrt(u[i + 1] * u[i + 1] + (ntan > 1 ? u[i + 2] * u[i + 2] : 0.0));
    y[0] = x[i] - (u[i] + mu * ut);
    for (int t = 1; t <= ntan; t++) y[t] = x[i + t] - u[i + t];
    tbu_projCone(y, ntan, mu);
    for (int t = 0; t <= ntan; t++) s += (x[i + t] - y[t]) * (x[i + t] - y[t]);
    return s;
  }
  // pyramid: the normal row, then the tangent impulse in the polygon of radius mu x_n
  double rn = x[i] - (x[i] - u[i] > 0.0 ? x[i] - u[i] : 0.0);
  y[0] = x[i + 1] - u[i + 1];
  y[1] = ntan > 1 ? x[i + 2] - u[i + 2] : 0.0;
  tbu_projFriction(y, ntan, mu * (x[i] > 0.0 ? x[i] : 0.0), 1, p->facets, p->blk_angle[k]);
  s = rn * rn;
  for (int t = 0; t < ntan; t++) s += (x[i + 1 + t] - y[t]) * (x[i + 1 + t] - y[t]);
  return s;
}

double tb_residualFromVelocity(const tbProblem* p, const double* x, const double* u) {
  double s = 0.0, bn = 0.0;
  for (int k = 0; k < p->nblock; k++) s += tb_blockResidual2(p, k, x, u);
  for (int i = 0; i < p->n; i++) bn += p->b[i] * p->b[i];
  bn = sqrt(bn);
  return sqrt(s) / (bn > 1e-16 ? bn : 1e-16);
}

double tb_residual(const tbProblem* p, const double* x, double* work) {
  tb_problemVelocity(p, x, work);
  return tb_residualFromVelocity(p, x, work);
}

int tb_solverWorkSize(int n) {
  return n > 0 ? n : 1;
}
