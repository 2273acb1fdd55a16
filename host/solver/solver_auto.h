// The default solver: cheap sweeps first, Newton where they crawl, prox where Newton stalls.
//
// PGS reaches moderate accuracy in few sweeps but converges linearly (slowly on stacks and
// redundant manifolds); the semismooth Newton methods converge fast near a solution but can
// stall at non-smooth points of their merit function from a poor start (solver_lm.c), and
// their dense systems cost O(n^3) per iteration; prox with an adaptive step is slow but
// steady. So, where the Newton method applies and its dense system has at most
// TB_AUTO_DENSE_MAX unknowns: PGS in chunks of TB_AUTO_CHUNK sweeps while the contraction it
// shows predicts that it finishes sooner than Newton would (a cost model in PGS sweeps,
// tb_pgsWhileFaster), then the projected-LM Newton method from the best PGS iterate (implicit
// MNCP for the exact cone, Fischer-Burmeister on the LCP form for the pyramid; its direction by
// LU, or by LU on J - sigma I where J is singular: solver_lm.h). On the shared FC3D files this
// keeps PGS where it is fast (Box_Stacks 39 sweeps, Confeti-ex03 78, Rover4396 40, NESpheres 20)
// and switches to Newton after 20 to 30 sweeps where PGS crawls: Rover1039, Rover1040, Rover4144
// (PGS alone: 139 to 398 sweeps; Newton then takes 3 iterations), OneObject (PGS alone: 1044
// sweeps; Newton: 8) and BoxesStack1 (PGS stalls near 1e-6; Newton: 7). Where Newton makes no
// headway from that point, PGS goes on and Newton starts again from a better one
// (tb_pgsThenNewton). A small standard LCP from a cold start goes to Lemke after a few sweeps
// (tb_lemkeFirst). On exact-cone problems above TB_AUTO_FALLBACK_MAX rows that the rounds leave
// unsolved (a pile's steps), the second-order cone's Fischer-Burmeister Newton from the start
// comes next (tb_socAfterNewton); on a problem file its directions by the sparse LU the host
// lends (tbSolverOpt.soc_newton: tb_solveFile's KLU, where soc-fb-plm by name takes it).
// Larger problems (Capsules, 858 rows: PGS takes 2473 sweeps, 0.8 s, where dense Newton took
// minutes) get PGS while the residual keeps falling, then Newton. Whatever is left over: PGS
// while it progresses, for a standard LCP Lemke, on the exact cone Newton on a proximal
// regularization (tb_proximalNewton: singular, redundant contacts), then adaptive prox from the
// best iterate. On the exact cone, where all of that ends above the tolerance, on a problem
// file (not in a step) the convex fixed point: an interior point's answers for the De Saxce term
// held fixed, and the Newton stages from each (tb_convexFixedPoint; pile steps with more contact
// rows than DoFs, where the Newton methods stall from PGS's iterates). The answer is the best
// iterate seen, re-checked by tb_residual. A deadline (tbSolverOpt.deadline) ends the rounds and
// the stages inside them at their next iteration. A team (a warp on the GPU) runs it together:
// every member takes the same way through the stages, sharing the sweeps of PGS and prox, the
// active set's factorization and every u = A x + b; the Newton and Lemke stages run on the lead,
// which hands their outcome to the others (tb_teamShare). Bitwise one thread.
#ifndef TUMBLE_HOST_SOLVER_AUTO_H_
#define TUMBLE_HOST_SOLVER_AUTO_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>

#include "solver/solver_active.h"
#include "solver/solver_ipm.h"
#include "solver/solver_lemke.h"
#include "solver/solver_lm.h"
#include "solver/solver_prox.h"
#include "solver/solver_pgs.h"
#include "solver/residual.h"
#include "solver/lcp_form.h"
#include "solver/solver_need.h"

// the lead's result on every member of team t (a stage the lead ran alone)
TB_HD void tb_teamShareResult(tbTeam t, tbSolveResult* r) {
  r->converged = tb_teamShareInt(t, r->converged);
  r->iterations = tb_teamShareInt(t, r->iterations);
  r->reason = tb_teamShareInt(t, r->reason);
  r->residual = tb_teamShare(t, r->residual);
  tb_teamSync(t);  // and the lead's x and scratch
}

// the SOC-FB Newton the host lent (tbSolverOpt.soc_newton) run on p from x where the stage is
// soc-fb-plm: 1 when it ran. tb_solveFile lends the sparse one: on pile steps of 177-234 rows
// it solves 1.7-4.3x faster than the dense LU (solver_sparse.c), and on such degenerate steps
// the two factorizations' round-off leads the iterations apart: the resting pile's steps 760 to
// 1000 (every 10th, the step's 1000 iterations) end converged on 20 of 25 with it, 16 without
TB_HD int tb_lentSocNewton(int solver, const tbProblem* p, const tbSolverOpt* o, double* x,
                           tbSolveResult* r) {
#ifdef __CUDA_ARCH__
  (void)solver, (void)p, (void)o, (void)x, (void)r;
  return 0;
#else
  return solver == TB_SOLVER_SOC_FB_PLM && o->soc_newton && o->soc_newton(p, o, x, r) == 0;
#endif
}

