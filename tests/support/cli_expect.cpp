#include "support/cli_expect.hpp"

#include <gtest/gtest.h>

namespace cudasync::test {

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

std::string shown(const CliResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\n--- stdout (first 1500)\n" + r.out.substr(0, 1500) +
         "\n--- stderr\n" + r.err;
}

const JsonSchema& report_schema() {
  static const JsonSchema s = JsonSchema::from_file(source_dir() + "/schema/report-v1.json");
  return s;
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
  const auto errors = report_schema().validate(doc);
  EXPECT_TRUE(errors.empty()) << "cudasync " << args << " breaks the schema:\n" << to_string(errors);
  return doc;
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
