// The GPU launcher of the step: the model in one device buffer, the batch's arrays and a scratch
// slot per scene in device memory, and the fused rollout kernels, in which one thread (or, for
// large scenes, one warp) runs a scene's whole rollout through tb_rolloutScene: the function the
// CPU path runs on each of its threads (host/engine/stage_step.h). Only launch configuration,
// memory and transfers live here.
//
// Scenes are independent, so a batch runs in chunks of scenes whose results are bitwise those of
// one launch over all of them: chunks that fit device memory and a bounded pinned staging
// buffer, two of them on two streams so that one's transfers overlap the other's kernel.
//
// Models whose LM solver's dense systems are large step through the phases of
// host/gpu/newton_phased.h instead: a launch per phase over the chunk, and each Newton iteration's
// systems of each size factored together by cuSOLVER's potrfBatched/potrsBatched (RLM, dogleg) or
// cuBLAS's gelsBatched (PLM), the library calls and the phases' loop here.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_settings.h"
#include "gpu/newton_phased.h"

// report a CUDA error with file, line and message in tb_lastError, set rc (TB_ERR_MEMORY for an
// allocation, TB_ERR_STATE otherwise) and jump to label
#define TB_CUDA_CHECK(expr, rc, label)                                                    \
  do {                                                                                    \
    cudaError_t tb_e_ = (expr);                                                           \
    if (tb_e_ != cudaSuccess) {                                                           \
      tb_setError("CUDA error %s:%d: %s", __FILE__, __LINE__, cudaGetErrorString(tb_e_)); \
      rc = tb_e_ == cudaErrorMemoryAllocation ? TB_ERR_MEMORY : TB_ERR_STATE;             \
      goto label;                                                                         \
    }                                                                                     \
  } while (0)

// report a cuBLAS or cuSOLVER status other than success (0 in both) with file and line, set rc
// (TB_ERR_MEMORY for an allocation, 3 in both) and jump to label
#define TB_LIB_CHECK(expr, rc, label)                                             \
  do {                                                                            \
    int tb_s_ = (int)(expr);                                                      \
    if (tb_s_ != 0) {                                                             \
      tb_setError("%s error %s:%d: status %d", #expr, __FILE__, __LINE__, tb_s_); \
      rc = tb_s_ == 3 ? TB_ERR_MEMORY : TB_ERR_STATE;                             \
      goto label;                                                                 \
    }                                                                             \
  } while (0)

// threads per block: scenes are independent, so the block only sets the occupancy granularity;
// a warp's threads share the large scenes
enum { TB_GPU_BLOCK = 128, TB_GPU_WARP = 32 };

// device copies are laid out at this alignment inside their buffer
static size_t tb_align(size_t bytes) {
  return (bytes + 255) & ~(size_t)255;
}

// the kernels are built for sm_90 (machine code and PTX): devices of compute capability 9.0 and
// later run them, earlier ones have no image for them
enum { TB_GPU_MIN_MAJOR = 9 };

// device i runs the kernels
static int tb_gpuUsable(int i) {
  cudaDeviceProp prop;
  return cudaGetDeviceProperties(&prop, i) == cudaSuccess && prop.major >= TB_GPU_MIN_MAJOR;
}

// CUDA devices seen (0 without a driver: not an error of a later call)
static int tb_gpuSeen(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) == cudaSuccess) return n;
  (void)cudaGetLastError();
  return 0;
}

// the device of the k-th of the devices that run the kernels (k modulo their count), or -1
static int tb_gpuDevice(void) {
  int usable = 0, n = tb_gpuSeen();
  for (int i = 0; i < n; i++) usable += tb_gpuUsable(i);
  if (usable == 0) return -1;
  for (int i = 0, k = tb_gpuPicked() % usable; i < n; i++) {
    if (tb_gpuUsable(i) && k-- == 0) return i;
  }
  return -1;
}

extern "C" int tb_gpuDeviceCount(void) {
  int usable = 0;
  for (int i = 0, n = tb_gpuSeen(); i < n; i++) usable += tb_gpuUsable(i);
  return usable;
}

extern "C" void tb_gpuDeviceName(char* buf, int len) {
  cudaDeviceProp prop;
  int dev = tb_gpuDevice();
  if (dev < 0 || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    snprintf(buf, (size_t)len, "none");
    return;
  }
  snprintf(buf, (size_t)len, "%s", prop.name);
}

