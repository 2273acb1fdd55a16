// Command line: `tumble grasp3d ...`, the 3D parallel-jaw grasp-probability study.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/grasp3d.h>
#include <tumble/mjcf.h>

#include "math/tb_math.h"

#include <tumble/version.h>

#include "cli/cli.h"
#include "plot/plot.h"

static const char* const kObjectName[3] = {"box", "capsule", "sphere"};
// s, a gripper file's hold after the lift: its pushes test the grip that the built-in gripper's
// 1 s hold does (the +-z pushes load it with its weight and more)
static const double kUserHold = 0.25;

static void tb_grasp3dUsage(FILE* f) {
  fprintf(
      f,
      "usage: tumble grasp3d [--object box|capsule|sphere] [--size S] [--mass M|LO:HI]\n"
      "         [--mu M|LO:HI] [--pos-noise L] [--yaw-noise DEG] [--force N] [--speed V]\n"
      "         [--grid 11x11] [--extent 80mm] [--trials 20] [--dt H] [--solver NAME]\n"
      "         [--max-iter K] [--tol T] [--seed S] [--threads T] [--device auto|cpu|gpu]\n"
      "         [--precision fp64|fp32] [--out PREFIX]\n"
      "         [--resume] [--yes] [--replay CELL,TRIAL [--replay-speed 0.25] [--view side|top]]\n"
      "       tumble grasp3d --gripper GRIPPER.xml --object PART.xml [--tcp SITE]\n"
      "         [--grasp-height L] [--open C[,C..]] [--close C[,C..]] [--close-time 0.3]\n"
      "         [--disturb N] [--slip 10mm] [and the options above but --size, --force, --speed]\n"
      "       either: [--candidates FILE]: candidate grasps (x_m,y_m,yaw_deg rows, the grasp's\n"
      "         centre over the object in its frame) instead of the grid, one row each in\n"
      "         PREFIX.csv and no map\n"
      "  --size: box XxYxZ (or one length: a cube), capsule DIAMETERxLENGTH (lying across\n"
      "  the jaws), sphere DIAMETER; lengths take mm, cm or m (a bare number is mm), e.g.\n"
      "  30x50x30mm. Defaults: box 30x50x30mm, mass 0.08:0.12 kg, mu 0.2:0.8, pos-noise\n"
      "  2mm, yaw-noise 10 deg, force 5 N per finger, speed 0.1 m/s, dt 0.002 s, solver\n"
      "  auto with max-iter 1000 and tol 1e-6 per step.\n"
      "  Writes PREFIX.csv and PREFIX.png (default PREFIX grasp3d). --replay runs trial TRIAL\n"
      "  of cell CELL (x fastest) alone, bitwise as in the study, and writes\n"
      "  PREFIX-replay-CELL-TRIAL.csv (every step) and .mp4.\n"
      "  Your own gripper and part (MJCF files; docs/grasp3d.md): the gripper's top body moves\n"
      "  (its free joint read past) so that its site --tcp (default tcp) points down over the\n"
      "  part, descends to --grasp-height (default: the part's centre, raised until the gripper\n"
      "  clears the table by 1 mm), closes (each actuator's control ramps from --open to --close,\n"
      "  default its ctrlrange's low and high ends, over --close-time s), lifts and holds, then\n"
      "  pushes the part with --disturb N (default its weight) along +-x, +-y, +-z in turn: held\n"
      "  when lifted and never moved more than --slip from its place in the gripper. The part's\n"
      "  mass is the file's unless --mass is given; --mu replaces every contact's friction.\n");
}

// "V" or "LO:HI" with LO <= HI, both in [lo, hi]
static int tb_parseRange(const char* what, const char* s, double lo, double hi, double out[2]) {
  char buf[128], full[200];
  snprintf(buf, sizeof(buf), "%s", s);
  snprintf(full, sizeof(full), "%s %s", what, s);  // messages name the option and its value
  char* colon = strchr(buf, ':');
  if (colon) *colon = 0;
  if (tb_parseNumber(full, buf, &out[0])) return 2;
  out[1] = out[0];
  if (colon && tb_parseNumber(full, colon + 1, &out[1])) return 2;
  if (!(out[0] >= lo && out[1] <= hi && out[0] <= out[1])) {
    return tb_cliError("%s %s: must be a value or LO:HI with %g <= LO <= HI <= %g", what, s, lo,
                       hi);
  }
  return 0;
}

typedef struct tbGrasp3dArgs {
  tbGrasp3dDef def;
  const char* out;
  int size_given;
  const char* size_val;  // --size as typed, for messages
  double size[3];
  int nsize;
  int replay_cell, replay_trial;  // --replay CELL,TRIAL; -1: the study
  tbReplayOpt replay;
  int resume;          // --resume: go on from PREFIX.journal
  const char* dt_val;  // --dt as typed (NULL: the default), for messages
  int mass_given;
  const char* builtin;    // an option only the built-in gripper takes (--size, --force, --speed)
  const char* useropt;    // an option only a gripper file takes
  int nopen, nclose;      // --open, --close counts
  const char* cand_path;  // --candidates FILE
  double* cand;           // its poses (tbGrasp3dDef.cand), malloc'd
} tbGrasp3dArgs;

