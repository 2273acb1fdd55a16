// Command line: `tumble estimate synth|pf|fit ...`, parameter estimation from an observed
// trajectory (thesis ch. 7). Every argument is checked, the scene built and the observation file
// read before anything is written; bad input prints one line and exits 2.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tumble/estimate.h>
#include <tumble/scenes.h>
#include <tumble/sweep.h>
#include <tumble/tumble.h>

#include "cli/cli.h"
#include "util/csv.h"
#include "util/suggest.h"
#include "plot/plot.h"

#define TB_EST_MAXSET 64
#define TB_EST_MAXEST 64

typedef struct tbNamed {
  char name[TB_NAMELEN];
  double a, b;
  tbPrior prior;
} tbNamed;

typedef struct tbEstArgs {
  int cmd;  // 0 synth, 1 pf, 2 fit
  int scene;
  tbBuild build;
  int nset, nest, nprior, ninit, nbound, ntruth;
  tbNamed set[TB_EST_MAXSET];
  char est[TB_EST_MAXEST][TB_NAMELEN];
  tbNamed prior[TB_EST_MAXEST], init[TB_EST_MAXEST], bound[TB_EST_MAXEST], truth[TB_EST_MAXEST];
  tbNoise noise;
  long seed, steps, every, particles, max_stage, scan, max_iter;
  int steps_given, fit_state, replay, resume;
  double delta;
  const char *obs, *out;
} tbEstArgs;

static const char* tb_cmdName(int cmd) {
  return cmd == 0 ? "estimate synth" : cmd == 1 ? "estimate pf" : "estimate fit";
}

static void tb_estimateUsage(FILE* f) {
  fprintf(f,
          "usage: tumble estimate synth --scene NAME [--param NAME=V]...\n"
          "         [--noise none|uniform:EPS|gauss:SIGMA] [--seed S] [--steps K] [--every K]\n"
          "         [--threads T] [--device auto|cpu|gpu] [--precision fp64|fp32] --out OBS.csv\n"
          "       tumble estimate pf --scene NAME --obs OBS.csv --params P1[,P2...]\n"
          "         --prior P1=uniform:LO:HI|gauss:M:SD... --noise uniform:EPS|gauss:SIGMA\n"
          "         [--particles N] [--param NAME=V]... [--seed S] [--delta D] [--replay on|off]\n"
          "         [--max-stage K] [--truth P1=V]... [--threads T] [--device auto|cpu|gpu]\n"
          "         [--precision fp64|fp32] [--out PREFIX] [--resume] [--yes]\n"
          "       tumble estimate fit --scene NAME --obs OBS.csv --params P1[,P2...] [--init "
          "P1=V]...\n"
          "         [--bounds P1=LO:HI]... [--fit-state] [--scan N] [--max-iter K] [--param "
          "NAME=V]...\n"
          "         [--threads T] [--device auto|cpu|gpu] [--precision fp64|fp32]\n"
          "         [--out PREFIX] [--resume]\n");
}

// NAME=REST: the name (checked for length) and a pointer to REST
static int tb_splitNamed(const char* opt, const char* val, char name[TB_NAMELEN],
                         const char** rest) {
  const char* eq = strchr(val, '=');
  if (!eq || eq == val || (size_t)(eq - val) >= TB_NAMELEN) {
    return tb_cliError("%s %s: expected NAME=VALUE", opt, val);
  }
  memcpy(name, val, (size_t)(eq - val));
  name[eq - val] = 0;
  *rest = eq + 1;
  return 0;
}

static int tb_finite(const char* what, const char* s, double* v) {
  if (tb_parseNumber(what, s, v)) return 2;
  if (!isfinite(*v)) return tb_cliError("%s: %s is not finite", what, s);
  return 0;
}

// A:B as two finite numbers
static int tb_pair(const char* what, const char* s, double* a, double* b) {
  char buf[128];
  snprintf(buf, sizeof(buf), "%s", s);
  char* c = strchr(buf, ':');
  if (!c) return tb_cliError("%s: '%s' needs LO:HI", what, s);
  *c = 0;
  return tb_finite(what, buf, a) || tb_finite(what, c + 1, b) ? 2 : 0;
}

static int tb_parseNoise(const char* s, tbNoise* n) {
  if (!strcmp(s, "none")) {
    n->kind = TB_NOISE_NONE;
    n->scale = 0.0;
    return 0;
  }
  const char* c = strchr(s, ':');
  size_t k = c ? (size_t)(c - s) : 0;
  if (c && k == 7 && !strncmp(s, "uniform", 7)) {
    n->kind = TB_NOISE_UNIFORM;
  } else if (c && k == 5 && !strncmp(s, "gauss", 5)) {
    n->kind = TB_NOISE_GAUSS;
  } else {
    return tb_cliError("--noise %s: expected uniform:EPS, gauss:SIGMA or none", s);
  }
  if (tb_finite("--noise", c + 1, &n->scale)) return 2;
  if (!(n->scale > 0.0)) return tb_cliError("--noise %s: the scale must be > 0", s);
  return 0;
}

