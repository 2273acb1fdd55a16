// FCLib HDF5 files apart: they need libhdf5 and CHOLMOD, and a child process to survive libhdf5
#include <errno.h>
#include <math.h>
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
#include "io/reader_internal.h"

// largest mass matrix of a global problem (held sparse)
#define TB_READER_MAXDOF (1 << 24)

//---- FCLib HDF5 --------------------------------------------------------------------------------

// a numeric dataset of rank <= 1 read as int (is_int) or double; *data malloc'd
static int h5_read(const tbRdCtx* c, hid_t file, const char* path, int is_int, void** data,
                   long* count) {
  *data = NULL;
  *count = 0;
  if (H5Lexists(file, path, H5P_DEFAULT) <= 0) return tb_rdFail(c, path, 0, "missing dataset");
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) return tb_rdFail(c, path, 0, "missing dataset (not a dataset)");
  int rc = TB_OK;
  hid_t sp = H5Dget_space(d), ty = H5Dget_type(d);
  H5T_class_t cls = ty >= 0 ? H5Tget_class(ty) : H5T_NO_CLASS;
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  size_t width = ty >= 0 ? H5Tget_size(ty) : 0;
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
    rc = tb_rdFail(c, path, 0, "not a numeric dataset");
  } else if (width == 0 || width > 16) {
    // HDF5 converts through a buffer of np x width bytes: a crafted width asked it for terabytes
    rc = tb_rdFail(c, path, 0, "numbers of %zu bytes: not an integer or float type", width);
  } else if (rank < 0 || rank > 1 || np < 0) {
    rc = tb_rdFail(c, path, 0, "rank %d: must be a vector", rank);
  } else if (np > (hssize_t)1 << 28) {
    rc = tb_rdFail(c, path, 0, "%lld entries: too many", (long long)np);
  } else {
    size_t es = is_int ? sizeof(int) : sizeof(double);
    *data = malloc(es * (size_t)(np > 0 ? np : 1));
    if (!*data) {
      rc = tb_setError("%s: %s: out of memory", c->name, path);
    } else if (np > 0 && H5Dread(d, is_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                                 H5P_DEFAULT, *data) < 0) {
      rc = tb_rdFail(c, path, 0, "read failed");
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
  if (cnt != 1) rc = tb_rdFail(c, path, 0, "%ld entries: must be one integer", cnt);
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
  if (cnt != n) rc = tb_rdFail(c, path, 0, "%ld entries: must be %ld", cnt, n);
  for (long k = 0; k < cnt && rc == TB_OK; k++) {
    snprintf(f, sizeof f, "%s[%ld]", path, k);
    if (!isfinite(x[k]))
      rc = tb_rdFail(c, f, 0, "not finite (%g)", x[k]);
    else if (nonneg && x[k] < 0.0)
      rc = tb_rdFail(c, f, 0, "%g: must be >= 0", x[k]);
  }
  if (rc != TB_OK) {
    free(p);
    return rc;
  }
  *out = x;
  return TB_OK;
}

// the entries of the FCLib sparse matrix in group `g` (triplet, compressed columns or rows), at
// most maxm rows and maxn columns, each checked (duplicates stay: their sum is the entry)
static int h5_entries(const tbRdCtx* c, hid_t file, const char* g, int maxm, int maxn,
                      rdEntries* e) {
  char path[160], f[192];
  int m, n, nz, rc;
  memset(e, 0, sizeof(*e));
  snprintf(path, sizeof path, "%s/m", g);
  if ((rc = h5_int(c, file, path, &m)) != TB_OK) return rc;
  if (m < 1 || m > maxm) return tb_rdFail(c, path, 0, "%d rows: must be in [1, %d]", m, maxm);
  snprintf(path, sizeof path, "%s/n", g);
  if ((rc = h5_int(c, file, path, &n)) != TB_OK) return rc;
  if (n < 1 || n > maxn) return tb_rdFail(c, path, 0, "%d columns: must be in [1, %d]", n, maxn);
  snprintf(path, sizeof path, "%s/nz", g);
  if ((rc = h5_int(c, file, path, &nz)) != TB_OK) return rc;
  if (nz < -2)
    return tb_rdFail(c, path, 0,
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
    e->cap = (long)cap;
    if (!e->i || !e->j || !e->x) rc = tb_setError("%s: %s: out of memory", c->name, g);
  }
  if (rc == TB_OK && nz >= 0) {  // triplet, CSparse's convention: i rows, p columns
    if (np < nz || ni < nz || nx < nz) {
      snprintf(path, sizeof path, "%s", g);
      rc = tb_rdFail(c, path, 0, "triplet with nz = %d but p, i, x hold %ld, %ld, %ld entries", nz,
                     np, ni, nx);
    }
    for (long k = 0; k < nz && rc == TB_OK; k++) {
      if (I[k] < 0 || I[k] >= m) {
        snprintf(f, sizeof f, "%s/i[%ld]", g, k);
        rc = tb_rdFail(c, f, 0, "row index %d outside [0, %d)", I[k], m);
      } else if (P[k] < 0 || P[k] >= n) {
        snprintf(f, sizeof f, "%s/p[%ld]", g, k);
        rc = tb_rdFail(c, f, 0, "column index %d outside [0, %d)", P[k], n);
      } else if (!isfinite(X[k])) {
        snprintf(f, sizeof f, "%s/x[%ld]", g, k);
        rc = tb_rdFail(c, f, 0, "not finite (%g)", X[k]);
      } else {
        e->i[e->nnz] = I[k];
        e->j[e->nnz] = P[k];
        e->x[e->nnz++] = X[k] + 0.0;  // an entry is a sum from 0 (CSparse's): a -0 is 0
      }
    }
  } else if (rc == TB_OK) {  // compressed columns (-1) or rows (-2)
    int csr = nz == -2, outer = csr ? m : n, inner = csr ? n : m;
    if (np < outer + 1) {
      snprintf(path, sizeof path, "%s/p", g);
      rc =
          tb_rdFail(c, path, 0, "%ld entries: must be %s + 1 = %d", np, csr ? "m" : "n", outer + 1);
    }
    for (int o = 0; o < outer && rc == TB_OK; o++) {
      if (P[o] < 0 || P[o + 1] < P[o] || P[o + 1] > ni || P[o + 1] > nx) {
        snprintf(f, sizeof f, "%s/p[%d]", g, o + 1);
        rc = tb_rdFail(c, f, 0, "pointers %d, %d: must be nondecreasing within [0, %ld]", P[o],
                       P[o + 1], ni < nx ? ni : nx);
        break;
      }
      for (int k = P[o]; k < P[o + 1]; k++) {
        if (I[k] < 0 || I[k] >= inner) {
          snprintf(f, sizeof f, "%s/i[%d]", g, k);
          rc = tb_rdFail(c, f, 0, "%s index %d outside [0, %d)", csr ? "column" : "row", I[k],
                         inner);
          break;
        }
        if (!isfinite(X[k])) {
          snprintf(f, sizeof f, "%s/x[%d]", g, k);
          rc = tb_rdFail(c, f, 0, "not finite (%g)", X[k]);
          break;
        }
        e->i[e->nnz] = csr ? o : I[k];
        e->j[e->nnz] = csr ? I[k] : o;
        e->x[e->nnz++] = X[k] + 0.0;
      }
    }
  }
  free(pv);
  free(iv);
  free(xv);
  e->m = m;
  e->n = n;
  if (rc != TB_OK) tb_rdFreeEntries(e);
  return rc;
}

static int h5_spacedim(const tbRdCtx* c, hid_t file, const char* g) {
  char path[96];
  int d, rc;
  snprintf(path, sizeof path, "%s/spacedim", g);
  if ((rc = h5_int(c, file, path, &d)) != TB_OK) return rc;
  if (d != 3) return tb_rdFail(c, path, 0, "%d: only 3D frictional contact (3) is supported", d);
  return TB_OK;
}

static int h5_local(const tbRdCtx* c, hid_t file, tbFileProblem* fp) {
  int rc, m, n;
  if ((rc = h5_spacedim(c, file, "/fclib_local")) != TB_OK) return rc;
  if (H5Lexists(file, "/fclib_local/R", H5P_DEFAULT) > 0 ||
      H5Lexists(file, "/fclib_local/V", H5P_DEFAULT) > 0)
    return tb_rdFail(c, "/fclib_local/R", 0, "mixed problems (V, R, s) are not supported");
  rdEntries e;
  if ((rc = h5_entries(c, file, "/fclib_local/W", TB_READER_MAXN, TB_READER_MAXN, &e)) != TB_OK)
    return rc;
  m = e.m;
  n = e.n;
  if (m != n || m % 3 != 0) {
    tb_rdFreeEntries(&e);
    return tb_rdFail(c, "/fclib_local/W", 0, "%d x %d: must be square with 3 rows per contact", m,
                     n);
  }
  if ((rc = tb_rdSetW(c, "/fclib_local/W", &e, fp)) != TB_OK) return rc;
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
        rc = tb_rdFail(c, fl, 0, "M is not symmetric (M(i, j) - M(j, i) = %g)", Dx[k]);
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

// fp's W from its lower half in W (compressed columns), mirrored: exactly symmetric
static int rd_mirrored(const tbRdCtx* c, const cholmod_sparse* W, tbFileProblem* fp) {
  const int *Wp = (const int*)W->p, *Wi = (const int*)W->i;
  const double* Wx = (const double*)W->x;
  rdEntries e;
  memset(&e, 0, sizeof e);
  e.m = e.n = (int)W->ncol;
  for (int j = 0; j < e.n; j++) {
    for (int k = Wp[j]; k < Wp[j + 1]; k++) {
      if (Wi[k] < j) continue;
      if (tb_rdAddEntry(&e, Wi[k], j, Wx[k]) != TB_OK ||
          (Wi[k] != j && tb_rdAddEntry(&e, j, Wi[k], Wx[k]) != TB_OK)) {
        tb_rdFreeEntries(&e);
        return tb_setError("%s: /fclib_global: out of memory", c->name);
      }
    }
  }
  return tb_rdSetW(c, "/fclib_global W", &e, fp);
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
    rc = tb_rdFail(c, fl, 0, "M is not positive definite (its Cholesky factorization fails here)");
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
    fp->q = (double*)malloc(sizeof(double) * (size_t)n);
    if (!W || !qd || !zf || !fp->q || cm->status < CHOLMOD_OK)
      rc = tb_setError("%s: /fclib_global: out of memory", c->name);
  }
  if (rc == TB_OK) rc = rd_mirrored(c, W, fp);
  if (rc == TB_OK) {
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
    return tb_rdFail(c, "/fclib_global/G", 0, "equality constraints (G, b) are not supported");
  rdEntries Me, He;
  memset(&He, 0, sizeof(He));
  double *f = NULL, *w = NULL;
  rc = h5_entries(c, file, "/fclib_global/M", TB_READER_MAXDOF, TB_READER_MAXDOF, &Me);
  if (rc == TB_OK && Me.m != Me.n)
    rc = tb_rdFail(c, "/fclib_global/M", 0, "%d x %d: must be square", Me.m, Me.n);
  if (rc == TB_OK)
    rc = h5_entries(c, file, "/fclib_global/H", TB_READER_MAXDOF, TB_READER_MAXN, &He);
  if (rc == TB_OK && (He.m != Me.m || He.n % 3 != 0))
    rc = tb_rdFail(c, "/fclib_global/H", 0,
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
  tb_rdFreeEntries(&Me);
  tb_rdFreeEntries(&He);
  free(f);
  free(w);
  return rc;
}

int tb_rdHdf5(const tbRdCtx* c, const char* path, tbFileProblem* fp) {
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
    rc = tb_rdFail(c, "file", 0, "cannot open as HDF5");
  } else {
    fp->kind = TB_FILE_FC3D;
    if (H5Lexists(file, "/fclib_local", H5P_DEFAULT) > 0)
      rc = h5_local(c, file, fp);
    else if (H5Lexists(file, "/fclib_global", H5P_DEFAULT) > 0)
      rc = h5_global(c, file, fp);
    else
      rc = tb_rdFail(c, "/", 0, "missing group /fclib_local or /fclib_global");
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
  int nnz;     // -1: W follows dense; else its compressed rows with nnz entries
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

// fp's W, dense (nnz -1) or its compressed rows
static int h5_sendW(int fd, const tbFileProblem* fp, int nnz) {
  size_t n = (size_t)fp->n;
  if (nnz < 0) return h5_send(fd, fp->W, sizeof(double) * n * n);
  return h5_send(fd, fp->W_rowptr, sizeof(int) * (n + 1)) &&
         h5_send(fd, fp->W_col, sizeof(int) * (size_t)nnz) &&
         h5_send(fd, fp->W_val, sizeof(double) * (size_t)nnz);
}

// the child: read, answer, and leave without the parent's exit handlers or stdio buffers
static void h5_child(const tbRdCtx* c, const char* path, int fd) {
  tbFileProblem fp;
  memset(&fp, 0, sizeof fp);
  h5Answer a;
  memset(&a, 0, sizeof a);
  a.rc = tb_rdHdf5(c, path, &fp);
  const char* msg = a.rc == TB_OK ? "" : tb_lastError();
  a.msglen = (int)strlen(msg);
  a.kind = fp.kind;
  a.n = fp.n;
  a.ncontact = fp.ncontact;
  a.has_solution = fp.has_solution;
  a.global = fp.global;
  a.nnz = fp.W || a.rc != TB_OK ? -1 : fp.W_rowptr[fp.n];
  size_t n = (size_t)fp.n;
  int ok = h5_send(fd, &a, sizeof a) && h5_send(fd, msg, (size_t)a.msglen);
  if (ok && a.rc == TB_OK)
    ok = h5_sendW(fd, &fp, a.nnz) && h5_send(fd, fp.q, sizeof(double) * n) &&
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

// count ints from fd into *v (malloc'd)
static int h5_receiveInts(int fd, size_t count, int** v) {
  *v = (int*)malloc(sizeof(int) * (count > 0 ? count : 1));
  if (!*v) return H5_NOMEM;
  return h5_receive(fd, *v, sizeof(int) * count) ? H5_WHOLE : H5_CUT;
}

// W from the child (h5_sendW) into fp, its compressed rows checked
static int h5_receiveW(int fd, int nnz, tbFileProblem* fp) {
  size_t n = (size_t)fp->n;
  if (nnz < 0) return h5_receiveDoubles(fd, n * n, &fp->W);
  int got = h5_receiveInts(fd, n + 1, &fp->W_rowptr);
  if (got == H5_WHOLE) got = h5_receiveInts(fd, (size_t)nnz, &fp->W_col);
  if (got == H5_WHOLE) got = h5_receiveDoubles(fd, (size_t)nnz, &fp->W_val);
  if (got != H5_WHOLE) return got;
  if (fp->W_rowptr[0] != 0 || fp->W_rowptr[n] != nnz) return H5_MALFORMED;
  for (size_t i = 0; i < n; i++) {
    if (fp->W_rowptr[i + 1] < fp->W_rowptr[i]) return H5_MALFORMED;
  }
  for (int k = 0; k < nnz; k++) {
    if (fp->W_col[k] < 0 || fp->W_col[k] >= fp->n) return H5_MALFORMED;
  }
  return H5_WHOLE;
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
  if (a.nnz < -1) return H5_MALFORMED;
  int got = h5_receiveW(fd, a.nnz, fp);
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
      return tb_rdFail(c, "file", 0, "the HDF5 reader was stopped (signal %d)", sig);
    return tb_rdFail(c, "file", 0, "HDF5 crashed reading it (signal %d): a corrupt file", sig);
  }
  return tb_rdFail(c, "file", 0, "HDF5 stopped reading it (exit %d): a corrupt file",
                   WEXITSTATUS(status));
}

// tb_rdHdf5 in a forked child. Not alongside other HDF5 use in the process: the child would inherit
// the (serial) library mid-call.
int tb_rdHdf5Isolated(const tbRdCtx* c, const char* path, tbFileProblem* fp) {
  int fds[2];
  if (pipe(fds) != 0) return tb_rdFail(c, "file", 0, "no pipe to a reader: %s", strerror(errno));
  // another thread's fork must not hold the write end open past this child's end
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return tb_rdFail(c, "file", 0, "no process to read it: %s", strerror(errno));
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
  if (got == H5_NOMEM) return tb_rdFail(c, "file", 0, "out of memory for its problem");
  if (got == H5_MALFORMED) return tb_rdFail(c, "file", 0, "the HDF5 reader's answer is malformed");
  if (w < 0) return tb_rdFail(c, "file", 0, "the HDF5 reader was lost: %s", strerror(errno));
  if (got == H5_WHOLE && WIFEXITED(status) && WEXITSTATUS(status) == 0) return rc;
  return h5_childEnd(c, status);
}