// run one stage from x and remember x if it beats the best so far (x itself goes on from where
// the stage left it: PGS is not monotone, and its later sweeps need its current iterate); the
// LM stages take their direction by `lm` (TB_LM_PROJECTED_LU, TB_LM_PROJECTED, or
// TB_LM_REGULAR for the RLM and dogleg solvers)
TB_HDN double tb_stage(tbTeam t, int solver, int lm, const tbProblem* p, const tbSolverOpt* opt,
                       int budget, double* x, double* best, tbSolverWork* w, tbSolveResult* acc) {
  if (tb_pastDeadline(opt)) return acc->residual;
  tbSolverOpt o = *opt;
  o.max_iter = budget;
  tbSolveResult r;
  memset(&r, 0, sizeof(r));
  if (solver == TB_SOLVER_PGS) {
    tb_solvePGS(t, p, &o, x, w, &r);
  } else if (solver == TB_SOLVER_PROX_GS) {
    tb_solveProx(t, p, &o, x, w, &r, 0);
  } else {
    tb_teamSync(t);  // every member is done with x and the scratch
    if (t.lane == 0) {
      if (tb_isLmSolver(solver)) {
        if (!tb_lentSocNewton(solver, p, &o, x, &r)) tb_lmSolve(p, &o, x, w, solver, lm, &r);
      } else {
        tb_solveLemke(p, &o, x, w, &r);
      }
    }
    tb_teamShareResult(t, &r);
  }
  acc->iterations += r.iterations;
  if (r.residual <= acc->residual) {
    acc->residual = r.residual;
    acc->reason = r.reason;
    tb_teamCopy(t, best, x, p->n);
  }
  return r.residual;
}

#define TB_AUTO_DENSE_MAX 300    // dense Newton first only up to this many unknowns
#define TB_AUTO_FALLBACK_MAX 64  // the fallback's Newton methods only up to this many
// the fallback's SOC-FB run above that, at most (Siconos' NSN default; where soc-fb-plm solves
// a pile step from zero it takes 10 to 110 iterations, where it stalls 400 to 2600)
#define TB_AUTO_SOC_ITERS 200
#define TB_AUTO_MIN_SWEEPS 20    // PGS sweeps before the first switch to Newton
#define TB_AUTO_CHECK_MAX 60     // PGS on at most this many rows: residual every 2nd sweep
#define TB_AUTO_CHUNK 10         // PGS sweeps between two looks at its rate
#define TB_AUTO_NEWTON_ITERS 6   // Newton iterations the cost model expects from a PGS iterate
#define TB_AUTO_NEAR 1e-4        // a start this close (a step's warm start): Newton expects
#define TB_AUTO_NEAR_ITERS 2     // this many iterations, judged after the first residual check
#define TB_AUTO_NEWTON_CAP 50    // Newton iterations of one round, at most
#define TB_AUTO_NEWTON_TRY 12    // Newton iterations before a round checks that Newton gains
#define TB_AUTO_NEWTON_ROUNDS 4  // PGS-then-Newton rounds before auto falls back to PGS and prox
#define TB_AUTO_LEMKE_FIRST 50   // a cold-started standard LCP up to this size: Lemke first
#define TB_AUTO_LEMKE_PROBE 4    // PGS sweeps before that Lemke (easy LCPs end in 2 or 3)
#define TB_AUTO_LAST_CHUNK 100   // sweeps between two looks at the clock in the last PGS stage
#define TB_AUTO_SWEEP_TOL 1e-5   // from this tolerance (fp32's 1e-4) a passing start is swept
#define TB_AUTO_WARM_EXACT 1e-4  // a start passing by less than this x tol is made exact...
#define TB_AUTO_EXACT_TOL 1e-7   // ...below this tolerance (the step's 1e-8, not the grasp's 1e-6)

// cost of one Newton iteration (direction, line search) in PGS sweeps on m unknowns: a sweep
// costs O(m^2), an iteration O(m^3) plus a fixed overhead. Measured on the shared files (2
// cores, loaded): about 6 sweeps at m = 12-15 (LU), 45 at m = 69 and 125 at m = 156 (both
// Cholesky); 12 + m / 2 errs toward PGS on small problems
TB_HD double tb_newtonSweeps(int m) {
  return 12.0 + 0.5 * m;
}

// PGS in chunks of 50 sweeps while it makes progress; returns the budget left. Progress is the
// best residual falling by 10%: within one chunk where dense Newton is cheap (a few hundred
// rows; it costs O(n^3) per iteration), within 100 chunks elsewhere (PGS is not monotone: on
// Capsules it plateaus for hundreds of sweeps and then drops by 30x, and dense Newton on 858
// rows took minutes where PGS took 2473 sweeps, 0.8 s)
TB_HD int tb_pgsWhileProgressing(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, int left,
                                 double* x, double* best, tbSolverWork* w, tbSolveResult* res) {
  const int chunk = 50, patience = p->n <= 300 ? 1 : 100;
  double mark = res->residual;
  int since = 0;
  while (left > 0 && res->residual > opt->tol && !tb_pastDeadline(opt)) {
    int budget = left < chunk ? left : chunk;
    tb_stage(t, TB_SOLVER_PGS, TB_LM_PROJECTED_LU, p, opt, budget, x, best, w, res);
    left -= budget;
    if (res->residual < 0.9 * mark) {
      mark = res->residual;
      since = 0;
    } else if (++since >= patience) {
      break;
    }
  }
  return left;
}

