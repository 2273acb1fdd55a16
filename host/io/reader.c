// Reader for Siconos numerics text files and FCLib HDF5 files (include/tumble/reader.h; the
// FC3D writer is host/io/writer.c, in the engine library: it needs neither HDF5 nor CHOLMOD).
// Every failure sets one line "<file>: <field> (line L): <what>" and frees what was built.
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cholmod.h>
#include <hdf5.h>

#include <tumble/reader.h>

#include "util/error.h"
#include "io/reader_inprocess.h"

// largest n the dense form takes (n x n doubles: 2 GiB)
#define TB_READER_MAXN 16384
#define TB_READER_RUN_MIN 16  // rows below which W is read whole
// largest mass matrix of a global problem (held sparse)
#define TB_READER_MAXDOF (1 << 24)

typedef struct tbRdCtx {
  const char* name;  // the file's base name, for messages
} tbRdCtx;

// "<file>: <field>[ (line L)]: <what>"; returns TB_ERR_ARG
static int rd_fail(const tbRdCtx* c, const char* field, int line, const char* fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (line > 0) return tb_setError("%s: %s (line %d): %s", c->name, field, line, what);
  return tb_setError("%s: %s: %s", c->name, field, what);
}

static const char* rd_basename(const char* path) {
  const char* s = strrchr(path, '/');
  return s ? s + 1 : path;
}

//---- text files ------------------------------------------------------------------------------

typedef struct tbLex {
  const char* s;  // NUL-terminated file content
  size_t len, pos;
  int line;       // line of the next character
  long left;      // tokens not yet read
  int last_line;  // line of the file's last token (for end-of-file messages)
} tbLex;