//---- the model: one buffer, uploaded once per rollout --------------------------------------------

// dm: a copy of m whose arrays point into *buf on the device
static int tb_uploadModel(const tbModel* m, tbModel* dm, char** buf) {
  size_t total = 0;
#define TB_X(type, name, count) total += tb_align(sizeof(type) * (size_t)(count));
  TB_MODEL_ARRAYS(TB_X)
#undef TB_X
  int rc = TB_OK;
  char* host = (char*)malloc(total + 1);
  if (!host) return tb_setError("gpu: out of host memory for the model (%zu bytes)", total);
  *dm = *m;
  dm->bdef = NULL;
  dm->gdef = NULL;
  dm->jdef = NULL;
  dm->ddef = NULL;
  dm->sdef = NULL;
  dm->schdef = NULL;
  TB_CUDA_CHECK(cudaMalloc((void**)buf, total + 1), rc, done);
  {
    size_t off = 0;
#define TB_X(type, name, count)                                \
  memcpy(host + off, m->name, sizeof(type) * (size_t)(count)); \
  dm->name = (type*)(*buf + off);                              \
  off += tb_align(sizeof(type) * (size_t)(count));
    TB_MODEL_ARRAYS(TB_X)
#undef TB_X
  }
  TB_CUDA_CHECK(cudaMemcpy(*buf, host, total, cudaMemcpyHostToDevice), rc, done);
done:
  free(host);
  return rc;
}

//---- the probe: its inputs in one buffer, its outputs per chunk --------------------------------

// a probe's inputs: (pointer field, the probe kind that reads it, bytes)
#define TB_PROBE_INPUTS(X)                                                 \
  X(step, TB_PROBE_OBS, sizeof(int) * (size_t)p->nrow)                     \
  X(coord, TB_PROBE_OBS, sizeof(tbObsCoord) * (size_t)p->ncol)             \
  X(want, TB_PROBE_COST, sizeof(double) * 2 * (size_t)p->nstart * p->nwin) \
  X(point, TB_PROBE_COST, sizeof(double) * 4 * (size_t)p->npoint)

// dp: a copy of p whose inputs point into *buf on the device
static int tb_uploadProbe(const tbProbe* p, tbProbe* dp, char** buf) {
  *dp = *p;
  dp->obs = NULL;  // the chunk's output array replaces the one of the probe's kind
  dp->field = NULL;
  dp->cost = NULL;
  size_t total = 0;
#define TB_X(field, reader, size) total += tb_align(p->kind == reader ? (size) : 0);
  TB_PROBE_INPUTS(TB_X)
#undef TB_X
  int rc = TB_OK;
  TB_CUDA_CHECK(cudaMalloc((void**)buf, total + 1), rc, done);
  {
    size_t off = 0;
#define TB_X(field, reader, size)                                                               \
  {                                                                                             \
    size_t bytes = p->kind == reader ? (size) : 0;                                              \
    if (bytes > 0) {                                                                            \
      TB_CUDA_CHECK(cudaMemcpy(*buf + off, p->field, bytes, cudaMemcpyHostToDevice), rc, done); \
    }                                                                                           \
    dp->field = (decltype(dp->field))(*buf + off);                                              \
    off += tb_align(bytes);                                                                     \
  }
    TB_PROBE_INPUTS(TB_X)
#undef TB_X
  }
done:
  return rc;
}

//---- a chunk of scenes: batch arrays, probe output, records, scratch ----------------------------
//
// One device buffer per chunk, laid out [data | probe output | records | scratch slots], and a
// pinned host copy of its first part: the chunk goes up as one copy of [data | probe output] and
// comes back as one of [data | probe output | records]. Two chunks on two streams alternate, so
// that one chunk's transfers and the host's staging overlap the other's kernel.

// a phased chunk's arrays on the device (newton_phased.h): each scene's state between launches,
// its system (column-major, room for tb_lmSystemWords(cap) doubles) and right-hand side, the
// library's pointer arrays (an iteration's systems grouped by size) and statuses
typedef struct tbPhasedArrays {
  tbPhased* ph;
  double *A, *B;
  double **Aptr, **Bptr;  // per place: the systems of 1 unknown, then of 2, ...
  int* info;              // per place: the factorization's status
  int* place;             // per scene: its system's place this iteration
  int* sizes;             // an iteration's: [0] its largest system, [1] the library's own
                          // status, [2 + n] how many systems of n unknowns go to the library
  int* next;              // per size: the next free place
  int cap;                // unknowns of the largest system a step can give (0: not phased)
  int kind;               // TB_LM_SYS_CHOL or TB_LM_SYS_QR
} tbPhasedArrays;

