// A problem file's W from the entries its reader found: dense where it fits, else its nonzeros
// in compressed rows, and the runs (tbRuns) over them that the sparse-reading solvers take.
//
// Either way W holds the same numbers: repeated entries summed in the order read (h5_entries's
// triplets); held sparse, its exact zeros are left out as the dense runs leave them out
// (reader.c's rd_findRuns), so u = W x + q and every PGS sweep are the same bits over the packed
// runs as over dense W's; held dense, a file's -0 stays -0.
#include <stdlib.h>
#include <string.h>

#include <tumble/reader.h>

#include "util/error.h"
#include "io/reader_internal.h"

int tb_rdAddEntry(rdEntries* e, int i, int j, double x) {
  if (e->nnz == e->cap) {
    long cap = e->cap ? 2 * e->cap : 1024;
    int* ni = (int*)realloc(e->i, sizeof(int) * (size_t)cap);
    if (ni) e->i = ni;
    int* nj = ni ? (int*)realloc(e->j, sizeof(int) * (size_t)cap) : NULL;
    if (nj) e->j = nj;
    double* nx = nj ? (double*)realloc(e->x, sizeof(double) * (size_t)cap) : NULL;
    if (!nx) return TB_ERR_MEMORY;
    e->x = nx;
    e->cap = cap;
  }
  e->i[e->nnz] = i;
  e->j[e->nnz] = j;
  e->x[e->nnz++] = x;
  return TB_OK;
}

void tb_rdFreeEntries(rdEntries* e) {
  free(e->i);
  free(e->j);
  free(e->x);
  memset(e, 0, sizeof(*e));
}

// the order of e's entries by `key` (n keys), stable: order[] permuted in place with scratch
// tmp (nnz) and count (n + 1)
static void rd_sortBy(const int* key, int n, long nnz, long* order, long* tmp, long* count) {
  memset(count, 0, sizeof(long) * ((size_t)n + 1));
  for (long k = 0; k < nnz; k++) count[key[order[k]] + 1]++;
  for (int a = 0; a < n; a++) count[a + 1] += count[a];
  for (long k = 0; k < nnz; k++) tmp[count[key[order[k]]]++] = order[k];
  memcpy(order, tmp, sizeof(long) * (size_t)nnz);
}

// e in compressed rows into fp, repeated entries summed in e's order; zero sums left out where
// drop_zeros (kept, a file's -0 among them, where W is expanded dense)
static int rd_compressRows(const rdEntries* e, int drop_zeros, tbFileProblem* fp) {
  int n = e->n;
  long nnz = e->nnz;
  size_t cap = (size_t)(nnz ? nnz : 1);
  long* order = (long*)malloc(sizeof(long) * (size_t)(2 * nnz + n + 2));
  fp->W_rowptr = (int*)calloc((size_t)n + 1, sizeof(int));
  fp->W_col = (int*)malloc(sizeof(int) * cap);
  fp->W_val = (double*)malloc(sizeof(double) * cap);
  if (!order || !fp->W_rowptr || !fp->W_col || !fp->W_val) {
    free(order);
    return TB_ERR_MEMORY;
  }
  long *tmp = order + nnz, *count = tmp + nnz;
  for (long k = 0; k < nnz; k++) order[k] = k;
  rd_sortBy(e->j, n, nnz, order, tmp, count);  // by column, then stably by row
  rd_sortBy(e->i, n, nnz, order, tmp, count);
  long kept = 0;
  for (long a = 0; a < nnz;) {
    long k = order[a];
    int i = e->i[k], j = e->j[k];
    double s = e->x[k];
    for (a++; a < nnz && e->i[order[a]] == i && e->j[order[a]] == j; a++) s += e->x[order[a]];
    if (drop_zeros && s == 0.0) continue;
    fp->W_col[kept] = j;
    fp->W_val[kept++] = s;
    fp->W_rowptr[i + 1]++;
  }
  free(order);
  for (int i = 0; i < n; i++) fp->W_rowptr[i + 1] += fp->W_rowptr[i];
  return TB_OK;
}

// fp's compressed rows expanded into dense W, and dropped
static int rd_expand(tbFileProblem* fp, int n) {
  fp->W = (double*)calloc((size_t)n * n, sizeof(double));
  if (!fp->W) return TB_ERR_MEMORY;
  for (int i = 0; i < n; i++) {
    for (int k = fp->W_rowptr[i]; k < fp->W_rowptr[i + 1]; k++) {
      fp->W[(size_t)i * n + fp->W_col[k]] = fp->W_val[k];
    }
  }
  free(fp->W_rowptr);
  free(fp->W_col);
  free(fp->W_val);
  fp->W_rowptr = fp->W_col = NULL;
  fp->W_val = NULL;
  return TB_OK;
}

int tb_rdDense(const tbRdCtx* c, int n) {
  return !c->keep_sparse && 8.0 * n * (double)n <= TB_READER_DENSE_MAX;
}

