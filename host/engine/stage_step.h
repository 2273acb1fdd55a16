// One Stewart-Trinkle step of one scene, composed of the stages, and a scene's whole rollout:
// the code the CPU path runs on each thread's slot and the kernels run on each scene's.
//
// The step reads like the algorithm (thesis §2.4, §5.1.2):
//   kinematic bodies to t+h -> mass and free velocity -> contacts -> rows and Delassus problem
//   -> solve -> v+ = v_free + M^-1 J^T x -> q+ = q + h G(q) v+.
// A stage reports only through the scene's status bits: no allocation, I/O or error text here.
#ifndef TUMBLE_HOST_STAGE_STEP_H_
#define TUMBLE_HOST_STAGE_STEP_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>  // first: it closes the circle with lcp_form.h (solver_need.h)

#include "math/dense.h"
#include "solver/lcp_form.h"
#include "solver/residual.h"
#include "math/tb_math.h"

#include "engine/engine.h"
#include "engine/stage_bodies.h"
#include "engine/stage_collide.h"
#include "engine/stage_corner.h"
#include "engine/stage_implicit.h"
#include "engine/stage_kinematic.h"
#include "engine/stage_primal.h"
#include "engine/stage_probe.h"
#include "engine/stage_quasi.h"
#include "engine/stage_assemble.h"
#include "engine/stage_rows.h"
#include "engine/stage_tree.h"
#include "solver/solver.h"

// out = the model's defaults overridden by the scene's parameter row
TB_HD void tb_varyScene(const tbModel* m, const double* row, double* out) {
  memcpy(out, m->vary0, sizeof(double) * m->nvary);
  for (int p = 0; p < m->nparam; p++) {
    const tbParam* prm = &m->param[p];
    for (int t = 0; t < prm->ntarget; t++) out[prm->target[t]] = prm->scale[t] * row[p];
  }
}

// the scene's values and what stays fixed within the step (h, gravity, frame angles)
TB_HD void tb_stepValues(const tbModel* m, const tbData* d, int s, tbWork* w) {
  tb_varyScene(m, d->param + (size_t)s * m->nparam, w->vary);
  const double* opt = tb_varyOf(m, w->vary, TB_F_OPT, 0);
  w->h = opt[TB_OPT_DT];
  for (int k = 0; k < 3; k++) w->gravity[k] = opt[TB_OPT_GRAVITY + k];
  w->frame_angle = opt[TB_OPT_FRAME_ANGLE];
  w->facet_angle = opt[TB_OPT_FACET_ANGLE];
  w->soft = opt[TB_OPT_SOFT];
}

// a schedule's value at time t: linear between its keys, held beyond them
TB_HD double tb_scheduleAt(const double* key, int nkey, double t) {
  if (t <= key[0]) return key[1];
  for (int i = 1; i < nkey; i++) {
    const double* a = key + 2 * (i - 1);
    const double* b = key + 2 * i;
    if (t < b[0]) return a[1] + (b[1] - a[1]) * ((t - a[0]) / (b[0] - a[0]));
  }
  return key[2 * nkey - 1];
}

// the scheduled values of a step that ends at t into the scene's values
TB_HD void tb_scheduleValues(const tbModel* m, double t, double* vary) {
  for (int k = 0; k < m->nsched; k++) {
    vary[m->sch_target[k]] = tb_scheduleAt(m->sch_key + k * TB_MAXKEY * 2, m->sch_nkey[k], t);
  }
}

// the model's kinematic bodies
TB_HD int tb_kinematicCount(const tbModel* m) {
  int n = 0;
  for (int b = 0; b < m->nbody; b++) n += m->body_type[b] == TB_BODY_KINEMATIC;
  return n;
}

// a body's state as a path entry or a record holds it: pos, quat, vel
#define TB_STATE_WIDTH 13
// a longer path (64 MB in fp64) is worked out by each scene instead
#define TB_PATH_MAX_VALUES ((size_t)8 << 20)

// the values of the kinematic bodies' path over nstep steps (tb_kinematicPath)
TB_HD size_t tb_pathValues(const tbModel* m, int nstep) {
  return (size_t)nstep * tb_kinematicCount(m) * TB_STATE_WIDTH;
}

// body b's state in scene s as a path entry or a record holds it (TB_STATE_WIDTH values)
TB_HD void tb_bodyStateOf(const tbModel* m, const tbData* d, int s, int b, double* out) {
  size_t i = (size_t)s * m->nbody + b;
  memcpy(out, d->body_pos + i * 3, sizeof(double) * 3);
  memcpy(out + 3, d->body_quat + i * 4, sizeof(double) * 4);
  memcpy(out + 7, d->body_vel + i * 6, sizeof(double) * 6);
}

// a state held so back into its parts
TB_HD void tb_bodyStateTo(const double* in, double pos[3], double quat[4], double vel[6]) {
  memcpy(pos, in, sizeof(double) * 3);
  memcpy(quat, in + 3, sizeof(double) * 4);
  memcpy(vel, in + 7, sizeof(double) * 6);
}

