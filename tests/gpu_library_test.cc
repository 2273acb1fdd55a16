// The phased Newton path (kernels/rollout.cu) hands each iteration's systems to the batched
// library routines, and its chunked and repeated runs are bitwise the same only if those routines
// solve each system alone: the same bits whatever the batch's count and the system's place in it.
// Checked here, on a device, at the sizes the path hands them: cuSOLVER's potrfBatched and
// potrsBatched (RLM, the dogleg) up to 128 unknowns, cuBLAS's gelsBatched (PLM) up to
// TB_LM_LIBRARY_QR_MAX (above it a system solved alone differs from the same system among 256:
// newton_phased.h). Skips without a device.
#include <gtest/gtest.h>

#ifdef TUMBLE_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "gpu/gpu.h"
#include "gpu/newton_phased.h"

namespace {

const int kSet = 256, kLargest = 128;

struct Library {
  cublasHandle_t blas = nullptr;
  cusolverDnHandle_t lapack = nullptr;
  Library() {
    EXPECT_EQ(cublasCreate(&blas), CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(cusolverDnCreate(&lapack), CUSOLVER_STATUS_SUCCESS);
  }
  ~Library() {
    cublasDestroy(blas);
    cusolverDnDestroy(lapack);
  }
};

// kSet systems of n unknowns in the layout of tb_lmSystemOut: least squares (2n x n) or SPD (n x n)
struct Systems {
  int n, rows;
  bool qr;
  std::vector<double> A, b;
  Systems(int size, bool least_squares, unsigned seed) : n(size), qr(least_squares) {
    rows = qr ? 2 * n : n;
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g;
    A.resize((size_t)kSet * rows * n);
    b.resize((size_t)kSet * rows);
    for (int s = 0; s < kSet; s++) {
      double* a = &A[(size_t)s * rows * n];
      std::vector<double> m((size_t)n * n);
      for (double& x : m) x = g(rng);
      for (int c = 0; c < n; c++) {
        for (int r = 0; r < rows; r++) {
          double v = 0.0;
          if (qr) {
            v = r < n ? m[(size_t)c * n + r] : (r - n == c ? 0.5 : 0.0);
          } else {  // M^T M + n I
            for (int k = 0; k < n; k++) v += m[(size_t)r * n + k] * m[(size_t)c * n + k];
            if (r == c) v += n;
          }
          a[(size_t)c * rows + r] = v;
        }
      }
      for (int r = 0; r < rows; r++) b[(size_t)s * rows + r] = r < n ? g(rng) : 0.0;
    }
  }
};

// the solutions of the systems `which` (indices into the set), solved as one batch in that
// order, returned in the set's order (systems not in the batch left empty)
std::vector<std::vector<double>> solve(Library& lib, const Systems& sys,
                                       const std::vector<int>& which) {
  int count = (int)which.size(), n = sys.n, rows = sys.rows;
  size_t words = (size_t)rows * n;
  double *A = nullptr, *b = nullptr, **Aptr = nullptr, **bptr = nullptr;
  int* info = nullptr;
  EXPECT_EQ(cudaMalloc((void**)&A, sizeof(double) * words * count), cudaSuccess);
  EXPECT_EQ(cudaMalloc((void**)&b, sizeof(double) * rows * count), cudaSuccess);
  EXPECT_EQ(cudaMalloc((void**)&Aptr, sizeof(double*) * count), cudaSuccess);
  EXPECT_EQ(cudaMalloc((void**)&bptr, sizeof(double*) * count), cudaSuccess);
  EXPECT_EQ(cudaMalloc((void**)&info, sizeof(int) * (count + 1)), cudaSuccess);
  std::vector<double*> ap(count), bp(count);
  for (int i = 0; i < count; i++) {
    cudaMemcpy(A + words * i, &sys.A[words * which[i]], sizeof(double) * words,
               cudaMemcpyHostToDevice);
    cudaMemcpy(b + (size_t)rows * i, &sys.b[(size_t)rows * which[i]], sizeof(double) * rows,
               cudaMemcpyHostToDevice);
    ap[i] = A + words * i;
    bp[i] = b + (size_t)rows * i;
  }
  cudaMemcpy(Aptr, ap.data(), sizeof(double*) * count, cudaMemcpyHostToDevice);
  cudaMemcpy(bptr, bp.data(), sizeof(double*) * count, cudaMemcpyHostToDevice);
  if (sys.qr) {
    int status = 0;
    EXPECT_EQ(cublasDgelsBatched(lib.blas, CUBLAS_OP_N, rows, n, 1, Aptr, rows, bptr, rows, &status,
                                 info, count),
              CUBLAS_STATUS_SUCCESS);
  } else {
    EXPECT_EQ(cusolverDnDpotrfBatched(lib.lapack, CUBLAS_FILL_MODE_LOWER, n, Aptr, n, info, count),
              CUSOLVER_STATUS_SUCCESS);
    EXPECT_EQ(cusolverDnDpotrsBatched(lib.lapack, CUBLAS_FILL_MODE_LOWER, n, 1, Aptr, n, bptr, n,
                                      info + count, count),
              CUSOLVER_STATUS_SUCCESS);
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<std::vector<double>> x(kSet);
  for (int i = 0; i < count; i++) {
    x[which[i]].resize(n);
    cudaMemcpy(x[which[i]].data(), b + (size_t)rows * i, sizeof(double) * n,
               cudaMemcpyDeviceToHost);
  }
  for (void* p : {(void*)A, (void*)b, (void*)Aptr, (void*)bptr, (void*)info}) cudaFree(p);
  return x;
}

// the first system of `which` whose solution differs in any bit from the reference's, or -1
int firstChanged(const std::vector<std::vector<double>>& ref,
                 const std::vector<std::vector<double>>& x, const std::vector<int>& which) {
  for (int s : which) {
    if (std::memcmp(ref[s].data(), x[s].data(), sizeof(double) * ref[s].size()) != 0) return s;
  }
  return -1;
}

TEST(GpuLibraryTest, BatchedFactorizationsSolveEachSystemAlone) {
  if (tb_gpuDeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  Library lib;
  std::vector<int> all(kSet), reversed(kSet);
  std::iota(all.begin(), all.end(), 0);
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  for (bool qr : {true, false}) {
    std::string changed;
    for (int n = 1; n <= (qr ? TB_LM_LIBRARY_QR_MAX : kLargest); n++) {
      Systems sys(n, qr, 100 + n);
      auto ref = solve(lib, sys, all);
      std::string at;
      if (firstChanged(ref, solve(lib, sys, all), all) >= 0) at += " again";
      if (firstChanged(ref, solve(lib, sys, reversed), all) >= 0) at += " reversed";
      for (int count : {1, 2, 33, 97}) {
        std::vector<int> some(all.begin() + 5, all.begin() + 5 + count);
        if (firstChanged(ref, solve(lib, sys, some), some) >= 0) {
          at += " count-" + std::to_string(count);
        }
      }
      if (!at.empty()) changed += "\n  n " + std::to_string(n) + ":" + at;
    }
    EXPECT_EQ(changed, "") << (qr ? "gelsBatched" : "potrfBatched/potrsBatched")
                           << ": solutions that change with the batch";
  }
}

}  // namespace
#endif
