#include "core/course/progress.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <functional>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

namespace cudasync::course {

// Now, in UTC, as ISO 8601: "2025-06-01T12:00:00Z".
std::string utc_now() {
  std::tm tm{};
  const std::time_t now = std::time(nullptr);
  std::ostringstream s;
  s << std::put_time(gmtime_r(&now, &tm), "%Y-%m-%dT%H:%M:%SZ");
  return s.str();
}

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kFormat = "cudasync-progress";


std::string errno_text() { return std::strerror(errno); }

// The state in `text`, or why it cannot be used (corrupt: not our document; newer: a later version).
struct Parsed {
  Progress progress;
  std::string corrupt;  // why the text is not a state this cudasync reads
  bool newer = false;
};

// Each field of a record, when present, must have the type the format gives it; a missing one
// keeps its default. Returns why a field is wrong ("" when none is).
std::string read_flag(const json& r, const char* key, bool& out) {
  if (!r.contains(key)) return "";
  if (!r[key].is_boolean()) return std::string("\"") + key + "\" is not true or false";
  out = r[key].get<bool>();
  return "";
}

std::string read_text(const json& r, const char* key, std::string& out) {
  if (!r.contains(key)) return "";
  if (!r[key].is_string()) return std::string("\"") + key + "\" is not a string";
  out = r[key].get<std::string>();
  return "";
}

// A count: a whole number 0..max, read without a conversion that could wrap.
std::string read_count(const json& r, const char* key, int max, int& out) {
  if (!r.contains(key)) return "";
  const json& v = r[key];
  const std::string range = " (accepted: 0.." + std::to_string(max) + ")";
  if (!v.is_number_integer()) return std::string("\"") + key + "\" is not a whole number" + range;
  const bool in_range = v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(max)
                                               : v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= max;
  if (!in_range) return std::string("\"") + key + "\" is " + v.dump() + ", out of range" + range;
  out = static_cast<int>(v.get<std::int64_t>());
  return "";
}

std::string read_record(const json& r, ExerciseRecord& rec) {
  for (const std::string& wrong :
       {read_flag(r, "solved", rec.solved), read_flag(r, "last_right", rec.last_right),
        read_count(r, "attempts", kMaxAttempts, rec.attempts), read_text(r, "last_answer", rec.last_answer),
        read_text(r, "when", rec.when), read_count(r, "hints", kMaxHints, rec.hints),
        read_text(r, "answer_shown", rec.answer_shown), read_flag(r, "after_answer", rec.after_answer)})
    if (!wrong.empty()) return wrong;
  return "";
}

Parsed parse_state(const std::string& text) {
  Parsed out;
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    out.corrupt = "not a JSON object";
    return out;
  }
  if (!doc.contains("format") || doc["format"] != kFormat || !doc.contains("version") ||
      !doc["version"].is_number_integer()) {
    out.corrupt = "not a cudasync progress state (no \"format\" or \"version\")";
    return out;
  }
  const auto version = doc["version"].get<long long>();
  if (version > kProgressVersion) {
    out.newer = true;
    return out;
  }
  if (version < 1) {
    out.corrupt = "version " + std::to_string(version) + " is not one cudasync ever wrote";
    return out;
  }
  if (!doc.contains("lessons") || !doc["lessons"].is_object()) {
    out.corrupt = "no \"lessons\" object";
    return out;
  }
  for (const auto& [lesson, exercises] : doc["lessons"].items()) {
    if (!exercises.is_object()) {
      out.corrupt = "lesson \"" + lesson + "\" is not an object";
      return out;
    }
    for (const auto& [id, r] : exercises.items()) {
      if (!r.is_object()) {
        out.corrupt = "exercise \"" + lesson + "/" + id + "\" is not an object";
        return out;
      }
      ExerciseRecord rec;
      const std::string wrong = read_record(r, rec);
      if (!wrong.empty()) {
        out.corrupt = "exercise \"" + lesson + "/" + id + "\": " + wrong;
        return out;
      }
      out.progress.lessons[lesson][id] = rec;
    }
  }
  return out;
}

// What load_progress and record_answer share: the file read and judged, with the reason it was set aside.
struct Read {
  Loaded loaded;
  bool corrupt = false;
  bool newer = false;
};

// The text of the state file, read through one descriptor: opened without waiting (a FIFO
// without a writer would block), only a regular file, and at most kMaxStateBytes + 1 bytes.
struct StateText {
  bool exists = false;
  std::string text;
  std::string unreadable;  // why it cannot be read at all
  std::string too_large;   // why it is set aside unread
};

