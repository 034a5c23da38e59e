#pragma once
// The inputs a student chooses on the command line: predicates for the votes, keys for the
// match functions, the values each lane passes in, and the participation mask.
#include <cstdint>
#include <optional>
#include <string>

#include "core/thread_predicate.hpp"
#include "techniques/warp_primitives/warp_primitives.hpp"

namespace cudasync::warp_primitives {

// "even", "odd", "true", "false", "random" (seeded), or "lane<K", "lane<=K", "lane>K",
// "lane>=K", "lane==K", "lane!=K" with 0 <= K <= 32 (core/thread_predicate, lane only).
using Predicate = ThreadPredicate;
std::optional<Predicate> parse_predicate(const std::string& text);
Lanes evaluate(const Predicate& p, std::uint64_t seed);  // 0/1 per lane
inline const char* kPredicateForms = "even, odd, true, false, random, or lane<K, lane<=K, lane>K, lane>=K, lane==K, lane!=K";

// "lane%K", "lane/K", "lane&K" (K >= 1) or a constant "K": the value __match_*_sync compares.
struct Key {
  enum class Kind { mod, div, bit_and, constant } kind = Kind::mod;
  int k = 4;
  std::string text;
};
std::optional<Key> parse_key(const std::string& text);
Lanes evaluate(const Key& k);
inline const char* kKeyForms = "lane%K, lane/K, lane&K (K >= 1), or a constant K";

// "tid": each lane passes its thread index, as in Fan's example; "random": values 0..99 drawn from --seed.
enum class ValueKind { tid, random };
Lanes make_values(ValueKind kind, std::uint64_t seed);

// Hex (0x...) or decimal (a leading 0 is not octal), 32 bits; no sign or spaces.
std::optional<std::uint32_t> parse_mask(const std::string& text);

}  // namespace cudasync::warp_primitives
