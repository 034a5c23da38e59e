#include "core/cost/reduce_model.hpp"

#include "core/cost/primitive_keys.hpp"

namespace cudasync::cost {

namespace {

constexpr int kSecondPassBlock = 1024;  // the two-pass rungs' <<<1, 1024>>>
constexpr int kOnePassBlock = 512;      // the one-pass kernel's block
constexpr int kTreeSteps = 5;           // __syncthreads() in a block's tree down to one warp (1024 -> 32)

std::int64_t ceil_div64(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::string named(const Need& n) { return n.key.id + (n.key.at.empty() ? "" : "(" + n.key.at + ")"); }

Need launch_of(ReduceDesign d) {
  switch (d) {
    case ReduceDesign::atomic: return prim::launch(Probe::launch_memset_1);
    case ReduceDesign::grid_sync: return prim::launch(Probe::launch_coop);
    case ReduceDesign::one_pass: return prim::launch(Probe::launch_1);
    default: return prim::launch(Probe::launch_2);
  }
}

}  // namespace

Need read_need(const ReduceShape& s) {
  ProbeSpec spec;
  spec.probe = Probe::stream_read;
  spec.bytes = static_cast<long long>(s.bytes());
  spec.reps = 20;
  return {{s.elem_bytes == 8 ? "read-double" : "read-float", s.at}, "a plain streaming read of the same input", spec};
}

std::vector<Need> reduce_needs(ReduceDesign d, const ReduceShape& s) {
  std::vector<Need> n;
  add_need(n, prim::launch(Probe::launch_1));
  add_need(n, launch_of(d));
  add_need(n, read_need(s));
  switch (d) {
    case ReduceDesign::atomic:
      add_need(n, prim::empty_blocks(kDispatchBlocks, s.block));
      add_need(n, prim::atomic_blocks(kAtomicProbeBlocks, s.block, s.elem_bytes == 8));
      break;
    case ReduceDesign::two_pass:
    case ReduceDesign::cub:
      add_need(n, prim::empty_blocks(kDispatchBlocks, s.block));
      add_need(n, prim::rt_load());
      add_need(n, prim::sync(kSecondPassBlock));
      break;
    case ReduceDesign::grid_sync:
      add_need(n, prim::grid_sync(s.grid, s.block));
      add_need(n, prim::rt_load());
      add_need(n, prim::sync(s.block));
      break;
    case ReduceDesign::one_pass:
      add_need(n, prim::rt_atomic());
      add_need(n, prim::fence_under(Op::fence_sc, 1));
      add_need(n, prim::rt_load());
      add_need(n, prim::sync(kOnePassBlock));
      break;
  }
  return n;
}

Prediction predict_reduce(ReduceDesign d, const ReduceShape& s, const Primitives& p) {
  Prediction out;
  const Need one = prim::launch(Probe::launch_1), launch = launch_of(d), read = read_need(s);
  const double launch_1 = p.ns(one.key);
  out.add("launch", "launches, event-timed", p.ns(launch.key), named(launch));
  const double bytes = p.ns(read.key) - launch_1;
  out.add("bytes", "the bytes, read once", bytes, named(read) + " - launch-1");
  const auto per_block = [&](const Need& probe, int blocks) { return (p.ns(probe.key) - launch_1) / blocks; };
  const auto second_pass = [&](std::int64_t partials, int block) {
    const Need l = prim::rt_load(), y = prim::sync(block);
    const std::int64_t loads = ceil_div64(partials, block);
    out.add("finish", "adding the partial sums",
            static_cast<double>(loads) * p.ns(l.key) + kTreeSteps * p.ns(y.key),
            std::to_string(loads) + " x rt-load + " + std::to_string(kTreeSteps) + " x sync(" + std::to_string(block) + ")");
  };
  switch (d) {
    case ReduceDesign::atomic: {
      const Need e = prim::empty_blocks(kDispatchBlocks, s.block);
      const Need a = prim::atomic_blocks(kAtomicProbeBlocks, s.block, s.elem_bytes == 8);
      const std::int64_t blocks = ceil_div64(s.n, s.block);
      const double each = nan_max(per_block(e, kDispatchBlocks), per_block(a, kAtomicProbeBlocks));
      out.add("atomics", "same-address atomics beyond the bytes", excess(static_cast<double>(blocks) * each - bytes),
              "max(0, " + std::to_string(blocks) + " blocks x max(per block of " + named(e) + ", of " + named(a) +
                  ") - bytes)");
      break;
    }
    case ReduceDesign::two_pass:
    case ReduceDesign::cub: {
      const Need e = prim::empty_blocks(kDispatchBlocks, s.block);
      out.add("blocks", "starting the blocks, beyond the bytes", excess(s.grid * per_block(e, kDispatchBlocks) - bytes),
              "max(0, " + std::to_string(s.grid) + " x per block of " + named(e) + " - bytes)");
      second_pass(s.grid, kSecondPassBlock);
      break;
    }
    case ReduceDesign::grid_sync: {
      const Need g = prim::grid_sync(s.grid, s.block);
      out.add("barrier", "one grid.sync()", p.ns(g.key), named(g));
      second_pass(s.grid, s.block);
      break;
    }
    case ReduceDesign::one_pass: {
      const Need a = prim::rt_atomic(), f = prim::fence_under(Op::fence_sc, 1);
      out.add("ticket", "the last block learns it is last", p.ns(f.key) + p.ns(a.key), named(f) + " + rt-atomic");
      second_pass(s.grid, kOnePassBlock);
      break;
    }
  }
  return out;
}

}  // namespace cudasync::cost
