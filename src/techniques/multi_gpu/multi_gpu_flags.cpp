// The flag handoff as both flag parts show it: the rows --fence chooses, the table of outcomes, the
// PTX each side executes, why the model allows or forbids a stale read, and the checks.
#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/multi_gpu/multi_gpu_lesson.hpp"

namespace cudasync::multi_gpu {

namespace {

using I = std::int64_t;
using report::Format;

std::vector<std::pair<Fence, Fence>> peer_pairs(const Options& o) {
  if (o.fence.size() == 1) {
    const Fence f = *parse_fence(o.fence[0]);
    return {{f, f}};
  }
  if (o.fence.size() == 2) return {{*parse_fence(o.fence[0]), *parse_fence(o.fence[1])}};
  std::vector<std::pair<Fence, Fence>> out;
  for (int f = 0; f < kFences; ++f) out.push_back({static_cast<Fence>(f), static_cast<Fence>(f)});
  // Half of each pair at .sys is not enough, and a fence pairs with an acquire load as well.
  out.push_back({Fence::system, Fence::device});
  out.push_back({Fence::device, Fence::system});
  out.push_back({Fence::system, Fence::rel_acq_system});
  return out;
}

report::Value count_or_gpu(const std::optional<FlagCounts>& c, std::uint64_t FlagCounts::*field) {
  if (!c) return report::NeedsGpu{};
  return static_cast<I>((*c).*field);
}

// The PTX of each fence used by `rows`, on one side.
report::Table ptx_table(const std::vector<FlagRow>& rows, bool producer) {
  report::Table t(producer ? "producer-ptx" : "consumer-ptx", say(producer ? "flag.producer-ptx" : "flag.consumer-ptx"));
  t.column("fence", say("flag.fence")).column("ptx", "PTX");
  std::vector<Fence> seen;
  for (const auto& r : rows) {
    const Fence f = producer ? r.spec.producer : r.spec.consumer;
    if (std::find(seen.begin(), seen.end(), f) != seen.end()) continue;
    seen.push_back(f);
    t.row({{"fence", std::string(fence_key(f))}, {"ptx", producer ? r.model.producer_ptx : r.model.consumer_ptx}});
  }
  return t;
}

}  // namespace

std::vector<FlagRow> flag_rows(const Options& o, Consumer where) {
  std::vector<FlagRow> rows;
  if (where == Consumer::host) {
    std::vector<Fence> fences;
    if (o.fence.size() == 1) fences.push_back(*parse_fence(o.fence[0]));
    else
      for (int f = 0; f < kFences; ++f) fences.push_back(static_cast<Fence>(f));
    for (Fence f : fences) rows.push_back(make_flag_row({f, Fence::rel_acq_system, Consumer::host}));
    return rows;
  }
  for (const auto& [p, c] : peer_pairs(o)) rows.push_back(make_flag_row({p, c, Consumer::peer_gpu}));
  return rows;
}

report::Section flag_section(const std::string& id, const std::string& title, const std::vector<FlagRow>& rows,
                             bool gpu_run) {
  report::Section s(id, title);
  const bool host = !rows.empty() && rows.front().spec.where == Consumer::host;
  s.paragraph(say(host ? "flag.about-host" : "flag.about-peer"));
  s.paragraph(say("flag.about-verdict"));
  if (gpu_run && !rows.empty() && rows.front().gpu) {
    const FlagCounts& c = *rows.front().gpu;
    s.fact("grid", say("flag.grid"), std::to_string(c.blocks) + " x " + std::to_string(c.threads), Format::plain,
           say(host ? "flag.grid-host" : "flag.grid-peer"));
    s.fact("handoffs", say("flag.handoffs"), static_cast<I>(c.instances), Format::count,
           host ? "" : say("flag.handoffs-note", {{"rounds", c.rounds}}));
  }
  report::Table t("outcomes", say("flag.table-title"));
  t.column("producer", say("flag.producer")).column("consumer", say("flag.consumer"));
  if (gpu_run) t.column("stale", say("flag.stale"), Format::count).column("handoffs", say("flag.of"), Format::count);
  t.column("verdict", say(gpu_run ? "flag.verdict" : "flag.stale-read"));
  for (const auto& r : rows) {
    const std::string v = flag_verdict(r);
    std::vector<std::pair<std::string, report::Value>> cells = {
        {"producer", std::string(fence_key(r.spec.producer))},
        {"consumer", host ? say("flag.host") : std::string(fence_key(r.spec.consumer))},
        {"verdict", v}};
    if (gpu_run) {
      cells.push_back({"stale", count_or_gpu(r.gpu, &FlagCounts::stale)});
      cells.push_back({"handoffs", r.gpu ? report::Value{static_cast<I>(r.gpu->completed())}
                                         : report::Value{report::NeedsGpu{}}});
    }
    t.row(cells, forbidden_seen(r) ? report::RowMark::mismatch : report::RowMark::none);
  }
  if (gpu_run) t.legend.push_back(say("flag.of-legend"));
  s.add(std::move(t));
  s.add(ptx_table(rows, true));
  if (host) s.note(say("flag.host-side", {{"ptx", rows.front().model.consumer_ptx}}));
  else s.add(ptx_table(rows, false));
  // Why, once per reason: the rows it covers, then the rule.
  std::vector<bool> done(rows.size(), false);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (done[i]) continue;
    std::string who;
    for (std::size_t j = i; j < rows.size(); ++j)
      if (!done[j] && rows[j].model.reason == rows[i].model.reason) {
        done[j] = true;
        who += (who.empty() ? "" : ", ") + row_label(rows[j].spec);
      }
    s.paragraph(say(rows[i].model.stale_allowed ? "flag.why-allowed" : "flag.why-forbidden",
                    {{"rows", who}, {"reason", rows[i].model.reason}}));
  }

  const FlagSummary sum = summarize(rows);
  const bool any_forbidden =
      std::any_of(rows.begin(), rows.end(), [](const FlagRow& r) { return !r.model.stale_allowed; });
  if (!gpu_run) {
    s.note(say(host ? "flag.no-gpu-host" : "flag.no-gpu-peer"));
    return s;
  }
  s.fact("stale-where-forbidden", say("flag.stale-where-forbidden"), static_cast<I>(sum.stale_where_forbidden),
         Format::count, say("flag.of-handoffs", {{"handoffs", report::grouped(sum.checked_where_forbidden)}}));
  if (any_forbidden) {
    std::string detail = sum.findings.empty()
                             ? say("flag.no-stale-detail", {{"handoffs", report::grouped(sum.checked_where_forbidden)}})
                             : std::string();
    for (const auto& f : sum.findings) detail += (detail.empty() ? "" : "; ") + f;
    s.check("no-stale-read", say("flag.no-stale-read"), sum.findings.empty(), detail);
  }
  std::string waits = sum.timeouts.empty() ? say("flag.every-wait-saw-flag") : std::string();
  for (const auto& w : sum.timeouts) waits += (waits.empty() ? "" : "; ") + w;
  s.check("no-timeout", say("flag.no-timeout"), sum.timeouts.empty(), waits);
  return s;
}

}  // namespace cudasync::multi_gpu
