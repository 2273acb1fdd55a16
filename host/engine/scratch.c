// The batch's scratch: a slot of the model's work arrays for each thread (CPU) or scene (GPU),
// and one scene's tbWork view of a slot.
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "solver/solver.h"

tbScratch* tb_newScratch(const tbModel* m, int nslot) {
  tbScratch* sc = (tbScratch*)calloc(1, sizeof(tbScratch));
  if (!sc) return NULL;
  sc->nslot = nslot;
  tb_solverScratchSize(m, &sc->nsolver_d, &sc->nsolver_i);
  int ok = 1;
  // slots on cache-line boundaries (tb_slotBytes)
#define TB_X(type, name, count)                                                                    \
  sc->name =                                                                                       \
      (type*)aligned_alloc(64, (size_t)nslot * tb_slotBytes(sizeof(type) * (size_t)(count)) + 64); \
  ok &= sc->name != NULL;
  TB_WORK_ARRAYS(TB_X)
#undef TB_X
  if (!ok) {
    tb_freeScratch(sc);
    return NULL;
  }
  return sc;
}

tbScratch* tb_newThreadScratch(const tbModel* m, int nthread) {
  tbScratch* sc = (tbScratch*)calloc(1, sizeof(tbScratch));
  if (!sc) return NULL;
  sc->nslot = nthread;
  tb_solverScratchSize(m, &sc->nsolver_d, &sc->nsolver_i);
  sc->block_bytes = tb_blockBytes(m, sc);
  sc->block = (char*)aligned_alloc(TB_PAGE_BYTES, (size_t)nthread * sc->block_bytes);
  if (!sc->block) {
    free(sc);
    return NULL;
  }
  return sc;
}

void tb_freeScratch(tbScratch* sc) {
  if (!sc) return;
#define TB_X(type, name, count) free(sc->name);
  TB_WORK_ARRAYS(TB_X)
#undef TB_X
  free(sc->block);
  free(sc);
}

tbWork* tb_newWork(const tbModel* m) {
  tbScratch sizes;
  memset(&sizes, 0, sizeof(sizes));
  tb_solverScratchSize(m, &sizes.nsolver_d, &sizes.nsolver_i);
  tbWork* w = (tbWork*)calloc(1, sizeof(tbWork));
  char* buf = w ? (char*)aligned_alloc(16, tb_workBytes(m, &sizes)) : NULL;
  if (!buf) {
    free(w);
    return NULL;
  }
  tb_workCarve(m, &sizes, buf, w);
  w->own = buf;
  return w;
}

void tb_freeWork(tbWork* w) {
  if (!w) return;
  free(w->own);
  free(w);
}