static int lx_isspace(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

// next whitespace-separated token; 0 at the end of the file
static int lx_next(tbLex* L, const char** tok, size_t* toklen, int* line) {
  while (L->pos < L->len && lx_isspace(L->s[L->pos])) {
    if (L->s[L->pos] == '\n') L->line++;
    L->pos++;
  }
  if (L->pos >= L->len) return 0;
  *tok = L->s + L->pos;
  *line = L->line;
  size_t b = L->pos;
  while (L->pos < L->len && !lx_isspace(L->s[L->pos])) L->pos++;
  *toklen = L->pos - b;
  L->left--;
  return 1;
}

static void lx_init(tbLex* L, const char* s, size_t len) {
  L->s = s;
  L->len = len;
  L->pos = 0;
  L->line = 1;
  L->left = 0;
  L->last_line = 1;
  // count the tokens once: a header that asks for more values than the file holds fails
  // before anything large is allocated
  tbLex t = *L;
  const char* tok;
  size_t tl;
  int ln;
  while (lx_next(&t, &tok, &tl, &ln)) L->last_line = ln;
  L->left = -t.left;
}

static int lx_eof(const tbRdCtx* c, const tbLex* L, const char* field) {
  return rd_fail(c, field, 0, "unexpected end of file (after line %d)", L->last_line);
}

// an int token
static int lx_int(const tbRdCtx* c, tbLex* L, const char* field, int* v, int* line) {
  const char* tok;
  size_t tl;
  int ln;
  if (!lx_next(L, &tok, &tl, &ln)) return lx_eof(c, L, field);
  char* end;
  errno = 0;
  long x = strtol(tok, &end, 10);
  if (end != tok + tl || tl == 0)
    return rd_fail(c, field, ln, "not an integer '%.*s'", (int)(tl > 24 ? 24 : tl), tok);
  if (errno == ERANGE || x < -2147483647L || x > 2147483647L)
    return rd_fail(c, field, ln, "integer '%.*s' out of range", (int)(tl > 24 ? 24 : tl), tok);
  *v = (int)x;
  if (line) *line = ln;
  return TB_OK;
}

// a finite double token (strtod: what Siconos' fscanf("%lf") reads)
static int lx_double(const tbRdCtx* c, tbLex* L, const char* field, double* v, int* line) {
  const char* tok;
  size_t tl;
  int ln;
  if (!lx_next(L, &tok, &tl, &ln)) return lx_eof(c, L, field);
  char* end;
  double x = strtod(tok, &end);
  if (end != tok + tl || tl == 0)
    return rd_fail(c, field, ln, "not a number '%.*s'", (int)(tl > 24 ? 24 : tl), tok);
  if (!isfinite(x))
    return rd_fail(c, field, ln, "not finite '%.*s'", (int)(tl > 24 ? 24 : tl), tok);
  *v = x;
  if (line) *line = ln;
  return TB_OK;
}

// the Siconos matrix (NumericsMatrix) of name `nm` into W (n x n row-major, allocated here);
// `expect` describes n for messages ("3 * nc = 9", "n = 4")
static int rd_matrix(const tbRdCtx* c, tbLex* L, const char* nm, int n, const char* expect,
                     double** Wout) {
  char f[96];
  int storage, size0, size1, ln, rc;
  snprintf(f, sizeof f, "%s storage type", nm);
  if ((rc = lx_int(c, L, f, &storage, &ln)) != TB_OK) return rc;
  if (storage != 0 && storage != 1)
    return rd_fail(c, f, ln, "storage type %d: must be 0 (dense) or 1 (sparse block)%s", storage,
                   storage == 2 ? "; sparse (2) is not supported" : "");
  snprintf(f, sizeof f, "%s size0", nm);
  if ((rc = lx_int(c, L, f, &size0, &ln)) != TB_OK) return rc;
  if (size0 != n) return rd_fail(c, f, ln, "size0 = %d: must be %s", size0, expect);
  snprintf(f, sizeof f, "%s size1", nm);
  if ((rc = lx_int(c, L, f, &size1, &ln)) != TB_OK) return rc;
  if (size1 != n) return rd_fail(c, f, ln, "size1 = %d: must be %s", size1, expect);

  if (storage == 0) {
    int r0, r1;
    snprintf(f, sizeof f, "%s dense size0 (repeated)", nm);
    if ((rc = lx_int(c, L, f, &r0, &ln)) != TB_OK) return rc;
    if (r0 != size0) return rd_fail(c, f, ln, "%d: must repeat size0 = %d", r0, size0);
    snprintf(f, sizeof f, "%s dense size1 (repeated)", nm);
    if ((rc = lx_int(c, L, f, &r1, &ln)) != TB_OK) return rc;
    if (r1 != size1) return rd_fail(c, f, ln, "%d: must repeat size1 = %d", r1, size1);
    long nv = (long)n * n;
    if (L->left < nv) {  // the file ends inside the matrix: name the first missing entry
      long k = L->left;
      snprintf(f, sizeof f, "%s(%ld, %ld) (value %ld of %ld)", nm, k % n, k / n, k + 1, nv);
      return lx_eof(c, L, f);
    }
    double* W = (double*)malloc(sizeof(double) * (size_t)nv);
    if (!W) return tb_setError("%s: %s: out of memory (n = %d)", c->name, nm, n);
    *Wout = W;
    // Siconos' dense layout is column-major: value k is entry (k % size0, k / size0)
    for (long k = 0; k < nv; k++) {
      long i = k % n, j = k / n;
      snprintf(f, sizeof f, "%s(%ld, %ld)", nm, i, j);
      if ((rc = lx_double(c, L, f, &W[i * n + j], NULL)) != TB_OK) return rc;
    }
    return TB_OK;
  }

  // sparse block matrix (SBM_new_from_file)
  int nbblocks, bn0, bn1, filled1, filled2;
  snprintf(f, sizeof f, "%s nbblocks", nm);
  if ((rc = lx_int(c, L, f, &nbblocks, &ln)) != TB_OK) return rc;
  if (nbblocks < 0 || nbblocks > n * n)
    return rd_fail(c, f, ln, "%d blocks: must be in [0, n * n = %d]", nbblocks, n * n);
  double* W = (double*)calloc((size_t)n * n, sizeof(double));
  if (!W) return tb_setError("%s: %s: out of memory (n = %d)", c->name, nm, n);
  *Wout = W;
  if (nbblocks == 0) return TB_OK;  // the zero matrix: nothing else is written
  snprintf(f, sizeof f, "%s block rows", nm);
  if ((rc = lx_int(c, L, f, &bn0, &ln)) != TB_OK) return rc;
  if (bn0 < 1 || bn0 > n) return rd_fail(c, f, ln, "%d: must be in [1, %d]", bn0, n);
  snprintf(f, sizeof f, "%s block columns", nm);
  if ((rc = lx_int(c, L, f, &bn1, &ln)) != TB_OK) return rc;
  if (bn1 < 1 || bn1 > n) return rd_fail(c, f, ln, "%d: must be in [1, %d]", bn1, n);
  // scratch: cumulative sizes (bn0 + bn1), index1 (bn0 + 1), index2 (nbblocks), marks (bn1)
  int* iw = (int*)malloc(sizeof(int) * ((size_t)2 * bn0 + 2 * bn1 + 1 + nbblocks));
  if (!iw) return tb_setError("%s: %s: out of memory", c->name, nm);
  int *bs0 = iw, *bs1 = bs0 + bn0, *idx1 = bs1 + bn1, *idx2 = idx1 + bn0 + 1,
      *mark = idx2 + nbblocks;
  rc = TB_OK;
  for (int a = 0; a < 2 && rc == TB_OK; a++) {
    int nb = a == 0 ? bn0 : bn1, *bs = a == 0 ? bs0 : bs1;
    for (int k = 0; k < nb; k++) {
      snprintf(f, sizeof f, "%s blocksize%d[%d]", nm, a, k);
      if ((rc = lx_int(c, L, f, &bs[k], &ln)) != TB_OK) break;
      int prev = k > 0 ? bs[k - 1] : 0;
      if (bs[k] <= prev || bs[k] > n) {
        rc = rd_fail(c, f, ln, "%d: cumulative block sizes must increase from %d up to %d", bs[k],
                     prev, n);
        break;
      }
    }
    if (rc == TB_OK && bs[nb - 1] != n) {
      snprintf(f, sizeof f, "%s blocksize%d[%d]", nm, a, nb - 1);
      rc = rd_fail(c, f, ln, "%d: the last cumulative size must be %s", bs[nb - 1], expect);
    }
  }
  if (rc == TB_OK) {
    snprintf(f, sizeof f, "%s filled1", nm);
    if ((rc = lx_int(c, L, f, &filled1, &ln)) == TB_OK && filled1 != bn0 + 1)
      rc = rd_fail(c, f, ln, "%d: must be block rows + 1 = %d", filled1, bn0 + 1);
  }
  if (rc == TB_OK) {
    snprintf(f, sizeof f, "%s filled2", nm);
    if ((rc = lx_int(c, L, f, &filled2, &ln)) == TB_OK && filled2 != nbblocks)
      rc = rd_fail(c, f, ln, "%d: must equal nbblocks = %d", filled2, nbblocks);
  }
  for (int k = 0; k <= bn0 && rc == TB_OK; k++) {
    snprintf(f, sizeof f, "%s index1[%d]", nm, k);
    if ((rc = lx_int(c, L, f, &idx1[k], &ln)) != TB_OK) break;
    int lo = k > 0 ? idx1[k - 1] : 0;
    if (k == 0 && idx1[0] != 0)
      rc = rd_fail(c, f, ln, "%d: must be 0", idx1[0]);
    else if (idx1[k] < lo || idx1[k] > nbblocks)
      rc = rd_fail(c, f, ln, "%d: must be in [%d, %d]", idx1[k], lo, nbblocks);
    else if (k == bn0 && idx1[k] != nbblocks)
      rc = rd_fail(c, f, ln, "%d: must be nbblocks = %d", idx1[k], nbblocks);
  }
  for (int k = 0; k < nbblocks && rc == TB_OK; k++) {
    snprintf(f, sizeof f, "%s index2[%d]", nm, k);
    if ((rc = lx_int(c, L, f, &idx2[k], &ln)) != TB_OK) break;
    if (idx2[k] < 0 || idx2[k] >= bn1)
      rc = rd_fail(c, f, ln, "block column %d: must be in [0, %d)", idx2[k], bn1);
  }
  for (int k = 0; k < bn1; k++) mark[k] = -1;
  for (int br = 0; br < bn0 && rc == TB_OK; br++) {
    int r0 = br > 0 ? bs0[br - 1] : 0, nr = bs0[br] - r0;
    for (int b = idx1[br]; b < idx1[br + 1] && rc == TB_OK; b++) {
      int bc = idx2[b], c0 = bc > 0 ? bs1[bc - 1] : 0, nc = bs1[bc] - c0, num;
      snprintf(f, sizeof f, "%s index2[%d]", nm, b);
      if (mark[bc] == br) {
        rc = rd_fail(c, f, 0, "block column %d appears twice in block row %d", bc, br);
        break;
      }
      mark[bc] = br;
      snprintf(f, sizeof f, "%s block %d number", nm, b);
      if ((rc = lx_int(c, L, f, &num, &ln)) != TB_OK) break;
      if (num != b) {
        rc = rd_fail(c, f, ln, "%d: blocks must come in order (expected %d)", num, b);
        break;
      }
      for (int v = 0; v < nr * nc; v++) {  // column-major inside the block
        int i = v % nr, j = v / nr;
        snprintf(f, sizeof f, "%s block %d value %d (entry %d, %d)", nm, b, v, r0 + i, c0 + j);
        if ((rc = lx_double(c, L, f, &W[(size_t)(r0 + i) * n + c0 + j], NULL)) != TB_OK) break;
      }
    }
  }
  free(iw);
  return rc;
}

static int rd_text(const tbRdCtx* c, const char* s, size_t len, tbFileProblem* fp) {
  tbLex L;
  lx_init(&L, s, len);
  if (L.left == 0) return rd_fail(c, "header", 0, "empty file");
  // an LCP starts n, storage 0/1, size0 = n; an FC3D file 3, nc, storage, size0 = 3 nc: a
  // header that is not an LCP's and starts with 3 is taken for FC3D (and checked as such)
  int head[3] = {-1, -1, -1}, nh = 0;
  {
    tbLex P = L;
    const char* tok;
    size_t tl;
    int ln;
    while (nh < 3 && lx_next(&P, &tok, &tl, &ln)) {
      char* end;
      long x = strtol(tok, &end, 10);
      if (end != tok + tl || x < -1000000000L || x > 1000000000L) break;
      head[nh++] = (int)x;
    }
  }
  int rc, ln, n;
  char expect[64];
  int lcp_like = nh == 3 && (head[1] == 0 || head[1] == 1) && head[2] == head[0];
  if (nh >= 1 && head[0] == 3 && !lcp_like) {
    int dim, nc;
    fp->kind = TB_FILE_FC3D;
    if ((rc = lx_int(c, &L, "dimension", &dim, &ln)) != TB_OK) return rc;
    if ((rc = lx_int(c, &L, "nc", &nc, &ln)) != TB_OK) return rc;
    if (nc < 1) return rd_fail(c, "nc", ln, "nc = %d: must be >= 1", nc);
    if (nc > TB_READER_MAXN / 3)
      return rd_fail(c, "nc", ln, "%d contacts: more than the reader's limit %d", nc,
                     TB_READER_MAXN / 3);
    n = 3 * nc;
    fp->ncontact = nc;
    snprintf(expect, sizeof expect, "3 * nc = %d", n);
    if ((rc = rd_matrix(c, &L, "W", n, expect, &fp->W)) != TB_OK) return rc;
  } else {
    fp->kind = TB_FILE_LCP;
    if ((rc = lx_int(c, &L, "n", &n, &ln)) != TB_OK) return rc;
    if (n < 1 || n > TB_READER_MAXN)
      return rd_fail(c, "n", ln, "n = %d: must be in [1, %d]", n, TB_READER_MAXN);
    snprintf(expect, sizeof expect, "n = %d", n);
    if ((rc = rd_matrix(c, &L, "M", n, expect, &fp->W)) != TB_OK) return rc;
  }
  fp->n = n;
  char f[48];
  fp->q = (double*)malloc(sizeof(double) * (size_t)n);
  if (!fp->q) return tb_setError("%s: q: out of memory", c->name);
  for (int i = 0; i < n; i++) {
    snprintf(f, sizeof f, "q[%d]", i);
    if ((rc = lx_double(c, &L, f, &fp->q[i], NULL)) != TB_OK) return rc;
  }
  if (fp->kind == TB_FILE_FC3D) {
    fp->mu = (double*)malloc(sizeof(double) * (size_t)fp->ncontact);
    if (!fp->mu) return tb_setError("%s: mu: out of memory", c->name);
    for (int k = 0; k < fp->ncontact; k++) {
      snprintf(f, sizeof f, "mu[%d]", k);
      int at;
      if ((rc = lx_double(c, &L, f, &fp->mu[k], &at)) != TB_OK) return rc;
      if (fp->mu[k] < 0.0) return rd_fail(c, f, at, "%g: must be >= 0", fp->mu[k]);
    }
  }
  // whatever follows (a '0', a remark) is not part of the problem
  return TB_OK;
}

//---- FCLib HDF5 --------------------------------------------------------------------------------

// a numeric dataset of rank <= 1 read as int (is_int) or double; *data malloc'd
static int h5_read(const tbRdCtx* c, hid_t file, const char* path, int is_int, void** data,
                   long* count) {
  *data = NULL;
  *count = 0;
  if (H5Lexists(file, path, H5P_DEFAULT) <= 0) return rd_fail(c, path, 0, "missing dataset");
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) return rd_fail(c, path, 0, "missing dataset (not a dataset)");
  int rc = TB_OK;
  hid_t sp = H5Dget_space(d), ty = H5Dget_type(d);
  H5T_class_t cls = ty >= 0 ? H5Tget_class(ty) : H5T_NO_CLASS;
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  size_t width = ty >= 0 ? H5Tget_size(ty) : 0;
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
    rc = rd_fail(c, path, 0, "not a numeric dataset");
  } else if (width == 0 || width > 16) {
    // HDF5 converts through a buffer of np x width bytes: a crafted width asked it for terabytes
    rc = rd_fail(c, path, 0, "numbers of %zu bytes: not an integer or float type", width);
  } else if (rank < 0 || rank > 1 || np < 0) {
    rc = rd_fail(c, path, 0, "rank %d: must be a vector", rank);
  } else if (np > (hssize_t)1 << 28) {
    rc = rd_fail(c, path, 0, "%lld entries: too many", (long long)np);
  } else {
    size_t es = is_int ? sizeof(int) : sizeof(double);
    *data = malloc(es * (size_t)(np > 0 ? np : 1));
    if (!*data) {
      rc = tb_setError("%s: %s: out of memory", c->name, path);
    } else if (np > 0 && H5Dread(d, is_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                                 H5P_DEFAULT, *data) < 0) {
      rc = rd_fail(c, path, 0, "read failed");
    }
    *count = (long)np;
  }
  if (ty >= 0) H5Tclose(ty);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  if (rc != TB_OK) {
    free(*data);
    *data = NULL;
    *count = 0;
  }
  return rc;
}