typedef struct tbGpuChunk {
  tbData d;          // nscene scenes, arrays on the device
  tbScratch sc;      // one slot per scene on the device (none when scratch is in local memory)
  tbRecord rec;      // state and time of the chunk's scenes on the device (rec.step unused)
  tbPhasedArrays a;  // the phased path's arrays (a.cap 0: none)
  char* out;         // the probe's output of the chunk's scenes
  char* buf;         // device: every array above
  char* host;        // pinned: the first `down` bytes of buf's layout
  size_t up, down;   // bytes sent (data, probe output) and brought back (and the records)
  cudaStream_t stream;
  int s;  // the batch's scene at the chunk's scene 0, -1 while it holds none
} tbGpuChunk;

// base + off, or NULL while only measuring (no arithmetic on a null pointer)
static char* tb_at(char* base, size_t off) {
  return base ? base + off : NULL;
}

// lay the arrays of a chunk of n scenes out from base (NULL: only measure), with the phased
// path's for systems of up to cap unknowns (0: none); returns the bytes
static size_t tb_chunkLayout(const tbModel* m, const tbData* d, const tbRecord* rec,
                             const tbProbe* probe, int n, int local, int cap, char* base,
                             tbGpuChunk* c) {
  c->d.nscene = n;
  c->d.nbody = d->nbody;
  c->d.nparam = d->nparam;
  c->d.maxrow = d->maxrow;
  c->d.nq = d->nq;
  c->d.nqd = d->nqd;
  c->d.scene_fast = 1;  // thread s reads word s of each row: the warp's reads coalesce
  c->sc.nslot = local ? 0 : n;
  tb_solverScratchSize(m, &c->sc.nsolver_d, &c->sc.nsolver_i);
  const tbScratch* sc = &c->sc;
  size_t off = 0, nslot = (size_t)c->sc.nslot, nrec = rec ? (size_t)n * rec->nrecord : 0;
#define TB_X(type, name, count)        \
  c->d.name = (type*)tb_at(base, off); \
  off += tb_align(sizeof(type) * (size_t)n * (size_t)(count));
  TB_DATA_ARRAYS(TB_X)
#undef TB_X
  c->out = tb_at(base, off);
  off += tb_align(tb_probeSceneBytes(probe) * (size_t)n);
  c->up = off;
  if (rec) {
    c->rec.every = rec->every;
    c->rec.nrecord = rec->nrecord;
  }
  c->rec.state = (double*)tb_at(base, off);
  off += tb_align(sizeof(double) * nrec * 13 * (size_t)m->nbody);
  c->rec.time = (double*)tb_at(base, off);
  off += tb_align(sizeof(double) * nrec);
  c->down = off;
#define TB_X(type, name, count)                        \
  c->sc.name = nslot ? (type*)tb_at(base, off) : NULL; \
  off += tb_align(nslot * tb_slotBytes(sizeof(type) * (size_t)(count)));
  TB_WORK_ARRAYS(TB_X)
#undef TB_X
  tbPhasedArrays* a = &c->a;
  size_t per = cap ? (size_t)n : 0;
  a->cap = cap;
  a->kind = tb_lmLibrarySystem(m->opt.solver);
#define TB_PHASED_ARRAY(field, type, count) \
  a->field = (type*)tb_at(base, off);       \
  off += tb_align(sizeof(type) * per * (count));
  TB_PHASED_ARRAY(ph, tbPhased, 1)
  TB_PHASED_ARRAY(A, double, tb_lmSystemWords(cap))
  TB_PHASED_ARRAY(B, double, tb_lmRhsWords(cap))
  TB_PHASED_ARRAY(Aptr, double*, 1)
  TB_PHASED_ARRAY(Bptr, double*, 1)
  TB_PHASED_ARRAY(info, int, 1)
  TB_PHASED_ARRAY(place, int, 1)
#undef TB_PHASED_ARRAY
  a->sizes = (int*)tb_at(base, off);
  off += tb_align(sizeof(int) * (size_t)(cap + 3));
  a->next = (int*)tb_at(base, off);
  off += tb_align(sizeof(int) * (size_t)(cap + 1));
  return off;
}

