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

  report::Section s("cg-tiles", "cooperative-group tiles: thread_rank(), size(), a tile's shuffle and votes");
  s.paragraph("One warp of 32 threads. thread_group g32 = tiled_partition(this_thread_block(), 32) cuts the block "
              "into warps; thread_group g4 = tiled_partition(g32, 4) cuts each warp into tiles of 4 (Fan, 10.4). "
              "thread_rank() numbers a thread inside its group from 0; size() is the group's size.");
  s.fact("block-indices", "this_thread_block(): group_index(), thread_index()",
         std::string("group_index() is blockIdx, (0, 0, 0) for this one block; thread_index() is threadIdx, "
                     "(5, 0, 0) for lane 5; both dim3, and sync() is __syncthreads()"),
         report::Format::plain, "Fan 10.4; CUDA C++ Programming Guide, \"Cooperative Groups\"");
  s.add(lanes_table("ranks", "thread_rank() and size() of g32 and g4, per lane", kRanks, model, gpu, nullptr,
                    predicate));
  s.paragraph("thread_block_tile<4> t4 = tiled_partition<4>(this_thread_block()) is the same partition with its "
              "size known at compile time, and it has the warp functions without a mask: t4.shfl_down(v, 1) is "
              "__shfl_down_sync with width 4; t4.any, t4.all and t4.ballot vote inside the tile. A tile's ballot "
              "numbers its bits by rank in the tile, not by lane: bit r is rank r's predicate.");
  s.add(lanes_table("tile", "t4.shfl_down(v, 1), t4.any(pred), t4.all(pred), t4.ballot(pred), per lane", kTile, model,
                    gpu, &run.in, predicate));
  if (gpu) {
    const LaneVerdict v = judge_tiles(model, *gpu);
    s.agreement("gpu-agrees", "ranks, sizes, the tile's shuffle and votes", v.passed(), v.detail());
  }

  s.paragraph("A plain thread_group has no shuffle: its size is known only at run time. The build compiles "
              "g32.shfl_down(y, 1) on the thread_group g32 above and keeps the compiler's first error.");
  const ExpectedError e = expected_error("warp_primitives/thread_group_shfl");
  if (!e.available) {
    s.note(e.reason);
    return s;
  }
  s.fact("thread-group-shfl", e.compiler, e.failed ? e.first_error : std::string("(it compiled)"));
  s.check("thread-group-has-no-shfl", "nvcc refuses a shuffle on a plain thread_group",
          e.failed && e.first_error.find("shfl_down") != std::string::npos,
          e.failed ? "the first error names shfl_down" : "this nvcc compiled it");
  return s;
}

}  // namespace cudasync::warp_primitives
