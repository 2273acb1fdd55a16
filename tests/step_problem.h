// A step's problem from its work, for the tests of the body-space stages: as those stages take
// it (A's diagonal blocks, no A) and with its whole A formed from scratch (tb_delassusRows)
#ifndef TUMBLE_TESTS_STEP_PROBLEM_H_
#define TUMBLE_TESTS_STEP_PROBLEM_H_

#include <vector>

#include <tumble/problem.h>

#include "engine/engine.h"
#include "engine/stage_assemble.h"

// the last step's problem as the body-space stages take it: A's diagonal blocks assembled
inline tbProblem bodyProblemOf(const tbModel* m, tbWork* w) {
  tb_assembleDiagonal(tb_solo(), w);
  return tb_problemOf(m, w);
}

// the last step's problem with its whole A (tb_delassusRows) into A
inline tbProblem wholeProblemOf(const tbModel* m, const tbWork* w, std::vector<double>& A) {
  tbProblem p = tb_problemOf(m, w);
  A.assign((size_t)p.n * p.n, 0.0);
  tb_delassusRows(tb_solo(), w, A.data());
  p.A = A.data();
  p.runs = nullptr;
  return p;
}

#endif  // TUMBLE_TESTS_STEP_PROBLEM_H_
