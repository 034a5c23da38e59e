#include "core/course/progress_db.hpp"

#include <sqlite3.h>

#include <climits>
#include <string_view>

namespace cudasync::course {

namespace {

// The one table. STRICT and the CHECKs make SQLite itself refuse a value of the wrong type or out
// of range; the rows are checked again when read (a file is whatever is on the disk).
constexpr const char* kCreateTable =
    "CREATE TABLE exercise ("
    "lesson TEXT NOT NULL, exercise TEXT NOT NULL, "
    "attempts INTEGER NOT NULL CHECK (attempts BETWEEN 0 AND 2147483647), "
    "solved INTEGER NOT NULL CHECK (solved IN (0, 1)), "
    "last_right INTEGER NOT NULL CHECK (last_right IN (0, 1)), "
    "last_answer TEXT NOT NULL, "
    "first_tried TEXT NOT NULL, last_tried TEXT NOT NULL, "
    "solved_at TEXT NOT NULL, solved_on TEXT NOT NULL, "
    "hints INTEGER NOT NULL CHECK (hints BETWEEN 0 AND 16), "
    "answer_shown TEXT NOT NULL, "
    "after_answer INTEGER NOT NULL CHECK (after_answer IN (0, 1)), "
    "PRIMARY KEY (lesson, exercise)) STRICT";

constexpr const char* kColumns =
    "lesson, exercise, attempts, solved, last_right, last_answer, first_tried, last_tried, solved_at, solved_on, "
    "hints, answer_shown, after_answer";

// A prepared statement, finalized when it goes.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) { code_ = sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr); }
  ~Statement() { sqlite3_finalize(s_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  int code() const { return code_; }
  sqlite3_stmt* get() const { return s_; }
  void bind(int i, const std::string& v) { sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT); }
  void bind(int i, std::int64_t v) { sqlite3_bind_int64(s_, i, v); }

 private:
  sqlite3_stmt* s_ = nullptr;
  int code_ = SQLITE_OK;
};

// One column of a row, checked: `why` gets the first thing wrong.
struct RowReader {
  sqlite3_stmt* s;
  std::string why;
  std::string text(int i, const char* name) {
    if (sqlite3_column_type(s, i) != SQLITE_TEXT) {
      if (why.empty()) why = std::string("\"") + name + "\" is not text";
      return "";
    }
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
    return std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s, i)));
  }
  std::int64_t number(int i, const char* name, std::int64_t most) {
    const std::int64_t v = sqlite3_column_type(s, i) == SQLITE_INTEGER ? sqlite3_column_int64(s, i) : -1;
    if ((v < 0 || v > most) && why.empty())
      why = std::string("\"") + name + "\" is not a whole number 0.." + std::to_string(most);
    return v < 0 || v > most ? 0 : v;
  }
  bool flag(int i, const char* name) { return number(i, name, 1) == 1; }
};

// The record in the current row of a SELECT of kColumns, or why it is not one.
std::string read_row(sqlite3_stmt* s, ExerciseRecord& r) {
  RowReader c{s, ""};
  r.attempts = static_cast<int>(c.number(2, "attempts", kMaxAttempts));
  r.solved = c.flag(3, "solved");
  r.last_right = c.flag(4, "last_right");
  r.last_answer = c.text(5, "last_answer");
  r.first_when = c.text(6, "first_tried");
  r.when = c.text(7, "last_tried");
  r.solved_when = c.text(8, "solved_at");
  r.solved_on = c.text(9, "solved_on");
  r.hints = static_cast<int>(c.number(10, "hints", kMaxHints));
  r.answer_shown = c.text(11, "answer_shown");
  r.after_answer = c.flag(12, "after_answer");
  return c.why;
}

}  // namespace

ProgressDb::ProgressDb(const std::string& file, bool create) {
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  int code = sqlite3_open_v2(file.c_str(), &db_, flags, nullptr);
  if ((code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM) && !create) {
    sqlite3_close(db_);  // a file this user may read but not write: still theirs to see
    db_ = nullptr;
    code = sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  }
  if (code != SQLITE_OK) {
    opened_ = {DbResult::failed, db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code)};
    sqlite3_close(db_);
    db_ = nullptr;
    return;
  }
  sqlite3_busy_timeout(db_, kBusyWaitMs);
  // A file is input like any other: no SQL from its schema runs with more than it needs, and no
  // page is trusted before it is checked.
  sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
  sqlite3_exec(db_, "PRAGMA cell_size_check = ON", nullptr, nullptr, nullptr);
}

ProgressDb::~ProgressDb() { sqlite3_close(db_); }

DbResult ProgressDb::from_code(int code) const {
  const int primary = code & 0xff;
  const std::string why = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB || primary == SQLITE_FORMAT)
    return {DbResult::corrupt, why};
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    return {DbResult::failed, "another cudasync kept it busy for " + std::to_string(kBusyWaitMs / 1000) + " s"};
  return {DbResult::failed, why};
}

DbResult ProgressDb::exec(const char* sql) {
  const int code = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  return code == SQLITE_OK ? DbResult{} : from_code(code);
}

