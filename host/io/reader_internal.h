// What the problem readers' files share: the file's name for messages, a limit, each format's entry
#ifndef TUMBLE_HOST_READER_INTERNAL_H_
#define TUMBLE_HOST_READER_INTERNAL_H_

#include <stddef.h>

#include <tumble/reader.h>

// largest n read: W beyond TB_READER_DENSE_MAX is held as its nonzeros, so n is bounded by the
// file's own size and the solvers' O(n) vectors
#define TB_READER_MAXN (1 << 21)
// W dense up to this many bytes (5,792 rows), where every solver reads it; beyond, its nonzeros
// alone: a 54 KB sparse-block file of 16,383 rows asked 2.1 GB dense, and auto's dense
// scratch twice that again
#define TB_READER_DENSE_MAX ((double)(256 << 20))

typedef struct tbRdCtx {
  const char* name;  // the file's base name, for messages
  int keep_sparse;   // 1: W as its nonzeros whatever its size (tb_readProblemSparse)
} tbRdCtx;

// a matrix's entries in the order read (repeated ones summed in that order)
typedef struct rdEntries {
  int m, n;
  long nnz, cap;
  int *i, *j;  // rows, columns
  double* x;
} rdEntries;

// 1 where W of n rows is held dense (reader_sparse.c): its readers then keep its zeros
int tb_rdDense(const tbRdCtx* c, int n);
// e gets (i, j, x), grown as needed: TB_OK, or TB_ERR_MEMORY
int tb_rdAddEntry(rdEntries* e, int i, int j, double x);
void tb_rdFreeEntries(rdEntries* e);
// fp's W (e->n x e->n) from e, which is freed: dense where it fits TB_READER_DENSE_MAX, else
// its nonzeros in compressed rows (fp->W_rowptr ..); TB_OK, or an error naming matrix nm
int tb_rdSetW(const tbRdCtx* c, const char* nm, rdEntries* e, tbFileProblem* fp);
// the runs of fp's compressed rows, its values packed in them (tbRuns row_val ..): TB_OK, or
// TB_ERR_MEMORY (reader_sparse.c)
int tb_rdPackedRuns(tbFileProblem* fp);

// "<file>: <field>[ (line L)]: <what>"; returns TB_ERR_ARG
int tb_rdFail(const tbRdCtx* c, const char* field, int line, const char* fmt, ...);
// a Siconos text file (LCP or FC3D), s its len bytes NUL-ended, into fp (reader_text.c)
int tb_rdText(const tbRdCtx* c, const char* s, size_t len, tbFileProblem* fp);
// an FCLib HDF5 file (local or global problem) into fp, read in this process (reader_hdf5.c)
int tb_rdHdf5(const tbRdCtx* c, const char* path, tbFileProblem* fp);
// tb_rdHdf5 in a forked child: libhdf5 crashing on a corrupt file is then the file's error
int tb_rdHdf5Isolated(const tbRdCtx* c, const char* path, tbFileProblem* fp);

#endif  // TUMBLE_HOST_READER_INTERNAL_H_
