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

const char* how(Method m) {
  switch (m) {
    case Method::peer:
      return "peer: one kernel per GPU runs every phase. Between two phases thread 0 of each block adds 1 to its "
             "GPU's counter (device scope, acq_rel); the block that completes its GPU's count stores the barrier's "
             "number into a flag in both GPUs' memory (a release store at system scope, the remote one through "
             "peer access); every thread 0 polls its own GPU's copy of both flags and takes one acquire fence at "
             "system scope. Stores cross the link, polls stay local, no atomic crosses it.";
    case Method::nccl:
      return "nccl: one kernel per GPU and phase; between two phases ncclAllReduce of one integer on both GPUs' "
             "streams (grouped, from one thread). Neither stream goes on before both GPUs have contributed.";
    case Method::event:
      return "event: one kernel per GPU and phase; between two phases each stream records an event and waits "
             "for the other GPU's (cudaStreamWaitEvent across devices): the host orders the kernels, the GPUs "
             "never look at each other's memory to synchronize.";
  }
  return "";
}

report::Table protocol_table(const ProtocolSim& sim) {
  report::Table t("protocol", "the peer barrier's steps, 2 GPUs x 2 blocks, one random interleaving");
  t.column("step", "step", Format::count).column("who", "GPU/block").column("action", "action");
  t.column("counters", "counters").column("flags-0", "on 0").column("flags-1", "on 1");
  I n = 0;
  for (const auto& st : sim.steps)
    t.row({{"step", ++n},
           {"who", std::to_string(st.gpu) + "/" + std::to_string(st.block)},
           {"action", st.action},
           {"counters", st.counters},
           {"flags-0", st.flags[0]},
           {"flags-1", st.flags[1]}});
  t.legend.push_back("counters: GPU 0's | GPU 1's; on 0, on 1: each GPU's copy of flag[0],flag[1]");
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
  report::Section s("barrier", "barrier: every block of two GPUs waits for every other");
  s.paragraph(
      "The computation: " + report::grouped(model.size()) + " values, half on each GPU, " +
      std::to_string(spec.phases) + " phases. In each phase every value mixes itself with the value one GPU's worth "
      "further on (on the other GPU) and the value one block further on, both of the previous phase, from two "
      "buffers that swap every phase. A barrier that lets one block through too early makes it read a value of the "
      "wrong phase, and the final values differ from the reference model's.");
  for (const auto& r : results) s.paragraph(how(r.method));
  s.paragraph(
      "CUDA 13 removed multi-device cooperative launches (cudaLaunchCooperativeKernelMultiDevice and "
      "multi_grid_group::sync), so a barrier across GPUs inside running kernels is built, as here, or borrowed.");
  s.fact("blocks", "blocks per GPU (--blocks)", static_cast<I>(spec.blocks), Format::count);
  s.fact("threads", "threads per block", static_cast<I>(spec.threads), Format::count);
  s.fact("phases", "phases (--phases)", static_cast<I>(spec.phases), Format::count,
         std::to_string(spec.phases - 1) + " barriers");

  // The protocol, step by step, and over many interleavings with and without the other GPU's flag.
  s.add(protocol_table(simulate_protocol(2, 1, 1, seed, true)));
  const ProtocolSim cross = simulate_protocol(kSimBlocks, kSimBarriers, kSchedules, seed, true);
  const ProtocolSim local = simulate_protocol(kSimBlocks, kSimBarriers, kSchedules, seed, false);
  s.fact("early-cross-gpu", "early leaves, both GPUs' flags polled", static_cast<I>(cross.early), Format::count,
         "in " + report::grouped(kSchedules) + " random interleavings of 2 x " + std::to_string(kSimBlocks) +
             " blocks, " + std::to_string(kSimBarriers) + " barriers");
  s.fact("early-own-gpu", "early leaves, own GPU's flag only", static_cast<I>(local.early), Format::count,
         local.first_early.empty() ? "what a one-GPU grid barrier gives" : local.first_early);
  s.check("protocol-model", "the model: no block leaves a barrier before every block of both GPUs arrives",
          cross.early == 0, cross.early == 0 ? report::grouped(kSchedules) + " interleavings" : cross.first_early);

  report::Table t("methods", "the computation under each barrier");
  t.column("method", "method").column("values", "final values");
  t.column("ns", "ns per barrier", Format::ns).column("vs-nccl", "vs nccl", Format::ratio);
  double nccl_ns = 0;
  for (const auto& r : results)
    if (r.method == Method::nccl && !r.ns.empty()) nccl_ns = report::median(r.ns);
  for (const auto& r : results) {
    const std::string key = method_key(r.method);
    report::Value values = report::NeedsGpu{}, ns = report::NeedsGpu{}, ratio = report::NeedsGpu{};
    report::RowMark mark = report::RowMark::none;
    if (!r.waived.empty()) {
      values = std::string("waived");
      ns = ratio = report::Undefined{};
    } else if (r.run) {
      const ValuesDiff d = compare_values(r.run->values, model);
      values = d.same() ? std::string("agree") : report::grouped(d.differ) + " differ";
      if (!d.same()) mark = report::RowMark::mismatch;
      ns = ratio = report::Undefined{};
      if (!r.ns.empty()) {
        ns = report::median(r.ns);
        if (nccl_ns > 0) ratio = report::median(r.ns) / nccl_ns;
      }
      s.agreement("values-" + key, "the final values under " + key, d.same(),
                  d.same() ? report::grouped(d.compared) + " values, bit for bit"
                           : report::grouped(d.differ) + " of " + report::grouped(d.compared) +
                                 " differ, the first at index " + std::to_string(d.first) +
                                 (r.run->deadline_hit ? " (a spin gave up at its deadline)" : ""));
    }
    t.row({{"method", key}, {"values", values}, {"ns", ns}, {"vs-nccl", ratio}}, mark);
    if (gpu_run && r.waived.empty())
      s.add(report::measured("ns-" + key, key + ": ns per barrier", Format::ns, r.ns, true,
                             "(t(" + std::to_string(kK2) + ") - t(" + std::to_string(kK1) + ")) / " +
                                 std::to_string(kK2 - kK1) + ", host-timed"));
    if (!r.waived.empty()) s.note(key + " waived: " + r.waived);
  }
  s.add(std::move(t));
  if (!gpu_run) {
    s.note("the values and the times need two GPUs; cudasync multi-gpu --bench compares the methods there");
    return s;
  }
  bool deadline = false;
  for (const auto& r : results) deadline = deadline || r.timing_deadline_hit || (r.run && r.run->deadline_hit);
  s.check("no-deadline", "no spin of the peer barrier reached its deadline", !deadline,
          deadline ? "a spin gave up: a GPU did not arrive in time" : "every barrier released");
  s.note("nccl and event order kernels, not running threads: each of their barriers includes one kernel launch per "
         "GPU, which the peer barrier, inside one kernel, does not pay");
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
