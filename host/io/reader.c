// Reader for Siconos numerics text files and FCLib HDF5 files (include/tumble/reader.h; the
// FC3D writer is host/io/writer.c, in the engine library: it needs neither HDF5 nor CHOLMOD).
// Every failure sets one line "<file>: <field> (line L): <what>" and frees what was built.
// This file finds a file's format and builds the problem's view; reader_text.c and reader_hdf5.c
// read the formats (reader_internal.h).
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/reader.h>

#include "util/error.h"
#include "io/reader_inprocess.h"
#include "io/reader_internal.h"

#define TB_READER_RUN_MIN 16  // rows below which W is read whole

// "<file>: <field>[ (line L)]: <what>"; returns TB_ERR_ARG
int tb_rdFail(const tbRdCtx* c, const char* field, int line, const char* fmt, ...) {
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
  return fp->W ? rd_runs(fp) : tb_rdPackedRuns(fp);
}

static int rd_problem(const char* path, tbFileProblem* out, int isolate_hdf5, int keep_sparse) {
  if (!out) return tb_setError("tb_readProblem: out is NULL");
  memset(out, 0, sizeof *out);
  if (!path) return tb_setError("tb_readProblem: path is NULL");
  tbRdCtx c = {rd_basename(path), keep_sparse};
  FILE* fh = fopen(path, "rb");
  if (!fh) return tb_rdFail(&c, "file", 0, "cannot open: %s", strerror(errno));
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char head[8];
  size_t nh = fread(head, 1, sizeof head, fh);
  int rc;
  if (nh == sizeof head && memcmp(head, sig, sizeof sig) == 0) {
    fclose(fh);
    rc = isolate_hdf5 ? tb_rdHdf5Isolated(&c, path, out) : tb_rdHdf5(&c, path, out);
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
      rc = tb_rdFail(&c, "file", 0, "read error");
    else
      rc = tb_rdText(&c, buf, len, out);
    free(buf);
  }
  if (rc == TB_OK && rd_view(out) != TB_OK) rc = tb_setError("%s: out of memory", c.name);
  if (rc != TB_OK) tb_freeFileProblem(out);
  return rc;
}

int tb_readProblem(const char* path, tbFileProblem* out) {
  return rd_problem(path, out, 1, 0);
}

int tb_readProblemInProcess(const char* path, tbFileProblem* out) {
  return rd_problem(path, out, 0, 0);
}

int tb_readProblemSparse(const char* path, tbFileProblem* out) {
  return rd_problem(path, out, 1, 1);
}

void tb_freeFileProblem(tbFileProblem* fp) {
  if (!fp) return;
  free(fp->W);
  free(fp->W_rowptr);
  free(fp->W_col);
  free(fp->W_val);
  free(fp->col_val);
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
