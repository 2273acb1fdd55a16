// Command line: many processes on one study (README, "Many processes and machines"). Under
// mpirun (or srun) every process runs the same command; tb_rollout splits each batch over them
// and gives every process the whole result (host/rollout/process_split.c), so the work around the
// rollouts is the same everywhere and the outputs are bitwise those of one process. Rank 0 alone
// writes files and prints; each node's processes take its GPUs in turn. Built without MPI, or
// started without a launcher, the command runs as one process.
#include "cli/cli.h"

#ifdef TUMBLE_MPI
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/gpu.h"

static tbShare tb_mpiShare;
static int tb_ownStderr = -1;  // a process other than rank 0: its stderr, for a failure of its own
static FILE* tb_errors;        // what it would have printed there

// the parts are multiples of 8 bytes: counted in 8-byte words, MPI's int counts reach 16 GiB
static void tb_mpiAllgather(void* ctx, void* all, const size_t* bytes) {
  (void)ctx;
  int n = tb_mpiShare.size;
  int* count = (int*)malloc(sizeof(int) * 2 * (size_t)n);
  size_t at = 0;
  for (int r = 0; count && r < n; r++) {
    if (bytes[r] / 8 > INT_MAX || at / 8 > INT_MAX) {
      free(count);
      count = NULL;
      break;
    }
    count[r] = (int)(bytes[r] / 8);
    count[n + r] = (int)(at / 8);
    at += bytes[r];
  }
  if (!count) {
    fprintf(stderr, "tumble: a batch of more than 16 GiB cannot be shared; use smaller chunks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Datatype word;
  MPI_Type_contiguous(8, MPI_BYTE, &word);
  MPI_Type_commit(&word);
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, count, count + n, word, MPI_COMM_WORLD);
  MPI_Type_free(&word);
  free(count);
}

static void tb_mpiBcast(void* ctx, void* buf, size_t n) {
  (void)ctx;
  MPI_Bcast(buf, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
}

// started by a launcher (Open MPI's mpirun, MPICH's or Slurm's PMI): a lone `tumble` does not
// pay for MPI's start
static int tb_mpiLaunched(void) {
  static const char* vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
  for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
    if (getenv(vars[i])) return 1;
  return 0;
}

// the GPU of this process: its rank among the processes of its node
static void tb_mpiPickGpu(void) {
  MPI_Comm node;
  int local = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  tb_gpuPick(local);
}

int tb_mpiStart(int* argc, char*** argv) {
  if (!tb_mpiLaunched()) return 0;
  int provided;
  // MPI is called from the main thread only (the OpenMP threads and the progress thread never)
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return 0;
  tb_mpiShare.allgather = tb_mpiAllgather;
  tb_mpiShare.bcast = tb_mpiBcast;
  MPI_Comm_rank(MPI_COMM_WORLD, &tb_mpiShare.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &tb_mpiShare.size);
  tb_mpiPickGpu();
  tb_setShare(&tb_mpiShare);
  if (tb_mpiShare.rank != 0) {
    // the others print what rank 0 prints: one copy on the terminal. Their messages are kept
    // aside for a failure of their own (tb_mpiEnd)
    int null = open("/dev/null", O_WRONLY);
    tb_errors = tmpfile();
    fflush(stdout);
    fflush(stderr);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    if (tb_errors) {
      tb_ownStderr = dup(STDERR_FILENO);
      dup2(fileno(tb_errors), STDERR_FILENO);
    }
    if (null >= 0) close(null);
  }
  return 1;
}

// the last error line of a process other than rank 0, on its own stderr, with its rank
static void tb_mpiSayOwnError(void) {
  if (!tb_errors || tb_ownStderr < 0) return;
  char line[8400], last[8400] = "";
  rewind(tb_errors);
  while (fgets(line, sizeof(line), tb_errors)) {
    if (!strncmp(line, "tumble: error: ", 15)) snprintf(last, sizeof(last), "%s", line + 15);
  }
  if (!last[0]) snprintf(last, sizeof(last), "no message\n");
  dprintf(tb_ownStderr, "tumble: error: process %d of %d: %s", tb_mpiShare.rank, tb_mpiShare.size,
          last);
}

int tb_mpiEnd(int rc) {
  int started = 0;
  MPI_Initialized(&started);
  if (!started) return rc;
  fflush(stdout);
  fflush(stderr);
  // a process that fails alone (rank 0's output cannot be written) leaves the others waiting in
  // a rollout: the job ends with its status. The others give rank 0, which fails the same way
  // on a bad argument, time to print its message and end the job first
  if (rc != 0 && tb_mpiShare.size > 1) {
    if (tb_mpiShare.rank != 0) {
      sleep(2);
      tb_mpiSayOwnError();  // still running: rank 0 did not fail with it
    }
    MPI_Abort(MPI_COMM_WORLD, rc);
  }
  MPI_Finalize();
  return rc;
}
#else
int tb_mpiStart(int* argc, char*** argv) {
  (void)argc, (void)argv;
  return 0;
}

int tb_mpiEnd(int rc) {
  return rc;
}
#endif
