// Parameter estimation, shared parts: the observable coordinates of a model, the observation CSV
// (reader with line-and-field errors, writer), synthetic observations with counter-based noise,
// the rollout of a batch through the observation times, priors and the free coordinates the
// particle filter moves parameters in.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/estimate.h>
#include <tumble/sweep.h>

#include "math/rng.h"
#include "math/tb_math.h"

#include "engine/engine.h"
#include "jobs/outfile.h"
#include "engine/stage_probe.h"
#include "rollout/rollout.h"

//---- observable coordinates --------------------------------------------------------------------

static void tb_coord(tbObsCoord* c, const char* axis, int rank, int body, int comp) {
  if (rank > 0) {
    snprintf(c->name, sizeof(c->name), "%s%d", axis, rank);
  } else {
    snprintf(c->name, sizeof(c->name), "%s", axis);
  }
  c->body = body;
  c->comp = comp;
}

int tb_obsCoords(const tbModel* m, tbObsCoord* out, int cap) {
  int ndyn = 0, n = 0, rank = 0;
  for (int b = 0; b < m->nbody; b++) ndyn += m->body_type[b] == TB_BODY_DYNAMIC;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    int lock = m->body_lock[b], r = ndyn > 1 ? ++rank : 0;
    // the thesis' vertical plane (§7.6.1.1) has x and y; its y is our z, and named so, as in
    // simulate's output
    static const char* pos3[3] = {"x", "y", "z"};
    static const char* vel3[3] = {"vx", "vy", "vz"};
    // a planar body (thesis §3.3) is also observed in its yaw and yaw rate
    int planar = (lock & TB_LOCK_PLANAR) == TB_LOCK_PLANAR && !(lock & TB_LOCK_RZ);
    for (int pass = 0; pass < 2; pass++) {
      for (int k = 0; k < 3; k++) {
        if (lock & (1 << k)) continue;
        const char* axis = pass == 0 ? pos3[k] : vel3[k];
        if (n < cap) tb_coord(&out[n], axis, r, b, pass == 0 ? k : 7 + k);
        n++;
      }
      if (planar) {
        if (n < cap)
          tb_coord(&out[n], pass == 0 ? "theta" : "w", r, b, pass == 0 ? TB_OBS_YAW : 12);
        n++;
      }
    }
  }
  return n;
}

//---- observation file --------------------------------------------------------------------------

void tb_freeObs(tbObs* obs) {
  if (!obs) return;
  free(obs->coord);
  free(obs->t);
  free(obs->step);
  free(obs->line);
  free(obs->y);
  memset(obs, 0, sizeof(*obs));
}

// room for nrow rows of ncol columns (grows y, t, step, line)
static int tb_obsReserve(tbObs* obs, int nrow) {
  double* t = (double*)realloc(obs->t, sizeof(double) * nrow);
  if (t) obs->t = t;
  int* step = (int*)realloc(obs->step, sizeof(int) * nrow);
  if (step) obs->step = step;
  int* line = (int*)realloc(obs->line, sizeof(int) * nrow);
  if (line) obs->line = line;
  double* y = (double*)realloc(obs->y, sizeof(double) * nrow * (obs->ncol ? obs->ncol : 1));
  if (y) obs->y = y;
  return t && step && line && y ? TB_OK : TB_ERR_MEMORY;
}

// split a line at commas in place; returns the field count (at most cap stored)
static int tb_splitCSV(char* s, char** field, int cap) {
  int n = 0;
  for (char* p = s;; p++) {
    if (n < cap) field[n] = p;
    n++;
    p = strchr(p, ',');
    if (!p) break;
    *p = 0;
  }
  return n;
}

// trim spaces and the line end
static char* tb_trim(char* s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) {
    s[--n] = 0;
  }
  return s;
}