// device and pinned buffers and a stream for a chunk of n scenes
static int tb_newChunk(const tbModel* m, const tbData* d, const tbRecord* rec, const tbProbe* probe,
                       int n, int local, int cap, tbGpuChunk* c) {
  int rc = TB_OK;
  size_t total = tb_chunkLayout(m, d, rec, probe, n, local, cap, NULL, c);
  TB_CUDA_CHECK(cudaMalloc((void**)&c->buf, total + 1), rc, done);
  TB_CUDA_CHECK(cudaMallocHost((void**)&c->host, c->down + 1), rc, done);
  if (!c->stream)
    TB_CUDA_CHECK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), rc, done);
  tb_chunkLayout(m, d, rec, probe, n, local, cap, c->buf, c);
done:
  return rc;
}

static void tb_freeChunk(tbGpuChunk* c) {
  if (c->buf) cudaFree(c->buf);
  if (c->host) cudaFreeHost(c->host);
  c->buf = c->host = NULL;
}

// where array p of the chunk's device layout sits in its pinned copy
static char* tb_staged(const tbGpuChunk* c, const void* p) {
  return c->host + ((const char*)p - c->buf);
}

// the batch's scenes [s, s + n) into the pinned copy, in the chunk's layout (the probe's output
// too: a field's start positions ride along), or back from it when in is 0 (and the records)
static void tb_stage(const tbModel* m, tbGpuChunk* c, tbData* d, tbRecord* rec,
                     const tbProbe* probe, int s, int in) {
  int n = c->d.nscene;
  tbData staged = c->d;
#define TB_X(type, name, count) staged.name = (type*)tb_staged(c, c->d.name);
  TB_DATA_ARRAYS(TB_X)
#undef TB_X
  for (int j = 0; j < n; j++) {
    if (in) {
      tb_sceneCopy(d, s + j, &staged, j);
    } else {
      tb_sceneCopy(&staged, j, d, s + j);
    }
  }
  if (probe) {
    size_t per = tb_probeSceneBytes(probe);
    char* at = tb_probeOut(probe) + per * (size_t)s;
    if (in) {
      memcpy(tb_staged(c, c->out), at, per * n);
    } else {
      memcpy(at, tb_staged(c, c->out), per * n);
    }
  }
  if (rec && !in) {
    size_t nrec = (size_t)n * rec->nrecord, at = (size_t)s * rec->nrecord;
    size_t width = 13 * (size_t)m->nbody;
    memcpy(rec->state + at * width, tb_staged(c, c->rec.state), sizeof(double) * nrec * width);
    memcpy(rec->time + at, tb_staged(c, c->rec.time), sizeof(double) * nrec);
  }
}

// wait for the chunk's copies and kernel, and hand its scenes back to the batch
static int tb_finishChunk(const tbModel* m, tbGpuChunk* c, tbData* d, tbRecord* rec,
                          const tbProbe* probe) {
  int rc = TB_OK;
  if (c->s < 0) return TB_OK;
  TB_CUDA_CHECK(cudaStreamSynchronize(c->stream), rc, done);
  tb_stage(m, c, d, rec, probe, c->s, 0);
  c->s = -1;
done:
  return rc;
}

//---- the fused rollout kernel ------------------------------------------------------------------

// one thread per scene runs nstep steps, the scene's scratch in the thread's local memory (sc
// gives only the solver's sizes), which the hardware interleaves across a warp: the threads'
// accesses to the same scratch entry coalesce
template <int BYTES>
__global__ void __launch_bounds__(TB_GPU_BLOCK)
    tb_rolloutKernel(const __grid_constant__ tbModel m, tbData d,
                     const __grid_constant__ tbScratch sc, int nstep, tbRecord rec, int record,
                     const __grid_constant__ tbProbe probe, int reduce) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= d.nscene) return;
  tbWork w;
  __align__(16) char buf[BYTES];
  tb_workCarve(&m, &sc, buf, &w);
  tb_rolloutScene(tb_solo(), &m, &d, s, nstep, record ? &rec : NULL, reduce ? &probe : NULL, &w);
}

