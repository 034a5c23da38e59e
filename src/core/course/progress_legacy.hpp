#pragma once
// The progress file of cudasync before the database (core/course/progress_db.hpp): versioned JSON,
// {"format": "cudasync-progress", "version": 1, "lessons": {lesson: {exercise: record}}}, at
// progress.json beside progress.db. Read once, to bring its records into the database; never
// written again.
#include <cstdint>
#include <string>

#include "core/course/progress.hpp"

namespace cudasync::course {

inline constexpr int kLegacyVersion = 1;

// What the file at `file` holds: nothing (exists false), records, or why they cannot be used. Read
// through one descriptor without waiting (a FIFO without a writer would block), only a regular
// file, at most kMaxStateBytes.
struct LegacyState {
  bool exists = false;
  Progress progress;
  std::string unreadable;  // cannot be read at all: left where it is
  std::string corrupt;     // not a state cudasync wrote: set aside
  bool newer = false;      // a version this cudasync does not read: left where it is
};
LegacyState read_legacy_state(const std::string& file);

// The legacy file beside the database `db_file`: its folder's progress.json.
std::string legacy_state_of(const std::string& db_file);

}  // namespace cudasync::course
