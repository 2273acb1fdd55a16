// The calling thread's error message (tb_lastError in tumble.h).
#include <stdarg.h>
#include <stdio.h>

#include <tumble/tumble.h>

#include "util/error.h"

// long enough for an MJCF file's list of what is outside the subset (mjcf_subset.c)
static _Thread_local char tb_error[4096];

int tb_setError(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tb_error, sizeof(tb_error), fmt, ap);
  va_end(ap);
  return TB_ERR_ARG;
}

void tb_clearError(void) {
  tb_error[0] = 0;
}

const char* tb_lastError(void) {
  return tb_error;
}