// the scenes too large for local memory: a warp per scene, the scene's scratch its global slot
// in sc (the lanes' neighbouring entries of a row coalesce), its view in shared memory
__global__ void __launch_bounds__(TB_GPU_BLOCK)
    tb_rolloutWarpKernel(const __grid_constant__ tbModel m, tbData d,
                         const __grid_constant__ tbScratch sc, int nstep, tbRecord rec, int record,
                         const __grid_constant__ tbProbe probe, int reduce) {
  __shared__ tbWork views[TB_GPU_BLOCK / TB_GPU_WARP];
  int s = (blockIdx.x * blockDim.x + threadIdx.x) / TB_GPU_WARP;
  if (s >= d.nscene) return;  // the whole warp
  tbTeam t = {(int)threadIdx.x % TB_GPU_WARP, TB_GPU_WARP};
  tbWork* w = &views[threadIdx.x / TB_GPU_WARP];
  if (t.lane == 0) tb_workSlot(&m, &sc, s, w);
  tb_teamSync(t);
  tb_rolloutScene(t, &m, &d, s, nstep, record ? &rec : NULL, reduce ? &probe : NULL, w);
}

typedef void (*tbRolloutKernel)(const tbModel, tbData, const tbScratch, int, tbRecord, int,
                                const tbProbe, int);

// local-memory tiers (bytes of scratch per scene); larger scratch takes global slots and a warp
enum { TB_GPU_LOCAL_SMALL = 4096, TB_GPU_LOCAL_LARGE = 16384 };

// the local tier that holds a scene's scratch, or 0 (global slots, a warp per scene)
static int tb_localTier(const tbModel* m) {
  tbScratch sizes;
  memset(&sizes, 0, sizeof(sizes));
  tb_solverScratchSize(m, &sizes.nsolver_d, &sizes.nsolver_i);
  size_t bytes = tb_workBytes(m, &sizes);
  if (bytes <= TB_GPU_LOCAL_SMALL) return TB_GPU_LOCAL_SMALL;
  return bytes <= TB_GPU_LOCAL_LARGE ? TB_GPU_LOCAL_LARGE : 0;
}

// the kernel of a tier
static tbRolloutKernel tb_kernel(int tier) {
  if (tier == TB_GPU_LOCAL_SMALL) return tb_rolloutKernel<TB_GPU_LOCAL_SMALL>;
  if (tier == TB_GPU_LOCAL_LARGE) return tb_rolloutKernel<TB_GPU_LOCAL_LARGE>;
  return tb_rolloutWarpKernel;
}

static void tb_launch(int tier, const tbModel* dm, const tbGpuChunk* c, int nstep, int record,
                      const tbProbe* dp, int reduce) {
  size_t threads = (size_t)c->d.nscene * (tier ? 1 : TB_GPU_WARP);
  int grid = (int)((threads + TB_GPU_BLOCK - 1) / TB_GPU_BLOCK);
  tb_kernel(tier)<<<grid, TB_GPU_BLOCK, 0, c->stream>>>(*dm, c->d, c->sc, nstep, c->rec, record,
                                                        *dp, reduce);
}

//---- the phased path: a launch per phase, the systems by the batched library routines ----------

// one thread per scene advances it by one phase (newton_phased.h); scratch in global slots
__global__ void __launch_bounds__(TB_GPU_BLOCK)
    tb_phasedKernel(const __grid_constant__ tbModel m, tbData d,
                    const __grid_constant__ tbScratch sc, int nstep, tbRecord rec, int record,
                    const __grid_constant__ tbProbe probe, int reduce,
                    const __grid_constant__ tbPhasedArrays a, int phase, int k) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= d.nscene) return;
  tbPhased* ph = a.ph + s;
  tbRecord* r = record ? &rec : NULL;
  const tbProbe* pr = reduce ? &probe : NULL;
  double* A = a.A + tb_lmSystemWords(a.cap) * s;
  double* B = a.B + tb_lmRhsWords(a.cap) * s;
  switch (phase) {
    case TB_PHASE_BEGIN:
      tb_phasedBegin(&m, &d, s, nstep, r, pr, &sc, s, ph);
      break;
    case TB_PHASE_STEP_BEGIN:
      tb_phasedStepBegin(&m, ph);
      break;
    case TB_PHASE_PRE: {
      int n = tb_phasedPre(&m, ph);
      if (n > 0) atomicMax(a.sizes, n);
      if (n > 0 && tb_lmByLibrary(a.kind, n)) atomicAdd(a.sizes + 2 + n, 1);
      break;
    }
    case TB_PHASE_SOLVE:
      if (ph->solving && tb_lmByLibrary(a.kind, ph->ls.s.n)) {
        // a place among its size's: which one does not matter, each system is solved alone
        int at = atomicAdd(a.next + ph->ls.s.n, 1);
        a.place[s] = at;
        a.Aptr[at] = A;
        a.Bptr[at] = B;
        tb_lmSystemOut(&ph->ls.s, &ph->ls.it, a.kind, A, B);
      }
      break;
    case TB_PHASE_POST:
      if (!ph->solving) break;
      if (!tb_lmByLibrary(a.kind, ph->ls.s.n)) {
        tb_phasedSolvePost(&m, ph);
      } else {
        tb_phasedPost(&m, ph, tb_lmSystemIn(&ph->ls.s, &ph->ls.it, A, B, a.info[a.place[s]]) == 0);
      }
      break;
    case TB_PHASE_STEP_END:
      tb_phasedStepEnd(&m, s, k, nstep, r, pr, ph);
      break;
    default:
      tb_phasedEnd(&d, s, pr, ph);
      break;
  }
}

