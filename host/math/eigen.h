// The symmetric eigenproblem, for CMA-ES's covariance and MJCF's principal inertia axes.
#ifndef TUMBLE_HOST_EIGEN_H_
#define TUMBLE_HOST_EIGEN_H_

#ifdef __cplusplus
extern "C" {
#endif

// eigendecomposition of the symmetric n x n matrix a (row-major, overwritten):
// a = V diag(w) V^T with the eigenvectors in the columns of v (n x n, row-major), eigenvalues
// unordered; cyclic Jacobi (what tb_cmaes uses), meant for n <= ~32
void tb_symEigen(int n, double* a, double* w, double* v);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_EIGEN_H_
