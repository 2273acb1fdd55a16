// A number as the user typed it (host/util/number.h).
#include "util/number.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "util/error.h"

int tb_readNumber(const char* what, const char* s, double* out) {
  char* end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (!s[0] || end == s || *end) return tb_setError("%s: '%s' is not a number", what, s);
  if (errno == ERANGE && fabs(v) > 1.0)
    return tb_setError("%s: %s is beyond the largest double (%g)", what, s, DBL_MAX);
  if (errno == ERANGE && v == 0.0)
    return tb_setError("%s: %s is below the smallest double (%g; 0 is written 0)", what, s,
                       DBL_TRUE_MIN);
  if (!isfinite(v)) return tb_setError("%s: %s is not a finite number", what, s);
  *out = v;
  return TB_OK;
}
