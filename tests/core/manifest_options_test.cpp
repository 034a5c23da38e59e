// A lesson's options as its manifest declares them (core/course/manifest.hpp, "options") and as
// core builds them into the command line (core/parts/option_binder.hpp): a bad row is named by
// file:line: key; a field that cannot hold the row, an undeclared option and a declared one the
// code leaves unbound are refused; every lesson's options on the command line are its manifest's.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/course/built_in_manifest.hpp"
#include "core/course/manifest.hpp"
#include "core/parts/option_binder.hpp"
#include "support/run_cli.hpp"

using namespace cudasync;

namespace {

std::string manifest_with_options(const std::string& options) {
  return R"({
  "lesson": "lock", "order": 1,
  "tour": ["--part", "lock-class"],
  "options": [
)" + options + R"(
  ],
  "exercises": []
})";
}

std::string option_error(const std::string& options) {
  try {
    course::parse_manifest(manifest_with_options(options), "lessons/lock/lesson.json", course::ManifestOrigin::built_in);
  } catch (const course::ManifestError& e) {
    return e.what();
  }
  return "";
}

// A binder over the lock lesson's catalog (its help keys) and `options`.
struct Bound {
  explicit Bound(const std::string& options)
      : manifest(course::parse_manifest(manifest_with_options(options), "lessons/lock/lesson.json",
                                        course::ManifestOrigin::built_in)),
        binder(app, "lock", manifest.options) {}
  CLI::App app{"test"};
  course::Manifest manifest;
  parts::OptionBinder binder;
};

}  // namespace

TEST(ManifestOptions, EachKindParsesWithItsBoundsChoicesAndList) {
  const auto m = course::parse_manifest(manifest_with_options(R"(
    {"name": "--blocks", "kind": "count", "min": 1, "max": 4096, "help": "option.blocks"},
    {"name": "--delays", "kind": "count", "list": [1, 3], "min": 1, "max": 9, "help": "option.delays"},
    {"name": "--model", "kind": "choice", "choices": ["lockstep", "independent"], "default": "lockstep", "help": "option.model"},
    {"name": "--hidden-one", "kind": "flag", "hidden": true})"),
                                        "lessons/lock/lesson.json", course::ManifestOrigin::built_in);
  ASSERT_EQ(m.options.size(), 4u);
  EXPECT_EQ(m.options[0].kind, course::OptionSpec::Kind::count);
  EXPECT_EQ(m.options[0].max, 4096u);
  EXPECT_TRUE(m.options[1].list);
  EXPECT_EQ(m.options[1].most, 3u);
  EXPECT_EQ(m.options[2].choices.size(), 2u);
  EXPECT_EQ(m.options[2].default_value, std::optional<std::string>("lockstep"));
  EXPECT_TRUE(m.options[3].hidden);
  EXPECT_EQ(m.option("--model"), &m.options[2]);
  EXPECT_EQ(m.option("--nothing"), nullptr);
}

TEST(ManifestOptions, ABadRowIsNamedByFileLineAndKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"name": "blocks", "kind": "count", "min": 1, "max": 2, "help": "h"})", "options[0].name: 'blocks' is not --kebab-case"},
      {R"({"name": "--blocks", "kind": "number", "min": 1, "max": 2, "help": "h"})", "'number' is no kind; accepted: count, choice, mask, flag, text"},
      {R"({"name": "--blocks", "kind": "count", "max": 2, "help": "h"})", "options[0].min: is missing"},
      {R"({"name": "--blocks", "kind": "count", "min": 3, "max": 2, "help": "h"})", "options[0].max: 2 is below min 3"},
      {R"({"name": "--model", "kind": "choice", "help": "h"})", "options[0].choices: is missing"},
      {R"({"name": "--model", "kind": "flag", "min": 1, "help": "h"})", "options[0].min: is only for kind count"},
      {R"({"name": "--key", "kind": "text", "help": "h"})", "options[0].accepted: is missing"},
      {R"({"name": "--blocks", "kind": "count", "min": 1, "max": 2})", "options[0].help: is missing"},
      {R"({"name": "--blocks", "kind": "count", "min": 1, "max": 2, "help": "h", "list": [3, 1]})", "options[0].list: is not true"},
      {R"({"name": "--blocks", "kind": "count", "min": 1, "max": 2, "help": "h", "colour": 1})", "unknown key 'colour'"},
      {R"({"name": "--a", "kind": "flag", "help": "h"}, {"name": "--a", "kind": "flag", "help": "h"})", "'--a' is declared twice"},
  };
  for (const auto& [row, expected] : cases) {
    const std::string e = option_error(row);
    EXPECT_NE(e.find("lessons/lock/lesson.json:"), std::string::npos) << row << " -> " << e;
    EXPECT_NE(e.find(expected), std::string::npos) << row << " -> " << e;
  }
}

