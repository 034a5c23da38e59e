#include "support/run_cli.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cudasync::test {

namespace {

// Every run of the binary from a test keeps its progress state (core/course/progress.hpp) in a
// folder of its own, never in the real home: XDG_STATE_HOME is set before the first test runs. A
// test that needs its own folder names it on the command line (XDG_STATE_HOME=DIR cudasync ...).
std::string& state_dir() {
  static std::string dir;
  return dir;
}

[[maybe_unused]] const bool kStateIsolated = [] {
  char dir[] = "/tmp/cudasync_test_state_XXXXXX";
  if (mkdtemp(dir) == nullptr) throw std::runtime_error("mkdtemp failed");
  state_dir() = dir;
  setenv("XDG_STATE_HOME", dir, 1);
  // The language comes from the locale (core/words/language.hpp): tests see English unless they
  // ask for Chinese with --lang zh or LANG=zh_CN.UTF-8 on their command line.
  unsetenv("LC_ALL");
  unsetenv("LC_MESSAGES");
  setenv("LANG", "C.UTF-8", 1);
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(state_dir(), ec);
  });
  return true;
}();

}  // namespace

std::string binary_path() { return CUDASYNC_BINARY; }
std::string source_dir() { return CUDASYNC_SOURCE_DIR; }

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

CliResult run_shell(const std::string& command_line) {
  char err_path[] = "/tmp/cudasync_test_stderr_XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  // bash for pipefail: `cudasync ... | jq` fails when cudasync fails, not only when jq does.
  // Text is wrapped to $COLUMNS (80 when unset): tests that look for a phrase in a table cell read
  // it at 160 columns, where it stays on one line; tests of the fit set COLUMNS themselves.
  std::string cmd = "bash -o pipefail -c 'export COLUMNS=\"${CUDASYNC_TEST_COLUMNS:-160}\"; ";
  for (char c : command_line) cmd += c == '\'' ? std::string("'\\''") : std::string(1, c);
  cmd += "' 2>" + std::string(err_path);
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + cmd);
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(err_path);
  std::remove(err_path);
  return r;
}

std::string with_binary(const std::string& shown) {
  const std::string word = "cudasync";
  if (shown.rfind(word, 0) != 0) throw std::runtime_error("not a cudasync command: " + shown);
  return "'" + binary_path() + "'" + shown.substr(word.size());
}

CliResult run_cli(const std::string& args) {
  return run_shell("'" + binary_path() + "' " + args);
}

}  // namespace cudasync::test
