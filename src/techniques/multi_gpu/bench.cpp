// --bench: two core/sweep tables on the pair of GPUs, NCCL the baseline of both, every ratio from the
// same run. ns per barrier by grid (peer, nccl, event; 1 block and one block per SM on each GPU), and
// all-reduce GB/s by size (nccl, peer; 1, 16 and 256 MiB per GPU).
#include "core/errors.hpp"
#include "core/report/text_format.hpp"
#include "core/sweep/sweep.hpp"
#include "techniques/multi_gpu/lesson.hpp"

namespace cudasync::multi_gpu {

namespace {

using I = std::int64_t;
using report::Format;

constexpr int kBenchReps = 11, kBenchK1 = 100, kBenchK2 = 600, kBenchIterations = 10;
const int kBenchMib[] = {1, 16, 256};

std::vector<int> grids(const Run& run) {
  const int per_sm = run.barrier.blocks;  // one per SM of the smaller GPU (the barrier part's default)
  if (per_sm <= 1) return {1};
  // With fewer than two GPUs nothing measured residency (the cells say why): the table keeps the
  // barrier part's grid, as the model's has it.
  const int resident = run.resident.limit();
  return {1, resident > 0 ? std::min(per_sm, resident) : per_sm};
}

// Why a row cannot run here, in a few words for the table's legend ("" when it can); the notes
// under the tables give the whole reason.
std::string barrier_skip(const Run& run, Method m) {
  if (!run.ctx.gpu) return "";
  if (!run.pair_waiver.empty()) return say("bench.skip-two-gpus");
  if (m == Method::peer && !run.peer_waiver.empty()) return say("bench.skip-peer");
  if (m == Method::nccl && !run.nccl_waiver.empty()) return say("bench.skip-nccl");
  return "";
}

std::string reduce_skip(const Run& run, Reduce r) {
  return barrier_skip(run, r == Reduce::nccl ? Method::nccl : Method::peer);
}

void waiver_notes(const Run& run, report::Section& s, bool nccl_used) {
  if (!run.ctx.gpu) return;
  if (!run.pair_waiver.empty()) {
    s.note(say("bench.not-run", {{"why", run.pair_waiver}}));
    return;
  }
  if (!run.peer_waiver.empty()) s.note(say("bench.peer-not-run", {{"why", run.peer_waiver}}));
  if (nccl_used && !run.nccl_waiver.empty()) s.note(say("bench.nccl-not-run", {{"why", run.nccl_waiver}}));
}

}  // namespace

void bench_setup(Run& run, report::Section& s) {
  s.title = say("bench.setup-title");
  s.paragraph(say("bench.about", {{"k1", kBenchK1}, {"k2", kBenchK2}, {"iterations", kBenchIterations}, {"reps", kBenchReps}}));
  s.fact("devices", say("bench.devices"), std::to_string(run.dev[0]) + "," + std::to_string(run.dev[1]));
  s.fact("nccl-nvls-enable", "NCCL_NVLS_ENABLE", std::string("0"), Format::plain, say("bench.nvls-note"));
  if (!run.ctx.gpu) s.note(say("bench.no-gpu"));
  if (run.ctx.gpu && !run.pair_waiver.empty()) s.note(say("bench.fewer-gpus", {{"why", run.pair_waiver}}));
}

// With fewer than two GPUs (or without peer access, or NCCL) the cells that cannot run say why and
// the run still exits 0, so that `cudasync bench` keeps every lesson's table shape.
std::vector<report::Section> bench_sections(Run& run) {
  if (run.ctx.gpu && run.pair_waiver.empty()) run.open_nccl();

  // ns per barrier
  const std::vector<int> blocks = grids(run);
  std::vector<sweep::Point> rows, cols;
  for (int i = 0; i < kMethods; ++i) rows.push_back({method_key(static_cast<Method>(i)), method_key(static_cast<Method>(i))});
  for (int b : blocks) cols.push_back({std::to_string(b), say(b == 1 ? "bench.block" : "bench.blocks", {{"count", b}})});
  sweep::Sweep bs("barrier-ns", say("barrier.ns-per-barrier"), Format::ns, sweep::Better::lower);
  bs.rows(say("barrier.method"), rows).columns(say("bench.blocks-per-gpu"), cols).baseline("nccl");
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (const std::string why = barrier_skip(run, static_cast<Method>(r)); !why.empty())
      for (std::size_t c = 0; c < cols.size(); ++c) bs.skip(r, c, why);
  bool deadline = false;
  bs.run(run.ctx.gpu, [&](std::size_t r, std::size_t c) {
    BarrierSpec spec = run.barrier;
    spec.blocks = blocks[c];
    const Method m = static_cast<Method>(r);
    const BarrierTiming t = gpu_barrier_ns(m, run.dev[0], run.dev[1], spec, kBenchReps, kBenchK1, kBenchK2,
                                           m == Method::nccl ? run.nccl.get() : nullptr);
    deadline = deadline || t.deadline_hit;
    return t.ns;
  });
  report::Section sb("bench", say("bench.barrier-title"));
  bs.add_to(sb, run.ctx.gpu);
  const bool ran = run.ctx.gpu && run.pair_waiver.empty();
  if (ran) sb.check("no-deadline", say("no-deadline"), !deadline);
  waiver_notes(run, sb, true);

  // all-reduce GB/s
  std::vector<sweep::Point> rrows = {{"nccl", "nccl"}, {"peer", "peer"}}, rcols;
  for (int mib : kBenchMib) rcols.push_back({std::to_string(mib) + "-mib", std::to_string(mib) + " MiB"});
  sweep::Sweep rs("all-reduce-gbps", say("bench.all-reduce-unit"), Format::gbps, sweep::Better::higher);
  rs.rows(say("barrier.method"), rrows).columns(say("bench.size-per-gpu"), rcols).baseline("nccl");
  for (std::size_t r = 0; r < rrows.size(); ++r)
    if (const std::string why = reduce_skip(run, r == 0 ? Reduce::nccl : Reduce::peer); !why.empty())
      for (std::size_t c = 0; c < rcols.size(); ++c) rs.skip(r, c, why);
  std::uint64_t wrong = 0;
  rs.run(run.ctx.gpu, [&](std::size_t r, std::size_t c) {
    const std::uint64_t elements = static_cast<std::uint64_t>(kBenchMib[c]) * (1u << 20) / 4;
    const ReduceRun g = gpu_all_reduce(r == 0 ? Reduce::nccl : Reduce::peer, run.dev[0], run.dev[1], elements,
                                       run.ctx.seed, kBenchReps, kBenchIterations, run.budget_ns(), run.nccl.get());
    wrong += g.mismatches[0] + g.mismatches[1];
    deadline = deadline || g.deadline_hit;
    return gbps_samples(elements * 4, g.ns);
  });
  report::Section sr("bench-all-reduce", say("bench.all-reduce-title"));
  rs.add_to(sr, run.ctx.gpu);
  if (ran) {
    sr.check("sums-exact", say("bench.sums-exact"), wrong == 0,
             wrong == 0 ? say("bench.sums-checked") : say("bench.elements-wrong", {{"count", report::grouped(wrong)}}));
    sr.note(say("bench.ran-on", {{"pair", run.pair_text()}, {"a-name", run.peer->a_name}, {"b-name", run.peer->b_name}}));
  }
  waiver_notes(run, sr, true);
  return {sb, sr};
}

}  // namespace cudasync::multi_gpu
