#include "commands/explain.hpp"

#include <algorithm>
#include <memory>
#include <set>

#include "core/course/course.hpp"
#include "core/course/exercise_texts.hpp"
#include "core/errors.hpp"
#include "core/lesson_texts.hpp"

namespace cudasync::commands {

namespace {

struct ExplainOptions {
  std::vector<std::string> with_exercises;  // the lessons that have exercises
  std::string lesson;
  std::string lang = "en";
  bool answers = false;
  bool raw = false;
};

}  // namespace

std::string without_answers(const std::string& text, const std::string& lesson, const std::string& lang,
                            bool has_exercises) {
  const std::string heading = lang == "zh" ? "## 答案" : "## Answers";
  std::size_t at = text.rfind("\n" + heading + "\n");
  if (at == std::string::npos) return text;
  ++at;
  const std::size_t next = text.find("\n## ", at + heading.size());
  const std::string& l = lesson;
  const std::string pointer =
      !has_exercises
          ? (lang == "zh" ? heading + "\n\n答案不在这里，先自己想。给老师的参考答案：`cudasync explain " + l +
                                " --lang zh --answers`。\n"
                          : heading + "\n\nThe answers are not printed here: think first. For teachers: `cudasync "
                                "explain " + l + " --answers`.\n")
      : lang == "zh"
          ? heading + "\n\n答案不在这里，先自己想。工具能检查的练习：\n\n" +
                "- `cudasync exercise " + l + "` 列出它们，`cudasync exercise " + l + " N --hint` 给出提示；\n" +
                "- `cudasync check " + l + " N 答案` 检查你的答案并记入你的进度；\n" +
                "- `cudasync exercise " + l + " N --answer` 显示工具现在运行本课算出的答案。\n\n" +
                "上面课堂问题的参考答案（给老师）：`cudasync explain " + l + " --lang zh --answers`。\n"
          : heading + "\n\nThe answers are not printed here: think first. The exercises the tool checks:\n\n" +
                "- `cudasync exercise " + l + "` lists them, `cudasync exercise " + l + " N --hint` gives a hint;\n" +
                "- `cudasync check " + l + " N ANSWER` checks yours and records it in your progress;\n" +
                "- `cudasync exercise " + l + " N --answer` shows the answer the tool computes now, by running\n" +
                "  the lesson.\n\n" +
                "The answers to the questions for class above (for teachers): `cudasync explain " + l +
                " --answers`.\n";
  return text.substr(0, at) + pointer + (next == std::string::npos ? "" : text.substr(next));
}

namespace {

report::Report run_explain(const ExplainOptions& o) {
  const auto text = find_lesson_text(o.lesson, o.lang);
  if (!text)
    throw UsageError("explain: no '" + o.lang + "' text for lesson '" + o.lesson + "'; accepted: --lang en, which "
                     "every lesson has");
  report::Report r;
  r.command = "explain";
  r.title = "cudasync explain " + o.lesson + " (" + o.lang + ")";
  const bool exercises =
      std::find(o.with_exercises.begin(), o.with_exercises.end(), o.lesson) != o.with_exercises.end();
  r.document = o.answers ? std::string(*text)
                         : without_answers(course::without_whys(*text, o.lang), o.lesson, o.lang, exercises);
  r.document_markdown = !o.raw;
  return r;
}

}  // namespace

cli::Runner attach_explain(CLI::App& sub, const std::vector<cli::Command>& table) {
  auto o = std::make_shared<ExplainOptions>();
  o->with_exercises = course::lessons_with_exercises(table);
  std::set<std::string> lessons, langs;
  for (const auto& t : lesson_texts()) {
    lessons.insert(t.lesson);
    langs.insert(t.lang);
  }
  sub.add_option("lesson", o->lesson, "The lesson to explain")->required()->check(CLI::IsMember(lessons));
  sub.add_option("--lang", o->lang, "Language of the text")->check(CLI::IsMember(langs));
  sub.add_flag("--answers", o->answers,
               "Print the answers to the questions for class too (for teachers; students: cudasync exercise)");
  sub.add_flag("--raw", o->raw, "Print the Markdown as written, instead of rendering it for the terminal");
  return [o](const RunContext&) { return run_explain(*o); };
}

}  // namespace cudasync::commands
