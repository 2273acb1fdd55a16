// bench_solvers: tumble's solvers against Siconos numerics on the shared problem files.
//
// For every file under <data>/fc3d (3D frictional contact, exact Coulomb cone) and <data>/lcp
// (linear complementarity problems):
//   - each of our solvers that applies (tb_solverApplies on the file's exact-cone view), from
//     x = 0, tol 1e-8; iteration caps: sweeps (PGS, prox) and auto 100000, Newton/LM 200, Lemke
//     its default (max(1000, 50 m) pivots). The dense LM/Newton solvers whose directions come
//     from least squares or the normal equations are skipped on files with more than 300 rows
//     unless --all is given (O(n^3) per iteration, several times an LU's); soc-fb-plm (LU) runs
//     on every file.
//   - Siconos numerics 4.4: NSGS (default local solver), PROX, NSN_AC, NSN_FB on FC3D files;
//     LEMKE, PGS, NEWTON_FB_FBLSA (the Fischer-Burmeister Newton: 4.4 has no SICONOS_LCP_NEWTONFB)
//     on LCP files; reaction/z from 0, caps 100000 for NSGS/PROX/PGS, Siconos' defaults else.
//     Siconos' error measure is not ours, so its tolerance starts at 1e-8 and, while Siconos
//     reports success but OUR residual of its answer is above 1e-8, is tightened tenfold (down
//     to 1e-12); the time reported is the run at the final tolerance, and the tightening is
//     noted. Each Siconos measurement runs in a forked child (a crash or a runaway is reported
//     instead of ending the benchmark).
// --validation DIR adds the fc3d/ and lcp/ files under DIR as the validation side: problems
// auto's constants were not chosen on (bench/solvers_validation.sh exports them from tumble's
// scenes); the targets are reported for each side.
// Every answer, ours or Siconos', is judged by tb_residual (problem.h): solved = residual of the
// returned x <= 1e-8. Siconos' reaction r is our x (normal, tangent, tangent per contact).
//
// Timing: omp_get_wtime around the solve call only (problem loading, scratch and Siconos
// options creation excluded); best of 3 repetitions (--reps) when a run takes < 0.5 s, of 10
// when it takes < 10 ms (timer noise), else one run.
// Wall-clock guard: a sweep solver (ours or Siconos') first runs a pilot of 200 iterations; if
// its cap would take more than --guard seconds (60) at that rate, the cap is lowered so that
// the run takes about --guard seconds (noted in the details table).
//
// Output: markdown on stdout (anything the libraries print goes to stderr), progress on stderr.
#define _GNU_SOURCE  // popen, dup2, fork
#include <dirent.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <FrictionContactProblem.h>
#include <Friction_cst.h>
#include <LinearComplementarityProblem.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <NumericsSparseMatrix.h>
#include <NumericsVerbose.h>
#include <SolverOptions.h>
#include <SparseBlockMatrix.h>
#include <CSparseMatrix.h>
#include <lcp_cst.h>

#include <tumble/problem.h>
#include <tumble/reader.h>
#include <tumble/tumble.h>

#include "bench_machine.h"
#include "solver/residual.h"
#include "solver/solver_need.h"

#ifndef TUMBLE_SOURCE_DIR
#define TUMBLE_SOURCE_DIR "."
#endif
#ifndef TUMBLE_DATA_DIR
#define TUMBLE_DATA_DIR "tests/data"
#endif

#define TOL 1e-8
#define SWEEP_CAP 100000
#define NEWTON_CAP 200
#define PILOT 200
#define FAST_S 0.5   // runs faster than this are repeated (best of --reps)
#define TINY_S 1e-2  // ... and runs faster than this up to TINY_REPS times (timer noise)
#define TINY_REPS 10
#define DENSE_MAX 300
#define MAXFILES 160
#define MAXRUNS 24
#define MAXSOLVERS 32

static const double kTaus[] = {1, 2, 4, 10, 100};
#define NTAU 5

typedef struct Run {
  char name[40];
  int ours;        // 1: tumble, 0: Siconos
  int skipped;     // 1: not run (note says why)
  int solved;      // our residual <= TOL
  double seconds;  // best of the repetitions
  double residual;
  int iters;
  int reps;
  int claimed;  // the solver's own verdict (ours: converged; Siconos: info == 0)
  int odd;      // Siconos claimed success at tol 1e-8 and failed our residual
  char note[200];
} Run;

