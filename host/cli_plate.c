// Command line: `tumble plate field ...`, the velocity field of a vibrating-plate motion.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/plate.h>

#include "cli.h"
#include "plot.h"

typedef struct tbPlateArgs {
  tbPlateMotion motion;
  int modified;  // a --param changed the motion
  tbFieldOpt opt;
  const char* out;
  char set_names[TB_FIELD_MAXSET][TB_NAMELEN];
} tbPlateArgs;

static void tb_plateUsage(FILE* f) {
  fprintf(f,
          "usage: tumble plate field [--motion NAME] [--param NAME=VALUE]... [--grid NxN]\n"
          "         [--extent CM] [--seconds T] [--dt H] [--mu MU] [--part particle|box]\n"
          "         [--transient S] [--threads T] [--device auto|cpu|gpu] [--out PREFIX]\n"
          "       tumble plate optimize --target circle|saddle|FILE\n"
          "         [--optimizer nelder-mead|cmaes|both] [--starts K] [--budget SECONDS]\n"
          "         [--evals N] [--dt H] [--horizon S] [--mu MU] [--threads T]\n"
          "         [--device auto|cpu|gpu] [--out PREFIX]\n"
          "       tumble plate motions\n");
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

static int tb_parsePlate(int argc, char** argv, tbPlateArgs* a) {
  memset(a, 0, sizeof(*a));
  a->motion = *tb_plateMotion(tb_findPlateMotion("centrifuge"));
  a->opt = tb_defaultFieldOpt();
  a->opt.progress = 1;
  a->out = "plate-field";
  // the motion first, so that --param applies to it whatever the order
  for (int i = 0; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--motion")) continue;
    int k = tb_findPlateMotion(argv[i + 1]);
    if (k < 0) {
      return tb_cliError("--motion %s: unknown motion (see tumble plate motions)", argv[i + 1]);
    }
    a->motion = *tb_plateMotion(k);
  }
  for (int i = 0; i < argc; i++) {
    const char* arg = argv[i];
    const char* val = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = 0;
    if (!val) return tb_cliError("%s needs a value", arg);
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
    } else if (!strcmp(arg, "--seconds")) {
      rc = tb_parseNumber(arg, val, &a->opt.seconds);
      if (!rc && !(a->opt.seconds > 0.0 && a->opt.seconds <= 1e4)) {
        return tb_cliError("--seconds %s: must be in (0, 1e4]", val);
      }
    } else if (!strcmp(arg, "--dt")) {
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
    } else {
      rc = tb_parseBatchOption("plate field", arg, val, &a->out);
      if (rc < 0) return tb_cliError("unknown option '%s'", arg);
    }
    if (rc) return rc;
  }
  if (a->opt.transient >= a->opt.seconds) {
    return tb_cliError("--transient %g: must be less than --seconds %g", a->opt.transient,
                       a->opt.seconds);
  }
  return 0;
}

static int tb_writeFieldCSV(const char* path, const tbFieldResult* r) {
  FILE* f = fopen(path, "w");
  if (!f) return tb_cliError("--out %s: cannot open for writing", path);
  fprintf(f, "x0,y0,mean_x,mean_y,vx,vy,speed,stick_fraction,separated_fraction\n");
  for (int i = 0; i < r->n; i++) {
    const tbFieldPoint* p = &r->pt[i];
    fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", p->x0, p->y0, p->mean_x,
            p->mean_y, p->vx, p->vy, p->speed, p->stick, p->separated);
  }
  if (fclose(f) != 0) {
    remove(path);
    return tb_cliError("--out %s: write failed", path);
  }
  return 0;
}

static int tb_writeFieldPNG(const char* path, const tbPlateMotion* mo, int modified,
                            const tbFieldOpt* o, const tbFieldResult* r) {
  int n = r->n;
  double* buf = (double*)malloc(sizeof(double) * 6 * (size_t)n);
  int* mark = (int*)malloc(sizeof(int) * (size_t)n);
  if (!buf || !mark) {
    free(buf);
    free(mark);
    return tb_cliError("--out %s: out of memory for the plot", path);
  }
  for (int i = 0; i < n; i++) {
    const tbFieldPoint* p = &r->pt[i];
    buf[i] = p->mean_x;
    buf[n + i] = p->mean_y;
    buf[2 * n + i] = p->vx;
    buf[3 * n + i] = p->vy;
    buf[4 * n + i] = p->x0;
    buf[5 * n + i] = p->y0;
    mark[i] = p->stick > TB_FIELD_STICK_MARK;
  }
  char title[160];
  snprintf(title, sizeof(title), "%s%s: %s, mu %g, %g s", mo->name, modified ? " (modified)" : "",
           o->box ? "box" : "particle", o->mu, o->seconds);
  int nx = o->nx > o->ny ? o->nx : o->ny;
  double spacing = nx > 1 ? 2.0 * o->extent / (nx - 1) : o->extent;
  tbQuiver q = {title,           o->extent,   0.1 * o->extent, n,    buf,         buf + n,
                buf + 2 * n,     buf + 3 * n, 0.8 * spacing,   mark, buf + 4 * n, buf + 5 * n,
                "sticking start"};
  int rc = tb_plotQuiver(path, &q, 900, 760);
  free(buf);
  free(mark);
  if (rc) {
    remove(path);
    return tb_cliError("--out %s: cannot write the PNG", path);
  }
  return 0;
}

