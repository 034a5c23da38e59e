#pragma once
// A student's progress through the course: which exercises they answered, and how. One file per
// user, never in the working directory: $XDG_STATE_HOME/cudasync/progress.json, or
// ~/.local/state/cudasync/progress.json when XDG_STATE_HOME is unset or not absolute (the XDG Base
// Directory Specification). On a shared lab server every student's progress is their own.
//
// The file is versioned JSON ({"format": "cudasync-progress", "version": 1, "lessons": {...}}).
// Nothing here throws at a student and no run is lost over it: a missing file is a fresh start; an
// unreadable or corrupt one (or one from a newer cudasync) gives a warning and a fresh start. A
// corrupt one (not JSON, a field of the wrong type, a count out of range, larger than
// kMaxStateBytes) is set aside under a name of its own, progress.json.corrupt-<UTC time>-<pid>,
// before the next answer replaces it; a state that cannot be written gives a warning and the run
// still completes. Writes are atomic (a temporary progress.json.XXXXXX in the same folder, then
// rename) under an flock on progress.json.lock, which --reset takes too, so two runs at once lose
// no answer. A temporary is removed when SIGINT or SIGTERM ends the run, and one left by a run
// that could not remove it (SIGKILL, a power cut) is swept by a later answer once it is an hour old.
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudasync::course {

inline constexpr int kProgressVersion = 1;
// A state this large is not one cudasync wrote (a whole course takes a few KiB): it is set aside
// unread rather than read into memory.
inline constexpr std::uintmax_t kMaxStateBytes = std::uintmax_t{16} << 20;
// The most answers one exercise counts; further answers leave it there.
inline constexpr int kMaxAttempts = INT_MAX;
inline constexpr int kMaxHints = 16;  // hints per exercise; a count above is not one cudasync wrote

struct ExerciseRecord {
  bool solved = false;      // answered right at least once
  bool last_right = false;  // the latest answer was right
  int attempts = 0;
  std::string last_answer;  // as read (canonical)
  std::string when;         // UTC, "2025-06-01T12:00:00Z", of the latest answer
  int hints = 0;            // how many rungs of its hint ladder were shown (--hint)
  std::string answer_shown;  // UTC of the first `exercise --answer`; "" never
  bool after_answer = false;  // first solved after its answer had been shown
};

// Now, in UTC, as ISO 8601: "2025-06-01T12:00:00Z".
std::string utc_now();

struct Progress {
  // lesson id -> exercise id -> record
  std::map<std::string, std::map<std::string, ExerciseRecord>> lessons;

  const ExerciseRecord* find(const std::string& lesson, const std::string& exercise) const;
  bool solved(const std::string& lesson, const std::string& exercise) const;
};

// Where the state lives, or why there is no place for it.
struct StatePath {
  std::string file;     // ".../cudasync/progress.json"; "" when there is none
  std::string problem;  // why there is none: "neither XDG_STATE_HOME nor HOME is set"
};
StatePath progress_path();  // from the environment
StatePath progress_path(const char* xdg_state_home, const char* home);

struct Loaded {
  Progress progress;
  std::vector<std::string> warnings;  // each a sentence for stderr
  bool exists = false;                // the file was there
};
// Reads the state at `file` (a fresh start, with a warning, when it cannot be used).
Loaded load_progress(const std::string& file);
// The document as written: versioned JSON text.
std::string progress_json(const Progress& p);

// Records one answer in the state at `file`: read, update, write back atomically. Returns the
// warnings (the state could not be read or saved), never throws.
std::vector<std::string> record_answer(const std::string& file, const std::string& lesson, const std::string& exercise,
                                       bool right, const std::string& answer);
// Records that the exercise's answer was shown (exercise --answer): the first time's UTC.
std::vector<std::string> record_answer_shown(const std::string& file, const std::string& lesson,
                                             const std::string& exercise);

// Records that a hint of an exercise with `ladder` hints was asked for: the first time the first
// rung, then one more each time, up to the last. Returns how many rungs to show (1..ladder) and
// the warnings; never throws. The loads of this and of the write are two: two runs at once may
// show the same rung, and the record still counts both.
struct HintShown {
  int shown = 1;
  std::vector<std::string> warnings;
};
HintShown record_hint(const std::string& file, const std::string& lesson, const std::string& exercise, int ladder);

// Removes the state at `file`, under the same lock as record_answer (a reset waits for an answer
// being saved, so that answer cannot bring the old state back). The lock file stays: a run
// waiting on it holds it. Returns the warning when it cannot.
std::optional<std::string> reset_progress(const std::string& file);

// While it lives, SIGINT and SIGTERM remove the file at `path` before they end the process as they
// would have (the handler unlinks it, which is async-signal-safe, and raises the signal again).
// Only for a signal whose action is the default: an ignored one ends nothing, and another
// handler is left alone. One at a time per process; the signals' actions are restored after.
class RemovedOnInterrupt {
 public:
  explicit RemovedOnInterrupt(const std::string& path);
  ~RemovedOnInterrupt();
  RemovedOnInterrupt(const RemovedOnInterrupt&) = delete;
  RemovedOnInterrupt& operator=(const RemovedOnInterrupt&) = delete;

 private:
  bool armed_ = false;
};

}  // namespace cudasync::course
