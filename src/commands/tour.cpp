#include "commands/tour.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

#include "commands/course_common.hpp"
#include "core/words/words.hpp"
#include "core/course/lesson_runner.hpp"
#include "core/errors.hpp"
#include "core/parts/summary.hpp"

namespace cudasync::commands {

namespace {

using report::Format;

std::string command_text(const course::CourseLesson& l) {
  std::string s = "cudasync " + l.command->name;
  for (const auto& a : l.course->tour_args) s += " " + a;
  return s;
}

// One lesson's stop: its header, its sections (ids prefixed with the lesson's), and the sentence.
void stop(const course::CourseLesson& l, std::size_t order, std::size_t of, course::LessonRunner& runner,
          const std::string& lang, report::Report& out) {
  const std::string& name = l.command->name;
  report::Section head(name, std::to_string(order) + "/" + std::to_string(of) + " " + name);
  head.paragraph(words::say(name, "lesson.summary") + ".");
  head.fact("run", words::core("tour.what-runs"), command_text(l));
  head.fact("more", words::core("tour.whole-lesson"), "cudasync " + name + "; cudasync explain " + name);
  const auto start = std::chrono::steady_clock::now();
  report::Report lesson;
  try {
    lesson = runner.run(name, l.course->tour_args);
  } catch (const Error& e) {  // one lesson that cannot run here ends neither the tour nor the document
    head.check("ran", words::core("tour.lesson-ran"), false, e.what());
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  head.fact("time", words::core("tour.time"), ms, Format::ms);
  // A stop fits one 80x24 screen: the run's verdicts part by part (the lesson's one-screen
  // summary), not its tables; "what runs here" shows them whole.
  if (!lesson.sections.empty() || !lesson.waived.empty()) {
    const report::Section summary = parts::summary_section(lesson, name, l.command->parts, runner.context());
    for (const auto& f : summary.facts)
      if (f.id != "remember" && f.id != "next") head.facts.push_back(f);
    // The lesson's checks as one: a failure (a GPU that disagrees with the model) still fails the
    // tour (exit 1), named with the checks that failed.
    const std::size_t all = lesson.checks_passed() + lesson.checks_failed();
    std::string failed;
    for (const auto& s : lesson.sections)
      for (const auto& c : s.checks)
        if (!c.passed) failed += (failed.empty() ? "" : ", ") + s.id + "/" + c.id;
    if (all > 0)
      head.check("checks", words::core("tour.checks"), lesson.checks_failed() == 0,
                 failed.empty() ? words::core("tour.checks-all", {{"all", all}})
                                : words::core("tour.checks-failed", {{"failed", failed}, {"command", command_text(l)}}));
  }
  out.sections.push_back(std::move(head));
  report::Section end(name + "-remember", words::core("tour.remember"));
  end.paragraph(l.course->remember.in(lang));
  out.sections.push_back(std::move(end));
}

report::Report run_tour(const std::vector<cli::Command>& table, const std::string& lang, const RunContext& ctx) {
  const auto lessons = course::course_of(table);
  report::Report r;
  r.command = "tour";
  r.title = words::core("tour.title");
  report::Section setup("setup", words::core("tour.heading"));
  setup.paragraph(words::core("tour.about"));
  setup.fact("lessons", words::core("tour.lessons"), static_cast<std::int64_t>(lessons.size()), Format::count);
  setup.fact("backend", words::core("tour.runs-on"), computed_on(ctx));
  r.sections.push_back(std::move(setup));
  course::InProcessRunner runner(table, ctx);
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < lessons.size(); ++i) stop(lessons[i], i + 1, lessons.size(), runner, lang, r);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  report::Section end("tour-end", words::core("tour.end"));
  end.fact("time", words::core("tour.whole-tour"), ms, Format::ms);
  end.paragraph(words::core("tour.next"));
  r.sections.push_back(std::move(end));
  return r;
}

}  // namespace

cli::Attached attach_tour(CLI::App& sub, const std::vector<cli::Command>& table) {
  sub.footer(words::core("help.tour.footer"));
  return cli::Runner([&table](const RunContext& ctx) { return run_tour(table, ctx.lang, ctx); });
}

}  // namespace cudasync::commands
