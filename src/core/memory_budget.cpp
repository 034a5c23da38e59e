#include "core/memory_budget.hpp"

#include <string>

#include "core/cli/option_checks.hpp"
#include "core/errors.hpp"

namespace cudasync {

namespace {

std::string estimate_text(std::optional<std::uint64_t> bytes) {
  return bytes ? "an estimated " + cli::size_text(*bytes) : std::string("more than 2^64 bytes (the size overflows)");
}

// A --max-memory value that would admit `bytes`: whole GiB, or whole MiB below 1 GiB.
std::string raised_bound(std::uint64_t bytes) {
  constexpr std::uint64_t mib = std::uint64_t{1} << 20, gib = std::uint64_t{1} << 30;
  if (bytes <= gib) return std::to_string(bytes / mib + (bytes % mib != 0)) + "M";
  return std::to_string(bytes / gib + (bytes % gib != 0)) + "G";
}

}  // namespace

void require_host_memory(const RunContext& ctx, std::optional<std::uint64_t> bytes, std::string_view what) {
  if (bytes && *bytes <= ctx.max_memory) return;
  std::string m = std::string(what) + " needs " + estimate_text(bytes) + " of host memory, above the bound of " +
                  cli::size_text(ctx.max_memory) + " that --max-memory sets; accepted: a run within the bound: "
                  "choose smaller values";
  if (bytes) m += ", or raise the bound with --max-memory " + raised_bound(*bytes);
  throw UsageError(m);
}

void require_device_memory(const RunContext& ctx, std::optional<std::uint64_t> bytes, std::string_view what) {
  if (!ctx.gpu || !ctx.device) return;
  const auto free = free_device_memory(ctx.device->index);
  if (bytes && (!free || *bytes <= *free)) return;
  std::string m = std::string(what) + " needs " + estimate_text(bytes) + " of GPU memory";
  if (free) m += ", and GPU " + std::to_string(ctx.device->index) + " has " + cli::size_text(*free) + " free";
  m += "; accepted: a run that fits in the GPU's free memory: choose smaller values";
  throw UsageError(m);
}

}  // namespace cudasync
