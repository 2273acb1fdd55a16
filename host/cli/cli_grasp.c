// Command line: `tumble grasp ...`, the Brost-Christiansen grasp-probability study.
//
// One scene per (condition, cell, trial). A condition is a (closing speed, surface friction)
// pair; --speed and --surface-mu take comma lists, and every combination runs in the one
// command (the full study: --speed normal,fast --surface-mu low,high). Each condition writes
// PREFIX.csv and PREFIX.png, or PREFIX-SPEED-SURFACE.* when there are several.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/grasp.h>
#include <tumble/version.h>

#include "cli/cli.h"
#include "plot/plot.h"

#define TB_GRASP_MAXCOND 3

typedef struct tbGraspArgs {
  tbGraspDef def;
  tbSweepGrid grid;
  int trials;
  uint64_t seed;
  int nspeed, speed[2];  // 1: normal, 2: fast (multiples of the normal speed)
  int nsurface, surface[TB_GRASP_MAXCOND];
  int gripper;
  int chunk;
  const char* out;
  int replay_cell, replay_trial;  // --replay CELL,TRIAL; -1: a study
  tbReplayOpt replay;             // --replay-speed, --view
  int resume;                     // --resume: go on from PREFIX.journal
  int h5;                         // --out PREFIX.h5: one HDF5 file of both tables per condition
  char stem[4096];                // PREFIX of --out PREFIX.h5
  const char *extent_val, *center_val, *dt_val;  // as typed (NULL: the default), for messages
} tbGraspArgs;

static void tb_graspUsage(FILE* f) {
  fprintf(
      f,
      "usage: tumble grasp [--part gear|disc] [--grid 21x21] [--extent L|LXxLY] [--center X,Y]\n"
      "         [--trials 30] [--surface-mu low|medium|high[,...]] [--gripper-mu "
      "low|medium|high]\n"
      "         [--speed normal|fast[,...]] [--force N] [--tol 0.5mm] [--cone exact|pyramid]\n"
      "         [--facets K] [--dt H] [--solver NAME] [--max-iter K] [--solver-tol T]\n"
      "         [--rest-speed 1e-5 (m/s; 0: every step computed)]\n"
      "         [--seed S] [--threads T] [--chunk N] [--device auto|cpu|gpu]\n"
      "         [--precision fp64|fp32]\n"
      "         [--out PREFIX] [--resume] [--yes] [--replay CELL,TRIAL [--replay-speed 0.25] "
      "[--view "
      "top]]\n"
      "With no arguments: the default study (gear, 21x21 offsets over 20 mm around (0, -10 "
      "mm),\n30 trials per cell, medium surface and high gripper friction, normal speed).\n");
}

// a comma list of names, each looked up with find (one of the nnames names, for the error of
// one that is none); returns the count, or -1 after an error
static int tb_parseNameList(const char* what, const char* s, int (*find)(const char*),
                            const char* const* names, int nnames, int* out, int max) {
  char buf[128];
  snprintf(buf, sizeof(buf), "%s", s);
  int n = 0;
  for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    int v = find(tok);
    if (v < 0)
      return tb_choiceError(tok, names, nnames, NULL, "%s: unknown value '%s'", what, tok), -1;
    for (int i = 0; i < n; i++) {
      if (out[i] == v) return tb_cliError("%s: '%s' given twice", what, tok), -1;
    }
    if (n == max) return tb_cliError("%s: at most %d values", what, max), -1;
    out[n++] = v;
  }
  if (n == 0) return tb_cliError("%s: expected a value", what), -1;
  return n;
}

static const char* const tb_speedNames[] = {"normal", "fast"};

// 1 normal, 2 fast
static int tb_findSpeed(const char* s) {
  for (int i = 0; i < 2; i++) {
    if (!strcmp(s, tb_speedNames[i])) return i + 1;
  }
  return -1;
}

static int tb_findPart(const char* s) {
  if (!strcmp(s, "gear")) return TB_PART_GEAR;
  if (!strcmp(s, "disc")) return TB_PART_DISC;
  return -1;
}

