// Output files written whole: opened under PATH.part (so that a path that cannot be written fails
// before any computation) and renamed to PATH only when complete, so that a failed or interrupted
// run leaves an earlier PATH as it was. A run's files are committed together (tb_outCommitAll):
// all are written and fsync'd before the first is renamed. PATH must be absent or a regular file;
// PATH.part is created exclusively and locked (util/file.h), so that a planted link is not
// followed and a second run on the same PATH is refused. Used by every writer: the FC3D export,
// the sweep CSV, the PNG plots, the videos and the command line's outputs. Of processes sharing a
// study (tb_setShare) only rank 0 writes: the others compute the same bytes into /dev/null.
#ifndef TUMBLE_HOST_OUTFILE_H_
#define TUMBLE_HOST_OUTFILE_H_

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tbOutFile {
  char path[4096];
  char tmp[4102];  // path + ".part"
  FILE* f;         // the temporary file while open (its lock held until it is renamed)
  int discard;     // a process of a share other than rank 0: f writes to /dev/null, no file made
} tbOutFile;

// open PATH.part for writing: TB_OK, or TB_ERR_ARG with tb_lastError() naming the path and the
// reason (no file name, too long, PATH not a regular file, PATH.part held by another run, cannot
// be created)
int tb_outOpen(tbOutFile* o, const char* path);
// every one of n files (the closed ones skipped) flushed, checked and fsync'd, then renamed into
// place and their directories fsync'd: TB_OK, or TB_ERR_ARG naming the file and the reason. A
// write that failed removes every temporary file and renames none
int tb_outCommitAll(tbOutFile* const* o, int n);
// the same for one file
int tb_outCommit(tbOutFile* o);
// close and remove the temporary file, if open; PATH is left as it was
void tb_outAbort(tbOutFile* o);
// a file of a committed set that this run did not write (an interrupted run's): its temporary
// removed, and an earlier run's file at PATH too, which belonged to the set just replaced;
// 1 when there was one
int tb_outRetire(tbOutFile* o);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_OUTFILE_H_
