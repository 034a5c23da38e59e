// "Every command the tool suggests runs as printed": the `cudasync ...` commands in what list,
// tour, exercise (each lesson, each exercise), check (right and wrong), progress and doctor print
// are gathered from their JSON documents (the same sentences, unwrapped) and run on the model. None
// may be a usage error (exit 2). Placeholders get a real value: LESSON lock, N 1, FILE the
// exercise's own starter; a command that asks for the student's ANSWER is checked to name an
// exercise that exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"

using namespace cudasync::test;

namespace {

// Every sentence of a document but its titles (a title names the run, it suggests nothing) and
// the run's own command line.
void strings_of(const nlohmann::json& j, std::vector<std::string>& out) {
  if (j.is_string()) {
    out.push_back(j.get<std::string>());
  } else if (j.is_array()) {
    for (const auto& x : j) strings_of(x, out);
  } else if (j.is_object()) {
    for (const auto& [k, x] : j.items())
      if (k != "title" && k != "argv" && k != "meta") strings_of(x, out);
  }
}

bool english_word(const std::string& t) {
  static const std::set<std::string> values = {"list", "show", "en", "zh", "model", "gpu", "auto"};
  if (values.count(t)) return false;
  if (t.empty()) return true;
  for (char c : t)
    if (!(c >= 'a' && c <= 'z')) return false;
  return true;
}

// The commands a text suggests: "cudasync" and the words after it that a command line has, up to
// an English word or the end of the clause (, ; : ) or a full stop).
std::vector<std::string> suggested(const std::string& text, const std::set<std::string>& names) {
  std::vector<std::string> out;
  static const std::regex start(R"((^|[^a-z/_-])cudasync\s)");
  static const std::regex token(R"(\S+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), start); it != std::sregex_iterator(); ++it) {
    const std::string rest = text.substr(static_cast<std::size_t>(it->position(0) + it->length(0)));
    std::string cmd;
    bool first = true;
    for (auto t = std::sregex_iterator(rest.begin(), rest.end(), token); t != std::sregex_iterator(); ++t) {
      std::string word = t->str();
      bool ends = false;
      while (!word.empty() && std::string(",;:).`").find(word.back()) != std::string::npos) {
        word.pop_back();
        ends = true;
      }
      if (word.empty()) break;
      if (first && !names.count(word) && !(word[0] >= '0' && word[0] <= '9')) break;  // "cudasync is ..."
      if (!first && english_word(word) && !names.count(word)) break;
      cmd += (cmd.empty() ? "" : " ") + word;
      first = false;
      if (ends) break;
    }
    if (!cmd.empty()) out.push_back("cudasync " + cmd);
  }
  return out;
}

}  // namespace

TEST(SuggestedCommands, EveryOneRunsAsPrinted) {
  const auto listed = nlohmann::json::parse(run_cli("exercise --json --backend model").out);
  std::set<std::string> names = {"list", "tour", "exercise", "check", "progress", "devices", "explain", "sources",
                                 "doctor", "bench", "help", "litmus"};
  std::vector<std::pair<std::string, int>> exercises;  // lesson, number
  for (const auto& row : listed["report"]["sections"]["exercises"]["tables"]["lessons"]["rows"]) names.insert(row["lesson"]);
  std::vector<std::string> sources = {"list", "exercise", "progress", "doctor", "check warp-primitives 9 0x0000001f",
                                      "check warp-primitives 9 0x00000001"};
  for (const std::string& l : names) {
    const auto doc = nlohmann::json::parse(run_cli("exercise " + l + " --json --backend model").out.empty()
                                               ? std::string("{}")
                                               : run_cli("exercise " + l + " --json --backend model").out);
    if (!doc.contains("report")) continue;
    sources.push_back("exercise " + l);
    for (const auto& row : doc["report"]["sections"]["exercises"]["tables"]["exercises"]["rows"])
      sources.push_back("exercise " + l + " " + std::to_string(row["number"].get<int>()));
  }
  std::set<std::string> commands;
  for (const std::string& s : sources) {
    const CliResult r = run_cli(s + " --json --backend model");
    ASSERT_NE(r.exit_code, 2) << s << ": " << r.err;
    std::vector<std::string> texts;
    strings_of(nlohmann::json::parse(r.out), texts);
    for (const auto& t : texts)
      for (const auto& c : suggested(t, names)) commands.insert(c);
  }
  ASSERT_GE(commands.size(), 20u);
  int ran = 0;
  const TempDir dir;
  // The starters first, so that a later --kernel FILE finds the file a --starter > FILE wrote.
  std::vector<std::string> ordered(commands.begin(), commands.end());
  std::stable_partition(ordered.begin(), ordered.end(), [](const std::string& c) { return c.find("--starter") != std::string::npos; });
  for (std::string c : ordered) {
    SCOPED_TRACE(c);
    c = std::regex_replace(c, std::regex(R"(\bLESSON\b)"), "lock");
    c = std::regex_replace(c, std::regex(R"(\bN\b)"), "1");
    if (c.find("ANSWER") != std::string::npos) {  // cudasync check L N ANSWER: L N must exist
      const std::string exercise = std::regex_replace(c.substr(0, c.find(" ANSWER")), std::regex("^cudasync check"), "exercise");
      EXPECT_EQ(run_cli(exercise.substr(0) + " --backend model").exit_code, 0) << exercise;
      continue;
    }
    c = std::regex_replace(c, std::regex(R"(\bLESSON\b)"), "lock");
    c = std::regex_replace(c, std::regex(R"(\bN\b)"), "1");
    if (c.find(" FILE") != std::string::npos) {
      std::smatch m;
      ASSERT_TRUE(std::regex_search(c, m, std::regex(R"(exercise ([a-z-]+) (\d+))"))) << c;
      const auto starter = nlohmann::json::parse(run_cli("exercise " + m[1].str() + " " + m[2].str() + " --json --backend model").out);
      const std::string file = source_dir() + "/" + starter["report"]["sections"]["exercise"]["facts"]["starter"]["value"].get<std::string>();
      c = std::regex_replace(c, std::regex(R"(\bFILE\b)"), file);
    }
    // progress --reset asks on a terminal (and refuses off one without --yes): run it on one, under
    // script(1), answering no.
    if (c.find("--reset") != std::string::npos && c.find("--yes") == std::string::npos) {
      const CliResult r = run_shell("echo n | script -qec \"'" CUDASYNC_BINARY "' " + c.substr(std::string("cudasync ").size()) +
                                    "\" /dev/null");
      EXPECT_EQ(r.exit_code, 0) << c << ": " << r.out << r.err;
      EXPECT_NE(r.out.find("kept"), std::string::npos) << r.out;
      ++ran;
      continue;
    }
    // Run where it may write what it redirects (--starter > file.cu): a folder of its own.
    const CliResult r = run_shell("cd '" + dir.path + "' && '" CUDASYNC_BINARY "' " + c.substr(std::string("cudasync ").size()) +
                                  " --backend model");
    EXPECT_NE(r.exit_code, 2) << c << ": " << r.err;
    ++ran;
  }
  EXPECT_GE(ran, 15);
}