static int tb_parsePrior(const char* val, tbNamed* p) {
  const char* rest = NULL;
  if (tb_splitNamed("--prior", val, p->name, &rest)) return 2;
  char what[TB_NAMELEN + 16];
  snprintf(what, sizeof(what), "--prior %s", p->name);
  if (!strncmp(rest, "uniform:", 8)) {
    p->prior.kind = TB_PRIOR_UNIFORM;
    if (tb_pair(what, rest + 8, &p->prior.a, &p->prior.b)) return 2;
    if (!(p->prior.a < p->prior.b)) return tb_cliError("%s: uniform needs LO < HI", what);
  } else if (!strncmp(rest, "gauss:", 6)) {
    p->prior.kind = TB_PRIOR_GAUSS;
    if (tb_pair(what, rest + 6, &p->prior.a, &p->prior.b)) return 2;
    if (!(p->prior.b > 0.0)) return tb_cliError("%s: gauss needs SD > 0", what);
  } else {
    return tb_cliError("%s: '%s' is not uniform:LO:HI or gauss:MEAN:SD", what, rest);
  }
  return 0;
}

static int tb_parseParams(const char* val, tbEstArgs* a) {
  char buf[4096];
  if (strlen(val) >= sizeof(buf)) return tb_cliError("--params: list too long");
  snprintf(buf, sizeof(buf), "%s", val);
  for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    if (a->nest == TB_EST_MAXEST) return tb_cliError("--params: more than %d", TB_EST_MAXEST);
    if (strlen(tok) >= TB_NAMELEN) return tb_cliError("--params: name '%s' too long", tok);
    for (int k = 0; k < a->nest; k++) {
      if (!strcmp(a->est[k], tok)) return tb_cliError("--params: '%s' given twice", tok);
    }
    snprintf(a->est[a->nest++], TB_NAMELEN, "%s", tok);
  }
  if (!a->nest) return tb_cliError("--params: empty list");
  return 0;
}

// one NAME=VALUE or NAME=LO:HI into list (at most TB_EST_MAXEST)
static int tb_addNamed(const char* opt, const char* val, tbNamed* list, int* n, int pair) {
  if (*n == TB_EST_MAXEST) return tb_cliError("too many %s", opt);
  tbNamed* e = &list[*n];
  const char* rest = NULL;
  if (tb_splitNamed(opt, val, e->name, &rest)) return 2;
  char what[TB_NAMELEN + 16];
  snprintf(what, sizeof(what), "%s %s", opt, e->name);
  int rc = pair ? tb_pair(what, rest, &e->a, &e->b) : tb_finite(what, rest, &e->a);
  if (rc) return rc;
  if (pair && !(e->a < e->b)) return tb_cliError("%s: needs LO < HI", what);
  for (int k = 0; k < *n; k++) {
    if (strcmp(list[k].name, e->name)) continue;
    char was[64];  // both named: which two arguments of a long command line collide
    snprintf(was, sizeof(was), pair ? "%g:%g" : "%g", list[k].a, list[k].b);
    return tb_cliError("%s %s: %s is already set by %s %s=%s", opt, val, e->name, opt, e->name,
                       was);
  }
  (*n)++;
  return 0;
}

// the options of command cmd (0 synth, 1 pf, 2 fit) into names; returns their count
static int tb_estOptions(int cmd, const char** names) {
  static const struct {
    const char* name;
    int cmds;  // bit 1 synth, 2 pf, 4 fit
  } t[] = {{"--scene", 7},     {"--param", 7},  {"--seed", 3},   {"--threads", 7},
           {"--out", 7},       {"--noise", 3},  {"--steps", 1},  {"--every", 1},
           {"--obs", 6},       {"--params", 6}, {"--prior", 2},  {"--particles", 2},
           {"--truth", 2},     {"--delta", 2},  {"--replay", 2}, {"--max-stage", 2},
           {"--init", 4},      {"--bounds", 4}, {"--scan", 4},   {"--max-iter", 4},
           {"--fit-state", 4}, {"--device", 7}, {"--yes", 2},    {"--resume", 6},
           {"--precision", 7}};
  int n = 0;
  for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
    if ((t[i].cmds >> cmd) & 1) names[n++] = t[i].name;
  }
  return n;
}

