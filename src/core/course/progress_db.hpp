#pragma once
// The progress database: one SQLite file per student, one row per exercise tried
// (core/course/progress.hpp decides where it lives and what to do when it cannot be used).
//
// SQLite gives what a course on a shared lab server needs and a JSON file had to build by hand:
// a change is one transaction (a run killed half-way leaves the journal that the next open rolls
// back), and several cudasync processes at once take turns on SQLite's file lock. The rollback
// journal, not WAL: WAL needs shared memory that a home folder on NFS does not give.
//
// The file says what it is: PRAGMA application_id is kProgressAppId and PRAGMA user_version the
// schema's version. A file that holds anything else (another program's database, a table this
// cudasync did not create, a value out of range, pages that are not SQLite's) is "corrupt"; one of
// a later version is "newer"; the caller sets the first aside and leaves the second alone.
#include <cstdint>
#include <string>

#include "core/course/progress.hpp"

struct sqlite3;

namespace cudasync::course {

inline constexpr int kProgressDbVersion = 1;
inline constexpr std::int32_t kProgressAppId = 0x63756473;  // "cuds"
// How long a run waits for another run's change before it gives up on its own (a warning; the run
// still completes). A change takes milliseconds; twenty at once, well under a second.
inline constexpr int kBusyWaitMs = 30000;

struct DbResult {
  enum Kind { ok, corrupt, newer, failed };
  Kind kind = ok;
  std::string why;  // for corrupt and failed: what SQLite or the check said
  explicit operator bool() const { return kind == ok; }
};

class ProgressDb {
 public:
  // Opens `file`, read-write where it may (a journal left by an interrupted run is rolled back),
  // read-only where it may only be read; `create` makes a missing file. opened() says how it went.
  ProgressDb(const std::string& file, bool create);
  ~ProgressDb();
  ProgressDb(const ProgressDb&) = delete;
  ProgressDb& operator=(const ProgressDb&) = delete;

  const DbResult& opened() const { return opened_; }

  // Starts a change: BEGIN IMMEDIATE (waiting up to kBusyWaitMs for another run's), then checks the
  // schema and every row; an empty file gets the schema (`created` says so). On anything but ok the
  // transaction is over.
  DbResult begin_change(bool& created);
  DbResult commit();
  void rollback();

  // Every record, checked: the schema first, then each row's types and ranges. An empty file reads
  // as no progress.
  DbResult read_all(Progress& out);
  // One exercise's record, inside a change; `found` says whether there was one.
  DbResult read_one(const std::string& lesson, const std::string& exercise, ExerciseRecord& out, bool& found);
  DbResult put(const std::string& lesson, const std::string& exercise, const ExerciseRecord& r);
  DbResult clear();

 private:
  // Whether the file holds this cudasync's schema; `empty` says it held nothing (a fresh start),
  // and `may_create` makes the schema there.
  DbResult check_schema(bool may_create, bool& empty);
  DbResult read_rows(Progress& out);
  DbResult exec(const char* sql);
  DbResult from_code(int code) const;

  sqlite3* db_ = nullptr;
  DbResult opened_;
};

}  // namespace cudasync::course
