// Monte Carlo sweep utilities: offset grid, draw keys, tallies, Wilson intervals, progress, Ctrl-C,
// CSV.
//
// Wilson score interval (Wilson 1927; Brown, Cai & DasGupta 2001, Eq. 4): for k successes in n
// trials, p = k/n and z the 97.5% normal quantile,
//   centre = (p + z^2/(2n)) / (1 + z^2/n)
//   half   = z sqrt(p (1 - p)/n + z^2/(4 n^2)) / (1 + z^2/n)
// It stays inside [0, 1] and keeps its coverage near p = 0 and 1, where the Wald interval
// collapses to a point (a cell with 30 successes out of 30 is [0.887, 1], not [1, 1]).
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tumble/sweep.h>
#include <tumble/tumble.h>

#include "math/rng.h"

#include "util/csv.h"
#include "util/error.h"
#include "util/number.h"
#include "jobs/outfile.h"

//---- grid and keys -----------------------------------------------------------------------------

void tb_sweepOffset(const tbSweepGrid* g, int cell, double xy[2]) {
  int ix = cell % g->nx, iy = cell / g->nx;
  // -E/2 + E i/(n-1) written as E (2i - (n-1)) / (2(n-1)): the same value, but mirrored cells
  // get exactly opposite offsets about the centre and the centre cell exactly the centre
  xy[0] = g->nx > 1 ? g->extent_x * (2 * ix - (g->nx - 1)) / (2.0 * (g->nx - 1)) : 0.0;
  xy[1] = g->ny > 1 ? g->extent_y * (2 * iy - (g->ny - 1)) / (2.0 * (g->ny - 1)) : 0.0;
  xy[0] += g->center_x;
  xy[1] += g->center_y;
}

uint64_t tb_sweepKey(int cell, int trial) {
  return ((uint64_t)(uint32_t)cell << 32) | (uint64_t)(uint32_t)trial;
}

void tb_wilson(long k, long n, double* lo, double* hi) {
  if (n <= 0) {
    *lo = 0.0;
    *hi = 1.0;
    return;
  }
  const double z = 1.959963984540054;
  double nn = (double)n, p = (double)k / nn, z2 = z * z;
  double den = 1.0 + z2 / nn;
  double centre = (p + z2 / (2.0 * nn)) / den;
  double half = z * sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn)) / den;
  // k = 0 and k = n touch the bounds exactly; round-off must not push them outside
  *lo = k <= 0 ? 0.0 : fmax(0.0, centre - half);
  *hi = k >= n ? 1.0 : fmin(1.0, centre + half);
}

//---- tally -------------------------------------------------------------------------------------

int tb_newTally(tbSweepTally* t, int ncell) {
  memset(t, 0, sizeof(*t));
  if (ncell < 1) return tb_setError("tally: ncell %d must be >= 1", ncell);
  t->success = (long*)calloc((size_t)ncell, sizeof(long));
  t->valid = (long*)calloc((size_t)ncell, sizeof(long));
  t->failed = (long*)calloc((size_t)ncell, sizeof(long));
  if (!t->success || !t->valid || !t->failed) {
    tb_freeTally(t);
    tb_setError("tally: out of memory for %d cells", ncell);
    return TB_ERR_MEMORY;
  }
  t->ncell = ncell;
  return TB_OK;
}

void tb_freeTally(tbSweepTally* t) {
  free(t->success);
  free(t->valid);
  free(t->failed);
  memset(t, 0, sizeof(*t));
}

void tb_tallyAdd(tbSweepTally* t, int cell, int failed, int success) {
  if (failed) {
    t->failed[cell]++;
    return;
  }
  t->valid[cell]++;
  if (success) t->success[cell]++;
}

void tb_tallySum(const tbSweepTally* t, long* success, long* valid, long* failed) {
  long s = 0, v = 0, f = 0;
  for (int c = 0; c < t->ncell; c++) {
    s += t->success[c];
    v += t->valid[c];
    f += t->failed[c];
  }
  if (success) *success = s;
  if (valid) *valid = v;
  if (failed) *failed = f;
}

void tb_tallyProbability(const tbSweepTally* t, double* p) {
  for (int c = 0; c < t->ncell; c++) {
    p[c] = t->valid[c] > 0 ? (double)t->success[c] / (double)t->valid[c] : NAN;
  }
}

