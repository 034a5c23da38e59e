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
  report::Section s("syncwarp", "__syncwarp in the last warp of a reduction (Fan, 10.2)");
  s.paragraph("s[0..31] hold the warp's values and s[32..63] the zeros left by the rest of the block. Five steps "
              "(offset 16, 8, 4, 2, 1) add s[tid + offset] into s[tid]; s[0] ends with the sum.");
  s.paragraph("guarded: if (tid < offset) s[tid] += s[tid + offset]; __syncwarp();  registers: v += s[tid + offset]; "
              "__syncwarp(); s[tid] = v; __syncwarp();  racy (the wrong loop Fan warns about): s[tid] += s[tid + offset]; "
              "__syncwarp(); without the if, lane t reads s[t + offset] while lane t + offset writes it.");
  s.fact("right-sum", "right sum", right, report::Format::plain, "computed on the CPU");

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
      s.fact(name + "-s0-model", name + ": s[0] (model)", model[0]);
      shown.push_back({model, name + "-model", name + " model"});
      if (gpu) {
        s.fact(name + "-s0-gpu", name + ": s[0] (gpu)", (*gpu)[0]);
        shown.push_back({*gpu, name + "-gpu", name + " gpu"});
        const auto bad = differing_words(*gpu, model);
        s.agreement(name + "-gpu-agrees", name + " (all 64 shared words)", bad.empty(),
                    bad.empty() ? "64 of 64 compared words agree" : "words " + report::list_of(bad) + " differ");
        s.check(name + "-right-sum", name + ": s[0] is the right sum", (*gpu)[0] == right,
                "s[0] = " + std::to_string((*gpu)[0]) + ", right sum " + std::to_string(right));
      }
      continue;
    }
    const SharedWords desc = model_syncwarp_racy_descending(values);
    s.fact("racy-s0-lockstep", "racy: s[0] if the warp runs in lockstep (model)", model[0]);
    s.fact("racy-s0-descending", "racy: s[0] if lanes run one at a time, 31 down to 0 (model)", desc[0]);
    shown.push_back({model, "racy-lockstep", "racy lockstep"});
    shown.push_back({desc, "racy-descending", "racy 31..0"});
    if (!gpu) {
      s.note("racy: what a real GPU returns needs a GPU; the model shows two orders the hardware may use.");
      continue;
    }
    const std::int32_t got = (*gpu)[0];
    s.fact("racy-s0-gpu", "racy: s[0] on this GPU", got);
    shown.push_back({*gpu, "racy-gpu", "racy gpu"});
    if (got == right)
      s.note("racy on this GPU: s[0] = " + std::to_string(got) +
             ", the right sum, because a converged warp executes each load for all 32 lanes before any store. The "
             "race is still there: independent thread scheduling (sm_70+) permits other orders, and "
             "`compute-sanitizer --tool racecheck` reports the hazard.");
    else
      s.note("racy on this GPU: s[0] = " + std::to_string(got) + " instead of " + std::to_string(right) +
             ": the read-write race changed the sum by " + std::to_string(got - right) + ".");
  }

  report::Table t("shared", "s[0..31] after the five steps");
  t.lanes_across = true;
  t.column("index", "s index").column("input", "input");
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
