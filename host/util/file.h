// Files a run writes, opened so that nothing planted at their paths is followed or replaced and
// two runs cannot write one file at once: created with O_EXCL | O_NOFOLLOW (a symbolic link,
// device or directory there is refused, never written through) and held under flock(2) while
// the run writes them. A lock dies with its process, so a file left by a killed run is told from
// one a live run is writing. Errors set tb_lastError() naming the path and the reason.
#ifndef TUMBLE_HOST_FILE_H_
#define TUMBLE_HOST_FILE_H_

#ifdef __cplusplus
extern "C" {
#endif

// TB_OK when nothing is at path or it is a regular file; else TB_ERR_ARG saying what is there
int tb_fileCheckRegular(const char* path);
// path created afresh for writing and locked: a file another run holds there is refused, one a
// killed run left is replaced. The descriptor, or -1 after tb_setError
int tb_fileCreateLocked(const char* path);
// path opened for reading and writing (created when absent, kept otherwise) and locked, with the
// same refusals: the descriptor, or -1 after tb_setError
int tb_fileOpenLocked(const char* path);
// fsync the directory holding path, so that a file renamed into it survives a power loss: TB_OK,
// or TB_ERR_ARG after tb_setError (a file system that cannot sync directories is not an error)
int tb_fileSyncDir(const char* path);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_FILE_H_
