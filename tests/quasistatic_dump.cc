// Random one-step instances of the fence-particle problem (scene qs-fence) solved by tumble's
// quasistatic step, printed as JSON for tests/quasistatic_convex_check.py, which solves thesis
// Eq. 3.45 (exact cone) or its polygonal analogue (pyramid) directly and compares (Theorem 1).
//
//   tumble_qs_dump exact|pyramid FACETS COUNT SEED
//
// Each instance: h f_app, the particle's solved velocity v, and per contact its rows over the
// particle's DoFs (normal, tangents), their b at v = 0, impulses, mu and pyramid angle.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/scenes.h>
#include <tumble/tumble.h>

#include "math/rng.h"

#include "engine/engine.h"
#include "engine/stage_rows.h"

namespace {

// a draw in [lo, hi) for instance s
double draw(uint64_t seed, int s, int k, double lo, double hi) {
  return lo + (hi - lo) * tbu_uniform01(seed, (uint64_t)s, (uint64_t)k);
}

void set(tbModel* m, tbData* d, int s, const char* name, double v) {
  d->param[(size_t)s * m->nparam + tb_findParam(m, name)] = v;
}

// the particle's part of a row, its b at v = 0 (gap / h and the fence's motion) and impulse
void printRow(const tbModel* m, const tbWork* w, int i, int p, const double* zero) {
  const tbRowJ* r = &w->row[i];
  double J[3] = {0, 0, 0};
  for (int side = 0; side < 2; side++) {
    for (int k = 0; k < 3 && r->body[side] == p; k++) J[k] += r->J[side][k];
  }
  double b = tb_rowVelocity(m, r, zero, r->kind == TB_ROW_VELOCITY ? w->xvel : NULL) + r->bias;
  printf("{\"J\": [%.17g, %.17g, %.17g], \"b\": %.17g, \"x\": %.17g}", J[0], J[1], J[2], b,
         w->x[i]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: tumble_qs_dump exact|pyramid FACETS COUNT SEED\n");
    return 2;
  }
  int i = tb_findScene("qs-fence"), n = atoi(argv[3]);
  uint64_t seed = strtoull(argv[4], NULL, 10);
  tbBuild bo = tb_defaultBuild(i);
  bo.cone = strcmp(argv[1], "exact") ? TB_CONE_PYRAMID : TB_CONE_EXACT;
  if (bo.cone == TB_CONE_PYRAMID) bo.facets = atoi(argv[2]);
  tbModel* m = tb_buildScene(i, &bo);
  tbData* d = m ? tb_newData(m, n) : NULL;
  if (!d) {
    fprintf(stderr, "%s\n", tb_lastError());
    return 2;
  }
  for (int s = 0; s < n; s++) {
    // mu above the in-plane pull over the floor's load (|g_xy| / 9.81 <= 0.29) even where the
    // 4-facet pyramid holds cos 45 deg of it (mu >= 0.45): a static answer exists; the fence starts
    // behind the particle or up to 2 cm into it (it pushes), the particle a third of the time
    // against the wall, the fence never past the wall (the point would have no place: the step has
    // no solution and says so, unconverged)
    double x0 = draw(seed, s, 0, 0, 1) < 1.0 / 3 ? 1.0 - draw(seed, s, 1, 0, 8e-4)
                                                 : draw(seed, s, 1, 0.55, 0.95);
    set(m, d, s, "mu", draw(seed, s, 2, 0.45, 1.0));
    set(m, d, s, "x0", x0);
    set(m, d, s, "fence_x0", fmin(x0 + draw(seed, s, 3, -0.02, 0.02), 0.9995));
    set(m, d, s, "fence_amp", 0.0);
    set(m, d, s, "fence_vy", draw(seed, s, 4, -1.0, 1.0));
    set(m, d, s, "gravity_x", draw(seed, s, 5, -2.0, 2.0));
    set(m, d, s, "gravity_y", draw(seed, s, 6, -2.0, 2.0));
  }
  if (tb_checkParams(m, d) != TB_OK || tb_resetData(m, d) != TB_OK) {
    fprintf(stderr, "%s\n", tb_lastError());
    return 2;
  }
  tbWork* w = tb_newWork(m);
  int p = tb_findBody(m, "particle");
  double* zero = (double*)calloc(6 * m->nbody, sizeof(double));
  printf("[\n");
  for (int s = 0; s < n; s++) {
    tb_stepScene(m, d, s, w);
    const double* hf = w->qsf + 6 * p;
    const double* v = d->body_vel + ((size_t)s * m->nbody + p) * 6;
    printf(" {\"status\": %d, \"residual\": %.17g, \"facets\": %d, \"hf\": [%.17g, %.17g, %.17g], ",
           d->status[s], d->resid_last[s], bo.cone == TB_CONE_PYRAMID ? bo.facets : 0, hf[0], hf[1],
           hf[2]);
    printf("\"v\": [%.17g, %.17g, %.17g], \"contacts\": [", v[0], v[1], v[2]);
    for (int k = 0; k < w->nblock; k++) {
      printf("%s\n  {\"mu\": %.17g, \"angle\": %.17g, \"rows\": [", k ? "," : "", w->blk_mu[k],
             w->blk_angle[k]);
      for (int r = 0; r < w->blk_dim[k]; r++) {
        if (r) printf(", ");
        printRow(m, w, w->blk_adr[k] + r, p, zero);
      }
      printf("]}");
    }
    printf("]}%s\n", s + 1 < n ? "," : "");
  }
  printf("]\n");
  free(zero);
  tb_freeWork(w);
  tb_freeData(d);
  tb_freeModel(m);
  return 0;
}
