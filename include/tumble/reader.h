// Reader for external problem files: Siconos numerics text files (.dat: 3D frictional contact
// or LCP) and FCLib HDF5 files (local or global 3D frictional contact), turned into one problem
// with a tbProblem view (W dense, or as its nonzeros where dense it would pass 256 MB); and the
// writer of FC3D text files (a step's problem exported).
//
// Siconos text (what NM_new_from_file / SBM_new_from_file read):
//   FC3D: dimension (3), contacts nc, matrix W, q (3 nc), mu (nc)
//   LCP:  n, matrix M, q (n)
//   matrix: storage type, size0, size1, then
//     0 (dense): "size0 size1" again, then the size0 * size1 values in column-major order
//        (Siconos' own layout: the file's k-th value is entry (k % size0, k / size0); on a
//        symmetric matrix this is the same as reading it row by row)
//     1 (sparse block): nbblocks (0: the zero matrix, nothing follows), block rows, block
//        columns, cumulative row sizes, cumulative column sizes, filled1, filled2, index1
//        (filled1: first block of each block row), index2 (filled2: block column of each
//        block), then for each block its number and its values column-major
//   Anything after the last field (a '0', a remark line) is ignored.
// FCLib HDF5 (fclib.c): /fclib_local (W, vectors/q, vectors/mu, spacedim) or /fclib_global
// (M, H, vectors/f, vectors/w, vectors/mu: M v = H r + f, u = H^T v + w, so the local form
// has W = H^T M^-1 H and q = H^T M^-1 f + w), optional /solution/r. Sparse matrices hold
// m, n, nz, nzmax, p, i, x: nz = -1 compressed columns (p column pointers, i row indices),
// nz = -2 compressed rows (p row pointers, i column indices), nz >= 0 triplets with CSparse's
// convention (i row indices, p column indices); repeated entries are summed.
#ifndef TUMBLE_READER_H_
#define TUMBLE_READER_H_

#include <tumble/problem.h>
#include <tumble/tumble.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { TB_FILE_FC3D = 1, TB_FILE_LCP = 2 };

typedef struct tbFileProblem {
  int kind;      // TB_FILE_FC3D or TB_FILE_LCP
  int n;         // rows (3 * ncontact for FC3D)
  int ncontact;  // FC3D: contacts; LCP: 0
  double* W;     // (n x n) row-major (FC3D: Delassus W; LCP: M), or NULL: W_row.. hold it
  // W's nonzeros in compressed rows (columns increasing) where it is held so (W NULL): a W whose
  // dense form would pass 256 MB (5,792 rows; tumble solve runs pgs, soc-fb-plm and auto on it)
  int* W_rowptr;       // (n + 1), or NULL
  int* W_col;          // (W_rowptr[n])
  double* W_val;       // (W_rowptr[n])
  double* q;           // (n)
  double* mu;          // (ncontact) FC3D only, else NULL
  int has_solution;    // FCLib /solution/r present
  double* r_solution;  // (n) reference impulses, or NULL
  int global;          // 1 when built from /fclib_global
  int nblock;          // blocks of the tbProblem view: ncontact (FC3D) or n (LCP)
  double* lo;          // (n) view: box lower bounds (0)
  double* hi;          // (n) view: box upper bounds (inf)
  int* blk_type;       // (nblock) TB_BLOCK_CONTACT (FC3D) or TB_BLOCK_BOX (LCP)
  int* blk_adr;        // (nblock)
  int* blk_dim;        // (nblock) 3 or 1
  double* blk_mu;      // (nblock) mu (FC3D) or 0
  double* blk_angle;   // (nblock) 0
  int* run_mem;        // W's nonzero runs (tbRuns) where W is sparse enough to gain, or NULL
  double* col_val;     // W's values in compressed columns where W_val holds it and is not
                       // symmetric (the runs' col_val), or NULL
  tbRuns runs;         // views into run_mem, W_val and col_val
} tbFileProblem;

// Read a Siconos numerics text file (FC3D or LCP, told apart by the header: an LCP starts
// n, storage type 0 or 1, n; any other header starting with 3 is FC3D's 3, nc, storage type,
// 3 nc) or an FCLib HDF5 file (recognized by the HDF5 signature; read in a forked child process,
// since some corrupt files crash libhdf5 itself: such a file is an error here, not the caller's
// crash). Returns TB_OK, or TB_ERR_ARG with tb_lastError() one line naming the file, the field
// and the position (e.g. "Capsules.dat: W block 12 value 3 (line 40): not a number 'x'"); on
// error *out is left empty (all pointers NULL). W is held dense up to 256 MB, beyond that as its
// nonzeros (W NULL, W_rowptr ..): the view's runs then hold its values.
int tb_readProblem(const char* path, tbFileProblem* out);
void tb_freeFileProblem(tbFileProblem* fp);

// a tbProblem view of fp (pointers into fp): cone exact, every FC3D contact a 3-row contact
// block with its mu, every LCP row a unilateral box row [0, inf)
tbProblem tb_fileProblemView(const tbFileProblem* fp);

// Write p as a Siconos FC3D text file (dense W, every value to 17 digits: tb_readProblem reads
// back the same doubles). p must be exact-cone contacts of 3 rows each, in order; otherwise
// TB_ERR_ARG naming the block (a step with joint rows, planar or frictionless contacts has no
// FC3D form), as for a file that cannot be written.
int tb_writeFC3D(const char* path, const tbProblem* p);

// step every scene of d on the host, one after the other, nstep steps, and write the problem of
// each recorded step that has contacts (the last, and every `every`-th: tbRecord's steps) as a
// Siconos FC3D text file "<stem>-s<scene>-k<step>.dat" for `tumble solve` and other solvers to
// read; the batch ends where tb_rollout would leave it. TB_OK with *written files, or an error
// (TB_ERR_ARG naming what has no FC3D form, as tb_writeFC3D)
int tb_exportProblems(const tbModel* m, tbData* d, int nstep, int every, const char* stem,
                      int* written);

// tb_solve for a problem file's view (tumble solve, bench_solvers), with sparse directions
// where they pay (SuiteSparse's KLU): soc-fb-plm on a problem whose W has
// runs (p->runs) and at least 64 rows takes J on the runs' pattern and its LU from KLU; auto on
// such a problem above 300 rows (where its own Newton, dense, is skipped) runs that first, at
// most 200 iterations, then its own stages from the same start, and keeps the better answer.
// Elsewhere tb_solve itself. Where only p's runs hold W (p->A NULL: a file too large for W
// dense) pgs runs over them, soc-fb-plm with the sparse directions, auto as above with pgs for
// its own stages, and the other solvers are TB_ERR_ARG naming the memory W dense would take; w
// is then pgs's scratch.
int tb_solveFile(int solver, const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                 tbSolveResult* res);
// 1 where tb_solveFile takes the sparse directions for this solver on p
int tb_sparseNewton(int solver, const tbProblem* p);
// 1 where tb_solveFile runs this solver on p (every solver where p->A holds W)
int tb_fileSolverRuns(int solver, const tbProblem* p);
// test hook: soc-fb-plm's sparse J at y, written dense into J (n x n), NaN outside the pattern;
// 0, or -1 out of memory
int tb_sparseTestJacobian(const tbProblem* p, const double* y, double* J);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_READER_H_