// PGS in chunks while the rate it shows predicts that it reaches tol sooner than dense Newton
// would: remaining sweeps log(tol / r) / log(rate), with rate the per-sweep contraction over
// the last chunk, against TB_AUTO_NEWTON_ITERS Newton iterations of tb_newtonSweeps(m) sweeps
// each, judged from TB_AUTO_MIN_SWEEPS on (the first sweeps from a cold start say little: on
// Rover1040 the residual grows over the first 10, and Newton from there took 11 iterations
// where from 20 sweeps it took 3). A start within TB_AUTO_NEAR (a step's warm start) is judged
// at the first residual check against TB_AUTO_NEAR_ITERS Newton iterations: on the resting box
// stack the warm start is at 2.6e-8 (tol 1e-8), 10 sweeps take it up to 3.1e-8, and Newton from
// there takes 1 iteration to 1e-15. u = A x + b is in w->d on entry and kept current across the
// chunks. Returns the budget left.
TB_HD int tb_pgsWhileFaster(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, int m, int left,
                            double* x, double* best, tbSolverWork* w, tbSolveResult* res) {
  int near = res->residual <= TB_AUTO_NEAR;
  double *u = w->d, r = res->residual;
  double newton = (near ? TB_AUTO_NEAR_ITERS : TB_AUTO_NEWTON_ITERS) * tb_newtonSweeps(m);
  // on small problems the residual (a projection and a few square roots per contact) costs as
  // much as the sweep itself (Rover11035, one contact: 68% of PGS's time); evaluating it every
  // second sweep costs at most one sweep more (1.29 -> 1.14 us there)
  int done = 0, check = p->n <= TB_AUTO_CHECK_MAX ? 2 : 1, sym = tb_pgsSymmetric(t, p);
  int first = near ? check : TB_AUTO_MIN_SWEEPS;  // sweeps before the first judgement
  while (left > 0 && res->residual > opt->tol && !tb_pastDeadline(opt)) {
    int chunk = done < first && first < TB_AUTO_CHUNK ? first : TB_AUTO_CHUNK;
    int budget = left < chunk ? left : chunk, sweeps, reason;
    double rn = tb_pgsSweeps(t, p, sym, opt->sor, opt->tol, budget, check, x, u, &sweeps, &reason);
    left -= sweeps;
    done += sweeps;
    res->iterations += sweeps;
    if (reason == TB_STOP_NONFINITE) {
      tb_teamCopy(t, x, best, p->n);
      tb_residualTeam(t, p, x, w->d);  // u of the restored x, for a later round's sweeps
      break;
    }
    // converged by the running residual: confirm from scratch (u itself is left as it was)
    if (reason == TB_STOP_CONVERGED) rn = tb_residualTeam(t, p, x, w->d + p->n);
    if (rn <= res->residual) {
      res->residual = rn;
      res->reason = rn <= opt->tol ? TB_STOP_CONVERGED : TB_STOP_MAXITER;
      tb_teamCopy(t, best, x, p->n);
    }
    if (rn <= opt->tol) break;
    if (done >= first) {
      double rate = r > 0.0 ? pow(rn / r, 1.0 / sweeps) : 1.0;
      double need = rate < 1.0 ? log(opt->tol / rn) / log(rate) : INFINITY;
      if (!(need <= newton)) break;
    }
    r = rn;
  }
  return left;
}

// PGS while it is the faster way, then Newton from its best iterate, in rounds: Newton often
// diverges from a PGS iterate far from the solution and converges in 2 iterations from one a few
// dozen sweeps further (a grasp's step: 20 sweeps to 0.039, Newton 50 iterations up to 0.22; 20
// more sweeps to 0.0085, Newton 2 iterations to 4e-15). So a round gives Newton
// TB_AUTO_NEWTON_TRY iterations, more (to TB_AUTO_NEWTON_CAP) only while it gains tenfold, one
// try by least squares where the fast direction gains nothing, and otherwise hands back to PGS
// from the best iterate, for at most TB_AUTO_NEWTON_ROUNDS Newton starts, each from a point at
// least twice as good as the last. Returns the budget left; *tried says whether Newton ran.
TB_HD int tb_pgsThenNewton(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, int newton, int m,
                           int left, double* x, double* best, tbSolverWork* w, tbSolveResult* res,
                           int* tried) {
  double newton_from = INFINITY;  // the best residual when Newton last started
  for (int rounds = 0; rounds < TB_AUTO_NEWTON_ROUNDS && left > 0 && !tb_pastDeadline(opt);) {
    double before = res->residual;
    left = tb_pgsWhileFaster(t, p, opt, m, left, x, best, w, res);
    if (res->residual <= opt->tol || left <= 0) break;
    // Newton from about the same point would fail the same way: PGS goes on from its own
    // iterate while it gains 10% a round, and the stages after the rounds take over where it
    // does not (a creeping PGS spent the whole budget on plate-block-s0-k3000, 1.4e-6 after
    // 100000 sweeps, where the proximal Newton then takes 222 iterations, 0.65 ms, to 5e-10)
    if (!(res->residual < 0.5 * newton_from)) {
      if (!(res->residual < 0.9 * before)) break;
      continue;
    }
    newton_from = res->residual;
    rounds++;
    *tried = 1;
    double* xpgs = best - p->n;  // PGS's iterate, in the proximal Newton's slot for b (free here)
    tb_teamCopy(t, xpgs, x, p->n);
    tb_teamCopy(t, x, best, p->n);
    int lm = TB_LM_PROJECTED_LU;
    for (int used = 0; used < TB_AUTO_NEWTON_CAP && left > 0;) {
      int budget = left < TB_AUTO_NEWTON_TRY ? left : TB_AUTO_NEWTON_TRY;
      double from = res->residual;
      int iters = res->iterations;
      tb_stage(t, newton, lm, p, opt, budget, x, best, w, res);
      int spent = res->iterations - iters > 0 ? res->iterations - iters : 1;
      left -= spent;
      used += spent;
      tb_teamCopy(t, x, best, p->n);  // what follows goes on from the best point
      if (res->residual <= opt->tol) break;
      if (!(res->residual < 0.1 * from)) {
        // the fast direction (LU, else Cholesky of the normal equations) squares J's condition;
        // where the implicit MNCP's J is singular (a jammed grasp's redundant contacts, 21 to 48
        // rows) the seed's least squares by QR can still converge. Above TB_AUTO_FALLBACK_MAX
        // rows a QR iteration costs milliseconds (2n x n: 1.6 ms at 216 rows) and on a pile's
        // steps, its redundant contacts' case, it gained nothing in 0.1-0.3 s a step
        if (lm == TB_LM_PROJECTED || newton != TB_SOLVER_MNCP_PLM || m > TB_AUTO_FALLBACK_MAX) {
          break;
        }
        lm = TB_LM_PROJECTED;
      }
    }
    if (res->residual <= opt->tol) break;
    // PGS goes on from its own iterate unless Newton found a better point: PGS is not monotone,
    // and restarted from the best point it replays the same sweeps (a grasp step warm-started at
    // 1.3e-3: PGS rises to 2.0e-3 and comes down to 1e-8 in 93 sweeps, Newton fails from there)
    if (!(res->residual < newton_from)) tb_teamCopy(t, x, xpgs, p->n);
    tb_residualTeam(t, p, x, w->d);  // u = A x + b, which PGS keeps current
  }
  return left;
}

