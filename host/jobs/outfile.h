// Output files written whole: opened under PATH.part (so that a path that cannot be written fails
// before any computation) and renamed to PATH only when complete, so that a failed or interrupted
// run leaves an earlier PATH as it was. Used by every writer: the FC3D export, the sweep CSV,
// the PNG plots and the command line's outputs. Of processes sharing a study (tb_setShare) only
// rank 0 writes: the others compute the same bytes into /dev/null.
#ifndef TUMBLE_HOST_OUTFILE_H_
#define TUMBLE_HOST_OUTFILE_H_

#include <stdio.h>

typedef struct tbOutFile {
  char path[4096];
  char tmp[4102];  // path + ".part"
  FILE* f;         // the temporary file while open
  int discard;     // a process of a share other than rank 0: f writes to /dev/null, no file made
} tbOutFile;

// open PATH.part for writing: TB_OK, or TB_ERR_ARG with tb_lastError() naming the path (no file
// name, too long, cannot be created)
int tb_outOpen(tbOutFile* o, const char* path);
// close and rename into place: TB_OK, or TB_ERR_ARG naming the path (the temporary file removed)
int tb_outCommit(tbOutFile* o);
// close and remove the temporary file, if open; PATH is left as it was
void tb_outAbort(tbOutFile* o);

#endif  // TUMBLE_HOST_OUTFILE_H_
