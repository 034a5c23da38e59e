#include "commands/list.hpp"

#include <cstdint>

namespace cudasync::commands {

namespace {

report::Report run_list(const RunContext& ctx) {
  report::Report r;
  r.command = "list";
  r.title = "cudasync: the lessons here";
  report::Section s("lessons", "lessons");
  const GpuProbe& probe = *ctx.probe;
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
  s.paragraph("The lessons in course order: each one builds on those before it.");
  report::Table t("lessons", "cudasync <lesson> runs one; cudasync explain <lesson> [--lang zh] reads it");
  t.column("order", "#", report::Format::count)
      .column("lesson", "lesson")
      .column("runs-on", "runs here on")
      .column("summary", "summary")
      .column("parts", "parts (--part)");
  std::int64_t order = 0;
  for (const auto& c : ctx.commands) {  // main.cpp lists the lessons in course order
    if (!c.is_lesson) continue;
    std::string parts;
    for (const auto& p : c.parts) parts += (parts.empty() ? "" : " ") + p.id;
    t.row({{"order", ++order}, {"lesson", c.name}, {"runs-on", where}, {"summary", c.summary}, {"parts", parts}});
  }
  s.add(std::move(t));
  if (probe.devices.empty())
    s.note("without a GPU every lesson runs on the CPU reference model; timings and race counts say \"needs a GPU\" "
           "instead of a number");
  r.sections.push_back(std::move(s));
  return r;
}

}  // namespace

cli::Runner attach_list(CLI::App&) { return run_list; }

}  // namespace cudasync::commands