typedef struct FileResult {
  char name[128];
  int kind;        // TB_FILE_FC3D / TB_FILE_LCP
  int validation;  // 1: from --validation (auto was not tuned on it), 0: the shared set
  int rows;
  int nrun;
  Run runs[MAXRUNS];
} FileResult;

typedef struct Args {
  const char* data;
  const char* validation;  // a second tree of fc3d/ and lcp/ files, or NULL
  const char* only;        // substring filter on file names
  int all;
  int reps;
  double guard;
} Args;

static FILE* md;  // the markdown (the real stdout)

//---- small helpers ----------------------------------------------------------------------------

static int cmpStr(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

// sorted regular-file names of dir (caller frees)
static int listDir(const char* dir, char** names, int max) {
  DIR* d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) && n < max) {
    if (e->d_name[0] == '.') continue;
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof(char*), cmpStr);
  return n;
}

static int endsWith(const char* s, const char* suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static int isSweep(int s) {
  return s == TB_SOLVER_PGS || s == TB_SOLVER_PROX_GS || s == TB_SOLVER_PROX_JACOBI;
}

static int isDense(int s) {
  return s == TB_SOLVER_MNCP_RLM || s == TB_SOLVER_MNCP_PLM || s == TB_SOLVER_NCP_DOGLEG ||
         s == TB_SOLVER_MLCP_FB_RLM || s == TB_SOLVER_MLCP_FB_PLM || s == TB_SOLVER_SOC_FB_PLM;
}

//---- the measurement: pilot (wall-clock guard), then best of the repetitions -------------------

// one run from x = 0 with iteration cap `cap`: returns seconds, sets x, *iters, *claimed
typedef double (*RunFn)(void* ctx, int cap, double* x, int* iters, int* claimed);

static void measure(RunFn fn, void* ctx, const tbProblem* p, int cap, int pilotable, const Args* a,
                    double* x, double* work, Run* out) {
  int it = 0, claimed = 0;
  out->note[0] = '\0';
  if (pilotable && cap > PILOT) {
    double t = fn(ctx, PILOT, x, &it, &claimed);
    double res = tb_residual(p, x, work);
    if (res > TOL && !claimed) {
      double per = t / (it > 0 ? it : PILOT);
      if (per * cap > a->guard) {
        int c = (int)(a->guard / per);
        cap = c > PILOT ? c : PILOT;
        snprintf(out->note, sizeof(out->note), "cap lowered to %d (%.0f s guard)", cap, a->guard);
      }
    }
  }
  double best = INFINITY;
  int reps = 0;
  for (int r = 0; r < a->reps || (best < TINY_S && r < TINY_REPS); r++) {
    double t = fn(ctx, cap, x, &it, &claimed);
    reps++;
    if (t < best) best = t;
    if (t >= FAST_S) break;
  }
  out->seconds = best;
  out->reps = reps;
  out->iters = it;
  out->claimed = claimed;
  out->residual = tb_residual(p, x, work);
  out->solved = out->residual <= TOL;
}

//---- ours --------------------------------------------------------------------------------------

typedef struct OurCtx {
  const tbProblem* p;
  int solver;
  tbSolverWork* w;
  int reason;  // tbtStop of the last run (-1: tb_solve refused)
} OurCtx;

static double ourRun(void* vctx, int cap, double* x, int* iters, int* claimed) {
  OurCtx* c = (OurCtx*)vctx;
  tbSolverOpt opt = tb_defaultSolverOpt();
  opt.tol = TOL;
  opt.max_iter = cap;
  memset(x, 0, sizeof(double) * (size_t)c->p->n);
  tbSolveResult r;
  memset(&r, 0, sizeof(r));
  double t0 = omp_get_wtime();
  int rc = tb_solveFile(c->solver, c->p, &opt, x, c->w, &r);
  double t = omp_get_wtime() - t0;
  *iters = r.iterations;
  *claimed = rc == TB_OK && r.converged;
  c->reason = rc == TB_OK ? r.reason : -1;
  return t;
}

static void runOurs(const tbFileProblem* fp, const tbProblem* p, int s, const Args* a, double* x,
                    double* work, Run* out) {
  memset(out, 0, sizeof(*out));
  snprintf(out->name, sizeof(out->name), "%s", tb_solverName(s));
  out->ours = 1;
  if (isDense(s) && s != TB_SOLVER_SOC_FB_PLM && p->n > DENSE_MAX && !a->all) {
    out->skipped = 1;
    snprintf(out->note, sizeof(out->note), "skipped (dense, n > %d)", DENSE_MAX);
    return;
  }
  if (!tb_fileSolverRuns(s, p)) {
    out->skipped = 1;
    snprintf(out->note, sizeof(out->note), "skipped (reads W dense; the file's is held sparse)");
    return;
  }
  int cap = isDense(s)             ? NEWTON_CAP
            : s == TB_SOLVER_LEMKE ? tb_defaultSolverOpt().max_iter
                                   : SWEEP_CAP;
  tbSolverWork* w = tb_newSolverWork(p->A ? s : TB_SOLVER_PGS, p->n, fp->ncontact, p->facets);
  if (!w) {
    out->skipped = 1;
    snprintf(out->note, sizeof(out->note), "out of memory");
    return;
  }
  OurCtx c = {p, s, w, 0};
  measure(ourRun, &c, p, cap, isSweep(s), a, x, work, out);
  static const char* const reasons[] = {"converged", "max-iter", "non-finite", "stalled",
                                        "ray",       "singular", "time"};
  if (!out->claimed) {
    size_t l = strlen(out->note);
    snprintf(out->note + l, sizeof(out->note) - l, "%sstop: %s", l ? "; " : "",
             c.reason >= 0 && c.reason <= 5 ? reasons[c.reason] : "refused");
  }
  tb_freeSolverWork(w);
}

//---- Siconos -----------------------------------------------------------------------------------

typedef struct SicSolver {
  const char* name;
  int id;
  int cap;  // 0: Siconos' default
  int pilotable;
  int ip, ipval;  // ip >= 0: iparam[ip] = ipval on top of the defaults
} SicSolver;

// NSGS twice: with Siconos' defaults (local solver ONECONTACT_NSN_GP_HYBRID, error evaluated
// "light" from the increments, full only at the end), and with the full error evaluated every
// sweep: the light estimate can stay above tol long after the iterate has converged (4.4 on
// Capsules-i101-404: the full run takes 100000 sweeps, the full-error one ~8300)
static const SicSolver kSicFC[] = {
    {"Siconos NSGS", SICONOS_FRICTION_3D_NSGS, SWEEP_CAP, 1, -1, 0},
    {"Siconos NSGS (full error)", SICONOS_FRICTION_3D_NSGS, SWEEP_CAP, 1,
     SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION, SICONOS_FRICTION_3D_NSGS_ERROR_EVALUATION_FULL},
    {"Siconos PROX", SICONOS_FRICTION_3D_PROX, SWEEP_CAP, 1, -1, 0},
    {"Siconos NSN_AC", SICONOS_FRICTION_3D_NSN_AC, 0, 0, -1, 0},
    {"Siconos NSN_FB", SICONOS_FRICTION_3D_NSN_FB, 0, 0, -1, 0},
};
static const SicSolver kSicLCP[] = {
    {"Siconos LEMKE", SICONOS_LCP_LEMKE, 0, 0, -1, 0},
    {"Siconos PGS", SICONOS_LCP_PGS, SWEEP_CAP, 1, -1, 0},
    {"Siconos NEWTON_FB_FBLSA", SICONOS_LCP_NEWTON_FB_FBLSA, 0, 0, -1, 0},
};
#define NSIC_FC ((int)(sizeof(kSicFC) / sizeof(kSicFC[0])))
#define NSIC_LCP ((int)(sizeof(kSicLCP) / sizeof(kSicLCP[0])))

typedef struct SicCtx {
  FrictionContactProblem* fc;
  LinearComplementarityProblem* lcp;
  const SicSolver* sv;
  int id;
  double tol;
  int n;
  double* vel;
} SicCtx;

static double sicRun(void* vctx, int cap, double* x, int* iters, int* claimed) {
  SicCtx* c = (SicCtx*)vctx;
  SolverOptions* o = solver_options_create(c->id);
  if (cap > 0) o->iparam[SICONOS_IPARAM_MAX_ITER] = cap;
  if (c->sv->ip >= 0) o->iparam[c->sv->ip] = c->sv->ipval;
  o->dparam[SICONOS_DPARAM_TOL] = c->tol;
  memset(x, 0, sizeof(double) * (size_t)c->n);
  memset(c->vel, 0, sizeof(double) * (size_t)c->n);
  double t0 = omp_get_wtime();
  int info =
      c->fc ? fc3d_driver(c->fc, x, c->vel, o) : linearComplementarity_driver(c->lcp, x, c->vel, o);
  double t = omp_get_wtime() - t0;
  *iters = o->iparam[SICONOS_IPARAM_ITER_DONE];
  *claimed = info == 0;
  solver_options_delete(o);
  return t;
}

// Siconos' problem for an FCLib file (no fclib in Debian's build): our W as a sparse block
// matrix with 3x3 blocks (the storage Siconos' own .dat files of these scenes use)
static FrictionContactProblem* sicFromFile(const tbFileProblem* fp) {
  int n = fp->n;
  tbProblem p = tb_fileProblemView(fp);  // W dense or held sparse: tb_entry reads either
  size_t nnz = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) nnz += tb_entry(&p, i, j) != 0.0;
  NumericsMatrix* T = NM_create(NM_SPARSE, n, n);
  NM_triplet_alloc(T, (CS_INT)(nnz > 0 ? nnz : 1));
  T->matrix2->origin = NSM_TRIPLET;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (tb_entry(&p, i, j) != 0.0)
        CSparseMatrix_entry(T->matrix2->triplet, i, j, tb_entry(&p, i, j));
  SparseBlockStructuredMatrix* sbm = SBM_new();
  if (SBM_from_csparse(3, NM_csc(T), sbm) != 0) return NULL;
  NM_free(T);
  NumericsMatrix* W = NM_new();
  NM_fill(W, NM_SPARSE_BLOCK, n, n, sbm);
  double* q = (double*)malloc(sizeof(double) * (size_t)n);
  double* mu = (double*)malloc(sizeof(double) * (size_t)fp->ncontact);
  memcpy(q, fp->q, sizeof(double) * (size_t)n);
  memcpy(mu, fp->mu, sizeof(double) * (size_t)fp->ncontact);
  return frictionContactProblem_new_with_data(3, fp->ncontact, W, q, mu);
}