static int h5_int(const tbRdCtx* c, hid_t file, const char* path, int* v) {
  void* p;
  long cnt;
  int rc = h5_read(c, file, path, 1, &p, &cnt);
  if (rc != TB_OK) return rc;
  if (cnt != 1) rc = rd_fail(c, path, 0, "%ld entries: must be one integer", cnt);
  if (rc == TB_OK) *v = *(int*)p;
  free(p);
  return rc;
}

// a double vector of exactly `n` finite entries (nonnegative if nonneg); *out malloc'd
static int h5_vec(const tbRdCtx* c, hid_t file, const char* path, long n, int nonneg,
                  double** out) {
  void* p;
  long cnt;
  *out = NULL;
  int rc = h5_read(c, file, path, 0, &p, &cnt);
  if (rc != TB_OK) return rc;
  double* x = (double*)p;
  char f[160];
  if (cnt != n) rc = rd_fail(c, path, 0, "%ld entries: must be %ld", cnt, n);
  for (long k = 0; k < cnt && rc == TB_OK; k++) {
    snprintf(f, sizeof f, "%s[%ld]", path, k);
    if (!isfinite(x[k]))
      rc = rd_fail(c, f, 0, "not finite (%g)", x[k]);
    else if (nonneg && x[k] < 0.0)
      rc = rd_fail(c, f, 0, "%g: must be >= 0", x[k]);
  }
  if (rc != TB_OK) {
    free(p);
    return rc;
  }
  *out = x;
  return TB_OK;
}