// the libraries' handles, made at the first phased rollout on a device and kept: making them
// sets up each library's own context, too slow to repeat at every rollout (a particle filter
// rolls out once per observation)
static cublasHandle_t tb_blas;
static cusolverDnHandle_t tb_lapack;
static int tb_libraryDevice = -1;

static int tb_libraries(int dev) {
  int rc = TB_OK;
  if (tb_libraryDevice == dev) return TB_OK;
  if (tb_libraryDevice >= 0) {
    cublasDestroy(tb_blas);
    cusolverDnDestroy(tb_lapack);
    tb_libraryDevice = -1;
  }
  TB_LIB_CHECK(cublasCreate(&tb_blas), rc, done);
  TB_LIB_CHECK(cusolverDnCreate(&tb_lapack), rc, done);
  tb_libraryDevice = dev;
done:
  return rc;
}

// what the phases of one chunk run with
typedef struct tbGpuPhased {
  const tbModel* dm;
  const tbGpuChunk* c;
  const tbProbe* dp;
  int nstep, record, reduce;
  int* sizes;  // host: the device's a.sizes after an iteration's pre phase
  int* first;  // host: per size, the first place of its systems
} tbGpuPhased;

// an iteration's systems, the systems of each size factored and solved together by the library
static int tb_librarySolve(const tbGpuPhased* g, int largest) {
  const tbGpuChunk* c = g->c;
  const tbPhasedArrays* a = &c->a;
  int rc = TB_OK, status = 0;
  TB_LIB_CHECK(cublasSetStream(tb_blas, c->stream), rc, done);
  TB_LIB_CHECK(cusolverDnSetStream(tb_lapack, c->stream), rc, done);
  for (int n = 1; n <= largest; n++) {
    int count = g->sizes[2 + n], at = g->first[n];
    if (count == 0) continue;
    if (a->kind == TB_LM_SYS_CHOL) {
      TB_LIB_CHECK(cusolverDnDpotrfBatched(tb_lapack, CUBLAS_FILL_MODE_LOWER, n, a->Aptr + at, n,
                                           a->info + at, count),
                   rc, done);
      // a matrix that is not positive definite solves to garbage, which its info rejects
      TB_LIB_CHECK(cusolverDnDpotrsBatched(tb_lapack, CUBLAS_FILL_MODE_LOWER, n, 1, a->Aptr + at, n,
                                           a->Bptr + at, n, a->sizes + 1, count),
                   rc, done);
    } else {
      TB_LIB_CHECK(cublasDgelsBatched(tb_blas, CUBLAS_OP_N, 2 * n, n, 1, a->Aptr + at, 2 * n,
                                      a->Bptr + at, 2 * n, &status, a->info + at, count),
                   rc, done);
      if (status != 0) {
        rc = tb_setError("cublasDgelsBatched: argument %d is invalid", -status);
        goto done;
      }
    }
  }
done:
  return rc;
}

// the places of an iteration's systems: those of each size together, in order of size
static int tb_placeSystems(const tbGpuPhased* g, int largest) {
  int rc = TB_OK;
  g->first[0] = 0;
  for (int n = 1; n <= largest; n++) g->first[n] = g->first[n - 1] + g->sizes[2 + n - 1];
  TB_CUDA_CHECK(cudaMemcpyAsync(g->c->a.next, g->first, sizeof(int) * (size_t)(largest + 1),
                                cudaMemcpyHostToDevice, g->c->stream),
                rc, done);
done:
  return rc;
}

