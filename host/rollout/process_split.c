// Rollouts split over the processes of a share (tumble.h, tbShare). Each process runs its part
// of the scenes; the parts then travel to every process, packed scene by scene: the scene's
// arrays (its tbData row), its records and its probe output. A scene's result does not depend
// on which process, thread or chunk ran it, so every process ends with the batch one process
// would have made, and the work around the rollouts (tallies, resampling, an optimizer's next
// step) goes on identically everywhere without further messages.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "util/error.h"
#include "engine/stage_probe.h"
#include "rollout/rollout.h"

static const tbShare* tb_theShare;

void tb_setShare(const tbShare* share) {
  tb_theShare = share && share->size > 1 ? share : NULL;
  tbRunSettings r = tb_defaultRunSettings();
  r.share = tb_theShare;
  tb_setRunDefaults(&r);
}

int tb_shareRank(void) {
  return tb_theShare ? tb_theShare->rank : 0;
}

int tb_shareRoot(int v) {
  if (tb_theShare) tb_theShare->bcast(tb_theShare->ctx, &v, sizeof(v));
  return v;
}

int tb_shareBytes(char** buf, size_t* n) {
  if (!tb_theShare) return TB_OK;
  // the size first (-1: none), so that every process knows whether bytes follow
  long long len = *buf ? (long long)*n : -1;
  tb_theShare->bcast(tb_theShare->ctx, &len, sizeof(len));
  if (len < 0) return TB_OK;
  if (tb_theShare->rank != 0) {
    *n = (size_t)len;
    *buf = (char*)malloc(*n + 1);
    if (*buf) (*buf)[*n] = 0;
  }
  // in pieces, so that a process without room for the whole still takes part in each message
  enum { piece = 1 << 16 };
  static char discard[piece];
  for (size_t at = 0; at < (size_t)len; at += piece) {
    size_t k = (size_t)len - at < piece ? (size_t)len - at : piece;
    tb_theShare->bcast(tb_theShare->ctx, *buf ? *buf + at : discard, k);
  }
  if (*buf) return TB_OK;
  *n = 0;
  return tb_setError("share: out of memory for %lld bytes", len);
}

//---- split rollouts ----------------------------------------------------------------------------

// the head of a process's part: its rollout's return code and error message
typedef struct tbPartHead {
  int rc;
  char msg[252];
} tbPartHead;

// A batch is dealt out in blocks of contiguous scenes, block k to process k mod size, four per
// process: neighbouring scenes often cost alike (a grasp's cell, a field's row), and halves would
// leave one process waiting on the other (grasp under 2 processes: 1.10 times one, blocks:
// bench/results/mpi-*.md). Each block is one rollout (the GPU's launch, or OpenMP over the
// process's threads). The size depends on the batch and the process count only: every process
// must deal the same hands.
static int tb_blockSize(int s0, int s1, int size) {
  long blocks = 4L * size, n = s1 - s0;
  return n > blocks ? (int)((n + blocks - 1) / blocks) : 1;
}

// the scenes of process r
static int tb_partScenes(int s0, int s1, int r, int size) {
  int B = tb_blockSize(s0, s1, size), n = 0;
  for (long a = s0 + (long)r * B; a < s1; a += (long)size * B) n += (int)(a + B < s1 ? B : s1 - a);
  return n;
}

size_t tb_packedBytes(const tbModel* m, const tbRecord* rec, const tbProbe* probe) {
  size_t bytes = sizeof(double) * tb_sceneWords(m) + tb_probeSceneBytes(probe);
  if (rec) bytes += sizeof(double) * (size_t)rec->nrecord * ((size_t)m->nbody * 13 + 1);
  return (bytes + 7) & ~(size_t)7;
}

