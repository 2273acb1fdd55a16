// The HDF5 outputs (--out FILE.h5): simulate's trajectories as (scene x record x body) arrays,
// the parameter table and every scene's status, and the other commands' per-scene tables (the
// rows their CSV files have, a dataset per column), each with the command line and version as
// attributes, in one file that h5py, MATLAB or h5dump read without a parser of ours.
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/version.h>

#include "cli/cli.h"
#include "util/csv.h"

static herr_t h5_dataset(hid_t f, const char* name, hid_t type, int rank, const hsize_t* dims,
                         const void* data) {
  hid_t space = H5Screate_simple(rank, dims, NULL);
  hid_t d = H5Dcreate2(f, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = d < 0 ? -1 : H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  if (d >= 0) H5Dclose(d);
  H5Sclose(space);
  return rc;
}

static herr_t h5_stringAttr(hid_t obj, const char* name, const char* value) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, strlen(value) + 1);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = a < 0 ? -1 : H5Awrite(a, type, value);
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
  return rc;
}

// names as a 1-D dataset of fixed-length strings
static herr_t h5_names(hid_t f, const char* name, const char* names, size_t stride, hsize_t n) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, stride);
  herr_t rc = h5_dataset(f, name, type, 1, &n, names);
  H5Tclose(type);
  return rc;
}

// the moving bodies (the CSV's rows): their indices into the model's bodies
static int h5_movingBodies(const tbModel* m, int* idx) {
  int n = 0;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_STATIC) idx[n++] = b;
  }
  return n;
}

// one (scene x record x body x width) array from the records, NaN past a scene's last good state
// or for a scene not run
static double* h5_gather(const tbModel* m, const tbRecord* rec, const tbData* d, int ndone,
                         const int* body, int nb, int offset, int width) {
  size_t n = (size_t)d->nscene * rec->nrecord * nb * width;
  double* out = (double*)malloc(sizeof(double) * (n ? n : 1));
  if (!out) return NULL;
  for (int s = 0; s < d->nscene; s++) {
    int64_t last = s < ndone ? tb_lastGoodStep(d, s) : -1;
    for (int r = 0; r < rec->nrecord; r++) {
      size_t slot = (size_t)s * rec->nrecord + r;
      for (int i = 0; i < nb; i++) {
        const double* x = rec->state + (slot * m->nbody + body[i]) * 13 + offset;
        double* y = out + (slot * nb + i) * width;
        for (int k = 0; k < width; k++) y[k] = rec->step[r] <= last ? x[k] : NAN;
      }
    }
  }
  return out;
}

static herr_t h5_trajectories(hid_t f, const tbModel* m, const tbRecord* rec, const tbData* d,
                              int ndone) {
  int* body = (int*)malloc(sizeof(int) * m->nbody);
  if (!body) return -1;
  int nb = h5_movingBodies(m, body);
  char* names = (char*)calloc((size_t)(nb ? nb : 1), TB_NAMELEN);
  for (int i = 0; names && i < nb; i++) {
    memcpy(names + i * TB_NAMELEN, m->body_name[body[i]], TB_NAMELEN);
  }
  herr_t rc = names ? h5_names(f, "body", names, TB_NAMELEN, (hsize_t)nb) : -1;
  free(names);
  static const struct {
    const char* name;
    int offset, width;
  } parts[3] = {{"pos", 0, 3}, {"quat", 3, 4}, {"vel", 7, 6}};
  for (int p = 0; p < 3 && rc >= 0; p++) {
    double* x = h5_gather(m, rec, d, ndone, body, nb, parts[p].offset, parts[p].width);
    hsize_t dims[4] = {(hsize_t)d->nscene, (hsize_t)rec->nrecord, (hsize_t)nb,
                       (hsize_t)parts[p].width};
    rc = x ? h5_dataset(f, parts[p].name, H5T_NATIVE_DOUBLE, 4, dims, x) : -1;
    free(x);
  }
  hsize_t dt[2] = {(hsize_t)d->nscene, (hsize_t)rec->nrecord}, dk = (hsize_t)rec->nrecord;
  if (rc >= 0) rc = h5_dataset(f, "time", H5T_NATIVE_DOUBLE, 2, dt, rec->time);
  if (rc >= 0) rc = h5_dataset(f, "step", H5T_NATIVE_INT, 1, &dk, rec->step);
  free(body);
  return rc;
}