// one phase over the chunk's scenes (tbPhasedOps.run)
static int tb_gpuPhase(void* ctx, int phase, int k, int largest, int* out) {
  const tbGpuPhased* g = (const tbGpuPhased*)ctx;
  const tbGpuChunk* c = g->c;
  int rc = TB_OK, grid = (c->d.nscene + TB_GPU_BLOCK - 1) / TB_GPU_BLOCK;
  size_t size_bytes = sizeof(int) * (size_t)(c->a.cap + 3);
  if (phase == TB_PHASE_PRE) {
    TB_CUDA_CHECK(cudaMemsetAsync(c->a.sizes, 0, size_bytes, c->stream), rc, done);
  }
  if (phase == TB_PHASE_SOLVE && (rc = tb_placeSystems(g, largest)) != TB_OK) goto done;
  tb_phasedKernel<<<grid, TB_GPU_BLOCK, 0, c->stream>>>(
      *g->dm, c->d, c->sc, g->nstep, c->rec, g->record, *g->dp, g->reduce, c->a, phase, k);
  TB_CUDA_CHECK(cudaGetLastError(), rc, done);
  if (phase == TB_PHASE_PRE) {  // the loop's decision and the library's calls need the sizes
    TB_CUDA_CHECK(
        cudaMemcpyAsync(g->sizes, c->a.sizes, size_bytes, cudaMemcpyDeviceToHost, c->stream), rc,
        done);
    TB_CUDA_CHECK(cudaStreamSynchronize(c->stream), rc, done);
    *out = g->sizes[0];
  }
  if (phase == TB_PHASE_SOLVE) rc = tb_librarySolve(g, largest);
done:
  return rc;
}

static int tb_launchPhased(int dev, const tbModel* dm, const tbGpuChunk* c, int nstep, int record,
                           const tbProbe* dp, int reduce) {
  int rc = tb_libraries(dev);
  if (rc != TB_OK) return rc;
  int* host = (int*)malloc(sizeof(int) * (size_t)(2 * c->a.cap + 4));
  if (!host) return tb_setError("out of host memory for the phased path's system sizes");
  tbGpuPhased g = {dm, c, dp, nstep, record, reduce, host, host + c->a.cap + 3};
  tbPhasedOps ops = {&g, tb_gpuPhase};
  rc = tb_phasedRollout(&ops, nstep);
  free(host);
  return rc;
}

// device memory the driver sets aside for a kernel: its local memory (stack frame and local
// scratch) for every thread the device can hold at once
static int tb_localReserve(int dev, const void* kernel, size_t* bytes) {
  cudaFuncAttributes attr;
  cudaDeviceProp prop;
  int rc = TB_OK;
  TB_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel), rc, done);
  TB_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev), rc, done);
  *bytes =
      attr.localSizeBytes * (size_t)prop.maxThreadsPerMultiProcessor * prop.multiProcessorCount;
done:
  return rc;
}

// pinned bytes a chunk may stage: the transfers stay large, the pinned memory moderate
#define TB_GPU_STAGE_MAX ((size_t)256 << 20)

// scenes per chunk: what a quarter of the device memory left after the local reserve holds (two
// chunks alternate), its transfers within TB_GPU_STAGE_MAX, at most the batch (and the test cap)
static int tb_chunkScenes(const tbModel* m, const tbData* d, const tbRecord* rec,
                          const tbProbe* probe, int dev, int tier, int cap, int nscene,
                          int* chunk) {
  size_t free_bytes = 0, total_bytes = 0, reserve = 0;
  const void* kernel = cap ? (const void*)tb_phasedKernel : (const void*)tb_kernel(tier);
  int rc = tb_localReserve(dev, kernel, &reserve);
  if (rc != TB_OK) return rc;
  TB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), rc, done);
  {
    // bytes per scene from a layout of many scenes, where the arrays' alignment is amortized
    const size_t many = 4096;
    tbGpuChunk probe_chunk;
    memset(&probe_chunk, 0, sizeof(probe_chunk));
    size_t per =
        tb_chunkLayout(m, d, rec, probe, (int)many, tier != 0, cap, NULL, &probe_chunk) / many;
    size_t down = probe_chunk.down / many + 1;
    size_t slack = reserve + 64 * 256;  // + the alignment of a chunk's arrays
    size_t fit = free_bytes > slack ? (free_bytes - slack) / 4 / (per + 1) : 0;
    if (fit < 1) {
      return tb_setError(
          "gpu: one scene needs %zu bytes, %zu are free on the device (%zu of "
          "them set aside for the kernel's local memory)",
          per, free_bytes, reserve);
    }
    size_t staged = TB_GPU_STAGE_MAX / down > 0 ? TB_GPU_STAGE_MAX / down : 1;
    if (staged < fit) fit = staged;
    *chunk = fit < (size_t)nscene ? (int)fit : nscene;
    if (tb_gpuChunkCap() > 0 && *chunk > tb_gpuChunkCap()) *chunk = tb_gpuChunkCap();
  }