static int tb_parseCenter(const char* s, tbSweepGrid* g) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%s", s);
  char* comma = strchr(buf, ',');
  if (!comma) return tb_cliError("--center %s: expected X,Y (lengths, e.g. 0,-10mm)", s);
  *comma = 0;
  if (tb_parseLength("--center", buf, 1e-3, &g->center_x)) return 2;
  return tb_parseLength("--center", comma + 1, 1e-3, &g->center_y);
}

// L (both axes) or LXxLY, lengths >= 0
static int tb_parseExtent(const char* s, tbSweepGrid* g) {
  double e[2];
  int n = tb_parseLengths("--extent", s, 1e-3, e, 2);
  if (n < 0) return 2;
  g->extent_x = e[0];
  g->extent_y = n == 2 ? e[1] : e[0];
  if (!(g->extent_x >= 0.0 && g->extent_y >= 0.0)) {
    return tb_cliError("--extent %s: lengths must be >= 0", s);
  }
  return 0;
}

static int tb_parseGraspOption(tbGraspArgs* a, const char* opt, const char* val) {
  long v = 0;
  if (!strcmp(opt, "--part")) {
    a->def.part = tb_findPart(val);
    return a->def.part < 0 ? tb_cliError("--part %s: expected gear or disc", val) : 0;
  }
  if (!strcmp(opt, "--grid")) return tb_parseGrid(opt, val, &a->grid.nx, &a->grid.ny);
  if (!strcmp(opt, "--extent")) {
    a->extent_val = val;
    return tb_parseExtent(val, &a->grid);
  }
  if (!strcmp(opt, "--center")) {
    a->center_val = val;
    return tb_parseCenter(val, &a->grid);
  }
  if (!strcmp(opt, "--trials")) {
    int rc = tb_parseInt(opt, val, 1, 1000000, &v);
    a->trials = (int)v;
    return rc;
  }
  if (!strcmp(opt, "--surface-mu")) {
    const char* mu[TB_NMURANGE];
    for (int r = 0; r < TB_NMURANGE; r++) mu[r] = tb_muRangeName(r);
    a->nsurface =
        tb_parseNameList(opt, val, tb_findMuRange, mu, TB_NMURANGE, a->surface, TB_GRASP_MAXCOND);
    return a->nsurface < 0 ? 2 : 0;
  }
  if (!strcmp(opt, "--gripper-mu")) {
    a->gripper = tb_findMuRange(val);
    return a->gripper < 0 ? tb_cliError("--gripper-mu %s: expected low, medium or high", val) : 0;
  }
  if (!strcmp(opt, "--speed")) {
    a->nspeed = tb_parseNameList(opt, val, tb_findSpeed, tb_speedNames, 2, a->speed, 2);
    return a->nspeed < 0 ? 2 : 0;
  }
  if (!strcmp(opt, "--force")) {
    if (tb_parseNumber(opt, val, &a->def.force)) return 2;
    return a->def.force > 0.0 && isfinite(a->def.force)
               ? 0
               : tb_cliError("--force %s: must be > 0", val);
  }
  if (!strcmp(opt, "--tol")) {
    if (tb_parseLength(opt, val, 1e-3, &a->def.tol)) return 2;
    return a->def.tol > 0.0 ? 0 : tb_cliError("--tol %s: must be > 0", val);
  }
  if (!strcmp(opt, "--cone")) {
    if (strcmp(val, "exact") && strcmp(val, "pyramid")) {
      return tb_cliError("--cone %s: expected exact or pyramid", val);
    }
    a->def.cone = strcmp(val, "exact") ? TB_CONE_PYRAMID : TB_CONE_EXACT;
    return 0;
  }
  if (!strcmp(opt, "--facets")) {
    int rc = tb_parseInt(opt, val, 3, 256, &v);
    a->def.facets = (int)v;
    return rc;
  }
  if (!strcmp(opt, "--dt")) {
    a->dt_val = val;
    if (tb_parseNumber(opt, val, &a->def.dt)) return 2;
    return a->def.dt > 0.0 && a->def.dt <= 0.01 ? 0
                                                : tb_cliError("--dt %s: must be in (0, 0.01]", val);
  }
  if (!strcmp(opt, "--solver")) {
    return tb_parseSolver(val, &a->def.solver);
  }
  if (!strcmp(opt, "--max-iter")) {
    int rc = tb_parseInt(opt, val, 1, 1000000, &v);
    a->def.max_iter = (int)v;
    return rc;
  }
  if (!strcmp(opt, "--rest-speed")) {
    if (tb_parseNumber(opt, val, &a->def.rest_speed)) return 2;
    return a->def.rest_speed >= 0.0 && isfinite(a->def.rest_speed)
               ? 0
               : tb_cliError("--rest-speed %s: must be finite and >= 0 (m/s; 0: never rest)", val);
  }
  if (!strcmp(opt, "--solver-tol")) {
    if (tb_parseNumber(opt, val, &a->def.solver_tol)) return 2;
    return a->def.solver_tol > 0.0 ? 0 : tb_cliError("--solver-tol %s: must be > 0", val);
  }
  if (!strcmp(opt, "--seed")) {
    int rc = tb_parseInt(opt, val, 0, 4294967295L, &v);
    a->seed = (uint64_t)v;
    return rc;
  }
  if (!strcmp(opt, "--replay"))
    return tb_parseCellTrial(opt, val, &a->replay_cell, &a->replay_trial);
  if (!strcmp(opt, "--chunk")) {
    int rc = tb_parseInt(opt, val, 1, 1 << 20, &v);
    a->chunk = (int)v;
    return rc;
  }
  int rc = tb_parseBatchOption("grasp", opt, val, &a->out);
  if (rc < 0) rc = tb_parseReplayOption(opt, val, &a->replay);
  return rc >= 0 ? rc : tb_unknownOption("grasp", opt, tb_graspUsage);
}

