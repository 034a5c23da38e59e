#pragma once
// The time of one call of a reduction (cg-reduce's --bench), term by term, and from it GB/s =
// bytes / time. A call is its launches (timed with events, as the bench times it: a launch costs
// the host's submission and the GPU's start), the bytes it reads (what a plain streaming read of
// the same input costs, less that read's own launch), and what a rung adds on top:
//
//   atomic rungs (one block per 128 elements, one atomicAdd each, to one word):
//     launch   launch-memset-1                 the memset of the target, then the kernel
//     bytes    read(n) - launch-1              n x 4 bytes from DRAM
//     atomics  max(0, blocks x per-block - bytes)  the same-address atomics, beyond the bytes they overlap
//   two-pass rungs: launch-2 + bytes + a second pass over the grid's partial sums (ceil(grid / 1024)
//   dependent L2 loads per thread and the block's tree).
#include <cstdint>

#include "core/cost/model.hpp"

namespace cudasync::cost {

enum class ReduceDesign : int {
  atomic = 0,  // rungs 1-4: a block per `block` elements, each ends in atomicAdd to one word (after a memset)
  two_pass,    // rungs 5-6: a first launch of `grid` blocks writes partial sums, <<<1, 1024>>> adds them
  grid_sync,   // rung 7: one cooperative launch, grid.sync(), block 0 adds the partials
  cub,         // cub::DeviceReduce::Sum: two launches, as two-pass
  one_pass,    // one launch: the last block to finish (a ticket atomic) adds the partials
};

struct ReduceShape {
  std::int64_t n = 0;
  int elem_bytes = 4;
  int block = 128;  // threads per block of the first pass
  int grid = 0;     // blocks of the first pass (two-pass, grid-sync, one-pass)
  std::string at;   // the input's key: "2-24"
  double bytes() const { return static_cast<double>(n) * elem_bytes; }
};

inline constexpr int kDispatchBlocks = 1 << 16;     // the empty-blocks probe
inline constexpr int kAtomicProbeBlocks = 1 << 18;  // the atomic-blocks probe

// The streaming read of the bench's own input (the caller measures it: Probe::stream_read).
Need read_need(const ReduceShape& s);
std::vector<Need> reduce_needs(ReduceDesign d, const ReduceShape& s);
// ns per call; GB/s = s.bytes() / ns.
Prediction predict_reduce(ReduceDesign d, const ReduceShape& s, const Primitives& p);

}  // namespace cudasync::cost
