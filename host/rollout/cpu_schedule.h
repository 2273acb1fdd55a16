// The CPU rollouts' split of scenes over OpenMP threads (rollout_here.c, rollout_fp32.cc); host
// only.
#ifndef TUMBLE_HOST_CPU_SCHEDULE_H_
#define TUMBLE_HOST_CPU_SCHEDULE_H_

// scenes a thread takes at a time from a rollout of nscene scenes on nthread threads: 8 (a
// dynamic grab costs little against a scene's steps) while every thread still gets 4 grabs, fewer
// below (with 8 always, `plate field`'s rollouts of 6 scenes, its starts in tenths, went whole to
// one thread). A scene's result does not depend on the thread that steps it.
static inline int tb_sceneChunk(int nscene, int nthread) {
  int c = nscene / (4 * (nthread > 0 ? nthread : 1));
  return c < 1 ? 1 : c > 8 ? 8 : c;
}

#endif  // TUMBLE_HOST_CPU_SCHEDULE_H_
