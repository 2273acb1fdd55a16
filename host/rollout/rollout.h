// The rollout layer: the one batch loop of every job, on this process or split over the processes
// of a share, in fp64 or fp32, on the CPU or the GPU.
#ifndef TUMBLE_HOST_ROLLOUT_H_
#define TUMBLE_HOST_ROLLOUT_H_

#include <stddef.h>

#include "engine/engine.h"
#include "engine/stage_probe.h"

#ifdef __cplusplus
extern "C" {
#endif
// tb_rollout, also reducing into probe (NULL: none): the one batch loop of every job
int tb_rolloutProbe(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec,
                    const tbProbe* probe);
// the same on this process alone, arguments checked (rollout_here.c); and split over the processes
// of the share set (process_split.c)
int tb_rolloutHere(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec,
                   const tbProbe* probe);
int tb_rolloutShared(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec,
                     const tbProbe* probe);
// tb_rolloutHere in fp32 (TB_FP32, rollout_fp32.cc), on the GPU when gpu is 1
int tb_rolloutF32(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec,
                  const tbProbe* probe, int gpu);
// bytes of one packed scene (its tbData row, its records, its probe output), a multiple of 8
size_t tb_packedBytes(const tbModel* m, const tbRecord* rec, const tbProbe* probe);
// scenes [s0, s1) of the batch (with their records and probe output) to buf (pack = 1), one
// after the other, or from it: what travels between processes, and what a journal keeps of
// finished scenes. buf may lie at any offset (a journal's bytes). TB_OK, or TB_ERR_MEMORY
int tb_packScenes(const tbModel* m, tbData* d, int s0, int s1, tbRecord* rec, const tbProbe* probe,
                  char* buf, int pack);

// settings.c: n more scenes finished, for the progress counter (tb_setRolloutCounter)
void tb_countScenes(long n);
// the device (TB_DEVICE_CPU or TB_DEVICE_GPU) a batch's settings r take now: TB_OK, or
// TB_ERR_ARG naming the field (a GPU asked for without one, a value out of range)
int tb_runDevice(const tbRunSettings* r, int* device);
// kinematic_paths.c: the kinematic bodies' paths (tb_kinematicPath) that scenes [s0, s1) share: a
// run of consecutive scenes that move them alike (the same clock, state and values of every
// parameter that reaches them, bitwise; failed and rested scenes, which do not step, join any run)
// shares its first scene's, where it has two or more. Scene s's path into path[s - s0] (-1: it
// works its own out), path j's first scene into head[j] (both with room for s1 - s0); returns the
// number of paths, as many as TB_PATH_MAX_VALUES holds
int tb_kinematicPaths(const tbModel* m, const tbData* d, int s0, int s1, int nstep, int* path,
                      int* head);
// the paths of tb_kinematicPaths for scenes [s0, s1) in slot view w, in one buffer (the caller
// frees it): scene s's at[s - s0], or NULL where it works its own out
double* tb_sharedPaths(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbWork* w,
                       const double** at);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_ROLLOUT_H_
