#include "commands/list.hpp"

namespace cudasync::commands {

namespace {

report::Report run_list(const RunContext& ctx) {
  report::Report r;
  r.technique = "list";
  r.title = "cudasync: the lessons here";
  report::Section s;
  s.id = "lessons";
  s.title = "lessons";
  const GpuProbe& probe = *ctx.probe;
  std::string where;
  if (!probe.devices.empty()) {
    const auto& d = probe.devices.front();
    const std::string gpu_name = "GPU " + std::to_string(d.index) + " (" + d.name + ", cc " + d.cc_string() + ")";
    where = "GPU + model";
    s.facts.push_back({"GPU", gpu_name, "", std::to_string(probe.devices.size()) + " visible"});
  } else {
    where = "reference model";
    s.facts.push_back({"GPU", std::string("none"), "", probe.reason});
  }
  report::LaneTable t;
  t.id = "lessons";
  t.title = "cudasync <lesson> runs one; cudasync explain <lesson> [--lang zh] reads it";
  t.columns = {{"lesson", "lesson", ""}, {"runs_on", "runs here on", ""}, {"summary", "summary", ""}};
  for (const auto& c : ctx.commands)
    if (c.is_lesson) t.add_row({c.name, where, c.summary});
  s.tables.push_back(std::move(t));
  if (probe.devices.empty())
    s.notes.push_back("without a GPU every lesson runs on the CPU reference model; timings and race counts say "
                      "\"needs a GPU\" instead of a number");
  r.sections.push_back(std::move(s));
  return r;
}

}  // namespace

cli::Runner attach_list(CLI::App&) { return run_list; }

}  // namespace cudasync::commands
