// Output files written whole (host/jobs/outfile.h).
#include "jobs/outfile.h"

#include <errno.h>
#include <string.h>

#include <tumble/tumble.h>

#include "util/error.h"

int tb_outOpen(tbOutFile* o, const char* path) {
  memset(o, 0, sizeof(*o));
  size_t n = strlen(path);
  if (!n || path[n - 1] == '/') return tb_setError("%s: a file name is needed", path);
  if (snprintf(o->path, sizeof(o->path), "%s", path) >= (int)sizeof(o->path) ||
      snprintf(o->tmp, sizeof(o->tmp), "%s.part", path) >= (int)sizeof(o->tmp)) {
    return tb_setError("%.64s...: path longer than %d characters", path, (int)sizeof(o->path) - 1);
  }
  o->discard = tb_shareRank() != 0;
  o->f = fopen(o->discard ? "/dev/null" : o->tmp, "w");
  if (!o->f) return tb_setError("%s: cannot write: %s", path, strerror(errno));
  return TB_OK;
}

int tb_outCommit(tbOutFile* o) {
  if (!o->f) return TB_OK;
  int bad = ferror(o->f) | fclose(o->f);
  o->f = NULL;
  if (o->discard) return TB_OK;
  if (bad || rename(o->tmp, o->path)) {
    remove(o->tmp);
    return tb_setError("%s: write failed", o->path);
  }
  return TB_OK;
}

void tb_outAbort(tbOutFile* o) {
  if (!o->f) return;
  fclose(o->f);
  o->f = NULL;
  if (!o->discard) remove(o->tmp);
}
