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
  report::Section s("all-reduce", say("all-reduce.title"));
  const std::uint64_t bytes = elements * 4;
  s.paragraph(say("all-reduce.about", {{"elements", report::grouped(elements)}}));
  s.paragraph(say("all-reduce.bandwidth"));
  s.fact("elements", say("all-reduce.elements"), static_cast<I>(elements), Format::count);
  s.fact("bytes", say("all-reduce.bytes"), static_cast<I>(bytes), Format::bytes);
  report::Table sums("model", say("all-reduce.model-title"));
  sums.column("i", "i", Format::count).column("a", say("all-reduce.input-a"), Format::hex32);
  sums.column("b", say("all-reduce.input-b"), Format::hex32).column("sum", say("all-reduce.sum"), Format::hex32);
  for (std::uint64_t i = 0; i < std::min<std::uint64_t>(kShown, elements); ++i)
    sums.row({{"i", static_cast<I>(i)},
              {"a", static_cast<I>(input_value(seed, 0, i))},
              {"b", static_cast<I>(input_value(seed, 1, i))},
              {"sum", static_cast<I>(reduced_value(seed, i))}});
  s.add(std::move(sums));

  report::Table t("methods", say("all-reduce.methods-title"));
  t.column("method", say("barrier.method")).column("outputs", say("all-reduce.outputs"));
  t.column("gbps", "GB/s", Format::gbps).column("vs-nccl", say("vs-nccl"), Format::ratio);
  double nccl_gbps = 0;
  for (const auto& r : results)
    if (r.method == Reduce::nccl && r.run && !r.run->ns.empty()) nccl_gbps = gbps(bytes, report::median(r.run->ns));
  for (const auto& r : results) {
    const std::string key = reduce_key(r.method);
    report::Value outputs = report::NeedsGpu{}, bw = report::NeedsGpu{}, ratio = report::NeedsGpu{};
    report::RowMark mark = report::RowMark::none;
    if (!r.waived.empty()) {
      outputs = say("waived");
      bw = ratio = report::Undefined{};
      s.note(say("method-waived", {{"method", key}, {"why", r.waived}}));
    } else if (r.run) {
      const ReduceRun& g = *r.run;
      const std::uint64_t bad = g.mismatches[0] + g.mismatches[1];
      outputs = bad == 0 ? say("all-reduce.exact") : say("all-reduce.wrong", {{"count", report::grouped(bad)}});
      if (bad) mark = report::RowMark::mismatch;
      const double b = g.ns.empty() ? 0.0 : gbps(bytes, report::median(g.ns));
      bw = b;
      ratio = nccl_gbps > 0 ? report::Value{b / nccl_gbps} : report::Value{report::Undefined{}};
      const std::string wrong = say("all-reduce.outputs-wrong", {{"a", report::grouped(g.mismatches[0])},
                                                                 {"b", report::grouped(g.mismatches[1])},
                                                                 {"first", g.first_mismatch}});
      s.agreement("sums-" + key, say("all-reduce.every-element", {{"method", key}}), bad == 0,
                  bad == 0            ? say("all-reduce.elements-checked", {{"count", report::grouped(elements)}})
                  : g.deadline_hit ? say("all-reduce.spin-gave-up", {{"what", wrong}})
                                      : wrong);
      s.add(report::measured("gbps-" + key, say("all-reduce.measured", {{"method", key}}), Format::gbps,
                             gbps_samples(bytes, g.ns), true, say("all-reduce.measured-how", {{"iterations", kIterations}})));
    }
    t.row({{"method", key}, {"outputs", outputs}, {"gbps", bw}, {"vs-nccl", ratio}}, mark);
  }
  s.add(std::move(t));
  if (!gpu_run) s.note(say("all-reduce.no-gpu"));
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
      throw WaivedError(say("all-reduce.both-waived", {{"nccl", results[0].waived}, {"peer", results[1].waived}}));
    for (auto& r : results)
      if (r.waived.empty())
        r.run = gpu_all_reduce(r.method, run.dev[0], run.dev[1], elements, run.ctx.seed, kAllReduceReps, kIterations,
                               run.budget_ns(), nccl);
  }
  return all_reduce_section(elements, run.ctx.seed, results, run.ctx.gpu);
}

}  // namespace cudasync::multi_gpu