// an FCLib sparse matrix's entries, each checked (duplicates stay: their sum is the entry)
typedef struct rdEntries {
  int m, n;
  long nnz;
  int *i, *j;  // rows, columns
  double* x;
} rdEntries;

static void rd_freeEntries(rdEntries* e) {
  free(e->i);
  free(e->j);
  free(e->x);
  memset(e, 0, sizeof(*e));
}

// the entries of the FCLib sparse matrix in group `g` (triplet, compressed columns or rows), at
// most maxm rows and maxn columns
static int h5_entries(const tbRdCtx* c, hid_t file, const char* g, int maxm, int maxn,
                      rdEntries* e) {
  char path[160], f[192];
  int m, n, nz, rc;
  memset(e, 0, sizeof(*e));
  snprintf(path, sizeof path, "%s/m", g);
  if ((rc = h5_int(c, file, path, &m)) != TB_OK) return rc;
  if (m < 1 || m > maxm) return rd_fail(c, path, 0, "%d rows: must be in [1, %d]", m, maxm);
  snprintf(path, sizeof path, "%s/n", g);
  if ((rc = h5_int(c, file, path, &n)) != TB_OK) return rc;
  if (n < 1 || n > maxn) return rd_fail(c, path, 0, "%d columns: must be in [1, %d]", n, maxn);
  snprintf(path, sizeof path, "%s/nz", g);
  if ((rc = h5_int(c, file, path, &nz)) != TB_OK) return rc;
  if (nz < -2)
    return rd_fail(c, path, 0,
                   "%d: must be >= 0 (triplet), -1 (compressed columns) or -2 (compressed rows)",
                   nz);
  void *pv = NULL, *iv = NULL, *xv = NULL;
  long np, ni, nx;
  snprintf(path, sizeof path, "%s/p", g);
  rc = h5_read(c, file, path, 1, &pv, &np);
  snprintf(path, sizeof path, "%s/i", g);
  if (rc == TB_OK) rc = h5_read(c, file, path, 1, &iv, &ni);
  snprintf(path, sizeof path, "%s/x", g);
  if (rc == TB_OK) rc = h5_read(c, file, path, 0, &xv, &nx);
  const int *P = (const int*)pv, *I = (const int*)iv;
  const double* X = (const double*)xv;
  if (rc == TB_OK) {
    size_t cap = (size_t)(nx > 0 ? nx : 1);
    e->i = (int*)malloc(sizeof(int) * cap);
    e->j = (int*)malloc(sizeof(int) * cap);
    e->x = (double*)malloc(sizeof(double) * cap);
    if (!e->i || !e->j || !e->x) rc = tb_setError("%s: %s: out of memory", c->name, g);
  }
  if (rc == TB_OK && nz >= 0) {  // triplet, CSparse's convention: i rows, p columns
    if (np < nz || ni < nz || nx < nz) {
      snprintf(path, sizeof path, "%s", g);
      rc = rd_fail(c, path, 0, "triplet with nz = %d but p, i, x hold %ld, %ld, %ld entries", nz,
                   np, ni, nx);
    }
    for (long k = 0; k < nz && rc == TB_OK; k++) {
      if (I[k] < 0 || I[k] >= m) {
        snprintf(f, sizeof f, "%s/i[%ld]", g, k);
        rc = rd_fail(c, f, 0, "row index %d outside [0, %d)", I[k], m);
      } else if (P[k] < 0 || P[k] >= n) {
        snprintf(f, sizeof f, "%s/p[%ld]", g, k);
        rc = rd_fail(c, f, 0, "column index %d outside [0, %d)", P[k], n);
      } else if (!isfinite(X[k])) {
        snprintf(f, sizeof f, "%s/x[%ld]", g, k);
        rc = rd_fail(c, f, 0, "not finite (%g)", X[k]);
      } else {
        e->i[e->nnz] = I[k];
        e->j[e->nnz] = P[k];
        e->x[e->nnz++] = X[k];
      }
    }
  } else if (rc == TB_OK) {  // compressed columns (-1) or rows (-2)
    int csr = nz == -2, outer = csr ? m : n, inner = csr ? n : m;
    if (np < outer + 1) {
      snprintf(path, sizeof path, "%s/p", g);
      rc = rd_fail(c, path, 0, "%ld entries: must be %s + 1 = %d", np, csr ? "m" : "n", outer + 1);
    }
    for (int o = 0; o < outer && rc == TB_OK; o++) {
      if (P[o] < 0 || P[o + 1] < P[o] || P[o + 1] > ni || P[o + 1] > nx) {
        snprintf(f, sizeof f, "%s/p[%d]", g, o + 1);
        rc = rd_fail(c, f, 0, "pointers %d, %d: must be nondecreasing within [0, %ld]", P[o],
                     P[o + 1], ni < nx ? ni : nx);
        break;
      }
      for (int k = P[o]; k < P[o + 1]; k++) {
        if (I[k] < 0 || I[k] >= inner) {
          snprintf(f, sizeof f, "%s/i[%d]", g, k);
          rc = rd_fail(c, f, 0, "%s index %d outside [0, %d)", csr ? "column" : "row", I[k], inner);
          break;
        }
        if (!isfinite(X[k])) {
          snprintf(f, sizeof f, "%s/x[%d]", g, k);
          rc = rd_fail(c, f, 0, "not finite (%g)", X[k]);
          break;
        }
        e->i[e->nnz] = csr ? o : I[k];
        e->j[e->nnz] = csr ? I[k] : o;
        e->x[e->nnz++] = X[k];
      }
    }
  }
  free(pv);
  free(iv);
  free(xv);
  e->m = m;
  e->n = n;
  if (rc != TB_OK) rd_freeEntries(e);
  return rc;
}