std::string size_bound_text() { return std::to_string(kMaxStateBytes >> 20) + " MiB"; }

StateText read_state_text(const std::string& file) {
  StateText t;
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    t.exists = errno != ENOENT;
    if (t.exists) t.unreadable = errno_text();
    return t;
  }
  t.exists = true;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    t.unreadable = S_ISDIR(st.st_mode) ? "it is a folder" : "it is not a regular file";
    ::close(fd);
    return t;
  }
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxStateBytes) {
    t.too_large = "larger than " + size_bound_text() + " (" + std::to_string(st.st_size) +
                  " bytes), far more than any progress cudasync writes";
    ::close(fd);
    return t;
  }
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      t.unreadable = errno_text();
      break;
    }
    if (n == 0) break;
    t.text.append(buf, static_cast<std::size_t>(n));
    if (t.text.size() > kMaxStateBytes) {  // it grew while being read
      t.too_large = "larger than " + size_bound_text();
      t.text.clear();
      break;
    }
  }
  ::close(fd);
  return t;
}

std::string corrupt_warning(const std::string& file, const std::string& why) {
  return "the progress state " + file + " is corrupt (" + why + "): starting from no progress; the file is set "
         "aside as " + file + ".corrupt-<UTC time>-<pid> when the next answer is saved";
}

Read read_state(const std::string& file) {
  Read r;
  StateText t = read_state_text(file);
  r.loaded.exists = t.exists;
  if (!t.exists) return r;
  if (!t.unreadable.empty()) {
    r.loaded.warnings.push_back("cannot read the progress state " + file + " (" + t.unreadable +
                                "): starting from no progress");
    return r;
  }
  if (!t.too_large.empty()) {
    r.corrupt = true;
    r.loaded.warnings.push_back(corrupt_warning(file, t.too_large));
    return r;
  }
  Parsed p = parse_state(t.text);
  if (p.newer) {
    r.newer = true;
    r.loaded.warnings.push_back("the progress state " + file +
                                " was written by a newer cudasync: this one starts from no progress and leaves the "
                                "file as it is");
    return r;
  }
  if (!p.corrupt.empty()) {
    r.corrupt = true;
    r.loaded.warnings.push_back(corrupt_warning(file, p.corrupt));
    return r;
  }
  r.loaded.progress = std::move(p.progress);
  return r;
}

// Writes `text` to `file` atomically: a temporary file in the same folder, flushed, then renamed.
std::optional<std::string> write_atomically(const std::string& file, const std::string& text) {
  std::string tmp = file + ".XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) return "cannot create a file beside " + file + " (" + errno_text() + ")";
  const RemovedOnInterrupt pending(tmp);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = errno_text();
      ::close(fd);
      ::unlink(tmp.c_str());
      return "cannot write " + tmp + " (" + why + ")";
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    return "cannot write " + tmp + " (" + why + ")";
  }
  if (std::rename(tmp.c_str(), file.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    return "cannot replace " + file + " (" + why + ")";
  }
  return std::nullopt;
}

