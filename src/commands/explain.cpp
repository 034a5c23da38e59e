#include "commands/explain.hpp"


#include <memory>
#include <set>

#include "commands/course_common.hpp"
#include "core/cli/did_you_mean.hpp"
#include "core/course/course.hpp"
#include "core/course/exam.hpp"
#include "core/errors.hpp"
#include "core/lesson_texts.hpp"
#include "core/words/words.hpp"

namespace cudasync::commands {

namespace {

struct ExplainOptions {
  std::string lesson;
  std::string lang = "en";
  bool answers = false;
  bool raw = false;
};

}  // namespace

std::string answers_moved(const std::string& lesson, const std::string& lang) {
  const std::string file = "docs/teachers/" + lesson + "." + (lang == "zh" ? "zh" : "en") + ".md";
  return "explain --answers: the answers to the questions for class are no longer part of the lesson text, "
         "which is installed for students; teachers find them in " + file +
         " of the cudasync source tree; accepted: cudasync explain " + lesson + " without --answers, or an exercise's "
         "answer with cudasync exercise " + lesson + " N --answer";
}

namespace {

report::Report run_explain(const ExplainOptions& o) {
  const auto text = find_lesson_text(o.lesson, o.lang);
  if (!text)
    throw UsageError("explain: no '" + o.lang + "' text for lesson '" + o.lesson + "'; accepted: --lang en, which "
                     "every lesson has");
  if (o.answers) {
    if (const auto exam = course::exam_mode())
      throw UsageError("explain --answers: refused in exam mode (set by " + *exam + "); accepted: cudasync explain " +
                       o.lesson);
    throw UsageError(answers_moved(o.lesson, o.lang));
  }
  report::Report r;
  r.command = "explain";
  r.title = "cudasync explain " + o.lesson + " (" + o.lang + ")";
  r.document = std::string(*text);
  r.document_markdown = !o.raw;
  return r;
}

}  // namespace

cli::Runner attach_explain(CLI::App& sub, const std::vector<cli::Command>& table) {
  auto o = std::make_shared<ExplainOptions>();
  std::set<std::string> lessons;
  for (const auto& t : lesson_texts()) lessons.insert(t.lesson);
  std::vector<std::string> order, names(lessons.begin(), lessons.end());
  for (const auto& l : course::course_of(table, course::TeacherErrors::built_in_instead)) order.push_back(l.command->name);
  std::string ids;
  for (const auto& n : order) ids += (ids.empty() ? "" : ", ") + n;
  // A lesson's name, or its number in the course; a typo gets the nearest name.
  const CLI::Validator lesson_check(
      [lessons, names, order, ids](std::string& lesson) -> std::string {
        lesson = lesson_by_number(lesson, order);
        if (lessons.count(lesson)) return "";
        return "no such lesson" + cli::did_you_mean_text(lesson, names) + "; accepted: " + ids +
               ", or its number in cudasync list";
      },
      "LESSON", "a lesson, or its number");
  std::string members;  // for the completions (cli_spec reads the values from the type name)
  for (const auto& n : names) members += (members.empty() ? "" : ",") + n;
  sub.add_option("lesson", o->lesson, words::core("help.explain.lesson"))
      ->required()
      ->transform(lesson_check)
      ->type_name("TEXT:{" + members + "}");
  // Hidden: kept one release so that an old command says where the answers went (answers_moved).
  sub.add_flag("--answers", o->answers)->group("");
  sub.add_flag("--raw", o->raw, words::core("help.explain.raw"));
  return [o](const RunContext& ctx) {
    o->lang = ctx.lang;  // the global --lang, or the locale's
    return run_explain(*o);
  };
}

}  // namespace cudasync::commands
