// Part all-reduce: a large array of 32-bit integers on each GPU, summed element by element into both:
// NCCL's ncclAllReduce against one made by hand from the peer barrier and peer reads and writes.
// Every output element is checked against the model's sum; bandwidth and the ratio to NCCL come
// from the same run.
#include <algorithm>

#include "core/errors.hpp"
#include "core/report/text_format.hpp"
#include "techniques/multi_gpu/multi_gpu_lesson.hpp"

namespace cudasync::multi_gpu {

namespace {

using I = std::int64_t;
using report::Format;

constexpr int kAllReduceReps = 5, kIterations = 5;
constexpr int kShown = 4;  // elements of the model's sum shown

}  // namespace

const char* reduce_key(Reduce r) { return r == Reduce::nccl ? "nccl" : "peer"; }

report::Section all_reduce_section(std::uint64_t elements, std::uint64_t seed, const std::vector<ReduceResult>& results,
                                   bool gpu_run) {
  report::Section s("all-reduce", "all-reduce: one array summed across two GPUs");
  const std::uint64_t bytes = elements * 4;
  s.paragraph(
      "Each GPU holds " + report::grouped(elements) + " 32-bit integers; afterwards both hold their sum, element by "
      "element (wrapping, so every result is exact). nccl: ncclAllReduce(ncclUint32, ncclSum), grouped from one "
      "thread. peer: one kernel per GPU: the peer barrier (both inputs ready), each GPU sums its half of the "
      "elements from both inputs, reading the other GPU's through peer access, and stores the sums into both "
      "outputs, the other GPU's through peer access; the peer barrier again (both outputs whole).");
  s.paragraph(
      "Bandwidth is the array's bytes per GPU over the time of one all-reduce (NCCL's \"algorithm bandwidth\"; "
      "with two GPUs its \"bus bandwidth\" is the same number). The ratio divides by NCCL's, measured in the same "
      "run.");
  s.fact("elements", "elements per GPU (--mib)", static_cast<I>(elements), Format::count);
  s.fact("bytes", "bytes per GPU", static_cast<I>(bytes), Format::bytes);
  report::Table sums("model", "the model's first sums");
  sums.column("i", "i", Format::count).column("a", "GPU A's input", Format::hex32);
  sums.column("b", "GPU B's input", Format::hex32).column("sum", "sum", Format::hex32);
  for (std::uint64_t i = 0; i < std::min<std::uint64_t>(kShown, elements); ++i)
    sums.row({{"i", static_cast<I>(i)},
              {"a", static_cast<I>(input_value(seed, 0, i))},
              {"b", static_cast<I>(input_value(seed, 1, i))},
              {"sum", static_cast<I>(reduced_value(seed, i))}});
  s.add(std::move(sums));

  report::Table t("methods", "the all-reduce, each way");
  t.column("method", "method").column("outputs", "outputs");
  t.column("gbps", "GB/s", Format::gbps).column("vs-nccl", "vs nccl", Format::ratio);
  double nccl_gbps = 0;
  for (const auto& r : results)
    if (r.method == Reduce::nccl && r.run && !r.run->ns.empty()) nccl_gbps = gbps(bytes, report::median(r.run->ns));
  for (const auto& r : results) {
    const std::string key = reduce_key(r.method);
    report::Value outputs = report::NeedsGpu{}, bw = report::NeedsGpu{}, ratio = report::NeedsGpu{};
    report::RowMark mark = report::RowMark::none;
    if (!r.waived.empty()) {
      outputs = std::string("waived");
      bw = ratio = report::Undefined{};
      s.note(key + " waived: " + r.waived);
    } else if (r.run) {
      const ReduceRun& g = *r.run;
      const std::uint64_t bad = g.mismatches[0] + g.mismatches[1];
      outputs = bad == 0 ? std::string("exact") : report::grouped(bad) + " wrong";
      if (bad) mark = report::RowMark::mismatch;
      const double b = g.ns.empty() ? 0.0 : gbps(bytes, report::median(g.ns));
      bw = b;
      ratio = nccl_gbps > 0 ? report::Value{b / nccl_gbps} : report::Value{report::Undefined{}};
      s.agreement("sums-" + key, "every element of both outputs under " + key, bad == 0,
                  bad == 0 ? "2 x " + report::grouped(elements) + " elements"
                           : "GPU A: " + report::grouped(g.mismatches[0]) + " wrong, GPU B: " +
                                 report::grouped(g.mismatches[1]) + ", the first at index " +
                                 std::to_string(g.first_mismatch) + (g.deadline_hit ? " (a spin gave up)" : ""));
      s.add(report::measured("gbps-" + key, key + ": GB/s per all-reduce", Format::gbps, gbps_samples(bytes, g.ns),
                             true, std::to_string(kIterations) + " back to back per sample, host-timed"));
    }
    t.row({{"method", key}, {"outputs", outputs}, {"gbps", bw}, {"vs-nccl", ratio}}, mark);
  }
  s.add(std::move(t));
  if (!gpu_run) s.note("the outputs and the bandwidth need two GPUs");
  return s;
}

report::Section all_reduce_part(Run& run) {
  const std::uint64_t elements = static_cast<std::uint64_t>(run.options.mib) * (1u << 20) / 4;
  std::vector<ReduceResult> results(kReduces);
  results[0].method = Reduce::nccl;
  results[1].method = Reduce::peer;
  if (run.ctx.gpu) {
    run.require_pair("all-reduce");
    if (!run.peer_waiver.empty()) results[1].waived = run.peer_waiver;
    NcclComms* nccl = run.open_nccl();
    if (!nccl) results[0].waived = run.nccl_waiver;
    if (!results[0].waived.empty() && !results[1].waived.empty())
      throw WaivedError("all-reduce: nccl: " + results[0].waived + "; peer: " + results[1].waived);
    for (auto& r : results)
      if (r.waived.empty())
        r.run = gpu_all_reduce(r.method, run.dev[0], run.dev[1], elements, run.ctx.seed, kAllReduceReps, kIterations,
                               run.budget_ns(), nccl);
  }
  return all_reduce_section(elements, run.ctx.seed, results, run.ctx.gpu);
}

}  // namespace cudasync::multi_gpu
