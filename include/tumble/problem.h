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

#ifdef __cplusplus
extern "C" {
#endif

enum { TB_BLOCK_BOX = 0, TB_BLOCK_CONTACT = 1 };

typedef struct tbProblem {
  int n;                    // rows
  int nblock;               // blocks
  const double* A;          // (n x n) row-major
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
} tbProblem;

typedef enum tbtStop {
  TB_STOP_CONVERGED = 0,  // residual <= tol
  TB_STOP_MAXITER = 1,    // iteration cap reached above tol
  TB_STOP_NONFINITE = 2,  // the iterate became NaN or infinite
} tbtStop;

typedef struct tbSolveResult {
  int converged;  // 1 iff residual <= tol, re-evaluated on the returned x
  int iterations;
  double residual;  // tb_residual of the returned x
  int reason;       // tbtStop
} tbSolveResult;

typedef struct tbSolverOpt {
  int max_iter;
  double tol;
  double sor;  // over-relaxation in (0, 2)
} tbSolverOpt;

// u = A x + b
void tb_problemVelocity(const tbProblem* p, const double* x, double* u);
// natural-map residual of x; work has n entries
double tb_residual(const tbProblem* p, const double* x, double* work);
// doubles of scratch the solvers need for a problem of n rows
int tb_solverWorkSize(int n);

// projected Gauss-Seidel over blocks; x holds the warm start on entry, the answer on exit
void tb_solvePGS(const tbProblem* p, const tbSolverOpt* opt, double* x, double* work,
                 tbSolveResult* res);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_PROBLEM_H_