// scene s to or from buf, 8-byte aligned
static void tb_packScene(const tbModel* m, tbData* d, int s, tbRecord* rec, const tbProbe* probe,
                         char* buf, int pack) {
  tbData one = tb_sceneOver(m, (double*)buf);
  if (pack) {
    tb_sceneCopy(d, s, &one, 0);
  } else {
    tb_sceneCopy(&one, 0, d, s);
  }
  char* at = buf + sizeof(double) * tb_sceneWords(m);
  // the records: nrecord states of nbody x 13, then nrecord times
  size_t nstate = rec ? (size_t)rec->nrecord * m->nbody * 13 : 0;
  size_t ntime = rec ? (size_t)rec->nrecord : 0;
  char* block[3] = {rec ? (char*)(rec->state + (size_t)s * nstate) : NULL,
                    rec ? (char*)(rec->time + (size_t)s * ntime) : NULL,
                    probe ? tb_probeOut(probe) + (size_t)s * tb_probeSceneBytes(probe) : NULL};
  size_t bytes[3] = {sizeof(double) * nstate, sizeof(double) * ntime, tb_probeSceneBytes(probe)};
  for (int k = 0; k < 3; k++) {
    if (!block[k]) continue;
    memcpy(pack ? at : block[k], pack ? block[k] : at, bytes[k]);
    at += bytes[k];
  }
}

int tb_packScenes(const tbModel* m, tbData* d, int s0, int s1, tbRecord* rec, const tbProbe* probe,
                  char* buf, int pack) {
  size_t per = tb_packedBytes(m, rec, probe);
  if ((uintptr_t)buf % sizeof(double) == 0) {
    for (int s = s0; s < s1; s++) tb_packScene(m, d, s, rec, probe, buf + per * (s - s0), pack);
    return TB_OK;
  }
  // elsewhere each scene goes through an aligned copy (zeroed: its padding is part of the bytes)
  char* one = (char*)calloc(per, 1);
  if (!one) return tb_setError("out of memory for a scene's %zu bytes", per);
  for (int s = s0; s < s1; s++) {
    char* at = buf + per * (s - s0);
    if (!pack) memcpy(one, at, per);
    tb_packScene(m, d, s, rec, probe, one, pack);
    if (pack) memcpy(at, one, per);
  }
  free(one);
  return TB_OK;
}

int tb_rolloutShared(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec,
                     const tbProbe* probe) {
  const tbShare* sh = d->run.share;
  size_t per = tb_packedBytes(m, rec, probe), total = 0, mine = 0;
  size_t* bytes = (size_t*)malloc(sizeof(size_t) * (size_t)sh->size);
  if (!bytes) return tb_setError("rollout: out of memory for %d processes", sh->size);
  for (int r = 0; r < sh->size; r++) {
    if (r == sh->rank) mine = total;
    bytes[r] = sizeof(tbPartHead) + per * (size_t)tb_partScenes(s0, s1, r, sh->size);
    total += bytes[r];
  }
  char* all = (char*)calloc(total, 1);  // zeroed: no padding byte travels undefined
  if (!all) {
    free(bytes);
    return tb_setError("rollout: out of memory for the %zu bytes of %d scenes", total, s1 - s0);
  }
  int B = tb_blockSize(s0, s1, sh->size);
  long step = (long)sh->size * B;
  tbPartHead head;
  memset(&head, 0, sizeof(head));
  char* at = all + mine + sizeof(head);
  for (long a = s0 + (long)sh->rank * B; a < s1 && head.rc == TB_OK; a += step) {
    int b = a + B < s1 ? (int)a + B : s1;
    head.rc = tb_rolloutHere(m, d, (int)a, b, nstep, rec, probe);
    tb_packScenes(m, d, (int)a, b, rec, probe, at, 1);  // aligned: no scratch, cannot fail
    at += per * (size_t)(b - a);
  }
  if (head.rc != TB_OK) snprintf(head.msg, sizeof(head.msg), "%s", tb_lastError());
  memcpy(all + mine, &head, sizeof(head));
  sh->allgather(sh->ctx, all, bytes);
  // every process reads the parts in rank order: all return the first failure
  int rc = TB_OK;
  at = all;
  for (int r = 0; r < sh->size; at += bytes[r], r++) {
    memcpy(&head, at, sizeof(head));
    if (head.rc != TB_OK && rc == TB_OK) {
      rc = head.rc;
      tb_setError("rollout on process %d of %d: %s", r, sh->size, head.msg);
    }
    if (r == sh->rank || head.rc != TB_OK) continue;
    char* from = at + sizeof(head);
    for (long a = s0 + (long)r * B; a < s1; a += step) {
      int b = a + B < s1 ? (int)a + B : s1;
      tb_packScenes(m, d, (int)a, b, rec, probe, from, 0);
      from += per * (size_t)(b - a);
    }
    tb_countScenes(tb_partScenes(s0, s1, r, sh->size));
  }
  free(all);
  free(bytes);
  return rc;
}