static int tb_parseEstimate(int argc, char** argv, tbEstArgs* a) {
  const char* opts[32];
  int nopt = tb_estOptions(a->cmd, opts);
  for (int i = 0; i < argc; i++) {
    const char* arg = argv[i];
    const char* known = tb_closest(arg, opts, nopt);  // arg itself (distance 0) if taken
    if (!known || strcmp(known, arg)) return tb_optionError(tb_cmdName(a->cmd), arg, opts, nopt);
    if (!strcmp(arg, "--fit-state")) {
      a->fit_state = 1;
      continue;
    }
    if (tb_parseYes(arg)) continue;
    if (!strcmp(arg, "--resume")) {
      a->resume = 1;
      continue;
    }
    const char* val = i + 1 < argc ? argv[i + 1] : NULL;
    if (tb_optionValue(arg, val)) return 2;
    i++;
    int rc = 0;
    if (!strcmp(arg, "--scene")) {
      a->scene = tb_findScene(val);
      if (a->scene < 0) return tb_unknownScene("--scene", val);
      a->build = tb_defaultBuild(a->scene);
    } else if (!strcmp(arg, "--param")) {
      if (a->nset == TB_EST_MAXSET) return tb_cliError("too many --param");
      rc = tb_addNamed(arg, val, a->set, &a->nset, 0);
    } else if (!strcmp(arg, "--seed")) {
      rc = tb_parseInt(arg, val, 0, 2147483647L, &a->seed);
    } else if (!strcmp(arg, "--threads")) {
      rc = tb_parseThreads(arg, val);
    } else if (!strcmp(arg, "--device")) {
      rc = tb_parseDevice("estimate", val);
    } else if (!strcmp(arg, "--precision")) {
      rc = tb_parsePrecision(val);
    } else if (!strcmp(arg, "--out")) {
      if (!val[0]) return tb_cliError("--out: empty path");
      a->out = val;
    } else if (!strcmp(arg, "--noise")) {
      rc = tb_parseNoise(val, &a->noise);
    } else if (!strcmp(arg, "--steps")) {
      rc = tb_parseInt(arg, val, 1, 100000000L, &a->steps);
      a->steps_given = 1;
    } else if (!strcmp(arg, "--every")) {
      rc = tb_parseInt(arg, val, 1, 100000000L, &a->every);
    } else if (!strcmp(arg, "--obs")) {
      a->obs = val;
    } else if (!strcmp(arg, "--params")) {
      rc = tb_parseParams(val, a);
    } else if (!strcmp(arg, "--prior")) {
      if (a->nprior == TB_EST_MAXEST) return tb_cliError("too many --prior");
      rc = tb_parsePrior(val, &a->prior[a->nprior]);
      for (int k = 0; !rc && k < a->nprior; k++) {
        if (!strcmp(a->prior[k].name, a->prior[a->nprior].name)) {
          rc = tb_cliError("--prior %s: given twice", a->prior[k].name);
        }
      }
      if (!rc) a->nprior++;
    } else if (!strcmp(arg, "--particles")) {
      rc = tb_parseInt(arg, val, 1, 100000000L, &a->particles);
    } else if (!strcmp(arg, "--truth")) {
      rc = tb_addNamed(arg, val, a->truth, &a->ntruth, 0);
    } else if (!strcmp(arg, "--delta")) {
      rc = tb_finite(arg, val, &a->delta);
      if (!rc && !(a->delta > 1.0 / 3.0 && a->delta <= 1.0)) {
        rc = tb_cliError("--delta %s: must be in (1/3, 1]", val);
      }
    } else if (!strcmp(arg, "--replay")) {
      if (strcmp(val, "on") && strcmp(val, "off")) {
        return tb_cliError("--replay %s: expected on or off", val);
      }
      a->replay = !strcmp(val, "on");
    } else if (!strcmp(arg, "--max-stage")) {
      rc = tb_parseInt(arg, val, 1, 100000L, &a->max_stage);
    } else if (!strcmp(arg, "--init")) {
      rc = tb_addNamed(arg, val, a->init, &a->ninit, 0);
    } else if (!strcmp(arg, "--bounds")) {
      rc = tb_addNamed(arg, val, a->bound, &a->nbound, 1);
    } else if (!strcmp(arg, "--scan")) {
      rc = tb_parseInt(arg, val, 0, 100000L, &a->scan);
    } else if (!strcmp(arg, "--max-iter")) {
      rc = tb_parseInt(arg, val, 1, 1000000L, &a->max_iter);
    }
    if (rc) return rc;
  }
  if (a->scene < 0) return tb_cliError("%s needs --scene NAME", tb_cmdName(a->cmd));
  if (a->cmd == 0 && !a->out) return tb_cliError("estimate synth needs --out OBS.csv");
  if (a->cmd != 0 && !a->obs) return tb_cliError("%s needs --obs OBS.csv", tb_cmdName(a->cmd));
  if (a->cmd != 0 && !a->nest) {
    return tb_cliError("%s needs --params P1[,P2...]", tb_cmdName(a->cmd));
  }
  if (a->cmd == 1 && a->noise.kind == TB_NOISE_NONE) {
    return tb_cliError("estimate pf needs --noise uniform:EPS or gauss:SIGMA (the likelihood)");
  }
  return 0;
}

