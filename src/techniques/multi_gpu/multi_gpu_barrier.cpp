// Part barrier: one computation of many phases across two GPUs, a barrier between each two phases,
// built three ways: cudasync's own (device-scope counters, system-scope release stores into the
// peer's flag), NCCL's all-reduce of one integer, and each stream waiting for the other's event. The model computes the values every
// method must leave and steps the peer protocol through random interleavings; the GPUs run each
// method and time one barrier.
#include "core/log.hpp"
#include "core/report/text_format.hpp"
#include "techniques/multi_gpu/multi_gpu_lesson.hpp"

namespace cudasync::multi_gpu {

namespace {

using I = std::int64_t;
using report::Format;

constexpr int kBarrierReps = 5, kK1 = 20, kK2 = 120;  // barriers per timed run, as a difference
constexpr int kSchedules = 1000, kSimBlocks = 3, kSimBarriers = 3;

std::string how(Method m) {
  switch (m) {
    case Method::peer: return say("barrier.how-peer");
    case Method::nccl: return say("barrier.how-nccl");
    case Method::event: return say("barrier.how-event");
  }
  return "";
}

report::Table protocol_table(const ProtocolSim& sim) {
  report::Table t("protocol", say("barrier.protocol-title"));
  t.column("step", say("barrier.step"), Format::count).column("who", say("barrier.who")).column("action", say("barrier.action"));
  t.column("counters", say("barrier.counters")).column("flags-0", say("barrier.on-0")).column("flags-1", say("barrier.on-1"));
  I n = 0;
  for (const auto& st : sim.steps)
    t.row({{"step", ++n},
           {"who", std::to_string(st.gpu) + "/" + std::to_string(st.block)},
           {"action", st.action},
           {"counters", st.counters},
           {"flags-0", st.flags[0]},
           {"flags-1", st.flags[1]}});
  t.legend.push_back(say("barrier.protocol-legend"));
  return t;
}

}  // namespace

const char* method_key(Method m) {
  switch (m) {
    case Method::peer: return "peer";
    case Method::nccl: return "nccl";
    case Method::event: return "event";
  }
  return "";
}

report::Section barrier_section(const BarrierSpec& spec, const std::vector<std::uint32_t>& model,
                                const std::vector<MethodResult>& results, bool gpu_run, std::uint64_t seed) {
  report::Section s("barrier", say("barrier.title"));
  s.paragraph(say("barrier.about", {{"values", report::grouped(model.size())}, {"phases", spec.phases}}));
  for (const auto& r : results) s.paragraph(how(r.method));
  s.paragraph(say("barrier.cuda-13"));
  s.fact("blocks", say("barrier.blocks"), static_cast<I>(spec.blocks), Format::count);
  s.fact("threads", say("barrier.threads"), static_cast<I>(spec.threads), Format::count);
  s.fact("phases", say("barrier.phases"), static_cast<I>(spec.phases), Format::count,
         say("barrier.barriers", {{"count", spec.phases - 1}}));

  // The protocol, step by step, and over many interleavings with and without the other GPU's flag.
  s.add(protocol_table(simulate_protocol(2, 1, 1, seed, true)));
  const ProtocolSim cross = simulate_protocol(kSimBlocks, kSimBarriers, kSchedules, seed, true);
  const ProtocolSim local = simulate_protocol(kSimBlocks, kSimBarriers, kSchedules, seed, false);
  s.fact("early-cross-gpu", say("barrier.early-cross-gpu"), static_cast<I>(cross.early), Format::count,
         say("barrier.interleavings-note",
             {{"schedules", report::grouped(kSchedules)}, {"blocks", kSimBlocks}, {"barriers", kSimBarriers}}));
  s.fact("early-own-gpu", say("barrier.early-own-gpu"), static_cast<I>(local.early), Format::count,
         local.first_early.empty() ? say("barrier.one-gpu-barrier") : local.first_early);
  s.check("protocol-model", say("barrier.protocol-model"), cross.early == 0,
          cross.early == 0 ? say("barrier.interleavings", {{"count", report::grouped(kSchedules)}}) : cross.first_early);

  report::Table t("methods", say("barrier.methods-title"));
  t.column("method", say("barrier.method")).column("values", say("barrier.final-values"));
  t.column("ns", say("barrier.ns-per-barrier"), Format::ns).column("vs-nccl", say("vs-nccl"), Format::ratio);
  double nccl_ns = 0;
  for (const auto& r : results)
    if (r.method == Method::nccl && !r.ns.empty()) nccl_ns = report::median(r.ns);
  for (const auto& r : results) {
    const std::string key = method_key(r.method);
    report::Value values = report::NeedsGpu{}, ns = report::NeedsGpu{}, ratio = report::NeedsGpu{};
    report::RowMark mark = report::RowMark::none;
    if (!r.waived.empty()) {
      values = say("waived");
      ns = ratio = report::Undefined{};
    } else if (r.run) {
      const ValuesDiff d = compare_values(r.run->values, model);
      values = d.same() ? say("barrier.agree") : say("barrier.differ", {{"count", report::grouped(d.differ)}});
      if (!d.same()) mark = report::RowMark::mismatch;
      ns = ratio = report::Undefined{};
      if (!r.ns.empty()) {
        ns = report::median(r.ns);
        if (nccl_ns > 0) ratio = report::median(r.ns) / nccl_ns;
      }
      const std::string differ = say("barrier.values-differ", {{"differ", report::grouped(d.differ)},
                                                               {"compared", report::grouped(d.compared)},
                                                               {"first", d.first}});
      s.agreement("values-" + key, say("barrier.final-values-under", {{"method", key}}), d.same(),
                  d.same() ? say("barrier.values-bit-for-bit", {{"count", report::grouped(d.compared)}})
                  : r.run->deadline_hit ? say("barrier.gave-up", {{"what", differ}})
                                        : differ);
    }
    t.row({{"method", key}, {"values", values}, {"ns", ns}, {"vs-nccl", ratio}}, mark);
    if (gpu_run && r.waived.empty())
      s.add(report::measured("ns-" + key, say("barrier.measured", {{"method", key}}), Format::ns, r.ns, true,
                             say("barrier.measured-how", {{"k1", kK1}, {"k2", kK2}, {"k", kK2 - kK1}})));
    if (!r.waived.empty()) s.note(say("method-waived", {{"method", key}, {"why", r.waived}}));
  }
  s.add(std::move(t));
  if (!gpu_run) {
    s.note(say("barrier.no-gpu"));
    return s;
  }
  bool deadline = false;
  for (const auto& r : results) deadline = deadline || r.timing_deadline_hit || (r.run && r.run->deadline_hit);
  s.check("no-deadline", say("no-deadline"), !deadline, say(deadline ? "barrier.spin-gave-up" : "barrier.every-released"));
  s.note(say("barrier.launch-note"));
  return s;
}

report::Section barrier_part(Run& run) {
  run.require_peer("barrier");
  const std::vector<std::uint32_t> model = model_values(run.barrier, run.ctx.seed);
  std::vector<MethodResult> results;
  for (int i = 0; i < kMethods; ++i) {
    MethodResult r;
    r.method = static_cast<Method>(i);
    if (run.ctx.gpu) {
      const log::Timed timed(std::string("multi-gpu: barrier by ") + method_key(r.method));
      NcclComms* nccl = nullptr;
      if (r.method == Method::nccl && !(nccl = run.open_nccl())) r.waived = run.nccl_waiver;
      if (r.waived.empty()) {
        r.run = gpu_barrier_run(r.method, run.dev[0], run.dev[1], run.barrier,
                                start_values(run.barrier, run.ctx.seed), nccl);
        const BarrierTiming t = gpu_barrier_ns(r.method, run.dev[0], run.dev[1], run.barrier, kBarrierReps, kK1, kK2, nccl);
        r.ns = t.ns;
        r.timing_deadline_hit = t.deadline_hit;
      }
    }
    results.push_back(std::move(r));
  }
  return barrier_section(run.barrier, model, results, run.ctx.gpu, run.ctx.seed);
}

}  // namespace cudasync::multi_gpu