// 1 when x[0, n) is all zero (a cold start)
TB_HD int tb_allZero(int n, const double* x) {
  for (int i = 0; i < n; i++) {
    if (x[i] != 0.0) return 0;
  }
  return 1;
}

// Lemke early: on a standard LCP of at most TB_AUTO_LEMKE_FIRST unknowns started from zero, where
// no iterate carries information, after TB_AUTO_LEMKE_PROBE PGS sweeps (which finish the easy
// ones: lcp_trivial, lcp_ortiz, lcp_exp_murty, lcp_CPS_1 in 2 or 3), Lemke's pivots (O(m^2)
// each, about m of them) end exactly. On the shared LCPs: lcp_tobenna (40 rows) 127 pivots,
// 0.23 ms, where PGS then Newton then Lemke took 1.3 ms; lcp_mmc (26) 24 us against 32; lcp_CPS_2
// and lcp_deudeu 5 and 3 pivots against 29 and 14 iterations. Where it ends on a ray (lcp_CPS_3)
// the stages below go on from the best point. A step's problem starts from the last step's
// impulses: there PGS goes first.
TB_HD int tb_lemkeFirst(const tbProblem* p, int m, const double* x) {
  return m <= TB_AUTO_LEMKE_FIRST && tb_allZero(p->n, x);
}

// Proximal point with Newton inside (Siconos' FRICTION_3D_PROX): the MNCP on A + alpha I and
// b - alpha c, whose answer x becomes the next center c. Where contacts are redundant (a box's
// four coplanar corners on the vibrating plate) A is singular and every method on A itself
// stalls near 1e-6 (PGS, prox, the MNCP's Newton: its J is singular there too), while on A +
// alpha I Newton converges in a few iterations; at a fixed point x = c the regularized problem
// is the problem. alpha starts at TB_AUTO_PROX_ALPHA times A's largest diagonal entry and
// shrinks by 0.3 each outer step, to 1e-8 of it (on the 9 exported plate-block steps: 8
// solved, in 210-260 iterations; shrinking only after a gain solved 5). The copies of A and b
// sit before best (tb_solverNeed counts them).
#define TB_AUTO_PROX_ALPHA 1e-2  // first regularization, relative to max A_ii
#define TB_AUTO_PROX_OUTER 30    // outer (center) steps, at most
#define TB_AUTO_PROX_INNER 20    // Newton iterations of one inner solve, at most
TB_HD int tb_proximalNewton(const tbProblem* p, const tbSolverOpt* opt, int left, double* x,
                            double* best, tbSolverWork* w, tbSolveResult* res) {
  int n = p->n;
  size_t nn = (size_t)n * n;
  double *Ar = best - nn - n, *br = best - n, amax = 0.0;
  memcpy(Ar, p->A, sizeof(double) * nn);
  for (int i = 0; i < n; i++) amax = fmax(amax, p->A[(size_t)i * n + i]);
  double alpha = TB_AUTO_PROX_ALPHA * amax;
  tbProblem q = *p;
  q.A = Ar;
  q.runs = NULL;  // alpha I may fill a diagonal that A's runs pass over
  q.b = br;
  q.rank_max = 0;  // A + alpha I has full rank
  tbSolverWork inner = *w;
  inner.nd = (size_t)(Ar - n - w->d);  // and the start below Ar (tb_fallBack's)
  tbSolverOpt o = *opt;
  o.tol = 0.1 * opt->tol;
  memcpy(x, best, sizeof(double) * n);
  for (int outer = 0;
       outer < TB_AUTO_PROX_OUTER && left > 0 && res->residual > opt->tol && !tb_pastDeadline(opt);
       outer++) {
    for (int i = 0; i < n; i++) {
      Ar[(size_t)i * n + i] = p->A[(size_t)i * n + i] + alpha;
      br[i] = p->b[i] - alpha * x[i];
    }
    tbSolveResult r;
    memset(&r, 0, sizeof(r));
    o.max_iter = left < TB_AUTO_PROX_INNER ? left : TB_AUTO_PROX_INNER;
    tb_solveMNCP(&q, &o, x, &inner, &r, TB_LM_PROJECTED_LU);
    left -= r.iterations > 0 ? r.iterations : 1;
    res->iterations += r.iterations;
    double rn = tb_residual(p, x, w->d);
    if (!isfinite(rn)) break;
    if (rn < res->residual) {
      res->residual = rn;
      res->reason = rn <= opt->tol ? TB_STOP_CONVERGED : TB_STOP_MAXITER;
      memcpy(best, x, sizeof(double) * n);
    }
    alpha = fmax(0.3 * alpha, 1e-8 * amax);
  }
  memcpy(x, best, sizeof(double) * n);
  return left;
}