// the grid's fingertip offsets (--center +- --extent / 2) within the model's offset parameters
// (TB_GRASP_MAX_OFFSET); 0, or 2 after an error naming the options as given
static int tb_checkGraspReach(const tbGraspArgs* a) {
  const tbSweepGrid* g = &a->grid;
  double reach = fmax(fabs(g->center_x) + 0.5 * g->extent_x, fabs(g->center_y) + 0.5 * g->extent_y);
  if (reach <= TB_GRASP_MAX_OFFSET) return 0;
  char given[300];
  snprintf(given, sizeof(given), "%s%s%s%s%s", a->extent_val ? "--extent " : "",
           a->extent_val ? a->extent_val : "", a->extent_val && a->center_val ? " " : "",
           a->center_val ? "--center " : "", a->center_val ? a->center_val : "");
  return tb_cliError(
      "%s: the cells' fingertip offsets reach %g m from the part's centre, beyond the %g m the "
      "grasp model takes",
      given, reach, TB_GRASP_MAX_OFFSET);
}

// --dt at least the shortest step of the grasp scene (tb_minStep); 0, or 2 after an error
static int tb_checkGraspStep(const tbGraspArgs* a) {
  tbModel* m = tb_buildGraspModel(&a->def);
  if (!m) return tb_cliError("%s", tb_lastError());
  int rc = tb_cliCheckStep("--dt", a->dt_val, m, a->def.dt);
  tb_freeModel(m);
  return rc;
}

static int tb_parseGrasp(int argc, char** argv, tbGraspArgs* a) {
  memset(a, 0, sizeof(*a));
  a->def = tb_defaultGraspDef();
  a->grid.nx = a->grid.ny = 21;
  a->grid.extent_x = a->grid.extent_y = 20e-3;
  a->grid.center_y = -10e-3;
  a->trials = 30;
  a->seed = 1;
  a->nspeed = 1;
  a->speed[0] = 1;
  a->nsurface = 1;
  a->surface[0] = TB_MU_MEDIUM;
  a->gripper = TB_MU_HIGH;
  a->chunk = 512;
  a->out = "grasp";
  a->replay_cell = a->replay_trial = -1;
  a->replay = tb_defaultReplayOpt(-1);
  a->replay.speed = 0.25;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      tb_graspUsage(stdout);
      return -1;
    }
    if (!strcmp(argv[i], "--resume")) {
      a->resume = 1;
      continue;
    }
    if (tb_parseYes(argv[i])) continue;
    int rc = tb_optionValue(argv[i], i + 1 < argc ? argv[i + 1] : NULL);
    if (!rc) rc = tb_parseGraspOption(a, argv[i], argv[i + 1]);
    if (rc) return rc;
    i++;
  }
  tb_muRange(a->gripper, a->def.mu_gripper);
  tb_cliRunOf(&a->def.device, &a->def.precision);
  if (tb_checkGraspDef(&a->def)) return tb_cliError("%s", tb_lastError());
  int rc = tb_checkGraspReach(a);
  if (!rc && a->dt_val) rc = tb_checkGraspStep(a);
  if (rc) return rc;
  a->h5 = tb_isH5(a->out);
  if (a->h5) {
    snprintf(a->stem, sizeof(a->stem), "%.*s", (int)(strrchr(a->out, '.') - a->out), a->out);
    a->out = a->stem;
  }
  return 0;
}

