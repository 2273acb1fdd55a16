// Siconos text files are read token by token, so that each error names the field and line
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/reader.h>

#include "util/error.h"
#include "io/reader_internal.h"

//---- text files --------------------------------------------------------------------------------

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
  return tb_rdFail(c, field, 0, "unexpected end of file (after line %d)", L->last_line);
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
    return tb_rdFail(c, field, ln, "not an integer '%.*s'", (int)(tl > 24 ? 24 : tl), tok);
  if (errno == ERANGE || x < -2147483647L || x > 2147483647L)
    return tb_rdFail(c, field, ln, "integer '%.*s' out of range", (int)(tl > 24 ? 24 : tl), tok);
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
    return tb_rdFail(c, field, ln, "not a number '%.*s'", (int)(tl > 24 ? 24 : tl), tok);
  if (!isfinite(x))
    return tb_rdFail(c, field, ln, "not finite '%.*s'", (int)(tl > 24 ? 24 : tl), tok);
  *v = x;
  if (line) *line = ln;
  return TB_OK;
}

// a dense matrix's values (storage 0) after its storage type and sizes: into fp->W itself where W
// is held dense (its entries would take several times W's memory), else into e, zeros left out
static int rd_denseValues(const tbRdCtx* c, tbLex* L, const char* nm, int n, rdEntries* e,
                          tbFileProblem* fp) {
  char f[96];
  int r0, r1, ln, rc;
  snprintf(f, sizeof f, "%s dense size0 (repeated)", nm);
  if ((rc = lx_int(c, L, f, &r0, &ln)) != TB_OK) return rc;
  if (r0 != n) return tb_rdFail(c, f, ln, "%d: must repeat size0 = %d", r0, n);
  snprintf(f, sizeof f, "%s dense size1 (repeated)", nm);
  if ((rc = lx_int(c, L, f, &r1, &ln)) != TB_OK) return rc;
  if (r1 != n) return tb_rdFail(c, f, ln, "%d: must repeat size1 = %d", r1, n);
  long nv = (long)n * n;
  if (L->left < nv) {  // the file ends inside the matrix: name the first missing entry
    long k = L->left;
    snprintf(f, sizeof f, "%s(%ld, %ld) (value %ld of %ld)", nm, k % n, k / n, k + 1, nv);
    return lx_eof(c, L, f);
  }
  if (tb_rdDense(c, n) && !(fp->W = (double*)malloc(sizeof(double) * (size_t)nv)))
    return tb_setError("%s: %s: out of memory (n = %d)", c->name, nm, n);
  // Siconos' dense layout is column-major: value k is entry (k % size0, k / size0)
  for (long k = 0; k < nv; k++) {
    long i = k % n, j = k / n;
    double v;
    snprintf(f, sizeof f, "%s(%ld, %ld)", nm, i, j);
    if ((rc = lx_double(c, L, f, &v, NULL)) != TB_OK) return rc;
    if (fp->W) {
      fp->W[i * n + j] = v;
    } else if (v != 0.0 && tb_rdAddEntry(e, (int)i, (int)j, v) != TB_OK) {
      return tb_setError("%s: %s: out of memory (n = %d)", c->name, nm, n);
    }
  }
  return TB_OK;
}