// the header: t, then known coordinates, none twice
static int tb_readHeader(const char* path, char* s, const tbModel* m, tbObs* obs) {
  tbObsCoord all[TB_MAXOBSCOORD];
  int nall = tb_obsCoords(m, all, TB_MAXOBSCOORD);
  if (nall > TB_MAXOBSCOORD) nall = TB_MAXOBSCOORD;
  char* field[TB_MAXOBSCOORD + 2];
  int nf = tb_splitCSV(s, field, TB_MAXOBSCOORD + 2);
  char names[256] = "";
  for (int k = 0; k < nall; k++) {
    if (strlen(names) + strlen(all[k].name) + 6 >= sizeof(names)) {
      strcat(names, ",...");
      break;
    }
    if (k) strcat(names, ",");
    strcat(names, all[k].name);
  }
  if (nf > TB_MAXOBSCOORD + 1) {
    return tb_setError("%s line 1: %d columns, at most %d", path, nf, TB_MAXOBSCOORD + 1);
  }
  if (strcmp(tb_trim(field[0]), "t")) {
    return tb_setError("%s line 1: first column '%.40s', expected the header t,%s", path, field[0],
                       names);
  }
  if (nf < 2) return tb_setError("%s line 1: no observed columns after t (%s)", path, names);
  obs->ncol = nf - 1;
  obs->coord = (tbObsCoord*)calloc((size_t)obs->ncol, sizeof(tbObsCoord));
  if (!obs->coord) return TB_ERR_MEMORY;
  for (int c = 0; c < obs->ncol; c++) {
    const char* nm = tb_trim(field[c + 1]);
    int k = 0;
    while (k < nall && strcmp(all[k].name, nm)) k++;
    if (k == nall) {
      return tb_setError("%s line 1: column %d '%.40s' is not an observable (%s)", path, c + 2, nm,
                         names);
    }
    for (int j = 0; j < c; j++) {
      if (!strcmp(obs->coord[j].name, nm)) {
        return tb_setError("%s line 1: column %d '%s' appears twice", path, c + 2, nm);
      }
    }
    obs->coord[c] = all[k];
  }
  return TB_OK;
}

static int tb_readRow(const char* path, int lineno, char* s, double dt, tbObs* obs) {
  char* field[TB_MAXOBSCOORD + 2];
  int nf = tb_splitCSV(s, field, TB_MAXOBSCOORD + 2);
  if (nf != obs->ncol + 1) {
    if (nf < obs->ncol + 1) {
      return tb_setError("%s line %d: %d fields, the header has %d (column '%s' missing)", path,
                         lineno, nf, obs->ncol + 1, obs->coord[nf - 1].name);
    }
    return tb_setError("%s line %d: %d fields, the header has %d", path, lineno, nf, obs->ncol + 1);
  }
  int r = obs->nrow;
  double* y = obs->y + (size_t)r * obs->ncol;
  for (int f = 0; f < nf; f++) {
    char* txt = tb_trim(field[f]);
    const char* nm = f ? obs->coord[f - 1].name : "t";
    char* end = NULL;
    errno = 0;
    double v = strtod(txt, &end);
    if (!txt[0] || end == txt || *end) {
      return tb_setError("%s line %d: field %d (%s) '%.32s' is not a number", path, lineno, f + 1,
                         nm, txt);
    }
    if (!isfinite(v)) {
      return tb_setError("%s line %d: field %d (%s) is %.32s, not finite", path, lineno, f + 1, nm,
                         txt);
    }
    if (f) {
      y[f - 1] = v;
      continue;
    }
    if (v < 0.0) return tb_setError("%s line %d: field 1 (t) = %g is negative", path, lineno, v);
    if (r > 0 && !(v > obs->t[r - 1])) {
      return tb_setError("%s line %d: field 1 (t) = %.17g is not after the previous row's %.17g",
                         path, lineno, v, obs->t[r - 1]);
    }
    double k = v / dt;
    if (fabs(k - nearbyint(k)) > 1e-6 * fmax(1.0, fabs(k)) || k > 1e9) {
      return tb_setError("%s line %d: field 1 (t) = %.17g is not a whole number of steps of %g s",
                         path, lineno, v, dt);
    }
    obs->t[r] = v;
    obs->step[r] = (int)nearbyint(k);
    obs->line[r] = lineno;
    if (r > 0 && obs->step[r] == obs->step[r - 1]) {
      return tb_setError("%s line %d: field 1 (t) = %.17g is the same step as the previous row",
                         path, lineno, v);
    }
  }
  obs->nrow++;
  return TB_OK;
}