// all of one Siconos solver's measurement on one file, in this (child) process
static void sicMeasure(const char* path, const tbFileProblem* fp, const tbProblem* p,
                       const SicSolver* sv, const Args* a, Run* out) {
  SicCtx c;
  memset(&c, 0, sizeof(c));
  c.id = sv->id;
  c.sv = sv;
  c.n = p->n;
  if (fp->kind == TB_FILE_FC3D) {
    c.fc = endsWith(path, ".hdf5") ? sicFromFile(fp) : frictionContact_new_from_filename(path);
    if (!c.fc) {
      snprintf(out->note, sizeof(out->note), "Siconos could not build the problem");
      out->skipped = 1;
      return;
    }
  } else {
    c.lcp = newLCP();
    linearComplementarity_newFromFilename(c.lcp, path);
  }
  double* x = (double*)calloc((size_t)p->n + 1, sizeof(double));
  double* work = (double*)calloc((size_t)p->n + 1, sizeof(double));
  c.vel = (double*)calloc((size_t)p->n + 1, sizeof(double));
  char odd[200] = "";
  for (c.tol = TOL; c.tol >= 0.99e-12; c.tol /= 10) {
    measure(sicRun, &c, p, sv->cap, sv->pilotable, a, x, work, out);
    if (out->solved || !out->claimed) break;
    if (c.tol == TOL) {
      out->odd = 1;
      double nr = 0, nq = 0;
      for (int i = 0; i < p->n; i++) nr += x[i] * x[i], nq += p->b[i] * p->b[i];
      snprintf(odd, sizeof(odd), "reports success at tol 1e-8, our residual %.2e (|r|/|q| %.2g)",
               out->residual, sqrt(nr / (nq > 0 ? nq : 1e-300)));
    }
  }
  char note[200];
  snprintf(note, sizeof(note), "%s%s%stol %.0e, info %s", out->note, out->note[0] ? "; " : "",
           odd[0] ? strcat(odd, "; ") : "", c.tol < 0.99e-12 ? 1e-12 : c.tol,
           out->claimed ? "0" : "!= 0");
  snprintf(out->note, sizeof(out->note), "%s", note);
}

