// Command line: `tumble simulate ...` and the default main job.
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tumble/grasp.h>
#include <tumble/mjcf.h>
#include <tumble/plate.h>
#include <tumble/rng.h>
#include <tumble/scenes.h>
#include <tumble/sweep.h>
#include <tumble/tb_math.h>
#include <tumble/tumble.h>
#include <tumble/version.h>

#include "cli.h"
#include "gpu.h"

#define TB_MAXPARAMARG 64

// bytes of the valid UTF-8 character at p, or 0 for a control byte or a byte that starts none
static int tb_utf8Length(const unsigned char* p) {
  if (*p < 0x20 || *p == 0x7f) return 0;
  int n = *p < 0x80 ? 1 : *p < 0xc2 ? 0 : *p < 0xe0 ? 2 : *p < 0xf0 ? 3 : *p < 0xf5 ? 4 : 0;
  for (int k = 1; k < n; k++) {
    if ((p[k] & 0xc0) != 0x80) return 0;
  }
  return n;
}

int tb_cliError(const char* fmt, ...) {
  char msg[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  // a message quoting a binary file's bytes stays one line a terminal shows as it is
  fputs("tumble: error: ", stderr);
  for (const unsigned char* p = (const unsigned char*)msg; *p;) {
    int n = tb_utf8Length(p);
    if (n) {
      fwrite(p, 1, (size_t)n, stderr);
      p += n;
    } else {
      fprintf(stderr, "\\x%02x", *p++);
    }
  }
  fputc('\n', stderr);
  return 2;
}

int tb_parseNumber(const char* what, const char* s, double* out) {
  char* end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (!s[0] || end == s || *end) return tb_cliError("%s: '%s' is not a number", what, s);
  if (errno == ERANGE) return tb_cliError("%s: %s is out of the range of a double", what, s);
  *out = v;
  return 0;
}

int tb_optionValue(const char* arg, const char* val) {
  if (strncmp(arg, "--", 2) != 0)
    return tb_cliError("unexpected argument '%s' (options start with --)", arg);
  return val ? 0 : tb_cliError("%s needs a value", arg);
}

void tb_jsonNumber(char* buf, size_t len, const char* fmt, double v) {
  if (isfinite(v)) {
    snprintf(buf, len, fmt, v);
  } else {
    snprintf(buf, len, "null");
  }
}

int tb_parseInt(const char* what, const char* s, long lo, long hi, long* out) {
  double v = 0.0;
  if (tb_parseNumber(what, s, &v)) return 2;
  if (v != floor(v) || v < lo || v > hi) {
    return tb_cliError("%s: %s must be a whole number in [%ld, %ld]", what, s, lo, hi);
  }
  *out = (long)v;
  return 0;
}

int tb_parseGrid(const char* what, const char* s, int* nx, int* ny) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%s", s);
  char* x = strchr(buf, 'x');
  long a, b;
  if (x) *x = 0;
  if (tb_parseInt(what, buf, 1, 4096, &a)) return 2;
  if (x) {
    if (tb_parseInt(what, x + 1, 1, 4096, &b)) return 2;
  } else {
    b = a;
  }
  *nx = (int)a;
  *ny = (int)b;
  return 0;
}

int tb_parseLength(const char* what, const char* s, double bare_unit, double* out) {
  static const struct {
    const char* suffix;
    double scale;
  } units[] = {{"mm", 1e-3}, {"cm", 1e-2}, {"m", 1.0}};
  char buf[64];
  snprintf(buf, sizeof(buf), "%s", s);
  size_t n = strlen(buf);
  double scale = bare_unit;
  for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
    size_t k = strlen(units[u].suffix);
    if (n > k && !strcmp(buf + n - k, units[u].suffix)) {
      buf[n - k] = 0;
      scale = units[u].scale;
      break;
    }
  }
  double v = 0.0;
  if (tb_parseNumber(what, buf, &v)) return 2;
  if (!isfinite(v)) return tb_cliError("%s: %s must be finite", what, s);
  *out = v * scale;
  return 0;
}

// the unit suffix of a length ("mm", "cm", "m") or "" for none
static const char* tb_lengthUnit(const char* s) {
  size_t n = strlen(s);
  if (n > 2 && (!strcmp(s + n - 2, "mm") || !strcmp(s + n - 2, "cm"))) return s + n - 2;
  if (n > 1 && s[n - 1] == 'm') return s + n - 1;
  return "";
}

int tb_parseLengths(const char* what, const char* s, double bare_unit, double* out, int max) {
  char buf[128];
  const char* tok[8];
  snprintf(buf, sizeof(buf), "%s", s);
  int n = 0;
  for (char *p = buf, *x; p; p = x ? x + 1 : NULL) {
    x = strchr(p, 'x');
    if (x) *x = 0;
    if (n == max || n == 8) return tb_cliError("%s %s: at most %d lengths", what, s, max), -1;
    tok[n++] = p;
  }
  const char* unit = "";
  double v[8];
  for (int i = n - 1; i >= 0; i--) {
    const char* u = tb_lengthUnit(tok[i]);
    if (u[0]) unit = u;
    char one[160];
    snprintf(one, sizeof(one), "%s%s", tok[i], u[0] ? "" : unit);
    if (tb_parseLength(what, one, bare_unit, &v[i])) return -1;
  }
  memcpy(out, v, sizeof(double) * n);
  return n;
}