// the build with structural options, then the model and the fixed parameter row
static int tb_estModel(tbEstArgs* a, tbModel** mout, double** param0) {
  const tbSceneInfo* si = tb_sceneInfo(a->scene);
  int used[TB_EST_MAXSET] = {0};
  for (int i = 0; i < a->nset; i++) {
    for (int k = 0; k < si->nopt; k++) {
      if (strcmp(a->set[i].name, si->opt[k].name)) continue;
      a->build.opt[k] = a->set[i].a;
      used[i] = 1;
    }
  }
  tbModel* m = tb_buildScene(a->scene, &a->build);
  if (!m) return tb_cliError("%s", tb_lastError());
  tbData* d = tb_newData(m, 1);
  if (!d) {
    tb_freeModel(m);
    return tb_cliError("%s", tb_lastError());
  }
  for (int i = 0; i < a->nset; i++) {
    if (used[i]) continue;
    int p = tb_findParam(m, a->set[i].name);
    if (p < 0) {
      char what[TB_NAMELEN + 32];
      snprintf(what, sizeof(what), "--param: scene '%s'", si->name);
      int rc = tb_unknownParam(m, si, a->set[i].name, "see tumble simulate --list", what);
      tb_freeData(d);
      tb_freeModel(m);
      return rc;
    }
    d->param[p] = a->set[i].a;
  }
  if (tb_checkParams(m, d) != TB_OK) {
    tb_freeData(d);
    tb_freeModel(m);
    return tb_cliError("--param: %s", tb_lastError());
  }
  *param0 = (double*)malloc(sizeof(double) * (m->nparam ? m->nparam : 1));
  if (*param0) memcpy(*param0, d->param, sizeof(double) * m->nparam);
  tb_freeData(d);
  *mout = m;
  return *param0 ? 0 : tb_cliError("out of memory");
}

static double tb_dtOf(const tbModel* m, const double* param0) {
  int p = tb_findParam(m, "dt");
  return p >= 0 ? param0[p] : m->opt.timestep;
}

//---- synth -------------------------------------------------------------------------------------

static int tb_synth(tbEstArgs* a) {
  tbModel* m = NULL;
  double* param0 = NULL;
  int rc = tb_estModel(a, &m, &param0);
  if (rc) return rc;
  tbData* d = NULL;
  tbObs obs;
  memset(&obs, 0, sizeof(obs));
  long steps = a->steps_given ? a->steps : tb_sceneInfo(a->scene)->steps;
  long every = a->every ? a->every : 1;
  if (every > steps) {
    rc = tb_cliError("--every %ld: more than the %ld steps", every, steps);
    goto done;
  }
  if ((rc = tb_cliOutCheck("--out", a->out))) goto done;
  d = tb_newData(m, 1);
  if (!d) {
    rc = tb_cliError("%s", tb_lastError());
    goto done;
  }
  memcpy(d->param, param0, sizeof(double) * m->nparam);
  if (tb_synthObs(m, d, (int)steps, (int)every, a->noise, (uint64_t)a->seed, &obs) != TB_OK) {
    rc = tb_cliError("%s", tb_lastError());
    goto done;
  }
  if (tb_writeObs(a->out, &obs) != TB_OK) {
    rc = tb_cliError("--out %s", tb_lastError());
    goto done;
  }
  tb_sayCsvOut("--out", a->out, 0);
  tbJsonPath j;
  printf(
      "{\"scene\": \"%s\", \"rows\": %d, \"columns\": %d, \"noise\": \"%s\", \"scale\": %.17g, "
      "\"seed\": %ld, \"out\": \"%s\"}\n",
      tb_sceneInfo(a->scene)->name, obs.nrow, obs.ncol,
      a->noise.kind == TB_NOISE_UNIFORM ? "uniform"
      : a->noise.kind == TB_NOISE_GAUSS ? "gauss"
                                        : "none",
      a->noise.scale, a->seed, tb_jsonPath(&j, a->out));
done:
  tb_freeObs(&obs);
  tb_freeData(d);
  free(param0);
  tb_freeModel(m);
  return rc;
}

//---- shared by pf and fit ----------------------------------------------------------------------

// resolve --params; reject what cannot be estimated
static int tb_resolveParams(const tbModel* m, const tbEstArgs* a, int* idx) {
  const tbSceneInfo* si = tb_sceneInfo(a->scene);
  for (int k = 0; k < a->nest; k++) {
    for (int o = 0; o < si->nopt; o++) {
      if (!strcmp(si->opt[o].name, a->est[k])) {
        return tb_cliError("--params %s: a structural option (one value per batch), not estimable",
                           a->est[k]);
      }
    }
    idx[k] = tb_findParam(m, a->est[k]);
    if (idx[k] < 0) {
      return tb_cliError(
          "--params %s: scene '%s' has no such parameter (see tumble simulate --list)", a->est[k],
          si->name);
    }
    if (!strcmp(a->est[k], "dt")) {
      return tb_cliError("--params dt: the time step fixes the observation steps, not estimable");
    }
  }
  return 0;
}

