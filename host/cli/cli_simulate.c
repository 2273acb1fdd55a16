// `tumble simulate`: a batch of one scene or MJCF model, its per-scene outputs, replays and
// exported problems.
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tumble/mjcf.h>
#include <tumble/reader.h>
#include <tumble/scenes.h>
#include <tumble/sweep.h>
#include <tumble/tumble.h>

#include "math/rng.h"

#include "cli/cli.h"
#include "rollout/rollout.h"

#define TB_MAXPARAMARG 64

//---- parameter values --------------------------------------------------------------------------

// one --param NAME=SPEC (tbParamSpec), or --dt SPEC
typedef struct tbParamArg {
  char name[TB_NAMELEN];
  char given[200];  // the option as typed, "--param NAME=SPEC" or "--dt SPEC", for messages
  tbParamSpec spec;
  int structural;  // taken by the scene's build, not a parameter
} tbParamArg;

// --param NAME=SPEC (opt "--param") or --dt SPEC (opt "--dt", arg "dt=SPEC")
static int tb_parseParamArg(const char* opt, const char* arg, tbParamArg* out) {
  const char* eq = strchr(arg, '=');
  if (!eq || eq == arg || (size_t)(eq - arg) >= TB_NAMELEN) {
    return tb_cliError("--param %s: expected NAME=VALUE", arg);
  }
  memset(out, 0, sizeof(*out));
  memcpy(out->name, arg, (size_t)(eq - arg));
  if (!strcmp(opt, "--dt")) {
    snprintf(out->given, sizeof(out->given), "--dt %s", eq + 1);
  } else {
    snprintf(out->given, sizeof(out->given), "--param %s", arg);
  }
  if (tb_parseParamSpec(out->given, eq + 1, &out->spec)) return tb_cliError("%s", tb_lastError());
  return 0;
}

//---- simulate ----------------------------------------------------------------------------------

static void tb_simulateUsage(FILE* f);

