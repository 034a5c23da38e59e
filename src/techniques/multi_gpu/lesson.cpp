// multi-gpu: options, validation, the run's shared state (the pair of GPUs, peer access, NCCL),
// the setup section, --predict, the course and the part table.
#include "techniques/multi_gpu/lesson.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/course/exercise_texts.hpp"
#include "core/parts/option_binder.hpp"
#include "core/errors.hpp"
#include "core/number_list.hpp"
#include "core/report/text_format.hpp"
#include "core/version.hpp"

namespace cudasync::multi_gpu {

namespace {

using I = std::int64_t;
using report::Format;

// The options, their kinds and bounds are the manifest's (lessons/multi-gpu/lesson.json).
void bind_options(parts::OptionBinder& b, Options& o) {
  b.bind("--devices", o.devices);
  b.bind("--fence", o.fence);
  b.bind("--iterations", o.iterations, {}, {{"default", kDefaultIterations}});
  b.bind("--blocks", o.blocks);
  b.bind("--phases", o.phases);
  b.bind("--mib", o.mib);
  b.bind("--deadline-ms", o.deadline_ms);
}

// Combinations CLI11 cannot check one option at a time.
std::optional<std::string> validate(const Options& o, const parts::Selection& sel, const RunContext&) {
  if (!o.devices.empty()) {
    const std::string given = join_numbers(o.devices);
    if (o.devices.size() != 2) return say("usage.devices-pair", {{"devices", given}});
    if (o.devices[0] == o.devices[1]) return say("usage.devices-same", {{"devices", given}});
  }
  if (o.fence.size() > 2)
    return say("usage.fences", {{"fences", report::join(o.fence, ", ")}, {"count", o.fence.size()}});
  if (o.fence.size() == 2 && sel.has("host-flag"))
    return say("usage.two-fences-host", {{"producer", o.fence[0]}, {"consumer", o.fence[1]}});
  const std::int64_t values = static_cast<std::int64_t>(kGpus) * o.blocks.value_or(kModelSmCount) * kBarrierThreads;
  if (sel.has("barrier") && values * o.phases > (std::int64_t{1} << 28))
    return say("usage.barrier-too-big", {{"blocks", o.blocks.value_or(kModelSmCount)}, {"phases", o.phases}});
  return std::nullopt;
}

int sm_count(const RunContext& ctx, int index) {
  if (ctx.gpu)
    for (const auto& d : ctx.gpus().devices)
      if (d.index == index) return d.sm_count;
  return kModelSmCount;
}

void setup(Run& run, report::Section& s) {
  if (run.bench) return bench_setup(run, s);
  s.title = say("setup.title");
  s.paragraph(say("setup.about"));
  s.fact("devices", say("setup.devices"), std::to_string(run.dev[0]) + "," + std::to_string(run.dev[1]), Format::plain,
         say("setup.devices-note"));
  if (run.ctx.gpu) {
    s.fact("visible-gpus", say("setup.visible-gpus"), static_cast<I>(run.visible), Format::count);
    if (run.peer)
      s.fact("peer-access", say("setup.peer-access"), say(run.peer_waiver.empty() ? "setup.both-ways" : "setup.no"),
             Format::plain,
             run.peer_waiver.empty()
                 ? say("setup.peer-note", {{"rank", run.peer->performance_rank},
                                           {"atomics", say(run.peer->native_atomics ? "setup.yes" : "setup.no")}})
                 : run.peer_waiver);
  }
  s.fact("nccl", "NCCL", kNcclBuiltIn ? say("setup.nccl-built-in", {{"version", kNcclVersion}}) : say("setup.nccl-not-built-in"),
         Format::plain, say(kNcclBuiltIn ? "setup.nccl-found" : "setup.nccl-waived"));
  s.fact("nccl-nvls-enable", "NCCL_NVLS_ENABLE", std::string("0"), Format::plain, say("setup.nvls-note"));
  s.fact("iterations", say("setup.iterations"), static_cast<I>(run.iterations), Format::count);
  s.fact("deadline-ms", say("setup.deadline"), static_cast<I>(run.options.deadline_ms), Format::count, "ms");
  s.fact("seed", say("setup.seed"), static_cast<I>(run.ctx.seed), Format::plain, say("setup.seed-note"));
  if (!run.pair_waiver.empty()) s.note(run.pair_waiver);
  if (!run.ctx.gpu) s.note(say("setup.no-gpu"));
}

// --predict: a GPU hands data to a host thread through a flag, with or without a fence (the question
// is the catalog's).
std::vector<parts::PredictionTruth> predictions() {
  return {{"host-flag", [](const report::Section& s) {
             return parts::weak_outcome_truth(s, "outcomes", "multi-gpu");
           }}};
}

}  // namespace

Run::Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection)
    : ctx(run_ctx), options(o), bench(selection.bench), iterations(o.iterations.value_or(kDefaultIterations)) {
  // Before any NCCL call, and inherited by every child process: NVLink SHARP stays off.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  if (o.devices.size() == 2) {
    dev[0] = o.devices[0];
    dev[1] = o.devices[1];
  }
  if (!kNcclBuiltIn) nccl_waiver = say("waiver.nccl-not-built-in");
  barrier.threads = kBarrierThreads;
  barrier.phases = o.phases;
  barrier.deadline_ns = budget_ns();
  const bool wants_barrier = selection.has("barrier") && !bench;
  if (!ctx.gpu) {
    barrier.blocks = o.blocks.value_or(kModelSmCount);
    resident = assumed_coresidency(kBarrierThreads, 32, kH100Limits, "assumed: an H100, no GPU here");
  } else {
    visible = static_cast<int>(ctx.gpus().devices.size());
    const std::string own = ctx.device_text();
    if (visible < 2) {
      const std::string gpus = say(visible == 1 ? "waiver.gpu" : "waiver.gpus", {{"count", visible}});
      pair_waiver = own.empty() ? say("waiver.pair", {{"gpus", gpus}}) : say("waiver.pair-own", {{"gpus", gpus}, {"own", own}});
    } else {
      for (int d : dev)
        if (d >= visible)
          throw UsageError(
              say("usage.no-such-gpu",
                  {{"a", dev[0]}, {"b", dev[1]}, {"gpu", d}, {"visible", visible}, {"last", visible - 1}}));
      peer = gpu_peer_info(dev[0], dev[1]);
      if (!peer->a_to_b || !peer->b_to_a)
        peer_waiver = say("waiver.peer", {{"pair", pair_text()},
                                          {"a", dev[0]},
                                          {"b", dev[1]},
                                          {"a-to-b", say(peer->a_to_b ? "setup.yes" : "setup.no")},
                                          {"b-to-a", say(peer->b_to_a ? "setup.yes" : "setup.no")}});
      const Coresidency r0 = gpu_barrier_coresidency(dev[0], kBarrierThreads);
      const Coresidency r1 = gpu_barrier_coresidency(dev[1], kBarrierThreads);
      resident = r0.limit() <= r1.limit() ? r0 : r1;
    }
    barrier.blocks = o.blocks.value_or(std::min(sm_count(ctx, dev[0]), sm_count(ctx, dev[1])));
  }
  if (wants_barrier && pair_waiver.empty())
    if (const auto e = coresidency_refusal(barrier.blocks, resident, "--blocks", "")) throw UsageError(*e);
  // Not under --bench: its timings should not share the machine with NCCL's start.
  const bool wants_nccl = wants_barrier || selection.has("all-reduce");
  if (ctx.gpu && !bench && wants_nccl && pair_waiver.empty() && peer_waiver.empty() && nccl_waiver.empty()) {
    const int a = dev[0], b = dev[1];
    nccl_opening = std::async(std::launch::async, [a, b] { return gpu_nccl_open(a, b); });
  }
}

