#include "support/sqlite_file.hpp"

#include <sqlite3.h>

namespace cudasync::test {

std::string sqlite_exec(const std::string& file, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string why;
  if (sqlite3_open(file.c_str(), &db) != SQLITE_OK) {
    why = db ? sqlite3_errmsg(db) : "cannot open";
  } else {
    char* error = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) why = error ? error : "failed";
    sqlite3_free(error);
  }
  sqlite3_close(db);
  return why;
}

std::string sqlite_value(const std::string& file, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW &&
        sqlite3_column_text(s, 0) != nullptr)
      out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return out;
}

}  // namespace cudasync::test
