// Command line: `tumble plate optimize ...`, designing plate motions (thesis ch. 6): Nelder-Mead
// and CMA-ES (host/jobs/optimize.c) on the trajectory objective of host/jobs/plate_objective.c,
// then the histories, their plot, the best motion and its field.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cairo.h>

#include <tumble/optimize.h>
#include <tumble/plate.h>
#include <tumble/scenes.h>
#include <tumble/version.h>

#include "math/tb_math.h"

#include "cli/cli.h"
#include "plot/plot.h"

typedef struct tbOptRun {
  const char* name;  // "nelder-mead" or "cmaes"
  tbPlateObj* ob;
  tbCallMemo* memo;
  tbOptimTrace* hist;
  int nhist, cap, oom;
  double last_print;
  int tty;
  double x[12];
  tbOptimResult res;
  double best;  // min(res.f, the start's value)
  int rc;
} tbOptRun;

// The journal of a search (PREFIX.journal): every objective call's values (tbCallMemo). The
// optimizers are deterministic, so a resumed search makes the same calls in the same order: the
// journal answers them until it runs out, and the search goes on from there with the rollouts
// it has not done. n candidates' values: from the journal, else computed and journaled
static int tb_memoObjective(tbCallMemo* mo, tbPlateObj* ob, int n, const double* x, double* f) {
  size_t xbytes = sizeof(double) * (size_t)n * tb_plateObjOpt(ob)->dim;
  size_t fbytes = sizeof(double) * (size_t)n;
  int got = tb_memoLookup(mo, x, xbytes, f, fbytes);
  if (got) return got < 0;
  if (tb_plateObjective(ob, n, x, f)) return 1;
  return tb_memoKeep(mo, x, xbytes, f, fbytes) != 0;
}

static int tb_runObjective(void* ctx, int n, const double* x, double* f) {
  tbOptRun* r = (tbOptRun*)ctx;
  return tb_memoObjective(r->memo, r->ob, n, x, f);
}

static void tb_runProgress(void* ctx, int iter, int evals, double best, double seconds) {
  tbOptRun* r = (tbOptRun*)ctx;
  if (r->nhist == r->cap && !r->oom) {
    int cap = r->cap ? 2 * r->cap : 256;
    tbOptimTrace* h = (tbOptimTrace*)realloc(r->hist, sizeof(tbOptimTrace) * (size_t)cap);
    if (h) {
      r->hist = h;
      r->cap = cap;
    } else {
      r->oom = 1;
    }
  }
  if (r->nhist < r->cap) {
    tbOptimTrace t = {iter, evals, best, seconds};
    r->hist[r->nhist++] = t;
  }
  // on a terminal only: the run's closing line says the same in a log
  if (r->tty && (seconds - r->last_print >= 0.5 || iter == 0)) {
    r->last_print = seconds;
    fprintf(stderr,
            "\rtumble: plate optimize: %s: iteration %d, %d evaluations, best %.6g (%.4g cm)"
            ", %.3g evaluations/s, %.1f s   ",
            r->name, iter, evals, best, 100.0 * best, seconds > 0 ? evals / seconds : 0.0, seconds);
    fflush(stderr);
  }
}

static const char* tb_stopName(int reason) {
  switch (reason) {
    case TB_OPTIM_CONVERGED:
      return "converged";
    case TB_OPTIM_MAXEVALS:
      return "evaluations";
    case TB_OPTIM_TIME:
      return "time";
    case TB_OPTIM_ABORTED:
      return "aborted";
    case TB_OPTIM_MAXITER:
      return "iterations";
    case TB_OPTIM_STALLED:
      return "stalled";
    case TB_OPTIM_INTERRUPTED:
      return "interrupted";
    default:
      return "error";
  }
}