// An exclusive flock on `file`.lock for the read-modify-write; none (and no error) where it cannot be
// taken: the write is atomic anyway, only a concurrent answer could be lost.
class StateLock {
 public:
  explicit StateLock(const std::string& file) : fd_(::open((file + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~StateLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

 private:
  int fd_;
};

// "20250601T120000Z": now in UTC, as a file name takes it.
std::string utc_stamp() {
  std::tm tm{};
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
  return buf;
}

// Renames `from` to `to` unless `to` exists (never over an earlier corrupt state). Where the file
// system cannot say so atomically, a check first: every writer of the folder holds the lock.
bool rename_without_replacing(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return true;
  if (errno != EINVAL && errno != ENOSYS) return false;
  struct stat st {};
  if (::lstat(to.c_str(), &st) == 0) {
    errno = EEXIST;
    return false;
  }
  return std::rename(from.c_str(), to.c_str()) == 0;
}

// Moves the corrupt state at `file` to progress.json.corrupt-<UTC time>-<pid>[-N]. Returns the
// name it got, or nullopt (errno says why).
std::optional<std::string> set_aside(const std::string& file) {
  const std::string stem = file + ".corrupt-" + utc_stamp() + "-" + std::to_string(::getpid());
  for (int n = 1; n <= 100; ++n) {
    const std::string name = n == 1 ? stem : stem + "-" + std::to_string(n);
    if (rename_without_replacing(file, name)) return name;
    if (errno != EEXIST) return std::nullopt;
  }
  return std::nullopt;
}

// A temporary of write_atomically: `file` + "." + the six letters and digits mkstemp chose.
bool is_temporary_of(const std::string& name, const std::string& file_name) {
  if (name.size() != file_name.size() + 7 || name.compare(0, file_name.size() + 1, file_name + ".") != 0)
    return false;
  return std::all_of(name.end() - 6, name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
}

// Removes temporaries of `file` older than an hour: left by a run that could not remove its own
// (SIGKILL, a power cut). A younger one may belong to a run still writing it.
void sweep_stale_temporaries(const std::string& file) {
  const fs::path path(file);
  const std::string file_name = path.filename().string();
  const auto cutoff = fs::file_time_type::clock::now() - std::chrono::hours(1);
  std::error_code ec;
  for (fs::directory_iterator it(path.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code entry_ec;
    if (!is_temporary_of(it->path().filename().string(), file_name)) continue;
    if (!it->is_regular_file(entry_ec) || it->is_symlink(entry_ec)) continue;
    const auto written = fs::last_write_time(it->path(), entry_ec);
    if (!entry_ec && written < cutoff) fs::remove(it->path(), entry_ec);
  }
}

}  // namespace

const ExerciseRecord* Progress::find(const std::string& lesson, const std::string& exercise) const {
  const auto l = lessons.find(lesson);
  if (l == lessons.end()) return nullptr;
  const auto e = l->second.find(exercise);
  return e == l->second.end() ? nullptr : &e->second;
}

bool Progress::solved(const std::string& lesson, const std::string& exercise) const {
  const ExerciseRecord* r = find(lesson, exercise);
  return r != nullptr && r->solved;
}

StatePath progress_path(const char* xdg_state_home, const char* home) {
  // The spec: a relative XDG_STATE_HOME is invalid and is ignored.
  if (xdg_state_home != nullptr && xdg_state_home[0] == '/')
    return {std::string(xdg_state_home) + "/cudasync/progress.json", ""};
  if (home != nullptr && home[0] == '/') return {std::string(home) + "/.local/state/cudasync/progress.json", ""};
  return {"", "neither XDG_STATE_HOME nor HOME names an absolute folder, so progress is not saved"};
}

StatePath progress_path() { return progress_path(std::getenv("XDG_STATE_HOME"), std::getenv("HOME")); }

Loaded load_progress(const std::string& file) { return read_state(file).loaded; }

std::string progress_json(const Progress& p) {
  nlohmann::ordered_json doc;
  doc["format"] = kFormat;
  doc["version"] = kProgressVersion;
  nlohmann::ordered_json lessons = nlohmann::ordered_json::object();
  for (const auto& [lesson, exercises] : p.lessons) {
    nlohmann::ordered_json l = nlohmann::ordered_json::object();
    for (const auto& [id, r] : exercises)
    {
      l[id] = {{"solved", r.solved}, {"last_right", r.last_right}, {"attempts", r.attempts},
               {"last_answer", r.last_answer}, {"when", r.when}};
      if (r.hints > 0) l[id]["hints"] = r.hints;  // a state without hints reads as none used
      if (!r.answer_shown.empty()) l[id]["answer_shown"] = r.answer_shown;  // nor one without these
      if (r.after_answer) l[id]["after_answer"] = true;
    }
    lessons[lesson] = std::move(l);
  }
  doc["lessons"] = std::move(lessons);
  return doc.dump(2) + "\n";
}

namespace {

// Reads the state at `file`, changes one exercise's record with `change` and writes it back, under
// the lock; `what` names what is not saved when it cannot be ("this answer").
std::vector<std::string> update_record(const std::string& file, const std::string& lesson, const std::string& exercise,
                                       const std::string& what, const std::function<void(ExerciseRecord&)>& change) {
  if (file.empty()) return {};
  const std::string dir = fs::path(file).parent_path().string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return {"cannot create " + dir + " (" + ec.message() + "): " + what + " is not saved in your progress"};
  const StateLock lock(file);
  sweep_stale_temporaries(file);
  Read r = read_state(file);
  std::vector<std::string> warnings = r.loaded.warnings;
  if (r.newer) {
    warnings.push_back(what + " is not saved in your progress");
    return warnings;
  }
  if (r.corrupt) {
    const auto kept = set_aside(file);
    if (!kept) {
      warnings.push_back("cannot set the corrupt state aside beside " + file + " (" + errno_text() + "): " + what +
                         " is not saved in your progress");
      return warnings;
    }
    warnings.push_back("the corrupt progress state is kept as " + *kept);
  }
  change(r.loaded.progress.lessons[lesson][exercise]);
  if (const auto failed = write_atomically(file, progress_json(r.loaded.progress)))
    warnings.push_back(*failed + ": " + what + " is not saved in your progress");
  return warnings;
}

}  // namespace

std::vector<std::string> record_answer(const std::string& file, const std::string& lesson, const std::string& exercise,
                                       bool right, const std::string& answer) {
  return update_record(file, lesson, exercise, "this answer", [&](ExerciseRecord& rec) {
    if (rec.attempts < kMaxAttempts) rec.attempts += 1;  // past it, more answers leave the count there
    rec.last_right = right;
    if (right && !rec.solved) rec.after_answer = !rec.answer_shown.empty();
    rec.solved = rec.solved || right;
    rec.last_answer = answer;
    rec.when = utc_now();
  });
}

std::vector<std::string> record_answer_shown(const std::string& file, const std::string& lesson,
                                             const std::string& exercise) {
  return update_record(file, lesson, exercise, "that the answer was shown", [&](ExerciseRecord& rec) {
    if (rec.answer_shown.empty()) rec.answer_shown = utc_now();
  });
}

HintShown record_hint(const std::string& file, const std::string& lesson, const std::string& exercise, int ladder) {
  HintShown h;
  const int before = [&] {
    if (file.empty()) return 0;
    const Progress p = load_progress(file).progress;
    const ExerciseRecord* r = p.find(lesson, exercise);
    return r ? r->hints : 0;
  }();
  h.shown = std::max(1, std::min(before + 1, ladder));
  h.warnings = update_record(file, lesson, exercise, "this hint", [&](ExerciseRecord& rec) {
    rec.hints = std::max(rec.hints, std::min(rec.hints + 1, ladder));
  });
  return h;
}

std::optional<std::string> reset_progress(const std::string& file) {
  if (file.empty()) return std::nullopt;
  std::error_code ec;
  if (!fs::exists(fs::path(file).parent_path(), ec)) return std::nullopt;  // no state was ever saved
  const StateLock lock(file);
  if (::unlink(file.c_str()) != 0 && errno != ENOENT) return "cannot remove " + file + " (" + errno_text() + ")";
  return std::nullopt;
}

namespace {

// What the signal handler reads: set before it is armed, and only cleared while it is disarmed.
char g_pending_path[PATH_MAX];
volatile std::sig_atomic_t g_pending_armed = 0;
std::atomic<bool> g_pending_taken{false};
struct sigaction g_previous[2];
bool g_installed[2] = {false, false};
constexpr int kInterrupts[2] = {SIGINT, SIGTERM};

extern "C" void remove_pending_and_raise(int sig) {
  if (g_pending_armed) ::unlink(g_pending_path);
  // SA_RESETHAND has put the default action back: raised again, the signal ends the process as it
  // would have without this handler (and the parent sees the same signal).
  ::raise(sig);
}

}  // namespace

RemovedOnInterrupt::RemovedOnInterrupt(const std::string& path) {
  if (path.size() >= sizeof g_pending_path || g_pending_taken.exchange(true)) return;
  std::memcpy(g_pending_path, path.c_str(), path.size() + 1);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  g_pending_armed = 1;
  armed_ = true;
  for (int i = 0; i < 2; ++i) {
    struct sigaction current {};
    g_installed[i] = false;
    if (::sigaction(kInterrupts[i], nullptr, &current) != 0 || current.sa_handler != SIG_DFL ||
        (current.sa_flags & SA_SIGINFO) != 0)
      continue;
    struct sigaction handler {};
    handler.sa_handler = remove_pending_and_raise;
    sigemptyset(&handler.sa_mask);
    handler.sa_flags = SA_RESETHAND;
    g_installed[i] = ::sigaction(kInterrupts[i], &handler, &g_previous[i]) == 0;
  }
}

RemovedOnInterrupt::~RemovedOnInterrupt() {
  if (!armed_) return;
  for (int i = 0; i < 2; ++i)
    if (g_installed[i]) ::sigaction(kInterrupts[i], &g_previous[i], nullptr);
  g_pending_armed = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  g_pending_taken = false;
}

}  // namespace cudasync::course