// the entries of a sparse block matrix (storage 1, SBM_new_from_file) after its storage type
// and sizes
static int rd_blockEntries(const tbRdCtx* c, tbLex* L, const char* nm, int n, const char* expect,
                           rdEntries* e) {
  char f[96];
  int ln, rc;
  int nbblocks, bn0, bn1, filled1, filled2;
  snprintf(f, sizeof f, "%s nbblocks", nm);
  if ((rc = lx_int(c, L, f, &nbblocks, &ln)) != TB_OK) return rc;
  if (nbblocks < 0 || nbblocks > (long)n * n)
    return tb_rdFail(c, f, ln, "%d blocks: must be in [0, n * n = %ld]", nbblocks, (long)n * n);
  if (nbblocks > L->left)  // before its index arrays are allocated
    return tb_rdFail(c, f, ln, "%d blocks: more than the file's %ld values left", nbblocks,
                     L->left);
  if (nbblocks == 0) return TB_OK;  // the zero matrix: nothing else is written
  snprintf(f, sizeof f, "%s block rows", nm);
  if ((rc = lx_int(c, L, f, &bn0, &ln)) != TB_OK) return rc;
  if (bn0 < 1 || bn0 > n) return tb_rdFail(c, f, ln, "%d: must be in [1, %d]", bn0, n);
  snprintf(f, sizeof f, "%s block columns", nm);
  if ((rc = lx_int(c, L, f, &bn1, &ln)) != TB_OK) return rc;
  if (bn1 < 1 || bn1 > n) return tb_rdFail(c, f, ln, "%d: must be in [1, %d]", bn1, n);
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
        rc = tb_rdFail(c, f, ln, "%d: cumulative block sizes must increase from %d up to %d", bs[k],
                       prev, n);
        break;
      }
    }
    if (rc == TB_OK && bs[nb - 1] != n) {
      snprintf(f, sizeof f, "%s blocksize%d[%d]", nm, a, nb - 1);
      rc = tb_rdFail(c, f, ln, "%d: the last cumulative size must be %s", bs[nb - 1], expect);
    }
  }
  if (rc == TB_OK) {
    snprintf(f, sizeof f, "%s filled1", nm);
    if ((rc = lx_int(c, L, f, &filled1, &ln)) == TB_OK && filled1 != bn0 + 1)
      rc = tb_rdFail(c, f, ln, "%d: must be block rows + 1 = %d", filled1, bn0 + 1);
  }
  if (rc == TB_OK) {
    snprintf(f, sizeof f, "%s filled2", nm);
    if ((rc = lx_int(c, L, f, &filled2, &ln)) == TB_OK && filled2 != nbblocks)
      rc = tb_rdFail(c, f, ln, "%d: must equal nbblocks = %d", filled2, nbblocks);
  }
  for (int k = 0; k <= bn0 && rc == TB_OK; k++) {
    snprintf(f, sizeof f, "%s index1[%d]", nm, k);
    if ((rc = lx_int(c, L, f, &idx1[k], &ln)) != TB_OK) break;
    int lo = k > 0 ? idx1[k - 1] : 0;
    if (k == 0 && idx1[0] != 0)
      rc = tb_rdFail(c, f, ln, "%d: must be 0", idx1[0]);
    else if (idx1[k] < lo || idx1[k] > nbblocks)
      rc = tb_rdFail(c, f, ln, "%d: must be in [%d, %d]", idx1[k], lo, nbblocks);
    else if (k == bn0 && idx1[k] != nbblocks)
      rc = tb_rdFail(c, f, ln, "%d: must be nbblocks = %d", idx1[k], nbblocks);
  }
  for (int k = 0; k < nbblocks && rc == TB_OK; k++) {
    snprintf(f, sizeof f, "%s index2[%d]", nm, k);
    if ((rc = lx_int(c, L, f, &idx2[k], &ln)) != TB_OK) break;
    if (idx2[k] < 0 || idx2[k] >= bn1)
      rc = tb_rdFail(c, f, ln, "block column %d: must be in [0, %d)", idx2[k], bn1);
  }
  for (int k = 0; k < bn1; k++) mark[k] = -1;
  int dense = tb_rdDense(c, n);
  for (int br = 0; br < bn0 && rc == TB_OK; br++) {
    int r0 = br > 0 ? bs0[br - 1] : 0, nr = bs0[br] - r0;
    for (int b = idx1[br]; b < idx1[br + 1] && rc == TB_OK; b++) {
      int bc = idx2[b], c0 = bc > 0 ? bs1[bc - 1] : 0, nc = bs1[bc] - c0, num;
      snprintf(f, sizeof f, "%s index2[%d]", nm, b);
      if (mark[bc] == br) {
        rc = tb_rdFail(c, f, 0, "block column %d appears twice in block row %d", bc, br);
        break;
      }
      mark[bc] = br;
      snprintf(f, sizeof f, "%s block %d number", nm, b);
      if ((rc = lx_int(c, L, f, &num, &ln)) != TB_OK) break;
      if (num != b) {
        rc = tb_rdFail(c, f, ln, "%d: blocks must come in order (expected %d)", num, b);
        break;
      }
      for (long v = 0; v < (long)nr * nc; v++) {  // column-major inside the block
        int i = (int)(v % nr), j = (int)(v / nr);
        snprintf(f, sizeof f, "%s block %d value %ld (entry %d, %d)", nm, b, v, r0 + i, c0 + j);
        double x;
        if ((rc = lx_double(c, L, f, &x, NULL)) != TB_OK) break;
        if ((x != 0.0 || dense) && tb_rdAddEntry(e, r0 + i, c0 + j, x) != TB_OK) {
          rc = tb_setError("%s: %s: out of memory (n = %d)", c->name, nm, n);
          break;
        }
      }
    }
  }
  free(iw);
  return rc;
}

