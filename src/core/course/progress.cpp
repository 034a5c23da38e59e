#include "core/course/progress.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
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

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kFormat = "cudasync-progress";

// Now, in UTC, as ISO 8601: "2025-06-01T12:00:00Z".
std::string utc_now() {
  std::tm tm{};
  const std::time_t now = std::time(nullptr);
  std::ostringstream s;
  s << std::put_time(gmtime_r(&now, &tm), "%Y-%m-%dT%H:%M:%SZ");
  return s.str();
}

std::string errno_text() { return std::strerror(errno); }

// The state in `text`, or why it cannot be used (corrupt: not our document; newer: a later version).
struct Parsed {
  Progress progress;
  std::string corrupt;  // why the text is not a state this cudasync reads
  bool newer = false;
};

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
      rec.solved = r.value("solved", false);
      rec.last_right = r.value("last_right", false);
      rec.attempts = r.value("attempts", 0);
      rec.last_answer = r.value("last_answer", std::string());
      rec.when = r.value("when", std::string());
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

Read read_state(const std::string& file) {
  Read r;
  std::error_code ec;
  if (!fs::exists(file, ec)) return r;
  r.loaded.exists = true;
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || fs::is_directory(file, ec)) {
    r.loaded.warnings.push_back("cannot read the progress state " + file + " (" + errno_text() +
                                "): starting from no progress");
    return r;
  }
  Parsed p = parse_state(text.str());
  if (p.newer) {
    r.newer = true;
    r.loaded.warnings.push_back("the progress state " + file +
                                " was written by a newer cudasync: this one starts from no progress and leaves the "
                                "file as it is");
    return r;
  }
  if (!p.corrupt.empty()) {
    r.corrupt = true;
    r.loaded.warnings.push_back("the progress state " + file + " is corrupt (" + p.corrupt +
                                "): starting from no progress; the file is kept as " + file + ".corrupt when the "
                                "next answer is saved");
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
      l[id] = {{"solved", r.solved}, {"last_right", r.last_right}, {"attempts", r.attempts},
               {"last_answer", r.last_answer}, {"when", r.when}};
    lessons[lesson] = std::move(l);
  }
  doc["lessons"] = std::move(lessons);
  return doc.dump(2) + "\n";
}

std::vector<std::string> record_answer(const std::string& file, const std::string& lesson, const std::string& exercise,
                                       bool right, const std::string& answer) {
  if (file.empty()) return {};
  const std::string dir = fs::path(file).parent_path().string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return {"cannot create " + dir + " (" + ec.message() + "): this answer is not saved in your progress"};
  const StateLock lock(file);
  Read r = read_state(file);
  std::vector<std::string> warnings = r.loaded.warnings;
  if (r.newer) {
    warnings.push_back("this answer is not saved in your progress");
    return warnings;
  }
  if (r.corrupt && std::rename(file.c_str(), (file + ".corrupt").c_str()) != 0) {
    warnings.push_back("cannot keep the corrupt state as " + file + ".corrupt (" + errno_text() +
                       "): this answer is not saved in your progress");
    return warnings;
  }
  ExerciseRecord& rec = r.loaded.progress.lessons[lesson][exercise];
  rec.attempts += 1;
  rec.last_right = right;
  rec.solved = rec.solved || right;
  rec.last_answer = answer;
  rec.when = utc_now();
  if (const auto failed = write_atomically(file, progress_json(r.loaded.progress)))
    warnings.push_back(*failed + ": this answer is not saved in your progress");
  return warnings;
}

std::optional<std::string> reset_progress(const std::string& file) {
  if (file.empty()) return std::nullopt;
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  if (!fs::remove(file, ec) || ec) return "cannot remove " + file + " (" + ec.message() + ")";
  fs::remove(file + ".lock", ec);
  return std::nullopt;
}

}  // namespace cudasync::course
