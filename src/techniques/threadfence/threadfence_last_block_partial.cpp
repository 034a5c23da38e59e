// Part last-block-partial: lastBlock called by only some threads. SO Docs assumes the guard "is
// invoked uniformly by all threads in all blocks". Blocks that skip it leave the last ticket undrawn;
// a guard inside if (threadIdx.x == 0) puts __syncthreads_or in divergent code, which may hang the
// GPU: that one runs in a child process, watched, its threads' stages read from host-mapped memory.
#include <cstdlib>
#include <sstream>

#include "core/number_list.hpp"
#include "core/parts/child.hpp"
#include "techniques/threadfence/threadfence_gpu.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"

namespace cudasync::threadfence {

using report::Format;
using report::Value;
using I = std::int64_t;

namespace {

constexpr int kWatchMs = 300;  // the child's watch on its kernel
constexpr std::chrono::milliseconds kChildTimeout{20000};

const char* code_of(PartialVariant v) {
  switch (v) {
    case PartialVariant::every_block: return "partial(); if (lastBlock(c)) merge();";
    case PartialVariant::skipping_blocks: return "if (!data) return; partial(); if (lastBlock(c)) merge();";
    case PartialVariant::thread_zero_only: return "if (tid == 0 && lastBlock(c)) merge(); __syncthreads();";
  }
  return "";
}

// "right sum, block 15 merged", "no sum", "hung after 300 ms": what a run gave, in a table cell.
std::string outcome_cell(const PartialSpec& spec, const PartialRun& r) {
  if (!r.completed) return say("partial.hung-after", {{"ms", r.watched_ms}});
  const std::string sum = say(r.result == kNeverWritten         ? "partial.no-sum"
                              : r.result == partial_sum(spec) ? "partial.right-sum"
                                                              : "partial.wrong-sum");
  if (r.last_block < 0) return sum;
  return say("partial.sum-merged", {{"sum", sum}, {"block", r.last_block}});
}

}  // namespace

std::string format_partial_answer(const PartialRun& r) {
  std::ostringstream o;
  o << "completed " << (r.completed ? 1 : 0) << "\nwatched_ms " << r.watched_ms << "\nresult " << r.result
    << "\ncounter " << r.counter << "\nlast " << r.last_block << "\nstage " << join_numbers(r.stage)
    << "\n";
  return o.str();
}

std::optional<PartialRun> parse_partial_answer(const std::string& text, std::size_t threads_total) {
  std::istringstream in(text);
  PartialRun r;
  std::string key, line;
  int have = 0;
  while (std::getline(in, line)) {
    const auto sp = line.find(' ');
    if (sp == std::string::npos) return std::nullopt;
    key = line.substr(0, sp);
    const std::string v = line.substr(sp + 1);
    std::vector<long long> nums;
    if (key == "result") {
      r.result = std::strtoull(v.c_str(), nullptr, 10);
      have |= 4;
      continue;
    }
    if (!split_numbers(v, nums)) return std::nullopt;
    if (key == "stage") {
      r.stage.assign(nums.begin(), nums.end());
      have |= 32;
      continue;
    }
    if (nums.size() != 1) return std::nullopt;
    if (key == "completed") r.completed = nums[0] != 0, have |= 1;
    else if (key == "watched_ms") r.watched_ms = nums[0], have |= 2;
    else if (key == "counter") r.counter = static_cast<std::uint32_t>(nums[0]), have |= 8;
    else if (key == "last") r.last_block = static_cast<std::int32_t>(nums[0]), have |= 16;
    else return std::nullopt;
  }
  if (have != 63 || r.stage.size() != threads_total) return std::nullopt;
  return r;
}

report::Section last_block_partial_section(const PartialSpec& spec, const std::vector<PartialOutcome>& runs,
                                           bool gpu_run) {
  report::Section s("last-block-partial", say("partial.title"));
  s.paragraph(say("partial.about"));
  s.paragraph(say("partial.about-thread-zero"));
  s.fact("blocks", say("grid.blocks"), I{spec.blocks}, Format::count);
  s.fact("data-blocks", say("partial.data-blocks"), I{spec.data_blocks}, Format::count,
         say("partial.data-blocks-note", {{"last", spec.data_blocks - 1}}));
  s.fact("threads", say("grid.threads"), I{spec.threads}, Format::count);
  s.fact("model-sum", say("last-block.model-sum"), static_cast<I>(partial_sum(spec)), Format::exact, "--seed");
  report::Table t("calls", say("partial.table-title"));
  t.column("call", say("partial.called")).column("model", say("the-model")).column("tickets-model", say("partial.tickets-model"), Format::count);
  if (gpu_run) t.column("tickets", say("partial.tickets"), Format::count).column("outcome", say("this-gpu"));
  for (const auto& o : runs) {
    const PartialPrediction m = partial_model(spec, o.variant);
    const std::string id = partial_id(o.variant);
    std::vector<std::pair<std::string, Value>> cells{
        {"call", id},
        {"model", say(!m.defined ? "partial.undefined" : m.merged ? "partial.right-sum" : "partial.no-sum")},
        {"tickets-model", static_cast<I>(m.tickets)}};
    s.fact("model-" + id, say("partial.model-fact", {{"variant", to_string(o.variant)}}), m.why);
    report::RowMark mark = report::RowMark::none;
    if (gpu_run && !o.gpu) {
      cells.emplace_back("tickets", report::Undefined{});
      cells.emplace_back("outcome", say("partial.no-answer"));
      s.fact("gpu-" + id, say("partial.gpu-fact", {{"variant", to_string(o.variant)}}),
             say("partial.child-no-answer", {{"problem", o.problem}}));
    } else if (gpu_run && o.gpu && o.variant != PartialVariant::thread_zero_only) {
      const PartialVerdict v = judge_partial(spec, o.variant, *o.gpu);
      if (!v.as_predicted) mark = report::RowMark::mismatch;
      cells.emplace_back("tickets", static_cast<I>(o.gpu->counter));
      cells.emplace_back("outcome", outcome_cell(spec, *o.gpu));
      s.agreement(id + "-as-predicted", say("partial.as-predicted", {{"variant", to_string(o.variant)}}), v.as_predicted,
                  v.detail);
    } else if (gpu_run && o.gpu) {
      const std::string what =
          o.gpu->completed ? say("partial.kernel-ended", {{"detail", judge_partial(spec, o.variant, *o.gpu).detail}})
                           : say("partial.still-running", {{"ms", o.gpu->watched_ms}});
      cells.emplace_back("tickets", static_cast<I>(o.gpu->counter));
      cells.emplace_back("outcome", outcome_cell(spec, *o.gpu));
      s.fact("gpu-" + id, say("partial.gpu-fact", {{"variant", to_string(o.variant)}}), what);
      s.fact("stages-" + id, say("partial.stages"), stage_text(spec, *o.gpu));
    }
    t.row(cells, mark);
  }
  for (const auto& o : runs) t.legend.push_back(std::string(partial_id(o.variant)) + ": " + code_of(o.variant));
  s.add(std::move(t));
  if (!gpu_run) s.note(say("partial.no-gpu"));
  s.note(say("partial.correct-form"));
  return s;
}

report::Section last_block_partial_part(Run& run) {
  const PartialSpec spec = make_partial_spec(run.ctx.seed);
  std::vector<PartialOutcome> runs;
  for (int v = 0; v < kPartialVariants; ++v) {
    PartialOutcome o;
    o.variant = static_cast<PartialVariant>(v);
    runs.push_back(std::move(o));
  }
  if (run.ctx.gpu) {
    // The child first: whatever it does to its own context, this process's runs come after it.
    try {
      const ChildResult r =
          parts::start_child(run.ctx, lesson().id, "last-block-divergent", {}, kChildTimeout)->finish();
      if (r.status == ChildResult::Status::exited && r.exit_code == 0)
        runs[2].gpu = parse_partial_answer(r.output, static_cast<std::size_t>(spec.blocks * spec.threads));
      if (!runs[2].gpu) runs[2].problem = r.describe();
    } catch (const std::exception& e) {
      runs[2].problem = e.what();
    }
    runs[0].gpu = gpu_last_block_partial(spec, PartialVariant::every_block);
    runs[1].gpu = gpu_last_block_partial(spec, PartialVariant::skipping_blocks);
  }
  return last_block_partial_section(spec, runs, run.ctx.gpu);
}

std::string last_block_divergent_child(Run& run) {
  const std::string out = run.child_out;
  const auto on_hang = [out](const PartialRun& seen) {
    try {
      parts::write_child_answer(out, format_partial_answer(seen));
    } catch (const std::exception&) {
      std::_Exit(2);
    }
    std::_Exit(0);  // no destructor, no CUDA call: each would wait for the hung kernel
  };
  return format_partial_answer(gpu_last_block_divergent(make_partial_spec(run.ctx.seed), kWatchMs, on_hang));
}

}  // namespace cudasync::threadfence