// What the file holds, against what this cudasync writes: application id, version, and exactly one
// table (with its primary key's index) made by kCreateTable.
DbResult ProgressDb::check_schema(bool may_create, bool& empty) {
  empty = false;
  std::int64_t app = 0, version = 0, objects = 0;
  for (auto [sql, out] : {std::pair<const char*, std::int64_t*>{"PRAGMA application_id", &app},
                          {"PRAGMA user_version", &version},
                          {"SELECT count(*) FROM sqlite_schema", &objects}}) {
    Statement s(db_, sql);
    if (s.code() != SQLITE_OK) return from_code(s.code());
    const int step = sqlite3_step(s.get());
    if (step != SQLITE_ROW) return from_code(step);
    *out = sqlite3_column_int64(s.get(), 0);
  }
  if (app == 0 && version == 0 && objects == 0) {  // an empty file: a fresh start
    empty = true;
    if (!may_create) return {};
    const std::string make = std::string(kCreateTable) + "; PRAGMA application_id = " + std::to_string(kProgressAppId) +
                             "; PRAGMA user_version = " + std::to_string(kProgressDbVersion) + ";";
    return exec(make.c_str());
  }
  if (app != kProgressAppId) return {DbResult::corrupt, "not a cudasync progress database (another program's SQLite file)"};
  if (version > kProgressDbVersion) return {DbResult::newer, ""};
  if (version < 1) return {DbResult::corrupt, "version " + std::to_string(version) + " is not one cudasync ever wrote"};
  Statement s(db_, "SELECT type, name, coalesce(sql, '') FROM sqlite_schema");
  if (s.code() != SQLITE_OK) return from_code(s.code());
  bool table = false;
  int step;
  while ((step = sqlite3_step(s.get())) == SQLITE_ROW) {
    const std::string type = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0));
    const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 1));
    const std::string sql = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 2));
    if (type == "table" && name == "exercise" && sql == kCreateTable)
      table = true;
    else if (!(type == "index" && name == "sqlite_autoindex_exercise_1"))
      return {DbResult::corrupt, "it holds " + type + " \"" + name + "\", which cudasync never made"};
  }
  if (step != SQLITE_DONE) return from_code(step);
  if (!table) return {DbResult::corrupt, "no exercise table"};
  return {};
}

DbResult ProgressDb::begin_change(bool& created) {
  created = false;
  if (!opened_) return opened_;
  if (DbResult r = exec("BEGIN IMMEDIATE"); !r) return r;
  DbResult r = check_schema(true, created);
  // Every row checked before one is changed: a file that a read calls corrupt is set aside by the
  // next change too, not written into.
  Progress rows;
  if (r && !created) r = read_rows(rows);
  if (!r) rollback();
  return r;
}

DbResult ProgressDb::commit() {
  DbResult r = exec("COMMIT");
  if (!r) rollback();
  return r;
}

void ProgressDb::rollback() {
  if (db_ != nullptr && sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

DbResult ProgressDb::read_rows(Progress& out) {
  Statement s(db_, std::string("SELECT ") + kColumns + " FROM exercise");
  int step = s.code();
  if (step == SQLITE_OK)
    while ((step = sqlite3_step(s.get())) == SQLITE_ROW) {
      ExerciseRecord rec;
      RowReader keys{s.get(), ""};
      const std::string lesson = keys.text(0, "lesson"), exercise = keys.text(1, "exercise");
      const std::string why = keys.why.empty() ? read_row(s.get(), rec) : keys.why;
      if (!why.empty()) return {DbResult::corrupt, "exercise \"" + lesson + "/" + exercise + "\": " + why};
      out.lessons[lesson][exercise] = std::move(rec);
    }
  return step == SQLITE_DONE ? DbResult{} : from_code(step);
}

DbResult ProgressDb::read_all(Progress& out) {
  if (!opened_) return opened_;
  // One read transaction: the schema and the rows seen at the same moment.
  if (DbResult r = exec("BEGIN"); !r) return r;
  bool empty = false;
  DbResult r = check_schema(false, empty);
  if (r && !empty) r = read_rows(out);
  rollback();
  if (!r) out.lessons.clear();
  return r;
}

DbResult ProgressDb::read_one(const std::string& lesson, const std::string& exercise, ExerciseRecord& out,
                              bool& found) {
  found = false;
  Statement s(db_, std::string("SELECT ") + kColumns + " FROM exercise WHERE lesson = ?1 AND exercise = ?2");
  if (s.code() != SQLITE_OK) return from_code(s.code());
  s.bind(1, lesson);
  s.bind(2, exercise);
  const int step = sqlite3_step(s.get());
  if (step == SQLITE_DONE) return {};
  if (step != SQLITE_ROW) return from_code(step);
  if (std::string why = read_row(s.get(), out); !why.empty())
    return {DbResult::corrupt, "exercise \"" + lesson + "/" + exercise + "\": " + why};
  found = true;
  return {};
}

DbResult ProgressDb::put(const std::string& lesson, const std::string& exercise, const ExerciseRecord& r) {
  Statement s(db_, std::string("INSERT OR REPLACE INTO exercise (") + kColumns +
                       ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  if (s.code() != SQLITE_OK) return from_code(s.code());
  s.bind(1, lesson);
  s.bind(2, exercise);
  s.bind(3, std::int64_t{r.attempts});
  s.bind(4, std::int64_t{r.solved});
  s.bind(5, std::int64_t{r.last_right});
  s.bind(6, r.last_answer);
  s.bind(7, r.first_when);
  s.bind(8, r.when);
  s.bind(9, r.solved_when);
  s.bind(10, r.solved_on);
  s.bind(11, std::int64_t{r.hints});
  s.bind(12, r.answer_shown);
  s.bind(13, std::int64_t{r.after_answer});
  const int step = sqlite3_step(s.get());
  return step == SQLITE_DONE ? DbResult{} : from_code(step);
}

DbResult ProgressDb::clear() { return exec("DELETE FROM exercise"); }

}  // namespace cudasync::course
