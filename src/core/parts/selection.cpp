#include "core/parts/selection.hpp"

#include "core/words/words.hpp"

#include <algorithm>

namespace cudasync::parts {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

bool reads(const PartRule& p, const std::string& option) {
  return std::find(p.reads.begin(), p.reads.end(), option) != p.reads.end();
}

}  // namespace

bool Selection::has(std::string_view id) const { return std::find(ids.begin(), ids.end(), id) != ids.end(); }

bool Selection::any_of(std::initializer_list<std::string_view> part_ids) const {
  return std::any_of(part_ids.begin(), part_ids.end(), [&](std::string_view id) { return has(id); });
}

Selection select(const std::vector<PartRule>& parts, const std::vector<std::string>& asked, bool bench) {
  Selection s;
  s.by_user = !asked.empty();
  s.bench = bench;
  if (bench) return s;
  for (const auto& p : parts) {
    const bool wanted = s.by_user ? std::find(asked.begin(), asked.end(), p.id) != asked.end() : p.by_default;
    if (wanted) s.ids.push_back(p.id);
  }
  return s;
}

std::optional<std::string> applicability_error(const std::vector<PartRule>& parts,
                                               const std::optional<PartRule>& bench, const Selection& selection,
                                               const std::vector<std::string>& given) {
  for (const auto& option : given) {
    std::vector<std::string> readers;
    for (const auto& p : parts)
      if (reads(p, option)) readers.push_back(p.id);
    const bool bench_reads = bench && reads(*bench, option);
    if (readers.empty() && !bench_reads) continue;  // read by every part
    if (selection.bench) {
      if (bench_reads) continue;
      std::string accepted = bench && !bench->reads.empty() ? " (it reads " + joined(bench->reads) + ")" : "";
      return option + " is not used by --bench, which runs its own sweep" + accepted + "; accepted: " + option +
             " without --bench, or --bench without " + option + " (leave it out)";
    }
    const bool applies = std::any_of(readers.begin(), readers.end(), [&](const std::string& id) { return selection.has(id); });
    if (applies) continue;
    if (readers.empty())
      return option + " applies only to --bench; accepted: " + option + " with --bench, or no " + option +
             " (leave it out)";
    return option + " applies only to the part" + (readers.size() > 1 ? "s " : " ") + joined(readers) +
           ", and none of them is selected; accepted: " + option + " with --part " +
           (readers.size() > 1 ? "naming one of them" : readers.front()) + ", or no " + option + " (leave it out)";
  }
  return std::nullopt;
}

std::string part_option_help(const std::vector<PartSummary>& parts) {
  std::vector<std::string> ids;
  for (const auto& p : parts) ids.push_back(p.id);
  return words::core("option.part", {{"parts", joined(ids)}});
}

std::string parts_footer(const std::vector<PartSummary>& parts, bool has_bench, const std::string& bench_summary) {
  std::size_t w = 0;
  for (const auto& p : parts) w = std::max(w, p.id.size());
  std::string s = words::core("help.parts") + "\n";
  for (const auto& p : parts) {
    s += "  " + p.id + std::string(w - p.id.size() + 2, ' ') + p.summary;
    if (p.needs_gpu) s += " [GPU]";
    if (!p.by_default) s += " " + words::core("help.only-with-part");
    s += "\n";
  }
  if (has_bench) s += "  " + std::string("--bench") + std::string(w > 7 ? w - 7 + 2 : 2, ' ') + bench_summary + "\n";
  return s;
}

void add_run_facts(report::Section& setup, const RunContext& ctx, const Selection& selection) {
  if (!selection.bench)
    setup.fact("parts", words::core("run.parts"),
               selection.by_user ? joined(selection.ids)
                                 : words::core("run.all-parts", {{"count", selection.ids.size()}}));
  setup.fact("backend", words::core("run.backend"),
             ctx.gpu ? words::core("run.backend-gpu", {{"device", ctx.device_text()}}) : words::core("run.backend-model"));
}

}  // namespace cudasync::parts
