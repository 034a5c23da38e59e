// The class report: three students export their progress (cudasync progress --export), the teacher
// reads the files, or their folder, as a table, CSV and HTML: each student's totals and where they
// are stuck, each exercise's solves, hints and answers shown. An export of another version is
// refused, naming the file and what is accepted.
#include <gtest/gtest.h>

#include <fstream>

#include "support/cli_expect.hpp"
#include "support/temp_dir.hpp"

using namespace cudasync::test;

namespace {
std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST(ClassReport, ThreeStudentsInATableCsvAndHtml) {
  const TempDir dir;
  const auto as = [&](const std::string& who, const std::string& args) {
    return run_shell("XDG_STATE_HOME='" + dir.path + "/state-" + who + "' CUDASYNC_EXAM_FILE=/nonexistent '" +
                     binary_path() + "' " + args + " --backend model");
  };
  std::filesystem::create_directories(dir.path + "/class");
  for (const std::string who : {"ana", "bo", "chen"}) {
    ASSERT_EQ(as(who, "check warp-primitives 9 0x0000001f").exit_code, 0);
    if (who == "bo") {
      for (int i = 0; i < 3; ++i) EXPECT_EQ(as(who, "check warp-primitives 1 3").exit_code, 1);
    }
    if (who == "chen") {
      EXPECT_EQ(as(who, "exercise lock 2 --answer").exit_code, 0);
    }
    const CliResult e = run_shell("XDG_STATE_HOME='" + dir.path + "/state-" + who + "' '" + binary_path() +
                                  "' progress --export '" + dir.path + "/class/" + who + ".json' --student " + who);
    ASSERT_EQ(e.exit_code, 0) << shown(e);
  }
  // A folder that is not there: refused, naming the file.
  const CliResult nowhere = run_cli("progress --export '" + dir.path + "/no/such/x.json'");
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_TRUE(contains(nowhere.err, "x.json: cannot be written")) << nowhere.err;
  // Each record says what computed the answer that solved it: here the model; a student in the GPU
  // lab (her file as ana's, solved on a GPU) counts apart.
  {
    auto dee = nlohmann::json::parse(read_text(dir.path + "/class/ana.json"));
    dee["student"] = "dee";
    for (auto& e : dee["exercises"])
      if (e["solved"].get<bool>()) {
        EXPECT_EQ(e["solved_on"], "model") << e;
        EXPECT_FALSE(e["solved_at"].get<std::string>().empty()) << e;
        e["solved_on"] = "gpu";
      }
    std::ofstream(dir.path + "/class/dee.json") << dee.dump();
  }
  const auto doc = valid_document("class report '" + dir.path + "/class' --json");
  const auto& students = doc["report"]["sections"]["class"]["tables"]["students"]["rows"];
  ASSERT_EQ(students.size(), 4u);
  EXPECT_EQ(students[1]["student"], "bo");
  EXPECT_EQ(students[1]["attempts"], 4);
  EXPECT_EQ(students[1]["stuck"], "warp-primitives 1");
  EXPECT_EQ(students[2]["shown"], 1);
  EXPECT_EQ(students[0]["on-gpu"], 0);
  EXPECT_EQ(students[3]["student"], "dee");
  EXPECT_EQ(students[3]["on-gpu"], 1);
  const auto& exercises = doc["report"]["sections"]["class"]["tables"]["exercises"]["rows"];
  ASSERT_GE(exercises.size(), 3u);
  EXPECT_EQ(exercises[0]["solved"], 0);  // the hardest first
  const std::string files = "'" + dir.path + "/class/ana.json' '" + dir.path + "/class/bo.json' '" + dir.path + "/class/chen.json'";
  ASSERT_EQ(run_cli("class report " + files + " --csv='" + dir.path + "/class.csv'").exit_code, 0);
  const std::string csv = read_text(dir.path + "/class.csv");
  for (const char* s : {"ana", "bo", "chen", "warp-primitives 1", "stuck"}) EXPECT_TRUE(contains(csv, s)) << s;
  ASSERT_EQ(run_cli("class report " + files + " --html='" + dir.path + "/class.html'").exit_code, 0);
  const std::string html = read_text(dir.path + "/class.html");
  for (const char* s : {"<table", "chen", "answers shown", "warp-primitives 1"}) EXPECT_TRUE(contains(html, s)) << s;
  // Charts: each student's bars and each exercise's, as SVG beside the tables.
  std::size_t charts = 0;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) ++charts;
  EXPECT_GE(charts, 2u) << "the students' and the exercises' bars";
  EXPECT_TRUE(contains(html, "<title>chen, ")) << "a bar names its student and value";
}

TEST(ClassReport, AnExportOfAnotherVersionOrNoneIsRefused) {
  const TempDir dir;
  std::ofstream(dir.path + "/new.json") << R"({"format": "cudasync-progress-export", "version": 9, "cudasync": "9.0"})";
  const CliResult r = run_cli("class report '" + dir.path + "/new.json'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "new.json: version 9, written by cudasync 9.0; accepted: a file cudasync progress --export wrote")) << r.err;
  std::ofstream(dir.path + "/other.json") << R"({"format": "something"})";
  EXPECT_TRUE(contains(run_cli("class report '" + dir.path + "/other.json'").err, "not a cudasync progress export"));
  EXPECT_EQ(run_cli("class report").exit_code, 2);
  EXPECT_EQ(run_cli("class nope x").exit_code, 2);
  EXPECT_EQ(run_cli("class report '" + dir.path + "/missing'").exit_code, 2);
}
