// Part divergence (Fan 10.1): the same 32-case switch on the warp and on the lane. The model says
// which lanes run each case, step by step; the GPU shows __activemask() inside each case and the
// cycles each warp spent in the switch.
#include "core/report/text_format.hpp"
#include "techniques/warp_primitives/lesson.hpp"

namespace cudasync::warp_primitives {

namespace {

using I = std::int64_t;
using report::Format;
using report::Value;

constexpr int kIterations = 64;  // dependent steps of work in every case

struct Launches {
  std::vector<double> cycles;  // every warp of every launch
  report::Agreement paths{true}, results{true};  // over every launch
  DivergenceRun first;         // the first launch, shown
};

Launches launch(SwitchOn on, int reps) {
  Launches l;
  for (int i = 0; i < reps; ++i) {
    const DivergenceRun r = gpu_divergence(on, kIterations);
    for (auto c : r.cycles) l.cycles.push_back(static_cast<double>(c));
    const report::Agreement p = judge_paths(on, r.activemask), v = judge_case_results(on, kIterations, r.result);
    if (l.paths.compared() == 0 || !p.passed()) l.paths = p;
    if (l.results.compared() == 0 || !v.passed()) l.results = v;
    if (i == 0) l.first = r;
  }
  return l;
}

// Fan 10.1: the bounds check `if (n < N)` of a kernel over N elements, n = blockIdx.x * 128 +
// threadIdx.x. Only the warp that holds both n = N - 1 and n = N diverges; the warps past it skip
// the body together. N = 1,000,001 in blocks of 128: 7813 blocks, in the last one threads 0-64 pass,
// so its warp 2 (lane 0 passes, 1-31 do not) is the one warp that diverges, and its warp 3 skips.
struct BoundsCheck {
  std::int64_t n = 0, blocks = 0, warps = 0, diverging = 0, idle = 0;
};

BoundsCheck bounds_check(std::int64_t n, int block) {
  BoundsCheck b;
  b.n = n;
  b.blocks = (n + block - 1) / block;
  b.warps = b.blocks * (block / kWarpSize);
  const std::int64_t threads = b.blocks * block;
  b.diverging = n % kWarpSize != 0 ? 1 : 0;
  b.idle = (threads - n) / kWarpSize;  // whole warps past N
  return b;
}

report::Table bounds_check_table() {
  report::Table t("bounds-check", say("divergence.bounds-title"));
  t.column("n", "N", Format::count).column("blocks", "blocks", Format::count).column("warps", "warps", Format::count);
  t.column("diverging", say("divergence.diverging"), Format::count).column("idle", say("divergence.idle"), Format::count);
  for (std::int64_t n : {std::int64_t{1000000}, std::int64_t{1000001}, std::int64_t{100000000}}) {
    const BoundsCheck b = bounds_check(n, kDivergenceThreads);
    t.row({{"n", b.n}, {"blocks", b.blocks}, {"warps", b.warps}, {"diverging", b.diverging}, {"idle", b.idle}});
  }
  t.legend.push_back(say("divergence.bounds-legend-last-warp"));
  t.legend.push_back(say("divergence.bounds-legend-empty-side"));
  return t;
}

// The steps of one switch (on the lane, warp 0's), the model's lanes beside the GPU's __activemask()
// in the first lane of each step.
report::Table path_table(SwitchOn on, const std::optional<Launches>& run, bool gpu) {
  const bool warp = on == SwitchOn::warp;
  const char* first_column = warp ? "warp" : "step";
  report::Table t(warp ? "warp-switch" : "lane-switch",
                  say(warp ? "divergence.warp-switch-title" : "divergence.lane-switch-title"));
  t.column(first_column, first_column).column("case", "case").column("lanes", say("divergence.lanes-model"), Format::hex32);
  if (gpu) t.column("gpu", say("divergence.activemask-gpu"), Format::hex32);
  int step = 0;
  for (const PathStep& p : model_paths(on)) {
    if (!warp && p.warp != 0) continue;
    std::vector<std::pair<std::string, Value>> cells{
        {first_column, warp ? p.warp : ++step}, {"case", p.case_id}, {"lanes", I{p.lanes}}};
    if (run) {
      int first = 0;
      while (!((p.lanes >> first) & 1u)) ++first;
      cells.emplace_back("gpu", I{run->first.activemask[static_cast<std::size_t>(p.warp * kWarpSize + first)]});
    }
    t.row(cells);
  }
  if (gpu && !warp) t.legend.push_back(say("divergence.gpu-legend"));
  return t;
}

}  // namespace

int divergence_case(SwitchOn on, int thread) { return on == SwitchOn::warp ? thread / kWarpSize : thread % kWarpSize; }

std::uint32_t case_work(int c, int thread, int iterations) {
  auto x = static_cast<std::uint32_t>(thread);
  for (int i = 0; i < iterations; ++i) x = x * 3u + static_cast<std::uint32_t>(c);
  return x;
}

std::uint32_t path_lanes(SwitchOn on, int thread) {
  const int first = thread - thread % kWarpSize;
  std::uint32_t lanes = 0;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (divergence_case(on, first + lane) == divergence_case(on, thread)) lanes |= 1u << lane;
  return lanes;
}

std::vector<PathStep> model_paths(SwitchOn on) {
  std::vector<PathStep> steps;
  for (int warp = 0; warp < kDivergenceWarps; ++warp)
    for (int c = 0; c < kDivergenceCases; ++c) {
      std::uint32_t lanes = 0;
      for (int lane = 0; lane < kWarpSize; ++lane)
        if (divergence_case(on, warp * kWarpSize + lane) == c) lanes |= 1u << lane;
      if (lanes != 0) steps.push_back({warp, c, lanes});
    }
  return steps;
}

report::Agreement judge_paths(SwitchOn on, const BlockMasks& gpu) {
  report::Agreement a(true);
  for (int t = 0; t < kDivergenceThreads; ++t) {
    const std::uint32_t got = gpu[static_cast<std::size_t>(t)];
    a.note(t, ((got >> (t % kWarpSize)) & 1u) && (got & ~path_lanes(on, t)) == 0);
  }
  return a;
}

report::Agreement judge_case_results(SwitchOn on, int iterations, const BlockValues& gpu) {
  report::Agreement a(true);
  for (int t = 0; t < kDivergenceThreads; ++t)
    a.note(t, gpu[static_cast<std::size_t>(t)] == case_work(divergence_case(on, t), t, iterations));
  return a;
}

double divergence_ratio(const std::vector<double>& warp_switch, const std::vector<double>& lane_switch) {
  if (warp_switch.empty() || lane_switch.empty()) return 0.0;
  const double base = report::median(warp_switch);
  return base > 0.0 ? report::median(lane_switch) / base : 0.0;
}

report::Section divergence_part(Run& run) {
  const bool gpu = run.ctx.gpu;
  const int reps = run.ctx.bench ? 31 : 7;
  report::Section s("divergence", say("divergence.title"));
  s.paragraph(say("divergence.setup",
                  {{"threads", kDivergenceThreads}, {"warps", kDivergenceWarps}, {"steps", kIterations}}));
  s.paragraph(say("divergence.two-switches"));
  std::optional<Launches> by_warp, by_lane;
  if (gpu) {
    by_warp = launch(SwitchOn::warp, reps);
    by_lane = launch(SwitchOn::lane, reps);
  }

  s.add(path_table(SwitchOn::warp, by_warp, gpu));
  s.add(path_table(SwitchOn::lane, by_lane, gpu));
  s.add(bounds_check_table());
  s.fact("pc-registers", say("divergence.pc-registers"), I{2}, Format::count, say("divergence.pc-registers-note"));
  s.fact("paths-per-warp-warp-switch", say("divergence.paths-warp-switch"), I{1});
  s.fact("paths-per-warp-lane-switch", say("divergence.paths-lane-switch"), I{kDivergenceCases});
  s.add(report::measured("warp-switch-cycles", say("divergence.warp-switch"), Format::cycles,
                         by_warp ? by_warp->cycles : std::vector<double>{}, gpu, say("divergence.warp-switch-note")));
  s.add(report::measured("lane-switch-cycles", say("divergence.lane-switch"), Format::cycles,
                         by_lane ? by_lane->cycles : std::vector<double>{}, gpu, say("divergence.lane-switch-note")));
  if (!gpu) {
    s.fact("ratio", say("divergence.ratio"), report::NeedsGpu{}, Format::ratio);
    return s;
  }
  const double ratio = divergence_ratio(by_warp->cycles, by_lane->cycles);
  s.fact("ratio", say("divergence.ratio"), ratio, Format::ratio,
         say("divergence.ratio-note", {{"launches", reps}, {"warps", kDivergenceWarps}}));
  by_warp->paths.check(s, "warp-paths-agree", say("divergence.warp-paths-agree"), lanes_detail(by_warp->paths));
  by_lane->paths.check(s, "lane-paths-agree", say("divergence.lane-paths-agree"), lanes_detail(by_lane->paths));
  const bool results = by_warp->results.passed() && by_lane->results.passed();
  s.agreement("results-agree", say("divergence.results-agree"), results,
              results ? say("divergence.results-agree-detail", {{"threads", kDivergenceThreads}})
                      : say("divergence.results-differ", {{"warp", lanes_detail(by_warp->results)},
                                                          {"lane", lanes_detail(by_lane->results)}}));
  s.check("lane-switch-serialised", say("divergence.serialised", {{"times", report::fixed(kSerialisedAtLeast, 0)}}),
          ratio >= kSerialisedAtLeast, say("divergence.serialised-detail", {{"times", report::fixed(ratio, 1)}}));
  return s;
}

}  // namespace cudasync::warp_primitives
