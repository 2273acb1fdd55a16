// The per-scene frictional-contact problem every solver takes, and the residual they report.
//
// Delassus form of one Stewart-Trinkle step (thesis Eq. 2.77/2.78 with the velocities
// eliminated, §2.3): impulses x, post-step constraint velocities u = A x + b, with
//   A = J M^-1 J^T (+ constraint-force mixing on servo rows), b = J v_free + bias,
// and the rows grouped into blocks:
//   TB_BLOCK_BOX:     one row, lo <= x <= hi and u in the normal cone of [lo, hi] there
//                     (lo = -inf, hi = inf: equality; lo = 0, hi = inf: unilateral);
//   TB_BLOCK_CONTACT: rows (n, t[, o]): 0 <= x_n _|_ u_n >= 0, and the friction impulse x_t
//                     maximizes dissipation -u_t . x_t over the disc |x_t| <= mu x_n (exact
//                     cone) or over the regular n_d-gon inscribed in it (pyramid).
// A contact with mu = 0 has only its normal row. The residual is the natural map
// ||x - P_K(x - u)|| / max(||b||, 1e-16) (Acary, Bremond & Huber 2018), with K the
// product of the blocks' sets; one implementation serves every solver, test and benchmark.
#ifndef TUMBLE_PROBLEM_H_
#define TUMBLE_PROBLEM_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { TB_BLOCK_BOX = 0, TB_BLOCK_CONTACT = 1 };

// where A's nonzeros lie (host/io/reader.c's runs for large sparse files): row i's in the column
// ranges [row_run[2 r], row_run[2 r + 1]) for r in [row_adr[i], row_adr[i + 1]), and column j's
// in the row ranges of col_adr and col_run alike. PGS's column updates and u = A x + b then read
// those alone: a large problem's A is mostly zero (Capsules: 1.6% of 858^2 entries)
// the fraction of A's entries up to which reading its runs pays (host/io/reader.c: 0.85-0.93x on
// full matrices, 1.2x at 29%, 2.3x at 22%, 15x at 1.6%)
#define TB_RUN_FILL 0.5

typedef struct tbRuns {
  const int* row_adr;  // (n + 1)
  const int* row_run;  // (2 row_adr[n])
  const int* col_adr;  // (n + 1)
  const int* col_run;  // (2 col_adr[n])
  // A's values packed along the runs, where tbProblem.A is NULL (a problem file whose A dense
  // would not fit: host/io/reader.c): row run r's from row_val[row_off[r]] on, column run r's
  // from col_val[col_off[r]] on. NULL where A holds them (the step's runs)
  const double* row_val;
  const int* row_off;  // (row_adr[n])
  const double* col_val;
  const int* col_off;  // (col_adr[n])
} tbRuns;

typedef struct tbProblem {
  int n;                    // rows
  int nblock;               // blocks
  const double* A;          // (n x n) row-major, or NULL: runs->row_val holds A's nonzeros
  const double* b;          // (n)
  const double* lo;         // (n) lower bound of box rows (unused for contact rows)
  const double* hi;         // (n) upper bound of box rows
  const int* blk_type;      // (nblock) TB_BLOCK_*
  const int* blk_adr;       // (nblock) first row
  const int* blk_dim;       // (nblock) 1 for box rows; 1..3 for contacts (normal, tangents)
  const double* blk_mu;     // (nblock) friction coefficient of contacts
  const double* blk_angle;  // (nblock) pyramid: angle of the first facet direction in (t, o)
  int cone;                 // tbtCone
  int facets;               // pyramid facets n_d (>= 3) for 2-tangent contacts
  int rank_max;             // an upper bound on A's rank (the velocity unknowns behind A,
                            // A = G M^-1 G^T); 0: not known
  const tbRuns* runs;       // where A's nonzeros lie, or NULL: every entry is read
} tbProblem;

typedef enum tbtSolver {
  TB_SOLVER_PGS = 0,      // projected Gauss-Seidel / NSGS over blocks (both cones, LCPs)
  TB_SOLVER_PROX_GS,      // prox fixed point, Gauss-Seidel sweep (Lu & Trinkle)
  TB_SOLVER_PROX_JACOBI,  // prox fixed point, Jacobi sweep
  TB_SOLVER_MNCP_RLM,     // implicit MNCP (exact cone), regular Levenberg-Marquardt (M&J)
  TB_SOLVER_MNCP_PLM,     // implicit MNCP, projected LM, non-monotone line search + watchdog
  TB_SOLVER_NCP_DOGLEG,   // Todorov's residual, dogleg with the edge-aware line search
  TB_SOLVER_MLCP_FB_RLM,  // pyramid MLCP (Eq. 2.78), Fischer-Burmeister, regular LM
  TB_SOLVER_MLCP_FB_PLM,  // pyramid MLCP, Fischer-Burmeister, projected LM
  TB_SOLVER_LEMKE,        // Lemke's complementary pivoting on the pyramid LCP
  TB_SOLVER_AUTO,         // PGS, then a Newton polish (MNCP or FB PLM), then prox: the default
  TB_SOLVER_SOC_FB_PLM,   // exact cone, the second-order cone's Fischer-Burmeister, PLM (LU)
  TB_NSOLVER
} tbtSolver;