// objective (cm units, log scale) against wall time, one line per run
static int tb_plotHistory(FILE* f, const char* title, const tbOptRun* run, int nrun) {
  const int width = 900, height = 600;
  double left = 90, right = 30, top = 50, bottom = 70;
  double pw = width - left - right, ph = height - top - bottom;
  double tmax = 0.0, flo = INFINITY, fhi = -INFINITY;
  for (int r = 0; r < nrun; r++) {
    for (int i = 0; i < run[r].nhist; i++) {
      double f = 100.0 * run[r].hist[i].best;
      if (!(f > 0.0) || !isfinite(f)) continue;
      tmax = fmax(tmax, run[r].hist[i].seconds);
      flo = fmin(flo, f);
      fhi = fmax(fhi, f);
    }
  }
  if (!(tmax > 0.0)) tmax = 1.0;
  if (!isfinite(flo)) flo = fhi = 1.0;
  double l0 = floor(log10(flo)), l1 = ceil(log10(fhi));
  if (l1 <= l0) l1 = l0 + 1.0;
  cairo_surface_t* sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_t* cr = cairo_create(sf);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
#define TB_HX(t) (left + (t) / tmax * pw)
#define TB_HY(f) (top + (l1 - log10(f)) / (l1 - l0) * ph)
  char buf[64];
  cairo_set_font_size(cr, 12);
  cairo_set_line_width(cr, 1);
  for (double e = l0; e <= l1 + 1e-9; e += 1.0) {
    double y = TB_HY(pow(10.0, e));
    cairo_set_source_rgba(cr, 0, 0, 0, 0.1);
    cairo_move_to(cr, left, y);
    cairo_line_to(cr, left + pw, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    snprintf(buf, sizeof(buf), "%g", pow(10.0, e));
    tb_plotText(cr, left - 8, y, 1.0, 0.5, buf);
  }
  double step = tb_plotNiceStep(tmax, 8);
  for (double t = 0.0; t <= tmax * (1 + 1e-9); t += step) {
    double x = TB_HX(t);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.1);
    cairo_move_to(cr, x, top);
    cairo_line_to(cr, x, top + ph);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    snprintf(buf, sizeof(buf), "%g", t);
    tb_plotText(cr, x, top + ph + 8, 0.5, 0.0, buf);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1.5);
  cairo_rectangle(cr, left, top, pw, ph);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 14);
  tb_plotText(cr, left + 0.5 * pw, height - 20, 0.5, 1.0, "wall time (s)");
  cairo_save(cr);
  cairo_translate(cr, 30, top + 0.5 * ph);
  cairo_rotate(cr, -TB_PI / 2);
  tb_plotText(cr, 0, 0, 0.5, 0.5, "best objective (cm units: 100 x the SI value)");
  cairo_restore(cr);
  cairo_set_font_size(cr, 16);
  cairo_move_to(cr, left, 0.6 * top);
  cairo_show_text(cr, title);
  static const double col[2][3] = {{0.12, 0.47, 0.71}, {0.85, 0.37, 0.0}};
  cairo_save(cr);
  cairo_rectangle(cr, left, top, pw, ph);
  cairo_clip(cr);
  cairo_set_line_width(cr, 2.0);
  for (int r = 0; r < nrun; r++) {
    cairo_set_source_rgb(cr, col[r % 2][0], col[r % 2][1], col[r % 2][2]);
    int started = 0;
    double prev = 0.0;
    for (int i = 0; i < run[r].nhist; i++) {
      double f = 100.0 * run[r].hist[i].best;
      if (!(f > 0.0) || !isfinite(f)) continue;
      double x = TB_HX(run[r].hist[i].seconds), y = TB_HY(f);
      if (!started) {
        cairo_move_to(cr, x, y);
        started = 1;
      } else {
        cairo_line_to(cr, x, prev);  // the best so far is a staircase
        cairo_line_to(cr, x, y);
      }
      prev = y;
    }
    cairo_stroke(cr);
  }
  cairo_restore(cr);
  cairo_set_font_size(cr, 13);
  for (int r = 0; r < nrun; r++) {
    double y = top + 20 + 20 * r, x = left + pw - 220;
    cairo_set_source_rgb(cr, col[r % 2][0], col[r % 2][1], col[r % 2][2]);
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x + 30, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    snprintf(buf, sizeof(buf), "%s: %.4g (cm units)", run[r].name, 100.0 * run[r].best);
    cairo_move_to(cr, x + 38, y + 4);
    cairo_show_text(cr, buf);
  }
#undef TB_HX
#undef TB_HY
  return tb_plotFinishPng(cr, sf, f);
}

typedef struct tbOptArgs {
  const char* target;
  int target_kind;
  int nm, cma;  // which optimizers
  const char* optimizer;
  int starts;
  double budget;
  long evals;
  double dt, horizon, mu;
  const char* out;
  double* table;
  int npoint;
  int resume;
} tbOptArgs;

