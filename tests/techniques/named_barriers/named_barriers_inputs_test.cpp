// Predicates and values of named-barriers: what the CLI accepts, and what each thread gets.
#include <gtest/gtest.h>

#include <numeric>

#include "techniques/named_barriers/lesson.hpp"

namespace cudasync::named_barriers {
namespace {

int ones(const std::vector<std::int32_t>& v) { return std::accumulate(v.begin(), v.end(), 0); }

TEST(NamedBarriersInputs, LaneWarpAndTidPredicates) {
  EXPECT_EQ(ones(evaluate(*parse_predicate("lane<5"), 256, 1)), 5 * 8);
  EXPECT_EQ(ones(evaluate(*parse_predicate("tid<100"), 256, 1)), 100);
  EXPECT_EQ(ones(evaluate(*parse_predicate("warp==1"), 256, 1)), 32);
  EXPECT_EQ(ones(evaluate(*parse_predicate("warp >= 6"), 256, 1)), 64);
  EXPECT_EQ(ones(evaluate(*parse_predicate("lane!=31"), 64, 1)), 62);
  EXPECT_EQ(ones(evaluate(*parse_predicate("even"), 100, 1)), 50);
  EXPECT_EQ(ones(evaluate(*parse_predicate("odd"), 101, 1)), 50);
  EXPECT_EQ(ones(evaluate(*parse_predicate("true"), 77, 1)), 77);
  EXPECT_EQ(ones(evaluate(*parse_predicate("false"), 77, 1)), 0);
  const auto lane5 = evaluate(*parse_predicate("lane<5"), 64, 1);
  EXPECT_EQ(lane5[4], 1);
  EXPECT_EQ(lane5[5], 0);
  EXPECT_EQ(lane5[36], 1);
}

TEST(NamedBarriersInputs, RandomIsSeeded) {
  const auto a = evaluate(*parse_predicate("random"), 256, 7);
  EXPECT_EQ(a, evaluate(*parse_predicate("random"), 256, 7));
  EXPECT_NE(a, evaluate(*parse_predicate("random"), 256, 8));
  EXPECT_GT(ones(a), 64);
  EXPECT_LT(ones(a), 192);
}

TEST(NamedBarriersInputs, UnknownPredicatesAreRefused) {
  for (const char* bad : {"", "lane<<5", "lane<", "lanes<5", "tid<1025", "tid<-1", "5<lane", "maybe", "lane%2"})
    EXPECT_FALSE(parse_predicate(bad).has_value()) << bad;
  EXPECT_TRUE(parse_predicate("tid<1024").has_value());
  EXPECT_EQ(parse_predicate(" lane <= 3 ")->k, 3);
}

TEST(NamedBarriersInputs, InputIsSeededAndInRange) {
  const auto a = make_input(4, 32, 1);
  ASSERT_EQ(a.size(), 128u);
  EXPECT_EQ(a, make_input(4, 32, 1));
  EXPECT_NE(a, make_input(4, 32, 2));
  for (auto v : a) {
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 10000);
  }
}

// Found by fuzzing: CLI11's delimiter dropped empty items, so "1,,2" was read as "1,2".
TEST(NamedBarriersInputs, IntListsKeepEveryItemOrFail) {
  EXPECT_EQ(parse_int_list("1,2"), (std::vector<int>{1, 2}));
  EXPECT_EQ(parse_int_list("7"), (std::vector<int>{7}));
  EXPECT_EQ(parse_int_list("-1,2"), (std::vector<int>{-1, 2}));
  EXPECT_EQ(parse_int_list("1073741824,1073741824"), (std::vector<int>{1073741824, 1073741824}));
  for (const char* bad : {"", ",", "1,,2", "1,", ",1", "1,x", "1.5", "2147483648", "-2147483649", "99999999999999999999"})
    EXPECT_EQ(parse_int_list(bad), std::nullopt) << bad;
}

TEST(NamedBarriersInputs, InputSizeIsComputedWithoutOverflow) {
  EXPECT_EQ(make_input(64, 992, 1).size(), 64u * 992u);
  EXPECT_TRUE(make_input(0, 32, 1).empty());
}

}  // namespace
}  // namespace cudasync::named_barriers