int tb_parseDevice(const char* command, const char* val) {
  int dev = !strcmp(val, "cpu")    ? TB_DEVICE_CPU
            : !strcmp(val, "gpu")  ? TB_DEVICE_GPU
            : !strcmp(val, "auto") ? TB_DEVICE_AUTO
                                   : -1;
  if (dev < 0) return tb_cliError("--device %s: expected auto, cpu or gpu", val);
  if (tb_setDevice(dev) != TB_OK) return tb_cliError("%s: %s", command, tb_lastError());
  return 0;
}

int tb_parseSolver(const char* val, int* solver) {
  *solver = tb_findSolver(val);
  return *solver < 0 ? tb_cliError("--solver %s: unknown (see tumble solve --list)", val) : 0;
}

int tb_parsePrecision(const char* val) {
  int prec = !strcmp(val, "fp64") ? TB_FP64 : !strcmp(val, "fp32") ? TB_FP32 : -1;
  if (prec < 0) return tb_cliError("--precision %s: expected fp64 or fp32", val);
  tb_setPrecision(prec);
  if (prec == TB_FP32) {
    fprintf(stderr, "tumble: precision fp32: step solver tolerances below %g run at %g\n",
            TB_FP32_MIN_TOL, TB_FP32_MIN_TOL);
  }
  return 0;
}

const char* tb_precisionName(void) {
  return tb_getPrecision() == TB_FP32 ? "fp32" : "fp64";
}

const char* tb_deviceName(void) {
  return tb_rolloutDevice() == TB_DEVICE_GPU ? "gpu" : "cpu";
}

const char* tb_studyDevice(void) {
  return tb_shareRoot(tb_rolloutDevice()) == TB_DEVICE_GPU ? "gpu" : "cpu";
}

// the command line's default is auto, said once when it finds a GPU
static void tb_defaultDevice(void) {
  tb_setDevice(TB_DEVICE_AUTO);
  if (tb_gpuDeviceCount() == 0) return;
  char name[256];
  tb_gpuDeviceName(name, sizeof(name));
  fprintf(stderr, "tumble: device auto: the GPU path on %s (--device cpu for the CPU path)\n",
          name);
}

static int tb_yes;

int tb_parseYes(const char* arg) {
  if (strcmp(arg, "--yes")) return 0;
  tb_yes = 1;
  return 1;
}

// an hour to a day of a 2-core CPU's scene-steps (1e4 per second for a box stack, 3e5 for a
// particle; the default grasp study is 2e7): a slip of the keyboard (--steps 1000000000,
// --grid 4096x4096) more often than a plan
#define TB_COST_CAP 1e9

int tb_cliCostCheck(const char* command, const char* unit, double n, double steps) {
  double cost = n * steps;
  if (cost < TB_COST_CAP || tb_yes) return 0;
  return tb_cliError(
      "%s: %.0f %s x %.0f steps = %.3g scene-steps, at or over the %.0e that need --yes "
      "(hours or more on a CPU; a GPU or many processes, README: MPI); add --yes to start it",
      command, n, unit, steps, cost, TB_COST_CAP);
}

int tb_parseBatchOption(const char* command, const char* arg, const char* val, const char** out) {
  if (!strcmp(arg, "--device")) return tb_parseDevice(command, val);
  if (!strcmp(arg, "--precision")) return tb_parsePrecision(val);
  if (!strcmp(arg, "--threads")) return tb_parseThreads(arg, val);
  if (!strcmp(arg, "--out")) {
    if (!val[0]) return tb_cliError("--out: empty path");
    if (val[strlen(val) - 1] == '/')
      return tb_cliError("--out %s: a directory; give a file name (or a name prefix) in it", val);
    *out = val;
    return 0;
  }
  return -1;
}

// threads of the probe wait here until all of them exist, so that their stacks are held at once
typedef struct tbThreadProbe {
  pthread_mutex_t lock;
  pthread_cond_t go;
  int released;
} tbThreadProbe;