// --candidates FILE: a header "x_m,y_m,yaw_deg", then one candidate grasp a line (m, m, degrees;
// '#' lines and blank ones skipped) into a->cand; 0, or 2 after an error naming the file's line
static int tb_readCandidates(tbGrasp3dArgs* a) {
  FILE* f = fopen(a->cand_path, "r");
  if (!f) return tb_cliError("--candidates %s: cannot be read", a->cand_path);
  char line[512];
  int ln = 0, header = 0, n = 0, cap = 0, rc = 0;
  while (!rc && fgets(line, sizeof(line), f)) {
    ln++;
    line[strcspn(line, "\r\n")] = 0;
    if (!line[0] || line[0] == '#') continue;
    if (!header) {
      header = 1;
      if (strcmp(line, "x_m,y_m,yaw_deg")) {
        rc = tb_cliError("--candidates %s:%d: the header is \"x_m,y_m,yaw_deg\", not \"%s\"",
                         a->cand_path, ln, line);
      }
      continue;
    }
    double v[3];
    char* at = line;
    for (int k = 0; k < 3 && !rc; k++) {
      char* end;
      v[k] = strtod(at, &end);
      if (end == at || !isfinite(v[k]) || *end != (k < 2 ? ',' : 0)) {
        rc = tb_cliError("--candidates %s:%d: \"%s\" is not three numbers x_m,y_m,yaw_deg",
                         a->cand_path, ln, line);
      }
      at = end + 1;
    }
    if (!rc && n == TB_G3_MAXCAND) {
      rc = tb_cliError("--candidates %s:%d: more than %d candidates", a->cand_path, ln,
                       TB_G3_MAXCAND);
    }
    if (!rc && n == cap) {
      cap = cap ? 2 * cap : 64;
      double* c = (double*)realloc(a->cand, sizeof(double) * 3 * (size_t)cap);
      if (!c) rc = tb_cliError("--candidates %s: out of memory", a->cand_path);
      if (c) a->cand = c;
    }
    if (rc) break;
    a->cand[3 * n] = v[0];
    a->cand[3 * n + 1] = v[1];
    a->cand[3 * n + 2] = v[2] * TB_PI / 180.0;
    n++;
  }
  fclose(f);
  if (!rc && n == 0) rc = tb_cliError("--candidates %s: no candidate grasps", a->cand_path);
  a->def.ncand = rc ? 0 : n;
  a->def.cand = a->cand;
  return rc;
}

// C[,C..]: at most TB_G3_MAXACT controls into out; the count, or -1 after an error
static int tb_parseControls(const char* what, const char* s, double* out) {
  char buf[512], full[600];
  snprintf(buf, sizeof(buf), "%s", s);
  snprintf(full, sizeof(full), "%s %s", what, s);
  int n = 0;
  for (char *p = buf, *c; p; p = c ? c + 1 : NULL) {
    c = strchr(p, ',');
    if (c) *c = 0;
    if (n == TB_G3_MAXACT) {
      return tb_cliError("%s: at most %d controls, one per actuator", full, TB_G3_MAXACT), -1;
    }
    if (tb_parseNumber(full, p, &out[n++])) return -1;
  }
  return n;
}

// 1 when val names an MJCF file (ends in .xml) rather than a built-in object
static int tb_isXml(const char* val) {
  size_t n = strlen(val);
  return n > 4 && !strcmp(val + n - 4, ".xml");
}

// the default size of each object: box 30x50x30 mm, capsule 30x60 mm, sphere 40 mm
static void tb_defaultSize(int object, double size[3]) {
  static const double s[3][3] = {{0.03, 0.05, 0.03}, {0.03, 0.06, 0.0}, {0.04, 0.0, 0.0}};
  memcpy(size, s[object], sizeof(double) * 3);
}

// the options of a user's gripper and part, each given with what takes it; 0, or 2
static int tb_userArgs(tbGrasp3dArgs* a) {
  tbGrasp3dDef* d = &a->def;
  if (d->part && !d->gripper) {
    return tb_cliError(
        "--object %s: a part file is grasped by a gripper file (--gripper); the "
        "built-in gripper grasps box, capsule or sphere",
        d->part);
  }
  if (d->gripper && !d->part) {
    return tb_cliError("--gripper %s: give the part it grasps (--object PART.xml)", d->gripper);
  }
  int user = d->gripper != NULL;
  if (user && a->builtin) {
    return tb_cliError(
        "%s: the built-in gripper's; a gripper file's forces and strokes are its "
        "actuators' (kp, forcerange, ctrlrange)",
        a->builtin);
  }
  if (!user && a->useropt) return tb_cliError("%s: for a gripper file (--gripper)", a->useropt);
  if (a->nopen != a->nclose) {
    return tb_cliError("--open has %d controls, --close %d: one each per actuator", a->nopen,
                       a->nclose);
  }
  d->nctrl = a->nopen;
  if (user && !a->mass_given) d->mass_lo = d->mass_hi = 0.0;  // the file's
  if (user) d->hold = kUserHold;
  return 0;
}

