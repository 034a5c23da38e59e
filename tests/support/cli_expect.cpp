#include "support/cli_expect.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace cudasync::test {

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

std::size_t occurrences(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::size_t display_columns(const std::string& line) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < line.size();) {
    const auto c = static_cast<unsigned char>(line[i]);
    const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    w += len >= 3 ? 2 : 1;
    i += len;
  }
  return w;
}

std::string shown(const CliResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\n--- stdout (first 1500)\n" + r.out.substr(0, 1500) +
         "\n--- stderr\n" + r.err;
}

nlohmann::ordered_json valid_document(const std::string& args, int expected_exit) {
  const CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, expected_exit) << "cudasync " << args << "\n" << shown(r);
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "cudasync " << args << ": not one JSON document: " << e.what() << "\n" << shown(r);
    return doc;
  }
  const std::string errors = schema_errors(doc);
  EXPECT_EQ(errors, "") << "cudasync " << args << " breaks schema/report-v2.json";
  return doc;
}

std::vector<std::string> failed_checks(const nlohmann::ordered_json& doc) {
  std::vector<std::string> failed;
  if (!doc.contains("report")) return {"(no report)"};
  for (const auto& [section_id, section] : doc["report"]["sections"].items())
    for (const auto& [check_id, check] : section["checks"].items())
      if (!check["passed"].get<bool>()) failed.push_back(section_id + "/" + check_id);
  return failed;
}

std::size_t check_count(const nlohmann::ordered_json& doc) {
  std::size_t n = 0;
  if (doc.contains("report"))
    for (const auto& section : doc["report"]["sections"]) n += section["checks"].size();
  return n;
}

std::vector<std::string> section_ids(const nlohmann::ordered_json& doc) {
  std::vector<std::string> ids;
  if (doc.contains("report"))
    for (const auto& [id, s] : doc["report"]["sections"].items()) ids.push_back(id);
  return ids;
}

void expect_usage_error(const UsageCase& c) {
  const CliResult r = run_cli(c.args);
  EXPECT_EQ(r.exit_code, 2) << "cudasync " << c.args << "\n" << shown(r);
  EXPECT_TRUE(contains(r.err, "error")) << "cudasync " << c.args << "\n" << shown(r);
  for (const char* s : c.err_has)
    EXPECT_TRUE(contains(r.err, s)) << "cudasync " << c.args << ": stderr lacks '" << s << "'\n" << shown(r);
  EXPECT_FALSE(contains(r.out, "== ")) << "cudasync " << c.args << ": a usage error prints no report\n" << shown(r);
}

}  // namespace cudasync::test
