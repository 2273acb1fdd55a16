// `tumble model FILE.xml`: an MJCF model's bodies, masses, inertias and initial state.
#include <stdio.h>

#include <tumble/mjcf.h>
#include <tumble/tumble.h>

#include "math/tb_math.h"

#include "cli/cli.h"
#include "util/csv.h"

#define TB_MODEL_USAGE \
  "usage: tumble model FILE.xml   an MJCF model's bodies: mass, inertia, initial state"

int tb_modelMain(int argc, char** argv) {
  if (tb_helpAsked(argc, argv)) {
    printf("%s\n", TB_MODEL_USAGE);
    return 0;
  }
  if (argc != 1) return tb_cliError(TB_MODEL_USAGE);
  char note[512];
  tbModel* m = tb_loadMJCFNoting(argv[0], note, sizeof(note));
  if (!m) return tb_cliError("%s", tb_lastError());
  if (note[0]) fprintf(stderr, "tumble: %s: %s\n", argv[0], note);
  static const char* types[3] = {"static", "dynamic", "kinematic"};
  printf("body,type,lock,mass,com_x,com_y,com_z,I_xx,I_yy,I_zz,I_xy,I_xz,I_yz,vx,vy,vz,wx,wy,wz\n");
  for (int b = 0; b < m->nbody; b++) {
    const tbBodyDef* bd = &m->bdef[b];
    double I[9];
    tbu_inertiaWorld(I, bd->quat, bd->inertia);
    const double v[13] = {bd->mass, bd->pos[0], bd->pos[1], bd->pos[2], I[0],       I[4],      I[8],
                          I[1],     I[2],       I[5],       bd->vel[0], bd->vel[1], bd->vel[2]};
    tb_csvField(stdout, m->body_name[b]);
    printf(",%s,%d", types[bd->type], bd->lock);
    for (int k = 0; k < 13; k++) printf(",%.17g", v[k]);
    printf(",%.17g,%.17g,%.17g\n", bd->vel[3], bd->vel[4], bd->vel[5]);
  }
  tb_freeModel(m);
  return 0;
}
