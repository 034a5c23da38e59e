#include "techniques/deadlock_demo/deadlock_demo_child.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>

#include "core/child_process.hpp"
#include "core/number_list.hpp"
#include "core/parts/child.hpp"

namespace cudasync::deadlock_demo {

namespace {

std::string one_line(std::string m) {
  std::replace(m.begin(), m.end(), '\n', ' ');
  return m;
}

bool executable(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string format_observations(const std::vector<BarrierObservation>& cases, const Health& health) {
  std::string s = "ok\n";
  for (const auto& o : cases) {
    s += "case\n";
    s += "threads " + std::to_string(o.threads) + "\n";
    s += "present " + std::to_string(o.present) + "\n";
    s += "variant " + std::to_string(o.variant) + "\n";
    s += "deadline_ns " + std::to_string(o.deadline_ns) + "\n";
    s += std::string("hung ") + (o.hung ? "1" : "0") + "\n";
    s += "watched_ms " + std::to_string(o.watched_ms) + "\n";
    s += "arrive_ns " + join_numbers(o.arrive_ns) + "\n";
    s += "leave_ns " + join_numbers(o.leave_ns) + "\n";
    s += "progress_ns " + join_numbers(o.progress_ns) + "\n";
    s += "state " + join_numbers(o.state) + "\n";
  }
  s += std::string("health ") + (!health.ran ? "none " : health.ok ? "ok " : "fail ") + one_line(health.detail) + "\n";
  return s;
}

std::string format_child_error(const std::string& message) { return "cuda_error " + one_line(message) + "\n"; }

const char* to_string(ChildOutcome::Status s) {
  switch (s) {
    case ChildOutcome::Status::ok: return "ok";
    case ChildOutcome::Status::cuda_error: return "cuda_error";
    case ChildOutcome::Status::timeout: return "timeout";
    case ChildOutcome::Status::no_answer: return "no_answer";
  }
  return "no_answer";
}

namespace {

bool complete(const BarrierObservation& o, const bool (&have)[10]) {
  if (!std::all_of(std::begin(have), std::end(have), [](bool b) { return b; })) return false;
  const auto n = static_cast<std::size_t>(o.threads);
  return o.threads > 0 && o.present >= 0 && o.present <= o.threads && o.arrive_ns.size() == n &&
         o.leave_ns.size() == n && o.progress_ns.size() == n && o.state.size() == n;
}

}  // namespace

bool parse_child_output(const std::string& text, ChildOutcome& out) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) return false;
  if (line.rfind("cuda_error ", 0) == 0) {
    out.status = ChildOutcome::Status::cuda_error;
    out.message = line.substr(11);
    return true;
  }
  if (line != "ok") return false;
  std::vector<BarrierObservation> cases;
  Health health;
  bool have[10] = {};
  bool in_case = false, have_health = false;
  while (std::getline(in, line)) {
    const auto sp = line.find(' ');
    const std::string key = line.substr(0, sp), value = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (key == "case") {
      if (in_case && !complete(cases.back(), have)) return false;
      cases.emplace_back();
      std::fill(std::begin(have), std::end(have), false);
      in_case = true;
      continue;
    }
    if (key == "health") {
      if (in_case && !complete(cases.back(), have)) return false;
      in_case = false;
      const auto word_end = value.find(' ');
      const std::string word = value.substr(0, word_end);
      if (word != "ok" && word != "fail" && word != "none") return false;
      health.ran = word != "none";
      health.ok = word == "ok";
      health.detail = word_end == std::string::npos ? "" : value.substr(word_end + 1);
      have_health = true;
      continue;
    }
    if (!in_case) return false;
    BarrierObservation& o = cases.back();
    std::vector<long long> nums;
    if (!split_numbers(value, nums)) return false;
    const bool one = nums.size() == 1;
    if (key == "threads" && one) o.threads = static_cast<int>(nums[0]), have[0] = true;
    else if (key == "present" && one) o.present = static_cast<int>(nums[0]), have[1] = true;
    else if (key == "deadline_ns" && one) o.deadline_ns = nums[0], have[2] = true;
    else if (key == "hung" && one) o.hung = nums[0] != 0, have[3] = true;
    else if (key == "watched_ms" && one) o.watched_ms = nums[0], have[4] = true;
    else if (key == "arrive_ns") o.arrive_ns = nums, have[5] = true;
    else if (key == "leave_ns") o.leave_ns = nums, have[6] = true;
    else if (key == "progress_ns") o.progress_ns = nums, have[7] = true;
    else if (key == "state") o.state.assign(nums.begin(), nums.end()), have[8] = true;
    else if (key == "variant" && one && (nums[0] == 0 || nums[0] == 1)) o.variant = static_cast<int>(nums[0]), have[9] = true;
    else return false;
  }
  if (cases.empty() || !have_health || in_case) return false;
  out.status = ChildOutcome::Status::ok;
  out.seen = std::move(cases);
  out.health = health;
  return true;
}

ChildOutcome child_outcome(const ChildResult& r) {
  ChildOutcome out;
  out.seconds = r.seconds;
  if (r.status == ChildResult::Status::timeout) {
    out.status = ChildOutcome::Status::timeout;
    out.message = r.message;
    return out;
  }
  if (r.status == ChildResult::Status::exited && parse_child_output(r.output, out)) return out;
  out.status = ChildOutcome::Status::no_answer;
  out.message = r.describe();
  return out;
}

std::chrono::milliseconds child_timeout(int deadline_ms, bool sanitized) {
  // CUDA start-up takes a few hundred ms, the kernel one deadline; the sanitizer slows both down.
  return std::chrono::milliseconds((sanitized ? 60000 : 20000) + 4 * deadline_ms);
}

std::vector<std::string> barrier_child_options(int deadline_ms, bool sanitized) {
  return {"--deadline-ms", std::to_string(deadline_ms), "--child-grace-ms",
          std::to_string(sanitized ? kSanitizedGraceMs : kChildGraceMs)};
}

std::optional<std::string> find_compute_sanitizer(std::string& looked) {
  std::vector<std::string> places;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream in(path);
    for (std::string dir; std::getline(in, dir, ':');)
      if (!dir.empty()) places.push_back(dir + "/compute-sanitizer");
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) {
      places.push_back(std::string(v) + "/bin/compute-sanitizer");
      places.push_back(std::string(v) + "/compute-sanitizer/compute-sanitizer");
    }
  places.push_back("/usr/local/cuda/bin/compute-sanitizer");
  places.push_back("/usr/local/cuda/compute-sanitizer/compute-sanitizer");
  for (const auto& p : places)
    if (executable(p)) return p;
  looked = "PATH, $CUDA_HOME/bin, $CUDA_PATH/bin and /usr/local/cuda/bin";
  return std::nullopt;
}

