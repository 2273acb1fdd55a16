// Outputs that cannot be lost, hijacked or half-replaced (issue 66): what is at an output's path
// or its temporary and journal files is never followed or replaced unless it is a regular file,
// a second run on the same --out is refused while the first runs, a run's files are committed
// together, and a write that fails says why. Each test fails on the code before that issue.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <string>

#include "cli_runner.h"
#include "util/file.h"

#include <tumble/tumble.h>

class OutputsTest : public CliFixture {
 protected:
  // a file's bytes, written now
  void Plant(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  bool IsCharDevice(const std::string& path) {
    struct stat st;
    return lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
  }
  // a short simulate run writing out (two files: out and its -scenes summary)
  CliResult Simulate(const std::string& out, const std::string& env = "") {
    return RunCli({"simulate", "box-stack", "--scenes", "3", "--steps", "20", "--out", out}, env);
  }
};

// bug: PATH.part was renamed over whatever was at PATH, so --out /dev/null (as root) turned the
// device into a regular file; a named pipe was replaced the same way
TEST_F(OutputsTest, AnOutputThatIsADeviceOrPipeIsRefusedAndKept) {
  std::string fifo = Path("pipe.csv");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  CliResult r = Simulate(fifo);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("is a named pipe"), std::string::npos) << r.err;
  struct stat st;
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the pipe was replaced";
  if (geteuid() != 0) GTEST_SKIP() << "mknod of a device needs root";
  std::string dev = Path("null");
  ASSERT_EQ(mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  r = Simulate(dev);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("is a device"), std::string::npos) << r.err;
  EXPECT_TRUE(IsCharDevice(dev)) << "the device node was replaced by a regular file";
}

// bug: the temporary and journal files were opened with fopen("w"), so a symbolic link planted
// at PATH.part or PATH.journal had its target overwritten (or truncated)
TEST_F(OutputsTest, LinksPlantedAtTheTemporaryOrJournalFileAreNotFollowed) {
  std::string victim = Path("victim"), out = Path("p.csv");
  Plant(victim, "precious\n");
  for (const char* planted : {".part", ".journal"}) {
    ASSERT_EQ(symlink(victim.c_str(), (out + planted).c_str()), 0);
    CliResult r = Simulate(out);
    EXPECT_EQ(r.status, 2) << planted << ": " << r.err;
    EXPECT_NE(r.err.find("is a symbolic link"), std::string::npos) << r.err;
    EXPECT_EQ(ReadFile(victim), "precious\n") << "written through the link at " << planted;
    EXPECT_FALSE(Exists(out)) << planted;
    std::remove((out + planted).c_str());
  }
  // and a link at PATH itself: refused too (replacing it would drop the user's link)
  ASSERT_EQ(symlink(victim.c_str(), out.c_str()), 0);
  CliResult r = Simulate(out);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(ReadFile(victim), "precious\n");
}

// bug: a directory at --out failed only after the whole computation, as "write failed" with no
// reason; it is now refused before the run, saying what is there
TEST_F(OutputsTest, ADirectoryAtOutIsRefusedBeforeTheRunWithTheReason) {
  std::string out = Path("d.csv");
  ASSERT_EQ(mkdir(out.c_str(), 0700), 0);
  CliResult r = Simulate(out);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("d.csv is a directory"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("scenes in"), std::string::npos) << "the run went ahead: " << r.err;
}

// bug: files were renamed one at a time, so with d2-scenes.csv a directory the run exited 2 with
// d2.csv already holding the new run; now every path is checked first and the earlier d2.csv is
// left as it was
TEST_F(OutputsTest, AFailingSecondFileLeavesTheFirstAsItWas) {
  std::string out = Path("d2.csv");
  Plant(out, "earlier\n");
  ASSERT_EQ(mkdir(Path("d2-scenes.csv").c_str(), 0700), 0);
  CliResult r = Simulate(out);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("d2-scenes.csv is a directory"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(out), "earlier\n");
  EXPECT_FALSE(Exists(out + ".part"));
  // grasp: X.csv a directory, X-trials.csv not committed
  std::string x = Path("x");
  Plant(x + "-trials.csv", "earlier\n");
  ASSERT_EQ(mkdir((x + ".csv").c_str(), 0700), 0);
  r = RunCli({"grasp", "--grid", "1x1", "--trials", "1", "--out", x});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(ReadFile(x + "-trials.csv"), "earlier\n");
}

// bug: grasp renamed its CSVs, removed the journal and only then wrote the PNG, so a PNG that
// failed (here: past a file-size limit the small CSVs stay under) left new CSVs beside an old PNG
// and no journal. Now all of a condition's files are written and fsync'd before any is renamed,
// and the failure says why (EFBIG, with SIGXFSZ ignored so that the limit does not kill tumble)
TEST_F(OutputsTest, AWriteThatFailsLateCommitsNoneOfTheRunsFilesAndSaysWhy) {
  std::string g = Path("g");
  for (const char* f : {".csv", "-trials.csv", ".png"}) Plant(g + f, "earlier\n");
  CliResult r = RunCli({"grasp", "--grid", "1x1", "--trials", "1", "--out", g}, "ulimit -f 8; ");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  for (const char* f : {".csv", "-trials.csv", ".png"}) {
    EXPECT_EQ(ReadFile(g + f), "earlier\n") << f << " was replaced by a failed run";
    EXPECT_FALSE(Exists(g + f + ".part")) << f;
  }
  // without the limit the same run writes all three
  r = RunCli({"grasp", "--grid", "1x1", "--trials", "1", "--out", g});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ReadFile(g + ".png").substr(1, 3), "PNG");
}

