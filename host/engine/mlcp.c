// The mixed LCP of thesis Eq. 2.78, assembled from one step's rows.
//
//   [ 0   ]   [ -M    W_b  W_n  W_f  0 ] [ v   ]   [ M v_free          ]
//   [ 0   ]   [ W_b^T 0    0    0    0 ] [ p_b ]   [ Phi/h             ]
//   [ rho_n ] = [ W_n^T 0    0    0    0 ] [ p_n ] + [ psi/h             ]
//   [ rho_f ]   [ W_f^T 0    0    0    E ] [ p_f ]   [ dPsi_f/dt         ]
//   [ s   ]   [ 0     0    U   -E^T  0 ] [ sig ]   [ 0                 ]
//   0 <= [rho_n; rho_f; s] _|_ [p_n; p_f; sig] >= 0
//
// v holds the unlocked DoFs of the dynamic bodies (M restricted to them), p_b the equality
// rows, W_f the n_d facet directions d_j = cos(a + 2 pi j/n_d) t + sin(...) o of each contact
// (2 directions, +-t, where only one tangent is active: planar scenes), and M v_free =
// M v^l + h (f_app + f_vp). Size: n_v + m_b + n_c (2 + n_d) for frictional contacts, n_c for
// frictionless ones (thesis §2.7: 10, 15, 21, 25).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math/tb_math.h"

#include "engine/engine.h"
#include "engine/stage_assemble.h"
#include "solver/lcp_form.h"

// column index of each velocity DoF of the scene (-1: locked or not dynamic)
static int tb_velocityIndex(const tbModel* m, int* idx) {
  int n = 0;
  for (int b = 0; b < m->nbody; b++) {
    for (int k = 0; k < 6; k++) {
      int free_dof = m->body_type[b] == TB_BODY_DYNAMIC && !(m->body_lock[b] & (1 << k));
      idx[6 * b + k] = free_dof ? n++ : -1;
    }
  }
  return n;
}

// add J (a row's two body parts) as column col of W into the v rows, and as row `row` of W^T
static void tb_putJ(tbMLCP* p, const int* vidx, const tbRowJ* r, double scale, int col) {
  for (int side = 0; side < 2; side++) {
    int b = r->body[side];
    if (b < 0) continue;
    for (int k = 0; k < 6; k++) {
      int v = vidx[6 * b + k];
      if (v < 0) continue;
      p->M[(size_t)v * p->n + col] += scale * r->J[side][k];
      p->M[(size_t)col * p->n + v] += scale * r->J[side][k];
    }
  }
}

// the kinematic part of a row's velocity (d psi/dt): J of kinematic bodies times their velocity
static double tb_rowKinematic(const tbModel* m, const tbWork* w, const tbRowJ* r) {
  double u = 0.0;
  for (int side = 0; side < 2; side++) {
    int b = r->body[side];
    if (b < 0 || m->body_type[b] != TB_BODY_KINEMATIC || r->kind != TB_ROW_VELOCITY) continue;
    for (int k = 0; k < 6; k++) u += r->J[side][k] * w->xvel[6 * b + k];
  }
  return u;
}

// -M (restricted to unlocked DoFs) into the v block, and M v_free into q, where
// v_free = v+ - M^-1 J^T x is recovered from the step's result
static void tb_putMass(const tbModel* m, const tbWork* w, const int* vidx, tbMLCP* p) {
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    double mass = tb_varyOf(m, w->vary, TB_F_BODY_MASS, b)[0], Iw[9], Mb[36] = {0};
    tbu_inertiaWorld(Iw, w->xquat + 4 * b, tb_varyOf(m, w->vary, TB_F_BODY_INERTIA, b));
    for (int k = 0; k < 3; k++) Mb[7 * k] = mass;
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) Mb[6 * (3 + i) + 3 + j] = Iw[3 * i + j];
    }
    for (int i = 0; i < 6; i++) {
      int vi = vidx[6 * b + i];
      if (vi < 0) continue;
      for (int j = 0; j < 6; j++) {
        int vj = vidx[6 * b + j];
        if (vj < 0) continue;
        p->M[(size_t)vi * p->n + vj] = -Mb[6 * i + j];
        p->q[vi] += Mb[6 * i + j] * w->vfree[6 * b + j];
      }
    }
  }
  // M v_free = M v+ - J^T x
  for (int i = 0; i < w->nrow; i++) {
    const tbRowJ* r = &w->row[i];
    for (int side = 0; side < 2; side++) {
      int b = r->body[side];
      if (b < 0) continue;
      for (int k = 0; k < 6; k++) {
        int v = vidx[6 * b + k];
        if (v >= 0) p->q[v] -= r->J[side][k] * w->x[i];
      }
    }
  }
}

