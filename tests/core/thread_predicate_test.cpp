// The shared predicate grammar: what each lesson's choice of variables and bound accepts, and
// what every thread of a block gets.
#include <gtest/gtest.h>

#include <numeric>

#include "core/thread_predicate.hpp"

namespace cudasync {
namespace {

int ones(const std::vector<std::int32_t>& v) { return std::accumulate(v.begin(), v.end(), 0); }

const PredicateGrammar kWarp{true, 32};
const PredicateGrammar kBlock{false, 1024};

TEST(ThreadPredicate, LaneOnlyGrammarRefusesWarpAndTid) {
  EXPECT_TRUE(parse_thread_predicate("lane<5", kWarp).has_value());
  EXPECT_FALSE(parse_thread_predicate("tid<5", kWarp).has_value());
  EXPECT_FALSE(parse_thread_predicate("warp==0", kWarp).has_value());
  EXPECT_TRUE(parse_thread_predicate("tid<5", kBlock).has_value());
  EXPECT_TRUE(parse_thread_predicate("warp==0", kBlock).has_value());
}

TEST(ThreadPredicate, BoundOnKIsTheGrammarsOwn) {
  EXPECT_TRUE(parse_thread_predicate("lane<32", kWarp).has_value());
  EXPECT_FALSE(parse_thread_predicate("lane<33", kWarp).has_value());
  EXPECT_TRUE(parse_thread_predicate("tid<1024", kBlock).has_value());
  EXPECT_FALSE(parse_thread_predicate("tid<1025", kBlock).has_value());
  EXPECT_FALSE(parse_thread_predicate("tid<9999999999", kBlock).has_value());  // too many digits: no overflow
}

TEST(ThreadPredicate, VariablesCountThreadsOfABlock) {
  EXPECT_EQ(ones(evaluate_thread_predicate(*parse_thread_predicate("lane<5", kBlock), 256, 1, 0)), 5 * 8);
  EXPECT_EQ(ones(evaluate_thread_predicate(*parse_thread_predicate("warp==1", kBlock), 256, 1, 0)), 32);
  EXPECT_EQ(ones(evaluate_thread_predicate(*parse_thread_predicate("tid>=200", kBlock), 256, 1, 0)), 56);
  EXPECT_EQ(ones(evaluate_thread_predicate(*parse_thread_predicate("even", kBlock), 99, 1, 0)), 50);
}

TEST(ThreadPredicate, RandomDependsOnSeedAndStreamOnly) {
  const auto p = *parse_thread_predicate("random", kBlock);
  const auto a = evaluate_thread_predicate(p, 256, 7, 1);
  EXPECT_EQ(a, evaluate_thread_predicate(p, 256, 7, 1));
  EXPECT_NE(a, evaluate_thread_predicate(p, 256, 8, 1));
  EXPECT_NE(a, evaluate_thread_predicate(p, 256, 7, 3));  // two lessons' draws stay apart
}

}  // namespace
}  // namespace cudasync