static int tb_parseOptimize(int argc, char** argv, tbOptArgs* a) {
  memset(a, 0, sizeof(*a));
  a->optimizer = "nelder-mead";
  a->nm = 1;
  a->starts = 4;
  a->budget = 60.0;
  a->evals = 100000;
  a->dt = 5e-4;
  a->horizon = 6.0;
  a->mu = 0.5;
  a->out = "plate-optimize";
  for (int i = 0; i < argc; i++) {
    const char* arg = argv[i];
    const char* val = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = 0;
    if (!strcmp(arg, "--resume")) {
      a->resume = 1;
      continue;
    }
    if (tb_optionValue(arg, val)) return 2;
    i++;
    if (!strcmp(arg, "--target")) {
      a->target = val;
    } else if (!strcmp(arg, "--optimizer")) {
      if (!strcmp(val, "nelder-mead")) {
        a->nm = 1;
        a->cma = 0;
      } else if (!strcmp(val, "cmaes")) {
        a->nm = 0;
        a->cma = 1;
      } else if (!strcmp(val, "both")) {
        a->nm = a->cma = 1;
      } else {
        return tb_cliError("--optimizer %s: expected nelder-mead, cmaes or both", val);
      }
      a->optimizer = val;
    } else if (!strcmp(arg, "--starts")) {
      long k;
      rc = tb_parseInt(arg, val, 1, 4096, &k);
      a->starts = (int)k;
    } else if (!strcmp(arg, "--budget")) {
      rc = tb_parseNumber(arg, val, &a->budget);
      if (!rc && !(a->budget > 0.0 && a->budget <= 1e6))
        return tb_cliError("--budget %s: must be in (0, 1e6] (s)", val);
    } else if (!strcmp(arg, "--evals")) {
      rc = tb_parseInt(arg, val, 1, 100000000, &a->evals);
    } else if (!strcmp(arg, "--dt")) {
      rc = tb_parseNumber(arg, val, &a->dt);
      if (!rc && !(a->dt > 0.0 && a->dt <= 0.25))
        return tb_cliError("--dt %s: must be in (0, 0.25] (s)", val);
      if (!rc) {  // at least the shortest step of the objective's scene (tb_minStep)
        tbBuild b = tb_defaultBuild(tb_findScene("plate-particle"));
        tbModel* m = tb_buildPlateScene(0, TB_DRIVER_PLATE, &b);
        rc = m ? tb_cliCheckStep(arg, val, m, a->dt) : tb_cliError("%s", tb_lastError());
        tb_freeModel(m);
      }
    } else if (!strcmp(arg, "--horizon")) {
      rc = tb_parseNumber(arg, val, &a->horizon);
      if (!rc && !(a->horizon >= 0.25 && a->horizon <= 1e4))
        return tb_cliError("--horizon %s: must be in [0.25, 1e4] (s, one sample every 0.25 s)",
                           val);
    } else if (!strcmp(arg, "--mu")) {
      rc = tb_parseNumber(arg, val, &a->mu);
      if (!rc && !(a->mu >= 0.0 && a->mu <= 1e3))
        return tb_cliError("--mu %s: must be in [0, 1000]", val);
    } else {
      rc = tb_parseBatchOption("plate optimize", arg, val, &a->out);
      if (rc < 0) return tb_unknownOption("plate optimize", arg, tb_plateUsage);
    }
    if (rc) return rc;
  }
  if (!a->target) return tb_cliError("--target: required (circle, saddle or a CSV file)");
  if (!strcmp(a->target, "circle")) {
    a->target_kind = TB_PLATE_TARGET_CIRCLE;
  } else if (!strcmp(a->target, "saddle")) {
    a->target_kind = TB_PLATE_TARGET_SADDLE;
  } else {
    a->target_kind = TB_PLATE_TARGET_TABLE;
    int rc = tb_readPlateTable(a->target, &a->table, &a->npoint);
    if (rc < 0) {
      return tb_cliError("--target %s: unknown target (circle, saddle, or a readable CSV file)",
                         a->target);
    }
    if (rc) return tb_cliError("--target %s", tb_lastError());
  }
  return 0;
}

static void tb_writeHistoryCSV(FILE* f, const tbOptRun* r) {
  fprintf(f, "iteration,evaluations,seconds,best,best_cm\n");
  for (int i = 0; i < r->nhist; i++) {
    const tbOptimTrace* t = &r->hist[i];
    fprintf(f, "%d,%d,%.6f,%.17g,%.17g\n", t->iter, t->evals, t->seconds, t->best, 100.0 * t->best);
  }
}