static herr_t h5_scenes(hid_t f, const tbModel* m, const tbData* d, int ndone) {
  hsize_t ns = (hsize_t)d->nscene, dp[2] = {ns, (hsize_t)m->nparam};
  char* names = (char*)calloc((size_t)(m->nparam ? m->nparam : 1), TB_NAMELEN);
  int* done = (int*)malloc(sizeof(int) * (ns ? ns : 1));
  if (!names || !done) {
    free(names);
    free(done);
    return -1;
  }
  for (int p = 0; p < m->nparam; p++) memcpy(names + p * TB_NAMELEN, m->param[p].name, TB_NAMELEN);
  for (int s = 0; s < d->nscene; s++) done[s] = s < ndone;
  herr_t rc = h5_names(f, "param_name", names, TB_NAMELEN, (hsize_t)m->nparam);
  if (rc >= 0) rc = h5_dataset(f, "param", H5T_NATIVE_DOUBLE, 2, dp, d->param);
  if (rc >= 0) rc = h5_dataset(f, "done", H5T_NATIVE_INT, 1, &ns, done);
  if (rc >= 0) rc = h5_dataset(f, "status", H5T_NATIVE_INT, 1, &ns, d->status);
  if (rc >= 0) rc = h5_dataset(f, "fail_step", H5T_NATIVE_INT, 1, &ns, d->fail_step);
  if (rc >= 0) rc = h5_dataset(f, "steps", H5T_NATIVE_INT64, 1, &ns, d->nstep);
  if (rc >= 0) rc = h5_dataset(f, "contacts", H5T_NATIVE_INT, 1, &ns, d->ncon);
  if (rc >= 0) rc = h5_dataset(f, "iterations", H5T_NATIVE_INT64, 1, &ns, d->iter_sum);
  if (rc >= 0) rc = h5_dataset(f, "max_iterations", H5T_NATIVE_INT, 1, &ns, d->iter_max);
  if (rc >= 0) rc = h5_dataset(f, "last_residual", H5T_NATIVE_DOUBLE, 1, &ns, d->resid_last);
  if (rc >= 0) rc = h5_dataset(f, "max_residual", H5T_NATIVE_DOUBLE, 1, &ns, d->resid_max);
  free(names);
  free(done);
  return rc;
}

