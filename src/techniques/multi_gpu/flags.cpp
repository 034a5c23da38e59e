// Parts host-flag and peer-flag: the flag handoff from a kernel to a host thread through pinned host
// memory (one GPU: the system scope's other agent is the CPU), and from a kernel on one GPU to a
// kernel on another, the data and the flag stored into the consumer's memory through peer access,
// under each fence on each side. The rows --fence chooses, the table of outcomes, the PTX each side
// executes, why the model allows or forbids a stale read, and the checks.
#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/multi_gpu/lesson.hpp"

namespace cudasync::multi_gpu {

// ---- fences by name -----------------------------------------------------------------------------

const std::vector<std::string>& fence_names() {
  static const std::vector<std::string> names = {"none", "device", "system", "rel-acq-device", "rel-acq-system"};
  return names;
}

const char* fence_key(Fence f) { return fence_names()[static_cast<std::size_t>(f)].c_str(); }

std::optional<Fence> parse_fence(const std::string& name) {
  const auto& n = fence_names();
  const auto it = std::find(n.begin(), n.end(), name);
  if (it == n.end()) return std::nullopt;
  return static_cast<Fence>(it - n.begin());
}

// ---- the flag handoff ---------------------------------------------------------------------------

namespace {

// One side of the handoff as the memory model sees it.
struct Side {
  Scope pattern = Scope::none;  // the scope of its release (producer) or acquire (consumer) pattern
  Scope flag = Scope::sys;      // the scope of its strong access to the flag
  std::string ptx;
  std::string what;             // "__threadfence() is fence.sc.gpu", in the run's language
};

// Each Fence on both sides, in its order: its code, the scope of its pattern and of its flag access,
// the PTX around the flag's store (producer) and load (consumer), and why a .gpu scope falls short
// (catalog keys).
struct FenceSides {
  const char* code;
  Scope pattern, flag;
  const char* producer_ptx;
  const char* consumer_ptx;
  const char* producer_what;
  const char* consumer_what;
};
const FenceSides kSides[kFences] = {
    {"no fence", Scope::none, Scope::sys, "st.relaxed.sys [flag], 1", "ld.relaxed.sys f, [flag]", "", ""},
    {"__threadfence()", Scope::gpu, Scope::sys, "fence.sc.gpu; st.relaxed.sys [flag], 1",
     "ld.relaxed.sys f, [flag]; fence.sc.gpu", "model.producer-threadfence", "model.consumer-threadfence"},
    {"__threadfence_system()", Scope::sys, Scope::sys, "fence.sc.sys; st.relaxed.sys [flag], 1",
     "ld.relaxed.sys f, [flag]; fence.sc.sys", "", ""},
    {"atomic_ref<thread_scope_device> release/acquire", Scope::gpu, Scope::gpu, "st.release.gpu [flag], 1",
     "ld.acquire.gpu f, [flag]", "model.producer-release-device", "model.consumer-acquire-device"},
    {"atomic_ref<thread_scope_system> release/acquire", Scope::sys, Scope::sys, "st.release.sys [flag], 1",
     "ld.acquire.sys f, [flag]", "", ""},
};

Side producer_side(Fence f) {
  const FenceSides& t = kSides[static_cast<int>(f)];
  return {t.pattern, t.flag, std::string("st.global [data], 1; ") + t.producer_ptx,
          *t.producer_what ? say(t.producer_what) : ""};
}

Side consumer_side(Fence f, Consumer where) {
  // A host thread's C++ acquire load: an acquire at system scope.
  if (where == Consumer::host) return {Scope::sys, Scope::sys, say("model.host-ptx"), ""};
  const FenceSides& t = kSides[static_cast<int>(f)];
  return {t.pattern, t.flag, t.consumer_ptx + std::string("; ld.global r, [data]"),
          *t.consumer_what ? say(t.consumer_what) : ""};
}

}  // namespace

const char* fence_code(Fence f) { return kSides[static_cast<int>(f)].code; }

FlagVerdict flag_model(const FlagSpec& spec) {
  const Side p = producer_side(spec.producer);
  const Side c = consumer_side(spec.consumer, spec.where);
  const std::string other = say(spec.where == Consumer::host ? "model.host-thread" : "model.other-gpu-thread");
  FlagVerdict v;
  v.producer_ptx = p.ptx;
  v.consumer_ptx = c.ptx;
  if (p.pattern == Scope::none) {
    v.reason = say("model.no-release");
  } else if (c.pattern == Scope::none) {
    v.reason = say("model.no-acquire");
  } else if (p.pattern != Scope::sys) {
    v.reason = say("model.producer-gpu-scope", {{"what", p.what}, {"other", other}});
  } else if (c.pattern != Scope::sys) {
    v.reason = say("model.consumer-gpu-scope", {{"what", c.what}});
  } else if (p.flag != Scope::sys || c.flag != Scope::sys) {
    v.reason = say("model.not-morally-strong");
  } else {
    v.stale_allowed = false;
    v.reason = say("model.synchronize");
  }
  return v;
}

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
    s.check("no-stale-read", say("flag.no-stale-read"), sum.findings.empty(),
            sum.findings.empty()
                ? say("flag.no-stale-detail", {{"handoffs", report::grouped(sum.checked_where_forbidden)}})
                : report::join(sum.findings, "; "));
  }
  s.check("no-timeout", say("flag.no-timeout"), sum.timeouts.empty(),
          sum.timeouts.empty() ? say("flag.every-wait-saw-flag") : report::join(sum.timeouts, "; "));
  return s;
}

report::Section host_flag_part(Run& run) {
  std::vector<FlagRow> rows = flag_rows(run.options, Consumer::host);
  if (run.ctx.gpu)
    for (auto& r : rows) r.gpu = gpu_host_flag(r.spec, run.ctx.device->index, run.iterations, run.budget_ns());
  report::Section s = flag_section("host-flag", say("host-flag.title"), rows, run.ctx.gpu);
  if (run.ctx.gpu) s.note(say("host-flag.ran-on", {{"device", run.ctx.device_text()}}));
  return s;
}

report::Section peer_flag_part(Run& run) {
  run.require_peer("peer-flag");
  std::vector<FlagRow> rows = flag_rows(run.options, Consumer::peer_gpu);
  if (run.ctx.gpu)
    for (auto& r : rows) r.gpu = gpu_peer_flag(r.spec, run.dev[0], run.dev[1], run.iterations, run.budget_ns());
  report::Section s = flag_section("peer-flag", say("peer-flag.title"), rows, run.ctx.gpu);
  if (run.ctx.gpu)
    s.note(say("peer-flag.ran-on",
               {{"a", run.dev[0]}, {"a-name", run.peer->a_name}, {"b", run.dev[1]}, {"b-name", run.peer->b_name}}));
  return s;
}

}  // namespace cudasync::multi_gpu