// the pose the step's geometry uses: kinematic bodies advanced to t+h (or their entry of the
// rollout's shared path, kin_pose), the others at t
TB_HD void tb_workPose(const tbModel* m, const tbData* d, int s, tbWork* w) {
  size_t base = (size_t)s * m->nbody;
  memcpy(w->xpos, d->body_pos + base * 3, sizeof(double) * 3 * m->nbody);
  memcpy(w->xquat, d->body_quat + base * 4, sizeof(double) * 4 * m->nbody);
  memcpy(w->xvel, d->body_vel + base * 6, sizeof(double) * 6 * m->nbody);
  const double* e = w->kin_pose;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_KINEMATIC) continue;
    if (e) {
      tb_bodyStateTo(e, w->xpos + 3 * b, w->xquat + 4 * b, w->xvel + 6 * b);
      e += TB_STATE_WIDTH;
    } else {
      tb_kinematicAdvance(m, w->vary, b, d->time[s], w->h, w->xpos + 3 * b, w->xquat + 4 * b,
                          w->xvel + 6 * b);
    }
  }
}

// the kinematic bodies' poses over nstep steps of scene s into path, its values into w first:
// entry k (TB_STATE_WIDTH values a kinematic body, in body order) is bitwise what tb_workPose
// works out on the scene's step k + 1 (the same advance from the same state and clock, which
// runs as tb_stepFinish's). Scenes that share a motion read it instead: the vibrating plate's
// RK4 orientation with its cosines was a fifth of a plate-particle step
TB_HD void tb_kinematicPath(const tbModel* m, const tbData* d, int s, tbWork* w, int nstep,
                            double* path) {
  tb_stepValues(m, d, s, w);
  size_t stride = tb_pathValues(m, 1);
  double t = d->time[s];
  for (int k = 0; k < nstep; k++) {
    double* e = path + (size_t)k * stride;
    for (int b = 0; b < m->nbody; b++) {
      if (m->body_type[b] != TB_BODY_KINEMATIC) continue;
      if (k == 0) {
        tb_bodyStateOf(m, d, s, b, e);
      } else {
        memcpy(e, e - stride, sizeof(double) * TB_STATE_WIDTH);
      }
      tb_kinematicAdvance(m, w->vary, b, t, w->h, e, e + 3, e + 7);
      e += TB_STATE_WIDTH;
    }
    t += w->h;
  }
}

// warm start: the previous step's impulse of the row with the same key, else 0. A regularized
// contact row (option soft) reads u + prox (x - x_last), its pull toward that impulse: its b
// moves by -prox x_last (cfm holds prox), so that at rest, where x = x_last, its answer is the
// rigid one (no sinking, no creep: tbOption soft)
TB_HD void tb_warmStart(const tbModel* m, const tbData* d, int s, tbWork* w) {
  const int* key = d->warm_key + (size_t)s * d->maxrow;
  const double* val = d->warm + (size_t)s * d->maxrow;
  int nw = d->nwarm[s], hint = 0;
  for (int i = 0; i < w->nrow; i++) {
    w->x[i] = 0.0;
    if (!m->opt.warmstart) continue;
    for (int probe = 0; probe < nw; probe++) {
      int j = (hint + probe) % nw;
      if (key[j] == w->row_key[i]) {
        w->x[i] = val[j];
        hint = j + 1;
        break;
      }
    }
    if (w->row[i].prox != 0.0) w->b[i] -= w->row[i].prox * w->x[i];
  }
}

TB_HD void tb_saveWarm(tbData* d, int s, const tbWork* w) {
  memcpy(d->warm_key + (size_t)s * d->maxrow, w->row_key, sizeof(int) * w->nrow);
  memcpy(d->warm + (size_t)s * d->maxrow, w->x, sizeof(double) * w->nrow);
  d->nwarm[s] = w->nrow;
}

// fail_step is the index of the step that failed
TB_HD void tb_failScene(tbData* d, int s, int bit) {
  d->status[s] |= bit;
  d->fail_step[s] = (int)d->nstep[s];
}

// q+ = q + h G(q) v+ (v+ in w->vfree) for dynamic bodies (a tree's bodies follow their
// coordinates: tb_treeIntegrate); kinematic bodies take their pose at t+h. Returns 0 when a
// dynamic body's state is no longer finite.
TB_HD int tb_integrate(const tbModel* m, tbData* d, int s, const tbWork* w) {
  size_t base = (size_t)s * m->nbody;
  int finite = 1;
  for (int b = 0; b < m->nbody; b++) {
    double* pos = d->body_pos + (base + b) * 3;
    double* quat = d->body_quat + (base + b) * 4;
    double* vel = d->body_vel + (base + b) * 6;
    if (m->body_type[b] == TB_BODY_KINEMATIC) {
      memcpy(pos, w->xpos + 3 * b, sizeof(double) * 3);
      memcpy(quat, w->xquat + 4 * b, sizeof(double) * 4);
      memcpy(vel, w->xvel + 6 * b, sizeof(double) * 6);
    } else if (m->body_type[b] == TB_BODY_DYNAMIC && m->body_pjnt[b] < 0) {
      memcpy(vel, w->vfree + 6 * b, sizeof(double) * 6);
      for (int k = 0; k < 3; k++) pos[k] += w->h * vel[k];
      tbu_quatIntegrate(quat, vel + 3, w->h);
      for (int k = 0; k < 6; k++) finite &= isfinite(vel[k]);
      for (int k = 0; k < 3; k++) finite &= isfinite(pos[k]);
    }
  }
  return finite;
}

