#pragma once
// What a student chooses on the command line: the predicates of bar.red, the producers' values.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/thread_predicate.hpp"

namespace cudasync::named_barriers {

// "even", "odd", "true", "false", "random" (seeded), or VAR OP K with VAR one of lane (tid % 32),
// warp (tid / 32) or tid, OP one of < <= > >= == !=, and 0 <= K <= 1024.
// (core/thread_predicate, every variable.)
using Predicate = ThreadPredicate;
std::optional<Predicate> parse_predicate(const std::string& text);
std::vector<std::int32_t> evaluate(const Predicate& p, int threads, std::uint64_t seed);  // 0/1 per thread
inline const char* kPredicateForms =
    "even, odd, true, false, random, or lane|warp|tid followed by <, <=, >, >=, == or != and a number 0..1024 "
    "(lane<5, tid>=100, warp==1)";
// The predicates the bar-red part runs when --predicate is not given.
inline const std::vector<std::string> kDefaultPredicates = {"lane<5", "tid<100", "even", "true", "false", "random"};

// The producers' values: rounds * producers seeded numbers 0..9999.
std::vector<std::int32_t> make_input(int rounds, int producers, std::uint64_t seed);

// A comma-separated list of whole numbers that fit an int, every item present: "1,2" and "7", not
// "1,,2", "1,", "" or "1,x" (nullopt). CLI11's delimiter drops empty items; this does not.
std::optional<std::vector<int>> parse_int_list(const std::string& text);

}  // namespace cudasync::named_barriers
