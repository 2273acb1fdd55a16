// Internal interface of the per-problem solvers (one file each) and their scratch needs.
#ifndef TUMBLE_HOST_SOLVER_H_
#define TUMBLE_HOST_SOLVER_H_

#include <stddef.h>

#include <tumble/problem.h>
#include <tumble/tumble.h>

#include "stage_pgs.h"

#ifdef __cplusplus
extern "C" {
#endif

// doubles (return) and ints (*ints) of scratch `solver` needs for a problem of n rows whose LCP
// form has m unknowns (m = 0 when it has none); tb_solve checks this before calling a solver,
// and a solver never uses more
size_t tb_solverNeed(int solver, int n, int m, size_t* ints);

// each takes a problem tb_solverApplies accepted and scratch of tb_solverNeed's size, starts
// from x (warm start), leaves the answer in x, and fills res (seconds are filled by tb_solve)
void tb_solveProx(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                  tbSolveResult* res, int jacobi);
// `projected` of the LM solvers: the seed's regular LM, the seed's projected LM (QR
// directions), or the projected LM with the Newton direction by LU where J is well conditioned
// (auto's Newton stage; same line search and watchdog)
enum { TB_LM_REGULAR = 0, TB_LM_PROJECTED = 1, TB_LM_PROJECTED_LU = 2 };
void tb_solveMNCP(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                  tbSolveResult* res, int projected);
void tb_solveNCPDogleg(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                       tbSolveResult* res);
void tb_solveMLCPFB(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                    tbSolveResult* res, int projected);
void tb_solveLemke(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                   tbSolveResult* res);

void tb_solveAuto(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                  tbSolveResult* res);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_SOLVER_H_