// the SOC-FB Newton (soc-fb-plm) from the start x0, at most TB_AUTO_SOC_ITERS iterations, on an
// exact-cone problem above TB_AUTO_FALLBACK_MAX rows that PGS and the MNCP's Newton left above
// the tolerance; returns the budget left. A pile's steps are such problems (more contacts than
// DoFs: the MNCP's Newton stalls, PGS, prox and the proximal Newton crawl), where soc-fb-plm
// from zero converges in 10 to 80 iterations on most. From the start, not from PGS's best point:
// on 14 exported pile steps both solved 12, from the start faster on four (k400 of the default
// pile: 7.6 against 87 ms; 37 against 81, 145 against 177, 16 against 49), slower on one (0.75
// against 0.13 s), where the fallback's run from the best point is what solves it
TB_HD int tb_socAfterNewton(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, int m, int left,
                            const double* x0, double* x, double* best, tbSolverWork* w,
                            tbSolveResult* res) {
  if (m <= TB_AUTO_FALLBACK_MAX || res->residual <= opt->tol || left <= 0 || tb_pastDeadline(opt) ||
      !tb_solverApplies(TB_SOLVER_SOC_FB_PLM, p)) {
    return left;
  }
  int iters = res->iterations;
  tb_teamCopy(t, x, x0, p->n);
  tb_stage(t, TB_SOLVER_SOC_FB_PLM, tb_lmProjected(TB_SOLVER_SOC_FB_PLM), p, opt,
           left < TB_AUTO_SOC_ITERS ? left : TB_AUTO_SOC_ITERS, x, best, w, res);
  left -= res->iterations - iters > 0 ? res->iterations - iters : 1;
  tb_teamCopy(t, x, best, p->n);
  tb_residualTeam(t, p, x, w->d);  // u = A x + b, which the PGS stages keep current
  return left;
}

// where auto's stages end above the tolerance, the solvers that apply, each on its own from the
// start x0 with the whole budget, as if it had been chosen by name, until one meets the
// tolerance; then the Newton methods again from zero; the best iterate of all is the answer. On
// the default grasp study's jammed steps (2-4 contacts, tol 1e-6, 1000 iterations) the stages,
// which judge by PGS's early rate, stop at 2e-6 to 7e-4 where PGS from the warm start converges
// in 250-590 sweeps, or mncp-plm in 6 iterations. The LM solvers go first, on problems up to
// TB_AUTO_FALLBACK_MAX unknowns: where they fail they stop within a few hundred iterations of
// O(n^3). The grasp study's fallbacks see 21 to 48 rows; a pile of 27 spheres falls back on
// steps of 138 to 200 rows, where the ten Newton runs took 0.9 s a step (least squares by QR
// on 2n x n, each iteration 2 ms) and none met the tolerance. A warm start can hold every method
// where it does not converge: on a grasp3d trial's first lift step (cell 8, trial 3 of a 5x5 grid,
// stiff mounts and rigid pads) mncp-plm from it stalls at 4e-2 after 3000 iterations, and auto's
// stages at 6e-6, where mncp-plm from zero converges in 49.
TB_HD void tb_fallBack(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, int m,
                       const double* x0, double* x, double* best, tbSolverWork* w,
                       tbSolveResult* res) {
  // soc-fb-plm only where the others are not run, above TB_AUTO_FALLBACK_MAX rows (LU directions:
  // 2/3 n^3 a step, not the least squares' QR): once, from the best point, at most
  // TB_AUTO_SOC_ITERS iterations
  const int order[7] = {TB_SOLVER_SOC_FB_PLM, TB_SOLVER_MNCP_PLM,    TB_SOLVER_MNCP_RLM,
                        TB_SOLVER_NCP_DOGLEG, TB_SOLVER_MLCP_FB_PLM, TB_SOLVER_MLCP_FB_RLM,
                        TB_SOLVER_PGS};
  // (a start of zero already was the cold one)
  int starts = tb_allZero(p->n, x0) ? 1 : 2;
  for (int cold = 0; cold < starts; cold++) {
    for (int k = 0; k < 7 && res->residual > opt->tol && !tb_pastDeadline(opt); k++) {
      int solver = order[k], soc = solver == TB_SOLVER_SOC_FB_PLM;
      if (!tb_solverApplies(solver, p) ||
          (tb_isLmSolver(solver) && (m > TB_AUTO_FALLBACK_MAX) != soc) ||
          (soc && (cold || p->n > TB_AUTO_DENSE_MAX)) || (cold && !tb_isLmSolver(solver))) {
        continue;
      }
      if (cold) {
        tb_teamZero(t, x, p->n);
      } else {
        tb_teamCopy(t, x, soc ? best : x0, p->n);
      }
      int budget = soc && opt->max_iter > TB_AUTO_SOC_ITERS ? TB_AUTO_SOC_ITERS : opt->max_iter;
      tb_stage(t, solver, tb_lmProjected(solver), p, opt, budget, x, best, w, res);
    }
  }
  tb_teamCopy(t, x, best, p->n);
}