// the step's problem from the scene's values in w (tb_stepValues): pose, free velocity, contacts
// and rows; too many contacts stop the scene (its status says so)
TB_HDN void tb_stepPrepare(const tbModel* m, tbData* d, int s, tbWork* w) {
  tb_workPose(m, d, s, w);
  if (m->nq > 0) {
    if (tb_treeFreeVelocity(m, d, s, w)) {
      tb_failScene(d, s, TB_SCENE_NAN_FAIL);
      return;
    }
  } else if (m->opt.quasistatic) {
    tb_quasiPrepare(m, d, s, w);
  } else {
    tb_massInverse(m, w);
    tb_freeVelocity(m, d, s, w);
  }
  if (tb_collide(m, w) < 0) {
    tb_failScene(d, s, TB_SCENE_OVERFLOW_FAIL);
    return;
  }
  if (d->nstep[s] == 0 && tb_buriedContact(m, w)) {
    tb_failScene(d, s, TB_SCENE_START_FAIL);
    return;
  }
  if (m->opt.corners) tb_cornerChoose(m, w);
  tb_makeRows(m, d, s, w);
}

// 1 when every row of p is an equality (a box row without bounds) and there are at most cap:
// the step's problem is then the linear system A x + b = 0 (joints, no contact)
TB_HD int tb_equalitiesOnly(const tbProblem* p, int cap) {
  if (p->n == 0 || p->n > cap) return 0;
  for (int k = 0; k < p->nblock; k++) {
    if (p->blk_type[k] != TB_BLOCK_BOX) return 0;
  }
  for (int i = 0; i < p->n; i++) {
    if (!tb_isFree(p, i)) return 0;
  }
  return 1;
}

// A x = -b by one Cholesky factorization into L (n x n), no iterations, by team t (the
// factorization and A x + b split, the triangular solves on its lead), skipping A's envelope
// (each row's first nonzero column into first: a chain's joints meet only their neighbours', and
// A is block tridiagonal). Returns 1 on every member when x meets the tolerance (res then says
// so), else 0: x untouched when A is not positive definite (redundant joints), the direct answer
// otherwise, for the iterative solver to start from.
TB_HD int tb_solveEqualities(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, double* x,
                             double* L, int* first, double* work, tbSolveResult* res) {
  int n = p->n;
  tb_teamCopy(t, L, p->A, n * n);
  for (int i = t.lane; i < n; i += t.size) first[i] = tbu_envelopeStart(p->A + (size_t)i * n, i);
  if (tbu_cholEnvelope(t, n, L, first)) return 0;  // (it syncs first: every member's rows)
  if (t.lane == 0) {
    for (int i = 0; i < n; i++) x[i] = -p->b[i];
    tbu_cholSolveEnvelope(n, L, first, x);
  }
  memset(res, 0, sizeof(*res));
  res->iterations = 1;
  tb_finishSolveTeam(t, p, opt, x, work, res);
  return res->converged;
}

// the solver options of the model's step; in the quasistatic step's rounds b grows as 1 / rho
// (the applied forces move bodies of mass rho M), so the tolerance is scaled by rho to stay one
// of the real bodies (a particle at rest moved 7 nm a step otherwise)
TB_HD tbSolverOpt tb_stepSolverOpt(const tbModel* m) {
  tbSolverOpt so = tb_defaultSolverOpt();
  so.max_iter = m->opt.max_iter;
  so.tol = m->opt.quasistatic ? m->opt.tol * TB_QUASI_RHO : m->opt.tol;
  so.sor = m->opt.sor;
  return so;
}

// 1 when problem p has no rows (a free flight, a chain in minimal coordinates out of contact):
// nothing to solve whatever the solver, res says converged
TB_HD int tb_solvedEmpty(const tbProblem* p, tbSolveResult* res) {
  if (p->n > 0) return 0;
  memset(res, 0, sizeof(*res));
  res->converged = 1;
  return 1;
}

// whether a row of the step bounces (Newton restitution: a negative rest)
TB_HD int tb_hasBounce(const tbWork* w) {
  int bounce = 0;
  for (int i = 0; i < w->nrow; i++) bounce |= w->row[i].rest < 0.0;
  return bounce;
}

// whether auto starts this step in body space (tb_stepBodyFirst): a step of TB_STEP_BODY_ROWS
// rows or more (below, dense Newton is cheap, and on a resting stack of three boxes, 36 rows of
// redundant corners, NNCG took 39 times the iterations of auto's dense stages), no row bouncing
// (the plastic retry reads A), and the solver's scratch holds NNCG's (tb_solveBodyCG)
TB_HD int tb_bodyFirst(const tbModel* m, const tbWork* w) {
  return tb_stepBodyFirst(m) && w->nrow >= TB_STEP_BODY_ROWS &&
         w->solver_work.nd >= tb_bodyCGWords(m, w->nrow) && !tb_hasBounce(w);
}

// a step's warm start within this residual is near rest: NNCG's answer, at the tolerance, goes
// on to auto's exact one (tb_exactTol). At 1e-8 of their b a resting pile's answers left its
// spheres creeping at 6e-8 m/s after 3 s, and NNCG does not reach 1e-12 (3e-8 m/s when it sweeps
// on to it); auto's active set, from NNCG's answer, leaves 3e-12 m/s, and the next steps' warm
// starts pass unswept. Steps in motion start farther off (1e-4 here: 1.5x the time, 1e-2: 2x)
#define TB_BODY_NEAR 1e-6

