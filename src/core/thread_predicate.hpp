#pragma once
// The predicates a student types for votes and barrier reductions ("even", "lane<5", "tid>=100"),
// shared by every lesson that asks for one. Each lesson chooses which variables it allows and how
// large K may be; the grammar and the evaluation are the same everywhere.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudasync {

// "even", "odd", "true", "false", "random" (seeded), or VAR OP K: VAR is lane (tid % 32),
// warp (tid / 32) or tid; OP is one of < <= > >= == !=; K is a whole number 0..max_k.
struct ThreadPredicate {
  enum class Var { lane, warp, tid } var = Var::lane;
  enum class Kind { even, odd, always, never, random, lt, le, gt, ge, eq, ne } kind = Kind::even;
  int k = 0;
  std::string text;
};

struct PredicateGrammar {
  bool lane_only = false;  // only "lane OP K" (a lesson about one warp)
  int max_k = 1024;
};

std::optional<ThreadPredicate> parse_thread_predicate(const std::string& text, const PredicateGrammar& grammar);

// 0 or 1 for threads 0..threads-1 ("even"/"odd" look at the thread index). `random` draws one bit
// per thread from a generator seeded by `seed`; `stream` keeps lessons' random draws apart.
std::vector<std::int32_t> evaluate_thread_predicate(const ThreadPredicate& p, int threads, std::uint64_t seed,
                                                    std::uint64_t stream);

}  // namespace cudasync
