// What the problem readers' files share: the file's name for messages, a limit, each format's entry
#ifndef TUMBLE_HOST_READER_INTERNAL_H_
#define TUMBLE_HOST_READER_INTERNAL_H_

#include <stddef.h>

#include <tumble/reader.h>

// largest n the dense form takes (n x n doubles: 2 GiB)
#define TB_READER_MAXN 16384

typedef struct tbRdCtx {
  const char* name;  // the file's base name, for messages
} tbRdCtx;

// "<file>: <field>[ (line L)]: <what>"; returns TB_ERR_ARG
int tb_rdFail(const tbRdCtx* c, const char* field, int line, const char* fmt, ...);
// a Siconos text file (LCP or FC3D), s its len bytes NUL-ended, into fp (reader_text.c)
int tb_rdText(const tbRdCtx* c, const char* s, size_t len, tbFileProblem* fp);
// an FCLib HDF5 file (local or global problem) into fp, read in this process (reader_hdf5.c)
int tb_rdHdf5(const tbRdCtx* c, const char* path, tbFileProblem* fp);
// tb_rdHdf5 in a forked child: libhdf5 crashing on a corrupt file is then the file's error
int tb_rdHdf5Isolated(const tbRdCtx* c, const char* path, tbFileProblem* fp);

#endif  // TUMBLE_HOST_READER_INTERNAL_H_