// auto's solve of a step that starts in body space (tb_bodyFirst) by team t: Newton in the
// bodies' velocities where its contacts are redundant (stage_primal.h), then from its best
// round NNCG, and where that falls short, or near rest (TB_BODY_NEAR) meets the tolerance but not
// auto's exact one, A assembled and auto from NNCG's best iterate with the sweeps left; 0, or -1
// when the solver does not apply. Not inlined (tb_solveOnce says why)
TB_HDN int tb_solveBodyFirst(tbTeam t, const tbModel* m, tbWork* w, tbProblem* p,
                             const tbSolverOpt* so, tbSolveResult* res) {
  int newton = 0;
  if (tb_solvePrimal(t, m, w, p, so, tb_exactTol(so), res) == 0) {
    tb_teamShareResult(t, res);
    if (res->converged) return 0;
    newton = res->iterations;
  }
  double start = 0.0;
  tb_solveBodyCG(t, m, w, p, so, &start, res);
  tb_teamShareResult(t, res);
  start = tb_teamShare(t, start);
  res->iterations += newton;
  if (res->converged && (res->residual <= tb_exactTol(so) || !(start <= TB_BODY_NEAR))) return 0;
  int swept = res->iterations;
  tb_assembleMatrix(t, m, w);
  *p = tb_problemOf(m, w);  // its runs, where the assembly found them
  tbSolverOpt rest = *so;
  rest.max_iter = so->max_iter > swept ? so->max_iter - swept : 1;
  int rc = tb_solveQuiet(t, TB_SOLVER_AUTO, p, &rest, w->x, &w->solver_work, res);
  res->iterations += swept;
  return rc == TB_OK ? 0 : -1;
}

// one solve of the step's problem, shared by team t: a problem of equalities alone by one
// factorization when the model's solver is PGS or auto, and otherwise (or when that falls short)
// the model's solver (PGS in body space where the step holds no A; auto NNCG first on a step of
// many rows, tb_solveBodyFirst); 0, or -1 when the solver does not apply. Not inlined: the
// step calls it from four places (its solve, the plastic retry, the quasistatic and the corner
// rounds), and in the kernel four copies took the fp64 kernel's ptxas to the OOM killer on a
// 23 GB machine beside the fp32 twin's
TB_HDN int tb_solveOnce(tbTeam t, const tbModel* m, tbWork* w, tbSolveResult* res) {
  tbProblem p = tb_problemOf(m, w);
  if (tb_solvedEmpty(&p, res)) return 0;
  tbSolverOpt so = tb_stepSolverOpt(m);
  if (tb_stepBodySpace(m)) {
    tb_solveBodyPGS(t, m, w, &p, &so, res);
    return 0;
  }
  if (tb_bodyFirst(m, w)) return tb_solveBodyFirst(t, m, w, &p, &so, res);
  int direct = m->opt.solver == TB_SOLVER_PGS || m->opt.solver == TB_SOLVER_AUTO;
  if (direct && tb_equalitiesOnly(&p, m->maxeq)) {
    int done =
        tb_solveEqualities(t, &p, &so, w->x, w->eq_factor, w->eq_first, w->solver_work.d, res);
    tb_teamSync(t);  // every member is done with the scratch
    if (done) return 0;
  }
  int tried = 0;
  if (tb_treePrimalFirst(m) && tb_solveTreeFirst(t, m, w, &p, &so, res, &tried)) return 0;
  int rc = tb_solveQuiet(t, m->opt.solver, &p, &so, w->x, &w->solver_work, res);
  res->iterations += tried;
  return rc == TB_OK ? 0 : -1;
}

// the kinetic energy the step's impulses add, each row's seen from what it pushes against:
// x . (u + u+) / 2 over the rows, u their free velocities, u+ = u + (A - cfm) x; into *scale the
// sum of |x u|, for a tolerance
TB_HD double tb_impulseWork(const tbModel* m, const tbWork* w, double* scale) {
  int n = w->nrow;
  double work = 0.0;
  *scale = 0.0;
  for (int i = 0; i < n; i++) {
    double u = tb_rowVelocity(m, &w->row[i], w->vfree, w->xvel);
    work += w->x[i] * (u + 0.5 * tb_rowImpulseVelocity(m, w, i));
    *scale += fabs(w->x[i] * u);
  }
  return work;
}

// whether Newton restitution made the step's impulses add energy: with friction it can (Kane's
// paradox; a 12-link chain's tip striking the floor at 45 degrees gains half the chain's energy)
TB_HD int tb_bounceGainsEnergy(const tbModel* m, const tbWork* w) {
  if (!tb_hasBounce(w)) return 0;
  double scale, work = tb_impulseWork(m, w, &scale);
  return work > 1e-9 * scale;
}

