// tumble: batched rigid-body scenes with frictional contact.
#include "cli.h"

int main(int argc, char** argv) {
  tb_mpiStart(&argc, &argv);
  return tb_mpiEnd(tb_cliMain(argc, argv));
}