// an FCLib sparse matrix (group `g`) as a dense (m x n) row-major matrix; *D malloc'd
static int h5_dense(const tbRdCtx* c, hid_t file, const char* g, int* m_out, int* n_out,
                    double** D) {
  rdEntries e;
  *D = NULL;
  int rc = h5_entries(c, file, g, TB_READER_MAXN, TB_READER_MAXN, &e);
  if (rc != TB_OK) return rc;
  double* A = (double*)calloc((size_t)e.m * e.n, sizeof(double));
  if (!A) rc = tb_setError("%s: %s: out of memory", c->name, g);
  for (long k = 0; A && k < e.nnz; k++) A[(size_t)e.i[k] * e.n + e.j[k]] += e.x[k];
  *m_out = e.m;
  *n_out = e.n;
  *D = A;
  rd_freeEntries(&e);
  return rc;
}

static int h5_spacedim(const tbRdCtx* c, hid_t file, const char* g) {
  char path[96];
  int d, rc;
  snprintf(path, sizeof path, "%s/spacedim", g);
  if ((rc = h5_int(c, file, path, &d)) != TB_OK) return rc;
  if (d != 3) return rd_fail(c, path, 0, "%d: only 3D frictional contact (3) is supported", d);
  return TB_OK;
}

static int h5_local(const tbRdCtx* c, hid_t file, tbFileProblem* fp) {
  int rc, m, n;
  if ((rc = h5_spacedim(c, file, "/fclib_local")) != TB_OK) return rc;
  if (H5Lexists(file, "/fclib_local/R", H5P_DEFAULT) > 0 ||
      H5Lexists(file, "/fclib_local/V", H5P_DEFAULT) > 0)
    return rd_fail(c, "/fclib_local/R", 0, "mixed problems (V, R, s) are not supported");
  if ((rc = h5_dense(c, file, "/fclib_local/W", &m, &n, &fp->W)) != TB_OK) return rc;
  if (m != n || m % 3 != 0)
    return rd_fail(c, "/fclib_local/W", 0, "%d x %d: must be square with 3 rows per contact", m, n);
  fp->n = n;
  fp->ncontact = n / 3;
  if ((rc = h5_vec(c, file, "/fclib_local/vectors/q", n, 0, &fp->q)) != TB_OK) return rc;
  return h5_vec(c, file, "/fclib_local/vectors/mu", fp->ncontact, 1, &fp->mu);
}

// e as a CHOLMOD compressed-column matrix (duplicates summed), or NULL out of memory
static cholmod_sparse* rd_cholmod(const rdEntries* e, cholmod_common* cm) {
  cholmod_triplet* t = cholmod_allocate_triplet(e->m, e->n, e->nnz, 0, CHOLMOD_REAL, cm);
  if (!t) return NULL;
  memcpy(t->i, e->i, sizeof(int) * (size_t)e->nnz);
  memcpy(t->j, e->j, sizeof(int) * (size_t)e->nnz);
  memcpy(t->x, e->x, sizeof(double) * (size_t)e->nnz);
  t->nnz = (size_t)e->nnz;
  cholmod_sparse* s = cholmod_triplet_to_sparse(t, e->nnz, cm);
  cholmod_free_triplet(&t, cm);
  return s;
}

// TB_OK when M equals its transpose to 1e-10 of its largest entry, else the first entry that
// does not
static int rd_symmetric(const tbRdCtx* c, cholmod_sparse* M, cholmod_common* cm) {
  double one[2] = {1.0, 0.0}, minus[2] = {-1.0, 0.0};
  cholmod_sparse* Mt = cholmod_transpose(M, 1, cm);
  cholmod_sparse* D = Mt ? cholmod_add(M, Mt, one, minus, 1, 1, cm) : NULL;
  int rc = D ? TB_OK : tb_setError("%s: /fclib_global/M: out of memory", c->name);
  double mmax = 0.0;  // largest |entry| (CHOLMOD's norms are row and column sums)
  const double* Mx = (const double*)M->x;
  for (int k = 0; k < ((const int*)M->p)[M->ncol]; k++) mmax = fmax(mmax, fabs(Mx[k]));
  double tol = 1e-10 * mmax;
  const int *Dp = D ? (const int*)D->p : NULL, *Di = D ? (const int*)D->i : NULL;
  const double* Dx = D ? (const double*)D->x : NULL;
  for (int j = 0; rc == TB_OK && j < (int)M->ncol; j++) {
    for (int k = Dp[j]; k < Dp[j + 1]; k++) {
      if (fabs(Dx[k]) > tol) {
        char fl[64];
        snprintf(fl, sizeof fl, "/fclib_global/M(%d, %d)", Di[k], j);
        rc = rd_fail(c, fl, 0, "M is not symmetric (M(i, j) - M(j, i) = %g)", Dx[k]);
        break;
      }
    }
  }
  cholmod_free_sparse(&D, cm);
  cholmod_free_sparse(&Mt, cm);
  return rc;
}

// Z = L^-1 P B for M's factor P M P^T = L L^T (CHOLMOD's P then L solves)
static cholmod_sparse* rd_halfSolve(cholmod_factor* L, cholmod_sparse* B, cholmod_common* cm) {
  cholmod_sparse* PB = cholmod_spsolve(CHOLMOD_P, L, B, cm);
  cholmod_sparse* Z = PB ? cholmod_spsolve(CHOLMOD_L, L, PB, cm) : NULL;
  cholmod_free_sparse(&PB, cm);
  return Z;
}

