// Part host-observer: the other side of __threadfence_system(). One GPU thread writes data, a fence,
// then a flag into mapped pinned host memory; a host thread polls the flag and reads the data. The
// model says which fences allow a stale read; the run counts them, under deadlines on both sides.
#include "core/report/text_format.hpp"
#include "techniques/threadfence/threadfence_gpu.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"
#include "techniques/threadfence/threadfence_litmus_table.hpp"

namespace cudasync::threadfence {

using report::Format;
using report::Value;
using I = std::int64_t;

namespace {

const Fence kHostFences[] = {Fence::none, Fence::device, Fence::system};

std::string fence_code(Fence f) {
  switch (f) {
    case Fence::device: return "__threadfence()";
    case Fence::system: return "__threadfence_system()";
    default: return say("host.no-fence");
  }
}

}  // namespace

report::Section host_observer_section(const HostObserverSpec& spec, const std::vector<HostOutcome>& runs, bool gpu_run) {
  report::Section s("host-observer", say("host.title"));
  s.paragraph(say("host.about"));
  s.paragraph(say("host.about-scope"));
  s.fact("rounds", say("host.rounds"), I{spec.rounds}, Format::count, say("host.rounds-note"));
  s.fact("words", say("host.words"), I{kHostDataWords}, Format::count, say("host.words-note"));
  s.fact("device-wait", say("host.device-wait"), budget_ms(spec.device_budget_ns), Format::ms);
  s.fact("host-wait", say("host.host-wait"), I{spec.host_budget_ms}, Format::ms);
  report::Table t("rounds", say(gpu_run ? "host.table-gpu" : "host.table-model"));
  t.column("fence", say("host.gpu-side")).column("ptx", "PTX");
  if (gpu_run)
    t.column("completed", say("host.completed"), Format::count)
        .column("stale", say("host.stale"), Format::count)
        .column("stale-words", say("host.stale-words"), Format::count);
  t.column("verdict", say("host.verdict"));
  // The fence and the model's verdict as ids beside their words: what an exercise reads.
  t.column("fence-id", say("host.fence-id")).column("verdict-id", say("host.verdict-id"));
  bool forbidden = false, gave_up = false;
  std::uint64_t rounds = 0;
  std::string found;
  for (const auto& o : runs) {
    const ModelVerdict m = ptx_model(host_observer_program(o.fence));
    const bool allowed = m.allowed[static_cast<std::size_t>(outcome_index(1, 0))];
    std::vector<std::pair<std::string, Value>> cells{
        {"fence", fence_code(o.fence)},
        {"ptx", std::string(o.fence == Fence::device ? "fence.sc.gpu" : o.fence == Fence::system ? "fence.sc.sys" : "-")}};
    std::string verdict = allowed ? say("verdict.allowed")
                                  : say("verdict.forbidden", {{"reason", m.reasons[static_cast<std::size_t>(outcome_index(1, 0))]}});
    report::RowMark mark = report::RowMark::none;
    if (gpu_run && o.gpu) {
      const HostObserverRun& g = *o.gpu;
      const bool bad = host_forbidden_seen(m, g);
      forbidden = forbidden || bad;
      gave_up = gave_up || g.device_gave_up || g.host_gave_up;
      rounds += g.rounds;
      if (bad) {
        mark = report::RowMark::mismatch;
        found += std::string(found.empty() ? "" : "; ") + fence_code(o.fence) + ": " + report::grouped(g.stale);
      }
      cells.insert(cells.end(), {{"completed", static_cast<I>(g.rounds)},
                                 {"stale", static_cast<I>(g.stale)},
                                 {"stale-words", static_cast<I>(g.stale_words)}});
      // Not bad and not allowed: nothing stale was seen.
      verdict = say(bad       ? "verdict.forbidden-seen"
                    : allowed ? (g.stale ? "verdict.allowed-seen" : "verdict.allowed-not-seen")
                              : "verdict.forbidden-not-seen");
    }
    cells.emplace_back("verdict", verdict);
    cells.emplace_back("fence-id", std::string(to_string(o.fence)));
    cells.emplace_back("verdict-id", std::string(allowed ? "allowed" : "forbidden"));
    t.row(cells, mark);
  }
  t.legend.push_back(say("host.legend-gpu"));
  t.legend.push_back(say("host.legend-host"));
  s.add(std::move(t));
  if (!gpu_run) {
    s.note(say("host.no-gpu"));
    return s;
  }
  s.agreement("no-forbidden-outcome", say("host.no-forbidden"), !forbidden,
              forbidden ? say("host.stale-rounds-with", {{"found", found}})
                        : say("host.rounds-count", {{"rounds", report::grouped(rounds)}}));
  s.check("no-wait-timed-out", say("host.no-timeout"), !gave_up, say(gave_up ? "host.gave-up" : "host.every-round"));
  s.note(say("host.allowed-note"));
  return s;
}

report::Section host_observer_part(Run& run) {
  HostObserverSpec spec;
  if (run.ctx.bench) spec.rounds *= 10;
  std::vector<HostOutcome> runs;
  for (Fence f : kHostFences) {
    HostOutcome o;
    o.fence = f;
    if (run.ctx.gpu) o.gpu = gpu_host_observer(spec, f);
    runs.push_back(std::move(o));
  }
  return host_observer_section(spec, runs, run.ctx.gpu);
}

}  // namespace cudasync::threadfence