// returns 0, 2 after an error, -1 after --help
static int tb_parseGrasp3d(int argc, char** argv, tbGrasp3dArgs* a) {
  memset(a, 0, sizeof(*a));
  a->def = tb_defaultGrasp3dDef();
  a->def.progress = 1;
  a->out = "grasp3d";
  a->replay_cell = a->replay_trial = -1;
  a->replay = tb_defaultReplayOpt(-1);
  a->replay.speed = 0.25;
  for (int i = 0; i < argc; i++) {
    const char* arg = argv[i];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      tb_grasp3dUsage(stdout);
      return -1;
    }
    const char* val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(arg, "--resume")) {
      a->resume = 1;
      continue;
    }
    if (tb_parseYes(arg)) continue;
    if (tb_optionValue(arg, val)) return 2;
    i++;
    int rc = 0;
    tbGrasp3dDef* d = &a->def;
    if (!strcmp(arg, "--object") && tb_isXml(val)) {
      d->part = val;
    } else if (!strcmp(arg, "--gripper")) {
      d->gripper = val;
    } else if (!strcmp(arg, "--candidates")) {
      a->cand_path = val;
    } else if (!strcmp(arg, "--tcp")) {
      a->useropt = arg;
      d->tcp = val;
    } else if (!strcmp(arg, "--grasp-height")) {
      a->useropt = arg;
      rc = tb_parseLength(arg, val, 1e-3, &d->grasp_height);
      if (!rc && !(d->grasp_height >= 0.0 && d->grasp_height <= 1.0)) {
        return tb_cliError("--grasp-height %s: must be in [0, 1m]", val);
      }
    } else if (!strcmp(arg, "--open") || !strcmp(arg, "--close")) {
      a->useropt = arg;
      int open = !strcmp(arg, "--open");
      int n = tb_parseControls(arg, val, open ? d->ctrl_open : d->ctrl_close);
      if (n < 0) return 2;
      *(open ? &a->nopen : &a->nclose) = n;
    } else if (!strcmp(arg, "--close-time")) {
      a->useropt = arg;
      rc = tb_parseNumber(arg, val, &d->close_time);
      if (!rc && !(d->close_time > 0.0 && d->close_time <= 10.0)) {
        return tb_cliError("--close-time %s: must be in (0, 10] (s)", val);
      }
    } else if (!strcmp(arg, "--disturb")) {
      a->useropt = arg;
      rc = tb_parseNumber(arg, val, &d->disturb);
      if (!rc && !(d->disturb > 0.0 && d->disturb <= 1e4)) {
        return tb_cliError("--disturb %s: must be in (0, 10000] (N)", val);
      }
    } else if (!strcmp(arg, "--slip")) {
      a->useropt = arg;
      rc = tb_parseLength(arg, val, 1e-3, &d->slip);
      if (!rc && !(d->slip > 0.0 && d->slip <= 1.0)) {
        return tb_cliError("--slip %s: must be in (0, 1m]", val);
      }
    } else if (!strcmp(arg, "--object")) {
      int k = -1;
      for (int j = 0; j < 3; j++) {
        if (!strcmp(val, kObjectName[j])) k = j;
      }
      if (k < 0) {
        return tb_cliError("--object %s: expected box, capsule, sphere or an MJCF file (.xml)",
                           val);
      }
      d->object = k;
    } else if (!strcmp(arg, "--size")) {
      a->builtin = arg;
      a->size_val = val;
      a->nsize = tb_parseLengths(arg, val, 1e-3, a->size, 3);
      if (a->nsize < 0) return 2;
      a->size_given = 1;
    } else if (!strcmp(arg, "--mass")) {
      double r[2];
      rc = tb_parseRange(arg, val, 0.0, 1e3, r);
      if (!rc && !(r[0] >= TB_MIN_MASS)) {
        return tb_cliError(
            "--mass %s: below %g kg, the smallest mass the solvers take (its 1/m would overflow "
            "their scales; tumble.h: TB_MIN_MASS)",
            val, TB_MIN_MASS);
      }
      d->mass_lo = r[0];
      d->mass_hi = r[1];
      a->mass_given = 1;
    } else if (!strcmp(arg, "--mu")) {
      double r[2];
      rc = tb_parseRange(arg, val, 0.0, 1e3, r);
      d->mu_lo = r[0];
      d->mu_hi = r[1];
    } else if (!strcmp(arg, "--pos-noise")) {
      rc = tb_parseLength(arg, val, 1e-3, &d->pos_noise);
      if (!rc && !(d->pos_noise >= 0.0 && d->pos_noise <= 0.1)) {
        return tb_cliError("--pos-noise %s: must be in [0, 100mm]", val);
      }
    } else if (!strcmp(arg, "--yaw-noise")) {
      double deg;
      rc = tb_parseNumber(arg, val, &deg);
      if (!rc && !(deg >= 0.0 && deg <= 180.0)) {
        return tb_cliError("--yaw-noise %s: must be in [0, 180] (degrees)", val);
      }
      d->yaw_noise = deg * TB_PI / 180.0;
    } else if (!strcmp(arg, "--force")) {
      a->builtin = arg;
      rc = tb_parseNumber(arg, val, &d->force);
      if (!rc && !(d->force > 0.0 && d->force <= 1e4)) {
        return tb_cliError("--force %s: must be in (0, 10000] (N)", val);
      }
    } else if (!strcmp(arg, "--speed")) {
      a->builtin = arg;
      rc = tb_parseNumber(arg, val, &d->close_speed);
      if (!rc && !(d->close_speed > 0.0 && d->close_speed <= 10.0)) {
        return tb_cliError("--speed %s: must be in (0, 10] (m/s)", val);
      }
    } else if (!strcmp(arg, "--grid")) {
      rc = tb_parseGrid(arg, val, &d->grid.nx, &d->grid.ny);
    } else if (!strcmp(arg, "--extent")) {
      double e[2];
      int n = tb_parseLengths(arg, val, 1e-3, e, 2);
      if (n < 0) return 2;
      if (n == 1) e[1] = e[0];
      if (!(e[0] >= 0.0 && e[1] >= 0.0 && e[0] <= 1.0 && e[1] <= 1.0)) {
        return tb_cliError("--extent %s: must be in [0, 1m]", val);
      }
      d->grid.extent_x = e[0];
      d->grid.extent_y = e[1];
    } else if (!strcmp(arg, "--trials")) {
      long t;
      rc = tb_parseInt(arg, val, 1, 1000000, &t);
      d->trials = (int)t;
    } else if (!strcmp(arg, "--dt")) {
      a->dt_val = val;
      rc = tb_parseNumber(arg, val, &d->dt);
      if (!rc && !(d->dt > 0.0 && d->dt <= 0.01)) {
        return tb_cliError("--dt %s: must be in (0, 0.01] (s)", val);
      }
    } else if (!strcmp(arg, "--solver")) {
      rc = tb_parseSolver(val, &d->solver);
    } else if (!strcmp(arg, "--max-iter")) {
      long k;
      rc = tb_parseInt(arg, val, 1, 1000000, &k);
      d->max_iter = (int)k;
    } else if (!strcmp(arg, "--tol")) {
      rc = tb_parseNumber(arg, val, &d->tol);
      if (!rc && !(d->tol > 0.0 && d->tol < 1.0))
        return tb_cliError("--tol %s: must be in (0, 1)", val);
    } else if (!strcmp(arg, "--seed")) {
      long s;
      rc = tb_parseInt(arg, val, 0, 2147483647L, &s);
      d->seed = (uint64_t)s;
    } else if (!strcmp(arg, "--replay")) {
      rc = tb_parseCellTrial(arg, val, &a->replay_cell, &a->replay_trial);
    } else if ((rc = tb_parseReplayOption(arg, val, &a->replay)) < 0) {
      rc = tb_parseBatchOption("grasp3d", arg, val, &a->out);
      if (rc < 0) return tb_unknownOption("grasp3d", arg, tb_grasp3dUsage);
    }
    if (rc) return rc;
  }
  tbGrasp3dDef* d = &a->def;
  tb_cliRunOf(&d->device, &d->precision);
  if (tb_userArgs(a)) return 2;
  if (a->cand_path && tb_readCandidates(a)) return 2;
  tb_defaultSize(d->object, d->size);
  if (a->size_given) {
    int want = d->object == TB_G3_BOX ? 3 : d->object == TB_G3_CAPSULE ? 2 : 1;
    if (d->object == TB_G3_BOX && a->nsize == 1) {
      a->size[1] = a->size[2] = a->size[0];
      a->nsize = 3;
    }
    if (a->nsize != want) {
      return tb_cliError("--size %s: a %s takes %s", a->size_val, kObjectName[d->object],
                         want == 3   ? "XxYxZ or one length"
                         : want == 2 ? "DIAMETERxLENGTH"
                                     : "one DIAMETER");
    }
    for (int k = 0; k < want; k++) {
      if (!(a->size[k] >= TB_G3_MIN_SIZE && a->size[k] <= 0.2)) {
        return tb_cliError("--size %s: %g mm must be in [%gmm, 200mm]", a->size_val,
                           1e3 * a->size[k], 1e3 * TB_G3_MIN_SIZE);
      }
    }
    if (d->object == TB_G3_CAPSULE && a->size[1] < a->size[0]) {
      return tb_cliError("--size %s: the capsule's length %g mm is less than its diameter %g mm",
                         a->size_val, 1e3 * a->size[1], 1e3 * a->size[0]);
    }
    memcpy(d->size, a->size, sizeof(d->size));
  }
  if (tb_checkGrasp3dDef(d) != TB_OK) return tb_cliError("%s", tb_lastError());
  if (a->dt_val) {  // at least the shortest step of the scene (tb_minStep)
    tbGrasp3dInfo info;
    tbModel* m = tb_loadGrasp3d(d, &info, NULL, 0);
    int rc = m ? tb_cliCheckStep("--dt", a->dt_val, m, d->dt) : tb_cliError("%s", tb_lastError());
    tb_freeModel(m);
    if (rc) return rc;
  }
  return 0;
}

