#include "commands/list.hpp"

#include <cstdint>

#include "commands/course_common.hpp"

namespace cudasync::commands {

namespace {

report::Report run_list(const RunContext& ctx, const std::vector<cli::Command>& table) {
  report::Report r;
  r.command = "list";
  r.title = "cudasync: the course";
  report::Section s("lessons", "lessons");
  const GpuProbe& probe = ctx.gpus();
  std::string where;
  if (!probe.devices.empty()) {
    const auto& d = probe.devices.front();
    const std::string gpu_name = "GPU " + std::to_string(d.index) + " (" + d.name + ", cc " + d.cc_string() + ")";
    where = "GPU + model";
    s.fact("gpu", "GPU", gpu_name, report::Format::plain, std::to_string(probe.devices.size()) + " visible");
  } else {
    where = "reference model";
    s.fact("gpu", "GPU", std::string("none"), report::Format::plain, probe.reason);
  }
  const course::Progress progress = load_student_progress();
  const auto lessons = course::course_of(table);
  s.fact("progress", "your progress", course::tally(lessons, progress).text(), report::Format::plain,
         "cudasync progress");
  s.paragraph("The lessons in course order: each one builds on those before it.");
  report::Table t("lessons", "cudasync <lesson> runs one; cudasync explain <lesson> reads it");
  t.column("order", "#", report::Format::count)
      .column("lesson", "lesson")
      .column("runs-on", "runs here on")
      .column("solved", "solved", report::Format::count)
      .column("exercises", "of", report::Format::count)
      .column("summary", "summary")
      .column("parts", "parts (--part)");
  std::int64_t order = 0;
  for (const auto& c : ctx.commands) {  // main.cpp lists the lessons in course order
    if (!c.is_lesson) continue;
    std::string parts;
    for (const auto& p : c.parts) parts += (parts.empty() ? "" : " ") + p.id;
    const auto l = course::find_course_lesson(table, c.name);
    const std::int64_t total = l ? static_cast<std::int64_t>(l->course->exercises.size()) : 0;
    const std::int64_t solved = l ? static_cast<std::int64_t>(course::solved_in(*l, progress)) : 0;
    t.row({{"order", ++order}, {"lesson", c.name}, {"runs-on", where}, {"solved", solved}, {"exercises", total},
           {"summary", c.summary}, {"parts", parts}});
  }
  t.legend.push_back("solved / of: your exercises (cudasync exercise <lesson>)");
  s.add(std::move(t));
  if (probe.devices.empty())
    s.note("without a GPU every lesson runs on the CPU reference model; timings and race counts say \"needs a GPU\" "
           "instead of a number");
  s.note("new here? cudasync tour runs a short stop of every lesson");
  r.sections.push_back(std::move(s));
  return r;
}

}  // namespace

cli::Runner attach_list(CLI::App&, const std::vector<cli::Command>& table) {
  return [&table](const RunContext& ctx) { return run_list(ctx, table); };
}

}  // namespace cudasync::commands
