// tumble: batched rigid-body scenes with frictional contact. The command line's entry: the
// commands, and their overview.

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <tumble/version.h>

#include "cli/cli.h"

static void tb_usage(FILE* f) {
  fprintf(
      f,
      "usage: tumble COMMAND ...     (tumble --version: version and commit)\n"
      "  tumble                      this overview (tumble grasp: the default main job)\n"
      "  tumble simulate --list      built-in scenes with their parameters\n"
      "  tumble simulate --model FILE.xml --list   an MJCF model's parameters\n"
      "  tumble simulate SCENE|--model FILE.xml [--scenes N] [--steps K] [--dt H] [--param "
      "NAME=VALUE]...\n"
      "         [--cone exact|pyramid] [--facets N] [--align] [--solver NAME] [--max-iter K]\n"
      "         [--delassus auto|dense]\n"
      "         [--solver-tol T] [--every K] [--seed S] [--threads T]\n"
      "         [--device auto|cpu|gpu] [--precision fp64|fp32]\n"
      "         [--out FILE.csv|FILE.h5 [--resume]] [--yes]\n"
      "         [--export-problems DIR]\n"
      "         [--replay K [--replay-speed S] [--view top|side]]   scene K alone, with a video\n"
      "  VALUE: a number, LO:HI (evenly spread over the scenes) or uniform:LO:HI\n"
      "  tumble model FILE.xml       an MJCF model's bodies: mass, inertia, initial state\n"
      "  tumble solve FILE [--solver NAME|all] [--tol T] [--max-iter K] [--max-seconds S]\n"
      "         [--cone exact|pyramid] [--facets N]   one problem file (Siconos .dat, FCLib)\n"
      "  tumble solve --list         the solvers\n"
      "  tumble plate field [--motion NAME] [--param NAME=VALUE]... [--grid NxN]\n"
      "         [--extent CM] [--seconds T] [--dt H] [--mu MU] [--part particle|box]\n"
      "         [--out PREFIX]      velocity field of a plate motion: PREFIX.csv, .png\n"
      "  tumble plate motions        the named plate motions\n"
      "  tumble plate optimize --target circle|saddle|FILE [--optimizer nelder-mead|cmaes|"
      "both]\n"
      "         [--starts K] [--budget S] [--out PREFIX]   plate motion for a target field\n"
      "  tumble estimate synth|pf|fit --scene NAME ...   parameters from an observed\n"
      "         trajectory (tumble estimate --help)\n"
      "  tumble grasp [--grid 21x21] [--extent 20mm] [--trials 30] [--surface-mu medium]\n"
      "         [--gripper-mu high] [--speed normal|fast] [--out PREFIX]   planar grasp\n"
      "         probability map of the Brost-Christiansen study (tumble grasp --help)\n"
      "  tumble grasp3d [--object box|capsule|sphere] [--size S] [--mass M|LO:HI]\n"
      "         [--mu M|LO:HI] [--grid 11x11] [--extent 80mm] [--trials 20] [--seed S]\n"
      "         [--threads T] [--out PREFIX]   3D parallel-jaw grasp probability map\n");
}

int tb_cliMain(int argc, char** argv) {
  tb_keepCommandLine(argc, argv);
  tb_defaultDevice();
  // a first "what is this?": the overview, not a 97 s study (tumble grasp runs that)
  if (argc < 2) {
    tb_usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "simulate")) return tb_simulateMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "solve")) return tb_solveMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "model")) return tb_modelMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "plate")) return tb_plateMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "estimate")) return tb_estimateMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "grasp")) return tb_graspMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "grasp3d")) return tb_grasp3dMain(argc - 2, argv + 2);
  if (!strcmp(argv[1], "--version")) {
    printf("tumble %s (commit %s)\n", TUMBLE_VERSION, TUMBLE_COMMIT);
    return 0;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    tb_usage(stdout);
    return 0;
  }
  tb_usage(stderr);
  return tb_cliError("unknown command '%s'", argv[1]);
}

int main(int argc, char** argv) {
  // a file-size limit (ulimit -f) makes a write fail with EFBIG, said and handled like a full
  // disk, instead of killing the process with its outputs half written
  signal(SIGXFSZ, SIG_IGN);
  tb_mpiStart(&argc, &argv);
  return tb_mpiEnd(tb_cliMain(argc, argv));
}