// W = H^T M^-1 H and q = H^T M^-1 f + w, M and H sparse from file to W (a mass matrix has
// thousands of rows; held dense and factorized densely, a 12000-row one took 8 minutes):
// Z = L^-1 P H, W = Z^T Z (its lower half mirrored: exactly symmetric), q = Z^T L^-1 P f + w.
// CHOLMOD's simplicial factor calls no threaded BLAS, so W is the same bits on every run.
static int rd_global(const tbRdCtx* c, const rdEntries* Me, const rdEntries* He, const double* f,
                     const double* w, tbFileProblem* fp, cholmod_common* cm) {
  int n = He->n;
  cholmod_sparse *M = rd_cholmod(Me, cm), *H = rd_cholmod(He, cm), *Mu = NULL, *Z = NULL;
  cholmod_sparse *Zt = NULL, *W = NULL;
  cholmod_factor* L = NULL;
  cholmod_dense *fd = NULL, *zf = NULL, *qd = NULL;
  int rc =
      M && H ? rd_symmetric(c, M, cm) : tb_setError("%s: /fclib_global: out of memory", c->name);
  if (rc == TB_OK) {
    Mu = cholmod_copy(M, 1, 1, cm);  // its upper half, as CHOLMOD's symmetric form
    L = Mu ? cholmod_analyze(Mu, cm) : NULL;
    if (L) cholmod_factorize(Mu, L, cm);
    if (!L || cm->status < CHOLMOD_OK)
      rc = tb_setError("%s: /fclib_global/M: out of memory", c->name);
  }
  if (rc == TB_OK && cm->status == CHOLMOD_NOT_POSDEF) {
    char fl[64];
    snprintf(fl, sizeof fl, "/fclib_global/M row %d", ((const int*)L->Perm)[L->minor]);
    rc = rd_fail(c, fl, 0, "M is not positive definite (its Cholesky factorization fails here)");
  }
  if (rc == TB_OK) {
    Z = rd_halfSolve(L, H, cm);
    Zt = Z ? cholmod_transpose(Z, 1, cm) : NULL;
    W = Zt ? cholmod_aat(Zt, NULL, 0, 1, cm) : NULL;
    fd = cholmod_allocate_dense(Me->m, 1, Me->m, CHOLMOD_REAL, cm);
    if (fd) memcpy(fd->x, f, sizeof(double) * (size_t)Me->m);
    cholmod_dense* pf = fd ? cholmod_solve(CHOLMOD_P, L, fd, cm) : NULL;
    zf = pf ? cholmod_solve(CHOLMOD_L, L, pf, cm) : NULL;
    cholmod_free_dense(&pf, cm);
    qd = cholmod_allocate_dense(n, 1, n, CHOLMOD_REAL, cm);
    double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
    if (Z && zf && qd) cholmod_sdmult(Z, 1, one, zero, zf, qd, cm);
    fp->W = (double*)calloc((size_t)n * n, sizeof(double));
    fp->q = (double*)malloc(sizeof(double) * (size_t)n);
    if (!W || !qd || !zf || !fp->W || !fp->q || cm->status < CHOLMOD_OK)
      rc = tb_setError("%s: /fclib_global: out of memory", c->name);
  }
  if (rc == TB_OK) {
    const int *Wp = (const int*)W->p, *Wi = (const int*)W->i;
    const double* Wx = (const double*)W->x;
    for (int j = 0; j < n; j++) {
      for (int k = Wp[j]; k < Wp[j + 1]; k++) {
        if (Wi[k] < j) continue;
        fp->W[(size_t)Wi[k] * n + j] = Wx[k];
        fp->W[(size_t)j * n + Wi[k]] = Wx[k];
      }
    }
    for (int i = 0; i < n; i++) fp->q[i] = ((const double*)qd->x)[i] + w[i];
    fp->n = n;
    fp->ncontact = n / 3;
    fp->global = 1;
  }
  cholmod_free_sparse(&M, cm);
  cholmod_free_sparse(&H, cm);
  cholmod_free_sparse(&Mu, cm);
  cholmod_free_sparse(&Z, cm);
  cholmod_free_sparse(&Zt, cm);
  cholmod_free_sparse(&W, cm);
  cholmod_free_factor(&L, cm);
  cholmod_free_dense(&fd, cm);
  cholmod_free_dense(&zf, cm);
  cholmod_free_dense(&qd, cm);
  return rc;
}

static int h5_global(const tbRdCtx* c, hid_t file, tbFileProblem* fp) {
  int rc;
  if ((rc = h5_spacedim(c, file, "/fclib_global")) != TB_OK) return rc;
  if (H5Lexists(file, "/fclib_global/G", H5P_DEFAULT) > 0)
    return rd_fail(c, "/fclib_global/G", 0, "equality constraints (G, b) are not supported");
  rdEntries Me, He;
  memset(&He, 0, sizeof(He));
  double *f = NULL, *w = NULL;
  rc = h5_entries(c, file, "/fclib_global/M", TB_READER_MAXDOF, TB_READER_MAXDOF, &Me);
  if (rc == TB_OK && Me.m != Me.n)
    rc = rd_fail(c, "/fclib_global/M", 0, "%d x %d: must be square", Me.m, Me.n);
  if (rc == TB_OK)
    rc = h5_entries(c, file, "/fclib_global/H", TB_READER_MAXDOF, TB_READER_MAXN, &He);
  if (rc == TB_OK && (He.m != Me.m || He.n % 3 != 0))
    rc = rd_fail(c, "/fclib_global/H", 0,
                 "%d x %d: must have M's %d rows and 3 columns per contact", He.m, He.n, Me.m);
  if (rc == TB_OK) rc = h5_vec(c, file, "/fclib_global/vectors/f", Me.m, 0, &f);
  if (rc == TB_OK) rc = h5_vec(c, file, "/fclib_global/vectors/w", He.n, 0, &w);
  if (rc == TB_OK) rc = h5_vec(c, file, "/fclib_global/vectors/mu", He.n / 3, 1, &fp->mu);
  if (rc == TB_OK) {
    cholmod_common cm;
    cholmod_start(&cm);
    cm.print = 0;
    cm.supernodal = CHOLMOD_SIMPLICIAL;
    cm.final_ll = 1;
    rc = rd_global(c, &Me, &He, f, w, fp, &cm);
    cholmod_finish(&cm);
  }
  rd_freeEntries(&Me);
  rd_freeEntries(&He);
  free(f);
  free(w);
  return rc;
}

static int rd_hdf5(const tbRdCtx* c, const char* path, tbFileProblem* fp) {
  // after some corrupt files HDF5 cannot shut itself down, and its exit handler then prints
  // "infinite loop closing library" under our error line: no exit handler (every file is closed
  // by then). A no-op once the library is in use.
  H5dont_atexit();
  // HDF5 prints its error stack by default: silence it for the duration of the read
  H5E_auto2_t old_fn = NULL;
  void* old_data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  int rc = TB_OK;
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) {
    rc = rd_fail(c, "file", 0, "cannot open as HDF5");
  } else {
    fp->kind = TB_FILE_FC3D;
    if (H5Lexists(file, "/fclib_local", H5P_DEFAULT) > 0)
      rc = h5_local(c, file, fp);
    else if (H5Lexists(file, "/fclib_global", H5P_DEFAULT) > 0)
      rc = h5_global(c, file, fp);
    else
      rc = rd_fail(c, "/", 0, "missing group /fclib_local or /fclib_global");
    if (rc == TB_OK && H5Lexists(file, "/solution", H5P_DEFAULT) > 0 &&
        H5Lexists(file, "/solution/r", H5P_DEFAULT) > 0) {
      rc = h5_vec(c, file, "/solution/r", fp->n, 0, &fp->r_solution);
      fp->has_solution = rc == TB_OK;
    }
    H5Fclose(file);
  }
  H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
  return rc;
}

