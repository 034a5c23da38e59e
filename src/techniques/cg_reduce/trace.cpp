// Part trace (only with --part trace): what the threads of one block and one warp held after
// each step: rung 1-2's shared tree, rung 3's shuffles, rung 5's grid-stride loop and shuffles.
#include "core/report/observation.hpp"
#include "techniques/cg_reduce/lesson.hpp"

namespace cudasync::cg_reduce {

namespace {

using I = std::int64_t;
using report::Undefined;
using report::Value;

std::vector<int> offsets_of(int block) {
  std::vector<int> o;
  for (int off = block >> 1; off > 0; off >>= 1) o.push_back(off);
  return o;
}

// The shared array s_y of the traced block after each step; '-' where no later step reads a word.
template <typename T>
void shared_tree(report::Section& sec, const Trace<T>& model, const std::optional<Trace<T>>& gpu,
                 const std::string& values) {
  const int B = model.block;
  const auto offs = offsets_of(B);
  const Trace<T>& shown = gpu ? *gpu : model;
  report::Agreement a(gpu.has_value());
  report::Table t("shared-tree", say("trace.tree-title", {{"block", model.block_index}, {"values", values}}));
  t.column("i", "i").column("input", say("column.input"));
  for (int o : offs) t.column("after-" + std::to_string(o), "+" + std::to_string(o));
  for (int i = 0; i < B; ++i) {
    std::vector<std::pair<std::string, Value>> cells{{"i", static_cast<I>(i)}};
    for (std::size_t step = 0; step <= offs.size(); ++step) {
      const bool live = step == 0 || i < offs[step - 1];
      const auto at = step * static_cast<std::size_t>(B) + static_cast<std::size_t>(i);
      const std::string key = step == 0 ? "input" : "after-" + std::to_string(offs[step - 1]);
      cells.emplace_back(key, live ? Value{static_cast<double>(shown.shared_tree[at])} : Value{Undefined{}});
    }
    t.row(cells, a.note(i, !gpu || tree_word_agrees(gpu->shared_tree, model.shared_tree, B, i)));
  }
  t.legend.push_back(say("trace.tree-legend", {{"first", offs.front()}}));
  sec.add(std::move(t));
  const std::vector<std::int64_t>& bad = a.differing();
  a.check(sec, "shared-tree-gpu-agrees", say("trace.tree-agrees"),
          a.passed() ? say("trace.words-agree", {{"count", B}})
                     : say("trace.words-differ", {{"count", bad.size()}, {"first", bad.front()}}));
}

// One warp's 32 lanes after each step; with the grid-stride loop, each lane's thread, how many
// elements it added and its y after the loop come first.
template <typename T>
void lane_table(report::Section& sec, const std::string& id, const std::string& agrees, const std::string& title,
                const std::vector<T>& model,
                const std::vector<T>* gpu, bool with_loop, const Trace<T>& t, const Problem& p) {
  report::Table table(id, title);
  table.column("lane", "lane");
  if (with_loop)
    table.column("thread", say("column.thread"))
        .column("elements", say("column.elements"))
        .column("loop", say("column.loop-y"));
  table.column("start", say("column.start"));
  for (int o = 16; o > 0; o >>= 1) table.column("after-" + std::to_string(o), "+" + std::to_string(o));
  const int steps = with_loop ? kGridStrideSteps : kShuffleSteps;
  report::Agreement a(gpu != nullptr);
  const std::int64_t stride = static_cast<std::int64_t>(p.plan.seed_grid) * t.block;
  std::vector<std::string> keys;
  if (with_loop) keys.push_back("loop");
  keys.push_back("start");
  for (int o = 16; o > 0; o >>= 1) keys.push_back("after-" + std::to_string(o));
  for (int lane = 0; lane < kWarpSize; ++lane) {
    std::vector<std::pair<std::string, Value>> cells{{"lane", static_cast<I>(lane)}};
    const std::int64_t thread = static_cast<std::int64_t>(t.block_index) * t.block + t.warp * kWarpSize + lane;
    if (with_loop) {
      cells.emplace_back("thread", static_cast<I>(thread));
      cells.emplace_back("elements", static_cast<I>(elements_of_thread(thread, p.n, stride)));
    }
    for (int step = 0; step < steps; ++step)
      cells.emplace_back(keys[static_cast<std::size_t>(step)],
                         static_cast<double>((gpu ? *gpu : model)[static_cast<std::size_t>(step * kWarpSize + lane)]));
    table.row(cells, a.note(lane, !gpu || lane_agrees(*gpu, model, steps, lane)));
  }
  sec.add(std::move(table));
  a.check(sec, id + "-gpu-agrees", agrees,
          a.passed() ? say("trace.lanes-agree") : say("trace.lanes-differ", {{"count", a.differing().size()}}));
}

template <typename T>
report::Section trace_section(const Trace<T>& model, const std::optional<Trace<T>>& gpu, const Problem& p) {
  const int b = model.block_index;
  const int w = model.warp;
  report::Section sec("trace", say("trace.title", {{"block", b}, {"warp", w}}));
  sec.paragraph(say("trace.about"));
  if (w != 0) sec.note(say("trace.other-warp-note", {{"warp", w}}));
  const std::string values = say(gpu ? "trace.gpu-values" : "trace.model-values");
  shared_tree(sec, model, gpu, values);
  lane_table(sec, "shuffle", say("trace.shuffle-agrees"), say("trace.shuffle-title", {{"warp", w}, {"values", values}}),
             model.shuffle, gpu ? &gpu->shuffle : nullptr, false, model, p);
  if (!model.grid_stride.empty())
    lane_table(sec, "grid-stride", say("trace.grid-stride-agrees"),
               say("trace.grid-stride-title", {{"grid", p.plan.seed_grid}, {"warp", w}, {"values", values}}),
               model.grid_stride, gpu ? &gpu->grid_stride : nullptr, true, model, p);
  else
    sec.note(say("trace.no-such-block", {{"grid", p.plan.seed_grid}, {"block", b}}));
  return sec;
}

template <typename T>
report::Section traced(Run& run, const std::vector<T>& x) {
  const Plan& plan = run.problem.plan;
  const Trace<T> model =
      model_trace(x, plan, run.options.trace_block.value_or(0), run.options.trace_warp.value_or(0));
  std::optional<Trace<T>> gpu;
  if (run.ctx.gpu) {
    gpu.emplace();
    gpu_trace(*run.gpu, plan, model.block_index, model.warp, *gpu);
  }
  return trace_section(model, gpu, run.problem);
}

}  // namespace

report::Section trace_part(Run& run) {
  return run.problem.dtype == Dtype::f32 ? traced(run, run.xf) : traced(run, run.xd);
}

}  // namespace cudasync::cg_reduce
