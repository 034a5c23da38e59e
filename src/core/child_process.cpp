#include "core/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace cudasync {

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string make_temp_file(const std::string& tag, const char* what) {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/cudasync_" + tag + "_" + what + "_XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const int fd = mkstemp(buf.data());
  if (fd < 0) throw std::runtime_error(std::string("mkstemp failed: ") + std::strerror(errno));
  close(fd);
  return buf.data();
}

const char* to_string(ChildResult::Status s) {
  switch (s) {
    case ChildResult::Status::exited: return "exited";
    case ChildResult::Status::signaled: return "signaled";
    case ChildResult::Status::timeout: return "timeout";
    case ChildResult::Status::lost: return "lost";
  }
  return "lost";
}

std::string ChildResult::describe() const {
  std::string s;
  switch (status) {
    case Status::exited: s = "exit " + std::to_string(exit_code); break;
    case Status::signaled: s = std::string("killed by signal ") + strsignal(signal); break;
    case Status::timeout:
    case Status::lost: s = message; break;
  }
  const auto last = err.find_last_not_of("\n");
  if (last != std::string::npos) s += ": " + err.substr(0, last + 1);
  return s;
}

ChildProcess::ChildProcess(const std::string& exe, std::vector<std::string> args, std::chrono::milliseconds timeout,
                           const std::string& tag, const std::vector<std::string>& env)
    : timeout_(timeout) {
  out_path_ = make_temp_file(tag, "out");
  err_path_ = make_temp_file(tag, "err");
  args.insert(args.begin(), exe);
  for (auto& a : args)
    if (a == kOutToken) a = out_path_;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_path_.c_str(), O_WRONLY | O_TRUNC, 0);
  start_ = std::chrono::steady_clock::now();
  // This process's environment, each NAME in `env` replaced by its entry there.
  std::vector<std::string> entries(env);
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& given : env) replaced = replaced || given.substr(0, given.find('=')) == name;
    if (!replaced) entries.push_back(entry);
  }
  std::vector<char*> envp;
  for (auto& e : entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int rc = posix_spawn(&pid_, exe.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    pid_ = -1;
    std::remove(out_path_.c_str());
    std::remove(err_path_.c_str());
    throw std::runtime_error("cannot start " + exe + ": " + std::strerror(rc));
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {  // finish() was never called: do not leave the child behind
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::remove(out_path_.c_str());
  std::remove(err_path_.c_str());
}

ChildResult ChildProcess::finish() {
  ChildResult out;
  int status = 0;
  bool timed_out = false;
  for (;;) {
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
    if (r < 0 && errno != EINTR) {
      out.status = ChildResult::Status::lost;
      out.message = std::string("waitpid failed: ") + std::strerror(errno);
      pid_ = -1;
      return out;
    }
    if (std::chrono::steady_clock::now() - start_ > timeout_) {
      kill(pid_, SIGKILL);  // a hung kernel dies with its process; the driver frees the context
      waitpid(pid_, &status, 0);
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  pid_ = -1;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  out.err = read_all(err_path_);
  if (timed_out) {
    out.status = ChildResult::Status::timeout;
    out.message = "no answer after " + std::to_string(timeout_.count()) + " ms: the child was killed";
    return out;
  }
  out.output = read_all(out_path_);
  if (WIFSIGNALED(status)) {
    out.status = ChildResult::Status::signaled;
    out.signal = WTERMSIG(status);
  } else {
    out.status = ChildResult::Status::exited;
    out.exit_code = WEXITSTATUS(status);
  }
  return out;
}

std::string self_executable() {
  std::vector<char> buf(4096);
  const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) throw std::runtime_error("cannot read /proc/self/exe");
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

}  // namespace cudasync