// the files of PREFIX, opened before the search and committed together: the runs' histories,
// the plot, the best motion and its field
typedef struct tbOptOut {
  tbOutFile hist[2], plot, best;
  tbFieldOut field;
} tbOptOut;

static int tb_openOptimizeOutputs(tbOptOut* out, const char* prefix, const tbOptRun* run,
                                  int nrun) {
  memset(out, 0, sizeof(*out));
  char path[4200];
  int rc = 0;
  for (int r = 0; r < nrun && !rc; r++) {
    snprintf(path, sizeof(path), "%s-%s.csv", prefix, run[r].name);
    rc = tb_cliOutOpen(&out->hist[r], "--out", path);
  }
  snprintf(path, sizeof(path), "%s.png", prefix);
  if (!rc) rc = tb_cliOutOpen(&out->plot, "--out", path);
  snprintf(path, sizeof(path), "%s-best.csv", prefix);
  if (!rc) rc = tb_cliOutOpen(&out->best, "--out", path);
  snprintf(path, sizeof(path), "%s-field", prefix);
  if (!rc) rc = tb_fieldOutOpen(&out->field, path);
  return rc;
}

static void tb_abortOptimizeOutputs(tbOptOut* out) {
  tb_outAbort(&out->hist[0]);
  tb_outAbort(&out->hist[1]);
  tb_outAbort(&out->plot);
  tb_outAbort(&out->best);
  tb_fieldOutAbort(&out->field);
}

// the journal PREFIX.journal of the search a names (every option that changes a call's values:
// not the budget nor the evaluations, which only end the search sooner or later)
static int tb_openMemo(tbCallMemo* mo, const tbOptArgs* a, const tbPlateObjOpt* o) {
  char key[1024], path[4200];
  unsigned long long table = tb_journalHash(o->point, sizeof(double) * 4 * (size_t)o->npoint);
  snprintf(key, sizeof(key),
           "plate optimize %s %s target %d %llx optimizer %d %d starts %d horizon %.17g dt %.17g "
           "mu %.17g device %s",
           TUMBLE_VERSION, TUMBLE_COMMIT, a->target_kind, table, a->nm, a->cma, o->nstart,
           o->horizon, o->dt, o->mu, tb_studyDevice());
  snprintf(path, sizeof(path), "%s.journal", a->out);
  int rc = tb_memoOpen(mo, path, key, a->resume);
  // the searches' calls are known only as they go: the count alone
  if (!rc && a->resume) tb_journalSayResumed("plate optimize", "evaluation", mo->ncall, -1, path);
  return rc;
}