// PREFIX, or PREFIX-SPEED-SURFACE when the study has several conditions
static void tb_conditionPrefix(const tbGraspArgs* a, int speed, int surface, char* out, size_t n) {
  if (a->nspeed * a->nsurface == 1) {
    snprintf(out, n, "%s", a->out);
  } else {
    snprintf(out, n, "%s-%s-%s", a->out, speed == 1 ? "normal" : "fast", tb_muRangeName(surface));
  }
}

static int tb_writeHeatmap(const tbGraspDef* def, const tbSweepGrid* grid, const tbSweepTally* t,
                           tbOutFile* png, const char* title) {
  int poly_n[8];
  double xy[2 * 1024];
  int npoly = tb_graspOutline(def, 8, poly_n, xy, 1024);
  return tb_plotSweep(png->f, title, grid, t, npoly, poly_n, xy) ? tb_cliPlotFailed(png) : 0;
}

// the study's def under speed i and surface friction range j of the command line
static tbGraspDef tb_conditionDef(const tbGraspArgs* a, int i, int j) {
  tbGraspDef def = a->def;
  def.speed *= a->speed[i];
  tb_muRange(a->surface[j], def.mu_surface);
  return def;
}

// a parameter of scene 0 of d by name
static double tb_param0(const tbModel* m, const tbData* d, const char* name) {
  return d->param[tb_findParam(m, name)];
}

// --replay CELL,TRIAL: that one trial of the study again, bitwise (its draws are a pure function
// of seed, cell and trial): PREFIX-replay-C-T.csv has every body's state at every step,
// PREFIX-replay-C-T.mp4 shows it and PREFIX-replay-C-T-trial.csv has the trial's row, the same
// as in PREFIX-trials.csv
static int tb_graspReplay(const tbGraspArgs* a) {
  if (a->nspeed * a->nsurface != 1)
    return tb_cliError("--replay: give one --speed and one --surface-mu (the trial's condition)");
  int cell = a->replay_cell, trial = a->replay_trial;
  if (cell >= a->grid.nx * a->grid.ny || trial >= a->trials)
    return tb_cliError("--replay %d,%d: the study has %d cells of %d trials", cell, trial,
                       a->grid.nx * a->grid.ny, a->trials);
  tbGraspDef def = tb_conditionDef(a, 0, 0);
  char stem[4200], rowpath[4300];
  snprintf(stem, sizeof(stem), "%s-replay-%d-%d", a->out, cell, trial);
  snprintf(rowpath, sizeof(rowpath), "%s-trial.csv", stem);
  tbOutFile row = {0};
  tbCliReplay rep = {0};
  int rc = tb_cliOutOpen(&row, "--out", rowpath);
  tbModel* m = rc ? NULL : tb_buildGraspModel(&def);
  tbData* d = m ? tb_newData(m, 1) : NULL;
  if (!rc && !d) {
    rc = tb_cliError("--replay: %s", tb_lastError());
  } else if (!rc) {
    tb_graspDrawTrial(m, &def, &a->grid, a->seed, cell, trial, d->param);
    if (tb_checkParams(m, d) || tb_resetData(m, d))
      rc = tb_cliError("--replay: %s", tb_lastError());
  }
  tbReplayOpt o = a->replay;
  if (!rc) rc = tb_replayRun(&rep, stem, m, d, tb_graspSteps(&def), &o);
  int success = !rc && !(d->status[0] & TB_SCENE_FAILMASK) && tb_graspSuccess(m, &def, d, 0);
  char text[96] = "";
  if (!rc) {
    tb_statusText(d->status[0], text, sizeof(text));
    char title[160], caption[200];
    snprintf(title, sizeof(title), "grasp cell %d, trial %d: %s (%s)", cell, trial,
             success ? "success" : "no success", text);
    snprintf(caption, sizeof(caption),
             "fingertips at (%.2f, %.2f) mm from the part; surface mu %.3f, gripper mu %.3f, "
             "closing at %.1f mm/s",
             1e3 * tb_param0(m, d, "offset_x"), 1e3 * tb_param0(m, d, "offset_y"),
             tb_param0(m, d, "surface_mu"), tb_param0(m, d, "gripper_mu"),
             1e3 * tb_param0(m, d, "speed"));
    rc = tb_replayWrite(&rep, m, d, &o, title, caption);
  }
  if (!rc) {
    tb_graspTrialHeader(row.f, m);
    tb_graspTrialRow(row.f, m, d, 0, (long)cell * a->trials + trial, a->trials, success);
    rc = tb_replayCommit(&rep, &row);
  }
  if (!rc) {
    tbJsonPath j[3];
    printf(
        "{\"cell\": %d, \"trial\": %d, \"success\": %d, \"status\": \"%s\", \"max_residual\": "
        "%.6g, \"trajectory\": \"%s\", \"video\": \"%s\", \"trial_row\": \"%s\"}\n",
        cell, trial, success, text, d->resid_max[0], tb_jsonPath(&j[0], rep.csv.path),
        tb_jsonPath(&j[1], rep.video.path), tb_jsonPath(&j[2], rowpath));
  }
  tb_outAbort(&row);
  tb_replayEnd(&rep);
  tb_freeData(d);
  tb_freeModel(m);
  return rc;
}

