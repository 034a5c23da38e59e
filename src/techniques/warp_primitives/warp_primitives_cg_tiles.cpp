// Part cg-tiles (Fan 10.4): cooperative-group partitions of one warp, thread_rank() and size() per
// lane, a thread_block_tile<4>'s shuffle and votes, and nvcc's answer to a shuffle on a plain
// thread_group (compiled at build time: core/expected_errors).
#include "core/expected_errors.hpp"
#include "techniques/warp_primitives/warp_primitives_gpu.hpp"
#include "techniques/warp_primitives/warp_primitives_judge.hpp"
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

namespace cudasync::warp_primitives {

namespace {

using I = std::int64_t;
using report::RowMark;
using report::Value;

struct Field {
  const char* key;
  const char* title;
  I (*get)(const TileLanes&, std::size_t);
};

const Field kRanks[] = {
    {"g32-rank", "g32 rank", [](const TileLanes& t, std::size_t l) { return I{t.g32_rank[l]}; }},
    {"g32-size", "g32 size", [](const TileLanes& t, std::size_t l) { return I{t.g32_size[l]}; }},
    {"g4-rank", "g4 rank", [](const TileLanes& t, std::size_t l) { return I{t.g4_rank[l]}; }},
    {"g4-size", "g4 size", [](const TileLanes& t, std::size_t l) { return I{t.g4_size[l]}; }},
};
const Field kTile[] = {
    {"shfl-down", "shfl_down", [](const TileLanes& t, std::size_t l) { return I{t.shfl_down[l]}; }},
    {"any", "any", [](const TileLanes& t, std::size_t l) { return I{t.any[l]}; }},
    {"all", "all", [](const TileLanes& t, std::size_t l) { return I{t.all[l]}; }},
    {"ballot", "ballot", [](const TileLanes& t, std::size_t l) { return I{t.ballot[l]}; }},
};

// One row per lane (drawn across): the inputs, then each field from the model and, on a GPU, from it.
template <std::size_t N>
report::Table lanes_table(const char* id, const std::string& title, const Field (&fields)[N], const TileLanes& model,
                          const std::optional<TileLanes>& gpu, const Inputs* inputs, const Lanes& predicate) {
  report::Table t(id, title);
  t.lanes_across = true;
  t.column("thread", "thread");
  if (inputs) t.column("var", "v").column("predicate", "pred");
  for (const Field& f : fields) {
    t.column(f.key, f.title);
    if (gpu) t.column(std::string(f.key) + "-gpu", "gpu");
  }
  for (std::size_t l = 0; l < kWarpSize; ++l) {
    std::vector<std::pair<std::string, Value>> cells{{"thread", I(l)}};
    if (inputs) {
      cells.emplace_back("var", I{inputs->values[l]});
      cells.emplace_back("predicate", I{predicate[l]});
    }
    bool same = true;
    for (const Field& f : fields) {
      cells.emplace_back(f.key, f.get(model, l));
      if (!gpu) continue;
      cells.emplace_back(std::string(f.key) + "-gpu", f.get(*gpu, l));
      same = same && f.get(*gpu, l) == f.get(model, l);
    }
    t.row(cells, same ? RowMark::none : RowMark::mismatch);
  }
  return t;
}

}  // namespace

report::Section cg_tiles_part(Run& run) {
  const Lanes& predicate = run.vote.predicate;
  const TileLanes model = model_tiles(run.in.values, predicate);
  std::optional<TileLanes> gpu;
  if (run.ctx.gpu) gpu = gpu_tiles(run.in.values, predicate);

  report::Section s("cg-tiles", say("cg-tiles.title"));
  s.paragraph(say("cg-tiles.partitions"));
  s.fact("block-indices", say("cg-tiles.block-indices"), say("cg-tiles.block-indices-value"), report::Format::plain,
         say("cg-tiles.block-indices-source"));
  s.add(lanes_table("ranks", say("cg-tiles.ranks-title"), kRanks, model, gpu, nullptr, predicate));
  s.paragraph(say("cg-tiles.static-tile"));
  s.add(lanes_table("tile", say("cg-tiles.tile-title"), kTile, model, gpu, &run.in, predicate));
  if (gpu) {
    const LaneVerdict v = judge_tiles(model, *gpu);
    s.agreement("gpu-agrees", say("cg-tiles.gpu-agrees"), v.passed(), v.detail());
  }

  s.paragraph(say("cg-tiles.no-shfl"));
  const ExpectedError e = expected_error("warp_primitives/thread_group_shfl");
  if (!e.available) {
    s.note(e.reason);
    return s;
  }
  s.fact("thread-group-shfl", e.compiler, e.failed ? e.first_error : say("cg-tiles.it-compiled"));
  s.check("thread-group-has-no-shfl", say("cg-tiles.no-shfl-check"),
          e.failed && e.first_error.find("shfl_down") != std::string::npos,
          say(e.failed ? "cg-tiles.no-shfl-named" : "cg-tiles.no-shfl-compiled"));
  return s;
}

}  // namespace cudasync::warp_primitives
