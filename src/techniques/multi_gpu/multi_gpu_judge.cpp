#include "techniques/multi_gpu/multi_gpu_judge.hpp"

#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/multi_gpu/multi_gpu_lesson.hpp"

namespace cudasync::multi_gpu {

FlagRow make_flag_row(const FlagSpec& spec) {
  FlagRow r;
  r.spec = spec;
  r.model = flag_model(spec);
  return r;
}

std::string flag_verdict(const FlagRow& r) {
  const bool allowed = r.model.stale_allowed;
  if (!r.gpu) return say(allowed ? "verdict.allowed" : "verdict.forbidden");
  const bool seen = r.gpu->stale > 0;
  if (allowed) return say(seen ? "verdict.allowed-seen" : "verdict.allowed-not-seen");
  return say(seen ? "verdict.forbidden-seen" : "verdict.forbidden-not-seen");
}

bool forbidden_seen(const FlagRow& r) { return !r.model.stale_allowed && r.gpu && r.gpu->stale > 0; }

std::optional<double> stale_share(const FlagCounts& c) {
  if (c.completed() == 0) return std::nullopt;
  return static_cast<double>(c.stale) / static_cast<double>(c.completed());
}

std::string row_label(const FlagSpec& s) {
  return std::string(fence_key(s.producer)) + " -> " +
         (s.where == Consumer::host ? say("flag.host") : std::string(fence_key(s.consumer)));
}

FlagSummary summarize(const std::vector<FlagRow>& rows) {
  FlagSummary s;
  for (const auto& r : rows) {
    if (!r.gpu) continue;
    const FlagCounts& c = *r.gpu;
    s.completed += c.completed();
    if (!r.model.stale_allowed) {
      s.stale_where_forbidden += c.stale;
      s.checked_where_forbidden += c.completed();
      if (c.stale > 0)
        s.findings.push_back(say("finding.stale",
                                 {{"row", row_label(r.spec)}, {"stale", report::grouped(c.stale)}, {"of", report::grouped(c.completed())}}));
    }
    if (c.timed_out > 0)
      s.timeouts.push_back(say("finding.timeouts", {{"row", row_label(r.spec)},
                                                    {"timed-out", report::grouped(c.timed_out)},
                                                    {"instances", report::grouped(c.instances)}}));
  }
  return s;
}

ValuesDiff compare_values(const std::vector<std::uint32_t>& gpu, const std::vector<std::uint32_t>& model) {
  ValuesDiff d;
  d.compared = std::max(gpu.size(), model.size());
  for (std::size_t i = 0; i < d.compared; ++i) {
    const bool same = i < gpu.size() && i < model.size() && gpu[i] == model[i];
    if (same) continue;
    if (d.first < 0) d.first = static_cast<std::int64_t>(i);
    ++d.differ;
  }
  return d;
}

double gbps(std::uint64_t bytes, double ns) { return ns > 0 ? static_cast<double>(bytes) / ns : 0.0; }

std::vector<double> gbps_samples(std::uint64_t bytes, const std::vector<double>& ns) {
  std::vector<double> out;
  for (double t : ns) out.push_back(gbps(bytes, t));
  return out;
}

}  // namespace cudasync::multi_gpu