static int tb_mlcpSizes(const tbProblem* pb, const tbWork* w, int nv, tbMLCP* p) {
  p->nv = nv;
  p->nb = p->nc = p->nf = 0;
  int nsig = 0;
  for (int k = 0; k < w->nblock; k++) {
    int i = w->blk_adr[k];
    if (w->blk_type[k] == TB_BLOCK_BOX) {
      if (w->lo[i] != -INFINITY || w->hi[i] != INFINITY || w->row[i].cfm != 0.0) {
        return tb_setError("mlcp: row %d is a limit or servo, which Eq. 2.78 has no place for", i);
      }
      p->nb++;
    } else {
      if (w->row[i].cfm != 0.0) {
        return tb_setError(
            "mlcp: contact %d is a support tripod's, whose fixed normal force "
            "Eq. 2.78 has no place for (thesis Eq. 3.26 does)",
            k);
      }
      p->nc++;
      p->nf += tb_facetCount(pb, k);
      nsig += w->blk_dim[k] > 1;
    }
  }
  p->nfree = nv + p->nb;
  p->n = p->nfree + p->nc + p->nf + nsig;
  return TB_OK;
}

int tb_buildMLCP(const tbModel* m, const tbWork* w, tbMLCP* p) {
  memset(p, 0, sizeof(*p));
  if (m->nq > 0) {
    return tb_setError("mlcp: the body-velocity MLCP has no form for minimal joints (%d)", m->nq);
  }
  int* vidx = (int*)malloc(sizeof(int) * 6 * (m->nbody ? m->nbody : 1));
  if (!vidx) return TB_ERR_MEMORY;
  int nv = tb_velocityIndex(m, vidx);
  tbProblem pb = tb_problemOf(m, w);
  int rc = tb_mlcpSizes(&pb, w, nv, p);
  if (rc == TB_OK) {
    p->M = (double*)calloc((size_t)p->n * p->n, sizeof(double));
    p->q = (double*)calloc((size_t)p->n, sizeof(double));
    if (!p->M || !p->q) rc = TB_ERR_MEMORY;
  }
  if (rc != TB_OK) {
    free(vidx);
    tb_freeMLCP(p);
    return rc;
  }
  tb_putMass(m, w, vidx, p);
  int rb = nv, rn = nv + p->nb, rf = rn + p->nc, rs = rf + p->nf;
  for (int k = 0; k < w->nblock; k++) {
    int i = w->blk_adr[k];
    const tbRowJ* r = &w->row[i];
    if (w->blk_type[k] == TB_BLOCK_BOX) {
      tb_putJ(p, vidx, r, 1.0, rb);
      p->q[rb++] = r->bias + tb_rowKinematic(m, w, r);
      continue;
    }
    tb_putJ(p, vidx, r, 1.0, rn);
    p->q[rn] = r->bias;
    int nd = tb_facetCount(&pb, k);
    for (int j = 0; j < nd; j++) {
      double c[2];
      tb_facetDirection(&pb, k, j, c);
      for (int t = 0; t + 1 < w->blk_dim[k]; t++) {
        tb_putJ(p, vidx, &w->row[i + 1 + t], c[t], rf + j);
        p->q[rf + j] += c[t] * tb_rowKinematic(m, w, &w->row[i + 1 + t]);
      }
      // E (facet row -> slip speed), -E^T (friction budget row -> facet impulse)
      p->M[(size_t)(rf + j) * p->n + rs] = 1.0;
      p->M[(size_t)rs * p->n + rf + j] = -1.0;
    }
    if (nd > 0) {
      p->M[(size_t)rs * p->n + rn] = w->blk_mu[k];
      rs++;
    }
    rf += nd;
    rn++;
  }
  free(vidx);
  return TB_OK;
}

void tb_freeMLCP(tbMLCP* p) {
  free(p->M);
  free(p->q);
  p->M = p->q = NULL;
}