// after the step's solve, by team t: where its bounces add energy, the step solved again without
// them, a plastic impact, which cannot (x . u+ <= 0 by complementarity and the cone), from the
// first solve's impulses. 0, or -1 when the solver does not apply.
TB_HD int tb_plasticRetry(tbTeam t, const tbModel* m, tbWork* w, tbSolveResult* res) {
  int gain = t.lane == 0 && tb_bounceGainsEnergy(m, w);
  if (tb_teamAll(t, !gain)) return 0;
  if (t.lane == 0) {
    for (int i = 0; i < w->nrow; i++) {
      tbRowJ* r = &w->row[i];
      w->b[i] -= r->rest;
      r->bias -= r->rest;
      r->rest = 0.0;
    }
  }
  tb_teamSync(t);
  return tb_solveOnce(t, m, w, res);
}

// the quasistatic step's solve by team t: proximal-point iterations (stage_quasi.h), each a solve
// of the step's problem, until the forces balance within the model's tolerance or
// TB_QUASI_ROUNDS; 0, -1 when the solver does not apply, or TB_QUASI_UNBALANCED
TB_HD int tb_quasiSolve(tbTeam t, const tbModel* m, tbWork* w, tbSolveResult* res) {
  int iterations = 0;
  for (int round = 1;; round++) {
    int rc = tb_solveOnce(t, m, w, res);
    if (rc) return rc;
    tb_teamSync(t);
    int lead = t.lane == 0;
    double balance = lead ? tb_quasiBalance(m, w) : 0.0;
    // a non-finite balance ends the rounds too: the integration then flags the scene diverged
    int settled = balance <= m->opt.tol,
        end = settled || round == TB_QUASI_ROUNDS || isnan(balance);
    int done = tb_teamAll(t, !lead || end);
    int lost = tb_teamAll(t, !lead || (!settled && balance > TB_QUASI_NO_BALANCE));
    if (lead) {
      iterations += res->iterations;
      tb_quasiNext(m, w, done);
    }
    tb_teamSync(t);
    if (!done) continue;
    if (lead) {
      res->iterations = iterations;
      if (!settled) {
        res->converged = 0;
        res->residual = fmax(balance, res->residual);
      }
    }
    return lost ? TB_QUASI_UNBALANCED : 0;
  }
}

// whether the step's warm start may be judged before A is assembled, at the step's options so:
// auto is the solver and keeps a start that passes (tb_startKept) without a sweep (tolerances
// under TB_AUTO_SWEEP_TOL), the rows are in maximal coordinates and not equalities alone (their
// direct solve goes first), nothing re-solves the step (corner rounds, the quasistatic step's
// rounds, a bounce's plastic retry, which reads A), and the solver's scratch holds u and the
// bodies' dv
TB_HD int tb_warmJudgedEarly(const tbModel* m, const tbWork* w, const tbProblem* p,
                             const tbSolverOpt* so) {
  return m->opt.solver == TB_SOLVER_AUTO && m->nq == 0 && !m->opt.corners && !m->opt.quasistatic &&
         !tb_stepBodySpace(m) && p->n > 0 && so->tol < TB_AUTO_SWEEP_TOL &&
         w->solver_work.nd >= (size_t)p->n + 6 * (size_t)m->nbody &&
         !tb_equalitiesOnly(p, m->maxeq) && !tb_hasBounce(w);
}

// 1 on every member of team t when the step's warm start is its answer as it stands, judged on
// the lead from the bodies' impulse velocities without A (tb_residualOfDv): res then holds it,
// as auto would have (no iterations), and A is not assembled. A resting stack's warm start
// passes on 87% of its steps (box-stack), where A's assembly was a third of the step (83% judged
// so: the first kept step after one that iterated goes through A)
TB_HD int tb_warmKept(tbTeam t, const tbModel* m, tbWork* w, tbSolveResult* res) {
  int kept = 0;
  if (t.lane == 0) {
    tbProblem p = tb_problemOf(m, w);
    tbSolverOpt so = tb_stepSolverOpt(m);
    if (tb_warmJudgedEarly(m, w, &p, &so)) {
      double *u = w->solver_work.d, *dv = u + p.n;
      tb_impulseVelocitiesOf(m, w, dv);
      double r = tb_residualOfDv(w, &p, dv, u);
      kept = tb_startKept(&so, r);
      if (kept) {
        memset(res, 0, sizeof(*res));
        res->residual = r;
        res->converged = 1;
        res->reason = TB_STOP_CONVERGED;
      }
    }
  }
  return tb_teamShareInt(t, kept);
}

// the step's problem from its rows by team t: the team assembles, the lead warm-starts. Where res
// is given, the scene's last step took its start with no iteration and this one's is the answer
// too (tb_warmKept), A is left unassembled: 1 then, else 0. (After a step that iterated the
// judgement is skipped: on a vibrating plate's particle, whose start never passes, it cost 11%.)
TB_HDN int tb_stepProblem(tbTeam t, const tbModel* m, const tbData* d, int s, tbWork* w,
                          tbSolveResult* res) {
  if (m->nq > 0) {
    tb_treeAssemble(t, m, w);
  } else {
    tb_assembleRows(t, m, w);
  }
  if (t.lane == 0) tb_warmStart(m, d, s, w);
  tb_teamSync(t);
  if (m->nq > 0) return 0;
  if (res && d->iter_last[s] == 0 && tb_warmKept(t, m, w, res)) return 1;
  if (tb_bodyFirst(m, w)) {
    tb_assembleDiagonal(t, w);  // A itself only where NNCG falls short (tb_solveBodyFirst)
    tb_teamSync(t);
  } else {
    tb_assembleMatrix(t, m, w);
  }
  return 0;
}