// an HDF5 file for o, built in memory (the core driver without a backing store) and written into
// o's locked temporary file whole by h5_close: HDF5 never opens a path itself. The provenance
// attributes (command line, version, what, partial) written. The error printer is silenced until
// h5_close
static hid_t h5_open(tbOutFile* o, const char* key, const char* what, int partial,
                     H5E_auto2_t* old_fn, void** old_data) {
  H5Eget_auto2(H5E_DEFAULT, old_fn, old_data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  hid_t f = fapl < 0 || H5Pset_fapl_core(fapl, 1 << 20, 0) < 0
                ? -1
                : H5Fcreate(o->path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (fapl >= 0) H5Pclose(fapl);
  herr_t rc = f < 0 ? -1 : 0;
  char version[64];
  snprintf(version, sizeof(version), "%s (commit %s)", TUMBLE_VERSION, TUMBLE_COMMIT);
  if (rc >= 0) rc = h5_stringAttr(f, "command_line", tb_cliCommandLine());
  if (rc >= 0) rc = h5_stringAttr(f, "version", version);
  if (rc >= 0) rc = h5_stringAttr(f, key, what);
  if (rc >= 0) rc = h5_stringAttr(f, "partial", partial ? "true" : "false");
  if (rc < 0 && f >= 0) {
    H5Fclose(f);
    f = -1;
  }
  return f;
}

// the file's image written into o (rc < 0: something failed) and f closed: 0, or 2 after an
// error. o is committed by the caller, with the run's other files
static int h5_close(tbOutFile* o, hid_t f, herr_t rc, H5E_auto2_t old_fn, void* old_data) {
  char* image = NULL;
  ssize_t n = -1;
  if (f >= 0 && rc >= 0 && H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0) n = H5Fget_file_image(f, NULL, 0);
  if (n > 0 && (image = (char*)malloc((size_t)n)) && H5Fget_file_image(f, image, (size_t)n) != n)
    n = -1;
  if (f >= 0 && H5Fclose(f) < 0) n = -1;
  H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
  int bad = n <= 0 || !image || fwrite(image, 1, (size_t)n, o->f) != (size_t)n;
  free(image);
  if (!bad) return 0;
  tb_outAbort(o);
  return tb_cliError("--out %s: HDF5 write failed", o->path);
}

int tb_writeSimulateH5(tbOutFile* o, const char* scene, const tbModel* m, const tbRecord* rec,
                       const tbData* d, int ndone) {
  H5E_auto2_t old_fn;
  void* old_data;
  hid_t f = h5_open(o, "scene", scene, ndone < d->nscene, &old_fn, &old_data);
  herr_t rc = f < 0 ? -1 : h5_trajectories(f, m, rec, d, ndone);
  if (rc >= 0) rc = h5_scenes(f, m, d, ndone);
  return h5_close(o, f, rc, old_fn, old_data);
}

//---- tables ------------------------------------------------------------------------------------

// whether s is one whole number (strtod's: nan and inf included)
static int h5_isNumber(const char* s) {
  char* end;
  strtod(s, &end);
  return *s && !*end;
}

// one column of a table: float64 when every value is a number, else fixed-length strings
static herr_t h5_column(hid_t g, const char* name, char** cell, size_t nrow, size_t ncol) {
  hsize_t n = (hsize_t)nrow;
  int numeric = 1;
  size_t width = 1;
  for (size_t r = 0; r < nrow; r++) {
    numeric = numeric && h5_isNumber(cell[r * ncol]);
    size_t len = strlen(cell[r * ncol]) + 1;
    width = len > width ? len : width;
  }
  if (numeric) {
    double* x = (double*)malloc(sizeof(double) * (nrow ? nrow : 1));
    if (!x) return -1;
    for (size_t r = 0; r < nrow; r++) x[r] = strtod(cell[r * ncol], NULL);
    herr_t rc = h5_dataset(g, name, H5T_NATIVE_DOUBLE, 1, &n, x);
    free(x);
    return rc;
  }
  char* text = (char*)calloc(nrow ? nrow : 1, width);
  if (!text) return -1;
  for (size_t r = 0; r < nrow; r++)
    memcpy(text + r * width, cell[r * ncol], strlen(cell[r * ncol]));
  herr_t rc = h5_names(g, name, text, width, n);
  free(text);
  return rc;
}

// the fields of each record of csv (RFC 4180: a quoted field, such as a model's parameter name,
// may hold commas, quotes and line breaks), unquoted in place: (nline x ncol) pointers, or NULL
// when a record has another count of fields than the header, does not end in a line break, or
// memory runs out
static char** h5_splitCsv(char* csv, size_t* nline, size_t* ncol) {
  size_t cap = 1, n = 0, cols = 0, first = 0;  // first: the current record's first field
  // every field ends at a comma or a line break: cap bounds them
  for (const char* c = csv; *c; c++) cap += *c == ',' || *c == '\n';
  char** cell = (char**)malloc(sizeof(char*) * cap);
  char* at = csv;
  int bad = !cell;
  while (!bad && *at) {
    char end = 0;
    char* field = tb_csvNext(&at, &end);
    bad = !field || n == cap || (end == ',' && !*at);
    if (bad) break;
    cell[n++] = field;
    if (end == ',') continue;
    if (!cols) cols = n;
    bad = end != '\n' || n - first != cols;
    first = n;
  }
  if (bad || !cols) {
    free(cell);
    return NULL;
  }
  *nline = n / cols;
  *ncol = cols;
  return cell;
}

// a CSV table (header, rows) as a group of columns
static herr_t h5_table(hid_t f, const char* name, const char* csv) {
  char* text = strdup(csv);
  size_t nline = 0, ncol = 0;
  char** cell = text ? h5_splitCsv(text, &nline, &ncol) : NULL;
  hid_t g = cell && nline ? H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  herr_t rc = g < 0 ? -1 : 0;
  for (size_t k = 0; k < ncol && rc >= 0; k++)
    rc = h5_column(g, cell[k], cell + ncol + k, nline - 1, ncol);
  if (g >= 0) H5Gclose(g);
  free(cell);
  free(text);
  return rc;
}

int tb_writeTablesH5(tbOutFile* o, const char* command, int partial, int ntable,
                     const char* const* name, char* const* csv) {
  H5E_auto2_t old_fn;
  void* old_data;
  hid_t f = h5_open(o, "command", command, partial, &old_fn, &old_data);
  herr_t rc = f < 0 ? -1 : 0;
  for (int t = 0; t < ntable && rc >= 0; t++) rc = h5_table(f, name[t], csv[t]);
  return h5_close(o, f, rc, old_fn, old_data);
}

int tb_isH5(const char* path) {
  size_t n = strlen(path);
  return (n > 3 && !strcmp(path + n - 3, ".h5")) || (n > 5 && !strcmp(path + n - 5, ".hdf5"));
}
