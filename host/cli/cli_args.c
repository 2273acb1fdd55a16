// The command line's shared parts: errors, option values (numbers, lengths, grids, devices,
// solvers, threads), the cost check, and the command line kept for the outputs' provenance.
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <tumble/scenes.h>
#include <tumble/sweep.h>
#include <tumble/tumble.h>
#include <tumble/version.h>

#include "math/rng.h"

#include "cli/cli.h"
#include "gpu/gpu.h"
#include "util/number.h"
#include "util/suggest.h"

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
  // a message quoting a binary file's bytes is shown as a terminal shows it, control bytes
  // escaped; a newline begins an indented line (a list, as an MJCF file's outside the subset)
  fputs("tumble: error: ", stderr);
  for (const unsigned char* p = (const unsigned char*)msg; *p;) {
    int n = tb_utf8Length(p);
    if (*p == '\n') {
      fputs("\n  ", stderr);
      p++;
    } else if (n) {
      fwrite(p, 1, (size_t)n, stderr);
      p += n;
    } else {
      fprintf(stderr, "\\x%02x", *p++);
    }
  }
  fputc('\n', stderr);
  return 2;
}

// a list of choices is spelled out in an error up to this many; past it, a command lists them
#define TB_LISTMAX 16

// the choices as "a, b or c"
static void tb_listChoices(char* buf, size_t len, const char* const* choices, int n) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < n && k < len; i++) {
    const char* sep = i == 0 ? "" : i == n - 1 ? " or " : ", ";
    k += (size_t)snprintf(buf + k, len - k, "%s%s", sep, choices[i]);
  }
}

// msg, then "; did you mean BEST?" (best not NULL), then the choices or see in parentheses
static int tb_hintError(const char* msg, const char* best, const char* const* choices, int n,
                        const char* see) {
  char close[320] = "", list[4096] = "";
  if (best) snprintf(close, sizeof(close), "; did you mean %s?", best);
  if (n <= TB_LISTMAX) tb_listChoices(list, sizeof(list), choices, n);
  const char* sep = list[0] && see ? "; " : "";
  if (!list[0] && !see) return tb_cliError("%s%s", msg, close);
  return tb_cliError("%s%s (%s%s%s%s)", msg, close, list[0] ? "expected " : "", list, sep,
                     see ? see : "");
}

int tb_choiceError(const char* word, const char* const* choices, int n, const char* see,
                   const char* fmt, ...) {
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return tb_hintError(msg, tb_closest(word, choices, n), choices, n, see);
}

// the first of m's parameters whose description has word in it (at least 4 letters, any case):
// a name from another engine ("friction") finds the parameter it describes ("mu"); NULL if none
static const char* tb_paramByDoc(const tbModel* m, const char* word) {
  size_t k = strlen(word);
  if (k < 4) return NULL;
  for (int p = 0; p < m->nparam; p++) {
    for (const char* d = m->param[p].doc; *d; d++) {
      if (!strncasecmp(d, word, k)) return m->param[p].name;
    }
  }
  return NULL;
}

int tb_unknownParam(const tbModel* m, const tbSceneInfo* si, const char* name, const char* see,
                    const char* what) {
  int nopt = si ? si->nopt : 0;
  const char** names = (const char**)malloc(sizeof(char*) * (size_t)(m->nparam + nopt + 1));
  if (!names) return tb_cliError("%s has no parameter '%s' (%s)", what, name, see);
  int n = 0;
  for (int p = 0; p < m->nparam; p++) names[n++] = m->param[p].name;
  for (int k = 0; k < nopt; k++) names[n++] = si->opt[k].name;
  const char* best = tb_closest(name, names, n);
  if (!best) best = tb_paramByDoc(m, name);
  char msg[512];
  snprintf(msg, sizeof(msg), "%s has no parameter '%s'", what, name);
  int rc = tb_hintError(msg, best, names, n, see);
  free(names);
  return rc;
}

