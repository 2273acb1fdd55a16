// Command line: the journal of a long study (PREFIX.journal), so that --resume goes on after a
// kill where it stopped. A header naming the study, then one block per finished piece of work
// (a chunk's output rows, or bytes: scenes packed whole, an objective call's values), each with
// its length and an FNV-1a hash, flushed and fsync'd before the next piece starts. Appended to,
// or (a checkpoint that supersedes the last) written anew beside it and renamed over it. A block
// cut by a kill fails its length or hash and is dropped (the file is cut back to the last whole
// block). Of processes sharing a study, rank 0 keeps it, locked (util/file.h) from its opening
// to its removal, so that a second run on the same --out is refused instead of mixing its blocks
// in; a link or anything but a regular file at its path is refused, not followed.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/file.h"

#define TB_JOURNAL_MAGIC "tumble journal 1"

uint64_t tb_journalHash(const void* bytes, size_t n) {
  const unsigned char* s = (const unsigned char*)bytes;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 1099511628211ull;
  }
  return h;
}

static int tb_journalSync(tbJournal* j) {
  errno = 0;
  if (fflush(j->f) == 0 && !ferror(j->f) && fsync(fileno(j->f)) == 0) return 0;
  return tb_cliError("--out %s: cannot write the journal: %s", j->path,
                     errno ? strerror(errno) : "an I/O error");
}

// the journal's name in its directory on disk too, so that a power loss keeps it
static int tb_journalSyncDir(const tbJournal* j) {
  return tb_fileSyncDir(j->path) == TB_OK ? 0 : tb_cliError("--out: %s", tb_lastError());
}

// the whole file open at fd, in memory (NUL-terminated); NULL when out of memory or unreadable
static char* tb_slurp(int fd, size_t* n) {
  char* buf = NULL;
  size_t cap = 0;
  *n = 0;
  for (;;) {
    if (*n + 65536 > cap) {
      cap = 2 * cap + 65536;
      char* b = (char*)realloc(buf, cap + 1);
      if (!b) break;
      buf = b;
    }
    ssize_t k = read(fd, buf + *n, cap - *n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) break;
      free(buf);
      return NULL;
    }
    *n += (size_t)k;
  }
  if (buf) buf[*n] = 0;
  return buf;
}

// the whole blocks of text (after its header) that continue from *next, each given to replay;
// returns the bytes of text they take
static size_t tb_journalReplay(const char* text, size_t n, long* next, long* blocks,
                               tbJournalBlock replay, void* ctx) {
  size_t at = 0;
  for (;;) {
    long first, end;
    size_t len;
    unsigned long long hash;
    // the block's line, read up to its newline only: the bytes after it may be anything (a
    // format's "\n" would skip any whitespace they begin with)
    const char* nl = (const char*)memchr(text + at, '\n', n - at);
    int used = 0;
    if (!nl ||
        sscanf(text + at, "@block %ld %ld %zu %llx%n", &first, &end, &len, &hash, &used) != 4 ||
        text + at + used != nl || first != *next || end <= first || at + used + 1 + len > n ||
        tb_journalHash(nl + 1, len) != hash)
      return at;
    replay(ctx, first, end, nl + 1, len);
    *next = end;
    ++*blocks;
    at += used + 1 + len;
  }
}

// a block of rows, row by row
typedef struct tbRowSplit {
  tbJournalRow row;
  void* ctx;
} tbRowSplit;

static void tb_splitRows(void* ctx, long first, long end, const char* rows, size_t len) {
  const tbRowSplit* rs = (const tbRowSplit*)ctx;
  (void)first, (void)end;
  for (size_t i = 0; i < len;) {
    size_t k = i;
    while (k < len && rows[k] != '\n') k++;
    rs->row(rs->ctx, rows + i, k - i);
    i = k + 1;
  }
}

int tb_journalOpen(tbJournal* j, const char* path, const char* study, int resume, long* next,
                   tbJournalRow replay, void* ctx) {
  tbRowSplit rs = {replay, ctx};
  return tb_journalOpenBlocks(j, path, study, resume, next, tb_splitRows, &rs);
}

