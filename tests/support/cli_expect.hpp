#pragma once
// What the CLI tests of every lesson ask of a run of the real binary, in one place.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/json_schema.hpp"
#include "support/run_cli.hpp"

namespace cudasync::test {

bool contains(const std::string& hay, const std::string& needle);
// How many times `needle` occurs in `hay`, overlapping ones counted ("aaa", "aa" -> 2).
std::size_t occurrences(const std::string& hay, const std::string& needle);
// The lines of `text`, without their newlines ("a\nb\n" -> {"a", "b"}).
std::vector<std::string> lines_of(const std::string& text);
// The columns a line takes on a terminal: a three- or four-byte UTF-8 character (CJK) two, others one.
std::size_t display_columns(const std::string& line);
// A run as a failure message shows it: exit code, the start of stdout, all of stderr.
std::string shown(const CliResult& r);
// Runs `cudasync <args>`, expects `expected_exit`, and returns its stdout parsed as one JSON
// document that must validate against schema/report-v2.json (failures are reported, not thrown).
nlohmann::ordered_json valid_document(const std::string& args, int expected_exit = 0);

// The checks of a document that failed, as "section-id/check-id" (empty when every check passed):
//   EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
std::vector<std::string> failed_checks(const nlohmann::ordered_json& doc);
// How many checks the document holds, passed or not.
std::size_t check_count(const nlohmann::ordered_json& doc);
// The ids of the document's sections, in order ("setup" first).
std::vector<std::string> section_ids(const nlohmann::ordered_json& doc);

// A command line every lesson must refuse the same way: exit 2, "error" and each of `err_has`
// on stderr (the input named, what would be accepted), and no report on stdout.
struct UsageCase {
  const char* args;
  std::vector<const char*> err_has;
};
void expect_usage_error(const UsageCase& c);

}  // namespace cudasync::test