// a condition's tables: PREFIX.csv (the cells) and PREFIX-trials.csv, or both in PREFIX.h5, and
// its map PREFIX.png; the files are opened before the study, the trials' rows go to `trials` as
// it runs, and all are committed together
typedef struct tbGraspOut {
  tbJournal journal;
  tbOutFile cells, log, h5, png;
  char* text;  // the trials' rows (HDF5: in memory until the end)
  size_t len;
  FILE* trials;
} tbGraspOut;

static int tb_graspOutOpen(tbGraspOut* o, const tbGraspArgs* a, const char* prefix) {
  memset(o, 0, sizeof(*o));
  char path[4300];
  snprintf(path, sizeof(path), "%s.png", prefix);
  if (tb_cliOutOpen(&o->png, "--out", path)) return 2;
  if (a->h5) {
    snprintf(path, sizeof(path), "%s.h5", prefix);
    int rc = tb_cliOutOpen(&o->h5, "--out", path);
    o->trials = rc ? NULL : open_memstream(&o->text, &o->len);
    return rc ? rc : o->trials ? 0 : tb_cliError("--out %s: out of memory", path);
  }
  snprintf(path, sizeof(path), "%s.csv", prefix);
  int rc = tb_cliOutOpen(&o->cells, "--out", path);
  snprintf(path, sizeof(path), "%s-trials.csv", prefix);
  if (!rc) rc = tb_cliOutOpen(&o->log, "--out", path);
  o->trials = o->log.f;
  return rc;
}

static void tb_graspOutAbort(tbGraspOut* o) {
  tb_journalClose(&o->journal, 0);                            // kept for --resume
  if (o->trials && o->trials != o->log.f) fclose(o->trials);  // the memory stream
  o->trials = NULL;
  free(o->text);
  o->text = NULL;
  tb_outAbort(&o->cells);
  tb_outAbort(&o->log);
  tb_outAbort(&o->h5);
  tb_outAbort(&o->png);
}