// PREFIX.journal opened and locked by rank 0 (a second run on the same --out is refused while
// the first runs): its descriptor, -1 on the other processes of a share, -2 after an error message
static int tb_journalLock(const char* path) {
  if (tb_shareRank() != 0) return -1;
  int fd = tb_fileOpenLocked(path);
  return fd >= 0 ? fd : (tb_cliError("--out: %s", tb_lastError()), -2);
}

int tb_journalOpenBlocks(tbJournal* j, const char* path, const char* study, int resume, long* next,
                         tbJournalBlock replay, void* ctx) {
  memset(j, 0, sizeof(*j));
  snprintf(j->path, sizeof(j->path), "%s", path);
  *next = 0;
  char* header = j->header;
  snprintf(header, sizeof(j->header), "%s %016llx\n", TB_JOURNAL_MAGIC,
           (unsigned long long)tb_journalHash(study, strlen(study)));
  int fd = tb_journalLock(path);
  if (fd == -2) return 2;
  size_t n = 0;
  // rank 0's reading for every process of a share (the file changes under the others' feet)
  char* text = resume && fd >= 0 ? tb_slurp(fd, &n) : NULL;
  if (resume && fd >= 0 && !text) {
    close(fd);
    return tb_cliError("--resume %s: cannot read it: %s", path, strerror(errno));
  }
  if (resume && tb_shareBytes(&text, &n) != TB_OK) {
    if (fd >= 0) close(fd);
    return tb_cliError("--resume: out of memory");
  }
  size_t keep = 0;
  if (n) {
    size_t hl = strlen(header);
    if (n < hl || memcmp(text, header, hl) != 0) {
      free(text);
      if (fd >= 0) close(fd);
      return tb_cliError(
          "--resume: %s is the journal of another study (options, seed or "
          "version differ)",
          path);
    }
    keep = hl + tb_journalReplay(text + hl, n - hl, next, &j->blocks, replay, ctx);
  }
  free(text);
  if (fd < 0) return 0;  // rank 0 keeps the journal
  // a fresh journal, or the old one cut back to its last whole block
  j->f = fdopen(fd, "r+b");
  if (!j->f) {
    close(fd);
    return tb_cliError("--out %s: cannot write the journal: %s", path, strerror(errno));
  }
  if (ftruncate(fd, (off_t)keep) != 0 || fseeko(j->f, 0, SEEK_END) != 0) {
    tb_journalClose(j, 0);
    return tb_cliError("--out %s: cannot cut the journal to its last whole block: %s", path,
                       strerror(errno));
  }
  if (!keep) fputs(header, j->f);
  return tb_journalSync(j) || tb_journalSyncDir(j);
}

void tb_journalSayResumed(const char* command, const char* unit, long done, long total,
                          const char* path) {
  if (tb_shareRank() != 0) return;  // one line for a share, not one a process
  if (done == 0) {
    fprintf(stderr, "tumble: %s: --resume: no journal at %s, starting from scratch\n", command,
            path);
  } else if (total >= 0) {
    fprintf(stderr, "tumble: %s: resumed %ld of %ld %ss from %s\n", command, done, total, unit,
            path);
  } else {
    fprintf(stderr, "tumble: %s: resumed %ld %ss from %s\n", command, done, unit, path);
  }
}

static void tb_journalBlock(FILE* f, long first, long end, const char* bytes, size_t len) {
  fprintf(f, "@block %ld %ld %zu %016llx\n", first, end, len,
          (unsigned long long)tb_journalHash(bytes, len));
  fwrite(bytes, 1, len, f);
}

int tb_journalAppend(tbJournal* j, long first, long end, const char* rows, size_t len) {
  if (!j->f) return 0;
  tb_journalBlock(j->f, first, end, rows, len);
  j->blocks++;
  return tb_journalSync(j);
}

