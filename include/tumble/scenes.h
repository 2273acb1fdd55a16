// Built-in scenes: small models with their physical parameters exposed as named parameters.
#ifndef TUMBLE_SCENES_H_
#define TUMBLE_SCENES_H_

#include "tumble.h"

#ifdef __cplusplus
extern "C" {
#endif

// a structural option changes the model's shape (link count, incline angle), so one value
// holds for a whole batch; it is given like a parameter (--param links=4)
typedef struct tbSceneOption {
  const char* name;
  const char* unit;
  const char* doc;
  double value;  // default
  double lo, hi;
  int integer;  // 1: must be a whole number
} tbSceneOption;

#define TB_MAXSCENEOPT 5

typedef struct tbSceneInfo {
  const char* name;
  const char* doc;
  int steps;  // default step count of `tumble simulate`
  int nopt;
  tbSceneOption opt[TB_MAXSCENEOPT];
} tbSceneInfo;

typedef struct tbBuild {
  double opt[TB_MAXSCENEOPT];  // structural option values, in tbSceneInfo order
  int cone;                    // tbtCone
  int facets;                  // pyramid facets
  int facet_align;             // 1: align a facet against the slip each step
} tbBuild;

int tb_sceneCount(void);
const tbSceneInfo* tb_sceneInfo(int i);
int tb_findScene(const char* name);
// defaults for scene i: option defaults, exact cone, 8 facets
tbBuild tb_defaultBuild(int i);
// a compiled model of scene i, or NULL with tb_lastError() naming the bad option
tbModel* tb_buildScene(int i, const tbBuild* b);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_SCENES_H_
