// What every bench/ table's header says about the run: date, machine, commit, load.
#ifndef TUMBLE_BENCH_MACHINE_H_
#define TUMBLE_BENCH_MACHINE_H_

#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct tbbMachine {
  char date[64];  // UTC
  char cpu[256];  // /proc/cpuinfo model name
  char nproc[32];
  char commit[64];  // git describe --dirty of the source tree (TUMBLE_SOURCE_DIR)
  char load[64];    // 1, 5, 15 min load averages
} tbbMachine;

// first line a shell command prints, without its newline ("" if none)
static inline void tbb_shellLine(const char* cmd, char* out, size_t n) {
  out[0] = '\0';
  FILE* f = popen(cmd, "r");
  if (!f) return;
  if (fgets(out, (int)n, f)) out[strcspn(out, "\n")] = '\0';
  pclose(f);
}

static inline void tbb_unknownIfEmpty(char* s, size_t n) {
  if (!s[0]) snprintf(s, n, "unknown");
}

static inline void tbb_machine(tbbMachine* m) {
  time_t now = time(NULL);
  strftime(m->date, sizeof(m->date), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
  m->cpu[0] = '\0';
  char line[512];
  FILE* f = fopen("/proc/cpuinfo", "r");
  while (f && fgets(line, sizeof(line), f)) {
    char* c = strchr(line, ':');
    if (!strncmp(line, "model name", 10) && c) {
      snprintf(m->cpu, sizeof(m->cpu), "%s", c + 2);
      m->cpu[strcspn(m->cpu, "\n")] = '\0';
      break;
    }
  }
  if (f) fclose(f);
  tbb_shellLine("nproc", m->nproc, sizeof(m->nproc));
  tbb_shellLine("git -C " TUMBLE_SOURCE_DIR " describe --always --dirty --abbrev=7 2>/dev/null",
                m->commit, sizeof(m->commit));
  tbb_shellLine("cut -d' ' -f1-3 /proc/loadavg", m->load, sizeof(m->load));
  tbb_unknownIfEmpty(m->cpu, sizeof(m->cpu));
  tbb_unknownIfEmpty(m->nproc, sizeof(m->nproc));
  tbb_unknownIfEmpty(m->commit, sizeof(m->commit));
  tbb_unknownIfEmpty(m->load, sizeof(m->load));
}

#endif  // TUMBLE_BENCH_MACHINE_H_
