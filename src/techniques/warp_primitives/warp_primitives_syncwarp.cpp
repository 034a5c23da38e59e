// Part syncwarp: the last warp of Fan's shared-memory reduction (10.2) three ways, the racy one
// with the orders the hardware may choose.
#include "core/report/text_format.hpp"
#include "techniques/warp_primitives/warp_primitives_gpu.hpp"
#include "techniques/warp_primitives/warp_primitives_judge.hpp"
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

namespace cudasync::warp_primitives {

const char* variant_name(SyncwarpVariant v) {
  switch (v) {
    case SyncwarpVariant::guarded: return "guarded";
    case SyncwarpVariant::registers: return "registers";
    case SyncwarpVariant::racy: return "racy";
  }
  return "guarded";
}

report::Section syncwarp_part(Run& run) {
  using I = std::int64_t;
  const Lanes& values = run.in.values;
  I right = 0;
  for (auto v : values) right += v;
  report::Section s("syncwarp", say("syncwarp.title"));
  s.paragraph(say("syncwarp.steps"));
  s.paragraph(say("syncwarp.variants"));
  s.fact("right-sum", say("syncwarp.right-sum"), right, report::Format::plain, say("syncwarp.right-sum-note"));

  struct Shown {
    SharedWords words;
    std::string key, title;
  };
  std::vector<Shown> shown;
  for (SyncwarpVariant variant : run.in.variants) {
    const std::string name = variant_name(variant);
    const SharedWords model = model_syncwarp(values, variant);
    std::optional<SharedWords> gpu;
    if (run.ctx.gpu) gpu = gpu_syncwarp(values, variant);
    if (variant != SyncwarpVariant::racy) {
      s.fact(name + "-s0-model", say("syncwarp.s0-model", {{"variant", name}}), model[0]);
      shown.push_back({model, name + "-model", name + " model"});
      if (gpu) {
        s.fact(name + "-s0-gpu", say("syncwarp.s0-gpu", {{"variant", name}}), (*gpu)[0]);
        shown.push_back({*gpu, name + "-gpu", name + " gpu"});
        const auto bad = differing_words(*gpu, model);
        s.agreement(name + "-gpu-agrees", say("syncwarp.all-words", {{"variant", name}}), bad.empty(),
                    bad.empty() ? say("syncwarp.words-agree") : say("syncwarp.words-differ", {{"words", report::list_of(bad)}}));
        s.check(name + "-right-sum", say("syncwarp.right-sum-check", {{"variant", name}}), (*gpu)[0] == right,
                say("syncwarp.right-sum-detail", {{"got", (*gpu)[0]}, {"right", right}}));
      }
      continue;
    }
    const SharedWords desc = model_syncwarp_racy_descending(values);
    s.fact("racy-s0-lockstep", say("syncwarp.racy-lockstep"), model[0]);
    s.fact("racy-s0-descending", say("syncwarp.racy-descending"), desc[0]);
    shown.push_back({model, "racy-lockstep", "racy lockstep"});
    shown.push_back({desc, "racy-descending", "racy 31..0"});
    if (!gpu) {
      s.note(say("syncwarp.racy-needs-gpu"));
      continue;
    }
    const std::int32_t got = (*gpu)[0];
    s.fact("racy-s0-gpu", say("syncwarp.racy-gpu"), got);
    shown.push_back({*gpu, "racy-gpu", "racy gpu"});
    if (got == right)
      s.note(say("syncwarp.racy-right", {{"got", got}}));
    else
      s.note(say("syncwarp.racy-wrong", {{"got", got}, {"right", right}, {"change", got - right}}));
  }

  report::Table t("shared", say("syncwarp.shared-title"));
  t.lanes_across = true;
  t.column("index", say("syncwarp.s-index")).column("input", say("syncwarp.input"));
  for (const auto& sw : shown) t.column(sw.key, sw.title);
  for (int i = 0; i < kWarpSize; ++i) {
    const auto l = static_cast<std::size_t>(i);
    std::vector<std::pair<std::string, report::Value>> cells{{"index", i}, {"input", values[l]}};
    for (const auto& sw : shown) cells.emplace_back(sw.key, sw.words[l]);
    t.row(cells);
  }
  s.add(std::move(t));
  return s;
}

}  // namespace cudasync::warp_primitives