// the step's solve by team t: its problem, then tb_plasticRetry (or the quasistatic step's
// rounds); 0, or -1 when the solver does not apply
TB_HDN int tb_solveWithRetry(tbTeam t, const tbModel* m, tbWork* w, tbSolveResult* res) {
  if (m->opt.quasistatic) return tb_quasiSolve(t, m, w, res);
  int rc = tb_solveOnce(t, m, w, res);
  return rc ? rc : tb_plasticRetry(t, m, w, res);
}

// the step's problem made, assembled and solved again by team t after its rows changed (a
// corner pair's member swapped); 0, or -1 when the solver does not apply
TB_HD int tb_resolveAfterSwap(tbTeam t, const tbModel* m, const tbData* d, int s, tbWork* w,
                              tbSolveResult* res, int* iterations) {
  if (t.lane == 0) tb_makeRows(m, d, s, w);
  tb_teamSync(t);
  tb_stepProblem(t, m, d, s, w, NULL);
  int rc = tb_solveWithRetry(t, m, w, res);
  *iterations += res->iterations;
  tb_teamSync(t);
  return rc;
}

// the rounds of a step with corner pairs by team t after its first solve (stage_corner.h): while
// a pair's member breaks the disjunction the members swap and the problem is solved again (after
// TB_CORNER_ROUNDS, the pairs still broken are solved once more as half-planes); then
// each pushing pair whose other member could do better is tried with it, kept for less Gauss
// constraint. 0, or -1 when the solver does not apply.
TB_HD int tb_cornerRounds(tbTeam t, const tbModel* m, const tbData* d, int s, tbWork* w,
                          tbSolveResult* res) {
  int lead = t.lane == 0, iterations = res->iterations, rc = 0;
  tb_teamSync(t);
  double excess = 0.0;
  for (int round = 1;; round++) {
    int last = round == TB_CORNER_ROUNDS;
    int broken = lead ? tb_cornerSwap(m, w, last ? TB_CORNER_BOTH : TB_CORNER_SWAP, &excess) : 0;
    if (tb_teamAll(t, !lead || broken == 0)) break;
    rc = tb_resolveAfterSwap(t, m, d, s, w, res, &iterations);
    if (rc) return rc;
    if (!last) continue;
    // unresolved: the broken pairs as half-planes, the disjunction's miss the step's residual
    if (lead) {
      res->iterations = iterations;
      res->converged = 0;
      res->residual = fmax(res->residual, excess / tb_stepMargin(m, w));
    }
    return 0;
  }
  for (int c = 0; c < w->ncon; c++) {
    // worth a try: the pair pushes, and its other member could turn the free motion less
    double gauss = 0.0;
    int trial = lead && w->con_twin[c] > c && tb_cornerPushes(w, c, tb_pushFloor(m, w));
    if (trial) {
      gauss = tb_gaussConstraint(m, w);
      trial = tb_cornerLeastGauss(m, w, w->con_off[c] ? c : w->con_twin[c]) < gauss;
    }
    if (!tb_teamAll(t, !lead || trial)) continue;
    if (lead) tb_cornerFlip(w, c);
    rc = tb_resolveAfterSwap(t, m, d, s, w, res, &iterations);
    if (rc) return rc;
    int better = lead && tb_cornerSwap(m, w, TB_CORNER_COUNT, &excess) == 0 &&
                 tb_gaussConstraint(m, w) < gauss;
    if (tb_teamAll(t, !lead || better)) continue;
    if (lead) tb_cornerFlip(w, c);
    rc = tb_resolveAfterSwap(t, m, d, s, w, res, &iterations);
    if (rc) return rc;
  }
  if (lead) res->iterations = iterations;
  return 0;
}

// the step's answer by team t: its solve, then its corner pairs' rounds when it has them; 0, or
// -1 when the solver does not apply
TB_HD int tb_solveWithCorners(tbTeam t, const tbModel* m, const tbData* d, int s, tbWork* w,
                              tbSolveResult* res) {
  int rc = tb_solveWithRetry(t, m, w, res);
  return rc || !m->opt.corners ? rc : tb_cornerRounds(t, m, d, s, w, res);
}

// everything after the solve: warm start kept, v+ and q+, time and the solver's statistics
TB_HDN void tb_stepFinish(const tbModel* m, tbData* d, int s, tbWork* w, const tbSolveResult* res) {
  if (!m->opt.implicit) tb_saveWarm(d, s, w);  // (the implicit step keeps its unknowns there)
  if (m->nq > 0) {
    tb_treeApply(m, w);
  } else if (!m->opt.quasistatic && !m->opt.implicit) {  // (they left v+ in vfree)
    tb_applyImpulse(m, w);
  }
  int finite = tb_integrate(m, d, s, w) && (m->nq == 0 || tb_treeIntegrate(m, d, s, w)) &&
               res->reason != TB_STOP_NONFINITE;
  if (!finite) tb_failScene(d, s, TB_SCENE_NAN_FAIL);
  d->time[s] += w->h;
  d->nstep[s]++;
  d->ncon[s] = w->ncon;
  d->iter_last[s] = res->iterations;
  d->iter_sum[s] += res->iterations;
  d->iter_max[s] = res->iterations > d->iter_max[s] ? res->iterations : d->iter_max[s];
  d->resid_last[s] = res->residual;
  if (res->residual > d->resid_max[s]) d->resid_max[s] = res->residual;
  if (!res->converged) d->status[s] |= TB_SCENE_UNCONVERGED;
}

