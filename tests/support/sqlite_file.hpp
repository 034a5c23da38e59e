#pragma once
// A test's own hand on a SQLite file: to make the databases a disk, another program or another
// cudasync could leave where the progress lives, and to look inside the one cudasync wrote.
#include <string>

namespace cudasync::test {

// Runs `sql` (one or more statements) on the database `file`, made when missing. Returns SQLite's
// error message, "" when it ran.
std::string sqlite_exec(const std::string& file, const std::string& sql);

// The first column of the first row `sql` gives, as text ("" when there is none).
std::string sqlite_value(const std::string& file, const std::string& sql);

}  // namespace cudasync::test
