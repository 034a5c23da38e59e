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
  report::Table t(producer ? "producer-ptx" : "consumer-ptx",
                  producer ? "what the producer executes, per fence" : "what the consumer executes, per fence");
  t.column("fence", "fence").column("ptx", "PTX");
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
  if (host)
    s.paragraph(
        "One thread of a kernel stores data = 1, then the fence, then flag = 1, both in pinned host memory mapped "
        "into the GPU (cudaHostAllocMapped); this host thread waits until it sees the flag (an acquire load), then "
        "reads the data. They take turns, one handoff after the other: the host says \"ready\", the GPU writes. "
        "The host thread is outside the GPU, so only a release at .sys reaches it: __threadfence() (.gpu) orders "
        "the two stores for the GPU's own threads only.");
  else
    s.paragraph(
        "Each thread of a kernel on the first GPU (the producer) stores data = 1 into the second GPU's memory "
        "through peer access, then its fence, then flag = 1 there too; its partner thread on the second GPU (the "
        "consumer) has looked at the data first (its line may now sit in the consumer's L1), waits until it sees "
        "the flag, takes its fence, and reads the data. Stale: the flag seen, the data still 0. All the pairs run "
        "at once, and every wait has a deadline.");
  s.paragraph(
      "The verdict says what the PTX memory model allows for exactly these accesses, and whether it was seen. An "
      "allowed stale read may never show on a given machine; a forbidden one that shows is a finding, and the "
      "check fails.");
  if (gpu_run && !rows.empty() && rows.front().gpu) {
    const FlagCounts& c = *rows.front().gpu;
    s.fact("grid", "each kernel", std::to_string(c.blocks) + " x " + std::to_string(c.threads), Format::plain,
           host ? "one thread: the host checks each handoff before the next" : "blocks x threads, one pair per thread");
    s.fact("handoffs", "handoffs per row", static_cast<I>(c.instances), Format::count,
           host ? "" : "in " + std::to_string(c.rounds) + " round(s) of one handoff per thread");
  }
  report::Table t("outcomes", "what the consumer read once it saw the flag");
  t.column("producer", "producer").column("consumer", "consumer");
  if (gpu_run) t.column("stale", "stale", Format::count).column("handoffs", "of", Format::count);
  t.column("verdict", gpu_run ? "verdict" : "stale read");
  for (const auto& r : rows) {
    const std::string v = flag_verdict(r);
    std::vector<std::pair<std::string, report::Value>> cells = {
        {"producer", std::string(fence_key(r.spec.producer))},
        {"consumer", std::string(host ? "host" : fence_key(r.spec.consumer))},
        {"verdict", v}};
    if (gpu_run) {
      cells.push_back({"stale", count_or_gpu(r.gpu, &FlagCounts::stale)});
      cells.push_back({"handoffs", r.gpu ? report::Value{static_cast<I>(r.gpu->completed())}
                                         : report::Value{report::NeedsGpu{}}});
    }
    t.row(cells, v == "FORBIDDEN, SEEN" ? report::RowMark::mismatch : report::RowMark::none);
  }
  if (gpu_run) t.legend.push_back("of: the handoffs that completed (a wait that gave up is not counted)");
  s.add(std::move(t));
  s.add(ptx_table(rows, true));
  if (host) s.note("the host's side, in every row: " + rows.front().model.consumer_ptx);
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
    s.paragraph(who + ": " + (rows[i].model.stale_allowed ? "allowed: " : "forbidden: ") + rows[i].model.reason + ".");
  }

  const FlagSummary sum = summarize(rows);
  const bool any_forbidden =
      std::any_of(rows.begin(), rows.end(), [](const FlagRow& r) { return !r.model.stale_allowed; });
  if (!gpu_run) {
    s.note("counts need " + std::string(host ? "a GPU" : "two GPUs") +
           ": the model says which outcomes are allowed, the GPUs what happens");
    return s;
  }
  s.fact("stale-where-forbidden", "stale reads where the model forbids them", static_cast<I>(sum.stale_where_forbidden),
         Format::count, "of " + report::grouped(sum.checked_where_forbidden) + " handoffs");
  if (any_forbidden) {
    std::string detail = sum.findings.empty()
                             ? report::grouped(sum.checked_where_forbidden) +
                                   " handoffs with release and acquire at .sys, no stale read"
                             : std::string();
    for (const auto& f : sum.findings) detail += (detail.empty() ? "" : "; ") + f;
    s.check("no-stale-read", "no stale read where the PTX memory model forbids one", sum.findings.empty(), detail);
  }
  std::string waits = sum.timeouts.empty() ? "every wait saw its flag" : std::string();
  for (const auto& w : sum.timeouts) waits += (waits.empty() ? "" : "; ") + w;
  s.check("no-timeout", "every wait ended before its deadline", sum.timeouts.empty(), waits);
  return s;
}

}  // namespace cudasync::multi_gpu