// what a step's set-up leaves to do (tb_stepSetUp)
typedef enum tbtStepSetUp {
  TB_SETUP_FAILED = 0,  // scene s has failed (before or in the preparation): no step
  TB_SETUP_SOLVE = 1,   // the problem is assembled and warm-started: solve it
  TB_SETUP_KEPT = 2,    // the warm start is the step's answer (tb_warmKept: res holds it, A is
                        // not assembled): finish
} tbtStepSetUp;

// the step up to its problem by team t: the lead prepares (kinematics, contacts, rows, in minimal
// coordinates M and the bias), the team assembles, the lead warm-starts; res may be NULL (no
// warm start is kept then)
TB_HD tbtStepSetUp tb_stepSetUp(tbTeam t, const tbModel* m, tbData* d, int s, tbWork* w,
                                tbSolveResult* res) {
  if (d->status[s] & TB_SCENE_FAILMASK) return TB_SETUP_FAILED;
  if (t.lane == 0) tb_stepPrepare(m, d, s, w);
  tb_teamSync(t);
  if (d->status[s] & TB_SCENE_FAILMASK) return TB_SETUP_FAILED;
  // what the preparation hands on: contacts and rows within their capacities (more contacts than
  // the capacity failed the scene above)
  TB_ASSERT(w->ncon >= 0 && (size_t)w->ncon <= tb_cap(m->maxcon));
  TB_ASSERT(w->nrow >= 0 && (size_t)w->nrow <= tb_cap(m->maxrow));
  return tb_stepProblem(t, m, d, s, w, res) ? TB_SETUP_KEPT : TB_SETUP_SOLVE;
}

// the step's end after its solve (rc, res): a solver that did not apply, or a quasistatic step
// without equilibrium, fails the scene, else tb_stepFinish
TB_HD void tb_stepEnd(const tbModel* m, tbData* d, int s, tbWork* w, int rc,
                      const tbSolveResult* res) {
  if (rc) {
    tb_failScene(d, s, rc == TB_QUASI_UNBALANCED ? TB_SCENE_BALANCE_FAIL : TB_SCENE_SOLVER_FAIL);
    if (rc == TB_QUASI_UNBALANCED) {  // the forces' miss is the scene's residual
      d->resid_last[s] = res->residual;
      d->resid_max[s] = fmax(d->resid_max[s], res->residual);
    }
  } else {
    tb_stepFinish(m, d, s, w, res);
  }
}

// the geometrically implicit step (stage_implicit.h) of scene s by team t: its lead alone, the
// free velocity, then the mixed NCP in velocities and closest points (its unknowns kept in
// d->warm in place of impulses)
TB_HD void tb_implicitStep(tbTeam t, const tbModel* m, tbData* d, int s, tbWork* w) {
  if (t.lane == 0 && !(d->status[s] & TB_SCENE_FAILMASK)) {
    tb_workPose(m, d, s, w);
    tb_massInverse(m, w);
    tb_freeVelocity(m, d, s, w);
    tbSolveResult res;
    tb_implicitAnswer(m, d, s, w, &res);
    tb_stepFinish(m, d, s, w, &res);
  }
  tb_teamSync(t);
}

// advance scene s by one step (thesis Eq. 2.77/2.78) in slot view w, which holds the scene's
// values (tb_stepValues; the scheduled ones are set here, for the step's end), by team t: its lead
// runs the stages that are serial, the whole team the assembly and PGS. Every member sees the same
// status between the stages, so all take the same way through. The stages (the geometrically
// implicit step is one of its own, stage_implicit.h):
//   set-up   the lead's kinematics, contacts and rows, the team's assembly, the warm start
//   solve    the model's solver, its plastic retry, the corner pairs' rounds
//   finish   the warm start kept, v+ and q+, the time and the solver's statistics
TB_HDN void tb_stepHeld(tbTeam t, const tbModel* m, tbData* d, int s, tbWork* w) {
  if (m->nsched) {
    if (t.lane == 0) tb_scheduleValues(m, d->time[s] + w->h, w->vary);
    tb_teamSync(t);
  }
  if (m->opt.implicit) {
    tb_implicitStep(t, m, d, s, w);
    return;
  }
  tbSolveResult res;
  tbtStepSetUp up = tb_stepSetUp(t, m, d, s, w, &res);
  if (up == TB_SETUP_FAILED) return;
  int rc = up == TB_SETUP_KEPT ? 0 : tb_solveWithCorners(t, m, d, s, w, &res);
  TB_ASSERT(rc != 0 || res.iterations >= 0);
  if (t.lane == 0) tb_stepEnd(m, d, s, w, rc, &res);
  tb_teamSync(t);
}

// one step of scene s, its values first
TB_HD void tb_step(tbTeam t, const tbModel* m, tbData* d, int s, tbWork* w) {
  if (t.lane == 0) tb_stepValues(m, d, s, w);
  tb_teamSync(t);
  tb_stepHeld(t, m, d, s, w);
}