//---- HDF5 in a child process -------------------------------------------------------------------
// libhdf5 trusts the addresses inside a file: some corrupt files have it copy through a null
// pointer (found by fuzzing, in H5F__accum_read under H5Lexists). So a forked child reads the
// file and sends the problem back through a pipe: a child that dies is the file's error, never
// the caller's crash.

typedef struct h5Answer {
  int rc, kind, n, ncontact, has_solution, global;
  int msglen;  // the error line that follows (rc != TB_OK)
} h5Answer;

static int h5_send(int fd, const void* p, size_t len) {
  const char* b = (const char*)p;
  while (len > 0) {
    ssize_t k = write(fd, b, len);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return 0;
    b += k;
    len -= (size_t)k;
  }
  return 1;
}

static int h5_receive(int fd, void* p, size_t len) {
  char* b = (char*)p;
  while (len > 0) {
    ssize_t k = read(fd, b, len);
    if (k < 0 && errno == EINTR) continue;  // a signal handler without SA_RESTART
    if (k <= 0) return 0;
    b += k;
    len -= (size_t)k;
  }
  return 1;
}

// the child: read, answer, and leave without the parent's exit handlers or stdio buffers
static void h5_child(const tbRdCtx* c, const char* path, int fd) {
  tbFileProblem fp;
  memset(&fp, 0, sizeof fp);
  h5Answer a;
  memset(&a, 0, sizeof a);
  a.rc = rd_hdf5(c, path, &fp);
  const char* msg = a.rc == TB_OK ? "" : tb_lastError();
  a.msglen = (int)strlen(msg);
  a.kind = fp.kind;
  a.n = fp.n;
  a.ncontact = fp.ncontact;
  a.has_solution = fp.has_solution;
  a.global = fp.global;
  size_t n = (size_t)fp.n;
  int ok = h5_send(fd, &a, sizeof a) && h5_send(fd, msg, (size_t)a.msglen);
  if (ok && a.rc == TB_OK)
    ok = h5_send(fd, fp.W, sizeof(double) * n * n) && h5_send(fd, fp.q, sizeof(double) * n) &&
         h5_send(fd, fp.mu, sizeof(double) * (size_t)fp.ncontact) &&
         (!fp.has_solution || h5_send(fd, fp.r_solution, sizeof(double) * n));
  _exit(ok ? 0 : 1);
}

// what the parent made of the child's answer
enum { H5_WHOLE, H5_CUT, H5_NOMEM, H5_MALFORMED };

// count doubles from fd into *x (malloc'd)
static int h5_receiveDoubles(int fd, size_t count, double** x) {
  *x = (double*)malloc(sizeof(double) * (count > 0 ? count : 1));
  if (!*x) return H5_NOMEM;
  return h5_receive(fd, *x, sizeof(double) * count) ? H5_WHOLE : H5_CUT;
}

// the parent's side: the child's error line, or its problem into fp
static int h5_answer(int fd, tbFileProblem* fp, int* rc) {
  h5Answer a;
  char msg[1024];
  if (!h5_receive(fd, &a, sizeof a)) return H5_CUT;
  if (a.msglen < 0 || a.msglen >= (int)sizeof msg) return H5_MALFORMED;
  if (!h5_receive(fd, msg, (size_t)a.msglen)) return H5_CUT;
  msg[a.msglen] = '\0';
  if (a.rc != TB_OK) {
    *rc = tb_setError("%s", msg);
    return H5_WHOLE;
  }
  if (a.ncontact < 1 || a.ncontact > TB_READER_MAXN / 3 || a.n != 3 * a.ncontact)
    return H5_MALFORMED;
  size_t n = (size_t)a.n;
  fp->kind = a.kind;
  fp->n = a.n;
  fp->ncontact = a.ncontact;
  fp->global = a.global;
  int got = h5_receiveDoubles(fd, n * n, &fp->W);
  if (got == H5_WHOLE) got = h5_receiveDoubles(fd, n, &fp->q);
  if (got == H5_WHOLE) got = h5_receiveDoubles(fd, (size_t)a.ncontact, &fp->mu);
  if (got == H5_WHOLE && a.has_solution) got = h5_receiveDoubles(fd, n, &fp->r_solution);
  fp->has_solution = a.has_solution;
  *rc = TB_OK;
  return got;
}

// the child's end as the reason its answer was cut short
static int h5_childEnd(const tbRdCtx* c, int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGKILL)
      return rd_fail(c, "file", 0, "the HDF5 reader was stopped (signal %d)", sig);
    return rd_fail(c, "file", 0, "HDF5 crashed reading it (signal %d): a corrupt file", sig);
  }
  return rd_fail(c, "file", 0, "HDF5 stopped reading it (exit %d): a corrupt file",
                 WEXITSTATUS(status));
}

// rd_hdf5 in a forked child. Not alongside other HDF5 use in the process: the child would inherit
// the (serial) library mid-call.
static int rd_hdf5Isolated(const tbRdCtx* c, const char* path, tbFileProblem* fp) {
  int fds[2];
  if (pipe(fds) != 0) return rd_fail(c, "file", 0, "no pipe to a reader: %s", strerror(errno));
  // another thread's fork must not hold the write end open past this child's end
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return rd_fail(c, "file", 0, "no process to read it: %s", strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    h5_child(c, path, fds[1]);
  }
  close(fds[1]);
  int rc = TB_OK, got = h5_answer(fds[0], fp, &rc);
  close(fds[0]);
  if (got == H5_NOMEM || got == H5_MALFORMED) kill(pid, SIGKILL);
  int status = 0;
  pid_t w;
  while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (got == H5_NOMEM) return rd_fail(c, "file", 0, "out of memory for its problem");
  if (got == H5_MALFORMED) return rd_fail(c, "file", 0, "the HDF5 reader's answer is malformed");
  if (w < 0) return rd_fail(c, "file", 0, "the HDF5 reader was lost: %s", strerror(errno));
  if (got == H5_WHOLE && WIFEXITED(status) && WEXITSTATUS(status) == 0) return rc;
  return h5_childEnd(c, status);
}

//---- interface ---------------------------------------------------------------------------------

// the runs of W's rows (transpose 0) or columns (1) into adr (n + 1) and run (2 per run: at
// most as many runs as W has nonzeros)
static void rd_findRuns(const double* W, int n, int transpose, int* adr, int* run) {
  long nr = 0;
  for (int i = 0; i < n; i++) {
    adr[i] = (int)nr;
    int in = 0;
    for (int j = 0; j <= n; j++) {
      int nz = j < n && W[transpose ? (size_t)j * n + i : (size_t)i * n + j] != 0.0;
      if (nz && !in) run[2 * nr] = j;
      if (!nz && in) run[2 * nr++ + 1] = j;
      in = nz;
    }
  }
  adr[n] = (int)nr;
}

