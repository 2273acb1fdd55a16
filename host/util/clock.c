// The monotonic clock the solvers' deadlines and the jobs' progress read (problem.h).
#include <time.h>

#include <tumble/problem.h>

double tb_clock(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