int tb_readObs(const char* path, const tbModel* m, double dt, tbObs* obs) {
  tb_clearError();
  memset(obs, 0, sizeof(*obs));
  if (!(dt > 0.0)) return tb_setError("%s: time step %g must be > 0", path, dt);
  FILE* f = fopen(path, "r");
  if (!f) return tb_setError("%s: cannot open for reading", path);
  int rc = TB_OK, lineno = 0, cap = 0, header = 0;
  size_t n = 0;
  char* buf = NULL;
  ssize_t len;
  while (rc == TB_OK && (len = getline(&buf, &n, f)) >= 0) {
    lineno++;
    if ((size_t)len != strlen(buf)) {
      rc = tb_setError("%s line %d: contains a NUL byte", path, lineno);
      break;
    }
    char* s = tb_trim(buf);
    if (!s[0]) continue;  // blank lines carry nothing
    if (!header) {
      if (lineno != 1) {
        rc = tb_setError("%s line %d: the header t,... must be line 1", path, lineno);
        break;
      }
      rc = tb_readHeader(path, s, m, obs);
      header = 1;
      continue;
    }
    if (obs->nrow == cap) {
      cap = cap ? 2 * cap : 256;
      if (tb_obsReserve(obs, cap) != TB_OK) {
        rc = tb_setError("%s line %d: out of memory", path, lineno);
        break;
      }
    }
    rc = tb_readRow(path, lineno, s, dt, obs);
  }
  free(buf);
  if (rc == TB_OK && ferror(f)) rc = tb_setError("%s line %d: read error", path, lineno + 1);
  fclose(f);
  if (rc == TB_OK && !header) rc = tb_setError("%s line 1: empty file, expected t,...", path);
  if (rc == TB_OK && obs->nrow < 2) {
    rc = tb_setError("%s line %d: %d observation row%s, at least 2 needed", path, lineno, obs->nrow,
                     obs->nrow == 1 ? "" : "s");
  }
  if (rc != TB_OK) tb_freeObs(obs);
  return rc;
}

int tb_writeObs(const char* path, const tbObs* obs) {
  tb_clearError();
  tbOutFile out;
  if (tb_outOpen(&out, path) != TB_OK) return TB_ERR_ARG;
  FILE* f = out.f;
  fputc('t', f);
  for (int c = 0; c < obs->ncol; c++) fprintf(f, ",%s", obs->coord[c].name);
  fputc('\n', f);
  for (int r = 0; r < obs->nrow; r++) {
    fprintf(f, "%.17g", obs->t[r]);
    for (int c = 0; c < obs->ncol; c++) fprintf(f, ",%.17g", obs->y[(size_t)r * obs->ncol + c]);
    fputc('\n', f);
  }
  return tb_outCommit(&out);
}

//---- synthetic observations --------------------------------------------------------------------

double tb_noiseDraw(tbNoise noise, uint64_t seed, int row, int col) {
  if (noise.kind == TB_NOISE_UNIFORM) {
    return noise.scale * (2.0 * tbu_uniform01(seed, (uint64_t)row, (uint64_t)col) - 1.0);
  }
  if (noise.kind == TB_NOISE_GAUSS) {
    // Box-Muller on two draws of this cell; 1 - u is in (0, 1]
    double u1 = 1.0 - tbu_uniform01(seed, (uint64_t)row, 2 * (uint64_t)col);
    double u2 = tbu_uniform01(seed, (uint64_t)row, 2 * (uint64_t)col + 1);
    return noise.scale * sqrt(-2.0 * log(u1)) * cos(2.0 * TB_PI * u2);
  }
  return 0.0;
}