#define TB_AUTO_FP_POLISH 200  // budget of the PGS-then-Newton rounds from each answer, at most
// auto's Newton stages from the interior point's answer xs, as from a start of their own (pr:
// their account from xs's residual, which their judgements read), within `left` iterations: the
// MNCP's Newton and the SOC-FB Newton each from xs, then the PGS-then-Newton rounds from the best
// point. On the 26 pile steps of tb_convexFixedPoint each adds answers the others miss: the
// rounds alone (PGS first) solved 15, SOC-FB first 17, with the MNCP's Newton first 20; without
// the rounds 16
TB_HD void tb_newtonFrom(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, int m, int left,
                         const double* xs, double* x, double* best, tbSolverWork* w,
                         tbSolveResult* pr) {
  tb_teamCopy(t, x, xs, p->n);
  tb_teamCopy(t, best, xs, p->n);
  pr->residual = tb_residualTeam(t, p, x, w->d);
  pr->reason = TB_STOP_MAXITER;
  int from = pr->iterations;
  if (pr->residual > opt->tol && left > 0) {
    tb_stage(t, TB_SOLVER_MNCP_PLM, TB_LM_PROJECTED_LU, p, opt,
             left < TB_AUTO_NEWTON_CAP ? left : TB_AUTO_NEWTON_CAP, x, best, w, pr);
    tb_teamCopy(t, x, best, p->n);
    tb_residualTeam(t, p, x, w->d);  // u = A x + b, which the PGS stages keep current
  }
  left -= pr->iterations - from;
  from = pr->iterations;
  tb_socAfterNewton(t, p, opt, m, left < TB_AUTO_SOC_ITERS ? left : TB_AUTO_SOC_ITERS, xs, x, best,
                    w, pr);
  left -= pr->iterations - from;
  if (left <= 0) return;
  int tried = 0;
  tb_pgsThenNewton(t, p, opt, TB_SOLVER_MNCP_PLM, m,
                   left < TB_AUTO_FP_POLISH ? left : TB_AUTO_FP_POLISH, x, best, w, pr, &tried);
}

// the convex fixed point (solver_ipm.h) where every other stage left an exact-cone problem of at
// most TB_AUTO_DENSE_MAX rows unsolved, in rounds: the interior point's answer for the De Saxce
// term s, then s = mu |u_t| of that answer averaged with the last s (Krasnoselskii-Mann: the
// plain iteration cycles between two answers on pile steps), and from each answer auto's
// Newton stages (tb_newtonFrom), which converge from there where they stalled from PGS's
// iterates. s starts from zero: started from the best iterate's (PGS's, at 1e-7), or set each
// round from the Newton stages' best point, fewer steps converged. 26 rigid pile steps (195-237
// rows) that auto's other stages leave at 1e-8 to 9e-7 after their whole budget: the validation
// side's sphere-pile-s1-k600 (only Siconos' PROX had solved it, by a chance dip), 6 of 80 steps
// of 4 scenes (mu 0.1 to 1) and 19 of 120 of 6 (mu 0.3 to 1, mass 0.1 to 1), every 50th step:
// 20 converged, in 1 to 17 rounds (22 since the Jordan algebra moved to cone.h: its determinant's
// round-off picks other rounds); on a set exported after these choices were made (5 scenes, mu
// 0.25 to 0.85, mass 0.2 to 2), 7 of the 10 steps auto left. A round costs an interior point
// solve (15 to 20 factorizations, 10 ms at 234 rows) and the Newton stages (about 30 ms), all
// within opt->max_iter iterations. Only an answer that meets the tolerance replaces auto's:
// where there is none the stage's best point is no better an answer than auto's own, which stays
// (run in a quasistatic step, a point pressed between a fence and a wall that overlap, its best
// point unbalanced the forces the step checks)
#define TB_AUTO_FP_ROUNDS 20  // fixed-point rounds, at most
TB_HD void tb_convexFixedPoint(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, int m,
                               double* x, double* best, tbSolverWork* w, tbSolveResult* res) {
  int n = p->n;
  if (res->residual <= opt->tol || n < 2 || n > TB_AUTO_DENSE_MAX || !tb_ipmApplies(p)) return;
  // s in the start's slot, the answer and the best iterate so far in the proximal Newton's A
  // (both stages are done with them), the interior point's scratch where the stages' is
  double *xs = best - (size_t)n * n - n, *kept = xs + n, *s = xs - n;
  if ((size_t)(s - w->d) < tb_ipmNeed(n)) return;  // (the MNCP's scratch holds it: tb_solverNeed)
  tb_teamZero(t, s, n);
  tb_teamCopy(t, kept, best, n);
  int left = opt->max_iter;
  for (int round = 0; round < TB_AUTO_FP_ROUNDS && left > 0 && !tb_pastDeadline(opt); round++) {
    tb_teamSync(t);
    int status = 0, iters = 0;
    if (t.lane == 0) {
      status = tb_ipmSolve(p, s, opt, left < TB_IPM_ITERS ? left : TB_IPM_ITERS, xs, w->d, &iters);
      if (status == 0) {
        double *u = w->d, *sn = w->d + n;
        tb_problemVelocity(p, xs, u);
        tb_deSaxceTerm(p, u, sn);
        for (int i = 0; i < n; i++) s[i] = round == 0 ? sn[i] : 0.5 * (s[i] + sn[i]);
      }
    }
    status = tb_teamShareInt(t, status);
    iters = tb_teamShareInt(t, iters);
    tb_teamSync(t);
    res->iterations += iters;
    left -= iters;
    if (status != 0) break;
    tbSolveResult pr;
    memset(&pr, 0, sizeof(pr));
    tb_newtonFrom(t, p, opt, m, left, xs, x, best, w, &pr);
    res->iterations += pr.iterations;
    left -= pr.iterations;
    if (pr.residual <= opt->tol) {
      res->residual = pr.residual;
      res->reason = TB_STOP_CONVERGED;
      tb_teamCopy(t, x, best, n);
      return;
    }
  }
  tb_teamCopy(t, best, kept, n);
  tb_teamCopy(t, x, best, n);
}

