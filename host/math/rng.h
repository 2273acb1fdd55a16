// Counter-based random draws (Random123 Philox-4x32-10): a draw is a pure function of
// (seed, scene, draw index), identical on the CPU and the GPU and independent of thread count,
// batch split and the order in which scenes run.
#ifndef TUMBLE_RNG_H_
#define TUMBLE_RNG_H_

#include <stdint.h>

#include <Random123/philox.h>

#include "math/tb_math.h"

// uniform double in [0, 1) with 53 random bits
TB_HD double tbu_uniform01(uint64_t seed, uint64_t scene, uint64_t draw) {
  philox4x32_ctr_t c = {
      {(uint32_t)scene, (uint32_t)(scene >> 32), (uint32_t)draw, (uint32_t)(draw >> 32)}};
  philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
  philox4x32_ctr_t r = philox4x32(c, k);
  uint64_t bits = ((uint64_t)r.v[0] << 32) | r.v[1];
  return (double)(bits >> 11) * (1.0 / 9007199254740992.0);
}

#endif  // TUMBLE_RNG_H_