int tb_journalReplace(tbJournal* j, long end, const char* bytes, size_t len) {
  if (!j->f) return 0;
  tbJournal fresh = *j;
  if (snprintf(fresh.path, sizeof(fresh.path), "%s.part", j->path) >= (int)sizeof(fresh.path))
    return tb_cliError("--out %.64s...: path too long", j->path);
  int fd = tb_fileCreateLocked(fresh.path);
  if (fd < 0) return tb_cliError("--out: %s", tb_lastError());
  fresh.f = fdopen(fd, "wb");
  if (!fresh.f) {
    unlink(fresh.path);
    close(fd);
    return tb_cliError("--out %s: %s", fresh.path, strerror(errno));
  }
  fputs(j->header, fresh.f);
  tb_journalBlock(fresh.f, 0, end, bytes, len);
  int rc = tb_journalSync(&fresh);
  if (!rc && rename(fresh.path, j->path) != 0)
    rc = tb_cliError("--out %s: cannot replace the journal: %s", j->path, strerror(errno));
  if (rc) {
    unlink(fresh.path);
    fclose(fresh.f);
    return rc;
  }
  // appends go to the new file, whose lock this run holds from its creation on
  fclose(j->f);
  j->f = fresh.f;
  j->blocks = 1;
  return tb_journalSyncDir(j);
}

void tb_journalClose(tbJournal* j, int done) {
  if (!j->f) return;
  if (done || j->blocks == 0) unlink(j->path);  // nothing to resume from; removed while locked
  fclose(j->f);
  j->f = NULL;
}

//---- a computation's calls ---------------------------------------------------------------------

static void tb_memoBlock(void* ctx, long first, long end, const char* bytes, size_t len) {
  tbCallMemo* mo = (tbCallMemo*)ctx;
  (void)first, (void)end;
  if (mo->oom) return;
  if (mo->ncall == mo->cap) {
    long cap = mo->cap ? 2 * mo->cap : 256;
    char** call = (char**)realloc(mo->call, sizeof(char*) * (size_t)cap);
    size_t* lens = call ? (size_t*)realloc(mo->len, sizeof(size_t) * (size_t)cap) : NULL;
    if (call) mo->call = call;
    if (!call || !lens) {
      mo->oom = 1;
      return;
    }
    mo->len = lens;
    mo->cap = cap;
  }
  char* copy = (char*)malloc(len ? len : 1);
  if (!copy) {
    mo->oom = 1;
    return;
  }
  memcpy(copy, bytes, len);
  mo->call[mo->ncall] = copy;
  mo->len[mo->ncall++] = len;
}

int tb_memoOpen(tbCallMemo* mo, const char* path, const char* study, int resume) {
  memset(mo, 0, sizeof(*mo));
  long next = 0;
  int rc = tb_journalOpenBlocks(&mo->j, path, study, resume, &next, tb_memoBlock, mo);
  if (!rc && mo->oom) rc = tb_cliError("--resume %s: out of memory", path);
  mo->next = 0;
  return rc;
}

int tb_memoLookup(tbCallMemo* mo, const void* x, size_t xbytes, void* out, size_t outbytes) {
  if (mo->next >= mo->ncall) return 0;
  uint64_t hash = tb_journalHash(x, xbytes), had;
  const char* call = mo->call[mo->next];
  if (mo->len[mo->next] != sizeof(hash) + outbytes ||
      (memcpy(&had, call, sizeof(had)), had != hash)) {
    tb_setError("--resume %s: call %ld differs from the journal's", mo->j.path, mo->next);
    return -1;
  }
  memcpy(out, call + sizeof(hash), outbytes);
  mo->next++;
  return 1;
}

int tb_memoKeep(tbCallMemo* mo, const void* x, size_t xbytes, const void* out, size_t outbytes) {
  uint64_t hash = tb_journalHash(x, xbytes);
  char* block = (char*)malloc(sizeof(hash) + outbytes);
  if (!block) {
    mo->failed = 1;
    return tb_cliError("--out %s: out of memory for the journal", mo->j.path);
  }
  memcpy(block, &hash, sizeof(hash));
  memcpy(block + sizeof(hash), out, outbytes);
  mo->failed = tb_journalAppend(&mo->j, mo->next, mo->next + 1, block, sizeof(hash) + outbytes);
  free(block);
  mo->next++;
  return mo->failed ? 2 : 0;
}

void tb_memoClose(tbCallMemo* mo, int done) {
  tb_journalClose(&mo->j, done);
  for (long k = 0; k < mo->ncall; k++) free(mo->call[k]);
  free(mo->call);
  free(mo->len);
  mo->call = NULL;
  mo->len = NULL;
  mo->ncall = mo->cap = 0;
}