// bug: plate optimize stopped by Ctrl-C wrote its best motion so far without that motion's field,
// and an earlier run's PREFIX-field.csv and .png stayed beside it, read as the new best's field.
// The interrupted run's set replaces the earlier set whole: the files it did not write are gone,
// and it says so
TEST_F(OutputsTest, AnInterruptedSearchLeavesNoEarlierFieldBesideItsBest) {
  std::string o = Path("o");
  CliResult r = RunCli({"plate", "optimize", "--target", "circle", "--optimizer", "nelder-mead",
                        "--evals", "20", "--starts", "4", "--out", o});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(Exists(o + "-field.csv") && Exists(o + "-field.png"));
  r = RunCliInterrupted({"plate", "optimize", "--target", "circle", "--optimizer", "nelder-mead",
                         "--evals", "100000", "--starts", "4", "--threads", "1", "--out", o},
                        1.5);
  ASSERT_EQ(r.status, 130) << r.err;
  EXPECT_NE(r.out.find("\"partial\": true"), std::string::npos) << r.out;
  EXPECT_TRUE(Exists(o + "-best.csv"));
  for (const char* f : {"-field.csv", "-field.png"}) {
    EXPECT_FALSE(Exists(o + f)) << f << ": an earlier run's field beside this run's best";
    EXPECT_FALSE(Exists(o + f + ".part")) << f;
    EXPECT_NE(r.err.find(o + f + " removed"), std::string::npos) << r.err;
  }
}

// bug: two runs on one --out shared PREFIX.part and PREFIX.journal: the first reported success
// and the files held the second's results. The second is now refused while the first runs, and
// the first's files are its own
TEST_F(OutputsTest, ASecondRunOnTheSameOutIsRefusedWhileTheFirstRuns) {
  std::string out = Path("c.csv"), cli = Quote(TUMBLE_CLI);
  std::string first = cli + " simulate box-stack --scenes 600 --steps 1200 --threads 1 --out " +
                      Quote(out) + " >/dev/null 2>" + Quote(Path("a.err"));
  std::string second = cli + " simulate box-stack --scenes 2 --steps 5 --out " + Quote(out) +
                       " >/dev/null 2>" + Quote(Path("b.err"));
  // the second starts once the first holds its temporary file, and ends long before the first
  CliResult r = RunShell("sh -c " + Quote(first + " & p=$!; while [ ! -e " + Quote(out + ".part") +
                                          " ]; do sleep 0.05; done; " + second +
                                          "; echo second=$?; wait $p; echo first=$?"));
  EXPECT_NE(r.out.find("second=2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first=0"), std::string::npos) << r.out << ReadFile(Path("a.err"));
  std::string err = ReadFile(Path("b.err"));
  EXPECT_NE(err.find("another run is writing it"), std::string::npos) << err;
  // the summary is the first run's: 600 scenes and a header
  EXPECT_EQ(Lines(ReadFile(Path("c-scenes.csv"))).size(), 601u);
}

// the locks themselves: a file another holder has locked is refused, one nobody holds (a killed
// run's) is replaced, and what is planted at the path is never opened through
TEST_F(OutputsTest, LockedFilesAreRefusedAndAKilledRunsFileIsReplaced) {
  std::string p = Path("j.journal");
  int a = tb_fileOpenLocked(p.c_str());
  ASSERT_GE(a, 0) << tb_lastError();
  // a second open file description conflicts under flock(2) even within one process
  EXPECT_EQ(tb_fileOpenLocked(p.c_str()), -1);
  EXPECT_NE(std::string(tb_lastError()).find("another run"), std::string::npos) << tb_lastError();
  close(a);  // the holder dies: its lock goes with it
  int b = tb_fileOpenLocked(p.c_str());
  EXPECT_GE(b, 0) << tb_lastError();
  close(b);
  std::string t = Path("t.part");
  Plant(t, "a killed run's\n");
  int c = tb_fileCreateLocked(t.c_str());
  ASSERT_GE(c, 0) << tb_lastError();
  EXPECT_EQ(ReadFile(t), "") << "a killed run's file is replaced, not appended to";
  EXPECT_EQ(tb_fileCreateLocked(t.c_str()), -1) << "a file a live holder has locked is replaced";
  close(c);
  std::string victim = Path("v");
  Plant(victim, "kept\n");
  std::string link = Path("l.part");
  ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
  EXPECT_EQ(tb_fileCreateLocked(link.c_str()), -1);
  EXPECT_EQ(tb_fileOpenLocked(link.c_str()), -1);
  EXPECT_EQ(ReadFile(victim), "kept\n");
}
