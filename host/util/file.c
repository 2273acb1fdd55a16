// Files a run writes, opened safely (host/util/file.h).
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

// a run that keeps losing the race for a path gives up after this many tries
#define TB_FILE_TRIES 16

static const char* tb_fileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a named pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

int tb_fileCheckRegular(const char* path) {
  struct stat st;
  if (lstat(path, &st) != 0) {
    if (errno == ENOENT) return TB_OK;
    return tb_setError("%s: %s", path, strerror(errno));
  }
  if (S_ISREG(st.st_mode)) return TB_OK;
  return tb_setError("%s is %s: tumble writes and replaces only regular files", path,
                     tb_fileKind(st.st_mode));
}

static int tb_fileBusy(const char* path) {
  return tb_setError(
      "%s: another run is writing it (the file is locked); wait for that run to end "
      "or choose another output name",
      path);
}

// lock fd and make sure it is still the regular file at path: another run may have removed or
// replaced it between the open and the lock. 1 locked and current, 0 not current (open again),
// -1 another process holds the lock, -2 locking failed (tb_setError)
static int tb_lockCurrent(int fd, const char* path) {
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) return -1;
    tb_setError("%s: cannot lock it: %s", path, strerror(errno));
    return -2;
  }
  struct stat a, b;
  if (fstat(fd, &a) != 0 || lstat(path, &b) != 0) return 0;
  return S_ISREG(a.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// the file at path (created by someone else) locked: held by a live run (refused), or left by a
// killed one (removed, so that the caller creates it anew). 0 to try again, -1 after tb_setError
static int tb_clearStale(const char* path) {
  int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return 0;  // gone meanwhile
    int e = errno;
    if (tb_fileCheckRegular(path) == TB_OK) tb_setError("%s: %s", path, strerror(e));
    return -1;
  }
  int st = tb_lockCurrent(fd, path);
  if (st == 1 && unlink(path) != 0) {
    tb_setError("%s: a killed run's file that cannot be removed: %s", path, strerror(errno));
    st = -2;
  }
  close(fd);
  if (st == -1) tb_fileBusy(path);
  return st < 0 ? -1 : 0;
}

// fd, just opened at path, locked and still the file there: fd; -1 (fd closed) after an error;
// TB_FILE_AGAIN (fd closed) when path changed meanwhile
#define TB_FILE_AGAIN -2
static int tb_keepLocked(int fd, const char* path) {
  int st = tb_lockCurrent(fd, path);
  if (st == 1) return fd;
  close(fd);
  if (st == -1) tb_fileBusy(path);
  return st == 0 ? TB_FILE_AGAIN : -1;
}

int tb_fileCreateLocked(const char* path) {
  for (int i = 0; i < TB_FILE_TRIES; i++) {
    if (tb_fileCheckRegular(path)) return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno != EEXIST) return tb_setError("%s: cannot write it: %s", path, strerror(errno)), -1;
      if (tb_clearStale(path)) return -1;
      continue;
    }
    if ((fd = tb_keepLocked(fd, path)) != TB_FILE_AGAIN) return fd;
  }
  return tb_setError("%s: kept changing while being opened", path), -1;
}

int tb_fileOpenLocked(const char* path) {
  for (int i = 0; i < TB_FILE_TRIES; i++) {
    if (tb_fileCheckRegular(path)) return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0) return tb_setError("%s: cannot open it: %s", path, strerror(errno)), -1;
    if ((fd = tb_keepLocked(fd, path)) != TB_FILE_AGAIN) return fd;
  }
  return tb_setError("%s: kept changing while being opened", path), -1;
}

int tb_fileSyncDir(const char* path) {
  char dir[4200];
  const char* slash = strrchr(path, '/');
  if (!slash) {
    snprintf(dir, sizeof(dir), ".");
  } else {
    int n = slash == path ? 1 : (int)(slash - path);
    snprintf(dir, sizeof(dir), "%.*s", n, path);
  }
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return tb_setError("%s: cannot open its directory: %s", path, strerror(errno));
  int rc = fsync(fd) == 0 || errno == EINVAL || errno == EROFS
               ? TB_OK
               : tb_setError("%s: cannot sync its directory: %s", path, strerror(errno));
  close(fd);
  return rc;
}
