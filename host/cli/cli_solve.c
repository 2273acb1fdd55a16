// `tumble solve FILE`: one frictional-contact or LCP problem from a file, any solver. Exits 0
// when the problem is solved (a run converged), TB_SOLVE_UNSOLVED when no run did, 2 on bad
// input: a script can tell an answer from a best iterate without reading the JSON.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/reader.h>
#include <tumble/tumble.h>

#include "cli/cli.h"
#include "solver/residual.h"
#include "solver/solver_need.h"

// the exit status of a problem no run solved (2 is bad input, 130 Ctrl-C)
#define TB_SOLVE_UNSOLVED 3

typedef struct tbSolveArgs {
  const char* file;
  int solver;  // -1: every applicable solver
  double tol;
  long max_iter;
  double max_seconds;  // 0: no deadline
  int cone, facets;
} tbSolveArgs;

static void tb_solveUsage(FILE* f) {
  fprintf(
      f,
      "usage: tumble solve FILE [--solver NAME|all] [--tol T] [--max-iter K] [--max-seconds S]\n"
      "         [--cone exact|pyramid] [--facets N]   one problem file (Siconos .dat, FCLib)\n"
      "       tumble solve --list         the solvers\n"
      "  exit status: 0 solved (a run converged; with --solver all, at least one), 3 not\n"
      "  converged (every run stopped above --tol: its best iterate is printed), 2 bad input\n");
}

static void tb_listSolvers(void) {
  for (int s = 0; s < TB_NSOLVER; s++) printf("%s\n", tb_solverName(s));
}

static int tb_parseSolveArgs(int argc, char** argv, tbSolveArgs* a) {
  tbSolverOpt def = tb_defaultSolverOpt();
  memset(a, 0, sizeof(*a));
  a->solver = TB_SOLVER_AUTO;
  a->tol = def.tol;
  // sweeps are cheap next to a Newton iteration: PGS may need thousands on large problems
  a->max_iter = 100000;
  a->facets = 8;
  for (int i = 0; i < argc; i++) {
    const char* arg = argv[i];
    if (arg[0] != '-') {
      if (a->file) return tb_cliError("unexpected argument '%s'", arg);
      a->file = arg;
      continue;
    }
    if (i + 1 >= argc) return tb_cliError("%s needs a value", arg);
    const char* val = argv[++i];
    int rc = 0;
    if (!strcmp(arg, "--solver")) {
      a->solver = -1;  // all
      if (strcmp(val, "all")) rc = tb_parseSolver(val, &a->solver);
    } else if (!strcmp(arg, "--tol")) {
      rc = tb_parseNumber(arg, val, &a->tol);
      if (!rc && !(a->tol > 0.0)) return tb_cliError("--tol %s: must be > 0", val);
    } else if (!strcmp(arg, "--max-iter")) {
      rc = tb_parseInt(arg, val, 1, 100000000L, &a->max_iter);
    } else if (!strcmp(arg, "--max-seconds")) {
      rc = tb_parseNumber(arg, val, &a->max_seconds);
      if (!rc && !(a->max_seconds >= 0.0 && isfinite(a->max_seconds)))
        return tb_cliError("--max-seconds %s: must be a finite number >= 0", val);
    } else if (!strcmp(arg, "--cone")) {
      if (!strcmp(val, "exact")) {
        a->cone = 0;
      } else if (!strcmp(val, "pyramid")) {
        a->cone = 1;
      } else {
        return tb_cliError("--cone %s: expected exact or pyramid", val);
      }
    } else if (!strcmp(arg, "--facets")) {
      long f = 0;
      rc = tb_parseInt(arg, val, 3, 256, &f);
      a->facets = (int)f;
    } else {
      return tb_unknownOption("solve", arg, tb_solveUsage);
    }
    if (rc) return rc;
  }
  if (!a->file) return tb_cliError("solve needs a problem file (Siconos .dat or FCLib .hdf5)");
  return 0;
}

static void tb_printRun(const tbSolveArgs* a, const tbFileProblem* fp, const tbProblem* p,
                        int solver, const tbSolveResult* r) {
  static const char* const reasons[] = {"converged", "max-iter", "non-finite", "stalled",
                                        "ray",       "singular", "time"};
  const char* base = strrchr(a->file, '/');
  char resid[32];  // null, with stop "non-finite", where the residual is NaN or inf
  tb_jsonNumber(resid, sizeof(resid), "%.3e", r->residual);
  char file[6 * 256 + 1];  // a file's name may hold quotes and backslashes
  tb_jsonEscape(file, sizeof(file), base ? base + 1 : a->file);
  printf(
      "{\"file\": \"%s\", \"solver\": \"%s\", \"converged\": %s, \"iterations\": %d, "
      "\"residual\": %s, \"seconds\": %.6f, \"contacts\": %d, \"rows\": %d, "
      "\"cone\": \"%s\", \"stop\": \"%s\"}\n",
      file, tb_solverName(solver), r->converged ? "true" : "false", r->iterations, resid,
      r->seconds, fp->ncontact, p->n, p->cone ? "pyramid" : "exact",
      isfinite(r->residual) ? reasons[r->reason] : "non-finite");
}