//---- a scene's rollout -------------------------------------------------------------------------

TB_HD int tb_isRecordStep(int k, int nstep, int every) {
  return k == 0 || k == nstep || (every > 0 && k % every == 0);
}

// record r of scene s from its one-scene batch one: the state of every body
TB_HD void tb_record(const tbModel* m, const tbData* one, int s, int r, tbRecord* rec) {
  size_t slot = (size_t)s * rec->nrecord + r;
  rec->time[slot] = one->time[0];
  double* out = rec->state + slot * m->nbody * TB_STATE_WIDTH;
  for (int b = 0; b < m->nbody; b++) tb_bodyStateOf(m, one, 0, b, out + TB_STATE_WIDTH * b);
}

// what a rollout of scene s keeps besides its one-scene batch: its probe's running state, the
// records written, and the steps it has been still for against the still steps that make a rest
typedef struct tbRolloutState {
  tbProbeState ps;
  int r;
  int still, rest;
} tbRolloutState;

// the steps of h that span the option rest_time (at least one), 0 where scenes never rest
TB_HD int tb_restSteps(const tbModel* m, double h) {
  if (!(m->opt.rest_speed > 0.0)) return 0;
  double k = ceil(m->opt.rest_time / h - 1e-9);  // a quotient rounded up past a whole number
  return k < 1.0 ? 1 : k > 1e9 ? 1000000000 : (int)k;
}

// after a computed step of scene one (its shapes' reach in w): a step is still when every point
// of every shape moves slower than rest_speed, and rs->rest still steps in a row rest the scene
TB_HD void tb_restWatch(const tbModel* m, tbData* one, const tbWork* w, tbRolloutState* rs) {
  if (!rs->rest || (one->status[0] & TB_SCENE_FAILMASK)) return;
  rs->still = tb_maxPointSpeed(m, w, one->body_vel) < m->opt.rest_speed ? rs->still + 1 : 0;
  if (rs->still >= rs->rest) one->status[0] |= TB_SCENE_RESTED;
}

// after step k of nstep (0: the start) of scene s in one: its record when due, its probe's step
TB_HD void tb_rolloutObserve(const tbModel* m, const tbData* one, int s, int k, int nstep,
                             tbRecord* rec, const tbProbe* probe, const tbWork* w,
                             tbRolloutState* rs) {
  if (rec && tb_isRecordStep(k, nstep, rec->every)) tb_record(m, one, s, rs->r++, rec);
  if (probe) tb_probeStep(probe, m, one, s, k, w, &rs->ps);
}

// a rollout's start: scene s of d loaded into w's one-scene batch, its values into w (the same
// on every step of the rollout: its parameters stay), and observed
TB_HD void tb_rolloutLoad(const tbModel* m, const tbData* d, int s, int nstep, tbRecord* rec,
                          const tbProbe* probe, tbWork* w, tbRolloutState* rs) {
  tb_sceneCopy(d, s, &w->scene, 0);
  tb_stepValues(m, &w->scene, 0, w);
  rs->r = rs->still = 0;
  rs->rest = tb_restSteps(m, w->h);
  if (probe) tb_probeBegin(probe, &rs->ps);
  tb_rolloutObserve(m, &w->scene, s, 0, nstep, rec, probe, w, rs);
}

// a rollout's end: the probe's last word, and the scene stored back into d
TB_HD void tb_rolloutStore(tbData* d, int s, const tbProbe* probe, tbWork* w,
                           const tbRolloutState* rs) {
  if (probe) tb_probeEnd(probe, &w->scene, s, &rs->ps);
  tb_sceneCopy(&w->scene, 0, d, s);
}

// nstep steps of scene s by team t in slot view w, recording into rec as it asks and reducing
// into probe (either may be NULL). The scene is stepped in the slot's one-scene batch, loaded
// once and stored once: on the GPU its state stays on chip, and the batch may have either layout.
// Once the scene rests (tbOption rest_speed) its state is held and only its clock runs on; the
// team reads the status the lead wrote after a sync.
TB_HD void tb_rolloutScene(tbTeam t, const tbModel* m, tbData* d, int s, int nstep, tbRecord* rec,
                           const tbProbe* probe, tbWork* w) {
  int lead = t.lane == 0, rests = m->opt.rest_speed > 0.0;
  tbRolloutState rs;
  if (lead) tb_rolloutLoad(m, d, s, nstep, rec, probe, w, &rs);
  tb_teamSync(t);
  size_t stride = tb_pathValues(m, 1);
  for (int k = 1; k <= nstep; k++) {
    if (!(w->scene.status[0] & TB_SCENE_RESTED)) {
      // (the lead poses the step)
      if (lead) w->kin_pose = w->kin_path ? w->kin_path + stride * (size_t)(k - 1) : NULL;
      tb_stepHeld(t, m, &w->scene, 0, w);
      if (lead) tb_restWatch(m, &w->scene, w, &rs);
    } else if (lead) {
      w->scene.time[0] += w->h;
    }
    if (lead) tb_rolloutObserve(m, &w->scene, s, k, nstep, rec, probe, w, &rs);
    if (rests) tb_teamSync(t);
  }
  if (lead) tb_rolloutStore(d, s, probe, w, &rs);
}

#endif  // TUMBLE_HOST_STAGE_STEP_H_