// the convex fixed point where the host asks for it (tbSolverOpt.fixed_point: tb_solveFile);
// never in a step, whose kernel it would grow past what ptxas compiles (problem.h)
TB_HD void tb_hostFixedPoint(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, int m, double* x,
                             double* best, tbSolverWork* w, tbSolveResult* res) {
#ifdef __CUDA_ARCH__
  (void)t, (void)p, (void)opt, (void)m, (void)x, (void)best, (void)w, (void)res;
#else
  if (opt->fixed_point) tb_convexFixedPoint(t, p, opt, m, x, best, w, res);
#endif
}

// the residual below which auto takes an answer as exact: TB_AUTO_WARM_EXACT of the tolerance
// below TB_AUTO_EXACT_TOL, the tolerance itself above (tb_activeSetFirst says why)
TB_HD double tb_exactTol(const tbSolverOpt* opt) {
  return opt->tol < TB_AUTO_EXACT_TOL ? TB_AUTO_WARM_EXACT * opt->tol : opt->tol;
}

// whether a start at residual r is the answer as it is: exact by tb_exactTol
TB_HD int tb_startKept(const tbSolverOpt* opt, double r) {
  return r <= tb_exactTol(opt);
}

// the guessed active set's direct answer (solver_active.h) by team t, on problems up to
// TB_AUTO_DENSE_MAX rows: 1 when it meets the tolerance (res and x then hold it on every
// member), else 0 with x as it was. Below TB_AUTO_EXACT_TOL a warm start that meets the
// tolerance by less than TB_AUTO_WARM_EXACT is replaced by the answer where that is better: a
// step's impulses off by the tolerance move the bodies by as much, and a resting stack whose
// warm start passed at 9e-9 tilted until the start missed on two steps in three (each then
// factorized); with exact answers it stays put, and its warm start passes on most steps. The
// grasp study's 1e-6 is a choice of speed: there the exact answers cost 7.5% of its
// instructions (the active set ran on 3 steps in 4) and moved its parts by 5e-11 m
TB_HD int tb_activeSetFirst(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, double* x,
                            tbSolverWork* w, tbSolveResult* res) {
  if (tb_startKept(opt, res->residual)) return 0;
  if (p->n > TB_AUTO_DENSE_MAX || tb_pastDeadline(opt)) return 0;
  int done = tb_solveActiveSet(t, p, opt, fmin(opt->tol, res->residual), x, w, res);
  tb_teamSync(t);  // every member is done with the scratch
  return done;
}

// one PGS sweep of x from u = A x + b in w->d, from scratch (auto's start left it there):
// returns the swept x's residual, from scratch, its u in w->d. Bitwise tb_solvePGS's one sweep
// and closing check, without its own u from scratch first and its running residual (a
// particle's step, one block swept every step: 8% of its instructions)
TB_HD double tb_sweepOnce(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, double* x,
                          tbSolverWork* w) {
  tb_pgsSweep(t, p, tb_pgsSymmetric(t, p), opt->sor, x, w->d);
  return tb_residualTeam(t, p, x, w->d);
}

// a start x that already meets a coarse tolerance (from TB_AUTO_SWEEP_TOL), swept once by PGS
// before it is judged, the sweep kept whatever its residual (in best too; its u = A x + b, from
// scratch, in w->d where the stages read it). The residual is
// relative to ||b||, which rows far from contact inflate (a plate's far corners, gap / h): at
// fp32's 1e-4 a step's warm start passed unswept with impulses a step stale, and a block on the
// vibrating plate rose 4.6 mm from its fp64 path in 200 steps (9e-7 swept, as PGS, which always
// sweeps). At the step's 1e-8 and the grasp study's 1e-6 a passing warm start is close enough; a
// sweep there would cost the grasp study 6% of its instructions.
TB_HD void tb_sweepCoarseStart(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, double* x,
                               double* best, tbSolverWork* w, tbSolveResult* res) {
  if (res->residual > opt->tol || opt->tol < TB_AUTO_SWEEP_TOL || p->n == 0) return;
  res->residual = tb_sweepOnce(t, p, opt, x, w);
  res->iterations = 1;
  tb_teamCopy(t, best, x, p->n);
}

// a step's problem of one block (a particle's or a sphere's contact) swept once by PGS where its
// warm start is not kept as it is (tb_startKept) and would go to the active set (it misses the
// tolerance, or its contact sticks or is off): 1 when it was, x, res and u = A x + b in w->d then
// holding the better of the start and the sweep. Where the block's Delassus matrix is isotropic
// the sweep is its exact solve, cheaper than the active set's factorization (plate-particle:
// 1e-19 in one sweep; with the factorization auto took 21% longer than PGS over the scene, now
// 5%). A cold start has no guess to sweep from: the stages take it
TB_HD int tb_sweptOneBlock(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, double* x,
                           double* best, tbSolverWork* w, tbSolveResult* res) {
  if (p->nblock != 1 || tb_startKept(opt, res->residual) || tb_pastDeadline(opt) ||
      tb_allZero(p->n, x)) {
    return 0;
  }
  if (res->residual <= opt->tol && p->blk_type[0] == TB_BLOCK_CONTACT &&
      tb_activeContact(p, 0, x, w->d) < 0) {
    return 0;  // sliding: the active set has no guess, and the start passes
  }
  double r = tb_sweepOnce(t, p, opt, x, w);
  res->iterations = 1;
  if (r <= res->residual) {
    res->residual = r;
    tb_teamCopy(t, best, x, p->n);
  } else {
    tb_teamCopy(t, x, best, p->n);
    tb_residualTeam(t, p, x, w->d);
  }
  return 1;
}