// one solver's run printed; *converged set: 0, or 2 after an error message
static int tb_runSolver(const tbSolveArgs* a, const tbFileProblem* fp, const tbProblem* p,
                        int solver, int* converged) {
  tbSolverOpt opt = tb_defaultSolverOpt();
  opt.tol = a->tol;
  opt.max_iter = (int)a->max_iter;
  if (a->max_seconds > 0.0) opt.deadline = tb_clock() + a->max_seconds;
  // where only the runs hold W, tb_solveFile's stages are pgs and the sparse Newton (its own)
  tbSolverWork* w = tb_newSolverWork(p->A ? solver : TB_SOLVER_PGS, p->n, fp->ncontact, p->facets);
  double* x = (double*)calloc((size_t)p->n + 1, sizeof(double));
  if (!w || !x) {
    tb_freeSolverWork(w);
    free(x);
    return tb_cliError("%s: out of memory for solver '%s'", a->file, tb_solverName(solver));
  }
  tbSolveResult r;
  int rc = tb_solveFile(solver, p, &opt, x, w, &r);
  if (rc == TB_OK) tb_printRun(a, fp, p, solver, &r);
  *converged = rc == TB_OK && r.converged;
  tb_freeSolverWork(w);
  free(x);
  return rc == TB_OK ? 0 : tb_cliError("%s", tb_lastError());
}

// no run met the tolerance: said, and the status for it
static int tb_saySolveUnsolved(const tbSolveArgs* a, int nrun, int last) {
  fprintf(stderr,
          "tumble: solve: %s: not converged: %s stopped above --tol %g (the JSON has each "
          "stop reason and best residual); raise --max-iter or --max-seconds, or try another "
          "--solver\n",
          a->file, nrun > 1 ? "every solver" : tb_solverName(last), a->tol);
  return TB_SOLVE_UNSOLVED;
}

// a file whose W only its nonzeros hold: solver's refusal (2), or with solver NULL the note that
// --solver all runs the solvers that read those
static int tb_saySparseOnly(const tbSolveArgs* a, const tbProblem* p, const char* solver) {
  char why[256];
  snprintf(why, sizeof why,
           "%s's W is held as its nonzeros (%d rows: %.3g GB dense, past the reader's 0.25 GB)",
           a->file, p->n, 8e-9 * p->n * (double)p->n);
  const char* read =
      tb_fileSolverRuns(TB_SOLVER_SOC_FB_PLM, p) ? "pgs, auto and soc-fb-plm" : "pgs and auto";
  if (solver) return tb_cliError("solver '%s' needs W dense: %s; %s read it so", solver, why, read);
  fprintf(stderr, "tumble: solve: note: %s: --solver all runs %s alone\n", why, read);
  return 0;
}

int tb_solveMain(int argc, char** argv) {
  if (tb_helpAsked(argc, argv)) {
    tb_solveUsage(stdout);
    return 0;
  }
  if (argc >= 1 && !strcmp(argv[0], "--list")) {
    tb_listSolvers();
    return 0;
  }
  tbSolveArgs a;
  int rc = tb_parseSolveArgs(argc, argv, &a);
  if (rc) return rc;
  tbFileProblem fp;
  if (tb_readProblem(a.file, &fp) != TB_OK) return tb_cliError("%s", tb_lastError());
  tbProblem p = tb_fileProblemView(&fp);
  p.cone = a.cone;
  p.facets = a.facets;
  if (a.solver >= 0 && !tb_solverApplies(a.solver, &p)) {
    tb_freeFileProblem(&fp);
    return tb_cliError("solver '%s' does not apply to %s (%s cone)", tb_solverName(a.solver),
                       a.file, p.cone ? "pyramid" : "exact");
  }
  if (a.solver >= 0 && !tb_fileSolverRuns(a.solver, &p)) {
    rc = tb_saySparseOnly(&a, &p, tb_solverName(a.solver));
    tb_freeFileProblem(&fp);
    return rc;
  }
  if (a.solver < 0 && !p.A) tb_saySparseOnly(&a, &p, NULL);
  int nrun = 0, nconverged = 0, last = a.solver;
  for (int s = 0; s < TB_NSOLVER && !rc; s++) {
    if ((a.solver < 0 && tb_solverApplies(s, &p) && tb_fileSolverRuns(s, &p)) || s == a.solver) {
      int converged = 0;
      rc = tb_runSolver(&a, &fp, &p, s, &converged);
      nrun++;
      nconverged += converged;
      last = s;
    }
  }
  tb_freeFileProblem(&fp);
  if (!rc && !nrun) {
    return tb_cliError("no solver applies to %s (%s cone)", a.file, p.cone ? "pyramid" : "exact");
  }
  if (rc || nconverged) return rc;
  return tb_saySolveUnsolved(&a, nrun, last);
}
