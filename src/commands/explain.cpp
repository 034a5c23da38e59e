#include "commands/explain.hpp"

#include <memory>
#include <set>

#include "core/errors.hpp"
#include "core/lesson_texts.hpp"

namespace cudasync::commands {

namespace {

struct ExplainOptions {
  std::string lesson;
  std::string lang = "en";
  bool raw = false;
};

report::Report run_explain(const ExplainOptions& o) {
  const auto text = find_lesson_text(o.lesson, o.lang);
  if (!text) throw UsageError("explain: no '" + o.lang + "' text for lesson '" + o.lesson + "'");
  report::Report r;
  r.command = "explain";
  r.title = "cudasync explain " + o.lesson + " (" + o.lang + ")";
  r.document = std::string(*text);
  r.document_markdown = !o.raw;
  return r;
}

}  // namespace

cli::Runner attach_explain(CLI::App& sub) {
  auto o = std::make_shared<ExplainOptions>();
  std::set<std::string> lessons, langs;
  for (const auto& t : lesson_texts()) {
    lessons.insert(t.lesson);
    langs.insert(t.lang);
  }
  sub.add_option("lesson", o->lesson, "The lesson to explain")->required()->check(CLI::IsMember(lessons));
  sub.add_option("--lang", o->lang, "Language of the text")->check(CLI::IsMember(langs));
  sub.add_flag("--raw", o->raw, "Print the Markdown as written, instead of rendering it for the terminal");
  return [o](const RunContext&) { return run_explain(*o); };
}

}  // namespace cudasync::commands