// the Siconos matrix (NumericsMatrix) of name `nm` into fp's W (tb_rdSetW: dense, or its
// nonzeros where dense it would not fit); `expect` describes n for messages ("3 * nc = 9", "n = 4")
static int rd_matrix(const tbRdCtx* c, tbLex* L, const char* nm, int n, const char* expect,
                     tbFileProblem* fp) {
  char f[96];
  int storage, size0, size1, ln, rc;
  snprintf(f, sizeof f, "%s storage type", nm);
  if ((rc = lx_int(c, L, f, &storage, &ln)) != TB_OK) return rc;
  if (storage != 0 && storage != 1)
    return tb_rdFail(c, f, ln, "storage type %d: must be 0 (dense) or 1 (sparse block)%s", storage,
                     storage == 2 ? "; sparse (2) is not supported" : "");
  snprintf(f, sizeof f, "%s size0", nm);
  if ((rc = lx_int(c, L, f, &size0, &ln)) != TB_OK) return rc;
  if (size0 != n) return tb_rdFail(c, f, ln, "size0 = %d: must be %s", size0, expect);
  snprintf(f, sizeof f, "%s size1", nm);
  if ((rc = lx_int(c, L, f, &size1, &ln)) != TB_OK) return rc;
  if (size1 != n) return tb_rdFail(c, f, ln, "size1 = %d: must be %s", size1, expect);
  rdEntries e;
  memset(&e, 0, sizeof e);
  e.m = e.n = n;
  rc =
      storage == 0 ? rd_denseValues(c, L, nm, n, &e, fp) : rd_blockEntries(c, L, nm, n, expect, &e);
  if (rc != TB_OK || fp->W) {  // (a dense file held dense is read: no entries)
    tb_rdFreeEntries(&e);
    return rc;
  }
  return tb_rdSetW(c, nm, &e, fp);
}

int tb_rdText(const tbRdCtx* c, const char* s, size_t len, tbFileProblem* fp) {
  tbLex L;
  lx_init(&L, s, len);
  if (L.left == 0) return tb_rdFail(c, "header", 0, "empty file");
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
    if (nc < 1) return tb_rdFail(c, "nc", ln, "nc = %d: must be >= 1", nc);
    if (nc > TB_READER_MAXN / 3)
      return tb_rdFail(c, "nc", ln, "%d contacts: more than the reader's limit %d", nc,
                       TB_READER_MAXN / 3);
    n = 3 * nc;
    fp->ncontact = nc;
    snprintf(expect, sizeof expect, "3 * nc = %d", n);
    if ((rc = rd_matrix(c, &L, "W", n, expect, fp)) != TB_OK) return rc;
  } else {
    fp->kind = TB_FILE_LCP;
    if ((rc = lx_int(c, &L, "n", &n, &ln)) != TB_OK) return rc;
    if (n < 1 || n > TB_READER_MAXN)
      return tb_rdFail(c, "n", ln, "n = %d: must be in [1, %d]", n, TB_READER_MAXN);
    snprintf(expect, sizeof expect, "n = %d", n);
    if ((rc = rd_matrix(c, &L, "M", n, expect, fp)) != TB_OK) return rc;
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
      if (fp->mu[k] < 0.0) return tb_rdFail(c, f, at, "%g: must be >= 0", fp->mu[k]);
    }
  }
  // whatever follows (a '0', a remark) is not part of the problem
  return TB_OK;
}