static int tb_findName(const char names[][TB_NAMELEN], int n, const char* name) {
  for (int k = 0; k < n; k++) {
    if (!strcmp(names[k], name)) return k;
  }
  return -1;
}

// every entry of list must name an estimated parameter
static int tb_checkNamed(const char* opt, const tbNamed* list, int n,
                         const char names[][TB_NAMELEN], int nest) {
  for (int i = 0; i < n; i++) {
    if (tb_findName(names, nest, list[i].name) < 0) {
      return tb_cliError("%s %s: not among the estimated parameters", opt, list[i].name);
    }
  }
  return 0;
}

static int tb_readObsCli(const tbEstArgs* a, const tbModel* m, const double* param0, tbObs* obs) {
  if (tb_readObs(a->obs, m, tb_dtOf(m, param0), obs) != TB_OK) {
    return tb_cliError("%s", tb_lastError());
  }
  return 0;
}

//---- pf ----------------------------------------------------------------------------------------

// the filter's table, row by row
static void tb_writePF(FILE* f, const tbModel* m, const tbPFOpt* o, const tbObs* obs,
                       const tbPFResult* res) {
  fprintf(f, "t");
  for (int k = 0; k < o->nest; k++) {
    const char* nm = m->param[o->param[k]].name;
    static const char* const part[5] = {"_mean", "_std", "_q05", "_q50", "_q95"};
    for (int c = 0; c < 5; c++) {
      fputc(',', f);
      tb_csvFieldSuffix(f, nm, part[c]);
    }
  }
  fprintf(f, ",ess,stages,tol,zero_weight,resampled,failed\n");
  for (int r = 0; r < res->nrow; r++) {
    fprintf(f, "%.17g", obs->t[r]);
    for (int k = 0; k < o->nest; k++) {
      size_t i = (size_t)r * o->nest + k;
      fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g", res->mean[i], res->std[i], res->q05[i],
              res->q50[i], res->q95[i]);
    }
    fprintf(f, ",%.17g,%d,%.17g,%d,%d,%d\n", res->ess[r], res->stages[r], res->tol[r], res->zero[r],
            res->resampled[r], res->failed[r]);
  }
}

// The journal of a particle filter (PREFIX.journal): its newest checkpoint (tbPFOpt), replaced at
// most once a second and when the filter stops, so that --resume goes on after a kill from there
typedef struct tbPFJournal {
  tbJournal j;
  char* last;  // the journal's checkpoint (--resume), or NULL
  size_t len;
  int oom;
  int failed;  // a checkpoint could not be written (said on stderr)
} tbPFJournal;

static void tb_pfJournalBlock(void* ctx, long first, long end, const char* bytes, size_t len) {
  tbPFJournal* pj = (tbPFJournal*)ctx;
  (void)first, (void)end;
  free(pj->last);
  pj->last = (char*)malloc(len ? len : 1);
  pj->len = pj->last ? len : 0;
  pj->oom = !pj->last;
  if (pj->last) memcpy(pj->last, bytes, len);
}

static int tb_pfJournalCheckpoint(void* ctx, int r, int stop, const char* bytes, size_t len) {
  tbPFJournal* pj = (tbPFJournal*)ctx;
  (void)stop;
  pj->failed = tb_journalReplace(&pj->j, r + 1, bytes, len) != 0;
  return pj->failed;
}

// a journal's name of the estimate the command line asks for, on these observations
static void tb_estimateKey(const char* command, const tbObs* obs, int argc, char** argv, char* key,
                           size_t n) {
  uint64_t h[2] = {tb_journalHash(obs->t, sizeof(double) * (size_t)obs->nrow),
                   tb_journalHash(obs->y, sizeof(double) * (size_t)obs->nrow * obs->ncol)};
  tb_commandKey(command, argc, argv, key, n - 48);
  snprintf(key + strlen(key), 48, " obs %016llx%016llx", (unsigned long long)h[0],
           (unsigned long long)h[1]);
}

// the journal of the filter the command line names, on these observations; 0, or 2
static int tb_pfJournalOpen(tbPFJournal* pj, const tbEstArgs* a, const char* prefix,
                            const tbObs* obs, int argc, char** argv) {
  char key[8300], path[4200];
  tb_estimateKey("estimate pf", obs, argc, argv, key, sizeof(key));
  snprintf(path, sizeof(path), "%s.journal", prefix);
  long next = 0;
  int rc = tb_journalOpenBlocks(&pj->j, path, key, a->resume, &next, tb_pfJournalBlock, pj);
  if (!rc && a->resume) tb_journalSayResumed("estimate pf", "observation", next, obs->nrow, path);
  return !rc && pj->oom ? tb_cliError("--resume %s: out of memory", path) : rc;
}