int tb_unknownScene(const char* what, const char* name) {
  const char* names[64];
  int n = 0;
  for (int i = 0; i < tb_sceneCount() && n < 64; i++) names[n++] = tb_sceneInfo(i)->name;
  const char* see = "see tumble simulate --list";
  if (!what) return tb_choiceError(name, names, n, see, "unknown scene '%s'", name);
  return tb_choiceError(name, names, n, see, "%s %s: unknown scene", what, name);
}

int tb_optionError(const char* command, const char* arg, const char* const* options, int n) {
  const char* best = tb_closest(arg, options, n);
  if (!best) return tb_cliError("unknown option '%s' (see tumble %s --help)", arg, command);
  return tb_cliError("unknown option '%s'; did you mean %s? (see tumble %s --help)", arg, best,
                     command);
}

// the --NAME words of a usage text, each once, into words (at most max); returns the count
static int tb_usageOptions(char* text, const char** words, int max) {
  int n = 0;
  for (char* p = strstr(text, "--"); p && n < max; p = strstr(p, "--")) {
    char* w = p;
    p += 2;
    while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-') p++;
    int seen = p == w + 2;
    char end = *p;
    *p = 0;
    for (int i = 0; i < n && !seen; i++) seen = !strcmp(words[i], w);
    if (!seen) words[n++] = w;
    if (end) p++;
  }
  return n;
}

int tb_unknownOption(const char* command, const char* arg, void (*usage)(FILE*)) {
  // the options are the usage's words: the help a suggestion comes from is the one it points to
  char* text = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  if (f) {
    usage(f);
    fclose(f);
  }
  const char* words[128];
  int n = text ? tb_usageOptions(text, words, 128) : 0;
  int rc = tb_optionError(command, arg, words, n);
  free(text);
  return rc;
}

// no option takes inf or nan (tb_readNumber)
int tb_parseNumber(const char* what, const char* s, double* out) {
  return tb_readNumber(what, s, out) == TB_OK ? 0 : tb_cliError("%s", tb_lastError());
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

char* tb_jsonEscape(char* buf, size_t len, const char* s) {
  size_t n = 0;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    char esc[8];
    if (c == '"' || c == '\\') {
      snprintf(esc, sizeof(esc), "\\%c", c);
    } else if (c < 0x20) {
      snprintf(esc, sizeof(esc), "\\u%04x", c);
    } else {
      snprintf(esc, sizeof(esc), "%c", c);
    }
    size_t k = strlen(esc);
    if (n + k >= len) break;  // whole escapes only: a cut never leaves a lone backslash
    memcpy(buf + n, esc, k);
    n += k;
  }
  if (len) buf[n] = 0;
  return buf;
}

