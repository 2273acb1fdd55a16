// Running the real `tumble` binary from tests: a private scratch directory per test, the
// command's exit status, stdout and stderr.
#ifndef TUMBLE_TESTS_CLI_RUNNER_H_
#define TUMBLE_TESTS_CLI_RUNNER_H_

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

struct CliResult {
  int status = -1;  // exit status, or -1 when the process did not exit normally
  std::string out;  // stdout
  std::string err;  // stderr
};

// single-quoted for sh
inline std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// the lines of s, without their newlines
inline std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string line;
  while (std::getline(ss, line)) v.push_back(line);
  return v;
}

// the fields of s between the separators (an empty field stays)
inline std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> v;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      v.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  v.push_back(cur);
  return v;
}

// a test with its own scratch directory, removed afterwards, and a way to run the CLI in it
class CliFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tumble_test_XXXXXX";
    char* d = mkdtemp(tmpl);
    ASSERT_NE(d, nullptr) << "mkdtemp failed";
    dir_ = d;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // `env tumble args...`: stdout through popen, stderr through the scratch file .stderr
  CliResult RunCli(const std::vector<std::string>& args, const std::string& env = "") {
    std::string cmd = env + Quote(TUMBLE_CLI);
    for (const auto& a : args) cmd += " " + Quote(a);
    return RunShell(cmd);
  }

  // the same, sent Ctrl-C's signal (SIGINT) after `seconds`
  CliResult RunCliInterrupted(const std::vector<std::string>& args, double seconds) {
    std::string cmd = Quote(TUMBLE_CLI);
    for (const auto& a : args) cmd += " " + Quote(a);
    return RunShell("sh -c " + Quote(cmd + " 2>" + Quote(Path(".stderr")) + " & p=$!; sleep " +
                                     std::to_string(seconds) + "; kill -INT $p; wait $p"));
  }

  // `tumble args...` killed by SIGKILL after `seconds`, its output discarded
  void RunKilledAfter(const std::vector<std::string>& args, double seconds) {
    std::string cmd = Quote(TUMBLE_CLI);
    for (const auto& a : args) cmd += " " + Quote(a);
    RunShell("sh -c " +
             Quote(cmd + " >/dev/null 2>&1 & p=$!; sleep " + std::to_string(seconds) +
                   "; kill -9 $p; wait $p") +
             " 2>/dev/null");
  }

  // exit 2 and one "tumble: error:" line on stderr naming each of `names` and none of `never`
  void ExpectRefused(const std::vector<std::string>& args, const std::vector<std::string>& names,
                     const std::vector<std::string>& never = {}) {
    std::string desc;
    for (const auto& a : args) desc += " " + a;
    CliResult r = RunCli(args);
    EXPECT_EQ(r.status, 2) << "tumble" << desc << "\nstdout: " << r.out << "\nstderr: " << r.err;
    EXPECT_EQ(r.err.rfind("tumble: error: ", 0), 0u) << "tumble" << desc << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1)
        << "tumble" << desc << ": not one line:\n"
        << r.err;
    for (const auto& nm : names) {
      EXPECT_NE(r.err.find(nm), std::string::npos)
          << "tumble" << desc << ": message does not name '" << nm << "': " << r.err;
    }
    for (const auto& nm : never) {
      EXPECT_EQ(r.err.find(nm), std::string::npos)
          << "tumble" << desc << ": message says '" << nm << "': " << r.err;
    }
  }

  CliResult RunShell(std::string cmd) {
    std::string errpath = Path(".stderr");
    if (cmd.find(" 2>") == std::string::npos) cmd += " 2>" + Quote(errpath);
    CliResult r;
    FILE* p = popen(cmd.c_str(), "r");
    EXPECT_NE(p, nullptr) << cmd;
    if (!p) return r;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
    int st = pclose(p);
    r.status = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
    r.err = ReadFile(errpath);
    std::remove(errpath.c_str());
    return r;
  }

  std::string dir_;
};

#endif  // TUMBLE_TESTS_CLI_RUNNER_H_