// the scene's time step: its dt parameter, or the model's
static double tb_obsDt(const tbModel* m, const tbData* d) {
  double* vary = (double*)malloc(sizeof(double) * (m->nvary + 1));
  if (!vary) return m->opt.timestep;
  tb_sceneVary(m, d, 0, vary);
  double h = vary[tb_varyIndex(m, TB_F_OPT, 0, TB_OPT_DT)];
  free(vary);
  return h;
}

int tb_synthObs(const tbModel* m, tbData* d, int nstep, int every, tbNoise noise, uint64_t seed,
                tbObs* obs) {
  tb_clearError();
  memset(obs, 0, sizeof(*obs));
  if (nstep < 1) return tb_setError("steps %d must be >= 1", nstep);
  if (every < 1 || every > nstep) return tb_setError("every %d must be in [1, %d]", every, nstep);
  obs->ncol = tb_obsCoords(m, NULL, 0);
  if (obs->ncol < 1 || obs->ncol > TB_MAXOBSCOORD) {
    return tb_setError("model: %d observable coordinates, need 1 to %d", obs->ncol, TB_MAXOBSCOORD);
  }
  int nrow = 1 + nstep / every;
  obs->coord = (tbObsCoord*)calloc((size_t)obs->ncol, sizeof(tbObsCoord));
  if (!obs->coord || tb_obsReserve(obs, nrow) != TB_OK) {
    tb_freeObs(obs);
    return tb_setError("synth: out of memory");
  }
  tb_obsCoords(m, obs->coord, obs->ncol);
  obs->nrow = nrow;
  for (int r = 0; r < nrow; r++) {
    obs->step[r] = r * every;
    obs->line[r] = 0;
  }
  if (d->nscene != 1) {
    tb_freeObs(obs);
    return tb_setError("synth: one scene expected, got %d", d->nscene);
  }
  int rc = tb_obsRollout(m, d, obs, obs->y);
  if (rc == TB_OK && (d->status[0] & TB_SCENE_FAILMASK)) {
    char text[96];  // the words of tumble's summaries: contact-overflow, starts-buried, ...
    tb_statusText(d->status[0], text, sizeof(text));
    rc = tb_setError("synth: the scene failed at step %d (status %d: %s)", d->fail_step[0],
                     d->status[0], text);
  }
  if (rc != TB_OK) {
    tb_freeObs(obs);
    return rc;
  }
  for (int r = 0; r < nrow; r++) {
    obs->t[r] = obs->step[r] * tb_obsDt(m, d);
    for (int c = 0; c < obs->ncol; c++) {
      obs->y[(size_t)r * obs->ncol + c] += tb_noiseDraw(noise, seed, r, c);
    }
  }
  return TB_OK;
}

//---- rollout through the observation times -----------------------------------------------------

// Each scene runs through every observation time in one rollout whose probe takes the observed
// coordinates at the observation steps. Tried one tb_rollout call per observation interval:
// with ~100 rows that is ~100 parallel regions per batch, and on a loaded 2-core machine their
// barriers cost seconds for a 21-scene Jacobian batch that steps in milliseconds.
int tb_obsRollout(const tbModel* m, tbData* d, const tbObs* obs, double* pred) {
  if (tb_resetData(m, d) != TB_OK) return TB_ERR_ARG;
  tbProbe probe;
  memset(&probe, 0, sizeof(probe));
  probe.kind = TB_PROBE_OBS;
  probe.nrow = obs->nrow;
  probe.ncol = obs->ncol;
  probe.step = obs->step;
  probe.coord = obs->coord;
  probe.obs = pred;
  return tb_rolloutProbe(m, d, 0, d->nscene, obs->step[obs->nrow - 1], NULL, &probe);
}

//---- priors and free coordinates ---------------------------------------------------------------