//---- progress ----------------------------------------------------------------------------------

double tb_progressElapsed(const tbProgress* p) {
  return tb_clock() - p->t0;
}

// "12.3 s", "4 min 05 s" or "1 h 02 min"
static void tb_duration(double s, char* buf, size_t n) {
  if (!(s >= 0.0) || !isfinite(s)) {
    snprintf(buf, n, "?");
  } else if (s < 60.0) {
    snprintf(buf, n, "%.1f s", s);
  } else if (s < 3600.0) {
    long k = (long)(s + 0.5);
    snprintf(buf, n, "%ld min %02ld s", k / 60, k % 60);
  } else {
    long k = (long)(s / 60.0 + 0.5);
    snprintf(buf, n, "%ld h %02ld min", k / 60, k % 60);
  }
}

#define TB_BARLEN 30
// seconds between redraws
#define TB_PROGRESS_PERIOD 0.25

// done so far: what the job confirmed, or the scenes its rollouts finished since, if more
static long tb_progressDone(const tbProgress* p) {
  long done = __atomic_load_n(&p->done, __ATOMIC_RELAXED);
  long scenes = __atomic_load_n(&p->scenes, __ATOMIC_RELAXED);
  done = scenes > done ? scenes : done;
  return done < p->total ? done : p->total;
}

static void tb_progressLine(const tbProgress* p) {
  double el = tb_clock() - p->t0;
  long done = tb_progressDone(p);
  double rate = el > 0.0 ? done / el : 0.0;
  double frac = p->total > 0 ? (double)done / p->total : 1.0;
  char eta[32], bar[TB_BARLEN + 1];
  tb_duration(rate > 0.0 ? (p->total - done) / rate : NAN, eta, sizeof(eta));
  int fill = (int)(frac * TB_BARLEN);
  for (int i = 0; i < TB_BARLEN; i++) bar[i] = i < fill ? '#' : '-';
  bar[TB_BARLEN] = 0;
  // trailing spaces wipe what a longer previous line left behind
  fprintf(p->out, "\rtumble: %s [%s] %ld/%ld %3.0f%%  %.4g %s/s  ETA %s   ", p->what, bar, done,
          p->total, 100.0 * frac, rate, p->unit, eta);
  fflush(p->out);
}

// the drawing thread: a redraw every TB_PROGRESS_PERIOD until tb_progressFinish
static void* tb_progressThread(void* arg) {
  tbProgress* p = (tbProgress*)arg;
  struct timespec period = {0, (long)(TB_PROGRESS_PERIOD * 1e9)};
  while (__atomic_load_n(&p->running, __ATOMIC_ACQUIRE)) {
    tb_progressLine(p);
    nanosleep(&period, NULL);
  }
  return NULL;
}

void tb_progressStartOn(tbProgress* p, FILE* out, long total, const char* what, const char* unit) {
  memset(p, 0, sizeof(*p));
  p->out = out;
  p->total = total > 0 ? total : 0;
  p->what = what ? what : "sweep";
  p->unit = unit ? unit : "trials";
  p->t0 = tb_clock();
  p->tty = isatty(fileno(out));
  if (!p->tty) return;
  tb_setRolloutCounter(&p->scenes);
  p->running = 1;
  if (pthread_create(&p->thread, NULL, tb_progressThread, p) != 0) p->running = 0;
}

void tb_progressStart(tbProgress* p, long total, const char* what) {
  tb_progressStartOn(p, stderr, total, what, "trials");
}

void tb_progressUpdate(tbProgress* p, long done) {
  __atomic_store_n(&p->done, done < p->total ? done : p->total, __ATOMIC_RELAXED);
}

void tb_progressFinish(tbProgress* p) {
  if (p->tty) {
    tb_setRolloutCounter(NULL);
    if (__atomic_exchange_n(&p->running, 0, __ATOMIC_ACQ_REL)) pthread_join(p->thread, NULL);
    tb_progressLine(p);
    fputc('\n', p->out);
  }
  double el = tb_clock() - p->t0;
  char wall[32];
  tb_duration(el, wall, sizeof(wall));
  long done = tb_progressDone(p);
  fprintf(p->out, "tumble: %s: %ld/%ld %s in %s (%.4g %s/s)\n", p->what, done, p->total, p->unit,
          wall, el > 0.0 ? done / el : 0.0, p->unit);
  fflush(p->out);
}

