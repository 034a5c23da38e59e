#pragma once
// A student's progress through the course: which exercises they tried, and how. One SQLite
// database per user, never in the working directory: $XDG_STATE_HOME/cudasync/progress.db, or
// ~/.local/state/cudasync/progress.db when XDG_STATE_HOME is unset or not absolute (the XDG Base
// Directory Specification). On a shared lab server every student's progress is their own.
//
// Nothing here throws at a student and no run is lost over it. A missing database is a fresh start;
// the first run that finds progress.json (the file cudasync kept before) beside no database brings
// its records in and keeps the file as progress.json.migrated. A database that cannot be used gives
// a warning and a fresh start: a corrupt one (not SQLite's, another program's, a value out of range,
// larger than kMaxStateBytes) is set aside as progress.db.corrupt-<UTC time>-<pid> before the next
// change makes a new one; one of a newer cudasync is left as it is; one that cannot be written costs
// the run nothing but a warning. Each change is one SQLite transaction, so several runs at once
// lose nothing and a run killed half-way leaves nothing half-written (core/course/progress_db.hpp);
// runs that find the same corrupt file take turns on an flock of progress.db.lock to set it aside,
// so that only the corrupt one is moved, never the new state another run made meanwhile.
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudasync::course {

// A state this large is not one cudasync wrote (a whole course takes a few KiB): it is set aside
// unread rather than read into memory. The same bound holds for the legacy progress.json.
inline constexpr std::uintmax_t kMaxStateBytes = std::uintmax_t{16} << 20;
// Why a state of `bytes` is set aside unread: "larger than 16 MiB (N bytes), far more than ...".
std::string too_large_text(std::uintmax_t bytes);
// The most answers one exercise counts; further answers leave it there.
inline constexpr int kMaxAttempts = INT_MAX;
inline constexpr int kMaxHints = 16;  // hints per exercise; a count above is not one cudasync wrote

struct ExerciseRecord {
  bool solved = false;      // answered right at least once
  bool last_right = false;  // the latest answer was right
  int attempts = 0;
  std::string last_answer;  // as read (canonical)
  std::string first_when;   // UTC, "2025-06-01T12:00:00Z", of the first answer; "" before any (or unknown)
  std::string when;         // UTC of the latest answer
  std::string solved_when;  // UTC of the first right answer; "" unsolved (or solved before it was kept)
  std::string solved_on;    // what computed the right answer that solved it: "gpu" or "model"; "" unknown
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
  std::string file;     // ".../cudasync/progress.db"; "" when there is none
  std::string problem;  // why there is none: "neither XDG_STATE_HOME nor HOME is set"
};
StatePath progress_path();  // from the environment
StatePath progress_path(const char* xdg_state_home, const char* home);

struct Loaded {
  Progress progress;
  std::vector<std::string> warnings;  // each a sentence for stderr
  bool exists = false;                // there was a state (the database, or progress.json to bring in)
};
// Reads the state at `file` (a fresh start, with a warning, when it cannot be used). Brings a
// progress.json beside it in first, when there is no database yet.
Loaded load_progress(const std::string& file);

// What a change to the state did: `saved` false when it could not be made (the warnings say why).
struct Changed {
  bool saved = true;
  std::vector<std::string> warnings;  // each a sentence for stderr
};

// Records one answer in the state at `file`; `computed_on` ("gpu" or "model") is what computed the
// right answer it was checked against. Never throws.
Changed record_answer(const std::string& file, const std::string& lesson, const std::string& exercise, bool right,
                      const std::string& answer, const std::string& computed_on);
// Records that the exercise's answer was shown (exercise --answer): the first time's UTC.
Changed record_answer_shown(const std::string& file, const std::string& lesson, const std::string& exercise);

// Records that a hint of an exercise with `ladder` hints was asked for: the first time the first
// rung, then one more each time, up to the last. Returns how many rungs to show (1..ladder); the
// count is read and raised in one transaction, so two runs at once show two rungs.
struct HintShown {
  int shown = 1;
  Changed changed;
};
HintShown record_hint(const std::string& file, const std::string& lesson, const std::string& exercise, int ladder);

// Clears every record of the state at `file` in one transaction (a reset waits for an answer being
// saved, so that answer cannot bring the old state back); a progress.json not yet brought in is
// brought in first, so that it cannot either. A corrupt database is set aside, not deleted.
Changed reset_progress(const std::string& file);

}  // namespace cudasync::course
