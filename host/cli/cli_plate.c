// Command line: `tumble plate field ...`, the velocity field of a vibrating-plate motion.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/plate.h>
#include <tumble/scenes.h>
#include <tumble/version.h>

#include "cli/cli.h"
#include "plot/plot.h"

typedef struct tbPlateArgs {
  tbPlateMotion motion;
  int modified;  // a --param changed the motion
  tbFieldOpt opt;
  const char* out;
  char set_names[TB_FIELD_MAXSET][TB_NAMELEN];
  int replay;  // --replay START, -1: the field
  tbReplayOpt replay_opt;
  int resume;  // --resume: go on from PREFIX.journal
} tbPlateArgs;

void tb_plateUsage(FILE* f) {
  fprintf(
      f,
      "usage: tumble plate field [--motion NAME] [--param NAME=VALUE]... [--grid NxN]\n"
      "         [--extent CM] [--seconds T] [--dt H] [--mu MU] [--part particle|box]\n"
      "         [--transient S] [--threads T] [--device auto|cpu|gpu]\n"
      "         [--precision fp64|fp32] [--out PREFIX]\n"
      "         [--resume] [--yes] [--replay START [--replay-speed 1] [--view top|side]]   start\n"
      "         START (x fastest) alone: PREFIX-replay-START.csv (every step) and .mp4\n"
      "       tumble plate optimize --target circle|saddle|FILE\n"
      "         [--optimizer nelder-mead|cmaes|both] [--starts K] [--budget SECONDS]\n"
      "         [--evals N] [--dt H] [--horizon S] [--mu MU] [--threads T]\n"
      "         [--device auto|cpu|gpu] [--precision fp64|fp32] [--out PREFIX] [--resume]\n"
      "       tumble plate motions\n");
}

// a --motion NAME of no plate motion, with the closest name
static int tb_unknownMotion(const char* name) {
  const char* names[64];
  int n = 0;
  for (int i = 0; i < tb_plateMotionCount() && n < 64; i++) names[n++] = tb_plateMotion(i)->name;
  return tb_choiceError(name, names, n, "see tumble plate motions", "--motion %s: unknown motion",
                        name);
}

static void tb_printMotions(void) {
  for (int i = 0; i < tb_plateMotionCount(); i++) {
    const tbPlateMotion* mo = tb_plateMotion(i);
    printf("%-16s %s\n", mo->name, mo->doc);
  }
}

// A1..A6, C1..C6 and omega (plate) or alpha, T, d (rocking) change the motion itself
static double* tb_motionField(tbPlateMotion* mo, const char* name) {
  if (mo->driver == TB_DRIVER_ROCKING) {
    if (!strcmp(name, "alpha")) return &mo->alpha;
    if (!strcmp(name, "T")) return &mo->period;
    if (!strcmp(name, "d")) return &mo->d;
    return NULL;
  }
  if (!strcmp(name, "omega")) return &mo->omega;
  if ((name[0] == 'A' || name[0] == 'C') && name[1] >= '1' && name[1] <= '6' && !name[2]) {
    return name[0] == 'A' ? &mo->amp[name[1] - '1'] : &mo->phase[name[1] - '1'];
  }
  return NULL;
}

// --dt at least the shortest step of the field's scene (tb_minStep); 0, or 2 after an error
static int tb_checkPlateStep(const tbPlateArgs* a, const char* val) {
  tbBuild b = tb_defaultBuild(tb_findScene(a->opt.box ? "plate-block" : "plate-particle"));
  tbModel* m = tb_buildPlateScene(a->opt.box, a->motion.driver, &b);
  int rc = m ? tb_cliCheckStep("--dt", val, m, a->opt.dt) : tb_cliError("%s", tb_lastError());
  tb_freeModel(m);
  return rc;
}