done:
  return rc;
}

extern "C" int tb_gpuRollout(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec,
                             const tbProbe* probe) {
  if (s1 <= s0) return TB_OK;
  int dev = tb_gpuDevice();
  if (dev < 0) return tb_setError("device gpu: no CUDA device of compute capability >= 9.0");
  if (cudaSetDevice(dev) != cudaSuccess) {
    return tb_setError("device gpu: device %d: %s", dev, cudaGetErrorString(cudaGetLastError()));
  }
  tbModel dm;
  tbProbe dp;
  memset(&dp, 0, sizeof(dp));
  char *model_buf = NULL, *probe_buf = NULL;
  tbGpuChunk ch[2];
  memset(ch, 0, sizeof(ch));
  ch[0].s = ch[1].s = -1;
  // the phased path for large LM systems (its scratch in global slots), else a fused kernel
  int cap = tb_phasedModel(m, tb_gpuNewtonRows()) ? tb_lmCapacity(m) : 0;
  int chunk = 0, tier = cap ? 0 : tb_localTier(m), rc = tb_uploadModel(m, &dm, &model_buf);
  if (rc == TB_OK && probe) rc = tb_uploadProbe(probe, &dp, &probe_buf);
  if (rc == TB_OK) rc = tb_chunkScenes(m, d, rec, probe, dev, tier, cap, s1 - s0, &chunk);
  // the uploads above went through pageable memory on the legacy stream, which the chunks'
  // non-blocking streams do not wait for
  if (rc == TB_OK) TB_CUDA_CHECK(cudaDeviceSynchronize(), rc, done);
  // both chunks allocated before the first launch: an allocation between launches would stall
  // the other stream
  for (int k = 0; k < 2 && rc == TB_OK && (k == 0 || s1 - s0 > chunk); k++) {
    rc = tb_newChunk(m, d, rec, probe, chunk, tier != 0, cap, &ch[k]);
  }
  for (int s = s0, k = 0; rc == TB_OK && s < s1; s += chunk, k ^= 1) {
    tbGpuChunk* c = &ch[k];
    int n = s1 - s < chunk ? s1 - s : chunk;
    if ((rc = tb_finishChunk(m, c, d, rec, probe)) != TB_OK) break;
    // the tail's smaller layout fits the buffers of a full chunk (every term grows with n)
    if (n != chunk) tb_chunkLayout(m, d, rec, probe, n, tier != 0, cap, c->buf, c);
    tb_stage(m, c, d, rec, probe, s, 1);
    TB_CUDA_CHECK(cudaMemcpyAsync(c->buf, c->host, c->up, cudaMemcpyHostToDevice, c->stream), rc,
                  done);
    if (probe) {
      dp.scene0 = probe->scene0 + s;
      tb_setProbeOut(&dp, c->out);
    }
    (void)cudaGetLastError();  // an earlier call's error is not this launch's
    if (cap) {
      if ((rc = tb_launchPhased(dev, &dm, c, nstep, rec != NULL, &dp, probe != NULL))) break;
    } else {
      tb_launch(tier, &dm, c, nstep, rec != NULL, &dp, probe != NULL);
    }
    TB_CUDA_CHECK(cudaGetLastError(), rc, done);
    TB_CUDA_CHECK(cudaMemcpyAsync(c->host, c->buf, c->down, cudaMemcpyDeviceToHost, c->stream), rc,
                  done);
    c->s = s;
  }
  for (int k = 0; k < 2 && rc == TB_OK; k++) rc = tb_finishChunk(m, &ch[k], d, rec, probe);
done:
  for (int k = 0; k < 2; k++) {
    if (ch[k].stream) cudaStreamSynchronize(ch[k].stream);
    tb_freeChunk(&ch[k]);
    if (ch[k].stream) cudaStreamDestroy(ch[k].stream);
  }
  cudaFree(probe_buf);
  cudaFree(model_buf);
  return rc;
}