const char* tb_jsonPath(tbJsonPath* j, const char* path) {
  return tb_jsonEscape(j->s, sizeof(j->s), path);
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

int tb_cliCheckStep(const char* what, const char* val, const tbModel* m, double dt) {
  double lo = tb_minStep(m, NULL, 0);
  if (dt >= lo) return 0;
  return tb_cliError(
      "%s %s: below the smallest step %.2g s this scene allows: a body starting from rest under "
      "its gravity (at least 1 g) must move in one step by more than the rounding of its "
      "coordinates (tumble.h: tb_minStep)",
      what, val, lo);
}

int tb_parseGrid(const char* what, const char* s, int* nx, int* ny) {
  char buf[64], full[160];
  snprintf(buf, sizeof(buf), "%s", s);
  snprintf(full, sizeof(full), "%s %s", what, s);  // messages name the option and its value
  char* x = strchr(buf, 'x');
  long a = 0, b = 0;
  if (x) *x = 0;
  if (tb_parseInt(full, buf, 1, 4096, &a)) return 2;
  if (x) {
    if (tb_parseInt(full, x + 1, 1, 4096, &b)) return 2;
  } else {
    b = a;
  }
  *nx = (int)a;
  *ny = (int)b;
  return 0;
}

static const struct {
  const char* suffix;
  double scale;
} tb_lengthUnits[] = {{"mm", 1e-3}, {"cm", 1e-2}, {"m", 1.0}};

// a number followed by letters that are no length unit (20in, 3ft): an error that lists the
// units, where tb_parseNumber's "not a number" would leave the cure to a guess; 0 for any other s
static int tb_lengthUnitError(const char* what, const char* s, double bare_unit) {
  char* end = NULL;
  strtod(s, &end);
  if (end == s || !((*end >= 'a' && *end <= 'z') || (*end >= 'A' && *end <= 'Z'))) return 0;
  const char* bare = "m";
  for (size_t u = 0; u < sizeof(tb_lengthUnits) / sizeof(tb_lengthUnits[0]); u++) {
    if (tb_lengthUnits[u].scale == bare_unit) bare = tb_lengthUnits[u].suffix;
  }
  return tb_cliError(
      "%s: '%s' is not a length: its unit '%s' is none of mm, cm or m (a bare "
      "number is in %s)",
      what, s, end, bare);
}

int tb_parseLength(const char* what, const char* s, double bare_unit, double* out) {
  const size_t nunit = sizeof(tb_lengthUnits) / sizeof(tb_lengthUnits[0]);
  char buf[64];
  snprintf(buf, sizeof(buf), "%s", s);
  size_t n = strlen(buf);
  double scale = bare_unit;
  int suffixed = 0;
  for (size_t u = 0; u < nunit && !suffixed; u++) {
    size_t k = strlen(tb_lengthUnits[u].suffix);
    if (n > k && !strcmp(buf + n - k, tb_lengthUnits[u].suffix)) {
      buf[n - k] = 0;
      scale = tb_lengthUnits[u].scale;
      suffixed = 1;
    }
  }
  if (!suffixed && tb_lengthUnitError(what, s, bare_unit)) return 2;
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
  char full[160];
  snprintf(full, sizeof(full), "%s %s", what, s);  // messages name the option and its value
  for (int i = n - 1; i >= 0; i--) {
    const char* u = tb_lengthUnit(tok[i]);
    if (u[0]) unit = u;
    char one[160];
    snprintf(one, sizeof(one), "%s%s", tok[i], u[0] ? "" : unit);
    if (tb_parseLength(full, one, bare_unit, &v[i])) return -1;
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
  if (*solver >= 0) return 0;
  const char* names[TB_NSOLVER];
  int n = 0;
  for (int s = 0; s < TB_NSOLVER; s++) {
    if (strcmp(tb_solverName(s), "?")) names[n++] = tb_solverName(s);
  }
  return tb_choiceError(val, names, n, "see tumble solve --list", "--solver %s: unknown", val);
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

void tb_cliRunOf(int* device, int* precision) {
  *device = tb_getDevice();
  *precision = tb_getPrecision();
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
void tb_defaultDevice(void) {
  tb_setDevice(TB_DEVICE_AUTO);
  if (tb_gpuDeviceCount() == 0) return;
  char name[256];
  tb_gpuDeviceName(name, sizeof(name));
  fprintf(stderr, "tumble: device auto: the GPU path on %s (--device cpu for the CPU path)\n",
          name);
}

static int tb_yes;

int tb_helpAsked(int argc, char** argv) {
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
  }
  return 0;
}

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

void tb_sayCsvOut(const char* what, const char* path, int h5) {
  size_t n = strlen(path);
  if ((n > 4 && !strcmp(path + n - 4, ".csv")) || (h5 && tb_isH5(path))) return;
  fprintf(stderr, "tumble: %s %s: written as CSV%s\n", what, path,
          h5 ? " (a name ending .h5 or .hdf5 writes HDF5)" : "");
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

static char tb_commandLine[4096];

const char* tb_cliCommandLine(void) {
  return tb_commandLine;
}

void tb_keepCommandLine(int argc, char** argv) {
  size_t len = 0;
  for (int i = 0; i < argc && len < sizeof(tb_commandLine); i++) {
    len += (size_t)snprintf(tb_commandLine + len, sizeof(tb_commandLine) - len, "%s%s",
                            i ? " " : "", argv[i]);
  }
}