static void* tb_probeThread(void* arg) {
  tbThreadProbe* p = (tbThreadProbe*)arg;
  pthread_mutex_lock(&p->lock);
  while (!p->released) pthread_cond_wait(&p->go, &p->lock);
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

// whether n - 1 more threads can exist at once: where they cannot (a memory limit), OpenMP's
// runtime would end the process with its own message in the middle of a run; 0 or an errno
static int tb_threadsAvailable(int n) {
  tbThreadProbe p = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
  pthread_t* th = (pthread_t*)malloc(sizeof(pthread_t) * (size_t)n);
  if (!th) return ENOMEM;
  int made = 0, err = 0;
  while (made < n - 1 && !(err = pthread_create(&th[made], NULL, tb_probeThread, &p))) made++;
  pthread_mutex_lock(&p.lock);
  p.released = 1;
  pthread_cond_broadcast(&p.go);
  pthread_mutex_unlock(&p.lock);
  for (int i = 0; i < made; i++) pthread_join(th[i], NULL);
  free(th);
  return err;
}

int tb_parseThreads(const char* what, const char* s) {
  long t = 0;
  int rc = tb_parseInt(what, s, 1, 4096, &t);
  if (rc) return rc;
  int err = tb_threadsAvailable((int)t);
  if (err)
    return tb_cliError("%s %ld: cannot start that many threads (%s)", what, t, strerror(err));
  omp_set_num_threads((int)t);
  return 0;
}

//---- parameter values --------------------------------------------------------------------------

// one --param NAME=SPEC (tbParamSpec)
typedef struct tbParamArg {
  char name[TB_NAMELEN];
  tbParamSpec spec;
  int structural;  // taken by the scene's build, not a parameter
} tbParamArg;

static int tb_parseParamArg(const char* arg, tbParamArg* out) {
  const char* eq = strchr(arg, '=');
  if (!eq || eq == arg || (size_t)(eq - arg) >= TB_NAMELEN) {
    return tb_cliError("--param %s: expected NAME=VALUE", arg);
  }
  memset(out, 0, sizeof(*out));
  memcpy(out->name, arg, (size_t)(eq - arg));
  char what[96];
  snprintf(what, sizeof(what), "--param %s", out->name);
  if (tb_parseParamSpec(what, eq + 1, &out->spec)) return tb_cliError("%s", tb_lastError());
  return 0;
}

//---- simulate ----------------------------------------------------------------------------------

typedef struct tbSimArgs {
  int scene;          // built-in scene, or -1 with model
  const char* model;  // --model FILE.xml
  char name[256];     // the scene's name, or the model file's without directory and .xml
  int list;           // --list: the model's parameters
  int build_given;    // --cone, --facets or --align (built-in scenes only)
  long nscene, nstep, every;
  long seed;
  int nparam;
  tbParamArg param[TB_MAXPARAMARG];
  const char* out;
  tbBuild build;
  int steps_given;
  int solver;              // the step solver, -1: the scene's
  int delassus;            // tbtDelassus
  long max_iter;           // its iteration cap, 0: the scene's
  double solver_tol;       // its tolerance, 0: the scene's
  const char* export_dir;  // the recorded steps' problems as FC3D files here, or NULL
  long replay;             // --replay K: scene K's replay, -1: none
  tbReplayOpt replay_opt;
  int resume;  // --resume: the scenes FILE.journal holds are restored, not run
} tbSimArgs;

static void tb_printParams(const tbModel* m) {
  for (int p = 0; p < m->nparam; p++) {
    const tbParam* prm = &m->param[p];
    printf("  %-12s %-8s %-12g %s\n", prm->name, prm->unit, prm->value, prm->doc);
  }
}

static void tb_printList(void) {
  for (int i = 0; i < tb_sceneCount(); i++) {
    const tbSceneInfo* si = tb_sceneInfo(i);
    tbBuild b = tb_defaultBuild(i);
    tbModel* m = tb_buildScene(i, &b);
    printf("%s: %s (default %d steps)\n", si->name, si->doc, si->steps);
    for (int k = 0; k < si->nopt; k++) {
      const tbSceneOption* o = &si->opt[k];
      printf("  %-12s %-8s %-12g %s (structural, one value per batch)\n", o->name, o->unit,
             o->value, o->doc);
    }
    if (m) tb_printParams(m);
    tb_freeModel(m);
  }
}

static int tb_parseCone(const char* s, int* cone) {
  if (!strcmp(s, "exact")) {
    *cone = TB_CONE_EXACT;
  } else if (!strcmp(s, "pyramid")) {
    *cone = TB_CONE_PYRAMID;
  } else {
    return tb_cliError("--cone %s: expected exact or pyramid", s);
  }
  return 0;
}

// the name outputs carry: the scene's, or the model file's without directory and extension
static void tb_simName(tbSimArgs* a) {
  if (!a->model) {
    snprintf(a->name, sizeof(a->name), "%s", tb_sceneInfo(a->scene)->name);
    return;
  }
  const char* base = strrchr(a->model, '/');
  base = base ? base + 1 : a->model;
  size_t len = strlen(base);
  if (len > 4 && !strcmp(base + len - 4, ".xml")) len -= 4;
  snprintf(a->name, sizeof(a->name), "%.*s", (int)len, base);
}

static int tb_parseSimulate(int argc, char** argv, tbSimArgs* a) {
  memset(a, 0, sizeof(*a));
  a->scene = -1;
  a->nscene = 1;
  a->solver = -1;
  a->replay = -1;
  a->replay_opt = tb_defaultReplayOpt(-1);
  for (int i = 0; i < argc; i++) {
    const char* arg = argv[i];
    const char* val = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = 0;
    if (arg[0] != '-') {
      if (a->scene >= 0 || a->model) return tb_cliError("unexpected argument '%s'", arg);
      a->scene = tb_findScene(arg);
      if (a->scene < 0) return tb_cliError("unknown scene '%s' (see tumble simulate --list)", arg);
      a->build = tb_defaultBuild(a->scene);
      continue;
    }
    if (!strcmp(arg, "--align")) {
      a->build.facet_align = 1;
      a->build_given = 1;
      continue;
    }
    if (tb_parseYes(arg)) continue;
    if (!strcmp(arg, "--list")) {
      a->list = 1;
      continue;
    }
    if (!strcmp(arg, "--resume")) {
      a->resume = 1;
      continue;
    }
    if (!val) return tb_cliError("%s needs a value", arg);
    i++;
    if (!strcmp(arg, "--model")) {
      if (a->scene >= 0 || a->model) return tb_cliError("--model %s: one scene or model", val);
      a->model = val;
    } else if (!strcmp(arg, "--scenes")) {
      rc = tb_parseInt(arg, val, 1, 1000000000L, &a->nscene);
    } else if (!strcmp(arg, "--steps")) {
      rc = tb_parseInt(arg, val, 0, 1000000000L, &a->nstep);
      a->steps_given = 1;
    } else if (!strcmp(arg, "--every")) {
      rc = tb_parseInt(arg, val, 0, 1000000000L, &a->every);
    } else if (!strcmp(arg, "--seed")) {
      rc = tb_parseInt(arg, val, 0, 2147483647L, &a->seed);
    } else if (!strcmp(arg, "--dt") || !strcmp(arg, "--param")) {
      if (a->nparam == TB_MAXPARAMARG) return tb_cliError("too many --param");
      char buf[160];
      snprintf(buf, sizeof(buf), "%s%s", strcmp(arg, "--dt") ? "" : "dt=", val);
      rc = tb_parseParamArg(buf, &a->param[a->nparam++]);
    } else if (!strcmp(arg, "--cone")) {
      rc = tb_parseCone(val, &a->build.cone);
      a->build_given = 1;
    } else if (!strcmp(arg, "--facets")) {
      a->build_given = 1;
      long f;
      rc = tb_parseInt(arg, val, 3, 256, &f);
      a->build.facets = (int)f;
    } else if (!strcmp(arg, "--solver")) {
      rc = tb_parseSolver(val, &a->solver);
    } else if (!strcmp(arg, "--delassus")) {
      a->delassus = !strcmp(val, "dense")  ? TB_DELASSUS_DENSE
                    : !strcmp(val, "auto") ? TB_DELASSUS_AUTO
                                           : -1;
      if (a->delassus < 0) rc = tb_cliError("--delassus %s: expected auto or dense", val);
    } else if (!strcmp(arg, "--max-iter")) {
      rc = tb_parseInt(arg, val, 1, 1000000L, &a->max_iter);
    } else if (!strcmp(arg, "--replay")) {
      rc = tb_parseInt(arg, val, 0, 1000000000L, &a->replay);
    } else if (!strcmp(arg, "--export-problems")) {
      a->export_dir = val;
    } else if (!strcmp(arg, "--solver-tol")) {
      rc = tb_parseNumber(arg, val, &a->solver_tol);
      if (!rc && !(a->solver_tol > 0.0)) rc = tb_cliError("--solver-tol %s: must be > 0", val);
    } else if ((rc = tb_parseReplayOption(arg, val, &a->replay_opt)) < 0) {
      rc = tb_parseBatchOption("simulate", arg, val, &a->out);
      if (rc < 0) return tb_cliError("unknown option '%s'", arg);
    }
    if (rc) return rc;
  }
  if (a->scene < 0 && !a->model)
    return tb_cliError("simulate needs a scene (see tumble simulate --list) or --model FILE.xml");
  if (a->list && !a->model) return tb_cliError("--list: of a --model's parameters");
  if (a->model && a->build_given)
    return tb_cliError("--model %s: the cone is the file's (<option cone=...>)", a->model);
  tb_simName(a);
  if (a->export_dir && a->build.cone != TB_CONE_EXACT)
    return tb_cliError("--export-problems writes FC3D files, the exact cone: not --cone pyramid");
  if (a->export_dir && a->out)
    return tb_cliError("--export-problems steps scene by scene and records no --out");
  if (!a->steps_given) a->nstep = a->model ? 1000 : tb_sceneInfo(a->scene)->steps;
  if (a->replay >= a->nscene)
    return tb_cliError("--replay %ld: the batch has %ld scenes", a->replay, a->nscene);
  if (a->replay >= 0 && a->export_dir)
    return tb_cliError("--replay and --export-problems: one at a time");
  if (a->resume && (!a->out || a->replay >= 0))
    return tb_cliError("--resume continues a batch written to --out (its FILE.journal)");
  return 0;
}

// structural options set the build; they must hold one value for the whole batch
static int tb_applyStructural(tbSimArgs* a) {
  if (a->model) return 0;
  const tbSceneInfo* si = tb_sceneInfo(a->scene);
  for (int i = 0; i < a->nparam; i++) {
    for (int k = 0; k < si->nopt; k++) {
      if (strcmp(a->param[i].name, si->opt[k].name)) continue;
      if (a->param[i].spec.kind != TB_SPEC_VALUE) {
        return tb_cliError("--param %s: structural, takes one value for the whole batch",
                           si->opt[k].name);
      }
      a->build.opt[k] = a->param[i].spec.a;
      a->param[i].structural = 1;
    }
  }
  return 0;
}

static int tb_fillParams(const tbModel* m, tbData* d, const tbSimArgs* a) {
  for (int i = 0; i < a->nparam; i++) {
    if (a->param[i].structural) continue;
    // --dt is a file's opt.timestep
    const char* name =
        a->model && !strcmp(a->param[i].name, "dt") ? "opt.timestep" : a->param[i].name;
    int p = tb_findParam(m, name);
    if (p < 0) {
      return tb_cliError("%s '%s' has no parameter '%s' (see tumble simulate %s--list)",
                         a->model ? "model" : "scene", a->name, name,
                         a->model ? "--model FILE " : "");
    }
    for (int s = 0; s < d->nscene; s++) {
      d->param[(size_t)s * m->nparam + p] =
          tb_paramSpecValue(&a->param[i].spec, p, s, d->nscene, (uint64_t)a->seed);
    }
  }
  if (tb_checkParams(m, d) != TB_OK) return tb_cliError("%s", tb_lastError());
  return 0;
}

static void tb_writeSceneSummary(FILE* f, const tbModel* m, const tbData* d, int ndone) {
  tb_sceneSummaryHeader(f, m);
  fputc('\n', f);
  for (int s = 0; s < d->nscene; s++) {
    tb_sceneSummaryRow(f, m, d, s, s, s < ndone);
    fputc('\n', f);
  }
}

static void tb_printSummary(const tbData* d, const tbSimArgs* a, int ndone, double seconds) {
  int failed = 0, unconverged = 0, buried = 0, first = -1;
  double rmax = 0.0, iters = 0.0;
  for (int s = 0; s < ndone; s++) {
    iters += (double)d->iter_sum[s];
    failed += (d->status[s] & TB_SCENE_FAILMASK) != 0;
    unconverged += (d->status[s] & TB_SCENE_UNCONVERGED) != 0;
    rmax = d->resid_max[s] > rmax ? d->resid_max[s] : rmax;
    if ((d->status[s] & TB_SCENE_START_FAIL) && !buried++) first = s;
  }
  // bad starting values, not a failing step: said apart from the failures
  if (buried) {
    fprintf(stderr,
            "tumble: simulate: %d scene(s) start with a shape sunk into another (starts-buried; "
            "scene %d first): their parameters place bodies inside each other\n",
            buried, first);
  }
  double ss = (double)ndone * a->nstep;
  printf(
      "{\"scene\": \"%s\", \"scenes\": %d, \"steps\": %ld, \"seconds\": %.6f, "
      "\"scene_steps_per_s\": %.6g, \"failed\": %d, \"unconverged\": %d, "
      "\"max_residual\": %.3g, \"mean_iterations\": %.3g, \"threads\": %d, "
      "\"device\": \"%s\", \"precision\": \"%s\", \"partial\": %s}\n",
      a->name, ndone, a->nstep, seconds, seconds > 0 ? ss / seconds : 0.0, failed, unconverged,
      rmax, ss > 0 ? iters / ss : 0.0, omp_get_max_threads(), tb_deviceName(), tb_precisionName(),
      ndone < d->nscene ? "true" : "false");
}

// the recorded steps' problems as DIR/SCENE-sS-kK.dat (tb_exportProblems)
static int tb_exportProblemsTo(const tbModel* m, tbData* d, const tbSimArgs* a) {
  if (mkdir(a->export_dir, 0777) && errno != EEXIST)
    return tb_cliError("--export-problems %s: %s", a->export_dir, strerror(errno));
  char stem[4096];
  snprintf(stem, sizeof(stem), "%s/%s", a->export_dir, a->name);
  int written;
  int rc = tb_exportProblems(m, d, (int)a->nstep, (int)a->every, stem, &written);
  if (rc == TB_ERR_MEMORY) return tb_cliError("--export-problems: out of memory");
  if (rc != TB_OK) return tb_cliError("--export-problems: %s", tb_lastError());
  fprintf(stderr, "tumble: wrote %d problem files to %s\n", written, a->export_dir);
  return 0;
}

// the summary's path next to the trajectories': FILE.csv -> FILE-scenes.csv
static int tb_summaryPath(const char* out, char* buf, size_t n) {
  size_t len = strlen(out);
  if (len > 4 && !strcmp(out + len - 4, ".csv")) len -= 4;
  return snprintf(buf, n, "%.*s-scenes.csv", (int)len, out) >= (int)n;
}

// The journal of a simulation with --out (FILE.journal): each finished chunk's scenes packed
// whole (their state, statistics and records: tb_packScenes), so that --resume restores them and
// runs the rest; the outputs are then bitwise those of a run never stopped.
typedef struct tbSimJournal {
  tbJournal j;
  const tbModel* m;
  tbData* d;
  tbRecord* rec;
  int bad;  // a block that does not fit the batch
} tbSimJournal;

static void tb_simReplayBlock(void* ctx, long first, long end, const char* bytes, size_t len) {
  tbSimJournal* sj = (tbSimJournal*)ctx;
  size_t per = tb_packedBytes(sj->m, sj->rec, NULL);
  if (sj->bad || end > sj->d->nscene || len != per * (size_t)(end - first) ||
      tb_packScenes(sj->m, sj->d, (int)first, (int)end, sj->rec, NULL, (char*)bytes, 0) != TB_OK)
    sj->bad = 1;
}

// scenes [s0, s1) into the journal: 0, or 2 after an error message
static int tb_simJournalAppend(tbSimJournal* sj, int s0, int s1) {
  size_t per = tb_packedBytes(sj->m, sj->rec, NULL);
  char* buf = (char*)calloc(per * (size_t)(s1 - s0), 1);  // zeroed: the padding is journaled
  if (!buf) return tb_cliError("--out %s: out of memory for the journal", sj->j.path);
  tb_packScenes(sj->m, sj->d, s0, s1, sj->rec, NULL, buf, 1);  // aligned: cannot fail
  int rc = tb_journalAppend(&sj->j, s0, s1, buf, per * (size_t)(s1 - s0));
  free(buf);
  return rc;
}

// the rollout in chunks of scenes from scene `begin`, so that Ctrl-C stops after one and the
// journal (sj, or NULL) gets each (the results are bitwise those of one rollout); the scenes
// done, or -1 after an error message
static int tb_simulateChunks(const tbModel* m, tbData* d, int nstep, tbRecord* rec,
                             tbSimJournal* sj, int begin) {
  // rank 0's for every process of a share: all must make the same rollouts
  int chunk =
      tb_shareRoot(tb_rolloutDevice() == TB_DEVICE_GPU ? d->nscene : 256 * omp_get_max_threads());
  tbProgress prog;
  tb_progressStartOn(&prog, stderr, d->nscene, "simulate", "scenes");
  tb_progressUpdate(&prog, begin);
  int done = begin;
  while (done < d->nscene && !tb_interrupted()) {
    int s1 = d->nscene - done < chunk ? d->nscene : done + chunk;
    if (tb_rollout(m, d, done, s1, nstep, rec) != TB_OK) {
      tb_cliError("%s", tb_lastError());
      done = -1;
      break;
    }
    if (sj && tb_simJournalAppend(sj, done, s1)) {
      done = -1;
      break;
    }
    done = s1;
    tb_progressUpdate(&prog, done);
  }
  tb_progressFinish(&prog);
  return done;
}

void tb_commandKey(const char* command, int argc, char** argv, char* key, size_t n) {
  size_t len = (size_t)snprintf(key, n, "%s %s %s device %s", command, TUMBLE_VERSION,
                                TUMBLE_COMMIT, tb_studyDevice());
  for (int i = 0; i < argc && len < n; i++) {
    if (!strcmp(argv[i], "--resume") || !strcmp(argv[i], "--yes")) continue;
    if (!strcmp(argv[i], "--out") || !strcmp(argv[i], "--threads")) {
      i++;
      continue;
    }
    len += (size_t)snprintf(key + len, n - len, " %s", argv[i]);
  }
}

// FNV-1a of a file's bytes (tb_journalHash's); 0, or -1 with errno
static int tb_fileHash(const char* path, uint64_t* h) {
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  char* buf = NULL;
  size_t n = 0;
  int rc = fseek(f, 0, SEEK_END) || (long)(n = (size_t)ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
           !(buf = (char*)malloc(n + 1)) || fread(buf, 1, n, f) != n;
  if (!rc) *h = tb_journalHash(buf, n);
  free(buf);
  fclose(f);
  return rc ? -1 : 0;
}

// the journal FILE.journal of the simulation the command line names; 0, or 2
static int tb_simJournalOpen(tbSimJournal* sj, const tbSimArgs* a, int argc, char** argv,
                             long* next) {
  char key[8192], path[4200];
  tb_commandKey("simulate", argc, argv, key, sizeof(key));
  if (a->model) {  // the file's content, not only its name
    uint64_t h;
    if (tb_fileHash(a->model, &h)) return tb_cliError("--model %s: %s", a->model, strerror(errno));
    size_t len = strlen(key);
    snprintf(key + len, sizeof(key) - len, " model %016llx", (unsigned long long)h);
  }
  snprintf(path, sizeof(path), "%s.journal", a->out);
  int rc = tb_journalOpenBlocks(&sj->j, path, key, a->resume, next, tb_simReplayBlock, sj);
  if (!rc && sj->bad) {
    tb_journalClose(&sj->j, 0);
    rc = tb_cliError("--resume %s: a block does not fit this batch", path);
  }
  return rc;
}

// --replay K: scene K of the batch alone (bitwise the batch's: scenes are independent) as
// STEM.csv and STEM.mp4, STEM the --out path without its .csv, or SCENE-replay-K
static int tb_simulateReplay(const tbModel* m, const tbData* d, tbSimArgs* a) {
  const char* name = a->name;
  char stem[4096];
  if (a->out) {
    size_t len = strlen(a->out);
    if (len > 4 && !strcmp(a->out + len - 4, ".csv")) len -= 4;
    snprintf(stem, sizeof(stem), "%.*s", (int)len, a->out);
  } else {
    snprintf(stem, sizeof(stem), "%s-replay-%ld", name, a->replay);
  }
  tbData* one = tb_newData(m, 1);
  if (!one) return tb_cliError("%s", tb_lastError());
  tb_copyScene(m, d, (int)a->replay, one, 0);
  tbCliReplay rep;
  int rc = tb_replayRun(&rep, stem, m, one, (int)a->nstep, &a->replay_opt);
  char text[96] = "", title[400], caption[130];
  if (!rc) {
    tb_statusText(one->status[0], text, sizeof(text));
    snprintf(title, sizeof(title), "%s, scene %ld: %s", name, a->replay, text);
    tb_paramCaption(m, one, caption, sizeof(caption));
    rc = tb_replayWrite(&rep, m, one, &a->replay_opt, title, caption);
  }
  if (!rc) {
    printf(
        "{\"scene\": \"%s\", \"replay\": %ld, \"status\": \"%s\", \"max_residual\": %.6g, "
        "\"trajectory\": \"%s\", \"video\": \"%s\"}\n",
        name, a->replay, text, one->resid_max[0], rep.csv.path, rep.video);
  }
  tb_replayEnd(&rep);
  tb_freeData(one);
  return rc;
}

static int tb_simulate(int argc, char** argv) {
  if (argc >= 1 && !strcmp(argv[0], "--list")) {
    tb_printList();
    return 0;
  }
  tbSimArgs a;
  int rc = tb_parseSimulate(argc, argv, &a);
  if (rc) return rc;
  if ((rc = tb_applyStructural(&a))) return rc;
  if (a.replay < 0 &&
      (rc = tb_cliCostCheck("simulate", "scenes", (double)a.nscene, (double)a.nstep)))
    return rc;
  tbModel* m = a.model ? tb_loadMJCF(a.model) : tb_buildScene(a.scene, &a.build);
  if (!m) return tb_cliError("%s", tb_lastError());
  if (a.list) {
    tb_printParams(m);
    tb_freeModel(m);
    return 0;
  }
  if (a.solver >= 0) m->opt.solver = a.solver;
  m->opt.delassus = a.delassus;
  if (a.max_iter > 0) m->opt.max_iter = (int)a.max_iter;
  if (a.solver_tol > 0.0) m->opt.tol = a.solver_tol;
  tbData* d = tb_newData(m, (int)a.nscene);
  tbRecord rec = {0};
  tbOutFile traj = {0}, summary = {0};
  tbSimJournal sj = {0};
  long begin = 0;
  if (!d) {
    rc = tb_cliError("%s", tb_lastError());
    goto done;
  }
  if ((rc = tb_fillParams(m, d, &a))) goto done;
  if (tb_resetData(m, d) != TB_OK) {
    rc = tb_cliError("%s", tb_lastError());
    goto done;
  }
  if (a.replay >= 0) {
    rc = tb_simulateReplay(m, d, &a);
    goto done;
  }
  int h5 = a.out && tb_isH5(a.out);
  if (a.out) {
    char path[4096];
    if (tb_summaryPath(a.out, path, sizeof(path))) {
      rc = tb_cliError("--out %s: path too long", a.out);
      goto done;
    }
    if ((rc = tb_cliOutOpen(&traj, "--out", a.out)) ||
        (!h5 && (rc = tb_cliOutOpen(&summary, "--out", path))) ||
        (rc = tb_newRecord(&rec, m, d->nscene, (int)a.nstep, (int)a.every)))
      goto done;
    sj.m = m;
    sj.d = d;
    sj.rec = &rec;
    if ((rc = tb_simJournalOpen(&sj, &a, argc, argv, &begin))) goto done;
  }
  tb_catchInterrupt();
  double t0 = omp_get_wtime();
  int ndone = d->nscene;
  if (a.export_dir) {
    if ((rc = tb_exportProblemsTo(m, d, &a))) goto done;
  } else if ((ndone = tb_simulateChunks(m, d, (int)a.nstep, a.out ? &rec : NULL, a.out ? &sj : NULL,
                                        (int)begin)) < 0) {
    rc = 2;
    goto done;
  }
  double seconds = omp_get_wtime() - t0;
  if (h5) {
    if ((rc = tb_writeSimulateH5(&traj, a.name, m, &rec, d, ndone))) goto done;
  } else if (a.out) {
    tb_writeTrajectories(traj.f, m, &rec, d, ndone);
    tb_writeSceneSummary(summary.f, m, d, ndone);
    if ((rc = tb_cliOutCommit(&traj, "--out")) || (rc = tb_cliOutCommit(&summary, "--out")))
      goto done;
  }
  tb_printSummary(d, &a, ndone, seconds);
  if (ndone < d->nscene) {
    tb_cliError("interrupted: %d of %d scenes done%s", ndone, d->nscene,
                a.out ? ", written as a partial run" : "");
    rc = 130;
  }
done:
  // whole outputs need no journal; a partial or failed run's is kept for --resume
  tb_journalClose(&sj.j, rc == 0);
  tb_outAbort(&traj);
  tb_outAbort(&summary);
  tb_freeRecord(&rec);
  tb_freeData(d);
  tb_freeModel(m);
  return rc;
}

// tumble model FILE.xml: each body as the engine holds it, world frame at the initial pose: mass,
// center of mass, inertia about it, twist (velocity of the center of mass; angular velocity)
static int tb_modelMain(int argc, char** argv) {
  if (argc != 1) return tb_cliError("usage: tumble model FILE.xml");
  tbModel* m = tb_loadMJCF(argv[0]);
  if (!m) return tb_cliError("%s", tb_lastError());
  static const char* types[3] = {"static", "dynamic", "kinematic"};
  printf("body,type,lock,mass,com_x,com_y,com_z,I_xx,I_yy,I_zz,I_xy,I_xz,I_yz,vx,vy,vz,wx,wy,wz\n");
  for (int b = 0; b < m->nbody; b++) {
    const tbBodyDef* bd = &m->bdef[b];
    double I[9];
    tbu_inertiaWorld(I, bd->quat, bd->inertia);
    const double v[13] = {bd->mass, bd->pos[0], bd->pos[1], bd->pos[2], I[0],       I[4],      I[8],
                          I[1],     I[2],       I[5],       bd->vel[0], bd->vel[1], bd->vel[2]};
    printf("%s,%s,%d", m->body_name[b], types[bd->type], bd->lock);
    for (int k = 0; k < 13; k++) printf(",%.17g", v[k]);
    printf(",%.17g,%.17g,%.17g\n", bd->vel[3], bd->vel[4], bd->vel[5]);
  }
  tb_freeModel(m);
  return 0;
}

static void tb_usage(FILE* f) {
  fprintf(
      f,
      "usage: tumble [COMMAND ...]   (tumble --version: version and commit)\n"
      "  tumble                      the default main job: the grasp study (tumble grasp)\n"
      "  tumble simulate --list      built-in scenes with their parameters\n"
      "  tumble simulate --model FILE.xml --list   an MJCF model's parameters\n"
      "  tumble simulate SCENE|--model FILE.xml [--scenes N] [--steps K] [--dt H] [--param "
      "NAME=VALUE]...\n"
      "         [--cone exact|pyramid] [--facets N] [--align] [--solver NAME] [--max-iter K]\n"
      "         [--delassus auto|dense]\n"
      "         [--solver-tol T] [--every K] [--seed S] [--threads T]\n"
      "         [--device auto|cpu|gpu] [--precision fp64|fp32]\n"
      "         [--out FILE.csv|FILE.h5 [--resume]] [--yes]\n"
      "         [--export-problems DIR]\n"
      "         [--replay K [--replay-speed S] [--view top|side]]   scene K alone, with a video\n"
      "  VALUE: a number, LO:HI (evenly spread over the scenes) or uniform:LO:HI\n"
      "  tumble model FILE.xml       an MJCF model's bodies: mass, inertia, initial state\n"
      "  tumble solve FILE [--solver NAME|all] [--tol T] [--max-iter K] [--max-seconds S]\n"
      "         [--cone exact|pyramid] [--facets N]   one problem file (Siconos .dat, FCLib)\n"
      "  tumble solve --list         the solvers\n"
      "  tumble plate field [--motion NAME] [--param NAME=VALUE]... [--grid NxN]\n"
      "         [--extent CM] [--seconds T] [--dt H] [--mu MU] [--part particle|box]\n"
      "         [--out PREFIX]      velocity field of a plate motion: PREFIX.csv, .png\n"
      "  tumble plate motions        the named plate motions\n"
      "  tumble plate optimize --target circle|saddle|FILE [--optimizer nelder-mead|cmaes|"
      "both]\n"
      "         [--starts K] [--budget S] [--out PREFIX]   plate motion for a target field\n"
      "  tumble estimate synth|pf|fit --scene NAME ...   parameters from an observed\n"
      "         trajectory (tumble estimate --help)\n"
      "  tumble grasp [--grid 21x21] [--extent 20mm] [--trials 30] [--surface-mu medium]\n"
      "         [--gripper-mu high] [--speed normal|fast] [--out PREFIX]   planar grasp\n"
      "         probability map of the Brost-Christiansen study (tumble grasp --help)\n"
      "  tumble grasp3d [--object box|capsule|sphere] [--size S] [--mass M|LO:HI]\n"
      "         [--mu M|LO:HI] [--grid 11x11] [--extent 80mm] [--trials 20] [--seed S]\n"
      "         [--threads T] [--out PREFIX]   3D parallel-jaw grasp probability map\n");
}

static char tb_commandLine[4096];

const char* tb_cliCommandLine(void) {
  return tb_commandLine;
}

static void tb_keepCommandLine(int argc, char** argv) {
  size_t len = 0;
  for (int i = 0; i < argc && len < sizeof(tb_commandLine); i++) {
    len += (size_t)snprintf(tb_commandLine + len, sizeof(tb_commandLine) - len, "%s%s",
                            i ? " " : "", argv[i]);
  }
}

int tb_cliMain(int argc, char** argv) {
  tb_keepCommandLine(argc, argv);
  tb_defaultDevice();
  if (argc < 2) {
    // the default main job: the Brost-Christiansen grasp study on its defaults
    fprintf(stderr,
            "tumble: running the default study: tumble grasp (gear, 21x21 offsets, 30 trials "
            "each; tumble grasp --help)\n");
    return tb_graspMain(0, NULL);
  }
  if (!strcmp(argv[1], "simulate")) return tb_simulate(argc - 2, argv + 2);
  if (!strcmp(argv[1], "solve")) return tb_solveMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "model")) return tb_modelMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "plate")) return tb_plateMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "estimate")) return tb_estimateMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "grasp")) return tb_graspMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "grasp3d")) return tb_grasp3dMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "--version")) {
    printf("tumble %s (commit %s)\n", TUMBLE_VERSION, TUMBLE_COMMIT);
    return 0;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    tb_usage(stdout);
    return 0;
  }
  tb_usage(stderr);
  return tb_cliError("unknown command '%s'", argv[1]);
}