static int tb_pf(tbEstArgs* a, int argc, char** argv) {
  tbModel* m = NULL;
  double* param0 = NULL;
  int rc = tb_estModel(a, &m, &param0);
  if (rc) return rc;
  tbObs obs;
  memset(&obs, 0, sizeof(obs));
  tbPFResult res;
  memset(&res, 0, sizeof(res));
  tbPFJournal pj;
  memset(&pj, 0, sizeof(pj));
  int idx[TB_EST_MAXEST];
  tbPrior prior[TB_EST_MAXEST];
  double truth[TB_EST_MAXEST];
  char csv[4200], png[4200];
  tbOutFile table = {0}, plot = {0};
  const char* prefix = a->out ? a->out : "estimate-pf";
  snprintf(csv, sizeof(csv), "%s.csv", prefix);
  snprintf(png, sizeof(png), "%s.png", prefix);
  if ((rc = tb_resolveParams(m, a, idx))) goto done;
  if ((rc = tb_checkNamed("--prior", a->prior, a->nprior, a->est, a->nest))) goto done;
  if ((rc = tb_checkNamed("--truth", a->truth, a->ntruth, a->est, a->nest))) goto done;
  for (int k = 0; k < a->nest; k++) {
    int j = 0;
    while (j < a->nprior && strcmp(a->prior[j].name, a->est[k])) j++;
    if (j == a->nprior) {
      rc = tb_cliError("--prior %s=...: missing (every estimated parameter needs one)", a->est[k]);
      goto done;
    }
    prior[k] = a->prior[j].prior;
    double lo, hi;
    if (tb_priorSupport(m, idx[k], &prior[k], &lo, &hi) != TB_OK) {
      rc = tb_cliError("--%s", tb_lastError());
      goto done;
    }
    truth[k] = NAN;
    for (int t = 0; t < a->ntruth; t++) {
      if (!strcmp(a->truth[t].name, a->est[k])) truth[k] = a->truth[t].a;
    }
  }
  if ((rc = tb_readObsCli(a, m, param0, &obs))) goto done;
  if ((rc = tb_cliOutOpen(&table, "--out", csv)) || (rc = tb_cliOutOpen(&plot, "--out", png)))
    goto done;
  tbPFOpt o = tb_defaultPFOpt();
  if (a->particles) o.nparticle = (int)a->particles;
  o.nest = a->nest;
  o.param = idx;
  o.prior = prior;
  o.noise = a->noise;
  o.seed = (uint64_t)a->seed;
  if (a->delta > 0.0) o.delta = a->delta;
  if (a->replay >= 0) o.replay = a->replay;
  if (a->max_stage) o.max_stage = (int)a->max_stage;
  o.progress = 1;
  // the filter's own steps (resampling replays add to them)
  if ((rc = tb_cliCostCheck("estimate pf", "particles", o.nparticle, obs.step[obs.nrow - 1])))
    goto done;
  if ((rc = tb_pfJournalOpen(&pj, a, prefix, &obs, argc, argv))) goto done;
  o.checkpoint = tb_pfJournalCheckpoint;
  o.checkpoint_ctx = &pj;
  o.checkpoint_seconds = 1.0;
  o.resume = pj.last;
  o.resume_len = pj.len;
  tb_catchInterrupt();
  if (tb_particleFilter(m, param0, &obs, &o, &res) != TB_OK) {
    rc = pj.failed ? 2 : tb_cliError("%s", tb_lastError());  // a journal's failure: said
    goto done;
  }
  tb_writePF(table.f, m, &o, &obs, &res);
  if (tb_plotPosteriorTo(plot.f, m, &o, &obs, &res, truth) != 0) {
    rc = tb_cliPlotFailed(&plot);
    goto done;
  }
  tbOutFile* files[2] = {&table, &plot};
  if ((rc = tb_cliOutCommitAll("--out", files, 2))) goto done;
  tb_sayFailures("estimate pf", "particle", &res.fails, m->maxcon,
                 "MJCF <option iterations=\"K\"/> (tbOption in the C API) raises its cap");
  size_t last = (size_t)(res.nrow - 1) * res.nest;
  printf("{");
  for (int k = 0; k < a->nest; k++) {
    const char* nm = a->est[k];
    printf(
        "\"%s\": %.17g, \"%s_std\": %.17g, \"%s_q05\": %.17g, \"%s_q50\": %.17g, "
        "\"%s_q95\": %.17g, ",
        nm, res.mean[last + k], nm, res.std[last + k], nm, res.q05[last + k], nm, res.q50[last + k],
        nm, res.q95[last + k]);
  }
  double pss = res.seconds > 0 ? res.filter_steps / res.seconds : 0.0;
  tbJsonPath j;
  printf(
      "\"particles\": %d, \"observations\": %d, \"ess\": %.6g, \"resamples\": %d, "
      "\"zero_weight\": %d, \"inexact\": %d, \"failed\": %d, \"particle_steps\": %lld, "
      "\"scene_steps\": %lld, \"particle_steps_per_s\": %.6g, \"replay\": %s, \"threads\": %d, "
      "\"partial\": %s, \"out\": \"%s\", \"seconds\": %.6f}\n",
      o.nparticle, res.nrow, res.ess[res.nrow - 1], res.resamples, res.zero_events, res.inexact,
      res.failed[res.nrow - 1], (long long)res.filter_steps, (long long)res.scene_steps, pss,
      o.replay ? "true" : "false", omp_get_max_threads(), res.partial ? "true" : "false",
      tb_jsonPath(&j, prefix), res.seconds);
  if (res.partial) {
    tb_cliError("interrupted: %d of %d observations taken, written as a partial run", res.nrow,
                obs.nrow);
    rc = 130;
  }
done:
  // whole outputs need no journal; an interrupted or failed filter's is kept for --resume
  tb_journalClose(&pj.j, rc == 0);
  tb_outAbort(&table);
  tb_outAbort(&plot);
  free(pj.last);
  tb_freePFResult(&res);
  tb_freeObs(&obs);
  free(param0);
  tb_freeModel(m);
  return rc;
}