//---- Ctrl-C ------------------------------------------------------------------------------------

static volatile sig_atomic_t tb_sigint;

static void tb_onInterrupt(int sig) {
  (void)sig;
  tb_sigint = 1;
}

void tb_catchInterrupt(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = tb_onInterrupt;
  sa.sa_flags = SA_RESETHAND;  // the second Ctrl-C is the default's: the process ends
  sigemptyset(&sa.sa_mask);
  tb_sigint = 0;
  sigaction(SIGINT, &sa, NULL);
}

int tb_interrupted(void) {
  // processes sharing a study stop together, at rank 0's Ctrl-C
  return tb_shareRoot(tb_sigint != 0);
}

//---- per-scene summaries ----------------------------------------------------------------------

void tb_statusText(int status, char* buf, size_t n) {
  static const struct {
    int bit;
    const char* name;
  } bits[] = {{TB_SCENE_NAN_FAIL, "diverged"},
              {TB_SCENE_OVERFLOW_FAIL, "contact-overflow"},
              {TB_SCENE_SOLVER_FAIL, "solver-inapplicable"},
              {TB_SCENE_START_FAIL, "starts-buried"},
              {TB_SCENE_BALANCE_FAIL, "no-equilibrium"},
              {TB_SCENE_UNCONVERGED, "unconverged"},
              {TB_SCENE_RESTED, "rested"}};
  size_t len = 0;
  buf[0] = 0;
  for (size_t k = 0; k < sizeof(bits) / sizeof(bits[0]); k++) {
    if (!(status & bits[k].bit)) continue;
    len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? "+" : "", bits[k].name);
  }
  if (!len) snprintf(buf, n, "ok");
}

void tb_sceneSummaryHeader(FILE* f, const tbModel* m) {
  fputs("scene", f);
  for (int p = 0; p < m->nparam; p++) {
    fputc(',', f);
    tb_csvField(f, m->param[p].name);  // an MJCF file's names may hold commas and quotes
  }
  fputs(
      ",done,status,status_text,fail_step,steps,contacts,iterations,max_iterations,"
      "last_residual,max_residual",
      f);
}

void tb_sceneSummaryRow(FILE* f, const tbModel* m, const tbData* d, int s, long scene, int done) {
  char text[96];
  tb_statusText(d->status[s], text, sizeof(text));
  fprintf(f, "%ld", scene);
  for (int p = 0; p < m->nparam; p++) fprintf(f, ",%.17g", d->param[(size_t)s * m->nparam + p]);
  fprintf(f, ",%d,%d,%s,%d,%lld,%d,%lld,%d,%.6g,%.6g", done, d->status[s], done ? text : "not-run",
          d->fail_step[s], (long long)d->nstep[s], d->ncon[s], (long long)d->iter_sum[s],
          d->iter_max[s], d->resid_last[s], d->resid_max[s]);
}

// n more of one kind, first among them: the lowest id stays first, whatever order chunks end in
static void tb_failKindAdd(long* count, long* first, long n, long id) {
  if (n <= 0) return;
  if (!*count || id < *first) *first = id;
  *count += n;
}

void tb_failTallyAdd(tbFailTally* t, int status, double resid, long id) {
  tb_failKindAdd(&t->overflow, &t->overflow_first, (status & TB_SCENE_OVERFLOW_FAIL) != 0, id);
  tb_failKindAdd(&t->buried, &t->buried_first, (status & TB_SCENE_START_FAIL) != 0, id);
  tb_failKindAdd(&t->diverged, &t->diverged_first, (status & TB_SCENE_NAN_FAIL) != 0, id);
  tb_failKindAdd(&t->inapplicable, &t->inapplicable_first, (status & TB_SCENE_SOLVER_FAIL) != 0,
                 id);
  tb_failKindAdd(&t->unbalanced, &t->unbalanced_first, (status & TB_SCENE_BALANCE_FAIL) != 0, id);
  // a failed scene's residual is no measure of a result: it has none
  int unconverged = (status & TB_SCENE_UNCONVERGED) && !(status & TB_SCENE_FAILMASK);
  tb_failKindAdd(&t->unconverged, &t->unconverged_first, unconverged, id);
  if (unconverged) t->resid_max = fmax(t->resid_max, resid);
}

