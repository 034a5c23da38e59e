#include "commands/list.hpp"

#include <cstdint>

#include "commands/course_common.hpp"
#include "core/words/words.hpp"

namespace cudasync::commands {

namespace {

report::Report run_list(const RunContext& ctx, const std::vector<cli::Command>& table) {
  report::Report r;
  r.command = "list";
  r.title = words::core("list.title");
  report::Section s("lessons", words::core("list.lessons"));
  const GpuProbe& probe = ctx.gpus();
  std::string where;
  if (!probe.devices.empty()) {
    const auto& d = probe.devices.front();
    const std::string gpu_name = "GPU " + std::to_string(d.index) + " (" + d.name + ", cc " + d.cc_string() + ")";
    where = words::core("list.runs-on-gpu");
    s.fact("gpu", "GPU", gpu_name, report::Format::plain,
           words::core("list.gpus-visible", {{"count", probe.devices.size()}}));
  } else {
    where = words::core("list.runs-on-model");
    s.fact("gpu", "GPU", words::core("list.gpu-none"), report::Format::plain, probe.reason.in(words::language()));
  }
  const course::Progress progress = load_student_progress();
  const auto lessons = course::course_of(table);
  s.fact("progress", words::core("list.your-progress"), course::tally(lessons, progress).text(), report::Format::plain,
         "cudasync progress");
  s.paragraph(words::core("list.about"));
  report::Table t("lessons", words::core("list.table-title"));
  t.column("order", "#", report::Format::count)
      .column("lesson", "lesson")
      .column("runs-on", words::core("list.runs-on"))
      .column("solved", words::core("exercise.solved"), report::Format::count)
      .column("exercises", words::core("list.of"), report::Format::count)
      .column("summary", words::core("list.summary"))
      .column("parts", words::core("list.parts"));
  std::int64_t order = 0;
  for (const auto& c : ctx.commands) {  // main.cpp lists the lessons in course order
    if (!c.is_lesson) continue;
    std::string parts;
    for (const auto& p : c.parts) parts += (parts.empty() ? "" : " ") + p.id;
    const auto l = course::find_course_lesson(table, c.name);
    const std::int64_t total = l ? static_cast<std::int64_t>(l->course->exercises.size()) : 0;
    const std::int64_t solved = l ? static_cast<std::int64_t>(course::solved_in(*l, progress)) : 0;
    t.row({{"order", ++order}, {"lesson", c.name}, {"runs-on", where}, {"solved", solved}, {"exercises", total},
           {"summary", words::say(c.name, "lesson.summary")}, {"parts", parts}});
  }
  t.legend.push_back(words::core("list.solved-legend"));
  s.add(std::move(t));
  if (probe.devices.empty())
    s.note(words::core("list.no-gpu-note"));
  s.note(words::core("list.new-here"));
  r.sections.push_back(std::move(s));
  return r;
}

}  // namespace

cli::Runner attach_list(CLI::App&, const std::vector<cli::Command>& table) {
  return [&table](const RunContext& ctx) { return run_list(ctx, table); };
}

}  // namespace cudasync::commands