typedef enum tbtStop {
  TB_STOP_CONVERGED = 0,  // residual <= tol
  TB_STOP_MAXITER = 1,    // iteration cap reached above tol
  TB_STOP_NONFINITE = 2,  // the iterate became NaN or infinite
  TB_STOP_STALLED = 3,    // no further progress possible (step or damping at its limit)
  TB_STOP_RAY = 4,        // Lemke: ray termination (no solution found from this start)
  TB_STOP_SINGULAR = 5,   // a linear system could not be solved
  TB_STOP_TIME = 6,       // tbSolverOpt.deadline passed
} tbtStop;

typedef struct tbSolveResult {
  int converged;  // 1 iff residual <= tol, re-evaluated on the returned x
  int iterations;
  double residual;  // tb_residual of the returned x
  double seconds;   // wall time of the solve
  int reason;       // tbtStop
} tbSolveResult;

enum {
  TB_PROXR_BLOCK = 0,  // r per contact from its Delassus diagonal block: 2 / (l_min + l_max)
  TB_PROXR_FORG = 1,   // one r for all: Forg's r* = 2 / (eta_max + eta_min) of A
  TB_PROXR_FIXED = 2,  // r = prox_r
};

// every solver's parameters; defaults (tb_defaultSolverOpt) are the seeds' own
typedef struct tbSolverOpt {
  int max_iter;          // iteration cap
  double tol;            // stop at this tb_residual
  double sor;            // PGS over-relaxation in (0, 2)
  int prox_rule;         // TB_PROXR_*
  double prox_r;         // TB_PROXR_FIXED: r; otherwise a factor on the rule's r
  int prox_adaptive;     // 1: shrink r when the residual grows, grow it while it contracts well
  double cfm;            // constraint force mixing zeta added to A's diagonal (>= 0)
  double lm_lambda;      // RLM initial damping (M&J: 1e-3)
  double lm_step;        // RLM damping factor (20)
  double lm_rmin;        // RLM: raise damping below this gain ratio (0.3)
  double lm_rmax;        // RLM: lower damping above this gain ratio (0.8)
  double lm_lambda_min;  // RLM damping floor (1e-25)
  double plm_lambda;     // PLM damping (1e-16)
  int plm_memory;        // PLM non-monotone line-search memory (10)
  int plm_watchdog;      // PLM watchdog length (20)
  // stop once tb_clock() passes this (0: never), with the best iterate so far: auto between its
  // stages and inside them, prox, Lemke and the Newton solvers at each iteration (PGS alone
  // only at max_iter). A step never sets it: its stages read no clock (and the device has none)
  double deadline;
  // host only (NULL in a step, on the device and by default): a SOC-FB Newton that auto's SOC-FB
  // stages run in place of the dense one, tb_solve's contract, nonzero where it cannot run on p.
  // tb_solveFile lends its sparse one (KLU) where soc-fb-plm by name would take it
  int (*soc_newton)(const tbProblem* p, const struct tbSolverOpt* opt, double* x,
                    tbSolveResult* res);
  // host only (0 in a step, on the device and by default): 1 runs auto's last stage, the convex
  // fixed point (host/solver/solver_auto.h tb_convexFixedPoint), where the others end above the
  // tolerance; tb_solveFile sets it. Compiled into the step's kernel it took ptxas past the
  // memory of a 23 GB build machine (13.7 GB for the fp64 kernel, its fp32 twin's beside it)
  int fixed_point;
} tbSolverOpt;

// seconds on the host's monotonic clock, the clock of tbSolverOpt.deadline
double tb_clock(void);

// scratch for the solvers: sized once for the largest problem, never grown inside a solve
typedef struct tbSolverWork {
  double* d;
  size_t nd;  // doubles
  int* i;
  size_t ni;  // ints
} tbSolverWork;
// scratch for `solver` on problems of at most n rows, ncontact contacts and `facets` facets
tbSolverWork* tb_newSolverWork(int solver, int n, int ncontact, int facets);
// its size: doubles nd and ints ni
void tb_solverWorkSize(int solver, int n, int ncontact, int facets, size_t* nd, size_t* ni);
void tb_freeSolverWork(tbSolverWork* w);

const char* tb_solverName(int solver);
int tb_findSolver(const char* name);
// solve p; x holds the warm start on entry and the answer on exit. Returns TB_OK, or
// TB_ERR_ARG (message in tb_lastError) when the solver does not apply or w is too small. A p
// without A (its values packed in its runs) takes pgs alone: any other is TB_ERR_ARG.
int tb_solve(int solver, const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
             tbSolveResult* res);
// TB_ERR_ARG with the message that `solver` needs A dense (8 n^2 bytes at n rows)
int tb_needsDense(int solver, int n);
// (tb_solveQuiet in host/solver/solver.h is the same without the error message and the timer, for
// the step on both backends)

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_PROBLEM_H_