static int tb_parsePlate(int argc, char** argv, tbPlateArgs* a) {
  memset(a, 0, sizeof(*a));
  a->motion = *tb_plateMotion(tb_findPlateMotion("centrifuge"));
  a->opt = tb_defaultFieldOpt();
  a->opt.progress = 1;
  a->out = "plate-field";
  a->replay = -1;
  a->replay_opt = tb_defaultReplayOpt(TB_VIEW_TOP);
  // the motion first, so that --param applies to it whatever the order
  for (int i = 0; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--motion")) continue;
    int k = tb_findPlateMotion(argv[i + 1]);
    if (k < 0) return tb_unknownMotion(argv[i + 1]);
    a->motion = *tb_plateMotion(k);
  }
  const char* dt_val = NULL;  // --dt as typed, for its message
  for (int i = 0; i < argc; i++) {
    const char* arg = argv[i];
    const char* val = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = 0;
    if (!strcmp(arg, "--resume")) {
      a->resume = 1;
      continue;
    }
    if (tb_parseYes(arg)) continue;
    if (tb_optionValue(arg, val)) return 2;
    i++;
    if (!strcmp(arg, "--motion")) {
      continue;
    } else if (!strcmp(arg, "--param")) {
      const char* eq = strchr(val, '=');
      if (!eq || eq == val || (size_t)(eq - val) >= TB_NAMELEN) {
        return tb_cliError("--param %s: expected NAME=VALUE", val);
      }
      char name[TB_NAMELEN], what[TB_NAMELEN + 16];
      memcpy(name, val, (size_t)(eq - val));
      name[eq - val] = 0;
      snprintf(what, sizeof(what), "--param %s", name);
      double v;
      if (tb_parseNumber(what, eq + 1, &v)) return 2;
      if (!isfinite(v)) return tb_cliError("%s: %s is not finite", what, eq + 1);
      if (!strcmp(name, "x0") || !strcmp(name, "y0"))
        return tb_cliError("%s: the starts come from --grid and --extent", what);
      double* f = tb_motionField(&a->motion, name);
      if (f) {
        *f = v;
        a->modified = 1;
      } else {
        if (a->opt.nset == TB_FIELD_MAXSET) return tb_cliError("too many --param");
        snprintf(a->set_names[a->opt.nset], TB_NAMELEN, "%s", name);
        a->opt.set_name[a->opt.nset] = a->set_names[a->opt.nset];
        a->opt.set_value[a->opt.nset++] = v;
      }
    } else if (!strcmp(arg, "--grid")) {
      rc = tb_parseGrid("--grid", val, &a->opt.nx, &a->opt.ny);
    } else if (!strcmp(arg, "--extent")) {
      double cm;
      rc = tb_parseNumber(arg, val, &cm);
      if (!rc && !(cm > 0.0 && isfinite(cm))) {
        return tb_cliError("--extent %s: must be > 0 (cm)", val);
      }
      a->opt.extent = cm / 100.0;
      // the starts are the part's coordinates, within TB_MAX_POS as the parameters x0, y0
      if (!rc && !(a->opt.extent <= TB_MAX_POS)) {
        return tb_cliError("--extent %s: must be at most %g cm (the starts' coordinates)", val,
                           100.0 * TB_MAX_POS);
      }
    } else if (!strcmp(arg, "--seconds")) {
      rc = tb_parseNumber(arg, val, &a->opt.seconds);
      if (!rc && !(a->opt.seconds > 0.0 && a->opt.seconds <= 1e4)) {
        return tb_cliError("--seconds %s: must be in (0, 1e4]", val);
      }
    } else if (!strcmp(arg, "--dt")) {
      dt_val = val;
      rc = tb_parseNumber(arg, val, &a->opt.dt);
      if (!rc && !(a->opt.dt > 0.0 && a->opt.dt <= 1.0)) {
        return tb_cliError("--dt %s: must be in (0, 1]", val);
      }
    } else if (!strcmp(arg, "--mu")) {
      rc = tb_parseNumber(arg, val, &a->opt.mu);
      if (!rc && !(a->opt.mu >= 0.0 && a->opt.mu <= 1e3)) {
        return tb_cliError("--mu %s: must be in [0, 1000]", val);
      }
    } else if (!strcmp(arg, "--transient")) {
      rc = tb_parseNumber(arg, val, &a->opt.transient);
      if (!rc && !(a->opt.transient >= 0.0 && isfinite(a->opt.transient))) {
        return tb_cliError("--transient %s: must be >= 0 (s)", val);
      }
    } else if (!strcmp(arg, "--part")) {
      if (!strcmp(val, "particle")) {
        a->opt.box = 0;
      } else if (!strcmp(val, "box")) {
        a->opt.box = 1;
      } else {
        return tb_cliError("--part %s: expected particle or box", val);
      }
    } else if (!strcmp(arg, "--replay")) {
      long k;
      rc = tb_parseInt(arg, val, 0, 1 << 24, &k);
      a->replay = (int)k;
    } else if ((rc = tb_parseReplayOption(arg, val, &a->replay_opt)) < 0) {
      rc = tb_parseBatchOption("plate field", arg, val, &a->out);
      if (rc < 0) return tb_unknownOption("plate field", arg, tb_plateUsage);
    }
    if (rc) return rc;
  }
  tb_cliRunOf(&a->opt.device, &a->opt.precision);
  if (a->opt.transient >= a->opt.seconds) {
    return tb_cliError("--transient %g: must be less than --seconds %g", a->opt.transient,
                       a->opt.seconds);
  }
  return dt_val ? tb_checkPlateStep(a, dt_val) : 0;
}

