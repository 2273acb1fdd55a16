// tumble: batched rigid-body scenes with frictional contact.
#include "cli.h"

int main(int argc, char** argv) {
  return tb_cliMain(argc, argv);
}
