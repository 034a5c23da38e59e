#pragma once
// Arithmetic on values a student typed. Sizes are computed in 64-bit with every product and sum
// checked, never in int: an overflow is nullopt, which require_host_memory and
// require_device_memory (core/memory_budget.hpp) refuse with a usage error naming the option.
//
//   const auto bytes = checked_product({n, blocks, sizeof(float)});   // nullopt on overflow
//   require_host_memory(ctx, bytes, "--n " + std::to_string(n) + " floats");
//
// Standard library only (nvcc may compile it).
#include <cstdint>
#include <initializer_list>
#include <optional>

namespace cudasync {

inline std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// The product of every factor, or nullopt when it does not fit in 64 bits.
inline std::optional<std::uint64_t> checked_product(std::initializer_list<std::uint64_t> factors) {
  std::uint64_t r = 1;
  for (const std::uint64_t f : factors)
    if (__builtin_mul_overflow(r, f, &r)) return std::nullopt;
  return r;
}

// The sum of sizes that may already have overflowed (nullopt stays nullopt).
inline std::optional<std::uint64_t> checked_sum(std::initializer_list<std::optional<std::uint64_t>> terms) {
  std::uint64_t r = 0;
  for (const auto& t : terms)
    if (!t || __builtin_add_overflow(r, *t, &r)) return std::nullopt;
  return r;
}

}  // namespace cudasync