// the auto solver run by team t; every member gets the result
TB_HD void tb_solveAuto(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, double* x,
                        tbSolverWork* w, tbSolveResult* res) {
  // the best iterate lives at the end of the scratch, past what any stage uses
  double* best = w->d + w->nd - (p->n > 0 ? p->n : 1);
  tb_teamCopy(t, best, x, p->n);
  res->iterations = 0;
  res->reason = TB_STOP_MAXITER;
  res->residual = tb_residualTeam(t, p, x, w->d);  // and u = A x + b in w->d
  int left = opt->max_iter;
  if (!tb_sweptOneBlock(t, p, opt, x, best, w, res)) {
    tb_sweepCoarseStart(t, p, opt, x, best, w, res);
  }
  if (tb_activeSetFirst(t, p, opt, x, w, res)) return;
  if (res->residual <= opt->tol) {
    // the start passes as it is: its residual is from scratch (u in w->d), which
    // tb_finishSolveTeam would compute again
    res->converged = 1;
    res->reason = TB_STOP_CONVERGED;
    return;
  }
  // the start, for the fallback, below the proximal Newton stage's copies of A and b
  double* x0 = best - (size_t)p->n * p->n - 2 * (size_t)p->n;
  tb_teamCopy(t, x0, x, p->n);
  int newton = tb_solverApplies(TB_SOLVER_MNCP_PLM, p) ? TB_SOLVER_MNCP_PLM : TB_SOLVER_MLCP_FB_PLM;
  int nfree, m = newton == TB_SOLVER_MNCP_PLM ? p->n : tb_lcpSize(p, &nfree);
  int tried = 0, lemke = tb_solverApplies(TB_SOLVER_LEMKE, p);
  if (lemke && tb_lemkeFirst(p, m, x)) {
    int probe = left < TB_AUTO_LEMKE_PROBE ? left : TB_AUTO_LEMKE_PROBE;
    tb_stage(t, TB_SOLVER_PGS, TB_LM_PROJECTED_LU, p, opt, probe, x, best, w, res);
    left -= probe;
    if (res->residual > opt->tol) {
      tb_stage(t, TB_SOLVER_LEMKE, TB_LM_PROJECTED_LU, p, opt, opt->max_iter, x, best, w, res);
      lemke = 0;
    }
    tb_teamCopy(t, x, best, p->n);
    tb_residualTeam(t, p, x, w->d);  // u = A x + b for PGS
  }
  if (m <= TB_AUTO_DENSE_MAX && tb_solverApplies(newton, p)) {
    left = tb_pgsThenNewton(t, p, opt, newton, m, left, x, best, w, res, &tried);
    left = tb_socAfterNewton(t, p, opt, m, left, x0, x, best, w, res);
  }
  left = tb_pgsWhileProgressing(t, p, opt, left, x, best, w, res);
  if (!tried && res->residual > opt->tol && left > 0 && tb_solverApplies(newton, p)) {
    int budget = left < 100 ? left : 100;
    tb_teamCopy(t, x, best, p->n);
    tb_stage(t, newton, TB_LM_PROJECTED_LU, p, opt, budget, x, best, w, res);
    left -= budget;
  }
  if (res->residual > opt->tol && lemke) {
    // a standard LCP the iterations could not crack: pivot (no warm start, exact when it ends)
    tb_stage(t, TB_SOLVER_LEMKE, TB_LM_PROJECTED_LU, p, opt, opt->max_iter, x, best, w, res);
  }
  if (res->residual > opt->tol && left > 0 && newton == TB_SOLVER_MNCP_PLM &&
      m <= TB_AUTO_DENSE_MAX) {
    tb_teamSync(t);
    if (t.lane == 0) left = tb_proximalNewton(p, opt, left, x, best, w, res);
    left = tb_teamShareInt(t, left);
    tb_teamShareResult(t, res);
  }
  if (res->residual > opt->tol && left > 0) {
    int iters = res->iterations;
    tb_teamCopy(t, x, best, p->n);
    tb_stage(t, TB_SOLVER_PROX_GS, TB_LM_PROJECTED_LU, p, opt, left, x, best, w, res);
    left -= res->iterations - iters;
  }
  // last, PGS from the best point with what is left, in chunks that a deadline can end: on
  // jammed grasp steps prox stalls (3e-3 after 42 iterations) and the Newton stages diverge,
  // where PGS converges in 300 to 400 sweeps
  tb_teamCopy(t, x, best, p->n);
  while (res->residual > opt->tol && left > 0 && !tb_pastDeadline(opt)) {
    int budget = left < TB_AUTO_LAST_CHUNK ? left : TB_AUTO_LAST_CHUNK;
    tb_stage(t, TB_SOLVER_PGS, TB_LM_PROJECTED_LU, p, opt, budget, x, best, w, res);
    left -= budget;
  }
  tb_teamCopy(t, x, best, p->n);
  if (res->residual > opt->tol) tb_fallBack(t, p, opt, m, x0, x, best, w, res);
  tb_hostFixedPoint(t, p, opt, m, x, best, w, res);
  if (res->residual > opt->tol && tb_pastDeadline(opt)) res->reason = TB_STOP_TIME;
  tb_finishSolveTeam(t, p, opt, x, w->d, res);
}

#endif  // TUMBLE_HOST_SOLVER_AUTO_H_