std::string synccheck_command_text() {
  return "compute-sanitizer --tool synccheck cudasync deadlock-demo --child divergent-syncthreads --child-out FILE "
         "--backend gpu";
}

SanitizerChild::SanitizerChild(const std::string& sanitizer, const RunContext& ctx, int deadline_ms) : tool_(sanitizer) {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/cudasync_synccheck_log_XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const int fd = mkstemp(buf.data());
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the sanitizer's log");
  close(fd);
  log_path_ = buf.data();
  std::vector<std::string> args = {"--tool", "synccheck", "--log-file", log_path_, self_executable()};
  for (auto& a : parts::child_args(ctx, "deadlock-demo", "divergent-syncthreads", barrier_child_options(deadline_ms, true)))
    args.push_back(a);
  command_ = sanitizer;
  for (const auto& a : args) command_ += " " + (a == log_path_ ? std::string("LOG") : a == ChildProcess::kOutToken ? "FILE" : a);
  child_ = std::make_unique<ChildProcess>(sanitizer, args, child_timeout(deadline_ms, true), "synccheck");
}

SanitizerChild::~SanitizerChild() {
  child_.reset();
  std::remove(log_path_.c_str());
}

SanitizerRun SanitizerChild::finish() {
  SanitizerRun s;
  s.found = true;
  s.tool = tool_;
  s.command = command_;
  s.result = child_->finish();
  s.log = read_all(log_path_);
  std::istringstream in(s.log);
  for (std::string line; std::getline(in, line);)
    if (const auto p = line.find("ERROR SUMMARY"); p != std::string::npos) s.summary = line.substr(p);
  return s;
}

}  // namespace cudasync::deadlock_demo
