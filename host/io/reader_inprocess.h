// tb_readProblem's variants for the fuzz target and the tests. Without the child process that
// reads HDF5 files: for the fuzz target, whose coverage feedback cannot see into a child (a
// crash inside libhdf5 then ends the fuzzer, and scripts/fuzz.sh tells those apart from
// tumble's own).
#ifndef TUMBLE_HOST_READER_INPROCESS_H_
#define TUMBLE_HOST_READER_INPROCESS_H_

#include <tumble/reader.h>

#ifdef __cplusplus
extern "C" {
#endif

int tb_readProblemInProcess(const char* path, tbFileProblem* out);
// tb_readProblem with W held as its nonzeros whatever its size (as beyond 256 MB dense): for the
// tests that compare the solvers over the packed runs with dense W's
int tb_readProblemSparse(const char* path, tbFileProblem* out);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_READER_INPROCESS_H_