// the condition's tables and map (under title) written and committed, then its journal removed
// (a partial study's kept for --resume): 0, or 2 after an error message
static int tb_graspOutCommit(tbGraspOut* o, const tbGraspArgs* a, const tbGraspDef* def,
                             const tbSweepTally* t, int partial, const char* title) {
  int rc = 0;
  if (a->h5) {
    char* cells = NULL;
    size_t n = 0;
    FILE* f = open_memstream(&cells, &n);
    fclose(o->trials);
    o->trials = NULL;
    if (!f) {
      rc = tb_cliError("--out %s: out of memory", o->h5.path);
    } else {
      tb_sweepWriteRows(f, &a->grid, t);
      fclose(f);
      const char* name[2] = {"cells", "trials"};
      char* csv[2] = {cells, o->text};
      rc = tb_writeTablesH5(&o->h5, "grasp", partial, 2, name, csv);
    }
    free(cells);
    free(o->text);
    o->text = NULL;
  } else {
    tb_sweepWriteRows(o->cells.f, &a->grid, t);
    o->trials = NULL;  // the log's stream, closed by its commit
  }
  if (!rc) rc = tb_writeHeatmap(def, &a->grid, t, &o->png, title);
  tbOutFile* files[4] = {&o->cells, &o->log, &o->h5, &o->png};
  if (!rc) rc = tb_cliOutCommitAll("--out", files, 4);
  // whole outputs of a whole study need no journal; a partial one's is kept for --resume
  tb_journalClose(&o->journal, rc == 0 && !partial);
  tb_graspOutAbort(o);
  return rc;
}

// a condition as text, for its journal: every option that changes a trial's row
static void tb_studyKey(const tbGraspArgs* a, const tbGraspDef* g, char* key, size_t n) {
  snprintf(
      key, n,
      "grasp %s %s part %d mass %.17g r %.17g mus %.17g %.17g mug %.17g %.17g v %.17g %.17g "
      "F %.17g w %.17g %.17g %.17g m %.17g tri %.17g %.17g settle %.17g rest %.17g %.17g tol %.17g "
      "dt %.17g cone %d %d solver %d %d %.17g %.17g grid %d %d %.17g %.17g %.17g %.17g trials %d "
      "seed %llu",
      TUMBLE_VERSION, TUMBLE_COMMIT, g->part, g->part_mass, g->radius, g->mu_surface[0],
      g->mu_surface[1], g->mu_gripper[0], g->mu_gripper[1], g->speed, g->speed_jitter, g->force,
      g->open_width, g->finger_width, g->finger_length, g->finger_mass, g->tripod_radius,
      g->tripod_jitter, g->settle, g->rest_speed, g->rest_time, g->tol, g->dt, g->cone, g->facets,
      g->solver, g->max_iter, g->solver_tol, g->sor, a->grid.nx, a->grid.ny, a->grid.extent_x,
      a->grid.extent_y, a->grid.center_x, a->grid.center_y, a->trials, (unsigned long long)a->seed);
}

// a replayed trial row: into the trials table and the tally, as tb_graspSweepRange counts it
typedef struct tbGraspReplayed {
  FILE* rows;
  tbSweepTally* t;
  tbGraspRun* run;
  int cell, status, resid, success, scene;  // their columns
} tbGraspReplayed;

static void tb_graspReplayRow(void* ctx, const char* row, size_t len) {
  tbGraspReplayed* r = (tbGraspReplayed*)ctx;
  fwrite(row, 1, len, r->rows);
  fputc('\n', r->rows);
  int status = 0, cell = 0, success = 0;
  long scene = 0;
  double resid = 0.0;
  for (size_t i = 0, col = 0; i < len; col++) {
    const char* field = row + i;
    if ((int)col == r->cell) cell = atoi(field);
    if ((int)col == r->status) status = atoi(field);
    if ((int)col == r->success) success = atoi(field);
    if ((int)col == r->resid) resid = strtod(field, NULL);
    if ((int)col == r->scene) scene = atol(field);
    while (i < len && row[i] != ',') i++;
    i++;
  }
  int failed = (status & TB_SCENE_FAILMASK) != 0;
  tb_tallyAdd(r->t, cell, failed, success);
  r->run->trials++;
  r->run->failed += failed;
  tb_failTallyAdd(&r->run->fails, status, resid, scene);
  r->run->unconverged += (status & TB_SCENE_UNCONVERGED) != 0;
  r->run->resid_max = fmax(r->run->resid_max, resid);
}

// the column named name of a CSV header line, or -1
static int tb_column(const char* header, const char* name) {
  size_t n = strlen(name);
  int col = 0;
  for (const char* p = header; p; p = strchr(p, ','), col++) {
    if (*p == ',') p++;
    if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\n' || !p[n])) return col;
  }
  return -1;
}