void tb_failTallyMerge(tbFailTally* t, const tbFailTally* part) {
  tb_failKindAdd(&t->overflow, &t->overflow_first, part->overflow, part->overflow_first);
  tb_failKindAdd(&t->buried, &t->buried_first, part->buried, part->buried_first);
  tb_failKindAdd(&t->diverged, &t->diverged_first, part->diverged, part->diverged_first);
  tb_failKindAdd(&t->inapplicable, &t->inapplicable_first, part->inapplicable,
                 part->inapplicable_first);
  tb_failKindAdd(&t->unbalanced, &t->unbalanced_first, part->unbalanced, part->unbalanced_first);
  tb_failKindAdd(&t->unconverged, &t->unconverged_first, part->unconverged,
                 part->unconverged_first);
  t->resid_max = fmax(t->resid_max, part->resid_max);
}

//---- CSV ---------------------------------------------------------------------------------------

void tb_sweepWriteRows(FILE* f, const tbSweepGrid* g, const tbSweepTally* t) {
  fprintf(f, "cell,ix,iy,x_mm,y_mm,trials,successes,failed,p,lo95,hi95\n");
  for (int c = 0; c < t->ncell; c++) {
    double xy[2], lo, hi;
    tb_sweepOffset(g, c, xy);
    tb_wilson(t->success[c], t->valid[c], &lo, &hi);
    fprintf(f, "%d,%d,%d,%.9g,%.9g,%ld,%ld,%ld,", c, c % g->nx, c / g->nx, 1e3 * xy[0], 1e3 * xy[1],
            t->valid[c], t->success[c], t->failed[c]);
    if (t->valid[c] > 0) {
      fprintf(f, "%.9g,", (double)t->success[c] / (double)t->valid[c]);
    } else {
      fprintf(f, "nan,");
    }
    fprintf(f, "%.9g,%.9g\n", lo, hi);
  }
}

int tb_sweepWriteCsv(const char* path, const tbSweepGrid* g, const tbSweepTally* t) {
  if (t->ncell != g->nx * g->ny) {
    return tb_setError("sweep CSV %s: %d cells in the tally, %d x %d in the grid", path, t->ncell,
                       g->nx, g->ny);
  }
  tbOutFile out;
  if (tb_outOpen(&out, path) != TB_OK) return TB_ERR_ARG;
  tb_sweepWriteRows(out.f, g, t);
  return tb_outCommit(&out);
}

//---- parameter specs ---------------------------------------------------------------------------

int tb_parseParamSpec(const char* what, const char* spec, tbParamSpec* out) {
  memset(out, 0, sizeof(*out));
  char buf[128];
  if (!strncmp(spec, "uniform:", 8)) {
    out->kind = TB_SPEC_UNIFORM;
    spec += 8;
  }
  if (strlen(spec) >= sizeof(buf)) return tb_setError("%s: '%s' is too long", what, spec);
  snprintf(buf, sizeof(buf), "%s", spec);
  char* colon = strchr(buf, ':');
  if (colon) {
    *colon = 0;
    if (!out->kind) out->kind = TB_SPEC_SPREAD;
    if (tb_readNumber(what, buf, &out->a) || tb_readNumber(what, colon + 1, &out->b))
      return TB_ERR_ARG;
    // a spread takes HI - LO: finite, or its scenes' values would be NaN
    if (!isfinite(out->b - out->a)) {
      return tb_setError("%s: HI - LO = %s - (%s) is beyond the largest double", what, colon + 1,
                         buf);
    }
  } else {
    if (out->kind == TB_SPEC_UNIFORM) return tb_setError("%s: uniform needs LO:HI", what);
    if (tb_readNumber(what, buf, &out->a)) return TB_ERR_ARG;
    out->b = out->a;
  }
  return TB_OK;
}

double tb_paramSpecValue(const tbParamSpec* ps, int p, int s, int nscene, uint64_t seed) {
  if (ps->kind == TB_SPEC_SPREAD) {
    return nscene > 1 ? ps->a + (ps->b - ps->a) * s / (nscene - 1) : ps->a;
  }
  if (ps->kind == TB_SPEC_UNIFORM) {
    return ps->a + (ps->b - ps->a) * tbu_uniform01(seed, (uint64_t)s, (uint64_t)p);
  }
  return ps->a;
}