int tb_rdSetW(const tbRdCtx* c, const char* nm, rdEntries* e, tbFileProblem* fp) {
  int n = e->n, dense = tb_rdDense(c, n);
  int rc = e->nnz > 2147483647L
               ? tb_setError("%s: %s: %ld entries, more than 2^31 - 1", c->name, nm, e->nnz)
               : TB_OK;
  if (rc == TB_OK && rd_compressRows(e, !dense, fp) != TB_OK)
    rc = tb_setError("%s: %s: out of memory (%ld entries)", c->name, nm, e->nnz);
  tb_rdFreeEntries(e);
  if (rc != TB_OK || !dense) return rc;
  if (rd_expand(fp, n) != TB_OK)
    return tb_setError("%s: %s: out of memory (n = %d)", c->name, nm, n);
  return TB_OK;
}

//---- runs over the compressed rows -------------------------------------------------------------

// runs of consecutive columns in compressed rows (ptr, idx) of n rows: adr (n + 1), run (2 a
// run), off (each run's first entry); the number of runs
static long rd_packedRuns(int n, const int* ptr, const int* idx, int* adr, int* run, int* off) {
  long nr = 0;
  for (int i = 0; i < n; i++) {
    if (adr) adr[i] = (int)nr;
    for (int k = ptr[i]; k < ptr[i + 1]; k++) {
      if (k > ptr[i] && idx[k] == idx[k - 1] + 1) {
        if (run) run[2 * nr - 1] = idx[k] + 1;
        continue;
      }
      if (run) {
        run[2 * nr] = idx[k];
        run[2 * nr + 1] = idx[k] + 1;
        off[nr] = k;
      }
      nr++;
    }
  }
  if (adr) adr[n] = (int)nr;
  return nr;
}

// W's compressed columns (ptr n + 1, idx and val W_rowptr[n]) from its rows
static void rd_transpose(const tbFileProblem* fp, int* ptr, int* idx, double* val) {
  int n = fp->n;
  memset(ptr, 0, sizeof(int) * ((size_t)n + 1));
  for (int k = 0; k < fp->W_rowptr[n]; k++) ptr[fp->W_col[k] + 1]++;
  for (int j = 0; j < n; j++) ptr[j + 1] += ptr[j];
  int* next = (int*)malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!next) return;
  memcpy(next, ptr, sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) {
    for (int k = fp->W_rowptr[i]; k < fp->W_rowptr[i + 1]; k++) {
      int at = next[fp->W_col[k]]++;
      idx[at] = i;
      val[at] = fp->W_val[k];
    }
  }
  free(next);
}

// whether the columns (ptr, idx, val) equal W's rows: W symmetric
static int rd_sameAsRows(const tbFileProblem* fp, const int* ptr, const int* idx,
                         const double* val) {
  size_t n = (size_t)fp->n, nnz = (size_t)fp->W_rowptr[n];
  return !memcmp(ptr, fp->W_rowptr, sizeof(int) * (n + 1)) &&
         !memcmp(idx, fp->W_col, sizeof(int) * nnz) &&
         !memcmp(val, fp->W_val, sizeof(double) * nnz);
}

int tb_rdPackedRuns(tbFileProblem* fp) {
  int n = fp->n, nnz = fp->W_rowptr[n];
  int* cptr = (int*)malloc(sizeof(int) * ((size_t)n + 1 + (size_t)nnz));
  fp->col_val = (double*)malloc(sizeof(double) * (size_t)(nnz ? nnz : 1));
  if (!cptr || !fp->col_val) {
    free(cptr);
    return TB_ERR_MEMORY;
  }
  int* cidx = cptr + n + 1;
  rd_transpose(fp, cptr, cidx, fp->col_val);
  int sym = rd_sameAsRows(fp, cptr, cidx, fp->col_val);
  long nrow = rd_packedRuns(n, fp->W_rowptr, fp->W_col, NULL, NULL, NULL);
  long ncol = sym ? nrow : rd_packedRuns(n, cptr, cidx, NULL, NULL, NULL);
  int* mem = (int*)malloc(sizeof(int) * (size_t)(2 * (n + 1) + 3 * (nrow + ncol)));
  if (!mem) {
    free(cptr);
    return TB_ERR_MEMORY;
  }
  int *row_adr = mem, *col_adr = row_adr + n + 1, *row_run = col_adr + n + 1,
      *row_off = row_run + 2 * nrow, *col_run = row_off + nrow, *col_off = col_run + 2 * ncol;
  rd_packedRuns(n, fp->W_rowptr, fp->W_col, row_adr, row_run, row_off);
  if (sym) {  // the columns' runs and values are the rows'
    free(fp->col_val);
    fp->col_val = NULL;
    memcpy(col_adr, row_adr, sizeof(int) * ((size_t)n + 1));
    memcpy(col_run, row_run, sizeof(int) * 2 * (size_t)nrow);
    memcpy(col_off, row_off, sizeof(int) * (size_t)nrow);
  } else {
    rd_packedRuns(n, cptr, cidx, col_adr, col_run, col_off);
  }
  free(cptr);
  fp->run_mem = mem;
  tbRuns r = {row_adr, row_run, col_adr, col_run, fp->W_val, row_off, sym ? fp->W_val : fp->col_val,
              col_off};
  fp->runs = r;
  return TB_OK;
}
