// Output files written whole (host/jobs/outfile.h).
#include "jobs/outfile.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tumble/tumble.h>

#include "util/error.h"
#include "util/file.h"

int tb_outOpen(tbOutFile* o, const char* path) {
  memset(o, 0, sizeof(*o));
  size_t n = strlen(path);
  if (!n || path[n - 1] == '/') return tb_setError("%s: a file name is needed", path);
  if (snprintf(o->path, sizeof(o->path), "%s", path) >= (int)sizeof(o->path) ||
      snprintf(o->tmp, sizeof(o->tmp), "%s.part", path) >= (int)sizeof(o->tmp)) {
    return tb_setError("%.64s...: path longer than %d characters", path, (int)sizeof(o->path) - 1);
  }
  o->discard = tb_shareRank() != 0;
  if (o->discard) {
    o->f = fopen("/dev/null", "w");
    return o->f ? TB_OK : tb_setError("/dev/null: %s", strerror(errno));
  }
  if (tb_fileCheckRegular(path) != TB_OK) return TB_ERR_ARG;
  int fd = tb_fileCreateLocked(o->tmp);
  if (fd < 0) return TB_ERR_ARG;
  o->f = fdopen(fd, "w");
  if (o->f) return TB_OK;
  int e = errno;
  unlink(o->tmp);
  close(fd);
  return tb_setError("%s: %s", o->tmp, strerror(e));
}

// the bytes on disk under PATH.part: TB_OK, or TB_ERR_ARG with the reason (a write's error
// stays in the stream's error flag, its errno in errno when nothing has touched it since)
static int tb_outFinish(tbOutFile* o) {
  if (!o->f || o->discard) return TB_OK;
  errno = 0;
  int bad = fflush(o->f) != 0 || ferror(o->f);
  if (!bad && fsync(fileno(o->f)) != 0) bad = errno != EINVAL;  // EINVAL: cannot sync, fine
  if (!bad) return TB_OK;
  return tb_setError("%s: write failed: %s", o->path, errno ? strerror(errno) : "an I/O error");
}

// renamed into place; the lock is held until the file is at PATH, so that no other run takes
// PATH.part for a killed run's meanwhile
static int tb_outPlace(tbOutFile* o) {
  if (!o->f) return TB_OK;
  if (!o->discard) {
    // something other than a file put at PATH during the run is not replaced either
    if (tb_fileCheckRegular(o->path) != TB_OK) return TB_ERR_ARG;
    if (rename(o->tmp, o->path) != 0)
      return tb_setError("%s: cannot rename %s to it: %s", o->path, o->tmp, strerror(errno));
  }
  fclose(o->f);
  o->f = NULL;
  return TB_OK;
}

int tb_outCommitAll(tbOutFile* const* o, int n) {
  int rc = TB_OK;
  for (int i = 0; i < n && rc == TB_OK; i++) rc = tb_outFinish(o[i]);
  for (int i = 0; i < n && rc == TB_OK; i++) rc = tb_outPlace(o[i]);
  for (int i = 0; i < n; i++) tb_outAbort(o[i]);  // those not renamed, after a failure
  for (int i = 0; i < n && rc == TB_OK; i++) {
    if (!o[i]->discard && o[i]->path[0]) rc = tb_fileSyncDir(o[i]->path);
  }
  return rc;
}

int tb_outCommit(tbOutFile* o) {
  return tb_outCommitAll(&o, 1);
}

void tb_outAbort(tbOutFile* o) {
  if (!o->f) return;
  if (!o->discard) unlink(o->tmp);  // while the lock is held: the file is still this run's
  fclose(o->f);
  o->f = NULL;
}

int tb_outRetire(tbOutFile* o) {
  if (!o->f) return 0;
  struct stat st;
  // while PATH.part's lock is held: no other run is writing PATH
  int removed = !o->discard && lstat(o->path, &st) == 0 && S_ISREG(st.st_mode) &&
                unlink(o->path) == 0;
  tb_outAbort(o);
  if (removed) tb_fileSyncDir(o->path);
  return removed;
}