std::string Run::pair_text() const { return say("run.pair", {{"a", dev[0]}, {"b", dev[1]}}); }

void Run::require_pair(const std::string& part) const {
  if (!ctx.gpu) return;
  if (!pair_waiver.empty()) throw WaivedError(say("waiver.needs-two-gpus", {{"part", part}, {"why", pair_waiver}}));
}

void Run::require_peer(const std::string& part) const {
  require_pair(part);
  if (ctx.gpu && !peer_waiver.empty())
    throw WaivedError(say("waiver.needs-peer-access", {{"part", part}, {"why", peer_waiver}}));
}

Run::~Run() {
  // ncclCommDestroy takes about 500 ms (bench/nccl_startup: 495-503 ms for one communicator on an
  // H200), longer than the run's parts: a process that ends with this run leaves the communicators
  // to the operating system, which frees them, and their memory, at exit.
  if (!ctx.ends_process || !nccl) return;
  static auto* kept = new std::vector<std::shared_ptr<NcclComms>>();  // never freed: that is the point
  kept->push_back(std::move(nccl));
}

NcclComms* Run::open_nccl() {
  if (!nccl_waiver.empty()) return nullptr;
  if (!nccl) {
    try {
      nccl = nccl_opening.valid() ? nccl_opening.get() : gpu_nccl_open(dev[0], dev[1]);
    } catch (const Error& e) {
      nccl_waiver = say("waiver.nccl-could-not-start", {{"pair", pair_text()}, {"error", e.what()}});
      return nullptr;
    }
  }
  return nccl.get();
}

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course("multi-gpu");
  return c;
}

const parts::Lesson<Options, Run>& lesson() {
  static const parts::Lesson<Options, Run> table{
      "multi-gpu",
      {
          {"host-flag", host_flag_part},
          {"peer-flag", peer_flag_part},
          {"barrier", barrier_part},
          {"all-reduce", all_reduce_part},
      },
      bind_options,
      validate,
      setup,
      {},
      parts::Bench<Run>{bench_sections},
      {},
      predictions(),
      kGpus};
  return table;
}

}  // namespace cudasync::multi_gpu