// the rows of pieces [first, end) into the trials table and the journal, the counts into run
static void tb_addRun(tbGraspRun* run, const tbGraspRun* part) {
  run->trials += part->trials;
  run->failed += part->failed;
  tb_failTallyMerge(&run->fails, &part->fails);
  run->unconverged += part->unconverged;
  run->resid_max = fmax(run->resid_max, part->resid_max);
  run->seconds += part->seconds;
  run->scene_steps += part->scene_steps;
}

// one condition's study in journal pieces of `chunk` trials: the trials an earlier run did
// (--resume) replayed from PREFIX.journal, the rest run; rows into out->trials, counts into t.
// TB_OK, TB_INTERRUPTED, or 2 after an error message
static int tb_graspStudy(const tbGraspArgs* a, const tbGraspDef* def, const char* prefix,
                         tbProgress* prog, tbGraspOut* out, tbSweepTally* t, tbGraspRun* run) {
  memset(run, 0, sizeof(*run));
  tbModel* m = tb_buildGraspModel(def);
  char* header = NULL;
  size_t hlen = 0;
  FILE* hf = m ? open_memstream(&header, &hlen) : NULL;
  if (!hf) {
    tb_freeModel(m);
    return tb_cliError("%s", m ? "out of memory" : tb_lastError());
  }
  tb_graspTrialHeader(hf, m);
  fclose(hf);
  tb_freeModel(m);
  fputs(header, out->trials);
  tbGraspReplayed rp = {out->trials,
                        t,
                        run,
                        tb_column(header, "cell"),
                        tb_column(header, "status"),
                        tb_column(header, "max_residual"),
                        tb_column(header, "success"),
                        tb_column(header, "scene")};
  free(header);
  char key[2048], path[4300];
  tb_studyKey(a, def, key, sizeof(key));
  snprintf(path, sizeof(path), "%s.journal", prefix);
  long next = 0, total = (long)a->grid.nx * a->grid.ny * a->trials;
  int rc = tb_journalOpen(&out->journal, path, key, a->resume, &next, tb_graspReplayRow, &rp);
  if (rc) return rc;
  if (a->resume) tb_journalSayResumed("grasp", "trial", next, total, path);
  if (next > 0) tb_progressUpdate(prog, prog->done + next);
  int sw = TB_OK;
  for (long first = next; first < total && sw == TB_OK; first += a->chunk) {
    long end = total - first < a->chunk ? total : first + a->chunk;
    char* rows = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&rows, &len);
    if (!f) return tb_cliError("out of memory");
    tbGraspRun part;
    sw = tb_graspSweepRange(def, &a->grid, a->trials, a->seed, first, end, a->chunk, prog, f, t,
                            &part);
    fclose(f);
    if (sw == TB_OK || sw == TB_INTERRUPTED) {
      fwrite(rows, 1, len, out->trials);
      tb_addRun(run, &part);
      if (tb_journalAppend(&out->journal, first, end, rows, len)) sw = 2;
    } else {
      sw = tb_cliError("%s", tb_lastError());
    }
    free(rows);
  }
  return sw;
}

// every condition's files can be written, before the first runs (each condition opens and commits
// its own when its turn comes): 0, or 2 after an error message
static int tb_graspCheckOutputs(const tbGraspArgs* a) {
  const char* csv[3] = {".csv", "-trials.csv", ".png"};
  const char* h5[2] = {".h5", ".png"};
  int rc = 0;
  for (int i = 0; i < a->nspeed && !rc; i++) {
    for (int j = 0; j < a->nsurface && !rc; j++) {
      char prefix[4200], path[4300];
      tb_conditionPrefix(a, a->speed[i], a->surface[j], prefix, sizeof(prefix));
      for (int k = 0; k < (a->h5 ? 2 : 3) && !rc; k++) {
        snprintf(path, sizeof(path), "%s%s", prefix, a->h5 ? h5[k] : csv[k]);
        rc = tb_cliOutCheck("--out", path);
      }
    }
  }
  return rc;
}

