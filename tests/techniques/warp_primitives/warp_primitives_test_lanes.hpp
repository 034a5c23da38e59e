#pragma once
// Lane values the warp-primitives tests share.
#include "techniques/warp_primitives/warp.hpp"

namespace cudasync::warp_primitives::test_lanes {

// Every lane passes its own index, as in Fan's example.
inline Lanes tid_values() {
  Lanes v{};
  for (int i = 0; i < kWarpSize; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

}  // namespace cudasync::warp_primitives::test_lanes