// --replay START: start START of the field alone, bitwise as in the field, as
// PREFIX-replay-START.csv and .mp4
static int tb_plateFieldReplay(tbPlateArgs* a) {
  tbModel* m;
  tbData* d;
  long nstep;
  if (tb_plateFieldStart(&a->motion, &a->opt, a->replay, &m, &d, &nstep) != TB_OK)
    return tb_cliError("--replay: %s", tb_lastError());
  char stem[4200];
  snprintf(stem, sizeof(stem), "%s-replay-%d", a->out, a->replay);
  tbCliReplay rep;
  int rc = tb_replayRun(&rep, stem, m, d, (int)nstep, &a->replay_opt);
  char text[96] = "";
  if (!rc) {
    tb_statusText(d->status[0], text, sizeof(text));
    int part = tb_findBody(m, a->opt.box ? "block" : "particle");
    char title[160], caption[200];
    snprintf(title, sizeof(title), "plate field %s%s, start %d: %s", a->motion.name,
             a->modified ? " (modified)" : "", a->replay, text);
    const double* x0 = rep.rec.state + 13 * part;  // the first record
    snprintf(caption, sizeof(caption), "%s from (%.2f, %.2f) cm, mu %g, %g s at dt %g s",
             a->opt.box ? "box" : "particle", 100.0 * x0[0], 100.0 * x0[1], a->opt.mu,
             a->opt.seconds, a->opt.dt);
    rc = tb_replayWrite(&rep, m, d, &a->replay_opt, title, caption);
    if (!rc) rc = tb_replayCommit(&rep, NULL);
  }
  if (!rc) {
    tbJsonPath j[2];
    printf(
        "{\"motion\": \"%s\", \"replay\": %d, \"status\": \"%s\", \"trajectory\": \"%s\", "
        "\"video\": \"%s\"}\n",
        a->motion.name, a->replay, text, tb_jsonPath(&j[0], rep.csv.path),
        tb_jsonPath(&j[1], rep.video.path));
  }
  tb_replayEnd(&rep);
  tb_freeData(d);
  tb_freeModel(m);
  return rc;
}