int tb_graspMain(int argc, char** argv) {
  tbGraspArgs a;
  int rc = tb_parseGrasp(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  if (a.replay_cell >= 0) return tb_graspReplay(&a);
  int ncell = a.grid.nx * a.grid.ny, ncond = a.nspeed * a.nsurface;
  long total = (long)ncond * ncell * a.trials;
  double trial_steps = 0.0;  // a trial's, over the conditions
  for (int i = 0; i < a.nspeed; i++) {
    for (int j = 0; j < a.nsurface; j++) {
      tbGraspDef def = tb_conditionDef(&a, i, j);
      trial_steps += (double)tb_graspSteps(&def) / ncond;
    }
  }
  if ((rc = tb_cliCostCheck("grasp", "trials", (double)total, trial_steps)) ||
      (rc = tb_graspCheckOutputs(&a)))
    return rc;
  tbProgress prog;
  tb_catchInterrupt();
  tb_progressStart(&prog, total, "grasp");
  long success = 0, valid = 0, failed = 0, unconverged = 0, done = 0;
  tbFailTally fails = {0};  // over the conditions: a trial id names one in its condition
  double steps = 0.0, resid = 0.0;
  char conds[512] = "";
  int partial = 0;
  for (int i = 0; i < a.nspeed && !rc && !partial; i++) {
    for (int j = 0; j < a.nsurface && !rc && !partial; j++) {
      tbGraspDef def = tb_conditionDef(&a, i, j);
      tbSweepTally t;
      tbGraspRun run;
      if (tb_newTally(&t, ncell)) {
        rc = tb_cliError("%s", tb_lastError());
        break;
      }
      char prefix[4200], title[160];
      tb_conditionPrefix(&a, a.speed[i], a.surface[j], prefix, sizeof(prefix));
      tbGraspOut out;
      if ((rc = tb_graspOutOpen(&out, &a, prefix))) {
        tb_freeTally(&t);
        break;
      }
      int sw = tb_graspStudy(&a, &def, prefix, &prog, &out, &t, &run);
      if (sw != TB_OK && sw != TB_INTERRUPTED) {
        tb_graspOutAbort(&out);
        tb_freeTally(&t);
        rc = sw;
        break;
      }
      // Ctrl-C: the trials done so far are written (their cells' counts say how many)
      partial = sw == TB_INTERRUPTED;
      snprintf(title, sizeof(title), "%s grasp, %s speed, surface mu %s, gripper mu %s%s",
               def.part == TB_PART_GEAR ? "gear" : "disc", a.speed[i] == 1 ? "normal" : "fast",
               tb_muRangeName(a.surface[j]), tb_muRangeName(a.gripper),
               partial ? " (partial)" : "");
      rc = tb_graspOutCommit(&out, &a, &def, &t, partial, title);
      long cs, cv, cf;
      tb_tallySum(&t, &cs, &cv, &cf);
      success += cs;
      valid += cv;
      failed += cf;
      done += run.trials;
      steps += run.scene_steps;
      unconverged += run.unconverged;
      tb_failTallyMerge(&fails, &run.fails);
      resid = fmax(resid, run.resid_max);
      size_t len = strlen(conds);
      snprintf(conds + len, sizeof(conds) - len, "%s\"%s-%s\": %.4f", len ? ", " : "",
               a.speed[i] == 1 ? "normal" : "fast", tb_muRangeName(a.surface[j]),
               cv ? (double)cs / cv : NAN);
      tb_freeTally(&t);
    }
  }
  tb_progressFinish(&prog);
  if (rc) return rc;
  double secs = tb_progressElapsed(&prog);
  tb_sayFailures("grasp", "trial", &fails, 0,
                 "raise --max-iter, loosen --solver-tol or try another --solver");
  printf(
      "{\"probability\": %.4f, \"trials\": %ld, \"failed_scenes\": %ld, "
      "\"unconverged_scenes\": %ld, \"max_residual\": %.6g, \"seconds\": %.2f, "
      "\"trials_per_s\": %.1f, \"scene_steps_per_s\": %.4g, \"threads\": %d, "
      "\"partial\": %s, \"conditions\": {%s}}\n",
      valid ? (double)success / valid : NAN, done, failed, unconverged, resid, secs, done / secs,
      steps / secs, omp_get_max_threads(), partial ? "true" : "false", conds);
  if (!partial) return 0;
  tb_cliError("interrupted: %ld of %ld trials done, written as a partial study", done, total);
  return 130;
}
