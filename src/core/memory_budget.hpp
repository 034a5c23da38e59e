#pragma once
// The memory one run may take. Before a lesson allocates for sizes a student chose, it estimates
// the bytes in 64-bit (core/checked.hpp: an overflow is nullopt, never a wrapped small number)
// and asks here first:
//
//   const auto bytes = checked_product({o.n, sizeof(float)});
//   require_host_memory(run.ctx, bytes, "--n " + std::to_string(o.n) + ": the input array");
//   if (run.ctx.gpu) require_device_memory(run.ctx, bytes, "--n " + std::to_string(o.n) + ": the input array");
//
// Above the bound the run stops before it allocates: a usage error (exit 2) naming the estimate,
// the bound and the option that raises it. On the host the bound is --max-memory (default 1 GiB);
// on the GPU it is the device's free memory (cudaMemGetInfo).
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/run_context.hpp"

namespace cudasync {

inline constexpr std::uint64_t kMinMaxMemory = std::uint64_t{1} << 20;      // --max-memory's smallest: 1 MiB

// `what` names the option and the value the size follows from ("--n 1073741824: the input array").
// nullopt `bytes` is a size past 2^64 bytes. Throws UsageError above ctx.max_memory.
void require_host_memory(const RunContext& ctx, std::optional<std::uint64_t> bytes, std::string_view what);

// The same against the free memory of the run's GPU; does nothing on the model (ctx.gpu false).
void require_device_memory(const RunContext& ctx, std::optional<std::uint64_t> bytes, std::string_view what);

// Free memory of GPU `device` in bytes, chosen at link time (cuda/device_probe_cuda.cpp,
// device_probe_none.cpp): nullopt in a model-only build or when the runtime cannot say.
std::optional<std::uint64_t> free_device_memory(int device);

}  // namespace cudasync