// a field as text, for its journal: the motion and every option that changes a start's row
static void tb_fieldKey(const tbPlateArgs* a, char* key, size_t n) {
  const tbPlateMotion* mo = &a->motion;
  const tbFieldOpt* o = &a->opt;
  int len =
      snprintf(key, n,
               "plate field %s %s %d %.17g %.17g %.17g %.17g grid %d %d %.17g s %.17g %.17g "
               "mu %.17g box %d tr %.17g",
               TUMBLE_VERSION, TUMBLE_COMMIT, mo->driver, mo->omega, mo->alpha, mo->period, mo->d,
               o->nx, o->ny, o->extent, o->seconds, o->dt, o->mu, o->box, o->transient);
  for (int i = 0; i < 6 && len > 0 && (size_t)len < n; i++)
    len += snprintf(key + len, n - (size_t)len, " %.17g %.17g", mo->amp[i], mo->phase[i]);
  for (int k = 0; k < o->nset && len > 0 && (size_t)len < n; k++)
    len += snprintf(key + len, n - (size_t)len, " %s=%.17g", o->set_name[k], o->set_value[k]);
}

// the starts a killed run finished, read back from its journal's rows
typedef struct tbFieldJournal {
  tbJournal j;
  tbFieldPoint* pt;
  int n, cap;
} tbFieldJournal;

static void tb_fieldReplayRow(void* ctx, const char* row, size_t len) {
  tbFieldJournal* fj = (tbFieldJournal*)ctx;
  (void)len;
  if (fj->n == fj->cap) {
    int cap = fj->cap ? 2 * fj->cap : 256;
    tbFieldPoint* pt = (tbFieldPoint*)realloc(fj->pt, sizeof(tbFieldPoint) * (size_t)cap);
    if (!pt) return;  // out of memory: those starts run again
    fj->pt = pt;
    fj->cap = cap;
  }
  tbFieldPoint* p = &fj->pt[fj->n];
  if (sscanf(row, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%d", &p->x0, &p->y0, &p->mean_x, &p->mean_y,
             &p->vx, &p->vy, &p->speed, &p->stick, &p->separated, &p->status) == 10)
    fj->n++;
}

// after each chunk of starts: their rows into the journal
static void tb_fieldChunkDone(void* ctx, const tbFieldResult* r, int s0, int s1) {
  tbFieldJournal* fj = (tbFieldJournal*)ctx;
  char* rows = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&rows, &len);
  if (!f) return;  // the journal misses the chunk: a resumed run does it again
  tb_fieldRows(f, r, s0, s1);
  fclose(f);
  tb_journalAppend(&fj->j, s0, s1, rows, len);
  free(rows);
}