int tb_plateOptimizeMain(int argc, char** argv) {
  tbOptArgs a;
  int rc = tb_parseOptimize(argc, argv, &a);
  if (rc) {
    free(a.table);
    return rc;
  }
  double x0[12];
  tbPlateObjOpt oo = tb_defaultPlateObjOpt(a.target_kind, x0);
  oo.nstart = a.starts;
  oo.horizon = a.horizon;
  oo.dt = a.dt;
  oo.mu = a.mu;
  oo.point = a.table;
  oo.npoint = a.npoint;
  tbPlateObj* ob = tb_newPlateObj(&oo);
  free(a.table);
  a.table = NULL;
  if (!ob) return tb_cliError("%s", tb_lastError());
  const tbPlateObjOpt* o = tb_plateObjOpt(ob);
  int dim = o->dim;
  double lo[12], hi[12], step[12], start_f;
  tb_plateSearchBox(o, x0, lo, hi, step);
  tbOptRun run[2];
  int nrun = 0;
  memset(run, 0, sizeof(run));
  if (a.nm) run[nrun++].name = "nelder-mead";
  if (a.cma) run[nrun++].name = "cmaes";
  int tty = isatty(fileno(stderr));
  tbCallMemo memo;
  memset(&memo, 0, sizeof(memo));
  tbOptOut out;
  if ((rc = tb_openOptimizeOutputs(&out, a.out, run, nrun)) || (rc = tb_openMemo(&memo, &a, o))) {
    tb_abortOptimizeOutputs(&out);
    tb_memoClose(&memo, 0);
    tb_freePlateObj(ob);
    return rc;
  }
  if (tb_memoObjective(&memo, ob, 1, x0, &start_f)) {
    tb_abortOptimizeOutputs(&out);
    tb_memoClose(&memo, 0);
    tb_freePlateObj(ob);
    return memo.failed ? 2 : tb_cliError("%s", tb_lastError());
  }
  fprintf(stderr,
          "tumble: plate optimize: target %s, %d parameters, %d starts, horizon %g s, "
          "h %g s: start objective %.6g (%.4g cm)\n",
          a.target, dim, o->nstart, o->horizon, o->dt, start_f, 100.0 * start_f);
  int ibest = -1, interrupted = 0;
  tb_catchInterrupt();
  for (int r = 0; r < nrun && !interrupted; r++) {
    tbOptRun* R = &run[r];
    R->ob = ob;
    R->memo = &memo;
    R->tty = tty;
    R->last_print = -1e9;
    tbOptimDef def = tb_defaultOptimDef(dim);
    def.x0 = x0;
    def.step = step;
    def.lo = lo;
    def.hi = hi;
    def.max_evals = (int)a.evals;
    def.max_seconds = a.budget;
    def.progress = tb_runProgress;
    int st = !strcmp(R->name, "cmaes") ? tb_cmaes(&def, tb_runObjective, R, R->x, &R->res)
                                       : tb_nelderMead(&def, tb_runObjective, R, R->x, &R->res);
    if (tty) fputc('\n', stderr);
    if (st < 0 || st == TB_OPTIM_ABORTED) {
      for (int q = 0; q < nrun; q++) free(run[q].hist);
      tb_abortOptimizeOutputs(&out);
      tb_memoClose(&memo, 0);
      tb_freePlateObj(ob);
      if (memo.failed) return 2;
      return tb_cliError(
          "%s: %s", R->name,
          st == TB_OPTIM_ABORTED ? tb_lastError() : "bad definition or out of memory");
    }
    R->best = R->res.f;
    if (!(R->res.f <= start_f)) {  // the start is kept when nothing evaluated beat it
      R->best = start_f;
      memcpy(R->x, x0, sizeof(double) * (size_t)dim);
    }
    fprintf(stderr,
            "tumble: plate optimize: %s: stopped (%s) after %d iterations, %d evaluations, "
            "%.1f s: best %.6g (%.4g cm)\n",
            R->name, tb_stopName(R->res.reason), R->res.iterations, R->res.evaluations,
            R->res.seconds, R->best, 100.0 * R->best);
    if (ibest < 0 || R->best < run[ibest].best) ibest = r;
    interrupted = R->res.reason == TB_OPTIM_INTERRUPTED;
    if (interrupted) nrun = r + 1;  // the runs not started write nothing
  }
  const tbOptRun* B = &run[ibest];
  double p12[12];
  tb_plateObjParams(ob, B->x, p12);

  // outputs
  char title[160];
  tbFieldResult fr;
  memset(&fr, 0, sizeof(fr));
  for (int r = 0; r < nrun; r++) tb_writeHistoryCSV(out.hist[r].f, &run[r]);
  snprintf(title, sizeof(title), "plate optimize: %s, %d starts, %g s, h %g s", a.target, o->nstart,
           o->horizon, o->dt);
  if (tb_plotHistory(out.plot.f, title, run, nrun)) {
    rc = tb_cliPlotFailed(&out.plot);
    goto done;
  }
  FILE* best = out.best.f;
  fprintf(best, "name,value\n");
  for (int c = 0; c < 12; c++) fprintf(best, "%s,%.17g\n", tb_pname[c], p12[c]);
  fprintf(best, "omega,%.17g\nobjective,%.17g\nobjective_cm,%.17g\n", o->omega, B->best,
          100.0 * B->best);
  // the field of the best motion
  tbPlateMotion mo;
  memset(&mo, 0, sizeof(mo));
  char mname[64];
  snprintf(mname, sizeof(mname), "optimized (%s)",
           a.target_kind == TB_PLATE_TARGET_TABLE ? "table" : a.target);
  mo.name = mname;
  mo.doc = "";
  mo.driver = TB_DRIVER_PLATE;
  memcpy(mo.amp, p12, sizeof(mo.amp));
  memcpy(mo.phase, p12 + 6, sizeof(mo.phase));
  mo.omega = o->omega;
  tbFieldOpt fo = tb_defaultFieldOpt();
  fo.nx = fo.ny = 9;
  fo.extent = 0.05;
  if (a.target_kind == TB_PLATE_TARGET_CIRCLE) fo.extent = 0.08;
  if (a.target_kind == TB_PLATE_TARGET_TABLE) {
    double e = 0.0;
    for (int i = 0; i < o->npoint; i++) {
      e = fmax(e, fmax(fabs(o->point[4 * i]), fabs(o->point[4 * i + 1])));
    }
    if (e > 0.0) fo.extent = e;
  }
  fo.seconds = o->horizon;
  fo.dt = o->dt;
  fo.mu = o->mu;
  fo.progress = 1;
  // after Ctrl-C the best motion so far is written, without its field
  if (!interrupted) {
    int st = tb_plateField(&mo, &fo, &fr);
    interrupted = st == TB_INTERRUPTED;
    if (st != TB_OK && !interrupted) {
      rc = tb_cliError("%s", tb_lastError());
      goto done;
    }
    if ((rc = tb_fieldOutWrite(&out.field, &mo, 0, &fo, &fr))) goto done;
  }
  // the runs not started (after Ctrl-C) and the field not computed are left out, and an earlier
  // run's files of theirs removed: they would pair with another best
  tbOutFile* files[6] = {&out.plot,    &out.best,        &out.hist[0],
                         &out.hist[1], &out.field.table, &out.field.png};
  int ncommit = interrupted ? 2 + nrun : 6;
  if ((rc = tb_cliOutCommitAll("--out", files, ncommit))) goto done;
  for (int k = ncommit; k < 6; k++) {
    if (tb_outRetire(files[k]))
      fprintf(stderr, "tumble: plate optimize: note: %s removed: an earlier run's, not this one's\n",
              files[k]->path);
  }

  // the summary
  {
    char num[4][40];
    tb_jsonNumber(num[0], sizeof(num[0]), "%.10g", B->best);
    tb_jsonNumber(num[1], sizeof(num[1]), "%.10g", 100.0 * B->best);
    tb_jsonNumber(num[2], sizeof(num[2]), "%.10g", start_f);
    tb_jsonNumber(num[3], sizeof(num[3]), "%.10g", 100.0 * start_f);
    int iters = 0, evals = 0;
    double secs = 0.0;
    for (int r = 0; r < nrun; r++) {
      iters += run[r].res.iterations;
      evals += run[r].res.evaluations;
      secs += run[r].res.seconds;
    }
    tbJsonPath j;  // the target (a file's path) and the prefix
    printf(
        "{\"target\": \"%s\", \"optimizer\": \"%s\", \"best_optimizer\": \"%s\", \"best\": %s, "
        "\"best_cm\": %s, \"start\": %s, \"start_cm\": %s, \"iterations\": %d, "
        "\"evaluations\": %d, \"seconds\": %.3f, \"starts\": %d, \"horizon\": %g, \"dt\": %g, "
        "\"mu\": %g, \"threads\": %d, \"runs\": {",
        tb_jsonPath(&j, a.target), a.optimizer, B->name, num[0], num[1], num[2], num[3], iters,
        evals, secs, o->nstart, o->horizon, o->dt, o->mu, omp_get_max_threads());
    for (int r = 0; r < nrun; r++) {
      tb_jsonNumber(num[0], sizeof(num[0]), "%.10g", run[r].best);
      tb_jsonNumber(num[1], sizeof(num[1]), "%.10g", 100.0 * run[r].best);
      printf(
          "%s\"%s\": {\"best\": %s, \"best_cm\": %s, \"iterations\": %d, \"evaluations\": %d, "
          "\"seconds\": %.3f, \"stop\": \"%s\"}",
          r ? ", " : "", run[r].name, num[0], num[1], run[r].res.iterations, run[r].res.evaluations,
          run[r].res.seconds, tb_stopName(run[r].res.reason));
    }
    printf("}, \"params\": {");
    for (int c = 0; c < 12; c++) printf("%s\"%s\": %.10g", c ? ", " : "", tb_pname[c], p12[c]);
    printf("}, \"partial\": %s, \"prefix\": \"%s\"}\n", interrupted ? "true" : "false",
           tb_jsonPath(&j, a.out));
  }
  if (interrupted) {
    tb_cliError("interrupted: the best motion so far written as a partial result");
    rc = 130;
  }
done:
  // a whole search needs no journal; an interrupted or failed one keeps it for --resume
  tb_memoClose(&memo, rc == 0);
  tb_abortOptimizeOutputs(&out);
  tb_freeFieldResult(&fr);
  for (int r = 0; r < nrun; r++) free(run[r].hist);
  tb_freePlateObj(ob);
  return rc;
}