int tb_plateWriteField(const char* prefix, const tbPlateMotion* mo, int modified,
                       const tbFieldOpt* o, const tbFieldResult* r) {
  size_t len = strlen(prefix) + 8;
  char* csv = (char*)malloc(len);
  char* png = (char*)malloc(len);
  int rc = 0;
  if (!csv || !png) {
    rc = tb_cliError("out of memory");
  } else {
    snprintf(csv, len, "%s.csv", prefix);
    snprintf(png, len, "%s.png", prefix);
    if (!(rc = tb_writeFieldCSV(csv, r)) && (rc = tb_writeFieldPNG(png, mo, modified, o, r))) {
      remove(csv);
    }
  }
  free(csv);
  free(png);
  return rc;
}

static int tb_plateFieldMain(int argc, char** argv) {
  tbPlateArgs a;
  int rc = tb_parsePlate(argc, argv, &a);
  if (rc) return rc;
  tbFieldResult r;
  if (tb_plateField(&a.motion, &a.opt, &r) != TB_OK) return tb_cliError("%s", tb_lastError());
  size_t len = strlen(a.out) + 8;
  char* csv = (char*)malloc(len);
  char* png = (char*)malloc(len);
  if (!csv || !png) {
    rc = tb_cliError("out of memory");
    goto done;
  }
  snprintf(csv, len, "%s.csv", a.out);
  snprintf(png, len, "%s.png", a.out);
  if ((rc = tb_plateWriteField(a.out, &a.motion, a.modified, &a.opt, &r))) goto done;
  double speed = 0.0;
  int nok = 0, sticking = 0, separating = 0;
  for (int i = 0; i < r.n; i++) {
    if (r.pt[i].status & TB_SCENE_FAILMASK) continue;
    speed += r.pt[i].speed;
    nok++;
    sticking += r.pt[i].stick > TB_FIELD_STICK_MARK;
    separating += r.pt[i].separated > TB_FIELD_STICK_MARK;
  }
  double ss = (double)r.n * r.nstep;
  printf(
      "{\"motion\": \"%s\", \"modified\": %s, \"part\": \"%s\", \"scenes\": %d, \"steps\": %ld, "
      "\"seconds\": %.6f, \"scene_steps_per_s\": %.6g, \"periods\": %d, \"window_s\": %.6g, "
      "\"mean_speed\": %.6g, \"sticking_starts\": %d, \"separating_starts\": %d, \"failed\": %d, "
      "\"threads\": %d, \"csv\": \"%s\", \"png\": \"%s\"}\n",
      a.motion.name, a.modified ? "true" : "false", a.opt.box ? "box" : "particle", r.n, r.nstep,
      r.wall, r.wall > 0 ? ss / r.wall : 0.0, r.periods, r.window, nok ? speed / nok : 0.0,
      sticking, separating, r.failed, omp_get_max_threads(), csv, png);
done:
  free(csv);
  free(png);
  tb_freeFieldResult(&r);
  return rc;
}

int tb_plateMain(int argc, char** argv) {
  if (argc >= 1 && !strcmp(argv[0], "field")) return tb_plateFieldMain(argc - 1, argv + 1);
  if (argc >= 1 && !strcmp(argv[0], "optimize")) return tb_plateOptimizeMain(argc - 1, argv + 1);
  if (argc >= 1 && !strcmp(argv[0], "motions")) {
    tb_printMotions();
    return 0;
  }
  if (argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
    tb_plateUsage(stdout);
    return 0;
  }
  tb_plateUsage(stderr);
  return tb_cliError(argc ? "plate: unknown subcommand '%s'" : "plate: needs a subcommand%s",
                     argc ? argv[0] : "");
}