// W's nonzero runs for PGS and u = W x + q, where the runs hold at most TB_RUN_FILL of
// W's entries. 200 PGS sweeps on the shared files (2 cores): over the runs 15x, 6.7x, 3.7x
// faster at fill 1.6%, 2.0%, 3.3% (Capsules, Box_Stacks), 2.3x at 22% (BoxesStack1, 156 rows),
// 1.2x at 29% (OneObject, 69 rows), 1.03x at 17% on 27 rows; 0.85-0.93x on full matrices
static int rd_runs(tbFileProblem* fp) {
  int n = fp->n;
  size_t nn = (size_t)n * n;
  long nz = 0;
  for (size_t k = 0; k < nn; k++) nz += fp->W[k] != 0.0;
  if (n < TB_READER_RUN_MIN || (double)nz > TB_RUN_FILL * (double)nn) return TB_OK;
  int* mem = (int*)malloc(sizeof(int) * (size_t)(2 * (n + 1) + 4 * nz));
  if (!mem) return TB_ERR_MEMORY;
  int *row_adr = mem, *col_adr = mem + n + 1, *row_run = col_adr + n + 1,
      *col_run = row_run + 2 * nz;
  rd_findRuns(fp->W, n, 0, row_adr, row_run);
  rd_findRuns(fp->W, n, 1, col_adr, col_run);
  fp->run_mem = mem;
  fp->runs.row_adr = row_adr;
  fp->runs.row_run = row_run;
  fp->runs.col_adr = col_adr;
  fp->runs.col_run = col_run;
  return TB_OK;
}

static int rd_view(tbFileProblem* fp) {
  int n = fp->n, nb = fp->kind == TB_FILE_FC3D ? fp->ncontact : n;
  fp->nblock = nb;
  fp->lo = (double*)malloc(sizeof(double) * (size_t)n);
  fp->hi = (double*)malloc(sizeof(double) * (size_t)n);
  fp->blk_type = (int*)malloc(sizeof(int) * (size_t)nb);
  fp->blk_adr = (int*)malloc(sizeof(int) * (size_t)nb);
  fp->blk_dim = (int*)malloc(sizeof(int) * (size_t)nb);
  fp->blk_mu = (double*)malloc(sizeof(double) * (size_t)nb);
  fp->blk_angle = (double*)malloc(sizeof(double) * (size_t)nb);
  if (!fp->lo || !fp->hi || !fp->blk_type || !fp->blk_adr || !fp->blk_dim || !fp->blk_mu ||
      !fp->blk_angle)
    return TB_ERR_MEMORY;
  for (int i = 0; i < n; i++) {
    fp->lo[i] = 0.0;
    fp->hi[i] = INFINITY;
  }
  for (int k = 0; k < nb; k++) {
    int fc = fp->kind == TB_FILE_FC3D;
    fp->blk_type[k] = fc ? TB_BLOCK_CONTACT : TB_BLOCK_BOX;
    fp->blk_adr[k] = fc ? 3 * k : k;
    fp->blk_dim[k] = fc ? 3 : 1;
    fp->blk_mu[k] = fc ? fp->mu[k] : 0.0;
    fp->blk_angle[k] = 0.0;
  }
  return rd_runs(fp);
}

static int rd_problem(const char* path, tbFileProblem* out, int isolate_hdf5) {
  if (!out) return tb_setError("tb_readProblem: out is NULL");
  memset(out, 0, sizeof *out);
  if (!path) return tb_setError("tb_readProblem: path is NULL");
  tbRdCtx c = {rd_basename(path)};
  FILE* fh = fopen(path, "rb");
  if (!fh) return rd_fail(&c, "file", 0, "cannot open: %s", strerror(errno));
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char head[8];
  size_t nh = fread(head, 1, sizeof head, fh);
  int rc;
  if (nh == sizeof head && memcmp(head, sig, sizeof sig) == 0) {
    fclose(fh);
    rc = isolate_hdf5 ? rd_hdf5Isolated(&c, path, out) : rd_hdf5(&c, path, out);
  } else {
    size_t cap = 1 << 16, len = nh;
    char* buf = (char*)malloc(cap + 1);
    if (!buf) {
      fclose(fh);
      return tb_setError("%s: out of memory", c.name);
    }
    memcpy(buf, head, nh);
    for (;;) {
      if (len == cap) {
        char* nb = cap < ((size_t)1 << 31) ? (char*)realloc(buf, 2 * cap + 1) : NULL;
        if (!nb) {
          free(buf);
          fclose(fh);
          return tb_setError("%s: file too large or out of memory", c.name);
        }
        buf = nb;
        cap *= 2;
      }
      size_t r = fread(buf + len, 1, cap - len, fh);
      len += r;
      if (r == 0) break;
    }
    int err = ferror(fh);
    fclose(fh);
    buf[len] = '\0';
    if (err)
      rc = rd_fail(&c, "file", 0, "read error");
    else
      rc = rd_text(&c, buf, len, out);
    free(buf);
  }
  if (rc == TB_OK && rd_view(out) != TB_OK) rc = tb_setError("%s: out of memory", c.name);
  if (rc != TB_OK) tb_freeFileProblem(out);
  return rc;
}

int tb_readProblem(const char* path, tbFileProblem* out) {
  return rd_problem(path, out, 1);
}

int tb_readProblemInProcess(const char* path, tbFileProblem* out) {
  return rd_problem(path, out, 0);
}

void tb_freeFileProblem(tbFileProblem* fp) {
  if (!fp) return;
  free(fp->W);
  free(fp->q);
  free(fp->mu);
  free(fp->r_solution);
  free(fp->lo);
  free(fp->hi);
  free(fp->blk_type);
  free(fp->blk_adr);
  free(fp->blk_dim);
  free(fp->blk_mu);
  free(fp->blk_angle);
  free(fp->run_mem);
  memset(fp, 0, sizeof *fp);
}

tbProblem tb_fileProblemView(const tbFileProblem* fp) {
  tbProblem p;
  memset(&p, 0, sizeof p);
  p.n = fp->n;
  p.nblock = fp->nblock;
  p.A = fp->W;
  p.b = fp->q;
  p.lo = fp->lo;
  p.hi = fp->hi;
  p.blk_type = fp->blk_type;
  p.blk_adr = fp->blk_adr;
  p.blk_dim = fp->blk_dim;
  p.blk_mu = fp->blk_mu;
  p.blk_angle = fp->blk_angle;
  p.cone = TB_CONE_EXACT;
  p.facets = 8;  // unused by the exact cone
  p.runs = fp->run_mem ? &fp->runs : NULL;
  return p;
}
