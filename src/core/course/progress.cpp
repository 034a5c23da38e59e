#include "core/course/progress.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <sstream>

#include "core/course/progress_db.hpp"
#include "core/course/progress_legacy.hpp"

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

std::string errno_text() { return std::strerror(errno); }

// "20250601T120000Z": now in UTC, as a file name takes it.
std::string utc_stamp() {
  std::tm tm{};
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
  return buf;
}

// Renames `from` to `to` unless `to` exists (never over an earlier copy). Where the file system
// cannot say so atomically, a check first.
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

// Moves `file` to `file` + `suffix`[-N], the first name not taken, with SQLite's journal files
// beside it (a journal left next to a new database of the old name would be played into it).
// Returns the name it got, or nullopt (errno says why).
std::optional<std::string> move_aside(const std::string& file, const std::string& suffix) {
  const std::string stem = file + suffix;
  for (int n = 1; n <= 100; ++n) {
    const std::string name = n == 1 ? stem : stem + "-" + std::to_string(n);
    if (!rename_without_replacing(file, name)) {
      if (errno != EEXIST) return std::nullopt;
      continue;
    }
    for (const char* journal : {"-journal", "-wal", "-shm"})
      if (::access((file + journal).c_str(), F_OK) == 0) std::rename((file + journal).c_str(), (name + journal).c_str());
    return name;
  }
  return std::nullopt;
}

std::optional<std::string> set_aside(const std::string& file) {
  return move_aside(file, ".corrupt-" + utc_stamp() + "-" + std::to_string(::getpid()));
}

// The database file as the disk has it, looked at before SQLite opens it: SQLite would wait on a
// FIFO, and read a file of any size.
struct OnDisk {
  bool exists = false;
  std::string unusable;   // not a file SQLite may open: a folder, a FIFO, ...
  std::string too_large;  // set aside unread
};

OnDisk look_at(const std::string& file) {
  OnDisk d;
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    d.exists = errno != ENOENT;
    if (d.exists) d.unusable = errno_text();
    return d;
  }
  d.exists = true;
  if (!S_ISREG(st.st_mode))
    d.unusable = S_ISDIR(st.st_mode) ? "it is a folder" : "it is not a regular file";
  else if (static_cast<std::uintmax_t>(st.st_size) > kMaxStateBytes)
    d.too_large = too_large_text(static_cast<std::uintmax_t>(st.st_size));
  return d;
}

std::string corrupt_warning(const std::string& file, const std::string& why) {
  return "the progress state " + file + " is corrupt (" + why + "): starting from no progress; the file is set "
         "aside as " + file + ".corrupt-<UTC time>-<pid> when the next answer is saved";
}

std::string newer_warning(const std::string& file) {
  return "the progress state " + file +
         " was written by a newer cudasync: this one starts from no progress and leaves the file as it is";
}

// The warnings of the legacy state at `legacy` as it is brought in.
void warn_about_legacy(const LegacyState& s, const std::string& legacy, std::vector<std::string>& warnings) {
  if (!s.unreadable.empty())
    warnings.push_back("cannot read the progress state " + legacy + " (" + s.unreadable +
                       "): its records are not brought in, and it is left where it is");
  else if (s.newer)
    warnings.push_back(newer_warning(legacy));
  else if (!s.corrupt.empty())
    warnings.push_back(corrupt_warning(legacy, s.corrupt));
}

// Brings the legacy state's records into `db`, a database just made (inside its first change).
// Returns whether the legacy file should be kept as progress.json.migrated once the change is in.
bool bring_in_legacy(ProgressDb& db, const std::string& file, std::vector<std::string>& warnings, DbResult& r) {
  const std::string legacy = legacy_state_of(file);
  const LegacyState s = read_legacy_state(legacy);
  if (!s.exists) return false;
  warn_about_legacy(s, legacy, warnings);
  if (!s.corrupt.empty()) {
    if (const auto kept = set_aside(legacy))
      warnings.push_back("the corrupt progress state is kept as " + *kept);
    return false;
  }
  if (!s.unreadable.empty() || s.newer) return false;
  for (const auto& [lesson, exercises] : s.progress.lessons)
    for (const auto& [id, rec] : exercises)
      if (r = db.put(lesson, id, rec); !r) return false;
  return true;
}

