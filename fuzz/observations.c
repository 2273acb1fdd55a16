// Fuzz target: the observation CSV reader of `tumble estimate` (against the sliding sphere).
#include <tumble/estimate.h>
#include <tumble/scenes.h>

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tbModel* m;
  static double dt;
  if (!m) {
    tbBuild b = tb_defaultBuild(tb_findScene("sliding-sphere"));
    m = tb_buildScene(tb_findScene("sliding-sphere"), &b);
    if (!m) abort();
    dt = m->param[tb_findParam(m, "dt")].value;
  }
  const char* path = tb_fuzzFile(data, size, "obs.csv");
  tbObs obs;
  if (path && tb_readObs(path, m, dt, &obs) == TB_OK) tb_freeObs(&obs);
  return 0;
}