// a file's name without its folders
static const char* tb_baseName(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// what the study grasps, for titles and the JSON: the object's kind, or the part file's name
static const char* tb_objectName(const tbGrasp3dDef* d) {
  return d->part ? tb_baseName(d->part) : kObjectName[d->object];
}

static int tb_writeGrasp3dPng(const tbGrasp3dArgs* a, const tbGrasp3dInfo* info,
                              const tbGrasp3dResult* r, tbOutFile* png, double p) {
  const tbGrasp3dDef* d = &a->def;
  double xy[128];
  int n = info->user ? info->noutline : tb_grasp3dOutline(d, xy);
  for (int i = 0; i < n && info->user; i++) {
    xy[2 * i] = info->outline[i][0];
    xy[2 * i + 1] = info->outline[i][1];
  }
  char title[200], size[64];
  if (info->user) {
    snprintf(title, sizeof(title), "grasp3d: %s in %s, mu %g-%g, %d trials/cell: p = %.3f",
             tb_objectName(d), tb_baseName(d->gripper), d->mu_lo, d->mu_hi, d->trials, p);
    int rc = tb_plotSweep(png->f, title, &d->grid, &r->tally, 1, &n, xy);
    return rc ? tb_cliPlotFailed(png) : 0;
  }
  if (d->object == TB_G3_BOX) {
    snprintf(size, sizeof(size), "%gx%gx%g mm", 1e3 * d->size[0], 1e3 * d->size[1],
             1e3 * d->size[2]);
  } else if (d->object == TB_G3_CAPSULE) {
    snprintf(size, sizeof(size), "%gx%g mm", 1e3 * d->size[0], 1e3 * d->size[1]);
  } else {
    snprintf(size, sizeof(size), "%g mm", 1e3 * d->size[0]);
  }
  snprintf(title, sizeof(title), "grasp3d: %s %s, mu %g-%g, %g N, %d trials/cell: p = %.3f",
           kObjectName[d->object], size, d->mu_lo, d->mu_hi, d->force, d->trials, p);
  int rc = tb_plotSweep(png->f, title, &d->grid, &r->tally, 1, &n, xy);
  return rc ? tb_cliPlotFailed(png) : 0;
}

// FNV-1a over n bytes, from h
static uint64_t tb_fnv(uint64_t h, const void* p, size_t n) {
  const unsigned char* b = (const unsigned char*)p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

// a user's scene by what its files made: the scenes' values, the meshes, the path and schedules
// (an edited file or mesh is another study, whatever its name)
static uint64_t tb_sceneFingerprint(const tbModel* m) {
  uint64_t h = 1469598103934665603ull;
  h = tb_fnv(h, m->vary0, sizeof(double) * (size_t)m->nvary);
  h = tb_fnv(h, m->hull_vert, sizeof(double) * 3 * (size_t)m->nhullvert);
  h = tb_fnv(h, m->drv_key, sizeof(double) * 8 * TB_MAXKEY * (size_t)m->ndriver);
  return tb_fnv(h, m->sch_key, sizeof(double) * 2 * TB_MAXKEY * (size_t)m->nsched);
}

// the rest of the study's key
static void tb_grasp3dKeyOf(const tbGrasp3dDef* d, char* key, size_t n) {
  if (d->gripper) {
    snprintf(key, n,
             "grasp3d-user %s %s scene %016llx m %.17g %.17g mu %.17g %.17g noise %.17g %.17g "
             "lift %.17g hold %.17g dt %.17g solver %d it %d tol %.17g grid %d %d %.17g %.17g "
             "%.17g %.17g trials %d seed %llu",
             TUMBLE_VERSION, TUMBLE_COMMIT, (unsigned long long)tb_sceneFingerprint(d->user_model),
             d->mass_lo, d->mass_hi, d->mu_lo, d->mu_hi, d->pos_noise, d->yaw_noise, d->lift,
             d->hold, d->dt, d->solver, d->max_iter, d->tol, d->grid.nx, d->grid.ny,
             d->grid.extent_x, d->grid.extent_y, d->grid.center_x, d->grid.center_y, d->trials,
             (unsigned long long)d->seed);
    return;
  }
  snprintf(key, n,
           "grasp3d %s %s %d %.17g %.17g %.17g m %.17g %.17g mu %.17g %.17g noise %.17g %.17g "
           "F %.17g v %.17g lift %.17g hold %.17g dt %.17g solver %d it %d tol %.17g "
           "grid %d %d %.17g %.17g %.17g %.17g trials %d seed %llu",
           TUMBLE_VERSION, TUMBLE_COMMIT, d->object, d->size[0], d->size[1], d->size[2], d->mass_lo,
           d->mass_hi, d->mu_lo, d->mu_hi, d->pos_noise, d->yaw_noise, d->force, d->close_speed,
           d->lift, d->hold, d->dt, d->solver, d->max_iter, d->tol, d->grid.nx, d->grid.ny,
           d->grid.extent_x, d->grid.extent_y, d->grid.center_x, d->grid.center_y, d->trials,
           (unsigned long long)d->seed);
}

// a study as text, for its journal: every option that changes a trial's outcome (the candidate
// grasps by their poses' fingerprint)
static void tb_grasp3dKey(const tbGrasp3dDef* d, char* key, size_t n) {
  char cand[64] = "";
  if (d->ncand > 0) {
    snprintf(cand, sizeof(cand), " candidates %d %016llx", d->ncand,
             (unsigned long long)tb_fnv(1469598103934665603ull, d->cand,
                                        sizeof(double) * 3 * (size_t)d->ncand));
  }
  size_t used = strlen(cand) + 1;
  if (used > n) used = n;
  tb_grasp3dKeyOf(d, key, n - used);
  strncat(key, cand, n - strlen(key) - 1);
}

// the trials a killed study finished (journal rows "scene,outcome"), counted after the rest runs
typedef struct tbGrasp3dJournal {
  tbJournal j;
  long n, cap;
  unsigned char* outcome;  // (n) TB_G3_* bits of scenes [0, n)
} tbGrasp3dJournal;

static void tb_grasp3dReplayRow(void* ctx, const char* row, size_t len) {
  tbGrasp3dJournal* gj = (tbGrasp3dJournal*)ctx;
  (void)len;
  long id;
  int bits;
  if (sscanf(row, "%ld,%d", &id, &bits) != 2 || id != gj->n) return;
  if (gj->n == gj->cap) {
    long cap = gj->cap ? 2 * gj->cap : 4096;
    unsigned char* o = (unsigned char*)realloc(gj->outcome, (size_t)cap);
    if (!o) return;  // out of memory: those trials run again
    gj->outcome = o;
    gj->cap = cap;
  }
  gj->outcome[gj->n++] = (unsigned char)bits;
}

static void tb_grasp3dChunkDone(void* ctx, long first, int n, const unsigned char* outcome) {
  tbGrasp3dJournal* gj = (tbGrasp3dJournal*)ctx;
  char* rows = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&rows, &len);
  if (!f) return;  // the journal misses the chunk: a resumed run does it again
  for (int i = 0; i < n; i++) fprintf(f, "%ld,%d\n", first + i, outcome[i]);
  fclose(f);
  tb_journalAppend(&gj->j, first, first + n, rows, len);
  free(rows);
}

// the replayed trials into the tally
static void tb_grasp3dAddReplayed(const tbGrasp3dJournal* gj, int trials, tbGrasp3dResult* r) {
  for (long g = 0; g < gj->n; g++) {
    int bits = gj->outcome[g];
    tb_tallyAdd(&r->tally, (int)(g / trials), bits & TB_G3_FAILED, (bits & TB_G3_HELD) != 0);
    r->unconverged += (bits & TB_G3_UNCONVERGED) != 0;
    r->struck += (bits & TB_G3_STRUCK) != 0;
    int status = (bits & TB_G3_OVERFLOW ? TB_SCENE_OVERFLOW_FAIL : 0) |
                 (bits & TB_G3_BURIED ? TB_SCENE_START_FAIL : 0) |
                 (bits & TB_G3_UNCONVERGED ? TB_SCENE_UNCONVERGED : 0);
    tb_failTallyAdd(&r->fails, status, 0.0, g);  // the journal keeps no residual
  }
}

// one row per candidate grasp: its pose and its counts, as the grid's rows
static void tb_writeCandidateRows(FILE* f, const tbGrasp3dDef* d, const tbSweepTally* t) {
  fprintf(f, "candidate,x_mm,y_mm,yaw_deg,trials,successes,failed,p,lo95,hi95\n");
  for (int c = 0; c < t->ncell; c++) {
    const double* k = d->cand + 3 * c;
    double lo, hi;
    tb_wilson(t->success[c], t->valid[c], &lo, &hi);
    fprintf(f, "%d,%.9g,%.9g,%.9g,%ld,%ld,%ld,", c, 1e3 * k[0], 1e3 * k[1], k[2] * 180.0 / TB_PI,
            t->valid[c], t->success[c], t->failed[c]);
    if (t->valid[c] > 0) {
      fprintf(f, "%.9g,", (double)t->success[c] / (double)t->valid[c]);
    } else {
      fprintf(f, "nan,");
    }
    fprintf(f, "%.9g,%.9g\n", lo, hi);
  }
}

// the cells' rows: the grid's (tb_sweepWriteRows) or the candidates'
static void tb_writeRows(FILE* f, const tbGrasp3dDef* d, const tbSweepTally* t) {
  if (d->ncand > 0) {
    tb_writeCandidateRows(f, d, t);
  } else {
    tb_sweepWriteRows(f, &d->grid, t);
  }
}

// the cells' table into out, a CSV or an HDF5 file: 0, or 2 after an error
static int tb_writeCells(tbOutFile* out, const tbGrasp3dArgs* a, const tbGrasp3dResult* r, int sw) {
  if (!tb_isH5(a->out)) {
    tb_writeRows(out->f, &a->def, &r->tally);
    return 0;
  }
  char* text = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  if (!f) return tb_cliError("--out %s: out of memory", out->path);
  tb_writeRows(f, &a->def, &r->tally);
  fclose(f);
  const char* name[1] = {"cells"};
  int rc = tb_writeTablesH5(out, "grasp3d", sw == TB_INTERRUPTED, 1, name, &text);
  free(text);
  return rc;
}

// --replay CELL,TRIAL: that one trial of the study again, bitwise (its draws are a pure function
// of seed, cell and trial), as PREFIX-replay-C-T.csv and .mp4
static int tb_grasp3dReplay(tbGrasp3dArgs* a) {
  const tbGrasp3dDef* def = &a->def;
  int cell = a->replay_cell, trial = a->replay_trial;
  if (cell >= tb_grasp3dCells(def) || trial >= def->trials)
    return tb_cliError("--replay %d,%d: the study has %d cells of %d trials", cell, trial,
                       tb_grasp3dCells(def), def->trials);
  tbGrasp3dInfo info;
  tbModel* m = tb_loadGrasp3d(def, &info, NULL, 0);
  tbData* d = m ? tb_newData(m, 1) : NULL;
  int rc = 0, held = 0;
  if (d) {
    tb_defaultParams(m, d);
    tb_grasp3dParams(m, &info, def, cell, trial, d->param);
  }
  if (!d || tb_checkParams(m, d) || tb_resetData(m, d))
    rc = tb_cliError("--replay: %s", tb_lastError());
  if (!rc && info.user) {  // the study's pieces first, for its verdict; then the recorded run
    unsigned char h = 0;
    if (tb_grasp3dUserRollout(m, &info, d, 1, def, &h) || tb_resetData(m, d)) {
      rc = tb_cliError("--replay: %s", tb_lastError());
    }
    held = h;
  }
  char stem[4200];
  snprintf(stem, sizeof(stem), "%s-replay-%d-%d", a->out, cell, trial);
  tbCliReplay rep = {0};
  if (!rc) rc = tb_replayRun(&rep, stem, m, d, (int)info.nstep, &a->replay);
  if (!info.user) held = !rc && tb_grasp3dSuccess(m, &info, d, 0);
  held = held && !rc && !(d->status[0] & TB_SCENE_FAILMASK);
  char text[96] = "";
  if (!rc) {
    tb_statusText(d->status[0], text, sizeof(text));
    char title[160], caption[200];
    const double* p = d->param;
    snprintf(title, sizeof(title), "grasp3d %s, cell %d, trial %d: %s (%s)", tb_objectName(def),
             cell, trial, held ? "held" : "not held", text);
    // the yaw of the trial's draw: the built-in object's from its quaternion; a part's from
    // the draw itself (its quaternion holds its file's turn too)
    double yaw =
        info.user ? tb_grasp3dDraw(def, cell, trial).yaw : 2.0 * atan2(p[info.p_qz], p[info.p_qw]);
    char force[32] = "";
    if (info.p_force >= 0) snprintf(force, sizeof(force), ", %g N per finger", p[info.p_force]);
    snprintf(caption, sizeof(caption),
             "object at (%.2f, %.2f) mm, yaw %.2f deg from the jaws' centre; mu %.3f, mass "
             "%.4g kg%s",
             1e3 * p[info.p_x], 1e3 * p[info.p_y], yaw * 180.0 / TB_PI, p[info.p_mu],
             p[info.p_mass], force);
    rc = tb_replayWrite(&rep, m, d, &a->replay, title, caption);
    if (!rc) rc = tb_replayCommit(&rep, NULL);
  }
  if (!rc) {
    tbJsonPath j[2];
    printf(
        "{\"cell\": %d, \"trial\": %d, \"success\": %d, \"status\": \"%s\", "
        "\"max_residual\": %.6g, \"trajectory\": \"%s\", \"video\": \"%s\"}\n",
        cell, trial, held, text, d->resid_max[0], tb_jsonPath(&j[0], rep.csv.path),
        tb_jsonPath(&j[1], rep.video.path));
  }
  tb_replayEnd(&rep);
  tb_freeData(d);
  tb_freeModel(m);
  return rc;
}

// the study of the parsed options a, its outputs committed together
static int tb_grasp3dStudy(tbGrasp3dArgs* ap) {
  tbGrasp3dArgs a = *ap;
  int rc = 0;
  tbGrasp3dInfo info;
  char note[1024];
  tbModel* m = tb_loadGrasp3d(&a.def, &info, note, sizeof(note));
  if (!m) return tb_cliError("%s", tb_lastError());
  if (note[0]) fprintf(stderr, "tumble: grasp3d: %s\n", note);
  if (info.user) {  // the sweep's model: the files are read once
    a.def.user_model = m;
    a.def.user_info = &info;
  } else {
    tb_freeModel(m);
    m = NULL;
  }
  if ((rc = tb_cliCostCheck("grasp3d", "trials", (double)tb_grasp3dCells(&a.def) * a.def.trials,
                            info.nstep))) {
    tb_freeModel(m);
    return rc;
  }
  // PREFIX.csv (or PREFIX.h5 for --out PREFIX.h5) and PREFIX.png, opened before the study and
  // committed together
  int h5 = tb_isH5(a.out), stem = h5 ? (int)(strrchr(a.out, '.') - a.out) : (int)strlen(a.out);
  char table[4200], png[4200];
  snprintf(table, sizeof(table), "%.*s.%s", stem, a.out, h5 ? "h5" : "csv");
  snprintf(png, sizeof(png), "%.*s.png", stem, a.out);
  tbOutFile out = {0}, plot = {0};
  tbGrasp3dJournal gj = {0};
  int map = a.def.ncand == 0;  // candidates have no grid to map
  if ((rc = tb_cliOutOpen(&out, "--out", table)) ||
      (map && (rc = tb_cliOutOpen(&plot, "--out", png))))
    goto done;
  char key[2048], path[4300];
  tb_grasp3dKey(&a.def, key, sizeof(key));
  snprintf(path, sizeof(path), "%.*s.journal", stem, a.out);
  long next = 0;
  if ((rc = tb_journalOpen(&gj.j, path, key, a.resume, &next, tb_grasp3dReplayRow, &gj))) goto done;
  a.def.begin = gj.n < next ? gj.n : next;
  if (a.resume)
    tb_journalSayResumed("grasp3d", "trial", a.def.begin,
                         (long)tb_grasp3dCells(&a.def) * a.def.trials, path);
  a.def.chunk_done = tb_grasp3dChunkDone;
  a.def.chunk_ctx = &gj;
  tbGrasp3dResult r;
  tb_catchInterrupt();
  int sw = tb_grasp3dSweep(&a.def, &r);
  if (sw != TB_OK && sw != TB_INTERRUPTED) {
    rc = tb_cliError("%s", tb_lastError());
    goto done;
  }
  tb_grasp3dAddReplayed(&gj, a.def.trials, &r);
  long succ, valid, failed;
  tb_tallySum(&r.tally, &succ, &valid, &failed);
  double p = valid ? (double)succ / valid : NAN, lo, hi;
  tb_wilson(succ, valid, &lo, &hi);
  tbOutFile* files[2] = {&out, &plot};
  if (!(rc = map ? tb_writeGrasp3dPng(&a, &info, &r, &plot, p) : 0) &&
      !(rc = tb_writeCells(&out, &a, &r, sw)))
    rc = tb_cliOutCommitAll("--out", files, map ? 2 : 1);
  if (!rc)
    tb_sayFailures("grasp3d", "trial", &r.fails, 0,
                   "raise --max-iter, loosen --tol or try another --solver");
  if (!rc && r.struck) {
    fprintf(stderr,
            "tumble: grasp3d: %ld trial(s) struck the part on the way down (it moved by more than "
            "--slip before the close): counted as failed grasps\n",
            r.struck);
  }
  if (!rc) {
    double steps = (double)r.done * r.nstep, s = r.seconds > 0.0 ? r.seconds : 1e-9;
    char pstr[32] = "null";  // JSON has no NaN: every scene failed numerically
    if (valid) snprintf(pstr, sizeof(pstr), "%.4f", p);
    tbJsonPath j[2];
    printf(
        "{\"object\": \"%s\", \"probability\": %s, \"lo95\": %.4f, \"hi95\": %.4f, "
        "\"trials\": %ld, \"successes\": %ld, \"failed_scenes\": %ld, \"unconverged_scenes\": "
        "%ld, \"struck_trials\": %ld, \"cells\": %d, \"steps_per_trial\": %ld, \"seconds\": %.3f, "
        "\"trials_per_s\": "
        "%.4g, \"scene_steps_per_s\": %.4g, \"threads\": %d, \"partial\": %s, \"table\": \"%s\", "
        "\"png\": %s%s%s}\n",
        tb_objectName(&a.def), pstr, lo, hi, r.done, succ, failed, r.unconverged, r.struck,
        r.tally.ncell, r.nstep, r.seconds, r.done / s, steps / s, omp_get_max_threads(),
        sw == TB_INTERRUPTED ? "true" : "false", tb_jsonPath(&j[0], table), map ? "\"" : "",
        map ? tb_jsonPath(&j[1], png) : "null", map ? "\"" : "");
  }
  if (!rc && sw == TB_INTERRUPTED) {
    tb_cliError("interrupted: %ld of %ld trials done, written as a partial study", r.done,
                r.nscene);
    rc = 130;
  }
  tb_journalClose(&gj.j, !rc);
  tb_freeGrasp3dResult(&r);
done:
  tb_journalClose(&gj.j, 0);
  free(gj.outcome);
  tb_outAbort(&out);
  tb_outAbort(&plot);
  tb_freeModel(m);
  return rc;
}

int tb_grasp3dMain(int argc, char** argv) {
  tbGrasp3dArgs a;
  int rc = tb_parseGrasp3d(argc, argv, &a);
  if (!rc) rc = a.replay_cell >= 0 ? tb_grasp3dReplay(&a) : tb_grasp3dStudy(&a);
  free(a.cand);
  return rc < 0 ? 0 : rc;
}