TEST(OptionBinder, BuildsTheCheckOfEachKind) {
  Bound b(R"(
    {"name": "--blocks", "kind": "count", "min": 1, "max": 4096, "help": "option.blocks"},
    {"name": "--delays", "kind": "count", "list": true, "min": 1, "max": 9, "help": "option.delays"},
    {"name": "--model", "kind": "choice", "choices": ["lockstep", "independent"], "help": "option.model"},
    {"name": "--lanes", "kind": "mask", "help": "option.model"},
    {"name": "--word", "kind": "text", "accepted": "option.model", "help": "option.model"},
    {"name": "--on", "kind": "flag", "help": "option.model"})");
  std::optional<int> blocks;
  std::vector<int> delays;
  std::optional<std::string> model;
  std::string lanes, word;
  bool on = false;
  b.binder.bind("--blocks", blocks);
  b.binder.bind("--delays", delays);
  b.binder.bind("--model", model);
  b.binder.bind("--lanes", lanes);
  b.binder.bind("--word", word, [](const std::string& s) { return s == "yes" ? std::string() : std::string("not yes"); });
  b.binder.bind("--on", on);
  b.binder.done();
  b.app.parse("--on --word yes --lanes 0xff --model independent --delays 1,3 --blocks 4096", false);
  EXPECT_EQ(blocks, 4096);
  EXPECT_EQ(delays, (std::vector<int>{1, 3}));
  EXPECT_EQ(model, std::optional<std::string>("independent"));
  EXPECT_EQ(lanes, "0xff");
  EXPECT_EQ(word, "yes");
  EXPECT_TRUE(on);
  for (const std::string bad : {"--blocks 0", "--blocks 4097", "--delays 1,10", "--model both", "--lanes 0x1ffffffff",
                                "--word no"}) {
    Bound fresh(R"(
      {"name": "--blocks", "kind": "count", "min": 1, "max": 4096, "help": "option.blocks"},
      {"name": "--delays", "kind": "count", "list": true, "min": 1, "max": 9, "help": "option.delays"},
      {"name": "--model", "kind": "choice", "choices": ["lockstep", "independent"], "help": "option.model"},
      {"name": "--lanes", "kind": "mask", "help": "option.model"},
      {"name": "--word", "kind": "text", "accepted": "option.model", "help": "option.model"})");
    fresh.binder.bind("--blocks", blocks);
    fresh.binder.bind("--delays", delays);
    fresh.binder.bind("--model", model);
    fresh.binder.bind("--lanes", lanes);
    fresh.binder.bind("--word", word, [](const std::string& s) { return s == "yes" ? std::string() : std::string("not yes"); });
    EXPECT_THROW(fresh.app.parse(bad, false), CLI::ValidationError) << bad;
  }
}

TEST(OptionBinder, RefusesAFieldThatCannotHoldTheRowAndOptionsLeftUnboundOrUndeclared) {
  {
    Bound b(R"({"name": "--blocks", "kind": "count", "min": 1, "max": 100000, "help": "option.blocks"})");
    std::optional<std::string> text;
    EXPECT_THROW(b.binder.bind("--blocks", text), std::logic_error);  // a count in a text field
  }
  {
    Bound b(R"({"name": "--blocks", "kind": "count", "min": 1, "max": 100000, "help": "option.blocks"})");
    std::vector<int> list;
    EXPECT_THROW(b.binder.bind("--blocks", list), std::logic_error);  // not declared a list
  }
  {
    Bound b(R"({"name": "--blocks", "kind": "count", "min": 1, "max": 4096, "default": 7, "help": "option.blocks"})");
    int blocks = 8;
    EXPECT_THROW(b.binder.bind("--blocks", blocks), std::logic_error);  // the help's default is not the code's
  }
  {
    Bound b(R"({"name": "--blocks", "kind": "count", "min": 1, "max": 4096, "help": "option.blocks"})");
    int blocks = 1;
    EXPECT_THROW(b.binder.bind("--threads", blocks), std::logic_error);  // undeclared
    EXPECT_THROW(b.binder.done(), std::logic_error);                     // --blocks left unbound
  }
}

TEST(ManifestOptions, EveryLessonsCommandLineHasExactlyItsManifestsOptions) {
  const auto spec = nlohmann::json::parse(test::run_cli("--cli-spec").out);
  int lessons = 0;
  for (const auto& command : spec["commands"]) {
    if (!command.value("lesson", false)) continue;
    ++lessons;
    const course::Manifest& m = course::built_in_manifest(command["name"].get<std::string>());
    std::size_t lesson_options = 0;
    for (const auto& o : command["options"]) {
      const std::string name = "--" + o["long"][0].get<std::string>();
      const course::OptionSpec* s = m.option(name);
      if (!s) continue;  // core's: --help, --part, --predict...
      ++lesson_options;
      SCOPED_TRACE(m.lesson + " " + name);
      EXPECT_EQ(o.value("hidden", false), s->hidden);
      if (s->kind == course::OptionSpec::Kind::count) {
        ASSERT_TRUE(o.contains("range"));
        EXPECT_EQ(o["range"]["min"].get<std::uint64_t>(), s->min);
        EXPECT_EQ(o["range"]["max"].get<std::uint64_t>(), s->max);
      }
      if (s->kind == course::OptionSpec::Kind::choice) {
        EXPECT_EQ(o["values"].get<std::vector<std::string>>(), s->choices);
      }
      EXPECT_EQ(o.value("multiple", false), s->list);
    }
    EXPECT_EQ(lesson_options, m.options.size()) << m.lesson;
  }
  EXPECT_EQ(lessons, 8);
}
