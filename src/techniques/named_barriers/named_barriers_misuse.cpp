#include "techniques/named_barriers/named_barriers_misuse.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace cudasync::named_barriers {

namespace {

std::string join(const std::vector<long long>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

bool split_numbers(const std::string& s, std::vector<long long>& out) {
  out.clear();
  if (s.empty()) return true;
  std::istringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) return false;
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (*end != '\0') return false;
    out.push_back(v);
  }
  return true;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string temp_file(const char* tag) {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/cudasync_" + tag + "_XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const int fd = mkstemp(buf.data());
  if (fd < 0) throw std::runtime_error(std::string("mkstemp failed: ") + std::strerror(errno));
  close(fd);
  return buf.data();
}

}  // namespace

const char* to_string(MisuseOutcome::Status s) {
  switch (s) {
    case MisuseOutcome::Status::ok: return "ok";
    case MisuseOutcome::Status::cuda_error: return "cuda_error";
    case MisuseOutcome::Status::timeout: return "timeout";
    case MisuseOutcome::Status::crashed: return "crashed";
  }
  return "crashed";
}

std::string format_observation(const MisuseObservation& o) {
  return "ok count=" + std::to_string(o.c.count) + " arrive=" + std::to_string(o.c.arrive_threads) +
         " arrive_ns=" + join(o.arrive_ns) + " leave_ns=" + join(o.leave_ns) + " rescue_ns=" + join(o.rescue_ns) + "\n";
}

std::string format_cuda_error(const std::string& message) {
  std::string m = message;
  std::replace(m.begin(), m.end(), '\n', ' ');
  return "cuda_error " + m + "\n";
}

bool parse_child_output(const std::string& text, MisuseOutcome& out) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.rfind("cuda_error ", 0) == 0) {
    out.status = MisuseOutcome::Status::cuda_error;
    out.message = line.substr(11);
    return true;
  }
  std::istringstream in(line);
  std::string word;
  if (!(in >> word) || word != "ok") return false;
  MisuseObservation o;
  bool have[5] = {false, false, false, false, false};
  while (in >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) return false;
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    std::vector<long long> nums;
    if (!split_numbers(value, nums)) return false;
    if (key == "count" && nums.size() == 1) o.c.count = static_cast<int>(nums[0]), have[0] = true;
    else if (key == "arrive" && nums.size() == 1) o.c.arrive_threads = static_cast<int>(nums[0]), have[1] = true;
    else if (key == "arrive_ns") o.arrive_ns = nums, have[2] = true;
    else if (key == "leave_ns") o.leave_ns = nums, have[3] = true;
    else if (key == "rescue_ns") o.rescue_ns = nums, have[4] = true;
    else return false;
  }
  if (!std::all_of(std::begin(have), std::end(have), [](bool b) { return b; })) return false;
  const auto warps = static_cast<std::size_t>(o.c.waiting_warps());
  if (o.arrive_ns.size() != warps || o.leave_ns.size() != warps) return false;
  out.status = MisuseOutcome::Status::ok;
  out.seen = o;
  return true;
}

std::vector<std::vector<int>> observed_phases(const MisuseObservation& o) {
  std::vector<int> order(o.arrive_ns.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return o.arrive_ns[static_cast<std::size_t>(a)] < o.arrive_ns[static_cast<std::size_t>(b)];
  });
  std::vector<std::vector<int>> groups;
  for (int w : order) {
    const auto wi = static_cast<std::size_t>(w);
    if (!groups.empty()) {
      const auto first = static_cast<std::size_t>(groups.back().front());
      if (o.arrive_ns[wi] < o.leave_ns[first]) {
        groups.back().push_back(w);
        continue;
      }
    }
    groups.push_back({w});
  }
  return groups;
}

std::string self_executable() {
  std::vector<char> buf(4096);
  const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) throw std::runtime_error("cannot read /proc/self/exe");
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

MisuseChild::MisuseChild(const std::string& exe, const MisuseCase& c, int id, int device, std::chrono::milliseconds timeout)
    : c_(c), timeout_(timeout) {
  out_path_ = temp_file("misuse_out");
  err_path_ = temp_file("misuse_err");
  const int other = id == 15 ? 14 : id + 1;  // --barrier-ids needs two distinct ids; the child uses the first
  std::vector<std::string> args = {exe,
                                   "named-barriers",
                                   "--misuse-child",
                                   out_path_,
                                   "--count",
                                   std::to_string(c.count),
                                   "--arrive",
                                   std::to_string(c.arrive_threads),
                                   "--barrier-ids",
                                   std::to_string(id) + "," + std::to_string(other),
                                   "--backend",
                                   "gpu",
                                   "--device",
                                   std::to_string(device),
                                   "--color",
                                   "never",
                                   "-q"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_path_.c_str(), O_WRONLY | O_TRUNC, 0);
  start_ = std::chrono::steady_clock::now();
  const int rc = posix_spawn(&pid_, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    pid_ = -1;
    std::remove(out_path_.c_str());
    std::remove(err_path_.c_str());
    throw std::runtime_error("cannot start " + exe + " for the misuse part: " + std::strerror(rc));
  }
}

MisuseChild::~MisuseChild() {
  if (pid_ > 0) {  // finish() was never called: do not leave the child behind
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::remove(out_path_.c_str());
  std::remove(err_path_.c_str());
}

MisuseOutcome MisuseChild::finish() {
  MisuseOutcome out;
  out.c = c_;
  int status = 0;
  bool timed_out = false;
  for (;;) {
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
    if (r < 0 && errno != EINTR) {
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
  const std::string err = read_all(err_path_);
  if (timed_out) {
    out.status = MisuseOutcome::Status::timeout;
    out.message = "no answer after " + std::to_string(timeout_.count()) + " ms: the child was killed";
    return out;
  }
  if (parse_child_output(read_all(out_path_), out)) return out;
  out.status = MisuseOutcome::Status::crashed;
  if (WIFSIGNALED(status)) out.message = std::string("killed by signal ") + strsignal(WTERMSIG(status));
  else out.message = "exit " + std::to_string(WEXITSTATUS(status));
  if (!err.empty()) out.message += ": " + err.substr(0, err.find_last_not_of("\n") + 1);
  return out;
}

}  // namespace cudasync::named_barriers
