// named-barriers: options, validation, and the run that asks the GPU (when there is one) and the
// reference model the same questions. Sections are built in named_barriers_sections.cpp.
#include <algorithm>
#include <fstream>
#include <memory>

#include "core/errors.hpp"
#include "core/kernel_listing.hpp"
#include "techniques/named_barriers/named_barriers_lesson.hpp"
#include "techniques/named_barriers/named_barriers_misuse.hpp"
#include "techniques/named_barriers/named_barriers_sections.hpp"
#if CUDASYNC_HAVE_CUDA
#include "techniques/named_barriers/named_barriers_gpu.hpp"
#endif

namespace cudasync::named_barriers {

namespace {

bool selected(const std::vector<std::string>& parts, const std::string& part) {
  return parts.empty() || std::find(parts.begin(), parts.end(), part) != parts.end();
}

const char* kWholeWarps =
    "bar.sync counts whole warps, and the PTX ISA requires a thread count that is a multiple of the warp size "
    "(32); to see what such a count does, run --part misuse --count ";

std::optional<std::string> warp_multiple_error(const std::string& option, int v) {
  if (v <= 0) return option + " " + std::to_string(v) + ": needs at least one warp (32 threads)";
  if (v % kWarpSize != 0)
    return option + " " + std::to_string(v) + " is not a multiple of 32: " + kWholeWarps + std::to_string(v);
  return std::nullopt;
}

std::vector<MisuseCase> misuse_cases(const Options& o) {
  if (o.count || o.arrive) return {MisuseCase{o.count.value_or(48), o.arrive.value_or(64)}};
  return {MisuseCase{48, 64}, MisuseCase{128, 64}};
}

Inputs resolve(const Options& o, std::uint64_t seed) {
  Inputs in;
  in.groups.threads[0] = o.groups[0];
  in.groups.threads[1] = o.groups[1];
  in.groups.ids[0] = o.barrier_ids[0];
  in.groups.ids[1] = o.barrier_ids[1];
  in.groups.phases = o.phases;
  in.groups.work_cycles[0] = 2000;
  in.groups.work_cycles[1] = 2000LL * (o.phases + 2);  // group 0's whole run is shorter than one phase of group 1
  in.pc.producers = o.producers;
  in.pc.consumers = o.consumers;
  in.pc.ids[0] = o.barrier_ids[0];
  in.pc.ids[1] = o.barrier_ids[1];
  in.pc.rounds = o.rounds;
  in.pc.input = make_input(o.rounds, o.producers, seed);
  in.red_threads = o.threads;
  in.red_id = o.barrier_ids[0];
  for (const auto& text : o.predicates.empty() ? kDefaultPredicates : o.predicates)
    in.predicates.push_back(*parse_predicate(text));  // validated by the CLI check
  in.misuse = misuse_cases(o);
  in.misuse_id = o.barrier_ids[0];
  in.trace = o.trace;
  return in;
}

struct CostVariantRow {
  const char* name;
  const char* note;
  int variant;
  bool needs_cc80;
};
const CostVariantRow kCostRows[] = {
    {"__syncthreads()", "bar.sync 0: the whole block", 0, false},
    {"bar.sync 1|2, half", "named: each half of the block on its own barrier", 1, false},
    {"bar.arrive + bar.sync", "one round trip between the halves: two barrier phases", 2, false},
    {"cuda::barrier arrive_and_wait", "mbarrier in shared memory (8.0+)", 3, true},
};

// The hidden child of the misuse part: one case, one line into the file, no report to speak of.
report::Report run_misuse_child(const Options& o, const RunContext& ctx) {
  report::Report r;
  r.technique = "named-barriers";
  r.title = "named-barriers: misuse child process";
  const MisuseCase c{o.count.value_or(48), o.arrive.value_or(64)};
  std::string line;
#if CUDASYNC_HAVE_CUDA
  if (!ctx.gpu) throw NoGpuError("--misuse-child needs the GPU backend");
  try {
    line = format_observation(gpu_misuse(c, o.barrier_ids[0], MisuseTiming{}));
  } catch (const Error& e) {
    line = format_cuda_error(e.what());
  }
#else
  (void)ctx;
  (void)c;
  throw NoGpuError("this cudasync was built without CUDA");
#endif
  std::ofstream f(o.misuse_child);
  if (!f) throw UsageError("--misuse-child " + o.misuse_child + ": cannot write the file");
  f << line;
  return r;
}

}  // namespace

std::optional<std::string> combination_error(const Options& o) {
  for (int id : o.barrier_ids)
    if (id < 0 || id >= kBarrierCount)
      return "--barrier-ids " + std::to_string(id) + " is outside 0..15: a block has sixteen hardware barriers, "
             "numbered 0 to 15 (PTX ISA, \"bar, barrier\")";
  if (o.barrier_ids.size() != 2)
    return "--barrier-ids takes two barrier ids, e.g. 1,2 (the first for group 0, the full barrier, bar.red and the "
           "misuse part; the second for group 1 and the empty barrier)";
  if (o.barrier_ids[0] == o.barrier_ids[1])
    return "--barrier-ids " + std::to_string(o.barrier_ids[0]) + "," + std::to_string(o.barrier_ids[1]) +
           ": the two ids must differ; one barrier with two thread counts at once is undefined";
  for (int g : o.groups)
    if (auto e = warp_multiple_error("--groups", g)) return e;
  if (o.groups.size() != 2) return "--groups takes two thread counts, e.g. 64,128";
  if (o.groups[0] + o.groups[1] > kMaxBlockThreads)
    return "--groups " + std::to_string(o.groups[0]) + "," + std::to_string(o.groups[1]) + ": " +
           std::to_string(o.groups[0] + o.groups[1]) + " threads, more than a block allows (1024)";
  if (auto e = warp_multiple_error("--producers", o.producers)) return e;
  if (auto e = warp_multiple_error("--consumers", o.consumers)) return e;
  if (o.producers + o.consumers > kMaxBlockThreads)
    return "--producers " + std::to_string(o.producers) + " --consumers " + std::to_string(o.consumers) + ": " +
           std::to_string(o.producers + o.consumers) +
           " threads, more than a block allows (1024); producers and consumers share one block";
  if ((o.count || o.arrive) && !selected(o.parts, "misuse"))
    return "--count and --arrive belong to the misuse part: add --part misuse (it runs a bad count safely)";
  if (o.arrive) {
    if (*o.arrive % kWarpSize != 0 || *o.arrive < kWarpSize || *o.arrive > kMaxBlockThreads - kWarpSize)
      return "--arrive " + std::to_string(*o.arrive) + ": the threads that arrive are whole warps, 32..992 (a multiple "
             "of 32, leaving at least one warp of the block for the rescue)";
  }
  for (const MisuseCase& c : misuse_cases(o)) {
    int worst = 0;
    for (CountRule r : {CountRule::round_up, CountRule::round_down}) worst = std::max(worst, predict_misuse(c, r).rescues);
    if (worst > c.rescue_warps())
      return "--count " + std::to_string(c.count) + " with --arrive " + std::to_string(c.arrive_threads) + " could leave " +
             std::to_string(worst) + " warps' worth of arrivals missing, more than the " +
             std::to_string(c.rescue_warps()) + " rescue warps that fit in a block of 1024 can add; let fewer threads arrive";
  }
  return std::nullopt;
}

report::Report run(const Options& o, const RunContext& ctx) {
  if (const auto e = combination_error(o)) throw UsageError(*e);
#if !CUDASYNC_HAVE_CUDA
  if (ctx.gpu) throw NoGpuError("this cudasync was built without CUDA");
#endif
  if (!o.misuse_child.empty()) return run_misuse_child(o, ctx);
  const Inputs in = resolve(o, ctx.seed);
  const bool gpu = ctx.gpu;
  const int cc = gpu ? ctx.device->compute_capability() : 0;
  report::Report r;
  r.technique = "named-barriers";
  r.title = "named-barriers: bar.sync, bar.arrive, bar.red and cuda::barrier inside one block";
  const std::string device = gpu ? std::to_string(ctx.device->index) + " (" + ctx.device->name + ", cc " +
                                       ctx.device->cc_string() + ")"
                                 : "";
  const auto waive_cc80 = [&](const std::string& part, const std::string& what) {
    r.waived.push_back({part, "needs compute capability 8.0 or newer (" + what + "); GPU " + device + " has " +
                                  ctx.device->cc_string()});
  };

  // The misuse children start first and run while this process does the other parts.
  std::vector<std::unique_ptr<MisuseChild>> children;
  std::vector<std::optional<MisuseOutcome>> misuse_outcomes(in.misuse.size());
  if (gpu && selected(o.parts, "misuse")) {
    for (std::size_t i = 0; i < in.misuse.size(); ++i) {
      try {
        children.push_back(std::make_unique<MisuseChild>(cudasync::self_executable(), in.misuse[i], in.misuse_id,
                                                         ctx.device->index, std::chrono::milliseconds(8000)));
      } catch (const std::runtime_error& e) {
        children.push_back(nullptr);
        MisuseOutcome failed;
        failed.c = in.misuse[i];
        failed.message = e.what();
        misuse_outcomes[i] = failed;
      }
    }
  }

  r.sections.push_back(setup_section(in, gpu, device));

  if (selected(o.parts, "bar-sync")) {
    std::optional<GroupsTrace> t;
#if CUDASYNC_HAVE_CUDA
    if (gpu) t = gpu_groups(in.groups);
#endif
    r.sections.push_back(groups_section(in.groups, t));
  }
  if (selected(o.parts, "producer-consumer")) {
    std::optional<PcResult> got;
#if CUDASYNC_HAVE_CUDA
    if (gpu) got = gpu_producer_consumer(in.pc);
#endif
    r.sections.push_back(pc_section(in.pc, got, in.trace));
  }
  if (selected(o.parts, "bar-red")) {
    std::vector<RedRun> runs;
    for (const auto& p : in.predicates) {
      RedRun run{p, evaluate(p, in.red_threads, ctx.seed), std::nullopt};
#if CUDASYNC_HAVE_CUDA
      if (gpu) run.gpu = gpu_red(RedSpec{in.red_threads, in.red_id, run.values});
#endif
      runs.push_back(std::move(run));
    }
    r.sections.push_back(red_section(in.red_threads, in.red_id, runs));
  }
  const KernelListing& listing = kernel_listing();
  const std::string arch = listing_sass_arch(listing, cc);
  if (selected(o.parts, "cuda-barrier")) {
    if (gpu && cc < 80) {
      waive_cc80("cuda-barrier", "cuda::barrier in shared memory is the mbarrier object of 8.0");
    } else {
      std::optional<PcResult> got;
#if CUDASYNC_HAVE_CUDA
      if (gpu) got = gpu_producer_consumer_cuda_barrier(in.pc);
#endif
      r.sections.push_back(
          cuda_barrier_section(in.pc, got, in.trace, arch, kernel_sass(listing, arch, "cuda_barrier_pc_kernel")));
    }
  }
  if (selected(o.parts, "listing")) r.sections.push_back(listing_section(listing, arch));
  if (selected(o.parts, "misuse")) {
    for (std::size_t i = 0; i < children.size(); ++i)
      if (children[i]) misuse_outcomes[i] = children[i]->finish();
    r.sections.push_back(misuse_section(in.misuse, in.misuse_id, misuse_outcomes, gpu));
  }
  if (selected(o.parts, "cost")) {
    const int iterations = ctx.bench ? 20000 : 2000;
    const int reps = ctx.bench ? 31 : 5;
    (void)reps;  // unused in a model-only build
    std::vector<CostRow> rows;
    for (int block : kCostBlocks)
      for (const auto& v : kCostRows) {
        CostRow row{v.name, v.note, block, {}};
        const bool waived = gpu && v.needs_cc80 && cc < 80;
        if (waived) row.note = "waived: needs compute capability 8.0+";
#if CUDASYNC_HAVE_CUDA
        if (gpu && !waived)
          for (int i = 0; i < reps; ++i)
            row.ns.push_back(gpu_ns_per_barrier(static_cast<CostVariant>(v.variant), block, iterations));
#endif
        if (block != kCostBlocks.front()) row.note.clear();  // the note once per variant
        rows.push_back(std::move(row));
      }
    r.sections.push_back(cost_section(rows, gpu, iterations));
  }
  // The setup section alone means every part asked for was waived.
  if (r.sections.size() == 1 && !r.waived.empty()) r.sections.clear();
  return r;
}

cli::Runner attach(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  std::string parts_help = "Which parts to run, comma-separated (default: every part):";
  for (const auto& p : kParts) parts_help += " " + p;
  sub.add_option("--part", o->parts, parts_help)->delimiter(',')->check(CLI::IsMember(kParts));
  sub.add_option("--barrier-ids", o->barrier_ids,
                 "Two barrier ids 0..15: group 0 / full barrier / bar.red / misuse, and group 1 / empty barrier")
      ->delimiter(',')
      ->expected(1, 2);
  sub.add_option("--groups", o->groups, "bar-sync: threads in group 0 and group 1 (multiples of 32)")
      ->delimiter(',')
      ->expected(1, 2);
  sub.add_option("--phases", o->phases, "bar-sync: phases each group runs")->check(CLI::Range(1, 8));
  sub.add_option("--producers", o->producers, "producer-consumer, cuda-barrier: producer threads (a multiple of 32)");
  sub.add_option("--consumers", o->consumers, "producer-consumer, cuda-barrier: consumer threads (a multiple of 32)");
  sub.add_option("--rounds", o->rounds, "producer-consumer, cuda-barrier: values each producer hands over")
      ->check(CLI::Range(1, 64));
  sub.add_flag("--trace", o->trace, "producer-consumer, cuda-barrier: every warp's arrivals and waits, round by round");
  sub.add_option("--predicate", o->predicates, std::string("bar-red: predicates, comma-separated: ") + kPredicateForms)
      ->delimiter(',')
      ->check([](const std::string& s) {
        return parse_predicate(s) ? std::string() : "unknown predicate '" + s + "'; accepted: " + kPredicateForms;
      });
  sub.add_option("--threads", o->threads, "bar-red: threads in the block")->check(CLI::Range(1, kMaxBlockThreads));
  sub.add_option("--count", o->count, "misuse: the thread count of the bad bar.sync (any 1..1024)")
      ->check(CLI::Range(1, kMaxBlockThreads));
  sub.add_option("--arrive", o->arrive, "misuse: threads that arrive at it (whole warps)");
  sub.add_option("--misuse-child", o->misuse_child)->group("");  // hidden: the misuse part's child process
  sub.callback([o] {
    if (const auto e = combination_error(*o)) throw CLI::ValidationError(*e);
  });
  return [o](const RunContext& ctx) { return run(*o, ctx); };
}

}  // namespace cudasync::named_barriers
