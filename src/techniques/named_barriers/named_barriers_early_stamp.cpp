// Part early-stamp: does a clock read placed right after bar.sync wait for the barrier? Measured
// beside a stamp taken behind a shared-memory access, which the PTX ISA makes wait.
#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/named_barriers/named_barriers_gpu.hpp"
#include "techniques/named_barriers/named_barriers_judge.hpp"
#include "techniques/named_barriers/named_barriers_lesson.hpp"

namespace cudasync::named_barriers {

namespace {

using I = std::int64_t;

std::string barrier_text(const StampSpec& spec, StampBarrier b) {
  return b == StampBarrier::syncthreads ? std::string("__syncthreads()")
                                        : "bar.sync " + std::to_string(spec.id) + ", " + std::to_string(spec.block_threads());
}
const char* barrier_id(StampBarrier b) { return b == StampBarrier::syncthreads ? "syncthreads" : "named"; }

}  // namespace

report::Section early_stamp_section(const StampSpec& spec, const std::vector<std::pair<StampBarrier, StampResult>>& gpu,
                                    bool gpu_run) {
  report::Section s("early-stamp", "early-stamp: what a clock read right after bar.sync measures");
  s.paragraph(
      "To time a barrier you might read clock64() right after it. In this build's SASS bar.sync is "
      "BAR.SYNC.DEFER_BLOCKING (--part listing), and the PTX ISA promises only that no new memory access is made "
      "before the barrier completes, nothing about an instruction that touches no memory, such as reading the "
      "clock. Whether that read waits is a question for the GPU, so this part measures it.");
  s.paragraph(
      "One block of " + std::to_string(spec.warps) + " warps meets at a barrier " + std::to_string(spec.rounds) +
      " times; the last warp works " + report::grouped(static_cast<std::uint64_t>(spec.late_cycles)) +
      " cycles before each arrival. Lane 0 of each warp stamps clock64 (one counter per SM) just before the "
      "barrier, right after it (naive), and after a load and store of its own shared-memory word (guarded: the "
      "store needs the load, the load waits for the barrier, and a warp issues in order). Each stamp of a warp "
      "that waited is given in cycles after the last warp's arrival; a negative one was taken before the barrier "
      "completed.");
  s.fact("model", "reference model", std::string("the barrier completes when the late warp arrives; every guarded "
                                                 "stamp comes after that, the naive one is not ruled"),
         report::Format::plain, "PTX ISA 9.0, barrier{.cta}");
  report::Table t("stamps", "stamps of the warps that waited, cycles after the last arrival");
  t.column("barrier", "barrier")
      .column("naive", "naive, median", report::Format::count)
      .column("earliest", "naive, earliest", report::Format::count)
      .column("naive-before", "naive early", report::Format::count)
      .column("guarded", "guarded, median", report::Format::count)
      .column("guarded-before", "guarded early", report::Format::count);
  for (StampBarrier b : {StampBarrier::syncthreads, StampBarrier::named}) {
    std::vector<std::pair<std::string, report::Value>> cells{{"barrier", barrier_text(spec, b)}};
    const auto found = std::find_if(gpu.begin(), gpu.end(), [&](const auto& g) { return g.first == b; });
    if (found == gpu.end()) {
      for (const char* k : {"naive", "earliest", "naive-before", "guarded", "guarded-before"})
        cells.emplace_back(k, report::NeedsGpu{});
      t.row(cells);
      continue;
    }
    const StampVerdict v = judge_stamps(spec, found->second);
    cells.insert(cells.end(), {{"naive", static_cast<I>(v.naive_median)},
                               {"earliest", static_cast<I>(v.naive_earliest)},
                               {"naive-before", static_cast<I>(v.naive_before)},
                               {"guarded", static_cast<I>(v.guarded_median)},
                               {"guarded-before", static_cast<I>(v.guarded_before)}});
    t.row(cells, v.guarded_waited() ? report::RowMark::none : report::RowMark::mismatch);
    const std::string id = barrier_id(b);
    s.agreement("gpu-agrees-" + id, barrier_text(spec, b) + ": no guarded stamp before the last arrival",
                v.guarded_waited(),
                std::to_string(v.guarded_before) + " of " + std::to_string(v.samples) + " guarded stamps early" +
                    (v.bad_rounds.empty() ? std::string() : "; rounds " + report::list_of(v.bad_rounds)));
    s.fact("naive-" + id, barrier_text(spec, b) + ", naive stamp", stamp_finding(v));
    if (found->second.ns_per_cycle > 0 && b == StampBarrier::syncthreads)
      t.legend.push_back("one cycle is about " + report::fixed(found->second.ns_per_cycle, 3) +
                         " ns on this GPU (clock64 against %globaltimer)");
  }
  t.legend.push_back("naive early / guarded early: of " + std::to_string((spec.warps - 1) * spec.rounds) +
                     " waits, the stamps taken before the last warp arrived");
  s.add(std::move(t));
  if (!gpu_run)
    s.fact("verdict", "verdict",
           std::string("only a GPU can say whether its clock read waits for the barrier; the guarded stamp is the "
                       "one the PTX ISA makes wait"));
  return s;
}

report::Section early_stamp_part(Run& run) {
  StampSpec spec;
  spec.id = run.in.groups.ids[0] == 0 ? run.in.groups.ids[1] : run.in.groups.ids[0];
  std::vector<std::pair<StampBarrier, StampResult>> gpu;
  if (run.ctx.gpu)
    for (StampBarrier b : {StampBarrier::syncthreads, StampBarrier::named}) gpu.emplace_back(b, gpu_early_stamp(spec, b));
  return early_stamp_section(spec, gpu, run.ctx.gpu);
}

}  // namespace cudasync::named_barriers