typedef struct tbSimArgs {
  int scene;          // built-in scene, or -1 with model
  const char* model;  // --model FILE.xml
  char name[256];     // the scene's name, or the model file's without directory and .xml
  int list;           // --list: the model's parameters
  char note[512];     // what the model file held that tumble read past (tb_loadMJCFNoting)
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

// the last --param (or --dt) against those before it: a second value for one name would
// silently replace the first
static int tb_checkRepeat(const tbSimArgs* a) {
  const tbParamArg* last = &a->param[a->nparam - 1];
  for (int i = 0; i < a->nparam - 1; i++) {
    if (strcmp(a->param[i].name, last->name)) continue;
    return tb_cliError(
        "%s: %s is already set by %s (one value per name; LO:HI spreads values "
        "over the scenes)",
        last->given, last->name, a->param[i].given);
  }
  return 0;
}

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
      if (a->scene < 0) return tb_unknownScene(NULL, arg);
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
      rc = tb_parseParamArg(arg, buf, &a->param[a->nparam++]);
      if (!rc) rc = tb_checkRepeat(a);
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
      if (rc < 0) return tb_unknownOption("simulate", arg, tb_simulateUsage);
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

// the model's parameter an argument sets (--dt: a file's opt.timestep), or -1
static int tb_paramOf(const tbModel* m, const tbSimArgs* a, const tbParamArg* pa) {
  int dt = !strcmp(pa->name, "dt");
  return tb_findParam(m, a->model && dt ? "opt.timestep" : pa->name);
}

// every scene's value of one --param (or --dt) in its parameter's range, and a time step at
// least the scene's shortest (tb_minStep); 0, or 2 after an error naming the option as given
static int tb_checkParamArg(const tbModel* m, const tbData* d, const tbSimArgs* a,
                            const tbParamArg* pa) {
  int p = tb_paramOf(m, a, pa);
  const tbParam* prm = &m->param[p];
  int dt = m->vary_adr[TB_F_OPT] + TB_OPT_DT == prm->target[0];
  int mass = prm->target[0] >= m->vary_adr[TB_F_BODY_MASS] &&
             prm->target[0] < m->vary_adr[TB_F_BODY_MASS] + m->nbody;
  for (int s = 0; s < d->nscene; s++) {
    double v = d->param[(size_t)s * m->nparam + p];
    int below = prm->lo_open ? !(v > prm->lo) : !(v >= prm->lo);
    if (mass && below && !prm->lo_open && prm->lo == TB_MIN_MASS) {
      return tb_cliError(
          "%s: %g kg (scene %d) is below %g kg, the smallest mass the solvers take (1/m and the "
          "Delassus entries it makes span no more than the masses do; tumble.h: TB_MIN_MASS)",
          pa->given, v, s, TB_MIN_MASS);
    }
    if (below || !(v <= prm->hi)) {
      return tb_cliError("%s: %g (scene %d) must be in %s%g, %g]%s%s (%s)", pa->given, v, s,
                         prm->lo_open ? "(" : "[", prm->lo, prm->hi, prm->unit[0] ? " " : "",
                         prm->unit, prm->doc);
    }
    double lo = dt ? tb_minStep(m, d, s) : 0.0;
    if (dt && !(v >= lo)) {
      return tb_cliError(
          "%s: %g s (scene %d) is below the smallest step %.2g s this scene allows: a body "
          "starting from rest under its gravity (at least 1 g) must move in one step by more than "
          "the rounding of its coordinates (tumble.h: tb_minStep)",
          pa->given, v, s, lo);
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
      char what[300];
      snprintf(what, sizeof(what), "%s '%s'", a->model ? "model" : "scene", a->name);
      return tb_unknownParam(
          m, a->model ? NULL : tb_sceneInfo(a->scene), name,
          a->model ? "see tumble simulate --model FILE --list" : "see tumble simulate --list",
          what);
    }
    for (int s = 0; s < d->nscene; s++) {
      d->param[(size_t)s * m->nparam + p] =
          tb_paramSpecValue(&a->param[i].spec, p, s, d->nscene, (uint64_t)a->seed);
    }
  }
  // the values given checked by the option that gave them, before tb_checkParams names the
  // parameters
  for (int i = 0; i < a->nparam; i++) {
    if (!a->param[i].structural && tb_checkParamArg(m, d, a, &a->param[i])) return 2;
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

static void tb_printSummary(const tbModel* m, const tbData* d, const tbSimArgs* a, int ndone,
                            double seconds) {
  int failed = 0, unconverged = 0;
  double rmax = 0.0, iters = 0.0;
  tbFailTally fails = {0};
  for (int s = 0; s < ndone; s++) {
    iters += (double)d->iter_sum[s];
    failed += (d->status[s] & TB_SCENE_FAILMASK) != 0;
    unconverged += (d->status[s] & TB_SCENE_UNCONVERGED) != 0;
    rmax = d->resid_max[s] > rmax ? d->resid_max[s] : rmax;
    tb_failTallyAdd(&fails, d->status[s], d->resid_max[s], s);
  }
  tb_sayFailures("simulate", "scene", &fails, m->maxcon,
                 "raise --max-iter, loosen --solver-tol or try another --solver");
  char name[6 * 256 + 1], note[6 * 512 + 1];  // quotes escaped in 6 bytes at most
  tb_jsonEscape(name, sizeof(name), a->name);
  tb_jsonEscape(note, sizeof(note), a->note);
  double ss = (double)ndone * a->nstep;
  printf(
      "{\"scene\": \"%s\", \"scenes\": %d, \"steps\": %ld, \"seconds\": %.6f, "
      "\"scene_steps_per_s\": %.6g, \"failed\": %d, \"unconverged\": %d, "
      "\"max_residual\": %.6g, \"mean_iterations\": %.3g, \"threads\": %d, "
      "\"device\": \"%s\", \"precision\": \"%s\", \"partial\": %s, \"read_past\": \"%s\"}\n",
      name, ndone, a->nstep, seconds, seconds > 0 ? ss / seconds : 0.0, failed, unconverged, rmax,
      ss > 0 ? iters / ss : 0.0, omp_get_max_threads(), tb_deviceName(), tb_precisionName(),
      ndone < d->nscene ? "true" : "false", note);
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

// seconds of work a CPU chunk aims at: Ctrl-C is answered after the chunk in progress
#define TB_SIM_CHUNK_SECONDS 0.25

// the next CPU chunk's scenes after one of n scenes took `seconds`: about TB_SIM_CHUNK_SECONDS of
// work, a whole number of scenes a thread, from one a thread up to 256 a thread (a journal entry
// and a progress update each; 2000 pendulums of 2000 steps took 7.7 s a chunk of 512 at the fixed
// 256 a thread, and Ctrl-C waited for it)
static int tb_nextChunk(int n, double seconds) {
  int threads = omp_get_max_threads();
  double per = seconds > 0.0 ? seconds / n : 0.0;
  double want = per > 0.0 ? TB_SIM_CHUNK_SECONDS / per : 256.0 * threads;
  int a_thread = (int)(want / threads);
  if (a_thread < 1) a_thread = 1;
  if (a_thread > 256) a_thread = 256;
  return a_thread * threads;
}

// the rollout in chunks of scenes from scene `begin`, so that Ctrl-C stops after one and the
// journal (sj, or NULL) gets each (the results are bitwise those of one rollout); the scenes
// done, or -1 after an error message. The GPU takes the batch whole.
static int tb_simulateChunks(const tbModel* m, tbData* d, int nstep, tbRecord* rec,
                             tbSimJournal* sj, int begin) {
  // rank 0's for every process of a share: all must make the same rollouts
  int gpu = tb_rolloutDevice() == TB_DEVICE_GPU;
  int chunk = tb_shareRoot(gpu ? d->nscene : omp_get_max_threads());
  tbProgress prog;
  tb_progressStartOn(&prog, stderr, d->nscene, "simulate", "scenes");
  tb_progressUpdate(&prog, begin);
  int done = begin;
  while (done < d->nscene && !tb_interrupted()) {
    int s1 = d->nscene - done < chunk ? d->nscene : done + chunk;
    double t0 = tb_clock();
    if (tb_rollout(m, d, done, s1, nstep, rec) != TB_OK) {
      tb_cliError("%s", tb_lastError());
      done = -1;
      break;
    }
    if (sj && tb_simJournalAppend(sj, done, s1)) {
      done = -1;
      break;
    }
    if (!gpu) chunk = tb_shareRoot(tb_nextChunk(s1 - done, tb_clock() - t0));
    done = s1;
    tb_progressUpdate(&prog, done);
  }
  tb_progressFinish(&prog);
  return done;
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
  char text[96] = "", title[400], caption[130], json[6 * 256 + 1];
  if (!rc) {
    tb_statusText(one->status[0], text, sizeof(text));
    snprintf(title, sizeof(title), "%s, scene %ld: %s", name, a->replay, text);
    tb_paramCaption(m, one, caption, sizeof(caption));
    rc = tb_replayWrite(&rep, m, one, &a->replay_opt, title, caption);
    if (!rc) rc = tb_replayCommit(&rep, NULL);
  }
  if (!rc) {
    tbJsonPath j[2];
    printf(
        "{\"scene\": \"%s\", \"replay\": %ld, \"status\": \"%s\", \"max_residual\": %.6g, "
        "\"trajectory\": \"%s\", \"video\": \"%s\"}\n",
        tb_jsonEscape(json, sizeof(json), name), a->replay, text, one->resid_max[0],
        tb_jsonPath(&j[0], rep.csv.path), tb_jsonPath(&j[1], rep.video.path));
  }
  tb_replayEnd(&rep);
  tb_freeData(one);
  return rc;
}

static void tb_simulateUsage(FILE* f) {
  fprintf(
      f,
      "usage: tumble simulate --list      built-in scenes with their parameters\n"
      "       tumble simulate --model FILE.xml --list   an MJCF model's parameters\n"
      "       tumble simulate SCENE|--model FILE.xml [--scenes N] [--steps K] [--dt H]\n"
      "         [--param NAME=VALUE]... [--cone exact|pyramid] [--facets N] [--align]\n"
      "         [--solver NAME] [--max-iter K] [--solver-tol T] [--delassus auto|dense]\n"
      "         [--every K] [--seed S] [--threads T] [--device auto|cpu|gpu]\n"
      "         [--precision fp64|fp32] [--out FILE.csv|FILE.h5] [--resume] [--yes]\n"
      "         [--export-problems DIR]\n"
      "         [--replay K] [--replay-speed S] [--view top|side]   scene K alone, with a video\n"
      "  VALUE: a number, LO:HI (evenly spread over the scenes) or uniform:LO:HI\n");
}

int tb_simulateMain(int argc, char** argv) {
  if (tb_helpAsked(argc, argv)) {
    tb_simulateUsage(stdout);
    return 0;
  }
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
  tbModel* m = a.model ? tb_loadMJCFNoting(a.model, a.note, sizeof(a.note))
                       : tb_buildScene(a.scene, &a.build);
  if (!m) return tb_cliError("%s", tb_lastError());
  if (a.note[0]) fprintf(stderr, "tumble: %s: %s\n", a.model, a.note);
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
    tb_sayCsvOut("--out", a.out, 1);
    sj.m = m;
    sj.d = d;
    sj.rec = &rec;
    if ((rc = tb_simJournalOpen(&sj, &a, argc, argv, &begin))) goto done;
    if (a.resume) tb_journalSayResumed("simulate", "scene", begin, d->nscene, sj.j.path);
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
  }
  tbOutFile* files[2] = {&traj, &summary};
  if (a.out && (rc = tb_cliOutCommitAll("--out", files, 2))) goto done;
  tb_printSummary(m, d, &a, ndone, seconds);
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
