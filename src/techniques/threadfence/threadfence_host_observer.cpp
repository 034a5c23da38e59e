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

const char* fence_code(Fence f) {
  switch (f) {
    case Fence::device: return "__threadfence()";
    case Fence::system: return "__threadfence_system()";
    default: return "no fence";
  }
}

}  // namespace

report::Section host_observer_section(const HostObserverSpec& spec, const std::vector<HostOutcome>& runs, bool gpu_run) {
  report::Section s("host-observer", "host observer: a CPU thread reads what the GPU wrote");
  s.paragraph(
      "mp with the consumer on the host. One GPU thread, round after round: wait until the host says ready, "
      "store the round's data words (plain stores into mapped pinned host memory), the fence, then the flag with "
      "a volatile store. This process's own thread polls the flag with volatile loads, then "
      "std::atomic_thread_fence(std::memory_order_acquire), then reads the data: a word that is not the round's "
      "value is a stale read.");
  s.paragraph(
      "The host thread is in the system scope and outside the GPU. __threadfence() is fence.sc.gpu: its scope "
      "does not contain the host thread, so it is not morally strong with the host's acquire and the two do not "
      "synchronize: the stale read stays allowed. __threadfence_system() is fence.sc.sys, whose scope contains the "
      "host: followed by the volatile (relaxed, system-scoped) flag store it is a release pattern the host's "
      "acquire synchronizes with, and the stale read is forbidden. Allowed is not promised: the path to host "
      "memory may deliver the GPU's stores in order anyway, and zero stale reads in every row is a possible result.");
  s.fact("rounds", "rounds per fence", I{spec.rounds}, Format::count, "--bench: 10 times as many");
  s.fact("words", "data words per round", I{kHostDataWords}, Format::count, "each on a 128-byte line of its own");
  s.fact("device-wait", "each GPU wait gives up after", budget_ms(spec.device_budget_ns), Format::ms);
  s.fact("host-wait", "each host wait gives up after", I{spec.host_budget_ms}, Format::ms);
  report::Table t("rounds", gpu_run ? "stale reads the host saw" : "what the PTX memory model allows");
  t.column("fence", "GPU side").column("ptx", "PTX");
  if (gpu_run)
    t.column("completed", "rounds", Format::count)
        .column("stale", "stale rounds", Format::count)
        .column("stale-words", "stale words", Format::count);
  t.column("verdict", "stale read (PTX model)");
  // The fence and the model's verdict as ids beside their words: what an exercise reads.
  t.column("fence-id", "fence id").column("verdict-id", "verdict id");
  bool forbidden = false, gave_up = false;
  std::uint64_t rounds = 0;
  std::string found;
  for (const auto& o : runs) {
    const ModelVerdict m = ptx_model(host_observer_program(o.fence));
    const bool allowed = m.allowed[static_cast<std::size_t>(outcome_index(1, 0))];
    std::vector<std::pair<std::string, Value>> cells{
        {"fence", std::string(fence_code(o.fence))},
        {"ptx", std::string(o.fence == Fence::device ? "fence.sc.gpu" : o.fence == Fence::system ? "fence.sc.sys" : "-")}};
    std::string verdict = allowed ? "allowed" : "forbidden (" + m.reasons[static_cast<std::size_t>(outcome_index(1, 0))] + ")";
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
      verdict = bad ? "FORBIDDEN, SEEN" : std::string(allowed ? "allowed, " : "forbidden, ") + (g.stale ? "seen" : "not seen");
    }
    cells.emplace_back("verdict", verdict);
    cells.emplace_back("fence-id", std::string(to_string(o.fence)));
    cells.emplace_back("verdict-id", std::string(allowed ? "allowed" : "forbidden"));
    t.row(cells, mark);
  }
  t.legend.push_back("GPU: the data words (st.global); the fence; the flag (st.volatile)");
  t.legend.push_back("host: the flag (volatile load); atomic_thread_fence(acquire); the data words");
  s.add(std::move(t));
  if (!gpu_run) {
    s.note("counts need a GPU: the model says which fence forbids the stale read");
    return s;
  }
  s.agreement("no-forbidden-outcome", "no stale read where the PTX memory model forbids one", !forbidden,
              forbidden ? "stale rounds with " + found : report::grouped(rounds) + " rounds");
  s.check("no-wait-timed-out", "every wait ended before its deadline, on the GPU and on the host", !gave_up,
          gave_up ? "a wait gave up: the rounds after it did not run" : "every round completed");
  s.note("stale reads where the model allows them may be seen or not: none in every row is a possible result");
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