// run sicMeasure in a child: a Siconos crash or abort is reported, not fatal
static void runSiconos(const char* path, const tbFileProblem* fp, const tbProblem* p,
                       const SicSolver* sv, const Args* a, Run* out) {
  memset(out, 0, sizeof(*out));
  snprintf(out->name, sizeof(out->name), "%s", sv->name);
  int fd[2];
  if (pipe(fd)) {
    out->skipped = 1;
    snprintf(out->note, sizeof(out->note), "pipe failed");
    return;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    alarm((unsigned)(10 * a->guard + 120));  // a runaway is killed (SIGALRM)
    Run r = *out;
    sicMeasure(path, fp, p, sv, a, &r);
    ssize_t wr = write(fd[1], &r, sizeof(r));
    _exit(wr == (ssize_t)sizeof(r) ? 0 : 1);
  }
  close(fd[1]);
  Run r;
  ssize_t got = pid > 0 ? read(fd[0], &r, sizeof(r)) : -1;
  close(fd[0]);
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  if (got == (ssize_t)sizeof(r)) {
    *out = r;
  } else {
    out->skipped = 1;
    if (pid > 0 && WIFSIGNALED(status)) {
      snprintf(out->note, sizeof(out->note), "crashed (signal %d%s)", WTERMSIG(status),
               WTERMSIG(status) == SIGALRM ? ": wall-clock kill" : "");
    } else {
      snprintf(out->note, sizeof(out->note), "no result (exit status %d)",
               WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
  }
}

//---- one file ----------------------------------------------------------------------------------

static int benchFile(const char* path, const char* name, const Args* a, FileResult* fr) {
  memset(fr, 0, sizeof(*fr));
  snprintf(fr->name, sizeof(fr->name), "%s", name);
  tbFileProblem fp;
  if (tb_readProblem(path, &fp) != TB_OK) {
    fprintf(stderr, "%s\n", tb_lastError());
    return 1;
  }
  tbProblem p = tb_fileProblemView(&fp);
  p.cone = TB_CONE_EXACT;
  p.facets = 8;
  fr->kind = fp.kind;
  fr->rows = p.n;
  double* x = (double*)calloc((size_t)p.n + 1, sizeof(double));
  double* work = (double*)calloc((size_t)p.n + 1, sizeof(double));
  for (int s = 0; s < TB_NSOLVER && fr->nrun < MAXRUNS; s++) {
    if (!tb_solverApplies(s, &p)) continue;
    Run* r = &fr->runs[fr->nrun++];
    fprintf(stderr, "  %-16s", tb_solverName(s));
    runOurs(&fp, &p, s, a, x, work, r);
    fprintf(stderr, " %s %.4f s res %.2e %s\n",
            r->skipped  ? "skip"
            : r->solved ? "ok  "
                        : "FAIL",
            r->seconds, r->residual, r->note);
  }
  const SicSolver* sv = fp.kind == TB_FILE_FC3D ? kSicFC : kSicLCP;
  int nsv = fp.kind == TB_FILE_FC3D ? NSIC_FC : NSIC_LCP;
  for (int k = 0; k < nsv && fr->nrun < MAXRUNS; k++) {
    Run* r = &fr->runs[fr->nrun++];
    fprintf(stderr, "  %-16s", sv[k].name);
    runSiconos(path, &fp, &p, &sv[k], a, r);
    fprintf(stderr, " %s %.4f s res %.2e %s\n",
            r->skipped  ? "skip"
            : r->solved ? "ok  "
                        : "FAIL",
            r->seconds, r->residual, r->note);
  }
  free(x);
  free(work);
  tb_freeFileProblem(&fp);
  return 0;
}

//---- the report --------------------------------------------------------------------------------

static const Run* findRun(const FileResult* fr, const char* name) {
  for (int k = 0; k < fr->nrun; k++)
    if (!strcmp(fr->runs[k].name, name)) return &fr->runs[k];
  return NULL;
}

// the fastest solved run of ours (ours = 1) or Siconos' (ours = 0), or NULL
static const Run* fastest(const FileResult* fr, int ours) {
  const Run* b = NULL;
  for (int k = 0; k < fr->nrun; k++) {
    const Run* r = &fr->runs[k];
    if (r->ours == ours && !r->skipped && r->solved && (!b || r->seconds < b->seconds)) b = r;
  }
  return b;
}

// the smallest residual of ours / Siconos' (for "none solved")
static const Run* closest(const FileResult* fr, int ours) {
  const Run* b = NULL;
  for (int k = 0; k < fr->nrun; k++) {
    const Run* r = &fr->runs[k];
    if (r->ours == ours && !r->skipped && (!b || r->residual < b->residual)) b = r;
  }
  return b;
}

static void fmtBest(const FileResult* fr, int ours, char* buf, size_t n) {
  const Run* b = fastest(fr, ours);
  if (b) {
    snprintf(buf, n, "%s, %.4g s", b->name, b->seconds);
    return;
  }
  const Run* c = closest(fr, ours);
  if (c) {
    snprintf(buf, n, "none (closest: %s, %.1e)", c->name, c->residual);
  } else {
    snprintf(buf, n, "none");
  }
}

static void printFileTable(const FileResult* fr, int nfile, int kind) {
  fprintf(md,
          "| file | rows | auto: seconds / residual | best of ours (name, seconds) | Siconos best "
          "(name, seconds) | Siconos best / auto |\n|---|---:|---|---|---|---:|\n");
  for (int f = 0; f < nfile; f++) {
    if (fr[f].kind != kind) continue;
    const Run* au = findRun(&fr[f], tb_solverName(TB_SOLVER_AUTO));
    const Run* sb = fastest(&fr[f], 0);
    char ours[96], sic[96], autos[96], ratio[48];
    fmtBest(&fr[f], 1, ours, sizeof(ours));
    fmtBest(&fr[f], 0, sic, sizeof(sic));
    if (au) {
      snprintf(autos, sizeof(autos), "%.4g s / %.1e%s", au->seconds, au->residual,
               au->solved ? "" : " **(not solved)**");
    } else {
      snprintf(autos, sizeof(autos), "n/a");
    }
    if (au && au->solved && sb) {
      snprintf(ratio, sizeof(ratio), "%.3g", sb->seconds / au->seconds);
    } else if (au && au->solved) {
      snprintf(ratio, sizeof(ratio), "inf (Siconos none)");
    } else {
      snprintf(ratio, sizeof(ratio), "-");
    }
    fprintf(md, "| %s | %d | %s | %s | %s | %s |\n", fr[f].name, fr[f].rows, autos, ours, sic,
            ratio);
  }
  fprintf(md, "\n");
}

static void printProfile(const FileResult* fr, int nfile) {
  // the solvers that ran on some FC3D file, in order of first appearance
  const char* names[MAXSOLVERS];
  int ns = 0, nprob = 0;
  for (int f = 0; f < nfile; f++) {
    if (fr[f].kind != TB_FILE_FC3D) continue;
    nprob++;
    for (int k = 0; k < fr[f].nrun; k++) {
      int seen = 0;
      for (int s = 0; s < ns; s++) seen |= !strcmp(names[s], fr[f].runs[k].name);
      if (!seen && ns < MAXSOLVERS) names[ns++] = fr[f].runs[k].name;
    }
  }
  if (!nprob) return;
  fprintf(md,
          "## Performance profile (FC3D, %d problems)\n\nFraction of the FC3D problems a solver "
          "solved to 1e-8 (our residual) within tau times the fastest time any solver took on "
          "that problem (Dolan & More 2002). A skipped or unsolved run counts as a failure.\n\n"
          "| solver |",
          nprob);
  for (int t = 0; t < NTAU; t++) fprintf(md, " tau = %g |", kTaus[t]);
  fprintf(md, " solved |\n|---|");
  for (int t = 0; t <= NTAU; t++) fprintf(md, "---:|");
  fprintf(md, "\n");
  for (int s = 0; s < ns; s++) {
    int within[NTAU] = {0}, solved = 0;
    for (int f = 0; f < nfile; f++) {
      if (fr[f].kind != TB_FILE_FC3D) continue;
      const Run* b0 = fastest(&fr[f], 0);
      const Run* b1 = fastest(&fr[f], 1);
      double best = INFINITY;
      if (b0) best = b0->seconds;
      if (b1 && b1->seconds < best) best = b1->seconds;
      const Run* r = findRun(&fr[f], names[s]);
      if (!r || r->skipped || !r->solved) continue;
      solved++;
      for (int t = 0; t < NTAU; t++) within[t] += r->seconds <= kTaus[t] * best;
    }
    fprintf(md, "| %s |", names[s]);
    for (int t = 0; t < NTAU; t++) fprintf(md, " %.2f |", (double)within[t] / nprob);
    fprintf(md, " %d/%d |\n", solved, nprob);
  }
  fprintf(md, "\n");
}

// the targets for one side: auto solves what any peer solves, and is at least as fast
// as Siconos' best
static void printSide(const FileResult* fr, int nfile, int validation, const char* what) {
  int nprob = 0, solved = 0, fast = 0, missed = 0;
  for (int f = 0; f < nfile; f++) {
    if (fr[f].validation != validation) continue;
    nprob++;
    const Run* au = findRun(&fr[f], tb_solverName(TB_SOLVER_AUTO));
    int any = 0;
    for (int k = 0; k < fr[f].nrun; k++) any |= fr[f].runs[k].solved;
    if (!au || !au->solved) {
      missed += any;
      continue;
    }
    solved++;
    const Run* sb = fastest(&fr[f], 0);
    fast += !sb || au->seconds <= sb->seconds;
  }
  if (!nprob) return;
  fprintf(md,
          "- %s (%d files): auto solved %d/%d to 1e-8; solved by another solver but not by auto: "
          "%d; auto at least as fast as Siconos' best on %d/%d (%.0f%%)\n",
          what, nprob, solved, nprob, missed, fast, nprob, 100.0 * fast / nprob);
}

static void printTargets(const FileResult* fr, int nfile) {
  fprintf(md, "## Targets (FC3D and LCP files)\n\n");
  printSide(fr, nfile, 0, "tuning side: the shared set, which auto's constants were chosen on");
  printSide(fr, nfile, 1, "validation side: --validation files, not used in tuning");
  fprintf(md, "\n");
}

static void printDetails(const FileResult* fr, int nfile) {
  fprintf(md,
          "## Every run\n\nseconds: best of the repetitions (reps); iters: the solver's own count "
          "(Siconos: iparam[ITER_DONE]); claimed: the solver's own verdict (ours: converged, "
          "Siconos: info == 0).\n\n");
  for (int f = 0; f < nfile; f++) {
    fprintf(md,
            "### %s (%d rows)\n\n| solver | solved | seconds | residual | iters | reps | claimed "
            "| note |\n|---|---|---:|---:|---:|---:|---|---|\n",
            fr[f].name, fr[f].rows);
    for (int k = 0; k < fr[f].nrun; k++) {
      const Run* r = &fr[f].runs[k];
      if (r->skipped) {
        fprintf(md, "| %s | - | - | - | - | - | - | %s |\n", r->name, r->note);
        continue;
      }
      fprintf(md, "| %s | %s | %.4g | %.2e | %d | %d | %s | %s%s |\n", r->name,
              r->solved ? "yes" : "**no**", r->seconds, r->residual, r->iters, r->reps,
              r->claimed ? "yes" : "no", r->odd ? "**odd**: " : "", r->note);
    }
    fprintf(md, "\n");
  }
}

static void printHeader(const Args* a, int argc, char** argv) {
  tbbMachine mc;
  tbb_machine(&mc);
  const char *date = mc.date, *cpu = mc.cpu, *nproc = mc.nproc, *commit = mc.commit;
  const char* load = mc.load;
  char sic[64];
  tbb_shellLine("dpkg-query -W -f='${Version}' libsiconos-numerics-dev 2>/dev/null", sic,
                sizeof(sic));
  char* real = realpath(a->data, NULL);
  const char* data = real ? real : a->data;
  fprintf(md, "# bench_solvers: tumble's solvers against Siconos numerics\n\n");
  fprintf(md, "- date: %s\n- machine: %s, nproc %s (load average at start: %s)\n", date, cpu, nproc,
          load);
  fprintf(md, "- commit: %s\n- Siconos numerics: %s\n- command: bench_solvers", commit,
          sic[0] ? sic : "unknown (libsiconos_numerics)");
  for (int i = 1; i < argc; i++) fprintf(md, " %s", argv[i]);
  fprintf(md,
          "\n- data: %s\n- tolerance 1e-8 on tumble's residual (tb_residual: natural map with "
          "the De Saxce term, relative to max(||q||, 1e-16)) for every answer, ours and "
          "Siconos'; caps: sweeps 100000 (ours: pgs, prox; auto's sweep budget; Siconos NSGS, "
          "PROX, LCP PGS), Newton/LM 200, Lemke and Siconos' Newton/Lemke their defaults; "
          "dense Newton/LM skipped above %d rows%s; timing best of %d when < %.1f s (of %d when < "
          "%.0f ms), wall-clock guard %.0f s per run\n\n",
          data, DENSE_MAX, a->all ? " (not: --all)" : "", a->reps, FAST_S, TINY_REPS, TINY_S * 1e3,
          a->guard);
  free(real);
}

//---- main --------------------------------------------------------------------------------------

static int parseArgs(int argc, char** argv, Args* a) {
  a->data = TUMBLE_DATA_DIR;
  a->validation = NULL;
  a->only = NULL;
  a->all = 0;
  a->reps = 3;
  a->guard = 60.0;
  for (int i = 1; i < argc; i++) {
    const char* s = argv[i];
    if (!strcmp(s, "--all")) {
      a->all = 1;
    } else if (i + 1 < argc && !strcmp(s, "--data")) {
      a->data = argv[++i];
    } else if (i + 1 < argc && !strcmp(s, "--validation")) {
      a->validation = argv[++i];
    } else if (i + 1 < argc && !strcmp(s, "--only")) {
      a->only = argv[++i];
    } else if (i + 1 < argc && !strcmp(s, "--reps")) {
      a->reps = atoi(argv[++i]);
    } else if (i + 1 < argc && !strcmp(s, "--guard")) {
      a->guard = atof(argv[++i]);
    } else {
      fprintf(stderr,
              "usage: bench_solvers [--all] [--data DIR] [--validation DIR] [--only SUBSTRING] "
              "[--reps N] [--guard SECONDS]\n");
      return 1;
    }
  }
  if (a->reps < 1) a->reps = 1;
  if (!(a->guard > 0)) a->guard = 60.0;
  return 0;
}

int main(int argc, char** argv) {
  Args a;
  if (parseArgs(argc, argv, &a)) return 2;
  // markdown to the real stdout; whatever the libraries print goes to stderr
  int mdfd = dup(1);
  dup2(2, 1);
  md = fdopen(mdfd, "w");
  if (!md) return 1;
  numerics_set_verbose(0);
  static FileResult fr[MAXFILES];
  int nfile = 0;
  const char* subs[2] = {"fc3d", "lcp"};
  printHeader(&a, argc, argv);
  fflush(md);
  double t0 = omp_get_wtime();
  const char* roots[2] = {a.data, a.validation};
  for (int side = 0; side < 2 && roots[side]; side++) {
    for (int d = 0; d < 2; d++) {
      char dir[1024];
      snprintf(dir, sizeof(dir), "%s/%s", roots[side], subs[d]);
      char* names[MAXFILES];
      int n = listDir(dir, names, MAXFILES);
      for (int i = 0; i < n; i++) {
        if ((!a.only || strstr(names[i], a.only)) && nfile < MAXFILES) {
          char path[2048];
          snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
          fprintf(stderr, "%s\n", path);
          if (!benchFile(path, names[i], &a, &fr[nfile])) fr[nfile++].validation = side;
        }
        free(names[i]);
      }
    }
  }
  if (!nfile) {
    fprintf(stderr, "no problem files under %s (fc3d/, lcp/)\n", a.data);
    return 1;
  }
  int nfc = 0, nlcp = 0;
  for (int f = 0; f < nfile; f++)
    nfc += fr[f].kind == TB_FILE_FC3D, nlcp += fr[f].kind == TB_FILE_LCP;
  if (nfc) {
    fprintf(md, "## FC3D files (%d)\n\n", nfc);
    printFileTable(fr, nfile, TB_FILE_FC3D);
    printProfile(fr, nfile);
  }
  if (nlcp) {
    fprintf(md, "## LCP files (%d)\n\n", nlcp);
    printFileTable(fr, nfile, TB_FILE_LCP);
  }
  printTargets(fr, nfile);
  printDetails(fr, nfile);
  fprintf(md, "Total wall time of the benchmark: %.0f s.\n", omp_get_wtime() - t0);
  fclose(md);
  return 0;
}