//---- fit ---------------------------------------------------------------------------------------

// the fit's batches through its journal (PREFIX.journal, tbCallMemo): tbFitOpt.memo
static int tb_fitMemo(void* ctx, const double* X, size_t nx, double* pred, size_t npred, int keep) {
  tbCallMemo* mo = (tbCallMemo*)ctx;
  size_t xbytes = sizeof(double) * nx, pbytes = sizeof(double) * npred;
  if (keep) return tb_memoKeep(mo, X, xbytes, pred, pbytes) ? -1 : 0;
  return tb_memoLookup(mo, X, xbytes, pred, pbytes);
}

static int tb_fit(tbEstArgs* a, int argc, char** argv) {
  tbModel* m = NULL;
  double* param0 = NULL;
  int rc = tb_estModel(a, &m, &param0);
  if (rc) return rc;
  tbObs obs;
  memset(&obs, 0, sizeof(obs));
  tbFitResult res;
  memset(&res, 0, sizeof(res));
  tbOutFile log = {0};
  tbCallMemo memo;
  memset(&memo, 0, sizeof(memo));
  int idx[TB_EST_MAXEST + TB_MAXOBSCOORD], scan[TB_EST_MAXEST + TB_MAXOBSCOORD];
  double init[TB_EST_MAXEST + TB_MAXOBSCOORD], lo[TB_EST_MAXEST + TB_MAXOBSCOORD],
      hi[TB_EST_MAXEST + TB_MAXOBSCOORD];
  char names[TB_EST_MAXEST + TB_MAXOBSCOORD][TB_NAMELEN];
  char csv[4200];
  if ((rc = tb_resolveParams(m, a, idx))) goto done;
  if ((rc = tb_readObsCli(a, m, param0, &obs))) goto done;
  int n = a->nest;
  for (int k = 0; k < n; k++) {
    snprintf(names[k], TB_NAMELEN, "%s", a->est[k]);
    init[k] = param0[idx[k]];
    scan[k] = 1;
  }
  if (a->fit_state) {
    int sidx[TB_MAXOBSCOORD];
    double sinit[TB_MAXOBSCOORD];
    int ns = tb_stateParams(m, param0, &obs, sidx, sinit, TB_MAXOBSCOORD);
    if (ns == 0) {
      rc = tb_cliError(
          "--fit-state: scene '%s' has no initial-state parameter of an observed "
          "coordinate",
          tb_sceneInfo(a->scene)->name);
      goto done;
    }
    for (int s = 0; s < ns && s < TB_MAXOBSCOORD; s++) {
      int dup = 0;
      for (int k = 0; k < a->nest; k++) dup |= idx[k] == sidx[s];
      if (dup) continue;
      idx[n] = sidx[s];
      init[n] = sinit[s];
      scan[n] = 0;
      snprintf(names[n], TB_NAMELEN, "%s", m->param[sidx[s]].name);
      n++;
    }
  }
  if ((rc = tb_checkNamed("--init", a->init, a->ninit, names, n))) goto done;
  if ((rc = tb_checkNamed("--bounds", a->bound, a->nbound, names, n))) goto done;
  for (int k = 0; k < n; k++) {
    const tbParam* prm = &m->param[idx[k]];
    lo[k] = prm->lo;
    hi[k] = prm->hi;
    for (int b = 0; b < a->nbound; b++) {
      if (strcmp(a->bound[b].name, names[k])) continue;
      if (a->bound[b].a < prm->lo || a->bound[b].b > prm->hi) {
        rc = tb_cliError("--bounds %s=%g:%g: outside its range [%g, %g]", names[k], a->bound[b].a,
                         a->bound[b].b, prm->lo, prm->hi);
        goto done;
      }
      lo[k] = a->bound[b].a;
      hi[k] = a->bound[b].b;
    }
    for (int i = 0; i < a->ninit; i++) {
      if (!strcmp(a->init[i].name, names[k])) init[k] = a->init[i].a;
    }
    if (!(init[k] >= lo[k] && init[k] <= hi[k]) || (prm->lo_open && !(init[k] > prm->lo))) {
      rc = tb_cliError("--init %s=%g: outside its bounds %s%g, %g]", names[k], init[k],
                       prm->lo_open && lo[k] == prm->lo ? "(" : "[", lo[k], hi[k]);
      goto done;
    }
  }
  if ((long)obs.nrow * obs.ncol <= n) {
    rc = tb_cliError("--obs %s: %d residuals for %d parameters, need more", a->obs,
                     obs.nrow * obs.ncol, n);
    goto done;
  }
  if (a->out) {
    snprintf(csv, sizeof(csv), "%s.csv", a->out);
    if ((rc = tb_cliOutOpen(&log, "--out", csv))) goto done;
  }
  tbFitOpt o = tb_defaultFitOpt();
  o.nest = n;
  o.param = idx;
  o.init = init;
  o.lo = lo;
  o.hi = hi;
  o.scan = scan;
  if (a->scan >= 0) o.nscan = (int)a->scan;
  if (a->max_iter) o.max_iter = (int)a->max_iter;
  o.log = log.f;
  o.progress = 1;
  char key[8300], path[4200];
  tb_estimateKey("estimate fit", &obs, argc, argv, key, sizeof(key));
  snprintf(path, sizeof(path), "%s.journal", a->out ? a->out : "estimate-fit");
  if ((rc = tb_memoOpen(&memo, path, key, a->resume))) goto done;
  if (a->resume) tb_journalSayResumed("estimate fit", "evaluation", memo.ncall, -1, path);
  o.memo = tb_fitMemo;
  o.memo_ctx = &memo;
  tb_catchInterrupt();
  if (tb_fitLM(m, param0, &obs, &o, &res) != TB_OK) {
    rc = memo.failed ? 2 : tb_cliError("%s", tb_lastError());  // a journal's failure: said
    goto done;
  }
  // the log whole (an interrupted fit's too) before the summary says it is there
  if (log.f && (rc = tb_cliOutCommit(&log, "--out"))) goto done;
  printf("{");
  for (int k = 0; k < n; k++) {
    printf("\"%s\": %.17g, \"%s_se\": ", names[k], res.x[k], names[k]);
    if (isfinite(res.se[k])) {
      printf("%.6g, ", res.se[k]);
    } else {
      printf("null, ");
    }
  }
  printf(
      "\"rss\": %.17g, \"residuals\": %d, \"iterations\": %d, \"batches\": %d, "
      "\"scene_steps\": %lld, \"reason\": \"%s\", \"threads\": %d, \"partial\": %s, "
      "\"seconds\": %.6f}\n",
      res.rss, res.m, res.iterations, res.batches, (long long)res.scene_steps, res.reason,
      omp_get_max_threads(), strcmp(res.reason, "interrupted") ? "false" : "true", res.seconds);
  if (!strcmp(res.reason, "interrupted")) {
    tb_cliError("interrupted: the last accepted point written as a partial fit");
    rc = 130;
  }
done:
  // a whole fit needs no journal; an interrupted or failed one's is kept for --resume
  tb_memoClose(&memo, rc == 0);
  tb_outAbort(&log);  // a failed fit leaves no half log
  tb_freeFitResult(&res);
  tb_freeObs(&obs);
  free(param0);
  tb_freeModel(m);
  return rc;
}

int tb_estimateMain(int argc, char** argv) {
  if (argc < 1) return tb_cliError("estimate needs synth, pf or fit (see tumble estimate --help)");
  if (tb_helpAsked(argc, argv)) {
    tb_estimateUsage(stdout);
    return 0;
  }
  static tbEstArgs a;
  memset(&a, 0, sizeof(a));
  a.scene = -1;
  a.replay = -1;
  a.scan = -1;
  if (!strcmp(argv[0], "synth")) {
    a.cmd = 0;
  } else if (!strcmp(argv[0], "pf")) {
    a.cmd = 1;
  } else if (!strcmp(argv[0], "fit")) {
    a.cmd = 2;
  } else {
    return tb_cliError("estimate %s: unknown command (synth, pf or fit)", argv[0]);
  }
  int rc = tb_parseEstimate(argc - 1, argv + 1, &a);
  if (rc) return rc;
  return a.cmd == 0   ? tb_synth(&a)
         : a.cmd == 1 ? tb_pf(&a, argc - 1, argv + 1)
                      : tb_fit(&a, argc - 1, argv + 1);
}
