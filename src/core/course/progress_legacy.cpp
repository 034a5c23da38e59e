#include "core/course/progress_legacy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

namespace cudasync::course {

namespace {

using json = nlohmann::json;

constexpr const char* kFormat = "cudasync-progress";

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
  if (version > kLegacyVersion) {
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

// The text of the state file, read through one descriptor: opened without waiting (a FIFO
// without a writer would block), only a regular file, and at most kMaxStateBytes + 1 bytes.
struct StateText {
  bool exists = false;
  std::string text;
  std::string unreadable;  // why it cannot be read at all
  std::string too_large;   // why it is set aside unread
};

StateText read_state_text(const std::string& file) {
  StateText t;
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    t.exists = errno != ENOENT;
    if (t.exists) t.unreadable = std::strerror(errno);
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
    t.too_large = too_large_text(static_cast<std::uintmax_t>(st.st_size));
    ::close(fd);
    return t;
  }
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      t.unreadable = std::strerror(errno);
      break;
    }
    if (n == 0) break;
    t.text.append(buf, static_cast<std::size_t>(n));
    if (t.text.size() > kMaxStateBytes) {  // it grew while being read
      t.too_large = too_large_text(t.text.size());
      t.text.clear();
      break;
    }
  }
  ::close(fd);
  return t;
}

}  // namespace

LegacyState read_legacy_state(const std::string& file) {
  LegacyState s;
  StateText t = read_state_text(file);
  s.exists = t.exists;
  if (!t.exists) return s;
  if (!t.unreadable.empty()) {
    s.unreadable = t.unreadable;
    return s;
  }
  if (!t.too_large.empty()) {
    s.corrupt = t.too_large;
    return s;
  }
  Parsed p = parse_state(t.text);
  s.newer = p.newer;
  s.corrupt = p.corrupt;
  if (!s.newer && s.corrupt.empty()) s.progress = std::move(p.progress);
  return s;
}

std::string legacy_state_of(const std::string& db_file) {
  return (std::filesystem::path(db_file).parent_path() / "progress.json").string();
}

}  // namespace cudasync::course