static int tb_plateFieldMain(int argc, char** argv) {
  tbPlateArgs a;
  int rc = tb_parsePlate(argc, argv, &a);
  if (rc) return rc;
  if (a.replay >= 0) return tb_plateFieldReplay(&a);
  if ((rc = tb_cliCostCheck("plate field", "starts", (double)a.opt.nx * a.opt.ny,
                            ceil(a.opt.seconds / a.opt.dt))))
    return rc;
  tbFieldOut out;
  if ((rc = tb_fieldOutOpen(&out, a.out))) return rc;
  // the journal: the rows of every finished chunk, so that --resume goes on after a kill
  tbFieldJournal fj = {0};
  char key[2048], path[4300];
  tb_fieldKey(&a, key, sizeof(key));
  snprintf(path, sizeof(path), "%.*s.journal", (int)(strrchr(out.png.path, '.') - out.png.path),
           out.png.path);
  long next = 0;
  if ((rc = tb_journalOpen(&fj.j, path, key, a.resume, &next, tb_fieldReplayRow, &fj))) {
    tb_fieldOutAbort(&out);
    return rc;
  }
  a.opt.begin = fj.n < next ? fj.n : (int)next;
  if (a.resume)
    tb_journalSayResumed("plate field", "start", a.opt.begin, (long)a.opt.nx * a.opt.ny, path);
  a.opt.chunk_done = tb_fieldChunkDone;
  a.opt.chunk_ctx = &fj;
  tbFieldResult r;
  tb_catchInterrupt();
  int run = tb_plateField(&a.motion, &a.opt, &r);
  if (run != TB_OK && run != TB_INTERRUPTED) {
    tb_fieldOutAbort(&out);
    tb_journalClose(&fj.j, 0);
    free(fj.pt);
    return tb_cliError("%s", tb_lastError());
  }
  if (a.opt.begin > 0) memcpy(r.pt, fj.pt, sizeof(tbFieldPoint) * (size_t)a.opt.begin);
  free(fj.pt);
  r.failed = 0;
  for (int s = 0; s < r.done; s++) r.failed += (r.pt[s].status & TB_SCENE_FAILMASK) != 0;
  rc = tb_fieldOutWrite(&out, &a.motion, a.modified, &a.opt, &r);
  tbOutFile* files[2] = {&out.table, &out.png};
  if (!rc) rc = tb_cliOutCommitAll("--out", files, 2);
  tb_journalClose(&fj.j, !rc && run == TB_OK);
  if (rc) goto done;
  double speed = 0.0;
  int nok = 0, sticking = 0, separating = 0;
  tbFailTally fails = {0};
  for (int i = 0; i < r.done; i++) {
    tb_failTallyAdd(&fails, r.pt[i].status, 0.0, i);  // a point keeps no residual
    if (r.pt[i].status & TB_SCENE_FAILMASK) continue;
    speed += r.pt[i].speed;
    nok++;
    sticking += r.pt[i].stick > TB_FIELD_STICK_MARK;
    separating += r.pt[i].separated > TB_FIELD_STICK_MARK;
  }
  tb_sayFailures("plate field", "start", &fails, 0, "a smaller --dt eases each step's solve");
  double ss = (double)r.done * r.nstep;
  tbJsonPath j[2];
  printf(
      "{\"motion\": \"%s\", \"modified\": %s, \"part\": \"%s\", \"scenes\": %d, \"steps\": %ld, "
      "\"seconds\": %.6f, \"scene_steps_per_s\": %.6g, \"periods\": %d, \"window_s\": %.6g, "
      "\"mean_speed\": %.6g, \"sticking_starts\": %d, \"separating_starts\": %d, \"failed\": %d, "
      "\"threads\": %d, \"partial\": %s, \"table\": \"%s\", \"png\": \"%s\"}\n",
      a.motion.name, a.modified ? "true" : "false", a.opt.box ? "box" : "particle", r.done, r.nstep,
      r.wall, r.wall > 0 ? ss / r.wall : 0.0, r.periods, r.window, nok ? speed / nok : 0.0,
      sticking, separating, r.failed, omp_get_max_threads(),
      run == TB_INTERRUPTED ? "true" : "false", tb_jsonPath(&j[0], out.table.path),
      tb_jsonPath(&j[1], out.png.path));
  if (run == TB_INTERRUPTED) {
    tb_cliError("interrupted: %d of %d starts done, written as a partial field", r.done, r.n);
    rc = 130;
  }
done:
  tb_fieldOutAbort(&out);
  tb_freeFieldResult(&r);
  return rc;
}

int tb_plateMain(int argc, char** argv) {
  if (argc >= 1 && tb_helpAsked(argc, argv)) {
    tb_plateUsage(stdout);
    return 0;
  }
  if (argc >= 1 && !strcmp(argv[0], "field")) return tb_plateFieldMain(argc - 1, argv + 1);
  if (argc >= 1 && !strcmp(argv[0], "optimize")) return tb_plateOptimizeMain(argc - 1, argv + 1);
  if (argc >= 1 && !strcmp(argv[0], "motions")) {
    tb_printMotions();
    return 0;
  }
  tb_plateUsage(stderr);
  return tb_cliError(argc ? "plate: unknown subcommand '%s'" : "plate: needs a subcommand%s",
                     argc ? argv[0] : "");
}