int tb_priorSupport(const tbModel* m, int p, const tbPrior* pr, double* lo, double* hi) {
  const tbParam* prm = &m->param[p];
  double a = prm->lo, b = prm->hi;
  if (pr->kind == TB_PRIOR_UNIFORM) {
    if (!(pr->a < pr->b) || !isfinite(pr->a) || !isfinite(pr->b)) {
      return tb_setError("prior %s: uniform:%g:%g needs finite LO < HI", prm->name, pr->a, pr->b);
    }
    if (pr->a < a || pr->b > b || (prm->lo_open && pr->a <= a)) {
      return tb_setError("prior %s: uniform:%g:%g reaches outside its range %s%g, %g]", prm->name,
                         pr->a, pr->b, prm->lo_open ? "(" : "[", prm->lo, prm->hi);
    }
    a = pr->a;
    b = pr->b;
  } else if (pr->kind == TB_PRIOR_GAUSS) {
    if (!isfinite(pr->a) || !(pr->b > 0.0) || !isfinite(pr->b)) {
      return tb_setError("prior %s: gauss:%g:%g needs a finite mean and SD > 0", prm->name, pr->a,
                         pr->b);
    }
    if (pr->a < a || pr->a > b) {
      return tb_setError("prior %s: gauss mean %g outside its range [%g, %g]", prm->name, pr->a,
                         prm->lo, prm->hi);
    }
  } else {
    return tb_setError("prior %s: unknown kind %d", prm->name, pr->kind);
  }
  *lo = a;
  *hi = b;
  return TB_OK;
}

// the parameter ranges of the built-in scenes are finite but can be very wide (mass up to 1e9):
// wider than this, a bound counts as absent and the transform is log or the identity
#define TB_FREE_WIDE 1e12

double tb_toFree(double x, double lo, double hi) {
  int flo = isfinite(lo) && fabs(lo) < TB_FREE_WIDE, fhi = isfinite(hi) && fabs(hi) < TB_FREE_WIDE;
  if (flo && fhi) {
    double u = (x - lo) / (hi - lo);
    return log(u) - log1p(-u);
  }
  if (flo) return log(x - lo);
  if (fhi) return -log(hi - x);
  return x;
}

double tb_fromFree(double z, double lo, double hi) {
  int flo = isfinite(lo) && fabs(lo) < TB_FREE_WIDE, fhi = isfinite(hi) && fabs(hi) < TB_FREE_WIDE;
  if (flo && fhi) {
    // the logistic in the form that keeps its relative precision on both sides
    double u = z >= 0 ? 1.0 / (1.0 + exp(-z)) : exp(z) / (1.0 + exp(z));
    double x = lo + (hi - lo) * u;
    return x > hi ? hi : x;
  }
  if (flo) return lo + exp(z);
  if (fhi) return hi - exp(-z);
  return z;
}

//---- initial-state parameters ------------------------------------------------------------------

int tb_stateParams(const tbModel* m, const double* param0, const tbObs* obs, int* idx, double* init,
                   int cap) {
  int n = 0, r0 = obs->nrow > 0 && obs->step[0] == 0 ? 0 : -1;
  for (int p = 0; p < m->nparam; p++) {
    const tbParam* prm = &m->param[p];
    if (prm->ntarget != 1) continue;
    for (int c = 0; c < obs->ncol; c++) {
      const tbObsCoord* oc = &obs->coord[c];
      int v = -1;
      if (oc->comp < 3) v = tb_varyIndex(m, TB_F_BODY_POS, oc->body, oc->comp);
      if (oc->comp >= 7 && oc->comp < 10)
        v = tb_varyIndex(m, TB_F_BODY_VEL, oc->body, oc->comp - 7);
      if (v < 0 || prm->target[0] != v || prm->scale[0] != 1.0) continue;
      if (n < cap) {
        idx[n] = p;
        init[n] = r0 == 0 ? obs->y[c] : param0[p];
      }
      n++;
      break;
    }
  }
  return n;
}
