// libFuzzer targets for the readers: each input is written to a file (the readers take paths),
// then read; every error is fine, a crash, a sanitizer report or a hang is not.
#ifndef TUMBLE_FUZZ_FILE_H_
#define TUMBLE_FUZZ_FILE_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

// data as the file NAME in a private directory of this process; the path, or NULL
static inline const char* tb_fuzzFile(const uint8_t* data, size_t size, const char* name) {
  static char path[4096];
  static char dir[4000];
  if (!dir[0]) {
    const char* tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/tumble-fuzz-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) return NULL;
  }
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (!f) return NULL;
  size_t n = fwrite(data, 1, size, f);
  return fclose(f) == 0 && n == size ? path : NULL;
}

#endif  // TUMBLE_FUZZ_FILE_H_