// An exclusive flock on `file`.lock while a corrupt state is set aside: two runs that found the
// same corrupt file must not both move it, or the second would move the new state the first made.
// None (and no error) where it cannot be taken.
class SetAsideLock {
 public:
  explicit SetAsideLock(const std::string& file)
      : fd_(::open((file + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~SetAsideLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  SetAsideLock(const SetAsideLock&) = delete;
  SetAsideLock& operator=(const SetAsideLock&) = delete;

 private:
  int fd_;
};

// Why the state at `file` is corrupt now, or "" when it is not (or no longer there).
std::string still_corrupt(const std::string& file) {
  const OnDisk disk = look_at(file);
  if (!disk.exists || !disk.unusable.empty()) return "";
  if (!disk.too_large.empty()) return disk.too_large;
  Progress ignored;
  const DbResult r = ProgressDb(file, false).read_all(ignored);
  return r.kind == DbResult::corrupt ? r.why : "";
}

// One change to the state at `file` (`change` reads and writes through the open database), in one
// transaction. The database is made when missing, with progress.json's records; a corrupt one is
// set aside and the change made in a new one. `what` names what is not saved when it cannot be.
Changed change_state(const std::string& file, const std::string& what, const std::function<DbResult(ProgressDb&)>& change) {
  Changed out;
  if (file.empty()) return out;
  const auto not_saved = [&](const std::string& why) {
    out.saved = false;
    out.warnings.push_back(why + ": " + what + " is not saved in your progress");
    return out;
  };
  const std::string dir = fs::path(file).parent_path().string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return not_saved("cannot create " + dir + " (" + ec.message() + ")");
  // At most twice: a corrupt database found the first time is set aside, and the change goes to a
  // new one.
  for (int round = 0; round < 2; ++round) {
    const OnDisk disk = look_at(file);
    if (!disk.unusable.empty()) return not_saved("cannot use the progress state " + file + " (" + disk.unusable + ")");
    DbResult r;
    bool legacy_in = false;
    if (!disk.too_large.empty()) {
      r = {DbResult::corrupt, disk.too_large};
    } else {
      ProgressDb db(file, true);
      bool created = false;
      r = db.begin_change(created);
      if (r && created) legacy_in = bring_in_legacy(db, file, out.warnings, r);
      if (r) r = change(db);
      if (r) r = db.commit();
      db.rollback();
    }
    if (r.kind == DbResult::newer) {
      out.warnings.push_back(newer_warning(file));
      return not_saved("the state of a newer cudasync is left as it is");
    }
    if (r.kind == DbResult::corrupt && round == 0) {
      // One run at a time sets a corrupt state aside, and only while it is still the corrupt one:
      // another run that found it too may have set it aside and made a new one meanwhile, which
      // this run then writes to instead.
      const SetAsideLock lock(file);
      const std::string why = still_corrupt(file);
      if (why.empty()) continue;
      out.warnings.push_back(corrupt_warning(file, why));
      const auto kept = set_aside(file);
      if (!kept) return not_saved("cannot set the corrupt state aside beside " + file + " (" + errno_text() + ")");
      out.warnings.push_back("the corrupt progress state is kept as " + *kept);
      continue;
    }
    if (!r) return not_saved("cannot save to the progress state " + file + " (" + r.why + ")");
    if (legacy_in) {
      const std::string legacy = legacy_state_of(file);
      if (!move_aside(legacy, ".migrated"))
        out.warnings.push_back("your progress is now kept in " + file + ", but " + legacy + " cannot be renamed (" +
                               errno_text() + "): remove it yourself");
    }
    return out;
  }
  return not_saved("the progress state " + file + " stayed corrupt");
}

// A change of one exercise's record: read, `edit`, written back.
Changed change_record(const std::string& file, const std::string& lesson, const std::string& exercise,
                      const std::string& what, const std::function<void(ExerciseRecord&)>& edit) {
  return change_state(file, what, [&](ProgressDb& db) {
    ExerciseRecord rec;
    bool found = false;
    if (DbResult r = db.read_one(lesson, exercise, rec, found); !r) return r;
    edit(rec);
    return db.put(lesson, exercise, rec);
  });
}

}  // namespace

std::string too_large_text(std::uintmax_t bytes) {
  return "larger than " + std::to_string(kMaxStateBytes >> 20) + " MiB (" + std::to_string(bytes) +
         " bytes), far more than any progress cudasync writes";
}

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
    return {std::string(xdg_state_home) + "/cudasync/progress.db", ""};
  if (home != nullptr && home[0] == '/') return {std::string(home) + "/.local/state/cudasync/progress.db", ""};
  return {"", "neither XDG_STATE_HOME nor HOME names an absolute folder, so progress is not saved"};
}

StatePath progress_path() { return progress_path(std::getenv("XDG_STATE_HOME"), std::getenv("HOME")); }

Loaded load_progress(const std::string& file) {
  Loaded l;
  if (file.empty()) return l;
  OnDisk disk = look_at(file);
  if (!disk.exists) {
    // No database yet: a progress.json beside it is brought in now (a change that adds nothing
    // else); where that cannot be done, its records are read as they are.
    const std::string legacy = legacy_state_of(file);
    LegacyState s = read_legacy_state(legacy);
    if (!s.exists) return l;
    const Changed made = change_state(file, "your earlier progress", [](ProgressDb&) { return DbResult{}; });
    l.warnings = made.warnings;
    if (!made.saved) {
      l.exists = true;
      l.progress = std::move(s.progress);
      return l;
    }
    disk = look_at(file);
  }
  l.exists = true;
  if (!disk.unusable.empty()) {
    l.warnings.push_back("cannot read the progress state " + file + " (" + disk.unusable + "): starting from no progress");
    return l;
  }
  if (!disk.too_large.empty()) {
    l.warnings.push_back(corrupt_warning(file, disk.too_large));
    return l;
  }
  ProgressDb db(file, false);
  const DbResult r = db.read_all(l.progress);
  if (r.kind == DbResult::corrupt)
    l.warnings.push_back(corrupt_warning(file, r.why));
  else if (r.kind == DbResult::newer)
    l.warnings.push_back(newer_warning(file));
  else if (!r)
    l.warnings.push_back("cannot read the progress state " + file + " (" + r.why + "): starting from no progress");
  return l;
}

Changed record_answer(const std::string& file, const std::string& lesson, const std::string& exercise, bool right,
                      const std::string& answer, const std::string& computed_on) {
  const std::string now = utc_now();
  return change_record(file, lesson, exercise, "this answer", [&](ExerciseRecord& rec) {
    if (rec.attempts < kMaxAttempts) rec.attempts += 1;  // past it, more answers leave the count there
    if (rec.first_when.empty()) rec.first_when = now;
    rec.last_right = right;
    if (right && !rec.solved) {
      rec.after_answer = !rec.answer_shown.empty();
      rec.solved_when = now;
      rec.solved_on = computed_on;
    }
    rec.solved = rec.solved || right;
    rec.last_answer = answer;
    rec.when = now;
  });
}

Changed record_answer_shown(const std::string& file, const std::string& lesson, const std::string& exercise) {
  return change_record(file, lesson, exercise, "that the answer was shown", [&](ExerciseRecord& rec) {
    if (rec.answer_shown.empty()) rec.answer_shown = utc_now();
  });
}

HintShown record_hint(const std::string& file, const std::string& lesson, const std::string& exercise, int ladder) {
  HintShown h;
  int before = 0;
  h.changed = change_record(file, lesson, exercise, "this hint", [&](ExerciseRecord& rec) {
    before = rec.hints;
    rec.hints = std::max(rec.hints, std::min(rec.hints + 1, ladder));
  });
  h.shown = std::max(1, std::min(before + 1, ladder));
  return h;
}

Changed reset_progress(const std::string& file) {
  if (file.empty()) return {};
  std::error_code ec;
  if (!fs::exists(fs::path(file).parent_path(), ec)) return {};  // no state was ever saved
  return change_state(file, "the reset", [](ProgressDb& db) { return db.clear(); });
}

}  // namespace cudasync::course
